/* infer_typed.c - hpcjit.typed.List, Dict and Set (Numba's typed
 * containers) made in compiled code: `List()`, `List(iterable)`,
 * `List.empty_list(types.int64)`, `Dict()`, `Dict.empty(key_type,
 * value_type)`, `Set()`, `Set.empty(key_type)`.  A typed container is the same native list or dict as a
 * reflected one (lib/list, lib/dict do everything with it); only its type
 * differs (Type.typed), which makes it cross the boundary by reference
 * (typecodes '#' and '&').  So each call is typed here and, in the final
 * pass, becomes the list or dict feature's `list(...)` / `dict()` call with
 * the typed result type. */
#include "infer.h"
#include "registry.h"

#include <string.h>

/* The type a type argument stands for (`types.int64`, `np.float64`, a
 * global `types.float64[:]`), or NULL after a diagnostic. */
static Type *type_arg(Inf *I, Node **pa, const char *fname, const char *what) {
    Type *t = infer_expr(I, pa);
    if (!t || IS_UNK(t))
        return t;
    if (t->kind != TY_DTYPE)
        return TYPING(I, *pa, "%s(): %s must be a type (types.int64, types.float64[:], ...), not %s", fname,
                      what, infer_tyname(I, t));
    return t->dtype;
}

/* Make n the feature's call `id` with no arguments (final pass). */
static void become_empty(Inf *I, Node *n, BuiltinId id) {
    if (!I->final)
        return;
    n->builtin = id;
    n->args.len = 0;
    n->keywords.len = 0;
}

static Type *infer_typed_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    (void)self;
    InferSig s;
    Node *sl[INFER_MAX_SLOTS];
    switch (id) {
    case BI_TYPED_LIST: {
        INFER_SIG(&s, "List", "iterable");
        if (!infer_bind_slots(I, n, NULL, &s, sl))
            return NULL;
        if (!sl[0]) {
            become_empty(I, n, BI_LIST);
            return ty_typed_list(I->tc, infer_ty(I, TY_UNKNOWN));
        }
        /* list(iterable) by the list feature, then the typed type */
        const LibOps *lst = lib_ops(BI_LIST);
        Type *r = lst->infer_call(I, n, BI_LIST, NULL);
        if (!r || IS_UNK(r))
            return r;
        if (I->final)
            n->builtin = BI_LIST;
        return ty_typed_list(I->tc, r->item);
    }
    case BI_TYPED_LIST_EMPTY: {
        INFER_SIG(&s, "empty_list", "item_type", "allocated");
        if (!infer_bind_slots(I, n, NULL, &s, sl))
            return NULL;
        if (!sl[0])
            return TYPING(I, n, "empty_list() missing required argument 'item_type'");
        if (sl[1]) {
            Type *at = infer_expr(I, &sl[1]);
            if (!at || IS_UNK(at))
                return at;
            if (!ty_is_int(at))
                return TYPING(I, sl[1], "empty_list(): allocated must be an integer, not %s", infer_tyname(I, at));
        }
        Type *it = type_arg(I, &sl[0], "empty_list", "item_type");
        if (!it || IS_UNK(it))
            return it;
        become_empty(I, n, BI_LIST);
        return ty_typed_list(I->tc, it);
    }
    case BI_TYPED_DICT:
        if (n->args.len || n->keywords.len)
            return UNSUP(I, n, "typed.Dict() takes no arguments in compiled code (use Dict.empty(key_type, "
                              "value_type))");
        become_empty(I, n, BI_DICT);
        return ty_typed_dict(I->tc, infer_ty(I, TY_UNKNOWN), infer_ty(I, TY_UNKNOWN));
    case BI_TYPED_DICT_EMPTY: {
        INFER_SIG(&s, "empty", "key_type", "value_type", "n_keys");
        if (!infer_bind_slots(I, n, NULL, &s, sl))
            return NULL;
        if (!sl[0] || !sl[1])
            return TYPING(I, n, "Dict.empty() missing required argument '%s'", sl[0] ? "value_type" : "key_type");
        if (sl[2]) {
            Type *nt = infer_expr(I, &sl[2]);
            if (!nt || IS_UNK(nt))
                return nt;
            if (!ty_is_int(nt))
                return TYPING(I, sl[2], "Dict.empty(): n_keys must be an integer, not %s", infer_tyname(I, nt));
        }
        Type *kt = type_arg(I, &sl[0], "Dict.empty", "key_type");
        if (!kt || IS_UNK(kt))
            return kt;
        Type *vt = type_arg(I, &sl[1], "Dict.empty", "value_type");
        if (!vt || IS_UNK(vt))
            return vt;
        if (!ty_is_number(kt) && kt->kind != TY_STRING && !(kt->kind == TY_TUPLE && !ty_has_unknown(kt)))
            return TYPING(I, sl[0], "Dict.empty(): keys of type %s are not supported (numbers, str and tuples are)",
                          infer_tyname(I, kt));
        become_empty(I, n, BI_DICT);
        return ty_typed_dict(I->tc, kt, vt);
    }
    case BI_TYPED_SET:
        if (n->args.len || n->keywords.len)
            return UNSUP(I, n, "typed.Set() takes no arguments in compiled code (add the items)");
        become_empty(I, n, BI_SET);
        return ty_typed_set(I->tc, infer_ty(I, TY_UNKNOWN));
    case BI_TYPED_SET_EMPTY: {
        INFER_SIG(&s, "empty", "key_type", "n_keys");
        if (!infer_bind_slots(I, n, NULL, &s, sl))
            return NULL;
        if (!sl[0])
            return TYPING(I, n, "Set.empty() missing required argument 'key_type'");
        Type *kt = type_arg(I, &sl[0], "Set.empty", "key_type");
        if (!kt || IS_UNK(kt))
            return kt;
        if (!ty_is_number(kt) && kt->kind != TY_STRING && !(kt->kind == TY_TUPLE && !ty_has_unknown(kt)))
            return TYPING(I, sl[0], "Set.empty(): items of type %s are not supported (numbers, str and tuples "
                          "are)", infer_tyname(I, kt));
        become_empty(I, n, BI_SET);
        return ty_typed_set(I->tc, kt);
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit", builtin_name(id));
    }
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_typed_ops = {
    .name = "typed",
    .infer_call = infer_typed_call,
};
