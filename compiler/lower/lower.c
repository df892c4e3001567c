/* lower.c - typed AST -> LLVM IR: the lowering context, types, conversions,
 * reference counting, statements, functions and the entry wrapper.
 * Expressions are in lower_expr.c, builtins and arrays in lower_builtin.c.
 *
 * Conventions (docs/DESIGN.md): every Spec becomes
 *   internal {i32, T} @sym(<params by value>)
 * whose i32 is 0 or -1 (exception pending); returns store into a local
 * slot (L->retptr); variables live in entry-block allocas; one exit block
 * releases the references variables hold and returns {status, slot}. */
#include "lower.h"
#include "registry.h"
#include "hpcjit/runtime.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- diagnostics ---------------------------------------------------- */

LLVMValueRef lower_fail(Lower *L, const Node *n, HjDiagKind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (n)
        diag_verror(&L->c->diag, kind, n->loc, fmt, ap);
    else {
        char buf[512];
        vsnprintf(buf, sizeof buf, fmt, ap);
        diag_error_noloc(&L->c->diag, kind, "%s", buf);
    }
    va_end(ap);
    return NULL;
}

bool lower_failed(const Lower *L) { return diag_failed(&L->c->diag); }

/* ---- types ------------------------------------------------------------ */

LLVMTypeRef lower_array_type(Lower *L, int ndim) {
    LLVMTypeRef dims = LLVMArrayType2(L->t_i64, (uint64_t)ndim);
    LLVMTypeRef f[7] = {L->t_ptr, L->t_ptr, L->t_i64, L->t_i64, L->t_ptr, dims, dims};
    return LLVMStructTypeInContext(L->ctx, f, 7, 0);
}

static LLVMTypeRef make_type(Lower *L, Type *t, bool mem) {
    switch (t->kind) {
    case TY_BOOL: return mem ? L->t_i8 : L->t_i1;
    case TY_INT8: case TY_UINT8: return L->t_i8;
    case TY_INT16: case TY_UINT16: return LLVMInt16TypeInContext(L->ctx);
    case TY_INT32: case TY_UINT32: return L->t_i32;
    case TY_INT64: case TY_UINT64: return L->t_i64;
    case TY_FLOAT16: return LLVMHalfTypeInContext(L->ctx);
    case TY_FLOAT32: return L->t_f32;
    case TY_FLOAT64: return L->t_f64;
    case TY_COMPLEX64: {
        LLVMTypeRef f[2] = {L->t_f32, L->t_f32};
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    case TY_COMPLEX128: {
        LLVMTypeRef f[2] = {L->t_f64, L->t_f64};
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    case TY_TUPLE:
    case TY_CLOSURE: { /* a closure's value: its environment */
        LLVMTypeRef small[16];
        LLVMTypeRef *f = t->nelems <= 16 ? small
                                         : arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * (size_t)t->nelems);
        for (int i = 0; i < t->nelems; i++)
            f[i] = mem ? lower_mem_type(L, t->elems[i]) : lower_type(L, t->elems[i]);
        return LLVMStructTypeInContext(L->ctx, f, (unsigned)t->nelems, 0);
    }
    case TY_ARRAY: return lower_array_type(L, t->ndim);
    case TY_OPTIONAL: {
        /* {valid, value}: None is {0, zero} */
        LLVMTypeRef f[2] = {mem ? L->t_i8 : L->t_i1, mem ? lower_mem_type(L, t->base) : lower_type(L, t->base)};
        return LLVMStructTypeInContext(L->ctx, f, 2, 0);
    }
    case TY_RANGE: {
        LLVMTypeRef f[3] = {L->t_i64, L->t_i64, L->t_i64};
        return LLVMStructTypeInContext(L->ctx, f, 3, 0);
    }
    case TY_FUNCSET: return L->t_i64; /* which function of the set */
    case TY_CPOINTER: return L->t_ptr;
    case TY_FUNCPTR: return L->t_ptr; /* the C function's address */
    case TY_RECORD: return L->t_ptr; /* its bytes (lower_record.c) */
    case TY_DATETIME: case TY_TIMEDELTA: return L->t_i64; /* NaT: INT64_MIN */
    case TY_GENERATOR: return L->t_ptr; /* HjMemInfo * (hpcjit/generator.h) */
    case TY_NPGENERATOR: return L->t_ptr; /* its bitgen_t *, borrowed: not reference counted */
    default:
        /* a library type's value (str, list, dict, set): an HjMemInfo *,
         * the runtime's reference-counted block (registry.h) */
        if (lib_type_owner(t))
            return L->t_ptr;
        /* none, dtype, string, function, module, builtin, exception: no
         * runtime value */
        return L->t_empty;
    }
}

LLVMTypeRef lower_type(Lower *L, Type *t) {
    if (!t->llvm)
        t->llvm = make_type(L, t, false);
    return t->llvm;
}

LLVMTypeRef lower_mem_type(Lower *L, Type *t) {
    if (!t->llvm_mem)
        t->llvm_mem = make_type(L, t, true);
    return t->llvm_mem;
}

LLVMTypeRef lower_elem_type(Lower *L, Type *dt) {
    if (dt->kind == TY_RECORD) /* its bytes: a record value is their address */
        return LLVMArrayType2(L->t_i8, (uint64_t)dt->size);
    return lower_mem_type(L, dt);
}

/* ---- builder wrappers -------------------------------------------------- */

LLVMValueRef lower_call(Lower *L, LLVMTypeRef fnty, LLVMValueRef fn, LLVMValueRef *args,
                        unsigned n, const char *name) {
    if (LLVMGetReturnType(fnty) == L->t_void)
        name = "";
    return LLVMBuildCall2(L->b, fnty, fn, args, n, name);
}

LLVMValueRef lower_load(Lower *L, LLVMTypeRef ty, LLVMValueRef ptr, const char *name) {
    return LLVMBuildLoad2(L->b, ty, ptr, name);
}

LLVMValueRef lower_gep(Lower *L, LLVMTypeRef ty, LLVMValueRef ptr, LLVMValueRef *idx,
                       unsigned n, const char *name) {
    return LLVMBuildInBoundsGEP2(L->b, ty, ptr, idx, n, name);
}

/* Allocas go at the top of the entry block so mem2reg/SROA promote them. */
LLVMValueRef lower_alloca(Lower *L, LLVMTypeRef ty, const char *name) {
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(L->b);
    LLVMValueRef first = LLVMGetFirstInstruction(L->entry_bb);
    if (first)
        LLVMPositionBuilderBefore(L->b, first);
    else
        LLVMPositionBuilderAtEnd(L->b, L->entry_bb);
    LLVMValueRef a = LLVMBuildAlloca(L->b, ty, name);
    LLVMPositionBuilderAtEnd(L->b, cur);
    return a;
}

LLVMBasicBlockRef lower_block(Lower *L, const char *name) {
    return LLVMAppendBasicBlockInContext(L->ctx, L->fn, name);
}

void lower_at(Lower *L, LLVMBasicBlockRef bb) { LLVMPositionBuilderAtEnd(L->b, bb); }

bool lower_terminated(Lower *L) {
    return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(L->b)) != NULL;
}

LLVMValueRef lower_helper_begin(Lower *L, const char *name, LLVMTypeRef fnty, LowerSaved *sv) {
    sv->fn = L->fn;
    sv->entry_bb = L->entry_bb;
    sv->cur = LLVMGetInsertBlock(L->b);
    LLVMValueRef f = LLVMAddFunction(L->mod, name, fnty);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    L->fn = f;
    L->entry_bb = LLVMAppendBasicBlockInContext(L->ctx, f, "entry");
    lower_at(L, L->entry_bb);
    return f;
}

void lower_helper_end(Lower *L, LowerSaved *sv) {
    L->fn = sv->fn;
    L->entry_bb = sv->entry_bb;
    lower_at(L, sv->cur);
}

const char *lower_typecode(Lower *L, Type *t) {
    StrBuf b;
    sb_init(&b);
    ty_typecode(&b, t);
    const char *s = arena_strdup(&L->c->arena, b.s ? b.s : "");
    sb_free(&b);
    return s;
}

const char *lower_rt_suffix(const Type *t) {
    switch (t->kind) {
    case TY_INT64: return "i64";
    case TY_UINT64: return "u64";
    case TY_INT32: return "i32";
    case TY_FLOAT64: return "f64";
    case TY_FLOAT32: return "f32";
    case TY_BOOL: return "bool";
    case TY_STRING: return "str"; /* rt_ops_str (lib/str) */
    default: return NULL;
    }
}

LLVMValueRef lower_rt(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                      unsigned n, LLVMValueRef *args) {
    if (L->device) /* no host runtime on the GPU (lower_device.c) */
        return lower_device_rt(L, name, ret, params, n, args);
    LLVMTypeRef fnty = LLVMFunctionType(ret, params, n, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (!fn)
        fn = LLVMAddFunction(L->mod, name, fnty);
    return lower_call(L, fnty, fn, args, n, "");
}

LLVMValueRef lower_rt_math(Lower *L, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                           unsigned n, LLVMValueRef *args) {
    if (L->device)
        return lower_device_rt(L, name, ret, params, n, args);
    bool fresh = !LLVMGetNamedFunction(L->mod, name);
    LLVMValueRef v = lower_rt(L, name, ret, params, n, args);
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (fresh && fn) {
        /* memory(none): no bits set in LLVM's MemoryEffects */
        static const struct { const char *kind; uint64_t val; } attrs[] = {
            {"memory", 0}, {"nounwind", 0}, {"willreturn", 0}};
        for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                    LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName(
                                                                        attrs[i].kind, strlen(attrs[i].kind)),
                                                            attrs[i].val));
    }
    return v;
}

LLVMValueRef lower_intrinsic(Lower *L, const char *name, LLVMTypeRef *tys, unsigned ntys,
                             LLVMValueRef *args, unsigned n) {
    char nv[48];
    if (L->device && ntys == 1 && LLVMGetTypeKind(tys[0]) == LLVMHalfTypeKind &&
        lower_device_libcall(name, L->t_f32, nv, sizeof nv) && n <= 3) {
        /* float16 sin, exp, log...: libdevice's float function, rounded
         * back (as cuda_fp16.h computes hsin, hexp, hlog) */
        LLVMValueRef fa[3];
        for (unsigned i = 0; i < n; i++)
            fa[i] = LLVMBuildFPExt(L->b, args[i], L->t_f32, "");
        LLVMTypeRef p[3] = {L->t_f32, L->t_f32, L->t_f32};
        return LLVMBuildFPTrunc(L->b, lower_fm(L, lower_device_rt(L, nv, L->t_f32, p, n, fa)), tys[0], "");
    }
    if (L->device && ntys == 1 && lower_device_libcall(name, tys[0], nv, sizeof nv)) {
        LLVMTypeRef p[3] = {tys[0], tys[0], tys[0]};
        return lower_fm(L, lower_device_rt(L, nv, tys[0], p, n, args));
    }
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(L->mod, id, tys, ntys);
    LLVMTypeRef fnty = LLVMIntrinsicGetType(L->ctx, id, tys, ntys);
    LLVMValueRef v = lower_call(L, fnty, fn, args, n, "");
    return lower_fm(L, v);
}

LLVMValueRef lower_cstr(Lower *L, const char *s) {
    char name[32];
    snprintf(name, sizeof name, ".str.%d", L->nstrings++);
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, s, (unsigned)strlen(s), 0);
    LLVMValueRef g = LLVMAddGlobal(L->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return g;
}

LLVMValueRef lower_i64(Lower *L, int64_t v) { return LLVMConstInt(L->t_i64, (unsigned long long)v, 1); }
LLVMValueRef lower_i32(Lower *L, int32_t v) { return LLVMConstInt(L->t_i32, (unsigned long long)(int64_t)v, 1); }

_Static_assert(HJ_FASTMATH_ALL == LLVMFastMathAll, "HjOptions.fastmath holds LLVMFastMathFlags bits");

LLVMValueRef lower_fm(Lower *L, LLVMValueRef v) {
    if (L->fastmath && LLVMIsAInstruction(v) && LLVMCanValueUseFastMathFlags(v))
        LLVMSetFastMathFlags(v, L->fastmath);
    return v;
}

LLVMValueRef lower_zero(Lower *L, Type *t) { return LLVMConstNull(lower_type(L, t)); }

/* ---- conversions --------------------------------------------------------- */

static LLVMTypeRef part_type(Lower *L, Type *t) {
    return t->kind == TY_COMPLEX64 ? L->t_f32 : L->t_f64;
}

static LLVMValueRef make_complex(Lower *L, Type *t, LLVMValueRef re, LLVMValueRef im) {
    LLVMValueRef v = LLVMGetUndef(lower_type(L, t));
    v = LLVMBuildInsertValue(L->b, v, re, 0, "");
    return LLVMBuildInsertValue(L->b, v, im, 1, "");
}

/* A scalar number to another scalar number (not complex). */
static LLVMValueRef convert_real(Lower *L, LLVMValueRef v, Type *from, Type *to) {
    LLVMTypeRef dst = lower_type(L, to);
    if (to->kind == TY_BOOL) {
        if (from->kind == TY_BOOL)
            return v;
        if (ty_is_float(from))
            return lower_fm(L, LLVMBuildFCmp(L->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "truth"));
        return LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "truth");
    }
    if (from->kind == TY_BOOL) {
        if (ty_is_float(to))
            return LLVMBuildUIToFP(L->b, v, dst, "");
        return LLVMBuildZExt(L->b, v, dst, "");
    }
    if (ty_is_int(from) && ty_is_int(to)) {
        int fb = ty_bits(from), tb = ty_bits(to);
        if (fb == tb)
            return v;
        if (fb > tb)
            return LLVMBuildTrunc(L->b, v, dst, "");
        return ty_is_signed(from) ? LLVMBuildSExt(L->b, v, dst, "") : LLVMBuildZExt(L->b, v, dst, "");
    }
    if (ty_is_int(from) && ty_is_float(to))
        return ty_is_signed(from) ? LLVMBuildSIToFP(L->b, v, dst, "") : LLVMBuildUIToFP(L->b, v, dst, "");
    if (ty_is_float(from) && ty_is_int(to))
        /* like Numba: plain fptosi/fptoui (out-of-range values are the
         * hardware's answer) */
        return ty_is_signed(to) ? LLVMBuildFPToSI(L->b, v, dst, "") : LLVMBuildFPToUI(L->b, v, dst, "");
    /* float <-> float */
    if (ty_bits(from) == ty_bits(to))
        return v;
    return ty_bits(from) < ty_bits(to) ? LLVMBuildFPExt(L->b, v, dst, "") : LLVMBuildFPTrunc(L->b, v, dst, "");
}

LLVMValueRef lower_truth(Lower *L, const Node *at, LLVMValueRef v, Type *from) {
    Type *tb = ty_scalar(L->c->tc, TY_BOOL);
    switch (from->kind) {
    case TY_BOOL: return v;
    case TY_COMPLEX64: case TY_COMPLEX128: {
        LLVMValueRef re = LLVMBuildExtractValue(L->b, v, 0, "re");
        LLVMValueRef im = LLVMBuildExtractValue(L->b, v, 1, "im");
        LLVMValueRef z = LLVMConstNull(LLVMTypeOf(re));
        return LLVMBuildOr(L->b, lower_fm(L, LLVMBuildFCmp(L->b, LLVMRealUNE, re, z, "")),
                           lower_fm(L, LLVMBuildFCmp(L->b, LLVMRealUNE, im, z, "")), "truth");
    }
    case TY_ARRAY: {
        /* NumPy's (and Numba's): the truth of the one element; an empty or
         * larger array is ambiguous (it used to be `size != 0`) */
        LLVMValueRef size = lower_array_field(L, v, ARR_NITEMS, "size");
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, size, lower_i64(L, 0), ""), "ValueError",
                       "The truth value of an empty array is ambiguous. Use `array.size > 0` to check "
                       "that an array is not empty.");
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSGT, size, lower_i64(L, 1), ""), "ValueError",
                       "The truth value of an array with more than one element is ambiguous. Use "
                       "a.any() or a.all()");
        LLVMValueRef el = lower_load(L, lower_mem_type(L, from->dtype),
                                     lower_array_field(L, v, ARR_DATA, "data"), "elem");
        return lower_truth(L, at, lower_from_mem(L, el, from->dtype), from->dtype);
    }
    case TY_NONE: return LLVMConstInt(L->t_i1, 0, 0);
    case TY_OPTIONAL: /* None is false; the value of None is zero, false too */
        return LLVMBuildAnd(L->b, LLVMBuildExtractValue(L->b, v, 0, "valid"),
                            lower_truth(L, at, LLVMBuildExtractValue(L->b, v, 1, ""), from->base), "truth");
    case TY_TUPLE: return LLVMConstInt(L->t_i1, from->nelems != 0, 0);
    case TY_RANGE:
        return LLVMBuildICmp(L->b, LLVMIntNE, lower_len(L, at, v, from), lower_i64(L, 0), "truth");
    default:
        if (lib_type_owner(from) && lib_type_owner(from)->lower_len) /* a str, list, ...: nonempty */
            return LLVMBuildICmp(L->b, LLVMIntNE, lower_len(L, at, v, from), lower_i64(L, 0), "truth");
        if (ty_is_number(from))
            return convert_real(L, v, from, tb);
        /* functions, modules, classes... are true */
        return LLVMConstInt(L->t_i1, 1, 0);
    }
}

/* Optional conversions: to Optional from None, a value or another
 * Optional; from Optional to its value, raising TypeError on None. */
static LLVMValueRef convert_optional(Lower *L, const Node *at, LLVMValueRef v, Type *from, Type *to) {
    if (to->kind == TY_OPTIONAL) {
        if (from->kind == TY_NONE)
            return LLVMConstNull(lower_type(L, to));
        LLVMValueRef valid = from->kind == TY_OPTIONAL ? LLVMBuildExtractValue(L->b, v, 0, "valid")
                                                       : LLVMConstInt(L->t_i1, 1, 0);
        LLVMValueRef x = from->kind == TY_OPTIONAL ? LLVMBuildExtractValue(L->b, v, 1, "") : v;
        x = lower_convert(L, at, x, from->kind == TY_OPTIONAL ? from->base : from, to->base);
        if (!x)
            return NULL;
        LLVMValueRef r = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, to)), valid, 0, "");
        return LLVMBuildInsertValue(L->b, r, x, 1, "opt");
    }
    LLVMValueRef none = LLVMBuildNot(L->b, LLVMBuildExtractValue(L->b, v, 0, "valid"), "");
    StrBuf msg;
    sb_init(&msg);
    sb_puts(&msg, "expected ");
    ty_name(&msg, to);
    sb_puts(&msg, ", got None");
    lower_raise_if(L, none, "TypeError", arena_strndup(&L->c->arena, msg.s ? msg.s : "", msg.len));
    sb_free(&msg);
    return lower_convert(L, at, LLVMBuildExtractValue(L->b, v, 1, ""), from->base, to);
}

LLVMValueRef lower_convert(Lower *L, const Node *at, LLVMValueRef v, Type *from, Type *to) {
    if (!v)
        return NULL;
    if (from == to)
        return v;
    if (to->kind == TY_BOOL)
        return lower_truth(L, at, v, from);
    if (from->kind == TY_OPTIONAL || to->kind == TY_OPTIONAL)
        return convert_optional(L, at, v, from, to);
    if (ty_is_npdt(from) || ty_is_npdt(to)) /* a unit change (lower_datetime.c) */
        return lower_dt_convert(L, at, v, from, to);
    if (ty_is_number(from) && ty_is_number(to)) {
        if (ty_is_complex(to)) {
            Type *pt = ty_scalar(L->c->tc, to->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
            if (ty_is_complex(from)) {
                Type *fp = ty_scalar(L->c->tc, from->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
                LLVMValueRef re = convert_real(L, LLVMBuildExtractValue(L->b, v, 0, "re"), fp, pt);
                LLVMValueRef im = convert_real(L, LLVMBuildExtractValue(L->b, v, 1, "im"), fp, pt);
                return make_complex(L, to, re, im);
            }
            return make_complex(L, to, convert_real(L, v, from, pt), LLVMConstNull(part_type(L, to)));
        }
        if (ty_is_complex(from)) {
            /* explicit casts only (inference refuses implicit ones): the
             * real part, as NumPy does */
            Type *fp = ty_scalar(L->c->tc, from->kind == TY_COMPLEX64 ? TY_FLOAT32 : TY_FLOAT64);
            return convert_real(L, LLVMBuildExtractValue(L->b, v, 0, "re"), fp, to);
        }
        return convert_real(L, v, from, to);
    }
    if (from->kind == TY_ARRAY && to->kind == TY_ARRAY && from->ndim == to->ndim)
        return v; /* layout (C/F -> A) changes no representation */
    if (to->kind == TY_FUNCSET && from->kind == TY_FUNCTION)
        return lower_i64(L, ty_funcset_index(to, from->func));
    if (to->kind == TY_CLOSURE && from->kind == TY_TUPLE && lower_type(L, from) == lower_type(L, to))
        return v; /* infer_call.c closure_make: the environment is the value */
    if (to->kind == TY_FUNCPTR && from->kind == TY_FUNCTION) { /* infer.c funcptr_cast */
        if (!at || at->kind != N_CAST || !at->spec || !at->spec->llvm_fn)
            return lower_fail(L, at, HJ_DIAG_LOWERING, "a function made a first-class value was not specialised");
        return lower_cfunc_wrapper(L, at->spec, to);
    }
    if (to->kind == TY_FUNCSET && from->kind == TY_FUNCSET) { /* renumber into the larger set */
        LLVMValueRef r = lower_i64(L, ty_funcset_index(to, from->elems[0]->func));
        for (int i = 1; i < from->nelems; i++)
            r = LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, v, lower_i64(L, i), ""),
                                lower_i64(L, ty_funcset_index(to, from->elems[i]->func)), r, "");
        return r;
    }
    if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->nelems == to->nelems) {
        LLVMValueRef r = LLVMGetUndef(lower_type(L, to));
        for (int i = 0; i < to->nelems; i++) {
            LLVMValueRef e = LLVMBuildExtractValue(L->b, v, (unsigned)i, "");
            e = lower_convert(L, at, e, from->elems[i], to->elems[i]);
            if (!e)
                return NULL;
            r = LLVMBuildInsertValue(L->b, r, e, (unsigned)i, "");
        }
        return r;
    }
    if (LLVMTypeOf(v) == lower_type(L, to))
        return v; /* no runtime value on either side (none, dtype, ...) */
    StrBuf a, b;
    sb_init(&a);
    sb_init(&b);
    ty_name(&a, from);
    ty_name(&b, to);
    lower_fail(L, at, HJ_DIAG_LOWERING, "cannot convert %s to %s", a.s ? a.s : "?", b.s ? b.s : "?");
    sb_free(&a);
    sb_free(&b);
    return NULL;
}

LLVMValueRef lower_to_mem(Lower *L, LLVMValueRef v, Type *t) {
    if (t->kind == TY_BOOL)
        return LLVMBuildZExt(L->b, v, L->t_i8, "");
    if (t->kind == TY_OPTIONAL) {
        LLVMValueRef valid = LLVMBuildZExt(L->b, LLVMBuildExtractValue(L->b, v, 0, ""), L->t_i8, "");
        LLVMValueRef r = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_mem_type(L, t)), valid, 0, "");
        return LLVMBuildInsertValue(L->b, r, lower_to_mem(L, LLVMBuildExtractValue(L->b, v, 1, ""), t->base), 1, "");
    }
    if ((t->kind == TY_TUPLE || t->kind == TY_CLOSURE) && lower_type(L, t) != lower_mem_type(L, t)) {
        LLVMValueRef r = LLVMGetUndef(lower_mem_type(L, t));
        for (int i = 0; i < t->nelems; i++) {
            LLVMValueRef e = LLVMBuildExtractValue(L->b, v, (unsigned)i, "");
            r = LLVMBuildInsertValue(L->b, r, lower_to_mem(L, e, t->elems[i]), (unsigned)i, "");
        }
        return r;
    }
    return v;
}

LLVMValueRef lower_from_mem(Lower *L, LLVMValueRef v, Type *t) {
    if (t->kind == TY_BOOL)
        return LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstInt(L->t_i8, 0, 0), "");
    if (t->kind == TY_OPTIONAL) {
        LLVMValueRef valid = LLVMBuildICmp(L->b, LLVMIntNE, LLVMBuildExtractValue(L->b, v, 0, ""),
                                           LLVMConstInt(L->t_i8, 0, 0), "");
        LLVMValueRef r = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, t)), valid, 0, "");
        return LLVMBuildInsertValue(L->b, r, lower_from_mem(L, LLVMBuildExtractValue(L->b, v, 1, ""), t->base), 1, "");
    }
    if ((t->kind == TY_TUPLE || t->kind == TY_CLOSURE) && lower_type(L, t) != lower_mem_type(L, t)) {
        LLVMValueRef r = LLVMGetUndef(lower_type(L, t));
        for (int i = 0; i < t->nelems; i++) {
            LLVMValueRef e = LLVMBuildExtractValue(L->b, v, (unsigned)i, "");
            r = LLVMBuildInsertValue(L->b, r, lower_from_mem(L, e, t->elems[i]), (unsigned)i, "");
        }
        return r;
    }
    return v;
}

/* ---- reference counting ------------------------------------------------- */

bool lower_has_refs(const Type *t) {
    if (t->kind == TY_ARRAY || t->kind == TY_GENERATOR || lib_type_owner(t))
        return true;
    if (t->kind == TY_OPTIONAL)
        return lower_has_refs(t->base);
    if (t->kind == TY_TUPLE || t->kind == TY_CLOSURE)
        for (int i = 0; i < t->nelems; i++)
            if (lower_has_refs(t->elems[i]))
                return true;
    return false;
}

/* rt_incref/rt_decref ignore NULL, but arrays from Python have no meminfo:
 * test inline so that borrowed arguments cost no call. */
static void refop(Lower *L, LLVMValueRef v, Type *t, const char *fn) {
    if (L->device) /* device arrays are owned by the host: nothing to count */
        return;
    if (t->kind == TY_OPTIONAL) { /* None holds a zero value: a NULL meminfo */
        refop(L, LLVMBuildExtractValue(L->b, v, 1, ""), t->base, fn);
        return;
    }
    if (t->kind == TY_TUPLE || t->kind == TY_CLOSURE) {
        for (int i = 0; i < t->nelems; i++)
            if (lower_has_refs(t->elems[i]))
                refop(L, LLVMBuildExtractValue(L->b, v, (unsigned)i, ""), t->elems[i], fn);
        return;
    }
    if (t->kind != TY_ARRAY) {
        if (lib_type_owner(t) || t->kind == TY_GENERATOR) { /* an HjMemInfo *: rt_incref/rt_decref take NULL and immortals */
            LLVMTypeRef p = L->t_ptr;
            lower_rt(L, fn, L->t_void, &p, 1, &v);
        }
        return;
    }
    LLVMValueRef mi = LLVMBuildExtractValue(L->b, v, ARR_MEMINFO, "meminfo");
    LLVMValueRef isnull = LLVMBuildIsNull(L->b, mi, "");
    LLVMBasicBlockRef call = lower_block(L, fn);
    LLVMBasicBlockRef done = lower_block(L, "ref.done");
    LLVMBuildCondBr(L->b, isnull, done, call);
    lower_at(L, call);
    LLVMTypeRef p = L->t_ptr;
    lower_rt(L, fn, L->t_void, &p, 1, &mi);
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
}

void lower_incref(Lower *L, LLVMValueRef v, Type *t) { refop(L, v, t, "rt_incref"); }
void lower_decref(Lower *L, LLVMValueRef v, Type *t) { refop(L, v, t, "rt_decref"); }

void lower_temp(Lower *L, LLVMValueRef v, Type *t, bool owned) {
    if (!owned || !v || !lower_has_refs(t))
        return;
    vec_push(&L->c->arena, &L->temps, v);
    vec_push(&L->c->arena, &L->temp_tys, t);
}

int lower_temps_mark(Lower *L) { return L->temps.len; }

void lower_temps_keep(Lower *L, int mark) { L->temps.len = L->temp_tys.len = mark; }

void lower_temp_handed_over(Lower *L, LLVMValueRef v) {
    for (int i = L->temps.len - 1; i >= 0; i--) {
        if (VEC_AT(L->temps, i) != v)
            continue;
        for (int j = i + 1; j < L->temps.len; j++) {
            VEC_AT(L->temps, j - 1) = VEC_AT(L->temps, j);
            VEC_AT(L->temp_tys, j - 1) = VEC_AT(L->temp_tys, j);
        }
        L->temps.len--;
        L->temp_tys.len--;
        return;
    }
}

void lower_temps_release(Lower *L, int mark) {
    while (L->temps.len > mark) {
        L->temps.len--;
        L->temp_tys.len--;
        if (!lower_terminated(L))
            lower_decref(L, VEC_AT(L->temps, L->temps.len), VEC_AT(L->temp_tys, L->temps.len));
    }
}

/* ---- exits ---------------------------------------------------------------- */

/* Release the live temporaries and leave with status -1 (the exception is
 * already pending). */
/* A try statement being lowered: where its body's exceptions go. */
typedef struct LowerTry {
    LLVMValueRef fn;          /* the function it is in (outlined prange bodies are others) */
    LLVMBasicBlockRef target; /* tests the handlers */
    int mark;                 /* temporaries live before the try: not released */
    struct LowerTry *outer;
} LowerTry;

typedef struct LowerFinally {
    LLVMValueRef fn;          /* the function it is in */
    PtrVec *body;             /* the finally clause */
    struct LowerTry *outside; /* the try_top around the try statement */
    int nloops;               /* loops open around the try statement */
    struct LowerFinally *up;
} LowerFinally;

/* A return (loops < 0) or a break/continue out of the innermost `loops`
 * loops is about to leave try statements with finally clauses: their
 * clauses run first, innermost first, each as code outside its try (the
 * clause is lowered again at each such exit, as CPython duplicates it). */
static bool run_finally(Lower *L, int loops) {
    LowerTry *saved_try = L->try_top;
    LowerFinally *saved = L->fin_top;
    bool ok = true;
    for (LowerFinally *f = L->fin_top; f && f->fn == L->fn && ok; f = f->up) {
        if (loops >= 0 && f->nloops < loops)
            break;
        L->try_top = f->outside;
        L->fin_top = f->up;
        ok = lower_body(L, f->body);
        if (ok && lower_terminated(L))
            break;
    }
    L->try_top = saved_try;
    L->fin_top = saved;
    return ok;
}

void lower_goto_error(Lower *L) {
    LowerTry *t = L->try_top;
    if (t && t->fn == L->fn) { /* caught here: release what the try made, test the handlers */
        for (int i = L->temps.len - 1; i >= t->mark; i--)
            lower_decref(L, VEC_AT(L->temps, i), VEC_AT(L->temp_tys, i));
        LLVMBuildBr(L->b, t->target);
        return;
    }
    for (int i = L->temps.len - 1; i >= 0; i--)
        lower_decref(L, VEC_AT(L->temps, i), VEC_AT(L->temp_tys, i));
    LLVMBuildStore(L->b, lower_i32(L, -1), L->status);
    LLVMBuildBr(L->b, L->exit_bb);
}

/* Mark the conditional branch br as rarely taking its first successor
 * (an error exit), so that the block placement keeps the hot path
 * falling through: a recursive fib took a jump after every call. */
void lower_unlikely(Lower *L, LLVMValueRef br) {
    LLVMMetadataRef md[3] = {LLVMMDStringInContext2(L->ctx, "branch_weights", 14),
                             LLVMValueAsMetadata(lower_i32(L, 1)), LLVMValueAsMetadata(lower_i32(L, 2000))};
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "prof", 4),
                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, md, 3)));
}

void lower_check_status(Lower *L, LLVMValueRef status) {
    LLVMValueRef bad = LLVMBuildICmp(L->b, LLVMIntNE, status, lower_i32(L, 0), "failed");
    LLVMBasicBlockRef err = lower_block(L, "call.err");
    LLVMBasicBlockRef ok = lower_block(L, "call.ok");
    lower_unlikely(L, LLVMBuildCondBr(L->b, bad, err, ok));
    lower_at(L, err);
    lower_goto_error(L);
    lower_at(L, ok);
}

LLVMBasicBlockRef lower_branch_raise(Lower *L, LLVMValueRef cond, const char *name) {
    LLVMBasicBlockRef err = lower_block(L, name);
    LLVMBasicBlockRef ok = lower_block(L, "ok");
    LLVMBuildCondBr(L->b, cond, err, ok);
    lower_at(L, err);
    return ok;
}

void lower_raise_if(Lower *L, LLVMValueRef cond, const char *type, const char *msg) {
    LLVMBasicBlockRef ok = lower_branch_raise(L, cond, "raise");
    lower_raise(L, type, msg);
    lower_at(L, ok);
}

void lower_raise(Lower *L, const char *type, const char *msg) {
    LLVMTypeRef p[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef a[2] = {lower_cstr(L, type), msg ? lower_cstr(L, msg) : LLVMConstNull(L->t_ptr)};
    lower_rt(L, "rt_raise", L->t_void, p, 2, a);
    lower_goto_error(L);
}

/* ---- variables -------------------------------------------------------------- */

static LLVMValueRef var_slot(Lower *L, const Node *at, Var *v) {
    if (!v || !v->slot)
        return lower_fail(L, at, HJ_DIAG_LOWERING, "variable '%s' has no storage",
                          v && v->name ? v->name : "?");
    return (LLVMValueRef)v->slot;
}

/* A read of a variable that some path reaches unassigned (Var.defflag,
 * N_NAME.maybe_unbound): UnboundLocalError unless a store set its flag.
 * Variables proven assigned have no flag and cost nothing. */
bool lower_check_bound(Lower *L, const Node *at, Var *v) {
    if (!at->maybe_unbound || !v || !v->defslot || L->par_depth)
        return true;
    LLVMValueRef ok = lower_load(L, L->t_i1, (LLVMValueRef)v->defslot, "assigned");
    LLVMBasicBlockRef bad = lower_block(L, "unbound"), good = lower_block(L, "bound");
    LLVMBuildCondBr(L->b, ok, good, bad);
    lower_at(L, bad);
    const char *nm = v->name ? v->name : "?";
    int len = (int)strlen(nm), k = len; /* the source name of an SSA version "x.2" */
    while (k > 0 && nm[k - 1] >= '0' && nm[k - 1] <= '9')
        k--;
    if (k > 0 && k < len && nm[k - 1] == '.' && !strchr(nm, '$'))
        len = k - 1;
    char *msg = arena_printf(&L->c->arena, "cannot access local variable '%.*s' where it is not associated with a value",
                             len, nm);
    lower_raise(L, "UnboundLocalError", msg);
    lower_at(L, good);
    return !lower_failed(L);
}

void lower_store_var(Lower *L, const Node *at, Var *var, LLVMValueRef v, Type *from, bool owned) {
    LLVMValueRef slot = var_slot(L, at, var);
    if (!slot || !v)
        return;
    v = lower_convert(L, at, v, from, var->ty);
    if (!v)
        return;
    if (var->defslot && !L->par_depth)
        LLVMBuildStore(L->b, LLVMConstInt(L->t_i1, 1, 0), (LLVMValueRef)var->defslot);
    if (lower_has_refs(var->ty)) {
        if (!owned)
            lower_incref(L, v, var->ty);
        /* new reference first, then the old one: `x = x` stays alive */
        LLVMValueRef old = lower_load(L, lower_type(L, var->ty), slot, "old");
        LLVMBuildStore(L->b, v, slot);
        lower_decref(L, old, var->ty);
        return;
    }
    LLVMBuildStore(L->b, v, slot);
}

/* ---- statements ------------------------------------------------------------------ */

static bool lower_stmts(Lower *L, PtrVec *body);

/* After a return/break/continue/raise the rest of a block is dead code;
 * it is emitted into an unreachable block so the IR stays well formed. */
static void start_dead_block(Lower *L) { lower_at(L, lower_block(L, "dead")); }

static bool assign(Lower *L, Node *target, LLVMValueRef v, Type *t, bool owned) {
    switch (target->kind) {
    case N_NAME:
        lower_store_var(L, target, target->var, v, t, owned);
        return !lower_failed(L);
    case N_TUPLE:
    case N_LIST: {
        if (t->kind != TY_TUPLE || t->nelems != target->args.len) {
            lower_fail(L, target, HJ_DIAG_UNSUPPORTED, "cannot unpack this value into %d targets",
                       target->args.len);
            return false;
        }
        for (int i = 0; i < t->nelems; i++) {
            LLVMValueRef e = LLVMBuildExtractValue(L->b, v, (unsigned)i, "");
            if (!assign(L, VEC_AT(target->args, i), e, t->elems[i], owned))
                return false;
        }
        return true;
    }
    case N_ATTRIBUTE: { /* obj.field = v: the owner of obj's type (lib/jitclass) */
        const LibOps *own = lib_type_owner(target->a->ty);
        int mark = lower_temps_mark(L);
        if (target->attr_kind == ATTR_RECORD_FIELD) { /* r.f = v (lower_record.c) */
            if (!lower_record_store(L, target, v, t))
                return false;
            lower_temps_release(L, mark);
            return true;
        }
        if (!own || !own->lower_store || !own->lower_store(L, target, v, t))
            return own ? false : (lower_fail(L, target, HJ_DIAG_UNSUPPORTED, "cannot assign to this attribute"), false);
        lower_temps_release(L, mark);
        if (owned)
            lower_decref(L, v, t);
        return true;
    }
    case N_SUBSCRIPT: {
        int mark = lower_temps_mark(L);
        if (!lower_store_subscript(L, target, v, t))
            return false;
        lower_temps_release(L, mark);
        if (owned)
            lower_decref(L, v, t);
        return true;
    }
    default:
        lower_fail(L, target, HJ_DIAG_UNSUPPORTED, "cannot assign to this expression");
        return false;
    }
}

static bool stmt_assign(Lower *L, Node *n) {
    int mark = lower_temps_mark(L);
    bool owned = false;
    if (n->targets.len == 1 && lower_ae_is_store(VEC_AT(n->targets, 0), n->a)) {
        bool ok = lower_ae_assign(L, VEC_AT(n->targets, 0), n->a); /* lower_arrayexpr.c */
        lower_temps_release(L, mark);
        return ok;
    }
    if (n->targets.len == 1) {
        LLVMValueRef v = lower_expr(L, n->a, &owned);
        if (!v)
            return false;
        if (!assign(L, VEC_AT(n->targets, 0), v, n->a->ty, owned))
            return false;
    } else {
        /* x = y = v: every target takes its own reference */
        LLVMValueRef v = lower_expr_use(L, n->a);
        if (!v)
            return false;
        for (int i = 0; i < n->targets.len; i++)
            if (!assign(L, VEC_AT(n->targets, i), v, n->a->ty, false))
                return false;
    }
    lower_temps_release(L, mark);
    return true;
}

/* Consecutive array statements (infer_fuse.c): one nest (lower_arrayexpr.c),
 * for every shape or, with a statement one by one behind it, for one. */
static bool stmt_fused(Lower *L, Node *n) {
    int mark = lower_temps_mark(L);
    LLVMBasicBlockRef plain = NULL, join = NULL;
    int r = lower_fused(L, n, &plain, &join);
    if (r < 0)
        return false;
    if (r == 2) { /* one nest for every shape */
        lower_temps_release(L, mark);
        return true;
    }
    L->ae_nest_only += r;
    bool ok = lower_stmts(L, &n->body);
    L->ae_nest_only -= r;
    if (!ok)
        return false;
    if (r == 0)
        return true;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, join);
    lower_at(L, join);
    lower_temps_release(L, mark); /* the leaves read before the test */
    return true;
}

static bool stmt_augassign(Lower *L, Node *n) {
    int mark = lower_temps_mark(L);
    Node *t = n->a;
    if (t->ty && t->ty->kind == TY_ARRAY) { /* in place: lower_arrayexpr.c */
        bool ok = lower_ae_augassign(L, n);
        lower_temps_release(L, mark);
        return ok;
    }
    Type *opt = n->op_ty ? n->op_ty : t->ty;
    Type *rty = NULL;
    /* x **= 3 on a float: infer kept the exponent an int64 */
    bool ipow = n->op == OP_POW && ty_is_float(opt) && ty_is_int(n->b->ty);
    if (t->kind == N_NAME) {
        LLVMValueRef slot = var_slot(L, t, t->var);
        if (!slot)
            return false;
        Type *vty = t->var->ty;
        if (!lower_check_bound(L, t, t->var))
            return false;
        if (lower_has_refs(vty)) {
            lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "augmented assignment to an array variable");
            return false;
        }
        LLVMValueRef cur = lower_convert(L, n, lower_load(L, lower_type(L, vty), slot, t->var->name), vty, opt);
        LLVMValueRef r = lower_expr_use(L, n->b);
        if (!ipow)
            r = lower_convert(L, n, r, n->b->ty, opt);
        if (!cur || !r)
            return false;
        LLVMValueRef res = ipow ? (rty = opt, lower_float_int_pow(L, opt, cur, r)) : lower_binop(L, n, n->op, opt, cur, r, &rty);
        if (!res)
            return false;
        lower_store_var(L, n, t->var, res, rty, false);
    } else if (t->kind == N_SUBSCRIPT || (t->kind == N_ATTRIBUTE && t->attr_kind == ATTR_RECORD_FIELD)) {
        Type *elty = NULL;
        LLVMValueRef p = t->kind == N_SUBSCRIPT ? lower_subscript_ptr(L, t, &elty) : lower_record_field_ptr(L, t, &elty);
        if (!p)
            return false;
        LLVMValueRef ld = lower_load(L, lower_mem_type(L, elty), p, "elem");
        LLVMSetAlignment(ld, t->kind == N_SUBSCRIPT ? (unsigned)ty_itemsize(elty) : 1);
        LLVMValueRef cur = lower_convert(L, n, lower_from_mem(L, ld, elty), elty, opt);
        LLVMValueRef r = lower_expr_use(L, n->b);
        if (!ipow)
            r = lower_convert(L, n, r, n->b->ty, opt);
        if (!cur || !r)
            return false;
        LLVMValueRef res = ipow ? (rty = opt, lower_float_int_pow(L, opt, cur, r)) : lower_binop(L, n, n->op, opt, cur, r, &rty);
        res = lower_convert(L, n, res, rty, elty);
        if (!res)
            return false;
        LLVMValueRef st = LLVMBuildStore(L->b, lower_to_mem(L, res, elty), p);
        LLVMSetAlignment(st, t->kind == N_SUBSCRIPT ? (unsigned)ty_itemsize(elty) : 1);
    } else {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "cannot assign to this expression");
        return false;
    }
    lower_temps_release(L, mark);
    return !lower_failed(L);
}

/* Release every live temporary (the iterables of enclosing loops) and the
 * variables, and return `status`. */
static void leave(Lower *L) {
    for (int i = L->temps.len - 1; i >= 0; i--)
        lower_decref(L, VEC_AT(L->temps, i), VEC_AT(L->temp_tys, i));
    LLVMBuildBr(L->b, L->exit_bb);
}

static bool in_vec(const PtrVec *v, const void *p);

/* `return x` of a local array variable moves the variable's reference to
 * the caller (the slot is cleared) instead of an incref + decref pair. */
static bool return_moved_var(Lower *L, Node *e, Type *rt) {
    Node *x = e;
    while (x->kind == N_CAST && x->ty->kind == TY_ARRAY && x->a->ty->kind == TY_ARRAY)
        x = x->a;
    if (x->kind != N_NAME || !x->var || !x->var->slot || !lower_has_refs(x->var->ty) ||
        in_vec(&L->borrowed, x->var))
        return false;
    Var *v = x->var;
    if (!lower_check_bound(L, x, v))
        return false;
    LLVMValueRef val = lower_load(L, lower_type(L, v->ty), (LLVMValueRef)v->slot, v->name);
    val = lower_convert(L, e, val, v->ty, rt);
    if (!val)
        return false;
    LLVMBuildStore(L->b, val, L->retptr);
    LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, v->ty)), (LLVMValueRef)v->slot);
    return true;
}

static bool gen_exit(Lower *L, LowerGen *g, LLVMBasicBlockRef to);

static bool stmt_return(Lower *L, Node *n) {
    if (n->is_from) { /* the end of an inlined generator */
        if (!L->ngens)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "generator return outside its loop"), false;
        if (n->a) {
            int mark = lower_temps_mark(L);
            if (!lower_expr_use(L, n->a))
                return false;
            lower_temps_release(L, mark);
        }
        LowerGen *g = &L->gens[L->ngens - 1];
        return gen_exit(L, g, g->done);
    }
    /* the end of a generator object's body drops a value as `return None` */
    Type *rt = L->spec->is_gen ? ty_scalar(L->c->tc, TY_NONE) : L->spec->ret;
    if (n->a && rt->kind != TY_NONE && rt->kind == TY_ARRAY && return_moved_var(L, n->a, rt)) {
        /* moved */
    } else if (n->a && rt->kind != TY_NONE) {
        int mark = lower_temps_mark(L);
        LLVMValueRef v = lower_expr_owned(L, n->a);
        v = lower_convert(L, n, v, n->a->ty, rt);
        if (!v)
            return false;
        lower_temps_release(L, mark);
        LLVMBuildStore(L->b, v, L->retptr);
    } else if (n->a) {
        /* `return None` or a none-typed expression: still evaluate it */
        int mark = lower_temps_mark(L);
        bool owned = false;
        LLVMValueRef v = lower_expr(L, n->a, &owned);
        if (!v)
            return false;
        if (owned)
            lower_decref(L, v, n->a->ty);
        lower_temps_release(L, mark);
    }
    if (L->fin_top && !run_finally(L, -1))
        return false;
    if (!lower_terminated(L))
        leave(L);
    start_dead_block(L);
    return true;
}

static LLVMValueRef cond_value(Lower *L, Node *e) {
    int mark = lower_temps_mark(L);
    bool owned = false;
    LLVMValueRef v = lower_expr(L, e, &owned);
    if (!v)
        return NULL;
    LLVMValueRef c = lower_truth(L, e, v, e->ty);
    if (owned)
        lower_decref(L, v, e->ty);
    lower_temps_release(L, mark);
    return c;
}

static bool stmt_if(Lower *L, Node *n) {
    LLVMValueRef c = cond_value(L, n->a);
    if (!c)
        return false;
    LLVMBasicBlockRef then = lower_block(L, "if.then");
    LLVMBasicBlockRef els = n->orelse.len ? lower_block(L, "if.else") : NULL;
    LLVMBasicBlockRef end = lower_block(L, "if.end");
    LLVMBuildCondBr(L->b, c, then, els ? els : end);
    lower_at(L, then);
    if (!lower_stmts(L, &n->body))
        return false;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, end);
    if (els) {
        lower_at(L, els);
        if (!lower_stmts(L, &n->orelse))
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, end);
    }
    lower_at(L, end);
    return true;
}

static bool push_loop(Lower *L, const Node *n, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
    if (L->nloops >= LOWER_MAX_LOOPS) {
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "loops nested too deeply");
        return false;
    }
    L->loops[L->nloops].brk = brk;
    L->loops[L->nloops].cont = cont;
    L->nloops++;
    return true;
}

/* ---- signals: Ctrl-C and Slurm's SIGTERM during long loops -------------------
 * The back edge of a loop that holds more work than straight-line code
 * (another loop, an array expression, a comprehension), and of every
 * while loop, reads the runtime's signal flag (a volatile load) and, when
 * a signal arrived, calls rt_signal_poll, which runs the Python handler
 * and unwinds when it raises (runtime/signals.c).  Innermost for loops
 * are not polled: a second exit would stop their vectorisation. */
static bool holds_work(const Node *n, int depth) {
    if (!n || depth > 10000)
        return false;
    switch (n->kind) {
    case N_FOR:
    case N_WHILE:
    case N_COMP:
    case N_ARRAYEXPR:
        return true;
    case N_FUNCDEF:
    case N_LAMBDA:
        return false; /* lowered on their own */
    default: break;
    }
    if (holds_work(n->a, depth + 1) || holds_work(n->b, depth + 1) || holds_work(n->c, depth + 1))
        return true;
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->handlers, &n->args, &n->args2,
                             &n->targets};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (holds_work(VEC_AT(*lists[k], i), depth + 1))
                return true;
    return false;
}

/* The flag's address for a loop that polls (NULL: this loop does not). */
LLVMValueRef lower_poll_setup(Lower *L, const Node *loop) {
    if (!L->poll_signals)
        return NULL;
    if (loop->kind == N_FOR) {
        if (L->nloops > 0) /* the outermost loop of a nest polls for it */
            return NULL;
        bool work = false;
        for (int i = 0; i < loop->body.len && !work; i++)
            work = holds_work(VEC_AT(loop->body, i), 0);
        if (!work)
            return NULL;
    }
    return lower_rt(L, "rt_signal_flag_addr", L->t_ptr, NULL, 0, NULL);
}

void lower_poll_signals(Lower *L, LLVMValueRef flagp) {
    if (!flagp)
        return;
    LLVMValueRef f = lower_load(L, L->t_i32, flagp, "sig");
    LLVMSetVolatile(f, 1);
    LLVMBasicBlockRef poll = lower_block(L, "sig.poll");
    LLVMBasicBlockRef go = lower_block(L, "sig.go");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, f, lower_i32(L, 0), ""), poll, go);
    lower_at(L, poll);
    LLVMValueRef st = lower_rt(L, "rt_signal_poll", L->t_i32, NULL, 0, NULL);
    /* cold, and touching no memory the compiled code can see (a Python
     * handler that writes to an array the loop uses races with it anyway):
     * values the loop keeps in registers stay there */
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, "rt_signal_poll");
    if (fn && !LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                           LLVMGetEnumAttributeKindForName("cold", 4))) {
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("cold", 4), 0));
        /* memory(inaccessiblemem: readwrite): ModRef (3) in the
         * inaccessible-memory slot (bits 2-3) of LLVM's MemoryEffects */
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("memory", 6), 3u << 2));
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateEnumAttribute(L->ctx, LLVMGetEnumAttributeKindForName("nounwind", 8), 0));
    }
    lower_check_status(L, st);
    LLVMBuildBr(L->b, go);
    lower_at(L, go);
}

static bool stmt_while(Lower *L, Node *n) {
    LLVMBasicBlockRef head = lower_block(L, "while.cond");
    LLVMBasicBlockRef body = lower_block(L, "while.body");
    LLVMBasicBlockRef els = n->orelse.len ? lower_block(L, "while.else") : NULL;
    LLVMBasicBlockRef end = lower_block(L, "while.end");
    LLVMValueRef flagp = lower_poll_setup(L, n);
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef c = cond_value(L, n->a);
    if (!c)
        return false;
    LLVMBuildCondBr(L->b, c, body, els ? els : end);
    lower_at(L, body);
    if (!push_loop(L, n, end, head))
        return false;
    bool ok = lower_stmts(L, &n->body);
    L->nloops--;
    if (!ok)
        return false;
    if (!lower_terminated(L)) {
        lower_poll_signals(L, flagp);
        LLVMBuildBr(L->b, head);
    }
    if (els) {
        lower_at(L, els);
        if (!lower_stmts(L, &n->orelse))
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, end);
    }
    lower_at(L, end);
    return true;
}

/* ---- for loops: one shape for every iterable --------------------------------
 * len = number of iterations (computed once), idx counts 0..len-1 in an
 * alloca, the target is assigned item(idx) at the top of the body.  The
 * canonical induction variable is what the loop vectoriser wants. */
typedef enum IterKind {
    IT_RANGE, IT_ARRAY, IT_TUPLE, IT_ENUMERATE, IT_ZIP,
    IT_LIB, /* a library type (str, list, ...): its lower_len and lower_item */
    IT_REVERSED, /* subs[0] from its last item to its first */
    IT_NDINDEX, IT_NDENUMERATE, IT_FLAT, /* C order over dims[0..nd): the index, (index, item), the item */
    IT_GEN /* a generator object inside enumerate/zip: resumed at the head (iter_head) */
} IterKind;

typedef struct Iter Iter;
struct Iter {
    IterKind kind;
    Type *ety;               /* type of one item */
    LLVMValueRef start, step; /* IT_RANGE; IT_ENUMERATE: start */
    LLVMValueRef val;        /* IT_ARRAY: the array; IT_LIB: the value */
    LLVMValueRef cursor;     /* IT_LIB: lower_iter_begin's, or NULL (by index) */
    Type *ty;                /* IT_ARRAY/IT_TUPLE/IT_LIB: type of the iterable */
    const LibOps *lib;       /* IT_LIB */
    LLVMValueRef slot;       /* IT_TUPLE: the tuple in memory */
    Iter *subs;              /* IT_ENUMERATE, IT_REVERSED: 1, IT_ZIP: nsubs */
    int nsubs;
    LLVMValueRef *dims;      /* IT_NDINDEX, IT_NDENUMERATE, IT_FLAT: nd extents (i64) */
    int nd;
    LLVMValueRef len;
    bool has_gen;            /* an IT_GEN in it: the loop's head resumes it (iter_head) */
};

/* CPython's range length: (hi - lo - 1) / step + 1 in unsigned arithmetic. */
LLVMValueRef lower_range_len(Lower *L, LLVMValueRef start, LLVMValueRef stop, LLVMValueRef step) {
    LLVMValueRef zero = lower_i64(L, 0), one = lower_i64(L, 1);
    LLVMValueRef pos = LLVMBuildICmp(L->b, LLVMIntSGT, step, zero, "pos");
    LLVMValueRef lo = LLVMBuildSelect(L->b, pos, start, stop, "");
    LLVMValueRef hi = LLVMBuildSelect(L->b, pos, stop, start, "");
    LLVMValueRef astep = LLVMBuildSelect(L->b, pos, step, LLVMBuildNeg(L->b, step, ""), "");
    LLVMValueRef nonempty = LLVMBuildICmp(L->b, LLVMIntSLT, lo, hi, "");
    LLVMValueRef diff = LLVMBuildSub(L->b, LLVMBuildSub(L->b, hi, lo, ""), one, "");
    LLVMValueRef n = LLVMBuildAdd(L->b, LLVMBuildUDiv(L->b, diff, astep, ""), one, "");
    return LLVMBuildSelect(L->b, nonempty, n, zero, "range.len");
}

LLVMValueRef lower_as_i64(Lower *L, const Node *at, LLVMValueRef v, Type *t) {
    return lower_convert(L, at, v, t, ty_scalar(L->c->tc, TY_INT64));
}

/* range(stop) / range(start, stop[, step]) from a call's arguments. */
static bool range_args(Lower *L, Node *call, LLVMValueRef *start, LLVMValueRef *stop, LLVMValueRef *step) {
    Node *a[3] = {NULL, NULL, NULL};
    int n = 0;
    for (int i = 0; i < call->args.len && i < 3; i++)
        if (VEC_AT(call->args, i))
            a[n++] = VEC_AT(call->args, i);
    LLVMValueRef v[3];
    for (int i = 0; i < n; i++) {
        v[i] = lower_as_i64(L, a[i], lower_expr_use(L, a[i]), a[i]->ty);
        if (!v[i])
            return false;
    }
    if (n == 1) {
        *start = lower_i64(L, 0), *stop = v[0], *step = lower_i64(L, 1);
    } else if (n >= 2) {
        *start = v[0], *stop = v[1], *step = n == 3 ? v[2] : lower_i64(L, 1);
    } else {
        lower_fail(L, call, HJ_DIAG_TYPING, "range expected at least 1 argument, got 0");
        return false;
    }
    if (!LLVMIsAConstantInt(*step) || LLVMConstIntGetSExtValue(*step) == 0)
        lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntEQ, *step, lower_i64(L, 0), ""), "ValueError",
                       "range() arg 3 must not be zero");
    const LibOps *ops = lib_ops(call->builtin); /* e.g. this rank's block of hpcjit.mpi.prange */
    if (ops && ops->lower_range)
        return ops->lower_range(L, call, start, stop, *step);
    return true;
}

LLVMValueRef lower_range_value(Lower *L, Node *call) {
    LLVMValueRef s, e, st;
    if (!range_args(L, call, &s, &e, &st))
        return NULL;
    LLVMTypeRef rt = lower_type(L, ty_scalar(L->c->tc, TY_RANGE));
    LLVMValueRef r = LLVMGetUndef(rt);
    r = LLVMBuildInsertValue(L->b, r, s, 0, "");
    r = LLVMBuildInsertValue(L->b, r, e, 1, "");
    return LLVMBuildInsertValue(L->b, r, st, 2, "range");
}

static bool is_builtin_call(const Node *n, BuiltinId id) {
    return n->kind == N_CALL && n->call_kind == CALL_BUILTIN && n->builtin == id;
}

/* np.ndindex / np.ndenumerate / a.flat: the extents, and the array (kept
 * alive for the loop) for the last two. */
static bool nd_init(Lower *L, Node *e, Iter *it) {
    bool flat = e->kind == N_ATTRIBUTE;
    it->kind = flat ? IT_FLAT : e->builtin == BI_NP_NDINDEX || e->builtin == BI_PNDINDEX ? IT_NDINDEX : IT_NDENUMERATE;
    it->ety = flat ? e->ty->dtype : e->ty;
    if (it->kind == IT_NDINDEX) {
        Node *a0 = e->args.len ? VEC_AT(e->args, 0) : NULL;
        bool shape = e->args.len == 1 && a0->ty->kind == TY_TUPLE;
        it->nd = shape ? a0->ty->nelems : e->args.len;
        it->dims = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(it->nd + 1));
        LLVMValueRef sv = shape ? lower_expr_use(L, a0) : NULL;
        if (shape && !sv)
            return false;
        for (int d = 0; d < it->nd; d++) {
            it->dims[d] = shape ? LLVMBuildExtractValue(L->b, sv, (unsigned)d, "")
                                : lower_expr_use(L, VEC_AT(e->args, d));
            if (!it->dims[d])
                return false;
            lower_raise_if(L, LLVMBuildICmp(L->b, LLVMIntSLT, it->dims[d], lower_i64(L, 0), ""), "ValueError",
                           "negative dimensions are not allowed");
        }
    } else {
        Node *a = flat ? e->a : VEC_AT(e->args, 0);
        it->ty = a->ty;
        it->val = lower_expr_owned(L, a);
        if (!it->val)
            return false;
        lower_temp(L, it->val, a->ty, true);
        it->nd = a->ty->ndim;
        it->dims = arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(it->nd + 1));
        for (int d = 0; d < it->nd; d++)
            it->dims[d] = lower_array_dim(L, it->val, ARR_SHAPE, d);
    }
    it->len = lower_i64(L, 1);
    for (int d = 0; d < it->nd; d++)
        it->len = LLVMBuildMul(L->b, it->len, it->dims[d], "");
    return true;
}

/* Item i of an N-d iteration: i unravelled in C order (the loop runs only
 * while i < len, so no extent is 0 here). */
static LLVMValueRef nd_item(Lower *L, Iter *it, LLVMValueRef i) {
    LLVMValueRef small[8];
    LLVMValueRef *idx = it->nd <= 8 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)it->nd);
    LLVMValueRef rem = i;
    for (int d = it->nd - 1; d >= 0; d--) {
        idx[d] = d ? LLVMBuildURem(L->b, rem, it->dims[d], "") : rem;
        if (d)
            rem = LLVMBuildUDiv(L->b, rem, it->dims[d], "");
    }
    LLVMValueRef elem = NULL;
    if (it->kind != IT_NDINDEX)
        elem = lower_elem_at(L, it->val, it->ty, idx);
    if (it->kind == IT_FLAT)
        return elem;
    Type *tt = it->kind == IT_NDINDEX ? it->ety : it->ety->elems[0];
    LLVMValueRef t = LLVMGetUndef(lower_type(L, tt));
    for (int d = 0; d < it->nd; d++)
        t = LLVMBuildInsertValue(L->b, t, idx[d], (unsigned)d, "");
    if (it->kind == IT_NDINDEX)
        return t;
    LLVMValueRef pair = LLVMBuildInsertValue(L->b, LLVMGetUndef(lower_type(L, it->ety)), t, 0, "");
    return LLVMBuildInsertValue(L->b, pair, elem, 1, "");
}

/* A library's range-like iterable (hpcjit.mpi.prange). */
static bool is_lib_range(const Node *e) {
    const LibOps *ops = lib_call_builtin(e) >= 0 ? lib_ops(e->builtin) : NULL;
    return ops && ops->lower_range;
}

/* Prepare an iterable: evaluate it once (an iterable holding arrays is
 * kept alive as a temporary for the whole loop). */
static bool iter_init(Lower *L, Node *e, Iter *it) {
    TyCtx *tc = L->c->tc;
    memset(it, 0, sizeof *it);
    if (is_builtin_call(e, BI_RANGE) || is_builtin_call(e, BI_PRANGE) || is_lib_range(e)) {
        LLVMValueRef stop;
        it->kind = IT_RANGE;
        it->ety = ty_scalar(tc, TY_INT64);
        if (!range_args(L, e, &it->start, &stop, &it->step))
            return false;
        it->len = lower_range_len(L, it->start, stop, it->step);
        return true;
    }
    if (is_builtin_call(e, BI_NP_NDINDEX) || is_builtin_call(e, BI_NP_NDENUMERATE) || is_builtin_call(e, BI_PNDINDEX) ||
        (e->kind == N_ATTRIBUTE && e->attr_kind == ATTR_ARRAY_FLAT))
        return nd_init(L, e, it);
    if (is_builtin_call(e, BI_REVERSED)) {
        it->kind = IT_REVERSED;
        it->subs = arena_alloc(&L->c->arena, sizeof(Iter));
        it->nsubs = 1;
        if (!iter_init(L, VEC_AT(e->args, 0), &it->subs[0]))
            return false;
        if (it->subs[0].cursor) {
            lower_fail(L, e, HJ_DIAG_UNSUPPORTED, "reversed() of this value is not supported");
            return false;
        }
        it->ety = it->subs[0].ety;
        it->len = it->subs[0].len;
        return true;
    }
    if (is_builtin_call(e, BI_ENUMERATE) || is_builtin_call(e, BI_ZIP)) {
        bool en = e->builtin == BI_ENUMERATE;
        int n = 0;
        for (int i = 0; i < e->args.len; i++)
            if (VEC_AT(e->args, i))
                n++;
        if (n == 0 || (en && n > 2)) {
            lower_fail(L, e, HJ_DIAG_UNSUPPORTED, "unsupported arguments to %s", en ? "enumerate" : "zip");
            return false;
        }
        int nsubs = en ? 1 : n;
        it->kind = en ? IT_ENUMERATE : IT_ZIP;
        it->subs = arena_alloc(&L->c->arena, sizeof(Iter) * (size_t)nsubs);
        it->nsubs = nsubs;
        Type *small[16];
        Type **etys = nsubs + 1 <= 16 ? small : arena_alloc(&L->c->arena, sizeof(Type *) * (size_t)(nsubs + 1));
        int k = 0;
        if (en)
            etys[k++] = ty_scalar(tc, TY_INT64);
        for (int i = 0, j = 0; i < e->args.len && j < nsubs; i++) {
            Node *a = VEC_AT(e->args, i);
            if (!a)
                continue;
            if (!iter_init(L, a, &it->subs[j]))
                return false;
            it->has_gen = it->has_gen || it->subs[j].has_gen;
            etys[k++] = it->subs[j].ety;
            LLVMValueRef l = it->subs[j].len;
            it->len = !it->len ? l : LLVMBuildSelect(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, l, it->len, ""), l, it->len, "");
            j++;
        }
        it->start = lower_i64(L, 0);
        if (en && n == 2) {
            Node *s = NULL;
            for (int i = e->args.len - 1; i >= 0 && !s; i--)
                s = VEC_AT(e->args, i);
            it->start = lower_as_i64(L, s, lower_expr_use(L, s), s->ty);
            if (!it->start)
                return false;
        }
        it->ety = ty_tuple(tc, etys, k);
        return true;
    }
    Type *t = e->ty;
    if (t->kind == TY_RANGE) {
        LLVMValueRef r = lower_expr_use(L, e);
        if (!r)
            return false;
        it->kind = IT_RANGE;
        it->ety = ty_scalar(tc, TY_INT64);
        it->start = LLVMBuildExtractValue(L->b, r, 0, "start");
        it->step = LLVMBuildExtractValue(L->b, r, 2, "step");
        it->len = lower_range_len(L, it->start, LLVMBuildExtractValue(L->b, r, 1, "stop"), it->step);
        return true;
    }
    if (t->kind == TY_ARRAY) {
        if (t->ndim < 1) {
            lower_fail(L, e, HJ_DIAG_TYPING, "iteration over a 0-d array");
            return false;
        }
        it->kind = IT_ARRAY;
        it->ty = t;
        it->val = lower_expr_owned(L, e);
        if (!it->val)
            return false;
        lower_temp(L, it->val, t, true);
        it->ety = t->ndim == 1 ? t->dtype : ty_array(tc, t->dtype, t->ndim - 1, t->layout == LAYOUT_C ? LAYOUT_C : LAYOUT_A);
        it->len = lower_array_dim(L, it->val, ARR_SHAPE, 0);
        return true;
    }
    if (t->kind == TY_TUPLE) {
        for (int i = 1; i < t->nelems; i++)
            if (t->elems[i] != t->elems[0]) {
                lower_fail(L, e, HJ_DIAG_UNSUPPORTED, "iteration over a heterogeneous tuple");
                return false;
            }
        it->kind = IT_TUPLE;
        it->ty = t;
        it->len = lower_i64(L, t->nelems);
        it->ety = t->nelems ? t->elems[0] : ty_scalar(tc, TY_NONE);
        if (t->nelems == 0)
            return true;
        bool refs = lower_has_refs(t);
        LLVMValueRef v = refs ? lower_expr_owned(L, e) : lower_expr_use(L, e);
        if (!v)
            return false;
        if (refs)
            lower_temp(L, v, t, true);
        /* a homogeneous struct has the layout of an array */
        it->slot = lower_alloca(L, lower_type(L, t), "tuple.iter");
        LLVMBuildStore(L->b, v, it->slot);
        return true;
    }
    if (t->kind == TY_GENERATOR) { /* inside enumerate/zip: no length, resumed at the head */
        it->kind = IT_GEN;
        it->ty = t;
        it->val = lower_expr_owned(L, e);
        if (!it->val)
            return false;
        lower_temp(L, it->val, t, true);
        it->ety = t->item;
        it->len = lower_i64(L, INT64_MAX);
        it->has_gen = true;
        return true;
    }
    const LibOps *own = lib_type_owner(t);
    if (own && own->lower_len && (own->lower_item || own->lower_iter_next) && own->item_type) {
        it->kind = IT_LIB;
        it->ty = t;
        it->lib = own;
        it->val = lower_expr_owned(L, e); /* held for the whole loop */
        if (!it->val)
            return false;
        lower_temp(L, it->val, t, true);
        it->ety = own->item_type(tc, t);
        it->len = own->lower_len(L, e, it->val, t);
        if (it->len && own->lower_iter_begin)
            it->cursor = own->lower_iter_begin(L, e, it->val, t, it->len);
        return it->len != NULL && (!own->lower_iter_begin || it->cursor);
    }
    lower_fail(L, e, HJ_DIAG_UNSUPPORTED, "cannot iterate over this value");
    return false;
}

static LLVMValueRef iter_item(Lower *L, const Node *at, Iter *it, LLVMValueRef i, bool *owned) {
    *owned = false;
    switch (it->kind) {
    case IT_RANGE:
        /* idx * step may wrap for ranges near the int64 limits; the sum
         * is still the right value in wrapping arithmetic */
        return LLVMBuildAdd(L->b, it->start, LLVMBuildMul(L->b, i, it->step, ""), "");
    case IT_ARRAY: {
        Type *ety = NULL;
        return lower_array_item(L, at, it->val, it->ty, i, &ety, owned);
    }
    case IT_LIB:
        if (it->cursor)
            return it->lib->lower_iter_next(L, at, it->val, it->ty, it->cursor, owned);
        return it->lib->lower_item(L, at, it->val, it->ty, i, owned);
    case IT_REVERSED: {
        LLVMValueRef j = LLVMBuildSub(L->b, LLVMBuildSub(L->b, it->len, lower_i64(L, 1), ""), i, "rev.i");
        return iter_item(L, at, &it->subs[0], j, owned);
    }
    case IT_TUPLE: {
        LLVMTypeRef et = lower_type(L, it->ety);
        LLVMValueRef p = LLVMBuildGEP2(L->b, et, it->slot, &i, 1, "");
        return lower_load(L, et, p, "item");
    }
    case IT_NDINDEX:
    case IT_NDENUMERATE:
    case IT_FLAT:
        return nd_item(L, it, i);
    case IT_GEN: /* iter_head resumed it */
        *owned = lower_has_refs(it->ety);
        return lower_gen_value(L, it->val, it->ety);
    case IT_ENUMERATE:
    case IT_ZIP: {
        LLVMValueRef r = LLVMGetUndef(lower_type(L, it->ety));
        unsigned k = 0;
        if (it->kind == IT_ENUMERATE)
            r = LLVMBuildInsertValue(L->b, r, LLVMBuildAdd(L->b, it->start, i, ""), k++, "");
        bool refs = lower_has_refs(it->ety);
        for (int j = 0; j < it->nsubs; j++) {
            bool o = false;
            LLVMValueRef x = iter_item(L, at, &it->subs[j], i, &o);
            if (!x)
                return NULL;
            if (refs && !o)
                lower_incref(L, x, it->subs[j].ety);
            r = LLVMBuildInsertValue(L->b, r, x, k++, "");
        }
        *owned = refs;
        return r;
    }
    }
    return NULL;
}

/* The head of a loop over an iterable holding generator objects: in
 * zip's order, as Python's next() calls, each generator is resumed and
 * each sized iterable's end tested, going to `out` at the first that has
 * no item i.  Leaves the builder where the body may start. */
static void iter_head(Lower *L, Iter *it, LLVMValueRef i, LLVMBasicBlockRef out) {
    if (it->kind == IT_GEN) {
        LLVMBasicBlockRef more = lower_block(L, "zip.more");
        LLVMBuildCondBr(L->b, lower_gen_resume(L, it->val), more, out);
        lower_at(L, more);
        return;
    }
    if ((it->kind == IT_ZIP || it->kind == IT_ENUMERATE) && it->has_gen) {
        for (int j = 0; j < it->nsubs; j++)
            iter_head(L, &it->subs[j], i, out);
        return;
    }
    LLVMBasicBlockRef more = lower_block(L, "zip.more");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, it->len, ""), more, out);
    lower_at(L, more);
}

void lower_loop_hint(Lower *L, LLVMValueRef br, const char *name, unsigned value) {
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    LLVMMetadataRef hint[2] = {LLVMMDStringInContext2(L->ctx, name, strlen(name)),
                               LLVMValueAsMetadata(LLVMConstInt(L->t_i32, value, 0))};
    LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(L->ctx, hint, 2)};
    LLVMMetadataRef id = LLVMMDNodeInContext2(L->ctx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, id); /* disposes tmp */
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "llvm.loop", 9), LLVMMetadataAsValue(L->ctx, id));
}

/* Leave an inlined generator from inside its body: release the
 * temporaries its loops hold, then go to `to`. */
static bool gen_exit(Lower *L, LowerGen *g, LLVMBasicBlockRef to) {
    for (int i = L->temps.len - 1; i >= g->mark; i--)
        lower_decref(L, VEC_AT(L->temps, i), VEC_AT(L->temp_tys, i));
    LLVMBuildBr(L->b, to);
    start_dead_block(L);
    return true;
}

/* for t in gen(...): the generator's body in place, each `yield v`
 * assigning t and running its copy of the loop body (infer_unroll.c). */
static bool gen_loop(Lower *L, Node *n) {
    if (L->ngens >= 64)
        return lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "generator loops nested too deeply"), false;
    LLVMBasicBlockRef end = lower_block(L, "gen.end");
    LLVMBasicBlockRef els = n->orelse.len ? lower_block(L, "gen.else") : end;
    LowerGen *g = &L->gens[L->ngens++];
    g->loop = n;
    g->done = els;
    g->end = end;
    g->mark = lower_temps_mark(L);
    bool ok = lower_stmts(L, &n->finalbody);
    L->ngens--;
    if (!ok)
        return false;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, els);
    if (n->orelse.len) {
        lower_at(L, els);
        if (!lower_stmts(L, &n->orelse))
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, end);
    }
    lower_at(L, end);
    return true;
}

static bool yield_stmt(Lower *L, Node *y) {
    if (!L->ngens && L->spec->is_gen)
        return lower_gen_yield(L, y);
    if (!L->ngens)
        return lower_fail(L, y, HJ_DIAG_LOWERING, "yield outside a generator loop"), false;
    LowerGen g = L->gens[L->ngens - 1];
    int mark = lower_temps_mark(L);
    if (y->a) {
        bool owned = false;
        LLVMValueRef v = lower_expr(L, y->a, &owned);
        if (!v || !assign(L, g.loop->a, v, y->a->ty, owned))
            return false;
    } else if (!assign(L, g.loop->a, LLVMConstNull(lower_type(L, g.loop->a->ty)), g.loop->a->ty, false)) {
        return false;
    }
    lower_temps_release(L, mark);
    LLVMBasicBlockRef resume = lower_block(L, "gen.resume");
    LLVMBasicBlockRef brk = lower_block(L, "gen.break");
    if (!push_loop(L, y, brk, resume))
        return false;
    L->ngens--; /* the loop body runs outside the generator */
    bool ok = lower_stmts(L, &y->body);
    L->gens[L->ngens++] = g;
    L->nloops--;
    if (!ok)
        return false;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, resume);
    lower_at(L, brk);
    gen_exit(L, &g, g.end);
    lower_at(L, resume);
    return true;
}

/* for t in literal_unroll(tup): each copy of the body (infer_unroll.c)
 * with t bound to its element. */
static bool unroll_loop(Lower *L, Node *n) {
    int mark = lower_temps_mark(L);
    Node *arg = VEC_AT(n->b->args, 0);
    Type *tt = arg->ty;
    LLVMValueRef tup = lower_expr_use(L, arg);
    if (!tup)
        return false;
    LLVMBasicBlockRef end = lower_block(L, "unroll.end");
    for (int k = 0; k < n->targets.len; k++) {
        Node *cp = VEC_AT(n->targets, k);
        LLVMBasicBlockRef next = lower_block(L, "unroll.next");
        LLVMValueRef el = LLVMBuildExtractValue(L->b, tup, (unsigned)k, "");
        if (!assign(L, cp->a, el, tt->elems[k], false) || !push_loop(L, cp, end, next))
            return false;
        bool ok = lower_stmts(L, &cp->body);
        L->nloops--;
        if (!ok)
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, next);
        lower_at(L, next);
    }
    if (!lower_stmts(L, &n->orelse))
        return false;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, end);
    lower_at(L, end);
    lower_temps_release(L, mark);
    return true;
}

static bool stmt_for(Lower *L, Node *n) {
    if (n->is_from)
        return gen_loop(L, n);
    if (n->b->ty && n->b->ty->kind == TY_GENERATOR)
        return lower_gen_for(L, n);
    if (n->is_star)
        return unroll_loop(L, n);
    if (n->dist) { /* a library's loop (hpcjit.mpi.prange), marked by its infer_loop */
        const LibOps *ops = lib_call_builtin(n->b) >= 0 ? lib_ops(n->b->builtin) : NULL;
        if (!ops || !ops->lower_loop)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "a distributed loop without a library to lower it");
        return ops->lower_loop(L, n);
    }
    return lower_for_loop(L, n);
}

static bool has_float(const Type *t, int depth) {
    if (!t || depth > 32)
        return true; /* unknown: assume the worst */
    if (ty_is_float(t) || ty_is_complex(t))
        return true;
    if (t->kind == TY_ARRAY)
        return has_float(t->dtype, depth + 1);
    if (t->kind == TY_TUPLE)
        for (int i = 0; i < t->nelems; i++)
            if (has_float(t->elems[i], depth + 1))
                return true;
    return false;
}

static bool target_has_float(const Node *t) {
    if (!t)
        return false;
    if (t->kind == N_NAME)
        return has_float(t->var ? t->var->ty : t->ty, 0);
    if (t->kind == N_TUPLE || t->kind == N_LIST) {
        for (int i = 0; i < t->args.len; i++)
            if (target_has_float(VEC_AT(t->args, i)))
                return true;
        return false;
    }
    if (t->kind == N_STARRED)
        return target_has_float(t->a);
    if (t->kind == N_SUBSCRIPT && t->a && t->a->ty && t->a->ty->kind == TY_ARRAY)
        return has_float(t->a->ty->dtype, 0);
    return has_float(t->ty, 0);
}

/* Whether a statement list assigns a float or complex anything (a
 * variable, an array element, a tuple holding one).  Any vectorize.width
 * hint > 1 is also LLVM's licence to reassociate float reductions in that
 * loop (LoopVectorizeHints::allowReordering), which would change sums. */
static bool assigns_float(const Node *n, int depth) {
    if (!n || depth > 10000)
        return n != NULL;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            if (target_has_float(VEC_AT(n->targets, i)))
                return true;
        break;
    case N_AUGASSIGN:
    case N_ANNASSIGN:
    case N_FOR:
    case N_NAMEDEXPR:
        if (target_has_float(n->a))
            return true;
        break;
    default: break;
    }
    if (assigns_float(n->a, depth + 1) || assigns_float(n->b, depth + 1) || assigns_float(n->c, depth + 1))
        return true;
    const PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->args, &n->args2, &n->targets};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            if (assigns_float(VEC_AT(*lists[k], i), depth + 1))
                return true;
    return false;
}

static bool body_assigns_float(const PtrVec *body) {
    for (int i = 0; i < body->len; i++)
        if (assigns_float(VEC_AT(*body, i), 0))
            return true;
    return false;
}

bool lower_for_loop(Lower *L, Node *n) {
    if (n->par && L->par_depth == 0)
        return lower_parallel_for(L, n);
    int mark = lower_temps_mark(L);
    Iter it;
    if (!iter_init(L, n->b, &it))
        return false;
    LLVMValueRef idx = lower_alloca(L, L->t_i64, "for.idx");
    LLVMBuildStore(L->b, lower_i64(L, 0), idx);
    /* a range's value is its own additive induction variable */
    LLVMValueRef rval = NULL;
    if (it.kind == IT_RANGE) {
        rval = lower_alloca(L, L->t_i64, "for.val");
        LLVMBuildStore(L->b, it.start, rval);
    }
    LLVMBasicBlockRef head = lower_block(L, "for.cond");
    LLVMBasicBlockRef body = lower_block(L, "for.body");
    LLVMBasicBlockRef step = lower_block(L, "for.step");
    LLVMBasicBlockRef els = n->orelse.len ? lower_block(L, "for.else") : NULL;
    LLVMBasicBlockRef end = lower_block(L, "for.end");
    LLVMValueRef flagp = lower_poll_setup(L, n);
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef i = lower_load(L, L->t_i64, idx, "i");
    if (it.has_gen) { /* enumerate/zip over generator objects */
        iter_head(L, &it, i, els ? els : end);
        LLVMBuildBr(L->b, body);
    } else {
        LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, it.len, ""), body, els ? els : end);
    }
    lower_at(L, body);
    bool owned = false;
    LLVMValueRef item = rval ? lower_load(L, L->t_i64, rval, "v") : iter_item(L, n, &it, i, &owned);
    if (!item || !assign(L, n->a, item, it.ety, owned))
        return false;
    if (!push_loop(L, n, end, step))
        return false;
    bool ok = lower_stmts(L, &n->body);
    L->nloops--;
    if (!ok)
        return false;
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, step);
    lower_at(L, step);
    lower_poll_signals(L, flagp);
    LLVMValueRef i2 = lower_load(L, L->t_i64, idx, "i");
    LLVMBuildStore(L->b, LLVMBuildNUWAdd(L->b, i2, lower_i64(L, 1), "i.next"), idx);
    if (rval)
        LLVMBuildStore(L->b, LLVMBuildAdd(L->b, lower_load(L, L->t_i64, rval, "v"), it.step, "v.next"), rval);
    LLVMValueRef back = LLVMBuildBr(L->b, head);
    /* with a run-time step every access through the value is a gather or
     * scatter; LLVM picks 32 lanes for bytes (sieve), whose scalarised
     * addresses cost ~45 ms of Loop Strength Reduction; 16 lanes compile
     * in a third of the time and run as fast.  Not where the loop assigns
     * floats: the hint would let LLVM reorder a float sum. */
    if (rval && !LLVMIsAConstantInt(it.step) && !body_assigns_float(&n->body))
        lower_loop_hint(L, back, "llvm.loop.vectorize.width", 16);
    if (els) {
        lower_at(L, els);
        if (!lower_stmts(L, &n->orelse))
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, end);
    }
    lower_at(L, end);
    lower_temps_release(L, mark);
    return true;
}

static bool stmt_raise(Lower *L, Node *n) {
    Node *e = n->a;
    if (!e) { /* in an except clause (checked by inference): raise what it caught again */
        if (!L->handler_buf)
            return lower_fail(L, n, HJ_DIAG_LOWERING, "bare 'raise' outside an except clause") != NULL;
        LLVMTypeRef p = L->t_ptr;
        lower_rt(L, "rt_exc_reraise", L->t_void, &p, 1, &L->handler_buf);
        lower_goto_error(L);
        start_dead_block(L);
        return true;
    }
    const char *msg = NULL;
    if (!e->ty || (e->ty->kind != TY_EXC_VALUE && e->ty->kind != TY_EXC_CLASS) || !e->ty->name) {
        lower_fail(L, e, HJ_DIAG_UNSUPPORTED, "can only raise builtin exception classes or instances");
        return false;
    }
    if (e->kind == N_CALL && e->args.len > 0) {
        Node *m = VEC_AT(e->args, 0);
        if (m && m->kind == N_FSTRING) {
            if (!lower_raise_fstring(L, m, e->ty->name))
                return false;
            start_dead_block(L);
            return true;
        }
        if (m && m->kind == N_CONST && m->cval.kind == CVAL_STR)
            msg = arena_strndup(&L->c->arena, m->cval.s ? m->cval.s : "", (size_t)m->cval.slen);
    }
    lower_raise(L, e->ty->name, msg);
    start_dead_block(L);
    return true;
}

/* try/except/else/finally.  Inside the body an exception (a raise, a
 * failed call or check: lower_goto_error) releases the temporaries made
 * since the try and branches to `dispatch`, which tests the handlers in
 * order with rt_exc_matches; a handler saves the exception
 * (rt_exc_save, for a bare raise) and clears it.  Without a match the
 * exception goes on to the enclosing try or out of the function, after
 * the finally clause. */
/* Whether a handler of try n catches IndexError (by that class or a base). */
static bool catches_index_error(const Node *n) {
    static const char *const bases[] = {"IndexError", "LookupError", "Exception", "BaseException"};
    for (int i = 0; i < n->handlers.len; i++) {
        const Node *h = VEC_AT(n->handlers, i);
        for (int k = 0; k < h->names.len; k++)
            for (size_t j = 0; j < sizeof bases / sizeof bases[0]; j++)
                if (strcmp(VEC_AT(h->names, k), bases[j]) == 0)
                    return true;
    }
    return false;
}

static bool stmt_try(Lower *L, Node *n) {
    LLVMBasicBlockRef dispatch = lower_block(L, "try.dispatch"), after = lower_block(L, "try.end");
    LLVMBasicBlockRef unwind = n->finalbody.len ? lower_block(L, "try.finally.exc") : NULL;
    LowerTry t = {L->fn, dispatch, L->temps.len, L->try_top};
    LowerFinally f = {L->fn, &n->finalbody, L->try_top, L->nloops, L->fin_top};
    if (n->finalbody.len)
        L->fin_top = &f;
    L->try_top = &t;
    /* a body whose IndexError is caught checks its array indices, whatever
     * boundscheck says: the program counts on the exception (CPython's
     * answer; Numba reads out of bounds there unless boundscheck=True) */
    bool bounds = L->boundscheck;
    L->boundscheck = bounds || catches_index_error(n);
    bool ok = lower_body(L, &n->body);
    L->boundscheck = bounds;
    L->try_top = t.outer;
    if (!ok || (!lower_terminated(L) && !lower_body(L, &n->orelse))) {
        L->fin_top = f.up;
        return false;
    }
    if (!lower_terminated(L))
        LLVMBuildBr(L->b, after);
    /* the handlers; with a finally clause an exception inside one runs it too */
    LowerTry fin = {L->fn, unwind, L->temps.len, L->try_top};
    if (unwind)
        L->try_top = &fin;
    lower_at(L, dispatch);
    LLVMTypeRef p = L->t_ptr;
    for (int i = 0; i < n->handlers.len; i++) {
        Node *h = VEC_AT(n->handlers, i);
        LLVMBasicBlockRef body = lower_block(L, "except"), next = lower_block(L, "except.next");
        LLVMValueRef any = LLVMConstInt(L->t_i1, 0, 0);
        for (int k = 0; k < h->names.len; k++) {
            LLVMValueRef name = lower_cstr(L, VEC_AT(h->names, k));
            LLVMValueRef m = lower_rt(L, "rt_exc_matches", L->t_i32, &p, 1, &name);
            any = LLVMBuildOr(L->b, any, LLVMBuildICmp(L->b, LLVMIntNE, m, lower_i32(L, 0), ""), "");
        }
        LLVMBuildCondBr(L->b, any, body, next);
        lower_at(L, body);
        LLVMValueRef buf = lower_alloca(L, LLVMArrayType2(L->t_i8, RT_EXC_SAVE_SIZE), "exc.saved");
        lower_rt(L, "rt_exc_save", L->t_void, &p, 1, &buf);
        LLVMValueRef outer_buf = L->handler_buf;
        L->handler_buf = buf;
        ok = lower_body(L, &h->body);
        L->handler_buf = outer_buf;
        if (!ok) {
            L->try_top = t.outer;
            L->fin_top = f.up;
            return false;
        }
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, after);
        lower_at(L, next);
    }
    /* no handler matched: on to the enclosing try or out */
    L->try_top = t.outer;
    L->fin_top = f.up;
    if (unwind) {
        LLVMBuildBr(L->b, unwind);
        lower_at(L, unwind);
        /* the finally clause with the exception set aside, then raised again */
        LLVMValueRef buf = lower_alloca(L, LLVMArrayType2(L->t_i8, RT_EXC_SAVE_SIZE), "exc.finally");
        lower_rt(L, "rt_exc_save", L->t_void, &p, 1, &buf);
        if (!lower_body(L, &n->finalbody))
            return false;
        if (!lower_terminated(L)) {
            lower_rt(L, "rt_exc_reraise", L->t_void, &p, 1, &buf);
            lower_goto_error(L);
        }
    } else {
        lower_goto_error(L);
    }
    lower_at(L, after);
    if (n->finalbody.len && !lower_body(L, &n->finalbody))
        return false;
    return true;
}

static bool stmt_assert(Lower *L, Node *n) {
    LLVMValueRef c = cond_value(L, n->a);
    if (!c)
        return false;
    const char *msg = NULL;
    if (n->b && n->b->kind == N_FSTRING) {
        /* the message is evaluated only when the assertion fails */
        LLVMBasicBlockRef ok = lower_branch_raise(L, LLVMBuildNot(L->b, c, ""), "assert");
        if (!lower_raise_fstring(L, n->b, "AssertionError"))
            return false;
        lower_at(L, ok);
        return true;
    }
    if (n->b && n->b->kind == N_CONST && n->b->cval.kind == CVAL_STR)
        msg = arena_strndup(&L->c->arena, n->b->cval.s ? n->b->cval.s : "", (size_t)n->b->cval.slen);
    lower_raise_if(L, LLVMBuildNot(L->b, c, ""), "AssertionError", msg);
    return true;
}

static bool lower_stmt(Lower *L, Node *n) {
    L->at = n;
    if (L->di_sp)
        lower_device_debug_loc(L, n);
    switch (n->kind) {
    case N_ASSIGN: return stmt_assign(L, n);
    case N_FUSED: return stmt_fused(L, n);
    case N_ANNASSIGN: {
        if (!n->c)
            return true;
        int mark = lower_temps_mark(L);
        bool owned = false;
        LLVMValueRef v = lower_expr(L, n->c, &owned);
        if (!v || !assign(L, n->a, v, n->c->ty, owned))
            return false;
        lower_temps_release(L, mark);
        return true;
    }
    case N_AUGASSIGN: return stmt_augassign(L, n);
    case N_RETURN: return stmt_return(L, n);
    case N_IF: return stmt_if(L, n);
    case N_WHILE: return stmt_while(L, n);
    case N_FOR: return stmt_for(L, n);
    case N_BREAK:
    case N_CONTINUE:
        if (L->nloops == 0) {
            lower_fail(L, n, HJ_DIAG_SYNTAX, "'%s' outside loop", n->kind == N_BREAK ? "break" : "continue");
            return false;
        }
        if (L->fin_top && !run_finally(L, L->nloops))
            return false;
        if (!lower_terminated(L))
            LLVMBuildBr(L->b, n->kind == N_BREAK ? L->loops[L->nloops - 1].brk : L->loops[L->nloops - 1].cont);
        start_dead_block(L);
        return true;
    case N_PASS: return true;
    case N_RAISE: return stmt_raise(L, n);
    case N_TRY: return stmt_try(L, n);
    case N_ASSERT: return stmt_assert(L, n);
    case N_DEL: /* each target became a call that deletes (lib_type_owner's infer_del) */
        for (int i = 0; i < n->targets.len; i++) {
            int mark = lower_temps_mark(L);
            if (!lower_expr_use(L, VEC_AT(n->targets, i)))
                return false;
            lower_temps_release(L, mark);
        }
        return true;
    case N_EXPR: {
        if (n->a->kind == N_CONST)
            return true; /* docstrings and other constant statements */
        if (n->a->kind == N_YIELD)
            return yield_stmt(L, n->a);
        int mark = lower_temps_mark(L);
        bool owned = false;
        LLVMValueRef v = lower_expr(L, n->a, &owned);
        if (!v)
            return false;
        if (owned)
            lower_decref(L, v, n->a->ty);
        lower_temps_release(L, mark);
        return true;
    }
    default:
        lower_fail(L, n, HJ_DIAG_UNSUPPORTED, "unsupported statement (%s)", ast_kind_name(n->kind));
        return false;
    }
}

static bool lower_stmts(Lower *L, PtrVec *body) {
    for (int i = 0; i < body->len; i++)
        if (!lower_stmt(L, VEC_AT(*body, i)) || lower_failed(L))
            return false;
    return true;
}

bool lower_body(Lower *L, PtrVec *body) { return lower_stmts(L, body); }

bool lower_assign(Lower *L, Node *target, LLVMValueRef v, Type *t, bool owned) {
    return assign(L, target, v, t, owned);
}

/* ---- functions ------------------------------------------------------------------ */

static void add_param_attr(Lower *L, LLVMValueRef fn, unsigned idx, const char *name) {
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(L->ctx, kind, 0));
}

/* {i32 status, T value}: returned by value so that LLVM can see through
 * calls (status folding, dead-return elimination, tail recursion). */
static LLVMTypeRef spec_ret_type(Lower *L, Spec *s) {
    LLVMTypeRef m[2] = {L->t_i32, lower_type(L, s->ret)};
    return LLVMStructTypeInContext(L->ctx, m, 2, 0);
}

static LLVMTypeRef spec_fn_type(Lower *L, Spec *s) {
    LLVMTypeRef small[16];
    int n = s->nargs;
    LLVMTypeRef *p = n <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * (size_t)n);
    for (int i = 0; i < s->nargs; i++)
        p[i] = lower_type(L, s->argtys[i]);
    return LLVMFunctionType(spec_ret_type(L, s), n ? p : NULL, (unsigned)n, 0);
}

static void declare_spec(Lower *L, Spec *s, int index) {
    if (!s->symbol)
        s->symbol = arena_printf(&L->c->arena, "hj_%s_%d", s->hf && s->hf->name ? s->hf->name : "f", index);
    LLVMValueRef fn = LLVMAddFunction(L->mod, s->symbol, spec_fn_type(L, s));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    if (s->hf && s->hf->options.inline_always)
        add_param_attr(L, fn, (unsigned)LLVMAttributeFunctionIndex, "alwaysinline");
    s->llvm_fn = fn;
}

/* ---- parameters that are never rebound stay borrowed ----------------------
 * A variable owns a reference, but a parameter that no statement assigns
 * can keep the caller's (parameters are borrowed for the whole call): that
 * saves an incref/decref pair per array argument and call. */
static void mark_target(Lower *L, Node *t, PtrVec *assigned) {
    if (!t)
        return;
    if (t->kind == N_NAME && t->var)
        vec_push(&L->c->arena, assigned, t->var);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->args.len; i++)
            mark_target(L, VEC_AT(t->args, i), assigned);
    else if (t->kind == N_STARRED)
        mark_target(L, t->a, assigned);
}

static void find_assigned(Lower *L, Node *n, PtrVec *assigned, int depth) {
    if (!n || depth > 10000)
        return;
    switch (n->kind) {
    case N_ASSIGN:
        for (int i = 0; i < n->targets.len; i++)
            mark_target(L, VEC_AT(n->targets, i), assigned);
        break;
    case N_AUGASSIGN:
    case N_ANNASSIGN:
    case N_FOR:
    case N_NAMEDEXPR:
        mark_target(L, n->a, assigned);
        break;
    default: break;
    }
    find_assigned(L, n->a, assigned, depth + 1);
    find_assigned(L, n->b, assigned, depth + 1);
    find_assigned(L, n->c, assigned, depth + 1);
    /* finalbody: a finally clause, an inlined generator's body */
    PtrVec *lists[] = {&n->body, &n->orelse, &n->finalbody, &n->args, &n->args2, &n->targets};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int i = 0; i < lists[k]->len; i++)
            find_assigned(L, VEC_AT(*lists[k], i), assigned, depth + 1);
}

static bool in_vec(const PtrVec *v, const void *p) {
    for (int i = 0; i < v->len; i++)
        if (VEC_AT(*v, i) == p)
            return true;
    return false;
}

/* A spec on a call cycle: deep recursion raises RecursionError when the
 * thread's stack is nearly full (runtime/stack.c), not SIGSEGV.  The stack
 * pointer (llvm.stacksave: no frame pointer kept, unlike frameaddress) is
 * compared with this module's own copy of the main thread's limit, an
 * internal global read PC-relative (no GOT load); it starts at the
 * maximum, so the first frame takes the call, which fills it in.  Frames
 * below it (other threads' stacks, or a stack nearly full) call
 * rt_stack_check, which knows each thread's limit. */
static void stack_check(Lower *L) {
    LLVMValueRef sp = lower_intrinsic(L, "llvm.stacksave", &L->t_ptr, 1, NULL, 0);
    LLVMValueRef hint = LLVMGetNamedGlobal(L->mod, "hj.stack_hint");
    if (!hint) {
        hint = LLVMAddGlobal(L->mod, L->t_i64, "hj.stack_hint");
        LLVMSetLinkage(hint, LLVMInternalLinkage);
        LLVMSetInitializer(hint, LLVMConstAllOnes(L->t_i64));
    }
    LLVMValueRef low = LLVMBuildICmp(L->b, LLVMIntULT, LLVMBuildPtrToInt(L->b, sp, L->t_i64, ""),
                                     lower_load(L, L->t_i64, hint, "stack.hint"), "stack.low");
    LLVMBasicBlockRef check = lower_block(L, "stack.check");
    LLVMBasicBlockRef go = lower_block(L, "stack.ok");
    lower_unlikely(L, LLVMBuildCondBr(L->b, low, check, go));
    lower_at(L, check);
    LLVMTypeRef pt[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef as[2] = {sp, hint};
    lower_check_status(L, lower_rt(L, "rt_stack_check", L->t_i32, pt, 2, as));
    LLVMBuildBr(L->b, go);
    lower_at(L, go);
}

static bool lower_spec(Lower *L, Spec *s) {
    L->spec = s;
    L->fn = (LLVMValueRef)s->llvm_fn;
    if (L->dib)
        lower_device_debug_spec(L, s);
    L->fastmath = s->hf ? (unsigned)s->hf->options.fastmath & LLVMFastMathAll : 0;
    L->error_model = s->hf ? s->hf->options.error_model : 0;
    L->boundscheck = s->hf && s->hf->options.boundscheck;
    L->poll_signals = !(s->hf && s->hf->options.no_signal_poll);
    if (L->device) { /* no signals on the GPU; bounds checks and Python's
                        error model only with debug=True (as Numba) */
        L->poll_signals = false;
        L->boundscheck = L->cuda->debug;
        L->error_model = L->cuda->debug ? L->error_model : 1;
        L->fastmath = L->cuda->fastmath ? LLVMFastMathAll : L->fastmath;
    }
    L->at = s->fn;
    L->nloops = 0;
    L->temps.len = L->temp_tys.len = 0;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    /* returns store into a local slot; the exit block returns it by value */
    L->retptr = LLVMBuildAlloca(L->b, lower_type(L, s->ret), "retval");
    LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, s->ret)), L->retptr);
    L->status = LLVMBuildAlloca(L->b, L->t_i32, "status");
    LLVMBuildStore(L->b, lower_i32(L, 0), L->status);
    L->exit_bb = lower_block(L, "exit");

    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        v->slot = NULL;
        if (!v->ty || v->ty->kind == TY_UNKNOWN)
            continue;
        v->slot = LLVMBuildAlloca(L->b, lower_type(L, v->ty), v->name ? v->name : "");
        if (lower_has_refs(v->ty))
            LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, v->ty)), v->slot);
        v->defslot = NULL;
        if (v->defflag && !v->is_param) { /* read where it may be unassigned */
            v->defslot = LLVMBuildAlloca(L->b, L->t_i1, "assigned");
            LLVMBuildStore(L->b, LLVMConstInt(L->t_i1, 0, 0), v->defslot);
        }
    }
    if (s->is_gen && !lower_gen_begin(L, s)) /* a coroutine making a generator object */
        return false;
    if (s->recursive && !L->device && !s->is_gen)
        stack_check(L); /* after the slots (the error exit releases them) */
    PtrVec assigned = {0};
    PtrVec *borrowed = &L->borrowed;
    borrowed->len = 0;
    for (int i = 0; i < s->fn->body.len; i++)
        find_assigned(L, VEC_AT(s->fn->body, i), &assigned, 0);
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        if (!v->is_param || !v->slot || v->param_index < 0 || v->param_index >= s->nargs)
            continue;
        LLVMValueRef p = LLVMGetParam(L->fn, (unsigned)v->param_index);
        Type *at = s->argtys[v->param_index];
        if (lower_has_refs(v->ty) && !in_vec(&assigned, v) && !s->is_gen) { /* a generator keeps its own */
            LLVMValueRef x = lower_convert(L, s->fn, p, at, v->ty);
            if (!x)
                return false;
            LLVMBuildStore(L->b, x, v->slot);
            vec_push(&L->c->arena, borrowed, v);
            continue;
        }
        lower_store_var(L, s->fn, v, p, at, false);
    }
    if (s->is_gen) {
        lower_gen_start(L);
        if (s->recursive && !L->device) /* in the body: its error exit ends the generator */
            stack_check(L);
    }

    if (!lower_stmts(L, &s->fn->body))
        return false;
    if (!lower_terminated(L)) {
        /* falling off the end returns None */
        if (s->ret && s->ret->kind != TY_NONE)
            LLVMBuildStore(L->b, LLVMConstNull(lower_type(L, s->ret)), L->retptr);
        LLVMBuildBr(L->b, L->exit_bb);
    }
    /* terminate unreachable leftovers */
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(L->fn); bb; bb = LLVMGetNextBasicBlock(bb))
        if (!LLVMGetBasicBlockTerminator(bb)) {
            if (bb == L->exit_bb)
                continue;
            lower_at(L, bb);
            LLVMBuildUnreachable(L->b);
        }
    LLVMMoveBasicBlockAfter(L->exit_bb, LLVMGetLastBasicBlock(L->fn));
    lower_at(L, L->exit_bb);
    for (int i = 0; i < s->vars.len; i++) {
        Var *v = VEC_AT(s->vars, i);
        if (v->slot && lower_has_refs(v->ty) && !in_vec(borrowed, v))
            lower_decref(L, lower_load(L, lower_type(L, v->ty), v->slot, ""), v->ty);
    }
    if (s->is_gen) {
        lower_gen_finish(L);
        return !lower_failed(L);
    }
    LLVMValueRef r = LLVMGetUndef(spec_ret_type(L, s));
    r = LLVMBuildInsertValue(L->b, r, lower_load(L, L->t_i32, L->status, "status"), 0, "");
    r = LLVMBuildInsertValue(L->b, r, lower_load(L, lower_type(L, s->ret), L->retptr, "retval"), 1, "");
    LLVMBuildRet(L->b, r);
    return !lower_failed(L);
}

/* i32 @entry(ptr %ret, ptr %args): unboxed layout of abi.h on both sides. */
/* The value of an argument the caller left to its default, from its text
 * (Compilation.arg_const: an integer in decimal, a float as C's %a, a bool
 * as 0/1); false (the argument is read as any other) when it does not parse. */
static bool entry_const(Lower *L, Type *t, const char *text, LLVMValueRef *out) {
    char *end = NULL;
    if (t->kind == TY_FLOAT32 || t->kind == TY_FLOAT64) {
        double d = strtod(text, &end);
        if (!end || *end)
            return false;
        *out = LLVMConstReal(lower_type(L, t), d);
        return true;
    }
    if (t->kind == TY_BOOL || ty_is_int(t)) {
        bool neg = text[0] == '-';
        unsigned long long u = neg ? (unsigned long long)strtoll(text, &end, 10) : strtoull(text, &end, 10);
        if (!end || *end)
            return false;
        *out = LLVMConstInt(lower_type(L, t), u, neg);
        return true;
    }
    return false;
}

static bool lower_entry(Lower *L, Spec *s, const char *symbol) {
    LLVMTypeRef p[2] = {L->t_ptr, L->t_ptr};
    LLVMValueRef fn = LLVMAddFunction(L->mod, symbol, LLVMFunctionType(L->t_i32, p, 2, 0));
    L->fn = fn;
    L->spec = s;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    LLVMValueRef ret = LLVMGetParam(fn, 0), args = LLVMGetParam(fn, 1);
    int n = s->nargs;
    LLVMValueRef small[16];
    LLVMValueRef *a = n <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(n ? n : 1));
    for (int i = 0; i < s->nargs; i++) {
        const char *k = L->c->arg_const ? L->c->arg_const[i] : NULL;
        if (k && entry_const(L, s->argtys[i], k, &a[i])) /* left to its default: a constant */
            continue;
        LLVMValueRef idx = lower_i64(L, i);
        LLVMValueRef pp = lower_gep(L, L->t_ptr, args, &idx, 1, "");
        LLVMValueRef ap = lower_load(L, L->t_ptr, pp, "");
        LLVMValueRef v = lower_load(L, lower_mem_type(L, s->argtys[i]), ap, "arg");
        a[i] = lower_from_mem(L, v, s->argtys[i]);
    }
    LLVMValueRef res = lower_call(L, spec_fn_type(L, s), (LLVMValueRef)s->llvm_fn, a, (unsigned)n, "res");
    LLVMValueRef st = LLVMBuildExtractValue(L->b, res, 0, "status");
    LLVMBasicBlockRef ok = lower_block(L, "ok");
    LLVMBasicBlockRef done = lower_block(L, "done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, 0), ""), ok, done);
    lower_at(L, ok);
    if (s->ret->kind != TY_NONE) {
        LLVMValueRef r = LLVMBuildExtractValue(L->b, res, 1, "");
        LLVMBuildStore(L->b, lower_to_mem(L, r, s->ret), ret);
    }
    LLVMBuildBr(L->b, done);
    lower_at(L, done);
    LLVMBuildRet(L->b, st);
    return true;
}

/* One element loop of a ufunc entry: n iterations, pointer k starting at
 * base[k] and advanced by step[k] bytes (a constant element size in the
 * contiguous version, which the loop vectorizer then widens). */
static bool ufunc_loop(Lower *L, Spec *s, LLVMValueRef n, LLVMValueRef *base, LLVMValueRef *step, const char *name) {
    int na = s->nargs;
    LLVMValueRef islot = lower_alloca(L, L->t_i64, "i");
    LLVMBuildStore(L->b, lower_i64(L, 0), islot);
    LLVMBasicBlockRef head = lower_block(L, name), body = lower_block(L, "uf.body");
    LLVMBasicBlockRef fail = lower_block(L, "uf.fail"), next = lower_block(L, "uf.next");
    LLVMBasicBlockRef done = lower_block(L, "uf.done");
    LLVMBuildBr(L->b, head);
    lower_at(L, head);
    LLVMValueRef i = lower_load(L, L->t_i64, islot, "i");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, i, n, ""), body, done);
    lower_at(L, body);
    LLVMValueRef small[17];
    LLVMValueRef *a = na < 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(na + 1));
    for (int k = 0; k <= na; k++) {
        LLVMValueRef off = LLVMBuildMul(L->b, i, step[k], "");
        LLVMValueRef p = LLVMBuildGEP2(L->b, L->t_i8, base[k], &off, 1, "");
        if (k < na)
            a[k] = lower_from_mem(L, lower_load(L, lower_mem_type(L, s->argtys[k]), p, "x"), s->argtys[k]);
        else
            a[k] = p;
    }
    LLVMValueRef res = lower_call(L, spec_fn_type(L, s), (LLVMValueRef)s->llvm_fn, a, (unsigned)na, "res");
    LLVMValueRef st = LLVMBuildExtractValue(L->b, res, 0, "status");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, 0), ""), next, fail);
    lower_at(L, fail);
    LLVMBuildRet(L->b, st);
    lower_at(L, next);
    LLVMBuildStore(L->b, lower_to_mem(L, LLVMBuildExtractValue(L->b, res, 1, ""), s->ret), a[na]);
    LLVMBuildStore(L->b, LLVMBuildAdd(L->b, i, lower_i64(L, 1), ""), islot);
    LLVMBuildBr(L->b, head);
    lower_at(L, done);
    return true;
}

/* i32 @entry(ptr %args, i64 %n, ptr %steps): HJ_ENTRY_UFUNC_LOOP of
 * compiler.h, with a contiguous version when every step is its element's
 * size. */
static bool lower_ufunc_entry(Lower *L, Spec *s, const char *symbol) {
    for (int k = 0; k < s->nargs; k++)
        if (!ty_is_number(s->argtys[k]))
            return lower_fail(L, NULL, HJ_DIAG_TYPING, "a ufunc's arguments must be numbers, not %s",
                              ty_str(&L->c->arena, s->argtys[k])) != NULL;
    if (!ty_is_number(s->ret))
        return lower_fail(L, NULL, HJ_DIAG_TYPING, "a ufunc must return a number, not %s",
                          ty_str(&L->c->arena, s->ret)) != NULL;
    LLVMTypeRef p[3] = {L->t_ptr, L->t_i64, L->t_ptr};
    LLVMValueRef fn = LLVMAddFunction(L->mod, symbol, LLVMFunctionType(L->t_i32, p, 3, 0));
    L->fn = fn;
    L->spec = s;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    LLVMValueRef args = LLVMGetParam(fn, 0), n = LLVMGetParam(fn, 1), steps = LLVMGetParam(fn, 2);
    int na = s->nargs;
    LLVMValueRef bsmall[17], ssmall[17], csmall[17];
    size_t sz = sizeof(LLVMValueRef) * (size_t)(na + 1);
    LLVMValueRef *base = na < 16 ? bsmall : arena_alloc(&L->c->arena, sz);
    LLVMValueRef *step = na < 16 ? ssmall : arena_alloc(&L->c->arena, sz);
    LLVMValueRef *cstep = na < 16 ? csmall : arena_alloc(&L->c->arena, sz);
    LLVMValueRef contig = LLVMConstInt(L->t_i1, 1, 0);
    for (int k = 0; k <= na; k++) {
        LLVMValueRef idx = lower_i64(L, k);
        base[k] = lower_load(L, L->t_ptr, lower_gep(L, L->t_ptr, args, &idx, 1, ""), "base");
        step[k] = lower_load(L, L->t_i64, lower_gep(L, L->t_i64, steps, &idx, 1, ""), "step");
        cstep[k] = lower_i64(L, ty_itemsize(k < na ? s->argtys[k] : s->ret));
        contig = LLVMBuildAnd(L->b, contig, LLVMBuildICmp(L->b, LLVMIntEQ, step[k], cstep[k], ""), "");
    }
    LLVMBasicBlockRef c = lower_block(L, "uf.contig"), g = lower_block(L, "uf.strided");
    LLVMBuildCondBr(L->b, contig, c, g);
    lower_at(L, c);
    if (!ufunc_loop(L, s, n, base, cstep, "uf.chead"))
        return false;
    LLVMBuildRet(L->b, lower_i32(L, 0));
    lower_at(L, g);
    if (!ufunc_loop(L, s, n, base, step, "uf.shead"))
        return false;
    LLVMBuildRet(L->b, lower_i32(L, 0));
    return true;
}

/* The body of a C function `fn` calling specialisation s, returning `ret`
 * (s->ret converted): an exception is reported as unraisable and the
 * function returns zero, as a @cfunc's (Numba's). */
static bool cfunc_body(Lower *L, Spec *s, LLVMValueRef fn, Type *ret);

LLVMValueRef lower_cfunc_wrapper(Lower *L, Spec *s, Type *fp) {
    for (int i = 0; i < L->cwrap_specs.len; i++)
        if (VEC_AT(L->cwrap_specs, i) == s && VEC_AT(L->cwrap_tys, i) == fp)
            return VEC_AT(L->cwrap_fns, i);
    int na = fp->nelems;
    LLVMTypeRef *pt = arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * (size_t)(na ? na : 1));
    for (int k = 0; k < na; k++)
        pt[k] = lower_mem_type(L, fp->elems[k]);
    LLVMTypeRef rt = fp->item->kind == TY_NONE ? L->t_void : lower_mem_type(L, fp->item);
    const char *name = arena_printf(&L->c->arena, "%s.cfunc%d", s->symbol, L->cwrap_specs.len);
    LLVMValueRef fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(rt, pt, (unsigned)na, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    vec_push(&L->c->arena, &L->cwrap_specs, s);
    vec_push(&L->c->arena, &L->cwrap_fns, fn);
    vec_push(&L->c->arena, &L->cwrap_tys, fp);
    return fn;
}

/* ret @entry(args...): HJ_ENTRY_CFUNC of compiler.h, the C types of the
 * numbers (bool as i8). */
static bool lower_cfunc_entry(Lower *L, Spec *s, const char *symbol) {
    int na = s->nargs;
    LLVMTypeRef small[16];
    LLVMTypeRef *pt = na <= 16 ? small : arena_alloc(&L->c->arena, sizeof(LLVMTypeRef) * (size_t)na);
    for (int k = 0; k < na; k++) {
        if ((!ty_is_number(s->argtys[k]) || ty_is_complex(s->argtys[k])) && s->argtys[k]->kind != TY_CPOINTER)
            return lower_fail(L, NULL, HJ_DIAG_TYPING,
                              "a cfunc's arguments must be real numbers or C pointers, not %s",
                              ty_str(&L->c->arena, s->argtys[k])) != NULL;
        pt[k] = lower_mem_type(L, s->argtys[k]);
    }
    bool isvoid = s->ret->kind == TY_NONE;
    if (!isvoid && (!ty_is_number(s->ret) || ty_is_complex(s->ret)))
        return lower_fail(L, NULL, HJ_DIAG_TYPING, "a cfunc must return a real number or None, not %s",
                          ty_str(&L->c->arena, s->ret)) != NULL;
    LLVMTypeRef rt = isvoid ? L->t_void : lower_mem_type(L, s->ret);
    LLVMValueRef fn = LLVMAddFunction(L->mod, symbol, LLVMFunctionType(rt, pt, (unsigned)na, 0));
    return cfunc_body(L, s, fn, s->ret);
}

static bool cfunc_body(Lower *L, Spec *s, LLVMValueRef fn, Type *ret) {
    int na = s->nargs;
    bool isvoid = ret->kind == TY_NONE;
    LLVMTypeRef rt = isvoid ? L->t_void : lower_mem_type(L, ret);
    L->fn = fn;
    L->spec = s;
    L->entry_bb = lower_block(L, "entry");
    lower_at(L, L->entry_bb);
    LLVMValueRef asmall[16];
    LLVMValueRef *a = na <= 16 ? asmall : arena_alloc(&L->c->arena, sizeof(LLVMValueRef) * (size_t)(na ? na : 1));
    for (int k = 0; k < na; k++)
        a[k] = lower_from_mem(L, LLVMGetParam(fn, (unsigned)k), s->argtys[k]);
    LLVMValueRef res = lower_call(L, spec_fn_type(L, s), (LLVMValueRef)s->llvm_fn, a, (unsigned)na, "res");
    LLVMValueRef st = LLVMBuildExtractValue(L->b, res, 0, "status");
    LLVMBasicBlockRef ok = lower_block(L, "ok"), bad = lower_block(L, "fail");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, st, lower_i32(L, 0), ""), ok, bad);
    lower_at(L, bad);
    LLVMTypeRef p = L->t_ptr;
    LLVMValueRef where = lower_cstr(L, s->hf && s->hf->name ? s->hf->name : "cfunc");
    lower_rt(L, "rt_exc_unraisable", L->t_void, &p, 1, &where);
    if (isvoid)
        LLVMBuildRetVoid(L->b);
    else
        LLVMBuildRet(L->b, LLVMConstNull(rt));
    lower_at(L, ok);
    if (isvoid)
        LLVMBuildRetVoid(L->b);
    else
        LLVMBuildRet(L->b, lower_to_mem(L, lower_convert(L, NULL, LLVMBuildExtractValue(L->b, res, 1, ""), s->ret,
                                                         ret), ret));
    return true;
}

void *lower_program(Compilation *c, void *llvm_context, const char *entry_symbol) {
    Lower L;
    memset(&L, 0, sizeof L);
    L.c = c;
    L.ctx = (LLVMContextRef)llvm_context;
    L.mod = LLVMModuleCreateWithNameInContext("hpcjit", L.ctx);
    L.b = LLVMCreateBuilderInContext(L.ctx);
    L.t_i1 = LLVMInt1TypeInContext(L.ctx);
    L.t_i8 = LLVMInt8TypeInContext(L.ctx);
    L.t_i32 = LLVMInt32TypeInContext(L.ctx);
    L.t_i64 = LLVMInt64TypeInContext(L.ctx);
    L.t_f32 = LLVMFloatTypeInContext(L.ctx);
    L.t_f64 = LLVMDoubleTypeInContext(L.ctx);
    L.t_ptr = LLVMPointerTypeInContext(L.ctx, 0);
    L.t_void = LLVMVoidTypeInContext(L.ctx);
    L.t_empty = LLVMStructTypeInContext(L.ctx, NULL, 0, 0);
    LLVMTypeRef mi[5] = {L.t_i64, L.t_ptr, L.t_i64, L.t_ptr, L.t_ptr};
    L.t_meminfo = LLVMStructTypeInContext(L.ctx, mi, 5, 0);

    L.device = HJ_ENTRY_IS_CUDA(c->entry_kind);
    L.cuda = c->req ? c->req->cuda : NULL;
    if (L.device && !L.cuda) {
        diag_error_noloc(&c->diag, HJ_DIAG_LOWERING, "a CUDA compilation without its options");
        LLVMDisposeBuilder(L.b);
        LLVMDisposeModule(L.mod);
        return NULL;
    }
    if (L.device)
        lower_device_debug_begin(&L);
    bool ok = c->entry != NULL;
    if (!ok)
        lower_fail(&L, NULL, HJ_DIAG_LOWERING, "nothing to lower: no entry specialisation");
    /* an inference that keeps no list has lowered the entry alone */
    Spec *first = c->specs ? c->specs : c->entry;
    int k = 0;
    for (Spec *s = first; ok && s; s = s->next)
        declare_spec(&L, s, k++);
    for (Spec *s = first; ok && s; s = s->next)
        ok = lower_spec(&L, s);
    for (int i = 0; ok && i < L.cwrap_specs.len; i++) /* first-class function values' C wrappers */
        ok = cfunc_body(&L, VEC_AT(L.cwrap_specs, i), VEC_AT(L.cwrap_fns, i), ((Type *)VEC_AT(L.cwrap_tys, i))->item);
    if (ok)
        ok = L.device                             ? lower_cuda_entry(&L, c->entry, entry_symbol)
             : c->entry_kind == HJ_ENTRY_UFUNC_LOOP ? lower_ufunc_entry(&L, c->entry, entry_symbol)
             : c->entry_kind == HJ_ENTRY_CFUNC  ? lower_cfunc_entry(&L, c->entry, entry_symbol)
                                                : lower_entry(&L, c->entry, entry_symbol);
    LLVMDisposeBuilder(L.b);
    lower_device_debug_end(&L);
    /* the module is verified once, by the back end (codegen_verify), which
     * also shows the first broken function's IR */
    if (!ok || lower_failed(&L)) {
        if (!lower_failed(&L))
            diag_error_noloc(&c->diag, HJ_DIAG_LOWERING, "lowering failed");
        LLVMDisposeModule(L.mod);
        return NULL;
    }
    return L.mod;
}
