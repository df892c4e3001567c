/* stats.c - np.cov and np.corrcoef (compiler/lib/np/lower_stats.c): the
 * compiled code passes C-contiguous float64 or complex128 copies of the
 * inputs, with the strides (in items) between variables and between
 * observations, and a C-contiguous result of nv x nv items. */
#include "hpcjit/runtime.h"
#include "hpcjit/search.h"

#include "cmplx.h"
#include <math.h>
#include <stdlib.h>

typedef double complex cplx;

/* item (v, k) of the stacked variables: x's rows, then y's */
static cplx item(const RtCovIn *in, int cx, int64_t v, int64_t k) {
    const RtCovIn *p = in;
    if (v >= in[0].nv) {
        p = &in[1];
        v -= in[0].nv;
    }
    int64_t at = v * p->vs + k * p->os;
    if (cx)
        return ((const cplx *)p->data)[at];
    return ((const double *)p->data)[at];
}

int32_t rt_cov(const RtCovIn *in, int64_t nobs, int64_t ddof, int32_t cplx_, int32_t corr, void *out) {
    int64_t nv = in[0].nv + (in[1].data ? in[1].nv : 0);
    cplx *mean = malloc(sizeof(cplx) * (size_t)(nv ? nv : 1));
    if (!mean) {
        rt_raise("MemoryError", "np.cov: out of memory");
        return -1;
    }
    for (int64_t v = 0; v < nv; v++) {
        cplx s = 0;
        for (int64_t k = 0; k < nobs; k++)
            s += item(in, cplx_, v, k);
        mean[v] = s / (double)nobs;
    }
    /* NumPy: a non-positive number of degrees of freedom divides by 0 */
    double fact = (double)(nobs - ddof);
    if (fact <= 0)
        fact = 0.0;
    for (int64_t i = 0; i < nv; i++)
        for (int64_t j = 0; j < nv; j++) {
            cplx s = 0;
            for (int64_t k = 0; k < nobs; k++)
                s += (item(in, cplx_, i, k) - mean[i]) * conj(item(in, cplx_, j, k) - mean[j]);
            cplx c = s / fact;
            if (cplx_)
                ((cplx *)out)[i * nv + j] = c;
            else
                ((double *)out)[i * nv + j] = creal(c);
        }
    if (corr) {
        /* corrcoef: c / stddev[:, None] / stddev[None, :], then the real
         * (and imaginary) parts clipped to [-1, 1], as NumPy */
        double *sd = (double *)mean; /* reused: nv doubles fit in nv complex */
        for (int64_t i = 0; i < nv; i++)
            sd[i] = sqrt(cplx_ ? creal(((cplx *)out)[i * nv + i]) : ((double *)out)[i * nv + i]);
        for (int64_t i = 0; i < nv; i++)
            for (int64_t j = 0; j < nv; j++) {
                if (cplx_) {
                    cplx c = ((cplx *)out)[i * nv + j] / sd[i] / sd[j];
                    double re = creal(c), im = cimag(c);
                    re = re < -1.0 ? -1.0 : re > 1.0 ? 1.0 : re;
                    im = im < -1.0 ? -1.0 : im > 1.0 ? 1.0 : im;
                    ((cplx *)out)[i * nv + j] = CMPLX(re, im);
                } else {
                    double c = ((double *)out)[i * nv + j] / sd[i] / sd[j];
                    ((double *)out)[i * nv + j] = c < -1.0 ? -1.0 : c > 1.0 ? 1.0 : c;
                }
            }
    }
    free(mean);
    return 0;
}
