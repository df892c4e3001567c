/* linalg.c - BLAS/LAPACK behind np.dot/matmul and np.linalg (hpcjit/linalg.h).
 *
 * The library is dlopened on the first call that needs it (import hpcjit
 * and the build stay free of BLAS), and the Fortran symbols are looked up
 * once.  Fortran passes everything by reference, integers are 32-bit
 * (LP64 builds) and each CHARACTER argument has a hidden length appended:
 * we pass those lengths, which implementations in C simply ignore. */
#include "hpcjit/linalg.h"

#include <complex.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/search.h"

typedef int fint;
typedef float complex c64;
typedef double complex c128;

/* ---- loading -------------------------------------------------------------- */

/* ORDER: the rows of sym_names follow this enum; columns s, d, c, z. */
enum { F_GEMM, F_GEMV, F_GESV, F_GETRF, F_POTRF, F_EVD, F_GESDD, F_GEQRF, F_ORGQR, F_GELSD, F_GEEV, F_COUNT };
static const char *const sym_names[F_COUNT][4] = {
    {"sgemm_", "dgemm_", "cgemm_", "zgemm_"},     {"sgemv_", "dgemv_", "cgemv_", "zgemv_"},
    {"sgesv_", "dgesv_", "cgesv_", "zgesv_"},     {"sgetrf_", "dgetrf_", "cgetrf_", "zgetrf_"},
    {"spotrf_", "dpotrf_", "cpotrf_", "zpotrf_"}, {"ssyevd_", "dsyevd_", "cheevd_", "zheevd_"},
    {"sgesdd_", "dgesdd_", "cgesdd_", "zgesdd_"}, {"sgeqrf_", "dgeqrf_", "cgeqrf_", "zgeqrf_"},
    {"sorgqr_", "dorgqr_", "cungqr_", "zungqr_"}, {"sgelsd_", "dgelsd_", "cgelsd_", "zgelsd_"},
    {"sgeev_", "dgeev_", "cgeev_", "zgeev_"},
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
    snprintf(lib.error + el, sizeof lib.error - el, "%s%s: no dgemm_/dgesv_ (not BLAS + LAPACK)", el ? "; " : "",
             list);
    close_all();
    return false;
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
    }
    if (!lib.ok)
        return;
    for (int f = 0; f < F_COUNT; f++)
        for (int t = 0; t < 4; t++)
            lib.fn[f][t] = find(sym_names[f][t]);
}

/* The routine f for type index t, or NULL with OSError pending. */
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

/* ---- Fortran prototypes (pointer arguments are untyped: s/d/c/z share them) ---- */

typedef const fint *FI;
typedef const char *FC;
typedef void (*gemm_t)(FC, FC, FI, FI, FI, const void *, const void *, FI, const void *, FI, const void *, void *, FI,
                       size_t, size_t);
typedef void (*gemv_t)(FC, FI, FI, const void *, const void *, FI, const void *, FI, const void *, void *, FI, size_t);
typedef void (*gesv_t)(FI, FI, void *, FI, fint *, void *, FI, fint *);
typedef void (*getrf_t)(FI, FI, void *, FI, fint *, fint *);
typedef void (*potrf_t)(FC, FI, void *, FI, fint *, size_t);
typedef void (*syevd_t)(FC, FC, FI, void *, FI, void *, void *, FI, fint *, FI, fint *, size_t, size_t);
typedef void (*heevd_t)(FC, FC, FI, void *, FI, void *, void *, FI, void *, FI, fint *, FI, fint *, size_t, size_t);
typedef void (*gesdd_r_t)(FC, FI, FI, void *, FI, void *, void *, FI, void *, FI, void *, FI, fint *, fint *, size_t);
typedef void (*gesdd_c_t)(FC, FI, FI, void *, FI, void *, void *, FI, void *, FI, void *, FI, void *, fint *, fint *,
                          size_t);
typedef void (*geqrf_t)(FI, FI, void *, FI, void *, void *, FI, fint *);
typedef void (*orgqr_t)(FI, FI, FI, void *, FI, const void *, void *, FI, fint *);
typedef void (*geev_r_t)(FC, FC, FI, void *, FI, void *, void *, void *, FI, void *, FI, void *, FI, fint *, size_t,
                         size_t);
typedef void (*geev_c_t)(FC, FC, FI, void *, FI, void *, void *, FI, void *, FI, void *, FI, void *, fint *, size_t,
                         size_t);
typedef void (*gelsd_r_t)(FI, FI, FI, void *, FI, void *, FI, void *, const void *, fint *, void *, FI, fint *, fint *);
typedef void (*gelsd_c_t)(FI, FI, FI, void *, FI, void *, FI, void *, const void *, fint *, void *, FI, void *, fint *,
                          fint *);

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

/* How BLAS can read x in place: *rowmajor (x is op(T) of a column-major
 * matrix) and *ld; false when it must be copied.  The stride along an
 * axis of length 1 does not matter. */
static bool blas_view(const RtMat *x, size_t sz, bool *rowmajor, fint *ld) {
    int64_t m = x->m, n = x->n, s = (int64_t)sz;
    if ((n <= 1 || x->cs == s) && (m <= 1 || (x->rs > 0 && x->rs % s == 0 && x->rs / s >= max64(1, n)))) {
        int64_t l = m <= 1 ? max64(1, n) : x->rs / s;
        if (l <= 0x7fffffff) {
            *rowmajor = true;
            *ld = (fint)l;
            return true;
        }
    }
    if ((m <= 1 || x->rs == s) && (n <= 1 || (x->cs > 0 && x->cs % s == 0 && x->cs / s >= max64(1, m)))) {
        int64_t l = n <= 1 ? max64(1, m) : x->cs / s;
        if (l <= 0x7fffffff) {
            *rowmajor = false;
            *ld = (fint)l;
            return true;
        }
    }
    return false;
}

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

/* Element stride of a vector along its length (axis of x with len > 1),
 * or 0 when it is not positive / not a whole number of items. */
static fint vec_inc(int64_t stride, int64_t len, size_t sz) {
    if (len <= 1)
        return 1;
    if (stride <= 0 || stride % (int64_t)sz || stride / (int64_t)sz > 0x7fffffff)
        return 0;
    return (fint)(stride / (int64_t)sz);
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

/* c = a @ b in the items' own type (conj(a) when cj), strides as given. */
#define SMALL_MATMUL(T, CONJ)                                                                            \
    for (int64_t i = 0; i < c->m; i++)                                                                 \
        for (int64_t j = 0; j < c->n; j++) {                                                           \
            T acc = 0;                                                                                 \
            const char *pa = (const char *)a->data + i * a->rs, *pb = (const char *)b->data + j * b->cs; \
            for (int64_t k = 0; k < a->n; k++)                                                         \
                acc += CONJ(*(const T *)(pa + k * a->cs)) * *(const T *)(pb + k * b->rs);             \
            *(T *)((char *)c->data + i * c->rs + j * c->cs) = acc;                                     \
        }
#define NO_CONJ(x) (x)

static void small_matmul(int t, bool cj, const RtMat *a, const RtMat *b, const RtMat *c) {
    switch (t) {
    case 0: SMALL_MATMUL(float, NO_CONJ) break;
    case 1: SMALL_MATMUL(double, NO_CONJ) break;
    case 2:
        if (cj) {
            SMALL_MATMUL(c64, conjf)
        } else {
            SMALL_MATMUL(c64, NO_CONJ)
        }
        break;
    default:
        if (cj) {
            SMALL_MATMUL(c128, conj)
        } else {
            SMALL_MATMUL(c128, NO_CONJ)
        }
        break;
    }
}
#undef SMALL_MATMUL
#undef NO_CONJ

int32_t rt_linalg_matmul(int32_t code, int32_t how, const RtMat *a, const RtMat *b, const RtMat *c) {
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
    if (m <= SMALL_PRODUCT && n <= SMALL_PRODUCT && k <= SMALL_PRODUCT && m * n * k <= SMALL_PRODUCT) {
        small_matmul(t, (how & 3) == RT_LA_VDOT, a, b, c);
        return 0;
    }
    if (!fits(m, k) || !fits(n, 1))
        return -1;
    char *abuf = NULL, *bbuf = NULL, *cbuf = NULL;
    RtMat A = *a, B = *b, Cm = *c;
    int32_t st = -1;
    bool arow = false, brow = false, crow = false;
    fint lda = 0, ldb = 0, ldc = 0;
    bool cj = (how & 3) == RT_LA_VDOT && is_cplx(t);
    if ((cj || !blas_view(&A, sz, &arow, &lda)) && (!c_copy(a, t, cj, &A, &abuf) || !blas_view(&A, sz, &arow, &lda)))
        goto out;
    if (!blas_view(&B, sz, &brow, &ldb) && (!c_copy(b, t, false, &B, &bbuf) || !blas_view(&B, sz, &brow, &ldb)))
        goto out;
    /* the result: written in place when BLAS can, else through a C scratch */
    if (!blas_view(&Cm, sz, &crow, &ldc) || !crow) {
        cbuf = scratch((size_t)(m * n), sz);
        if (!cbuf)
            goto out;
        Cm = (RtMat){cbuf, m, n, n * (int64_t)sz, (int64_t)sz};
        blas_view(&Cm, sz, &crow, &ldc);
    }
    fint M = (fint)m, N = (fint)n, K = (fint)k;
    if (n == 1 || m == 1) {
        gemv_t gemv = (gemv_t)routine(F_GEMV, t);
        if (!gemv)
            goto out;
        /* y = A x (n == 1) or y = B^T x (m == 1); Mat is the matrix operand */
        const RtMat *Mat = n == 1 ? &A : &B, *x = n == 1 ? &B : &A;
        bool row = n == 1 ? arow : brow;
        fint ld = n == 1 ? lda : ldb;
        fint incx = n == 1 ? vec_inc(x->rs, k, sz) : vec_inc(x->cs, k, sz);
        fint incy = n == 1 ? vec_inc(Cm.rs, m, sz) : vec_inc(Cm.cs, n, sz);
        char *xbuf = NULL;
        RtMat X = *x;
        if (!incx) { /* only when x was not copied: copy it now */
            if (!c_copy(x, t, false, &X, &xbuf))
                goto out;
            incx = 1;
        }
        fint rows = n == 1 ? M : K, cols = n == 1 ? K : N; /* Mat is rows x cols */
        /* column-major Mat: 'N' gives Mat x, 'T' gives Mat^T x; row-major swaps */
        bool want_t = n == 1 ? false : true;
        const char *tr = (want_t != row) ? "T" : "N";
        fint gm = row ? cols : rows, gn = row ? rows : cols;
        if (incy == 0)
            incy = 1; /* c is contiguous here (a scratch otherwise) */
        gemv(tr, &gm, &gn, one_of(t), Mat->data, &ld, X.data, &incx, zero_of(t), Cm.data, &incy, 1);
        free(xbuf);
    } else {
        gemm_t gemm = (gemm_t)routine(F_GEMM, t);
        if (!gemm)
            goto out;
        /* C (row-major) is C^T column-major = B^T A^T: B^T is 'N' on a
         * row-major B, 'T' on a column-major one; likewise A^T */
        gemm(brow ? "N" : "T", arow ? "N" : "T", &N, &M, &K, one_of(t), B.data, &ldb, A.data, &lda, zero_of(t),
             Cm.data, &ldc, 1, 1);
    }
    if (cbuf)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++)
                copy_item((char *)c->data + i * c->rs + j * c->cs, cbuf + (size_t)(i * n + j) * sz, sz);
    st = 0;
out:
    free(abuf);
    free(bbuf);
    free(cbuf);
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

static int type_or_raise(int32_t code) {
    int t = type_index(code);
    if (t < 0)
        rt_raise("TypeError", "hpcjit: linear algebra on an unsupported element type");
    return t;
}

/* The optimal workspace from a query's first item (a real or complex number). */
static fint lwork_of(const void *w, int t) {
    double v = get_real(w, t);
    return v < 1 ? 1 : (fint)(v + 0.5);
}

int32_t rt_linalg_solve(int32_t code, const RtMat *a, const RtMat *b, int32_t b_1d, const RtMat *x) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    if (b->m != n) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 b_1d ? "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                        "(m,m),(m)->(m) (size %lld is different from %lld)"
                      : "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                        "(m,m),(m,n)->(m,n) (size %lld is different from %lld)",
                 (long long)b->m, (long long)n);
        rt_raise("ValueError", msg);
        return -1;
    }
    if (n == 0 || b->n == 0)
        return 0;
    if (!fits(n, b->n))
        return -1;
    gesv_t gesv = (gesv_t)routine(F_GESV, t);
    if (!gesv)
        return -1;
    size_t sz = tsize[t];
    int32_t st = -1;
    char *A = f_copy(a, sz, n, n), *B = A ? f_copy(b, sz, n, b->n) : NULL;
    fint *ipiv = B ? scratch((size_t)n, sizeof(fint)) : NULL;
    if (ipiv) {
        fint N = (fint)n, NR = (fint)b->n, info = 0;
        gesv(&N, &NR, A, &N, ipiv, B, &N, &info);
        if (info > 0) {
            linalg_error("Singular matrix");
        } else {
            from_f(B, n, n, b->n, sz, x);
            st = 0;
        }
    }
    free(A);
    free(B);
    free(ipiv);
    return st;
}

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

int32_t rt_linalg_det(int32_t code, const RtMat *a, void *out) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    if (n == 0) {
        put_c(out, t, 1.0);
        return 0;
    }
    getrf_t getrf = (getrf_t)routine(F_GETRF, t);
    if (!getrf)
        return -1;
    size_t sz = tsize[t];
    char *A = f_copy(a, sz, n, n);
    fint *ipiv = A ? scratch((size_t)n, sizeof(fint)) : NULL;
    if (!ipiv) {
        free(A);
        return -1;
    }
    fint N = (fint)n, info = 0;
    getrf(&N, &N, A, &N, ipiv, &info);
    c128 d = 1.0;
    for (int64_t i = 0; i < n; i++) {
        d *= get_c(A + (size_t)(i * n + i) * sz, t);
        if (ipiv[i] != i + 1)
            d = -d;
    }
    put_c(out, t, d);
    free(A);
    free(ipiv);
    return 0;
}

int32_t rt_linalg_cholesky(int32_t code, const RtMat *a, int32_t upper, const RtMat *out) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    if (n == 0)
        return 0;
    potrf_t potrf = (potrf_t)routine(F_POTRF, t);
    if (!potrf)
        return -1;
    size_t sz = tsize[t];
    char *A = f_copy(a, sz, n, n);
    if (!A)
        return -1;
    fint N = (fint)n, info = 0;
    potrf(upper ? "U" : "L", &N, A, &N, &info, 1);
    if (info > 0) {
        free(A);
        linalg_error("Matrix is not positive definite");
        return -1;
    }
    for (int64_t j = 0; j < n; j++) /* potrf leaves the other triangle as it was */
        for (int64_t i = 0; i < n; i++)
            if (upper ? i > j : i < j)
                put_c(A + (size_t)(i + j * n) * sz, t, 0.0);
    from_f(A, n, n, n, sz, out);
    free(A);
    return 0;
}

int32_t rt_linalg_eigh(int32_t code, const RtMat *a, int32_t upper, const RtMat *w, const RtMat *v) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    if (n == 0)
        return 0;
    void *fn = routine(F_EVD, t);
    if (!fn)
        return -1;
    size_t sz = tsize[t], rs = rsize[t];
    int32_t st = -1;
    char *A = f_copy(a, sz, n, n), *W = A ? scratch((size_t)n, rs) : NULL;
    char *work = NULL, *rwork = NULL;
    fint *iwork = NULL;
    if (!W)
        goto out;
    fint N = (fint)n, info = 0, lw = -1, lrw = -1, liw = -1, iq = 0;
    const char *jobz = v ? "V" : "N", *uplo = upper ? "U" : "L";
    double wq[2] = {0, 0}, rq = 0;
    if (is_cplx(t)) {
        float rqf = 0;
        ((heevd_t)fn)(jobz, uplo, &N, A, &N, W, wq, &lw, rs == 4 ? (void *)&rqf : (void *)&rq, &lrw, &iq, &liw, &info,
                      1, 1);
        lrw = rs == 4 ? (fint)rqf + 1 : (fint)rq + 1;
    } else {
        ((syevd_t)fn)(jobz, uplo, &N, A, &N, W, wq, &lw, &iq, &liw, &info, 1, 1);
    }
    lw = lwork_of(wq, t);
    liw = iq > 1 ? iq : 1;
    work = scratch((size_t)lw, sz);
    iwork = work ? scratch((size_t)liw, sizeof(fint)) : NULL;
    rwork = iwork && is_cplx(t) ? scratch((size_t)lrw, rs) : NULL;
    if (!iwork || (is_cplx(t) && !rwork))
        goto out;
    if (is_cplx(t))
        ((heevd_t)fn)(jobz, uplo, &N, A, &N, W, work, &lw, rwork, &lrw, iwork, &liw, &info, 1, 1);
    else
        ((syevd_t)fn)(jobz, uplo, &N, A, &N, W, work, &lw, iwork, &liw, &info, 1, 1);
    if (info > 0) {
        linalg_error("Eigenvalues did not converge");
        goto out;
    }
    from_f(W, n, n, 1, rs, w);
    if (v)
        from_f(A, n, n, n, sz, v);
    st = 0;
out:
    free(A);
    free(W);
    free(work);
    free(rwork);
    free(iwork);
    return st;
}

/* gesdd on a copy of a: s (k reals), and with job 'A'/'S' u and vt. */
static int32_t gesdd(int t, const RtMat *a, char job, char *S, char *U, fint ldu, char *VT, fint ldvt) {
    void *fn = routine(F_GESDD, t);
    if (!fn)
        return -1;
    int64_t m = a->m, n = a->n, k = min64(m, n);
    size_t sz = tsize[t], rs = rsize[t];
    int32_t st = -1;
    int64_t lda = max64(1, m);
    char *A = f_copy(a, sz, lda, n), *work = NULL, *rwork = NULL;
    fint *iwork = A ? scratch((size_t)(8 * k), sizeof(fint)) : NULL;
    if (!iwork)
        goto out;
    if (is_cplx(t)) {
        int64_t lr = job == 'N' ? 7 * k : k * max64(5 * k + 7, 2 * max64(m, n) + 2 * k + 1);
        rwork = scratch((size_t)max64(lr, 1), rs);
        if (!rwork)
            goto out;
    }
    fint M = (fint)m, N = (fint)n, LDA = (fint)lda, lw = -1, info = 0;
    char jobz[2] = {job, 0};
    double wq[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++) {
        void *w = pass ? (void *)work : (void *)wq;
        if (is_cplx(t))
            ((gesdd_c_t)fn)(jobz, &M, &N, A, &LDA, S, U, &ldu, VT, &ldvt, w, &lw, rwork, iwork, &info, 1);
        else
            ((gesdd_r_t)fn)(jobz, &M, &N, A, &LDA, S, U, &ldu, VT, &ldvt, w, &lw, iwork, &info, 1);
        if (pass == 0) {
            lw = lwork_of(wq, t);
            work = scratch((size_t)lw, sz);
            if (!work)
                goto out;
        }
    }
    if (info > 0) {
        linalg_error("SVD did not converge");
        goto out;
    }
    st = info < 0 ? -1 : 0;
    if (info < 0)
        rt_raise("ValueError", "hpcjit: illegal argument to gesdd");
out:
    free(A);
    free(work);
    free(rwork);
    free(iwork);
    return st;
}

static void identity(const RtMat *x, int t) {
    for (int64_t i = 0; i < x->m; i++)
        for (int64_t j = 0; j < x->n; j++)
            put_c((char *)x->data + i * x->rs + j * x->cs, t, i == j ? 1.0 : 0.0);
}

int32_t rt_linalg_svd(int32_t code, const RtMat *a, int32_t full, const RtMat *u, const RtMat *s,
                      const RtMat *vt) {
    int t = type_or_raise(code);
    if (t < 0 || !fits(a->m, a->n))
        return -1;
    int64_t m = a->m, n = a->n, k = min64(m, n);
    if (k == 0) {
        if (u)
            identity(u, t);
        if (vt)
            identity(vt, t);
        return 0;
    }
    size_t sz = tsize[t], rs = rsize[t];
    int64_t ucols = full ? m : k, vrows = full ? n : k;
    char *S = scratch((size_t)k, rs), *U = NULL, *VT = NULL;
    int32_t st = -1;
    if (!S)
        return -1;
    if (u) {
        U = scratch((size_t)(m * ucols), sz);
        VT = U ? scratch((size_t)(vrows * n), sz) : NULL;
        if (!VT)
            goto out;
    }
    st = gesdd(t, a, u ? (full ? 'A' : 'S') : 'N', S, U, (fint)max64(1, m), VT, (fint)max64(1, vrows));
    if (st == 0) {
        from_f(S, k, k, 1, rs, s);
        if (u) {
            from_f(U, m, m, ucols, sz, u);
            from_f(VT, vrows, vrows, n, sz, vt);
        }
    }
out:
    free(S);
    free(U);
    free(VT);
    return st;
}

int32_t rt_linalg_qr(int32_t code, const RtMat *a, const RtMat *q, const RtMat *r) {
    int t = type_or_raise(code);
    if (t < 0 || !fits(a->m, a->n))
        return -1;
    int64_t m = a->m, n = a->n, k = min64(m, n), qc = q ? q->n : 0;
    size_t sz = tsize[t];
    if (k == 0) {
        zero_out(r, sz);
        if (q)
            identity(q, t);
        return 0;
    }
    geqrf_t geqrf = (geqrf_t)routine(F_GEQRF, t);
    orgqr_t orgqr = geqrf ? (orgqr_t)routine(F_ORGQR, t) : NULL;
    if (!orgqr)
        return -1;
    int32_t st = -1;
    /* room for the m x qc Q of mode 'complete' (qc = m > n) */
    char *A = f_copy(a, sz, m, max64(n, qc)), *tau = A ? scratch((size_t)k, sz) : NULL, *work = NULL;
    if (!tau)
        goto out;
    fint M = (fint)m, N = (fint)n, K = (fint)k, QC = (fint)max64(qc, 1), lw = -1, info = 0;
    double wq[2] = {0, 0}, wq2[2] = {0, 0};
    geqrf(&M, &N, A, &M, tau, wq, &lw, &info);
    if (q)
        orgqr(&M, &QC, &K, A, &M, tau, wq2, &lw, &info);
    lw = lwork_of(wq, t) > lwork_of(wq2, t) ? lwork_of(wq, t) : lwork_of(wq2, t);
    work = scratch((size_t)lw, sz);
    if (!work)
        goto out;
    geqrf(&M, &N, A, &M, tau, work, &lw, &info);
    for (int64_t i = 0; i < r->m; i++) /* R: the upper triangle of the first k rows, zeros below */
        for (int64_t j = 0; j < n; j++)
            if (i < k && j >= i)
                copy_item((char *)r->data + i * r->rs + j * r->cs, A + (size_t)(i + j * m) * sz, sz);
            else
                put_c((char *)r->data + i * r->rs + j * r->cs, t, 0.0);
    if (q) {
        orgqr(&M, &QC, &K, A, &M, tau, work, &lw, &info);
        from_f(A, m, m, qc, sz, q);
    }
    st = 0;
out:
    free(A);
    free(tau);
    free(work);
    return st;
}

int32_t rt_linalg_lstsq(int32_t code, const RtMat *a, const RtMat *b, double rcond, const RtMat *x,
                        const RtMat *res, int64_t *nres, int64_t *rank, const RtMat *s) {
    int t = type_or_raise(code);
    if (t < 0 || !fits(a->m, a->n) || !fits(b->n, 1))
        return -1;
    int64_t m = a->m, n = a->n, nr = b->n, k = min64(m, n);
    if (b->m != m) {
        linalg_error("Incompatible dimensions");
        return -1;
    }
    size_t sz = tsize[t], rs = rsize[t];
    *nres = 0;
    *rank = 0;
    if (k == 0 || nr == 0) {
        zero_out(x, sz);
        if (k == 0 && m > 0 && nr > 0 && n == 0) { /* NumPy: residuals are |b|^2 when n == 0 */
            for (int64_t j = 0; j < nr; j++) {
                double acc = 0;
                for (int64_t i = 0; i < m; i++) {
                    c128 v = get_c((const char *)b->data + i * b->rs + j * b->cs, t);
                    acc += creal(v) * creal(v) + cimag(v) * cimag(v);
                }
                put_c((char *)res->data + j * res->rs, t < 2 ? t : t - 2, acc);
            }
            *nres = nr;
        }
        return 0;
    }
    void *fn = routine(F_GELSD, t);
    if (!fn)
        return -1;
    if (isnan(rcond))
        rcond = (rs == 4 ? FLT_EPSILON : DBL_EPSILON) * (double)max64(m, n);
    int64_t ldb = max64(m, n);
    int32_t st = -1;
    char *A = f_copy(a, sz, m, n), *B = A ? f_copy(b, sz, ldb, nr) : NULL;
    char *S = B ? scratch((size_t)k, rs) : NULL, *work = NULL, *rwork = NULL;
    fint *iwork = NULL;
    if (!S)
        goto out;
    fint M = (fint)m, N = (fint)n, NR = (fint)nr, LDB = (fint)ldb, lw = -1, info = 0, rk = 0, iq = 0;
    float rcf = (float)rcond;
    const void *rc = rs == 4 ? (const void *)&rcf : (const void *)&rcond;
    double wq[2] = {0, 0}, rq[2] = {0, 0};
    if (is_cplx(t))
        ((gelsd_c_t)fn)(&M, &N, &NR, A, &M, B, &LDB, S, rc, &rk, wq, &lw, rq, &iq, &info);
    else
        ((gelsd_r_t)fn)(&M, &N, &NR, A, &M, B, &LDB, S, rc, &rk, wq, &lw, &iq, &info);
    lw = lwork_of(wq, t);
    fint lrw = is_cplx(t) ? (fint)get_real(rq, t - 2) + 1 : 1;
    work = scratch((size_t)lw, sz);
    iwork = work ? scratch((size_t)(iq > 1 ? iq : 1), sizeof(fint)) : NULL;
    rwork = iwork && is_cplx(t) ? scratch((size_t)lrw, rs) : NULL;
    if (!iwork || (is_cplx(t) && !rwork))
        goto out;
    if (is_cplx(t))
        ((gelsd_c_t)fn)(&M, &N, &NR, A, &M, B, &LDB, S, rc, &rk, work, &lw, rwork, iwork, &info);
    else
        ((gelsd_r_t)fn)(&M, &N, &NR, A, &M, B, &LDB, S, rc, &rk, work, &lw, iwork, &info);
    if (info > 0) {
        linalg_error("SVD did not converge in Linear Least Squares");
        goto out;
    }
    from_f(B, ldb, n, nr, sz, x);
    from_f(S, k, k, 1, rs, s);
    *rank = rk;
    if (rk == n && m > n) {
        int rt = t < 2 ? t : t - 2;
        for (int64_t j = 0; j < nr; j++) {
            double acc = 0;
            for (int64_t i = n; i < m; i++) {
                c128 v = get_c(B + (size_t)(i + j * ldb) * sz, t);
                acc += creal(v) * creal(v) + cimag(v) * cimag(v);
            }
            put_c((char *)res->data + j * res->rs, rt, acc);
        }
        *nres = nr;
    }
    st = 0;
out:
    free(A);
    free(B);
    free(S);
    free(work);
    free(rwork);
    free(iwork);
    return st;
}

/* ---- norm ------------------------------------------------------------------ */

static double absval(const RtMat *a, int t, int64_t i, int64_t j) {
    return cabs(get_c((const char *)a->data + i * a->rs + j * a->cs, t));
}

int32_t rt_linalg_norm(int32_t code, const RtMat *a, int32_t vector, int32_t kind, double p, double *out) {
    int t = type_or_raise(code);
    if (t < 0)
        return -1;
    int64_t m = a->m, n = a->n;
    if (vector) {
        int64_t len = m * n;
        const RtMat *v = a;
        int64_t st = n == 1 ? 0 : 1; /* walk the long axis */
        if (kind == RT_NORM_FRO || kind == RT_NORM_NUC) {
            rt_raise("ValueError", kind == RT_NORM_FRO ? "Invalid norm order 'fro' for vectors"
                                                       : "Invalid norm order 'nuc' for vectors");
            return -1;
        }
        double acc = 0;
        if (kind == RT_NORM_NONE || p == 2) {
            for (int64_t i = 0; i < len; i++) {
                c128 z = get_c((const char *)v->data + (st ? i * v->cs : i * v->rs), t);
                acc += creal(z) * creal(z) + cimag(z) * cimag(z);
            }
            *out = sqrt(acc);
            return 0;
        }
        if (isinf(p)) {
            if (len == 0) {
                rt_raise("ValueError", "zero-size array to reduction operation maximum which has no identity");
                return -1;
            }
            acc = p > 0 ? 0 : INFINITY;
            for (int64_t i = 0; i < len; i++) {
                double x = st ? absval(v, t, 0, i) : absval(v, t, i, 0);
                acc = p > 0 ? (x > acc || isnan(x) ? x : acc) : (x < acc || isnan(x) ? x : acc);
            }
        } else if (p == 0) {
            for (int64_t i = 0; i < len; i++)
                acc += (st ? absval(v, t, 0, i) : absval(v, t, i, 0)) != 0;
        } else if (p == 1) {
            for (int64_t i = 0; i < len; i++)
                acc += st ? absval(v, t, 0, i) : absval(v, t, i, 0);
        } else {
            for (int64_t i = 0; i < len; i++)
                acc += pow(st ? absval(v, t, 0, i) : absval(v, t, i, 0), p);
            acc = pow(acc, 1.0 / p);
        }
        *out = acc;
        return 0;
    }
    if (kind == RT_NORM_NONE || kind == RT_NORM_FRO) {
        double acc = 0;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double x = absval(a, t, i, j);
                acc += x * x;
            }
        *out = sqrt(acc);
        return 0;
    }
    if (kind == RT_NORM_NUC || p == 2 || p == -2) {
        int64_t k = min64(m, n);
        if (k == 0) {
            rt_raise("ValueError", "zero-size array to reduction operation which has no identity");
            return -1;
        }
        size_t rs = rsize[t];
        char *S = scratch((size_t)k, rs);
        if (!S || !fits(m, n) || gesdd(t, a, 'N', S, NULL, 1, NULL, 1) < 0) {
            free(S);
            return -1;
        }
        double r = kind == RT_NORM_NUC ? 0 : p > 0 ? -INFINITY : INFINITY;
        for (int64_t i = 0; i < k; i++) {
            double x = get_real(S + (size_t)i * rs, t);
            r = kind == RT_NORM_NUC ? r + x : p > 0 ? fmax(r, x) : fmin(r, x);
        }
        free(S);
        *out = r;
        return 0;
    }
    bool cols = p == 1 || p == -1, rows = isinf(p);
    if (!cols && !rows) {
        rt_raise("ValueError", "Invalid norm order for matrices.");
        return -1;
    }
    int64_t outer = cols ? n : m, inner = cols ? m : n;
    if (outer == 0) {
        rt_raise("ValueError", "zero-size array to reduction operation which has no identity");
        return -1;
    }
    double r = p > 0 ? -INFINITY : INFINITY;
    for (int64_t o = 0; o < outer; o++) {
        double acc = 0;
        for (int64_t i = 0; i < inner; i++)
            acc += cols ? absval(a, t, i, o) : absval(a, t, o, i);
        r = p > 0 ? fmax(r, acc) : fmin(r, acc);
    }
    *out = r;
    return 0;
}

/* ---- slogdet, pinv, matrix_rank, cond, matrix_power ----------------------- */

int32_t rt_linalg_slogdet(int32_t code, const RtMat *a, void *sign, void *logdet) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    int rt = t < 2 ? t : t - 2;
    c128 sg = 1.0;
    double ld = 0.0;
    if (n > 0) {
        getrf_t getrf = (getrf_t)routine(F_GETRF, t);
        if (!getrf)
            return -1;
        size_t sz = tsize[t];
        char *A = f_copy(a, sz, n, n);
        fint *ipiv = A ? scratch((size_t)n, sizeof(fint)) : NULL;
        if (!ipiv) {
            free(A);
            return -1;
        }
        fint N = (fint)n, info = 0;
        getrf(&N, &N, A, &N, ipiv, &info);
        for (int64_t i = 0; i < n; i++) {
            c128 d = get_c(A + (size_t)(i * n + i) * sz, t);
            double ad = cabs(d);
            if (ad == 0) {
                sg = 0;
                ld = -INFINITY;
                break;
            }
            sg *= d / ad;
            ld += log(ad);
            if (ipiv[i] != i + 1)
                sg = -sg;
        }
        free(A);
        free(ipiv);
    }
    put_c(sign, t, sg);
    put_c(logdet, rt, ld);
    return 0;
}

/* The singular values of a into a new scratch (k reals), NULL on error. */
static char *singular_values(int t, const RtMat *a) {
    int64_t k = min64(a->m, a->n);
    char *S = scratch((size_t)k, rsize[t]);
    if (S && (!fits(a->m, a->n) || gesdd(t, a, 'N', S, NULL, 1, NULL, 1) < 0)) {
        free(S);
        return NULL;
    }
    return S;
}

int32_t rt_linalg_matrix_rank(int32_t code, const RtMat *a, double tol, int64_t *rank) {
    int t = type_or_raise(code);
    if (t < 0)
        return -1;
    int64_t k = min64(a->m, a->n);
    *rank = 0;
    if (k == 0)
        return 0;
    char *S = singular_values(t, a);
    if (!S)
        return -1;
    double smax = get_real(S, t); /* descending */
    if (isnan(tol))
        tol = smax * (double)max64(a->m, a->n) * (rsize[t] == 4 ? FLT_EPSILON : DBL_EPSILON);
    for (int64_t i = 0; i < k; i++)
        *rank += get_real(S + (size_t)i * rsize[t], t) > tol;
    free(S);
    return 0;
}

int32_t rt_linalg_cond(int32_t code, const RtMat *a, double *out) {
    int t = type_or_raise(code);
    if (t < 0)
        return -1;
    int64_t k = min64(a->m, a->n);
    if (k == 0) {
        rt_raise("numpy.linalg.LinAlgError", "cond is not defined on empty arrays");
        return -1;
    }
    char *S = singular_values(t, a);
    if (!S)
        return -1;
    double r = get_real(S, t) / get_real(S + (size_t)(k - 1) * rsize[t], t);
    free(S);
    *out = isnan(r) ? INFINITY : r;
    return 0;
}

int32_t rt_linalg_pinv(int32_t code, const RtMat *a, double rcond, const RtMat *out) {
    int t = type_or_raise(code);
    if (t < 0 || !fits(a->m, a->n))
        return -1;
    int64_t m = a->m, n = a->n, k = min64(m, n);
    size_t sz = tsize[t], rs = rsize[t];
    if (k == 0) {
        zero_out(out, sz);
        return 0;
    }
    char *S = scratch((size_t)k, rs), *U = S ? scratch((size_t)(m * k), sz) : NULL;
    char *VT = U ? scratch((size_t)(k * n), sz) : NULL;
    int32_t st = -1;
    if (!VT || gesdd(t, a, 'S', S, U, (fint)m, VT, (fint)k) < 0)
        goto out;
    double cut = rcond * get_real(S, t);
    /* out[j, i] = sum_l conj(VT[l, j]) / s_l * conj(U[i, l]) for s_l > cut */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            c128 acc = 0;
            for (int64_t l = 0; l < k; l++) {
                double s = get_real(S + (size_t)l * rs, t);
                if (s > cut)
                    acc += conj(get_c(VT + (size_t)(l + j * k) * sz, t)) / s *
                           conj(get_c(U + (size_t)(i + l * m) * sz, t));
            }
            put_c((char *)out->data + j * out->rs + i * out->cs, t, acc);
        }
    st = 0;
out:
    free(S);
    free(U);
    free(VT);
    return st;
}

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

int32_t rt_linalg_eig(int32_t code, const RtMat *a, const RtMat *w, const RtMat *v) {
    int t = type_or_raise(code);
    if (t < 0 || !square(a))
        return -1;
    int64_t n = a->m;
    if (n == 0)
        return 0;
    void *fn = routine(F_GEEV, t);
    if (!fn)
        return -1;
    size_t sz = tsize[t], rs = rsize[t];
    int32_t st = -1;
    char *A = f_copy(a, sz, n, n), *W = A ? scratch((size_t)(2 * n), sz) : NULL;
    char *VR = W && v ? scratch((size_t)(n * n), sz) : NULL, *work = NULL, *rwork = NULL;
    if (!W || (v && !VR))
        goto out;
    if (is_cplx(t) && !(rwork = scratch((size_t)(2 * n), rs)))
        goto out;
    fint N = (fint)n, one = 1, ldvr = v ? N : 1, lw = -1, info = 0;
    const char *jobvr = v ? "V" : "N";
    double wq[2] = {0, 0}, dummy[2];
    char *WI = W + (size_t)n * sz; /* real: wr then wi */
    for (int pass = 0; pass < 2; pass++) {
        void *wk = pass ? (void *)work : (void *)wq;
        if (is_cplx(t))
            ((geev_c_t)fn)("N", jobvr, &N, A, &N, W, dummy, &one, VR, &ldvr, wk, &lw, rwork, &info, 1, 1);
        else
            ((geev_r_t)fn)("N", jobvr, &N, A, &N, W, WI, dummy, &one, VR, &ldvr, wk, &lw, &info, 1, 1);
        if (pass == 0 && !(work = scratch((size_t)(lw = lwork_of(wq, t)), sz)))
            goto out;
    }
    if (info > 0) {
        linalg_error("Eigenvalues did not converge");
        goto out;
    }
    if (!is_cplx(t))
        for (int64_t i = 0; i < n; i++)
            if (get_real(WI + (size_t)i * sz, t) != 0) {
                rt_raise("ValueError", "eig() argument must not cause a domain change.");
                goto out;
            }
    from_f(W, n, n, 1, sz, w);
    if (v)
        from_f(VR, n, n, n, sz, v);
    st = 0;
out:
    free(A);
    free(W);
    free(VR);
    free(work);
    free(rwork);
    return st;
}
