/* lower_search.c - lowering of NumPy sorting and searching: the operands
 * are copied to C-contiguous arrays of the compared dtype and handed to
 * the runtime helpers of runtime/search.c (hpcjit/search.h).  Tree shapes:
 * infer_search.c. */
#include "np/lower_np.h"
#include "search.h"

#include "hpcjit/search.h"

#include <math.h>

static TyCtx *tc(Lower *L) { return L->c->tc; }

/* A C-contiguous copy of array expression e in dtype dt (a temporary). */
static LLVMValueRef ccopy_v(Lower *L, LLVMValueRef v, Type *ety, Type *dt, LLVMValueRef *data) {
    Type *cty = ty_array(tc(L), dt, ety->ndim, LAYOUT_C);
    LLVMValueRef c = np_copy_c(L, v, ety, cty);
    lower_temp(L, c, cty, true);
    *data = lower_array_field(L, c, ARR_DATA, "");
    return c;
}

static LLVMValueRef ccopy(Lower *L, Node *e, Type *dt, LLVMValueRef *data) {
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? ccopy_v(L, v, e->ty, dt, data) : NULL;
}

/* An array operand the runtime only reads, as C-contiguous items of dt:
 * the array itself when it already is one (no copy), else a C copy. */
static LLVMValueRef cread(Lower *L, Node *e, Type *dt, LLVMValueRef *data) {
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return NULL;
    if (e->ty->kind == TY_ARRAY && e->ty->dtype == dt && (e->ty->layout == LAYOUT_C || (e->ty->ndim == 1 &&
                                                            e->ty->layout == LAYOUT_F))) {
        *data = lower_array_field(L, v, ARR_DATA, "");
        return v;
    }
    return ccopy_v(L, v, e->ty, dt, data);
}

/* A scalar operand converted to dt in a one-item buffer. */
static LLVMValueRef scalar_buf(Lower *L, Node *e, Type *dt) {
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return NULL;
    LLVMValueRef p = lower_alloca(L, lower_mem_type(L, dt), "one");
    np_store(L, p, lower_convert(L, e, v, e->ty, dt), dt);
    return p;
}

static LLVMValueRef nitems(Lower *L, LLVMValueRef arr) { return lower_array_field(L, arr, ARR_NITEMS, "n"); }

static LLVMValueRef rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *ps, unsigned n, LLVMValueRef *as) {
    return lower_rt(L, name, ret, ps, n, as);
}

static LLVMValueRef none_value(Lower *L, Node *n) { return lower_zero(L, n->ty); }

/* dims/strides v[0..nd) with axis `ax` (runtime) moved last, into out. */
static void axis_last(Lower *L, LLVMValueRef *v, int nd, LLVMValueRef ax, LLVMValueRef *out) {
    np_drop(L, v, nd, ax, out);
    out[nd - 1] = np_pick(L, v, nd, ax);
}

/* Sort along axis `ax` (any, at run time): the items are copied into a C
 * buffer with that axis last, its rows sorted (or argsorted) there, and the
 * result copied back through the same permutation of the strides. */
/* The items of av (type aty) copied into a new C buffer (a temporary)
 * with axis `ax` (normalised) last: its data, permuted shape pd, source
 * strides in that order ps, its own strides bs, and its rows x len. */
typedef struct AxisBuf {
    LLVMValueRef data, rows, len;
    LLVMValueRef pd[HJ_MAX_NDIM_LOWER + 1], ps[HJ_MAX_NDIM_LOWER + 1], bs[HJ_MAX_NDIM_LOWER + 1];
} AxisBuf;

static void axis_buf(Lower *L, LLVMValueRef av, Type *aty, LLVMValueRef ax, AxisBuf *b) {
    Type *dt = aty->dtype;
    int nd = aty->ndim;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, av, nd, dims, st);
    axis_last(L, dims, nd, ax, b->pd);
    axis_last(L, st, nd, ax, b->ps);
    Type *bty = ty_array(tc(L), dt, nd, LAYOUT_C);
    LLVMValueRef buf = np_own(L, np_alloc(L, bty, b->pd, false), bty);
    b->data = lower_array_field(L, buf, ARR_DATA, "");
    np_dims(L, buf, nd, NULL, b->bs);
    np_copy_nd(L, nd, b->pd, lower_array_field(L, av, ARR_DATA, ""), b->ps, dt, b->data, b->bs, dt);
    LLVMValueRef tot = nitems(L, buf);
    b->len = b->pd[nd - 1];
    LLVMValueRef zero = np_ieq(L, b->len, lower_i64(L, 0));
    b->rows = np_sel(L, zero, lower_i64(L, 0),
                     LLVMBuildSDiv(L->b, tot, np_sel(L, zero, lower_i64(L, 1), b->len), "rows"));
}

static LLVMValueRef sort_axis(Lower *L, Node *n, LLVMValueRef av, LLVMValueRef axis, bool *owned) {
    Node *a = np_arg(n, 0);
    Type *dt = a->ty->dtype;
    int nd = a->ty->ndim;
    LLVMValueRef ax = np_axis(L, axis, nd);
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], os[HJ_MAX_NDIM_LOWER + 1], pos[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, av, nd, dims, NULL);
    AxisBuf ab;
    axis_buf(L, av, a->ty, ax, &ab);
    LLVMValueRef *pd = ab.pd, *ps = ab.ps, *bs = ab.bs, bd = ab.data, rows = ab.rows, len = ab.len;
    if (n->builtin == BI_ARRAY_SORT || n->builtin == BI_NP_SORT) {
        LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
        LLVMValueRef as[4] = {bd, rows, len, lower_i32(L, np_dt_code(dt))};
        lower_check_status(L, rt(L, "rt_sort", L->t_i32, t4, 4, as));
        if (n->builtin == BI_ARRAY_SORT) {
            np_copy_nd(L, nd, pd, bd, bs, dt, lower_array_field(L, av, ARR_DATA, ""), ps, dt);
            return none_value(L, n);
        }
    }
    Type *rty = n->ty;
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    np_dims(L, out, nd, NULL, os);
    axis_last(L, os, nd, ax, pos);
    LLVMValueRef od = lower_array_field(L, out, ARR_DATA, "");
    if (n->builtin == BI_NP_ARGSORT) {
        Type *ity = ty_array(tc(L), rty->dtype, nd, LAYOUT_C);
        LLVMValueRef idx = np_own(L, np_alloc(L, ity, pd, false), ity);
        LLVMValueRef id = lower_array_field(L, idx, ARR_DATA, "");
        LLVMTypeRef t5[5] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
        LLVMValueRef as[5] = {bd, id, rows, len, lower_i32(L, np_dt_code(dt))};
        lower_check_status(L, rt(L, "rt_argsort", L->t_i32, t5, 5, as));
        np_dims(L, idx, nd, NULL, bs);
        np_copy_nd(L, nd, pd, id, bs, rty->dtype, od, pos, rty->dtype);
    } else {
        np_copy_nd(L, nd, pd, bd, bs, dt, od, pos, dt);
    }
    return np_give(L, out, rty, owned);
}

/* The median of the sorted timedeltas p[0..len): the middle item or
 * NumPy's mean of the two middle ones (their sum / 2, truncated); NaT
 * when the row is empty or holds a NaT (sorted last). */
static LLVMValueRef median_row_td(Lower *L, LLVMValueRef p, LLVMValueRef len) {
    LLVMValueRef res = lower_alloca(L, L->t_i64, "median");
    LLVMBuildStore(L->b, lower_i64(L, TY_NAT), res);
    LLVMBasicBlockRef some = lower_block(L, "median.some"), done = lower_block(L, "median.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, len, lower_i64(L, 0), ""), some, done);
    lower_at(L, some);
    LLVMValueRef mid = LLVMBuildSDiv(L->b, len, lower_i64(L, 2), "");
    LLVMValueRef lo = LLVMBuildSub(L->b, len, LLVMBuildAdd(L->b, mid, lower_i64(L, 1), ""), "");
    LLVMValueRef a = lower_load(L, L->t_i64, lower_gep(L, L->t_i64, p, &lo, 1, ""), "");
    LLVMValueRef b = lower_load(L, L->t_i64, lower_gep(L, L->t_i64, p, &mid, 1, ""), "");
    LLVMValueRef lasti = LLVMBuildSub(L->b, len, lower_i64(L, 1), "");
    LLVMValueRef last = lower_load(L, L->t_i64, lower_gep(L, L->t_i64, p, &lasti, 1, ""), "");
    LLVMValueRef m = LLVMBuildSDiv(L->b, LLVMBuildAdd(L->b, a, b, ""), lower_i64(L, 2), "");
    LLVMBuildStore(L->b, np_sel(L, lower_dt_isnat(L, last), lower_i64(L, TY_NAT), m), res);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    return lower_load(L, L->t_i64, res, "");
}

/* The median of the sorted row p[0..len) (NaNs last) in float type ft:
 * the middle item or the mean of the two middle ones; NaN when the row is
 * empty or holds a NaN (as NumPy).  skipnan (np.nanmedian): the row ends
 * before its first NaN. */
static LLVMValueRef median_row(Lower *L, LLVMValueRef p, LLVMValueRef len, Type *dt, Type *ft, bool skipnan) {
    if (ty_is_npdt(dt)) /* timedeltas, NaT sorted last */
        return median_row_td(L, p, len);
    LLVMTypeRef flt = lower_type(L, ft);
    LLVMValueRef res = lower_alloca(L, flt, "median");
    LLVMBuildStore(L->b, LLVMConstReal(flt, NAN), res);
    if (skipnan && ty_is_float(dt)) { /* count the leading non-NaNs */
        LLVMValueRef cnt = lower_alloca(L, L->t_i64, "nonnan");
        LLVMBuildStore(L->b, lower_i64(L, 0), cnt);
        NpLoop lp;
        np_loop_begin(L, &lp, len);
        LLVMValueRef x = np_load(L, np_offset(L, p, np_mul(L, lp.i, lower_i64(L, ty_itemsize(dt)))), dt);
        LLVMValueRef ok = LLVMBuildZExt(L->b, LLVMBuildFCmp(L->b, LLVMRealORD, x, x, ""), L->t_i64, "");
        LLVMBuildStore(L->b, LLVMBuildAdd(L->b, lower_load(L, L->t_i64, cnt, ""), ok, ""), cnt);
        np_loop_end(L, &lp);
        len = lower_load(L, L->t_i64, cnt, "");
    }
    LLVMBasicBlockRef some = lower_block(L, "median.some"), done = lower_block(L, "median.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, len, lower_i64(L, 0), ""), some, done);
    lower_at(L, some);
    LLVMValueRef isz = lower_i64(L, ty_itemsize(dt));
    LLVMValueRef mid = LLVMBuildSDiv(L->b, len, lower_i64(L, 2), "");
    LLVMValueRef lo = LLVMBuildSub(L->b, len, LLVMBuildAdd(L->b, mid, lower_i64(L, 1), ""), ""); /* mid or mid-1 */
    LLVMValueRef a = lower_convert(L, np_at(L), np_load(L, np_offset(L, p, np_mul(L, lo, isz)), dt), dt, ft);
    LLVMValueRef b = lower_convert(L, np_at(L), np_load(L, np_offset(L, p, np_mul(L, mid, isz)), dt), dt, ft);
    LLVMValueRef m = LLVMBuildFDiv(L->b, LLVMBuildFAdd(L->b, a, b, ""), LLVMConstReal(flt, 2.0), "");
    if (ty_is_float(dt) && !skipnan) {
        LLVMValueRef last = np_load(L, np_offset(L, p, np_mul(L, LLVMBuildSub(L->b, len, lower_i64(L, 1), ""), isz)), dt);
        m = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealUNO, last, last, ""), LLVMConstReal(flt, NAN), m);
    }
    LLVMBuildStore(L->b, m, res);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    return lower_load(L, flt, res, "");
}

/* np.percentile/quantile (and nan*) of the sorted p[0..n) (NaNs last) at
 * q (float64, a quantile already: q/100 for percentiles), in ft: NumPy's
 * 'linear' method, virtual index (n - 1) * q, lerp from the nearer end. */
static LLVMValueRef quantile_at(Lower *L, LLVMValueRef p, LLVMValueRef n, Type *dt, Type *ft, LLVMValueRef q,
                                LLVMValueRef nan) {
    LLVMTypeRef d = L->t_f64, flt = lower_type(L, ft);
    Type *f64 = ty_scalar(tc(L), TY_FLOAT64);
    LLVMValueRef last = LLVMBuildSub(L->b, n, lower_i64(L, 1), "");
    LLVMValueRef vi = LLVMBuildFMul(L->b, LLVMBuildSIToFP(L->b, last, d, ""), q, "vi");
    LLVMValueRef prevf = lower_intrinsic(L, "llvm.floor", &d, 1, &vi, 1);
    LLVMValueRef gamma = LLVMBuildFSub(L->b, vi, prevf, "gamma");
    LLVMValueRef prev = LLVMBuildFPToSI(L->b, prevf, L->t_i64, "");
    LLVMValueRef hi = LLVMBuildICmp(L->b, LLVMIntSGE, prev, last, "");
    prev = np_sel(L, hi, last, prev);
    LLVMValueRef next = np_sel(L, hi, last, LLVMBuildAdd(L->b, prev, lower_i64(L, 1), ""));
    LLVMValueRef isz = lower_i64(L, ty_itemsize(dt));
    LLVMValueRef a = lower_convert(L, np_at(L), np_load(L, np_offset(L, p, np_mul(L, prev, isz)), dt), dt, ft);
    LLVMValueRef b = lower_convert(L, np_at(L), np_load(L, np_offset(L, p, np_mul(L, next, isz)), dt), dt, ft);
    LLVMValueRef t = lower_convert(L, np_at(L), gamma, f64, ft);
    LLVMValueRef diff = LLVMBuildFSub(L->b, b, a, "");
    LLVMValueRef lo_r = LLVMBuildFAdd(L->b, a, LLVMBuildFMul(L->b, diff, t, ""), "");
    LLVMValueRef hi_r = LLVMBuildFSub(L->b, b, LLVMBuildFMul(L->b, diff, LLVMBuildFSub(L->b, LLVMConstReal(flt, 1.0), t, ""), ""), "");
    LLVMValueRef r = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOGE, t, LLVMConstReal(flt, 0.5), ""), hi_r, lo_r);
    return nan ? np_sel(L, nan, LLVMConstReal(flt, NAN), r) : r;
}

/* The leading non-NaN items of the sorted p[0..len) (NaNs sort last). */
static LLVMValueRef nonnan_count(Lower *L, LLVMValueRef p, LLVMValueRef len, Type *dt) {
    LLVMValueRef cnt = lower_alloca(L, L->t_i64, "nonnan");
    LLVMBuildStore(L->b, lower_i64(L, 0), cnt);
    NpLoop lp;
    np_loop_begin(L, &lp, len);
    LLVMValueRef x = np_load(L, np_offset(L, p, np_mul(L, lp.i, lower_i64(L, ty_itemsize(dt)))), dt);
    LLVMValueRef ok = LLVMBuildZExt(L->b, LLVMBuildFCmp(L->b, LLVMRealORD, x, x, ""), L->t_i64, "");
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, lower_load(L, L->t_i64, cnt, ""), ok, ""), cnt);
    np_loop_end(L, &lp);
    return lower_load(L, L->t_i64, cnt, "");
}

static LLVMValueRef percentile_call(Lower *L, Node *n, bool *owned) {
    BuiltinId id = n->builtin;
    bool pct = id == BI_NP_PERCENTILE || id == BI_NP_NANPERCENTILE;
    bool skip = id == BI_NP_NANPERCENTILE || id == BI_NP_NANQUANTILE;
    Node *a = np_arg(n, 0), *qn = np_arg(n, 1);
    Type *dt = a->ty->dtype, *f64 = ty_scalar(tc(L), TY_FLOAT64);
    Type *ft = n->ty->kind == TY_ARRAY ? n->ty->dtype : n->ty;
    LLVMValueRef av = lower_expr_use(L, a);
    LLVMValueRef qv = av ? lower_expr_use(L, qn) : NULL;
    if (!qv)
        return NULL;
    /* q first, as NumPy: every quantile in [0, 1] (NaN fails too) */
    LLVMValueRef qd = NULL, qcount = lower_i64(L, 1), qbuf = NULL;
    if (qn->ty->kind == TY_ARRAY) {
        qbuf = ccopy_v(L, qv, qn->ty, f64, &qd);
        qcount = nitems(L, qbuf);
    } else {
        qd = lower_alloca(L, L->t_f64, "q");
        LLVMBuildStore(L->b, qv, qd);
    }
    LLVMValueRef scale = LLVMConstReal(L->t_f64, pct ? 100.0 : 1.0);
    LLVMValueRef bad = lower_alloca(L, L->t_i1, "qbad");
    LLVMBuildStore(L->b, LLVMConstInt(L->t_i1, 0, 0), bad);
    NpLoop lp;
    np_loop_begin(L, &lp, qcount);
    LLVMValueRef qi = np_load(L, np_offset(L, qd, np_mul(L, lp.i, lower_i64(L, 8))), f64);
    qi = LLVMBuildFDiv(L->b, qi, scale, "");
    LLVMValueRef ok = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOGE, qi, LLVMConstReal(L->t_f64, 0.0), ""),
                                   LLVMBuildFCmp(L->b, LLVMRealOLE, qi, LLVMConstReal(L->t_f64, 1.0), ""), "");
    LLVMBuildStore(L->b, LLVMBuildOr(L->b, lower_load(L, L->t_i1, bad, ""), LLVMBuildNot(L->b, ok, ""), ""), bad);
    np_loop_end(L, &lp);
    lower_raise_if(L, lower_load(L, L->t_i1, bad, ""), "ValueError",
                   pct ? "Percentiles must be in the range [0, 100]" : "Quantiles must be in the range [0, 1]");
    /* the sorted items; NaN: the result (or, for nan*, where the items end) */
    LLVMValueRef cd = NULL;
    LLVMValueRef c = ccopy_v(L, av, a->ty, dt, &cd);
    LLVMValueRef tot = nitems(L, c);
    LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    LLVMValueRef as[4] = {cd, lower_i64(L, 1), tot, lower_i32(L, np_dt_code(dt))};
    lower_check_status(L, rt(L, "rt_sort", L->t_i32, t4, 4, as));
    LLVMValueRef cnt = tot, nan = NULL;
    if (skip && ty_is_float(dt)) {
        cnt = nonnan_count(L, cd, tot, dt);
        nan = np_ieq(L, cnt, lower_i64(L, 0)); /* all-NaN or empty: NaN */
    } else {
        if (skip) /* integers: empty gives NaN */
            nan = np_ieq(L, tot, lower_i64(L, 0));
        else {
            LLVMBasicBlockRef ok_bb = lower_branch_raise(L, np_ieq(L, tot, lower_i64(L, 0)), "pct.empty");
            lower_raise(L, "IndexError", "index -1 is out of bounds for axis 0 with size 0");
            lower_at(L, ok_bb);
        }
        if (ty_is_float(dt) && !skip) {
            LLVMValueRef lastv = np_load(L, np_offset(L, cd, np_mul(L, LLVMBuildSub(L->b, tot, lower_i64(L, 1), ""),
                                                                   lower_i64(L, ty_itemsize(dt)))), dt);
            nan = LLVMBuildFCmp(L->b, LLVMRealUNO, lastv, lastv, "");
        }
    }
    /* an empty row is never read: index 0 of a 1-item stand-in */
    LLVMValueRef safe = np_sel(L, np_ieq(L, cnt, lower_i64(L, 0)), lower_i64(L, 1), cnt);
    LLVMValueRef src = cd;
    if (skip) { /* cnt may be 0: read a NaN-free zero instead */
        LLVMValueRef zero = lower_alloca(L, lower_mem_type(L, dt), "zero");
        np_store(L, zero, lower_zero(L, dt), dt);
        src = np_sel(L, np_ieq(L, cnt, lower_i64(L, 0)), zero, cd);
    }
    if (qn->ty->kind != TY_ARRAY) {
        LLVMValueRef q = LLVMBuildFDiv(L->b, qv, scale, "");
        return quantile_at(L, src, safe, dt, ft, q, nan);
    }
    LLVMValueRef qdims[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, qbuf, qn->ty->ndim, qdims, NULL);
    LLVMValueRef out = np_own(L, np_alloc(L, n->ty, qdims, false), n->ty);
    LLVMValueRef od = lower_array_field(L, out, ARR_DATA, "");
    np_loop_begin(L, &lp, qcount);
    LLVMValueRef q = LLVMBuildFDiv(L->b, np_load(L, np_offset(L, qd, np_mul(L, lp.i, lower_i64(L, 8))), f64), scale, "");
    np_store(L, np_offset(L, od, np_mul(L, lp.i, lower_i64(L, 8))), quantile_at(L, src, safe, dt, ft, q, nan), ft);
    np_loop_end(L, &lp);
    return np_give(L, out, n->ty, owned);
}

/* np.median(a[, axis]): sorted copies (axis last), then the middle of each row. */
static LLVMValueRef median_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0), *axn = np_arg(n, 1);
    Type *aty = a->ty, *dt = aty->dtype;
    Type *ft = n->ty->kind == TY_ARRAY ? n->ty->dtype : n->ty;
    int nd = aty->ndim;
    bool nan = n->builtin == BI_NP_NANMEDIAN;
    LLVMValueRef av = lower_expr_use(L, a);
    LLVMValueRef axis = axn ? lower_expr_use(L, axn) : NULL;
    if (!av || (axn && !axis))
        return NULL;
    LLVMValueRef code = lower_i32(L, np_dt_code(dt));
    LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    if (!axis || nd == 0) {
        if (axis)
            np_axis(L, axis, 0);
        LLVMValueRef cd = NULL;
        LLVMValueRef c = ccopy_v(L, av, aty, dt, &cd);
        LLVMValueRef tot = nitems(L, c);
        LLVMValueRef as[4] = {cd, lower_i64(L, 1), tot, code};
        lower_check_status(L, rt(L, "rt_sort", L->t_i32, t4, 4, as));
        return median_row(L, cd, tot, dt, ft, nan);
    }
    AxisBuf ab;
    axis_buf(L, av, aty, np_axis(L, axis, nd), &ab);
    LLVMValueRef as[4] = {ab.data, ab.rows, ab.len, code};
    lower_check_status(L, rt(L, "rt_sort", L->t_i32, t4, 4, as));
    if (nd == 1)
        return median_row(L, ab.data, ab.len, dt, ft, nan);
    /* the rows of the buffer are the output's items in C order */
    LLVMValueRef out = np_own(L, np_alloc(L, n->ty, ab.pd, false), n->ty);
    LLVMValueRef od = lower_array_field(L, out, ARR_DATA, "");
    LLVMValueRef rowb = np_mul(L, ab.len, lower_i64(L, ty_itemsize(dt)));
    NpLoop lp;
    np_loop_begin(L, &lp, ab.rows);
    LLVMValueRef m = median_row(L, np_offset(L, ab.data, np_mul(L, lp.i, rowb)), ab.len, dt, ft, nan);
    np_store(L, np_offset(L, od, np_mul(L, lp.i, lower_i64(L, ty_itemsize(ft)))), m, ft);
    np_loop_end(L, &lp);
    /* an empty axis leaves rows == 0: the output is all NaN */
    LLVMValueRef on = nitems(L, out);
    LLVMBasicBlockRef fill = lower_block(L, "median.empty"), ok = lower_block(L, "median.ok");
    LLVMBuildCondBr(L->b, LLVMBuildAnd(L->b, np_ieq(L, ab.rows, lower_i64(L, 0)),
                                       LLVMBuildICmp(L->b, LLVMIntSGT, on, lower_i64(L, 0), ""), ""), fill, ok);
    lower_at(L, fill);
    np_loop_begin(L, &lp, on);
    LLVMValueRef none = ty_is_npdt(ft) ? lower_i64(L, TY_NAT) : LLVMConstReal(lower_type(L, ft), NAN);
    np_store(L, np_offset(L, od, np_mul(L, lp.i, lower_i64(L, ty_itemsize(ft)))), none, ft);
    np_loop_end(L, &lp);
    LLVMBuildBr(L->b, ok);
    lower_at(L, ok);
    return np_give(L, out, n->ty, owned);
}

/* np.sort / a.sort() / argsort along an axis (the last by default) or
 * flattened (axis=None). */
static LLVMValueRef sort_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0);
    bool flat = np_arg(n, 1) && np_arg(n, 1)->cval.i;
    Type *dt = a->ty->dtype;
    int nd = a->ty->ndim;
    LLVMValueRef av = lower_expr_use(L, a);
    if (!av)
        return NULL;
    if (!flat && np_arg(n, 2)) {
        LLVMValueRef axis = lower_expr_use(L, np_arg(n, 2));
        if (!axis)
            return NULL;
        /* a constant last axis takes the direct path below (rows in place) */
        bool last = LLVMIsAConstantInt(axis) &&
                    (LLVMConstIntGetSExtValue(axis) == -1 || LLVMConstIntGetSExtValue(axis) == nd - 1);
        if (!last)
            return sort_axis(L, n, av, axis, owned);
    }
    LLVMValueRef cd = NULL, c = ccopy_v(L, av, a->ty, dt, &cd);
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], st[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, c, nd, dims, st);
    LLVMValueRef tot = nitems(L, c);
    LLVMValueRef len = (flat || nd == 0) ? tot : dims[nd - 1];
    LLVMValueRef zero = np_ieq(L, len, lower_i64(L, 0));
    LLVMValueRef rows = np_sel(L, zero, lower_i64(L, 0),
                               LLVMBuildSDiv(L->b, tot, np_sel(L, zero, lower_i64(L, 1), len), "rows"));
    LLVMTypeRef t5[5] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    if (n->builtin == BI_NP_ARGSORT) {
        Type *rty = n->ty;
        LLVMValueRef out = flat ? np_alloc(L, rty, &tot, false) : np_alloc(L, rty, dims, false);
        np_own(L, out, rty);
        LLVMValueRef as[5] = {cd, lower_array_field(L, out, ARR_DATA, ""), rows, len, lower_i32(L, np_dt_code(dt))};
        lower_check_status(L, rt(L, "rt_argsort", L->t_i32, t5, 5, as));
        return np_give(L, out, rty, owned);
    }
    LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    LLVMValueRef as[4] = {cd, rows, len, lower_i32(L, np_dt_code(dt))};
    lower_check_status(L, rt(L, "rt_sort", L->t_i32, t4, 4, as));
    if (n->builtin == BI_ARRAY_SORT) {
        LLVMValueRef ds[HJ_MAX_NDIM_LOWER + 1];
        np_dims(L, av, nd, NULL, ds);
        np_copy_nd(L, nd, dims, cd, st, dt, lower_array_field(L, av, ARR_DATA, ""), ds, dt);
        return none_value(L, n);
    }
    *owned = true;
    if (!flat)
        return np_view(L, c, n->ty, cd, dims, st);
    LLVMValueRef isz = lower_i64(L, ty_itemsize(dt));
    return np_view(L, c, n->ty, cd, &tot, &isz);
}

static LLVMValueRef unique_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0);
    Type *dt = a->ty->dtype;
    LLVMValueRef cd = NULL, c = ccopy(L, a, dt, &cd);
    if (!c)
        return NULL;
    LLVMValueRef tot = nitems(L, c), code = lower_i32(L, np_dt_code(dt));
    LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    LLVMValueRef as[4] = {cd, lower_i64(L, 1), tot, code};
    lower_check_status(L, rt(L, "rt_sort", L->t_i32, t4, 4, as));
    LLVMTypeRef t3[3] = {L->t_ptr, L->t_i64, L->t_i32};
    LLVMValueRef bs[3] = {cd, tot, code};
    LLVMValueRef k = rt(L, "rt_unique", L->t_i64, t3, 3, bs);
    LLVMValueRef isz = lower_i64(L, ty_itemsize(dt));
    *owned = true;
    return np_view(L, c, n->ty, cd, &k, &isz);
}

/* searchsorted(a, v, side) and digitize(x, bins, right). */
static LLVMValueRef search_call(Lower *L, Node *n, bool *owned) {
    bool dig = n->builtin == BI_NP_DIGITIZE;
    Node *sorted = np_arg(n, dig ? 1 : 0), *vals = np_arg(n, dig ? 0 : 1);
    int64_t flag = np_arg(n, 2) ? np_arg(n, 2)->cval.i : 0;
    Type *ct = n->op_ty;
    LLVMValueRef sd = NULL, s = cread(L, sorted, ct, &sd);
    if (!s)
        return NULL;
    LLVMValueRef vd = NULL, nv = lower_i64(L, 1), outd = NULL, out = NULL;
    if (vals->ty->kind == TY_ARRAY) {
        LLVMValueRef v = cread(L, vals, ct, &vd);
        if (!v)
            return NULL;
        LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
        np_dims(L, v, vals->ty->ndim, dims, NULL);
        out = np_own(L, np_alloc(L, n->ty, dims, false), n->ty);
        outd = lower_array_field(L, out, ARR_DATA, "");
        nv = nitems(L, v);
    } else {
        vd = scalar_buf(L, vals, ct);
        if (!vd)
            return NULL;
        outd = lower_alloca(L, L->t_i64, "pos");
    }
    LLVMTypeRef ts[7] = {L->t_ptr, L->t_i64, L->t_ptr, L->t_i64, L->t_ptr, L->t_i32, L->t_i32};
    LLVMValueRef as[7] = {sd, nitems(L, s), vd, nv, outd, lower_i32(L, np_dt_code(ct)), lower_i32(L, (int32_t)flag)};
    if (dig) {
        LLVMTypeRef td[7] = {L->t_ptr, L->t_i64, L->t_ptr, L->t_i64, L->t_ptr, L->t_i32, L->t_i32};
        LLVMValueRef ad[7] = {vd, nv, sd, nitems(L, s), outd, as[5], as[6]};
        lower_check_status(L, rt(L, "rt_digitize", L->t_i32, td, 7, ad));
    } else {
        rt(L, "rt_searchsorted", L->t_void, ts, 7, as);
    }
    if (out)
        return np_give(L, out, n->ty, owned);
    return lower_load(L, L->t_i64, outd, "pos");
}

static LLVMValueRef count_call(Lower *L, Node *a, LLVMValueRef *cd, LLVMValueRef *c) {
    *c = cread(L, a, a->ty->dtype, cd);
    if (!*c)
        return NULL;
    LLVMTypeRef t3[3] = {L->t_ptr, L->t_i64, L->t_i32};
    LLVMValueRef as[3] = {*cd, nitems(L, *c), lower_i32(L, np_dt_code(a->ty->dtype))};
    return rt(L, "rt_count_nonzero", L->t_i64, t3, 3, as);
}

/* nonzero (and 1-argument where), argwhere, count_nonzero. */
static LLVMValueRef nonzero_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0);
    LLVMValueRef cd = NULL, c = NULL;
    LLVMValueRef cnt = count_call(L, a, &cd, &c);
    if (!cnt || n->builtin == BI_NP_COUNT_NONZERO)
        return cnt;
    int nd = a->ty->ndim;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, c, nd, dims, NULL);
    LLVMValueRef shp = lower_alloca(L, LLVMArrayType2(L->t_i64, (uint64_t)nd), "shape");
    for (int d = 0; d < nd; d++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, d)};
        LLVMBuildStore(L->b, dims[d], lower_gep(L, LLVMArrayType2(L->t_i64, (uint64_t)nd), shp, idx, 2, ""));
    }
    LLVMValueRef code = lower_i32(L, np_dt_code(a->ty->dtype));
    *owned = true;
    if (n->builtin == BI_NP_ARGWHERE) {
        LLVMValueRef od[2] = {cnt, lower_i64(L, nd)};
        LLVMValueRef out = np_own(L, np_alloc(L, n->ty, od, false), n->ty);
        LLVMTypeRef ts[6] = {L->t_ptr, L->t_i64, L->t_i32, L->t_i32, L->t_ptr, L->t_ptr};
        LLVMValueRef as[6] = {cd, nitems(L, c), code, lower_i32(L, nd), shp, lower_array_field(L, out, ARR_DATA, "")};
        rt(L, "rt_argwhere", L->t_void, ts, 6, as);
        return np_give(L, out, n->ty, owned);
    }
    LLVMTypeRef pt = LLVMArrayType2(L->t_ptr, (uint64_t)nd);
    LLVMValueRef ptrs = lower_alloca(L, pt, "outs");
    LLVMValueRef tup = LLVMGetUndef(lower_type(L, n->ty));
    for (int d = 0; d < nd; d++) {
        Type *et = n->ty->elems[d];
        LLVMValueRef o = np_own(L, np_alloc(L, et, &cnt, false), et);
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, d)};
        LLVMBuildStore(L->b, lower_array_field(L, o, ARR_DATA, ""), lower_gep(L, pt, ptrs, idx, 2, ""));
        tup = LLVMBuildInsertValue(L->b, tup, o, (unsigned)d, "");
    }
    LLVMTypeRef ts[6] = {L->t_ptr, L->t_i64, L->t_i32, L->t_i32, L->t_ptr, L->t_ptr};
    LLVMValueRef as[6] = {cd, nitems(L, c), code, lower_i32(L, nd), shp, ptrs};
    rt(L, "rt_nonzero", L->t_void, ts, 6, as);
    return np_give(L, tup, n->ty, owned);
}

static LLVMValueRef bincount_call(Lower *L, Node *n, bool *owned) {
    Node *x = np_arg(n, 0), *w = np_arg(n, 1), *ml = np_arg(n, 2);
    Type *i64 = np_i64(L), *f64 = ty_scalar(tc(L), TY_FLOAT64);
    LLVMValueRef xd = NULL, xc = cread(L, x, i64, &xd), wd = LLVMConstNull(L->t_ptr);
    if (!xc)
        return NULL;
    LLVMValueRef cnt = nitems(L, xc);
    if (w) {
        LLVMValueRef wc = cread(L, w, f64, &wd);
        if (!wc)
            return NULL;
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, nitems(L, wc), cnt, ""), "ValueError",
                       "The weights and list don't have the same length.");
    }
    LLVMValueRef mlv = ml ? lower_expr_use(L, ml) : lower_i64(L, 0);
    if (!mlv)
        return NULL;
    LLVMValueRef lenp = lower_alloca(L, L->t_i64, "len");
    LLVMTypeRef t4[4] = {L->t_ptr, L->t_i64, L->t_i64, L->t_ptr};
    LLVMValueRef a4[4] = {xd, cnt, mlv, lenp};
    lower_check_status(L, rt(L, "rt_bincount_len", L->t_i32, t4, 4, a4));
    LLVMValueRef len = lower_load(L, L->t_i64, lenp, "len");
    LLVMValueRef out = np_own(L, np_alloc(L, n->ty, &len, true), n->ty);
    LLVMValueRef b4[4] = {xd, cnt, wd, lower_array_field(L, out, ARR_DATA, "")};
    LLVMTypeRef u4[4] = {L->t_ptr, L->t_i64, L->t_ptr, L->t_ptr};
    rt(L, "rt_bincount", L->t_void, u4, 4, b4);
    return np_give(L, out, n->ty, owned);
}

static LLVMValueRef interp_call(Lower *L, Node *n, bool *owned) {
    Node *x = np_arg(n, 0), *xp = np_arg(n, 1), *fp = np_arg(n, 2), *lf = np_arg(n, 3), *rg = np_arg(n, 4);
    Type *f64 = ty_scalar(tc(L), TY_FLOAT64);
    LLVMValueRef xpd = NULL, fpd = NULL;
    LLVMValueRef xpc = cread(L, xp, f64, &xpd);
    LLVMValueRef fpc = xpc ? cread(L, fp, f64, &fpd) : NULL;
    if (!fpc)
        return NULL;
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, nitems(L, xpc), nitems(L, fpc), ""), "ValueError",
                   "fp and xp are not of the same length.");
    LLVMValueRef xd = NULL, nx = lower_i64(L, 1), out = NULL, outd = NULL;
    if (x->ty->kind == TY_ARRAY) {
        LLVMValueRef xc = cread(L, x, f64, &xd);
        if (!xc)
            return NULL;
        LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1];
        np_dims(L, xc, x->ty->ndim, dims, NULL);
        out = np_own(L, np_alloc(L, n->ty, dims, false), n->ty);
        outd = lower_array_field(L, out, ARR_DATA, "");
        nx = nitems(L, xc);
    } else {
        xd = scalar_buf(L, x, f64);
        if (!xd)
            return NULL;
        outd = lower_alloca(L, L->t_f64, "y");
    }
    LLVMValueRef lv = lf ? lower_expr_use(L, lf) : LLVMConstReal(L->t_f64, 0.0);
    LLVMValueRef rv = rg ? lower_expr_use(L, rg) : LLVMConstReal(L->t_f64, 0.0);
    if (!lv || !rv)
        return NULL;
    LLVMTypeRef ts[9] = {L->t_ptr, L->t_i64, L->t_ptr, L->t_ptr, L->t_i64, L->t_f64, L->t_f64, L->t_i32, L->t_ptr};
    LLVMValueRef as[9] = {xd, nx, xpd, fpd, nitems(L, xpc), lv, rv, lower_i32(L, (lf ? 1 : 0) | (rg ? 2 : 0)), outd};
    lower_check_status(L, rt(L, "rt_interp", L->t_i32, ts, 9, as));
    if (out)
        return np_give(L, out, n->ty, owned);
    return lower_load(L, L->t_f64, outd, "y");
}

static LLVMValueRef histogram_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0), *bins = np_arg(n, 1), *range = np_arg(n, 2);
    Type *f64 = ty_scalar(tc(L), TY_FLOAT64);
    Type *ety = n->ty->elems[1], *hty = n->ty->elems[0];
    Type *f64arr = ty_array(tc(L), f64, 1, LAYOUT_C);
    LLVMValueRef ad = NULL, ac = cread(L, a, f64, &ad);
    if (!ac)
        return NULL;
    LLVMValueRef nb, edges, ed = NULL, lo = LLVMConstReal(L->t_f64, 0.0), hi = lo;
    int mode;
    LLVMValueRef bv = NULL;
    if (bins && bins->ty->kind == TY_ARRAY) {
        mode = 0;
        bv = lower_expr_use(L, bins);
        if (!bv)
            return NULL;
        edges = np_copy_c(L, bv, bins->ty, f64arr);
        lower_temp(L, edges, f64arr, true);
        ed = lower_array_field(L, edges, ARR_DATA, "");
        nb = LLVMBuildSub(L->b, nitems(L, edges), lower_i64(L, 1), "nb");
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, nb, lower_i64(L, 0), ""), "ValueError",
                       "`bins` must be 1d, when an array");
    } else {
        nb = bins ? lower_expr_use(L, bins) : lower_i64(L, 10);
        if (!nb)
            return NULL;
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, nb, lower_i64(L, 1), ""), "ValueError",
                       "`bins` must be positive, when an integer");
        mode = 2;
        if (range) {
            LLVMValueRef rv = lower_expr_use(L, range);
            if (!rv)
                return NULL;
            lo = LLVMBuildExtractValue(L->b, rv, 0, "lo");
            hi = LLVMBuildExtractValue(L->b, rv, 1, "hi");
            mode = 1;
        }
        LLVMValueRef ne = LLVMBuildAdd(L->b, nb, lower_i64(L, 1), "");
        edges = np_alloc(L, f64arr, &ne, false);
        lower_temp(L, edges, f64arr, true);
        ed = lower_array_field(L, edges, ARR_DATA, "");
    }
    LLVMValueRef hist = np_own(L, np_alloc(L, hty, &nb, false), hty);
    LLVMTypeRef ts[8] = {L->t_ptr, L->t_i64, L->t_ptr, L->t_i64, L->t_i32, L->t_f64, L->t_f64, L->t_ptr};
    LLVMValueRef as[8] = {ad, nitems(L, ac), ed, nb, lower_i32(L, mode), lo, hi, lower_array_field(L, hist, ARR_DATA, "")};
    lower_check_status(L, rt(L, "rt_histogram", L->t_i32, ts, 8, as));
    LLVMValueRef eout;
    if (mode == 0)
        eout = np_own(L, np_copy_c(L, bv, bins->ty, ety), ety);
    else if (ety->dtype != f64)
        eout = np_own(L, np_copy_c(L, edges, f64arr, ety), ety);
    else
        eout = edges;
    LLVMValueRef tup = LLVMGetUndef(lower_type(L, n->ty));
    tup = LLVMBuildInsertValue(L->b, tup, hist, 0, "");
    tup = LLVMBuildInsertValue(L->b, tup, eout, 1, "hist");
    return np_give(L, tup, n->ty, owned);
}

LLVMValueRef lower_search_call(Lower *L, Node *n, bool *owned) {
    switch (n->builtin) {
    case BI_NP_SORT: case BI_ARRAY_SORT: case BI_NP_ARGSORT: return sort_call(L, n, owned);
    case BI_NP_UNIQUE: return unique_call(L, n, owned);
    case BI_NP_SEARCHSORTED: case BI_NP_DIGITIZE: return search_call(L, n, owned);
    case BI_NP_NONZERO: case BI_NP_ARGWHERE: case BI_NP_COUNT_NONZERO: return nonzero_call(L, n, owned);
    case BI_NP_BINCOUNT: return bincount_call(L, n, owned);
    case BI_NP_INTERP: return interp_call(L, n, owned);
    case BI_NP_HISTOGRAM: return histogram_call(L, n, owned);
    case BI_NP_MEDIAN: case BI_NP_NANMEDIAN: return median_call(L, n, owned);
    case BI_NP_PERCENTILE: case BI_NP_QUANTILE: case BI_NP_NANPERCENTILE: case BI_NP_NANQUANTILE:
        return percentile_call(L, n, owned);
    default: break;
    }
    return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
}
