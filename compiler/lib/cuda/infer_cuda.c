/* infer_cuda.c - typing of hpcjit.cuda in kernels and device functions
 * (lowered by lower_cuda.c; the device mode itself is lower/lower_device.c).
 *
 * Typed tree of a call: args are the slots of sigs[] below (NULL for an
 * absent optional one), converted as noted:
 *   threadIdx.x ... gridDim.z, laneid, warpsize    ATTR_LIB_VALUE, int32
 *   grid(ndim) gridsize(ndim)         int64, or a tuple of ndim int64 (ndim a constant 1..3)
 *   shared.array(shape, dtype)        C array; shape constant ints (0: dynamic shared memory)
 *   local.array(shape, dtype)         C array in the thread's stack
 *   const.array_like(ary)             ary's type (a global array: constant memory)
 *   syncthreads() threadfence*()      None;  syncthreads_count/and/or(pred): int32
 *   syncwarp(mask)                    None (mask uint32, default all lanes)
 *   atomic.op(ary, idx, val)          ary's dtype (the old value); val cast to it
 *   atomic.cas(ary, idx, old, val)    compare_and_swap(ary, old, val): ary[0]
 *   shfl_*sync(mask, value, lane)     value's type;  all/any_sync(mask, pred): bool
 *   eq_sync(mask, value): bool; ballot_sync(mask, pred), activemask(), lanemask_lt(): uint32
 *   popc brev clz (x)                 x's type;  ffs(x): uint32;  fma(a, b, c), cbrt(x): float
 *   fp16.hadd(a, b) ... fp16.htrunc(a) float16, operands cast to float16;  fp16.heq ... hle: bool
 *   cg.this_grid()                    Module(hpcjit.cuda.cg.GridGroup): a value with no
 *                                     run-time part; g.sync() resolves by name: None */
#include "infer.h"
#include "cuda.h"
#include "registry.h"

#include <string.h>

static Type *T(Inf *I, TyKind k) { return infer_ty(I, k); }

static InferSig sig_of(BuiltinId id) {
    InferSig s = {0};
    switch (id) {
    case BI_CUDA_GRID: INFER_SIG(&s, "grid", "ndim"); break;
    case BI_CUDA_GRIDSIZE: INFER_SIG(&s, "gridsize", "ndim"); break;
    case BI_CUDA_SHARED_ARRAY: INFER_SIG(&s, "shared.array", "shape", "dtype"); break;
    case BI_CUDA_LOCAL_ARRAY: INFER_SIG(&s, "local.array", "shape", "dtype"); break;
    case BI_CUDA_CONST_ARRAY_LIKE: INFER_SIG(&s, "const.array_like", "ndarray"); break;
    case BI_CUDA_SYNCTHREADS_COUNT: case BI_CUDA_SYNCTHREADS_AND: case BI_CUDA_SYNCTHREADS_OR:
        INFER_SIG(&s, "syncthreads_count", "predicate"); break;
    case BI_CUDA_SYNCWARP: INFER_SIG(&s, "syncwarp", "mask"); break;
    case BI_CUDA_ATOMIC_CAS: INFER_SIG(&s, "atomic.cas", "ary", "idx", "old", "val"); break;
    case BI_CUDA_ATOMIC_COMPARE_AND_SWAP: INFER_SIG(&s, "atomic.compare_and_swap", "ary", "old", "val"); break;
    case BI_CUDA_SHFL_SYNC: INFER_SIG(&s, "shfl_sync", "mask", "value", "src_lane"); break;
    case BI_CUDA_SHFL_UP_SYNC: INFER_SIG(&s, "shfl_up_sync", "mask", "value", "delta"); break;
    case BI_CUDA_SHFL_DOWN_SYNC: INFER_SIG(&s, "shfl_down_sync", "mask", "value", "delta"); break;
    case BI_CUDA_SHFL_XOR_SYNC: INFER_SIG(&s, "shfl_xor_sync", "mask", "value", "lane_mask"); break;
    case BI_CUDA_ALL_SYNC: case BI_CUDA_ANY_SYNC: case BI_CUDA_BALLOT_SYNC:
        INFER_SIG(&s, "vote_sync", "mask", "predicate"); break;
    case BI_CUDA_EQ_SYNC: INFER_SIG(&s, "eq_sync", "mask", "value"); break;
    case BI_CUDA_POPC: case BI_CUDA_BREV: case BI_CUDA_CLZ: case BI_CUDA_FFS: case BI_CUDA_CBRT:
        INFER_SIG(&s, "bits", "x"); break;
    case BI_CUDA_FMA: INFER_SIG(&s, "fma", "a", "b", "c"); break;
    case BI_CUDA_FP16_HFMA: INFER_SIG(&s, "hfma", "a", "b", "c"); break;
    default:
        if (id >= BI_CUDA_ATOMIC_ADD && id <= BI_CUDA_ATOMIC_NANMIN)
            INFER_SIG(&s, "atomic", "ary", "idx", "val");
        else if (id >= BI_CUDA_FP16_HNEG && id <= BI_CUDA_FP16_HTRUNC)
            INFER_SIG(&s, "fp16", "a");
        else if (id >= BI_CUDA_FP16_HADD && id <= BI_CUDA_FP16_HLE)
            INFER_SIG(&s, "fp16", "a", "b");
        else
            s.fname = "cuda";
        break;
    }
    s.fname = builtin_name(id) + 12; /* "hpcjit.cuda." */
    return s;
}

static Type *infer_cuda_value(Inf *I, Node *n, BuiltinId id) {
    (void)n;
    if (id >= BI_CUDA_TID_X && id <= BI_CUDA_WARPSIZE)
        return T(I, TY_INT32);
    return NULL;
}

/* A compile-time integer: a literal, a global constant, or + - * // % of
 * them (TPB + 2). */
bool cuda_const_int(const Node *n, int64_t *v) {
    if (!n)
        return false;
    if (n->kind == N_CONST || (n->kind == N_NAME && !n->var)) {
        if (n->cval.kind != CVAL_INT && n->cval.kind != CVAL_BOOL)
            return false;
        *v = n->cval.i;
        return true;
    }
    int64_t a = 0, b = 0;
    if (n->kind == N_UNARYOP && (n->op == OP_NEG || n->op == OP_POS) && cuda_const_int(n->a, &a)) {
        *v = n->op == OP_NEG ? -a : a;
        return true;
    }
    if (n->kind != N_BINOP || !cuda_const_int(n->a, &a) || !cuda_const_int(n->b, &b))
        return false;
    switch (n->op) {
    case OP_ADD: *v = a + b; return true;
    case OP_SUB: *v = a - b; return true;
    case OP_MUL: *v = a * b; return true;
    case OP_FLOORDIV:
    case OP_MOD:
        if (b == 0)
            return false;
        {
            int64_t q = a / b, r = a % b;
            if (r != 0 && ((r < 0) != (b < 0))) {
                q -= 1;
                r += b;
            }
            *v = n->op == OP_FLOORDIV ? q : r;
        }
        return true;
    default: return false;
    }
}

/* shape of shared/local arrays: an int or a tuple of ints, all constants */
static int const_shape(Inf *I, Node *n, const char *fname, int64_t *dims) {
    if (n->kind == N_TUPLE) {
        if (n->args.len < 1 || n->args.len > 8) {
            TYPING(I, n, "%s(): the shape must have 1 to 8 dimensions", fname);
            return -1;
        }
        for (int i = 0; i < n->args.len; i++)
            if (!cuda_const_int(VEC_AT(n->args, i), &dims[i]) || dims[i] < 0) {
                UNSUP(I, VEC_AT(n->args, i), "%s(): the shape must be non-negative integer constants", fname);
                return -1;
            }
        return n->args.len;
    }
    if (!cuda_const_int(n, &dims[0]) || dims[0] < 0) {
        UNSUP(I, n, "%s(): the shape must be a non-negative integer constant or a tuple of them", fname);
        return -1;
    }
    return 1;
}

static bool int_type(const Type *t) { return ty_is_int(t) || t->kind == TY_BOOL; }

static Type *atomic_dtype(Inf *I, Node *at, Type *a, BuiltinId id, const char *fname) {
    if (!ty_is_array(a))
        return TYPING(I, at, "%s(): the first argument must be an array, not %s", fname, infer_tyname(I, a));
    if (a->readonly)
        return TYPING(I, at, "%s(): the array is read-only", fname);
    TyKind k = a->dtype->kind;
    bool isint = k == TY_INT32 || k == TY_INT64 || k == TY_UINT32 || k == TY_UINT64;
    bool isflt = k == TY_FLOAT32 || k == TY_FLOAT64;
    if (!isint && !isflt)
        return TYPING(I, at, "%s(): arrays of %s are not supported (int32, int64, uint32, uint64, float32, float64)",
                      fname, infer_tyname(I, a->dtype));
    bool bitwise = id == BI_CUDA_ATOMIC_AND || id == BI_CUDA_ATOMIC_OR || id == BI_CUDA_ATOMIC_XOR ||
                   id == BI_CUDA_ATOMIC_INC || id == BI_CUDA_ATOMIC_DEC || id == BI_CUDA_ATOMIC_CAS ||
                   id == BI_CUDA_ATOMIC_COMPARE_AND_SWAP;
    if (bitwise && !isint && id != BI_CUDA_ATOMIC_CAS && id != BI_CUDA_ATOMIC_COMPARE_AND_SWAP)
        return TYPING(I, at, "%s(): needs an integer array, not %s", fname, infer_tyname(I, a));
    if ((id == BI_CUDA_ATOMIC_NANMAX || id == BI_CUDA_ATOMIC_NANMIN) && !isflt)
        return TYPING(I, at, "%s(): needs a float array, not %s", fname, infer_tyname(I, a));
    return a->dtype;
}

/* idx: an int, or a tuple of ndim ints */
static bool index_arg(Inf *I, Node **pn, Type *a, const char *fname) {
    Type *t = infer_expr(I, pn);
    if (!t || IS_UNK(t))
        return t != NULL;
    if (int_type(t)) {
        if (a->ndim != 1)
            return TYPING(I, *pn, "%s(): a %d-D array needs a tuple of %d indices", fname, a->ndim, a->ndim) != NULL;
        infer_cast(I, pn, T(I, TY_INT64));
        return true;
    }
    if (t->kind == TY_TUPLE && t->nelems == a->ndim) {
        for (int i = 0; i < t->nelems; i++)
            if (!int_type(t->elems[i]))
                return TYPING(I, *pn, "%s(): indices must be integers", fname) != NULL;
        Type *el[32];
        for (int i = 0; i < t->nelems && i < 32; i++)
            el[i] = T(I, TY_INT64);
        infer_cast(I, pn, ty_tuple(I->tc, el, t->nelems));
        return true;
    }
    return TYPING(I, *pn, "%s(): the index must be an integer or a tuple of %d integers, not %s", fname, a->ndim,
                  infer_tyname(I, t)) != NULL;
}

static bool uint32_arg(Inf *I, Node **pn, const char *fname, const char *what) {
    Type *t = infer_expr(I, pn);
    if (!t || IS_UNK(t))
        return t != NULL;
    if (!int_type(t))
        return TYPING(I, *pn, "%s(): %s must be an integer, not %s", fname, what, infer_tyname(I, t)) != NULL;
    infer_cast(I, pn, T(I, TY_UINT32));
    return true;
}

static Type *infer_cuda_call(Inf *I, Node *n, BuiltinId id, Node *self) {
    (void)self;
    InferSig s = sig_of(id);
    const char *fname = s.fname;
    Node *sl[INFER_MAX_SLOTS] = {0};
    n->call_kind = CALL_BUILTIN;
    n->builtin = id;
    if (!HJ_ENTRY_IS_CUDA(I->c->entry_kind))
        return UNSUP(I, n, "cuda.%s() can only be used in CUDA kernels and device functions", fname);
    if (!infer_bind_slots(I, n, NULL, &s, sl))
        return NULL;
    for (int i = 0; i < s.n; i++) {
        bool optional = id == BI_CUDA_SYNCWARP || id == BI_CUDA_GRID || id == BI_CUDA_GRIDSIZE;
        if (!sl[i] && !optional)
            return TYPING(I, n, "%s() missing required argument '%s'", fname, s.names[i]);
    }
    Type *r = NULL;
    switch (id) {
    case BI_CUDA_GRID:
    case BI_CUDA_GRIDSIZE: {
        int64_t nd = 1;
        if (sl[0]) {
            Type *t = infer_expr(I, &sl[0]);
            if (!t)
                return NULL;
            if (!cuda_const_int(sl[0], &nd) || nd < 1 || nd > 3)
                return TYPING(I, sl[0], "%s(): ndim must be the constant 1, 2 or 3", fname);
        }
        n->cval.kind = CVAL_INT; /* the lowering reads ndim here */
        n->cval.i = nd;
        if (nd == 1) {
            r = T(I, TY_INT64);
        } else {
            Type *el[3] = {T(I, TY_INT64), T(I, TY_INT64), T(I, TY_INT64)};
            r = ty_tuple(I->tc, el, (int)nd);
        }
        break;
    }
    case BI_CUDA_SHARED_ARRAY:
    case BI_CUDA_LOCAL_ARRAY: {
        Type *st = infer_expr(I, &sl[0]);
        Type *dt = infer_expr(I, &sl[1]);
        if (!st || !dt)
            return NULL;
        if (IS_UNK(st) || IS_UNK(dt))
            return TY_UNK(I);
        int64_t dims[8];
        int nd = const_shape(I, sl[0], fname, dims);
        if (nd < 0)
            return NULL;
        if (dt->kind != TY_DTYPE || !ty_is_number(dt->dtype))
            return TYPING(I, sl[1], "%s(): dtype must be a NumPy number type (np.float32, numba.float64...), not %s",
                          fname, infer_tyname(I, dt));
        if (id == BI_CUDA_LOCAL_ARRAY)
            for (int d = 0; d < nd; d++)
                if (dims[d] == 0)
                    return TYPING(I, sl[0], "local.array(): the shape cannot be 0");
        r = ty_array(I->tc, dt->dtype, nd, LAYOUT_C);
        break;
    }
    case BI_CUDA_CONST_ARRAY_LIKE: {
        Type *t = infer_expr(I, &sl[0]);
        if (!t || IS_UNK(t))
            return t;
        if (!ty_is_array(t) || sl[0]->kind != N_NAME || sl[0]->var)
            return UNSUP(I, sl[0], "const.array_like(): the argument must be a global NumPy array (its items are "
                         "copied into constant memory when the kernel is compiled)");
        r = t;
        break;
    }
    case BI_CUDA_CG_THIS_GRID:
        r = ty_module(I->tc, "hpcjit.cuda.cg.GridGroup");
        break;
    case BI_CUDA_SYNCTHREADS: case BI_CUDA_THREADFENCE: case BI_CUDA_THREADFENCE_BLOCK:
    case BI_CUDA_THREADFENCE_SYSTEM: case BI_CUDA_CG_GRID_SYNC:
        r = T(I, TY_NONE);
        break;
    case BI_CUDA_SYNCWARP:
        if (sl[0] && !uint32_arg(I, &sl[0], fname, "mask"))
            return NULL;
        r = T(I, TY_NONE);
        break;
    case BI_CUDA_SYNCTHREADS_COUNT: case BI_CUDA_SYNCTHREADS_AND: case BI_CUDA_SYNCTHREADS_OR:
        if (!infer_truth(I, &sl[0]))
            return NULL;
        r = T(I, TY_INT32);
        break;
    case BI_CUDA_ATOMIC_CAS:
    case BI_CUDA_ATOMIC_COMPARE_AND_SWAP: {
        Type *a = infer_expr(I, &sl[0]);
        if (!a || IS_UNK(a))
            return a;
        Type *dt = atomic_dtype(I, sl[0], a, id, fname);
        if (!dt)
            return NULL;
        int k = 1;
        if (id == BI_CUDA_ATOMIC_CAS) {
            if (!index_arg(I, &sl[1], a, fname))
                return NULL;
            k = 2;
        }
        if (!infer_coerce(I, &sl[k], dt, "old") || !infer_coerce(I, &sl[k + 1], dt, "val"))
            return NULL;
        r = dt;
        break;
    }
    case BI_CUDA_SHFL_SYNC: case BI_CUDA_SHFL_UP_SYNC: case BI_CUDA_SHFL_DOWN_SYNC: case BI_CUDA_SHFL_XOR_SYNC: {
        if (!uint32_arg(I, &sl[0], fname, "mask"))
            return NULL;
        Type *t = infer_expr(I, &sl[1]);
        if (!t || IS_UNK(t))
            return t;
        if (!ty_is_number(t) || ty_is_complex(t))
            return TYPING(I, sl[1], "%s(): the value must be an integer or a float, not %s", fname, infer_tyname(I, t));
        if (t->kind == TY_FLOAT16) { /* as numba-cuda: shuffled as a float32 */
            t = T(I, TY_FLOAT32);
            infer_cast(I, &sl[1], t);
        } else if (t->kind == TY_BOOL || ty_bits(t) < 32) {
            t = ty_is_int(t) && !ty_is_signed(t) ? T(I, TY_UINT32) : T(I, TY_INT32);
            infer_cast(I, &sl[1], t);
        }
        if (!uint32_arg(I, &sl[2], fname, s.names[2]))
            return NULL;
        r = t;
        break;
    }
    case BI_CUDA_ALL_SYNC: case BI_CUDA_ANY_SYNC: case BI_CUDA_BALLOT_SYNC:
        if (!uint32_arg(I, &sl[0], fname, "mask") || !infer_truth(I, &sl[1]))
            return NULL;
        r = id == BI_CUDA_BALLOT_SYNC ? T(I, TY_UINT32) : T(I, TY_BOOL);
        break;
    case BI_CUDA_EQ_SYNC: {
        if (!uint32_arg(I, &sl[0], fname, "mask"))
            return NULL;
        Type *t = infer_expr(I, &sl[1]);
        if (!t || IS_UNK(t))
            return t;
        if (!ty_is_number(t) || ty_is_complex(t))
            return TYPING(I, sl[1], "eq_sync(): the value must be an integer or a float, not %s", infer_tyname(I, t));
        if (t->kind == TY_FLOAT16)
            infer_cast(I, &sl[1], T(I, TY_FLOAT32));
        else if (ty_bits(t) < 32 || t->kind == TY_BOOL)
            infer_cast(I, &sl[1], T(I, TY_INT32));
        r = T(I, TY_BOOL);
        break;
    }
    case BI_CUDA_ACTIVEMASK: case BI_CUDA_LANEMASK_LT: r = T(I, TY_UINT32); break;
    case BI_CUDA_POPC: case BI_CUDA_BREV: case BI_CUDA_CLZ: case BI_CUDA_FFS: {
        Type *t = infer_expr(I, &sl[0]);
        if (!t || IS_UNK(t))
            return t;
        if (!ty_is_int(t))
            return TYPING(I, sl[0], "%s(): needs an integer, not %s", fname, infer_tyname(I, t));
        if (ty_bits(t) < 32) {
            t = ty_is_signed(t) ? T(I, TY_INT32) : T(I, TY_UINT32);
            infer_cast(I, &sl[0], t);
        }
        r = id == BI_CUDA_FFS ? T(I, TY_UINT32) : t;
        break;
    }
    case BI_CUDA_CBRT:
    case BI_CUDA_FMA: {
        Type *ft = NULL;
        int na = id == BI_CUDA_FMA ? 3 : 1;
        for (int i = 0; i < na; i++) {
            Type *t = infer_expr(I, &sl[i]);
            if (!t || IS_UNK(t))
                return t;
            if (!ty_is_number(t) || ty_is_complex(t))
                return TYPING(I, sl[i], "%s(): needs real numbers, not %s", fname, infer_tyname(I, t));
            Type *f = t->kind == TY_FLOAT32 ? T(I, TY_FLOAT32) : T(I, TY_FLOAT64);
            ft = !ft ? f : (ft->kind == TY_FLOAT64 || f->kind == TY_FLOAT64) ? T(I, TY_FLOAT64) : ft;
        }
        for (int i = 0; i < na; i++)
            infer_cast(I, &sl[i], ft);
        r = ft;
        break;
    }
    default:
        if (id >= BI_CUDA_FP16_HADD && id <= BI_CUDA_FP16_HLE) {
            /* real numbers converted to float16 (numba-cuda's (f2, f2) -> f2
             * signatures, which take other numbers by conversion) */
            for (int i = 0; i < s.n; i++) {
                Type *t = infer_expr(I, &sl[i]);
                if (!t || IS_UNK(t))
                    return t;
                if (!ty_is_number(t) || ty_is_complex(t))
                    return TYPING(I, sl[i], "%s(): needs float16 operands, not %s", fname, infer_tyname(I, t));
                infer_cast(I, &sl[i], T(I, TY_FLOAT16));
            }
            r = id >= BI_CUDA_FP16_HEQ ? T(I, TY_BOOL) : T(I, TY_FLOAT16);
            break;
        }
        if (id >= BI_CUDA_ATOMIC_ADD && id <= BI_CUDA_ATOMIC_NANMIN) {
            Type *a = infer_expr(I, &sl[0]);
            if (!a || IS_UNK(a))
                return a;
            Type *dt = atomic_dtype(I, sl[0], a, id, fname);
            if (!dt || !index_arg(I, &sl[1], a, fname) || !infer_coerce(I, &sl[2], dt, "val"))
                return NULL;
            r = dt;
            break;
        }
        return UNSUP(I, n, "cuda.%s is not a function", fname);
    }
    infer_store_slots(I, n, sl, s.n);
    return r;
}

const LibOps lib_cuda_ops = {.name = "cuda", .infer_call = infer_cuda_call, .infer_value = infer_cuda_value,
                             .lower_call = lower_cuda_call};
