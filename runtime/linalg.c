/* linalg.c - BLAS/LAPACK behind np.dot/matmul and np.linalg (hpcjit/linalg.h).
 *
 * The library is dlopened on the first call that needs it (import hpcjit
 * and the build stay free of BLAS), and the Fortran symbols are looked up
 * once.  Fortran passes everything by reference, integers are 32-bit
 * (LP64 builds) and each CHARACTER argument has a hidden length appended:
 * we pass those lengths, which implementations in C simply ignore.  ILP64
 * libraries (64-bit integers: NumPy's bundled OpenBLAS, the last resort)
 * go through a second copy of the Fortran-calling code (linalg_lapack.inc). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "hpcjit/linalg.h"

#include <complex.h>
#include <dlfcn.h>
#include <link.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/search.h"

typedef float complex c64;
typedef double complex c128;

/* ---- loading -------------------------------------------------------------- */

/* ORDER: the rows of sym_names follow this enum; columns s, d, c, z. */
enum { F_GEMM, F_GEMV, F_GESV, F_GETRF, F_POTRF, F_EVD, F_GESDD, F_GEQRF, F_ORGQR, F_GELSD, F_GEEV, F_DOT, F_COUNT };
static const char *const sym_names[F_COUNT][4] = {
    {"sgemm_", "dgemm_", "cgemm_", "zgemm_"},     {"sgemv_", "dgemv_", "cgemv_", "zgemv_"},
    {"sgesv_", "dgesv_", "cgesv_", "zgesv_"},     {"sgetrf_", "dgetrf_", "cgetrf_", "zgetrf_"},
    {"spotrf_", "dpotrf_", "cpotrf_", "zpotrf_"}, {"ssyevd_", "dsyevd_", "cheevd_", "zheevd_"},
    {"sgesdd_", "dgesdd_", "cgesdd_", "zgesdd_"}, {"sgeqrf_", "dgeqrf_", "cgeqrf_", "zgeqrf_"},
    {"sorgqr_", "dorgqr_", "cungqr_", "zungqr_"}, {"sgelsd_", "dgelsd_", "cgelsd_", "zgelsd_"},
    {"sgeev_", "dgeev_", "cgeev_", "zgeev_"},     {"sdot_", "ddot_", "cdotu_", "zdotu_"},
};

#define MAX_HANDLES 8
static struct {
    pthread_once_t once;
    void *handles[MAX_HANDLES];
    int nhandles;
    void *fn[F_COUNT][4];
    char name[512];   /* what was loaded */
    char error[1024]; /* what was tried, when nothing loaded */
    bool ok;
    bool ilp64;       /* 64-bit Fortran integers, symbols prefix + name + "64_" */
    char prefix[16];
} lib = {.once = PTHREAD_ONCE_INIT};

static void *find(const char *sym) {
    for (int i = 0; i < lib.nhandles; i++) {
        void *p = dlsym(lib.handles[i], sym);
        if (p)
            return p;
    }
    return NULL;
}

static void close_all(void) {
    for (int i = 0; i < lib.nhandles; i++)
        dlclose(lib.handles[i]);
    lib.nhandles = 0;
}

/* Open each ':'-separated library of `list`; true when all load and
 * provide dgemm_ and dgesv_.  Appends what went wrong to lib.error. */
static bool try_libs(const char *list) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    size_t el = strlen(lib.error);
    for (char *save = NULL, *s = strtok_r(buf, ":", &save); s; s = strtok_r(NULL, ":", &save)) {
        if (lib.nhandles == MAX_HANDLES)
            break;
        void *h = dlopen(s, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            snprintf(lib.error + el, sizeof lib.error - el, "%s%s", el ? "; " : "", e ? e : s);
            close_all();
            return false;
        }
        lib.handles[lib.nhandles++] = h;
    }
    if (lib.nhandles && find("dgemm_") && find("dgesv_")) {
        snprintf(lib.name, sizeof lib.name, "%s", list);
        return true;
    }
    /* ILP64 builds: NumPy's bundled OpenBLAS (scipy_dgemm_64_), or 64_ suffixed */
    static const char *const prefixes[] = {"scipy_", ""};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        char g[64], v[64];
        snprintf(g, sizeof g, "%sdgemm_64_", prefixes[i]);
        snprintf(v, sizeof v, "%sdgesv_64_", prefixes[i]);
        if (lib.nhandles && find(g) && find(v)) {
            snprintf(lib.name, sizeof lib.name, "%s (ILP64)", list);
            snprintf(lib.prefix, sizeof lib.prefix, "%s", prefixes[i]);
            lib.ilp64 = true;
            return true;
        }
    }
    snprintf(lib.error + el, sizeof lib.error - el, "%s%s: no dgemm_/dgesv_ (not BLAS + LAPACK)", el ? "; " : "",
             list);
    close_all();
    return false;
}

/* dl_iterate_phdr callback: the path of a loaded OpenBLAS (NumPy's wheels
 * bundle one, loaded with RTLD_LOCAL by numpy.linalg / numpy.core). */
static int find_loaded(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *n = info->dlpi_name;
    if (n && *n && strstr(n, "openblas") && strlen(n) < 512) {
        snprintf(data, 512, "%s", n);
        return 1;
    }
    return 0;
}

static void load(void) {
    const char *env = getenv("HPCJIT_BLAS_LIB");
    if (env && *env) {
        /* a site's choice is not second-guessed: no fallback */
        lib.ok = try_libs(env);
    } else {
        static const char *const candidates[] = {"libflexiblas.so.3", "libopenblas.so.0",
                                                 "liblapack.so.3:libblas.so.3"};
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !lib.ok; i++)
            lib.ok = try_libs(candidates[i]);
        char path[512] = "";
        if (!lib.ok && dl_iterate_phdr(find_loaded, path) && *path)
            lib.ok = try_libs(path); /* last resort: the OpenBLAS NumPy brought */
    }
    if (!lib.ok)
        return;
    for (int f = 0; f < F_COUNT; f++)
        for (int t = 0; t < 4; t++) {
            char sym[64];
            if (lib.ilp64)
                snprintf(sym, sizeof sym, "%s%s64_", lib.prefix, sym_names[f][t]);
            else
                snprintf(sym, sizeof sym, "%s", sym_names[f][t]);
            lib.fn[f][t] = find(sym);
        }
}

/* The routine f for type index t, or NULL with OSError pending. */
/* A routine when the library has it, else NULL (nothing raised): for fast
 * paths with a fallback. */
static void *routine_opt(int f, int t) {
    pthread_once(&lib.once, load);
    return lib.ok ? lib.fn[f][t] : NULL;
}

static void *routine(int f, int t) {
    pthread_once(&lib.once, load);
    if (!lib.ok) {
        char msg[RT_EXC_MSG_MAX];
        const char *env = getenv("HPCJIT_BLAS_LIB");
        snprintf(msg, sizeof msg,
                 "hpcjit: no BLAS/LAPACK library could be loaded for linear algebra (tried %.200s): %.600s; install "
                 "OpenBLAS (Debian: apt install libopenblas0) or set HPCJIT_BLAS_LIB",
                 env && *env ? env : "libflexiblas.so.3, libopenblas.so.0, liblapack.so.3 + libblas.so.3",
                 lib.error);
        rt_raise("OSError", msg);
        return NULL;
    }
    if (!lib.fn[f][t]) {
        char msg[RT_EXC_MSG_MAX];
        snprintf(msg, sizeof msg, "hpcjit: %s has no %s", lib.name, sym_names[f][t]);
        rt_raise("OSError", msg);
    }
    return lib.fn[f][t];
}

const char *rt_linalg_library(void) {
    pthread_once(&lib.once, load);
    return lib.ok ? lib.name : NULL;
}

typedef const char *FC; /* a Fortran CHARACTER argument */

/* ---- element types -------------------------------------------------------- */

/* s, d, c, z: 0..3; -1 for other codes */
static int type_index(int32_t code) {
    switch (code) {
    case RT_DT(RT_K_FLOAT, 4): return 0;
    case RT_DT(RT_K_FLOAT, 8): return 1;
    case RT_DT(RT_K_COMPLEX, 8): return 2;
    case RT_DT(RT_K_COMPLEX, 16): return 3;
    default: return -1;
    }
}

static const size_t tsize[4] = {4, 8, 8, 16};
static const size_t rsize[4] = {4, 8, 4, 8}; /* the real type */
static bool is_cplx(int t) { return t >= 2; }

static const float one_s[2] = {1, 0}, zero_s[2] = {0, 0};
static const double one_d[2] = {1, 0}, zero_d[2] = {0, 0};
static const void *one_of(int t) { return t == 0 || t == 2 ? (const void *)one_s : (const void *)one_d; }
static const void *zero_of(int t) { return t == 0 || t == 2 ? (const void *)zero_s : (const void *)zero_d; }

static double get_real(const void *p, int t) { return rsize[t] == 4 ? (double)*(const float *)p : *(const double *)p; }

static c128 get_c(const char *p, int t) {
    switch (t) {
    case 0: return *(const float *)p;
    case 1: return *(const double *)p;
    case 2: return *(const c64 *)p;
    default: return *(const c128 *)p;
    }
}

static void put_c(char *p, int t, c128 v) {
    switch (t) {
    case 0: *(float *)p = (float)creal(v); break;
    case 1: *(double *)p = creal(v); break;
    case 2: *(c64 *)p = (c64)v; break;
    default: *(c128 *)p = v; break;
    }
}

/* ---- scratch and copies --------------------------------------------------- */

static void *scratch(size_t items, size_t size) {
    void *p = calloc(items ? items : 1, size);
    if (!p)
        rt_raise("MemoryError", "hpcjit: out of memory for linear algebra scratch");
    return p;
}

static void copy_item(char *d, const char *s, size_t sz) {
    switch (sz) { /* constant sizes: one move each */
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, sz); break;
    }
}

/* a (m x n, any strides) into Fortran order with leading dimension ld. */
static void to_f(const RtMat *a, size_t sz, char *dst, int64_t ld) {
    for (int64_t j = 0; j < a->n; j++)
        for (int64_t i = 0; i < a->m; i++)
            copy_item(dst + (size_t)(i + j * ld) * sz, (const char *)a->data + i * a->rs + j * a->cs, sz);
}

/* The m x n Fortran-ordered src (leading dimension ld) into out. */
static void from_f(const char *src, int64_t ld, int64_t m, int64_t n, size_t sz, const RtMat *out) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            copy_item((char *)out->data + i * out->rs + j * out->cs, src + (size_t)(i + j * ld) * sz, sz);
}

static char *f_copy(const RtMat *a, size_t sz, int64_t ld, int64_t cols) {
    char *p = scratch((size_t)(ld * (cols > a->n ? cols : a->n)), sz);
    if (p)
        to_f(a, sz, p, ld);
    return p;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Dimensions BLAS/LAPACK take as 32-bit integers. */
static bool fits(int64_t a, int64_t b) {
    if (a > 0x7fffffff || b > 0x7fffffff) {
        rt_raise("ValueError", "hpcjit: matrix dimension too large for 32-bit BLAS/LAPACK");
        return false;
    }
    return true;
}

static void linalg_error(const char *msg) { rt_raise("numpy.linalg.LinAlgError", msg); }

static bool square(const RtMat *a) {
    if (a->m != a->n) {
        linalg_error("Last 2 dimensions of the array must be square");
        return false;
    }
    return fits(a->m, a->n);
}

/* ---- matmul ---------------------------------------------------------------- */

/* A C-contiguous copy of x (conjugated when conj) as a new descriptor. */
static bool c_copy(const RtMat *x, int t, bool cj, RtMat *out, char **buf) {
    size_t sz = tsize[t];
    *buf = scratch((size_t)(x->m * x->n), sz);
    if (!*buf)
        return false;
    *out = (RtMat){*buf, x->m, x->n, x->n * (int64_t)sz, (int64_t)sz};
    for (int64_t i = 0; i < x->m; i++)
        for (int64_t j = 0; j < x->n; j++) {
            char *d = *buf + (size_t)(i * x->n + j) * sz;
            copy_item(d, (const char *)x->data + i * x->rs + j * x->cs, sz);
            if (cj)
                put_c(d, t, conj(get_c(d, t)));
        }
    return true;
}

static void shape_str(char *b, size_t nb, int nd, int64_t m, int64_t n, bool left) {
    if (nd == 2)
        snprintf(b, nb, "(%lld,%lld)", (long long)m, (long long)n);
    else
        snprintf(b, nb, "(%lld,)", (long long)(left ? n : m));
}

static void mismatch(int32_t how, const RtMat *a, const RtMat *b) {
    char msg[256], sa[64], sb[64];
    int kind = how & 3, nda = (how >> 2) & 3, ndb = (how >> 4) & 3;
    if (kind == RT_LA_MATMUL) {
        snprintf(msg, sizeof msg,
                 "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                 "(n?,k),(k,m?)->(n?,m?) (size %lld is different from %lld)",
                 (long long)b->m, (long long)a->n);
    } else if (kind == RT_LA_VDOT) {
        snprintf(msg, sizeof msg, "cannot reshape array of size %lld into shape (%lld,)", (long long)b->m,
                 (long long)a->n);
    } else {
        shape_str(sa, sizeof sa, nda, a->m, a->n, true);
        shape_str(sb, sizeof sb, ndb, b->m, b->n, false);
        snprintf(msg, sizeof msg, "shapes %s and %s not aligned: %lld (dim %d) != %lld (dim 0)", sa, sb,
                 (long long)a->n, nda - 1, (long long)b->m);
    }
    rt_raise("ValueError", msg);
}

static uint64_t get_u(const char *p, size_t sz) {
    switch (sz) {
    case 1: return *(const uint8_t *)p;
    case 2: return *(const uint16_t *)p;
    case 4: return *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

static void put_u(char *p, size_t sz, uint64_t v) {
    switch (sz) {
    case 1: *(uint8_t *)p = (uint8_t)v; break;
    case 2: *(uint16_t *)p = (uint16_t)v; break;
    case 4: *(uint32_t *)p = (uint32_t)v; break;
    default: *(uint64_t *)p = v; break;
    }
}

/* Integers and bool: products summed in the unsigned type of their size
 * (the bits of NumPy's wrapping arithmetic); bool is or-of-ands. */
#define INT_MATMUL(U)                                                                                  \
    for (int64_t i = 0; i < c->m; i++)                                                                 \
        for (int64_t j = 0; j < c->n; j++) {                                                           \
            U acc = 0;                                                                                 \
            const char *pa = (const char *)a->data + i * a->rs, *pb = (const char *)b->data + j * b->cs; \
            for (int64_t k = 0; k < a->n; k++)                                                         \
                acc += (U)((uint64_t) * (const U *)(pa + k * a->cs) * *(const U *)(pb + k * b->rs));     \
            *(U *)((char *)c->data + i * c->rs + j * c->cs) = boolean ? (U)(acc != 0) : acc;           \
        }

static void int_matmul(int32_t code, const RtMat *a, const RtMat *b, const RtMat *c) {
    bool boolean = code / 32 == RT_K_BOOL;
    switch (code % 32) {
    case 1: INT_MATMUL(uint8_t) break;
    case 2: INT_MATMUL(uint16_t) break;
    case 4: INT_MATMUL(uint32_t) break;
    default: INT_MATMUL(uint64_t) break;
    }
}
#undef INT_MATMUL

static void zero_out(const RtMat *c, size_t sz) {
    static const char z[16];
    for (int64_t i = 0; i < c->m; i++)
        for (int64_t j = 0; j < c->n; j++)
            copy_item((char *)c->data + i * c->rs + j * c->cs, z, sz);
}

/* Products of at most this many multiply-adds skip BLAS: its per-call
 * cost (argument checks, buffer allocation in gemv) exceeds the work. */
#define SMALL_PRODUCT 512
/* Products whose inner dimension is at most THIN_K, of at most THIN_PRODUCT
 * multiply-adds, also skip BLAS (see rt_linalg_matmul). */
#define THIN_K 8
#define THIN_PRODUCT (1 << 20)

/* Complex products as BLAS and NumPy's loops compute them, without C's
 * Annex G recovery of infinities (a call to __muldc3 per product). */
static inline c64 mul64(c64 x, c64 y) {
    return __builtin_complex(crealf(x) * crealf(y) - cimagf(x) * cimagf(y), crealf(x) * cimagf(y) + cimagf(x) * crealf(y));
}
static inline c128 mul128(c128 x, c128 y) {
    return __builtin_complex(creal(x) * creal(y) - cimag(x) * cimag(y), creal(x) * cimag(y) + cimag(x) * creal(y));
}
#define MUL_R(x, y) ((x) * (y))

/* c = a @ b in the items' own type (conj(a) when cj), strides as given. */
#define SMALL_MATMUL(T, CONJ, MUL)                                                                       \
    for (int64_t i = 0; i < c->m; i++)                                                                 \
        for (int64_t j = 0; j < c->n; j++) {                                                           \
            T acc = 0;                                                                                 \
            const char *pa = (const char *)a->data + i * a->rs, *pb = (const char *)b->data + j * b->cs; \
            for (int64_t k = 0; k < a->n; k++)                                                         \
                acc += MUL(CONJ(*(const T *)(pa + k * a->cs)), *(const T *)(pb + k * b->rs));         \
            *(T *)((char *)c->data + i * c->rs + j * c->cs) = acc;                                     \
        }
#define NO_CONJ(x) (x)

static void small_matmul(int t, bool cj, const RtMat *a, const RtMat *b, const RtMat *c) {
    switch (t) {
    case 0: SMALL_MATMUL(float, NO_CONJ, MUL_R) break;
    case 1: SMALL_MATMUL(double, NO_CONJ, MUL_R) break;
    case 2:
        if (cj) {
            SMALL_MATMUL(c64, conjf, mul64)
        } else {
            SMALL_MATMUL(c64, NO_CONJ, mul64)
        }
        break;
    default:
        if (cj) {
            SMALL_MATMUL(c128, conj, mul128)
        } else {
            SMALL_MATMUL(c128, NO_CONJ, mul128)
        }
        break;
    }
}
#undef SMALL_MATMUL
#undef NO_CONJ
#undef MUL_R

/* c = a @ b for a thin product (k <= THIN_K): row i of c gathers
 * a[i, l] * b[l, :] for l = 0, 1, .. in turn, so the inner loop streams a
 * row of b and one of c (vector lanes where both rows are contiguous)
 * instead of a dot of k items per output item with strided loads (NPBench
 * stockham_fft_n, complex 2x2 @ 2x16384: its run 4.0 -> 3.65 ms).  Every item is still
 * 0 + a[i, 0] b[0, j] + a[i, 1] b[1, j] + .., small_matmul's sums in its
 * order, so the results are the same bit for bit. */
#define THIN_MATMUL(T, CONJ, MUL)                                                                \
    for (int64_t i = 0; i < c->m; i++) {                                                       \
        char *pc = (char *)c->data + i * c->rs;                                                \
        const char *pa = (const char *)a->data + i * a->rs;                                    \
        if (c->cs == (int64_t)sizeof(T) && b->cs == (int64_t)sizeof(T)) {                       \
            T *restrict cr = (T *)pc;                                                          \
            for (int64_t j = 0; j < c->n; j++)                                                 \
                cr[j] = 0;                                                                     \
            for (int64_t l = 0; l < a->n; l++) {                                               \
                const T s = CONJ(*(const T *)(pa + l * a->cs));                                \
                const T *restrict br = (const T *)((const char *)b->data + l * b->rs);         \
                for (int64_t j = 0; j < c->n; j++)                                             \
                    cr[j] += MUL(s, br[j]);                                                    \
            }                                                                                  \
        } else {                                                                               \
            for (int64_t j = 0; j < c->n; j++)                                                 \
                *(T *)(pc + j * c->cs) = 0;                                                    \
            for (int64_t l = 0; l < a->n; l++) {                                               \
                const T s = CONJ(*(const T *)(pa + l * a->cs));                                \
                const char *br = (const char *)b->data + l * b->rs;                            \
                for (int64_t j = 0; j < c->n; j++)                                             \
                    *(T *)(pc + j * c->cs) += MUL(s, *(const T *)(br + j * b->cs));            \
            }                                                                                  \
        }                                                                                      \
    }
#define NO_CONJ(x) (x)
#define MUL_R(x, y) ((x) * (y))

/* The bytes a matrix's items span (its first to its last item's end). */
static void span(const RtMat *x, size_t sz, uintptr_t *lo, uintptr_t *hi) {
    intptr_t b = (intptr_t)x->data, lo_ = b, hi_ = b;
    intptr_t dr = (intptr_t)(x->m - 1) * x->rs, dc = (intptr_t)(x->n - 1) * x->cs;
    lo_ += (dr < 0 ? dr : 0) + (dc < 0 ? dc : 0);
    hi_ += (dr > 0 ? dr : 0) + (dc > 0 ? dc : 0);
    *lo = (uintptr_t)lo_;
    *hi = (uintptr_t)hi_ + sz;
}

static bool overlap(const RtMat *x, const RtMat *y, size_t sz) {
    uintptr_t xl, xh, yl, yh;
    span(x, sz, &xl, &xh);
    span(y, sz, &yl, &yh);
    return xl < yh && yl < xh;
}

/* c must not overlap a or b (thin_matmul writes c before it has read
 * all of them). */
static void thin_matmul(int t, bool cj, const RtMat *a, const RtMat *b, const RtMat *c) {
    switch (t) {
    case 0: THIN_MATMUL(float, NO_CONJ, MUL_R) break;
    case 1: THIN_MATMUL(double, NO_CONJ, MUL_R) break;
    case 2:
        if (cj) {
            THIN_MATMUL(c64, conjf, mul64)
        } else {
            THIN_MATMUL(c64, NO_CONJ, mul64)
        }
        break;
    default:
        if (cj) {
            THIN_MATMUL(c128, conj, mul128)
        } else {
            THIN_MATMUL(c128, NO_CONJ, mul128)
        }
        break;
    }
}
#undef THIN_MATMUL
#undef NO_CONJ
#undef MUL_R

/* Matrix-vector products up to this many multiply-adds skip BLAS too: an
 * OpenBLAS built with threads (Debian's 0.3.21) splits a 128 x 128 gemv
 * over its threads, and the hand-off costs more than the product (NPBench
 * doitgen: 3x slower on 2 cores than single-threaded). */
#define SMALL_GEMV 65536

/* y (n items, stride ys bytes) = x (k items, stride xs) @ M (k x n, strides
 * mrs, mcs bytes), in vector lanes of GEMV_VEC bytes.  The add (or FMA)
 * latency is 3-4 cycles and two issue per cycle, so every loop keeps
 * GEMV_ACC independent sums: where M's rows are contiguous, a block of
 * NV vectors of columns sums GEMV_ACC / NV interleaved groups of rows;
 * where x and M's columns are, GEMV_DOTS dots share each load of x.  The
 * partial sums are added at the end (BLAS orders its sums its own way too,
 * and NumPy's results come from BLAS). */
#define GEMV_VEC 32 /* bytes: one AVX register, two SSE2 ones */
#define GEMV_ACC 8
#define GEMV_DOTS 4

/* columns j.. j + NV * lanes - 1 of y, M's rows contiguous */
#define GEMV_ROWS(T, NV)                                                                     \
    for (; j + (NV) * L <= n; j += (NV) * L) {                                               \
        enum { U = GEMV_ACC / (NV) };                                                        \
        V acc[U][NV];                                                                        \
        for (int u = 0; u < U; u++)                                                          \
            for (int v = 0; v < (NV); v++)                                                   \
                acc[u][v] = (V){0};                                                          \
        const char *base = (const char *)mat + j * (int64_t)sizeof(T);                       \
        int64_t l = 0;                                                                       \
        for (; l + U <= k; l += U)                                                           \
            for (int u = 0; u < U; u++) {                                                    \
                T s = *(const T *)((const char *)x + (l + u) * xs);                          \
                for (int v = 0; v < (NV); v++) {                                             \
                    V r;                                                                     \
                    memcpy(&r, base + (l + u) * mrs + v * GEMV_VEC, sizeof r);               \
                    acc[u][v] += s * r;                                                      \
                }                                                                            \
            }                                                                                \
        for (; l < k; l++) {                                                                 \
            T s = *(const T *)((const char *)x + l * xs);                                    \
            for (int v = 0; v < (NV); v++) {                                                 \
                V r;                                                                         \
                memcpy(&r, base + l * mrs + v * GEMV_VEC, sizeof r);                         \
                acc[0][v] += s * r;                                                          \
            }                                                                                \
        }                                                                                    \
        for (int u = 1; u < U; u++)                                                          \
            for (int v = 0; v < (NV); v++)                                                   \
                acc[0][v] += acc[u][v];                                                      \
        for (int v = 0; v < (NV); v++) {                                                     \
            char *dst = (char *)y + (j + v * L) * ys;                                        \
            if (ys == (int64_t)sizeof(T))                                                    \
                memcpy(dst, &acc[0][v], sizeof acc[0][v]);                                   \
            else                                                                             \
                for (int i = 0; i < L; i++)                                                  \
                    *(T *)(dst + i * ys) = acc[0][v][i];                                     \
        }                                                                                    \
    }

/* y = x @ M with y and M's rows contiguous: y += x[l] * M[l, :] over
 * GEMV_ROWS4 rows at a time, as OpenBLAS's gemv_n kernels, so that M is
 * read front to back (a C-ordered M streams; the blocks of GEMV_ROWS read
 * it in strided passes) and each y[j] sums its products in l's order. */
#define GEMV_ROWS4 4
#define GEMV_AXPY(T)                                                                         \
    do {                                                                                     \
        int64_t nv = n / L * L, l = 0;                                                       \
        T *yy = (T *)y;                                                                      \
        memset(yy, 0, (size_t)n * sizeof(T));                                                \
        for (; l + GEMV_ROWS4 <= k; l += GEMV_ROWS4) {                                       \
            T s[GEMV_ROWS4];                                                                 \
            const T *r[GEMV_ROWS4];                                                          \
            for (int u = 0; u < GEMV_ROWS4; u++) {                                           \
                s[u] = *(const T *)((const char *)x + (l + u) * xs);                         \
                r[u] = (const T *)((const char *)mat + (l + u) * mrs);                       \
            }                                                                                \
            for (int64_t jv = 0; jv < nv; jv += L) {                                         \
                V acc, q;                                                                    \
                memcpy(&acc, yy + jv, sizeof acc);                                           \
                for (int u = 0; u < GEMV_ROWS4; u++) {                                       \
                    memcpy(&q, r[u] + jv, sizeof q);                                         \
                    acc += s[u] * q;                                                         \
                }                                                                            \
                memcpy(yy + jv, &acc, sizeof acc);                                           \
            }                                                                                \
            for (int64_t jj = nv; jj < n; jj++)                                              \
                for (int u = 0; u < GEMV_ROWS4; u++)                                         \
                    yy[jj] += s[u] * r[u][jj];                                               \
        }                                                                                    \
        for (; l < k; l++) {                                                                 \
            T s1 = *(const T *)((const char *)x + l * xs);                                   \
            const T *r1 = (const T *)((const char *)mat + l * mrs);                          \
            for (int64_t jj = 0; jj < n; jj++)                                               \
                yy[jj] += s1 * r1[jj];                                                       \
        }                                                                                    \
        j = n;                                                                               \
    } while (0)

/* ND dots y[j..j+ND-1] of contiguous x and columns, NA vectors each */
#define GEMV_DOTS_BLOCK(T, ND, NA)                                                           \
    for (; j + (ND) <= n; j += (ND)) {                                                       \
        V acc[ND][NA];                                                                       \
        for (int d = 0; d < (ND); d++)                                                       \
            for (int a = 0; a < (NA); a++)                                                   \
                acc[d][a] = (V){0};                                                          \
        const T *col[ND];                                                                    \
        for (int d = 0; d < (ND); d++)                                                       \
            col[d] = (const T *)((const char *)mat + (j + d) * mcs);                         \
        int64_t l = 0;                                                                       \
        for (; l + (NA) * L <= k; l += (NA) * L)                                             \
            for (int a = 0; a < (NA); a++) {                                                 \
                V p;                                                                         \
                memcpy(&p, (const T *)x + l + a * L, sizeof p);                              \
                for (int d = 0; d < (ND); d++) {                                             \
                    V q;                                                                     \
                    memcpy(&q, col[d] + l + a * L, sizeof q);                                \
                    acc[d][a] += p * q;                                                      \
                }                                                                            \
            }                                                                                \
        for (; l + L <= k; l += L) { /* then a vector at a time */                           \
            V p;                                                                             \
            memcpy(&p, (const T *)x + l, sizeof p);                                          \
            for (int d = 0; d < (ND); d++) {                                                 \
                V q;                                                                         \
                memcpy(&q, col[d] + l, sizeof q);                                            \
                acc[d][0] += p * q;                                                          \
            }                                                                                \
        }                                                                                    \
        for (int d = 0; d < (ND); d++) {                                                     \
            for (int a = 1; a < (NA); a++)                                                   \
                acc[d][0] += acc[d][a];                                                      \
            HV half[2]; /* the lanes summed as a tree: halves, then quarters */              \
            QV quarter[2];                                                                   \
            memcpy(half, &acc[d][0], sizeof half);                                           \
            half[0] += half[1];                                                              \
            memcpy(quarter, &half[0], sizeof quarter);                                       \
            quarter[0] += quarter[1];                                                        \
            T tot = 0;                                                                       \
            for (int v = 0; v < L / 4; v++)                                                  \
                tot += quarter[0][v];                                                        \
            for (int64_t r = l; r < k; r++)                                                  \
                tot += ((const T *)x)[r] * col[d][r];                                        \
            *(T *)((char *)y + (j + d) * ys) = tot;                                          \
        }                                                                                    \
    }

#define SMALL_GEMV_BODY(T)                                                                   \
    do {                                                                                     \
        typedef T V __attribute__((vector_size(GEMV_VEC)));                                  \
        typedef T HV __attribute__((vector_size(GEMV_VEC / 2)));                             \
        typedef T QV __attribute__((vector_size(GEMV_VEC / 4)));                             \
        enum { L = GEMV_VEC / (int)sizeof(T) };                                              \
        int64_t j = 0;                                                                       \
        if (mcs == (int64_t)sizeof(T) && ys == (int64_t)sizeof(T) && n >= L)                 \
            GEMV_AXPY(T);                                                                    \
        if (mcs == (int64_t)sizeof(T)) {                                                     \
            GEMV_ROWS(T, 8)                                                                  \
            GEMV_ROWS(T, 4)                                                                  \
            GEMV_ROWS(T, 2)                                                                  \
            GEMV_ROWS(T, 1)                                                                  \
        }                                                                                    \
        if (xs == (int64_t)sizeof(T) && mrs == (int64_t)sizeof(T)) {                         \
            GEMV_DOTS_BLOCK(T, GEMV_DOTS, GEMV_ACC / GEMV_DOTS)                              \
            GEMV_DOTS_BLOCK(T, 1, GEMV_ACC)                                                  \
        }                                                                                    \
        for (; j < n; j++) { /* the columns left, strided */                                 \
            T acc[4] = {0, 0, 0, 0};                                                         \
            int64_t l = 0;                                                                   \
            for (; l + 4 <= k; l += 4)                                                       \
                for (int u = 0; u < 4; u++)                                                  \
                    acc[u] += *(const T *)((const char *)x + (l + u) * xs) *                 \
                              *(const T *)((const char *)mat + (l + u) * mrs + j * mcs);     \
            for (; l < k; l++)                                                               \
                acc[0] += *(const T *)((const char *)x + l * xs) *                           \
                          *(const T *)((const char *)mat + l * mrs + j * mcs);               \
            *(T *)((char *)y + j * ys) = (acc[0] + acc[1]) + (acc[2] + acc[3]);              \
        }                                                                                    \
    } while (0)

/* The fma clone (which implies AVX) contracts `acc += s * r` into FMAs,
 * as OpenBLAS's kernels do; "default" is SSE2. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("fma", "default")))
#endif
static void small_gemv(int t, const void *x, int64_t xs, const void *mat, int64_t mrs, int64_t mcs, int64_t k,
                       int64_t n, void *y, int64_t ys) {
    if (t == 0)
        SMALL_GEMV_BODY(float);
    else
        SMALL_GEMV_BODY(double);
}
#undef SMALL_GEMV_BODY
#undef GEMV_ROWS
#undef GEMV_DOTS_BLOCK
#undef GEMV_AXPY

/* ---- x @ base[idx] without the copy of base[idx] ---------------------------- */

/* idx's item i as an int64; an unsigned one above INT64_MAX becomes -1 -
 * INT64_MAX, out of range of any array. */
static int64_t index_at(const char *idx, int64_t is, int32_t icode, int64_t i) {
    const char *p = idx + i * is;
    switch (icode) {
    case RT_DT(RT_K_INT, 1): return *(const int8_t *)p;
    case RT_DT(RT_K_INT, 2): return *(const int16_t *)p;
    case RT_DT(RT_K_INT, 4): return *(const int32_t *)p;
    case RT_DT(RT_K_UINT, 1): return *(const uint8_t *)p;
    case RT_DT(RT_K_UINT, 2): return *(const uint16_t *)p;
    case RT_DT(RT_K_UINT, 4): return *(const uint32_t *)p;
    case RT_DT(RT_K_UINT, 8): {
        uint64_t u = *(const uint64_t *)p;
        return u > (uint64_t)INT64_MAX ? INT64_MIN : (int64_t)u;
    }
    default: return *(const int64_t *)p;
    }
}


/* a @ b without BLAS when one side is a vector and the product is small
 * (real types); false when BLAS should do it. */
static bool try_small_gemv(int t, const RtMat *a, const RtMat *b, const RtMat *c) {
    int64_t m = a->m, k = a->n, n = b->n;
    if (t > 1 || (m != 1 && n != 1) || m * n * k > SMALL_GEMV)
        return false;
    if (m == 1) /* c[0, :] = a[0, :] @ b */
        small_gemv(t, a->data, a->cs, b->data, b->rs, b->cs, k, n, c->data, c->cs);
    else /* c[:, 0] = b[:, 0] @ a^T */
        small_gemv(t, b->data, b->rs, a->data, a->cs, a->rs, k, m, c->data, c->rs);
    return true;
}

static int type_or_raise(int32_t code) {
    int t = type_index(code);
    if (t < 0)
        rt_raise("TypeError", "hpcjit: linear algebra on an unsupported element type");
    return t;
}

static void identity(const RtMat *x, int t) {
    for (int64_t i = 0; i < x->m; i++)
        for (int64_t j = 0; j < x->n; j++)
            put_c((char *)x->data + i * x->rs + j * x->cs, t, i == j ? 1.0 : 0.0);
}

static double absval(const RtMat *a, int t, int64_t i, int64_t j) {
    return cabs(get_c((const char *)a->data + i * a->rs + j * a->cs, t));
}

/* ---- the Fortran-integer functions, LP64 and ILP64 ---------------------- */

static bool ilp64(void) {
    pthread_once(&lib.once, load);
    return lib.ilp64;
}

#define fint int32_t
#define LA(x) x##_lp64
#include "linalg_lapack.inc"
#undef fint
#undef LA
#define fint int64_t
#define LA(x) x##_ilp64
#include "linalg_lapack.inc"
#undef fint
#undef LA

int32_t rt_linalg_solve(int32_t code, const RtMat *a, const RtMat *b, int32_t b_1d, const RtMat *x) {
    return ilp64() ? solve_ilp64(code, a, b, b_1d, x) : solve_lp64(code, a, b, b_1d, x);
}

int32_t rt_linalg_det(int32_t code, const RtMat *a, void *out) {
    return ilp64() ? det_ilp64(code, a, out) : det_lp64(code, a, out);
}

int32_t rt_linalg_cholesky(int32_t code, const RtMat *a, int32_t upper, const RtMat *out) {
    return ilp64() ? cholesky_ilp64(code, a, upper, out) : cholesky_lp64(code, a, upper, out);
}

int32_t rt_linalg_eigh(int32_t code, const RtMat *a, int32_t upper, const RtMat *w, const RtMat *v) {
    return ilp64() ? eigh_ilp64(code, a, upper, w, v) : eigh_lp64(code, a, upper, w, v);
}

int32_t rt_linalg_svd(int32_t code, const RtMat *a, int32_t full, const RtMat *u, const RtMat *s, const RtMat *vt) {
    return ilp64() ? svd_ilp64(code, a, full, u, s, vt) : svd_lp64(code, a, full, u, s, vt);
}

int32_t rt_linalg_qr(int32_t code, const RtMat *a, const RtMat *q, const RtMat *r) {
    return ilp64() ? qr_ilp64(code, a, q, r) : qr_lp64(code, a, q, r);
}

int32_t rt_linalg_lstsq(int32_t code, const RtMat *a, const RtMat *b, double rcond, const RtMat *x, const RtMat *res, int64_t *nres, int64_t *rank, const RtMat *s) {
    return ilp64() ? lstsq_ilp64(code, a, b, rcond, x, res, nres, rank, s) : lstsq_lp64(code, a, b, rcond, x, res, nres, rank, s);
}

int32_t rt_linalg_norm(int32_t code, const RtMat *a, int32_t vector, int32_t kind, double p, double *out) {
    return ilp64() ? norm_ilp64(code, a, vector, kind, p, out) : norm_lp64(code, a, vector, kind, p, out);
}

int32_t rt_linalg_slogdet(int32_t code, const RtMat *a, void *sign, void *logdet) {
    return ilp64() ? slogdet_ilp64(code, a, sign, logdet) : slogdet_lp64(code, a, sign, logdet);
}

int32_t rt_linalg_matrix_rank(int32_t code, const RtMat *a, double tol, int64_t *rank) {
    return ilp64() ? matrix_rank_ilp64(code, a, tol, rank) : matrix_rank_lp64(code, a, tol, rank);
}

int32_t rt_linalg_cond(int32_t code, const RtMat *a, int32_t kind, double p, double *out) {
    if (kind == RT_NORM_NONE || (kind == RT_NORM_P && (p == 2 || p == -2))) {
        bool minus = kind == RT_NORM_P && p < 0;
        return ilp64() ? cond_ilp64(code, a, minus, out) : cond_lp64(code, a, minus, out);
    }
    int t = type_or_raise(code);
    if (t < 0)
        return -1;
    if (a->m == 0 || a->n == 0) {
        rt_raise("numpy.linalg.LinAlgError", "cond is not defined on empty arrays");
        return -1;
    }
    if (!square(a))
        return -1;
    int64_t n = a->m;
    size_t sz = tsize[t];
    char *inv = scratch((size_t)(n * n), sz);
    if (!inv)
        return -1;
    RtMat Inv = {inv, n, n, n * (int64_t)sz, (int64_t)sz};
    double na = 0, ni = 0;
    int32_t st = rt_linalg_norm(code, a, 0, kind, p, &na);
    if (st == 0 && rt_linalg_inv(code, a, &Inv) < 0) {
        const char *type = NULL, *msg = NULL;
        if (rt_exc_fetch(&type, &msg) && strcmp(type, "numpy.linalg.LinAlgError") != 0) {
            char tb[RT_EXC_TYPE_MAX], mb[RT_EXC_MSG_MAX]; /* not a singular matrix: raise it again */
            snprintf(tb, sizeof tb, "%s", type);
            snprintf(mb, sizeof mb, "%s", msg ? msg : "");
            rt_raise(tb, msg ? mb : NULL);
            st = -1;
        } else {
            *out = INFINITY; /* singular: NumPy's inv gives NaNs, cond inf */
            free(inv);
            return 0;
        }
    }
    if (st == 0)
        st = rt_linalg_norm(code, &Inv, 0, kind, p, &ni);
    if (st == 0)
        *out = isnan(na * ni) ? INFINITY : na * ni;
    free(inv);
    return st;
}

int32_t rt_linalg_pinv(int32_t code, const RtMat *a, double rcond, const RtMat *out) {
    return ilp64() ? pinv_ilp64(code, a, rcond, out) : pinv_lp64(code, a, rcond, out);
}

int32_t rt_linalg_eig(int32_t code, const RtMat *a, const RtMat *w, const RtMat *v) {
    return ilp64() ? eig_ilp64(code, a, w, v) : eig_lp64(code, a, w, v);
}

/* c *= alpha (the product's type t): the runtime's own loops' scaling */
#define SCALE_C(T, MUL)                                                                          \
    for (int64_t i = 0; i < c->m; i++)                                                         \
        for (int64_t j = 0; j < c->n; j++) {                                                   \
            T *p = (T *)((char *)c->data + i * c->rs + j * c->cs);                             \
            *p = MUL(*p, *(const T *)alpha);                                                   \
        }
#define MUL_R(x, y) ((x) * (y))
static void scale_c(int t, const RtMat *c, const void *alpha) {
    switch (t) {
    case 0: SCALE_C(float, MUL_R) break;
    case 1: SCALE_C(double, MUL_R) break;
    case 2: SCALE_C(c64, mul64) break;
    default: SCALE_C(c128, mul128) break;
    }
}
#undef SCALE_C
#undef MUL_R

/* c = alpha * (a @ b), alpha NULL meaning 1 (rt_linalg_matmul). */
static int32_t matmul_alpha(int32_t code, int32_t how, const RtMat *a, const RtMat *b, const RtMat *c,
                            const void *alpha) {
    if (a->n != b->m) {
        mismatch(how, a, b);
        return -1;
    }
    int t = type_index(code);
    if (t < 0) {
        int_matmul(code, a, b, c);
        return 0;
    }
    size_t sz = tsize[t];
    int64_t m = a->m, k = a->n, n = b->n;
    if (m == 0 || n == 0)
        return 0;
    if (k == 0) {
        zero_out(c, sz);
        return 0;
    }
    bool own = true;
    if (try_small_gemv(t, a, b, c))
        ;
    else if (m <= SMALL_PRODUCT && n <= SMALL_PRODUCT && k <= SMALL_PRODUCT && m * n * k <= SMALL_PRODUCT)
        small_matmul(t, (how & 3) == RT_LA_VDOT, a, b, c);
    /* a thin product (an inner dimension of a few items: 2x2 @ 2x16384 in
     * a radix-2 FFT) of modest size: each output item is a short dot, which
     * a threaded BLAS would hand to its threads for nothing */
    else if (k <= THIN_K && m * n * k <= THIN_PRODUCT) {
        if (overlap(c, a, sz) || overlap(c, b, sz)) /* np.dot(a, b, out) */
            small_matmul(t, (how & 3) == RT_LA_VDOT, a, b, c);
        else
            thin_matmul(t, (how & 3) == RT_LA_VDOT, a, b, c);
    }
    else
        own = false;
    if (own) {
        if (alpha)
            scale_c(t, c, alpha);
        return 0;
    }
    if (!fits(m, k) || !fits(n, 1))
        return -1;
    return ilp64() ? matmul_blas_ilp64(t, how, a, b, c, alpha) : matmul_blas_lp64(t, how, a, b, c, alpha);
}

int32_t rt_linalg_matmul(int32_t code, int32_t how, const RtMat *a, const RtMat *b, const RtMat *c) {
    return matmul_alpha(code, how, a, b, c, NULL);
}

int32_t rt_linalg_matmul_scaled(int32_t code, int32_t how, const RtMat *a, const RtMat *b, const RtMat *c,
                                const void *alpha, int32_t side) {
    int t = type_or_raise(code);
    if (t < 0)
        return -1;
    c128 s = get_c(alpha, t);
    if (s != 0 && isfinite(creal(s)) && isfinite(cimag(s)))
        return matmul_alpha(code, how, a, b, c, alpha);
    /* as written: BLAS skips the product when alpha is 0, and an inf or
     * NaN must meet each item of the operand (inf * 0 is NaN) */
    RtMat S;
    char *buf = NULL;
    if (!c_copy(side ? b : a, t, false, &S, &buf))
        return -1;
    scale_c(t, &S, alpha);
    int32_t st = side ? matmul_alpha(code, how, a, &S, c, NULL) : matmul_alpha(code, how, &S, b, c, NULL);
    free(buf);
    return st;
}

/* ---- N-d matmul ------------------------------------------------------------ */

#define MAXND 32 /* HJ_MAX_NDIM of abi.h */

static int nbatch_of(int32_t nd) { return nd > 2 ? nd - 2 : 0; }

/* "(2,3,newaxis)", "(4,)" */
static void tuple_str(char *b, size_t nb, const int64_t *sh, int n, int newaxes) {
    int tot = n + newaxes;
    size_t k = (size_t)snprintf(b, nb, "(");
    for (int i = 0; i < tot && k < nb; i++) {
        if (i < n)
            k += (size_t)snprintf(b + k, nb - k, "%lld", (long long)sh[i]);
        else
            k += (size_t)snprintf(b + k, nb - k, "newaxis");
        if ((i + 1 < tot || tot == 1) && k < nb)
            k += (size_t)snprintf(b + k, nb - k, ",");
    }
    if (k < nb)
        snprintf(b + k, nb - k, ")");
}

int32_t rt_linalg_gather_dot(int32_t code, int32_t how, int32_t side, const void *x, int64_t k, int64_t xs,
                             const void *base, int64_t nbase, int64_t bs, const void *idx, int64_t nidx, int64_t is,
                             int32_t icode, int32_t axis, void *out) {
    for (int64_t i = 0; i < nidx; i++) { /* base[idx] first: its IndexError, as NumPy */
        int64_t v = index_at(idx, is, icode, i);
        if (v < -nbase || v >= nbase) {
            rt_raise_index(v, axis, nbase);
            return -1;
        }
    }
    size_t sz = (size_t)(code % 32);
    RtMat X = {(void *)x, 1, k, 0, xs}, G = {NULL, nidx, 1, (int64_t)sz, 0};
    if (side == 0) { /* base[idx] @ x */
        X = (RtMat){(void *)x, k, 1, xs, 0};
        G = (RtMat){NULL, 1, nidx, 0, (int64_t)sz};
    }
    const RtMat *a = side ? &X : &G, *b = side ? &G : &X;
    if (a->n != b->m) {
        mismatch(how, a, b);
        return -1;
    }
    /* the items are gathered into a buffer on the stack (a short row of
     * a sparse matrix) or the heap, and multiplied by the same code as a
     * copy a[idx] would be: the same sums, bit for bit, without making
     * an array of the copy */
    _Alignas(16) char stack[2048];
    char *buf = stack;
    if ((uint64_t)nidx * sz > sizeof stack && !(buf = scratch((size_t)nidx, sz)))
        return -1;
    for (int64_t i = 0; i < nidx; i++) {
        int64_t v = index_at(idx, is, icode, i);
        copy_item(buf + i * (int64_t)sz, (const char *)base + (v < 0 ? v + nbase : v) * bs, sz);
    }
    G.data = buf;
    RtMat C = {out, 1, 1, (int64_t)sz, (int64_t)sz};
    int32_t st = matmul_alpha(code, how, a, b, &C, NULL);
    if (buf != stack)
        free(buf);
    return st;
}

int32_t rt_linalg_matmul_shape(int32_t nda, const int64_t *sha, int32_t ndb, const int64_t *shb, int64_t *out) {
    int64_t ka = sha[nda - 1], kb = ndb == 1 ? shb[0] : shb[ndb - 2];
    if (ka != kb) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                 "(n?,k),(k,m?)->(n?,m?) (size %lld is different from %lld)",
                 (long long)kb, (long long)ka);
        rt_raise("ValueError", msg);
        return -1;
    }
    int na = nbatch_of(nda), nb = nbatch_of(ndb), n = na > nb ? na : nb, k = 0;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t x = ia >= 0 ? sha[ia] : 1, y = ib >= 0 ? shb[ib] : 1;
        if (x != y && x != 1 && y != 1) {
            char msg[RT_EXC_MSG_MAX], s1[160], s2[160], s3[64];
            int64_t core[2];
            int nc = 0;
            if (nda > 1)
                core[nc++] = sha[nda - 2];
            if (ndb > 1)
                core[nc++] = shb[ndb - 1];
            tuple_str(s1, sizeof s1, sha, nda, 0);
            tuple_str(s2, sizeof s2, shb, ndb, 0);
            tuple_str(s3, sizeof s3, core, nc, 0);
            char r1[160], r2[160];
            tuple_str(r1, sizeof r1, sha, na, nda > 1 ? 2 : 1);
            tuple_str(r2, sizeof r2, shb, nb, ndb > 1 ? 2 : 1);
            snprintf(msg, sizeof msg,
                     "operands could not be broadcast together with remapped shapes [original->remapped]: "
                     "%s->%s %s->%s  and requested shape %s",
                     s1, r1, s2, r2, s3);
            rt_raise("ValueError", msg);
            return -1;
        }
        out[k++] = x == 1 ? y : x;
    }
    if (nda > 1)
        out[k++] = sha[nda - 2];
    if (ndb > 1)
        out[k++] = shb[ndb - 1];
    return 0;
}

int32_t rt_linalg_matmul_nd(int32_t code, int32_t nda, void *da, const int64_t *sha, const int64_t *sta,
                            int32_t ndb, void *db, const int64_t *shb, const int64_t *stb, void *dc,
                            const int64_t *stc) {
    int64_t shc[MAXND + 2];
    if (nda > MAXND || ndb > MAXND || rt_linalg_matmul_shape(nda, sha, ndb, shb, shc) < 0)
        return -1;
    int na = nbatch_of(nda), nb = nbatch_of(ndb), n = na > nb ? na : nb;
    /* the core matrices: a 1-D a is a row, a 1-D b a column */
    RtMat A = nda == 1 ? (RtMat){da, 1, sha[0], 0, sta[0]}
                       : (RtMat){da, sha[nda - 2], sha[nda - 1], sta[nda - 2], sta[nda - 1]};
    RtMat B = ndb == 1 ? (RtMat){db, shb[0], 1, stb[0], 0}
                       : (RtMat){db, shb[ndb - 2], shb[ndb - 1], stb[ndb - 2], stb[ndb - 1]};
    RtMat C = {dc, A.m, B.n, 0, 0};
    if (nda > 1 && ndb > 1) {
        C.rs = stc[n];
        C.cs = stc[n + 1];
    } else if (nda > 1) {
        C.rs = stc[n];
    } else {
        C.cs = stc[n];
    }
    /* batch strides, 0 where an operand broadcasts */
    int64_t bsa[MAXND], bsb[MAXND], total = 1;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        bsa[i] = ia >= 0 && sha[ia] != 1 ? sta[ia] : 0;
        bsb[i] = ib >= 0 && shb[ib] != 1 ? stb[ib] : 0;
        total *= shc[i];
    }
    int64_t idx[MAXND] = {0};
    int32_t how = RT_LA_MATMUL | (nda > 1 ? 2 : 1) << 2 | (ndb > 1 ? 2 : 1) << 4;
    for (int64_t it = 0; it < total; it++) {
        int64_t oa = 0, ob = 0, oc = 0;
        for (int i = 0; i < n; i++) {
            oa += idx[i] * bsa[i];
            ob += idx[i] * bsb[i];
            oc += idx[i] * stc[i];
        }
        RtMat a1 = A, b1 = B, c1 = C;
        a1.data = (char *)da + oa;
        b1.data = (char *)db + ob;
        c1.data = (char *)dc + oc;
        if (rt_linalg_matmul(code, how, &a1, &b1, &c1) < 0)
            return -1;
        for (int i = n - 1; i >= 0; i--) { /* next batch index, C order */
            if (++idx[i] < shc[i])
                break;
            idx[i] = 0;
        }
    }
    return 0;
}

void rt_linalg_outer(int32_t code, const void *a, int64_t m, const void *b, int64_t n, void *out) {
    int t = type_index(code);
    if (t < 0) {
        size_t sz = (size_t)(code % 32);
        for (int64_t i = 0; i < m; i++) {
            uint64_t x = get_u((const char *)a + (size_t)i * sz, sz);
            for (int64_t j = 0; j < n; j++)
                put_u((char *)out + (size_t)(i * n + j) * sz, sz, x * get_u((const char *)b + (size_t)j * sz, sz));
        }
        return;
    }
#define OUTER(T)                                                                                               \
    do {                                                                                                       \
        const T *x = a, *y = b;                                                                                \
        T *o = out;                                                                                            \
        for (int64_t i = 0; i < m; i++)                                                                        \
            for (int64_t j = 0; j < n; j++)                                                                    \
                o[i * n + j] = x[i] * y[j];                                                                    \
    } while (0)
    switch (t) {
    case 0: OUTER(float); break;
    case 1: OUTER(double); break;
    case 2: OUTER(c64); break;
    default: OUTER(c128); break;
    }
#undef OUTER
}

void rt_linalg_kron(int32_t code, const RtMat *a, const RtMat *b, void *out) {
    int t = type_index(code);
    size_t sz = t < 0 ? (size_t)(code % 32) : tsize[t];
    int64_t cols = a->n * b->n;
    for (int64_t i = 0; i < a->m; i++)
        for (int64_t j = 0; j < a->n; j++) {
            const char *pa = (const char *)a->data + i * a->rs + j * a->cs;
            for (int64_t k = 0; k < b->m; k++)
                for (int64_t l = 0; l < b->n; l++) {
                    const char *pb = (const char *)b->data + k * b->rs + l * b->cs;
                    char *po = (char *)out + (size_t)((i * b->m + k) * cols + j * b->n + l) * sz;
                    if (t < 0)
                        put_u(po, sz, get_u(pa, sz) * get_u(pb, sz));
                    else
                        put_c(po, t, get_c(pa, t) * get_c(pb, t));
                }
        }
}

void rt_linalg_trace(int32_t code, const RtMat *a, int64_t offset, int32_t out_code, void *out) {
    int64_t i0 = offset < 0 ? -offset : 0, j0 = offset > 0 ? offset : 0;
    int64_t len = min64(a->m - i0, a->n - j0);
    int t = type_index(code);
    if (t < 0) {
        size_t sz = (size_t)(code % 32);
        bool sign = code / 32 == RT_K_INT;
        uint64_t acc = 0;
        for (int64_t d = 0; d < len; d++) {
            uint64_t v = get_u((const char *)a->data + (i0 + d) * a->rs + (j0 + d) * a->cs, sz);
            if (sign && sz < 8 && (v >> (8 * sz - 1)))
                v |= ~(uint64_t)0 << (8 * sz); /* sign-extend */
            acc += v;
        }
        *(uint64_t *)out = acc;
        return;
    }
    c128 acc = 0;
    for (int64_t d = 0; d < len; d++)
        acc += get_c((const char *)a->data + (i0 + d) * a->rs + (j0 + d) * a->cs, t);
    put_c(out, type_index(out_code), acc);
}

/* ---- LAPACK ----------------------------------------------------------------- */

int32_t rt_linalg_inv(int32_t code, const RtMat *a, const RtMat *out) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    if (n == 0)
        return 0;
    size_t sz = tsize[t];
    char *eye = scratch((size_t)(n * n), sz);
    if (!eye)
        return -1;
    for (int64_t i = 0; i < n; i++)
        put_c(eye + (size_t)(i * n + i) * sz, t, 1.0);
    RtMat id = {eye, n, n, (int64_t)sz, n * (int64_t)sz};
    int32_t st = rt_linalg_solve(code, a, &id, 0, out);
    free(eye);
    return st;
}

/* ---- norm ------------------------------------------------------------------ */

/* ---- slogdet, pinv, matrix_rank, cond, matrix_power ----------------------- */

int32_t rt_linalg_matrix_power(int32_t code, const RtMat *a, int64_t n, const RtMat *out) {
    int t = type_index(code);
    if (a->m != a->n) {
        linalg_error("Last 2 dimensions of the array must be square");
        return -1;
    }
    int64_t d = a->m;
    size_t sz = t < 0 ? (size_t)(code % 32) : tsize[t];
    int64_t isz = (int64_t)sz;
    /* base (C scratch) = a, or inv(a) for n < 0; res = identity */
    char *base = scratch((size_t)(d * d), sz), *res = base ? scratch((size_t)(d * d), sz) : NULL;
    char *tmp = res ? scratch((size_t)(d * d), sz) : NULL;
    int32_t st = -1;
    if (!tmp)
        goto out;
    RtMat B = {base, d, d, d * isz, isz}, R = {res, d, d, d * isz, isz}, T = {tmp, d, d, d * isz, isz};
    if (n < 0) {
        if (t < 0) {
            rt_raise("TypeError", "hpcjit: matrix_power() of an integer matrix needs a power >= 0");
            goto out;
        }
        if (rt_linalg_inv(code, a, &B) < 0)
            goto out;
        n = -n;
    } else {
        for (int64_t i = 0; i < d; i++)
            for (int64_t j = 0; j < d; j++)
                copy_item(base + (size_t)(i * d + j) * sz, (const char *)a->data + i * a->rs + j * a->cs, sz);
    }
    for (int64_t i = 0; i < d; i++) {
        if (t < 0)
            put_u(res + (size_t)(i * d + i) * sz, sz, 1);
        else
            put_c(res + (size_t)(i * d + i) * sz, t, 1.0);
    }
    int32_t how = RT_LA_MATMUL | 2 << 2 | 2 << 4;
    for (; n > 0; n >>= 1) { /* square and multiply */
        if (n & 1) {
            if (rt_linalg_matmul(code, how, &R, &B, &T) < 0)
                goto out;
            memcpy(res, tmp, (size_t)(d * d) * sz);
        }
        if (n > 1) {
            if (rt_linalg_matmul(code, how, &B, &B, &T) < 0)
                goto out;
            memcpy(base, tmp, (size_t)(d * d) * sz);
        }
    }
    for (int64_t i = 0; i < d; i++)
        for (int64_t j = 0; j < d; j++)
            copy_item((char *)out->data + i * out->rs + j * out->cs, res + (size_t)(i * d + j) * sz, sz);
    st = 0;
out:
    free(base);
    free(res);
    free(tmp);
    return st;
}

int32_t rt_linalg_norm_axis(int32_t code, const RtMat *a, int32_t axis, int32_t kind, double p, void *out,
                            int64_t stride, int32_t out_code) {
    int64_t count = axis == 0 ? a->n : a->m;
    int ot = type_index(out_code);
    for (int64_t i = 0; i < count; i++) {
        RtMat v = axis == 0 ? (RtMat){(char *)a->data + i * a->cs, a->m, 1, a->rs, 0}
                            : (RtMat){(char *)a->data + i * a->rs, a->n, 1, a->cs, 0};
        double r = 0;
        if (rt_linalg_norm(code, &v, 1, kind, p, &r) < 0)
            return -1;
        put_c((char *)out + i * stride, ot, r);
    }
    return 0;
}


int32_t rt_linalg_stacked(int32_t op, int32_t code, int32_t nd, void *a, const int64_t *shape,
                          const int64_t *strides, void *out, const int64_t *ost, int32_t upper) {
    int nb = nd - 2;
    int64_t total = 1, idx[MAXND] = {0};
    if (nd > MAXND)
        return -1;
    for (int i = 0; i < nb; i++)
        total *= shape[i];
    for (int64_t it = 0; it < total; it++) {
        int64_t oa = 0, oo = 0;
        for (int i = 0; i < nb; i++) {
            oa += idx[i] * strides[i];
            oo += idx[i] * ost[i];
        }
        RtMat A = {(char *)a + oa, shape[nb], shape[nb + 1], strides[nb], strides[nb + 1]};
        int32_t st;
        if (op == RT_STACK_DET) {
            st = rt_linalg_det(code, &A, (char *)out + oo);
        } else {
            RtMat O = {(char *)out + oo, shape[nb], shape[nb + 1], ost[nb], ost[nb + 1]};
            st = op == RT_STACK_INV ? rt_linalg_inv(code, &A, &O) : rt_linalg_cholesky(code, &A, upper, &O);
        }
        if (st < 0)
            return -1;
        for (int i = nb - 1; i >= 0; i--) {
            if (++idx[i] < shape[i])
                break;
            idx[i] = 0;
        }
    }
    if (total == 0 && shape[nb] != shape[nb + 1]) { /* an empty stack of non-square matrices */
        linalg_error("Last 2 dimensions of the array must be square");
        return -1;
    }
    return 0;
}
