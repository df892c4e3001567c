/* lower_shape.c - NumPy shape functions (reshape, ravel, transpose,
 * squeeze, expand_dims, concatenate, stack, repeat, tile, roll, flip,
 * diff) and creation functions (full, eye, linspace, array, astype,
 * fill).  Views share the source's meminfo (one more reference) and keep
 * its parent; new arrays are C-contiguous.  Tree shapes: infer_np.c. */
#include "lower_np.h"
#include "np.h"

#include <string.h>

#define MAXD (HJ_MAX_NDIM_LOWER + 2)

static LLVMValueRef int_arg(Lower *L, Node *e) {
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? lower_as_i64(L, e, v, e->ty) : NULL;
}

/* The ints of an int or tuple node into out; returns how many. */
static int int_list(Lower *L, Node *e, LLVMValueRef *out) {
    LLVMValueRef v = lower_expr_use(L, e);
    if (!v)
        return -1;
    if (e->ty->kind != TY_TUPLE) {
        out[0] = lower_as_i64(L, e, v, e->ty);
        return 1;
    }
    for (int i = 0; i < e->ty->nelems; i++)
        out[i] = lower_as_i64(L, e, LLVMBuildExtractValue(L->b, v, (unsigned)i, ""), e->ty->elems[i]);
    return e->ty->nelems;
}

static LLVMValueRef data_of(Lower *L, LLVMValueRef arr) { return lower_array_field(L, arr, ARR_DATA, "data"); }

/* C strides of dims for items of isz bytes. */
static void c_strides(Lower *L, int nd, LLVMValueRef *dims, int64_t isz, LLVMValueRef *st) {
    LLVMValueRef acc = lower_i64(L, isz);
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = acc;
        acc = np_mul(L, acc, dims[d]);
    }
}

/* A C-contiguous version of arr: the value itself (borrowed) when its type
 * is C, else a copy registered as a temporary. */
static LLVMValueRef as_c(Lower *L, LLVMValueRef arr, Type *aty) {
    if (aty->layout == LAYOUT_C || aty->ndim == 0)
        return arr;
    Type *cty = ty_array(L->c->tc, aty->dtype, aty->ndim, LAYOUT_C);
    LLVMValueRef c = np_copy_c(L, arr, aty, cty);
    lower_temp(L, c, cty, true);
    return c;
}

/* ---- reshape, ravel, flatten ---- */

static LLVMValueRef reshape(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    Type *rty = n->ty;
    int k = rty->ndim;
    LLVMValueRef dims[MAXD];
    int got = 0;
    for (int i = 1; i < n->args.len; i++) {
        int m = int_list(L, VEC_AT(n->args, i), dims + got);
        if (m < 0)
            return NULL;
        got += m;
    }
    if (got != k)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "reshape: shape does not match the result type");
    LLVMValueRef size = lower_array_field(L, arr, ARR_NITEMS, "");
    LLVMValueRef known = lower_i64(L, 1), nunk = lower_i64(L, 0), bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < k; d++) {
        LLVMValueRef unk = np_ieq(L, dims[d], lower_i64(L, -1));
        nunk = LLVMBuildAdd(L->b, nunk, LLVMBuildZExt(L->b, unk, L->t_i64, ""), "");
        bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntSLT, dims[d], lower_i64(L, -1), ""), "");
        known = np_sel(L, unk, known, np_mul(L, known, dims[d]));
    }
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSGT, nunk, lower_i64(L, 1), ""), "ValueError",
                   "can only specify one unknown dimension");
    lower_raise_if(L, bad, "ValueError", "negative dimensions not allowed");
    LLVMValueRef has = LLVMBuildICmp(L->b, LLVMIntEQ, nunk, lower_i64(L, 1), "");
    LLVMValueRef kz = np_ieq(L, known, lower_i64(L, 0));
    LLVMValueRef safe = np_sel(L, kz, lower_i64(L, 1), known);
    LLVMValueRef fill = LLVMBuildSDiv(L->b, size, safe, "");
    LLVMValueRef ok_unk = LLVMBuildAnd(L->b, LLVMBuildNot(L->b, kz, ""),
                                       np_ieq(L, LLVMBuildSRem(L->b, size, safe, ""), lower_i64(L, 0)), "");
    LLVMValueRef ok = np_sel(L, has, ok_unk, np_ieq(L, known, size));
    lower_raise_if(L, LLVMBuildNot(L->b, ok, ""), "ValueError", "cannot reshape array into the requested shape");
    for (int d = 0; d < k; d++)
        dims[d] = np_sel(L, np_ieq(L, dims[d], lower_i64(L, -1)), fill, dims[d]);
    LLVMValueRef st[MAXD];
    c_strides(L, k, dims, ty_itemsize(rty->dtype), st);
    *owned = true;
    if (aty->layout == LAYOUT_C || aty->ndim == 0)
        return np_view(L, arr, rty, data_of(L, arr), dims, st);
    /* not C-contiguous by type: a C copy, whose reference the result takes */
    Type *cty = ty_array(L->c->tc, aty->dtype, aty->ndim, LAYOUT_C);
    LLVMValueRef c = np_copy_c(L, arr, aty, cty);
    return np_make(L, rty, lower_array_field(L, c, ARR_MEMINFO, ""), LLVMConstNull(L->t_ptr), data_of(L, c), dims, st);
}

static LLVMValueRef ravel(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    Type *rty = n->ty;
    LLVMValueRef size = aty->ndim ? lower_array_field(L, arr, ARR_NITEMS, "") : lower_i64(L, 1);
    LLVMValueRef st = lower_i64(L, ty_itemsize(rty->dtype));
    *owned = true;
    if (n->builtin == BI_NP_RAVEL && (aty->layout == LAYOUT_C || aty->ndim == 0))
        return np_view(L, arr, rty, data_of(L, arr), &size, &st);
    Type *cty = ty_array(L->c->tc, aty->dtype, aty->ndim, LAYOUT_C);
    LLVMValueRef c = np_copy_c(L, arr, aty, cty);
    return np_make(L, rty, lower_array_field(L, c, ARR_MEMINFO, ""), LLVMConstNull(L->t_ptr), data_of(L, c), &size, &st);
}

/* ---- views: transpose, squeeze, expand_dims, flip ---- */

static LLVMValueRef view_fn(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    int nd = aty->ndim;
    LLVMValueRef sh[MAXD], st[MAXD], rsh[MAXD], rst[MAXD];
    np_dims(L, arr, nd, sh, st);
    LLVMValueRef data = data_of(L, arr);
    Node *ax = np_arg(n, 1);
    switch (n->builtin) {
    case BI_NP_TRANSPOSE: {
        if (!ax) {
            for (int d = 0; d < nd; d++) {
                rsh[d] = sh[nd - 1 - d];
                rst[d] = st[nd - 1 - d];
            }
            break;
        }
        /* axes: result axis d is source axis axes[d]; each axis once */
        LLVMValueRef perm[MAXD];
        if (int_list(L, ax, perm) != nd)
            return lower_fail(L, ax, HJ_DIAG_LOWERING, "transpose(): axes don't match array");
        LLVMValueRef seen = lower_i64(L, 0);
        for (int d = 0; d < nd; d++) {
            perm[d] = np_axis(L, perm[d], nd);
            seen = LLVMBuildOr(L->b, seen, LLVMBuildShl(L->b, lower_i64(L, 1), perm[d], ""), "");
            rsh[d] = np_pick(L, sh, nd, perm[d]);
            rst[d] = np_pick(L, st, nd, perm[d]);
        }
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, seen, lower_i64(L, ((int64_t)1 << nd) - 1), ""),
                       "ValueError", "repeated axis in transpose");
        break;
    }
    case BI_NP_SQUEEZE: {
        if (nd == 0) {
            *owned = true;
            return np_view(L, arr, n->ty, data, sh, st);
        }
        LLVMValueRef a = int_arg(L, ax);
        if (!a)
            return NULL;
        a = np_axis(L, a, nd);
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, np_pick(L, sh, nd, a), lower_i64(L, 1), ""), "ValueError",
                       "cannot select an axis to squeeze out which has size not equal to one");
        np_drop(L, sh, nd, a, rsh);
        np_drop(L, st, nd, a, rst);
        break;
    }
    case BI_NP_EXPAND_DIMS: {
        LLVMValueRef a = int_arg(L, ax);
        if (!a)
            return NULL;
        a = np_axis(L, a, nd + 1);
        LLVMValueRef one = lower_i64(L, 1), isz = lower_i64(L, ty_itemsize(aty->dtype));
        for (int j = 0; j <= nd; j++) {
            LLVMValueRef jv = lower_i64(L, j);
            LLVMValueRef lt = LLVMBuildICmp(L->b, LLVMIntSLT, jv, a, ""), eq = np_ieq(L, jv, a);
            LLVMValueRef s_lo = j < nd ? sh[j] : one, t_lo = j < nd ? st[j] : isz;
            LLVMValueRef s_hi = j > 0 ? sh[j - 1] : one, t_hi = j > 0 ? st[j - 1] : isz;
            rsh[j] = np_sel(L, eq, one, np_sel(L, lt, s_lo, s_hi));
            rst[j] = np_sel(L, eq, isz, np_sel(L, lt, t_lo, t_hi));
        }
        break;
    }
    case BI_NP_FLIP: {
        LLVMValueRef a = NULL;
        if (ax) {
            if (!(a = int_arg(L, ax)))
                return NULL;
            a = np_axis(L, a, nd);
        }
        for (int d = 0; d < nd; d++) {
            LLVMValueRef on = a ? np_ieq(L, a, lower_i64(L, d)) : LLVMConstInt(L->t_i1, 1, 0);
            on = LLVMBuildAnd(L->b, on, LLVMBuildICmp(L->b, LLVMIntSGT, sh[d], lower_i64(L, 0), ""), "");
            LLVMValueRef off = np_mul(L, LLVMBuildSub(L->b, sh[d], lower_i64(L, 1), ""), st[d]);
            data = np_offset(L, data, np_sel(L, on, off, lower_i64(L, 0)));
            rsh[d] = sh[d];
            rst[d] = np_sel(L, on, LLVMBuildNeg(L->b, st[d], ""), st[d]);
        }
        break;
    }
    default: return lower_fail(L, n, HJ_DIAG_LOWERING, "not a view function");
    }
    *owned = true;
    return np_view(L, arr, n->ty, data, rsh, rst);
}

/* ---- joining: concatenate, stack, vstack, hstack ---- */

static LLVMValueRef join(Lower *L, Node *n, bool *owned) {
    Node *tn = np_arg(n, 0);
    Type *tt = tn->ty, *rty = n->ty;
    int cnt = tt->nelems, nd = tt->elems[0]->ndim;
    BuiltinId b = n->builtin;
    bool stack = b == BI_NP_STACK || (b == BI_NP_VSTACK && nd == 1);
    LLVMValueRef tv = lower_expr_use(L, tn);
    if (!tv)
        return NULL;
    LLVMValueRef a;
    int rnd = rty->ndim;
    if (b == BI_NP_VSTACK)
        a = lower_i64(L, 0);
    else if (b == BI_NP_HSTACK)
        a = lower_i64(L, nd == 1 ? 0 : 1);
    else if (np_arg(n, 1)) {
        if (!(a = int_arg(L, np_arg(n, 1))))
            return NULL;
    } else
        a = lower_i64(L, 0);
    a = np_axis(L, a, rnd);
    LLVMValueRef sh0[MAXD], shi[MAXD], sti[MAXD];
    LLVMValueRef arr0 = LLVMBuildExtractValue(L->b, tv, 0, "");
    np_dims(L, arr0, nd, sh0, NULL);
    LLVMValueRef total = lower_i64(L, 0);
    for (int i = 0; i < cnt; i++) {
        LLVMValueRef ai = LLVMBuildExtractValue(L->b, tv, (unsigned)i, "");
        np_dims(L, ai, nd, shi, NULL);
        LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
        for (int d = 0; d < nd; d++) {
            LLVMValueRef ne = LLVMBuildICmp(L->b, LLVMIntNE, shi[d], sh0[d], "");
            if (!stack)
                ne = LLVMBuildAnd(L->b, ne, LLVMBuildICmp(L->b, LLVMIntNE, a, lower_i64(L, d), ""), "");
            bad = LLVMBuildOr(L->b, bad, ne, "");
        }
        lower_raise_if(L, bad, "ValueError",
                       stack ? "all input arrays must have the same shape"
                             : "all the input array dimensions except for the concatenation axis must match exactly");
        total = LLVMBuildAdd(L->b, total, stack ? lower_i64(L, 1) : np_pick(L, shi, nd, a), "");
    }
    LLVMValueRef rdims[MAXD];
    for (int j = 0; j < rnd; j++) {
        LLVMValueRef jv = lower_i64(L, j);
        LLVMValueRef eq = np_ieq(L, jv, a);
        LLVMValueRef other;
        if (stack)
            other = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, jv, a, ""), j < nd ? sh0[j] : lower_i64(L, 0),
                           j > 0 ? sh0[j - 1] : lower_i64(L, 0));
        else
            other = sh0[j];
        rdims[j] = np_sel(L, eq, total, other);
    }
    LLVMValueRef out = np_alloc(L, rty, rdims, false);
    LLVMValueRef ost[MAXD], dst[MAXD];
    np_dims(L, out, rnd, NULL, ost);
    LLVMValueRef oax = np_pick(L, ost, rnd, a);
    if (stack)
        np_drop(L, ost, rnd, a, dst);
    else
        for (int d = 0; d < rnd; d++)
            dst[d] = ost[d];
    LLVMValueRef pos = lower_i64(L, 0);
    LLVMValueRef odata = data_of(L, out);
    for (int i = 0; i < cnt; i++) {
        Type *ety = tt->elems[i];
        LLVMValueRef ai = LLVMBuildExtractValue(L->b, tv, (unsigned)i, "");
        np_dims(L, ai, nd, shi, sti);
        np_copy_nd(L, nd, shi, data_of(L, ai), sti, ety->dtype, np_offset(L, odata, np_mul(L, pos, oax)), dst,
                   rty->dtype);
        pos = LLVMBuildAdd(L->b, pos, stack ? lower_i64(L, 1) : np_pick(L, shi, nd, a), "");
    }
    *owned = true;
    return out;
}

/* ---- repeat, tile, roll, diff ---- */

static LLVMValueRef repeat(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    Type *rty = n->ty;
    int nd = aty->ndim;
    LLVMValueRef r = int_arg(L, np_arg(n, 1));
    if (!r)
        return NULL;
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, r, lower_i64(L, 0), ""), "ValueError",
                   "negative dimensions are not allowed");
    LLVMValueRef sh[MAXD], st[MAXD], dims[MAXD], ss[MAXD], ds[MAXD], ost[MAXD];
    np_dims(L, arr, nd, sh, st);
    if (!np_arg(n, 2) || nd == 0) {
        /* flattened: (shape..., r) in C order into a 1-D result */
        if (np_arg(n, 2)) {
            LLVMValueRef a = int_arg(L, np_arg(n, 2));
            if (!a)
                return NULL;
            np_axis(L, a, 1);
        }
        LLVMValueRef total = np_mul(L, nd ? lower_array_field(L, arr, ARR_NITEMS, "") : lower_i64(L, 1), r);
        LLVMValueRef out = np_alloc(L, rty, &total, false);
        for (int d = 0; d < nd; d++) {
            dims[d] = sh[d];
            ss[d] = st[d];
        }
        dims[nd] = r;
        ss[nd] = lower_i64(L, 0);
        c_strides(L, nd + 1, dims, ty_itemsize(rty->dtype), ds);
        np_copy_nd(L, nd + 1, dims, data_of(L, arr), ss, aty->dtype, data_of(L, out), ds, rty->dtype);
        *owned = true;
        return out;
    }
    LLVMValueRef a = int_arg(L, np_arg(n, 2));
    if (!a)
        return NULL;
    a = np_axis(L, a, nd);
    for (int d = 0; d < nd; d++)
        dims[d] = np_sel(L, np_ieq(L, a, lower_i64(L, d)), np_mul(L, sh[d], r), sh[d]);
    LLVMValueRef out = np_alloc(L, rty, dims, false);
    np_dims(L, out, nd, NULL, ost);
    LLVMValueRef oax = np_pick(L, ost, nd, a);
    for (int d = 0; d < nd; d++) {
        dims[d] = sh[d];
        ss[d] = st[d];
        ds[d] = np_sel(L, np_ieq(L, a, lower_i64(L, d)), np_mul(L, ost[d], r), ost[d]);
    }
    dims[nd] = r;
    ss[nd] = lower_i64(L, 0);
    ds[nd] = oax;
    np_copy_nd(L, nd + 1, dims, data_of(L, arr), ss, aty->dtype, data_of(L, out), ds, rty->dtype);
    *owned = true;
    return out;
}

static LLVMValueRef tile(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    Type *rty = n->ty;
    int nd = aty->ndim, d = rty->ndim;
    LLVMValueRef reps[MAXD], sh[MAXD], st[MAXD];
    int k = int_list(L, np_arg(n, 1), reps);
    if (k < 0)
        return NULL;
    np_dims(L, arr, nd, sh, st);
    LLVMValueRef ash[MAXD], ast[MAXD], rp[MAXD], odims[MAXD];
    for (int i = 0; i < d; i++) {
        int ia = i - (d - nd), ir = i - (d - k);
        ash[i] = ia >= 0 ? sh[ia] : lower_i64(L, 1);
        ast[i] = ia >= 0 ? st[ia] : lower_i64(L, 0);
        rp[i] = ir >= 0 ? reps[ir] : lower_i64(L, 1);
        odims[i] = np_mul(L, ash[i], rp[i]);
    }
    LLVMValueRef out = np_alloc(L, rty, odims, false);
    LLVMValueRef ost[MAXD];
    np_dims(L, out, d, NULL, ost);
    /* iterate (rep_i, a_i) pairs: out index rep_i * ash[i] + a_i */
    LLVMValueRef dims[2 * HJ_MAX_NDIM_LOWER + 2], ss[2 * HJ_MAX_NDIM_LOWER + 2], ds[2 * HJ_MAX_NDIM_LOWER + 2];
    if (2 * d > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "tile() of too many dimensions");
    for (int i = 0; i < d; i++) {
        dims[2 * i] = rp[i];
        ss[2 * i] = lower_i64(L, 0);
        ds[2 * i] = np_mul(L, ash[i], ost[i]);
        dims[2 * i + 1] = ash[i];
        ss[2 * i + 1] = ast[i];
        ds[2 * i + 1] = ost[i];
    }
    np_copy_nd(L, 2 * d, dims, data_of(L, arr), ss, aty->dtype, data_of(L, out), ds, rty->dtype);
    *owned = true;
    return out;
}

static LLVMValueRef roll(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    Type *rty = n->ty;
    int nd = aty->ndim;
    LLVMValueRef shift = int_arg(L, np_arg(n, 1));
    if (!shift)
        return NULL;
    LLVMValueRef sh[MAXD], st[MAXD], ost[MAXD];
    np_dims(L, arr, nd, sh, st);
    LLVMValueRef src = arr, a = NULL;
    int wnd = nd; /* the view rolled: 1-D over a C copy when flattened */
    if (np_arg(n, 2) && nd > 0) {
        if (!(a = int_arg(L, np_arg(n, 2))))
            return NULL;
        a = np_axis(L, a, nd);
    } else {
        src = as_c(L, arr, aty);
        sh[0] = nd ? lower_array_field(L, arr, ARR_NITEMS, "") : lower_i64(L, 1);
        st[0] = lower_i64(L, ty_itemsize(aty->dtype));
        a = lower_i64(L, 0);
        wnd = 1;
    }
    LLVMValueRef odims[MAXD];
    np_dims(L, arr, nd, odims, NULL);
    LLVMValueRef out = np_alloc(L, rty, odims, false);
    if (wnd == 1 && !np_arg(n, 2))
        ost[0] = lower_i64(L, ty_itemsize(rty->dtype));
    else
        np_dims(L, out, nd, NULL, ost);
    LLVMValueRef len = np_pick(L, sh, wnd, a);
    LLVMValueRef safe = np_sel(L, np_ieq(L, len, lower_i64(L, 0)), lower_i64(L, 1), len);
    LLVMValueRef s = LLVMBuildSRem(L->b, shift, safe, "");
    s = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, s, lower_i64(L, 0), ""), LLVMBuildAdd(L->b, s, safe, ""), s);
    s = np_sel(L, np_ieq(L, len, lower_i64(L, 0)), lower_i64(L, 0), s);
    LLVMValueRef sax = np_pick(L, st, wnd, a), oax = np_pick(L, ost, wnd, a);
    LLVMValueRef dims[MAXD];
    LLVMValueRef sdata = data_of(L, src), odata = data_of(L, out);
    LLVMValueRef rest = LLVMBuildSub(L->b, len, s, "");
    /* out[s:] = src[:len-s]; out[:s] = src[len-s:] along the axis */
    for (int d = 0; d < wnd; d++)
        dims[d] = np_sel(L, np_ieq(L, a, lower_i64(L, d)), rest, sh[d]);
    np_copy_nd(L, wnd, dims, sdata, st, aty->dtype, np_offset(L, odata, np_mul(L, s, oax)), ost, rty->dtype);
    for (int d = 0; d < wnd; d++)
        dims[d] = np_sel(L, np_ieq(L, a, lower_i64(L, d)), s, sh[d]);
    np_copy_nd(L, wnd, dims, np_offset(L, sdata, np_mul(L, rest, sax)), st, aty->dtype, odata, ost, rty->dtype);
    *owned = true;
    return out;
}

typedef struct DiffCtx {
    Type *dt;
    LLVMValueRef m, s; /* pairs along the axis, stride */
} DiffCtx;

static void diff_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    DiffCtx *c = vctx;
    NpLoop lp;
    np_loop_begin(L, &lp, c->m);
    LLVMValueRef p0 = np_offset(L, p[0], np_mul(L, lp.i, c->s));
    LLVMValueRef p1 = np_offset(L, p0, c->s);
    LLVMValueRef x1 = np_load(L, p1, c->dt), x0 = np_load(L, p0, c->dt), v;
    if (ty_is_npdt(c->dt)) /* datetimes (then timedeltas) as i64 counts of the unit; NaT stays NaT */
        v = LLVMBuildSelect(L->b, LLVMBuildOr(L->b, lower_dt_isnat(L, x1), lower_dt_isnat(L, x0), ""),
                            LLVMConstInt(L->t_i64, (unsigned long long)TY_NAT, 1), LLVMBuildSub(L->b, x1, x0, ""), "");
    else
        v = np_arith(L, '-', c->dt, x1, x0);
    np_store(L, p0, v, c->dt);
    np_loop_end(L, &lp);
}

/* diff: a C copy differenced n times in place along the axis, then the
 * leading len - n slices copied out. */
static LLVMValueRef diff(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    Type *rty = n->ty, *dt = aty->dtype;
    int nd = aty->ndim;
    LLVMValueRef order = np_arg(n, 1) ? int_arg(L, np_arg(n, 1)) : lower_i64(L, 1);
    LLVMValueRef a = np_arg(n, 2) ? int_arg(L, np_arg(n, 2)) : lower_i64(L, -1);
    if (!order || !a)
        return NULL;
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, order, lower_i64(L, 0), ""), "ValueError",
                   "order must be non-negative");
    if (dt->kind == TY_DATETIME) /* NumPy gives the datetimes back; the result here is typed timedelta64 */
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, order, lower_i64(L, 0), ""), "ValueError",
                       "np.diff(a, n=0) of datetime64 values is not supported by hpcjit (n >= 1 gives timedelta64)");
    a = np_axis(L, a, nd);
    Type *cty = ty_array(L->c->tc, dt, nd, LAYOUT_C);
    LLVMValueRef tmp = np_copy_c(L, arr, aty, cty);
    lower_temp(L, tmp, cty, true);
    LLVMValueRef sh[MAXD], strides[NP_MAX_OPS][MAXD], outer[MAXD], tst[MAXD];
    np_dims(L, tmp, nd, sh, tst);
    LLVMValueRef len = np_pick(L, sh, nd, a), s = np_pick(L, tst, nd, a);
    np_drop(L, sh, nd, a, outer);
    np_drop(L, tst, nd, a, strides[0]);
    LLVMValueRef k = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSGT, order, len, ""), len, order);
    LLVMValueRef base = data_of(L, tmp);
    NpLoop lp;
    np_loop_begin(L, &lp, k);
    DiffCtx c = {dt, LLVMBuildSub(L->b, LLVMBuildSub(L->b, len, lp.i, ""), lower_i64(L, 1), ""), s};
    np_nest(L, nd - 1, outer, 1, &base, strides, diff_cb, &c);
    np_loop_end(L, &lp);
    LLVMValueRef odims[MAXD], ost[MAXD];
    for (int d = 0; d < nd; d++)
        odims[d] = np_sel(L, np_ieq(L, a, lower_i64(L, d)), LLVMBuildSub(L->b, len, k, ""), sh[d]);
    LLVMValueRef out = np_alloc(L, rty, odims, false);
    np_dims(L, out, nd, NULL, ost);
    /* datetime64 in, timedelta64 of the same unit out: the same i64 counts */
    np_copy_nd(L, nd, odims, base, tst, dt, data_of(L, out), ost, ty_is_npdt(dt) ? dt : rty->dtype);
    *owned = true;
    return out;
}

/* ---- creation ---- */

typedef struct FillCtx {
    Type *dt;
    LLVMValueRef v;
} FillCtx;

/* np.triu / np.tril: a C-order copy whose elements below (triu) or above
 * (tril) the k-th diagonal of the last two axes are zero; one flat loop,
 * the element kept or zeroed by a select (vectorizable). */
static LLVMValueRef tri(Lower *L, Node *n, LLVMValueRef arr, Type *aty, bool *owned) {
    LLVMValueRef k = np_arg(n, 1) ? int_arg(L, np_arg(n, 1)) : lower_i64(L, 0);
    if (!k)
        return NULL;
    Type *dt = aty->dtype;
    int nd = aty->ndim;
    LLVMValueRef out = np_copy_c(L, arr, aty, n->ty);
    LLVMValueRef sh[MAXD];
    np_dims(L, out, nd, sh, NULL);
    LLVMValueRef rows = sh[nd - 2], cols = sh[nd - 1], data = data_of(L, out);
    NpLoop lp;
    np_loop_begin(L, &lp, lower_array_field(L, out, ARR_NITEMS, "n"));
    LLVMValueRef j = LLVMBuildSRem(L->b, lp.i, cols, "j");
    LLVMValueRef i = LLVMBuildSRem(L->b, LLVMBuildSDiv(L->b, lp.i, cols, ""), rows, "i");
    LLVMValueRef d = LLVMBuildSub(L->b, j, i, "");
    LLVMValueRef zero = LLVMBuildICmp(L->b, n->builtin == BI_NP_TRIU ? LLVMIntSLT : LLVMIntSGT, d, k, "");
    LLVMValueRef p = np_offset(L, data, np_mul(L, lp.i, lower_i64(L, ty_itemsize(dt))));
    np_store(L, p, np_sel(L, zero, lower_zero(L, dt), np_load(L, p, dt)), dt);
    np_loop_end(L, &lp);
    *owned = true;
    return out;
}

static void fill_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    FillCtx *c = vctx;
    np_store(L, p[0], c->v, c->dt);
}

static void fill_all(Lower *L, LLVMValueRef arr, Type *aty, LLVMValueRef v) {
    LLVMValueRef sh[MAXD], strides[NP_MAX_OPS][MAXD];
    np_dims(L, arr, aty->ndim, sh, strides[0]);
    LLVMValueRef base = data_of(L, arr);
    FillCtx c = {aty->dtype, v};
    np_nest(L, aty->ndim, sh, 1, &base, strides, fill_cb, &c);
}

static LLVMValueRef full(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty;
    LLVMValueRef dims[MAXD];
    Node *v = np_arg(n, 1);
    if (n->builtin == BI_NP_FULL) {
        if (int_list(L, np_arg(n, 0), dims) < 0)
            return NULL;
    } else {
        Node *src = np_arg(n, 0);
        LLVMValueRef s = lower_expr_use(L, src);
        if (!s)
            return NULL;
        np_dims(L, s, rty->ndim, dims, NULL);
    }
    LLVMValueRef x = lower_expr_use(L, v);
    if (!x)
        return NULL;
    x = lower_convert(L, v, x, v->ty, rty->dtype);
    LLVMValueRef out = np_alloc(L, rty, dims, false);
    fill_all(L, out, rty, x);
    *owned = true;
    return out;
}

static LLVMValueRef eye(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty;
    LLVMValueRef N = int_arg(L, np_arg(n, 0));
    if (!N)
        return NULL;
    LLVMValueRef M = N, k = lower_i64(L, 0);
    if (n->builtin == BI_NP_EYE) {
        if (np_arg(n, 1) && !(M = int_arg(L, np_arg(n, 1))))
            return NULL;
        if (np_arg(n, 2) && !(k = int_arg(L, np_arg(n, 2))))
            return NULL;
    }
    LLVMValueRef dims[2] = {N, M};
    LLVMValueRef out = np_alloc(L, rty, dims, true);
    LLVMValueRef data = data_of(L, out);
    NpLoop lp;
    np_loop_begin(L, &lp, N);
    LLVMValueRef j = LLVMBuildAdd(L->b, lp.i, k, "");
    LLVMValueRef in = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, j, lower_i64(L, 0), ""),
                                   LLVMBuildICmp(L->b, LLVMIntSLT, j, M, ""), "");
    LLVMBasicBlockRef set = lower_block(L, "eye.set"), next = lower_block(L, "eye.next");
    LLVMBuildCondBr(L->b, in, set, next);
    lower_at(L, set);
    LLVMValueRef off = np_mul(L, LLVMBuildAdd(L->b, np_mul(L, lp.i, M), j, ""), lower_i64(L, ty_itemsize(rty->dtype)));
    np_store(L, np_offset(L, data, off), np_one(L, rty->dtype), rty->dtype);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    np_loop_end(L, &lp);
    *owned = true;
    return out;
}

/* linspace as NumPy computes it: start + i * step, the last set to stop. */
static LLVMValueRef linspace(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty, *dt = rty->dtype;
    Node *a0 = np_arg(n, 0), *a1 = np_arg(n, 1);
    LLVMValueRef start = lower_expr_use(L, a0), stop = lower_expr_use(L, a1);
    LLVMValueRef num = np_arg(n, 2) ? int_arg(L, np_arg(n, 2)) : lower_i64(L, 50);
    LLVMValueRef endpoint = LLVMConstInt(L->t_i1, 1, 0);
    if (np_arg(n, 3) && !(endpoint = lower_expr_use(L, np_arg(n, 3))))
        return NULL;
    if (!start || !stop || !num)
        return NULL;
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, num, lower_i64(L, 0), ""), "ValueError",
                   "Number of samples must be non-negative.");
    LLVMValueRef div = np_sel(L, endpoint, LLVMBuildSub(L->b, num, lower_i64(L, 1), ""), num);
    Type *pt = ty_is_complex(dt) ? ty_scalar(L->c->tc, TY_FLOAT64) : dt;
    LLVMValueRef divf = LLVMBuildSIToFP(L->b, div, lower_type(L, pt), "");
    LLVMValueRef delta = np_arith(L, '-', dt, stop, start);
    LLVMValueRef step;
    if (ty_is_complex(dt))
        step = LLVMBuildInsertValue(L->b, LLVMBuildInsertValue(L->b, delta, LLVMBuildFDiv(L->b, LLVMBuildExtractValue(L->b, delta, 0, ""), divf, ""), 0, ""),
                                    LLVMBuildFDiv(L->b, LLVMBuildExtractValue(L->b, delta, 1, ""), divf, ""), 1, "");
    else
        step = LLVMBuildFDiv(L->b, delta, divf, "step");
    LLVMValueRef out = np_alloc(L, rty, &num, false);
    LLVMValueRef data = data_of(L, out);
    LLVMValueRef isz = lower_i64(L, ty_itemsize(dt));
    LLVMValueRef divpos = LLVMBuildICmp(L->b, LLVMIntSGT, div, lower_i64(L, 0), "");
    NpLoop lp;
    np_loop_begin(L, &lp, num);
    LLVMValueRef fi = lower_convert(L, np_at(L), LLVMBuildSIToFP(L->b, lp.i, L->t_f64, ""), ty_scalar(L->c->tc, TY_FLOAT64), dt);
    /* div == 0 (num 1 with endpoint): i * delta */
    LLVMValueRef y = np_sel(L, divpos, np_arith(L, '*', dt, fi, step), np_arith(L, '*', dt, fi, delta));
    y = np_arith(L, '+', dt, y, start);
    np_store(L, np_offset(L, data, np_mul(L, lp.i, isz)), y, dt);
    np_loop_end(L, &lp);
    LLVMValueRef last = LLVMBuildAnd(L->b, endpoint, LLVMBuildICmp(L->b, LLVMIntSGT, num, lower_i64(L, 1), ""), "");
    LLVMBasicBlockRef set = lower_block(L, "lin.last"), done = lower_block(L, "lin.done");
    LLVMBuildCondBr(L->b, last, set, done);
    lower_at(L, set);
    np_store(L, np_offset(L, data, np_mul(L, LLVMBuildSub(L->b, num, lower_i64(L, 1), ""), isz)), stop, dt);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    *owned = true;
    return out;
}

/* Store the numbers of a nested tuple value in C order. */
static void store_nested(Lower *L, LLVMValueRef v, Type *t, Type *dt, LLVMValueRef data, int64_t *k) {
    if (t->kind != TY_TUPLE) {
        np_store(L, np_offset(L, data, lower_i64(L, *k * ty_itemsize(dt))), lower_convert(L, np_at(L), v, t, dt), dt);
        (*k)++;
        return;
    }
    for (int i = 0; i < t->nelems; i++)
        store_nested(L, LLVMBuildExtractValue(L->b, v, (unsigned)i, ""), t->elems[i], dt, data, k);
}

static LLVMValueRef np_array(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty;
    Node *o = np_arg(n, 0);
    LLVMValueRef v = lower_expr_use(L, o);
    if (!v)
        return NULL;
    *owned = true;
    if (o->ty->kind == TY_ARRAY && n->builtin == BI_NP_ASARRAY && o->ty->dtype == rty->dtype) {
        /* np.asarray of an array of that dtype: the same data, no copy */
        LLVMValueRef sh[MAXD], st[MAXD];
        np_dims(L, v, rty->ndim, sh, st);
        return np_view(L, v, rty, data_of(L, v), sh, st);
    }
    if (o->ty->kind == TY_ARRAY)
        return np_copy_c(L, v, o->ty, rty);
    LLVMValueRef dims[MAXD];
    Type *t = o->ty;
    for (int d = 0; d < rty->ndim; d++) {
        dims[d] = lower_i64(L, t->nelems);
        t = t->nelems ? t->elems[0] : t;
    }
    LLVMValueRef out = np_alloc(L, rty, dims, false);
    int64_t k = 0;
    store_nested(L, v, o->ty, rty->dtype, data_of(L, out), &k);
    return out;
}

LLVMValueRef lower_np_shape(Lower *L, Node *n, bool *owned) {
    *owned = false;
    BuiltinId b = n->builtin;
    switch (b) {
    case BI_NP_CONCATENATE: case BI_NP_STACK: case BI_NP_VSTACK: case BI_NP_HSTACK: return join(L, n, owned);
    case BI_NP_FULL: case BI_NP_FULL_LIKE: return full(L, n, owned);
    case BI_NP_EYE: case BI_NP_IDENTITY: return eye(L, n, owned);
    case BI_NP_LINSPACE: return linspace(L, n, owned);
    case BI_NP_ARRAY: case BI_NP_ASARRAY: return np_array(L, n, owned);
    default: break;
    }
    Node *an = np_arg(n, 0);
    if (!an || an->ty->kind != TY_ARRAY || an->ty->ndim > HJ_MAX_NDIM_LOWER ||
        (n->ty->kind == TY_ARRAY && n->ty->ndim > HJ_MAX_NDIM_LOWER))
        return lower_fail(L, n, HJ_DIAG_LOWERING, "%s() of a non-array", builtin_name(b));
    Type *aty = an->ty;
    LLVMValueRef arr = lower_expr_use(L, an);
    if (!arr)
        return NULL;
    switch (b) {
    case BI_NP_RESHAPE: return reshape(L, n, arr, aty, owned);
    case BI_NP_RAVEL: case BI_ARRAY_FLATTEN: return ravel(L, n, arr, aty, owned);
    case BI_NP_TRANSPOSE: case BI_NP_SQUEEZE: case BI_NP_EXPAND_DIMS: case BI_NP_FLIP:
        return view_fn(L, n, arr, aty, owned);
    case BI_NP_REPEAT: return repeat(L, n, arr, aty, owned);
    case BI_NP_TILE: return tile(L, n, arr, aty, owned);
    case BI_NP_ROLL: return roll(L, n, arr, aty, owned);
    case BI_NP_DIFF: return diff(L, n, arr, aty, owned);
    case BI_NP_TRIU: case BI_NP_TRIL: return tri(L, n, arr, aty, owned);
    case BI_ARRAY_ASTYPE:
        *owned = true;
        if (ty_is_npdt(aty->dtype) && aty->dtype != n->ty->dtype) /* to numbers: the int64 counts, NaT too */
            aty = ty_array(L->c->tc, ty_scalar(L->c->tc, TY_INT64), aty->ndim, aty->layout);
        return np_copy_c(L, arr, aty, n->ty);
    case BI_ARRAY_FILL: {
        Node *v = np_arg(n, 1);
        LLVMValueRef x = lower_expr_use(L, v);
        if (!x)
            return NULL;
        fill_all(L, arr, aty, lower_convert(L, v, x, v->ty, aty->dtype));
        return lower_zero(L, n->ty);
    }
    default: return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(b));
    }
}
