/* lower_nparray.c - comparisons (isclose, allclose, array_equal),
 * elementwise predicates and maps (iscomplex, isreal, isneginf, isposinf,
 * nan_to_num, sinc), views (swapaxes, moveaxis, atleast_nd, fliplr,
 * flipud, rot90, broadcast_to), contiguity (ascontiguousarray,
 * asfortranarray) and a.item().  Operands of the elementwise functions
 * are arrays of any layout or scalars (spilled to a slot, stride 0),
 * broadcast as NumPy does; the loops are lib/np's (lower_np.h).  Views
 * share the source's meminfo (one more reference).  Tree shapes:
 * infer_nparray.c. */
#include "np/lower_np.h"
#include "nparray.h"

#include <math.h>
#include <string.h>

#define MAXD NPA_MAXD

static LLVMValueRef data_of(Lower *L, LLVMValueRef arr) { return lower_array_field(L, arr, ARR_DATA, "data"); }

static LLVMValueRef int_arg(Lower *L, Node *e) {
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? lower_as_i64(L, e, v, e->ty) : NULL;
}

static LLVMValueRef i1(Lower *L, int v) { return LLVMConstInt(L->t_i1, (unsigned long long)v, 0); }

static Type *part_of(Lower *L, Type *t) {
    if (t->kind == TY_COMPLEX64)
        return ty_scalar(L->c->tc, TY_FLOAT32);
    if (t->kind == TY_COMPLEX128)
        return ty_scalar(L->c->tc, TY_FLOAT64);
    return t;
}

static LLVMValueRef fconst(Lower *L, Type *t, double v) { return LLVMConstReal(lower_type(L, t), v); }

static LLVMValueRef fabs_of(Lower *L, Type *t, LLVMValueRef x) {
    LLVMTypeRef ty = lower_type(L, t);
    return lower_intrinsic(L, "llvm.fabs", &ty, 1, &x, 1);
}

/* ---- operands: arrays of any layout, or scalars in a slot ---- */

bool npa_opnd(Lower *L, Node *e, NpaOpnd *o) {
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return false;
    o->v = v;
    if (e->ty->kind == TY_ARRAY) {
        o->dt = e->ty->dtype;
        o->nd = e->ty->ndim;
        o->data = data_of(L, v);
        np_dims(L, v, o->nd, o->sh, o->st);
    } else {
        o->dt = e->ty;
        o->nd = 0;
        o->data = lower_alloca(L, lower_mem_type(L, e->ty), "scalar");
        np_store(L, o->data, v, e->ty);
    }
    return true;
}

void npa_bcast(Lower *L, NpaOpnd *o, int k, int rnd, LLVMValueRef *rdims, LLVMValueRef (*str)[NPA_MAXD],
               const char *exc) {
    LLVMValueRef one = lower_i64(L, 1), zero = lower_i64(L, 0);
    LLVMValueRef bad = i1(L, 0);
    for (int d = 0; d < rnd; d++) {
        LLVMValueRef dim[NPA_MAX_OPNDS], r = one;
        for (int i = 0; i < k; i++) {
            int j = d - (rnd - o[i].nd);
            dim[i] = j >= 0 ? o[i].sh[j] : one;
            r = np_sel(L, LLVMBuildICmp(L->b, LLVMIntNE, dim[i], one, ""), dim[i], r);
        }
        for (int i = 0; i < k; i++) {
            int j = d - (rnd - o[i].nd);
            LLVMValueRef is1 = np_ieq(L, dim[i], one);
            bad = LLVMBuildOr(L->b, bad, LLVMBuildAnd(L->b, LLVMBuildNot(L->b, is1, ""),
                                                      LLVMBuildICmp(L->b, LLVMIntNE, dim[i], r, ""), ""), "");
            str[i][d] = j >= 0 ? np_sel(L, is1, zero, o[i].st[j]) : zero;
        }
        rdims[d] = r;
    }
    lower_raise_if(L, bad, exc, "operands could not be broadcast together");
}

/* ---- element kernels ---- */

static LLVMValueRef isnan_v(Lower *L, Type *t, LLVMValueRef x) {
    if (ty_is_npdt(t))
        return lower_dt_isnat(L, x);
    if (ty_is_float(t))
        return LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "");
    if (ty_is_complex(t)) {
        LLVMValueRef re = LLVMBuildExtractValue(L->b, x, 0, ""), im = LLVMBuildExtractValue(L->b, x, 1, "");
        return LLVMBuildOr(L->b, LLVMBuildFCmp(L->b, LLVMRealUNO, re, re, ""), LLVMBuildFCmp(L->b, LLVMRealUNO, im, im, ""),
                           "");
    }
    return i1(L, 0);
}

static LLVMValueRef isfin_v(Lower *L, Type *t, LLVMValueRef x) {
    if (ty_is_float(t))
        return LLVMBuildFCmp(L->b, LLVMRealOLT, fabs_of(L, t, x), fconst(L, t, INFINITY), "");
    if (ty_is_complex(t)) {
        Type *p = part_of(L, t);
        return LLVMBuildAnd(L->b, isfin_v(L, p, LLVMBuildExtractValue(L->b, x, 0, "")),
                            isfin_v(L, p, LLVMBuildExtractValue(L->b, x, 1, "")), "");
    }
    return i1(L, 1);
}

/* |x| as a real of t's part type (complex: hypot of the parts). */
static LLVMValueRef abs_v(Lower *L, Type *t, LLVMValueRef x) {
    if (!ty_is_complex(t))
        return fabs_of(L, t, x);
    Type *p = part_of(L, t);
    LLVMTypeRef ft = lower_type(L, p);
    LLVMTypeRef ps[2] = {ft, ft};
    LLVMValueRef as[2] = {LLVMBuildExtractValue(L->b, x, 0, ""), LLVMBuildExtractValue(L->b, x, 1, "")};
    return lower_rt(L, p->kind == TY_FLOAT32 ? "hypotf" : "hypot", ft, ps, 2, as);
}

typedef struct Ew Ew;
typedef LLVMValueRef (*EwFn)(Lower *L, Ew *c, LLVMValueRef *x);

/* One elementwise function: nin inputs converted to ct, result rdt (or
 * and-ed into acc when reducing). */
struct Ew {
    Node *n;
    int nin;
    Type *ct, *rdt, *dts[2];
    EwFn fn;
    LLVMValueRef acc;      /* reduce: an i1 slot */
    LLVMValueRef extra[4]; /* the function's other arguments, evaluated once */
};

static void ew_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    Ew *c = vctx;
    LLVMValueRef x[2];
    for (int i = 0; i < c->nin; i++)
        x[i] = lower_convert(L, np_at(L), np_load(L, p[i], c->dts[i]), c->dts[i], c->ct);
    LLVMValueRef r = c->fn(L, c, x);
    if (c->acc)
        LLVMBuildStore(L->b, LLVMBuildAnd(L->b, lower_load(L, L->t_i1, c->acc, ""), r, ""), c->acc);
    else
        np_store(L, p[c->nin], r, c->rdt);
}

/* Run c over the broadcast operands: a new C array of type rty (or a
 * scalar when rty is not an array), or with reduce the and of all. */
static LLVMValueRef ew_run(Lower *L, Ew *c, NpaOpnd *o, Type *rty, bool reduce, bool *owned) {
    int rnd = 0;
    for (int i = 0; i < c->nin; i++) {
        c->dts[i] = o[i].dt;
        if (o[i].nd > rnd)
            rnd = o[i].nd;
    }
    LLVMValueRef dims[MAXD], str[NP_MAX_OPS][MAXD], base[NP_MAX_OPS];
    npa_bcast(L, o, c->nin, rnd, dims, str, "ValueError");
    for (int i = 0; i < c->nin; i++)
        base[i] = o[i].data;
    if (reduce) {
        c->acc = lower_alloca(L, L->t_i1, "all");
        LLVMBuildStore(L->b, i1(L, 1), c->acc);
        np_nest(L, rnd, dims, c->nin, base, str, ew_cb, c);
        return lower_load(L, L->t_i1, c->acc, "all");
    }
    c->rdt = rty->kind == TY_ARRAY ? rty->dtype : rty;
    if (rty->kind != TY_ARRAY) {
        LLVMValueRef slot = lower_alloca(L, lower_mem_type(L, c->rdt), "res");
        base[c->nin] = slot;
        np_nest(L, 0, dims, c->nin + 1, base, str, ew_cb, c);
        return np_load(L, slot, c->rdt);
    }
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    np_dims(L, out, rnd, NULL, str[c->nin]);
    base[c->nin] = data_of(L, out);
    np_nest(L, rnd, dims, c->nin + 1, base, str, ew_cb, c);
    return np_give(L, out, rty, owned);
}

/* NumPy's isclose: |x - y| <= atol + rtol * |y| where y is finite, or x == y,
 * or (equal_nan) both NaN. */
static LLVMValueRef close_fn(Lower *L, Ew *c, LLVMValueRef *x) {
    Type *t = c->ct;
    LLVMValueRef d = np_arith(L, '-', t, x[0], x[1]);
    LLVMValueRef tol = LLVMBuildFAdd(L->b, c->extra[1], LLVMBuildFMul(L->b, c->extra[0], abs_v(L, t, x[1]), ""), "");
    LLVMValueRef r = LLVMBuildFCmp(L->b, LLVMRealOLE, abs_v(L, t, d), tol, "");
    r = LLVMBuildAnd(L->b, r, isfin_v(L, t, x[1]), "");
    r = LLVMBuildOr(L->b, r, lower_cmp(L, c->n, OP_EQ, t, x[0], x[1]), "");
    LLVMValueRef nn = LLVMBuildAnd(L->b, isnan_v(L, t, x[0]), isnan_v(L, t, x[1]), "");
    return LLVMBuildOr(L->b, r, LLVMBuildAnd(L->b, c->extra[2], nn, ""), "close");
}

static LLVMValueRef equal_fn(Lower *L, Ew *c, LLVMValueRef *x) {
    Type *t = c->ct;
    LLVMValueRef r = lower_cmp(L, c->n, OP_EQ, t, x[0], x[1]);
    LLVMValueRef nn = LLVMBuildAnd(L->b, isnan_v(L, t, x[0]), isnan_v(L, t, x[1]), "");
    return LLVMBuildOr(L->b, r, LLVMBuildAnd(L->b, c->extra[0], nn, ""), "eq");
}

static LLVMValueRef close_call(Lower *L, Node *n, bool *owned) {
    BuiltinId id = n->builtin;
    NpaOpnd o[2];
    if (!npa_opnd(L, np_arg(n, 0), &o[0]) || !npa_opnd(L, np_arg(n, 1), &o[1]))
        return NULL;
    Ew c = {.n = n, .nin = 2, .ct = n->op_ty};
    if (id == BI_NPA_ARRAY_EQUAL) {
        c.fn = equal_fn;
        c.extra[0] = i1(L, 0);
        if (np_arg(n, 2) && !(c.extra[0] = lower_expr_use(L, np_arg(n, 2))))
            return NULL;
        if (o[0].nd != o[1].nd)
            return i1(L, 0);
        /* equal shapes, then every element equal */
        LLVMValueRef same = i1(L, 1);
        for (int d = 0; d < o[0].nd; d++)
            same = LLVMBuildAnd(L->b, same, np_ieq(L, o[0].sh[d], o[1].sh[d]), "");
        LLVMValueRef res = lower_alloca(L, L->t_i1, "equal");
        LLVMBuildStore(L->b, i1(L, 0), res);
        LLVMBasicBlockRef run = lower_block(L, "equal.run"), done = lower_block(L, "equal.done");
        LLVMBuildCondBr(L->b, same, run, done);
        lower_at(L, run);
        LLVMBuildStore(L->b, ew_run(L, &c, o, n->ty, true, owned), res);
        LLVMBuildBr(L->b, done);
        lower_at(L, done);
        return lower_load(L, L->t_i1, res, "");
    }
    Type *p = part_of(L, c.ct), *f64 = ty_scalar(L->c->tc, TY_FLOAT64);
    double defs[2] = {1e-05, 1e-08};
    for (int i = 0; i < 2; i++) {
        Node *e = np_arg(n, 2 + i);
        LLVMValueRef v = e ? lower_expr_use(L, e) : fconst(L, f64, defs[i]);
        if (!v)
            return NULL;
        c.extra[i] = lower_convert(L, n, v, f64, p);
    }
    c.extra[2] = i1(L, 0);
    if (np_arg(n, 4) && !(c.extra[2] = lower_expr_use(L, np_arg(n, 4))))
        return NULL;
    c.fn = close_fn;
    return ew_run(L, &c, o, n->ty, id == BI_NPA_ALLCLOSE, owned);
}

/* ---- unary elementwise functions ---- */

static LLVMValueRef pred_fn(Lower *L, Ew *c, LLVMValueRef *x) {
    Type *t = c->ct;
    switch (c->n->builtin) {
    case BI_NPA_ISCOMPLEX: case BI_NPA_ISREAL: {
        if (!ty_is_complex(t))
            return i1(L, c->n->builtin == BI_NPA_ISREAL);
        LLVMValueRef im = LLVMBuildExtractValue(L->b, x[0], 1, "");
        return LLVMBuildFCmp(L->b, c->n->builtin == BI_NPA_ISREAL ? LLVMRealOEQ : LLVMRealUNE, im,
                             fconst(L, part_of(L, t), 0.0), "");
    }
    case BI_NPA_ISNEGINF: case BI_NPA_ISPOSINF:
        if (!ty_is_float(t))
            return i1(L, 0);
        return LLVMBuildFCmp(L->b, LLVMRealOEQ, x[0],
                             fconst(L, t, c->n->builtin == BI_NPA_ISPOSINF ? INFINITY : -INFINITY), "");
    default: return NULL;
    }
}

/* NumPy's sinc: y = pi * (x == 0 ? 1e-20 : x); sin(y) / y. */
static LLVMValueRef sinc_fn(Lower *L, Ew *c, LLVMValueRef *x) {
    Type *t = c->ct;
    LLVMValueRef z = LLVMBuildFCmp(L->b, LLVMRealOEQ, x[0], fconst(L, t, 0.0), "");
    LLVMValueRef y = LLVMBuildFMul(L->b, fconst(L, t, M_PI), np_sel(L, z, fconst(L, t, 1.0e-20), x[0]), "");
    LLVMTypeRef ty = lower_type(L, t);
    LLVMValueRef s = lower_intrinsic(L, "llvm.sin", &ty, 1, &y, 1);
    return LLVMBuildFDiv(L->b, s, y, "sinc");
}

/* nan_to_num of one real: NaN, +inf and -inf replaced (extra[0..2] in t). */
static LLVMValueRef fix_real(Lower *L, Ew *c, Type *t, LLVMValueRef x) {
    LLVMValueRef r = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""), c->extra[0], x);
    r = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOEQ, x, fconst(L, t, INFINITY), ""), c->extra[1], r);
    return np_sel(L, LLVMBuildFCmp(L->b, LLVMRealOEQ, x, fconst(L, t, -INFINITY), ""), c->extra[2], r);
}

static LLVMValueRef nan_to_num_fn(Lower *L, Ew *c, LLVMValueRef *x) {
    Type *t = c->ct;
    if (ty_is_float(t))
        return fix_real(L, c, t, x[0]);
    if (!ty_is_complex(t))
        return x[0];
    Type *p = part_of(L, t);
    LLVMValueRef re = fix_real(L, c, p, LLVMBuildExtractValue(L->b, x[0], 0, ""));
    LLVMValueRef im = fix_real(L, c, p, LLVMBuildExtractValue(L->b, x[0], 1, ""));
    return LLVMBuildInsertValue(L->b, LLVMBuildInsertValue(L->b, x[0], re, 0, ""), im, 1, "");
}

static LLVMValueRef unary_call(Lower *L, Node *n, bool *owned) {
    NpaOpnd o;
    if (!npa_opnd(L, np_arg(n, 0), &o))
        return NULL;
    Ew c = {.n = n, .nin = 1, .ct = o.dt, .fn = pred_fn};
    if (n->builtin == BI_NPA_SINC) {
        c.ct = n->ty->kind == TY_ARRAY ? n->ty->dtype : n->ty;
        c.fn = sinc_fn;
    } else if (n->builtin == BI_NPA_NAN_TO_NUM) {
        c.fn = nan_to_num_fn;
        Type *p = part_of(L, o.dt), *f64 = ty_scalar(L->c->tc, TY_FLOAT64);
        if (ty_is_float(p)) {
            double big = p->kind == TY_FLOAT32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
            double defs[3] = {0.0, big, -big};
            for (int i = 0; i < 3; i++) {
                Node *e = np_arg(n, 2 + i);
                LLVMValueRef v = e ? lower_expr_use(L, e) : fconst(L, f64, defs[i]);
                if (!v)
                    return NULL;
                c.extra[i] = lower_convert(L, n, v, f64, p);
            }
        }
    }
    return ew_run(L, &c, &o, n->ty, false, owned);
}

/* ---- views ---- */

static LLVMValueRef lt64(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildICmp(L->b, LLVMIntSLT, a, b, ""); }

/* Flip axis `ax` (runtime) of the view parts when `on`. */
static void flip_axis(Lower *L, int nd, LLVMValueRef *sh, LLVMValueRef *st, LLVMValueRef *data, LLVMValueRef ax,
                      LLVMValueRef on) {
    for (int d = 0; d < nd; d++) {
        LLVMValueRef f = LLVMBuildAnd(L->b, on, np_ieq(L, ax, lower_i64(L, d)), "");
        f = LLVMBuildAnd(L->b, f, LLVMBuildICmp(L->b, LLVMIntSGT, sh[d], lower_i64(L, 0), ""), "");
        LLVMValueRef off = np_mul(L, LLVMBuildSub(L->b, sh[d], lower_i64(L, 1), ""), st[d]);
        *data = np_offset(L, *data, np_sel(L, f, off, lower_i64(L, 0)));
        st[d] = np_sel(L, f, LLVMBuildNeg(L->b, st[d], ""), st[d]);
    }
}

/* Swap axes a1 and a2 (runtime) of the view parts when `on`. */
static void swap_axes(Lower *L, int nd, LLVMValueRef *sh, LLVMValueRef *st, LLVMValueRef a1, LLVMValueRef a2,
                      LLVMValueRef on) {
    LLVMValueRef rsh[MAXD], rst[MAXD];
    LLVMValueRef s1 = np_pick(L, sh, nd, a1), s2 = np_pick(L, sh, nd, a2);
    LLVMValueRef t1 = np_pick(L, st, nd, a1), t2 = np_pick(L, st, nd, a2);
    for (int d = 0; d < nd; d++) {
        LLVMValueRef dv = lower_i64(L, d);
        LLVMValueRef is1 = LLVMBuildAnd(L->b, on, np_ieq(L, dv, a1), ""), is2 = LLVMBuildAnd(L->b, on, np_ieq(L, dv, a2), "");
        rsh[d] = np_sel(L, is1, s2, np_sel(L, is2, s1, sh[d]));
        rst[d] = np_sel(L, is1, t2, np_sel(L, is2, t1, st[d]));
    }
    for (int d = 0; d < nd; d++) {
        sh[d] = rsh[d];
        st[d] = rst[d];
    }
}

static LLVMValueRef view_call(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    int nd = aty->ndim;
    LLVMValueRef sh[MAXD], st[MAXD];
    np_dims(L, arr, nd, sh, st);
    LLVMValueRef data = data_of(L, arr);
    Type *rty = n->ty;
    switch (n->builtin) {
    case BI_NPA_SWAPAXES: {
        LLVMValueRef a1 = int_arg(L, np_arg(n, 1)), a2 = a1 ? int_arg(L, np_arg(n, 2)) : NULL;
        if (!a2)
            return NULL;
        swap_axes(L, nd, sh, st, np_axis(L, a1, nd), np_axis(L, a2, nd), i1(L, 1));
        break;
    }
    case BI_NPA_MOVEAXIS: {
        LLVMValueRef src = int_arg(L, np_arg(n, 1)), dst = src ? int_arg(L, np_arg(n, 2)) : NULL;
        if (!dst)
            return NULL;
        src = np_axis(L, src, nd);
        dst = np_axis(L, dst, nd);
        /* result axis d: src at dst, the other axes in order around it */
        LLVMValueRef rsh[MAXD], rst[MAXD];
        for (int d = 0; d < nd; d++) {
            LLVMValueRef dv = lower_i64(L, d);
            LLVMValueRef k = np_sel(L, lt64(L, dv, dst), dv, LLVMBuildSub(L->b, dv, lower_i64(L, 1), ""));
            LLVMValueRef s = np_sel(L, lt64(L, k, src), k, LLVMBuildAdd(L->b, k, lower_i64(L, 1), ""));
            LLVMValueRef p = np_sel(L, np_ieq(L, dv, dst), src, s);
            rsh[d] = np_pick(L, sh, nd, p);
            rst[d] = np_pick(L, st, nd, p);
        }
        *owned = true;
        return np_view(L, arr, rty, data, rsh, rst);
    }
    case BI_NPA_ATLEAST_1D: case BI_NPA_ATLEAST_2D: case BI_NPA_ATLEAST_3D: {
        int want = rty->ndim;
        if (nd >= want)
            break;
        /* the new axes have length 1: (N,) -> (1, N) or (1, N, 1), (M, N) -> (M, N, 1) */
        LLVMValueRef rsh[MAXD], rst[MAXD];
        int lead = (nd == 0) ? want : 1;
        if (want == 2 && nd == 1)
            lead = 1;
        for (int d = 0; d < want; d++) {
            int j = d - (nd == 2 ? 0 : lead);
            if (nd > 0 && j >= 0 && j < nd) {
                rsh[d] = sh[j];
                rst[d] = st[j];
            } else {
                rsh[d] = NULL;
            }
        }
        LLVMValueRef acc = lower_i64(L, ty_itemsize(aty->dtype));
        for (int d = want - 1; d >= 0; d--) {
            if (!rsh[d]) {
                rsh[d] = lower_i64(L, 1);
                rst[d] = acc;
            } else {
                acc = np_mul(L, rsh[d], rst[d]);
            }
        }
        *owned = true;
        return np_view(L, arr, rty, data, rsh, rst);
    }
    case BI_NPA_FLIPLR: case BI_NPA_FLIPUD:
        flip_axis(L, nd, sh, st, &data, lower_i64(L, n->builtin == BI_NPA_FLIPLR ? 1 : 0), i1(L, 1));
        break;
    case BI_NPA_ROT90: {
        LLVMValueRef k = np_arg(n, 1) ? int_arg(L, np_arg(n, 1)) : lower_i64(L, 1);
        if (!k)
            return NULL;
        LLVMValueRef a0 = lower_i64(L, 0), a1 = lower_i64(L, 1);
        if (np_arg(n, 2)) {
            Node *ax = np_arg(n, 2);
            LLVMValueRef t = lower_expr_use(L, ax);
            if (!t)
                return NULL;
            a0 = LLVMBuildExtractValue(L->b, t, 0, "");
            a1 = LLVMBuildExtractValue(L->b, t, 1, "");
            LLVMValueRef df = LLVMBuildSub(L->b, a0, a1, "");
            LLVMValueRef adf = np_sel(L, lt64(L, df, lower_i64(L, 0)), LLVMBuildNeg(L->b, df, ""), df);
            lower_raise_if(L, LLVMBuildOr(L->b, np_ieq(L, a0, a1), np_ieq(L, adf, lower_i64(L, nd)), ""), "ValueError",
                           "Axes must be different.");
            LLVMValueRef lo = lower_i64(L, -nd), hi = lower_i64(L, nd), out = i1(L, 0);
            for (int i = 0; i < 2; i++) {
                LLVMValueRef a = i ? a1 : a0;
                out = LLVMBuildOr(L->b, out, LLVMBuildOr(L->b, lt64(L, a, lo), LLVMBuildICmp(L->b, LLVMIntSGE, a, hi, ""), ""),
                                  "");
            }
            lower_raise_if(L, out, "ValueError", "Axes out of range.");
            a0 = np_axis(L, a0, nd);
            a1 = np_axis(L, a1, nd);
        }
        LLVMValueRef four = lower_i64(L, 4);
        LLVMValueRef km = LLVMBuildSRem(L->b, LLVMBuildAdd(L->b, LLVMBuildSRem(L->b, k, four, ""), four, ""), four, "");
        LLVMValueRef k1 = np_ieq(L, km, lower_i64(L, 1)), k2 = np_ieq(L, km, lower_i64(L, 2)),
                     k3 = np_ieq(L, km, lower_i64(L, 3));
        /* k=1: flip axes[1], then swap; k=2: flip both; k=3: flip axes[0], then swap */
        flip_axis(L, nd, sh, st, &data, a0, LLVMBuildOr(L->b, k2, k3, ""));
        flip_axis(L, nd, sh, st, &data, a1, LLVMBuildOr(L->b, k1, k2, ""));
        swap_axes(L, nd, sh, st, a0, a1, LLVMBuildOr(L->b, k1, k3, ""));
        break;
    }
    case BI_NPA_BROADCAST_TO: {
        Node *se = np_arg(n, 1);
        LLVMValueRef sv = lower_expr_use(L, se);
        if (!sv)
            return NULL;
        int k = rty->ndim;
        LLVMValueRef want[MAXD], rst[MAXD], neg = i1(L, 0), bad = i1(L, 0);
        for (int d = 0; d < k; d++) {
            want[d] = se->ty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, sv, (unsigned)d, "") : sv;
            neg = LLVMBuildOr(L->b, neg, lt64(L, want[d], lower_i64(L, 0)), "");
            int j = d - (k - nd);
            if (j < 0) {
                rst[d] = lower_i64(L, 0);
                continue;
            }
            LLVMValueRef same = np_ieq(L, sh[j], want[d]), is1 = np_ieq(L, sh[j], lower_i64(L, 1));
            bad = LLVMBuildOr(L->b, bad, LLVMBuildAnd(L->b, LLVMBuildNot(L->b, same, ""), LLVMBuildNot(L->b, is1, ""), ""), "");
            rst[d] = np_sel(L, same, st[j], lower_i64(L, 0));
        }
        lower_raise_if(L, neg, "ValueError", "all elements of broadcast shape must be non-negative");
        lower_raise_if(L, bad, "ValueError", "operands could not be broadcast together with remapped shapes");
        *owned = true;
        return np_view(L, arr, rty, data, want, rst);
    }
    default: return lower_fail(L, n, HJ_DIAG_LOWERING, "%s(): not a view", builtin_name(n->builtin));
    }
    *owned = true;
    return np_view(L, arr, rty, data, sh, st);
}

/* ---- ascontiguousarray, asfortranarray, atleast_nd of a number ---- */

static LLVMValueRef contiguous(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty, *rty = n->ty;
    LLVMValueRef v = lower_expr_use(L, an);
    if (!v)
        return NULL;
    *owned = true;
    int rnd = rty->ndim;
    if (aty->kind != TY_ARRAY) { /* a number: a new array of one element */
        LLVMValueRef dims[MAXD];
        for (int d = 0; d < rnd; d++)
            dims[d] = lower_i64(L, 1);
        LLVMValueRef out = np_alloc(L, rty, dims, false);
        np_store(L, data_of(L, out), lower_convert(L, an, v, aty, rty->dtype), rty->dtype);
        return out;
    }
    LLVMValueRef sh[MAXD], st[MAXD], dst[MAXD];
    np_dims(L, v, aty->ndim, sh, st);
    if (aty->ndim == 0) {
        sh[0] = lower_i64(L, 1);
        st[0] = lower_i64(L, 0);
    } else if (aty->dtype == rty->dtype && aty->layout == rty->layout) {
        return np_view(L, v, rty, data_of(L, v), sh, st); /* already so: the same data */
    }
    LLVMValueRef out = np_alloc(L, rty, sh, false);
    np_dims(L, out, rnd, NULL, dst);
    np_copy_nd(L, rnd, sh, data_of(L, v), st, aty->dtype, data_of(L, out), dst, rty->dtype);
    return out;
}

/* a.item(): the one element of a size-1 array; a.item(i): element i in
 * C order (negative from the end). */
static LLVMValueRef item(Lower *L, Node *n) {
    Node *an = np_arg(n, 0), *in = np_arg(n, 1);
    Type *aty = an->ty;
    LLVMValueRef v = lower_expr_use(L, an);
    LLVMValueRef i = v && in ? int_arg(L, in) : NULL;
    if (!v || (in && !i))
        return NULL;
    LLVMValueRef size = aty->ndim ? lower_array_field(L, v, ARR_NITEMS, "") : lower_i64(L, 1);
    if (!in) {
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, size, lower_i64(L, 1), ""), "ValueError",
                       "can only convert an array of size 1 to a Python scalar");
        return np_load(L, data_of(L, v), aty->dtype);
    }
    LLVMValueRef j = np_sel(L, lt64(L, i, lower_i64(L, 0)), LLVMBuildAdd(L->b, i, size, ""), i);
    LLVMValueRef bad = LLVMBuildOr(L->b, lt64(L, j, lower_i64(L, 0)), LLVMBuildICmp(L->b, LLVMIntSGE, j, size, ""), "");
    lower_raise_if(L, bad, "IndexError", "index out of bounds");
    /* unravel j over the shape, C order */
    LLVMValueRef sh[MAXD], st[MAXD], off = lower_i64(L, 0), rest = j;
    np_dims(L, v, aty->ndim, sh, st);
    for (int d = aty->ndim - 1; d >= 0; d--) {
        LLVMValueRef safe = np_sel(L, np_ieq(L, sh[d], lower_i64(L, 0)), lower_i64(L, 1), sh[d]);
        off = LLVMBuildAdd(L->b, off, np_mul(L, LLVMBuildSRem(L->b, rest, safe, ""), st[d]), "");
        rest = LLVMBuildSDiv(L->b, rest, safe, "");
    }
    return np_load(L, np_offset(L, data_of(L, v), off), aty->dtype);
}

/* ---- as_strided, sliding_window_view, broadcast_arrays/shapes, asarray_chkfinite ---- */

static void tuple_ints(Lower *L, Node *e, LLVMValueRef v, int k, LLVMValueRef *out) {
    for (int d = 0; d < k; d++)
        out[d] = e->ty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, v, (unsigned)d, "") : v;
}

static LLVMValueRef strided(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty, *rty = n->ty;
    int nd = aty->ndim, rnd = rty->ndim;
    LLVMValueRef a = lower_expr_use(L, an);
    if (!a)
        return NULL;
    LLVMValueRef rsh[MAXD], rst[MAXD];
    if (n->builtin == BI_NPA_AS_STRIDED) { /* NumPy trusts the caller here too */
        np_dims(L, a, nd, rsh, rst); /* x's own where None */
        for (int i = 1; i < 3; i++) {
            Node *e = np_arg(n, i);
            LLVMValueRef v = e ? lower_expr_use(L, e) : NULL;
            if (e && !v)
                return NULL;
            if (e)
                tuple_ints(L, e, v, rnd, i == 1 ? rsh : rst);
        }
        *owned = true;
        return np_view(L, a, rty, data_of(L, a), rsh, rst);
    }
    LLVMValueRef sv = lower_expr_use(L, np_arg(n, 1));
    if (!sv)
        return NULL;
    int k = rnd - nd;
    LLVMValueRef w[MAXD], ax[MAXD];
    tuple_ints(L, np_arg(n, 1), sv, k, w);
    if (np_arg(n, 2)) {
        LLVMValueRef av = lower_expr_use(L, np_arg(n, 2));
        if (!av)
            return NULL;
        tuple_ints(L, np_arg(n, 2), av, k, ax);
        for (int i = 0; i < k; i++)
            ax[i] = np_axis(L, ax[i], nd);
    } else {
        for (int i = 0; i < k; i++)
            ax[i] = lower_i64(L, i);
    }
    LLVMValueRef sh[MAXD], st[MAXD], neg = i1(L, 0);
    np_dims(L, a, nd, sh, st);
    for (int i = 0; i < k; i++) {
        neg = LLVMBuildOr(L->b, neg, lt64(L, w[i], lower_i64(L, 0)), "");
        rsh[nd + i] = w[i];
        rst[nd + i] = np_pick(L, st, nd, ax[i]);
    }
    lower_raise_if(L, neg, "ValueError", "`window_shape` cannot contain negative values");
    LLVMValueRef big = i1(L, 0);
    for (int d = 0; d < nd; d++) {
        LLVMValueRef t = sh[d];
        for (int i = 0; i < k; i++) {
            LLVMValueRef on = np_ieq(L, ax[i], lower_i64(L, d));
            big = LLVMBuildOr(L->b, big, LLVMBuildAnd(L->b, on, lt64(L, t, w[i]), ""), "");
            t = np_sel(L, on, LLVMBuildSub(L->b, t, LLVMBuildSub(L->b, w[i], lower_i64(L, 1), ""), ""), t);
        }
        rsh[d] = t;
        rst[d] = st[d];
    }
    lower_raise_if(L, big, "ValueError", "window shape cannot be larger than input array shape");
    *owned = true;
    return np_view(L, a, rty, data_of(L, a), rsh, rst);
}

static LLVMValueRef broadcast(Lower *L, Node *n, bool *owned) {
    Type *tt = n->ty;
    int k = 0;
    while (k < n->args.len && np_arg(n, k))
        k++;
    NpaOpnd o[NPA_MAX_OPNDS];
    int rnd = 0;
    for (int i = 0; i < k; i++) {
        Node *e = np_arg(n, i);
        if (n->builtin == BI_NPA_BROADCAST_ARRAYS) {
            if (!npa_opnd(L, e, &o[i]))
                return NULL;
        } else {
            LLVMValueRef v = lower_expr_use(L, e);
            if (!v)
                return NULL;
            o[i].nd = e->ty->kind == TY_TUPLE ? e->ty->nelems : 1;
            tuple_ints(L, e, v, o[i].nd, o[i].sh);
            for (int d = 0; d < o[i].nd; d++)
                o[i].st[d] = lower_i64(L, 0);
        }
        if (o[i].nd > rnd)
            rnd = o[i].nd;
    }
    LLVMValueRef dims[MAXD], str[NPA_MAX_OPNDS][MAXD];
    npa_bcast(L, o, k, rnd, dims, str, "ValueError");
    LLVMValueRef r = LLVMGetUndef(lower_type(L, tt));
    for (int i = 0; i < (n->builtin == BI_NPA_BROADCAST_ARRAYS ? k : rnd); i++) {
        LLVMValueRef x = n->builtin == BI_NPA_BROADCAST_ARRAYS ? np_view(L, o[i].v, tt->elems[i], o[i].data, dims, str[i])
                                                               : dims[i];
        r = LLVMBuildInsertValue(L->b, r, x, (unsigned)i, "");
    }
    *owned = n->builtin == BI_NPA_BROADCAST_ARRAYS;
    return r;
}

typedef struct FinCtx {
    Type *dt;
    LLVMValueRef ok;
} FinCtx;

static void fin_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    FinCtx *c = vctx;
    LLVMValueRef f = isfin_v(L, c->dt, np_load(L, p[0], c->dt));
    LLVMBuildStore(L->b, LLVMBuildAnd(L->b, lower_load(L, L->t_i1, c->ok, ""), f, ""), c->ok);
}

static LLVMValueRef chkfinite(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty, *rty = n->ty;
    NpaOpnd o;
    if (!npa_opnd(L, an, &o))
        return NULL;
    FinCtx c = {o.dt, lower_alloca(L, L->t_i1, "finite")};
    LLVMBuildStore(L->b, i1(L, 1), c.ok);
    LLVMValueRef str[NP_MAX_OPS][MAXD];
    for (int d = 0; d < o.nd; d++)
        str[0][d] = o.st[d];
    np_nest(L, o.nd, o.sh, 1, &o.data, str, fin_cb, &c);
    lower_raise_if(L, LLVMBuildNot(L->b, lower_load(L, L->t_i1, c.ok, ""), ""), "ValueError",
                   "array must not contain infs or NaNs");
    *owned = true;
    if (rty == aty)
        return np_view(L, o.v, rty, o.data, o.sh, o.st);
    return np_copy_c(L, o.v, aty, rty);
}

/* a.view(dtype): the same bytes; another itemsize rescales the last axis,
 * which must then be contiguous with a divisible length in bytes. */
static LLVMValueRef view_as(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty, *rty = n->ty;
    int nd = aty->ndim;
    LLVMValueRef a = lower_expr_use(L, an);
    if (!a)
        return NULL;
    LLVMValueRef sh[MAXD], st[MAXD];
    np_dims(L, a, nd, sh, st);
    int64_t oi = ty_itemsize(aty->dtype), ni = ty_itemsize(rty->dtype);
    if (oi != ni) {
        LLVMValueRef bytes = np_mul(L, sh[nd - 1], lower_i64(L, oi));
        LLVMValueRef bad = LLVMBuildICmp(L->b, LLVMIntNE, st[nd - 1], lower_i64(L, oi), "");
        bad = LLVMBuildAnd(L->b, bad, LLVMBuildICmp(L->b, LLVMIntSGT, sh[nd - 1], lower_i64(L, 1), ""), "");
        lower_raise_if(L, bad, "ValueError",
                       "To change to a dtype of a different size, the last axis must be contiguous");
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildSRem(L->b, bytes, lower_i64(L, ni), ""), lower_i64(L, 0), ""),
                       "ValueError",
                       "When changing to a larger dtype, its size must be a divisor of the total size in bytes of the "
                       "last axis of the array.");
        sh[nd - 1] = LLVMBuildSDiv(L->b, bytes, lower_i64(L, ni), "");
        st[nd - 1] = lower_i64(L, ni);
    }
    *owned = true;
    return np_view(L, a, rty, data_of(L, a), sh, st);
}

/* a.tobytes(): a copy of the elements in C order, then seen as the bytes
 * buffer it is (the copy's meminfo passes to the result). */
static LLVMValueRef tobytes(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty;
    LLVMValueRef a = lower_expr_use(L, an);
    if (!a)
        return NULL;
    if (aty->ndim > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "tobytes() of too many dimensions");
    int nd = aty->ndim ? aty->ndim : 1; /* a 0-d array: its one element */
    LLVMValueRef sh[MAXD], st[MAXD], dst[MAXD];
    if (aty->ndim) {
        np_dims(L, a, nd, sh, st);
    } else {
        sh[0] = lower_i64(L, 1);
        st[0] = lower_i64(L, 0);
    }
    LLVMValueRef c = np_alloc(L, ty_array(L->c->tc, aty->dtype, nd, LAYOUT_C), sh, false);
    np_dims(L, c, nd, NULL, dst);
    np_copy_nd(L, nd, sh, data_of(L, a), st, aty->dtype, data_of(L, c), dst, aty->dtype);
    LLVMValueRef nb = np_mul(L, lower_array_field(L, c, ARR_NITEMS, ""), lower_i64(L, ty_itemsize(aty->dtype)));
    LLVMValueRef one = lower_i64(L, 1);
    *owned = true;
    return np_make(L, n->ty, lower_array_field(L, c, ARR_MEMINFO, ""), LLVMConstNull(L->t_ptr), data_of(L, c), &nb,
                   &one);
}

/* np.frombuffer(buffer, dtype, count, offset): the buffer's bytes from
 * `offset` as `count` items (all that fit when negative), NumPy's checks. */
static LLVMValueRef frombuffer(Lower *L, Node *n, bool *owned) {
    Node *bn = np_arg(n, 0), *cn = np_arg(n, 2), *on = np_arg(n, 3);
    Type *bty = bn->ty;
    LLVMValueRef b = lower_expr_use(L, bn);
    LLVMValueRef count = b && cn ? int_arg(L, cn) : lower_i64(L, -1);
    LLVMValueRef off = b && on ? int_arg(L, on) : lower_i64(L, 0);
    if (!b || !count || !off)
        return NULL;
    LLVMValueRef nitems = bty->ndim ? lower_array_field(L, b, ARR_NITEMS, "") : lower_i64(L, 1);
    LLVMValueRef nbytes = np_mul(L, nitems, lower_i64(L, ty_itemsize(bty->dtype)));
    LLVMValueRef isz = lower_i64(L, ty_itemsize(n->ty->dtype)), zero = lower_i64(L, 0);
    lower_raise_if(L, LLVMBuildOr(L->b, lt64(L, off, zero), LLVMBuildICmp(L->b, LLVMIntSGT, off, nbytes, ""), ""),
                   "ValueError", "offset must be non-negative and no greater than buffer length");
    LLVMValueRef avail = LLVMBuildSub(L->b, nbytes, off, "");
    LLVMValueRef all = lt64(L, count, zero);
    lower_raise_if(L, LLVMBuildAnd(L->b, all, LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildSRem(L->b, avail, isz, ""), zero, ""), ""),
                   "ValueError", "buffer size must be a multiple of element size");
    lower_raise_if(L, LLVMBuildAnd(L->b, LLVMBuildNot(L->b, all, ""),
                                   LLVMBuildICmp(L->b, LLVMIntSGT, np_mul(L, count, isz), avail, ""), ""),
                   "ValueError", "buffer is smaller than requested size");
    LLVMValueRef len = np_sel(L, all, LLVMBuildSDiv(L->b, avail, isz, ""), count);
    /* NumPy would make an unaligned array; compiled code loads items at
     * their alignment, so such an offset is refused */
    Type *dt = n->ty->dtype;
    int64_t align = ty_is_complex(dt) ? ty_itemsize(dt) / 2 : ty_itemsize(dt);
    LLVMValueRef data = np_offset(L, data_of(L, b), off);
    LLVMValueRef mis = LLVMBuildAnd(L->b, LLVMBuildPtrToInt(L->b, data, L->t_i64, ""), lower_i64(L, align - 1), "");
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, mis, zero, ""), "ValueError",
                   "frombuffer(): hpcjit needs the data at offset aligned to the dtype's size");
    *owned = true;
    return np_view(L, b, n->ty, data, &len, &isz);
}

/* $flat_view(a, i): a.flat[i]'s element (C order, negative from the end,
 * IndexError outside) as a one-element view of a. */
static LLVMValueRef flat_view(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty;
    int nd = aty->ndim;
    if (nd > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "a.flat of too many dimensions");
    LLVMValueRef a = lower_expr_use(L, an);
    LLVMValueRef i = a ? int_arg(L, np_arg(n, 1)) : NULL;
    if (!a || !i)
        return NULL;
    LLVMValueRef size = nd ? lower_array_field(L, a, ARR_NITEMS, "") : lower_i64(L, 1);
    LLVMValueRef j = np_sel(L, lt64(L, i, lower_i64(L, 0)), LLVMBuildAdd(L->b, i, size, ""), i);
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntUGE, j, size, ""), "IndexError", "index out of bounds for a.flat");
    LLVMValueRef sh[MAXD], st[MAXD], off = lower_i64(L, 0);
    np_dims(L, a, nd, sh, st);
    for (int d = nd - 1; d >= 0; d--) { /* the C-order multi-index of j */
        LLVMValueRef q = d ? LLVMBuildUDiv(L->b, j, sh[d], "") : lower_i64(L, 0);
        LLVMValueRef r = d ? LLVMBuildSub(L->b, j, np_mul(L, q, sh[d]), "") : j;
        off = LLVMBuildAdd(L->b, off, np_mul(L, r, st[d]), "");
        j = q;
    }
    LLVMValueRef one = lower_i64(L, 1), isz = lower_i64(L, ty_itemsize(aty->dtype));
    *owned = true;
    return np_view(L, a, n->ty, np_offset(L, data_of(L, a), off), &one, &isz);
}

/* $unpack(a, k): `x, y = a` checks that a's first axis has k items (the
 * ValueError of CPython's unpacking otherwise) and gives them as a tuple
 * (numbers, or views of the rows, owned by the tuple). */
static LLVMValueRef unpack(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    int k = (int)np_arg(n, 1)->cval.i;
    LLVMValueRef a = lower_expr_use(L, an);
    if (!a)
        return NULL;
    LLVMValueRef len = lower_array_dim(L, a, ARR_SHAPE, 0), kk = lower_i64(L, k);
    char more[96], fewer[96];
    snprintf(more, sizeof more, "too many values to unpack (expected %d)", k);
    snprintf(fewer, sizeof fewer, "not enough values to unpack (expected %d)", k);
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSGT, len, kk, ""), "ValueError", more);
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, len, kk, ""), "ValueError", fewer);
    Type *tt = n->ty, *item = tt->elems[0];
    bool refs = lower_has_refs(item);
    LLVMValueRef r = LLVMGetUndef(lower_type(L, tt));
    for (int i = 0; i < k; i++) {
        Type *ety = NULL;
        bool o = false;
        LLVMValueRef x = lower_array_item(L, n, a, an->ty, lower_i64(L, i), &ety, &o);
        if (!x)
            return NULL;
        x = lower_convert(L, n, x, ety, item);
        if (refs && !o)
            lower_incref(L, x, item);
        r = LLVMBuildInsertValue(L->b, r, x, (unsigned)i, "");
    }
    *owned = refs;
    return r;
}

/* $nditer_view(a, i, shape, fortran): the 0-d view of a's element at flat
 * index i of `shape` (a broadcast shape: a's axes align to its last ones,
 * an axis of length 1 repeats), i counted in C order, or in F order. */
static LLVMValueRef nditer_view(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *shn = np_arg(n, 2);
    Type *aty = an->ty;
    int nd = aty->ndim, k = shn->ty->kind == TY_TUPLE ? shn->ty->nelems : 1;
    bool fortran = np_arg(n, 3)->cval.i != 0;
    if (k > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "nditer() of too many dimensions");
    LLVMValueRef a = lower_expr_use(L, an);
    LLVMValueRef j = a ? int_arg(L, np_arg(n, 1)) : NULL;
    LLVMValueRef shv = j ? lower_expr_use(L, shn) : NULL;
    if (!shv)
        return NULL;
    LLVMValueRef sh[MAXD], st[MAXD], dims[MAXD], off = lower_i64(L, 0), zero = lower_i64(L, 0);
    np_dims(L, a, nd, sh, st);
    for (int d = 0; d < k; d++)
        dims[d] = shn->ty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, shv, (unsigned)d, "") : shv;
    for (int s = 0; s < k; s++) {
        int d = fortran ? s : k - 1 - s; /* the fastest axis first */
        LLVMValueRef q = LLVMBuildUDiv(L->b, j, dims[d], "");
        LLVMValueRef r = LLVMBuildSub(L->b, j, np_mul(L, q, dims[d]), "");
        int ad = d - (k - nd);
        if (ad >= 0) /* broadcast axes of length 1 stay at 0 */
            off = LLVMBuildAdd(L->b, off, np_sel(L, np_ieq(L, sh[ad], lower_i64(L, 1)), zero, np_mul(L, r, st[ad])), "");
        j = q;
    }
    *owned = true;
    return np_view(L, a, n->ty, np_offset(L, data_of(L, a), off), NULL, NULL);
}

LLVMValueRef lower_nparray_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    switch (n->builtin) {
    case BI_NPA_ISCLOSE: case BI_NPA_ALLCLOSE: case BI_NPA_ARRAY_EQUAL: return close_call(L, n, owned);
    case BI_NPA_ISCOMPLEX: case BI_NPA_ISREAL: case BI_NPA_ISNEGINF: case BI_NPA_ISPOSINF: case BI_NPA_SINC:
    case BI_NPA_NAN_TO_NUM:
        return unary_call(L, n, owned);
    case BI_NPA_ARRAY_ITEM: return item(L, n);
    case BI_NPA_ARRAY_VIEW: return view_as(L, n, owned);
    case BI_NPA_ARRAY_TOBYTES: return tobytes(L, n, owned);
    case BI_NPA_FROMBUFFER: return frombuffer(L, n, owned);
    case BI_NPA_FLAT_VIEW: return flat_view(L, n, owned);
    case BI_NPA_UNPACK: return unpack(L, n, owned);
    case BI_NPA_NDITER_VIEW: return nditer_view(L, n, owned);
    case BI_NPA_AS_STRIDED: case BI_NPA_SLIDING_WINDOW_VIEW: return strided(L, n, owned);
    case BI_NPA_BROADCAST_ARRAYS: case BI_NPA_BROADCAST_SHAPES: return broadcast(L, n, owned);
    case BI_NPA_ASARRAY_CHKFINITE: return chkfinite(L, n, owned);
    case BI_NPA_ISIN: case BI_NPA_INTERSECT1D: case BI_NPA_UNION1D: case BI_NPA_SETDIFF1D: case BI_NPA_SETXOR1D:
        return lower_nparray_set(L, n, owned);
    case BI_NPA_BARTLETT: case BI_NPA_BLACKMAN: case BI_NPA_HAMMING: case BI_NPA_HANNING: case BI_NPA_KAISER:
    case BI_NPA_LOGSPACE: case BI_NPA_GEOMSPACE: case BI_NPA_TRAPEZOID: case BI_NPA_CROSS: case BI_NPA_CONVOLVE:
    case BI_NPA_CORRELATE: case BI_NPA_UNWRAP: case BI_NPA_MODF: case BI_NPA_FREXP: case BI_NPA_PARTITION:
    case BI_NPA_ARGPARTITION: case BI_NPA_ROOTS:
        return lower_nparray_num(L, n, owned);
    case BI_NPA_ASCONTIGUOUSARRAY: case BI_NPA_ASFORTRANARRAY: return contiguous(L, n, owned);
    case BI_NPA_SWAPAXES: case BI_NPA_MOVEAXIS: case BI_NPA_ATLEAST_1D: case BI_NPA_ATLEAST_2D:
    case BI_NPA_ATLEAST_3D: case BI_NPA_FLIPLR: case BI_NPA_FLIPUD: case BI_NPA_ROT90: case BI_NPA_BROADCAST_TO: {
        Node *an = np_arg(n, 0);
        if (an->ty->kind != TY_ARRAY) /* atleast_nd of a number */
            return contiguous(L, n, owned);
        if (an->ty->ndim > HJ_MAX_NDIM_LOWER || n->ty->ndim > HJ_MAX_NDIM_LOWER)
            return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() of too many dimensions", builtin_name(n->builtin));
        LLVMValueRef arr = lower_expr_use(L, an);
        if (!arr)
            return NULL;
        return view_call(L, n, arr, an->ty, owned);
    }
    default: return lower_nparray_make(L, n, owned);
    }
}
