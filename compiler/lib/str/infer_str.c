/* infer_str.c - typing of Python str values (Numba's unicode_type): string
 * literals used as values, str arguments and returns, `+`, `*`,
 * comparisons, `in`, indexing and slicing, iteration, len, str(x),
 * int(s)/float(s), ord/chr, f-strings as values and the str methods.
 *
 * A str is TY_STRING: a literal keeps its cval (print, raise messages and
 * library options such as ord='fro' read the constant), and as a value it
 * is an HjMemInfo * of the runtime's HjStr (hpcjit/str.h), a literal an
 * immortal constant of the module (lower_str_literal).
 *
 * Tree shape after the final pass (lower_str.c relies on it): every str
 * operation is an N_CALL of a BI_STR_* builtin (str.def), with args[0] the
 * str for the methods and operators, absent optional arguments NULL, int
 * arguments cast to int64, bool arguments to bool.  BI_STR_FSTRING has the
 * N_FSTRING as its one argument.  Comparisons keep their N_COMPARE (both
 * operands str: op_tys[i] is str). */
#include "infer.h"
#include "registry.h"
#include "str.h"

#include <string.h>

extern const LibOps lib_str_ops;

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

static bool is_str(const Type *t) { return t && t->kind == TY_STRING; }

static bool str_owns(const Type *t) { return is_str(t); }

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

/* An int argument (bools too), cast to int64. */
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

static bool need_str(Inf *I, Node **pe, const char *what) {
    Type *t = infer_expr(I, pe);
    if (!t)
        return false;
    if (IS_UNK(t) || is_str(t))
        return true;
    return TYPING(I, *pe, "%s must be a str, not %s", what, infer_tyname(I, t)), false;
}

/* ---- methods ---- */

/* Parameter kinds: 'S' a str, 'P' a str or a tuple of str (prefixes),
 * 's' a str or None (absent: NULL), 'I' an
 * int, 'i' an int or None (absent: NULL), 'b' a bool, 'L' a list of str
 * (join).  Results: 'S' str, 'I' int64, 'B' bool, 'L' list of str, 'T'
 * a tuple of three strs. */
typedef struct Method {
    BuiltinId id;
    const char *params; /* kinds after self, and their names below */
    const char *names[3];
    int required; /* how many of the params are required */
    char result;
} Method;

static const Method methods[] = {
    {BI_STR_SPLIT, "si", {"sep", "maxsplit"}, 0, 'L'},
    {BI_STR_RSPLIT, "si", {"sep", "maxsplit"}, 0, 'L'},
    {BI_STR_SPLITLINES, "b", {"keepends"}, 0, 'L'},
    {BI_STR_JOIN, "L", {"iterable"}, 1, 'S'},
    {BI_STR_STRIP, "s", {"chars"}, 0, 'S'},
    {BI_STR_LSTRIP, "s", {"chars"}, 0, 'S'},
    {BI_STR_RSTRIP, "s", {"chars"}, 0, 'S'},
    {BI_STR_STARTSWITH, "Pii", {"prefix", "start", "end"}, 1, 'B'},
    {BI_STR_ENDSWITH, "Pii", {"suffix", "start", "end"}, 1, 'B'},
    {BI_STR_FIND, "Sii", {"sub", "start", "end"}, 1, 'I'},
    {BI_STR_RFIND, "Sii", {"sub", "start", "end"}, 1, 'I'},
    {BI_STR_INDEX, "Sii", {"sub", "start", "end"}, 1, 'I'},
    {BI_STR_RINDEX, "Sii", {"sub", "start", "end"}, 1, 'I'},
    {BI_STR_COUNT, "Sii", {"sub", "start", "end"}, 1, 'I'},
    {BI_STR_REPLACE, "SSi", {"old", "new", "count"}, 2, 'S'},
    {BI_STR_UPPER, "", {0}, 0, 'S'},
    {BI_STR_LOWER, "", {0}, 0, 'S'},
    {BI_STR_CAPITALIZE, "", {0}, 0, 'S'},
    {BI_STR_TITLE, "", {0}, 0, 'S'},
    {BI_STR_SWAPCASE, "", {0}, 0, 'S'},
    {BI_STR_CASEFOLD, "", {0}, 0, 'S'},
    {BI_STR_ZFILL, "I", {"width"}, 1, 'S'},
    {BI_STR_CENTER, "Is", {"width", "fillchar"}, 1, 'S'},
    {BI_STR_LJUST, "Is", {"width", "fillchar"}, 1, 'S'},
    {BI_STR_RJUST, "Is", {"width", "fillchar"}, 1, 'S'},
    {BI_STR_EXPANDTABS, "i", {"tabsize"}, 0, 'S'},
    {BI_STR_PARTITION, "S", {"sep"}, 1, 'T'},
    {BI_STR_RPARTITION, "S", {"sep"}, 1, 'T'},
    {BI_STR_ISDIGIT, "", {0}, 0, 'B'},
    {BI_STR_ISALPHA, "", {0}, 0, 'B'},
    {BI_STR_ISALNUM, "", {0}, 0, 'B'},
    {BI_STR_ISSPACE, "", {0}, 0, 'B'},
    {BI_STR_ISUPPER, "", {0}, 0, 'B'},
    {BI_STR_ISLOWER, "", {0}, 0, 'B'},
    {BI_STR_ISDECIMAL, "", {0}, 0, 'B'},
    {BI_STR_ISNUMERIC, "", {0}, 0, 'B'},
    {BI_STR_ISTITLE, "", {0}, 0, 'B'},
    {BI_STR_ISIDENTIFIER, "", {0}, 0, 'B'},
    {BI_STR_ISASCII, "", {0}, 0, 'B'},
    {BI_STR_ISPRINTABLE, "", {0}, 0, 'B'},
};

static const Method *method_of(BuiltinId id) {
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (methods[i].id == id)
            return &methods[i];
    return NULL;
}

static bool infer_str_attr(Inf *I, Node *n, Type *base, Type **out) {
    if (!is_str(base))
        return false;
    int b = builtin_lookup(arena_printf(I->a, "str.%s", n->name));
    if (b < 0 || (!method_of((BuiltinId)b) && b != BI_STR_FORMAT)) {
        *out = UNSUP(I, n, "str.%s() is not supported by hpcjit", n->name);
        return true;
    }
    n->attr_kind = ATTR_METHOD;
    *out = ty_bound_method(I->tc, b, base);
    return true;
}

/* A tuple of strs (`s in ("a", "b")`, startswith(("a", "b"))). */
static bool str_tuple(const Type *t) {
    for (int i = 0; i < t->nelems; i++)
        if (!is_str(t->elems[i]))
            return false;
    return true;
}

static Type *str_list(Inf *I) { return ty_list(I->tc, T(I, TY_STRING)); }

static Type *method_call(Inf *I, Node *n, const Method *m, Node *self) {
    const char *fname = builtin_name(m->id) + 4; /* "str." */
    InferSig s;
    s.fname = fname;
    s.n = 1 + (int)strlen(m->params);
    s.names[0] = "self";
    for (int i = 1; i < s.n; i++)
        s.names[i] = m->names[i - 1];
    Node *sl[INFER_MAX_SLOTS];
    if (self && n->args.len == s.n && VEC_AT(n->args, 0) == self)
        self = NULL; /* typed again after the final pass stored the slots as the arguments */
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    if (!sl[0])
        return TYPING(I, n, "%s() needs a str", fname);
    Type *st = infer_value_ty(sl[0]); /* typed by the core with the attribute */
    if (!st)
        return NULL;
    bool unk = IS_UNK(st);
    for (int i = 1; i < s.n; i++) {
        char k = m->params[i - 1];
        const char *what = arena_printf(I->a, "%s() argument '%s'", fname, s.names[i]);
        if (!sl[i]) {
            if (i - 1 < m->required)
                return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[i]);
            continue;
        }
        if ((k == 's' || k == 'i') && infer_is_none(sl[i])) {
            sl[i] = NULL;
            continue;
        }
        Type *t = NULL;
        switch (k) {
        case 'P':
            if (!(t = infer_expr(I, &sl[i])))
                return NULL;
            if (t->kind == TY_TUPLE && str_tuple(t))
                break;
            /* fall through */
        case 'S':
        case 's':
            if (!need_str(I, &sl[i], what))
                return NULL;
            break;
        case 'I':
        case 'i':
            if (!need_int(I, &sl[i], what))
                return NULL;
            break;
        case 'b':
            if (!(t = infer_expr(I, &sl[i])))
                return NULL;
            if (!IS_UNK(t) && !ty_is_number(t))
                return TYPING(I, sl[i], "%s must be a bool, not %s", what, infer_tyname(I, t));
            infer_cast(I, &sl[i], T(I, TY_BOOL));
            break;
        case 'L':
            if (I->final && sl[i]->ty && infer_value_ty(sl[i])->kind == TY_GENERATOR) {
                /* ''.join(g) of a generator object: join(list(g)); the list's typing types g (once) */
                Node *c = ast_new(I->a, N_CALL, sl[i]->loc);
                c->call_kind = CALL_BUILTIN;
                c->builtin = BI_LIST;
                vec_push(I->a, &c->args, sl[i]);
                if (!(t = lib_ops(BI_LIST)->infer_call(I, c, BI_LIST, NULL)))
                    return NULL;
                c->ty = t;
                sl[i] = c;
            } else if (!(t = infer_expr(I, &sl[i]))) {
                return NULL;
            }
            if (t->kind == TY_GENERATOR && !IS_UNK(t->item) && !I->final) { /* list(g) in the final pass */
                if (!is_str(t->item))
                    return UNSUP(I, sl[i], "str.join() takes str items, not %s", infer_tyname(I, t->item));
                break;
            }
            if (IS_UNK(t))
                unk = true;
            else if (t->kind == TY_LIST && ty_has_unknown(t->item))
                infer_cast(I, &sl[i], str_list(I)); /* ''.join([]) */
            else if (t->kind != TY_LIST || !is_str(t->item))
                return UNSUP(I, sl[i], "str.join() takes a list of str in hpcjit, not %s", infer_tyname(I, t));
            break;
        }
    }
    if (unk)
        return T(I, TY_UNKNOWN);
    infer_store_slots(I, n, sl, s.n);
    switch (m->result) {
    case 'S': return T(I, TY_STRING);
    case 'I': return T(I, TY_INT64);
    case 'B': return T(I, TY_BOOL);
    case 'L': return str_list(I);
    default: {
        Type *el[3] = {T(I, TY_STRING), T(I, TY_STRING), T(I, TY_STRING)};
        return ty_tuple(I->tc, el, 3);
    }
    }
}

/* ---- builtins ---- */

static bool str_convertible(const Type *t) {
    return is_str(t) || t->kind == TY_NONE || (ty_is_number(t) && !ty_is_complex(t));
}

static Type *infer_str_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    const Method *m = method_of(id);
    if (m)
        return method_call(I, n, m, self);
    if (id == BI_STR_FORMAT || id == BI_FORMAT || id == BI_HEX || id == BI_BIN || id == BI_OCT)
        return strfmt_call(I, n, id, self); /* infer_strfmt.c */
    const char *fname = builtin_name(id) + 9; /* "builtins." */
    if (n->keywords.len)
        return UNSUP(I, n, "%s() with keyword arguments is not supported by hpcjit", fname);
    int nmax = id == BI_INT ? 2 : 1;
    if ((id == BI_MIN || id == BI_MAX) && n->args.len == 1 && n->keywords.len == 0 && I->final)
        n->builtin = id == BI_MIN ? BI_STR_MIN : BI_STR_MAX; /* min(s): the least character */
    if (n->args.len < 1 || n->args.len > nmax)
        return TYPING(I, n, "%s() takes %s argument%s (%d given)", fname, nmax == 2 ? "1 or 2" : "exactly 1",
                      nmax == 2 ? "s" : "", n->args.len);
    Node **pa = (Node **)&VEC_AT(n->args, 0);
    /* int(), float(), min(), max() come from the core with the argument typed */
    bool typed = id == BI_INT || id == BI_FLOAT || id == BI_MIN || id == BI_MAX;
    Type *t = typed ? infer_value_ty(*pa) : infer_expr(I, pa);
    if (!t)
        return NULL;
    if (IS_UNK(t))
        return t;
    switch (id) {
    case BI_STR:
        if (!str_convertible(t))
            return UNSUP(I, *pa, "str() of %s is not supported by hpcjit", infer_tyname(I, t));
        return T(I, TY_STRING);
    case BI_ORD:
        if (!is_str(t))
            return TYPING(I, *pa, "ord() expected string of length 1, but %s found", infer_tyname(I, t));
        return T(I, TY_INT64);
    case BI_CHR:
        if (!need_int(I, pa, "chr() argument"))
            return NULL;
        return T(I, TY_STRING);
    case BI_MIN:
    case BI_MAX:
        return t;
    case BI_INT:
    case BI_FLOAT:
        /* offered by the core's int()/float() for a str argument */
        if (!is_str(t))
            return TYPING(I, *pa, "%s() of %s", fname, infer_tyname(I, t));
        if (n->args.len == 2 && !need_int(I, (Node **)&VEC_AT(n->args, 1), "int() base"))
            return NULL;
        if (I->final) {
            if (id == BI_INT && n->args.len == 1)
                vec_push(I->a, &n->args, NULL);
            n->builtin = id == BI_INT ? BI_STR_TO_INT : BI_STR_TO_FLOAT;
        }
        return T(I, id == BI_INT ? TY_INT64 : TY_FLOAT64);
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit", builtin_name(id));
    }
}

/* ---- operators ---- */

static Type *infer_str_binop(Inf *I, Node **pn, Type *a, Type *b) {
    Node *n = *pn;
    if (IS_UNK(a) || IS_UNK(b))
        return T(I, TY_UNKNOWN);
    if (n->op == OP_ADD && is_str(a) && is_str(b)) {
        if (I->final) {
            Node *args[2] = {n->a, n->b};
            *pn = mkcall(I, n->loc, BI_STR_CONCAT, a, args, 2);
        }
        return a;
    }
    if (n->op == OP_MUL && is_str(a) != is_str(b)) {
        Node **ps = is_str(a) ? &n->a : &n->b, **pk = is_str(a) ? &n->b : &n->a;
        Type *k = is_str(a) ? b : a;
        if (!ty_is_int(k) && k->kind != TY_BOOL)
            return TYPING(I, n, "can't multiply sequence by non-int of type %s", infer_tyname(I, k));
        if (I->final) {
            infer_cast(I, pk, T(I, TY_INT64));
            Node *args[2] = {*ps, *pk};
            *pn = mkcall(I, n->loc, BI_STR_REPEAT, T(I, TY_STRING), args, 2);
        }
        return T(I, TY_STRING);
    }
    if (n->op == OP_MOD && is_str(a))
        return strfmt_percent(I, pn, b); /* infer_strfmt.c */
    if (ty_is_array(a) || ty_is_array(b)) /* the core's messages for the rest */
        return infer_ae_binop(I, n, a, b);
    Type *op_ty = NULL;
    if (!infer_binop_type(I, n, n->op, a, b, &op_ty))
        return NULL;
    return TYPING(I, n, "unsupported operand types for %s: %s and %s", ast_op_str(n->op), infer_tyname(I, a),
                  infer_tyname(I, b));
}

static Type *infer_str_compare(Inf *I, Node *at, OpKind op, Type *a, Type *b) {
    if (IS_UNK(a) || IS_UNK(b))
        return T(I, TY_UNKNOWN);
    if (op == OP_IN || op == OP_NOTIN) {
        if (b->kind == TY_TUPLE && str_tuple(b) && is_str(a))
            return a; /* s in ("a", "b") */
        if (!is_str(b)) { /* s in lst, s in d: the container's owner */
            const LibOps *own = lib_type_owner(b);
            if (own && own != &lib_str_ops && own->infer_compare)
                return own->infer_compare(I, at, op, a, b);
            return TYPING(I, at, "cannot look for %s in %s", infer_tyname(I, a), infer_tyname(I, b));
        }
        if (!is_str(a))
            return TYPING(I, at, "'in <string>' requires string as left operand, not %s", infer_tyname(I, a));
        return a;
    }
    if (is_str(a) && is_str(b))
        return a;
    if (op == OP_EQ || op == OP_NE || op == OP_IS || op == OP_ISNOT)
        return TYPING(I, at, "comparing %s with %s is always %s: not supported by hpcjit", infer_tyname(I, a),
                      infer_tyname(I, b), op == OP_EQ || op == OP_IS ? "False" : "True");
    return TYPING(I, at, "'%s' not supported between instances of %s and %s", ast_op_str(op), infer_tyname(I, a),
                  infer_tyname(I, b));
}

static Type *infer_str_subscript(Inf *I, Node **pn, Type *base) {
    Node *n = *pn;
    Node *ix = n->b;
    if (ix->kind == N_SLICE) {
        Node **parts[3] = {&ix->a, &ix->b, &ix->c};
        for (int k = 0; k < 3; k++)
            if (*parts[k]) {
                if (infer_is_none(*parts[k]))
                    *parts[k] = NULL;
                else if (!need_int(I, parts[k], "slice index"))
                    return NULL;
            }
        ix->ty = T(I, TY_NONE);
        if (I->final) {
            Node *args[4] = {n->a, ix->a, ix->b, ix->c};
            *pn = mkcall(I, n->loc, BI_STR_GETSLICE, base, args, 4);
        }
        return base;
    }
    if (!need_int(I, &n->b, "string index"))
        return NULL;
    if (I->final) {
        Node *args[2] = {n->a, n->b};
        *pn = mkcall(I, n->loc, BI_STR_GETITEM, base, args, 2);
    }
    return base;
}

static bool infer_str_store(Inf *I, Node *target, Node **pv, Type *vt) {
    (void)pv;
    (void)vt;
    return TYPING(I, target, "'str' object does not support item assignment"), false;
}

static bool infer_str_del(Inf *I, Node **pt, Type *base) {
    (void)base;
    return TYPING(I, *pt, "'str' object doesn't support item deletion"), false;
}

static Type *infer_str_iter(Inf *I, Node **pn, Type *t) {
    (void)pn;
    (void)I;
    return t; /* each character is a str */
}

static Type *str_item_type(TyCtx *tc, const Type *t) {
    (void)tc;
    return (Type *)t;
}

/* s += t, s *= n: `s = s + t` (a new str bound to the name). */
static Type *infer_str_augassign(Inf *I, Node *n, Type *ot) {
    Node *t = n->a;
    if (t->kind != N_NAME)
        return UNSUP(I, t, "augmented assignment to an item of a str is not supported");
    Type *vt = infer_expr(I, &n->b);
    if (!vt)
        return NULL;
    if (IS_UNK(vt))
        return ot;
    BuiltinId id;
    if (n->op == OP_ADD && is_str(vt)) {
        id = BI_STR_CONCAT;
    } else if (n->op == OP_MUL && (ty_is_int(vt) || vt->kind == TY_BOOL)) {
        infer_cast(I, &n->b, T(I, TY_INT64));
        id = BI_STR_REPEAT;
    } else {
        return TYPING(I, n, "unsupported operand types for %s=: %s and %s", ast_op_str(n->op), infer_tyname(I, ot),
                      infer_tyname(I, vt));
    }
    if (I->final) {
        t->ty = ot;
        Node *read = ast_clone_expr(I->a, t);
        read->ty = ot;
        read->var = t->var;
        Node *args[2] = {read, n->b};
        Node *c = mkcall(I, n->loc, id, ot, args, 2);
        n->kind = N_ASSIGN;
        n->targets.len = 0;
        vec_push(I->a, &n->targets, t);
        n->a = c;
        n->b = n->c = NULL;
    }
    return ot;
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_str_ops = {
    .name = "str",
    .infer_call = infer_str_call,
    .infer_attr = infer_str_attr,
    .lower_call = lower_str_call,
    .owns_type = str_owns,
    .infer_binop = infer_str_binop,
    .infer_compare = infer_str_compare,
    .infer_subscript = infer_str_subscript,
    .infer_store = infer_str_store,
    .infer_iter = infer_str_iter,
    .lower_len = lower_str_len,
    .item_type = str_item_type,
    .lower_item = lower_str_item,
    .lower_compare = lower_str_compare,
    .infer_augassign = infer_str_augassign,
    .infer_del = infer_str_del,
};
