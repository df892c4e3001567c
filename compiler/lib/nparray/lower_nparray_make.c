/* lower_nparray_make.c - NumPy's building and selecting functions: diag,
 * diagflat, tri, fill_diagonal, indices, vander, tril/triu_indices(_from),
 * flatnonzero, extract, append, delete, insert, trim_zeros, ediff1d,
 * take, take_along_axis, resize, column_stack, dstack.  Functions that
 * work on the flattened array read a C-contiguous version of it (the
 * array itself when its type is C, else a temporary copy); results are
 * new C arrays.  Out-of-range indices raise NumPy's IndexError.  Tree
 * shapes: infer_nparray.c. */
#include "list/list.h"
#include "np/lower_np.h"
#include "nparray.h"

#include <string.h>

#define MAXD NPA_MAXD

static LLVMValueRef data_of(Lower *L, LLVMValueRef arr) { return lower_array_field(L, arr, ARR_DATA, "data"); }

static LLVMValueRef int_arg(Lower *L, Node *e) {
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? lower_as_i64(L, e, v, e->ty) : NULL;
}

static LLVMValueRef i64c(Lower *L, int64_t v) { return lower_i64(L, v); }
static LLVMValueRef add(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildAdd(L->b, a, b, ""); }
static LLVMValueRef sub(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildSub(L->b, a, b, ""); }
static LLVMValueRef slt(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildICmp(L->b, LLVMIntSLT, a, b, ""); }
static LLVMValueRef smax(Lower *L, LLVMValueRef a, LLVMValueRef b) { return np_sel(L, slt(L, a, b), b, a); }
static LLVMValueRef smin(Lower *L, LLVMValueRef a, LLVMValueRef b) { return np_sel(L, slt(L, a, b), a, b); }

/* Element k of a contiguous buffer of dt. */
static LLVMValueRef at_k(Lower *L, LLVMValueRef data, LLVMValueRef k, Type *dt) {
    return np_offset(L, data, np_mul(L, k, i64c(L, ty_itemsize(dt))));
}

/* The C-contiguous data of an operand (a temporary copy unless its type
 * is C) and its number of items. */
static LLVMValueRef flat_data(Lower *L, Node *e, LLVMValueRef v, LLVMValueRef *count) {
    Type *t = e->ty;
    if (t->kind != TY_ARRAY) { /* a number: a slot of one */
        LLVMValueRef slot = lower_alloca(L, lower_mem_type(L, t), "one");
        np_store(L, slot, v, t);
        *count = i64c(L, 1);
        return slot;
    }
    *count = t->ndim ? lower_array_field(L, v, ARR_NITEMS, "n") : i64c(L, 1);
    if (t->layout == LAYOUT_C || t->ndim == 0)
        return data_of(L, v);
    Type *cty = ty_array(L->c->tc, t->dtype, t->ndim, LAYOUT_C);
    LLVMValueRef c = np_own(L, np_copy_c(L, v, t, cty), cty);
    return data_of(L, c);
}

static LLVMValueRef flat_of(Lower *L, Node *e, LLVMValueRef *count) {
    LLVMValueRef v = lower_expr_use(L, e);
    return v ? flat_data(L, e, v, count) : NULL;
}

/* Copy n elements of sdt at src (contiguous) into dst (contiguous, ddt). */
static void copy_run(Lower *L, LLVMValueRef src, Type *sdt, LLVMValueRef dst, Type *ddt, LLVMValueRef n) {
    LLVMValueRef dims[1] = {n}, ss[1] = {i64c(L, ty_itemsize(sdt))}, ds[1] = {i64c(L, ty_itemsize(ddt))};
    np_copy_nd(L, 1, dims, src, ss, sdt, dst, ds, ddt);
}

/* A normalised index i of a sequence of n (negative from the end);
 * IndexError when out of range. */
static LLVMValueRef norm_index(Lower *L, LLVMValueRef i, LLVMValueRef n, bool upto_n) {
    LLVMValueRef j = np_sel(L, slt(L, i, i64c(L, 0)), add(L, i, n), i);
    LLVMValueRef bad = LLVMBuildOr(L->b, slt(L, j, i64c(L, 0)),
                                   LLVMBuildICmp(L->b, upto_n ? LLVMIntSGT : LLVMIntSGE, j, n, ""), "");
    LLVMBasicBlockRef ok = lower_branch_raise(L, bad, "index.bad");
    LLVMTypeRef p[3] = {L->t_i64, L->t_i64, L->t_i64};
    LLVMValueRef args[3] = {i, i64c(L, 0), n};
    lower_rt(L, "rt_raise_index", L->t_void, p, 3, args);
    lower_goto_error(L);
    lower_at(L, ok);
    return j;
}

/* ---- diag, diagflat, tri, fill_diagonal ---- */

/* out (m x m, zeroed) gets the n items of v (stride vs) on diagonal k. */
static LLVMValueRef diag_from_1d(Lower *L, Type *rty, LLVMValueRef vdata, LLVMValueRef vs, Type *vdt,
                                 LLVMValueRef n, LLVMValueRef k) {
    LLVMValueRef ak = np_sel(L, slt(L, k, i64c(L, 0)), LLVMBuildNeg(L->b, k, ""), k);
    LLVMValueRef m = add(L, n, ak);
    LLVMValueRef dims[2] = {m, m};
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, true), rty);
    LLVMValueRef r0 = smax(L, LLVMBuildNeg(L->b, k, ""), i64c(L, 0)), c0 = smax(L, k, i64c(L, 0));
    NpLoop lp;
    np_loop_begin(L, &lp, n);
    LLVMValueRef pos = add(L, np_mul(L, add(L, lp.i, r0), m), add(L, lp.i, c0));
    LLVMValueRef x = np_load(L, np_offset(L, vdata, np_mul(L, lp.i, vs)), vdt);
    np_store(L, at_k(L, data_of(L, out), pos, rty->dtype), lower_convert(L, np_at(L), x, vdt, rty->dtype), rty->dtype);
    np_loop_end(L, &lp);
    return out;
}

static LLVMValueRef diag(Lower *L, Node *n, bool *owned) {
    Node *vn = np_arg(n, 0);
    Type *vt = vn->ty, *rty = n->ty;
    LLVMValueRef v = lower_expr_use(L, vn);
    LLVMValueRef k = np_arg(n, 1) ? int_arg(L, np_arg(n, 1)) : i64c(L, 0);
    if (!v || !k)
        return NULL;
    if (n->builtin == BI_NPA_DIAGFLAT) {
        LLVMValueRef cnt;
        LLVMValueRef d = flat_data(L, vn, v, &cnt);
        Type *vdt = vt->kind == TY_ARRAY ? vt->dtype : vt;
        return np_give(L, diag_from_1d(L, rty, d, i64c(L, ty_itemsize(vdt)), vdt, cnt, k), rty, owned);
    }
    LLVMValueRef sh[2], st[2];
    np_dims(L, v, vt->ndim, sh, st);
    if (vt->ndim == 1)
        return np_give(L, diag_from_1d(L, rty, data_of(L, v), st[0], vt->dtype, sh[0], k), rty, owned);
    /* the k-th diagonal of a matrix, copied */
    LLVMValueRef r0 = smax(L, LLVMBuildNeg(L->b, k, ""), i64c(L, 0)), c0 = smax(L, k, i64c(L, 0));
    LLVMValueRef len = smax(L, smin(L, sub(L, sh[0], r0), sub(L, sh[1], c0)), i64c(L, 0));
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &len, false), rty);
    LLVMValueRef src = np_offset(L, data_of(L, v), add(L, np_mul(L, r0, st[0]), np_mul(L, c0, st[1])));
    LLVMValueRef ss = add(L, st[0], st[1]), ds = i64c(L, ty_itemsize(rty->dtype));
    np_copy_nd(L, 1, &len, src, &ss, vt->dtype, data_of(L, out), &ds, rty->dtype);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef tri(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef N = int_arg(L, np_arg(n, 0));
    if (!N)
        return NULL;
    LLVMValueRef M = N, k = i64c(L, 0);
    if (np_arg(n, 1) && !(M = int_arg(L, np_arg(n, 1))))
        return NULL;
    if (np_arg(n, 2) && !(k = int_arg(L, np_arg(n, 2))))
        return NULL;
    N = smax(L, N, i64c(L, 0)); /* NumPy: negative sizes give empty triangles */
    M = smax(L, M, i64c(L, 0));
    LLVMValueRef dims[2] = {N, M};
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    NpLoop lp;
    np_loop_begin(L, &lp, lower_array_field(L, out, ARR_NITEMS, ""));
    LLVMValueRef i = LLVMBuildSDiv(L->b, lp.i, M, ""), j = LLVMBuildSRem(L->b, lp.i, M, "");
    LLVMValueRef on = LLVMBuildICmp(L->b, LLVMIntSLE, j, add(L, i, k), "");
    np_store(L, at_k(L, data_of(L, out), lp.i, dt), np_sel(L, on, np_one(L, dt), lower_zero(L, dt)), dt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

/* fill_diagonal(a, val, wrap): a.flat[:end:step] = val as NumPy. */
static LLVMValueRef fill_diagonal(Lower *L, Node *n) {
    Node *an = np_arg(n, 0), *vn = np_arg(n, 1);
    Type *aty = an->ty, *dt = aty->dtype;
    LLVMValueRef a = lower_expr_use(L, an), v = a ? lower_expr_use(L, vn) : NULL;
    if (!v)
        return NULL;
    LLVMValueRef wrap = LLVMConstInt(L->t_i1, 0, 0);
    if (np_arg(n, 2) && !(wrap = lower_expr_use(L, np_arg(n, 2))))
        return NULL;
    int nd = aty->ndim;
    LLVMValueRef sh[MAXD], st[MAXD];
    np_dims(L, a, nd, sh, st);
    LLVMValueRef count, dstep;
    LLVMValueRef rows = NULL, cols = NULL;
    if (nd == 2) { /* flat positions 0, c+1, 2(c+1)... below end */
        rows = sh[0];
        cols = sh[1];
        LLVMValueRef size = np_mul(L, rows, cols);
        LLVMValueRef end = np_sel(L, wrap, size, smin(L, size, np_mul(L, cols, cols)));
        LLVMValueRef step = add(L, cols, i64c(L, 1));
        count = LLVMBuildSDiv(L->b, add(L, end, sub(L, step, i64c(L, 1))), step, "");
        dstep = NULL;
    } else {
        LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
        dstep = i64c(L, 0);
        for (int d = 0; d < nd; d++) {
            bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntNE, sh[d], sh[0], ""), "");
            dstep = add(L, dstep, st[d]);
        }
        lower_raise_if(L, bad, "ValueError", "All dimensions of input must be of equal length");
        count = sh[0];
    }
    LLVMValueRef vdata = NULL, vs = NULL, vcount = NULL;
    Type *vdt = vn->ty->kind == TY_ARRAY ? vn->ty->dtype : dt;
    if (vn->ty->kind == TY_ARRAY) {
        vdata = data_of(L, v);
        vs = lower_array_dim(L, v, ARR_STRIDES, 0);
        vcount = lower_array_dim(L, v, ARR_SHAPE, 0);
        count = np_sel(L, np_ieq(L, vcount, i64c(L, 0)), i64c(L, 0), count); /* nothing to fill with */
    }
    LLVMValueRef data = data_of(L, a);
    NpLoop lp;
    np_loop_begin(L, &lp, count);
    LLVMValueRef p;
    if (nd == 2) {
        LLVMValueRef f = np_mul(L, lp.i, add(L, cols, i64c(L, 1)));
        LLVMValueRef r = LLVMBuildSDiv(L->b, f, cols, ""), c = LLVMBuildSRem(L->b, f, cols, "");
        p = np_offset(L, data, add(L, np_mul(L, r, st[0]), np_mul(L, c, st[1])));
    } else {
        p = np_offset(L, data, np_mul(L, lp.i, dstep));
    }
    LLVMValueRef x = v;
    if (vdata)
        x = lower_convert(L, np_at(L), np_load(L, np_offset(L, vdata, np_mul(L, LLVMBuildSRem(L->b, lp.i, vcount, ""), vs)), vdt),
                          vdt, dt);
    np_store(L, p, x, dt);
    np_loop_end(L, &lp);
    return lower_zero(L, n->ty);
}

/* ---- indices, vander, tril/triu_indices ---- */

static LLVMValueRef indices(Lower *L, Node *n, bool *owned) {
    Type *rty = n->ty, *dt = rty->dtype;
    Node *dn = np_arg(n, 0);
    LLVMValueRef tv = lower_expr_use(L, dn);
    if (!tv)
        return NULL;
    int k = rty->ndim - 1;
    LLVMValueRef dims[MAXD];
    dims[0] = i64c(L, k);
    LLVMValueRef total = i64c(L, 1);
    for (int a = 0; a < k; a++) {
        dims[a + 1] = LLVMBuildExtractValue(L->b, tv, (unsigned)a, "");
        total = np_mul(L, total, dims[a + 1]);
    }
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    LLVMValueRef data = data_of(L, out);
    for (int a = 0; a < k; a++) {
        LLVMValueRef inner = i64c(L, 1);
        for (int b = a + 1; b < k; b++)
            inner = np_mul(L, inner, dims[b + 1]);
        NpLoop lp;
        np_loop_begin(L, &lp, total);
        LLVMValueRef x = LLVMBuildSRem(L->b, LLVMBuildSDiv(L->b, lp.i, inner, ""), dims[a + 1], "");
        np_store(L, at_k(L, data, add(L, np_mul(L, i64c(L, a), total), lp.i), dt),
                 lower_convert(L, np_at(L), x, ty_scalar(L->c->tc, TY_INT64), dt), dt);
        np_loop_end(L, &lp);
    }
    return np_give(L, out, rty, owned);
}

static LLVMValueRef vander(Lower *L, Node *n, bool *owned) {
    Node *xn = np_arg(n, 0);
    Type *rty = n->ty, *dt = rty->dtype, *xdt = xn->ty->dtype;
    LLVMValueRef x = lower_expr_use(L, xn);
    if (!x)
        return NULL;
    LLVMValueRef len = lower_array_dim(L, x, ARR_SHAPE, 0), xs = lower_array_dim(L, x, ARR_STRIDES, 0);
    LLVMValueRef N = len, inc = LLVMConstInt(L->t_i1, 0, 0);
    if (np_arg(n, 1) && !(N = int_arg(L, np_arg(n, 1))))
        return NULL;
    if (np_arg(n, 2) && !(inc = lower_expr_use(L, np_arg(n, 2))))
        return NULL;
    LLVMValueRef dims[2] = {len, N};
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    LLVMValueRef data = data_of(L, out);
    NpLoop li, lj;
    np_loop_begin(L, &li, len);
    LLVMValueRef xi = lower_convert(L, np_at(L), np_load(L, np_offset(L, data_of(L, x), np_mul(L, li.i, xs)), xdt), xdt, dt);
    LLVMValueRef acc = lower_alloca(L, lower_type(L, dt), "pow");
    LLVMBuildStore(L->b, np_one(L, dt), acc);
    np_loop_begin(L, &lj, N);
    LLVMValueRef p = lower_load(L, lower_type(L, dt), acc, "");
    LLVMValueRef col = np_sel(L, inc, lj.i, sub(L, sub(L, N, i64c(L, 1)), lj.i));
    np_store(L, at_k(L, data, add(L, np_mul(L, li.i, N), col), dt), p, dt);
    LLVMBuildStore(L->b, np_arith(L, '*', dt, p, xi), acc);
    np_loop_end(L, &lj);
    np_loop_end(L, &li);
    return np_give(L, out, rty, owned);
}

/* Row i's columns [lo, hi) of the triangle (tril: j <= i + k; triu: j >= i + k). */
static void tri_cols(Lower *L, bool lower, LLVMValueRef i, LLVMValueRef k, LLVMValueRef m, LLVMValueRef *lo,
                     LLVMValueRef *hi) {
    LLVMValueRef z = i64c(L, 0);
    if (lower) {
        *lo = z;
        *hi = smin(L, smax(L, add(L, add(L, i, k), i64c(L, 1)), z), m);
    } else {
        *lo = smin(L, smax(L, add(L, i, k), z), m);
        *hi = m;
    }
}

static LLVMValueRef tri_indices(Lower *L, Node *n, bool *owned) {
    BuiltinId b = n->builtin;
    bool lower = b == BI_NPA_TRIL_INDICES || b == BI_NPA_TRIL_INDICES_FROM;
    LLVMValueRef N, M, k = i64c(L, 0);
    if (b == BI_NPA_TRIL_INDICES_FROM || b == BI_NPA_TRIU_INDICES_FROM) {
        LLVMValueRef a = lower_expr_use(L, np_arg(n, 0));
        if (!a)
            return NULL;
        N = lower_array_dim(L, a, ARR_SHAPE, 0);
        M = lower_array_dim(L, a, ARR_SHAPE, 1);
    } else {
        if (!(N = int_arg(L, np_arg(n, 0))))
            return NULL;
        M = N;
        if (np_arg(n, 2) && !(M = int_arg(L, np_arg(n, 2))))
            return NULL;
    }
    if (np_arg(n, 1) && !(k = int_arg(L, np_arg(n, 1))))
        return NULL;
    M = smax(L, M, i64c(L, 0));
    /* count, then fill row by row */
    LLVMValueRef cnt = lower_alloca(L, L->t_i64, "cnt");
    LLVMBuildStore(L->b, i64c(L, 0), cnt);
    NpLoop lp;
    np_loop_begin(L, &lp, N);
    LLVMValueRef lo, hi;
    tri_cols(L, lower, lp.i, k, M, &lo, &hi);
    LLVMBuildStore(L->b, add(L, lower_load(L, L->t_i64, cnt, ""), smax(L, sub(L, hi, lo), i64c(L, 0))), cnt);
    np_loop_end(L, &lp);
    Type *tt = n->ty, *aty = tt->elems[0], *i64 = aty->dtype;
    LLVMValueRef total = lower_load(L, L->t_i64, cnt, "total");
    LLVMValueRef rows = np_own(L, np_alloc(L, aty, &total, false), aty);
    LLVMValueRef cols = np_own(L, np_alloc(L, aty, &total, false), aty);
    LLVMBuildStore(L->b, i64c(L, 0), cnt);
    np_loop_begin(L, &lp, N);
    tri_cols(L, lower, lp.i, k, M, &lo, &hi);
    NpLoop lj;
    np_loop_begin(L, &lj, sub(L, hi, lo));
    LLVMValueRef pos = lower_load(L, L->t_i64, cnt, "");
    np_store(L, at_k(L, data_of(L, rows), pos, i64), lp.i, i64);
    np_store(L, at_k(L, data_of(L, cols), pos, i64), add(L, lo, lj.i), i64);
    LLVMBuildStore(L->b, add(L, pos, i64c(L, 1)), cnt);
    np_loop_end(L, &lj);
    np_loop_end(L, &lp);
    LLVMValueRef t = LLVMGetUndef(lower_type(L, tt));
    t = LLVMBuildInsertValue(L->b, t, np_give(L, rows, aty, owned), 0, "");
    t = LLVMBuildInsertValue(L->b, t, np_give(L, cols, aty, owned), 1, "");
    return t;
}

/* ---- flatnonzero, extract, trim_zeros ---- */

static LLVMValueRef truth_at(Lower *L, LLVMValueRef data, LLVMValueRef k, Type *dt) {
    return lower_truth(L, np_at(L), np_load(L, at_k(L, data, k, dt), dt), dt);
}

/* flatnonzero(a) and extract(condition, arr): the positions (or the items
 * of arr at the positions) where the flattened first operand is true. */
static LLVMValueRef select_true(Lower *L, Node *n, bool *owned) {
    Node *cn = np_arg(n, 0);
    Type *cdt = cn->ty->dtype, *rty = n->ty, *rdt = rty->dtype;
    LLVMValueRef nc, na = NULL, adata = NULL;
    LLVMValueRef cdata = flat_of(L, cn, &nc);
    if (!cdata)
        return NULL;
    bool ex = n->builtin == BI_NPA_EXTRACT;
    if (ex && !(adata = flat_of(L, np_arg(n, 1), &na)))
        return NULL;
    LLVMValueRef cnt = lower_alloca(L, L->t_i64, "cnt");
    LLVMBuildStore(L->b, i64c(L, 0), cnt);
    NpLoop lp;
    np_loop_begin(L, &lp, nc);
    LLVMValueRef on = truth_at(L, cdata, lp.i, cdt);
    if (ex) /* NumPy takes arr.flat[i] for each true i: out of range raises */
        lower_raise_if(L, LLVMBuildAnd(L->b, on, LLVMBuildICmp(L->b, LLVMIntSGE, lp.i, na, ""), ""), "IndexError",
                       "index is out of bounds for axis 0");
    LLVMBuildStore(L->b, add(L, lower_load(L, L->t_i64, cnt, ""), LLVMBuildZExt(L->b, on, L->t_i64, "")), cnt);
    np_loop_end(L, &lp);
    LLVMValueRef total = lower_load(L, L->t_i64, cnt, "total");
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, false), rty);
    LLVMBuildStore(L->b, i64c(L, 0), cnt);
    np_loop_begin(L, &lp, nc);
    LLVMBasicBlockRef put = lower_block(L, "sel.put"), next = lower_block(L, "sel.next");
    LLVMBuildCondBr(L->b, truth_at(L, cdata, lp.i, cdt), put, next);
    lower_at(L, put);
    LLVMValueRef pos = lower_load(L, L->t_i64, cnt, "");
    LLVMValueRef x = ex ? np_load(L, at_k(L, adata, lp.i, rdt), rdt) : lp.i;
    np_store(L, at_k(L, data_of(L, out), pos, rdt), x, rdt);
    LLVMBuildStore(L->b, add(L, pos, i64c(L, 1)), cnt);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef trim_zeros(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0);
    Type *aty = an->ty, *dt = aty->dtype;
    LLVMValueRef a = lower_expr_use(L, an);
    if (!a)
        return NULL;
    int mode = (int)n->cval.i;
    LLVMValueRef len = lower_array_dim(L, a, ARR_SHAPE, 0), st = lower_array_dim(L, a, ARR_STRIDES, 0);
    LLVMValueRef data = data_of(L, a);
    /* first and last nonzero (len, -1 when none) */
    LLVMValueRef first = lower_alloca(L, L->t_i64, "first"), last = lower_alloca(L, L->t_i64, "last");
    LLVMBuildStore(L->b, len, first);
    LLVMBuildStore(L->b, i64c(L, -1), last);
    NpLoop lp;
    np_loop_begin(L, &lp, len);
    LLVMValueRef on = lower_truth(L, np_at(L), np_load(L, np_offset(L, data, np_mul(L, lp.i, st)), dt), dt);
    LLVMValueRef f = lower_load(L, L->t_i64, first, "");
    LLVMBuildStore(L->b, np_sel(L, LLVMBuildAnd(L->b, on, np_ieq(L, f, len), ""), lp.i, f), first);
    LLVMBuildStore(L->b, np_sel(L, on, lp.i, lower_load(L, L->t_i64, last, "")), last);
    np_loop_end(L, &lp);
    LLVMValueRef fv = lower_load(L, L->t_i64, first, ""), lv = lower_load(L, L->t_i64, last, "");
    LLVMValueRef none = slt(L, lv, i64c(L, 0));
    LLVMValueRef lo = (mode & 1) ? fv : i64c(L, 0), hi = (mode & 2) ? add(L, lv, i64c(L, 1)) : len;
    lo = np_sel(L, none, i64c(L, 0), lo);
    hi = np_sel(L, none, i64c(L, 0), hi);
    LLVMValueRef sh = sub(L, hi, lo);
    *owned = true;
    return np_view(L, a, n->ty, np_offset(L, data, np_mul(L, lo, st)), &sh, &st);
}

/* ---- append, delete, insert, ediff1d, resize ---- */

/* append(arr, values, axis): along an axis, as concatenate; without, the
 * flattened operands one after the other. */
static LLVMValueRef append(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *vn = np_arg(n, 1);
    Type *rty = n->ty, *dt = rty->dtype;
    if (!np_arg(n, 2)) {
        LLVMValueRef na, nv;
        LLVMValueRef ad = flat_of(L, an, &na);
        LLVMValueRef vd = ad ? flat_of(L, vn, &nv) : NULL;
        if (!vd)
            return NULL;
        LLVMValueRef total = add(L, na, nv);
        LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, false), rty);
        Type *adt = an->ty->kind == TY_ARRAY ? an->ty->dtype : an->ty, *vdt = vn->ty->kind == TY_ARRAY ? vn->ty->dtype : vn->ty;
        copy_run(L, ad, adt, data_of(L, out), dt, na);
        copy_run(L, vd, vdt, at_k(L, data_of(L, out), na, dt), dt, nv);
        return np_give(L, out, rty, owned);
    }
    int nd = rty->ndim;
    LLVMValueRef a = lower_expr_use(L, an), v = a ? lower_expr_use(L, vn) : NULL;
    LLVMValueRef ax = v ? int_arg(L, np_arg(n, 2)) : NULL;
    if (!ax)
        return NULL;
    ax = np_axis(L, ax, nd);
    LLVMValueRef ash[MAXD], ast[MAXD], vsh[MAXD], vst[MAXD], odims[MAXD], ost[MAXD];
    np_dims(L, a, nd, ash, ast);
    np_dims(L, v, nd, vsh, vst);
    LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < nd; d++) {
        LLVMValueRef on = np_ieq(L, ax, i64c(L, d));
        bad = LLVMBuildOr(L->b, bad, LLVMBuildAnd(L->b, LLVMBuildNot(L->b, on, ""),
                                                  LLVMBuildICmp(L->b, LLVMIntNE, ash[d], vsh[d], ""), ""), "");
        odims[d] = np_sel(L, on, add(L, ash[d], vsh[d]), ash[d]);
    }
    lower_raise_if(L, bad, "ValueError",
                   "all the input array dimensions except for the concatenation axis must match exactly");
    LLVMValueRef out = np_own(L, np_alloc(L, rty, odims, false), rty);
    np_dims(L, out, nd, NULL, ost);
    np_copy_nd(L, nd, ash, data_of(L, a), ast, an->ty->dtype, data_of(L, out), ost, dt);
    LLVMValueRef off = np_mul(L, np_pick(L, ash, nd, ax), np_pick(L, ost, nd, ax));
    np_copy_nd(L, nd, vsh, data_of(L, v), vst, vn->ty->dtype, np_offset(L, data_of(L, out), off), ost, dt);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef delete(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *on = np_arg(n, 1);
    Type *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef na;
    LLVMValueRef ad = flat_of(L, an, &na);
    if (!ad)
        return NULL;
    if (on->ty->kind != TY_ARRAY) { /* one index */
        LLVMValueRef i = int_arg(L, on);
        if (!i)
            return NULL;
        i = norm_index(L, i, na, false);
        LLVMValueRef total = sub(L, na, i64c(L, 1));
        LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, false), rty);
        copy_run(L, ad, dt, data_of(L, out), dt, i);
        copy_run(L, at_k(L, ad, add(L, i, i64c(L, 1)), dt), dt, at_k(L, data_of(L, out), i, dt), dt, sub(L, total, i));
        return np_give(L, out, rty, owned);
    }
    /* an array of indices: mark, then copy what is left */
    LLVMValueRef ov = lower_expr_use(L, on);
    if (!ov)
        return NULL;
    Type *odt = on->ty->dtype, *bt = ty_array(L->c->tc, ty_scalar(L->c->tc, TY_BOOL), 1, LAYOUT_C);
    LLVMValueRef mask = np_own(L, np_alloc(L, bt, &na, true), bt);
    LLVMValueRef md = data_of(L, mask);
    LLVMValueRef cnt = lower_alloca(L, L->t_i64, "cnt");
    LLVMBuildStore(L->b, na, cnt);
    LLVMValueRef olen = lower_array_dim(L, ov, ARR_SHAPE, 0), ost = lower_array_dim(L, ov, ARR_STRIDES, 0);
    NpLoop lp;
    np_loop_begin(L, &lp, olen);
    LLVMValueRef raw = np_load(L, np_offset(L, data_of(L, ov), np_mul(L, lp.i, ost)), odt);
    LLVMValueRef i = norm_index(L, lower_convert(L, np_at(L), raw, odt, ty_scalar(L->c->tc, TY_INT64)), na, false);
    LLVMValueRef mp = np_offset(L, md, i);
    LLVMValueRef was = LLVMBuildTrunc(L->b, lower_load(L, L->t_i8, mp, ""), L->t_i1, "");
    LLVMBuildStore(L->b, LLVMConstInt(L->t_i8, 1, 0), mp);
    LLVMBuildStore(L->b, sub(L, lower_load(L, L->t_i64, cnt, ""), LLVMBuildZExt(L->b, LLVMBuildNot(L->b, was, ""), L->t_i64, "")),
                   cnt);
    np_loop_end(L, &lp);
    LLVMValueRef total = lower_load(L, L->t_i64, cnt, "total");
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, false), rty);
    LLVMBuildStore(L->b, i64c(L, 0), cnt);
    np_loop_begin(L, &lp, na);
    LLVMBasicBlockRef put = lower_block(L, "del.put"), next = lower_block(L, "del.next");
    LLVMValueRef gone = LLVMBuildTrunc(L->b, lower_load(L, L->t_i8, np_offset(L, md, lp.i), ""), L->t_i1, "");
    LLVMBuildCondBr(L->b, gone, next, put);
    lower_at(L, put);
    LLVMValueRef pos = lower_load(L, L->t_i64, cnt, "");
    np_store(L, at_k(L, data_of(L, out), pos, dt), np_load(L, at_k(L, ad, lp.i, dt), dt), dt);
    LLVMBuildStore(L->b, add(L, pos, i64c(L, 1)), cnt);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef insert(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *vn = np_arg(n, 2);
    Type *rty = n->ty, *dt = rty->dtype, *vdt = vn->ty->kind == TY_ARRAY ? vn->ty->dtype : vn->ty;
    LLVMValueRef na, nv;
    LLVMValueRef ad = flat_of(L, an, &na);
    LLVMValueRef i = ad ? int_arg(L, np_arg(n, 1)) : NULL;
    LLVMValueRef vd = i ? flat_of(L, vn, &nv) : NULL;
    if (!vd)
        return NULL;
    i = norm_index(L, i, na, true);
    LLVMValueRef total = add(L, na, nv);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, false), rty);
    LLVMValueRef od = data_of(L, out);
    copy_run(L, ad, dt, od, dt, i);
    copy_run(L, vd, vdt, at_k(L, od, i, dt), dt, nv);
    copy_run(L, at_k(L, ad, i, dt), dt, at_k(L, od, add(L, i, nv), dt), dt, sub(L, na, i));
    return np_give(L, out, rty, owned);
}

static LLVMValueRef ediff1d(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *en = np_arg(n, 1), *bn = np_arg(n, 2);
    Type *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef na, ne = i64c(L, 0), nb = i64c(L, 0), ed = NULL, bd = NULL;
    LLVMValueRef ad = flat_of(L, an, &na);
    if (!ad || (en && !(ed = flat_of(L, en, &ne))) || (bn && !(bd = flat_of(L, bn, &nb))))
        return NULL;
    LLVMValueRef nd = smax(L, sub(L, na, i64c(L, 1)), i64c(L, 0));
    LLVMValueRef total = add(L, add(L, nb, nd), ne);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, &total, false), rty);
    LLVMValueRef od = data_of(L, out);
    if (bd)
        copy_run(L, bd, bn->ty->kind == TY_ARRAY ? bn->ty->dtype : bn->ty, od, dt, nb);
    NpLoop lp;
    np_loop_begin(L, &lp, nd);
    LLVMValueRef x0 = np_load(L, at_k(L, ad, lp.i, dt), dt), x1 = np_load(L, at_k(L, ad, add(L, lp.i, i64c(L, 1)), dt), dt);
    np_store(L, at_k(L, od, add(L, nb, lp.i), dt), np_arith(L, '-', dt, x1, x0), dt);
    np_loop_end(L, &lp);
    if (ed)
        copy_run(L, ed, en->ty->kind == TY_ARRAY ? en->ty->dtype : en->ty, at_k(L, od, add(L, nb, nd), dt), dt, ne);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef resize(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *sn = np_arg(n, 1);
    Type *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef na;
    LLVMValueRef ad = flat_of(L, an, &na);
    LLVMValueRef sv = ad ? lower_expr_use(L, sn) : NULL;
    if (!sv)
        return NULL;
    int k = rty->ndim;
    LLVMValueRef dims[MAXD], neg = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < k; d++) {
        dims[d] = sn->ty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, sv, (unsigned)d, "") : sv;
        neg = LLVMBuildOr(L->b, neg, slt(L, dims[d], i64c(L, 0)), "");
    }
    lower_raise_if(L, neg, "ValueError", "all elements of `new_shape` must be non-negative");
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, true), rty);
    LLVMValueRef total = lower_array_field(L, out, ARR_NITEMS, "");
    /* a.flat repeated; an empty a leaves zeros */
    LLVMValueRef cnt = np_sel(L, np_ieq(L, na, i64c(L, 0)), i64c(L, 0), total);
    LLVMValueRef safe = np_sel(L, np_ieq(L, na, i64c(L, 0)), i64c(L, 1), na);
    NpLoop lp;
    np_loop_begin(L, &lp, cnt);
    np_store(L, at_k(L, data_of(L, out), lp.i, dt), np_load(L, at_k(L, ad, LLVMBuildSRem(L->b, lp.i, safe, ""), dt), dt),
             dt);
    np_loop_end(L, &lp);
    return np_give(L, out, rty, owned);
}

/* ---- take, take_along_axis ---- */

typedef struct TakeCtx {
    LLVMValueRef src, n, sax; /* flat data and its size; take_along_axis: the axis' stride */
    Type *idt, *dt;
} TakeCtx;

static void take_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    TakeCtx *c = vctx;
    LLVMValueRef i = lower_convert(L, np_at(L), np_load(L, p[0], c->idt), c->idt, ty_scalar(L->c->tc, TY_INT64));
    i = norm_index(L, i, c->n, false);
    LLVMValueRef x = c->sax ? np_load(L, np_offset(L, p[2], np_mul(L, i, c->sax)), c->dt)
                            : np_load(L, at_k(L, c->src, i, c->dt), c->dt);
    np_store(L, p[1], x, c->dt);
}

static LLVMValueRef take(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *in = np_arg(n, 1);
    Type *rty = n->ty, *dt = an->ty->dtype;
    LLVMValueRef na;
    LLVMValueRef ad = flat_of(L, an, &na);
    if (!ad)
        return NULL;
    if (in->ty->kind != TY_ARRAY) {
        LLVMValueRef i = int_arg(L, in);
        if (!i)
            return NULL;
        return np_load(L, at_k(L, ad, norm_index(L, i, na, false), dt), dt);
    }
    NpaOpnd o;
    if (!npa_opnd(L, in, &o))
        return NULL;
    LLVMValueRef out = np_own(L, np_alloc(L, rty, o.sh, false), rty);
    LLVMValueRef str[NP_MAX_OPS][MAXD], base[2] = {o.data, data_of(L, out)};
    for (int d = 0; d < o.nd; d++)
        str[0][d] = o.st[d];
    np_dims(L, out, o.nd, NULL, str[1]);
    TakeCtx c = {ad, na, NULL, o.dt, dt};
    np_nest(L, o.nd, o.sh, 2, base, str, take_cb, &c);
    return np_give(L, out, rty, owned);
}

static LLVMValueRef take_along_axis(Lower *L, Node *n, bool *owned) {
    Node *an = np_arg(n, 0), *in = np_arg(n, 1);
    Type *rty = n->ty;
    int nd = rty->ndim;
    NpaOpnd o[2];
    if (!npa_opnd(L, an, &o[0]) || !npa_opnd(L, in, &o[1]))
        return NULL;
    LLVMValueRef ax = np_arg(n, 2) ? int_arg(L, np_arg(n, 2)) : i64c(L, -1);
    if (!ax)
        return NULL;
    ax = np_axis(L, ax, nd);
    /* arr counts as length 1 along the axis: the indices choose there */
    LLVMValueRef alen = np_pick(L, o[0].sh, nd, ax), ast = np_pick(L, o[0].st, nd, ax);
    for (int d = 0; d < nd; d++)
        o[0].sh[d] = np_sel(L, np_ieq(L, ax, i64c(L, d)), i64c(L, 1), o[0].sh[d]);
    LLVMValueRef dims[MAXD], str[NP_MAX_OPS][MAXD];
    npa_bcast(L, o, 2, nd, dims, str, "IndexError"); /* NumPy: a shape mismatch of the indices */
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    /* operands: indices, out, arr */
    LLVMValueRef s2[NP_MAX_OPS][MAXD], base[3] = {o[1].data, data_of(L, out), o[0].data};
    for (int d = 0; d < nd; d++) {
        s2[0][d] = str[1][d];
        s2[2][d] = str[0][d];
    }
    np_dims(L, out, nd, NULL, s2[1]);
    TakeCtx c = {NULL, alen, ast, o[1].dt, o[0].dt};
    np_nest(L, nd, dims, 3, base, s2, take_cb, &c);
    return np_give(L, out, rty, owned);
}

/* ---- column_stack, dstack ---- */

static LLVMValueRef stack_cols(Lower *L, Node *n, bool *owned) {
    Node *tn = np_arg(n, 0);
    Type *tt = tn->ty, *rty = n->ty, *dt = rty->dtype;
    int rnd = rty->ndim, cnt = tt->nelems;
    LLVMValueRef tv = lower_expr_use(L, tn);
    if (!tv)
        return NULL;
    /* each item as rnd dims: column_stack (N,) -> (N, 1); dstack (N,) -> (1, N, 1), (M, N) -> (M, N, 1) */
    LLVMValueRef sh[8][MAXD], st[8][MAXD], items[8];
    LLVMValueRef (*shp)[MAXD] = sh, (*stp)[MAXD] = st;
    LLVMValueRef *it = items;
    if (cnt > 8) {
        shp = arena_alloc(&L->c->arena, sizeof(*shp) * (size_t)cnt);
        stp = arena_alloc(&L->c->arena, sizeof(*stp) * (size_t)cnt);
        it = arena_alloc(&L->c->arena, sizeof(*it) * (size_t)cnt);
    }
    LLVMValueRef total = i64c(L, 0), bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int i = 0; i < cnt; i++) {
        Type *e = tt->elems[i];
        it[i] = LLVMBuildExtractValue(L->b, tv, (unsigned)i, "");
        LLVMValueRef s[MAXD], t[MAXD];
        np_dims(L, it[i], e->ndim, s, t);
        int lead = (rnd == 3 && e->ndim == 1) ? 1 : 0;
        for (int d = 0; d < rnd; d++) {
            int j = d - lead;
            if (j >= 0 && j < e->ndim) {
                shp[i][d] = s[j];
                stp[i][d] = t[j];
            } else {
                shp[i][d] = i64c(L, 1);
                stp[i][d] = i64c(L, 0);
            }
        }
        for (int d = 0; d < rnd - 1; d++)
            bad = LLVMBuildOr(L->b, bad, LLVMBuildICmp(L->b, LLVMIntNE, shp[i][d], shp[0][d], ""), "");
        total = add(L, total, shp[i][rnd - 1]);
    }
    lower_raise_if(L, bad, "ValueError",
                   "all the input array dimensions except for the concatenation axis must match exactly");
    LLVMValueRef dims[MAXD], ost[MAXD];
    for (int d = 0; d < rnd - 1; d++)
        dims[d] = shp[0][d];
    dims[rnd - 1] = total;
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    np_dims(L, out, rnd, NULL, ost);
    LLVMValueRef pos = i64c(L, 0);
    for (int i = 0; i < cnt; i++) {
        np_copy_nd(L, rnd, shp[i], data_of(L, it[i]), stp[i], tt->elems[i]->dtype,
                   np_offset(L, data_of(L, out), np_mul(L, pos, ost[rnd - 1])), ost, dt);
        pos = add(L, pos, shp[i][rnd - 1]);
    }
    return np_give(L, out, rty, owned);
}

/* ---- split, array_split, hsplit, vsplit, dsplit ---- */

/* A split point as a Python slice bound: negative from the end, clamped to [0, len]. */
static LLVMValueRef slice_bound(Lower *L, LLVMValueRef b, LLVMValueRef len) {
    b = np_sel(L, slt(L, b, i64c(L, 0)), add(L, b, len), b);
    return smin(L, smax(L, b, i64c(L, 0)), len);
}

/* The pieces of ary along the axis, as views appended to a new list. */
static LLVMValueRef split(Lower *L, Node *n, bool *owned) {
    BuiltinId b = n->builtin;
    Node *an = np_arg(n, 0), *sn = np_arg(n, 1);
    Type *aty = an->ty, *lt = n->ty, *ity = lt->item;
    int nd = aty->ndim;
    LLVMValueRef a = lower_expr_use(L, an), sv = a ? lower_expr_use(L, sn) : NULL;
    if (!sv)
        return NULL;
    LLVMValueRef ax;
    if (b == BI_NPA_SPLIT || b == BI_NPA_ARRAY_SPLIT) {
        ax = np_arg(n, 2) ? int_arg(L, np_arg(n, 2)) : i64c(L, 0);
        if (!ax)
            return NULL;
        ax = np_axis(L, ax, nd);
    } else {
        ax = i64c(L, b == BI_NPA_VSPLIT ? 0 : b == BI_NPA_DSPLIT ? 2 : (nd > 1 ? 1 : 0));
    }
    LLVMValueRef sh[MAXD], st[MAXD];
    np_dims(L, a, nd, sh, st);
    LLVMValueRef len = np_pick(L, sh, nd, ax), sax = np_pick(L, st, nd, ax);
    LLVMValueRef pieces, each = NULL, extra = NULL, idata = NULL, istride = NULL;
    Type *idt = NULL;
    bool sections = sn->ty->kind != TY_TUPLE && sn->ty->kind != TY_ARRAY;
    if (sections) {
        pieces = lower_as_i64(L, sn, sv, sn->ty);
        if (b != BI_NPA_ARRAY_SPLIT) /* NumPy's split tests len % sections first */
            lower_raise_if(L, np_ieq(L, pieces, i64c(L, 0)), "ZeroDivisionError", "integer modulo by zero");
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLE, pieces, i64c(L, 0), ""), "ValueError",
                       "number sections must be larger than 0.");
        each = LLVMBuildSDiv(L->b, len, pieces, "");
        extra = LLVMBuildSRem(L->b, len, pieces, "");
        if (b != BI_NPA_ARRAY_SPLIT)
            lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, extra, i64c(L, 0), ""), "ValueError",
                           "array split does not result in an equal division");
    } else if (sn->ty->kind == TY_TUPLE) { /* the split points spilled to a slot */
        int k = sn->ty->nelems;
        pieces = i64c(L, k + 1);
        idt = ty_scalar(L->c->tc, TY_INT64);
        idata = lower_alloca(L, LLVMArrayType2(L->t_i64, (uint64_t)(k ? k : 1)), "points");
        for (int i = 0; i < k; i++) {
            LLVMValueRef ix[2] = {i64c(L, 0), i64c(L, i)};
            LLVMBuildStore(L->b, LLVMBuildExtractValue(L->b, sv, (unsigned)i, ""),
                           lower_gep(L, LLVMArrayType2(L->t_i64, (uint64_t)(k ? k : 1)), idata, ix, 2, ""));
        }
        istride = i64c(L, 8);
    } else {
        idt = sn->ty->dtype;
        idata = data_of(L, sv);
        istride = lower_array_dim(L, sv, ARR_STRIDES, 0);
        pieces = add(L, lower_array_dim(L, sv, ARR_SHAPE, 0), i64c(L, 1));
    }
    LLVMValueRef list = lower_list_new(L, n, lt, pieces);
    if (!list)
        return NULL;
    Type *i64 = ty_scalar(L->c->tc, TY_INT64);
    NpLoop lp;
    np_loop_begin(L, &lp, pieces);
    LLVMValueRef start, size;
    if (sections) { /* array_split: the first len % pieces get one more */
        LLVMValueRef i = lp.i;
        start = add(L, np_mul(L, i, each), smin(L, i, extra));
        size = add(L, each, LLVMBuildZExt(L->b, slt(L, i, extra), L->t_i64, ""));
    } else {
        LLVMValueRef last = np_ieq(L, lp.i, sub(L, pieces, i64c(L, 1))), first = np_ieq(L, lp.i, i64c(L, 0));
        LLVMValueRef jp = smax(L, sub(L, lp.i, i64c(L, 1)), i64c(L, 0)), jn = smin(L, lp.i, sub(L, pieces, i64c(L, 2)));
        jn = smax(L, jn, i64c(L, 0));
        LLVMValueRef bp = lower_convert(L, n, np_load(L, np_offset(L, idata, np_mul(L, jp, istride)), idt), idt, i64);
        LLVMValueRef bn = lower_convert(L, n, np_load(L, np_offset(L, idata, np_mul(L, jn, istride)), idt), idt, i64);
        /* pieces == 1 (no points): the whole axis, nothing read is used */
        start = np_sel(L, first, i64c(L, 0), slice_bound(L, bp, len));
        LLVMValueRef end = np_sel(L, last, len, slice_bound(L, bn, len));
        size = smax(L, sub(L, end, start), i64c(L, 0));
    }
    LLVMValueRef psh[MAXD];
    for (int d = 0; d < nd; d++)
        psh[d] = np_sel(L, np_ieq(L, ax, i64c(L, d)), size, sh[d]);
    LLVMValueRef data = np_offset(L, data_of(L, a), np_sel(L, np_ieq(L, size, i64c(L, 0)), i64c(L, 0), np_mul(L, start, sax)));
    /* not a temporary (released after the statement, outside this loop):
     * the list takes its reference, then the view's goes */
    LLVMValueRef piece = np_view(L, a, ity, data, psh, st);
    lower_list_append(L, list, lt, piece);
    lower_decref(L, piece, ity);
    np_loop_end(L, &lp);
    lower_incref(L, list, lt);
    *owned = true;
    return list;
}

/* ---- select ---- */

typedef struct SelCtx {
    Type *cdt, *vdt, *dt;
} SelCtx;

static void select_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    SelCtx *c = vctx;
    LLVMValueRef on = lower_truth(L, np_at(L), np_load(L, p[0], c->cdt), c->cdt);
    LLVMValueRef x = lower_convert(L, np_at(L), np_load(L, p[1], c->vdt), c->vdt, c->dt);
    np_store(L, p[2], np_sel(L, on, x, np_load(L, p[2], c->dt)), c->dt);
}

/* One (condition, choice) pair written where the condition holds; both
 * must have out's shape. */
static void select_one(Lower *L, LLVMValueRef cv, Type *ct, LLVMValueRef vv, Type *vt, LLVMValueRef out, Type *rty,
                       LLVMValueRef *odims) {
    int nd = rty->ndim;
    LLVMValueRef csh[MAXD], vsh[MAXD], str[NP_MAX_OPS][MAXD];
    np_dims(L, cv, nd, csh, str[0]);
    np_dims(L, vv, nd, vsh, str[1]);
    np_dims(L, out, nd, NULL, str[2]);
    LLVMValueRef bad = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < nd; d++)
        bad = LLVMBuildOr(L->b, bad, LLVMBuildOr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, csh[d], odims[d], ""),
                                                  LLVMBuildICmp(L->b, LLVMIntNE, vsh[d], odims[d], ""), ""), "");
    lower_raise_if(L, bad, "ValueError", "shape mismatch: objects cannot be broadcast to a single shape");
    LLVMValueRef base[3] = {data_of(L, cv), data_of(L, vv), data_of(L, out)};
    SelCtx c = {ct->dtype, vt->dtype, rty->dtype};
    np_nest(L, nd, odims, 3, base, str, select_cb, &c);
}

/* select(condlist, choicelist, default): the default everywhere, then the
 * pairs from the last to the first, so that the first true condition wins. */
static LLVMValueRef select_call(Lower *L, Node *n, bool *owned) {
    Node *cn = np_arg(n, 0), *vn = np_arg(n, 1), *dn = np_arg(n, 2);
    Type *ctt = cn->ty, *vtt = vn->ty, *rty = n->ty, *dt = rty->dtype;
    LLVMValueRef cs = lower_expr_use(L, cn), vs = cs ? lower_expr_use(L, vn) : NULL;
    if (!vs)
        return NULL;
    LLVMValueRef dv = lower_zero(L, dt);
    if (dn) {
        LLVMValueRef d = lower_expr_use(L, dn);
        if (!d)
            return NULL;
        dv = lower_convert(L, dn, d, dn->ty, dt);
    }
    bool clist = ctt->kind == TY_LIST, vlist = vtt->kind == TY_LIST;
    LLVMValueRef nc = clist ? lower_list_len(L, cn, cs, ctt) : i64c(L, ctt->nelems);
    LLVMValueRef nv = vlist ? lower_list_len(L, vn, vs, vtt) : i64c(L, vtt->nelems);
    lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntNE, nc, nv, ""), "ValueError",
                   "list of cases must be same length as list of conditions");
    lower_raise_if(L, np_ieq(L, nc, i64c(L, 0)), "ValueError", "select with an empty condition list is not possible");
    bool own;
    Type *v0t = vlist ? vtt->item : vtt->elems[0];
    LLVMValueRef v0 = vlist ? lower_list_item(L, vn, vs, vtt, i64c(L, 0), &own) : LLVMBuildExtractValue(L->b, vs, 0, "");
    LLVMValueRef dims[MAXD];
    np_dims(L, v0, rty->ndim, dims, NULL);
    LLVMValueRef out = np_own(L, np_alloc(L, rty, dims, false), rty);
    NpLoop lp;
    np_loop_begin(L, &lp, lower_array_field(L, out, ARR_NITEMS, ""));
    np_store(L, at_k(L, data_of(L, out), lp.i, dt), dv, dt);
    np_loop_end(L, &lp);
    (void)v0t;
    if (!clist && !vlist) {
        for (int i = ctt->nelems - 1; i >= 0; i--)
            select_one(L, LLVMBuildExtractValue(L->b, cs, (unsigned)i, ""), ctt->elems[i],
                       LLVMBuildExtractValue(L->b, vs, (unsigned)i, ""), vtt->elems[i], out, rty, dims);
        return np_give(L, out, rty, owned);
    }
    /* a list on either side: a loop over the pairs, last first; a tuple's
     * items are then all of one type (infer_nparray.c) */
    np_loop_begin(L, &lp, nc);
    LLVMValueRef j = sub(L, sub(L, nc, i64c(L, 1)), lp.i);
    bool o1, o2;
    Type *cit = clist ? ctt->item : ctt->elems[0], *vit = vlist ? vtt->item : vtt->elems[0];
    LLVMValueRef cj, vj;
    if (clist) {
        cj = lower_list_item(L, cn, cs, ctt, j, &o1);
    } else { /* a tuple of one array type: pick by a chain of selects */
        cj = LLVMBuildExtractValue(L->b, cs, 0, "");
        for (int i = 1; i < ctt->nelems; i++)
            cj = np_sel(L, np_ieq(L, j, i64c(L, i)), LLVMBuildExtractValue(L->b, cs, (unsigned)i, ""), cj);
        o1 = false;
    }
    if (vlist) {
        vj = lower_list_item(L, vn, vs, vtt, j, &o2);
    } else {
        vj = LLVMBuildExtractValue(L->b, vs, 0, "");
        for (int i = 1; i < vtt->nelems; i++)
            vj = np_sel(L, np_ieq(L, j, i64c(L, i)), LLVMBuildExtractValue(L->b, vs, (unsigned)i, ""), vj);
        o2 = false;
    }
    select_one(L, cj, cit, vj, vit, out, rty, dims);
    if (o1)
        lower_decref(L, cj, cit);
    if (o2)
        lower_decref(L, vj, vit);
    np_loop_end(L, &lp);
    if (own)
        lower_decref(L, v0, v0t);
    return np_give(L, out, rty, owned);
}

LLVMValueRef lower_nparray_make(Lower *L, Node *n, bool *owned) {
    *owned = false;
    switch (n->builtin) {
    case BI_NPA_DIAG: case BI_NPA_DIAGFLAT: return diag(L, n, owned);
    case BI_NPA_TRI: return tri(L, n, owned);
    case BI_NPA_FILL_DIAGONAL: return fill_diagonal(L, n);
    case BI_NPA_INDICES: return indices(L, n, owned);
    case BI_NPA_VANDER: return vander(L, n, owned);
    case BI_NPA_TRIL_INDICES: case BI_NPA_TRIU_INDICES: case BI_NPA_TRIL_INDICES_FROM: case BI_NPA_TRIU_INDICES_FROM:
        return tri_indices(L, n, owned);
    case BI_NPA_FLATNONZERO: case BI_NPA_EXTRACT: return select_true(L, n, owned);
    case BI_NPA_TRIM_ZEROS: return trim_zeros(L, n, owned);
    case BI_NPA_APPEND: return append(L, n, owned);
    case BI_NPA_DELETE: return delete(L, n, owned);
    case BI_NPA_INSERT: return insert(L, n, owned);
    case BI_NPA_EDIFF1D: return ediff1d(L, n, owned);
    case BI_NPA_RESIZE: return resize(L, n, owned);
    case BI_NPA_TAKE: return take(L, n, owned);
    case BI_NPA_TAKE_ALONG_AXIS: return take_along_axis(L, n, owned);
    case BI_NPA_COLUMN_STACK: case BI_NPA_DSTACK: return stack_cols(L, n, owned);
    case BI_NPA_SELECT: return select_call(L, n, owned);
    case BI_NPA_SPLIT: case BI_NPA_ARRAY_SPLIT: case BI_NPA_HSPLIT: case BI_NPA_VSPLIT: case BI_NPA_DSPLIT:
        return split(L, n, owned);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
    }
}
