/* lower_cmath.c - complex elementary functions: calls into the runtime
 * (lower_cmath.h).  NumPy's complex loops call the C library, so calling it
 * too gives NumPy's results, branch cuts and special values included. */
#include "lower_cmath.h"

#include <math.h>

int lower_cmath_code(BuiltinId id) {
    switch (id) {
    case BI_NP_SQRT: case BI_CMATH_SQRT: return RT_CM_SQRT;
    case BI_NP_EXP: case BI_CMATH_EXP: return RT_CM_EXP;
    case BI_NP_EXP2: return RT_CM_EXP2;
    case BI_NP_EXPM1: return RT_CM_EXPM1;
    case BI_NP_LOG: case BI_CMATH_LOG: return RT_CM_LOG;
    case BI_NP_LOG2: return RT_CM_LOG2;
    case BI_NP_LOG10: case BI_CMATH_LOG10: return RT_CM_LOG10;
    case BI_NP_LOG1P: return RT_CM_LOG1P;
    case BI_NP_SIN: case BI_CMATH_SIN: return RT_CM_SIN;
    case BI_NP_COS: case BI_CMATH_COS: return RT_CM_COS;
    case BI_NP_TAN: case BI_CMATH_TAN: return RT_CM_TAN;
    case BI_NP_ARCSIN: case BI_CMATH_ASIN: return RT_CM_ASIN;
    case BI_NP_ARCCOS: case BI_CMATH_ACOS: return RT_CM_ACOS;
    case BI_NP_ARCTAN: case BI_CMATH_ATAN: return RT_CM_ATAN;
    case BI_NP_SINH: case BI_CMATH_SINH: return RT_CM_SINH;
    case BI_NP_COSH: case BI_CMATH_COSH: return RT_CM_COSH;
    case BI_NP_TANH: case BI_CMATH_TANH: return RT_CM_TANH;
    case BI_NP_ARCSINH: case BI_CMATH_ASINH: return RT_CM_ASINH;
    case BI_NP_ARCCOSH: case BI_CMATH_ACOSH: return RT_CM_ACOSH;
    case BI_NP_ARCTANH: case BI_CMATH_ATANH: return RT_CM_ATANH;
    case BI_NP_SIGN: return RT_CM_SIGN;
    case BI_NP_RINT: return RT_CM_RINT;
    default: return -1;
    }
}

LLVMValueRef lower_cmath_part(Lower *L, LLVMValueRef z, unsigned i) {
    return LLVMBuildExtractValue(L->b, z, i, i ? "im" : "re");
}

LLVMValueRef lower_cmath_make(Lower *L, Type *ct, LLVMValueRef re, LLVMValueRef im) {
    LLVMValueRef v = LLVMGetUndef(lower_type(L, ct));
    v = LLVMBuildInsertValue(L->b, v, re, 0, "");
    return LLVMBuildInsertValue(L->b, v, im, 1, "");
}

static LLVMValueRef call_rt(Lower *L, int fn, Type *ct, LLVMValueRef z);

/* exp(z): where the real part is finite and at most the C library's
 * scaling threshold (709 for double, 88 for float: glibc's cexp scales
 * above it to avoid a spurious overflow) and the imaginary part is finite,
 * cexp computes exactly exp(re) * cos(im), exp(re) * sin(im) with the same
 * libm functions; inline that so LLVM pairs sin and cos into one sincos
 * and a loop pays no call through rt_cmath_v's switch (NPBench's
 * stockham_fft spends a quarter of its time there).  Infinities, nan and
 * large real parts keep the library's call, so results are bit-identical. */
static LLVMValueRef inline_exp(Lower *L, Type *ct, LLVMValueRef z) {
    bool f32 = ct->kind == TY_COMPLEX64;
    LLVMTypeRef pt = f32 ? L->t_f32 : L->t_f64;
    LLVMValueRef re = lower_cmath_part(L, z, 0), im = lower_cmath_part(L, z, 1);
    LLVMValueRef are = lower_intrinsic(L, "llvm.fabs", &pt, 1, &re, 1);
    LLVMValueRef aim = lower_intrinsic(L, "llvm.fabs", &pt, 1, &im, 1);
    LLVMValueRef fast = LLVMBuildAnd(L->b,
        LLVMBuildFCmp(L->b, LLVMRealOLE, are, LLVMConstReal(pt, f32 ? 88.0 : 709.0), ""),
        LLVMBuildFCmp(L->b, LLVMRealOLT, aim, LLVMConstReal(pt, INFINITY), ""), "cexp.finite");
    LLVMBasicBlockRef bfast = lower_block(L, "cexp.fast"), bslow = lower_block(L, "cexp.call"),
                      bdone = lower_block(L, "cexp.done");
    LLVMBuildCondBr(L->b, fast, bfast, bslow);
    LLVMPositionBuilderAtEnd(L->b, bfast);
    LLVMValueRef e = lower_intrinsic(L, "llvm.exp", &pt, 1, &re, 1);
    LLVMValueRef c = lower_intrinsic(L, "llvm.cos", &pt, 1, &im, 1);
    LLVMValueRef s = lower_intrinsic(L, "llvm.sin", &pt, 1, &im, 1);
    LLVMValueRef rf = lower_cmath_make(L, ct, LLVMBuildFMul(L->b, e, c, ""), LLVMBuildFMul(L->b, e, s, ""));
    LLVMBasicBlockRef endf = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, bdone);
    LLVMPositionBuilderAtEnd(L->b, bslow);
    LLVMValueRef rs = call_rt(L, RT_CM_EXP, ct, z);
    LLVMBasicBlockRef ends = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, bdone);
    LLVMPositionBuilderAtEnd(L->b, bdone);
    LLVMValueRef phi = LLVMBuildPhi(L->b, lower_type(L, ct), "cexp");
    LLVMValueRef vals[2] = {rf, rs};
    LLVMBasicBlockRef bbs[2] = {endf, ends};
    LLVMAddIncoming(phi, vals, bbs, 2);
    return phi;
}

LLVMValueRef lower_cmath(Lower *L, int fn, Type *ct, LLVMValueRef z) {
    if (fn == RT_CM_EXP && !L->device) /* the device library has its own exp */
        return inline_exp(L, ct, z);
    return call_rt(L, fn, ct, z);
}

static LLVMValueRef call_rt(Lower *L, int fn, Type *ct, LLVMValueRef z) {
    /* by value, the result as {double, double} (hpcjit/complexmath.h): no
     * memory round trip around the call */
    bool f32 = ct->kind == TY_COMPLEX64;
    LLVMTypeRef pt = f32 ? L->t_f32 : L->t_f64;
    LLVMTypeRef params[3] = {L->t_i32, pt, pt};
    LLVMValueRef args[3] = {lower_i32(L, fn), lower_cmath_part(L, z, 0), lower_cmath_part(L, z, 1)};
    LLVMTypeRef elems[2] = {L->t_f64, L->t_f64};
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, elems, 2, 0);
    LLVMValueRef r = lower_rt(L, f32 ? "rt_cmathf_v" : "rt_cmath_v", rt, params, 3, args);
    LLVMValueRef re = LLVMBuildExtractValue(L->b, r, 0, ""), im = LLVMBuildExtractValue(L->b, r, 1, "");
    if (f32) { /* exact: the values are floats */
        re = LLVMBuildFPTrunc(L->b, re, pt, "");
        im = LLVMBuildFPTrunc(L->b, im, pt, "");
    }
    return lower_cmath_make(L, ct, re, im);
}
