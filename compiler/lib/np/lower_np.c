/* lower_np.c - NumPy reductions (sum, mean, var, argmin, cumsum...) and the
 * shared machinery of the shape and creation functions (lower_shape.c):
 * loops over N-d strided arrays, allocation, views, axis normalisation.
 *
 * Every array is walked through its byte strides, whatever its layout
 * type, so one code path serves C, F and strided views.  Floating-point
 * sums use NumPy's pairwise summation (8 accumulators, 128-element leaves)
 * emitted once per module as a recursive function, so results agree with
 * NumPy to rounding.  Tree shapes: see lib/np/infer_np.c. */
#include "lower_np.h"
#include "np.h"

#include "hpcjit/search.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------ */

Node *np_arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

Type *np_i64(Lower *L) { return ty_scalar(L->c->tc, TY_INT64); }

/* Where conversions report (they only fail on types inference rules out). */
const Node *np_at(Lower *L) { return L->spec->fn; }

void np_loop_begin(Lower *L, NpLoop *lp, LLVMValueRef n) {
    lp->pre = LLVMGetInsertBlock(L->b);
    lp->head = lower_block(L, "np.head");
    lp->body = lower_block(L, "np.body");
    lp->end = lower_block(L, "np.end");
    LLVMBuildBr(L->b, lp->head);
    lower_at(L, lp->head);
    lp->i = LLVMBuildPhi(L->b, L->t_i64, "i");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, lp->i, n, ""), lp->body, lp->end);
    lower_at(L, lp->body);
}

LLVMValueRef np_loop_end(Lower *L, NpLoop *lp) {
    LLVMValueRef next = LLVMBuildNUWAdd(L->b, lp->i, lower_i64(L, 1), "i.next");
    LLVMBasicBlockRef last = LLVMGetInsertBlock(L->b);
    LLVMValueRef back = LLVMBuildBr(L->b, lp->head);
    LLVMValueRef in[2] = {lower_i64(L, 0), next};
    LLVMBasicBlockRef from[2] = {lp->pre, last};
    LLVMAddIncoming(lp->i, in, from, 2);
    lower_at(L, lp->end);
    return back;
}

LLVMValueRef np_load(Lower *L, LLVMValueRef p, Type *dt) {
    LLVMValueRef v = lower_load(L, lower_mem_type(L, dt), p, "elem");
    LLVMSetAlignment(v, (unsigned)(ty_is_complex(dt) ? ty_itemsize(dt) / 2 : ty_itemsize(dt)));
    return lower_from_mem(L, v, dt);
}

void np_store(Lower *L, LLVMValueRef p, LLVMValueRef v, Type *dt) {
    LLVMValueRef st = LLVMBuildStore(L->b, lower_to_mem(L, v, dt), p);
    LLVMSetAlignment(st, (unsigned)(ty_is_complex(dt) ? ty_itemsize(dt) / 2 : ty_itemsize(dt)));
}

LLVMValueRef np_offset(Lower *L, LLVMValueRef p, LLVMValueRef bytes) {
    return LLVMBuildGEP2(L->b, L->t_i8, p, &bytes, 1, "");
}

LLVMValueRef np_mul(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildMul(L->b, a, b, ""); }

LLVMValueRef np_sel(Lower *L, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
    return LLVMBuildSelect(L->b, c, a, b, "");
}

LLVMValueRef np_ieq(Lower *L, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildICmp(L->b, LLVMIntEQ, a, b, ""); }

void np_dims(Lower *L, LLVMValueRef arr, int nd, LLVMValueRef *shape, LLVMValueRef *strides) {
    for (int d = 0; d < nd; d++) {
        if (shape)
            shape[d] = lower_array_dim(L, arr, ARR_SHAPE, d);
        if (strides)
            strides[d] = lower_array_dim(L, arr, ARR_STRIDES, d);
    }
}

/* A new array of type aty with dims[0..nd): checked sizes, C or F strides.
 * Owned, and registered as a temporary when `temp`. */
LLVMValueRef np_alloc(Lower *L, Type *aty, LLVMValueRef *dims, bool zeroed) {
    int nd = aty->ndim;
    int64_t isz = ty_itemsize(aty->dtype);
    LLVMValueRef neg = LLVMConstInt(L->t_i1, 0, 0);
    for (int d = 0; d < nd; d++)
        neg = LLVMBuildOr(L->b, neg, LLVMBuildICmp(L->b, LLVMIntSLT, dims[d], lower_i64(L, 0), ""), "");
    lower_raise_if(L, neg, "ValueError", "negative dimensions are not allowed");
    LLVMTypeRef tys[1] = {L->t_i64};
    LLVMValueRef nitems = lower_i64(L, 1), ovf = LLVMConstInt(L->t_i1, 0, 0), nbytes = NULL;
    for (int d = 0; d <= nd; d++) {
        LLVMValueRef a[2] = {nitems, d < nd ? dims[d] : lower_i64(L, isz)};
        LLVMValueRef r = lower_intrinsic(L, "llvm.smul.with.overflow", tys, 1, a, 2);
        ovf = LLVMBuildOr(L->b, ovf, LLVMBuildExtractValue(L->b, r, 1, ""), "");
        if (d < nd)
            nitems = LLVMBuildExtractValue(L->b, r, 0, "nitems");
        else
            nbytes = LLVMBuildExtractValue(L->b, r, 0, "nbytes");
    }
    lower_raise_if(L, ovf, "MemoryError",
                   "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.");
    LLVMTypeRef pt = L->t_i64;
    LLVMValueRef mi = lower_rt(L, zeroed ? "rt_alloc_zeroed" : "rt_alloc", L->t_ptr, &pt, 1, &nbytes);
    LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildIsNull(L->b, mi, ""), "np.alloc.failed");
    lower_goto_error(L);
    lower_at(L, ok);
    LLVMValueRef data = lower_load(L, L->t_ptr, LLVMBuildStructGEP2(L->b, L->t_meminfo, mi, 1, ""), "data");
    LLVMValueRef strides[HJ_MAX_NDIM_LOWER];
    LLVMValueRef acc = lower_i64(L, isz);
    bool f = aty->layout == LAYOUT_F;
    for (int k = 0; k < nd; k++) {
        int d = f ? k : nd - 1 - k;
        strides[d] = acc;
        acc = np_mul(L, acc, dims[d]);
    }
    return np_make(L, aty, mi, LLVMConstNull(L->t_ptr), data, dims, strides);
}

/* An array value from its parts; nitems is the product of the dims. */
LLVMValueRef np_make(Lower *L, Type *aty, LLVMValueRef mi, LLVMValueRef parent, LLVMValueRef data,
                     LLVMValueRef *shape, LLVMValueRef *strides) {
    int nd = aty->ndim;
    LLVMTypeRef dims_t = LLVMArrayType2(L->t_i64, (uint64_t)nd);
    LLVMValueRef sh = LLVMGetUndef(dims_t), st = LLVMGetUndef(dims_t);
    LLVMValueRef nitems = lower_i64(L, 1);
    for (int d = 0; d < nd; d++) {
        sh = LLVMBuildInsertValue(L->b, sh, shape[d], (unsigned)d, "");
        st = LLVMBuildInsertValue(L->b, st, strides[d], (unsigned)d, "");
        nitems = np_mul(L, nitems, shape[d]);
    }
    LLVMValueRef v = LLVMGetUndef(lower_type(L, aty));
    v = LLVMBuildInsertValue(L->b, v, mi, ARR_MEMINFO, "");
    v = LLVMBuildInsertValue(L->b, v, parent, ARR_PARENT, "");
    v = LLVMBuildInsertValue(L->b, v, nitems, ARR_NITEMS, "");
    v = LLVMBuildInsertValue(L->b, v, lower_i64(L, ty_itemsize(aty->dtype)), ARR_ITEMSIZE, "");
    v = LLVMBuildInsertValue(L->b, v, data, ARR_DATA, "");
    v = LLVMBuildInsertValue(L->b, v, sh, ARR_SHAPE, "");
    return LLVMBuildInsertValue(L->b, v, st, ARR_STRIDES, "arr");
}

/* A view of `src` (same meminfo and parent, one more reference). */
LLVMValueRef np_view(Lower *L, LLVMValueRef src, Type *rty, LLVMValueRef data, LLVMValueRef *shape,
                     LLVMValueRef *strides) {
    LLVMValueRef v = np_make(L, rty, lower_array_field(L, src, ARR_MEMINFO, ""),
                             lower_array_field(L, src, ARR_PARENT, ""), data, shape, strides);
    lower_incref(L, v, rty);
    return v;
}

/* Normalise a (runtime) axis for ndim `nd`: negative counts from the end;
 * out of range raises NumPy's AxisError (numpy.exceptions.AxisError, a
 * ValueError and an IndexError) with NumPy's message. */
LLVMValueRef np_axis(Lower *L, LLVMValueRef axis, int nd) {
    LLVMValueRef a = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, axis, lower_i64(L, 0), ""),
                            LLVMBuildAdd(L->b, axis, lower_i64(L, nd), ""), axis);
    LLVMValueRef bad = LLVMBuildICmp(L->b, LLVMIntUGE, a, lower_i64(L, nd), "");
    LLVMBasicBlockRef ok = lower_branch_raise(L, bad, "axis.bad");
    LLVMTypeRef p[2] = {L->t_i64, L->t_i64};
    LLVMValueRef args[2] = {axis, lower_i64(L, nd)};
    lower_rt(L, "rt_raise_axis", L->t_void, p, 2, args);
    lower_goto_error(L);
    lower_at(L, ok);
    /* a constant out of range has raised above and what follows is never
     * reached, but callers that specialise on a constant axis would index
     * their arrays with it while lowering: hand them axis 0 */
    if (LLVMIsAConstantInt(a) && (LLVMConstIntGetSExtValue(a) < 0 || LLVMConstIntGetSExtValue(a) >= nd))
        return lower_i64(L, 0);
    return a;
}

/* Element j of v[0..n) at a runtime index (a chain of selects). */
LLVMValueRef np_pick(Lower *L, LLVMValueRef *v, int n, LLVMValueRef j) {
    if (n == 0)
        return lower_i64(L, 0);
    LLVMValueRef r = v[0];
    for (int d = 1; d < n; d++)
        r = np_sel(L, np_ieq(L, j, lower_i64(L, d)), v[d], r);
    return r;
}

/* out[0..n-1) = v without element `axis` (runtime). */
void np_drop(Lower *L, LLVMValueRef *v, int n, LLVMValueRef axis, LLVMValueRef *out) {
    for (int j = 0; j < n - 1; j++)
        out[j] = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, lower_i64(L, j), axis, ""), v[j], v[j + 1]);
}

/* Nested loops over dims[0..nd) in C order, moving nops pointers by their
 * strides; fn is called with the pointers of each element. */
static void nest_rec(Lower *L, int d, int nd, LLVMValueRef *dims, int nops, LLVMValueRef *ptrs,
                     LLVMValueRef (*strides)[HJ_MAX_NDIM_LOWER + 2], NpElemFn fn, void *ctx) {
    if (d == nd) {
        fn(L, ctx, ptrs);
        return;
    }
    NpLoop lp;
    np_loop_begin(L, &lp, dims[d]);
    LLVMValueRef p[NP_MAX_OPS];
    for (int k = 0; k < nops; k++)
        p[k] = np_offset(L, ptrs[k], np_mul(L, lp.i, strides[k][d]));
    nest_rec(L, d + 1, nd, dims, nops, p, strides, fn, ctx);
    np_loop_end(L, &lp);
}

void np_nest(Lower *L, int nd, LLVMValueRef *dims, int nops, LLVMValueRef *base,
             LLVMValueRef (*strides)[HJ_MAX_NDIM_LOWER + 2], NpElemFn fn, void *ctx) {
    nest_rec(L, 0, nd, dims, nops, base, strides, fn, ctx);
}

/* ---- element-wise copy with conversion ------------------------------------ */

typedef struct CopyCtx {
    Type *sdt, *ddt;
} CopyCtx;

static void copy_elem(Lower *L, void *vctx, LLVMValueRef *p) {
    CopyCtx *c = vctx;
    LLVMValueRef v = np_load(L, p[0], c->sdt);
    np_store(L, p[1], lower_convert(L, np_at(L), v, c->sdt, c->ddt), c->ddt);
}

void np_copy_nd(Lower *L, int nd, LLVMValueRef *dims, LLVMValueRef src, LLVMValueRef *sstr, Type *sdt,
                LLVMValueRef dst, LLVMValueRef *dstr, Type *ddt) {
    LLVMValueRef strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    for (int d = 0; d < nd; d++) {
        strides[0][d] = sstr[d];
        strides[1][d] = dstr[d];
    }
    LLVMValueRef base[2] = {src, dst};
    CopyCtx c = {sdt, ddt};
    np_nest(L, nd, dims, 2, base, strides, copy_elem, &c);
}

/* A new C array of type rty holding the elements of src (any layout). */
LLVMValueRef np_copy_c(Lower *L, LLVMValueRef src, Type *sty, Type *rty) {
    int nd = sty->ndim;
    LLVMValueRef dims[HJ_MAX_NDIM_LOWER + 1], ss[HJ_MAX_NDIM_LOWER + 1], ds[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, src, nd, dims, ss);
    Type *cty = ty_array(L->c->tc, rty->dtype, nd, LAYOUT_C);
    LLVMValueRef r = np_alloc(L, cty, dims, false);
    np_dims(L, r, nd, NULL, ds);
    np_copy_nd(L, nd, dims, lower_array_field(L, src, ARR_DATA, ""), ss, sty->dtype, lower_array_field(L, r, ARR_DATA, ""),
               ds, rty->dtype);
    return r;
}

/* ---- arithmetic on element values ---------------------------------------- */

static bool is_cplx(Type *t) { return ty_is_complex(t); }

static LLVMValueRef cpart(Lower *L, LLVMValueRef v, unsigned i) { return LLVMBuildExtractValue(L->b, v, i, ""); }

static LLVMValueRef cmake(Lower *L, Type *t, LLVMValueRef re, LLVMValueRef im) {
    LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
    v = LLVMBuildInsertValue(L->b, v, re, 0, "");
    return LLVMBuildInsertValue(L->b, v, im, 1, "");
}

/* a + b, a - b, a * b in type t without fast-math (NumPy's rounding). */
LLVMValueRef np_arith(Lower *L, char op, Type *t, LLVMValueRef a, LLVMValueRef b) {
    LLVMBuilderRef B = L->b;
    if (t->kind == TY_BOOL) {
        if (op == '+')
            return LLVMBuildOr(B, a, b, "");
        if (op == '*')
            return LLVMBuildAnd(B, a, b, "");
        return LLVMBuildXor(B, a, b, "");
    }
    if (ty_is_npdt(t)) { /* sums of timedeltas (infer_np.c): NaT in, NaT out */
        LLVMValueRef r = op == '-' ? LLVMBuildSub(B, a, b, "") : LLVMBuildAdd(B, a, b, "");
        return LLVMBuildSelect(B, LLVMBuildOr(B, lower_dt_isnat(L, a), lower_dt_isnat(L, b), ""),
                               lower_i64(L, TY_NAT), r, "");
    }
    if (ty_is_int(t))
        return op == '+' ? LLVMBuildAdd(B, a, b, "") : op == '-' ? LLVMBuildSub(B, a, b, "") : LLVMBuildMul(B, a, b, "");
    if (ty_is_float(t))
        return op == '+' ? LLVMBuildFAdd(B, a, b, "") : op == '-' ? LLVMBuildFSub(B, a, b, "") : LLVMBuildFMul(B, a, b, "");
    LLVMValueRef ar = cpart(L, a, 0), ai = cpart(L, a, 1), br = cpart(L, b, 0), bi = cpart(L, b, 1);
    if (op == '+')
        return cmake(L, t, LLVMBuildFAdd(B, ar, br, ""), LLVMBuildFAdd(B, ai, bi, ""));
    if (op == '-')
        return cmake(L, t, LLVMBuildFSub(B, ar, br, ""), LLVMBuildFSub(B, ai, bi, ""));
    return cmake(L, t, LLVMBuildFSub(B, LLVMBuildFMul(B, ar, br, ""), LLVMBuildFMul(B, ai, bi, ""), ""),
                 LLVMBuildFAdd(B, LLVMBuildFMul(B, ar, bi, ""), LLVMBuildFMul(B, ai, br, ""), ""));
}

static LLVMValueRef const_of(Lower *L, Type *t, double v) {
    if (ty_is_float(t))
        return LLVMConstReal(lower_type(L, t), v);
    if (is_cplx(t)) {
        LLVMTypeRef pt = t->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
        LLVMValueRef p[2] = {LLVMConstReal(pt, v), LLVMConstReal(pt, 0.0)};
        return LLVMConstStructInContext(L->ctx, p, 2, 0);
    }
    return LLVMConstInt(lower_type(L, t), (unsigned long long)(int64_t)v, 1);
}

LLVMValueRef np_one(Lower *L, Type *t) { return const_of(L, t, 1.0); }

int32_t np_dt_code(Type *dt) {
    int k = dt->kind == TY_BOOL     ? RT_K_BOOL
            : ty_is_signed(dt)      ? RT_K_INT
            : ty_is_unsigned(dt)    ? RT_K_UINT
            : ty_is_float(dt)       ? RT_K_FLOAT
            : ty_is_npdt(dt)        ? RT_K_DATETIME
                                    : RT_K_COMPLEX;
    return RT_DT(k, ty_itemsize(dt));
}

LLVMValueRef np_own(Lower *L, LLVMValueRef v, Type *t) {
    lower_temp(L, v, t, true);
    return v;
}

LLVMValueRef np_give(Lower *L, LLVMValueRef v, Type *t, bool *owned) {
    lower_incref(L, v, t);
    *owned = true;
    return v;
}

/* ---- pairwise summation ---------------------------------------------------- */

/* mode 0: x converted to acc; mode 1: |x - c|^2 with x, c in ct; mode 2:
 * x converted to acc, NaN as 0 (np.nansum). */
static LLVMValueRef elem_value(Lower *L, LLVMValueRef x, Type *src, Type *acc, Type *ct, LLVMValueRef c, int mode) {
    if (mode == 0)
        return lower_convert(L, np_at(L), x, src, acc);
    if (mode == 2)
        return np_sel(L, LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""), lower_zero(L, acc),
                      lower_convert(L, np_at(L), x, src, acc));
    if (mode == 3) /* mode 1 with NaN as 0 (np.nanvar) */
        return np_sel(L, LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, ""), lower_zero(L, acc),
                      elem_value(L, x, src, acc, ct, c, 1));
    LLVMValueRef d = np_arith(L, '-', ct, lower_convert(L, np_at(L), x, src, ct), c);
    if (is_cplx(ct)) {
        LLVMValueRef re = cpart(L, d, 0), im = cpart(L, d, 1);
        return LLVMBuildFAdd(L->b, LLVMBuildFMul(L->b, re, re, ""), LLVMBuildFMul(L->b, im, im, ""), "");
    }
    return LLVMBuildFMul(L->b, d, d, "");
}

/* NumPy's pairwise_sum over n elements of `src` at byte stride s, each
 * converted to `acc` (mode 0), or the sum of |x - c|^2 in `acc` (mode 1,
 * c of type `ct`).  Complex values are summed as interleaved parts like
 * NumPy does (4 complex accumulators, 64-element leaves). */
static LLVMValueRef pairwise_fn(Lower *L, Type *src, Type *acc, Type *ct, int mode) {
    char name[96];
    StrBuf tb;
    sb_init(&tb);
    ty_name(&tb, src);
    sb_putc(&tb, '.');
    ty_name(&tb, acc);
    snprintf(name, sizeof name, "hj.pairwise.%d.%s", mode, tb.s ? tb.s : "");
    sb_free(&tb);
    LLVMTypeRef at = lower_type(L, acc);
    bool centred = mode == 1 || mode == 3;
    LLVMTypeRef params[4] = {L->t_ptr, L->t_i64, L->t_i64, centred ? lower_type(L, ct) : L->t_i64};
    LLVMTypeRef fty = LLVMFunctionType(at, params, 4, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fn)
        return fn;
    fn = LLVMAddFunction(L->mod, name, fty);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    /* emit the body with the lowering's builder pointed at the new function */
    LLVMBasicBlockRef saved_bb = LLVMGetInsertBlock(L->b);
    LLVMValueRef saved_fn = L->fn;
    LLVMBasicBlockRef saved_entry = L->entry_bb;
    L->fn = fn;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    LLVMValueRef p = LLVMGetParam(fn, 0), n = LLVMGetParam(fn, 1), s = LLVMGetParam(fn, 2), c = LLVMGetParam(fn, 3);
    int K = is_cplx(acc) ? 2 : 1;
    int nacc = 8 / K, leaf = 128 / K;
    LLVMValueRef zero = lower_zero(L, acc);
    /* x(i): element i, converted (mode 0) or squared deviation (mode 1) */
#define ELEM(i)                                                                                          \
    elem_value(L, np_load(L, np_offset(L, p, np_mul(L, (i), s)), src), src, acc, ct, c, mode)
    LLVMBasicBlockRef seq = lower_block(L, "pw.seq"), notseq = lower_block(L, "pw.notseq");
    LLVMBasicBlockRef leafb = lower_block(L, "pw.leaf"), split = lower_block(L, "pw.split");
    LLVMValueRef accs = LLVMBuildAlloca(L->b, LLVMArrayType2(at, (uint64_t)nacc), "acc");
    LLVMValueRef res = LLVMBuildAlloca(L->b, at, "res");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, n, lower_i64(L, nacc), ""), seq, notseq);
    lower_at(L, notseq);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLE, n, lower_i64(L, leaf), ""), leafb, split);
    /* n < 8 scalars: a plain loop */
    lower_at(L, seq);
    LLVMBuildStore(L->b, zero, res);
    NpLoop lp;
    np_loop_begin(L, &lp, n);
    LLVMBuildStore(L->b, np_arith(L, '+', acc, lower_load(L, at, res, ""), ELEM(lp.i)), res);
    np_loop_end(L, &lp);
    LLVMBuildRet(L->b, lower_load(L, at, res, "sum"));
    /* leaf: nacc running accumulators */
    lower_at(L, leafb);
    for (int j = 0; j < nacc; j++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, j)};
        LLVMBuildStore(L->b, ELEM(lower_i64(L, j)), lower_gep(L, LLVMArrayType2(at, (uint64_t)nacc), accs, idx, 2, ""));
    }
    LLVMValueRef nblk = LLVMBuildSub(L->b, LLVMBuildSDiv(L->b, n, lower_i64(L, nacc), ""), lower_i64(L, 1), "");
    np_loop_begin(L, &lp, nblk);
    LLVMValueRef i0 = np_mul(L, LLVMBuildAdd(L->b, lp.i, lower_i64(L, 1), ""), lower_i64(L, nacc));
    for (int j = 0; j < nacc; j++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, j)};
        LLVMValueRef ap = lower_gep(L, LLVMArrayType2(at, (uint64_t)nacc), accs, idx, 2, "");
        LLVMValueRef x = ELEM(LLVMBuildAdd(L->b, i0, lower_i64(L, j), ""));
        LLVMBuildStore(L->b, np_arith(L, '+', acc, lower_load(L, at, ap, ""), x), ap);
    }
    /* the nacc sums are the vector lanes already (the SLP vectorizer packs
     * them); the loop vectorizer, with ordered reductions, would gather
     * each accumulator's elements and add them one at a time */
    lower_loop_hint(L, np_loop_end(L, &lp), "llvm.loop.vectorize.enable", 0);
    LLVMValueRef r[8];
    for (int j = 0; j < nacc; j++) {
        LLVMValueRef idx[2] = {lower_i64(L, 0), lower_i64(L, j)};
        r[j] = lower_load(L, at, lower_gep(L, LLVMArrayType2(at, (uint64_t)nacc), accs, idx, 2, ""), "");
    }
    LLVMValueRef tot;
    if (nacc == 8)
        tot = np_arith(L, '+', acc,
                       np_arith(L, '+', acc, np_arith(L, '+', acc, r[0], r[1]), np_arith(L, '+', acc, r[2], r[3])),
                       np_arith(L, '+', acc, np_arith(L, '+', acc, r[4], r[5]), np_arith(L, '+', acc, r[6], r[7])));
    else
        tot = np_arith(L, '+', acc, np_arith(L, '+', acc, r[0], r[1]), np_arith(L, '+', acc, r[2], r[3]));
    LLVMBuildStore(L->b, tot, res);
    LLVMValueRef done = LLVMBuildSub(L->b, n, LLVMBuildSRem(L->b, n, lower_i64(L, nacc), ""), "");
    LLVMValueRef rest = LLVMBuildSub(L->b, n, done, "");
    np_loop_begin(L, &lp, rest);
    LLVMBuildStore(L->b, np_arith(L, '+', acc, lower_load(L, at, res, ""), ELEM(LLVMBuildAdd(L->b, done, lp.i, ""))), res);
    np_loop_end(L, &lp);
    LLVMBuildRet(L->b, lower_load(L, at, res, "sum"));
    /* split: n2 = n/2 scalars rounded down to a multiple of 8 */
    lower_at(L, split);
    LLVMValueRef ns = np_mul(L, n, lower_i64(L, K));
    LLVMValueRef n2 = LLVMBuildSDiv(L->b, ns, lower_i64(L, 2), "");
    n2 = LLVMBuildSub(L->b, n2, LLVMBuildSRem(L->b, n2, lower_i64(L, 8), ""), "");
    LLVMValueRef m = LLVMBuildSDiv(L->b, n2, lower_i64(L, K), "m");
    LLVMValueRef a1[4] = {p, m, s, c};
    LLVMValueRef s1 = lower_call(L, fty, fn, a1, 4, "");
    LLVMValueRef a2[4] = {np_offset(L, p, np_mul(L, m, s)), LLVMBuildSub(L->b, n, m, ""), s, c};
    LLVMValueRef s2 = lower_call(L, fty, fn, a2, 4, "");
    LLVMBuildRet(L->b, np_arith(L, '+', acc, s1, s2));
#undef ELEM
    L->fn = saved_fn;
    L->entry_bb = saved_entry;
    lower_at(L, saved_bb);
    return fn;
}

/* ---- reductions ------------------------------------------------------------ */

typedef struct Red {
    BuiltinId op;
    Type *dt;          /* element type of the source */
    Type *acc;         /* accumulator type */
    LLVMValueRef slot; /* accumulator */
    LLVMValueRef idx;  /* argmin/argmax: best index so far */
    int mode;          /* pairwise mode (1: var second pass, 2: NaN as 0, 3: 1 with NaN as 0) */
    int nan;           /* float sources: 1 skip NaNs (nan* functions), 2 count the non-NaNs */
    Type *ct;          /* mode 1: type of the centre */
    LLVMValueRef centre;
    LLVMValueRef cstride; /* red_row_par: the row's byte stride when a constant, else NULL */
} Red;

static bool is_minmax(BuiltinId op) {
    return op == BI_NP_AMIN || op == BI_NP_AMAX || op == BI_NP_ARGMIN || op == BI_NP_ARGMAX;
}

static bool wants_min(BuiltinId op) { return op == BI_NP_AMIN || op == BI_NP_ARGMIN; }

/* Start value of a min/max: +-inf for floats, the extreme of ints. */
static LLVMValueRef better_nan(Lower *L, Type *t, bool for_min, LLVMValueRef x, LLVMValueRef cur, bool skip_nan);

static LLVMValueRef extreme(Lower *L, Type *t, bool for_min) {
    if (t->kind == TY_BOOL)
        return LLVMConstInt(L->t_i1, for_min ? 1 : 0, 0);
    if (ty_is_npdt(t)) /* INT64_MIN is NaT: the least count is one above */
        return lower_i64(L, for_min ? INT64_MAX : TY_NAT + 1);
    if (ty_is_float(t))
        return LLVMConstReal(lower_type(L, t), for_min ? INFINITY : -INFINITY);
    if (is_cplx(t)) {
        LLVMTypeRef pt = t->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
        LLVMValueRef p[2] = {LLVMConstReal(pt, for_min ? INFINITY : -INFINITY), LLVMConstReal(pt, for_min ? INFINITY : -INFINITY)};
        return LLVMConstStructInContext(L->ctx, p, 2, 0);
    }
    int bits = ty_bits(t);
    LLVMTypeRef it = lower_type(L, t);
    if (ty_is_unsigned(t))
        return for_min ? LLVMConstAllOnes(it) : LLVMConstNull(it);
    unsigned long long mx = bits == 64 ? (unsigned long long)INT64_MAX : (1ULL << (bits - 1)) - 1;
    return for_min ? LLVMConstInt(it, mx, 0) : LLVMConstInt(it, (unsigned long long)(-(long long)mx - 1), 1);
}

/* x strictly better than cur (NaN wins over numbers and then stays). */
static LLVMValueRef better(Lower *L, Type *t, bool for_min, LLVMValueRef x, LLVMValueRef cur) {
    return better_nan(L, t, for_min, x, cur, false);
}

/* skip_nan (np.nanmin/nanmax): a NaN never wins, a number beats a NaN.
 * NaT is a datetime's NaN (NumPy's loops). */
static LLVMValueRef better_nan(Lower *L, Type *t, bool for_min, LLVMValueRef x, LLVMValueRef cur, bool skip_nan) {
    LLVMBuilderRef B = L->b;
    if (ty_is_npdt(t)) {
        LLVMValueRef xnat = lower_dt_isnat(L, x), cnat = lower_dt_isnat(L, cur);
        LLVMValueRef lt = LLVMBuildICmp(B, for_min ? LLVMIntSLT : LLVMIntSGT, x, cur, "");
        lt = LLVMBuildAnd(B, lt, LLVMBuildNot(B, LLVMBuildOr(B, xnat, cnat, ""), ""), "");
        if (skip_nan) /* a count beats NaT */
            return LLVMBuildOr(B, lt, LLVMBuildAnd(B, cnat, LLVMBuildNot(B, xnat, ""), ""), "");
        return LLVMBuildOr(B, lt, LLVMBuildAnd(B, xnat, LLVMBuildNot(B, cnat, ""), ""), "");
    }
    if (skip_nan && ty_is_float(t)) {
        LLVMValueRef lt = LLVMBuildFCmp(B, for_min ? LLVMRealOLT : LLVMRealOGT, x, cur, "");
        LLVMValueRef fill = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealUNO, cur, cur, ""),
                                         LLVMBuildFCmp(B, LLVMRealORD, x, x, ""), "");
        return LLVMBuildOr(B, lt, fill, "");
    }
    if (t->kind == TY_BOOL || ty_is_int(t)) {
        LLVMIntPredicate p = ty_is_unsigned(t) ? (for_min ? LLVMIntULT : LLVMIntUGT)
                                               : (for_min ? LLVMIntSLT : LLVMIntSGT);
        if (t->kind == TY_BOOL)
            p = for_min ? LLVMIntULT : LLVMIntUGT;
        return LLVMBuildICmp(B, p, x, cur, "");
    }
    if (ty_is_float(t)) {
        LLVMValueRef lt = LLVMBuildFCmp(B, for_min ? LLVMRealOLT : LLVMRealOGT, x, cur, "");
        LLVMValueRef nan = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealUNO, x, x, ""), LLVMBuildFCmp(B, LLVMRealORD, cur, cur, ""), "");
        return LLVMBuildOr(B, lt, nan, "");
    }
    /* complex: lexicographic, as NumPy orders them */
    LLVMValueRef xr = cpart(L, x, 0), xi = cpart(L, x, 1), cr = cpart(L, cur, 0), ci = cpart(L, cur, 1);
    LLVMRealPredicate p = for_min ? LLVMRealOLT : LLVMRealOGT;
    return LLVMBuildOr(B, LLVMBuildFCmp(B, p, xr, cr, ""),
                       LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, xr, cr, ""), LLVMBuildFCmp(B, p, xi, ci, ""), ""), "");
}

static void red_init(Lower *L, Red *R) {
    LLVMValueRef v;
    switch (R->op) {
    case BI_NP_PROD: case BI_NP_CUMPROD: v = np_one(L, R->acc); break;
    case BI_NP_ALL: v = LLVMConstInt(L->t_i1, 1, 0); break;
    case BI_NP_ANY: v = LLVMConstInt(L->t_i1, 0, 0); break;
    case BI_NP_AMIN: case BI_NP_AMAX: case BI_NP_ARGMIN: case BI_NP_ARGMAX:
        v = extreme(L, R->acc, wants_min(R->op));
        if (R->nan == 1 && ty_is_float(R->acc)) /* all-NaN gives NaN */
            v = LLVMConstReal(lower_type(L, R->acc), NAN);
        if (R->nan == 1 && ty_is_npdt(R->acc)) /* all-NaT gives NaT */
            v = lower_i64(L, TY_NAT);
        break;
    default: v = lower_zero(L, R->acc); break;
    }
    LLVMBuildStore(L->b, v, R->slot);
    if (R->idx)
        LLVMBuildStore(L->b, lower_i64(L, 0), R->idx);
}

static void red_row_loop(Lower *L, Red *R, LLVMValueRef p, LLVMValueRef n, LLVMValueRef s, LLVMValueRef base);

static bool red_pairwise(const Red *R) {
    return (R->op == BI_NP_SUM || R->op == BI_NP_MEAN) && !ty_is_int(R->acc) && R->acc->kind != TY_BOOL &&
           !ty_is_npdt(R->acc);
}

/* Fold one row (n elements at byte stride s, flat index of the first
 * element `base`) into the accumulator.  A run-time stride (an 'A' array:
 * `values[b:e, j]` in pandas' group loops) gets a second copy of the loop
 * for the common contiguous case: there the stride is the constant item
 * size and the loop vectorizes.  With the stride unknown, LLVM versions the
 * loop on a byte stride of 1 (never true for items wider than a byte) and
 * runs the scalar loop: `g.max()` of a 1000-item column slice took 8x
 * Numba's time (issue 15, pandas' groupby agg). */
static void red_row(Lower *L, Red *R, LLVMValueRef p, LLVMValueRef n, LLVMValueRef s, LLVMValueRef base) {
    if (red_pairwise(R) || LLVMIsAConstantInt(s)) {
        red_row_loop(L, R, p, n, s, base);
        return;
    }
    LLVMValueRef isz = lower_i64(L, ty_itemsize(R->dt));
    LLVMBasicBlockRef unit = lower_block(L, "red.unit"), strided = lower_block(L, "red.strided"),
                      done = lower_block(L, "red.rowdone");
    LLVMBuildCondBr(L->b, np_ieq(L, s, isz), unit, strided);
    lower_at(L, unit);
    red_row_loop(L, R, p, n, isz, base);
    LLVMBuildBr(L->b, done);
    lower_at(L, strided);
    red_row_loop(L, R, p, n, s, base);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
}

static void red_row_loop(Lower *L, Red *R, LLVMValueRef p, LLVMValueRef n, LLVMValueRef s, LLVMValueRef base) {
    LLVMTypeRef at = lower_type(L, R->acc);
    if (red_pairwise(R)) {
        LLVMValueRef fn = pairwise_fn(L, R->dt, R->acc, R->ct, R->mode);
        bool centred = R->mode == 1 || R->mode == 3;
        LLVMTypeRef params[4] = {L->t_ptr, L->t_i64, L->t_i64, centred ? lower_type(L, R->ct) : L->t_i64};
        LLVMValueRef args[4] = {p, n, s, centred ? R->centre : lower_i64(L, 0)};
        LLVMValueRef r = lower_call(L, LLVMFunctionType(at, params, 4, 0), fn, args, 4, "pw");
        LLVMBuildStore(L->b, np_arith(L, '+', R->acc, lower_load(L, at, R->slot, ""), r), R->slot);
        return;
    }
    LLVMValueRef nanflag = NULL;
    if (is_minmax(R->op) && !R->idx && !R->nan && ty_is_float(R->acc) && R->acc == R->dt && !LLVMIsAConstantInt(s)) {
        nanflag = lower_alloca(L, L->t_i1, "sawnan");
        LLVMBuildStore(L->b, LLVMConstInt(L->t_i1, 0, 0), nanflag);
    }
    NpLoop lp;
    np_loop_begin(L, &lp, n);
    LLVMValueRef x = np_load(L, np_offset(L, p, np_mul(L, lp.i, s)), R->dt);
    LLVMValueRef cur = lower_load(L, at, R->slot, "");
    LLVMValueRef nv;
    if (R->nan && ty_is_float(R->dt)) {
        LLVMValueRef isnan = LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "");
        if (R->nan == 2) { /* count the non-NaNs (np.nanmean's divisor) */
            nv = LLVMBuildAdd(L->b, cur, LLVMBuildZExt(L->b, LLVMBuildNot(L->b, isnan, ""), L->t_i64, ""), "");
            LLVMBuildStore(L->b, nv, R->slot);
            np_loop_end(L, &lp);
            return;
        }
        if (R->op == BI_NP_PROD || R->op == BI_NP_SUM) /* NaN as the identity */
            x = np_sel(L, isnan, R->op == BI_NP_PROD ? np_one(L, R->dt) : lower_zero(L, R->dt), x);
    }
    switch (R->op) {
    case BI_NP_PROD: nv = np_arith(L, '*', R->acc, cur, lower_convert(L, np_at(L), x, R->dt, R->acc)); break;
    case BI_NP_ALL: nv = LLVMBuildAnd(L->b, cur, lower_truth(L, np_at(L), x, R->dt), ""); break;
    case BI_NP_ANY: nv = LLVMBuildOr(L->b, cur, lower_truth(L, np_at(L), x, R->dt), ""); break;
    case BI_NP_AMIN: case BI_NP_AMAX: case BI_NP_ARGMIN: case BI_NP_ARGMAX: {
        if (!R->idx && !R->nan && ty_is_float(R->acc) && R->acc == R->dt && !LLVMIsAConstantInt(s)) {
            /* a run-time stride: the loop stays scalar, where IEEE
             * maximum is a chain of a compare, a blend and a max per item
             * (4.8 ns per item on AMD Zen 4).  Here the chain is one
             * maxsd-shaped select, and NaNs are or-ed into a flag beside it
             * (NumPy's result is then NaN) */
            LLVMValueRef isnan = LLVMBuildFCmp(L->b, LLVMRealUNO, x, x, "");
            LLVMValueRef lt = LLVMBuildFCmp(L->b, wants_min(R->op) ? LLVMRealOLT : LLVMRealOGT, x, cur, "");
            LLVMBuildStore(L->b, np_sel(L, lt, x, cur), R->slot); /* maxsd/minsd: x > cur ? x : cur */
            LLVMBuildStore(L->b, LLVMBuildOr(L->b, lower_load(L, L->t_i1, nanflag, ""), isnan, ""), nanflag);
            np_loop_end(L, &lp);
            LLVMValueRef v = lower_load(L, at, R->slot, "");
            LLVMValueRef q = LLVMConstReal(at, NAN);
            LLVMBuildStore(L->b, np_sel(L, lower_load(L, L->t_i1, nanflag, ""), q, v), R->slot);
            return;
        }
        if (!R->idx && !R->nan && ty_is_float(R->acc) && R->acc == R->dt) {
            /* IEEE minimum/maximum propagate NaN as NumPy does, and LLVM
             * vectorizes them (the select below stays scalar) */
            LLVMTypeRef ft = lower_type(L, R->acc);
            LLVMValueRef ab[2] = {cur, x};
            nv = lower_intrinsic(L, wants_min(R->op) ? "llvm.minimum" : "llvm.maximum", &ft, 1, ab, 2);
            break;
        }
        LLVMValueRef b = better_nan(L, R->acc, wants_min(R->op), x, cur, R->nan == 1);
        if (R->idx) {
            /* argmin/argmax: a branch, marked rare, around the update.  A new
             * best is rare after the first items, so the branch predicts
             * well; as selects, the best value and its index form a chain
             * of compares and mask moves through every item (9x slower on
             * 10^6 doubles on AMD Zen 4, where Numba keeps the branch). */
            LLVMBasicBlockRef upd = lower_block(L, "arg.better"), join = lower_block(L, "arg.next");
            lower_unlikely(L, LLVMBuildCondBr(L->b, b, upd, join));
            lower_at(L, upd);
            LLVMBuildStore(L->b, x, R->slot);
            LLVMBuildStore(L->b, LLVMBuildAdd(L->b, base, lp.i, ""), R->idx);
            LLVMBuildBr(L->b, join);
            lower_at(L, join);
            np_loop_end(L, &lp);
            return;
        }
        nv = np_sel(L, b, x, cur);
        break;
    }
    default: nv = np_arith(L, '+', R->acc, cur, lower_convert(L, np_at(L), x, R->dt, R->acc)); break;
    }
    LLVMBuildStore(L->b, nv, R->slot);
    np_loop_end(L, &lp);
}

/* ---- whole-array reductions on the pool (parallel=True) ----------------------
 * The row is cut into blocks that depend on its length alone (at least
 * LOWER_PAR_GRAIN items, at most PAR_MAX_BLOCKS blocks), each block is
 * reduced (np.sum: pairwise) into its own partial on the pool, and the
 * partials are combined in a fixed pairwise tree: the result is the same
 * for every thread count, bit for bit, deterministic=True or not. */
#define PAR_MAX_BLOCKS 1024

static bool red_par_ok(const Red *R) {
    if (R->nan)
        return false;
    switch (R->op) {
    case BI_NP_SUM: case BI_NP_PROD: case BI_NP_MEAN: case BI_NP_AMIN: case BI_NP_AMAX: case BI_NP_ALL:
    case BI_NP_ANY:
        return !R->idx;
    default: return false;
    }
}

/* partial a (earlier blocks) combined with b (later ones) */
static LLVMValueRef red_combine(Lower *L, Red *R, LLVMValueRef a, LLVMValueRef b) {
    switch (R->op) {
    case BI_NP_PROD: return np_arith(L, '*', R->acc, a, b);
    case BI_NP_ALL: return LLVMBuildAnd(L->b, a, b, "");
    case BI_NP_ANY: return LLVMBuildOr(L->b, a, b, "");
    case BI_NP_AMIN: case BI_NP_AMAX: return np_sel(L, better(L, R->acc, wants_min(R->op), b, a), b, a);
    default: return np_arith(L, '+', R->acc, a, b);
    }
}

/* vals: p, n, s, block, partials[, centre]; blocks [begin, end) */
static bool red_par_body(Lower *L, void *arg, LLVMValueRef *v, LLVMValueRef begin, LLVMValueRef end) {
    Red R = *(Red *)arg;
    LLVMTypeRef at = lower_type(L, R.acc);
    R.slot = lower_alloca(L, at, "acc");
    if (R.mode)
        R.centre = v[5];
    NpLoop lp;
    np_loop_begin(L, &lp, LLVMBuildSub(L->b, end, begin, ""));
    LLVMValueRef blk = LLVMBuildAdd(L->b, begin, lp.i, "blk");
    LLVMValueRef lo = np_mul(L, blk, v[3]);
    LLVMValueRef left = LLVMBuildSub(L->b, v[1], lo, "");
    LLVMValueRef cnt = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, left, v[3], ""), left, v[3]);
    red_init(L, &R);
    /* a constant stride (contiguous source) stays a constant in the block
     * body, so the vectorizer sees unit-stride loads; through the closure
     * it would be a run-time value */
    LLVMValueRef s = R.cstride ? R.cstride : v[2];
    red_row(L, &R, np_offset(L, v[0], np_mul(L, lo, s)), cnt, s, lo);
    LLVMBuildStore(L->b, lower_load(L, at, R.slot, ""), lower_gep(L, at, v[4], &blk, 1, ""));
    np_loop_end(L, &lp);
    return true;
}

/* red_row over a whole row of n items (byte stride s), on the pool when
 * the row has at least 2 * LOWER_PAR_GRAIN items. */
static void red_row_par(Lower *L, Red *R, LLVMValueRef p, LLVMValueRef n, LLVMValueRef s) {
    if (!lower_par_library(L) || !red_par_ok(R)) {
        red_row(L, R, p, n, s, lower_i64(L, 0));
        return;
    }
    LLVMBasicBlockRef par = lower_block(L, "red.pool"), ser = lower_block(L, "red.here"),
                      done = lower_block(L, "red.pooled");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSGE, n, lower_i64(L, 2 * LOWER_PAR_GRAIN), ""), par, ser);
    lower_at(L, ser);
    red_row(L, R, p, n, s, lower_i64(L, 0));
    LLVMBuildBr(L->b, done);

    lower_at(L, par);
    LLVMTypeRef at = lower_type(L, R->acc);
    LLVMValueRef most = LLVMBuildSDiv(L->b, LLVMBuildAdd(L->b, n, lower_i64(L, PAR_MAX_BLOCKS - 1), ""),
                                      lower_i64(L, PAR_MAX_BLOCKS), "");
    LLVMValueRef grain = lower_i64(L, LOWER_PAR_GRAIN);
    LLVMValueRef B = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSGT, most, grain, ""), most, grain);
    LLVMValueRef nb = LLVMBuildSDiv(L->b, LLVMBuildAdd(L->b, n, LLVMBuildSub(L->b, B, lower_i64(L, 1), ""), ""), B,
                                    "nblocks");
    LLVMValueRef parts = lower_alloca(L, LLVMArrayType2(at, PAR_MAX_BLOCKS), "partials");
    LLVMValueRef vals[6] = {p, n, s, B, parts, R->mode ? R->centre : NULL};
    R->cstride = LLVMIsAConstantInt(s) ? s : NULL;
    if (!lower_par_range(L, "reduce", nb, lower_i64(L, 1), R->mode ? 6 : 5, vals, red_par_body, R))
        return;
    /* tree: P[k] = P[k] op P[k + st] for k = 0, 2st, 4st, ...; st = 1, 2, 4, ... */
    LLVMValueRef st = lower_alloca(L, L->t_i64, "st"), ks = lower_alloca(L, L->t_i64, "k");
    LLVMBuildStore(L->b, lower_i64(L, 1), st);
    LLVMBasicBlockRef sh = lower_block(L, "tree.st"), sb = lower_block(L, "tree.stbody"),
                      kh = lower_block(L, "tree.k"), kb = lower_block(L, "tree.kbody"),
                      ke = lower_block(L, "tree.kend"), se = lower_block(L, "tree.end");
    LLVMBuildBr(L->b, sh);
    lower_at(L, sh);
    LLVMValueRef sv = lower_load(L, L->t_i64, st, "st");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, sv, nb, ""), sb, se);
    lower_at(L, sb);
    LLVMBuildStore(L->b, lower_i64(L, 0), ks);
    LLVMBuildBr(L->b, kh);
    lower_at(L, kh);
    LLVMValueRef k = lower_load(L, L->t_i64, ks, "k");
    LLVMValueRef k2 = LLVMBuildAdd(L->b, k, sv, "");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, k2, nb, ""), kb, ke);
    lower_at(L, kb);
    LLVMValueRef pa = lower_gep(L, at, parts, &k, 1, ""), pb = lower_gep(L, at, parts, &k2, 1, "");
    LLVMBuildStore(L->b, red_combine(L, R, lower_load(L, at, pa, ""), lower_load(L, at, pb, "")), pa);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, k2, sv, ""), ks);
    LLVMBuildBr(L->b, kh);
    lower_at(L, ke);
    LLVMBuildStore(L->b, LLVMBuildShl(L->b, sv, lower_i64(L, 1), ""), st);
    LLVMBuildBr(L->b, sh);
    lower_at(L, se);
    LLVMBuildStore(L->b, red_combine(L, R, lower_load(L, at, R->slot, ""), lower_load(L, at, parts, "")), R->slot);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
}

typedef struct RowsCtx {
    Red *R;
    LLVMValueRef n, s;   /* the reduced row: length and byte stride */
    LLVMValueRef count;  /* flat index of the next row's first element */
} RowsCtx;

static void rows_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    RowsCtx *c = vctx;
    LLVMValueRef base = lower_load(L, L->t_i64, c->count, "");
    red_row(L, c->R, p[0], c->n, c->s, base);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, base, c->n, ""), c->count);
}

/* Fold every element of arr (C order when `ordered`). */
static void red_all(Lower *L, Red *R, LLVMValueRef arr, Type *aty, bool ordered) {
    int nd = aty->ndim;
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "");
    LLVMValueRef isz = lower_i64(L, ty_itemsize(aty->dtype));
    if (nd == 0 || aty->layout == LAYOUT_C || (aty->layout == LAYOUT_F && !ordered)) {
        if (nd == 0)
            red_row(L, R, data, lower_i64(L, 1), isz, lower_i64(L, 0));
        else
            red_row_par(L, R, data, lower_array_field(L, arr, ARR_NITEMS, ""), isz);
        return;
    }
    LLVMValueRef shape[HJ_MAX_NDIM_LOWER], strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    np_dims(L, arr, nd, shape, strides[0]);
    RowsCtx c = {R, shape[nd - 1], strides[0][nd - 1], lower_alloca(L, L->t_i64, "flat")};
    LLVMBuildStore(L->b, lower_i64(L, 0), c.count);
    np_nest(L, nd - 1, shape, 1, &data, strides, rows_cb, &c);
}

/* The result of a finished accumulation (mean divides by count). */
static LLVMValueRef red_value(Lower *L, Red *R, LLVMValueRef count) {
    LLVMValueRef v = lower_load(L, lower_type(L, R->acc), R->slot, "");
    if (R->idx)
        return lower_load(L, L->t_i64, R->idx, "arg");
    if (R->op != BI_NP_MEAN)
        return v;
    if (ty_is_npdt(R->acc)) { /* NumPy's timedelta / int: truncated; NaT when empty */
        LLVMValueRef bad = LLVMBuildOr(L->b, lower_dt_isnat(L, v), np_ieq(L, count, lower_i64(L, 0)), "");
        LLVMValueRef q = LLVMBuildSDiv(L->b, v, np_sel(L, bad, lower_i64(L, 1), count), "mean");
        return np_sel(L, bad, lower_i64(L, TY_NAT), q);
    }
    if (is_cplx(R->acc)) {
        LLVMTypeRef pt = R->acc->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
        LLVMValueRef k = LLVMBuildSIToFP(L->b, count, pt, "");
        return cmake(L, R->acc, LLVMBuildFDiv(L->b, cpart(L, v, 0), k, ""), LLVMBuildFDiv(L->b, cpart(L, v, 1), k, ""));
    }
    if (!ty_is_float(R->acc)) { /* mean(dtype=int): NumPy divides, then casts back (truncating) */
        Type *f64 = ty_scalar(L->c->tc, TY_FLOAT64);
        LLVMValueRef q = LLVMBuildFDiv(L->b, lower_convert(L, np_at(L), v, R->acc, f64),
                                       LLVMBuildSIToFP(L->b, count, L->t_f64, ""), "mean");
        return lower_convert(L, np_at(L), q, f64, R->acc);
    }
    return LLVMBuildFDiv(L->b, v, LLVMBuildSIToFP(L->b, count, lower_type(L, R->acc), ""), "mean");
}

typedef struct RedPlan {
    BuiltinId op;
    Type *dt, *rt;   /* source element type, scalar result type */
    LLVMValueRef ddof;
} RedPlan;

/* The mean's type for var/std: the float (or complex) of the source. */
static Type *var_mean_type(Lower *L, Type *dt, Type *rt) {
    if (is_cplx(dt))
        return dt;
    return rt;
}

/* One whole reduction (over every element, or over one row per output
 * element via `row`): returns the scalar result. */
typedef struct Source {
    LLVMValueRef arr;  /* whole-array reduction when set */
    Type *aty;
    LLVMValueRef p, n, s; /* else one row */
} Source;

static void fold(Lower *L, Red *R, Source *src, bool ordered) {
    red_init(L, R);
    if (src->arr)
        red_all(L, R, src->arr, src->aty, ordered);
    else
        red_row_par(L, R, src->p, src->n, src->s);
}

/* The items of src that are not NaN (np.nanmean's and np.nanvar's
 * divisor): counted for floats, all of them otherwise. */
static LLVMValueRef nan_count(Lower *L, RedPlan *P, Source *src) {
    if (!ty_is_float(P->dt))
        return src->arr ? (src->aty->ndim == 0 ? lower_i64(L, 1) : lower_array_field(L, src->arr, ARR_NITEMS, ""))
                        : src->n;
    Red C = {0};
    C.op = BI_NP_SUM;
    C.dt = P->dt;
    C.acc = ty_scalar(L->c->tc, TY_INT64);
    C.nan = 2;
    C.slot = lower_alloca(L, L->t_i64, "count");
    fold(L, &C, src, false);
    return lower_load(L, L->t_i64, C.slot, "");
}

/* np.nansum/nanprod/nanmean/nanmin/nanmax and np.ptp (max - min). */
static LLVMValueRef reduce_nan_ptp(Lower *L, RedPlan *P, Source *src) {
    Red R = {0};
    R.dt = P->dt;
    R.nan = 1;
    switch (P->op) {
    case BI_NP_NANSUM: case BI_NP_NANMEAN: R.op = BI_NP_SUM; R.mode = ty_is_float(P->dt) ? 2 : 0; break;
    case BI_NP_NANPROD: R.op = BI_NP_PROD; break;
    case BI_NP_NANMIN: R.op = BI_NP_AMIN; break;
    case BI_NP_NANMAX: R.op = BI_NP_AMAX; break;
    default: { /* ptp */
        R.nan = 0;
        R.op = BI_NP_AMAX;
        R.acc = P->dt;
        R.slot = lower_alloca(L, lower_type(L, R.acc), "max");
        fold(L, &R, src, false);
        Red M = R;
        M.op = BI_NP_AMIN;
        M.slot = lower_alloca(L, lower_type(L, M.acc), "min");
        fold(L, &M, src, false);
        return np_arith(L, '-', P->dt, red_value(L, &R, NULL), red_value(L, &M, NULL));
    }
    }
    R.acc = (R.op == BI_NP_AMIN || R.op == BI_NP_AMAX) ? P->dt : P->rt;
    R.slot = lower_alloca(L, lower_type(L, R.acc), "acc");
    fold(L, &R, src, false);
    if (P->op != BI_NP_NANMEAN)
        return red_value(L, &R, NULL);
    R.op = BI_NP_MEAN;
    return red_value(L, &R, nan_count(L, P, src));
}

/* np.nanvar/np.nanstd: the mean and the squared deviations of the
 * non-NaN items, divided by their count - ddof (NaN when that is <= 0;
 * integer arrays as np.var). */
static LLVMValueRef reduce_nanvar(Lower *L, RedPlan *P, Source *src) {
    bool flt = ty_is_float(P->dt);
    Type *mt = var_mean_type(L, P->dt, P->rt);
    Red R = {0};
    R.op = BI_NP_SUM;
    R.dt = P->dt;
    R.acc = mt;
    R.nan = 1;
    R.mode = flt ? 2 : 0;
    R.slot = lower_alloca(L, lower_type(L, mt), "acc");
    fold(L, &R, src, false);
    LLVMValueRef cnt = nan_count(L, P, src);
    R.op = BI_NP_MEAN;
    LLVMValueRef mean = red_value(L, &R, cnt);
    Red S = {0};
    S.op = BI_NP_SUM;
    S.dt = P->dt;
    S.acc = P->rt;
    S.nan = 1;
    S.mode = flt ? 3 : 1;
    S.ct = mt;
    S.centre = mean;
    S.slot = lower_alloca(L, lower_type(L, P->rt), "acc2");
    fold(L, &S, src, false);
    LLVMTypeRef t = lower_type(L, P->rt);
    LLVMValueRef ss = lower_load(L, t, S.slot, "");
    LLVMValueRef dof = LLVMBuildSub(L->b, cnt, P->ddof ? P->ddof : lower_i64(L, 0), "");
    LLVMValueRef le0 = LLVMBuildICmp(L->b, LLVMIntSLE, dof, lower_i64(L, 0), "");
    if (!flt) /* integers: NumPy's np.var, dof clipped at 0 (inf or nan) */
        dof = np_sel(L, le0, lower_i64(L, 0), dof);
    LLVMValueRef v = LLVMBuildFDiv(L->b, ss, LLVMBuildSIToFP(L->b, dof, t, ""), "nanvar");
    if (flt)
        v = np_sel(L, le0, LLVMConstReal(t, NAN), v);
    if (P->op == BI_NP_NANSTD)
        v = lower_intrinsic(L, "llvm.sqrt", &t, 1, &v, 1);
    return v;
}

static LLVMValueRef reduce_one(Lower *L, RedPlan *P, Source *src, LLVMValueRef count) {
    Red R = {0};
    R.op = P->op;
    R.dt = P->dt;
    switch (P->op) {
    case BI_NP_NANSUM: case BI_NP_NANPROD: case BI_NP_NANMEAN: case BI_NP_NANMIN: case BI_NP_NANMAX:
    case BI_NP_PTP:
        return reduce_nan_ptp(L, P, src);
    case BI_NP_NANVAR: case BI_NP_NANSTD:
        return reduce_nanvar(L, P, src);
    default: break;
    }
    bool ordered = P->op == BI_NP_ARGMIN || P->op == BI_NP_ARGMAX;
    if (P->op == BI_NP_VAR || P->op == BI_NP_STD) {
        Type *mt = var_mean_type(L, P->dt, P->rt);
        R.op = BI_NP_MEAN;
        R.acc = mt;
        R.slot = lower_alloca(L, lower_type(L, mt), "acc");
        fold(L, &R, src, false);
        LLVMValueRef mean = red_value(L, &R, count);
        Red S = {0};
        S.op = BI_NP_SUM;
        S.dt = P->dt;
        S.acc = P->rt;
        S.mode = 1;
        S.ct = mt;
        S.centre = mean;
        S.slot = lower_alloca(L, lower_type(L, P->rt), "acc2");
        fold(L, &S, src, false);
        LLVMValueRef ss = lower_load(L, lower_type(L, P->rt), S.slot, "");
        LLVMValueRef dof = LLVMBuildSub(L->b, count, P->ddof ? P->ddof : lower_i64(L, 0), "");
        dof = np_sel(L, LLVMBuildICmp(L->b, LLVMIntSLT, dof, lower_i64(L, 0), ""), lower_i64(L, 0), dof);
        LLVMValueRef v = LLVMBuildFDiv(L->b, ss, LLVMBuildSIToFP(L->b, dof, lower_type(L, P->rt), ""), "var");
        if (P->op == BI_NP_STD) {
            LLVMTypeRef t = lower_type(L, P->rt);
            v = lower_intrinsic(L, "llvm.sqrt", &t, 1, &v, 1);
        }
        return v;
    }
    R.acc = is_minmax(P->op) ? P->dt : P->rt;
    if (P->op == BI_NP_ARGMIN || P->op == BI_NP_ARGMAX)
        R.idx = lower_alloca(L, L->t_i64, "argidx");
    if (P->op == BI_NP_ALL || P->op == BI_NP_ANY)
        R.acc = ty_scalar(L->c->tc, TY_BOOL);
    R.slot = lower_alloca(L, lower_type(L, R.acc), "acc");
    fold(L, &R, src, ordered);
    return red_value(L, &R, count);
}

static const char *empty_msg(BuiltinId op) {
    switch (op) {
    case BI_NP_AMIN: return "zero-size array to reduction operation minimum which has no identity";
    case BI_NP_AMAX: return "zero-size array to reduction operation maximum which has no identity";
    case BI_NP_ARGMIN: return "attempt to get argmin of an empty sequence";
    case BI_NP_ARGMAX: return "attempt to get argmax of an empty sequence";
    case BI_NP_NANMIN: return "zero-size array to reduction operation fmin which has no identity";
    case BI_NP_NANMAX: return "zero-size array to reduction operation fmax which has no identity";
    case BI_NP_PTP: return "zero-size array to reduction operation maximum which has no identity";
    default: return NULL;
    }
}

typedef struct AxisCtx {
    RedPlan *P;
    LLVMValueRef n, s;
} AxisCtx;

static void axis_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    AxisCtx *c = vctx;
    Source src = {NULL, NULL, p[0], c->n, c->s};
    LLVMValueRef v = reduce_one(L, c->P, &src, c->n);
    np_store(L, p[1], lower_convert(L, np_at(L), v, c->P->rt, c->P->rt), c->P->rt);
}

/* cumsum/cumprod along one row: src stride s, dst stride ds. */
typedef struct CumCtx {
    BuiltinId op;
    Type *dt, *rt;
    LLVMValueRef n, s, ds;
    LLVMValueRef slot;   /* running value (kept across rows when flat) */
    LLVMValueRef dst;    /* flat output: next destination pointer slot */
    bool keep;
    bool nan;            /* nancumsum/nancumprod */
} CumCtx;

static void cum_row(Lower *L, CumCtx *c, LLVMValueRef p, LLVMValueRef d) {
    LLVMTypeRef at = lower_type(L, c->rt);
    if (!c->keep)
        LLVMBuildStore(L->b, c->op == BI_NP_CUMPROD ? np_one(L, c->rt) : lower_zero(L, c->rt), c->slot);
    NpLoop lp;
    np_loop_begin(L, &lp, c->n);
    LLVMValueRef x0 = np_load(L, np_offset(L, p, np_mul(L, lp.i, c->s)), c->dt);
    LLVMValueRef x = lower_convert(L, np_at(L), x0, c->dt, c->rt);
    if (c->nan && ty_is_float(c->dt)) /* nancumsum/nancumprod: NaN as the identity */
        x = np_sel(L, LLVMBuildFCmp(L->b, LLVMRealUNO, x0, x0, ""),
                   c->op == BI_NP_CUMPROD ? np_one(L, c->rt) : lower_zero(L, c->rt), x);
    LLVMValueRef v = np_arith(L, c->op == BI_NP_CUMPROD ? '*' : '+', c->rt, lower_load(L, at, c->slot, ""), x);
    LLVMBuildStore(L->b, v, c->slot);
    np_store(L, np_offset(L, d, np_mul(L, lp.i, c->ds)), v, c->rt);
    np_loop_end(L, &lp);
}

static void cum_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    CumCtx *c = vctx;
    if (c->dst) {
        LLVMValueRef d = lower_load(L, L->t_ptr, c->dst, "");
        cum_row(L, c, p[0], d);
        LLVMValueRef adv = np_mul(L, c->n, c->ds);
        LLVMBuildStore(L->b, np_offset(L, d, adv), c->dst);
    } else {
        cum_row(L, c, p[0], p[1]);
    }
}

static LLVMValueRef cumulative(Lower *L, Node *n, LLVMValueRef arr, Type *aty, Node *axis) {
    Type *rty = n->ty;
    int nd = aty->ndim;
    CumCtx c = {0};
    c.op = n->builtin;
    c.nan = c.op == BI_NP_NANCUMSUM || c.op == BI_NP_NANCUMPROD;
    if (c.nan)
        c.op = c.op == BI_NP_NANCUMSUM ? BI_NP_CUMSUM : BI_NP_CUMPROD;
    c.dt = aty->dtype;
    c.rt = rty->dtype;
    c.slot = lower_alloca(L, lower_type(L, c.rt), "cum");
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "");
    LLVMValueRef shape[HJ_MAX_NDIM_LOWER + 1] = {0}, strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    np_dims(L, arr, nd, shape, strides[0]);
    if (!axis || nd == 0) {
        if (axis) {
            LLVMValueRef a = lower_expr_use(L, axis);
            if (!a)
                return NULL;
            np_axis(L, a, 1); /* a 0-d array takes axis 0 as 1-D */
        }
        LLVMValueRef total = nd == 0 ? lower_i64(L, 1) : lower_array_field(L, arr, ARR_NITEMS, "");
        LLVMValueRef out = np_alloc(L, rty, &total, false);
        LLVMValueRef odata = lower_array_field(L, out, ARR_DATA, "");
        c.keep = true;
        c.ds = lower_i64(L, ty_itemsize(c.rt));
        LLVMBuildStore(L->b, c.op == BI_NP_CUMPROD ? np_one(L, c.rt) : lower_zero(L, c.rt), c.slot);
        if (nd == 0 || aty->layout == LAYOUT_C) {
            c.n = total;
            c.s = lower_i64(L, ty_itemsize(c.dt));
            cum_row(L, &c, data, odata);
        } else {
            c.n = shape[nd - 1];
            c.s = strides[0][nd - 1];
            c.dst = lower_alloca(L, L->t_ptr, "dst");
            LLVMBuildStore(L->b, odata, c.dst);
            np_nest(L, nd - 1, shape, 1, &data, strides, cum_cb, &c);
        }
        return out;
    }
    LLVMValueRef a = lower_expr_use(L, axis);
    if (!a)
        return NULL;
    a = np_axis(L, a, nd);
    LLVMValueRef out = np_alloc(L, rty, shape, false);
    LLVMValueRef ostr[HJ_MAX_NDIM_LOWER + 1], outer[HJ_MAX_NDIM_LOWER];
    np_dims(L, out, nd, NULL, ostr);
    c.n = np_pick(L, shape, nd, a);
    c.s = np_pick(L, strides[0], nd, a);
    c.ds = np_pick(L, ostr, nd, a);
    np_drop(L, shape, nd, a, outer);
    LLVMValueRef tmp[HJ_MAX_NDIM_LOWER + 1];
    np_drop(L, strides[0], nd, a, tmp);
    for (int d = 0; d < nd - 1; d++)
        strides[0][d] = tmp[d];
    np_drop(L, ostr, nd, a, strides[1]);
    LLVMValueRef base[2] = {data, lower_array_field(L, out, ARR_DATA, "")};
    np_nest(L, nd - 1, outer, 2, base, strides, cum_cb, &c);
    return out;
}

/* sum/prod/mean/min/max over axis 0 of a 2-D array: whole rows are folded
 * into the output in order (out[j] op= a[i, j]), a contiguous, vectorizable
 * inner loop, as NumPy and Numba do; reducing each column on its own walks
 * memory with the row stride.  For sums this is also NumPy's order. */
static bool rows_ok(const RedPlan *P) {
    switch (P->op) {
    case BI_NP_SUM: case BI_NP_PROD: case BI_NP_MEAN: return !is_cplx(P->rt) || P->rt == P->dt || !is_cplx(P->dt);
    case BI_NP_AMIN: case BI_NP_AMAX: return P->rt == P->dt && !is_cplx(P->dt);
    default: return false;
    }
}

/* cur op x for the reductions rows_ok accepts (x already in P->rt). */
static LLVMValueRef fold_elem(Lower *L, RedPlan *P, LLVMValueRef cur, LLVMValueRef x) {
    Type *rt = P->rt;
    bool mm = P->op == BI_NP_AMIN || P->op == BI_NP_AMAX, mn = P->op == BI_NP_AMIN;
    if (mm && ty_is_float(rt)) {
        LLVMTypeRef ft = lower_type(L, rt);
        LLVMValueRef ab[2] = {cur, x};
        return lower_intrinsic(L, mn ? "llvm.minimum" : "llvm.maximum", &ft, 1, ab, 2);
    }
    if (mm)
        return np_sel(L, better(L, rt, mn, x, cur), x, cur);
    return np_arith(L, P->op == BI_NP_PROD ? '*' : '+', rt, cur, x);
}

static void fold_rows(Lower *L, RedPlan *P, LLVMValueRef data, LLVMValueRef *shape, LLVMValueRef *st,
                      LLVMValueRef out, LLVMValueRef ost) {
    Type *rt = P->rt;
    bool mm = P->op == BI_NP_AMIN || P->op == BI_NP_AMAX, mn = P->op == BI_NP_AMIN;
    LLVMValueRef od = lower_array_field(L, out, ARR_DATA, "");
    LLVMValueRef init = mm ? extreme(L, rt, mn) : P->op == BI_NP_PROD ? np_one(L, rt) : lower_zero(L, rt);
    NpLoop j0;
    np_loop_begin(L, &j0, shape[1]);
    np_store(L, np_offset(L, od, np_mul(L, j0.i, ost)), init, rt);
    np_loop_end(L, &j0);
    NpLoop i;
    np_loop_begin(L, &i, shape[0]);
    LLVMValueRef row = np_offset(L, data, np_mul(L, i.i, st[0]));
    NpLoop j;
    np_loop_begin(L, &j, shape[1]);
    LLVMValueRef po = np_offset(L, od, np_mul(L, j.i, ost));
    LLVMValueRef x = lower_convert(L, np_at(L), np_load(L, np_offset(L, row, np_mul(L, j.i, st[1])), P->dt), P->dt, rt);
    np_store(L, po, fold_elem(L, P, np_load(L, po, rt), x), rt);
    np_loop_end(L, &j);
    np_loop_end(L, &i);
    if (P->op == BI_NP_MEAN) {
        NpLoop k;
        np_loop_begin(L, &k, shape[1]);
        LLVMValueRef pk = np_offset(L, od, np_mul(L, k.i, ost));
        Red R = {.op = BI_NP_MEAN, .acc = rt, .slot = pk};
        np_store(L, pk, red_value(L, &R, shape[0]), rt);
        np_loop_end(L, &k);
    }
}

/* The same over a constant axis k < nd - 1 of an N-d array: out[o, j] op=
 * a[o, i, j] for i = 0, 1, ... in order (NumPy's order for such an axis),
 * with the block j of the axes after k innermost: one flat, vectorizable
 * loop when that block is contiguous in the source.  The output is a new
 * C array (its blocks contiguous). */
typedef struct AxisFold {
    RedPlan *P;
    int nd, k;
    LLVMValueRef *shape, *st, *ost; /* source shape and strides, output strides */
    LLVMValueRef inner, contig;     /* items in a block; the source's blocks contiguous */
} AxisFold;

typedef struct InnerFold {
    RedPlan *P;
} InnerFold;

static void inner_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    InnerFold *c = vctx;
    Type *rt = c->P->rt;
    LLVMValueRef x = lower_convert(L, np_at(L), np_load(L, p[0], c->P->dt), c->P->dt, rt);
    np_store(L, p[1], fold_elem(L, c->P, np_load(L, p[1], rt), x), rt);
}

static void axis_fold_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    AxisFold *c = vctx;
    RedPlan *P = c->P;
    int nd = c->nd, k = c->k;
    NpLoop i;
    np_loop_begin(L, &i, c->shape[k]);
    LLVMValueRef src = np_offset(L, p[0], np_mul(L, i.i, c->st[k]));
    LLVMBasicBlockRef flat = lower_block(L, "axis.flat"), nest = lower_block(L, "axis.nest"),
                      next = lower_block(L, "axis.next");
    LLVMBuildCondBr(L->b, c->contig, flat, nest);
    lower_at(L, flat);
    NpLoop j;
    np_loop_begin(L, &j, c->inner);
    LLVMValueRef x = np_load(L, lower_gep(L, lower_mem_type(L, P->dt), src, &j.i, 1, ""), P->dt);
    x = lower_convert(L, np_at(L), x, P->dt, P->rt);
    LLVMValueRef po = lower_gep(L, lower_mem_type(L, P->rt), p[1], &j.i, 1, "");
    np_store(L, po, fold_elem(L, P, np_load(L, po, P->rt), x), P->rt);
    np_loop_end(L, &j);
    LLVMBuildBr(L->b, next);
    lower_at(L, nest);
    LLVMValueRef strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    for (int d = k + 1; d < nd; d++) {
        strides[0][d - k - 1] = c->st[d];
        strides[1][d - k - 1] = c->ost[d - 1];
    }
    LLVMValueRef base[2] = {src, p[1]};
    InnerFold ic = {P};
    np_nest(L, nd - k - 1, c->shape + k + 1, 2, base, strides, inner_cb, &ic);
    LLVMBuildBr(L->b, next);
    lower_at(L, next);
    np_loop_end(L, &i);
}

static void fold_axis(Lower *L, RedPlan *P, LLVMValueRef data, LLVMValueRef *shape, LLVMValueRef *st, int nd, int k,
                      LLVMValueRef out) {
    Type *rt = P->rt;
    bool mm = P->op == BI_NP_AMIN || P->op == BI_NP_AMAX;
    LLVMValueRef od = lower_array_field(L, out, ARR_DATA, "");
    LLVMValueRef init = mm ? extreme(L, rt, P->op == BI_NP_AMIN) : P->op == BI_NP_PROD ? np_one(L, rt) : lower_zero(L, rt);
    LLVMValueRef total = lower_array_field(L, out, ARR_NITEMS, "");
    NpLoop f;
    np_loop_begin(L, &f, total);
    np_store(L, lower_gep(L, lower_mem_type(L, rt), od, &f.i, 1, ""), init, rt);
    np_loop_end(L, &f);
    LLVMValueRef ost[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, out, nd - 1, NULL, ost);
    AxisFold c = {P, nd, k, shape, st, ost, lower_i64(L, 1), LLVMConstInt(L->t_i1, 1, 0)};
    LLVMValueRef want = lower_i64(L, ty_itemsize(P->dt));
    for (int d = nd - 1; d > k; d--) {
        c.contig = LLVMBuildAnd(L->b, c.contig, np_ieq(L, st[d], want), "");
        want = np_mul(L, want, shape[d]);
        c.inner = np_mul(L, c.inner, shape[d]);
    }
    LLVMValueRef strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    for (int d = 0; d < k; d++) {
        strides[0][d] = st[d];
        strides[1][d] = ost[d];
    }
    LLVMValueRef base[2] = {data, od};
    np_nest(L, k, shape, 2, base, strides, axis_fold_cb, &c);
    if (P->op == BI_NP_MEAN) {
        NpLoop m;
        np_loop_begin(L, &m, total);
        LLVMValueRef pm = lower_gep(L, lower_mem_type(L, rt), od, &m.i, 1, "");
        Red R = {.op = BI_NP_MEAN, .acc = rt, .slot = pm};
        np_store(L, pm, red_value(L, &R, shape[k]), rt);
        np_loop_end(L, &m);
    }
}

/* *po = fold(*po, x), x an element of type P->dt. */
static void fold_into(Lower *L, RedPlan *P, LLVMValueRef po, LLVMValueRef x) {
    x = lower_convert(L, np_at(L), x, P->dt, P->rt);
    np_store(L, po, fold_elem(L, P, np_load(L, po, P->rt), x), P->rt);
}

/* The same fold over an array expression (N_ARRAYEXPR) whose elements are
 * computed in the fold's own nest, index by index, and never stored (no
 * temporary array): np.sum(a * b, axis=1) into the output row at po (ost:
 * the output's strides, axis k folded), or with ost NULL every element
 * into the one accumulator po (fused_full_reduce). */
typedef struct FusedFold {
    RedPlan *P;
    AeSrc *src;
    int nd, k;
    LLVMValueRef *shape, *ost;
    LLVMValueRef idx[HJ_MAX_NDIM_LOWER];
    bool ok;
} FusedFold;

static void fused_nest(Lower *L, FusedFold *c, int d, LLVMValueRef po) {
    if (d == c->nd) {
        LLVMValueRef x = lower_ae_at(L, c->src, c->idx);
        if (!x) {
            c->ok = false;
            return;
        }
        fold_into(L, c->P, po, x);
        return;
    }
    NpLoop lp;
    np_loop_begin(L, &lp, c->shape[d]);
    c->idx[d] = lp.i;
    LLVMValueRef next =
        !c->ost || d == c->k ? po : np_offset(L, po, np_mul(L, lp.i, c->ost[d < c->k ? d : d - 1]));
    fused_nest(L, c, d + 1, next);
    np_loop_end(L, &lp);
}

/* NULL with *done false when n is not such a reduction: an N_ARRAYEXPR
 * argument, a constant axis before the last, an op fold_axis takes. */
static LLVMValueRef fused_reduce(Lower *L, Node *n, bool *owned, bool *done) {
    *done = false;
    Node *an = np_arg(n, 0), *axis = np_arg(n, 1);
    Type *aty = an->ty;
    int nd = aty->ndim;
    if (an->kind != N_ARRAYEXPR || !axis || axis->kind != N_CONST || nd < 2 || nd > HJ_MAX_NDIM_LOWER ||
        n->ty->kind != TY_ARRAY || n->ty->layout != LAYOUT_C || np_arg(n, 2) || np_arg(n, 3) || np_arg(n, 4))
        return NULL;
    RedPlan P = {n->builtin, aty->dtype, n->ty->dtype, NULL};
    if (!rows_ok(&P) || P.op == BI_NP_VAR || P.op == BI_NP_STD)
        return NULL;
    LLVMValueRef a = lower_expr_use(L, axis);
    if (!a || !LLVMIsAConstantInt(a))
        return NULL; /* a constant node: nothing emitted */
    int64_t k = LLVMConstIntGetSExtValue(a);
    if (k < 0)
        k += nd;
    if (k < 0 || k >= nd - 1)
        return NULL;
    *done = true;
    LLVMValueRef shape[HJ_MAX_NDIM_LOWER + 1], outer[HJ_MAX_NDIM_LOWER + 1];
    AeSrc *src = lower_ae_open(L, an, shape);
    if (!src)
        return NULL;
    const char *emsg = empty_msg(P.op);
    if (emsg)
        lower_raise_if(L, np_ieq(L, shape[k], lower_i64(L, 0)), "ValueError", emsg);
    for (int d = 0, j = 0; d < nd; d++)
        if (d != k)
            outer[j++] = shape[d];
    LLVMValueRef out = np_alloc(L, n->ty, outer, false);
    int mark = lower_temps_mark(L);
    lower_temp(L, out, n->ty, true); /* released if an element raises */
    Type *rt = P.rt;
    bool mm = P.op == BI_NP_AMIN || P.op == BI_NP_AMAX;
    LLVMValueRef od = lower_array_field(L, out, ARR_DATA, "");
    LLVMValueRef init = mm ? extreme(L, rt, P.op == BI_NP_AMIN) : P.op == BI_NP_PROD ? np_one(L, rt) : lower_zero(L, rt);
    LLVMValueRef total = lower_array_field(L, out, ARR_NITEMS, "");
    NpLoop f;
    np_loop_begin(L, &f, total);
    np_store(L, lower_gep(L, lower_mem_type(L, rt), od, &f.i, 1, ""), init, rt);
    np_loop_end(L, &f);
    LLVMValueRef ost[HJ_MAX_NDIM_LOWER + 1];
    np_dims(L, out, nd - 1, NULL, ost);
    FusedFold c = {&P, src, nd, (int)k, shape, ost, {0}, true};
    fused_nest(L, &c, 0, od);
    if (c.ok && P.op == BI_NP_MEAN) {
        NpLoop m;
        np_loop_begin(L, &m, total);
        LLVMValueRef pm = lower_gep(L, lower_mem_type(L, rt), od, &m.i, 1, "");
        Red R = {.op = BI_NP_MEAN, .acc = rt, .slot = pm};
        np_store(L, pm, red_value(L, &R, shape[k]), rt);
        np_loop_end(L, &m);
    }
    lower_temps_keep(L, mark);
    if (!c.ok)
        return NULL;
    *owned = true;
    return out;
}

/* A whole-array reduction of an array expression whose result does not
 * depend on the order of the fold (integer sums and products wrap the same
 * way in any order; min and max): the elements are computed in the fold's
 * own nest and never stored.  np.sum(np.isnan(window)), pandas' rolling
 * apply per window (issue 15), allocated a bool temporary each time.
 * Floating sums keep NumPy's pairwise order over a temporary. */
static LLVMValueRef fused_full_reduce(Lower *L, Node *n, bool *done) {
    *done = false;
    Node *an = np_arg(n, 0);
    Type *aty = an->ty;
    int nd = aty->ndim;
    if (an->kind != N_ARRAYEXPR || np_arg(n, 1) || np_arg(n, 2) || np_arg(n, 3) || np_arg(n, 4) || nd < 1 ||
        nd > HJ_MAX_NDIM_LOWER || n->ty->kind == TY_ARRAY)
        return NULL;
    RedPlan P = {n->builtin, aty->dtype, n->ty, NULL};
    bool exact_int = ty_is_int(P.rt) && !ty_is_npdt(P.rt) && (ty_is_int(P.dt) || P.dt->kind == TY_BOOL) &&
                     !ty_is_npdt(P.dt);
    switch (P.op) {
    case BI_NP_SUM: case BI_NP_PROD:
        if (!exact_int)
            return NULL;
        break;
    case BI_NP_AMIN: case BI_NP_AMAX:
        if (!rows_ok(&P) || ty_is_npdt(P.dt) || !(ty_is_int(P.dt) || ty_is_float(P.dt)))
            return NULL;
        break;
    default: return NULL;
    }
    *done = true;
    LLVMValueRef shape[HJ_MAX_NDIM_LOWER + 1];
    AeSrc *src = lower_ae_open(L, an, shape);
    if (!src)
        return NULL;
    const char *emsg = empty_msg(P.op);
    LLVMValueRef total = shape[0];
    for (int d = 1; d < nd; d++)
        total = np_mul(L, total, shape[d]);
    if (emsg)
        lower_raise_if(L, np_ieq(L, total, lower_i64(L, 0)), "ValueError", emsg);
    LLVMTypeRef rt = lower_type(L, P.rt);
    bool mm = P.op == BI_NP_AMIN || P.op == BI_NP_AMAX;
    LLVMValueRef slot = lower_alloca(L, rt, "fold");
    FusedFold c = {&P, src, nd, -1, shape, NULL, {0}, true};
    np_store(L, slot, mm ? extreme(L, P.rt, P.op == BI_NP_AMIN) : P.op == BI_NP_PROD ? np_one(L, P.rt)
                                                                                      : lower_zero(L, P.rt),
             P.rt);
    /* contiguous leaves: one flat loop that vectorizes; else the nest */
    LLVMBasicBlockRef flat = lower_block(L, "fold.flat"), nest = lower_block(L, "fold.nest"),
                      join = lower_block(L, "fold.done");
    LLVMBuildCondBr(L->b, lower_ae_flat_ok(L, src, shape), flat, nest);
    lower_at(L, flat);
    NpLoop lp;
    np_loop_begin(L, &lp, total);
    LLVMValueRef x = lower_ae_at_flat(L, src, lp.i);
    if (!x)
        return NULL;
    fold_into(L, &P, slot, x);
    np_loop_end(L, &lp);
    LLVMBuildBr(L->b, join);
    lower_at(L, nest);
    fused_nest(L, &c, 0, slot);
    if (!c.ok)
        return NULL;
    LLVMBuildBr(L->b, join);
    lower_at(L, join);
    return lower_load(L, rt, slot, "folded");
}

LLVMValueRef lower_np_reduce(Lower *L, Node *n, bool *owned) {
    *owned = false;
    Node *an = np_arg(n, 0), *axis = np_arg(n, 1);
    Type *aty = an ? an->ty : NULL;
    if (!aty || aty->kind != TY_ARRAY || aty->ndim > HJ_MAX_NDIM_LOWER)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "reduction of a non-array");
    bool fused;
    LLVMValueRef fr = fused_reduce(L, n, owned, &fused);
    if (fused)
        return fr;
    fr = fused_full_reduce(L, n, &fused);
    if (fused)
        return fr;
    LLVMValueRef arr = lower_expr_use(L, an);
    if (!arr)
        return NULL;
    BuiltinId op = n->builtin;
    int nd = aty->ndim;
    if (op == BI_NP_CUMSUM || op == BI_NP_CUMPROD || op == BI_NP_NANCUMSUM || op == BI_NP_NANCUMPROD) {
        *owned = true;
        return cumulative(L, n, arr, aty, axis);
    }
    RedPlan P = {op, aty->dtype, n->ty->kind == TY_ARRAY ? n->ty->dtype : n->ty, NULL};
    Node *dd = np_arg(n, 4);
    if ((op == BI_NP_VAR || op == BI_NP_STD || op == BI_NP_NANVAR || op == BI_NP_NANSTD) && dd &&
        !(P.ddof = lower_expr_use(L, dd)))
        return NULL;
    const char *emsg = empty_msg(op);
    if (!axis || nd == 0) {
        if (axis) {
            LLVMValueRef a = lower_expr_use(L, axis);
            if (!a)
                return NULL;
            np_axis(L, a, 0);
        }
        LLVMValueRef count = nd == 0 ? lower_i64(L, 1) : lower_array_field(L, arr, ARR_NITEMS, "");
        if (emsg)
            lower_raise_if(L, np_ieq(L, count, lower_i64(L, 0)), "ValueError", emsg);
        Source src = {arr, aty, NULL, NULL, NULL};
        return reduce_one(L, &P, &src, count);
    }
    LLVMValueRef a = lower_expr_use(L, axis);
    if (!a)
        return NULL;
    a = np_axis(L, a, nd);
    LLVMValueRef shape[HJ_MAX_NDIM_LOWER + 1] = {0}, strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    np_dims(L, arr, nd, shape, strides[0]);
    LLVMValueRef len = np_pick(L, shape, nd, a), st = np_pick(L, strides[0], nd, a);
    if (emsg)
        lower_raise_if(L, np_ieq(L, len, lower_i64(L, 0)), "ValueError", emsg);
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "");
    if (nd == 1) {
        Source src = {NULL, NULL, data, len, st};
        return reduce_one(L, &P, &src, len);
    }
    LLVMValueRef outer[HJ_MAX_NDIM_LOWER], tmp[HJ_MAX_NDIM_LOWER];
    LLVMValueRef full_st[2] = {strides[0][0], strides[0][1]}; /* the source's, for fold_rows */
    np_drop(L, shape, nd, a, outer);
    if (LLVMIsAConstantInt(a) && LLVMConstIntGetSExtValue(a) < nd - 1 && rows_ok(&P) && n->ty->layout == LAYOUT_C) {
        LLVMValueRef out = np_alloc(L, n->ty, outer, false);
        fold_axis(L, &P, data, shape, strides[0], nd, (int)LLVMConstIntGetSExtValue(a), out);
        *owned = true;
        return out;
    }
    np_drop(L, strides[0], nd, a, tmp);
    for (int d = 0; d < nd - 1; d++)
        strides[0][d] = tmp[d];
    LLVMValueRef out = np_alloc(L, n->ty, outer, false);
    np_dims(L, out, nd - 1, NULL, strides[1]);
    LLVMBasicBlockRef done = NULL;
    if (nd == 2 && rows_ok(&P)) {
        LLVMBasicBlockRef rows = lower_block(L, "axis0.rows"), cols = lower_block(L, "axis.cols");
        done = lower_block(L, "axis.done");
        LLVMBuildCondBr(L->b, np_ieq(L, a, lower_i64(L, 0)), rows, cols);
        lower_at(L, rows);
        fold_rows(L, &P, data, shape, full_st, out, strides[1][0]);
        LLVMBuildBr(L->b, done);
        lower_at(L, cols);
    }
    LLVMValueRef base[2] = {data, lower_array_field(L, out, ARR_DATA, "")};
    AxisCtx c = {&P, len, st};
    np_nest(L, nd - 1, outer, 2, base, strides, axis_cb, &c);
    if (done) {
        LLVMBuildBr(L->b, done);
        lower_at(L, done);
    }
    *owned = true;
    return out;
}

/* ---- np.round ------------------------------------------------------------------ */

/* NumPy's rounding of one value of type t to `dec` (int64) decimals:
 * floats rint(x * f) / f, or rint(x / f) * f for dec < 0, with f = 10^|dec|
 * in t's precision; complex part by part; integers unchanged for dec >= 0,
 * else rint(x / f) * f through float64, wrapping back into t. */
static LLVMValueRef round_elem(Lower *L, Type *t, LLVMValueRef x, LLVMValueRef dec) {
    if (is_cplx(t)) {
        Type *pt = ty_scalar(L->c->tc, t->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
        return cmake(L, t, round_elem(L, pt, cpart(L, x, 0), dec), round_elem(L, pt, cpart(L, x, 1), dec));
    }
    Type *ft = ty_is_float(t) ? t : ty_scalar(L->c->tc, TY_FLOAT64);
    LLVMTypeRef flt = lower_type(L, ft);
    LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, dec, lower_i64(L, 0), "");
    LLVMValueRef mag = np_sel(L, neg, LLVMBuildNeg(L->b, dec, ""), dec);
    LLVMTypeRef d = L->t_f64;
    LLVMValueRef pa[2] = {LLVMConstReal(d, 10.0), LLVMBuildSIToFP(L->b, mag, d, "")};
    LLVMValueRef f = lower_intrinsic(L, "llvm.pow", &d, 1, pa, 2);
    f = lower_convert(L, np_at(L), f, ty_scalar(L->c->tc, TY_FLOAT64), ft);
    LLVMValueRef xf = lower_convert(L, np_at(L), x, t, ft);
    LLVMValueRef up = LLVMBuildFMul(L->b, xf, f, ""), down = LLVMBuildFDiv(L->b, xf, f, "");
    LLVMValueRef r = np_sel(L, neg, down, up);
    r = lower_intrinsic(L, "llvm.rint", &flt, 1, &r, 1);
    r = np_sel(L, neg, LLVMBuildFMul(L->b, r, f, ""), LLVMBuildFDiv(L->b, r, f, ""));
    if (ty_is_float(t))
        return r;
    /* integers: through int64 (wrapping into narrower types, as NumPy's cast) */
    LLVMValueRef i = LLVMBuildFPToSI(L->b, r, L->t_i64, "");
    i = lower_convert(L, np_at(L), i, ty_scalar(L->c->tc, TY_INT64), t);
    return np_sel(L, neg, i, x);
}

typedef struct RoundCtx {
    Type *t;
    LLVMValueRef dec;
} RoundCtx;

static void round_cb(Lower *L, void *vctx, LLVMValueRef *p) {
    RoundCtx *c = vctx;
    np_store(L, p[1], round_elem(L, c->t, np_load(L, p[0], c->t), c->dec), c->t);
}

static LLVMValueRef round_call(Lower *L, Node *n, bool *owned) {
    Node *a = np_arg(n, 0), *d = np_arg(n, 1);
    LLVMValueRef v = lower_expr_use(L, a);
    LLVMValueRef dec = d ? lower_expr_use(L, d) : lower_i64(L, 0);
    if (!v || !dec)
        return NULL;
    if (a->ty->kind != TY_ARRAY)
        return round_elem(L, a->ty, v, dec);
    Type *aty = a->ty;
    int nd = aty->ndim;
    LLVMValueRef shape[HJ_MAX_NDIM_LOWER + 1] = {0}, strides[NP_MAX_OPS][HJ_MAX_NDIM_LOWER + 2];
    np_dims(L, v, nd, shape, strides[0]);
    LLVMValueRef out = np_alloc(L, n->ty, shape, false);
    np_dims(L, out, nd, NULL, strides[1]);
    LLVMValueRef base[2] = {lower_array_field(L, v, ARR_DATA, ""), lower_array_field(L, out, ARR_DATA, "")};
    RoundCtx c = {aty->dtype, dec};
    np_nest(L, nd, shape, 2, base, strides, round_cb, &c);
    *owned = true;
    return out;
}

LLVMValueRef lower_np_call(Lower *L, Node *n, bool *owned) {
    switch (n->builtin) {
    case BI_NP_ROUND:
        *owned = false;
        return round_call(L, n, owned);
    case BI_NP_SUM: case BI_NP_PROD: case BI_NP_AMIN: case BI_NP_AMAX: case BI_NP_MEAN: case BI_NP_STD:
    case BI_NP_VAR: case BI_NP_ARGMIN: case BI_NP_ARGMAX: case BI_NP_ALL: case BI_NP_ANY: case BI_NP_CUMSUM:
    case BI_NP_CUMPROD: case BI_NP_NANSUM: case BI_NP_NANPROD: case BI_NP_NANMEAN: case BI_NP_NANMIN:
    case BI_NP_NANMAX: case BI_NP_PTP: case BI_NP_NANCUMSUM: case BI_NP_NANCUMPROD: case BI_NP_NANVAR:
    case BI_NP_NANSTD:
        return lower_np_reduce(L, n, owned);
    case BI_NP_COV: case BI_NP_CORRCOEF:
        return lower_np_cov(L, n, owned);
    case BI_NP_RESHAPE: case BI_NP_RAVEL: case BI_ARRAY_FLATTEN: case BI_NP_TRANSPOSE: case BI_NP_SQUEEZE:
    case BI_NP_EXPAND_DIMS: case BI_NP_CONCATENATE: case BI_NP_STACK: case BI_NP_VSTACK: case BI_NP_HSTACK:
    case BI_NP_REPEAT: case BI_NP_TILE: case BI_NP_ROLL: case BI_NP_FLIP: case BI_NP_DIFF: case BI_NP_FULL:
    case BI_NP_TRIU: case BI_NP_TRIL:
    case BI_NP_FULL_LIKE: case BI_NP_EYE: case BI_NP_IDENTITY: case BI_NP_LINSPACE: case BI_NP_ARRAY:
    case BI_NP_ASARRAY:
    case BI_ARRAY_ASTYPE: case BI_ARRAY_FILL:
        return lower_np_shape(L, n, owned);
    default:
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "%s() is not supported in compiled code", builtin_name(n->builtin));
    }
}
