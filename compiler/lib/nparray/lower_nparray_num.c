/* lower_nparray_num.c - numerical functions: the windows (bartlett,
 * blackman, hamming, hanning, kaiser), logspace, geomspace, trapezoid,
 * cross, convolve, correlate, unwrap, and the two-output ufuncs modf and
 * frexp.  Each follows the formula of NumPy's implementation in the same
 * order of operations (kaiser's i0 with NumPy's Chebyshev coefficients),
 * so results agree to rounding.  Tree shapes: infer_nparray.c. */
#include "np/lower_np.h"
#include "nparray.h"

#include <math.h>

#define MAXD NPA_MAXD

static LLVMValueRef data_of(Lower *L, LLVMValueRef arr) { return lower_array_field(L, arr, ARR_DATA, "data"); }
static LLVMValueRef i64c(Lower *L, int64_t v) { return lower_i64(L, v); }
static LLVMValueRef f64c(Lower *L, double v) { return LLVMConstReal(L->t_f64, v); }
static LLVMValueRef fadd(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(L->b, a, b, ""); }
static LLVMValueRef fsub(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(L->b, a, b, ""); }
static LLVMValueRef fmul(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(L->b, a, b, ""); }
static LLVMValueRef fdiv(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFDiv(L->b, a, b, ""); }
static LLVMValueRef sitofp(Lower *L, LLVMValueRef i) { return LLVMBuildSIToFP(L->b, i, L->t_f64, ""); }
static LLVMValueRef slt(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildICmp(L->b, LLVMIntSLT, a, b, ""); }
static LLVMValueRef smax(Lower *L, LLVMValueRef a, LLVMValueRef b) { return np_sel(L, slt(L, a, b), b, a); }
static LLVMValueRef smin(Lower *L, LLVMValueRef a, LLVMValueRef b) { return np_sel(L, slt(L, a, b), a, b); }

static LLVMValueRef at_k(Lower *L, LLVMValueRef data, LLVMValueRef k, Type *dt) {
    return np_offset(L, data, np_mul(L, k, i64c(L, ty_itemsize(dt))));
}

static LLVMValueRef math1(Lower *L, const char *name, LLVMValueRef x) {
    LLVMTypeRef t = L->t_f64;
    return lower_intrinsic(L, name, &t, 1, &x, 1);
}

static LLVMValueRef libm2(Lower *L, const char *name, LLVMValueRef a, LLVMValueRef b) {
    LLVMTypeRef p[2] = {L->t_f64, L->t_f64};
    LLVMValueRef as[2] = {a, b};
    return lower_rt(L, name, L->t_f64, p, 2, as);
}

static LLVMValueRef real_arg(Lower *L, Node *e, double dflt) {
    if (!e)
        return f64c(L, dflt);
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? lower_convert(L, e, v, e->ty, ty_scalar(L->c->tc, TY_FLOAT64)) : NULL;
}

static LLVMValueRef int_arg(Lower *L, Node *e, int64_t dflt) {
    if (!e)
        return i64c(L, dflt);
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? lower_as_i64(L, e, v, e->ty) : NULL;
}

/* ---- windows ---- */

static const double i0A[30] = {
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14,  -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11,  9.675809035373237e-11,  -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08,  6.046995022541919e-08,  -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165,
    -0.0005763755745385824,  0.0016394756169413357,  -0.004324309995050576,  0.010546460394594998,
    -0.02373741480589947,    0.04930528423967071,    -0.09490109704804764,   0.17162090152220877,
    -0.3046826723431984,     0.6767952744094761};
static const double i0B[25] = {
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,   3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
    -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14,   3.8527783827421426e-13,
    7.180124451383666e-13,  -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
    1.1889147107846439e-11, 4.94060238822497e-10,   3.3962320257083865e-09, 2.266668990498178e-08,
    2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05,  0.0033691164782556943,
    0.8044904110141088};

/* NumPy's _chbevl: Clenshaw's recurrence over the coefficients. */
static LLVMValueRef chbevl(Lower *L, LLVMValueRef x, const double *c, int n) {
    LLVMValueRef b0 = f64c(L, c[0]), b1 = f64c(L, 0.0), b2 = b1;
    for (int i = 1; i < n; i++) {
        b2 = b1;
        b1 = b0;
        b0 = fadd(L, fsub(L, fmul(L, x, b1), b2), f64c(L, c[i]));
    }
    return fmul(L, f64c(L, 0.5), fsub(L, b0, b2));
}

/* NumPy's i0 of x >= 0: two Chebyshev expansions split at 8. */
static LLVMValueRef i0(Lower *L, LLVMValueRef x) {
    x = math1(L, "llvm.fabs", x);
    LLVMValueRef e = math1(L, "llvm.exp", x);
    LLVMValueRef lo = fmul(L, e, chbevl(L, fsub(L, fdiv(L, x, f64c(L, 2.0)), f64c(L, 2)), i0A, 30));
    LLVMValueRef hi = fdiv(L, fmul(L, e, chbevl(L, fsub(L, fdiv(L, f64c(L, 32.0), x), f64c(L, 2.0)), i0B, 25)),
                           math1(L, "llvm.sqrt", x));
    return np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOLE, x, f64c(L, 8.0), ""), lo, hi);
}

static LLVMValueRef window(Lower *L, Node *n, bool *owned) {
    BuiltinId b = n->builtin;
    Type *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef M = int_arg(L, np_arg(n, 0), 0);
    LLVMValueRef beta = M && b == BI_NPA_KAISER ? real_arg(L, np_arg(n, 1), 0.0) : f64c(L, 0.0);
    if (!M || !beta)
        return NULL;
    LLVMValueRef len = smax(L, M, i64c(L, 0));
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &len, false), rty);
    LLVMValueRef Mf = sitofp(L, M), M1 = fsub(L, Mf, f64c(L, 1.0));
    LLVMValueRef one = np_ieq(L, M, i64c(L, 1));
    LLVMValueRef alpha = fdiv(L, M1, f64c(L, 2.0)), i0b = b == BI_NPA_KAISER ? i0(L, beta) : NULL;
    NpLoop lp;
    np_loop_begin(L, &lp, len);
    LLVMValueRef i = sitofp(L, lp.i), w;
    LLVMValueRef nn = fadd(L, fsub(L, f64c(L, 1.0), Mf), fmul(L, f64c(L, 2.0), i)); /* arange(1 - M, M, 2) */
    switch (b) {
    case BI_NPA_BARTLETT:
        w = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOLE, nn, f64c(L, 0.0), ""), fadd(L, f64c(L, 1.0), fdiv(L, nn, M1)),
                   fsub(L, f64c(L, 1.0), fdiv(L, nn, M1)));
        break;
    case BI_NPA_BLACKMAN:
        w = fadd(L, fadd(L, f64c(L, 0.42), fmul(L, f64c(L, 0.5), math1(L, "llvm.cos", fdiv(L, fmul(L, f64c(L, M_PI), nn), M1)))),
                 fmul(L, f64c(L, 0.08), math1(L, "llvm.cos", fdiv(L, fmul(L, f64c(L, 2.0 * M_PI), nn), M1))));
        break;
    case BI_NPA_HAMMING:
        w = fadd(L, f64c(L, 0.54), fmul(L, f64c(L, 0.46), math1(L, "llvm.cos", fdiv(L, fmul(L, f64c(L, M_PI), nn), M1))));
        break;
    case BI_NPA_HANNING:
        w = fadd(L, f64c(L, 0.5), fmul(L, f64c(L, 0.5), math1(L, "llvm.cos", fdiv(L, fmul(L, f64c(L, M_PI), nn), M1))));
        break;
    default: { /* kaiser: i0(beta * sqrt(1 - ((n - alpha) / alpha)**2)) / i0(beta), n = arange(M) */
        LLVMValueRef r = fdiv(L, fsub(L, i, alpha), alpha);
        LLVMValueRef q = math1(L, "llvm.sqrt", fsub(L, f64c(L, 1.0), fmul(L, r, r)));
        w = fdiv(L, i0(L, fmul(L, beta, q)), i0b);
        break;
    }
    }
    w = np_sel(L, one, f64c(L, 1.0), w);
    np_store(L, at_k(L, data_of(L, out), lp.i, dt), w, dt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

/* ---- logspace, geomspace ---- */

static LLVMValueRef spaced(Lower *L, Node *n, bool *owned) {
    bool geom = n->builtin == BI_NPA_GEOMSPACE;
    Type *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef start = real_arg(L, np_arg(n, 0), 0), stop = start ? real_arg(L, np_arg(n, 1), 0) : NULL;
    LLVMValueRef num = stop ? int_arg(L, np_arg(n, 2), 50) : NULL;
    LLVMValueRef base = num ? real_arg(L, geom ? NULL : np_arg(n, 4), 10.0) : NULL;
    if (!base)
        return NULL;
    LLVMValueRef endpoint = LLVMConstInt(L->t_i1, 1, 0);
    if (np_arg(n, 3) && !(endpoint = lower_expr_use(L, np_arg(n, 3))))
        return NULL;
    lower_raise_if(L, slt(L, num, i64c(L, 0)), "ValueError", "Number of samples must be non-negative.");
    LLVMValueRef sign = f64c(L, 1.0), s = start, e = stop;
    if (geom) {
        LLVMValueRef z = LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, start, f64c(L, 0.0), ""),
                                     LLVMBuildFCmp(L->b, LLVMRealOEQ, stop, f64c(L, 0.0), ""), "");
        lower_raise_if(L, z, "ValueError", "Geometric sequence cannot include zero");
        /* negative sequences: log10 of start / sign(start), the sign back at the end */
        sign = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOLT, start, f64c(L, 0.0), ""), f64c(L, -1.0),
                      np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOGT, start, f64c(L, 0.0), ""), f64c(L, 1.0), start));
        s = fdiv(L, start, sign);
        e = fdiv(L, stop, sign);
        start = math1(L, "llvm.log10", s);
        stop = math1(L, "llvm.log10", e);
    }
    /* linspace as NumPy's: start + i * (delta / div), the last set to stop */
    LLVMValueRef div = np_sel(L, endpoint, LLVMBuildSub(L->b, num, i64c(L, 1), ""), num);
    LLVMValueRef delta = fsub(L, stop, start);
    LLVMValueRef step = fdiv(L, delta, sitofp(L, div));
    LLVMValueRef divpos = LLVMBuildICmp(L->b, LLVMIntSGT, div, i64c(L, 0), "");
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &num, false), rty);
    LLVMValueRef last = LLVMBuildSub(L->b, num, i64c(L, 1), "");
    NpLoop lp;
    np_loop_begin(L, &lp, num);
    LLVMValueRef fi = sitofp(L, lp.i);
    LLVMValueRef y = fadd(L, np_sel(L, divpos, fmul(L, fi, step), fmul(L, fi, delta)), start);
    y = np_sel(L, LLVMBuildAnd(L->b, endpoint, LLVMBuildAnd(L->b, np_ieq(L, lp.i, last), LLVMBuildICmp(L->b, LLVMIntSGT, num, i64c(L, 1), ""), ""), ""),
               stop, y);
    LLVMValueRef v = libm2(L, "pow", geom ? f64c(L, 10.0) : base, y);
    if (geom) { /* the ends exactly start and stop, as NumPy sets them */
        v = np_sel(L, np_ieq(L, lp.i, i64c(L, 0)), s, v);
        v = np_sel(L, LLVMBuildAnd(L->b, endpoint, LLVMBuildAnd(L->b, np_ieq(L, lp.i, last), LLVMBuildICmp(L->b, LLVMIntSGT, num, i64c(L, 1), ""), ""), ""),
                   e, v);
        v = fmul(L, v, sign);
    }
    np_store(L, at_k(L, data_of(L, out), lp.i, dt), v, dt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

/* ---- trapezoid ---- */

static LLVMValueRef trapezoid(Lower *L, Node *n) {
    Node *yn = np_arg(n, 0), *xn = np_arg(n, 1);
    Type *rt = n->ty, *ydt = yn->ty->dtype, *f64 = ty_scalar(L->c->tc, TY_FLOAT64);
    LLVMValueRef y = lower_expr_use(L, yn);
    if (!y)
        return NULL;
    LLVMValueRef x = NULL, dx = real_arg(L, np_arg(n, 2), 1.0);
    if (xn && !(x = lower_expr_use(L, xn)))
        return NULL;
    if (!dx)
        return NULL;
    if (np_arg(n, 3)) {
        LLVMValueRef ax = int_arg(L, np_arg(n, 3), -1);
        if (!ax)
            return NULL;
        np_axis(L, ax, 1);
    }
    LLVMValueRef len = lower_array_dim(L, y, ARR_SHAPE, 0), ys = lower_array_dim(L, y, ARR_STRIDES, 0);
    LLVMValueRef xs = NULL;
    Type *xdt = NULL;
    if (x) {
        xdt = xn->ty->dtype;
        xs = lower_array_dim(L, x, ARR_STRIDES, 0);
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, lower_array_dim(L, x, ARR_SHAPE, 0), len, ""), "ValueError",
                       "operands could not be broadcast together");
    }
    LLVMValueRef acc = lower_alloca(L, lower_type(L, rt), "acc");
    LLVMBuildStore(L->b, lower_zero(L, rt), acc);
    LLVMValueRef half = lower_convert(L, n, f64c(L, 2.0), f64, rt);
    LLVMValueRef d = lower_convert(L, n, dx, f64, rt);
    NpLoop lp;
    np_loop_begin(L, &lp, LLVMBuildSub(L->b, smax(L, len, i64c(L, 1)), i64c(L, 1), ""));
    LLVMValueRef i1 = LLVMBuildAdd(L->b, lp.i, i64c(L, 1), "");
    LLVMValueRef y0 = np_load(L, np_offset(L, data_of(L, y), np_mul(L, lp.i, ys)), ydt);
    LLVMValueRef y1 = np_load(L, np_offset(L, data_of(L, y), np_mul(L, i1, ys)), ydt);
    LLVMValueRef sum = lower_convert(L, n, np_arith(L, '+', ydt, y1, y0), ydt, rt);
    if (x) {
        LLVMValueRef x0 = np_load(L, np_offset(L, data_of(L, x), np_mul(L, lp.i, xs)), xdt);
        LLVMValueRef x1 = np_load(L, np_offset(L, data_of(L, x), np_mul(L, i1, xs)), xdt);
        d = lower_convert(L, n, np_arith(L, '-', xdt, x1, x0), xdt, rt);
    }
    LLVMValueRef term = np_arith(L, '*', rt, d, sum);
    if (ty_is_complex(rt)) {
        LLVMValueRef h = LLVMBuildExtractValue(L->b, half, 0, "");
        term = LLVMBuildInsertValue(L->b, LLVMBuildInsertValue(L->b, term, LLVMBuildFDiv(L->b, LLVMBuildExtractValue(L->b, term, 0, ""), h, ""), 0, ""),
                                    LLVMBuildFDiv(L->b, LLVMBuildExtractValue(L->b, term, 1, ""), h, ""), 1, "");
    } else {
        term = LLVMBuildFDiv(L->b, term, half, "");
    }
    LLVMBuildStore(L->b, np_arith(L, '+', rt, lower_load(L, lower_type(L, rt), acc, ""), term), acc);
    np_loop_end(L, &lp);
    return lower_load(L, lower_type(L, rt), acc, "trapezoid");
}

/* ---- cross ---- */

typedef struct CrossCtx {
    Type *adt, *bdt, *dt;
    LLVMValueRef as, bs, os; /* strides along the vectors' axis */
} CrossCtx;

static void cross_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    CrossCtx *c = vctx;
    LLVMValueRef a[3], b[3];
    for (int k = 0; k < 3; k++) {
        a[k] = lower_convert(L, np_at(L), np_load(L, np_offset(L, p[0], np_mul(L, i64c(L, k), c->as)), c->adt), c->adt, c->dt);
        b[k] = lower_convert(L, np_at(L), np_load(L, np_offset(L, p[1], np_mul(L, i64c(L, k), c->bs)), c->bdt), c->bdt, c->dt);
    }
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        LLVMValueRef v = np_arith(L, '-', c->dt, np_arith(L, '*', c->dt, a[i], b[j]), np_arith(L, '*', c->dt, a[j], b[i]));
        np_store(L, np_offset(L, p[2], np_mul(L, i64c(L, k), c->os)), v, c->dt);
    }
}

static LLVMValueRef cross(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty;
    int rnd = rty->ndim;
    NpaOpnd o[2];
    if (!npa_opnd(L, np_arg(n, 0), &o[0]) || !npa_opnd(L, np_arg(n, 1), &o[1]))
        return NULL;
    CrossCtx c = {o[0].dt, o[1].dt, rty->dtype, o[0].st[o[0].nd - 1], o[1].st[o[1].nd - 1], NULL};
    LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int i = 0; i < 2; i++) {
        bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntNE, o[i].sh[o[i].nd - 1], i64c(L, 3), ""), "");
        o[i].nd--; /* broadcast over the other axes */
    }
    lower_raise_if(L, bad, "ValueError",
                   "incompatible dimensions for cross product (hpcjit: dimension must be 3; NumPy 2 deprecates 2)");
    LLVMValueRef dims[MAXD], str[NP_MAX_OPS][MAXD];
    npa_bcast(L, o, 2, rnd - 1, dims, str, "ValueError");
    dims[rnd - 1] = i64c(L, 3);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    LLVMValueRef ost[MAXD];
    np_dims(L, out, rnd, NULL, ost);
    for (int d = 0; d < rnd - 1; d++)
        str[2][d] = ost[d];
    c.os = ost[rnd - 1];
    LLVMValueRef base[3] = {o[0].data, o[1].data, data_of(L, out)};
    np_nest(L, rnd - 1, dims, 3, base, str, cross_cb, &c);
    return np_give(L, out, rty, owned);
}

/* ---- convolve, correlate ---- */

/* One item of the full result: correlate c[k] = sum_j a[k - (m-1) + j] * conj(v[j]);
 * convolve c[k] = sum_i a[i] * v[k - i]. */
static LLVMValueRef full_item(Lower *L, bool conv, Type *dt, LLVMValueRef ad, LLVMValueRef as, Type *adt,
                              LLVMValueRef vd, LLVMValueRef vs, Type *vdt, LLVMValueRef n, LLVMValueRef m, LLVMValueRef k) {
    LLVMValueRef acc = lower_alloca(L, lower_type(L, dt), "acc");
    LLVMBuildStore(L->b, lower_zero(L, dt), acc);
    LLVMValueRef lo, hi, one = i64c(L, 1);
    if (conv) { /* i in [max(0, k - m + 1), min(n - 1, k)] */
        lo = smax(L, i64c(L, 0), LLVMBuildAdd(L->b, LLVMBuildSub(L->b, k, m, ""), one, ""));
        hi = LLVMBuildAdd(L->b, smin(L, LLVMBuildSub(L->b, n, one, ""), k), one, "");
    } else { /* lag = k - (m-1); j in [max(0, -lag), min(m, n - lag)) */
        LLVMValueRef lag = LLVMBuildSub(L->b, k, LLVMBuildSub(L->b, m, one, ""), "");
        lo = smax(L, i64c(L, 0), LLVMBuildNeg(L->b, lag, ""));
        hi = smin(L, m, LLVMBuildSub(L->b, n, lag, ""));
        k = lag;
    }
    NpLoop lp;
    np_loop_begin(L, &lp, smax(L, LLVMBuildSub(L->b, hi, lo, ""), i64c(L, 0)));
    LLVMValueRef t = LLVMBuildAdd(L->b, lo, lp.i, "");
    LLVMValueRef ai = conv ? t : LLVMBuildAdd(L->b, k, t, ""), vi = conv ? LLVMBuildSub(L->b, k, t, "") : t;
    LLVMValueRef x = lower_convert(L, np_at(L), np_load(L, np_offset(L, ad, np_mul(L, ai, as)), adt), adt, dt);
    LLVMValueRef y = lower_convert(L, np_at(L), np_load(L, np_offset(L, vd, np_mul(L, vi, vs)), vdt), vdt, dt);
    if (!conv && ty_is_complex(dt))
        y = LLVMBuildInsertValue(L->b, y, LLVMBuildFNeg(L->b, LLVMBuildExtractValue(L->b, y, 1, ""), ""), 1, "");
    LLVMValueRef p = dt->kind == TY_BOOL ? LLVMBuildAnd(L->b, x, y, "") : np_arith(L, '*', dt, x, y);
    LLVMValueRef cur = lower_load(L, lower_type(L, dt), acc, "");
    LLVMBuildStore(L->b, dt->kind == TY_BOOL ? LLVMBuildOr(L->b, cur, p, "") : np_arith(L, '+', dt, cur, p), acc);
    np_loop_end(L, &lp);
    return lower_load(L, lower_type(L, dt), acc, "");
}

static LLVMValueRef convolve(Lower *L, Node *n, bool *owned) {
    bool conv = n->builtin == BI_NPA_CONVOLVE;
    Node *an = np_arg(n, 0), *vn = np_arg(n, 1);
    Type *rty = n->ty, *dt = rty->dtype;
    int mode = (int)n->cval.i;
    LLVMValueRef a = lower_expr_use(L, an), v = a ? lower_expr_use(L, vn) : NULL;
    if (!v)
        return NULL;
    LLVMValueRef na = lower_array_dim(L, a, ARR_SHAPE, 0), nv = lower_array_dim(L, v, ARR_SHAPE, 0);
    lower_raise_if(L, np_ieq(L, na, i64c(L, 0)), "ValueError", "a cannot be empty");
    lower_raise_if(L, np_ieq(L, nv, i64c(L, 0)), "ValueError", "v cannot be empty");
    LLVMValueRef mn = smin(L, na, nv), mx = smax(L, na, nv), one = i64c(L, 1);
    LLVMValueRef len, start;
    if (mode == 0) {
        len = LLVMBuildSub(L->b, LLVMBuildAdd(L->b, na, nv, ""), one, "");
        start = i64c(L, 0);
    } else if (mode == 1) { /* NumPy's offsets of 'same' into the full result */
        len = mx;
        LLVMValueRef s1 = LLVMBuildSDiv(L->b, LLVMBuildSub(L->b, mn, one, ""), i64c(L, 2), "");
        start = conv ? s1 : np_sel(L, slt(L, na, nv), LLVMBuildSDiv(L->b, mn, i64c(L, 2), ""), s1);
    } else {
        len = LLVMBuildAdd(L->b, LLVMBuildSub(L->b, mx, mn, ""), one, "");
        start = LLVMBuildSub(L->b, mn, one, "");
    }
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &len, false), rty);
    LLVMValueRef as = lower_array_dim(L, a, ARR_STRIDES, 0), vs = lower_array_dim(L, v, ARR_STRIDES, 0);
    NpLoop lp;
    np_loop_begin(L, &lp, len);
    LLVMValueRef c = full_item(L, conv, dt, data_of(L, a), as, an->ty->dtype, data_of(L, v), vs, vn->ty->dtype, na, nv,
                               LLVMBuildAdd(L->b, lp.i, start, ""));
    np_store(L, at_k(L, data_of(L, out), lp.i, dt), c, dt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

/* ---- unwrap ---- */

/* Python's (NumPy's) float modulo: the sign of the divisor. */
static LLVMValueRef pymod(Lower *L, Type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef z = lower_zero(L, t);
    LLVMValueRef m = LLVMBuildFRem(L->b, a, b, "");
    LLVMValueRef fix = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealONE, m, z, ""),
                                    LLVMBuildXor(L->b, LLVMBuildFCmp(L->b, LLVMRealOLT, b, z, ""),
                                                 LLVMBuildFCmp(L->b, LLVMRealOLT, m, z, ""), ""), "");
    m = np_sel(L, fix, LLVMBuildFAdd(L->b, m, b, ""), m);
    LLVMTypeRef lt = lower_type(L, t);
    LLVMValueRef cs[2] = {z, b};
    LLVMValueRef signed0 = lower_intrinsic(L, "llvm.copysign", &lt, 1, cs, 2);
    return np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOEQ, m, z, ""), signed0, m);
}

static LLVMValueRef unwrap(Lower *L, Node *n, bool *owned) {
    Node *pn = np_arg(n, 0);
    Type *rty = n->ty, *dt = rty->dtype, *pdt = pn->ty->dtype;
    LLVMValueRef p = lower_expr_use(L, pn);
    if (!p)
        return NULL;
    LLVMValueRef period = lower_convert(L, n, f64c(L, 2.0 * M_PI), ty_scalar(L->c->tc, TY_FLOAT64), dt);
    if (np_arg(n, 3) && !(period = lower_expr_use(L, np_arg(n, 3))))
        return NULL;
    LLVMValueRef discont = LLVMBuildFDiv(L->b, period, lower_convert(L, n, f64c(L, 2.0), ty_scalar(L->c->tc, TY_FLOAT64), dt), "");
    if (np_arg(n, 1) && !(discont = lower_expr_use(L, np_arg(n, 1))))
        return NULL;
    if (np_arg(n, 2)) {
        LLVMValueRef ax = int_arg(L, np_arg(n, 2), -1);
        if (!ax)
            return NULL;
        np_axis(L, ax, 1);
    }
    LLVMValueRef len = lower_array_dim(L, p, ARR_SHAPE, 0), ps = lower_array_dim(L, p, ARR_STRIDES, 0);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &len, false), rty);
    LLVMValueRef high = LLVMBuildFDiv(L->b, period, lower_convert(L, n, f64c(L, 2.0), ty_scalar(L->c->tc, TY_FLOAT64), dt), "");
    LLVMValueRef low = LLVMBuildFNeg(L->b, high, "");
    LLVMValueRef acc = lower_alloca(L, lower_type(L, dt), "cum");
    LLVMBuildStore(L->b, lower_zero(L, dt), acc);
    LLVMValueRef od = data_of(L, out);
    NpLoop lp;
    np_loop_begin(L, &lp, len);
    LLVMValueRef x = lower_convert(L, np_at(L), np_load(L, np_offset(L, data_of(L, p), np_mul(L, lp.i, ps)), pdt), pdt, dt);
    LLVMValueRef prev_i = smax(L, LLVMBuildSub(L->b, lp.i, i64c(L, 1), ""), i64c(L, 0));
    LLVMValueRef xp = lower_convert(L, np_at(L), np_load(L, np_offset(L, data_of(L, p), np_mul(L, prev_i, ps)), pdt), pdt, dt);
    /* NumPy: dd = diff(p); ddmod = mod(dd - low, period) + low, high where
     * ddmod == low and dd > 0; the correction ddmod - dd unless |dd| < discont */
    LLVMValueRef dd = LLVMBuildFSub(L->b, x, xp, "");
    LLVMValueRef ddmod = LLVMBuildFAdd(L->b, pymod(L, dt, LLVMBuildFSub(L->b, dd, low, ""), period), low, "");
    LLVMValueRef amb = LLVMBuildAnd(L->b, LLVMBuildFCmp(L->b, LLVMRealOEQ, ddmod, low, ""),
                                    LLVMBuildFCmp(L->b, LLVMRealOGT, dd, lower_zero(L, dt), ""), "");
    ddmod = np_sel(L, amb, high, ddmod);
    LLVMTypeRef lt = lower_type(L, dt);
    LLVMValueRef add = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOLT, lower_intrinsic(L, "llvm.fabs", &lt, 1, &dd, 1), discont, ""),
                              lower_zero(L, dt), LLVMBuildFSub(L->b, ddmod, dd, ""));
    LLVMValueRef first = np_ieq(L, lp.i, i64c(L, 0));
    LLVMValueRef cum = np_sel(L, first, lower_zero(L, dt), LLVMBuildFAdd(L->b, lower_load(L, lt, acc, ""), add, ""));
    LLVMBuildStore(L->b, cum, acc);
    np_store(L, at_k(L, od, lp.i, dt), np_sel(L, first, x, LLVMBuildFAdd(L->b, x, cum, "")), dt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

/* ---- modf, frexp ---- */

typedef struct Frac {
    BuiltinId id;
    Type *sdt, *ft, *st;
} Frac;

static void frac_pair(Lower *L, Frac *c, LLVMValueRef x, LLVMValueRef *r0, LLVMValueRef *r1) {
    x = lower_convert(L, np_at(L), x, c->sdt, c->ft);
    LLVMTypeRef ft = lower_type(L, c->ft);
    bool f32 = c->ft->kind == TY_FLOAT32;
    LLVMValueRef slot = lower_alloca(L, c->id == BI_NPA_MODF ? ft : L->t_i32, "second");
    LLVMTypeRef ps[2] = {ft, L->t_ptr};
    LLVMValueRef as[2] = {x, slot};
    *r0 = lower_rt(L, c->id == BI_NPA_MODF ? (f32 ? "modff" : "modf") : (f32 ? "frexpf" : "frexp"), ft, ps, 2, as);
    *r1 = lower_load(L, c->id == BI_NPA_MODF ? ft : L->t_i32, slot, "");
}

static void frac_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    Frac *c = vctx;
    LLVMValueRef r0, r1;
    frac_pair(L, c, np_load(L, p[0], c->sdt), &r0, &r1);
    np_store(L, p[1], r0, c->ft);
    np_store(L, p[2], r1, c->st);
}

static LLVMValueRef frac(Lower *L, Node *n, bool *owned) {
    Node *xn = np_arg(n, 0);
    Type *tt = n->ty, *t0 = tt->elems[0], *t1 = tt->elems[1];
    Frac c = {n->builtin, xn->ty->kind == TY_ARRAY ? xn->ty->dtype : xn->ty, t0->kind == TY_ARRAY ? t0->dtype : t0,
              t1->kind == TY_ARRAY ? t1->dtype : t1};
    NpaOpnd o;
    if (!npa_opnd(L, xn, &o))
        return NULL;
    LLVMValueRef r = LLVMGetUndef(lower_type(L, tt));
    if (xn->ty->kind != TY_ARRAY) {
        LLVMValueRef r0, r1;
        frac_pair(L, &c, o.v, &r0, &r1);
        r = LLVMBuildInsertValue(L->b, r, r0, 0, "");
        return LLVMBuildInsertValue(L->b, r, r1, 1, "");
    }
    int nd = o.nd;
    LLVMValueRef a0 = np_own(L, np_alloc(L, t0, o.sh, false), t0), a1 = np_own(L, np_alloc(L, t1, o.sh, false), t1);
    LLVMValueRef str[NP_MAX_OPS][MAXD], base[3] = {o.data, data_of(L, a0), data_of(L, a1)};
    for (int d = 0; d < nd; d++)
        str[0][d] = o.st[d];
    np_dims(L, a0, nd, NULL, str[1]);
    np_dims(L, a1, nd, NULL, str[2]);
    np_nest(L, nd, o.sh, 3, base, str, frac_cb, &c);
    r = LLVMBuildInsertValue(L->b, r, np_give(L, a0, t0, owned), 0, "");
    return LLVMBuildInsertValue(L->b, r, np_give(L, a1, t1, owned), 1, "");
}

/* ---- partition, argpartition ---- */

/* partition: a quickselect per kth along the last axis (rt_partition, NaNs
 * last); argpartition: the same quickselect on the indices
 * (rt_argpartition).  The order inside the two sides is NumPy's
 * implementation detail. */
static LLVMValueRef partition(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *kn = np_arg(n, 1);
    Type *aty = an->ty, *rty = n->ty, *dt = aty->dtype;
    int nd = aty->ndim;
    LLVMValueRef a = lower_expr_use(L, an), kv = a ? lower_expr_use(L, kn) : NULL;
    if (!kv)
        return NULL;
    LLVMValueRef len = lower_array_dim(L, a, ARR_SHAPE, nd - 1);
    Type *kty = kn->ty;
    if (kty->kind == TY_ARRAY) { /* an array of kth (0-D or 1-D): each in bounds */
        Type *i64 = ty_scalar(L->c->tc, TY_INT64);
        LLVMValueRef kdata = data_of(L, kv), nk = lower_array_field(L, kv, ARR_NITEMS, "");
        LLVMValueRef ks = kty->ndim ? lower_array_dim(L, kv, ARR_STRIDES, 0) : i64c(L, 0);
        NpLoop lp;
        np_loop_begin(L, &lp, nk);
        LLVMValueRef k = np_load(L, np_offset(L, kdata, np_mul(L, lp.i, ks)), kty->dtype);
        k = lower_convert(L, kn, k, kty->dtype, i64);
        LLVMValueRef bad = LLVMBuildOr(L->b, slt(L, k, LLVMBuildNeg(L->b, len, "")),
                                       LLVMBuildICmp(L->b, LLVMIntSGE, k, len, ""), "");
        lower_raise_if(L, bad, "ValueError", "kth out of bounds");
        np_loop_end(L, &lp);
    }
    int nk = kty->kind == TY_TUPLE ? kty->nelems : kty->kind == TY_ARRAY ? 0 : 1;
    for (int i = 0; i < nk; i++) {
        LLVMValueRef k = kty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, kv, (unsigned)i, "") : kv;
        LLVMValueRef bad = LLVMBuildOr(L->b, slt(L, k, LLVMBuildNeg(L->b, len, "")),
                                       LLVMBuildICmp(L->b, LLVMIntSGE, k, len, ""), "");
        lower_raise_if(L, bad, "ValueError", "kth out of bounds");
    }
    Type *cty = ty_array(L->c->tc, dt, nd, LAYOUT_C);
    LLVMValueRef c = np_copy_c(L, a, aty, cty);
    LLVMValueRef total = lower_array_field(L, c, ARR_NITEMS, "");
    LLVMValueRef rows = LLVMBuildSDiv(L->b, total, np_sel(L, np_ieq(L, len, i64c(L, 0)), i64c(L, 1), len), "");
    LLVMValueRef code = lower_i32(L, np_dt_code(dt));
    LLVMValueRef kp, nkv, kstride, kcode;
    {
        if (kty->kind == TY_ARRAY) { /* the kth array's own items */
            kp = data_of(L, kv);
            nkv = lower_array_field(L, kv, ARR_NITEMS, "");
            kstride = kty->ndim ? lower_array_dim(L, kv, ARR_STRIDES, 0) : i64c(L, 0);
            kcode = lower_i32(L, np_dt_code(kty->dtype));
        } else { /* an int or a tuple of ints (int64): a small array on the stack */
            LLVMTypeRef at = LLVMArrayType2(L->t_i64, (uint64_t)nk);
            kp = lower_alloca(L, at, "kth");
            for (int i = 0; i < nk; i++) {
                LLVMValueRef k = kty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, kv, (unsigned)i, "") : kv;
                LLVMValueRef ix[2] = {i64c(L, 0), i64c(L, i)};
                LLVMBuildStore(L->b, k, lower_gep(L, at, kp, ix, 2, ""));
            }
            nkv = i64c(L, nk);
            kstride = i64c(L, 8);
            kcode = lower_i32(L, np_dt_code(ty_scalar(L->c->tc, TY_INT64)));
        }
    }
    np_own(L, c, cty);
    if (n->builtin == BI_NPA_PARTITION) {
        LLVMTypeRef t8[8] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i32, L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
        LLVMValueRef as[8] = {data_of(L, c), rows, len, code, kp, nkv, kstride, kcode};
        lower_check_status(L, lower_rt(L, "rt_partition", L->t_i32, t8, 8, as));
        return np_give(L, c, rty, owned);
    }
    LLVMValueRef dims[MAXD];
    np_dims(L, c, nd, dims, NULL);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    LLVMTypeRef t9[9] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_i32, L->t_ptr, L->t_i64, L->t_i64, L->t_i32};
    LLVMValueRef bs[9] = {data_of(L, c), data_of(L, out), rows, len, code, kp, nkv, kstride, kcode};
    lower_check_status(L, lower_rt(L, "rt_argpartition", L->t_i32, t9, 9, bs));
    return np_give(L, out, rty, owned);
}

/* ---- roots ---- */

/* An RtMat (hpcjit/linalg.h) on the stack: data, rows, columns, byte strides. */
static LLVMValueRef rtmat(Lower *L, LLVMValueRef data, LLVMValueRef m, LLVMValueRef nc, LLVMValueRef rs, LLVMValueRef cs) {
    LLVMTypeRef f[5] = {L->t_ptr, L->t_i64, L->t_i64, L->t_i64, L->t_i64};
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, f, 5, 0);
    LLVMValueRef p = lower_alloca(L, st, "mat");
    LLVMValueRef v[5] = {data, m, nc, rs, cs};
    for (unsigned i = 0; i < 5; i++)
        LLVMBuildStore(L->b, v[i], LLVMBuildStructGEP2(L->b, st, p, i, ""));
    return p;
}

/* NumPy's roots: the eigenvalues of the companion matrix of the
 * polynomial without its leading and trailing zeros (LAPACK's zgeev
 * through the runtime), then a zero per trailing zero. */
static LLVMValueRef roots(Lower *L, Node *n, bool *owned) {
    Node *pn = np_arg(n, 0);
    Type *rty = n->ty, *cdt = rty->dtype, *pdt = pn->ty->dtype;
    LLVMValueRef p = lower_expr_use(L, pn);
    if (!p)
        return NULL;
    LLVMValueRef len = lower_array_dim(L, p, ARR_SHAPE, 0), ps = lower_array_dim(L, p, ARR_STRIDES, 0);
    LLVMValueRef first = lower_alloca(L, L->t_i64, "first"), last = lower_alloca(L, L->t_i64, "last");
    LLVMBuildStore(L->b, len, first);
    LLVMBuildStore(L->b, i64c(L, -1), last);
    NpLoop lp;
    np_loop_begin(L, &lp, len);
    LLVMValueRef on = lower_truth(L, np_at(L), np_load(L, np_offset(L, data_of(L, p), np_mul(L, lp.i, ps)), pdt), pdt);
    LLVMValueRef f = lower_load(L, L->t_i64, first, "");
    LLVMBuildStore(L->b, np_sel(L, LLVMBuildAnd(L->b, on, np_ieq(L, f, len), ""), lp.i, f), first);
    LLVMBuildStore(L->b, np_sel(L, on, lp.i, lower_load(L, L->t_i64, last, "")), last);
    np_loop_end(L, &lp);
    LLVMValueRef fv = lower_load(L, L->t_i64, first, ""), lv = lower_load(L, L->t_i64, last, "");
    LLVMValueRef none = slt(L, lv, i64c(L, 0));
    LLVMValueRef N = np_sel(L, none, i64c(L, 0), LLVMBuildAdd(L->b, LLVMBuildSub(L->b, lv, fv, ""), i64c(L, 1), ""));
    LLVMValueRef trailing = np_sel(L, none, i64c(L, 0), LLVMBuildSub(L->b, LLVMBuildSub(L->b, len, lv, ""), i64c(L, 1), ""));
    LLVMValueRef k = smax(L, LLVMBuildSub(L->b, N, i64c(L, 1), ""), i64c(L, 0));
    LLVMValueRef total = LLVMBuildAdd(L->b, k, trailing, "");
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, true), rty);
    /* the companion matrix (a temporary: made before the branch, which the
     * statement's release does not see): -p[1:] / p[0] on the first row,
     * ones below the diagonal */
    Type *mty = ty_array(L->c->tc, cdt, 2, LAYOUT_C);
    LLVMValueRef dims[2] = {k, k};
    LLVMValueRef A = np_own(L, np_alloc(L, mty, dims, true), mty);
    LLVMBasicBlockRef eig = lower_block(L, "roots.eig"), done = lower_block(L, "roots.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGT, k, i64c(L, 0), ""), eig, done);
    lower_at(L, eig);
    LLVMValueRef ad = data_of(L, A), isz = i64c(L, ty_itemsize(cdt));
    LLVMValueRef p0 = lower_convert(L, n, np_load(L, np_offset(L, data_of(L, p), np_mul(L, fv, ps)), pdt), pdt, cdt);
    LLVMValueRef re0 = LLVMBuildExtractValue(L->b, p0, 0, ""), im0 = LLVMBuildExtractValue(L->b, p0, 1, "");
    LLVMValueRef den = fadd(L, fmul(L, re0, re0), fmul(L, im0, im0));
    np_loop_begin(L, &lp, k);
    LLVMValueRef x = lower_convert(L, n, np_load(L, np_offset(L, data_of(L, p), np_mul(L, LLVMBuildAdd(L->b, LLVMBuildAdd(L->b, fv, lp.i, ""), i64c(L, 1), ""), ps)), pdt),
                                   pdt, cdt);
    LLVMValueRef xr = LLVMBuildExtractValue(L->b, x, 0, ""), xi = LLVMBuildExtractValue(L->b, x, 1, "");
    LLVMValueRef qr, qi; /* x / p0; a real p0 divides exactly as NumPy's real division */
    LLVMValueRef real0 = LLVMBuildFCmp(L->b, LLVMRealOEQ, im0, f64c(L, 0.0), "");
    qr = np_sel(L, real0, fdiv(L, xr, re0), fdiv(L, fadd(L, fmul(L, xr, re0), fmul(L, xi, im0)), den));
    qi = np_sel(L, real0, fdiv(L, xi, re0), fdiv(L, fsub(L, fmul(L, xi, re0), fmul(L, xr, im0)), den));
    LLVMValueRef q = LLVMGetUndef(lower_type(L, cdt));
    q = LLVMBuildInsertValue(L->b, q, LLVMBuildFNeg(L->b, qr, ""), 0, "");
    q = LLVMBuildInsertValue(L->b, q, LLVMBuildFNeg(L->b, qi, ""), 1, "");
    np_store(L, np_offset(L, ad, np_mul(L, lp.i, isz)), q, cdt);
    LLVMValueRef below = LLVMBuildICmp(L->b, LLVMIntSGT, lp.i, i64c(L, 0), "");
    LLVMBasicBlockRef one = lower_block(L, "roots.one"), next = lower_block(L, "roots.next");
    LLVMBuildCondBr(L->b, below, one, next);
    lower_at(L, one); /* A[i, i - 1] = 1 */
    LLVMValueRef pos = LLVMBuildSub(L->b, np_mul(L, lp.i, LLVMBuildAdd(L->b, k, i64c(L, 1), "")), i64c(L, 1), "");
    np_store(L, np_offset(L, ad, np_mul(L, pos, isz)), np_one(L, cdt), cdt);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    np_loop_end(L, &lp);
    LLVMValueRef ma = rtmat(L, ad, k, k, np_mul(L, k, isz), isz);
    LLVMValueRef mw = rtmat(L, data_of(L, out), k, i64c(L, 1), isz, np_mul(L, k, isz));
    LLVMTypeRef ts[4] = {L->t_i32, L->t_ptr, L->t_ptr, L->t_ptr};
    LLVMValueRef as[4] = {lower_i32(L, np_dt_code(cdt)), ma, mw, LLVMConstNull(L->t_ptr)};
    lower_check_status(L, lower_rt(L, "rt_linalg_eig", L->t_i32, ts, 4, as));
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    return np_give(L, out, rty, owned);
}

LLVMValueRef lower_nparray_num(Lower *L, Node *n, bool *owned) {
    *owned = false;
    switch (n->builtin) {
    case BI_NPA_BARTLETT: case BI_NPA_BLACKMAN: case BI_NPA_HAMMING: case BI_NPA_HANNING: case BI_NPA_KAISER:
        return window(L, n, owned);
    case BI_NPA_LOGSPACE: case BI_NPA_GEOMSPACE: return spaced(L, n, owned);
    case BI_NPA_TRAPEZOID: return trapezoid(L, n);
    case BI_NPA_CROSS: return cross(L, n, owned);
    case BI_NPA_CONVOLVE: case BI_NPA_CORRELATE: return convolve(L, n, owned);
    case BI_NPA_UNWRAP: return unwrap(L, n, owned);
    case BI_NPA_MODF: case BI_NPA_FREXP: return frac(L, n, owned);
    case BI_NPA_PARTITION: case BI_NPA_ARGPARTITION: return partition(L, n, owned);
    case BI_NPA_ROOTS: return roots(L, n, owned);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
    }
}
