/* test_cuda_cmath.c - the CUDA kernels' complex functions
 * (compiler/lib/cuda/devlib/cmath.c, built for the host here) against the
 * C library's, which CPU code calls (runtime/complexmath.c): on a grid of
 * finite arguments across the quadrants, the unit circle, the branch cuts
 * and large and tiny magnitudes, each result within a few ulps. */
#define HJ_DEVLIB_HOST 1
void __hj_cmath(int fn, double *v);
#include "../../compiler/lib/cuda/devlib/cmath.c"

#include <stdio.h>
#include <string.h>

static const char *const names[] = {
#define NAME(n) #n,
    RT_CMATH_FUNCS(NAME)
#undef NAME
};

static int close_to(double got, double want, double scale) {
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    double tol = 64 * 2.220446049250313e-16 * (fabs(want) > scale ? fabs(want) : scale);
    return fabs(got - want) <= tol;
}

int main(void) {
    static const double vals[] = {0.0, -0.0, 1e-300, -3e-200, 1e-8, -2.5e-5, 0.3, -0.7, 0.999, 1.0, -1.0,
                                  1.0000001, 1.7, -2.25, 10.0, -33.5, 700.0, -1e3, 1e150, -3e200, 1e307};
    const int nv = (int)(sizeof vals / sizeof vals[0]);
    int bad = 0, checked = 0;
    for (int fn = 0; fn < RT_CM_COUNT; fn++) {
        int fails = 0;
        for (int i = 0; i < nv; i++)
            for (int j = 0; j < nv; j++) {
                double x = vals[i], y = vals[j];
                double want[2] = {x, y}, got[2] = {x, y};
                rt_cmath(fn, want);
                __hj_cmath(fn, got);
                if (!isfinite(want[0]) || !isfinite(want[1]))
                    continue; /* overflow and special values: Annex G only where the formulas give it */
                /* the scale of the result: parts far below |f(z)| are compared to |f(z)| */
                double scale = hypot(want[0], want[1]) * 1e-12;
                if (scale < 1e-300)
                    scale = 1e-300;
                checked++;
                if (!close_to(got[0], want[0], scale) || !close_to(got[1], want[1], scale)) {
                    if (fails++ < 4)
                        fprintf(stderr, "%s(%.17g%+.17gj) = %.17g%+.17gj, C library %.17g%+.17gj\n", names[fn],
                                x, y, got[0], got[1], want[0], want[1]);
                }
            }
        bad += fails;
    }
    printf("%d of %d results within tolerance\n", checked - bad, checked);
    return bad ? 1 : 0;
}
