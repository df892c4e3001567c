/* search.c - sorting, searching and counting helpers of compiled NumPy code
 * (np.sort, argsort, unique, searchsorted, digitize, nonzero, argwhere,
 * count_nonzero, bincount, interp, histogram).  Data is C-contiguous; the
 * element type comes as a code (hpcjit/search.h).  Orderings are NumPy's:
 * NaNs after every number, NaT after every datetime, complex lexicographic. */
#include "hpcjit/search.h"

#include <float.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct { float re, im; } c64_t;
typedef struct { double re, im; } c128_t;

#define LT_PLAIN(a, b) ((a) < (b))
#define LT_FLOAT(a, b) ((a) < (b) || ((b) != (b) && (a) == (a)))
/* NumPy's CLT: order by real part, then imaginary, NaNs last in each. */
#define LT_CPLX(a, b)                                                                                        \
    ((a).re < (b).re   ? ((a).im == (a).im || (b).im != (b).im)                                              \
     : (a).re > (b).re ? ((b).im != (b).im && (a).im == (a).im)                                              \
     : ((a).re == (b).re || ((a).re != (a).re && (b).re != (b).re))                                          \
         ? ((a).im < (b).im || ((b).im != (b).im && (a).im == (a).im))                                       \
         : ((b).re != (b).re))
/* NaT (INT64_MIN) after every count, as NumPy's datetime sort */
#define LT_NAT(a, b) ((a) != INT64_MIN && ((b) == INT64_MIN || (a) < (b)))
#define NZ_PLAIN(a) ((a) != 0)
#define NZ_CPLX(a) ((a).re != 0 || (a).im != 0)
#define NAN_NO(a) 0
#define NAN_FLOAT(a) ((a) != (a))
#define NAN_NAT(a) ((a) == INT64_MIN)
#define NAN_CPLX(a) ((a).re != (a).re || (a).im != (a).im)

#define SMALL 16

#define DEF_TYPE(NAME, T, LT, NZ, ISNAN)                                                                            \
    static void ms_##NAME(T *a, T *tmp, int64_t n) {                                                         \
        if (n <= SMALL) {                                                                                    \
            for (int64_t i = 1; i < n; i++) {                                                                \
                T x = a[i];                                                                                  \
                int64_t j = i;                                                                               \
                for (; j > 0 && LT(x, a[j - 1]); j--)                                                        \
                    a[j] = a[j - 1];                                                                         \
                a[j] = x;                                                                                    \
            }                                                                                                \
            return;                                                                                          \
        }                                                                                                    \
        int64_t m = n / 2;                                                                                   \
        ms_##NAME(a, tmp, m);                                                                                \
        ms_##NAME(a + m, tmp, n - m);                                                                        \
        if (!LT(a[m], a[m - 1]))                                                                             \
            return;                                                                                          \
        memcpy(tmp, a, (size_t)m * sizeof(T));                                                               \
        int64_t i = 0, j = m, k = 0;                                                                         \
        while (i < m && j < n)                                                                               \
            a[k++] = LT(a[j], tmp[i]) ? a[j++] : tmp[i++];                                                   \
        while (i < m)                                                                                        \
            a[k++] = tmp[i++];                                                                               \
    }                                                                                                        \
    static void as_##NAME(const T *v, int64_t *a, int64_t *tmp, int64_t n) {                                 \
        if (n <= SMALL) {                                                                                    \
            for (int64_t i = 1; i < n; i++) {                                                                \
                int64_t x = a[i];                                                                            \
                int64_t j = i;                                                                               \
                for (; j > 0 && LT(v[x], v[a[j - 1]]); j--)                                                  \
                    a[j] = a[j - 1];                                                                         \
                a[j] = x;                                                                                    \
            }                                                                                                \
            return;                                                                                          \
        }                                                                                                    \
        int64_t m = n / 2;                                                                                   \
        as_##NAME(v, a, tmp, m);                                                                             \
        as_##NAME(v, a + m, tmp, n - m);                                                                     \
        if (!LT(v[a[m]], v[a[m - 1]]))                                                                       \
            return;                                                                                          \
        memcpy(tmp, a, (size_t)m * sizeof(int64_t));                                                         \
        int64_t i = 0, j = m, k = 0;                                                                         \
        while (i < m && j < n)                                                                               \
            a[k++] = LT(v[a[j]], v[tmp[i]]) ? a[j++] : tmp[i++];                                             \
        while (i < m)                                                                                        \
            a[k++] = tmp[i++];                                                                               \
    }                                                                                                        \
    static int64_t uniq_##NAME(T *a, int64_t n) {                                                            \
        int64_t k = 0;                                                                                       \
        int nan_seen = 0;                                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                                    \
            if (ISNAN(a[i])) { /* NumPy: every NaN-holding value is one */                                   \
                if (!nan_seen)                                                                               \
                    a[k++] = a[i];                                                                           \
                nan_seen = 1;                                                                                \
            } else if (k == 0 || LT(a[k - 1], a[i])) {                                                       \
                a[k++] = a[i];                                                                               \
            }                                                                                                \
        }                                                                                                    \
        return k;                                                                                            \
    }                                                                                                        \
    /* first index whose item is not before v (left) / is after v (right) */                               \
    static int64_t bs_##NAME(const T *a, int64_t n, T v, int right) {                                        \
        int64_t lo = 0, hi = n;                                                                              \
        while (lo < hi) {                                                                                    \
            int64_t mid = lo + (hi - lo) / 2;                                                                \
            int go_right = right ? !LT(v, a[mid]) : LT(a[mid], v);                                           \
            if (go_right)                                                                                    \
                lo = mid + 1;                                                                                \
            else                                                                                             \
                hi = mid;                                                                                    \
        }                                                                                                    \
        return lo;                                                                                           \
    }                                                                                                        \
    static int mono_##NAME(const T *b, int64_t n) {                                                          \
        int inc = 1, dec = 1;                                                                                \
        for (int64_t i = 1; i < n; i++) {                                                                    \
            if (LT(b[i], b[i - 1]))                                                                          \
                inc = 0;                                                                                     \
            if (LT(b[i - 1], b[i]))                                                                          \
                dec = 0;                                                                                     \
        }                                                                                                    \
        return inc ? 1 : dec ? -1 : 0;                                                                       \
    }                                                                                                        \
    /* blocks of 32: a loop of constant length, which -O2 vectorizes */          \
    static int64_t cnt_##NAME(const T *a, int64_t n) {                                                       \
        int64_t c = 0, i = 0;                                                                                \
        for (; i + 32 <= n; i += 32) {                                                                       \
            int c32 = 0;                                                                                     \
            for (int t = 0; t < 32; t++)                                                                     \
                c32 += NZ(a[i + t]) ? 1 : 0;                                                                 \
            c += c32;                                                                                        \
        }                                                                                                    \
        for (; i < n; i++)                                                                                   \
            c += NZ(a[i]) ? 1 : 0;                                                                           \
        return c;                                                                                            \
    }                                                                                                        \
    /* The multi-index of each nonzero item of a (n items in C order, nd axes    \
       of shape) into outs[d][k] (nonzero) or out[k * nd + d] (argwhere): row      \
       by row, the outer index advanced once a row, and 8 items tested at once     \
       before one branch (a sparse mask costs a compare per item; a call per      \
       item through a function pointer took 3.3x Numba's time) */                 \
    static void walk_##NAME(const T *a, int64_t n, int32_t nd, const int64_t *shape, int64_t **outs,         \
                            int64_t *out) {                                                                  \
        int64_t inner = nd > 0 ? shape[nd - 1] : 1, idx[64] = {0}, k = 0;                                    \
        if (inner <= 0)                                                                                      \
            return;                                                                                          \
        for (int64_t base = 0; base < n; base += inner) {                                                    \
            const T *row = a + base;                                                                         \
            int64_t j = 0;                                                                                   \
            for (;;) {                                                                                       \
                for (; j + 8 <= inner; j += 8) {                                                             \
                    int any = 0;                                                                             \
                    if (sizeof(T) == 1) { /* bool, int8, uint8: one 8-byte word */                           \
                        uint64_t w;                                                                          \
                        memcpy(&w, row + j, 8);                                                              \
                        any = w != 0;                                                                        \
                    } else {                                                                                 \
                        for (int t = 0; t < 8; t++)                                                          \
                            any |= NZ(row[j + t]);                                                           \
                    }                                                                                        \
                    if (any)                                                                                 \
                        break;                                                                               \
                }                                                                                            \
                int64_t stop = j + 8 <= inner ? j + 8 : inner;                                               \
                if (j >= stop)                                                                               \
                    break;                                                                                   \
                int64_t hit[8]; /* the block's nonzero positions, kept without a branch */                \
                int nh = 0;                                                                                  \
                for (; j < stop; j++) {                                                                      \
                    hit[nh] = j;                                                                             \
                    nh += NZ(row[j]) ? 1 : 0;                                                                \
                }                                                                                            \
                for (int h = 0; h < nh; h++, k++) {                                                          \
                    if (nd > 0)                                                                              \
                        idx[nd - 1] = hit[h];                                                                \
                    for (int d = 0; d < nd; d++) {                                                           \
                        if (outs)                                                                            \
                            outs[d][k] = idx[d];                                                             \
                        else                                                                                 \
                            out[k * nd + d] = idx[d];                                                        \
                    }                                                                                        \
                }                                                                                            \
            }                                                                                                \
            for (int d = nd - 2; d >= 0; d--) {                                                              \
                if (++idx[d] < shape[d])                                                                     \
                    break;                                                                                   \
                idx[d] = 0;                                                                                  \
            }                                                                                                \
        }                                                                                                    \
    }                                                                                                        \
    /* quickselect: a[k] in place, a[lo, k) not after it, a(k, hi) not before it;                            \
    Hoare's partition around a median of three, whose ends are the scans'                                    \
    sentinels: it stops on items equal to the pivot and swaps them, so repeats                               \
    split evenly, and it moves only the pairs on the wrong sides (the three-way                              \
    partition it replaces swapped every item not equal to the pivot: np.partition                            \
    on 10^5 float64 took 1.6x Numba's time); a merge sort for small or stubborn                              \
    ranges */                                                                                                \
    static void sel_##NAME(T *a, int64_t lo, int64_t hi, int64_t k, T *tmp) {                                \
        for (int depth = 0; hi - lo > SMALL && depth < 64; depth++) {                                        \
            int64_t m = lo + (hi - lo) / 2;                                                                  \
            T t;                                                                                             \
            if (LT(a[m], a[lo])) {                                                                           \
                t = a[m]; a[m] = a[lo]; a[lo] = t;                                                           \
            }                                                                                                \
            if (LT(a[hi - 1], a[m])) {                                                                       \
                t = a[m]; a[m] = a[hi - 1]; a[hi - 1] = t;                                                   \
                if (LT(a[m], a[lo])) {                                                                       \
                    t = a[m]; a[m] = a[lo]; a[lo] = t;                                                       \
                }                                                                                            \
            }                                                                                                \
            T p = a[m]; /* a[lo] not after p, a[hi - 1] not before it */                                     \
            int64_t i = lo, j = hi - 1;                                                                      \
            for (;;) {                                                                                       \
                do                                                                                           \
                    i++;                                                                                     \
                while (LT(a[i], p));                                                                         \
                do                                                                                           \
                    j--;                                                                                     \
                while (LT(p, a[j]));                                                                         \
                if (i >= j)                                                                                  \
                    break;                                                                                   \
                t = a[i]; a[i] = a[j]; a[j] = t;                                                             \
            }                                                                                                \
            /* [lo, i) not after p, (j, hi) not before it, i == j or i == j + 1 */                           \
            if (i == j && k == i)                                                                            \
                return;                                                                                      \
            if (k <= j)                                                                                      \
                hi = j + 1;                                                                                  \
            else                                                                                             \
                lo = i;                                                                                      \
        }                                                                                                    \
        ms_##NAME(a + lo, tmp, hi - lo);                                                                     \
    }                                                                                                        \
    /* the same quickselect on indices into v (np.argpartition): a[k] indexes   \
    the k-th value, a[lo, k) index values not after it, a(k, hi) not before */  \
    static void asel_##NAME(const T *v, int64_t *a, int64_t lo, int64_t hi, int64_t k, int64_t *tmp) {       \
        for (int depth = 0; hi - lo > SMALL && depth < 64; depth++) {                                        \
            int64_t m = lo + (hi - lo) / 2, t;                                                               \
            if (LT(v[a[m]], v[a[lo]])) {                                                                     \
                t = a[m]; a[m] = a[lo]; a[lo] = t;                                                           \
            }                                                                                                \
            if (LT(v[a[hi - 1]], v[a[m]])) {                                                                 \
                t = a[m]; a[m] = a[hi - 1]; a[hi - 1] = t;                                                   \
                if (LT(v[a[m]], v[a[lo]])) {                                                                 \
                    t = a[m]; a[m] = a[lo]; a[lo] = t;                                                       \
                }                                                                                            \
            }                                                                                                \
            T p = v[a[m]];                                                                                   \
            int64_t i = lo, j = hi - 1;                                                                      \
            for (;;) {                                                                                       \
                do                                                                                           \
                    i++;                                                                                     \
                while (LT(v[a[i]], p));                                                                      \
                do                                                                                           \
                    j--;                                                                                     \
                while (LT(p, v[a[j]]));                                                                      \
                if (i >= j)                                                                                  \
                    break;                                                                                   \
                t = a[i]; a[i] = a[j]; a[j] = t;                                                             \
            }                                                                                                \
            if (i == j && k == i)                                                                            \
                return;                                                                                      \
            if (k <= j)                                                                                      \
                hi = j + 1;                                                                                  \
            else                                                                                             \
                lo = i;                                                                                      \
        }                                                                                                    \
        as_##NAME(v, a + lo, tmp, hi - lo);                                                                  \
    }                                                                                                        \

DEF_TYPE(b, uint8_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(i8, int8_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(i16, int16_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(i32, int32_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(i64, int64_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(u8, uint8_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(u16, uint16_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(u32, uint32_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(u64, uint64_t, LT_PLAIN, NZ_PLAIN, NAN_NO)
DEF_TYPE(f32, float, LT_FLOAT, NZ_PLAIN, NAN_FLOAT)
DEF_TYPE(f64, double, LT_FLOAT, NZ_PLAIN, NAN_FLOAT)
DEF_TYPE(c64, c64_t, LT_CPLX, NZ_CPLX, NAN_CPLX)
DEF_TYPE(c128, c128_t, LT_CPLX, NZ_CPLX, NAN_CPLX)
DEF_TYPE(dt, int64_t, LT_NAT, NZ_PLAIN, NAN_NAT)

/* X(NAME, T, code) for every element type */
#define FOR_TYPES(X)                                                                                         \
    X(b, uint8_t, RT_DT(RT_K_BOOL, 1))                                                                       \
    X(i8, int8_t, RT_DT(RT_K_INT, 1))                                                                        \
    X(i16, int16_t, RT_DT(RT_K_INT, 2))                                                                      \
    X(i32, int32_t, RT_DT(RT_K_INT, 4))                                                                      \
    X(i64, int64_t, RT_DT(RT_K_INT, 8))                                                                      \
    X(u8, uint8_t, RT_DT(RT_K_UINT, 1))                                                                      \
    X(u16, uint16_t, RT_DT(RT_K_UINT, 2))                                                                    \
    X(u32, uint32_t, RT_DT(RT_K_UINT, 4))                                                                    \
    X(u64, uint64_t, RT_DT(RT_K_UINT, 8))                                                                    \
    X(f32, float, RT_DT(RT_K_FLOAT, 4))                                                                      \
    X(f64, double, RT_DT(RT_K_FLOAT, 8))                                                                     \
    X(c64, c64_t, RT_DT(RT_K_COMPLEX, 8))                                                                    \
    X(c128, c128_t, RT_DT(RT_K_COMPLEX, 16))                                                                 \
    X(dt, int64_t, RT_DT(RT_K_DATETIME, 8))

static int64_t itemsize(int32_t code) { return code % 32; }

static void *scratch(int64_t n, int64_t size) {
    void *p = malloc((size_t)(n > 0 ? n : 1) * (size_t)size);
    if (!p)
        rt_raise("MemoryError", "out of memory while sorting");
    return p;
}

int32_t rt_sort(void *data, int64_t rows, int64_t len, int32_t code) {
    if (len < 2 || rows <= 0)
        return 0;
    void *tmp = scratch(len / 2 + 1, itemsize(code));
    if (!tmp)
        return -1;
    char *p = data;
    for (int64_t r = 0; r < rows; r++, p += len * itemsize(code)) {
        switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: ms_##NAME((T *)(void *)p, tmp, len); break;
            FOR_TYPES(X)
#undef X
        default: break;
        }
    }
    free(tmp);
    return 0;
}

static int64_t read_index(const char *p, int32_t code) {
    switch (code) {
    case RT_DT(RT_K_INT, 1): return *(const int8_t *)(const void *)p;
    case RT_DT(RT_K_INT, 2): return *(const int16_t *)(const void *)p;
    case RT_DT(RT_K_INT, 4): return *(const int32_t *)(const void *)p;
    case RT_DT(RT_K_UINT, 1): return *(const uint8_t *)(const void *)p;
    case RT_DT(RT_K_UINT, 2): return *(const uint16_t *)(const void *)p;
    case RT_DT(RT_K_UINT, 4): return *(const uint32_t *)(const void *)p;
    default: return *(const int64_t *)(const void *)p; /* int64, uint64 */
    }
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

int32_t rt_partition(void *data, int64_t rows, int64_t len, int32_t code, const void *kth, int64_t nk,
                     int64_t kstride, int32_t kcode) {
    if (len < 2 || rows <= 0 || nk <= 0)
        return 0;
    int64_t *ks = scratch(nk, sizeof(int64_t));
    void *tmp = ks ? scratch(len / 2 + 1, itemsize(code)) : NULL;
    if (!tmp) {
        free(ks);
        return -1;
    }
    for (int64_t i = 0; i < nk; i++) { /* in bounds (lowering checked), ascending, once each */
        int64_t k = read_index((const char *)kth + i * kstride, kcode);
        ks[i] = k < 0 ? k + len : k;
    }
    qsort(ks, (size_t)nk, sizeof(int64_t), cmp_i64);
    char *p = data;
    for (int64_t r = 0; r < rows; r++, p += len * itemsize(code)) {
        int64_t lo = 0;
        for (int64_t i = 0; i < nk; i++) {
            if (ks[i] < lo)
                continue; /* a repeat */
            switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: sel_##NAME((T *)(void *)p, lo, len, ks[i], tmp); break;
                FOR_TYPES(X)
#undef X
            default: break;
            }
            lo = ks[i] + 1;
        }
    }
    free(tmp);
    free(ks);
    return 0;
}

int32_t rt_argpartition(const void *data, int64_t *out, int64_t rows, int64_t len, int32_t code,
                        const void *kth, int64_t nk, int64_t kstride, int32_t kcode) {
    if (rows <= 0)
        return 0;
    int64_t *ks = scratch(nk > 0 ? nk : 1, sizeof(int64_t));
    int64_t *tmp = ks ? scratch(len / 2 + 1, sizeof(int64_t)) : NULL;
    if (!tmp) {
        free(ks);
        return -1;
    }
    for (int64_t i = 0; i < nk; i++) { /* in bounds (lowering checked) */
        int64_t k = read_index((const char *)kth + i * kstride, kcode);
        ks[i] = k < 0 ? k + len : k;
    }
    qsort(ks, (size_t)nk, sizeof(int64_t), cmp_i64);
    const char *p = data;
    for (int64_t r = 0; r < rows; r++, p += len * itemsize(code), out += len) {
        for (int64_t i = 0; i < len; i++)
            out[i] = i;
        int64_t lo = 0;
        for (int64_t i = 0; i < nk && len > 1; i++) {
            if (ks[i] < lo)
                continue; /* a repeat */
            switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: asel_##NAME((const T *)(const void *)p, out, lo, len, ks[i], tmp); break;
                FOR_TYPES(X)
#undef X
            default: break;
            }
            lo = ks[i] + 1;
        }
    }
    free(tmp);
    free(ks);
    return 0;
}

int32_t rt_argsort(const void *data, int64_t *out, int64_t rows, int64_t len, int32_t code) {
    int64_t *tmp = scratch(len / 2 + 1, sizeof(int64_t));
    if (!tmp)
        return -1;
    const char *p = data;
    for (int64_t r = 0; r < rows; r++, p += len * itemsize(code), out += len) {
        for (int64_t i = 0; i < len; i++)
            out[i] = i;
        switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: as_##NAME((const T *)(const void *)p, out, tmp, len); break;
            FOR_TYPES(X)
#undef X
        default: break;
        }
    }
    free(tmp);
    return 0;
}

int64_t rt_unique(void *data, int64_t n, int32_t code) {
    switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: return uniq_##NAME((T *)data, n);
        FOR_TYPES(X)
#undef X
    default: return n;
    }
}

void rt_searchsorted(const void *a, int64_t n, const void *v, int64_t nv, int64_t *out, int32_t code,
                     int32_t right) {
    switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C:                                                                                                  \
        for (int64_t i = 0; i < nv; i++)                                                                     \
            out[i] = bs_##NAME((const T *)a, n, ((const T *)v)[i], right);                                   \
        break;
        FOR_TYPES(X)
#undef X
    default: break;
    }
}

int32_t rt_digitize(const void *x, int64_t nx, const void *bins, int64_t nb, int64_t *out, int32_t code,
                    int32_t right) {
    int mono = 1;
    switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: mono = mono_##NAME((const T *)bins, nb); break;
        FOR_TYPES(X)
#undef X
    default: break;
    }
    if (mono == 0) {
        rt_raise("ValueError", "bins must be monotonically increasing or decreasing");
        return -1;
    }
    if (mono == 1) {
        rt_searchsorted(bins, nb, x, nx, out, code, !right);
        return 0;
    }
    /* decreasing: len(bins) - searchsorted(bins[::-1], x) */
    int64_t sz = itemsize(code);
    char *rev = scratch(nb, sz);
    if (!rev)
        return -1;
    for (int64_t i = 0; i < nb; i++)
        memcpy(rev + i * sz, (const char *)bins + (nb - 1 - i) * sz, (size_t)sz);
    rt_searchsorted(rev, nb, x, nx, out, code, !right);
    for (int64_t i = 0; i < nx; i++)
        out[i] = nb - out[i];
    free(rev);
    return 0;
}

int64_t rt_count_nonzero(const void *data, int64_t n, int32_t code) {
    switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: return cnt_##NAME((const T *)data, n);
        FOR_TYPES(X)
#undef X
    default: return 0;
    }
}

/* nonzero and argwhere: the type's walk (DEF_TYPE). */
static void walk_nonzero(const void *data, int64_t n, int32_t code, int32_t nd, const int64_t *shape,
                         int64_t **outs, int64_t *out) {
    switch (code) {
#define X(NAME, T, C)                                                                                        \
    case C: walk_##NAME((const T *)data, n, nd, shape, outs, out); return;
        FOR_TYPES(X)
#undef X
    default: walk_b((const uint8_t *)data, n, nd, shape, outs, out); return;
    }
}

void rt_nonzero(const void *data, int64_t n, int32_t code, int32_t nd, const int64_t *shape, int64_t **outs) {
    walk_nonzero(data, n, code, nd, shape, outs, NULL);
}

void rt_argwhere(const void *data, int64_t n, int32_t code, int32_t nd, const int64_t *shape, int64_t *out) {
    walk_nonzero(data, n, code, nd, shape, NULL, out);
}

int32_t rt_bincount_len(const int64_t *x, int64_t n, int64_t minlength, int64_t *len) {
    if (minlength < 0) {
        rt_raise("ValueError", "'minlength' must not be negative");
        return -1;
    }
    int64_t m = -1;
    for (int64_t i = 0; i < n; i++) {
        if (x[i] < 0) {
            rt_raise("ValueError", "'list' argument must have no negative elements");
            return -1;
        }
        if (x[i] > m)
            m = x[i];
    }
    *len = m + 1 > minlength ? m + 1 : minlength;
    return 0;
}

void rt_bincount(const int64_t *x, int64_t n, const double *w, void *out) {
    if (w) {
        double *o = out;
        for (int64_t i = 0; i < n; i++)
            o[x[i]] += w[i];
    } else {
        int64_t *o = out;
        for (int64_t i = 0; i < n; i++)
            o[x[i]]++;
    }
}

/* NumPy's compiled interp (numpy/_core/src/multiarray/compiled_base.c). */
int32_t rt_interp(const double *x, int64_t nx, const double *xp, const double *fp, int64_t n, double left,
                  double right, int32_t flags, double *out) {
    if (n == 0) {
        rt_raise("ValueError", "array of sample points is empty");
        return -1;
    }
    double lval = (flags & 1) ? left : fp[0];
    double rval = (flags & 2) ? right : fp[n - 1];
    for (int64_t i = 0; i < nx; i++) {
        double v = x[i];
        if (isnan(v)) {
            out[i] = v;
            continue;
        }
        if (n == 1) {
            out[i] = v < xp[0] ? lval : v > xp[0] ? rval : fp[0];
            continue;
        }
        if (v > xp[n - 1]) {
            out[i] = rval;
            continue;
        }
        if (v < xp[0]) {
            out[i] = lval;
            continue;
        }
        if (v == xp[n - 1]) {
            out[i] = fp[n - 1];
            continue;
        }
        /* last j with xp[j] <= v */
        int64_t lo = 0, hi = n;
        while (hi - lo > 1) {
            int64_t mid = lo + (hi - lo) / 2;
            if (xp[mid] <= v)
                lo = mid;
            else
                hi = mid;
        }
        int64_t j = lo;
        if (j == n - 1) {
            out[i] = fp[j];
            continue;
        }
        if (xp[j] == v) {
            out[i] = fp[j];
            continue;
        }
        double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
        double r = slope * (v - xp[j]) + fp[j];
        if (isnan(r)) {
            r = slope * (v - xp[j + 1]) + fp[j + 1];
            if (isnan(r) && fp[j] == fp[j + 1])
                r = fp[j];
        }
        out[i] = r;
    }
    return 0;
}

/* The range of a[0..n) (n > 0) into *lo and *hi; nonzero when a NaN is
 * among them.  Independent chains, two lanes each with SSE2: one min/max
 * chain would run at the latency of minsd per item.  minpd's answer for a
 * NaN operand does not matter: a NaN is reported and the range dropped. */
static int minmax_scan(const double *a, int64_t n, double *lo, double *hi) {
    double l0 = a[0], h0 = a[0];
    int nan = 0;
    int64_t i = 0;
#ifdef __SSE2__
    if (n >= 4) {
        __m128d l0v = _mm_set1_pd(a[0]), l1v = l0v, h0v = l0v, h1v = l0v, u = _mm_setzero_pd();
        for (; i + 4 <= n; i += 4) {
            __m128d v0 = _mm_loadu_pd(a + i), v1 = _mm_loadu_pd(a + i + 2);
            u = _mm_or_pd(u, _mm_cmpunord_pd(v0, v1));
            l0v = _mm_min_pd(l0v, v0);
            l1v = _mm_min_pd(l1v, v1);
            h0v = _mm_max_pd(h0v, v0);
            h1v = _mm_max_pd(h1v, v1);
        }
        double lv[2], hv[2];
        _mm_storeu_pd(lv, _mm_min_pd(l0v, l1v));
        _mm_storeu_pd(hv, _mm_max_pd(h0v, h1v));
        l0 = lv[1] < lv[0] ? lv[1] : lv[0];
        h0 = hv[1] > hv[0] ? hv[1] : hv[0];
        nan = _mm_movemask_pd(u) != 0;
    }
#endif
    for (; i < n; i++) {
        double v = a[i];
        nan |= v != v;
        l0 = v < l0 ? v : l0;
        h0 = v > h0 ? v : h0;
    }
    *lo = l0;
    *hi = h0;
    return nan;
}

/* Bins of the uniform edges for HIST_BLOCK items of a, into idx: the bin,
 * or -1 where the edges decide (near a bin boundary, the last edge, out of
 * the range or NaN: rt_histogram's exact path).  A pass of its own, without
 * the histogram's stores, 2 or 4 items at a time.  Only estimates inside
 * [tol, nb - tol) are converted as they are (so they fit int32, nb <
 * 2^31); the others become -1 and 0, which differ. */
#define HIST_BLOCK 256
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void uniform_bins_avx2(const double *a, double first, double scale,
                                                               double tol, double lim, int32_t *idx) {
    __m256d vfirst = _mm256_set1_pd(first), vscale = _mm256_set1_pd(scale), vtol = _mm256_set1_pd(tol),
            vlim = _mm256_set1_pd(lim), m1 = _mm256_set1_pd(-1.0), z = _mm256_setzero_pd();
    for (int i = 0; i < HIST_BLOCK; i += 4) {
        __m256d f = _mm256_mul_pd(_mm256_sub_pd(_mm256_loadu_pd(a + i), vfirst), vscale);
        /* false for a NaN */
        __m256d in = _mm256_and_pd(_mm256_cmp_pd(f, vtol, _CMP_GE_OQ), _mm256_cmp_pd(f, vlim, _CMP_LT_OQ));
        __m128i j = _mm256_cvttpd_epi32(_mm256_blendv_pd(m1, _mm256_sub_pd(f, vtol), in));
        __m128i k = _mm256_cvttpd_epi32(_mm256_blendv_pd(z, _mm256_add_pd(f, vtol), in));
        __m128i ok = _mm_cmpeq_epi32(j, k);
        _mm_storeu_si128((__m128i *)(idx + i), _mm_or_si128(j, _mm_andnot_si128(ok, _mm_set1_epi32(-1))));
    }
}
#endif

static void uniform_bins(const double *a, double first, double scale, double tol, double nbd, int32_t *idx) {
    double lim = nbd - tol;
#if defined(__x86_64__) && defined(__GNUC__)
    /* a load of libgcc's CPU model, no state of ours: safe on the pool's threads */
    if (__builtin_cpu_supports("avx2")) {
        uniform_bins_avx2(a, first, scale, tol, lim, idx);
        return;
    }
#endif
    int i = 0;
#ifdef __SSE2__
    __m128d vfirst = _mm_set1_pd(first), vscale = _mm_set1_pd(scale), vtol = _mm_set1_pd(tol),
            vlim = _mm_set1_pd(lim), m1 = _mm_set1_pd(-1.0);
    for (; i + 2 <= HIST_BLOCK; i += 2) {
        __m128d f = _mm_mul_pd(_mm_sub_pd(_mm_loadu_pd(a + i), vfirst), vscale);
        __m128d in = _mm_and_pd(_mm_cmpge_pd(f, vtol), _mm_cmplt_pd(f, vlim));
        __m128i j = _mm_cvttpd_epi32(_mm_or_pd(_mm_and_pd(in, _mm_sub_pd(f, vtol)), _mm_andnot_pd(in, m1)));
        __m128i k = _mm_cvttpd_epi32(_mm_and_pd(in, _mm_add_pd(f, vtol)));
        __m128i ok = _mm_cmpeq_epi32(j, k);
        _mm_storel_epi64((__m128i *)(idx + i), _mm_or_si128(j, _mm_andnot_si128(ok, _mm_set1_epi32(-1))));
    }
#endif
    for (; i < HIST_BLOCK; i++) {
        double f = (a[i] - first) * scale;
        idx[i] = -1;
        if (f >= tol && f < lim) {
            int32_t j = (int32_t)(f - tol), k = (int32_t)(f + tol);
            if (j == k)
                idx[i] = j;
        }
    }
}

int32_t rt_histogram(const double *a, int64_t n, double *edges, int64_t nb, int32_t mode, double lo, double hi,
                     int64_t *hist) {
    if (mode == 2) {
        lo = 0.0;
        hi = 1.0;
        if (n > 0) {
            /* a NaN anywhere is reported after the pass */
            int nan = minmax_scan(a, n, &lo, &hi);
            if (nan) {
                rt_raise("ValueError", "autodetected range of [nan, nan] is not finite");
                return -1;
            }
        }
    }
    if (mode != 0) {
        if (nb < 1) {
            rt_raise("ValueError", "`bins` must be positive, when an integer");
            return -1;
        }
        if (lo > hi) {
            rt_raise("ValueError", "max must be larger than min in range parameter.");
            return -1;
        }
        if (!isfinite(lo) || !isfinite(hi)) {
            rt_raise("ValueError", "supplied range is not finite");
            return -1;
        }
        if (lo == hi) {
            lo -= 0.5;
            hi += 0.5;
        }
        /* np.linspace(lo, hi, nb + 1) */
        double step = (hi - lo) / (double)nb;
        for (int64_t i = 0; i <= nb; i++)
            edges[i] = lo + (double)i * step;
        edges[nb] = hi;
    } else {
        for (int64_t i = 1; i <= nb; i++)
            if (edges[i] < edges[i - 1]) {
                rt_raise("ValueError", "`bins` must increase monotonically, when an array");
                return -1;
            }
    }
    memset(hist, 0, (size_t)(nb > 0 ? nb : 0) * sizeof(int64_t));
    if (nb < 1)
        return 0;
    double first = edges[0], last = edges[nb];
    if (mode != 0) {
        /* NumPy computes the bin as (v - first) / (last - first) * nb and
         * then moves it by one against the edges; any estimate within one
         * bin ends on the same edge-defined bin, so a multiplication by
         * the precomputed ratio (no division per element) is exact too */
        double scale = (double)nb / (last - first);
        /* Far enough from a bin boundary the estimate is the bin: the
         * rounding of the edges and of the estimate is below tol (in bins),
         * so only estimates within tol of an integer look at the edges, and
         * the common case makes no load the bin's address depends on. */
        double tol = 16.0 * DBL_EPSILON * ((fabs(first) + fabs(last)) * scale + (double)nb + 1.0);
        int32_t idx[HIST_BLOCK];
        for (int64_t i0 = 0; i0 < n; i0 += HIST_BLOCK) {
            int64_t m = n - i0 < HIST_BLOCK ? n - i0 : HIST_BLOCK;
            /* a short last block, and bins past int32, take the exact path */
            if (m == HIST_BLOCK && nb < INT32_MAX)
                uniform_bins(a + i0, first, scale, tol, (double)nb, idx);
            else
                for (int64_t i = 0; i < m; i++)
                    idx[i] = -1;
            for (int64_t i = 0; i < m; i++) {
                int64_t j = idx[i];
                if (__builtin_expect(j < 0, 0)) {
                    double v = a[i0 + i];
                    if (!(v >= first && v <= last))
                        continue;
                    double f = (v - first) * scale;
                    j = f < (double)nb ? (int64_t)f : nb - 1;
                    if (j > 0 && v < edges[j])
                        j--;
                    else if (j < nb - 1 && v >= edges[j + 1])
                        j++;
                }
                hist[j]++;
            }
        }
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        double v = a[i];
        if (!(v >= first && v <= last))
            continue;
        /* given edges: searchsorted(edges, v, 'right') - 1, the last bin closed */
        int64_t l = 0, h = nb + 1;
        while (l < h) {
            int64_t m = l + (h - l) / 2;
            if (edges[m] <= v)
                l = m + 1;
            else
                h = m;
        }
        hist[l - 1 < nb ? l - 1 : nb - 1]++;
    }
    return 0;
}

/* NumPy's AxisError (a ValueError and an IndexError); numpy.exceptions holds
 * it since NumPy 1.25. */
void rt_raise_axis(int64_t axis, int64_t ndim) {
    char msg[96];
    snprintf(msg, sizeof msg, "axis %lld is out of bounds for array of dimension %lld", (long long)axis,
             (long long)ndim);
    rt_raise("numpy.exceptions.AxisError", msg);
}
