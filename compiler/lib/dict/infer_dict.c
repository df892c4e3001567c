/* infer_dict.c - typing of Python dicts and sets: displays `{k: v}` and
 * `{a, b}`, dict() and set(), the methods, `d[k]`, `d[k] = v`, `d[k] op=
 * v`, `del d[k]`, `in`, `==`, the set operators, iteration over a dict,
 * its keys(), values() and items() views, and a set.
 *
 * Key and value types: an empty `{}` is DictType[undefined,undefined] and
 * `set()` reflected set(undefined) until a store, setdefault, add or
 * update on the variable holding it fixes them (infer_widen_var), as
 * Numba infers a dict's types from its first `__setitem__`.  A later store
 * of a value that would widen the type (a float into a dict of ints) is a
 * TypingError, as for lists.  Keys are numbers (not complex) or tuples of
 * them (dict_hashable).
 *
 * Tree shape after the final pass (lower_dict.c relies on it): every
 * operation is an N_CALL of a BI_DICT_* / BI_SET_* builtin (dict.def)
 * with args[0] the dict or set for the methods, absent optional arguments
 * NULL, keys cast to the key type and values to the value type (except
 * the default of get/pop, kept in its own type: the call's type is the
 * unification of the value type with it).  BI_DICT_AUGITEM and
 * BI_SET_BINOP keep the operator in `op` (and AUGITEM the type it is done
 * in in `op_ty`).  A comparison keeps its N_COMPARE: op_tys[i] is the key
 * type for `in` (lower_compare converts x to it) or the container type. */
#include "dict.h"
#include "infer.h"
#include "registry.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

static bool is_dict(const Type *t) { return t && t->kind == TY_DICT; }
static bool is_set(const Type *t) { return t && t->kind == TY_SET; }
static bool is_view(const Type *t) { return t && t->kind == TY_DICT_VIEW; }

static bool dict_owns(const Type *t) { return is_dict(t) || is_set(t) || is_view(t); }

bool dict_hashable(const Type *t) {
    if (ty_is_npdt(t)) /* hashed as their count, as Numba; NaT equals nothing */
        return true;
    if (ty_is_number(t))
        return !ty_is_complex(t);
    if (t->kind == TY_STRING)
        return true;
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            if (!dict_hashable(t->elems[i]))
                return false;
        return true;
    }
    return false;
}

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

/* Can a value of type `from` go where `to` is held without changing it
 * (an int key into a dict of float keys: yes, hash(1) == hash(1.0); a
 * float into a dict of ints: no)? */
static bool fits(TyCtx *tc, Type *from, Type *to) {
    if (from == to || IS_UNK(from))
        return true;
    if ((ty_is_number(from) && ty_is_number(to)) || (from->kind == TY_TUPLE && to->kind == TY_TUPLE))
        return ty_unify(tc, to, from) == to;
    return ty_can_convert(from, to);
}

static bool check_key(Inf *I, Node *k, Type *kt) {
    if (!infer_check_value(I, k, kt))
        return false;
    if (!dict_hashable(kt))
        return TYPING(I, k, "unhashable type: %s (keys and set items are numbers or tuples of numbers)",
                      infer_tyname(I, kt)),
               false;
    return true;
}

/* The key part of a dict or set type. */
static Type *key_of(const Type *ct) { return ct->kind == TY_SET ? ct->item : ct->key; }

/* A key kt at *pk (and for a dict a value vt at *pv) going into the dict
 * or set ct held by `owner` (the expression naming it): fixes the unknown
 * parts of a container held by a variable, else checks and casts.
 * Returns the container type (maybe widened), NULL after a diagnostic. */
static Type *put(Inf *I, Node *owner, Type *ct, Node **pk, Type *kt, Node **pv, Type *vt) {
    bool d = is_dict(ct);
    if (IS_UNK(kt) || (pv && IS_UNK(vt)))
        return ct;
    if (!check_key(I, *pk, kt) || (pv && !infer_check_value(I, *pv, vt)))
        return NULL;
    Type *nk = key_of(ct), *nv = d ? ct->item : NULL;
    if (ty_has_unknown(nk))
        nk = ty_unify(I->tc, nk, kt);
    if (pv && ty_has_unknown(nv))
        nv = ty_unify(I->tc, nv, vt);
    if (!nk || (pv && !nv))
        return TYPING(I, nk ? *pv : *pk, "cannot put %s into %s", infer_tyname(I, nk ? vt : kt), infer_tyname(I, ct));
    Type *nt = ty_container_like(I->tc, ct, nk, d ? (nv ? nv : ct->item) : nk);
    if (nt != ct) {
        if (!infer_widen_var(I, *pk, owner, nt))
            return NULL;
        ct = nt;
    }
    if (!fits(I->tc, kt, key_of(ct)))
        return TYPING(I, *pk, "cannot use %s as a key of %s (a %s holds keys of one type)", infer_tyname(I, kt),
                      infer_tyname(I, ct), d ? "dict" : "set");
    if (pv && !ty_has_unknown(ct->item) && !fits(I->tc, vt, ct->item))
        return TYPING(I, *pv, "cannot store %s into %s (a dict holds values of one type)", infer_tyname(I, vt),
                      infer_tyname(I, ct));
    infer_cast(I, pk, key_of(ct));
    if (pv && !ty_has_unknown(ct->item))
        infer_cast(I, pv, ct->item);
    return ct;
}

/* A key looked up in a container whose keys are ck: typed, checked, cast. */
static bool look_key(Inf *I, Node **pk, Type *ck, Type *ct) {
    Type *kt = infer_expr(I, pk);
    if (!kt)
        return false;
    if (IS_UNK(kt) || ty_has_unknown(ck))
        return true;
    if (!check_key(I, *pk, kt))
        return false;
    if (!fits(I->tc, kt, ck))
        return TYPING(I, *pk, "cannot look up %s among the keys of %s", infer_tyname(I, kt), infer_tyname(I, ct)),
               false;
    infer_cast(I, pk, ck);
    return true;
}

/* ---- displays ---- */

/* Unify *acc with the type t of entry e of a display; false after a diagnostic. */
static bool display_part(Inf *I, Node *e, Type **acc, Type *t, const char *what) {
    Type *u = ty_unify(I->tc, *acc, t);
    if (!u)
        return TYPING(I, e, "cannot make a %s of %s and %s", what, infer_tyname(I, *acc), infer_tyname(I, t)), false;
    *acc = u;
    return true;
}

static bool infer_dict_display(Inf *I, Node **pn, Type **out) {
    Node *n = *pn;
    if (n->kind != N_DICT && n->kind != N_SET)
        return false;
    bool d = n->kind == N_DICT;
    Type *kt = T(I, TY_UNKNOWN), *vt = T(I, TY_UNKNOWN);
    bool unk = false;
    for (int i = 0; i < n->args.len; i++) {
        Node **pk = (Node **)&VEC_AT(n->args, i);
        Node **pv = d ? (Node **)&VEC_AT(n->args2, i) : NULL;
        if (!*pk || (*pk)->kind == N_STARRED) {
            *out = UNSUP(I, *pk ? *pk : *pv, "unpacking in %s displays is not supported by hpcjit", d ? "dict" : "set");
            return true;
        }
        Type *k = infer_expr(I, pk);
        Type *v = k && d ? infer_expr(I, pv) : k;
        if (!v) {
            *out = NULL;
            return true;
        }
        if (IS_UNK(k) || IS_UNK(v)) {
            unk = true;
            continue;
        }
        if (d && !IS_UNK(vt) && !ty_unify(I->tc, vt, v) && infer_literal_container(I, n)) {
            *out = infer_expr(I, pn); /* a LiteralStrKeyDict given to an overload */
            return true;
        }
        if (!check_key(I, *pk, k) || (d && !infer_check_value(I, *pv, v)) ||
            !display_part(I, *pk, &kt, k, d ? "dict with keys" : "set") ||
            (d && !display_part(I, *pv, &vt, v, "dict with values"))) {
            *out = NULL;
            return true;
        }
    }
    if (unk) {
        *out = T(I, TY_UNKNOWN); /* not known yet: nothing to say about the container */
        return true;
    }
    Type *ct = d ? ty_dict(I->tc, kt, vt) : ty_set(I->tc, kt);
    if (I->final) {
        Node *c = mkcall(I, n->loc, d ? BI_DICT_DISPLAY : BI_SET_DISPLAY, ct, NULL, 0);
        for (int i = 0; i < n->args.len; i++) {
            infer_cast(I, (Node **)&VEC_AT(n->args, i), kt);
            vec_push(I->a, &c->args, VEC_AT(n->args, i));
            if (d) {
                infer_cast(I, (Node **)&VEC_AT(n->args2, i), vt);
                vec_push(I->a, &c->args, VEC_AT(n->args2, i));
            }
        }
        *pn = c;
    }
    *out = ct;
    return true;
}

/* ---- iteration ---- */

static Type *dict_item_type(TyCtx *tc, const Type *t) {
    if (t->kind == TY_SET)
        return t->item;
    int view = t->kind == TY_DICT ? 0 : t->ndim;
    if (view == 2) {
        Type *pair[2] = {t->key, t->item};
        return ty_tuple(tc, pair, 2);
    }
    return view == 0 ? t->key : t->item;
}

static Type *infer_dict_iter(Inf *I, Node **pn, Type *t) {
    if (ty_has_unknown(t))
        return I->final ? TYPING(I, *pn, "cannot iterate over %s: its types are never known", infer_tyname(I, t))
                        : T(I, TY_UNKNOWN);
    return dict_item_type(I->tc, t);
}

/* ---- calls ---- */

static bool sig_of(BuiltinId id, InferSig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_DICT: S("dict", "iterable"); break;
    case BI_SET: S("set", "iterable"); break;
    case BI_DICT_GET: S("get", "self", "key", "default"); break;
    case BI_DICT_SETDEFAULT: S("setdefault", "self", "key", "default"); break;
    case BI_DICT_POP: S("pop", "self", "key", "default"); break;
    case BI_DICT_POPITEM: S("popitem", "self"); break;
    case BI_DICT_KEYS: S("keys", "self"); break;
    case BI_DICT_VALUES: S("values", "self"); break;
    case BI_DICT_ITEMS: S("items", "self"); break;
    case BI_DICT_UPDATE: S("update", "self", "other"); break;
    case BI_DICT_COPY: S("copy", "self"); break;
    case BI_DICT_CLEAR: S("clear", "self"); break;
    case BI_SET_ADD: S("add", "self", "elem"); break;
    case BI_SET_DISCARD: S("discard", "self", "elem"); break;
    case BI_SET_REMOVE: S("remove", "self", "elem"); break;
    case BI_SET_POP: S("pop", "self"); break;
    case BI_SET_CLEAR: S("clear", "self"); break;
    case BI_SET_COPY: S("copy", "self"); break;
    case BI_SET_UPDATE: S("update", "self", "other"); break;
    case BI_SET_INTERSECTION_UPDATE: S("intersection_update", "self", "other"); break;
    case BI_SET_DIFFERENCE_UPDATE: S("difference_update", "self", "other"); break;
    case BI_SET_SYMMETRIC_DIFFERENCE_UPDATE: S("symmetric_difference_update", "self", "other"); break;
    case BI_SET_UNION: S("union", "self", "other"); break;
    case BI_SET_INTERSECTION: S("intersection", "self", "other"); break;
    case BI_SET_DIFFERENCE: S("difference", "self", "other"); break;
    case BI_SET_SYMMETRIC_DIFFERENCE: S("symmetric_difference", "self", "other"); break;
    case BI_SET_ISSUBSET: S("issubset", "self", "other"); break;
    case BI_SET_ISSUPERSET: S("issuperset", "self", "other"); break;
    case BI_SET_ISDISJOINT: S("isdisjoint", "self", "other"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool infer_dict_attr(Inf *I, Node *n, Type *base, Type **out) {
    if (!is_dict(base) && !is_set(base))
        return false;
    int b = builtin_lookup(arena_printf(I->a, "%s.%s", is_dict(base) ? "dict" : "set", n->name));
    InferSig s;
    if (b < 0 || !sig_of((BuiltinId)b, &s)) {
        *out = TYPING(I, n, "unknown attribute '%s' of %s", n->name, infer_tyname(I, base));
        return true;
    }
    n->attr_kind = ATTR_METHOD;
    *out = ty_bound_method(I->tc, b, base);
    return true;
}

/* The items set(x) takes from an iterable of type t: lists, 1-d arrays,
 * ranges, homogeneous tuples, sets, dicts (keys) and views.  NULL after a
 * diagnostic. */
static Type *iter_item(Inf *I, Node *at, Type *t, const char *fname) {
    if (IS_UNK(t))
        return t;
    switch (t->kind) {
    case TY_LIST: return t->item;
    case TY_RANGE: return T(I, TY_INT64);
    case TY_GENERATOR: return t->item; /* resumed to its end */
    case TY_ARRAY:
        if (t->ndim != 1)
            return TYPING(I, at, "%s() of a %d-d array is not supported (unhashable rows)", fname, t->ndim);
        return t->dtype;
    case TY_TUPLE:
        for (int i = 1; i < t->nelems; i++)
            if (t->elems[i] != t->elems[0])
                return TYPING(I, at, "%s() of the heterogeneous %s", fname, infer_tyname(I, t));
        return t->nelems ? t->elems[0] : T(I, TY_UNKNOWN);
    case TY_SET:
    case TY_DICT:
    case TY_DICT_VIEW: return dict_item_type(I->tc, t);
    default:
        return TYPING(I, at, "%s() of %s is not supported by hpcjit", fname, infer_tyname(I, t));
    }
}

/* The other operand of a set operation or a dict update: a container of
 * type st (a set, or a dict) unified with ct; the variable holding an
 * empty one takes the type.  NULL after a diagnostic. */
static Type *same_kind(Inf *I, Node *self, Type *ct, Node **po, const char *fname) {
    Type *ot = infer_expr(I, po);
    if (!ot || IS_UNK(ot))
        return ot;
    if (ot->kind != ct->kind)
        return TYPING(I, *po, "%s() needs a %s argument, not %s (hpcjit)", fname, is_dict(ct) ? "dict" : "set",
                      infer_tyname(I, ot));
    /* a typed.Dict and a plain dict hold the same native dict: only their
     * parts must agree */
    Type *oc = ot->typed != ct->typed ? ty_container_like(I->tc, ct, ot->key, ot->item) : ot;
    Type *u = oc == ct ? ct : ty_unify(I->tc, ct, oc);
    if (!u)
        return TYPING(I, *po, "%s(): %s and %s differ", fname, infer_tyname(I, ct), infer_tyname(I, ot));
    if (u != ct && self && !infer_widen_var(I, *po, self, u))
        return NULL;
    if (!ty_has_unknown(u))
        infer_cast(I, po, oc == ot ? u : ty_container_like(I->tc, ot, u->key, u->item));
    return u;
}

/* The other operand of a set method (not of an operator) may be any
 * iterable in CPython: a list, tuple or 1-d array becomes set(other).
 * false after a diagnostic. */
static bool iterable_as_set(Inf *I, Node **po) {
    Type *ot = infer_expr(I, po);
    if (!ot)
        return false;
    if (ot->kind != TY_LIST && ot->kind != TY_TUPLE && !(ot->kind == TY_ARRAY && ot->ndim == 1))
        return true;
    Node *c = ast_new(I->a, N_CALL, (*po)->loc);
    c->a = ast_new(I->a, N_NAME, (*po)->loc);
    c->a->name = "$q:builtins.set";
    vec_push(I->a, &c->args, *po);
    *po = c;
    return infer_expr(I, po) != NULL;
}

/* hash(v): CPython's value for numbers (complex too), str and tuples of
 * them (a jitclass's __hash__ is the core's: infer_jc_builtin). */
static Type *hash_call(Inf *I, Node *n) {
    if (n->args.len != 1 || n->keywords.len)
        return TYPING(I, n, "hash() takes exactly one argument (%d given)", n->args.len + n->keywords.len);
    Type *t = infer_expr(I, (Node **)&VEC_AT(n->args, 0));
    if (!t || IS_UNK(t))
        return t;
    if (!dict_hashable(t) && !ty_is_complex(t))
        return TYPING(I, n, "unhashable type: %s", infer_tyname(I, t));
    return T(I, TY_INT64);
}

static Type *infer_dict_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    if (id == BI_HASH)
        return hash_call(I, n);
    InferSig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit", builtin_name(id));
    Node *sl[INFER_MAX_SLOTS];
    if (!infer_bind_slots(I, n, self, &s, sl))
        return NULL;
    const char *fname = s.fname;
    Type *none = T(I, TY_NONE), *b1 = T(I, TY_BOOL);
    Type *r = NULL;
    if (id == BI_DICT || id == BI_SET) {
        if (!sl[0]) {
            r = id == BI_DICT ? ty_dict(I->tc, T(I, TY_UNKNOWN), T(I, TY_UNKNOWN)) : ty_set(I->tc, T(I, TY_UNKNOWN));
        } else {
            Type *t = infer_expr(I, &sl[0]);
            if (!t || IS_UNK(t))
                return t;
            if (id == BI_DICT && is_dict(t)) {
                r = t;
            } else if (id == BI_DICT) { /* dict(pairs): of any iterable of (key, value) pairs */
                Type *it = iter_item(I, sl[0], t, "dict");
                if (!it)
                    return NULL;
                if (IS_UNK(it))
                    return ty_dict(I->tc, it, it);
                if (it->kind != TY_TUPLE || it->nelems != 2)
                    return TYPING(I, sl[0], "dict() needs (key, value) pairs, not items of type %s",
                                  infer_tyname(I, it));
                if (!check_key(I, sl[0], it->elems[0]))
                    return NULL;
                r = ty_dict(I->tc, it->elems[0], it->elems[1]);
            } else {
                Type *it = iter_item(I, sl[0], t, "set");
                if (!it)
                    return NULL;
                if (IS_UNK(it))
                    return ty_set(I->tc, it);
                if (!check_key(I, sl[0], it))
                    return NULL;
                r = ty_set(I->tc, it);
            }
        }
        infer_store_slots(I, n, sl, s.n);
        return r;
    }
    /* methods: sl[0] is the dict or set */
    Node *cn = sl[0];
    Type *ct = infer_value_ty(cn);
    if (!ct || IS_UNK(ct))
        return ct;
    for (int i = 1; i < s.n; i++)
        if (!sl[i] && i == 1)
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[i]);
    Type *ck = key_of(ct);
    switch (id) {
    case BI_DICT_GET:
    case BI_DICT_POP: {
        if (!look_key(I, &sl[1], ck, ct))
            return NULL;
        Type *dt = NULL;
        if (sl[2]) {
            dt = infer_expr_opt(I, &sl[2]);
            if (!dt)
                return NULL;
            if (IS_UNK(dt))
                return dt;
        }
        if (ty_has_unknown(ct->item)) {
            r = dt ? dt : T(I, TY_UNKNOWN);
            break;
        }
        if (!dt) {
            if (id == BI_DICT_POP) {
                r = ct->item;
                break;
            }
            r = ty_unify(I->tc, ct->item, none);
            if (!r)
                return UNSUP(I, n, "get() without a default on %s is not supported (its values cannot be None)",
                             infer_tyname(I, ct));
            break;
        }
        r = fits(I->tc, dt, ct->item) ? ct->item : ty_unify(I->tc, ct->item, dt);
        if (!r)
            return TYPING(I, sl[2], "%s(): the default %s and the values of %s differ", fname, infer_tyname(I, dt),
                          infer_tyname(I, ct));
        break;
    }
    case BI_DICT_SETDEFAULT: {
        Type *kt = infer_expr(I, &sl[1]);
        if (!kt)
            return NULL;
        if (!sl[2])
            return UNSUP(I, n, "setdefault() without a default is not supported by hpcjit");
        Type *vt = infer_expr(I, &sl[2]);
        if (!vt)
            return NULL;
        Type *nt = put(I, cn, ct, &sl[1], kt, &sl[2], vt);
        if (!nt)
            return NULL;
        r = nt->item;
        break;
    }
    case BI_DICT_POPITEM: {
        if (ty_has_unknown(ct))
            return T(I, TY_UNKNOWN);
        Type *pair[2] = {ct->key, ct->item};
        r = ty_tuple(I->tc, pair, 2);
        break;
    }
    case BI_DICT_KEYS:
    case BI_DICT_VALUES:
    case BI_DICT_ITEMS:
        r = ty_dict_view(I->tc, ct->key, ct->item, id - BI_DICT_KEYS);
        break;
    case BI_DICT_UPDATE:
    case BI_SET_UPDATE:
    case BI_SET_INTERSECTION_UPDATE:
    case BI_SET_DIFFERENCE_UPDATE:
    case BI_SET_SYMMETRIC_DIFFERENCE_UPDATE:
        if ((id != BI_DICT_UPDATE && !iterable_as_set(I, &sl[1])) || !same_kind(I, cn, ct, &sl[1], fname))
            return NULL;
        r = none;
        break;
    case BI_SET_UNION:
    case BI_SET_INTERSECTION:
    case BI_SET_DIFFERENCE:
    case BI_SET_SYMMETRIC_DIFFERENCE:
    case BI_SET_ISSUBSET:
    case BI_SET_ISSUPERSET:
    case BI_SET_ISDISJOINT: {
        Type *u = iterable_as_set(I, &sl[1]) ? same_kind(I, NULL, ct, &sl[1], fname) : NULL;
        if (!u)
            return NULL;
        r = id >= BI_SET_ISSUBSET ? b1 : u;
        if (!IS_UNK(u) && ty_has_unknown(u) && r == u)
            r = u;
        break;
    }
    case BI_DICT_COPY:
    case BI_SET_COPY:
        r = ct;
        break;
    case BI_DICT_CLEAR:
    case BI_SET_CLEAR:
        r = none;
        break;
    case BI_SET_ADD: {
        Type *kt = infer_expr(I, &sl[1]);
        if (!kt || !put(I, cn, ct, &sl[1], kt, NULL, NULL))
            return NULL;
        r = none;
        break;
    }
    case BI_SET_DISCARD:
    case BI_SET_REMOVE:
        if (!look_key(I, &sl[1], ck, ct))
            return NULL;
        r = none;
        break;
    case BI_SET_POP:
        r = ck;
        break;
    default:
        return UNSUP(I, n, "%s() is not supported by hpcjit", fname);
    }
    infer_store_slots(I, n, sl, s.n);
    return r;
}

/* ---- operators ---- */

static BuiltinId set_op_builtin(OpKind op, bool inplace) {
    switch (op) {
    case OP_BITOR: return inplace ? BI_SET_UPDATE : BI_SET_UNION;
    case OP_BITAND: return inplace ? BI_SET_INTERSECTION_UPDATE : BI_SET_INTERSECTION;
    case OP_SUB: return inplace ? BI_SET_DIFFERENCE_UPDATE : BI_SET_DIFFERENCE;
    case OP_BITXOR: return inplace ? BI_SET_SYMMETRIC_DIFFERENCE_UPDATE : BI_SET_SYMMETRIC_DIFFERENCE;
    default: return BI_COUNT;
    }
}

static Type *infer_dict_binop(Inf *I, Node **pn, Type *a, Type *b) {
    Node *n = *pn;
    if (IS_UNK(a) || IS_UNK(b))
        return T(I, TY_UNKNOWN);
    if (is_set(a) && is_set(b) && set_op_builtin(n->op, false) != BI_COUNT) {
        Type *u = a == b ? a : ty_unify(I->tc, a, b);
        if (!u)
            return TYPING(I, n, "unsupported operand types for %s: %s and %s (a set holds items of one type)",
                          ast_op_str(n->op), infer_tyname(I, a), infer_tyname(I, b));
        if (I->final) {
            infer_cast(I, &n->a, u);
            infer_cast(I, &n->b, u);
            Node *args[2] = {n->a, n->b};
            *pn = mkcall(I, n->loc, BI_SET_BINOP, u, args, 2);
            (*pn)->op = n->op;
        }
        return u;
    }
    return TYPING(I, n, "unsupported operand types for %s: %s and %s", ast_op_str(n->op), infer_tyname(I, a),
                  infer_tyname(I, b));
}

static Type *infer_dict_compare(Inf *I, Node *at, OpKind op, Type *a, Type *b) {
    if (op == OP_IN || op == OP_NOTIN) {
        if (!dict_owns(b))
            return TYPING(I, at, "'%s' needs a dict or set on its right, not %s", ast_op_str(op), infer_tyname(I, b));
        if (is_view(b) && b->ndim != 0)
            return UNSUP(I, at, "'in' on %s is not supported by hpcjit (only on keys())", infer_tyname(I, b));
        Type *ck = key_of(b);
        if (ty_has_unknown(ck))
            return a; /* nothing is in a container of unknown keys */
        if (!check_key(I, at, a))
            return NULL;
        if (!fits(I->tc, a, ck))
            return TYPING(I, at, "cannot look up %s among the keys of %s", infer_tyname(I, a), infer_tyname(I, b));
        return ck;
    }
    if (a->kind != b->kind || is_view(a))
        return TYPING(I, at, "cannot compare %s and %s with '%s'", infer_tyname(I, a), infer_tyname(I, b),
                      ast_op_str(op));
    Type *u = a == b ? a : ty_unify(I->tc, a, b);
    if (!u)
        return TYPING(I, at, "cannot compare %s and %s", infer_tyname(I, a), infer_tyname(I, b));
    if (op == OP_IS || op == OP_ISNOT || op == OP_EQ || op == OP_NE)
        return u;
    if (is_dict(u))
        return TYPING(I, at, "'%s' is not supported between instances of dicts", ast_op_str(op));
    return u; /* set inclusion */
}

static Type *infer_dict_subscript(Inf *I, Node **pn, Type *base) {
    Node *n = *pn;
    if (!is_dict(base))
        return TYPING(I, n, "%s is not subscriptable", infer_tyname(I, base));
    if (n->b->kind == N_SLICE)
        return TYPING(I, n, "unhashable type: 'slice'");
    if (!look_key(I, &n->b, base->key, base))
        return NULL;
    if (ty_has_unknown(base->item))
        return I->final ? TYPING(I, n, "cannot read from %s: its types are never known", infer_tyname(I, base))
                        : T(I, TY_UNKNOWN);
    if (I->final) {
        Node *args[2] = {n->a, n->b};
        *pn = mkcall(I, n->loc, BI_DICT_GETITEM, base->item, args, 2);
    }
    return base->item;
}

/* d[k] = v; lowered by lower_dict_store. */
static bool infer_dict_store(Inf *I, Node *target, Node **pv, Type *vt) {
    Type *dt = infer_value_ty(target->a);
    if (!is_dict(dt))
        return TYPING(I, target, "%s does not support item assignment", infer_tyname(I, dt)), false;
    if (target->b->kind == N_SLICE)
        return TYPING(I, target, "unhashable type: 'slice'"), false;
    Type *kt = infer_expr(I, &target->b);
    if (!kt)
        return false;
    Type *nt = put(I, target->a, dt, &target->b, kt, pv, vt);
    if (!nt)
        return false;
    target->ty = nt->item;
    return true;
}

static bool infer_dict_del(Inf *I, Node **pt, Type *base) {
    Node *t = *pt;
    if (!is_dict(base))
        return TYPING(I, t, "%s does not support item deletion", infer_tyname(I, base)), false;
    if (!look_key(I, &t->b, base->key, base))
        return false;
    if (I->final) {
        Node *args[2] = {t->a, t->b};
        *pt = mkcall(I, t->loc, BI_DICT_DELITEM, T(I, TY_NONE), args, 2);
    }
    return true;
}

/* d[k] op= v; s |= t, s &= t, s -= t, s ^= t. */
static Type *infer_dict_augassign(Inf *I, Node *n, Type *ot) {
    Node *t = n->a;
    if (t->kind == N_SUBSCRIPT) {
        if (!is_dict(ot))
            return TYPING(I, t, "%s does not support item assignment", infer_tyname(I, ot));
        if (!look_key(I, &t->b, ot->key, ot))
            return NULL;
        Type *vt = infer_expr(I, &n->b);
        if (!vt)
            return NULL;
        if (IS_UNK(vt) || ty_has_unknown(ot))
            return T(I, TY_UNKNOWN);
        if (ty_is_array(ot->item) && n->op != OP_MATMUL) {
            /* d[k] op= v on an array value is d[k].__iop__(v): in place on the
             * array the dict holds (lowered as the core's in-place update of
             * the value of d[k]) */
            Type *at = infer_expr(I, &n->a);
            if (!at || IS_UNK(at))
                return at;
            n->a->ty = at;
            return infer_ae_augassign(I, n, at, vt);
        }
        if (!ty_is_number(ot->item))
            return UNSUP(I, n, "augmented assignment to a value of %s is not supported by hpcjit", infer_tyname(I, ot));
        Type *op_ty = NULL;
        Type *r = infer_binop_type(I, n, n->op, ot->item, vt, &op_ty);
        if (!r)
            return NULL;
        if (!fits(I->tc, r, ot->item))
            return TYPING(I, n, "cannot store %s into %s (a dict holds values of one type)", infer_tyname(I, r),
                          infer_tyname(I, ot));
        if (I->final) {
            infer_cast(I, &n->b, op_ty);
            Node *args[3] = {t->a, t->b, n->b};
            Node *c = mkcall(I, n->loc, BI_DICT_AUGITEM, T(I, TY_NONE), args, 3);
            c->op = n->op;
            c->op_ty = op_ty;
            n->kind = N_EXPR;
            n->a = c;
            n->b = n->c = NULL;
        }
        return ot->item;
    }
    BuiltinId id = is_set(ot) ? set_op_builtin(n->op, true) : BI_COUNT;
    if (id == BI_COUNT)
        return TYPING(I, n, "unsupported operand types for %s=: %s", ast_op_str(n->op), infer_tyname(I, ot));
    Type *u = same_kind(I, t, ot, &n->b, ast_op_str(n->op));
    if (!u)
        return NULL;
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
const LibOps lib_dict_ops = {
    .name = "dict",
    .infer_call = infer_dict_call,
    .infer_attr = infer_dict_attr,
    .lower_call = lower_dict_call,
    .owns_type = dict_owns,
    .infer_binop = infer_dict_binop,
    .infer_compare = infer_dict_compare,
    .infer_subscript = infer_dict_subscript,
    .infer_store = infer_dict_store,
    .infer_iter = infer_dict_iter,
    .lower_len = lower_dict_len,
    .item_type = dict_item_type,
    .lower_compare = lower_dict_compare,
    .lower_store = lower_dict_store,
    .infer_display = infer_dict_display,
    .infer_augassign = infer_dict_augassign,
    .infer_del = infer_dict_del,
    .lower_iter_begin = lower_dict_iter_begin,
    .lower_iter_next = lower_dict_iter_next,
};
