/* lower_device.c - device mode of the lowering (hpcjit.cuda, docs/CUDA.md):
 * what replaces the host runtime's calls on the GPU, and the kernel and
 * device-function wrappers with the flattened parameters of the kernel
 * parameter ABI.
 *
 * The statements, expressions and library features lower as on the CPU;
 * every call they make to the host runtime goes through lower_rt, which in
 * device mode comes here: raises record the first failure in
 * __hpcjit_error (debug=True) and leave through the error exit, libm
 * becomes libdevice, reference counting vanishes (device arrays are owned
 * by the host), and anything else (allocation, print, the pool) is a
 * located UnsupportedError. */
#include "lower.h"
#include "registry.h"

#include <stdio.h>
#include <string.h>

/* ---- __hpcjit_error -----------------------------------------------------------
 * struct HjCudaError {           offset
 *     uint32 status;             0   0: no error; 1: recorded (first failure wins)
 *     uint32 kind;               4   EXC_KINDS index below
 *     int32  line, col;          8   source location of the raise / index
 *     uint32 thread[3];          16  threadIdx.x/y/z of the failing thread
 *     uint32 block[3];           28  blockIdx.x/y/z
 *     int64  index, dim;         40  IndexError: the index and the axis length
 * };                             56 bytes, 8-aligned
 * ORDER: docs/CUDA.md and python/hpcjit/cuda/compiler.py (ERROR_KINDS). */
static const char *const exc_kinds[] = {
    "",               "Exception",      "IndexError",  "ZeroDivisionError", "AssertionError",
    "ValueError",     "TypeError",      "RuntimeError", "KeyError",         "OverflowError",
    "ArithmeticError", "NotImplementedError", "LookupError",
};
enum { EXC_OTHER = 1, EXC_INDEX = 2, EXC_ZERODIV = 3, EXC_VALUE = 5 };

static unsigned exc_kind(const char *name) {
    for (unsigned i = 1; i < sizeof exc_kinds / sizeof exc_kinds[0]; i++)
        if (name && strcmp(exc_kinds[i], name) == 0)
            return i;
    return EXC_OTHER;
}

/* Node positions count from the def's first line; users count in the file. */
static int user_line(Lower *L, const Node *n) {
    const HjFunction *hf = L->spec ? L->spec->hf : NULL;
    return n ? n->loc.line + (hf ? hf->first_line - 1 : 0) : 0;
}

static int user_col(Lower *L, const Node *n) {
    const HjFunction *hf = L->spec ? L->spec->hf : NULL;
    return n ? n->loc.col + (hf ? hf->col_offset : 0) : 0;
}

static LLVMTypeRef err_type(Lower *L) {
    LLVMTypeRef f[10] = {L->t_i32, L->t_i32, L->t_i32, L->t_i32, L->t_i32,
                         L->t_i32, L->t_i32, L->t_i32, L->t_i32, L->t_i32};
    LLVMTypeRef t = LLVMStructTypeInContext(L->ctx, f, 10, 0);
    LLVMTypeRef g[3] = {t, L->t_i64, L->t_i64};
    return LLVMStructTypeInContext(L->ctx, g, 3, 0);
}

static LLVMValueRef sreg(Lower *L, const char *name) {
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    LLVMTypeRef fnty = LLVMFunctionType(L->t_i32, NULL, 0, 0);
    if (!fn) {
        fn = LLVMAddFunction(L->mod, name, fnty);
        LLVMAddAttributeAtIndex(fn, (unsigned)LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    }
    return lower_call(L, fnty, fn, NULL, 0, "");
}

/* if (cmpxchg(&err.status, 0, 1) succeeded) fill in the rest */
static void record_error(Lower *L, unsigned kind, LLVMValueRef index, LLVMValueRef dim) {
    if (!L->cuda->debug)
        return;
    LLVMTypeRef et = err_type(L);
    if (!L->err_global) {
        LLVMValueRef g = LLVMGetNamedGlobal(L->mod, "__hpcjit_error");
        if (!g) {
            g = LLVMAddGlobalInAddressSpace(L->mod, et, "__hpcjit_error", 1);
            LLVMSetInitializer(g, LLVMConstNull(et));
            LLVMSetAlignment(g, 8);
        }
        L->err_global = g;
    }
    LLVMValueRef g = L->err_global;
    LLVMValueRef x = LLVMBuildAtomicCmpXchg(L->b, g, lower_i32(L, 0), lower_i32(L, 1),
                                            LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
    LLVMValueRef won = LLVMBuildExtractValue(L->b, x, 1, "won");
    LLVMBasicBlockRef fill = lower_block(L, "err.fill"), done = lower_block(L, "err.done");
    LLVMBuildCondBr(L->b, won, fill, done);
    lower_at(L, fill);
    LLVMValueRef vals[10] = {NULL,
                             lower_i32(L, (int32_t)kind),
                             lower_i32(L, user_line(L, L->at)),
                             lower_i32(L, user_col(L, L->at)),
                             sreg(L, "llvm.nvvm.read.ptx.sreg.tid.x"),
                             sreg(L, "llvm.nvvm.read.ptx.sreg.tid.y"),
                             sreg(L, "llvm.nvvm.read.ptx.sreg.tid.z"),
                             sreg(L, "llvm.nvvm.read.ptx.sreg.ctaid.x"),
                             sreg(L, "llvm.nvvm.read.ptx.sreg.ctaid.y"),
                             sreg(L, "llvm.nvvm.read.ptx.sreg.ctaid.z")};
    for (unsigned i = 1; i < 10; i++) {
        LLVMValueRef off = lower_i64(L, 4 * (int64_t)i);
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->t_i8, g, &off, 1, "");
        LLVMBuildStore(L->b, vals[i], p);
    }
    LLVMValueRef off = lower_i64(L, 40);
    LLVMBuildStore(L->b, index ? index : lower_i64(L, 0), LLVMBuildGEP2(L->b, L->t_i8, g, &off, 1, ""));
    off = lower_i64(L, 48);
    LLVMBuildStore(L->b, dim ? dim : lower_i64(L, 0), LLVMBuildGEP2(L->b, L->t_i8, g, &off, 1, ""));
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
}

/* The string a constant global (lower_cstr) holds, or NULL. */
static const char *cstr_of(LLVMValueRef v) {
    if (!v || !LLVMIsAGlobalVariable(v))
        return NULL;
    LLVMValueRef init = LLVMGetInitializer(v);
    if (!init || !LLVMIsConstantString(init))
        return NULL;
    size_t n = 0;
    return LLVMGetAsString(init, &n);
}

/* libm functions libdevice defines as __nv_<name> (float versions: <name>f). */
static const char *const libm_names[] = {
    "sin",   "cos",   "tan",   "asin",  "acos",  "atan",   "atan2",     "sinh",  "cosh",  "tanh",
    "asinh", "acosh", "atanh", "exp",   "exp2",  "exp10",  "expm1",     "log",   "log2",  "log10",
    "log1p", "pow",   "hypot", "cbrt",  "erf",   "erfc",   "tgamma",    "lgamma", "fmod", "ldexp",
    "frexp", "modf",  "nextafter", "copysign", "fabs", "floor", "ceil", "trunc", "round", "rint",
    "sqrt",  "fmin",  "fmax",  "remainder", "logb", "ilogb", "nearbyint", "fdim", "sinpi", "cospi",
};

static bool is_libm(const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof libm_names / sizeof libm_names[0]; i++) {
        const char *m = libm_names[i];
        size_t k = strlen(m);
        if (strcmp(m, name) == 0 || (n == k + 1 && name[k] == 'f' && strncmp(m, name, k) == 0))
            return true;
    }
    return false;
}

const char *lower_device_libcall(const char *intrinsic, LLVMTypeRef ty, char *buf, size_t size) {
    static const char *const slow[] = {"sin", "cos", "tan", "exp", "exp2", "exp10", "log", "log2", "log10", "pow"};
    if (strncmp(intrinsic, "llvm.", 5) != 0)
        return NULL;
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind)
        return NULL;
    for (size_t i = 0; i < sizeof slow / sizeof slow[0]; i++)
        if (strcmp(intrinsic + 5, slow[i]) == 0) {
            snprintf(buf, size, "__nv_%s%s", slow[i], k == LLVMFloatTypeKind ? "f" : "");
            return buf;
        }
    return NULL;
}

/* What a host-runtime function is for, in a diagnostic. */
static const char *unsupported_what(const char *name) {
    if (strncmp(name, "rt_alloc", 8) == 0 || strcmp(name, "rt_jc_new") == 0)
        return "allocates memory, which a CUDA kernel cannot do (use cuda.local.array or cuda.shared.array)";
    if (strncmp(name, "rt_text_", 8) == 0 || strncmp(name, "rt_str_", 7) == 0)
        return "needs text (print, str, f-strings), which hpcjit does not support in CUDA kernels";
    if (strncmp(name, "rt_parallel", 11) == 0 || strncmp(name, "pool_", 5) == 0 ||
        strncmp(name, "rt_set_num_threads", 18) == 0)
        return "uses the CPU thread pool, which a CUDA kernel has not (use the grid: cuda.grid)";
    if (strncmp(name, "rt_random", 9) == 0)
        return "uses the host's random generator, which CUDA kernels have not";
    if (strncmp(name, "rt_exc_", 7) == 0)
        return "handles exceptions (try/except), which CUDA kernels cannot";
    if (strncmp(name, "rt_objmode", 10) == 0)
        return "calls Python (objmode), which CUDA kernels cannot";
    return "needs the host runtime, which CUDA kernels have not";
}

/* rt_cmath_v(fn, re, im) -> {re, im} of the host runtime becomes
 * __hj_cmath(fn, double v[2]) in place, from the kernels' complex library
 * (lib/cuda/devlib/cmath.c, linked by backend/ptx.c); complex64 parts are
 * computed in double and rounded by the caller (lower_cmath). */
static LLVMValueRef device_cmath(Lower *L, LLVMValueRef *args) {
    LLVMTypeRef pair = LLVMArrayType2(L->t_f64, 2);
    LLVMValueRef v = lower_alloca(L, pair, "cmath.z");
    LLVMValueRef one = lower_i64(L, 1);
    LLVMValueRef re = args[1], im = args[2];
    if (LLVMTypeOf(re) != L->t_f64) {
        re = LLVMBuildFPExt(L->b, re, L->t_f64, "");
        im = LLVMBuildFPExt(L->b, im, L->t_f64, "");
    }
    LLVMValueRef pim = LLVMBuildGEP2(L->b, L->t_f64, v, &one, 1, "");
    LLVMBuildStore(L->b, re, v);
    LLVMBuildStore(L->b, im, pim);
    LLVMTypeRef params[2] = {L->t_i32, L->t_ptr};
    LLVMTypeRef fnty = LLVMFunctionType(L->t_void, params, 2, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "__hj_cmath");
    if (!fn)
        fn = LLVMAddFunction(L->mod, "__hj_cmath", fnty);
    LLVMValueRef a[2] = {args[0], v};
    lower_call(L, fnty, fn, a, 2, "");
    LLVMTypeRef elems[2] = {L->t_f64, L->t_f64};
    LLVMValueRef r = LLVMGetUndef(LLVMStructTypeInContext(L->ctx, elems, 2, 0));
    r = LLVMBuildInsertValue(L->b, r, LLVMBuildLoad2(L->b, L->t_f64, v, "re"), 0, "");
    return LLVMBuildInsertValue(L->b, r, LLVMBuildLoad2(L->b, L->t_f64, pim, "im"), 1, "");
}

LLVMValueRef lower_device_rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n,
                             LLVMValueRef *args) {
    if (strcmp(name, "rt_incref") == 0 || strcmp(name, "rt_decref") == 0)
        return NULL;
    if (strcmp(name, "rt_raise") == 0) {
        record_error(L, exc_kind(cstr_of(n > 0 ? args[0] : NULL)), NULL, NULL);
        return NULL;
    }
    if (strcmp(name, "rt_raise_index") == 0) {
        record_error(L, EXC_INDEX, n > 0 ? args[0] : NULL, n > 2 ? args[2] : NULL);
        return NULL;
    }
    if (strcmp(name, "rt_raise_zerodiv") == 0) {
        record_error(L, EXC_ZERODIV, NULL, NULL);
        return NULL;
    }
    if (strcmp(name, "rt_raise_axis") == 0) {
        record_error(L, EXC_VALUE, NULL, NULL);
        return NULL;
    }
    if (strcmp(name, "rt_exc_reraise") == 0) {
        record_error(L, EXC_OTHER, NULL, NULL);
        return NULL;
    }
    if (strcmp(name, "rt_cmath_v") == 0 || strcmp(name, "rt_cmathf_v") == 0)
        return device_cmath(L, args);
    char nv[48];
    const char *callee = name; /* __nv_* (lower_intrinsic) as it is */
    if (strncmp(name, "__nv_", 5) != 0 && is_libm(name)) {
        snprintf(nv, sizeof nv, "__nv_%s", name);
        callee = nv;
    } else if (strncmp(name, "__nv_", 5) != 0) {
        const Node *at = L->at;
        const char *what = unsupported_what(name);
        if (at && at->kind == N_CALL && at->call_kind == CALL_BUILTIN)
            lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "'%s' %s", builtin_name(at->builtin), what);
        else
            lower_fail(L, at, HJ_DIAG_UNSUPPORTED, "this %s", what);
        return LLVMGetTypeKind(ret) == LLVMVoidTypeKind ? NULL : LLVMGetUndef(ret);
    }
    LLVMTypeRef fnty = LLVMFunctionType(ret, params, n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, callee);
    if (!fn)
        fn = LLVMAddFunction(L->mod, callee, fnty);
    return lower_call(L, fnty, fn, args, n, "");
}

LLVMValueRef lower_device_global(Lower *L, LLVMTypeRef ty, const char *name, unsigned addrspace, LLVMValueRef init) {
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->mod, ty, name, addrspace);
    if (init)
        LLVMSetInitializer(g, init);
    if (addrspace == 4)
        LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, 16);
    return LLVMConstAddrSpaceCast(g, L->t_ptr);
}

/* ---- the kernel parameter ABI ----------------------------------------------------- */

#define MAX_FLAT 1024

/* Append the PTX parameter types of one argument type; false if it has no
 * flattened form. */
static bool flatten(Lower *L, Type *t, LLVMTypeRef *out, unsigned *k) {
    if (*k + 2 * (unsigned)HJ_MAX_NDIM_LOWER + 2 >= MAX_FLAT)
        return false;
    switch (t->kind) {
    case TY_BOOL: out[(*k)++] = L->t_i8; return true;
    case TY_COMPLEX64: out[(*k)++] = L->t_f32; out[(*k)++] = L->t_f32; return true;
    case TY_COMPLEX128: out[(*k)++] = L->t_f64; out[(*k)++] = L->t_f64; return true;
    case TY_ARRAY:
        out[(*k)++] = L->t_ptr;
        for (int d = 0; d < 2 * t->ndim; d++)
            out[(*k)++] = L->t_i64;
        return true;
    case TY_TUPLE:
        for (int i = 0; i < t->nelems; i++)
            if (!flatten(L, t->elems[i], out, k))
                return false;
        return true;
    default:
        if (ty_is_number(t)) {
            out[(*k)++] = lower_type(L, t);
            return true;
        }
        return false;
    }
}

/* The register form of one argument rebuilt from parameters k.. of fn. */
static LLVMValueRef rebuild(Lower *L, Type *t, LLVMValueRef fn, unsigned *k) {
    switch (t->kind) {
    case TY_BOOL: {
        LLVMValueRef b = LLVMGetParam(fn, (*k)++);
        return LLVMBuildICmp(L->b, LLVMIntNE, b, LLVMConstInt(L->t_i8, 0, 0), "");
    }
    case TY_COMPLEX64:
    case TY_COMPLEX128: {
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        v = LLVMBuildInsertValue(L->b, v, LLVMGetParam(fn, (*k)++), 0, "");
        return LLVMBuildInsertValue(L->b, v, LLVMGetParam(fn, (*k)++), 1, "");
    }
    case TY_ARRAY: {
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_MEMINFO, "");
        v = LLVMBuildInsertValue(L->b, v, LLVMConstNull(L->t_ptr), ARR_PARENT, "");
        v = LLVMBuildInsertValue(L->b, v, LLVMGetParam(fn, (*k)++), ARR_DATA, "");
        LLVMValueRef nitems = lower_i64(L, 1);
        LLVMTypeRef dt = LLVMArrayType2(L->t_i64, (uint64_t)t->ndim);
        LLVMValueRef sh = LLVMGetUndef(dt), st = LLVMGetUndef(dt);
        for (int d = 0; d < t->ndim; d++) {
            LLVMValueRef x = LLVMGetParam(fn, (*k)++);
            nitems = LLVMBuildNUWMul(L->b, nitems, x, "");
            sh = LLVMBuildInsertValue(L->b, sh, x, (unsigned)d, "");
        }
        for (int d = 0; d < t->ndim; d++)
            st = LLVMBuildInsertValue(L->b, st, LLVMGetParam(fn, (*k)++), (unsigned)d, "");
        v = LLVMBuildInsertValue(L->b, v, nitems, ARR_NITEMS, "");
        v = LLVMBuildInsertValue(L->b, v, lower_i64(L, ty_itemsize(t->dtype)), ARR_ITEMSIZE, "");
        if (t->ndim) {
            v = LLVMBuildInsertValue(L->b, v, sh, ARR_SHAPE, "");
            v = LLVMBuildInsertValue(L->b, v, st, ARR_STRIDES, "");
        }
        return v;
    }
    case TY_TUPLE: {
        LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
        for (int i = 0; i < t->nelems; i++)
            v = LLVMBuildInsertValue(L->b, v, rebuild(L, t->elems[i], fn, k), (unsigned)i, "");
        return v;
    }
    default: return LLVMGetParam(fn, (*k)++);
    }
}

static void annotate(Lower *L, LLVMValueRef fn, const char *key, int value) {
    LLVMValueRef md[3] = {fn, LLVMMDStringInContext(L->ctx, key, (unsigned)strlen(key)), lower_i32(L, value)};
    LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations", LLVMMDNodeInContext(L->ctx, md, 3));
}

bool lower_cuda_entry(Lower *L, Spec *s, const char *symbol) {
    bool kernel = L->c->entry_kind == HJ_ENTRY_CUDA_KERNEL;
    if (kernel && s->ret->kind != TY_NONE)
        return lower_fail(L, s->fn, HJ_DIAG_TYPING, "a CUDA kernel must return None, not %s",
                          ty_str(&L->c->arena, s->ret)) != NULL;
    LLVMTypeRef *pt = arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * MAX_FLAT);
    unsigned np = 0;
    if (!kernel)
        pt[np++] = L->t_ptr; /* the return slot */
    for (int i = 0; i < s->nargs; i++)
        if (!flatten(L, s->argtys[i], pt, &np))
            return lower_fail(L, s->fn, HJ_DIAG_TYPING, "a CUDA %s cannot take %s (argument %d)",
                              kernel ? "kernel" : "function", ty_str(&L->c->arena, s->argtys[i]), i + 1) != NULL;
    LLVMTypeRef fnty = LLVMFunctionType(kernel ? L->t_void : L->t_i32, pt, np, 0);
    LLVMValueRef fn = LLVMAddFunction(L->mod, symbol, fnty);
    L->fn = fn;
    L->spec = s;
    if (L->dib) /* the wrapper at the def line: code inlined into it keeps its lines */
        lower_device_debug_spec(L, s);
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    LLVMValueRef *a = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(s->nargs + 1));
    unsigned k = kernel ? 0 : 1;
    for (int i = 0; i < s->nargs; i++)
        a[i] = rebuild(L, s->argtys[i], fn, &k);
    LLVMTypeRef small[16];
    LLVMTypeRef *sp = s->nargs <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * (size_t)s->nargs);
    for (int i = 0; i < s->nargs; i++)
        sp[i] = lower_type(L, s->argtys[i]);
    LLVMTypeRef rm[2] = {L->t_i32, lower_type(L, s->ret)};
    LLVMTypeRef sfnty = LLVMFunctionType(LLVMStructTypeInContext(L->ctx, rm, 2, 0), s->nargs ? sp : NULL,
                                         (unsigned)s->nargs, 0);
    LLVMValueRef res = lower_call(L, sfnty, (LLVMValueRef)s->llvm_fn, a, (unsigned)s->nargs, "res");
    if (kernel) {
        LLVMBuildRetVoid(L->b);
        annotate(L, fn, "kernel", 1);
        if (L->cuda->max_registers > 0)
            annotate(L, fn, "maxnreg", L->cuda->max_registers);
        if (L->cuda->max_threads > 0)
            annotate(L, fn, "maxntidx", L->cuda->max_threads);
        if (L->cuda->min_blocks > 0)
            annotate(L, fn, "minctasm", L->cuda->min_blocks);
        return true;
    }
    LLVMValueRef st = LLVMBuildExtractValue(L->b, res, 0, "status");
    if (s->ret->kind != TY_NONE)
        LLVMBuildStore(L->b, lower_to_mem(L, LLVMBuildExtractValue(L->b, res, 1, ""), s->ret), LLVMGetParam(fn, 0));
    LLVMBuildRet(L->b, st);
    return true;
}

/* ---- lineinfo: line tables for PTX .loc ------------------------------------------------ */

void lower_device_debug_begin(Lower *L) {
    if (!L->cuda || !L->cuda->lineinfo || !L->c->entry || !L->c->entry->hf)
        return;
    const char *path = L->c->entry->hf->filename ? L->c->entry->hf->filename : "<unknown>";
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) : 0;
    L->dib = LLVMCreateDIBuilder(L->mod);
    L->di_file = LLVMDIBuilderCreateFile(L->dib, base, strlen(base), path, dirlen);
    LLVMDIBuilderCreateCompileUnit(L->dib, LLVMDWARFSourceLanguagePython, L->di_file, "hpcjit", 6, 1, "", 0, 0,
                                   "", 0, /* DebugDirectivesOnly (3; the C enum stops at
                                   LineTablesOnly): .file/.loc without DWARF sections, as nvcc -lineinfo */
                                   (LLVMDWARFEmissionKind)3, 0, 0, 0, "", 0, "", 0);
    LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(lower_i32(L, (int32_t)LLVMDebugMetadataVersion())));
    LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(lower_i32(L, 4)));
}

void lower_device_debug_spec(Lower *L, Spec *s) {
    const char *name = s->hf && s->hf->name ? s->hf->name : "f";
    unsigned line = (unsigned)user_line(L, s->fn);
    const char *path = s->hf && s->hf->filename ? s->hf->filename : "<unknown>";
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    LLVMMetadataRef file = LLVMDIBuilderCreateFile(L->dib, base, strlen(base), path, slash ? (size_t)(slash - path) : 0);
    LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(L->dib, file, NULL, 0, LLVMDIFlagZero);
    size_t n = 0;
    const char *link = LLVMGetValueName2(L->fn, &n);
    L->di_sp = LLVMDIBuilderCreateFunction(L->dib, file, name, strlen(name), link, n, file, line, ty,
                                           1, 1, line, LLVMDIFlagZero, 1);
    LLVMSetSubprogram(L->fn, L->di_sp);
    lower_device_debug_loc(L, s->fn);
}

void lower_device_debug_loc(Lower *L, const Node *n) {
    if (!L->di_sp || !n || n->loc.line <= 0)
        return;
    LLVMSetCurrentDebugLocation2(L->b, LLVMDIBuilderCreateDebugLocation(L->ctx, (unsigned)user_line(L, n),
                                                                         (unsigned)user_col(L, n), L->di_sp, NULL));
}

void lower_device_debug_end(Lower *L) {
    if (!L->dib)
        return;
    LLVMDIBuilderFinalize(L->dib);
    LLVMDisposeDIBuilder(L->dib);
    L->dib = NULL;
    L->di_sp = NULL;
}
