/* lower_cuda.c - lowering of hpcjit.cuda calls (typed by infer_cuda.c) onto
 * NVPTX: special registers, barriers, fences, atomics, warp intrinsics of
 * LLVM 19 (llvm.nvvm.*), shared memory (addrspace 3 globals), local arrays
 * and libdevice functions. */
#include "cuda.h"
#include "registry.h"

#include <stdio.h>
#include <string.h>

#define ADDRSPACE_SHARED 3

/* Declare (once) and call a function or intrinsic by its full name. */
static LLVMValueRef call(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                         LLVMValueRef *args) {
    LLVMTypeRef fnty = LLVMFunctionType(ret, params, n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (!fn)
        fn = LLVMAddFunction(L->mod, name, fnty);
    return lower_call(L, fnty, fn, args, n, "");
}

static LLVMValueRef sreg(Lower *L, const char *reg) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s", reg);
    return call(L, name, L->t_i32, NULL, 0, NULL);
}

static Node *arg(Node *n, int i) { return i < n->args.len ? VEC_AT(n->args, i) : NULL; }

static LLVMValueRef arg_value(Lower *L, Node *n, int i) {
    Node *e = arg(n, i);
    return e ? lower_expr_use(L, e) : NULL;
}

static LLVMTypeRef int_type(Lower *L, unsigned bits) { return LLVMIntTypeInContext(L->ctx, bits); }

/* ---- arrays in shared and local memory ----------------------------------------- */

static Type *dtype_arg(Node *n) {
    Node *d = arg(n, 1);
    return d && d->ty && d->ty->kind == TY_DTYPE ? d->ty->dtype : NULL;
}

static int shape_of(Node *n, int64_t *dims) {
    Node *s = arg(n, 0);
    if (s->kind == N_TUPLE) {
        for (int i = 0; i < s->args.len; i++)
            cuda_const_int(VEC_AT(s->args, i), &dims[i]); /* checked by infer_cuda.c */
        return s->args.len;
    }
    cuda_const_int(s, &dims[0]);
    return 1;
}

static LLVMValueRef shared_array(Lower *L, Node *n) {
    Type *aty = n->ty, *et = dtype_arg(n);
    int64_t d64[8];
    int nd = shape_of(n, d64);
    LLVMValueRef dims[8];
    bool dynamic = false;
    int64_t total = 1;
    for (int d = 0; d < nd; d++) {
        dims[d] = lower_i64(L, d64[d]);
        dynamic = dynamic || d64[d] == 0;
        total *= d64[d];
    }
    LLVMTypeRef elt = lower_mem_type(L, et);
    char name[48];
    LLVMValueRef g;
    if (dynamic) { /* extern shared: sized by the launch's dynamic shared memory */
        g = LLVMGetNamedGlobal(L->mod, "__hpcjit_dynshared");
        if (!g) {
            g = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->t_i8, 0), "__hpcjit_dynshared",
                                            ADDRSPACE_SHARED);
            LLVMSetLinkage(g, LLVMExternalLinkage);
            LLVMSetAlignment(g, 16);
        }
        /* shape: dynamic bytes / itemsize along the first axis, as Numba */
        LLVMValueRef asmv = LLVMGetInlineAsm(LLVMFunctionType(L->t_i32, NULL, 0, 0), "mov.u32 $0, %dynamic_smem_size;",
                                             32, "=r", 2, 0, 0, LLVMInlineAsmDialectATT, 0);
        LLVMValueRef bytes = LLVMBuildCall2(L->b, LLVMFunctionType(L->t_i32, NULL, 0, 0), asmv, NULL, 0, "dynsmem");
        LLVMValueRef n0 = LLVMBuildUDiv(L->b, LLVMBuildZExt(L->b, bytes, L->t_i64, ""),
                                        lower_i64(L, ty_itemsize(et)), "");
        for (int d = 1; d < nd; d++)
            if (d64[d])
                n0 = LLVMBuildUDiv(L->b, n0, dims[d], "");
        dims[0] = n0;
    } else {
        snprintf(name, sizeof name, "__hpcjit_shared_%d", L->nshared++);
        LLVMTypeRef at = LLVMArrayType2(elt, (uint64_t)total);
        g = LLVMAddGlobalInAddressSpace(L->mod, at, name, ADDRSPACE_SHARED);
        LLVMSetInitializer(g, LLVMGetUndef(at)); /* shared memory has no initial value */
        LLVMSetLinkage(g, LLVMInternalLinkage);
        LLVMSetAlignment(g, 16);
    }
    LLVMValueRef data = LLVMBuildAddrSpaceCast(L->b, g, L->t_ptr, "shared");
    return lower_array_over(L, aty, data, dims);
}

static LLVMValueRef local_array(Lower *L, Node *n) {
    Type *aty = n->ty, *et = dtype_arg(n);
    int64_t d64[8];
    int nd = shape_of(n, d64);
    LLVMValueRef dims[8];
    int64_t total = 1;
    for (int d = 0; d < nd; d++) {
        dims[d] = lower_i64(L, d64[d]);
        total *= d64[d];
    }
    LLVMValueRef a = lower_alloca(L, LLVMArrayType2(lower_mem_type(L, et), (uint64_t)total), "local.array");
    LLVMSetAlignment(a, 16);
    return lower_array_over(L, aty, a, dims);
}

/* ---- atomics ------------------------------------------------------------------------- */

static LLVMValueRef elem_ptr(Lower *L, Node *n) {
    Node *an = arg(n, 0), *in = arg(n, 1);
    Type *aty = an->ty;
    LLVMValueRef arr = lower_expr_use(L, an);
    LLVMValueRef idx = lower_expr_use(L, in);
    if (!arr || !idx)
        return NULL;
    LLVMValueRef off = lower_i64(L, 0);
    for (int d = 0; d < aty->ndim; d++) {
        LLVMValueRef i = in->ty->kind == TY_TUPLE ? LLVMBuildExtractValue(L->b, idx, (unsigned)d, "") : idx;
        LLVMValueRef st = lower_array_dim(L, arr, ARR_STRIDES, d);
        off = LLVMBuildAdd(L->b, off, LLVMBuildMul(L->b, i, st, ""), "");
    }
    LLVMValueRef data = lower_array_field(L, arr, ARR_DATA, "data");
    return LLVMBuildGEP2(L->b, L->t_i8, data, &off, 1, "atomic.ptr");
}

/* atomic.max/min on floats: Python's max(old, val) / min(old, val), as
 * Numba: a NaN already in memory stays, a NaN val changes nothing.  A
 * compare-and-swap loop on the bits; returns the old value. */
static LLVMValueRef float_minmax(Lower *L, LLVMValueRef p, LLVMValueRef val, bool max) {
    LLVMTypeRef ft = LLVMTypeOf(val);
    LLVMTypeRef it = ft == L->t_f32 ? L->t_i32 : L->t_i64;
    LLVMValueRef first = LLVMBuildLoad2(L->b, ft, p, "old");
    LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(first, ft == L->t_f32 ? 4 : 8);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef head = lower_block(L, "amax.head"), swap = lower_block(L, "amax.swap");
    LLVMBasicBlockRef done = lower_block(L, "amax.done");
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef old = LLVMBuildPhi(L->b, ft, "old");
    /* swap only when val is strictly better (old NaN: ordered compare is false) */
    LLVMValueRef better = LLVMBuildFCmp(L->b, max ? LLVMRealOLT : LLVMRealOGT, old, val, "");
    LLVMBuildCondBr(L->b, better, swap, done);
    lower_at(L, swap);
    LLVMValueRef x = LLVMBuildAtomicCmpXchg(L->b, p, LLVMBuildBitCast(L->b, old, it, ""),
                                            LLVMBuildBitCast(L->b, val, it, ""), LLVMAtomicOrderingMonotonic,
                                            LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef seen = LLVMBuildBitCast(L->b, LLVMBuildExtractValue(L->b, x, 0, ""), ft, "seen");
    LLVMValueRef ok = LLVMBuildExtractValue(L->b, x, 1, "");
    LLVMBasicBlockRef swap_end = LLVMGetInsertBlock(L->b);
    LLVMBuildCondBr(L->b, ok, done, head);
    LLVMValueRef in_v[2] = {first, seen};
    LLVMBasicBlockRef in_b[2] = {pre, swap_end};
    LLVMAddIncoming(old, in_v, in_b, 2);
    lower_at(L, done);
    LLVMValueRef r = LLVMBuildPhi(L->b, ft, "prev");
    LLVMValueRef out_v[2] = {old, old};
    LLVMBasicBlockRef out_b[2] = {head, swap_end};
    LLVMAddIncoming(r, out_v, out_b, 2);
    return r;
}

static LLVMValueRef atomic_op(Lower *L, Node *n, BuiltinId id) {
    Type *dt = n->ty;
    bool flt = ty_is_float(dt), sgn = ty_is_signed(dt);
    LLVMValueRef p = elem_ptr(L, n);
    LLVMValueRef v = arg_value(L, n, 2);
    if (!p || !v)
        return NULL;
    if (flt && (id == BI_CUDA_ATOMIC_MAX || id == BI_CUDA_ATOMIC_MIN))
        return float_minmax(L, p, v, id == BI_CUDA_ATOMIC_MAX);
    LLVMAtomicRMWBinOp op;
    switch (id) {
    case BI_CUDA_ATOMIC_ADD: op = flt ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; break;
    case BI_CUDA_ATOMIC_SUB: op = flt ? LLVMAtomicRMWBinOpFSub : LLVMAtomicRMWBinOpSub; break;
    case BI_CUDA_ATOMIC_AND: op = LLVMAtomicRMWBinOpAnd; break;
    case BI_CUDA_ATOMIC_OR: op = LLVMAtomicRMWBinOpOr; break;
    case BI_CUDA_ATOMIC_XOR: op = LLVMAtomicRMWBinOpXor; break;
    case BI_CUDA_ATOMIC_EXCH: op = LLVMAtomicRMWBinOpXchg; break;
    case BI_CUDA_ATOMIC_INC: op = LLVMAtomicRMWBinOpUIncWrap; break;
    case BI_CUDA_ATOMIC_DEC: op = LLVMAtomicRMWBinOpUDecWrap; break;
    case BI_CUDA_ATOMIC_MAX: case BI_CUDA_ATOMIC_NANMAX: /* floats: nanmax only (maxnum: NaN is missing) */
        op = flt ? LLVMAtomicRMWBinOpFMax : sgn ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
        break;
    case BI_CUDA_ATOMIC_MIN: case BI_CUDA_ATOMIC_NANMIN:
        op = flt ? LLVMAtomicRMWBinOpFMin : sgn ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
        break;
    default: return lower_fail(L, n, HJ_DIAG_LOWERING, "unknown atomic operation");
    }
    return LLVMBuildAtomicRMW(L->b, op, p, v, LLVMAtomicOrderingMonotonic, 0);
}

static LLVMValueRef atomic_cas(Lower *L, Node *n, bool indexed) {
    Type *dt = n->ty;
    LLVMValueRef p;
    int k = indexed ? 2 : 1;
    if (indexed) {
        p = elem_ptr(L, n);
    } else {
        LLVMValueRef arr = arg_value(L, n, 0);
        p = arr ? lower_array_field(L, arr, ARR_DATA, "data") : NULL;
    }
    LLVMValueRef old = arg_value(L, n, k), val = arg_value(L, n, k + 1);
    if (!p || !old || !val)
        return NULL;
    LLVMTypeRef it = int_type(L, (unsigned)ty_bits(dt));
    if (ty_is_float(dt)) { /* cmpxchg takes integers: compare the bits */
        old = LLVMBuildBitCast(L->b, old, it, "");
        val = LLVMBuildBitCast(L->b, val, it, "");
    }
    LLVMValueRef x = LLVMBuildAtomicCmpXchg(L->b, p, old, val, LLVMAtomicOrderingMonotonic,
                                            LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef r = LLVMBuildExtractValue(L->b, x, 0, "old");
    return ty_is_float(dt) ? LLVMBuildBitCast(L->b, r, lower_type(L, dt), "") : r;
}

/* ---- warps ---------------------------------------------------------------------------- */

/* One 32-bit shuffle: kind "idx", "up", "down", "bfly". */
static LLVMValueRef shfl32(Lower *L, const char *kind, LLVMValueRef mask, LLVMValueRef v, LLVMValueRef lane) {
    char name[48];
    bool f = LLVMTypeOf(v) == L->t_f32;
    snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.%s", kind, f ? "f32" : "i32");
    LLVMTypeRef vt = f ? L->t_f32 : L->t_i32;
    LLVMTypeRef p[4] = {L->t_i32, vt, L->t_i32, L->t_i32};
    /* c: lane clamp (31) for idx/down/bfly, 0 for up; the full warp (width 32) */
    LLVMValueRef a[4] = {mask, v, lane, lower_i32(L, strcmp(kind, "up") == 0 ? 0 : 0x1f)};
    return call(L, name, vt, p, 4, a);
}

static LLVMValueRef shfl(Lower *L, Node *n, const char *kind) {
    LLVMValueRef mask = arg_value(L, n, 0), v = arg_value(L, n, 1), lane = arg_value(L, n, 2);
    if (!mask || !v || !lane)
        return NULL;
    LLVMTypeRef t = LLVMTypeOf(v);
    if (t == L->t_i32 || t == L->t_f32)
        return shfl32(L, kind, mask, v, lane);
    /* 64 bits: two halves */
    LLVMValueRef bits = t == L->t_f64 ? LLVMBuildBitCast(L->b, v, L->t_i64, "") : v;
    LLVMValueRef lo = LLVMBuildTrunc(L->b, bits, L->t_i32, "");
    LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, bits, lower_i64(L, 32), ""), L->t_i32, "");
    lo = shfl32(L, kind, mask, lo, lane);
    hi = shfl32(L, kind, mask, hi, lane);
    LLVMValueRef r = LLVMBuildOr(L->b, LLVMBuildZExt(L->b, lo, L->t_i64, ""),
                                 LLVMBuildShl(L->b, LLVMBuildZExt(L->b, hi, L->t_i64, ""), lower_i64(L, 32), ""), "");
    return t == L->t_f64 ? LLVMBuildBitCast(L->b, r, L->t_f64, "") : r;
}

static LLVMValueRef vote(Lower *L, Node *n, const char *kind) {
    LLVMValueRef mask = arg_value(L, n, 0), pred = arg_value(L, n, 1);
    if (!mask || !pred)
        return NULL;
    char name[48];
    snprintf(name, sizeof name, "llvm.nvvm.vote.%s.sync", kind);
    LLVMTypeRef p[2] = {L->t_i32, L->t_i1};
    LLVMValueRef a[2] = {mask, pred};
    bool ballot = strcmp(kind, "ballot") == 0;
    return call(L, name, ballot ? L->t_i32 : L->t_i1, p, 2, a);
}

static LLVMValueRef eq_sync(Lower *L, Node *n) {
    LLVMValueRef mask = arg_value(L, n, 0), v = arg_value(L, n, 1);
    if (!mask || !v)
        return NULL;
    LLVMTypeRef t = LLVMTypeOf(v);
    bool wide = t == L->t_i64 || t == L->t_f64;
    LLVMTypeRef it = wide ? L->t_i64 : L->t_i32;
    if (t == L->t_f32 || t == L->t_f64)
        v = LLVMBuildBitCast(L->b, v, it, "");
    LLVMTypeRef rm[2] = {L->t_i32, L->t_i1}; /* the mask of matching lanes, all matched */
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, rm, 2, 0);
    LLVMTypeRef p[2] = {L->t_i32, it};
    LLVMValueRef a[2] = {mask, v};
    LLVMValueRef r = call(L, wide ? "llvm.nvvm.match.all.sync.i64p" : "llvm.nvvm.match.all.sync.i32p", rt, p, 2, a);
    return LLVMBuildExtractValue(L->b, r, 1, "");
}

/* ---- the calls ---------------------------------------------------------------------- */

static LLVMValueRef grid(Lower *L, Node *n, bool size) {
    static const char *const xyz[3] = {"x", "y", "z"};
    int nd = (int)n->cval.i;
    LLVMValueRef r = nd > 1 ? LLVMGetUndef(lower_type(L, n->ty)) : NULL;
    for (int d = 0; d < nd; d++) {
        char a[16], b[16], c[16];
        snprintf(a, sizeof a, "%s.%s", size ? "ntid" : "ctaid", xyz[d]);
        snprintf(b, sizeof b, "%s.%s", size ? "nctaid" : "ntid", xyz[d]);
        snprintf(c, sizeof c, "tid.%s", xyz[d]);
        LLVMValueRef x = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, sreg(L, a), L->t_i64, ""),
                                      LLVMBuildZExt(L->b, sreg(L, b), L->t_i64, ""), "");
        if (!size)
            x = LLVMBuildAdd(L->b, x, LLVMBuildZExt(L->b, sreg(L, c), L->t_i64, ""), "");
        if (nd == 1)
            return x;
        r = LLVMBuildInsertValue(L->b, r, x, (unsigned)d, "");
    }
    return r;
}

static LLVMValueRef barrier_pred(Lower *L, Node *n, const char *name) {
    LLVMValueRef p = arg_value(L, n, 0);
    if (!p)
        return NULL;
    LLVMValueRef x = LLVMBuildZExt(L->b, p, L->t_i32, "");
    LLVMTypeRef t = L->t_i32;
    LLVMValueRef r = call(L, name, L->t_i32, &t, 1, &x);
    return r;
}

static LLVMValueRef none_value(Lower *L, Node *n) { return LLVMConstNull(lower_type(L, n->ty)); }

/* ---- cooperative groups: grid.sync() ----------------------------------------------
 * A barrier over every block of the grid, which only a cooperative launch
 * (cuLaunchCooperativeKernel: all blocks resident at once) makes safe.  The
 * module's __hpcjit_grid_barrier {count, generation} (global memory, zero
 * when loaded) tells the host to launch the kernel that way
 * (python/hpcjit/cuda/dispatcher.py).  Thread 0 of each block reads the
 * generation, arrives on the count, and the last block to arrive resets the
 * count and bumps the generation, which releases the others; the fences
 * make each block's writes before the barrier visible to every block after
 * it.  Two cooperative launches of one kernel's module must not overlap
 * (they share the word): launches on one stream never do. */
static LLVMValueRef atomic_load(Lower *L, LLVMValueRef p) {
    LLVMValueRef v = LLVMBuildLoad2(L->b, L->t_i32, p, "");
    LLVMSetOrdering(v, LLVMAtomicOrderingMonotonic);
    LLVMSetVolatile(v, 1);
    LLVMSetAlignment(v, 4);
    return v;
}

static LLVMValueRef grid_sync(Lower *L, Node *n) {
    LLVMTypeRef f[2] = {L->t_i32, L->t_i32};
    LLVMTypeRef bt = LLVMStructTypeInContext(L->ctx, f, 2, 0);
    LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "__hpcjit_grid_barrier");
    if (!g) {
        g = LLVMAddGlobalInAddressSpace(L->mod, bt, "__hpcjit_grid_barrier", 1);
        LLVMSetInitializer(g, LLVMConstNull(bt));
        LLVMSetAlignment(g, 8);
    }
    LLVMValueRef countp = LLVMBuildStructGEP2(L->b, bt, g, 0, "count");
    LLVMValueRef genp = LLVMBuildStructGEP2(L->b, bt, g, 1, "gen");
    call(L, "llvm.nvvm.barrier0", L->t_void, NULL, 0, NULL);
    LLVMValueRef t0 = LLVMBuildOr(L->b, LLVMBuildOr(L->b, sreg(L, "tid.x"), sreg(L, "tid.y"), ""), sreg(L, "tid.z"), "");
    LLVMBasicBlockRef arrive = lower_block(L, "gsync.arrive"), last = lower_block(L, "gsync.last"),
                      wait = lower_block(L, "gsync.wait"), left = lower_block(L, "gsync.left"),
                      done = lower_block(L, "gsync.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, t0, lower_i32(L, 0), ""), arrive, done);
    lower_at(L, arrive);
    LLVMValueRef nb = LLVMBuildMul(L->b, LLVMBuildMul(L->b, sreg(L, "nctaid.x"), sreg(L, "nctaid.y"), ""),
                                   sreg(L, "nctaid.z"), "nblocks");
    LLVMValueRef gen = atomic_load(L, genp);
    call(L, "llvm.nvvm.membar.gl", L->t_void, NULL, 0, NULL);
    LLVMValueRef old = LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpAdd, countp, lower_i32(L, 1),
                                          LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef is_last = LLVMBuildICmp(L->b, LLVMIntEQ, old, LLVMBuildSub(L->b, nb, lower_i32(L, 1), ""), "");
    LLVMBuildCondBr(L->b, is_last, last, wait);
    lower_at(L, last);
    LLVMValueRef st = LLVMBuildStore(L->b, lower_i32(L, 0), countp);
    LLVMSetOrdering(st, LLVMAtomicOrderingMonotonic);
    LLVMSetVolatile(st, 1);
    LLVMSetAlignment(st, 4);
    call(L, "llvm.nvvm.membar.gl", L->t_void, NULL, 0, NULL);
    LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpAdd, genp, lower_i32(L, 1), LLVMAtomicOrderingMonotonic, 0);
    LLVMBuildBr(L->b, left);
    lower_at(L, wait);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, atomic_load(L, genp), gen, ""), wait, left);
    lower_at(L, left);
    call(L, "llvm.nvvm.membar.gl", L->t_void, NULL, 0, NULL);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    call(L, "llvm.nvvm.barrier0", L->t_void, NULL, 0, NULL);
    return none_value(L, n);
}

/* cuda.fp16.*: the operands are float16 (infer_cuda.c).  Arithmetic is
 * LLVM's half instructions (add.rn.f16 ... on sm_53+); the transcendental
 * functions go through lower_intrinsic, which computes them with
 * libdevice's float versions and rounds back, as cuda_fp16.h does. */
static LLVMValueRef fp16_op(Lower *L, Node *n, BuiltinId id) {
    LLVMValueRef a[3] = {NULL, NULL, NULL};
    int na = id == BI_CUDA_FP16_HFMA ? 3 : (id >= BI_CUDA_FP16_HNEG && id <= BI_CUDA_FP16_HTRUNC) ? 1 : 2;
    for (int i = 0; i < na; i++)
        if (!(a[i] = arg_value(L, n, i)))
            return NULL;
    LLVMTypeRef h = LLVMHalfTypeInContext(L->ctx);
    static const char *const unary[] = {
        [BI_CUDA_FP16_HABS - BI_CUDA_FP16_HABS] = "llvm.fabs",
        [BI_CUDA_FP16_HSIN - BI_CUDA_FP16_HABS] = "llvm.sin",
        [BI_CUDA_FP16_HCOS - BI_CUDA_FP16_HABS] = "llvm.cos",
        [BI_CUDA_FP16_HLOG - BI_CUDA_FP16_HABS] = "llvm.log",
        [BI_CUDA_FP16_HLOG10 - BI_CUDA_FP16_HABS] = "llvm.log10",
        [BI_CUDA_FP16_HLOG2 - BI_CUDA_FP16_HABS] = "llvm.log2",
        [BI_CUDA_FP16_HEXP - BI_CUDA_FP16_HABS] = "llvm.exp",
        [BI_CUDA_FP16_HEXP10 - BI_CUDA_FP16_HABS] = "llvm.exp10",
        [BI_CUDA_FP16_HEXP2 - BI_CUDA_FP16_HABS] = "llvm.exp2",
        [BI_CUDA_FP16_HFLOOR - BI_CUDA_FP16_HABS] = "llvm.floor",
        [BI_CUDA_FP16_HCEIL - BI_CUDA_FP16_HABS] = "llvm.ceil",
        [BI_CUDA_FP16_HSQRT - BI_CUDA_FP16_HABS] = "llvm.sqrt",
        [BI_CUDA_FP16_HRSQRT - BI_CUDA_FP16_HABS] = NULL,
        [BI_CUDA_FP16_HRCP - BI_CUDA_FP16_HABS] = NULL,
        [BI_CUDA_FP16_HRINT - BI_CUDA_FP16_HABS] = "llvm.rint",
        [BI_CUDA_FP16_HTRUNC - BI_CUDA_FP16_HABS] = "llvm.trunc",
    };
    switch (id) {
    case BI_CUDA_FP16_HADD: return lower_fm(L, LLVMBuildFAdd(L->b, a[0], a[1], "hadd"));
    case BI_CUDA_FP16_HSUB: return lower_fm(L, LLVMBuildFSub(L->b, a[0], a[1], "hsub"));
    case BI_CUDA_FP16_HMUL: return lower_fm(L, LLVMBuildFMul(L->b, a[0], a[1], "hmul"));
    case BI_CUDA_FP16_HDIV: return lower_fm(L, LLVMBuildFDiv(L->b, a[0], a[1], "hdiv"));
    case BI_CUDA_FP16_HMAX: return lower_intrinsic(L, "llvm.maxnum", &h, 1, a, 2);
    case BI_CUDA_FP16_HMIN: return lower_intrinsic(L, "llvm.minnum", &h, 1, a, 2);
    case BI_CUDA_FP16_HFMA: return lower_intrinsic(L, "llvm.fma", &h, 1, a, 3);
    case BI_CUDA_FP16_HNEG: return lower_fm(L, LLVMBuildFNeg(L->b, a[0], "hneg"));
    case BI_CUDA_FP16_HRCP: return lower_fm(L, LLVMBuildFDiv(L->b, LLVMConstReal(h, 1.0), a[0], "hrcp"));
    case BI_CUDA_FP16_HRSQRT: { /* libdevice's rsqrtf, rounded */
        LLVMValueRef x = LLVMBuildFPExt(L->b, a[0], L->t_f32, "");
        LLVMTypeRef f = L->t_f32;
        return LLVMBuildFPTrunc(L->b, call(L, "__nv_rsqrtf", f, &f, 1, &x), h, "hrsqrt");
    }
    /* __heq... are ordered (false on a NaN), __hne too (CUDA's __hneu is the unordered one) */
    case BI_CUDA_FP16_HEQ: return LLVMBuildFCmp(L->b, LLVMRealOEQ, a[0], a[1], "heq");
    case BI_CUDA_FP16_HNE: return LLVMBuildFCmp(L->b, LLVMRealONE, a[0], a[1], "hne");
    case BI_CUDA_FP16_HGT: return LLVMBuildFCmp(L->b, LLVMRealOGT, a[0], a[1], "hgt");
    case BI_CUDA_FP16_HGE: return LLVMBuildFCmp(L->b, LLVMRealOGE, a[0], a[1], "hge");
    case BI_CUDA_FP16_HLT: return LLVMBuildFCmp(L->b, LLVMRealOLT, a[0], a[1], "hlt");
    case BI_CUDA_FP16_HLE: return LLVMBuildFCmp(L->b, LLVMRealOLE, a[0], a[1], "hle");
    default: break;
    }
    const char *in = id >= BI_CUDA_FP16_HABS && id <= BI_CUDA_FP16_HTRUNC ? unary[id - BI_CUDA_FP16_HABS] : NULL;
    if (!in)
        return lower_fail(L, n, HJ_DIAG_LOWERING, "no lowering for '%s'", builtin_name(id));
    return lower_intrinsic(L, in, &h, 1, a, 1);
}

LLVMValueRef lower_cuda_call(Lower *L, Node *n, bool *owned) {
    *owned = false;
    BuiltinId id = n->builtin;
    if (!L->device)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "'%s' can only be used in CUDA kernels", builtin_name(id));
    static const char *const regs[] = {"tid.x",  "tid.y",   "tid.z",   "ctaid.x",  "ctaid.y",  "ctaid.z",  "ntid.x",
                                       "ntid.y", "ntid.z",  "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpsize"};
    if (id >= BI_CUDA_TID_X && id <= BI_CUDA_WARPSIZE)
        return sreg(L, regs[id - BI_CUDA_TID_X]);
    if (id >= BI_CUDA_ATOMIC_ADD && id <= BI_CUDA_ATOMIC_NANMIN)
        return atomic_op(L, n, id);
    if (id >= BI_CUDA_FP16_HADD && id <= BI_CUDA_FP16_HLE)
        return fp16_op(L, n, id);
    LLVMTypeRef t;
    LLVMValueRef x;
    switch (id) {
    case BI_CUDA_GRID: return grid(L, n, false);
    case BI_CUDA_GRIDSIZE: return grid(L, n, true);
    case BI_CUDA_SHARED_ARRAY: return shared_array(L, n);
    case BI_CUDA_LOCAL_ARRAY: return local_array(L, n);
    case BI_CUDA_CONST_ARRAY_LIKE: return lower_expr(L, arg(n, 0), owned);
    case BI_CUDA_SYNCTHREADS: call(L, "llvm.nvvm.barrier0", L->t_void, NULL, 0, NULL); return none_value(L, n);
    case BI_CUDA_CG_THIS_GRID: return none_value(L, n);
    case BI_CUDA_CG_GRID_SYNC: return grid_sync(L, n);
    case BI_CUDA_SYNCTHREADS_COUNT: return barrier_pred(L, n, "llvm.nvvm.barrier0.popc");
    case BI_CUDA_SYNCTHREADS_AND: return barrier_pred(L, n, "llvm.nvvm.barrier0.and");
    case BI_CUDA_SYNCTHREADS_OR: return barrier_pred(L, n, "llvm.nvvm.barrier0.or");
    case BI_CUDA_THREADFENCE: call(L, "llvm.nvvm.membar.gl", L->t_void, NULL, 0, NULL); return none_value(L, n);
    case BI_CUDA_THREADFENCE_BLOCK: call(L, "llvm.nvvm.membar.cta", L->t_void, NULL, 0, NULL); return none_value(L, n);
    case BI_CUDA_THREADFENCE_SYSTEM: call(L, "llvm.nvvm.membar.sys", L->t_void, NULL, 0, NULL); return none_value(L, n);
    case BI_CUDA_SYNCWARP:
        x = arg(n, 0) ? arg_value(L, n, 0) : lower_i32(L, -1);
        if (!x)
            return NULL;
        t = L->t_i32;
        call(L, "llvm.nvvm.bar.warp.sync", L->t_void, &t, 1, &x);
        return none_value(L, n);
    case BI_CUDA_ATOMIC_CAS: return atomic_cas(L, n, true);
    case BI_CUDA_ATOMIC_COMPARE_AND_SWAP: return atomic_cas(L, n, false);
    case BI_CUDA_SHFL_SYNC: return shfl(L, n, "idx");
    case BI_CUDA_SHFL_UP_SYNC: return shfl(L, n, "up");
    case BI_CUDA_SHFL_DOWN_SYNC: return shfl(L, n, "down");
    case BI_CUDA_SHFL_XOR_SYNC: return shfl(L, n, "bfly");
    case BI_CUDA_ALL_SYNC: return vote(L, n, "all");
    case BI_CUDA_ANY_SYNC: return vote(L, n, "any");
    case BI_CUDA_BALLOT_SYNC: return vote(L, n, "ballot");
    case BI_CUDA_EQ_SYNC: return eq_sync(L, n);
    case BI_CUDA_ACTIVEMASK: {
        /* activemask.b32 (PTX 6.2): inline, LLVM 19 has no intrinsic for it */
        LLVMTypeRef ft = LLVMFunctionType(L->t_i32, NULL, 0, 0);
        LLVMValueRef a = LLVMGetInlineAsm(ft, "activemask.b32 $0;", 18, "=r", 2, 1, 0, LLVMInlineAsmDialectATT, 0);
        return LLVMBuildCall2(L->b, ft, a, NULL, 0, "activemask");
    }
    case BI_CUDA_LANEMASK_LT: return sreg(L, "lanemask.lt");
    case BI_CUDA_POPC:
    case BI_CUDA_BREV:
    case BI_CUDA_CLZ: {
        x = arg_value(L, n, 0);
        if (!x)
            return NULL;
        t = LLVMTypeOf(x);
        if (id == BI_CUDA_CLZ) {
            LLVMValueRef a[2] = {x, LLVMConstInt(L->t_i1, 0, 0)};
            return lower_intrinsic(L, "llvm.ctlz", &t, 1, a, 2);
        }
        return lower_intrinsic(L, id == BI_CUDA_POPC ? "llvm.ctpop" : "llvm.bitreverse", &t, 1, &x, 1);
    }
    case BI_CUDA_FFS: {
        x = arg_value(L, n, 0);
        if (!x)
            return NULL;
        t = LLVMTypeOf(x);
        return call(L, t == L->t_i64 ? "__nv_ffsll" : "__nv_ffs", L->t_i32, &t, 1, &x);
    }
    case BI_CUDA_FMA: {
        LLVMValueRef a[3] = {arg_value(L, n, 0), arg_value(L, n, 1), arg_value(L, n, 2)};
        if (!a[0] || !a[1] || !a[2])
            return NULL;
        t = LLVMTypeOf(a[0]);
        return lower_intrinsic(L, "llvm.fma", &t, 1, a, 3);
    }
    case BI_CUDA_CBRT:
        x = arg_value(L, n, 0);
        if (!x)
            return NULL;
        t = LLVMTypeOf(x);
        return call(L, t == L->t_f32 ? "__nv_cbrtf" : "__nv_cbrt", t, &t, 1, &x);
    default: return lower_fail(L, n, HJ_DIAG_LOWERING, "no lowering for '%s'", builtin_name(id));
    }
}
