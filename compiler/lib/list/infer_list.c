/* infer_list.c - typing of Python lists: displays `[a, b]`, list(),
 * sorted(), the methods, indexing, slicing, stores, `del`, `+`, `*`,
 * `+=`, `*=`, comparisons, `in`, iteration, min/max/sum (reflected lists,
 * Numba's `reflected list(T)`).
 *
 * Item types: a list holds items of one type.  An empty display `[]` is
 * list(unknown) until an append, an insert, a store or an extend on the
 * variable holding it fixes its items (infer_widen_var), as Numba infers
 * from the first append.  Appending a value whose type would widen the
 * items (a float to a list(int64)) is a TypingError; list(int64) and
 * list(float64) do not unify (types.c).
 *
 * Tree shape after the final pass (lower_list.c relies on it): every list
 * operation is an N_CALL of a BI_LIST_* builtin (list.def) with args[0]
 * the list for the methods and operators, absent optional arguments NULL,
 * indices and counts cast to int64, items cast to the item type.
 * BI_LIST_AUGITEM keeps the operator in `op` and the type it is done in in
 * `op_ty`.  A comparison keeps its N_COMPARE; op_tys[i] is the list type
 * (both operands lists) or the item type (`x in lst`: x is cast to it by
 * lower_compare). */
#include "infer.h"
#include "list.h"
#include "registry.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

static bool is_list(const Type *t) { return t && t->kind == TY_LIST; }

static bool list_owns(const Type *t) { return is_list(t); }

/* The call node the final pass puts in place of syntax. */
static Node *mkcall(Inf *I, SrcLoc loc, BuiltinId id, Type *ty, Node **args, int n) {
    Node *c = ast_new(I->a, N_CALL, loc);
    c->call_kind = CALL_BUILTIN;
    c->builtin = id;
    c->ty = ty;
    for (int i = 0; i < n; i++)
        vec_push(I->a, &c->args, args[i]);
    return c;
}

/* Can an item of type `from` be stored into a list of `item`s without
 * changing what the list holds (ints into a float list: yes; a float into
 * an int list: no, Python would keep the float)? */
static bool item_fits(TyCtx *tc, Type *from, Type *item) {
    if (from == item || IS_UNK(from))
        return true;
    if (ty_is_number(from) && ty_is_number(item))
        return ty_unify(tc, item, from) == item;
    return ty_can_convert(from, item);
}

/* Type an item x (at *px) going into the list `lt` held by `owner` (the
 * expression naming the list): fixes the items of an empty list held by a
 * variable, else checks and casts x.  Returns the list type (maybe
 * widened), NULL after a diagnostic. */
static Type *put_item(Inf *I, Node *owner, Type *lt, Node **px, const char *what) {
    Type *xt = infer_expr(I, px);
    if (!xt)
        return NULL;
    if (IS_UNK(xt))
        return lt;
    if (!infer_check_value(I, *px, xt))
        return NULL;
    if (ty_has_unknown(lt->item)) {
        Type *u = ty_unify(I->tc, lt->item, xt);
        if (!u)
            return TYPING(I, *px, "cannot %s %s to %s", what, infer_tyname(I, xt), infer_tyname(I, lt));
        Type *nl = ty_container_like(I->tc, lt, NULL, u);
        if (!infer_widen_var(I, *px, owner, nl))
            return NULL;
        lt = nl;
    }
    if (!item_fits(I->tc, xt, lt->item))
        return TYPING(I, *px, "cannot %s %s to %s (a list holds items of one type)", what, infer_tyname(I, xt),
                      infer_tyname(I, lt));
    infer_cast(I, px, lt->item);
    return lt;
}

/* ---- displays ---- */

static bool infer_list_display(Inf *I, Node **pn, Type **out) {
    Node *n = *pn;
    if (n->kind != N_LIST)
        return false;
    Type *item = T(I, TY_UNKNOWN);
    for (int i = 0; i < n->args.len; i++) {
        Node **pe = (Node **)&VEC_AT(n->args, i);
        if ((*pe)->kind == N_STARRED) {
            *out = UNSUP(I, *pe, "star-expressions in list displays are not supported by hpcjit");
            return true;
        }
        Type *t = infer_expr(I, pe);
        if (!t) {
            *out = NULL;
            return true;
        }
        if (IS_UNK(t)) {
            *out = t; /* not known yet: nothing to say about the list */
            return true;
        }
        if (!infer_check_value(I, *pe, t)) {
            *out = NULL;
            return true;
        }
        Type *u = ty_unify(I->tc, item, t);
        if (!u && infer_literal_container(I, n)) { /* a LiteralList given to an overload */
            *out = infer_expr(I, pn);
            return true;
        }
        if (!u) {
            *out = TYPING(I, *pe, "cannot make a list of %s and %s (a list holds items of one type)",
                          infer_tyname(I, item), infer_tyname(I, t));
            return true;
        }
        item = u;
    }
    Type *lt = ty_list(I->tc, item);
    if (I->final) {
        for (int i = 0; i < n->args.len; i++)
            infer_cast(I, (Node **)&VEC_AT(n->args, i), item);
        *pn = mkcall(I, n->loc, BI_LIST_DISPLAY, lt, (Node **)n->args.data, n->args.len);
    }
    *out = lt;
    return true;
}

/* ---- iteration ---- */

/* The items `for x in v` gives for a value of type t that list(v) and
 * extend(v) take: lists, ranges, arrays (first axis), homogeneous tuples
 * and generator objects.  NULL after a diagnostic (at `at`). */
static Type *iter_item(Inf *I, Node *at, Type *t, const char *fname) {
    if (IS_UNK(t))
        return t;
    switch (t->kind) {
    case TY_LIST: return t->item;
    case TY_STRING: return t; /* list(s): its characters */
    case TY_RANGE: return T(I, TY_INT64);
    case TY_GENERATOR: return t->item; /* resumed to its end */
    case TY_ARRAY:
        if (t->ndim == 0)
            return TYPING(I, at, "%s() of a 0-d array", fname);
        if (t->ndim == 1)
            return t->dtype;
        return ty_array(I->tc, t->dtype, t->ndim - 1, t->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
    case TY_TUPLE:
        for (int i = 1; i < t->nelems; i++)
            if (t->elems[i] != t->elems[0])
                return TYPING(I, at, "%s() of the heterogeneous %s", fname, infer_tyname(I, t));
        if (t->nelems == 0)
            return T(I, TY_UNKNOWN);
        return t->elems[0];
    default: {
        const LibOps *own = lib_type_owner(t); /* a set, dict or dict view: iterated by a cursor */
        if (own && own->lower_iter_begin && own->item_type) {
            if (ty_has_unknown(t))
                return I->final ? TYPING(I, at, "%s() of %s: its types are never known", fname, infer_tyname(I, t))
                                : T(I, TY_UNKNOWN);
            return own->item_type(I->tc, t);
        }
        return TYPING(I, at, "%s() of %s is not supported by hpcjit", fname, infer_tyname(I, t));
    }
    }
}

static Type *infer_list_iter(Inf *I, Node **pn, Type *t) {
    if (ty_has_unknown(t->item))
        return I->final ? TYPING(I, *pn, "cannot iterate over an empty list whose items are never known")
                        : T(I, TY_UNKNOWN);
    return t->item;
}

static Type *list_item_type(TyCtx *tc, const Type *t) {
    (void)tc;
    return t->item;
}

/* ---- calls ---- */

static bool sig_of(BuiltinId id, InferSig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_LIST: S("list", "iterable"); break;
    case BI_SORTED: S("sorted", "iterable", "key", "reverse"); break;
    case BI_LIST_APPEND: S("append", "self", "object"); break;
    case BI_LIST_EXTEND: S("extend", "self", "iterable"); break;
    case BI_LIST_INSERT: S("insert", "self", "index", "object"); break;
    case BI_LIST_POP: S("pop", "self", "index"); break;
    case BI_LIST_REMOVE: S("remove", "self", "value"); break;
    case BI_LIST_INDEX: S("index", "self", "value", "start", "stop"); break;
    case BI_LIST_COUNT: S("count", "self", "value"); break;
    case BI_LIST_REVERSE: S("reverse", "self"); break;
    case BI_LIST_CLEAR: S("clear", "self"); break;
    case BI_LIST_COPY: S("copy", "self"); break;
    case BI_LIST_SORT: S("sort", "self", "key", "reverse"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool infer_list_attr(Inf *I, Node *n, Type *base, Type **out) {
    if (!is_list(base))
        return false;
    int b = builtin_lookup(arena_printf(I->a, "list.%s", n->name));
    InferSig s;
    if (b < 0 || !sig_of((BuiltinId)b, &s)) {
        *out = TYPING(I, n, "unknown attribute '%s' of %s", n->name, infer_tyname(I, base));
        return true;
    }
    n->attr_kind = ATTR_METHOD;
    *out = ty_bound_method(I->tc, b, base);
    return true;
}

static bool need_int(Inf *I, Node **pe, const char *what) {
    Type *t = infer_expr(I, pe);
    if (!t)
        return false;
    if (IS_UNK(t))
        return true;
    if (!ty_is_int(t) && t->kind != TY_BOOL)
        return TYPING(I, *pe, "%s must be an integer, not %s", what, infer_tyname(I, t)), false;
    infer_cast(I, pe, T(I, TY_INT64));
    return true;
}

/* The item type a comparison of x with the items of a list of `item`s is
 * done in, or NULL when they cannot be compared. */
static Type *cmp_type(Inf *I, Type *x, Type *item) {
    if (x == item)
        return item;
    if (ty_is_number(x) && ty_is_number(item))
        return ty_promote_arith(I->tc, x, item);
    return NULL;
}

/* A comparable item for remove/index/count/in: checked, left uncast
 * (lower_list.c converts both sides to cmp_type). */
static bool search_item(Inf *I, Node *x, Type *lt, const char *fname) {
    Type *xt = infer_value_ty(x);
    if (IS_UNK(xt) || ty_has_unknown(lt->item))
        return true;
    if (!cmp_type(I, xt, lt->item))
        return TYPING(I, x, "%s(): cannot compare %s with the items of %s", fname, infer_tyname(I, xt),
                      infer_tyname(I, lt)), false;
    return true;
}

static bool orderable(const Type *t);

/* The key= of sort(), sorted(), min() and max() (a jitted function or a closure: typed as a
 * call on one item, *key_ty its result) and reverse= (cast to bool). */
static bool sort_options(Inf *I, const char *fname, Node **key, Node **rev, Type *item, Type **key_ty) {
    *key_ty = NULL;
    if (*key && (*key)->kind == N_CONST && (*key)->cval.kind == CVAL_NONE)
        *key = NULL;
    if (*rev) {
        Type *t = infer_expr(I, rev);
        if (!t)
            return false;
        if (!IS_UNK(t) && !ty_is_number(t))
            return TYPING(I, *rev, "%s() reverse must be a bool, not %s", fname, infer_tyname(I, t)), false;
        infer_cast(I, rev, T(I, TY_BOOL));
    }
    if (!*key)
        return true;
    Type *ft = infer_expr(I, key);
    if (!ft)
        return false;
    if (IS_UNK(ft) || ty_has_unknown(item))
        return true;
    if (ft->kind == TY_BUILTIN) { /* key=len: _pylib's key_len, put in the environment (compiler.py _env) */
        const char *q = builtin_name((BuiltinId)ft->builtin), *dot = q ? strrchr(q, '.') : NULL;
        const HjEnvEntry *e = dot && strncmp(q, "builtins.", 9) == 0 && I->s->hf
                                ? infer_env_find(I->s->hf, arena_printf(I->a, "<pylib>key_%s", dot + 1)) : NULL;
        if (e && e->kind == HJ_ENV_FUNC)
            ft = ty_function(I->tc, e->func);
    }
    if (ft->kind != TY_FUNCTION && ft->kind != TY_CLOSURE)
        return UNSUP(I, *key, "%s() key must be a jitted function or a lambda, not %s%s", fname,
                     infer_tyname(I, ft),
                     ft->kind == TY_BUILTIN ? " (of the builtins: abs, len, int, float, str, sum, min, max)" : ""), false;
    /* a closure's environment comes first (lower_list.c call_key) */
    int na = ft->kind == TY_CLOSURE ? ft->nelems + 1 : 1;
    Type **argtys = arena_alloc(I->a, sizeof(Type *) * (size_t)na);
    for (int i = 0; i < na - 1; i++)
        argtys[i] = ft->elems[i];
    argtys[na - 1] = item;
    Spec *s = infer_spec_at(I, (*key)->loc, ft->func, argtys, na);
    if (!s)
        return false;
    if (IS_UNK(s->ret) || s->state != SPEC_DONE) {
        *key_ty = T(I, TY_UNKNOWN);
        return true;
    }
    if (!orderable(s->ret))
        return TYPING(I, *key, "%s() key returns %s, which cannot be ordered", fname, infer_tyname(I, s->ret)), false;
    (*key)->spec = s; /* lower_list.c calls it on each item */
    *key_ty = s->ret;
    return true;
}

static bool orderable(const Type *t) {
    if (ty_is_npdt(t)) /* NaT compares false, as in Python */
        return true;
    if (ty_is_number(t))
        return !ty_is_complex(t);
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            if (!orderable(t->elems[i]))
                return false;
        return true;
    }
    return t->kind == TY_STRING || (is_list(t) && orderable(t->item));
}

/* list(x), sorted(x): the list type of x's items. */
static Type *list_of_iterable(Inf *I, Node **px, const char *fname) {
    Type *t = infer_expr(I, px);
    if (!t)
        return NULL;
    Type *it = iter_item(I, *px, t, fname);
    if (!it)
        return NULL;
    if (IS_UNK(it))
        return (t->kind == TY_TUPLE) ? ty_list(I->tc, it) : it;
    return ty_list(I->tc, it);
}

/* min(lst) / max(lst) / sum(lst, start), offered by the core (registry.h). */
static Type *reduce_call(Inf *I, Node *n, BuiltinId id) {
    Type *lt = infer_value_ty(VEC_AT(n->args, 0)); /* typed by the core */
    if (!lt || IS_UNK(lt))
        return lt;
    if (ty_has_unknown(lt->item))
        return I->final ? TYPING(I, n, "%s() of an empty list whose items are never known",
                                 id == BI_SUM ? "sum" : id == BI_MIN ? "min" : "max")
                        : T(I, TY_UNKNOWN);
    Type *item = lt->item;
    if (id == BI_MIN || id == BI_MAX) {
        if (!orderable(item))
            return TYPING(I, n, "%s() of %s: the items cannot be ordered", id == BI_MIN ? "min" : "max",
                          infer_tyname(I, lt));
        if (I->final)
            n->builtin = id == BI_MIN ? BI_LIST_MIN : BI_LIST_MAX;
        return item;
    }
    /* sum(lst, start): Python adds left to right from start (0) */
    if (!ty_is_number(item))
        return TYPING(I, n, "sum() of %s: the items must be numbers", infer_tyname(I, lt));
    Node *start = n->args.len > 1 ? VEC_AT(n->args, 1) : NULL;
    for (int k = 0; !start && k < n->keywords.len; k++)
        if (strcmp(((Node *)VEC_AT(n->keywords, k))->name, "start") == 0)
            start = ((Node *)VEC_AT(n->keywords, k))->a;
    Type *acc = T(I, TY_INT64);
    if (start) {
        Type *st = infer_expr(I, &start);
        if (!st)
            return NULL;
        if (IS_UNK(st))
            return st;
        if (!ty_is_number(st))
            return TYPING(I, start, "sum() start must be a number, not %s", infer_tyname(I, st));
        acc = st->kind == TY_BOOL ? T(I, TY_INT64) : st;
    }
    Type *it = item->kind == TY_BOOL ? T(I, TY_INT64) : item;
    if ((ty_is_float(it) || ty_is_complex(it)) && !ty_is_float(acc) && !ty_is_complex(acc))
        acc = it;
    else
        acc = ty_promote_arith(I->tc, acc, it);
    if (I->final) {
        if (!start)
            start = infer_const_int(I, n->loc, 0);
        infer_cast(I, &start, acc);
        Node *args[2] = {VEC_AT(n->args, 0), start};
        n->args.len = 0;
        vec_push(I->a, &n->args, args[0]);
        vec_push(I->a, &n->args, args[1]);
        n->keywords.len = 0;
        n->builtin = BI_LIST_SUM;
    }
    return acc;
}

/* min(iterable, key=f) / max(iterable, key=f): the first item whose key is
 * the least / greatest, over list(iterable) (BI_LIST_MINKEY/MAXKEY). */
static Type *minmax_key(Inf *I, Node *n, BuiltinId id) {
    const char *fname = id == BI_MIN ? "min" : "max";
    Node *key = NULL;
    for (int i = 0; i < n->keywords.len; i++) {
        Node *kw = VEC_AT(n->keywords, i);
        if (strcmp(kw->name, "key") != 0)
            return UNSUP(I, kw, "%s(): keyword argument '%s' is not supported by hpcjit (only key=)", fname,
                         kw->name);
        key = kw->a;
    }
    if (n->args.len != 1)
        return UNSUP(I, n, "%s() with key= takes one iterable (%d arguments given)", fname, n->args.len);
    Node **src = (Node **)&VEC_AT(n->args, 0);
    Type *r = list_of_iterable(I, src, fname);
    if (!r || IS_UNK(r))
        return r;
    Type *kt = NULL;
    Node *rev = NULL;
    if (!sort_options(I, fname, &key, &rev, r->item, &kt))
        return NULL;
    if (!kt) { /* key=None: the plain min/max of the items */
        if (!orderable(r->item))
            return TYPING(I, n, "%s() of %s: the items cannot be ordered", fname, infer_tyname(I, r));
    } else if (!IS_UNK(kt) && !orderable(kt)) {
        return TYPING(I, key, "%s() key returns %s, which cannot be ordered", fname, infer_tyname(I, kt));
    }
    if (I->final) {
        Node *it = *src;
        n->args.len = 0;
        vec_push(I->a, &n->args, it);
        if (key)
            vec_push(I->a, &n->args, key);
        n->keywords.len = 0;
        n->builtin = id == BI_MIN ? BI_LIST_MINKEY : BI_LIST_MAXKEY;
    }
    return r->item;
}

static Type *infer_list_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    if ((id == BI_MIN || id == BI_MAX) && n->keywords.len)
        return minmax_key(I, n, id);
    if (id == BI_MIN || id == BI_MAX || id == BI_SUM)
        return reduce_call(I, n, id);
    InferSig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit", builtin_name(id));
    Node *sl[INFER_MAX_SLOTS];
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    const char *fname = s.fname;
    Type *none = T(I, TY_NONE), *i64 = T(I, TY_INT64);
    Type *r = NULL;
    if (id == BI_LIST || id == BI_SORTED) {
        if (!sl[0]) {
            if (id == BI_SORTED)
                return TYPING(I, n, "sorted() missing required argument 'iterable'");
            r = ty_list(I->tc, T(I, TY_UNKNOWN));
        } else {
            r = list_of_iterable(I, &sl[0], fname);
            if (!r)
                return NULL;
            if (IS_UNK(r))
                return r;
        }
        if (id == BI_SORTED) {
            Type *kt = NULL;
            if (!sort_options(I, fname, &sl[1], &sl[2], r->item, &kt))
                return NULL;
            if (!kt && !ty_has_unknown(r->item) && !orderable(r->item))
                return TYPING(I, n, "sorted() of %s: the items cannot be ordered", infer_tyname(I, r));
        }
        infer_store_slots(I, n, sl, s.n);
        return r;
    }
    /* methods: sl[0] is the list */
    Node *lst = sl[0];
    Type *lt = infer_value_ty(lst);
    if (!lt || IS_UNK(lt))
        return lt;
    bool unk = ty_has_unknown(lt->item);
    for (int i = 1; i < s.n; i++)
        if (!sl[i] && ((id == BI_LIST_APPEND || id == BI_LIST_REMOVE || id == BI_LIST_INDEX ||
                        id == BI_LIST_COUNT || id == BI_LIST_EXTEND) && i == 1))
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[i]);
    switch (id) {
    case BI_LIST_APPEND:
        if (!put_item(I, lst, lt, &sl[1], "append"))
            return NULL;
        r = none;
        break;
    case BI_LIST_INSERT:
        if (!sl[1] || !sl[2])
            return TYPING(I, n, "insert() expected 2 arguments");
        if (!need_int(I, &sl[1], "insert() index") || !put_item(I, lst, lt, &sl[2], "insert"))
            return NULL;
        r = none;
        break;
    case BI_LIST_EXTEND: {
        Type *ot = infer_expr(I, &sl[1]);
        if (!ot)
            return NULL;
        Type *it = iter_item(I, sl[1], ot, "extend");
        if (!it)
            return NULL;
        if (IS_UNK(it))
            return none;
        if (unk) {
            Type *nl = ty_unify(I->tc, lt, ty_container_like(I->tc, lt, NULL, it));
            if (!nl)
                return TYPING(I, sl[1], "cannot extend %s with the items of %s", infer_tyname(I, lt),
                              infer_tyname(I, ot));
            if (!infer_widen_var(I, sl[1], lst, nl))
                return NULL;
            lt = nl;
        }
        if (!item_fits(I->tc, it, lt->item))
            return TYPING(I, sl[1], "cannot extend %s with the items of %s (a list holds items of one type)",
                          infer_tyname(I, lt), infer_tyname(I, ot));
        if (is_list(ot))
            infer_cast(I, &sl[1], lt); /* an empty list argument takes the type */
        r = none;
        break;
    }
    case BI_LIST_POP:
        if (sl[1] && !need_int(I, &sl[1], "pop() index"))
            return NULL;
        r = unk ? T(I, TY_UNKNOWN) : lt->item;
        break;
    case BI_LIST_REMOVE:
    case BI_LIST_COUNT:
    case BI_LIST_INDEX:
        if (!infer_expr(I, &sl[1]) || !search_item(I, sl[1], lt, fname))
            return NULL;
        if (id == BI_LIST_INDEX && ((sl[2] && !need_int(I, &sl[2], "index() start")) ||
                                    (sl[3] && !need_int(I, &sl[3], "index() stop"))))
            return NULL;
        r = id == BI_LIST_REMOVE ? none : i64;
        break;
    case BI_LIST_REVERSE:
    case BI_LIST_CLEAR:
        r = none;
        break;
    case BI_LIST_COPY:
        r = lt;
        break;
    case BI_LIST_SORT: {
        Type *kt = NULL;
        if (!sort_options(I, fname, &sl[1], &sl[2], lt->item, &kt))
            return NULL;
        if (!kt && !unk && !orderable(lt->item))
            return TYPING(I, n, "sort() of %s: the items cannot be ordered", infer_tyname(I, lt));
        r = none;
        break;
    }
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit", fname);
    }
    infer_store_slots(I, n, sl, s.n);
    return r;
}

/* ---- operators ---- */

static Type *infer_list_binop(Inf *I, Node **pn, Type *a, Type *b) {
    Node *n = *pn;
    if (IS_UNK(a) || IS_UNK(b))
        return T(I, TY_UNKNOWN);
    if (n->op == OP_ADD && is_list(a) && is_list(b)) {
        Type *u = a == b ? a : ty_unify(I->tc, a, b);
        if (!u)
            return TYPING(I, n, "cannot add %s and %s (a list holds items of one type)", infer_tyname(I, a),
                          infer_tyname(I, b));
        if (I->final) {
            infer_cast(I, &n->a, u);
            infer_cast(I, &n->b, u);
            Node *args[2] = {n->a, n->b};
            *pn = mkcall(I, n->loc, BI_LIST_CONCAT, u, args, 2);
        }
        return u;
    }
    if (n->op == OP_MUL && (is_list(a) != is_list(b))) {
        Node **pl = is_list(a) ? &n->a : &n->b, **pk = is_list(a) ? &n->b : &n->a;
        Type *k = is_list(a) ? b : a;
        if (!ty_is_int(k) && k->kind != TY_BOOL)
            return TYPING(I, n, "can't multiply sequence by non-int of type %s", infer_tyname(I, k));
        Type *lt = is_list(a) ? a : b;
        if (I->final) {
            infer_cast(I, pk, T(I, TY_INT64));
            Node *args[2] = {*pl, *pk};
            *pn = mkcall(I, n->loc, BI_LIST_REPEAT, lt, args, 2);
        }
        return lt;
    }
    return TYPING(I, n, "unsupported operand types for %s: %s and %s", ast_op_str(n->op), infer_tyname(I, a),
                  infer_tyname(I, b));
}

static Type *infer_list_compare(Inf *I, Node *at, OpKind op, Type *a, Type *b) {
    if (op == OP_IN || op == OP_NOTIN) {
        if (!is_list(b))
            return TYPING(I, at, "'%s' needs a list on its right, not %s", ast_op_str(op), infer_tyname(I, b));
        if (ty_has_unknown(b->item))
            return b->item->kind == TY_UNKNOWN ? a : TYPING(I, at, "'in' on an empty list of unknown items");
        Type *ct = cmp_type(I, a, b->item);
        if (!ct)
            return TYPING(I, at, "cannot look for %s in %s", infer_tyname(I, a), infer_tyname(I, b));
        return ct;
    }
    if (!is_list(a) || !is_list(b))
        return TYPING(I, at, "cannot compare %s and %s with '%s'", infer_tyname(I, a), infer_tyname(I, b),
                      ast_op_str(op));
    Type *u = a == b ? a : ty_unify(I->tc, a, b);
    if (!u)
        return TYPING(I, at, "cannot compare %s and %s", infer_tyname(I, a), infer_tyname(I, b));
    if (op == OP_IS || op == OP_ISNOT)
        return u;
    if (op != OP_EQ && op != OP_NE && !orderable(u->item))
        return TYPING(I, at, "cannot order %s with '%s'", infer_tyname(I, u), ast_op_str(op));
    return u;
}

/* lst[i] (int), lst[a:b:c] (slice): typed index; false after a diagnostic. */
static bool type_index(Inf *I, Node *n, bool *slice) {
    Node *ix = n->b;
    *slice = ix->kind == N_SLICE;
    if (!*slice)
        return need_int(I, &n->b, "list index");
    Node **parts[3] = {&ix->a, &ix->b, &ix->c};
    for (int k = 0; k < 3; k++)
        if (*parts[k]) {
            if ((*parts[k])->kind == N_CONST && (*parts[k])->cval.kind == CVAL_NONE)
                *parts[k] = NULL;
            else if (!need_int(I, parts[k], "slice index"))
                return false;
        }
    ix->ty = T(I, TY_NONE);
    return true;
}

static Type *infer_list_subscript(Inf *I, Node **pn, Type *base) {
    Node *n = *pn;
    bool slice = false;
    if (!type_index(I, n, &slice))
        return NULL;
    if (ty_has_unknown(base->item) && !slice)
        return I->final ? TYPING(I, n, "cannot index an empty list whose items are never known")
                        : T(I, TY_UNKNOWN);
    Type *r = slice ? base : base->item;
    if (I->final) {
        if (slice) {
            Node *args[4] = {n->a, n->b->a, n->b->b, n->b->c};
            *pn = mkcall(I, n->loc, BI_LIST_GETSLICE, r, args, 4);
        } else {
            Node *args[2] = {n->a, n->b};
            *pn = mkcall(I, n->loc, BI_LIST_GETITEM, r, args, 2);
        }
    }
    return r;
}

/* lst[i] = v, lst[a:b:c] = other_list; lowered by lower_list_store. */
static bool infer_list_store(Inf *I, Node *target, Node **pv, Type *vt) {
    Type *lt = infer_value_ty(target->a);
    bool slice = false;
    if (!type_index(I, target, &slice))
        return false;
    if (IS_UNK(vt))
        return true;
    if (slice) {
        if (!is_list(vt))
            return TYPING(I, *pv, "can only assign a list to a list slice, not %s", infer_tyname(I, vt)), false;
        Type *u = lt == vt ? lt : ty_unify(I->tc, lt, vt);
        if (!u)
            return TYPING(I, *pv, "cannot assign %s to a slice of %s", infer_tyname(I, vt), infer_tyname(I, lt)),
                   false;
        if (u != lt && !infer_widen_var(I, *pv, target->a, u))
            return false;
        infer_cast(I, pv, u);
        target->ty = u;
        return true;
    }
    Type *nl = put_item(I, target->a, lt, pv, "store");
    if (!nl)
        return false;
    target->ty = nl->item;
    return true;
}

static bool infer_list_del(Inf *I, Node **pt, Type *base) {
    Node *t = *pt;
    bool slice = false;
    if (!type_index(I, t, &slice))
        return false;
    (void)base;
    if (I->final) {
        if (slice) {
            Node *args[4] = {t->a, t->b->a, t->b->b, t->b->c};
            *pt = mkcall(I, t->loc, BI_LIST_DELSLICE, T(I, TY_NONE), args, 4);
        } else {
            Node *args[2] = {t->a, t->b};
            *pt = mkcall(I, t->loc, BI_LIST_DELITEM, T(I, TY_NONE), args, 2);
        }
    }
    return true;
}

/* lst += iterable, lst *= n, lst[i] op= v. */
static Type *infer_list_augassign(Inf *I, Node *n, Type *ot) {
    Node *t = n->a;
    if (t->kind == N_SUBSCRIPT) {
        bool slice = false;
        if (!type_index(I, t, &slice))
            return NULL;
        if (slice)
            return UNSUP(I, t, "augmented assignment to a list slice is not supported by hpcjit");
        Type *vt = infer_expr(I, &n->b);
        if (!vt)
            return NULL;
        if (IS_UNK(vt) || ty_has_unknown(ot->item))
            return T(I, TY_UNKNOWN);
        if (ty_is_array(ot->item) && n->op != OP_MATMUL) {
            /* lst[i] op= v on an array item: in place on that array (its
             * __iop__), which the list keeps */
            Type *at = infer_expr(I, &n->a);
            if (!at || IS_UNK(at))
                return at;
            n->a->ty = at;
            return infer_ae_augassign(I, n, at, vt);
        }
        Type *op_ty = NULL;
        Type *r = infer_binop_type(I, n, n->op, ot->item, vt, &op_ty);
        if (!r)
            return NULL;
        if (!item_fits(I->tc, r, ot->item))
            return TYPING(I, n, "cannot store %s into %s (a list holds items of one type)", infer_tyname(I, r),
                          infer_tyname(I, ot));
        if (I->final) {
            infer_cast(I, &n->b, op_ty);
            Node *args[3] = {t->a, t->b, n->b};
            Node *c = mkcall(I, n->loc, BI_LIST_AUGITEM, T(I, TY_NONE), args, 3);
            c->op = n->op;
            c->op_ty = op_ty;
            n->kind = N_EXPR;
            n->a = c;
            n->b = n->c = NULL;
        }
        return ot->item;
    }
    Type *vt = infer_expr(I, &n->b);
    if (!vt)
        return NULL;
    if (IS_UNK(vt))
        return ot;
    BuiltinId id;
    if (n->op == OP_ADD) {
        Type *it = iter_item(I, n->b, vt, "+=");
        if (!it)
            return NULL;
        if (IS_UNK(it))
            return ot;
        Type *lt = ot;
        if (ty_has_unknown(ot->item)) {
            lt = ty_unify(I->tc, ot, ty_container_like(I->tc, ot, NULL, it));
            if (!lt || !infer_widen_var(I, n->b, t, lt))
                return lt ? NULL : TYPING(I, n, "cannot extend %s with %s", infer_tyname(I, ot), infer_tyname(I, vt));
        }
        if (!item_fits(I->tc, it, lt->item))
            return TYPING(I, n, "cannot extend %s with the items of %s (a list holds items of one type)",
                          infer_tyname(I, lt), infer_tyname(I, vt));
        if (is_list(vt))
            infer_cast(I, &n->b, lt);
        id = BI_LIST_IADD;
    } else if (n->op == OP_MUL) {
        if (!ty_is_int(vt) && vt->kind != TY_BOOL)
            return TYPING(I, n, "can't multiply sequence by non-int of type %s", infer_tyname(I, vt));
        infer_cast(I, &n->b, T(I, TY_INT64));
        id = BI_LIST_IMUL;
    } else {
        return TYPING(I, n, "unsupported operand types for %s=: %s and %s", ast_op_str(n->op), infer_tyname(I, ot),
                      infer_tyname(I, vt));
    }
    if (I->final) {
        Node *args[2] = {t, n->b};
        t->ty = ot;
        Node *c = mkcall(I, n->loc, id, T(I, TY_NONE), args, 2);
        n->kind = N_EXPR;
        n->a = c;
        n->b = n->c = NULL;
    }
    return ot;
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_list_ops = {
    .name = "list",
    .infer_call = infer_list_call,
    .infer_attr = infer_list_attr,
    .lower_call = lower_list_call,
    .owns_type = list_owns,
    .infer_binop = infer_list_binop,
    .infer_compare = infer_list_compare,
    .infer_subscript = infer_list_subscript,
    .infer_store = infer_list_store,
    .infer_iter = infer_list_iter,
    .lower_len = lower_list_len,
    .item_type = list_item_type,
    .lower_item = lower_list_item,
    .lower_compare = lower_list_compare,
    .lower_store = lower_list_store,
    .infer_display = infer_list_display,
    .infer_augassign = infer_list_augassign,
    .infer_del = infer_list_del,
};
