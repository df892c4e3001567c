/* stats.c - np.cov and np.corrcoef (compiler/lib/np/lower_stats.c): the
 * compiled code passes C-contiguous float64 or complex128 copies of the
 * inputs, with the strides (in items) between variables and between
 * observations, and a C-contiguous result of nv x nv items. */
#include "hpcjit/linalg.h"
#include "hpcjit/runtime.h"
#include "hpcjit/search.h"

#include "cmplx.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* As NumPy: X = the variables less their means (nv x nobs), then
 * X @ X^H through BLAS (rt_linalg_matmul), times 1 / fact.  0 done, 1 when
 * out of memory for the copies (the caller's loop does it), -1 with an
 * exception pending. */
static int32_t cov_blas(const RtCovIn *in, int64_t nv, int64_t nobs, int cx, const cplx *mean, double fact,
                        void *out) {
    size_t sz = cx ? sizeof(cplx) : sizeof(double);
    if ((uint64_t)nv > ((uint64_t)1 << 62) / (uint64_t)nobs / sz)
        return 1;
    size_t items = (size_t)(nv * nobs);
    char *x = malloc(items * sz), *xh = cx ? malloc(items * sz) : x;
    if (!x || !xh) {
        free(x);
        if (cx)
            free(xh);
        return 1;
    }
    for (int64_t v = 0; v < nv; v++)
        for (int64_t k = 0; k < nobs; k++) {
            cplx d = item(in, cx, v, k) - mean[v];
            if (cx) {
                ((cplx *)x)[v * nobs + k] = d;
                ((cplx *)xh)[v * nobs + k] = conj(d);
            } else {
                ((double *)x)[v * nobs + k] = creal(d);
            }
        }
    /* a: X (nv x nobs); b: X^H, the transposed view of conj(X) */
    RtMat a = {x, nv, nobs, nobs * (int64_t)sz, (int64_t)sz};
    RtMat b = {xh, nobs, nv, (int64_t)sz, nobs * (int64_t)sz};
    RtMat c = {out, nv, nv, nv * (int64_t)sz, (int64_t)sz};
    int32_t code = cx ? RT_DT(RT_K_COMPLEX, 16) : RT_DT(RT_K_FLOAT, 8);
    int32_t r = rt_linalg_matmul(code, RT_LA_DOT | 2 << 2 | 2 << 4, &a, &b, &c);
    free(x);
    if (cx)
        free(xh);
    if (r < 0)
        return -1;
    double inv = 1.0 / fact; /* NumPy: c *= np.true_divide(1, fact) */
    for (size_t i = 0; i < (size_t)(nv * nv); i++) {
        if (cx)
            ((cplx *)out)[i] *= inv;
        else
            ((double *)out)[i] *= inv;
    }
    return 0;
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
    int32_t r = nv > 0 && nobs > 0 && rt_linalg_library() ? cov_blas(in, nv, nobs, cplx_, mean, fact, out) : 1;
    if (r < 0) {
        free(mean);
        return -1;
    }
    for (int64_t i = 0; r > 0 && i < nv; i++)
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
