/* test_linalg_rt.c - the runtime's linear algebra (runtime/linalg.c) on
 * small matrices of every layout; exits 77 when no BLAS/LAPACK loads. */
#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/linalg.h"
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

static const int32_t F64 = RT_DT(RT_K_FLOAT, 8), C128 = RT_DT(RT_K_COMPLEX, 16), I32 = RT_DT(RT_K_INT, 4);
static const int64_t D = sizeof(double);

static bool near(double a, double b) { return fabs(a - b) <= 1e-12 * (1 + fabs(b)); }

/* C = A @ B for A 2x3 given C-ordered, F-ordered (through its transpose
 * strides) and every other column of a wider array. */
static void test_matmul(void) {
    double a[6] = {1, 2, 3, 4, 5, 6};        /* C order: [[1,2,3],[4,5,6]] */
    double af[6] = {1, 4, 2, 5, 3, 6};       /* the same matrix in F order */
    double aw[12] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0}; /* strided columns */
    double b[6] = {1, 0, 0, 1, 1, 1};        /* [[1,0],[0,1],[1,1]] */
    double want[4] = {4, 5, 10, 11}, c[4];
    RtMat B = {b, 3, 2, 2 * D, D}, C = {c, 2, 2, 2 * D, D};
    RtMat as[3] = {{a, 2, 3, 3 * D, D}, {af, 2, 3, D, 2 * D}, {aw, 2, 3, 6 * D, 2 * D}};
    for (int k = 0; k < 3; k++) {
        memset(c, 0, sizeof c);
        CHECK(rt_linalg_matmul(F64, RT_LA_MATMUL | 2 << 2 | 2 << 4, &as[k], &B, &C) == 0);
        for (int i = 0; i < 4; i++)
            CHECK(near(c[i], want[i]));
    }
    /* matrix @ vector, vector @ vector with a negative stride */
    double x[3] = {1, 1, 1}, y[2], dot = 0;
    RtMat X = {x, 3, 1, D, 0}, Y = {y, 2, 1, D, D};
    CHECK(rt_linalg_matmul(F64, RT_LA_DOT | 2 << 2 | 1 << 4, &as[0], &X, &Y) == 0);
    CHECK(near(y[0], 6) && near(y[1], 15));
    RtMat R = {a + 2, 1, 3, 0, -D}, S = {&dot, 1, 1, D, D}; /* a[2::-1] = [3,2,1] */
    double w[3] = {1, 10, 100};
    RtMat W = {w, 3, 1, D, 0};
    CHECK(rt_linalg_matmul(F64, RT_LA_DOT | 1 << 2 | 1 << 4, &R, &W, &S) == 0);
    CHECK(near(dot, 123));
    /* integers wrap like NumPy */
    int32_t ia[2] = {65536, 2}, ib[2] = {65536, 3}, ic = 0;
    RtMat IA = {ia, 1, 2, 0, 4}, IB = {ib, 2, 1, 4, 0}, IC = {&ic, 1, 1, 4, 4};
    CHECK(rt_linalg_matmul(I32, RT_LA_DOT | 1 << 2 | 1 << 4, &IA, &IB, &IC) == 0);
    CHECK(ic == 6); /* 2^32 wraps to 0 */
    /* inner dimensions differ: NumPy's message */
    const char *type = NULL, *msg = NULL;
    CHECK(rt_linalg_matmul(F64, RT_LA_DOT | 2 << 2 | 2 << 4, &as[0], &as[0], &C) == -1);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(type, "ValueError") == 0 &&
          strcmp(msg, "shapes (2,3) and (2,3) not aligned: 3 (dim 1) != 2 (dim 0)") == 0);
    /* vdot conjugates its first operand */
    double complex u[2] = {1 + 2 * I, 3}, v[2] = {1, I}, r = 0;
    RtMat U = {u, 1, 2, 0, 16}, V = {v, 2, 1, 16, 0}, Rr = {&r, 1, 1, 16, 16};
    CHECK(rt_linalg_matmul(C128, RT_LA_VDOT | 1 << 2 | 1 << 4, &U, &V, &Rr) == 0);
    CHECK(near(creal(r), 1) && near(cimag(r), 1)); /* (1-2i)*1 + 3*i */
}

/* c = alpha * (a @ b): the runtime's loop then a scaling, BLAS's alpha
 * (40 x 40 @ 40 x 40 goes to gemm), and a zero or infinite alpha applied
 * to the operand first (inf * 0 = NaN, NaN * 0 = NaN). */
static void test_matmul_scaled(void) {
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4], two = 2, zero = 0, inf = INFINITY;
    double want[4] = {8, 10, 20, 22};
    RtMat A = {a, 2, 3, 3 * D, D}, B = {b, 3, 2, 2 * D, D}, C = {c, 2, 2, 2 * D, D};
    int32_t how = RT_LA_MATMUL | 2 << 2 | 2 << 4;
    for (int side = 0; side < 2; side++) {
        CHECK(rt_linalg_matmul_scaled(F64, how, &A, &B, &C, &two, side) == 0);
        for (int i = 0; i < 4; i++)
            CHECK(near(c[i], want[i]));
    }
    enum { N = 40 };
    static double p[N * N], q[N * N], r[N * N];
    for (int i = 0; i < N * N; i++) {
        p[i] = i % 7 - 3;
        q[i] = i % 5;
    }
    RtMat P = {p, N, N, N * D, D}, Q = {q, N, N, D, N * D}, R = {r, N, N, N * D, D};
    double three = 3, s = 0;
    CHECK(rt_linalg_matmul_scaled(F64, how, &P, &Q, &R, &three, 0) == 0);
    for (int l = 0; l < N; l++)
        s += p[5 * N + l] * q[7 * N + l]; /* Q is F-ordered: q[7 * N + l] is Q[l, 7] */
    CHECK(near(r[5 * N + 7], 3 * s));
    /* alpha 0 with a NaN in b: NaN, not the 0 gemm would give */
    b[2] = NAN;
    CHECK(rt_linalg_matmul_scaled(F64, how, &A, &B, &C, &zero, 0) == 0);
    CHECK(isnan(c[0]) && c[1] == 0 && isnan(c[2]) && c[3] == 0);
    /* alpha inf: inf * a meets b's zeros (inf * 0 is NaN) where inf * (a
     * @ b) would be inf everywhere */
    b[2] = 0;
    CHECK(rt_linalg_matmul_scaled(F64, how, &A, &B, &C, &inf, 0) == 0);
    CHECK(isnan(c[0]) && isnan(c[1]) && isnan(c[2]) && isnan(c[3]));
}

static void test_lapack(void) {
    double a[4] = {4, 1, 2, 3}, b[2] = {1, 2}, x[2], inv[4], det = 0; /* [[4,1],[2,3]] */
    RtMat A = {a, 2, 2, 2 * D, D}, Bv = {b, 2, 1, D, 0}, Xv = {x, 2, 1, D, 0}, Inv = {inv, 2, 2, 2 * D, D};
    CHECK(rt_linalg_solve(F64, &A, &Bv, 1, &Xv) == 0);
    CHECK(near(4 * x[0] + x[1], 1) && near(2 * x[0] + 3 * x[1], 2));
    CHECK(rt_linalg_inv(F64, &A, &Inv) == 0);
    CHECK(near(inv[0], 0.3) && near(inv[1], -0.1) && near(inv[2], -0.2) && near(inv[3], 0.4));
    CHECK(rt_linalg_det(F64, &A, &det) == 0 && near(det, 10));
    CHECK(a[0] == 4 && a[1] == 1 && b[1] == 2); /* inputs untouched */
    double s[4] = {1, 2, 2, 4};
    RtMat Sg = {s, 2, 2, 2 * D, D};
    const char *type = NULL, *msg = NULL;
    CHECK(rt_linalg_inv(F64, &Sg, &Inv) == -1);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(type, "numpy.linalg.LinAlgError") == 0 &&
          strcmp(msg, "Singular matrix") == 0);
    double sv[2], nrm = 0;
    RtMat Sv = {sv, 2, 1, D, 0};
    CHECK(rt_linalg_svd(F64, &A, 0, NULL, &Sv, NULL) == 0);
    CHECK(near(sv[0] * sv[1], 10) && sv[0] >= sv[1]);
    CHECK(rt_linalg_norm(F64, &A, 0, RT_NORM_NUC, 0, &nrm) == 0 && near(nrm, sv[0] + sv[1]));
}

int main(void) {
    if (!rt_linalg_library()) {
        fprintf(stderr, "no BLAS/LAPACK library: skipped\n");
        return 77;
    }
    test_matmul();
    test_matmul_scaled();
    test_lapack();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures ? 1 : 0;
}
