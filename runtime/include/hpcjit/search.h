/* search.h - runtime helpers of NumPy sorting/searching (runtime/search.c)
 * called from compiled code (compiler/lib/search/lower_search.c).
 *
 * Element types are passed as a code: RT_DT(kind, itemsize), kind one of
 * RT_K_*; data is always C-contiguous (lowering copies strided input). */
#ifndef HPCJIT_SEARCH_H
#define HPCJIT_SEARCH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RT_K_DATETIME: datetime64/timedelta64 counts (int64), NaT (INT64_MIN) last */
enum { RT_K_BOOL, RT_K_INT, RT_K_UINT, RT_K_FLOAT, RT_K_COMPLEX, RT_K_DATETIME };
#define RT_DT(kind, size) ((kind) * 32 + (size))

/* Raise numpy.exceptions.AxisError "axis 3 is out of bounds for array of
 * dimension 2" (compiled code checks the axis, then calls this). */
void rt_raise_axis(int64_t axis, int64_t ndim);

/* np.cov / np.corrcoef (runtime/stats.c): the variables of x (in[0]) then
 * y (in[1], data NULL when absent), each with nv variables and the
 * strides in items between variables (vs) and observations (os); nobs
 * observations; float64 or (cplx) complex128 items; out nv x nv,
 * C-contiguous.  0, or -1 with MemoryError pending. */
typedef struct RtCovIn {
    const void *data;
    int64_t nv, vs, os;
} RtCovIn;
int32_t rt_cov(const RtCovIn *in, int64_t nobs, int64_t ddof, int32_t cplx, int32_t corr, void *out);

/* Sort each of `rows` rows of `len` items in place (NaNs and NaTs last, stable).
 * 0, or -1 with MemoryError pending. */
int32_t rt_sort(void *data, int64_t rows, int64_t len, int32_t code);
/* np.partition of each of `rows` rows of `len` items in place: each of the nk
 * kth (integers of code kcode, kstride bytes apart; -len <= k < len, checked
 * by the caller) holds its sorted value, nothing after it before, nothing
 * before it after (a quickselect per kth).  0, or -1 with MemoryError pending. */
int32_t rt_partition(void *data, int64_t rows, int64_t len, int32_t code, const void *kth, int64_t nk,
                     int64_t kstride, int32_t kcode);
/* np.argpartition: out (rows x len int64) indexes each row so that each kth
 * (as rt_partition's) indexes its sorted value, with the indices of nothing
 * after it before and of nothing before it after (a quickselect per kth on
 * the indices).  0, or -1 with MemoryError pending. */
int32_t rt_argpartition(const void *data, int64_t *out, int64_t rows, int64_t len, int32_t code,
                        const void *kth, int64_t nk, int64_t kstride, int32_t kcode);
/* Stable argsort of each row into out (rows x len int64). */
int32_t rt_argsort(const void *data, int64_t *out, int64_t rows, int64_t len, int32_t code);
/* Sorted data: drop repeats in place (NaNs count as equal); the new length. */
int64_t rt_unique(void *data, int64_t n, int32_t code);
/* For each of the nv values: insertion index into sorted a (side right). */
void rt_searchsorted(const void *a, int64_t n, const void *v, int64_t nv, int64_t *out, int32_t code,
                     int32_t right);
/* np.digitize: bins monotonic (ValueError otherwise, -1). */
int32_t rt_digitize(const void *x, int64_t nx, const void *bins, int64_t nb, int64_t *out, int32_t code,
                    int32_t right);
int64_t rt_count_nonzero(const void *data, int64_t n, int32_t code);
/* C-order indices of the nonzero items of an nd-array of shape `shape`:
 * into outs[d][k] (nonzero) or out[k * nd + d] (argwhere). */
void rt_nonzero(const void *data, int64_t n, int32_t code, int32_t nd, const int64_t *shape, int64_t **outs);
void rt_argwhere(const void *data, int64_t n, int32_t code, int32_t nd, const int64_t *shape, int64_t *out);
/* np.bincount: *len = max(x) + 1 or minlength; -1 with ValueError pending
 * on negative entries or minlength. */
int32_t rt_bincount_len(const int64_t *x, int64_t n, int64_t minlength, int64_t *len);
/* out: int64 counts (w NULL) or float64 sums of weights (zeroed). */
void rt_bincount(const int64_t *x, int64_t n, const double *w, void *out);
/* np.interp on float64: flags bit 0 left given, bit 1 right given. */
int32_t rt_interp(const double *x, int64_t nx, const double *xp, const double *fp, int64_t n, double left,
                  double right, int32_t flags, double *out);
/* np.histogram: mode 0 edges given (nb + 1 of them, checked monotonic);
 * 1 uniform bins over [lo, hi]; 2 uniform bins over [min(a), max(a)].
 * Modes 1/2 write the edges. */
int32_t rt_histogram(const double *a, int64_t n, double *edges, int64_t nb, int32_t mode, double lo, double hi,
                     int64_t *hist);

#ifdef __cplusplus
}
#endif
#endif
