/* devlib/cmath.c - complex elementary functions for CUDA kernels: what
 * runtime/complexmath.c is to CPU code (the C library's csqrt, cexp...),
 * written with real functions only, for the GPU.
 *
 * Built at build time by clang for nvptx64 into LLVM bitcode
 * (compiler/lib/cuda/CMakeLists rules in compiler/CMakeLists.txt), embedded
 * in the compiler, and linked into a kernel's module when it calls
 * __hj_cmath (compiler/backend/ptx.c), before libdevice, which defines the
 * __nv_* functions called here.  tests/c/test_cuda_cmath.c compiles the
 * same file for the host (HJ_DEVLIB_HOST: __nv_sin is sin...) and checks
 * it against the C library's complex functions.
 *
 * The algorithms are CPython's cmath module's for finite arguments (the
 * inverse functions through two complex square roots, atanh through log1p,
 * tanh without overflow), which keep full accuracy away from special
 * values; infinities and NaNs follow C99 Annex G only where the formulas
 * give it (docs/CUDA.md).  Not part of the compiler library's sources. */
#include "hpcjit/complexmath.h"

#ifdef HJ_DEVLIB_HOST
#include <math.h>
#define NV(f) f
#else
#define NV(f) __nv_##f
double __nv_sin(double);
double __nv_cos(double);
double __nv_tan(double);
double __nv_sinh(double);
double __nv_cosh(double);
double __nv_tanh(double);
double __nv_asinh(double);
double __nv_exp(double);
double __nv_expm1(double);
double __nv_log(double);
double __nv_log1p(double);
double __nv_sqrt(double);
double __nv_hypot(double, double);
double __nv_atan2(double, double);
double __nv_copysign(double, double);
double __nv_fabs(double);
double __nv_rint(double);
#endif

#define LN2 0.6931471805599453094
#define LOG2E 1.4426950408889634074
#define LOG10E 0.43429448190325182765
#define PI_2 1.5707963267948966192
#define LARGE 4.49423283715578976e307      /* DBL_MAX / 4 */
#define SQRT_LARGE 6.703903964971298e153   /* sqrt(DBL_MAX / 4) */
#define SQRT_MIN 1.4916681462400413e-154   /* sqrt(DBL_MIN) */

typedef struct {
    double re, im;
} C;

static C mk(double re, double im) {
    C r = {re, im};
    return r;
}

static int is_inf(double v) { return v - v != v - v && v == v; }
static int is_nan(double v) { return v != v; }

static C c_sqrt(double x, double y) {
    if (x == 0 && y == 0)
        return mk(0, y);
    if (is_inf(y))
        return mk(NV(fabs)(y), y);
    if (is_inf(x)) {
        if (x > 0)
            return mk(x, is_nan(y) ? y : NV(copysign)(0.0, y));
        return mk(is_nan(y) ? NV(fabs)(x - x) : 0.0, NV(copysign)(-x, y));
    }
    double ax = NV(fabs)(x), ay = NV(fabs)(y), s;
    if (ax > LARGE || ay > LARGE) { /* (ax + |z|) / 2 would overflow: scale by 1/4 */
        ax *= 0.25;
        ay *= 0.25;
        s = 2 * NV(sqrt)((ax + NV(hypot)(ax, ay)) * 0.5);
        ay *= 4;
    } else if (ax < SQRT_MIN && ay < SQRT_MIN) { /* subnormal halves: scale up by 2^106 */
        const double up = 81129638414606681695789005144064.0; /* 2^106 */
        double sx = ax * up, sy = ay * up;
        s = NV(sqrt)((sx + NV(hypot)(sx, sy)) * 0.5) / 9007199254740992.0; /* / 2^53 */
    } else {
        s = NV(sqrt)((ax + NV(hypot)(ax, ay)) * 0.5);
    }
    double d = ay / (2 * s);
    return x >= 0 ? mk(s, NV(copysign)(d, y)) : mk(d, NV(copysign)(s, y));
}

static C c_exp(double x, double y) {
    if (y == 0)
        return mk(NV(exp)(x), y);
    double e = NV(exp)(x);
    return mk(e * NV(cos)(y), e * NV(sin)(y));
}

static C c_log(double x, double y) {
    double ax = NV(fabs)(x), ay = NV(fabs)(y);
    double h = NV(hypot)(ax, ay), re;
    if (h >= 0.71 && h <= 1.73) { /* log|z| near 0: log1p of |z|^2 - 1, without cancellation */
        double am = ax > ay ? ax : ay, an = ax > ay ? ay : ax;
        re = NV(log1p)((am - 1) * (am + 1) + an * an) / 2;
    } else {
        re = NV(log)(h);
    }
    return mk(re, NV(atan2)(y, x));
}

static C c_tanh(double x, double y) {
    if (NV(fabs)(x) > 354.0) { /* cosh(2x) would overflow: tanh is +-1 to double precision */
        return mk(NV(copysign)(1.0, x), 4 * NV(sin)(y) * NV(cos)(y) * NV(exp)(-2 * NV(fabs)(x)));
    }
    double tx = NV(tanh)(x), ty = NV(tan)(y), cx = 1 / NV(cosh)(x);
    double txty = tx * ty, denom = 1 + txty * txty;
    return mk(tx * (1 + ty * ty) / denom, ((ty / denom) * cx) * cx);
}

static C c_asinh(double x, double y) {
    if (NV(fabs)(x) > LARGE || NV(fabs)(y) > LARGE) {
        double re = NV(log)(NV(hypot)(x / 2, y / 2)) + 2 * LN2;
        return mk(y >= 0 ? NV(copysign)(re, x) : -NV(copysign)(re, -x), NV(atan2)(y, NV(fabs)(x)));
    }
    C s1 = c_sqrt(1 + y, -x), s2 = c_sqrt(1 - y, x);
    return mk(NV(asinh)(s1.re * s2.im - s2.re * s1.im), NV(atan2)(y, s1.re * s2.re - s1.im * s2.im));
}

static C c_acos(double x, double y) {
    if (NV(fabs)(x) > LARGE || NV(fabs)(y) > LARGE) {
        double l = NV(log)(NV(hypot)(x / 2, y / 2)) + 2 * LN2;
        return mk(NV(atan2)(NV(fabs)(y), x), x < 0 ? -NV(copysign)(l, y) : NV(copysign)(l, -y));
    }
    C s1 = c_sqrt(1 - x, -y), s2 = c_sqrt(1 + x, y);
    return mk(2 * NV(atan2)(s1.re, s2.re), NV(asinh)(s2.re * s1.im - s2.im * s1.re));
}

static C c_acosh(double x, double y) {
    if (NV(fabs)(x) > LARGE || NV(fabs)(y) > LARGE)
        return mk(NV(log)(NV(hypot)(x / 2, y / 2)) + 2 * LN2, NV(atan2)(y, x));
    C s1 = c_sqrt(x - 1, y), s2 = c_sqrt(x + 1, y);
    return mk(NV(asinh)(s1.re * s2.re + s1.im * s2.im), 2 * NV(atan2)(s1.im, s2.re));
}

static C c_atanh(double x, double y) {
    if (x < 0 || (x == 0 && 1 / x < 0)) { /* atanh(-z) = -atanh(z) */
        C r = c_atanh(-x, -y);
        return mk(-r.re, -r.im);
    }
    double ay = NV(fabs)(y);
    if (x > SQRT_LARGE || ay > SQRT_LARGE) {
        double h = NV(hypot)(x / 2, y / 2);
        return mk(x / 4 / h / h, -NV(copysign)(PI_2, -y));
    }
    if (x == 1 && ay < SQRT_MIN) {
        if (ay == 0)
            return mk(1.0 / 0.0, y);
        return mk(-NV(log)(NV(sqrt)(ay) / NV(sqrt)(NV(hypot)(ay, 2))), NV(copysign)(NV(atan2)(2, -ay) / 2, y));
    }
    return mk(NV(log1p)(4 * x / ((1 - x) * (1 - x) + ay * ay)) / 4,
              -NV(atan2)(-2 * y, (1 - x) * (1 + x) - ay * ay) / 2);
}

/* f(iz) = i g(z) identities: iz = (-y, x); -i (a + ib) = (b, -a) */
static C times_minus_i(C r) { return mk(r.im, -r.re); }

static C c_sign(double x, double y) { /* NumPy 2: z / |z| (runtime/complexmath.c) */
    double m = NV(hypot)(x, y);
    if (is_nan(m))
        return mk(0.0 / 0.0, 0.0 / 0.0);
    if (is_inf(m)) {
        if (is_inf(x) && is_inf(y))
            return mk(0.0 / 0.0, 0.0 / 0.0);
        return is_inf(x) ? mk(x > 0 ? 1 : -1, 0) : mk(0, y > 0 ? 1 : -1);
    }
    return m == 0 ? mk(0, 0) : mk(x / m, y / m);
}

static C cmath(int fn, double x, double y) {
    C r;
    switch (fn) {
    case RT_CM_SQRT: return c_sqrt(x, y);
    case RT_CM_EXP: return c_exp(x, y);
    case RT_CM_EXP2: return c_exp(x * LN2, y * LN2);
    case RT_CM_EXPM1: {
        double a = NV(sin)(y / 2);
        return mk(NV(expm1)(x) * NV(cos)(y) - 2 * a * a, NV(exp)(x) * NV(sin)(y));
    }
    case RT_CM_LOG: return c_log(x, y);
    case RT_CM_LOG2: r = c_log(x, y); return mk(r.re * LOG2E, r.im * LOG2E);
    case RT_CM_LOG10: r = c_log(x, y); return mk(r.re * LOG10E, r.im * LOG10E);
    case RT_CM_LOG1P: return mk(NV(log)(NV(hypot)(x + 1, y)), NV(atan2)(y, x + 1));
    case RT_CM_SIN: return mk(NV(sin)(x) * NV(cosh)(y), NV(cos)(x) * NV(sinh)(y));
    case RT_CM_COS: return mk(NV(cos)(x) * NV(cosh)(y), -(NV(sin)(x) * NV(sinh)(y)));
    case RT_CM_TAN: return times_minus_i(c_tanh(-y, x));
    case RT_CM_SINH: return mk(NV(sinh)(x) * NV(cos)(y), NV(cosh)(x) * NV(sin)(y));
    case RT_CM_COSH: return mk(NV(cosh)(x) * NV(cos)(y), NV(sinh)(x) * NV(sin)(y));
    case RT_CM_TANH: return c_tanh(x, y);
    case RT_CM_ASINH: return c_asinh(x, y);
    case RT_CM_ASIN: return times_minus_i(c_asinh(-y, x));
    case RT_CM_ACOS: return c_acos(x, y);
    case RT_CM_ACOSH: return c_acosh(x, y);
    case RT_CM_ATANH: return c_atanh(x, y);
    case RT_CM_ATAN: return times_minus_i(c_atanh(-y, x));
    case RT_CM_SIGN: return c_sign(x, y);
    case RT_CM_RINT: return mk(NV(rint)(x), NV(rint)(y));
    default: return mk(0.0 / 0.0, 0.0 / 0.0);
    }
}

/* v[0] + v[1] j = fn(v[0] + v[1] j): what compiled code calls (through a
 * pointer: no struct-return ABI between the bitcode and the kernel). */
void __hj_cmath(int fn, double *v) {
    C r = cmath(fn, v[0], v[1]);
    v[0] = r.re;
    v[1] = r.im;
}
