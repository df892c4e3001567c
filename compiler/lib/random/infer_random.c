/* infer_random.c - typing of random numbers in compiled code: np.random
 * (seeding, simple random data, permutations, distributions), the random
 * module, np.random.default_rng (a TY_NPGENERATOR made in the frame), and
 * the methods of a numpy.random.Generator (TY_NPGENERATOR: rng.normal(...)).
 *
 * Tree shape after the final pass (lower_random.c relies on it): `args`
 * has one slot per parameter as listed in sig_of (a Generator method's
 * receiver first), absent optional arguments NULL.  A distribution's
 * parameters (the table below) are cast to float64, integer ones through
 * int64; other integers to int64, sizes to int64 or UniTuple(int64).
 * replace= and endpoint= become N_CONST ints.  rand/randn keep their
 * dimensions as args (each int64). */
#include "infer.h"
#include "random.h"
#include "registry.h"

#include "hpcjit/random.h"

#include <math.h>
#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

#define MAX_SLOTS INFER_MAX_SLOTS
#define RANDOM_MAXND 32 /* HJ_MAX_NDIM of abi.h */

typedef InferSig Sig;

/* ---- the distributions ------------------------------------------------------ */

#define R1 1u
#define R2 3u
#define R3 7u
/* np.random's and Generator's, NumPy's parameter names and defaults */
static const RandomDist np_dists[] = {
    {"random", RT_D_RANDOM, 0, {0}, {0}, 0, 0},
    {"uniform", RT_D_UNIFORM, 2, {"low", "high"}, {0.0, 1.0}, 0, 0},
    {"normal", RT_D_NORMAL, 2, {"loc", "scale"}, {0.0, 1.0}, 0, 0},
    {"standard_normal", RT_D_STD_NORMAL, 0, {0}, {0}, 0, 0},
    {"exponential", RT_D_EXPONENTIAL, 1, {"scale"}, {1.0}, 0, 0},
    {"standard_exponential", RT_D_STD_EXPONENTIAL, 0, {0}, {0}, 0, 0},
    {"gamma", RT_D_GAMMA, 2, {"shape", "scale"}, {0, 1.0}, R1, 0},
    {"standard_gamma", RT_D_STD_GAMMA, 1, {"shape"}, {0}, R1, 0},
    {"beta", RT_D_BETA, 2, {"a", "b"}, {0}, R2, 0},
    {"chisquare", RT_D_CHISQUARE, 1, {"df"}, {0}, R1, 0},
    {"f", RT_D_F, 2, {"dfnum", "dfden"}, {0}, R2, 0},
    {"noncentral_chisquare", RT_D_NONC_CHISQUARE, 2, {"df", "nonc"}, {0}, R2, 0},
    {"noncentral_f", RT_D_NONC_F, 3, {"dfnum", "dfden", "nonc"}, {0}, R3, 0},
    {"standard_cauchy", RT_D_CAUCHY, 0, {0}, {0}, 0, 0},
    {"standard_t", RT_D_STD_T, 1, {"df"}, {0}, R1, 0},
    {"vonmises", RT_D_VONMISES, 2, {"mu", "kappa"}, {0}, R2, 0},
    {"pareto", RT_D_PARETO, 1, {"a"}, {0}, R1, 0},
    {"weibull", RT_D_WEIBULL, 1, {"a"}, {0}, R1, 0},
    {"power", RT_D_POWER, 1, {"a"}, {0}, R1, 0},
    {"laplace", RT_D_LAPLACE, 2, {"loc", "scale"}, {0.0, 1.0}, 0, 0},
    {"gumbel", RT_D_GUMBEL, 2, {"loc", "scale"}, {0.0, 1.0}, 0, 0},
    {"logistic", RT_D_LOGISTIC, 2, {"loc", "scale"}, {0.0, 1.0}, 0, 0},
    {"lognormal", RT_D_LOGNORMAL, 2, {"mean", "sigma"}, {0.0, 1.0}, 0, 0},
    {"rayleigh", RT_D_RAYLEIGH, 1, {"scale"}, {1.0}, 0, 0},
    {"wald", RT_D_WALD, 2, {"mean", "scale"}, {0}, R2, 0},
    {"triangular", RT_D_TRIANGULAR, 3, {"left", "mode", "right"}, {0}, R3, 0},
    {"binomial", RT_D_BINOMIAL, 2, {"n", "p"}, {0}, R2, 1u},
    {"negative_binomial", RT_D_NEG_BINOMIAL, 2, {"n", "p"}, {0}, R2, 0},
    {"poisson", RT_D_POISSON, 1, {"lam"}, {1.0}, 0, 0},
    {"geometric", RT_D_GEOMETRIC, 1, {"p"}, {0}, R1, 0},
    {"zipf", RT_D_ZIPF, 1, {"a"}, {0}, R1, 0},
    {"logseries", RT_D_LOGSERIES, 1, {"p"}, {0}, R1, 0},
    {"hypergeometric", RT_D_HYPERGEOMETRIC, 3, {"ngood", "nbad", "nsample"}, {0}, R3, 7u},
};
/* the random module's (CPython's names; triangular's mode defaults to None) */
static const RandomDist py_dists[] = {
    {"random", RT_D_RANDOM, 0, {0}, {0}, 0, 0},
    {"uniform", RT_D_PY_UNIFORM, 2, {"a", "b"}, {0}, R2, 0},
    {"triangular", RT_D_PY_TRIANGULAR, 3, {"low", "high", "mode"}, {0.0, 1.0, NAN}, 0, 0},
    {"gauss", RT_D_PY_NORMAL, 2, {"mu", "sigma"}, {0.0, 1.0}, 0, 0},
    {"normalvariate", RT_D_PY_NORMAL, 2, {"mu", "sigma"}, {0.0, 1.0}, 0, 0},
    {"lognormvariate", RT_D_PY_LOGNORMAL, 2, {"mu", "sigma"}, {0}, R2, 0},
    {"expovariate", RT_D_PY_EXPO, 1, {"lambd"}, {1.0}, 0, 0},
    {"gammavariate", RT_D_PY_GAMMA, 2, {"alpha", "beta"}, {0}, R2, 0},
    {"betavariate", RT_D_PY_BETA, 2, {"alpha", "beta"}, {0}, R2, 0},
    {"vonmisesvariate", RT_D_PY_VONMISES, 2, {"mu", "kappa"}, {0}, R2, 0},
    {"paretovariate", RT_D_PY_PARETO, 1, {"alpha"}, {0}, R1, 0},
    {"weibullvariate", RT_D_PY_WEIBULL, 2, {"alpha", "beta"}, {0}, R2, 0},
};

RandomApi random_api(BuiltinId id) {
    const char *nm = builtin_name(id);
    if (strncmp(nm, "Generator.", 10) == 0)
        return RND_GEN;
    if (strncmp(nm, "random.", 7) == 0)
        return RND_PY;
    return RND_NUMPY;
}

const RandomDist *random_dist(BuiltinId id, RandomApi *api) {
    const char *nm = builtin_name(id);
    RandomApi a = random_api(id);
    nm = strchr(nm, '.') + 1;
    if (a == RND_NUMPY)
        nm = strchr(nm, '.') + 1; /* numpy.random. */
    const RandomDist *t = a == RND_PY ? py_dists : np_dists;
    size_t n = a == RND_PY ? sizeof py_dists / sizeof *py_dists : sizeof np_dists / sizeof *np_dists;
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].name, nm) == 0) {
            if (api)
                *api = a;
            return &t[i];
        }
    return NULL;
}

/* ---- signatures ------------------------------------------------------------- */

/* Generator's methods with a dtype= (np.float64 or np.float32) */
static bool has_dtype(const RandomDist *d) {
    return d->kind == RT_D_RANDOM || d->kind == RT_D_STD_NORMAL || d->kind == RT_D_STD_EXPONENTIAL ||
           d->kind == RT_D_STD_GAMMA;
}

static bool sig_of(BuiltinId id, Sig *s) {
    RandomApi api;
    const RandomDist *d = random_dist(id, &api);
    if (d) { /* [self], the parameters, [size] */
        s->fname = d->name;
        s->n = 0;
        if (api == RND_GEN)
            s->names[s->n++] = "self";
        for (int i = 0; i < d->np; i++)
            s->names[s->n++] = d->params[i];
        if (api != RND_PY)
            s->names[s->n++] = "size";
        if (api == RND_GEN && has_dtype(d))
            s->names[s->n++] = "dtype";
        return true;
    }
#define S(name, ...) INFER_SIG(s, name, __VA_ARGS__)
    switch (id) {
    case BI_RANDOM_SEED: S("seed", "seed"); break;
    case BI_RANDOM_DEFAULT_RNG: S("default_rng", "seed"); break;
    case BI_RANDOM_RANDINT: S("randint", "low", "high", "size"); break;
    case BI_RANDOM_CHOICE: S("choice", "a", "size", "replace"); break;
    case BI_RANDOM_SHUFFLE: S("shuffle", "x"); break;
    case BI_RANDOM_PERMUTATION: S("permutation", "x"); break;
    case BI_RANDOM_RAND: S("rand", "d0"); break;
    case BI_RANDOM_RANDN: S("randn", "d0"); break;
    case BI_RANDOM_DIRICHLET: S("dirichlet", "alpha", "size"); break;
    case BI_RANDOM_MULTINOMIAL: S("multinomial", "n", "pvals", "size"); break;
    case BI_PYRANDOM_SEED: S("seed", "a"); break;
    case BI_PYRANDOM_GETRANDBITS: S("getrandbits", "k"); break;
    case BI_PYRANDOM_RANDRANGE: S("randrange", "start", "stop", "step"); break;
    case BI_PYRANDOM_RANDINT: S("randint", "a", "b"); break;
    case BI_PYRANDOM_SHUFFLE: S("shuffle", "x"); break;
    case BI_GEN_INTEGERS: S("integers", "self", "low", "high", "size", "dtype", "endpoint"); break;
    case BI_GEN_SHUFFLE: S("shuffle", "self", "x", "axis"); break;
    case BI_GEN_PERMUTATION: S("permutation", "self", "x", "axis"); break;
    default: return false;
    }
#undef S
    return true;
}

/* ---- arguments -------------------------------------------------------------- */

static Node *int_const(Inf *I, SrcLoc loc, int64_t v) { return infer_const_int(I, loc, v); }

/* A constant bool option (replace=, endpoint=). -1 after a diagnostic. */
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
    if (!sl[i] || infer_is_none(sl[i])) {
        sl[i] = NULL;
        return 0;
    }
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return -1;
    if (IS_UNK(t))
        return -2;
    if (t->kind == TY_NONE) { /* a variable holding None */
        sl[i] = NULL;
        return 0;
    }
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

/* An optional real-number parameter cast to float64 (an integer one
 * through int64, as NumPy casts it); false on error. */
static bool real_arg(Inf *I, Node **sl, int i, const char *fname, const char *what, bool integer, bool *unk) {
    if (!sl[i] || infer_is_none(sl[i])) {
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
        TYPING(I, sl[i], "%s() %s must be a real number, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    if (integer && !ty_is_int(t))
        infer_cast(I, &sl[i], T(I, TY_INT64));
    infer_cast(I, &sl[i], T(I, TY_FLOAT64));
    return true;
}

static Type *arr_of(Inf *I, Type *dt, int nd) {
    return nd == 0 ? dt : ty_array(I->tc, dt, nd, LAYOUT_C);
}

/* A 1-D array of numbers (dirichlet's alpha, multinomial's pvals): its
 * items are read as float64 by the lowering. */
static bool vector_arg(Inf *I, Node *n, Node **sl, int i, const char *fname, const char *what, bool *unk) {
    if (!sl[i])
        return TYPING(I, n, "%s() missing required argument '%s'", fname, what), false;
    Type *t = infer_expr(I, &sl[i]);
    if (!t)
        return false;
    if (IS_UNK(t)) {
        *unk = true;
        return true;
    }
    if (t->kind != TY_ARRAY || t->ndim != 1 || !ty_is_number(t->dtype) || ty_is_complex(t->dtype)) {
        TYPING(I, sl[i], "%s() %s must be a 1-D array of real numbers, not %s", fname, what, infer_tyname(I, t));
        return false;
    }
    return true;
}

/* ---- calls ------------------------------------------------------------------ */

static Type *dist_call(Inf *I, Node *n, const RandomDist *d, RandomApi api, const Sig *s, Node **sl) {
    const char *fname = s->fname;
    bool unk = false;
    int first = api == RND_GEN ? 1 : 0;
    for (int i = 0; i < d->np; i++) {
        Node **p = &sl[first + i];
        if (!*p && (d->req >> i & 1))
            return TYPING(I, n, "%s() missing required argument '%s'", fname, d->params[i]);
        if (!real_arg(I, sl, first + i, fname, d->params[i], d->ints >> i & 1, &unk))
            return NULL;
    }
    int nd = api == RND_PY ? 0 : size_arg(I, sl, first + d->np, fname);
    if (nd == -1)
        return NULL;
    Type *dt = T(I, d->kind >= RT_D_INT_FIRST ? TY_INT64 : TY_FLOAT64);
    if (api == RND_GEN && has_dtype(d)) { /* dtype=: an N_CONST int, 1 for float32 */
        Node **pd = &sl[first + d->np + 1];
        bool f32 = false;
        if (*pd && !infer_is_none(*pd)) {
            Type *t = infer_expr(I, pd);
            if (!t)
                return NULL;
            if (IS_UNK(t))
                return t;
            if (t->kind != TY_DTYPE || (t->dtype->kind != TY_FLOAT64 && t->dtype->kind != TY_FLOAT32))
                return TYPING(I, *pd, "%s() dtype must be np.float64 or np.float32, not %s", fname,
                              infer_tyname(I, t));
            f32 = t->dtype->kind == TY_FLOAT32;
        }
        if (f32)
            dt = T(I, TY_FLOAT32);
        *pd = I->final ? int_const(I, n->loc, f32) : NULL;
    }
    if (nd == -2 || unk)
        return TY_UNK(I);
    infer_store_slots(I, n, sl, s->n);
    return arr_of(I, dt, nd);
}

/* shuffle/permutation of np.random, random and Generator (x in slot xi). */
static Type *permute_call(Inf *I, Node *n, BuiltinId id, const char *fname, Node **sl, int xi) {
    bool perm = id == BI_RANDOM_PERMUTATION || id == BI_GEN_PERMUTATION;
    if (!sl[xi])
        return TYPING(I, n, "%s() missing required argument 'x'", fname);
    Type *t = infer_expr(I, &sl[xi]);
    if (!t)
        return NULL;
    if (IS_UNK(t))
        return t;
    if (perm && ty_is_int(t)) {
        infer_cast(I, &sl[xi], T(I, TY_INT64));
        return ty_array(I->tc, T(I, TY_INT64), 1, LAYOUT_C);
    }
    int maxnd = id == BI_PYRANDOM_SHUFFLE ? 1 : RANDOM_MAXND; /* random.shuffle: Numba's 1-D arrays */
    if (t->kind == TY_ARRAY && t->ndim >= 1 && t->ndim <= maxnd) {
        if (!perm && t->readonly)
            return TYPING(I, sl[xi], "%s() of a read-only array", fname);
        return perm ? ty_array(I->tc, t->dtype, t->ndim, LAYOUT_C) : T(I, TY_NONE);
    }
    if (id == BI_PYRANDOM_SHUFFLE)
        return TYPING(I, sl[xi], "shuffle() needs a 1-D array in compiled code, not %s", infer_tyname(I, t));
    return TYPING(I, sl[xi], "%s() needs an array of at least 1 dimension%s, not %s", fname,
                  perm ? " or an int" : "", infer_tyname(I, t));
}

/* axis= of Generator.shuffle/permutation: only the first axis. */
static bool axis0(Inf *I, Node **sl, int i, const char *fname) {
    Node *o = sl[i];
    if (!o)
        return true;
    if (o->kind == N_CONST && o->cval.kind == CVAL_INT && o->cval.i == 0) {
        sl[i] = NULL;
        return true;
    }
    UNSUP(I, o, "%s() axis other than a constant 0 is not supported by hpcjit", fname);
    return false;
}

static Type *random_call(Inf *I, Node *n, BuiltinId id, const Sig *s, Node **sl, Node *self) {
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
    if (!infer_bind_slots(I, n, self, s, sl))
        return NULL;
    RandomApi api;
    const RandomDist *d = random_dist(id, &api);
    if (d)
        return dist_call(I, n, d, api, s, sl);
    int nd = 0;
    Type *r = NULL;
    switch (id) {
    case BI_RANDOM_SEED:
    case BI_PYRANDOM_SEED:
        if (!sl[0])
            return TYPING(I, n, "seed() missing required argument '%s'", s->names[0]);
        if (!infer_req_int(I, n, sl, 0, fname, s->names[0], &unk))
            return NULL;
        r = T(I, TY_NONE);
        break;
    case BI_RANDOM_DEFAULT_RNG: /* an int seed or none (fresh entropy) */
        if (!infer_opt_int(I, sl, 0, fname, "seed", &unk))
            return NULL;
        r = T(I, TY_NPGENERATOR);
        break;
    case BI_RANDOM_RANDINT:
        if (!sl[0])
            return TYPING(I, n, "randint() missing required argument 'low'");
        if (!infer_req_int(I, n, sl, 0, fname, "low", &unk) || !infer_opt_int(I, sl, 1, fname, "high", &unk))
            return NULL;
        nd = size_arg(I, sl, 2, fname);
        r = T(I, TY_INT64);
        break;
    case BI_GEN_INTEGERS: {
        if (!infer_req_int(I, n, sl, 1, fname, "low", &unk) || !infer_opt_int(I, sl, 2, fname, "high", &unk))
            return NULL;
        nd = size_arg(I, sl, 3, fname);
        r = T(I, TY_INT64);
        if (sl[4] && !infer_is_none(sl[4])) { /* dtype=: the result's (n->ty) */
            Type *dt = infer_expr(I, &sl[4]);
            if (!dt)
                return NULL;
            if (IS_UNK(dt))
                return dt;
            if (dt->kind != TY_DTYPE || !ty_is_int(dt->dtype))
                return UNSUP(I, sl[4], "integers() dtype must be an integer type in compiled code, not %s",
                             infer_tyname(I, dt));
            r = dt->dtype;
        }
        sl[4] = NULL;
        int ep = bool_option(I, sl, 5, fname, "endpoint", 0);
        if (ep < 0)
            return NULL;
        if (I->final)
            sl[5] = int_const(I, n->loc, ep);
        break;
    }
    case BI_RANDOM_DIRICHLET:
    case BI_RANDOM_MULTINOMIAL: {
        bool dir = id == BI_RANDOM_DIRICHLET;
        if (!dir) {
            if (!infer_req_int(I, n, sl, 0, fname, "n", &unk))
                return NULL;
        }
        if (!vector_arg(I, n, sl, dir ? 0 : 1, fname, dir ? "alpha" : "pvals", &unk))
            return NULL;
        nd = size_arg(I, sl, dir ? 1 : 2, fname);
        if (nd >= 0)
            nd++; /* the last axis: the categories */
        r = T(I, dir ? TY_FLOAT64 : TY_INT64);
        break;
    }
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
    case BI_RANDOM_PERMUTATION:
    case BI_PYRANDOM_SHUFFLE:
    case BI_GEN_SHUFFLE:
    case BI_GEN_PERMUTATION: {
        int xi = id == BI_GEN_SHUFFLE || id == BI_GEN_PERMUTATION ? 1 : 0;
        if (xi && !axis0(I, sl, 2, fname))
            return NULL;
        r = permute_call(I, n, id, fname, sl, xi);
        if (!r || IS_UNK(r))
            return r;
        infer_store_slots(I, n, sl, s->n);
        return r;
    }
    case BI_PYRANDOM_GETRANDBITS:
        if (!infer_req_int(I, n, sl, 0, fname, "k", &unk))
            return NULL;
        r = T(I, TY_UINT64); /* as Numba's: k may be 64 */
        break;
    case BI_PYRANDOM_RANDRANGE:
    case BI_PYRANDOM_RANDINT: {
        int need = id == BI_PYRANDOM_RANDINT ? 2 : 1;
        for (int i = 0; i < s->n; i++) /* randrange's stop and step may be None */
            if (!(i < need ? infer_req_int(I, n, sl, i, fname, s->names[i], &unk)
                           : infer_opt_int(I, sl, i, fname, s->names[i], &unk)))
                return NULL;
        if (unk)
            return TY_UNK(I);
        /* the slots only: a call typed again (float(random.randrange(9)))
         * binds them again */
        infer_store_slots(I, n, sl, s->n);
        return T(I, TY_INT64);
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
    Sig s;
    if (!sig_of(id, &s))
        return UNSUP(I, n, "%s() is not supported by hpcjit yet", builtin_name(id));
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    Node *sl[MAX_SLOTS];
    return random_call(I, n, id, &s, sl, self);
}

/* rng.normal, rng.integers...: the methods of a Generator argument. */
static bool infer_random_attr(Inf *I, Node *n, Type *base, Type **out) {
    if (base->kind != TY_NPGENERATOR)
        return false;
    int b = builtin_lookup(arena_printf(I->a, "Generator.%s", n->name));
    if (b < 0) {
        *out = UNSUP(I, n, "Generator.%s() is not supported by hpcjit", n->name);
        return true;
    }
    n->attr_kind = ATTR_METHOD;
    *out = ty_bound_method(I->tc, b, base);
    return true;
}

/* the feature's entry in the registry (lib/registry.h) */
const LibOps lib_random_ops = {
    .name = "random", .infer_call = infer_random_call, .infer_attr = infer_random_attr,
    .lower_call = lower_random_call};
