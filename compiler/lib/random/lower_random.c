/* lower_random.c - lowering of np.random, random and Generator calls onto
 * runtime/random.c: Numba's draws from the per-thread MT19937 generators,
 * or NumPy's distributions from a Generator's bit generator (an
 * argument's, or one default_rng() made in the frame, default_rng.c).
 * Tree shapes: infer_random.c (args = [generator,] [params..., size],
 * rand/randn: the dims). */
#include <string.h>

#include "np/lower_np.h"
#include "random.h"

#include "hpcjit/random.h"

static LLVMValueRef f64c(Lower *L, double v) { return LLVMConstReal(L->t_f64, v); }

/* Dimensions of the result from a size node (int64 or UniTuple). */
static bool size_dims(Lower *L, Node *size, int nd, LLVMValueRef *dims) {
    LLVMValueRef v = lower_expr_use(L, size);
    if (!v)
        return false;
    if (size->ty->kind != TY_TUPLE) {
        dims[0] = v;
        return true;
    }
    for (int d = 0; d < nd; d++)
        dims[d] = LLVMBuildExtractValue(L->b, v, (unsigned)d, "dim");
    return true;
}

static LLVMValueRef opt_f64(Lower *L, Node *e, double dflt) { return e ? lower_expr_use(L, e) : f64c(L, dflt); }

/* The result buffer: an array of n->ty (owned, *data its items, *cnt their
 * number) or, for a scalar result, a one-item alloca. */
static LLVMValueRef result_buf(Lower *L, Node *n, Node *size, LLVMValueRef *data, LLVMValueRef *cnt,
                               LLVMValueRef *dims_out) {
    Type *t = n->ty;
    if (t->kind != TY_ARRAY) {
        *data = lower_alloca(L, lower_mem_type(L, t), "draw");
        *cnt = lower_i64(L, 1);
        return NULL;
    }
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    if (size) {
        if (!size_dims(L, size, t->ndim, dims))
            return NULL;
    } else {
        for (int d = 0; d < t->ndim; d++) {
            dims[d] = lower_expr_use(L, np_arg(n, d));
            if (!dims[d])
                return NULL;
        }
    }
    LLVMValueRef a = np_alloc(L, t, dims, false);
    lower_temp(L, a, t, true); /* finish() adds the caller's reference */
    *data = lower_array_field(L, a, ARR_DATA, "");
    *cnt = lower_array_field(L, a, ARR_NITEMS, "");
    if (dims_out)
        for (int d = 0; d < t->ndim; d++)
            dims_out[d] = dims[d];
    return a;
}

static LLVMValueRef finish(Lower *L, Node *n, LLVMValueRef arr, LLVMValueRef data, bool *owned) {
    if (arr) {
        lower_incref(L, arr, n->ty);
        *owned = true;
        return arr;
    }
    return np_load(L, data, n->ty);
}

/* The bit generator a call draws from: a Generator argument's, the random
 * module's (this thread's), or NULL for np.random's (the runtime's own). */
static LLVMValueRef bitgen(Lower *L, Node *n, RandomApi api) {
    if (api == RND_GEN)
        return lower_expr_use(L, np_arg(n, 0));
    if (api == RND_NUMPY)
        return LLVMConstNull(L->t_ptr);
    LLVMTypeRef t = L->t_i32;
    LLVMValueRef w = lower_i32(L, RT_RNG_PY);
    return lower_rt(L, "rt_random_bitgen", L->t_ptr, &t, 1, &w);
}

/* A distribution of the table (infer_random.c), or rand/randn. */
static LLVMValueRef dist_call(Lower *L, Node *n, const RandomDist *d, RandomApi api, bool *owned) {
    int first = api == RND_GEN ? 1 : 0;
    LLVMValueRef bg = bitgen(L, n, api);
    if (!bg)
        return NULL;
    LLVMValueRef p[3];
    for (int i = 0; i < 3; i++) {
        p[i] = i < d->np ? opt_f64(L, np_arg(n, first + i), d->dflt[i]) : f64c(L, 0.0);
        if (!p[i])
            return NULL;
    }
    Node *size = api == RND_PY ? NULL : np_arg(n, first + d->np);
    LLVMValueRef data = NULL, cnt = NULL;
    LLVMValueRef arr = result_buf(L, n, size, &data, &cnt, NULL);
    if (!data)
        return NULL;
    int kind = d->kind | (api == RND_GEN ? RT_D_GEN : 0);
    Node *f32 = api == RND_GEN ? np_arg(n, first + d->np + 1) : NULL; /* dtype=np.float32 (infer_random.c) */
    if (f32 && f32->kind == N_CONST && f32->cval.i)
        kind |= RT_D_F32;
    LLVMTypeRef ts[7] = {L->t_ptr, L->t_i32, L->t_ptr, L->t_i64, L->t_f64, L->t_f64, L->t_f64};
    LLVMValueRef as[7] = {bg, lower_i32(L, kind), data, cnt, p[0], p[1], p[2]};
    lower_check_status(L, lower_rt(L, "rt_random_dist", L->t_i32, ts, 7, as));
    return finish(L, n, arr, data, owned);
}

static LLVMValueRef randn_call(Lower *L, Node *n, bool *owned) {
    LLVMValueRef data = NULL, cnt = NULL;
    LLVMValueRef arr = result_buf(L, n, NULL, &data, &cnt, NULL);
    if (!data)
        return NULL;
    int kind = n->builtin == BI_RANDOM_RANDN ? RT_D_STD_NORMAL : RT_D_RANDOM;
    LLVMTypeRef ts[7] = {L->t_ptr, L->t_i32, L->t_ptr, L->t_i64, L->t_f64, L->t_f64, L->t_f64};
    LLVMValueRef as[7] = {LLVMConstNull(L->t_ptr), lower_i32(L, kind), data, cnt, f64c(L, 0), f64c(L, 0), f64c(L, 0)};
    lower_check_status(L, lower_rt(L, "rt_random_dist", L->t_i32, ts, 7, as));
    return finish(L, n, arr, data, owned);
}

/* Generator.integers(low, high, size, dtype, endpoint) */
static LLVMValueRef integers_call(Lower *L, Node *n, bool *owned) {
    LLVMValueRef bg = bitgen(L, n, RND_GEN);
    LLVMValueRef lo = bg ? lower_expr_use(L, np_arg(n, 1)) : NULL;
    LLVMValueRef hi = np_arg(n, 2) ? lower_expr_use(L, np_arg(n, 2)) : NULL;
    if (!lo || (np_arg(n, 2) && !hi))
        return NULL;
    if (!hi) {
        hi = lo;
        lo = lower_i64(L, 0);
    }
    LLVMValueRef data = NULL, cnt = NULL;
    LLVMValueRef arr = result_buf(L, n, np_arg(n, 3), &data, &cnt, NULL);
    if (!data)
        return NULL;
    int ep = np_arg(n, 5) ? (int)np_arg(n, 5)->cval.i : 0;
    Type *dt = n->ty->kind == TY_ARRAY ? n->ty->dtype : n->ty; /* dtype= */
    LLVMTypeRef ts[8] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_i64, L->t_i32, L->t_i32, L->t_i32};
    LLVMValueRef as[8] = {bg, data, cnt, lo, hi, lower_i32(L, ep), lower_i32(L, ty_itemsize(dt)),
                          lower_i32(L, ty_is_signed(dt))};
    lower_check_status(L, lower_rt(L, "rt_random_integers", L->t_i32, ts, 8, as));
    return finish(L, n, arr, data, owned);
}

/* dirichlet(alpha, size) / multinomial(n, pvals, size): size's shape plus
 * one axis of the categories. */
static LLVMValueRef vector_call(Lower *L, Node *n, bool *owned) {
    bool dir = n->builtin == BI_RANDOM_DIRICHLET;
    LLVMValueRef cnt_n = NULL;
    if (!dir && !(cnt_n = lower_expr_use(L, np_arg(n, 0))))
        return NULL;
    Node *vec = np_arg(n, dir ? 0 : 1), *size = np_arg(n, dir ? 1 : 2);
    LLVMValueRef v = lower_expr_use(L, vec);
    if (!v)
        return NULL;
    Type *f64 = ty_scalar(L->c->tc, TY_FLOAT64);
    Type *vty = ty_array(L->c->tc, f64, 1, LAYOUT_C);
    LLVMValueRef c = np_own(L, np_copy_c(L, v, vec->ty, vty), vty);
    LLVMValueRef k = lower_array_field(L, c, ARR_NITEMS, "k");
    Type *t = n->ty;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    LLVMValueRef rows = lower_i64(L, 1);
    if (size) {
        if (!size_dims(L, size, t->ndim - 1, dims))
            return NULL;
        for (int d = 0; d < t->ndim - 1; d++)
            rows = np_mul(L, rows, dims[d]);
    }
    dims[t->ndim - 1] = k;
    LLVMValueRef a = np_own(L, np_alloc(L, t, dims, false), t);
    LLVMValueRef data = lower_array_field(L, a, ARR_DATA, "");
    LLVMValueRef vd = lower_array_field(L, c, ARR_DATA, "");
    LLVMValueRef null = LLVMConstNull(L->t_ptr);
    if (dir) {
        LLVMTypeRef ts[5] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_ptr, L->t_i64};
        LLVMValueRef as[5] = {null, data, rows, vd, k};
        lower_check_status(L, lower_rt(L, "rt_random_dirichlet", L->t_i32, ts, 5, as));
    } else {
        LLVMTypeRef ts[6] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_ptr, L->t_i64};
        LLVMValueRef as[6] = {null, data, rows, cnt_n, vd, k};
        lower_check_status(L, lower_rt(L, "rt_random_multinomial", L->t_i32, ts, 6, as));
    }
    return np_give(L, a, t, owned);
}

/* random.getrandbits(k), random.randrange(start, stop, step), random.randint(a, b) */
static LLVMValueRef pyint_call(Lower *L, Node *n) {
    LLVMValueRef out = lower_alloca(L, L->t_i64, "draw");
    if (n->builtin == BI_PYRANDOM_GETRANDBITS) {
        LLVMValueRef k = lower_expr_use(L, np_arg(n, 0));
        if (!k)
            return NULL;
        LLVMTypeRef ts[2] = {L->t_i64, L->t_ptr};
        LLVMValueRef as[2] = {k, out};
        lower_check_status(L, lower_rt(L, "rt_pyrandom_getrandbits", L->t_i32, ts, 2, as));
        return lower_load(L, L->t_i64, out, "bits");
    }
    LLVMValueRef v[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        if (np_arg(n, i) && !(v[i] = lower_expr_use(L, np_arg(n, i))))
            return NULL;
    int nargs = v[2] ? 3 : v[1] ? 2 : 1; /* how many arguments: CPython's messages differ */
    LLVMValueRef start = v[0], stop = v[1], step = v[2] ? v[2] : lower_i64(L, 1);
    if (n->builtin == BI_PYRANDOM_RANDINT) { /* randrange(a, b + 1) */
        stop = LLVMBuildAdd(L->b, v[1], lower_i64(L, 1), "");
    } else if (!stop) {
        stop = start;
        start = lower_i64(L, 0);
    }
    LLVMTypeRef ts[5] = {L->t_i64, L->t_i64, L->t_i64, L->t_i32, L->t_ptr};
    LLVMValueRef as[5] = {start, stop, step, lower_i32(L, nargs), out};
    lower_check_status(L, lower_rt(L, "rt_pyrandom_randrange", L->t_i32, ts, 5, as));
    return lower_load(L, L->t_i64, out, "pick");
}

static LLVMValueRef randint_call(Lower *L, Node *n, bool *owned) {
    LLVMValueRef lo = lower_expr_use(L, np_arg(n, 0));
    LLVMValueRef hi = np_arg(n, 1) ? lower_expr_use(L, np_arg(n, 1)) : NULL;
    if (!lo || (np_arg(n, 1) && !hi))
        return NULL;
    if (!hi) {
        hi = lo;
        lo = lower_i64(L, 0);
    }
    LLVMValueRef data = NULL, cnt = NULL;
    LLVMValueRef arr = result_buf(L, n, np_arg(n, 2), &data, &cnt, NULL);
    if (!data)
        return NULL;
    LLVMTypeRef ts[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64};
    LLVMValueRef as[4] = {data, cnt, lo, hi};
    lower_check_status(L, lower_rt(L, "rt_random_randint", L->t_i32, ts, 4, as));
    return finish(L, n, arr, data, owned);
}

static void shuffle_rows(Lower *L, LLVMValueRef bg, LLVMValueRef data, LLVMValueRef n, LLVMValueRef stride,
                         LLVMValueRef row) {
    LLVMTypeRef ts[5] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_i64};
    LLVMValueRef as[5] = {bg, data, n, stride, row};
    lower_rt(L, "rt_random_shuffle", L->t_void, ts, 5, as);
}

/* Shuffle the first axis of a C-contiguous array value in place. */
static void shuffle_c(Lower *L, LLVMValueRef bg, LLVMValueRef c, Type *cty) {
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, c, cty->ndim, dims, st);
    LLVMValueRef row = lower_i64(L, ty_itemsize(cty->dtype));
    for (int d = 1; d < cty->ndim; d++)
        row = np_mul(L, row, dims[d]);
    shuffle_rows(L, bg, lower_array_field(L, c, ARR_DATA, ""), dims[0], row, row);
}

/* shuffle/permutation of np.random, random and a Generator */
static LLVMValueRef shuffle_call(Lower *L, Node *n, bool *owned) {
    RandomApi api = random_api(n->builtin);
    LLVMValueRef bg = bitgen(L, n, api);
    if (!bg)
        return NULL;
    Node *x = np_arg(n, api == RND_GEN ? 1 : 0);
    Type *t = x->ty;
    bool perm = n->builtin == BI_RANDOM_PERMUTATION || n->builtin == BI_GEN_PERMUTATION;
    if (perm && t->kind != TY_ARRAY) {
        LLVMValueRef k = lower_expr_use(L, x);
        if (!k)
            return NULL;
        LLVMValueRef r = np_alloc(L, n->ty, &k, false);
        lower_temp(L, r, n->ty, true);
        lower_incref(L, r, n->ty);
        LLVMValueRef d = lower_array_field(L, r, ARR_DATA, "");
        NpLoop lp;
        np_loop_begin(L, &lp, k);
        LLVMBuildStore(L->b, lp.i, lower_gep(L, L->t_i64, d, &lp.i, 1, ""));
        np_loop_end(L, &lp);
        shuffle_c(L, bg, r, n->ty);
        *owned = true;
        return r;
    }
    LLVMValueRef v = lower_expr_use(L, x);
    if (!v)
        return NULL;
    if (perm) {
        LLVMValueRef c = np_copy_c(L, v, t, n->ty);
        lower_temp(L, c, n->ty, true);
        lower_incref(L, c, n->ty);
        shuffle_c(L, bg, c, n->ty);
        *owned = true;
        return c;
    }
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, v, t->ndim, dims, st);
    if (t->ndim == 1 || t->layout == LAYOUT_C) {
        LLVMValueRef row = lower_i64(L, ty_itemsize(t->dtype));
        for (int d = 1; d < t->ndim; d++)
            row = np_mul(L, row, dims[d]);
        shuffle_rows(L, bg, lower_array_field(L, v, ARR_DATA, ""), dims[0], st[0], row);
    } else {
        /* rows not contiguous: shuffle a C copy and write it back */
        Type *cty = ty_array(L->c->tc, t->dtype, t->ndim, LAYOUT_C);
        LLVMValueRef c = np_copy_c(L, v, t, cty);
        lower_temp(L, c, cty, true);
        shuffle_c(L, bg, c, cty);
        LLVMValueRef cs[HJ_MAX_NDIM_LOWER + 1];
        np_dims(L, c, t->ndim, NULL, cs);
        np_copy_nd(L, t->ndim, dims, lower_array_field(L, c, ARR_DATA, ""), cs, t->dtype,
                   lower_array_field(L, v, ARR_DATA, ""), st, t->dtype);
    }
    return lower_zero(L, n->ty);
}

static LLVMValueRef choice_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0), *size = np_arg(n, 1);
    bool replace = !np_arg(n, 2) || np_arg(n, 2)->cval.i;
    LLVMValueRef av = lower_expr_use(L, a);
    if (!av)
        return NULL;
    bool arr = a->ty->kind == TY_ARRAY;
    LLVMValueRef pop = arr ? lower_array_field(L, av, ARR_NITEMS, "") : av;
    LLVMValueRef idx = NULL, cnt = NULL, res = NULL, rdata = NULL;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    Type *i64 = np_i64(L);
    if (n->ty->kind == TY_ARRAY) {
        if (!size_dims(L, size, n->ty->ndim, dims))
            return NULL;
        Type *ity = ty_array(L->c->tc, i64, n->ty->ndim, LAYOUT_C);
        LLVMValueRef ia = np_alloc(L, ity, dims, false);
        lower_temp(L, ia, ity, true);
        idx = lower_array_field(L, ia, ARR_DATA, "");
        cnt = lower_array_field(L, ia, ARR_NITEMS, "");
        if (!arr)
            res = ia;
    } else {
        idx = lower_alloca(L, L->t_i64, "pick");
        cnt = lower_i64(L, 1);
    }
    /* NumPy: an empty population only allows empty samples */
    LLVMValueRef empty = LLVMBuildICmp(L->b, LLVMIntSLE, pop, lower_i64(L, 0), "");
    lower_raise_if(L, LLVMBuildAnd(L->b, empty, LLVMBuildICmp(L->b, LLVMIntSGT, cnt, lower_i64(L, 0), ""), ""),
                   "ValueError", "a must be greater than 0 unless no samples are taken");
    if (replace) {
        LLVMBasicBlockRef go = lower_block(L, "choice.draw"), done = lower_block(L, "choice.done");
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, cnt, lower_i64(L, 0), ""), go, done);
        lower_at(L, go);
        LLVMTypeRef ts[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64};
        LLVMValueRef as[4] = {idx, cnt, lower_i64(L, 0), pop};
        lower_check_status(L, lower_rt(L, "rt_random_randint", L->t_i32, ts, 4, as));
        LLVMBuildBr(L->b, done);
        lower_at(L, done);
    } else {
        LLVMTypeRef ts[3] = {L->t_ptr, L->t_i64, L->t_i64};
        LLVMValueRef as[3] = {idx, cnt, pop};
        lower_check_status(L, lower_rt(L, "rt_random_sample", L->t_i32, ts, 3, as));
    }
    if (!arr) {
        if (res) {
            lower_incref(L, res, n->ty);
            *owned = true;
            return res;
        }
        return lower_load(L, L->t_i64, idx, "pick");
    }
    Type *dt = a->ty->dtype;
    LLVMValueRef src = lower_array_field(L, av, ARR_DATA, "");
    LLVMValueRef st0 = NULL;
    np_dims(L, av, 1, NULL, &st0);
    if (n->ty->kind != TY_ARRAY) {
        LLVMValueRef k = lower_load(L, L->t_i64, idx, "pick");
        return np_load(L, np_offset(L, src, np_mul(L, k, st0)), dt);
    }
    res = np_alloc(L, n->ty, dims, false);
    lower_temp(L, res, n->ty, true);
    lower_incref(L, res, n->ty);
    rdata = lower_array_field(L, res, ARR_DATA, "");
    NpLoop lp;
    np_loop_begin(L, &lp, cnt);
    LLVMValueRef k = lower_load(L, L->t_i64, lower_gep(L, L->t_i64, idx, &lp.i, 1, ""), "k");
    LLVMValueRef e = np_load(L, np_offset(L, src, np_mul(L, k, st0)), dt);
    np_store(L, np_offset(L, rdata, np_mul(L, lp.i, lower_i64(L, ty_itemsize(dt)))), e, dt);
    np_loop_end(L, &lp);
    *owned = true;
    return res;
}

/* Whether a value of type t holds a Generator (NumPyRandomGenerator in
 * its name: tuples, lists... of one). */
static bool holds_generator(Lower *L, const Type *t) {
    return t && strstr(ty_str(&L->c->arena, t), "NumPyRandomGenerator") != NULL;
}

/* np.random.default_rng([seed]): a PCG64 bit generator in this function's
 * frame (the Generator value is its bitgen_t *, borrowed as an argument's
 * is), so it cannot outlive the call: a function that makes one may not
 * return a Generator. */
static LLVMValueRef default_rng_call(Lower *L, Node *n) {
    if (holds_generator(L, L->spec->ret))
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED,
                          "a function that calls np.random.default_rng() cannot return a Generator in compiled code");
    Node *sd = np_arg(n, 0);
    LLVMValueRef seed = sd ? lower_expr_use(L, sd) : lower_i64(L, 0);
    if (!seed)
        return NULL;
    LLVMTypeRef buf_ty = LLVMArrayType(LLVMInt128TypeInContext(L->ctx), RT_DEFAULT_RNG_BYTES / 16);
    LLVMValueRef mem = lower_alloca(L, buf_ty, "default_rng");
    LLVMSetAlignment(mem, 16);
    LLVMTypeRef ts[3] = {L->t_ptr, L->t_i64, L->t_i32};
    LLVMValueRef as[3] = {mem, seed, lower_i32(L, sd != NULL)};
    lower_check_status(L, lower_rt(L, "rt_random_default_rng", L->t_i32, ts, 3, as));
    return mem;
}

LLVMValueRef lower_random_call(Lower *L, Node *n, bool *owned) {
    RandomApi api;
    const RandomDist *d = random_dist(n->builtin, &api);
    if (d)
        return dist_call(L, n, d, api, owned);
    switch (n->builtin) {
    case BI_RANDOM_SEED:
    case BI_PYRANDOM_SEED: {
        LLVMValueRef s = lower_expr_use(L, np_arg(n, 0));
        if (!s)
            return NULL;
        LLVMTypeRef t[2] = {L->t_i32, L->t_i64};
        LLVMValueRef a[2] = {lower_i32(L, n->builtin == BI_PYRANDOM_SEED ? RT_RNG_PY : RT_RNG_NUMPY), s};
        lower_rt(L, "rt_random_seed2", L->t_void, t, 2, a);
        return lower_zero(L, n->ty);
    }
    case BI_RANDOM_DEFAULT_RNG: return default_rng_call(L, n);
    case BI_RANDOM_RAND: case BI_RANDOM_RANDN: return randn_call(L, n, owned);
    case BI_RANDOM_RANDINT: return randint_call(L, n, owned);
    case BI_GEN_INTEGERS: return integers_call(L, n, owned);
    case BI_RANDOM_DIRICHLET: case BI_RANDOM_MULTINOMIAL: return vector_call(L, n, owned);
    case BI_PYRANDOM_GETRANDBITS: case BI_PYRANDOM_RANDRANGE: case BI_PYRANDOM_RANDINT: return pyint_call(L, n);
    case BI_RANDOM_SHUFFLE: case BI_RANDOM_PERMUTATION: case BI_PYRANDOM_SHUFFLE: case BI_GEN_SHUFFLE:
    case BI_GEN_PERMUTATION:
        return shuffle_call(L, n, owned);
    case BI_RANDOM_CHOICE: return choice_call(L, n, owned);
    default: break;
    }
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
}
