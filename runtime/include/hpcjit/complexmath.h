/* complexmath.h - complex elementary functions called from compiled code
 * (runtime/complexmath.c; compiler/lower_cmath.c).  One set serves np.*
 * ufuncs on complex scalars and arrays and the cmath module.
 *
 * Each function works in place on z[0] (real) and z[1] (imag): a pointer
 * keeps the call ABI-neutral (C's `double _Complex` is passed differently
 * on each target).  The results are those of NumPy's complex loops, which
 * call the C library's (C99 Annex G branch cuts and special values). */
#ifndef HPCJIT_COMPLEXMATH_H
#define HPCJIT_COMPLEXMATH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ORDER: the codes are part of the compiled-code ABI (lower_cmath.c). */
#define RT_CMATH_FUNCS(X)                                                                               \
    X(SQRT) X(EXP) X(EXP2) X(EXPM1) X(LOG) X(LOG2) X(LOG10) X(LOG1P) X(SIN) X(COS) X(TAN) X(ASIN)       \
    X(ACOS) X(ATAN) X(SINH) X(COSH) X(TANH) X(ASINH) X(ACOSH) X(ATANH) X(SIGN) X(RINT)

enum {
#define RT_CM_ENUM(name) RT_CM_##name,
    RT_CMATH_FUNCS(RT_CM_ENUM)
#undef RT_CM_ENUM
    RT_CM_COUNT
};

/* z = fn(z) in double (complex128) or float (complex64) precision; an
 * unknown code leaves nan+nanj.  Thread-safe (no state). */
void rt_cmath(int32_t fn, double *z);
void rt_cmathf(int32_t fn, float *z);

#ifdef __cplusplus
}
#endif

#endif
