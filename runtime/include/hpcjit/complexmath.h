/* complexmath.h - complex elementary functions called from compiled code
 * (runtime/complexmath.c; compiler/lower/lower_cmath.c).  One set serves np.*
 * ufuncs on complex scalars and arrays and the cmath module.
 *
 * C's `double _Complex` is passed differently on each target, so the
 * parts travel separately: rt_cmath/rt_cmathf work in place on z[0] (real)
 * and z[1] (imag); compiled code calls the by-value rt_cmath_v and
 * rt_cmathf_v below.  The results are those of NumPy's complex loops,
 * which call the C library's (C99 Annex G branch cuts and special values). */
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

/* fn(re + im*j) returned by value: a struct of two doubles travels in two
 * float registers on x86-64 and AArch64 alike, as LLVM's {double, double}
 * does, so compiled code calls this one for complex128 (no memory round
 * trip: np.exp of a complex128 array took 33-37 ns an item through
 * rt_cmath, 20 ns this way; NumPy 17 ns). */
typedef struct RtC128 {
    double re, im;
} RtC128;
RtC128 rt_cmath_v(int32_t fn, double re, double im);
/* complex64: computed in float, returned widened (exactly) to doubles, as a
 * C struct of two floats is packed in one register on x86-64. */
RtC128 rt_cmathf_v(int32_t fn, float re, float im);

#ifdef __cplusplus
}
#endif

#endif
