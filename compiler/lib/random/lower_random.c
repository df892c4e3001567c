/* lower_random.c - lowering of np.random calls onto the per-thread
 * xoshiro256** generator of runtime/random.c.  Tree shapes:
 * infer_random.c (args = [params..., size], rand/randn: the dims). */
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

static LLVMValueRef fill_call(Lower *L, Node *n, bool *owned) {
    int kind = RT_RND_RANDOM;
    LLVMValueRef p0 = f64c(L, 0.0), p1 = f64c(L, 1.0);
    Node *size = NULL;
    switch (n->builtin) {
    case BI_RANDOM_RANDOM: size = np_arg(n, 0); break;
    case BI_RANDOM_RANDN: kind = RT_RND_NORMAL; break;
    case BI_RANDOM_UNIFORM:
        kind = RT_RND_UNIFORM;
        p0 = opt_f64(L, np_arg(n, 0), 0.0);
        p1 = opt_f64(L, np_arg(n, 1), 1.0);
        size = np_arg(n, 2);
        break;
    case BI_RANDOM_NORMAL:
        kind = RT_RND_NORMAL;
        p0 = opt_f64(L, np_arg(n, 0), 0.0);
        p1 = opt_f64(L, np_arg(n, 1), 1.0);
        size = np_arg(n, 2);
        break;
    case BI_RANDOM_EXPONENTIAL:
        kind = RT_RND_EXPONENTIAL;
        p0 = opt_f64(L, np_arg(n, 0), 1.0);
        size = np_arg(n, 1);
        break;
    default: break;
    }
    if (!p0 || !p1)
        return NULL;
    if (n->builtin == BI_RANDOM_NORMAL)
        lower_raise_if(L, LLVMBuildFCmp(L->b, LLVMRealOLT, p1, f64c(L, 0.0), ""), "ValueError", "scale < 0");
    if (n->builtin == BI_RANDOM_EXPONENTIAL)
        lower_raise_if(L, LLVMBuildFCmp(L->b, LLVMRealOLT, p0, f64c(L, 0.0), ""), "ValueError", "scale < 0");
    LLVMValueRef data = NULL, cnt = NULL;
    LLVMValueRef arr = result_buf(L, n, size, &data, &cnt, NULL);
    if (!data)
        return NULL;
    LLVMTypeRef ts[5] = {L->t_i32, L->t_ptr, L->t_i64, L->t_f64, L->t_f64};
    LLVMValueRef as[5] = {lower_i32(L, kind), data, cnt, p0, p1};
    lower_rt(L, "rt_random_fill", L->t_void, ts, 5, as);
    return finish(L, n, arr, data, owned);
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

static void shuffle_rows(Lower *L, LLVMValueRef data, LLVMValueRef n, LLVMValueRef stride, LLVMValueRef row) {
    LLVMTypeRef ts[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64};
    LLVMValueRef as[4] = {data, n, stride, row};
    lower_rt(L, "rt_random_shuffle", L->t_void, ts, 4, as);
}

/* Shuffle the first axis of a C-contiguous array value in place. */
static void shuffle_c(Lower *L, LLVMValueRef c, Type *cty) {
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, c, cty->ndim, dims, st);
    LLVMValueRef row = lower_i64(L, ty_itemsize(cty->dtype));
    for (int d = 1; d < cty->ndim; d++)
        row = np_mul(L, row, dims[d]);
    shuffle_rows(L, lower_array_field(L, c, ARR_DATA, ""), dims[0], row, row);
}

static LLVMValueRef shuffle_call(Lower *L, Node *n, bool *owned) {
    Node *x = np_arg(n, 0);
    Type *t = x->ty;
    if (n->builtin == BI_RANDOM_PERMUTATION && t->kind != TY_ARRAY) {
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
        shuffle_c(L, r, n->ty);
        *owned = true;
        return r;
    }
    LLVMValueRef v = lower_expr_use(L, x);
    if (!v)
        return NULL;
    if (n->builtin == BI_RANDOM_PERMUTATION) {
        LLVMValueRef c = np_copy_c(L, v, t, n->ty);
        lower_temp(L, c, n->ty, true);
        lower_incref(L, c, n->ty);
        shuffle_c(L, c, n->ty);
        *owned = true;
        return c;
    }
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, v, t->ndim, dims, st);
    if (t->ndim == 1 || t->layout == LAYOUT_C) {
        LLVMValueRef row = lower_i64(L, ty_itemsize(t->dtype));
        for (int d = 1; d < t->ndim; d++)
            row = np_mul(L, row, dims[d]);
        shuffle_rows(L, lower_array_field(L, v, ARR_DATA, ""), dims[0], st[0], row);
    } else {
        /* rows not contiguous: shuffle a C copy and write it back */
        Type *cty = ty_array(L->c->tc, t->dtype, t->ndim, LAYOUT_C);
        LLVMValueRef c = np_copy_c(L, v, t, cty);
        lower_temp(L, c, cty, true);
        shuffle_c(L, c, cty);
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

LLVMValueRef lower_random_call(Lower *L, Node *n, bool *owned) {
    switch (n->builtin) {
    case BI_RANDOM_SEED: {
        LLVMValueRef s = lower_expr_use(L, np_arg(n, 0));
        if (!s)
            return NULL;
        LLVMTypeRef t = L->t_i64;
        lower_rt(L, "rt_random_seed", L->t_void, &t, 1, &s);
        return lower_zero(L, n->ty);
    }
    case BI_RANDOM_RANDOM: case BI_RANDOM_RAND: case BI_RANDOM_RANDN: case BI_RANDOM_UNIFORM:
    case BI_RANDOM_NORMAL: case BI_RANDOM_EXPONENTIAL:
        return fill_call(L, n, owned);
    case BI_RANDOM_RANDINT: return randint_call(L, n, owned);
    case BI_RANDOM_SHUFFLE: case BI_RANDOM_PERMUTATION: return shuffle_call(L, n, owned);
    case BI_RANDOM_CHOICE: return choice_call(L, n, owned);
    default: break;
    }
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
}
