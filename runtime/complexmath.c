/* complexmath.c - complex elementary functions for compiled code
 * (hpcjit/complexmath.h).  sqrt, exp, log and the (inverse) trigonometric
 * and hyperbolic functions are the C library's, as in NumPy's loops; the
 * others follow NumPy's definitions from those (npymath). */
#include "cmplx.h"
#include <math.h>

#include "hpcjit/complexmath.h"

/* One body for both precisions: FT the float type, CT the complex type, S
 * the libm suffix ("f" or empty) pasted onto each function name, MK the
 * constructor macro (CMPLX or CMPLXF). */
#define CMATH_BODY(FT, CT, S, MK)                                                                   \
    CT z = MK(v[0], v[1]), r;                                                                       \
    FT x = v[0], y = v[1];                                                                          \
    switch (fn) {                                                                                   \
    case RT_CM_SQRT: r = csqrt##S(z); break;                                                        \
    case RT_CM_EXP: r = cexp##S(z); break;                                                          \
    case RT_CM_EXP2: r = cexp##S(MK(x * (FT)M_LN2, y * (FT)M_LN2)); break;                          \
    case RT_CM_EXPM1: {                                                                             \
        /* exp(z) - 1 without cancellation near 0 */                                                \
        FT a = sin##S(y / 2);                                                                       \
        r = MK(expm1##S(x) * cos##S(y) - 2 * a * a, exp##S(x) * sin##S(y));                         \
        break;                                                                                      \
    }                                                                                               \
    case RT_CM_LOG: r = clog##S(z); break;                                                          \
    case RT_CM_LOG2:                                                                                \
    case RT_CM_LOG10: {                                                                             \
        FT k = fn == RT_CM_LOG2 ? (FT)M_LOG2E : (FT)M_LOG10E;                                       \
        r = clog##S(z);                                                                             \
        r = MK(creal##S(r) * k, cimag##S(r) * k);                                                   \
        break;                                                                                      \
    }                                                                                               \
    case RT_CM_LOG1P: r = MK(log##S(hypot##S(x + 1, y)), atan2##S(y, x + 1)); break;                \
    case RT_CM_SIN: r = csin##S(z); break;                                                          \
    case RT_CM_COS: r = ccos##S(z); break;                                                          \
    case RT_CM_TAN: r = ctan##S(z); break;                                                          \
    case RT_CM_ASIN: r = casin##S(z); break;                                                        \
    case RT_CM_ACOS: r = cacos##S(z); break;                                                        \
    case RT_CM_ATAN: r = catan##S(z); break;                                                        \
    case RT_CM_SINH: r = csinh##S(z); break;                                                        \
    case RT_CM_COSH: r = ccosh##S(z); break;                                                        \
    case RT_CM_TANH: r = ctanh##S(z); break;                                                        \
    case RT_CM_ASINH: r = casinh##S(z); break;                                                      \
    case RT_CM_ACOSH: r = cacosh##S(z); break;                                                      \
    case RT_CM_ATANH: r = catanh##S(z); break;                                                      \
    case RT_CM_SIGN: {                                                                              \
        /* NumPy 2: z / |z|; 0 for 0, nan for nan and for two infinities */                         \
        FT m = hypot##S(x, y);                                                                      \
        if (isnan(m))                                                                               \
            r = MK(NAN, NAN);                                                                       \
        else if (isinf(m)) {                                                                        \
            if (isinf(x) && isinf(y))                                                               \
                r = MK(NAN, NAN);                                                                   \
            else if (isinf(x))                                                                      \
                r = MK(x > 0 ? 1 : -1, 0);                                                          \
            else                                                                                    \
                r = MK(0, y > 0 ? 1 : -1);                                                          \
        } else if (m == 0)                                                                          \
            r = MK(0, 0);                                                                           \
        else                                                                                        \
            r = MK(x / m, y / m);                                                                   \
        break;                                                                                      \
    }                                                                                               \
    case RT_CM_RINT: r = MK(rint##S(x), rint##S(y)); break;                                         \
    default: r = MK(NAN, NAN); break;                                                               \
    }                                                                                               \
    v[0] = creal##S(r);                                                                             \
    v[1] = cimag##S(r);

void rt_cmath(int32_t fn, double *v) { CMATH_BODY(double, double complex, , CMPLX) }

void rt_cmathf(int32_t fn, float *v) { CMATH_BODY(float, float complex, f, CMPLXF) }

RtC128 rt_cmath_v(int32_t fn, double re, double im) {
    double v[2] = {re, im};
    rt_cmath(fn, v);
    RtC128 r = {v[0], v[1]};
    return r;
}

RtC128 rt_cmathf_v(int32_t fn, float re, float im) {
    float v[2] = {re, im};
    rt_cmathf(fn, v);
    RtC128 r = {v[0], v[1]};
    return r;
}
