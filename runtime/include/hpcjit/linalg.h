/* hpcjit/linalg.h - linear algebra called from compiled code (runtime/linalg.c,
 * lowered by compiler/lib/linalg/lower_linalg.c): np.dot/matmul/@, outer, vdot,
 * trace, np.linalg.norm/solve/inv/det/cholesky/eigh/svd/qr/lstsq.
 *
 * BLAS and LAPACK are not linked: the first call that needs them dlopens
 * HPCJIT_BLAS_LIB (a path or soname, or several separated by ':'), else
 * libflexiblas.so.3, libopenblas.so.0, then liblapack.so.3 + libblas.so.3,
 * and uses their Fortran symbols (dgemm_, dgesv_, ... with 32-bit
 * integers); as a last resort the ILP64 OpenBLAS NumPy's wheels bundle
 * (scipy_dgemm_64_, 64-bit integers) when NumPy has loaded one.  When none
 * loads, the call raises OSError naming what was tried.
 *
 * Operands are RtMat descriptors of any layout (byte strides, negative
 * ones too); the runtime copies them into Fortran-ordered scratch where
 * BLAS cannot take them as they are, so inputs are never modified.
 * Outputs are RtMat descriptors of arrays the caller allocated.  A 1-D
 * operand is an m x 1 (or 1 x n) matrix.  Element types are the codes
 * RT_DT(kind, itemsize) of hpcjit/search.h; the LAPACK functions take
 * float32, float64, complex64 or complex128 only (callers convert).
 *
 * Every function returns 0, or -1 with an exception pending (ValueError,
 * numpy.linalg.LinAlgError, MemoryError, OSError).
 * Thread-safety: every function may be called from any thread; the
 * library is loaded once (pthread_once). */
#ifndef HPCJIT_LINALG_H
#define HPCJIT_LINALG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RtMat {
    void *data;
    int64_t m, n;   /* rows, columns */
    int64_t rs, cs; /* byte strides between rows, between columns */
} RtMat;

/* np.dot / np.matmul / np.vdot flavours of rt_linalg_matmul (error messages) */
enum { RT_LA_DOT, RT_LA_MATMUL, RT_LA_VDOT };
/* how = flavour | nd(a) << 2 | nd(b) << 4 (nd 1 or 2, for the messages);
 * RT_LA_VDOT conjugates a.  c = a @ b: a m x k, b k x n, c m x n, all of
 * element type `code` (any numeric type: BLAS for float/complex, a loop
 * with wrapping arithmetic for integers and bool).  ValueError with
 * NumPy's message when the inner dimensions differ. */
int32_t rt_linalg_matmul(int32_t code, int32_t how, const RtMat *a, const RtMat *b, const RtMat *c);
/* c = alpha * (a @ b) for the program's (alpha * a) @ b (side 0) or
 * a @ (alpha * b) (side 1); alpha points to a value of code's float or
 * complex type.  BLAS takes alpha (gemm/gemv's own argument), so the
 * scaled operand is never built; a zero or non-finite alpha scales a copy
 * of the operand first, as written.  Thread-safe as rt_linalg_matmul. */
int32_t rt_linalg_matmul_scaled(int32_t code, int32_t how, const RtMat *a, const RtMat *b, const RtMat *c,
                                const void *alpha, int32_t side);
/* x @ base[idx] (side 1) or base[idx] @ x (side 0) for 1-D x (k items,
 * byte stride xs) and an integer index array idx (nidx items of dtype
 * icode, byte stride is) into base (nbase items, byte stride bs, element
 * type code as x): *out gets the product as rt_linalg_matmul gives it
 * for x and an array copy of base[idx], bit for bit, without the array
 * (the items are gathered into a stack buffer when they fit in 2 KiB).
 * IndexError (NumPy's message, for `axis`) for the first index out of
 * [-nbase, nbase), then ValueError when nidx != k.  Thread-safe. */
int32_t rt_linalg_gather_dot(int32_t code, int32_t how, int32_t side, const void *x, int64_t k, int64_t xs,
                             const void *base, int64_t nbase, int64_t bs, const void *idx, int64_t nidx, int64_t is,
                             int32_t icode, int32_t axis, void *out);
/* np.matmul of N-d operands (at least one of ndim > 2), broadcasting the
 * leading (batch) dimensions: rt_linalg_matmul_shape checks the shapes
 * (NumPy's ValueErrors) and writes the result's shape (ndim: the batch
 * dimensions, then m unless a is 1-D, then n unless b is 1-D);
 * rt_linalg_matmul_nd then fills c (shape from _shape, strides stc). */
int32_t rt_linalg_matmul_shape(int32_t nda, const int64_t *sha, int32_t ndb, const int64_t *shb, int64_t *out);
int32_t rt_linalg_matmul_nd(int32_t code, int32_t nda, void *da, const int64_t *sha, const int64_t *sta,
                            int32_t ndb, void *db, const int64_t *shb, const int64_t *stb, void *dc,
                            const int64_t *stc);
/* out (m x n, C-contiguous) = outer product of the m items at a and the
 * n items at b, all contiguous, of element type code. */
void rt_linalg_outer(int32_t code, const void *a, int64_t m, const void *b, int64_t n, void *out);
/* np.kron of a (ma x na) and b (mb x nb) into the C-contiguous out
 * (ma*mb x na*nb), element type code (integers wrap). */
void rt_linalg_kron(int32_t code, const RtMat *a, const RtMat *b, void *out);
/* Sum of a's diagonal `offset`; a of element type `code`, the sum stored
 * at out as type `out_code` (int64, uint64, float or complex). */
void rt_linalg_trace(int32_t code, const RtMat *a, int64_t offset, int32_t out_code, void *out);

/* np.linalg.norm: kind 0 None, 1 numeric order p, 2 'fro', 3 'nuc';
 * vector (1-D a: a->n == 1) or matrix norms as NumPy; *out a double. */
enum { RT_NORM_NONE, RT_NORM_P, RT_NORM_FRO, RT_NORM_NUC, RT_NORM_FLAT /* compiler only: N-d x flattened */ };
int32_t rt_linalg_norm(int32_t code, const RtMat *a, int32_t vector, int32_t kind, double p, double *out);
/* Vector norms of a's columns (axis 0) or rows (axis 1) into out, items
 * `stride` bytes apart, of the real type out_code. */
int32_t rt_linalg_norm_axis(int32_t code, const RtMat *a, int32_t axis, int32_t kind, double p, void *out,
                            int64_t stride, int32_t out_code);

/* x = solve(a, b): b_1d says b was 1-D (for the message); a square. */
int32_t rt_linalg_solve(int32_t code, const RtMat *a, const RtMat *b, int32_t b_1d, const RtMat *x);
int32_t rt_linalg_inv(int32_t code, const RtMat *a, const RtMat *out);
/* *out: a scalar of type code */
int32_t rt_linalg_det(int32_t code, const RtMat *a, void *out);
/* upper: the upper factor U (a = U^H U) from a's upper triangle. */
int32_t rt_linalg_cholesky(int32_t code, const RtMat *a, int32_t upper, const RtMat *out);
/* eig/eigvals (general matrices): w n x 1 and v n x n (or NULL) of type
 * code.  For real a the eigenvalues must be real: ValueError otherwise,
 * as in Numba (NumPy would switch to complex results). */
int32_t rt_linalg_eig(int32_t code, const RtMat *a, const RtMat *w, const RtMat *v);
/* w: n x 1 real eigenvalues (ascending), v: eigenvectors or NULL;
 * upper: use the upper triangle (UPLO='U'). */
int32_t rt_linalg_eigh(int32_t code, const RtMat *a, int32_t upper, const RtMat *w, const RtMat *v);
/* full: u m x m, vt n x n; else u m x k, vt k x n (k = min(m, n));
 * u and vt NULL for compute_uv=False.  s: k x 1 real. */
int32_t rt_linalg_svd(int32_t code, const RtMat *a, int32_t full, const RtMat *u, const RtMat *s,
                      const RtMat *vt);
/* QR: mode 'reduced' q m x k, r k x n; 'complete' q m x m, r m x n;
 * 'r' q NULL, r k x n. */
int32_t rt_linalg_qr(int32_t code, const RtMat *a, const RtMat *q, const RtMat *r);
/* lstsq: x n x nrhs, res nrhs x 1 (*nres set to nrhs or 0, as NumPy),
 * s k x 1 real, *rank; rcond NaN (NumPy's None): eps * max(m, n). */
int32_t rt_linalg_lstsq(int32_t code, const RtMat *a, const RtMat *b, double rcond, const RtMat *x,
                        const RtMat *res, int64_t *nres, int64_t *rank, const RtMat *s);

/* slogdet: *sign of type code, *logdet of its real type. */
int32_t rt_linalg_slogdet(int32_t code, const RtMat *a, void *sign, void *logdet);
/* pinv: out n x m = V S^+ U^H, singular values <= rcond * max(s) dropped. */
int32_t rt_linalg_pinv(int32_t code, const RtMat *a, double rcond, const RtMat *out);
/* matrix_rank: singular values > tol (NaN: NumPy's default tolerance). */
int32_t rt_linalg_matrix_rank(int32_t code, const RtMat *a, double tol, int64_t *rank);
/* cond: order kind/p as rt_linalg_norm's; None and +-2 from the singular
 * values, the others as norm(a) * norm(inv(a)) (inf when a is singular). */
int32_t rt_linalg_cond(int32_t code, const RtMat *a, int32_t kind, double p, double *out);
/* matrix_power: out = a^n (any numeric code; n < 0 only for float and
 * complex: the power of the inverse). */
int32_t rt_linalg_matrix_power(int32_t code, const RtMat *a, int64_t n, const RtMat *out);

/* inv, det or cholesky of each matrix of a stack: a has nd > 2 dims
 * (shape/strides in bytes), out the result (inv/cholesky: a's shape, det:
 * shape[:-2]) with strides ost.  Stops at the first error, as NumPy. */
enum { RT_STACK_INV, RT_STACK_DET, RT_STACK_CHOLESKY };
int32_t rt_linalg_stacked(int32_t op, int32_t code, int32_t nd, void *a, const int64_t *shape,
                          const int64_t *strides, void *out, const int64_t *ost, int32_t upper);

/* The library loaded ("" before the first call; NULL when none loaded). */
const char *rt_linalg_library(void);

#ifdef __cplusplus
}
#endif
#endif
