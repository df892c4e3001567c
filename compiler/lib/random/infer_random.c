/* infer_random.c - typing of np.random (seeding, simple random data,
 * permutations, distributions).
 *
 * Tree shape after the final pass (lower_random.c relies on it): `args`
 * has one slot per parameter as listed in sig_of, absent optional
 * arguments NULL.  Integers are cast to int64, float parameters of the
 * distributions to float64, sizes to int64 or UniTuple(int64); replace=
 * becomes an N_CONST int.  rand/randn keep their dimensions as args (each
 * int64). */
#include "infer.h"
#include "random.h"
#include "registry.h"

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

#define MAX_SLOTS INFER_MAX_SLOTS
#define RANDOM_MAXND 32 /* HJ_MAX_NDIM of abi.h */

typedef InferSig Sig;

static bool sig_of(BuiltinId id, Sig *s) {
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_RANDOM_SEED: S("seed", "seed"); break;
    case BI_RANDOM_RANDOM: S("random", "size"); break;
    case BI_RANDOM_RANDINT: S("randint", "low", "high", "size"); break;
    case BI_RANDOM_UNIFORM: S("uniform", "low", "high", "size"); break;
    case BI_RANDOM_NORMAL: S("normal", "loc", "scale", "size"); break;
    case BI_RANDOM_EXPONENTIAL: S("exponential", "scale", "size"); break;
    case BI_RANDOM_CHOICE: S("choice", "a", "size", "replace"); break;
    case BI_RANDOM_SHUFFLE: S("shuffle", "x"); break;
    case BI_RANDOM_PERMUTATION: S("permutation", "x"); break;
    case BI_RANDOM_RAND: S("rand", "d0"); break;
    case BI_RANDOM_RANDN: S("randn", "d0"); break;
    default: return false;
    }
#undef S
    return true;
}

static bool is_none_const(const Node *n) { return n && n->kind == N_CONST && n->cval.kind == CVAL_NONE; }

static Node *int_const(Inf *I, SrcLoc loc, int64_t v) { return infer_const_int(I, loc, v); }

/* A constant bool option (right=, replace=). -1 after a diagnostic. */
static int bool_option(Inf *I, Node **sl, int i, const char *fname, const char *what, int dflt) {
    Node *o = sl[i];
    if (!o)
        return dflt;
    if (o->kind == N_CONST && (o->cval.kind == CVAL_BOOL || o->cval.kind == CVAL_INT))
        return o->cval.i != 0;
    TYPING(I, o, "%s() %s must be a constant True or False", fname, what);
    return -1;
}

/* size=None | int | tuple of ints: the ndim of the result (0 for None),
 * -1 after a diagnostic, -2 when not known yet. */
static int size_arg(Inf *I, Node **sl, int i, const char *fname) {
    if (!sl[i] || is_none_const(sl[i])) {
        sl[i] = NULL;
        return 0;
    }
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return -1;
    if (IS_UNK(t))
        return -2;
    if (ty_is_int(t)) {
        infer_cast(I, &sl[i], T(I, TY_INT64));
        return 1;
    }
    if (t->kind == TY_TUPLE && t->nelems <= RANDOM_MAXND) {
        Type *el[RANDOM_MAXND];
        for (int k = 0; k < t->nelems; k++) {
            if (!ty_is_int(t->elems[k]))
                goto bad;
            el[k] = T(I, TY_INT64);
        }
        infer_cast(I, &sl[i], ty_tuple(I->tc, el, t->nelems));
        return t->nelems;
    }
bad:
    TYPING(I, sl[i], "%s() size must be None, an int or a tuple of ints, not %s", fname, infer_tyname(I, t));
    return -1;
}

/* An optional real-number parameter cast to float64; false on error. */
static bool real_arg(Inf *I, Node **sl, int i, const char *fname, bool *unk) {
    if (!sl[i] || is_none_const(sl[i])) {
        sl[i] = NULL;
        return true;
    }
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (!ty_is_number(t) || ty_is_complex(t)) {
        TYPING(I, sl[i], "%s() %s must be a real number, not %s", fname, "argument", infer_tyname(I, t));
        return false;
    }
    infer_cast(I, &sl[i], T(I, TY_FLOAT64));
    return true;
}

static bool int_arg(Inf *I, Node **sl, int i, const char *fname, bool *unk) {
    if (!sl[i] || is_none_const(sl[i])) {
        sl[i] = NULL;
        return true;
    }
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (!ty_is_int(t) && t->kind != TY_BOOL) {
        TYPING(I, sl[i], "%s() %s must be an integer, not %s", fname, "argument", infer_tyname(I, t));
        return false;
    }
    infer_cast(I, &sl[i], T(I, TY_INT64));
    return true;
}

static Type *arr_of(Inf *I, Type *dt, int nd) {
    return nd == 0 ? dt : ty_array(I->tc, dt, nd, LAYOUT_C);
}

static Type *random_call(Inf *I, Node *n, BuiltinId id, const Sig *s, Node **sl) {
    const char *fname = s->fname;
    bool unk = false;
    if (id == BI_RANDOM_RAND || id == BI_RANDOM_RANDN) {
        if (n->keywords.len)
            return TYPING(I, n, "%s() takes no keyword arguments", fname);
        if (n->args.len > RANDOM_MAXND)
            return TYPING(I, n, "%s(): too many dimensions", fname);
        for (int i = 0; i < n->args.len; i++) {
            Node **pa = (Node **)&VEC_AT(n->args, i);
            Type *t = infer_expr(I, pa);
            if (!t)
                return NULL;
            if (IS_UNK(t)) {
                unk = true;
                continue;
            }
            if (!ty_is_int(t))
                return TYPING(I, *pa, "%s() dimensions must be integers, not %s", fname, infer_tyname(I, t));
            infer_cast(I, pa, T(I, TY_INT64));
        }
        return unk ? TY_UNK(I) : arr_of(I, T(I, TY_FLOAT64), n->args.len);
    }
    if (!infer_bind_slots(I, n, NULL, s, sl))
        return NULL;
    int nd = 0;
    Type *r = NULL;
    switch (id) {
    case BI_RANDOM_SEED:
        if (!sl[0])
            return TYPING(I, n, "seed() missing required argument 'seed'");
        if (!int_arg(I, sl, 0, fname, &unk))
            return NULL;
        r = T(I, TY_NONE);
        break;
    case BI_RANDOM_RANDOM:
        nd = size_arg(I, sl, 0, fname);
        r = T(I, TY_FLOAT64);
        break;
    case BI_RANDOM_RANDINT:
        if (!sl[0])
            return TYPING(I, n, "randint() missing required argument 'low'");
        if (!int_arg(I, sl, 0, fname, &unk) || !int_arg(I, sl, 1, fname, &unk))
            return NULL;
        nd = size_arg(I, sl, 2, fname);
        r = T(I, TY_INT64);
        break;
    case BI_RANDOM_UNIFORM:
    case BI_RANDOM_NORMAL:
        if (!real_arg(I, sl, 0, fname, &unk) || !real_arg(I, sl, 1, fname, &unk))
            return NULL;
        nd = size_arg(I, sl, 2, fname);
        r = T(I, TY_FLOAT64);
        break;
    case BI_RANDOM_EXPONENTIAL:
        if (!real_arg(I, sl, 0, fname, &unk))
            return NULL;
        nd = size_arg(I, sl, 1, fname);
        r = T(I, TY_FLOAT64);
        break;
    case BI_RANDOM_CHOICE: {
        if (!sl[0])
            return TYPING(I, n, "choice() missing required argument 'a'");
        Type *t = infer_expr(I, &sl[0]);
        if (!t)
            return NULL;
        if (IS_UNK(t)) {
            unk = true;
            break;
        }
        if (ty_is_int(t)) {
            infer_cast(I, &sl[0], T(I, TY_INT64));
            r = T(I, TY_INT64);
        } else if (t->kind == TY_ARRAY && t->ndim == 1) {
            r = t->dtype;
        } else {
            return TYPING(I, sl[0], "choice() a must be an int or a 1-D array, not %s", infer_tyname(I, t));
        }
        nd = size_arg(I, sl, 1, fname);
        int rep = bool_option(I, sl, 2, fname, "replace", 1);
        if (rep < 0)
            return NULL;
        if (!rep && nd == 0)
            return UNSUP(I, n, "choice(replace=False) needs a size");
        if (I->final)
            sl[2] = int_const(I, n->loc, rep);
        break;
    }
    case BI_RANDOM_SHUFFLE:
    case BI_RANDOM_PERMUTATION: {
        if (!sl[0])
            return TYPING(I, n, "%s() missing required argument 'x'", fname);
        Type *t = infer_expr(I, &sl[0]);
        if (!t)
            return NULL;
        if (IS_UNK(t)) {
            unk = true;
            break;
        }
        if (id == BI_RANDOM_PERMUTATION && ty_is_int(t)) {
            infer_cast(I, &sl[0], T(I, TY_INT64));
            r = ty_array(I->tc, T(I, TY_INT64), 1, LAYOUT_C);
        } else if (t->kind == TY_ARRAY && t->ndim >= 1) {
            if (id == BI_RANDOM_SHUFFLE && t->readonly)
                return TYPING(I, sl[0], "shuffle() of a read-only array");
            r = id == BI_RANDOM_SHUFFLE ? T(I, TY_NONE) : ty_array(I->tc, t->dtype, t->ndim, LAYOUT_C);
        } else {
            return TYPING(I, sl[0], "%s() needs an array of at least 1 dimension%s, not %s", fname,
                          id == BI_RANDOM_PERMUTATION ? " or an int" : "", infer_tyname(I, t));
        }
        break;
    }
    default: return UNSUP(I, n, "%s() is not supported by hpcjit", fname);
    }
    if (nd == -1)
        return NULL;
    if (nd == -2 || unk)
        return TY_UNK(I);
    infer_store_slots(I, n, sl, s->n);
    return r->kind == TY_NONE ? r : arr_of(I, r, nd);
}

static Type *infer_random_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    (void)self;
    Sig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", builtin_name(id));
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    Node *sl[MAX_SLOTS];
    return random_call(I, n, id, &s, sl);
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_random_ops = {.name = "random", .infer_call = infer_random_call, .lower_call = lower_random_call};
