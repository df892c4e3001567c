/* test_complexmath_rt.c - the complex kernels of np ufuncs and cmath
 * (runtime/complexmath.c): values, branch cuts on the axes, special
 * values, the by-value entries, and NumPy's AxisError helper (search.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/complexmath.h"
#include "hpcjit/runtime.h"
#include "hpcjit/search.h"

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int close_to(double got, double want) {
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    return fabs(got - want) <= 1e-14 * fabs(want) + 1e-300;
}

static RtC128 f(int fn, double re, double im) { return rt_cmath_v(fn, re, im); }

static void test_values(void) {
    RtC128 r = f(RT_CM_EXP, 0.0, M_PI / 2); /* e^(i pi/2) = i */
    CHECK(fabs(r.re) < 1e-16 && close_to(r.im, 1.0));
    r = f(RT_CM_SQRT, -4.0, 0.0); /* upper side of the cut: 2i */
    CHECK(r.re == 0.0 && close_to(r.im, 2.0));
    r = f(RT_CM_SQRT, -4.0, -0.0); /* lower side: -2i */
    CHECK(r.re == 0.0 && close_to(r.im, -2.0));
    r = f(RT_CM_LOG, -1.0, 0.0);
    CHECK(r.re == 0.0 && close_to(r.im, M_PI));
    r = f(RT_CM_LOG, -1.0, -0.0);
    CHECK(r.re == 0.0 && close_to(r.im, -M_PI));
    r = f(RT_CM_LOG10, 100.0, 0.0);
    CHECK(close_to(r.re, 2.0) && r.im == 0.0);
    r = f(RT_CM_LOG2, 8.0, 0.0);
    CHECK(close_to(r.re, 3.0) && r.im == 0.0);
    r = f(RT_CM_EXPM1, 1e-10, 0.0); /* no cancellation near 0 */
    CHECK(close_to(r.re, 1.00000000005e-10));
    r = f(RT_CM_LOG1P, 1e-10, 0.0); /* NumPy's log(|1 + z|): no log1p of the real part */
    CHECK(close_to(r.re, log(1.0 + 1e-10)));
    r = f(RT_CM_EXP2, 3.0, 0.0);
    CHECK(close_to(r.re, 8.0) && r.im == 0.0);
    r = f(RT_CM_ASIN, 2.0, 0.0); /* the cut on the real axis past 1 */
    CHECK(close_to(r.re, M_PI / 2) && r.im > 0);
    r = f(RT_CM_ASIN, 2.0, -0.0);
    CHECK(close_to(r.re, M_PI / 2) && r.im < 0);
    r = f(RT_CM_ATANH, 0.5, 0.0);
    CHECK(close_to(r.re, atanh(0.5)) && r.im == 0.0);
    r = f(RT_CM_SIGN, 3.0, -4.0); /* NumPy 2: z / |z| */
    CHECK(close_to(r.re, 0.6) && close_to(r.im, -0.8));
    r = f(RT_CM_SIGN, 0.0, 0.0);
    CHECK(r.re == 0.0 && r.im == 0.0);
    r = f(RT_CM_RINT, 2.5, -3.5); /* half to even, part by part */
    CHECK(r.re == 2.0 && r.im == -4.0);
}

static void test_specials(void) {
    RtC128 r = f(RT_CM_EXP, INFINITY, 0.0);
    CHECK(r.re == INFINITY && r.im == 0.0);
    r = f(RT_CM_EXP, -INFINITY, 1.0);
    CHECK(r.re == 0.0 && r.im == 0.0);
    r = f(RT_CM_LOG, 0.0, 0.0);
    CHECK(r.re == -INFINITY && r.im == 0.0);
    r = f(RT_CM_SQRT, NAN, 1.0);
    CHECK(isnan(r.re) && isnan(r.im));
    r = f(RT_CM_SIGN, INFINITY, INFINITY);
    CHECK(isnan(r.re) && isnan(r.im));
    r = f(RT_CM_SIGN, -INFINITY, 2.0);
    CHECK(r.re == -1.0 && r.im == 0.0);
    r = f(-1, 1.0, 1.0); /* an unknown code */
    CHECK(isnan(r.re) && isnan(r.im));
}

static void test_float(void) {
    RtC128 r = rt_cmathf_v(RT_CM_SQRT, -4.0f, 0.0f);
    CHECK(r.re == 0.0 && r.im == 2.0);
    r = rt_cmathf_v(RT_CM_EXP, 1.0f, 0.0f);
    CHECK((float)r.re == expf(1.0f) && r.re == (double)(float)r.re); /* a float, widened exactly */
    float v[2] = {0.0f, 1.0f};
    rt_cmathf(RT_CM_LOG, v);
    CHECK(v[0] == 0.0f && fabsf(v[1] - (float)M_PI_2) < 1e-6f);
}

static void test_axis_error(void) {
    rt_raise_axis(3, 2);
    CHECK(rt_exc_pending());
    rt_exc_clear();
    CHECK(!rt_exc_pending());
}

int main(void) {
    test_values();
    test_specials();
    test_float();
    test_axis_error();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
