/* C versions of some benchmark kernels, compiled by run.py with
 * gcc -O3 -march=native (no -ffast-math: same FP semantics as the JITs). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double sum_reduce(const double *a, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

double dot(const double *a, const double *b, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

void pairwise(const double *X, int64_t m, int64_t k, double *D)
{
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) {
            double d = 0.0;
            for (int64_t t = 0; t < k; t++) {
                double diff = X[i * k + t] - X[j * k + t];
                d += diff * diff;
            }
            D[i * m + j] = sqrt(d);
        }
}

void jacobi2d(double *u, int64_t m, int64_t n, int64_t steps)
{
    double *v = malloc((size_t)(m * n) * sizeof(double));
    if (!v)
        return;
    for (int64_t s = 0; s < steps; s++) {
        memcpy(v, u, (size_t)(m * n) * sizeof(double));
        for (int64_t i = 1; i < m - 1; i++)
            for (int64_t j = 1; j < n - 1; j++)
                v[i * n + j] = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                       u[i * n + j - 1] + u[i * n + j + 1]);
        memcpy(u, v, (size_t)(m * n) * sizeof(double));
    }
    free(v);
}

void matmul(const double *A, const double *B, int64_t m, int64_t k, int64_t n, double *C)
{
    memset(C, 0, (size_t)(m * n) * sizeof(double));
    for (int64_t i = 0; i < m; i++)
        for (int64_t t = 0; t < k; t++) {
            double a = A[i * k + t];
            for (int64_t j = 0; j < n; j++)
                C[i * n + j] += a * B[t * n + j];
        }
}

int64_t collatz_max(int64_t n)
{
    int64_t best = 0, arg = 0;
    for (int64_t start = 1; start < n; start++) {
        int64_t x = start, steps = 0;
        while (x != 1) {
            x = (x % 2 == 0) ? x / 2 : 3 * x + 1;
            steps++;
        }
        if (steps > best) {
            best = steps;
            arg = start;
        }
    }
    return arg;
}

int64_t sieve(int64_t n)
{
    uint8_t *f = malloc((size_t)n + 1);
    if (!f)
        return -1;
    memset(f, 1, (size_t)n + 1);
    f[0] = f[1] = 0;
    for (int64_t i = 2; i * i <= n; i++)
        if (f[i])
            for (int64_t j = i * i; j <= n; j += i)
                f[j] = 0;
    int64_t c = 0;
    for (int64_t i = 0; i <= n; i++)
        c += f[i];
    free(f);
    return c;
}

double math_heavy(const double *a, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double x = a[i];
        s += sin(x) * exp(-x * x) + sqrt(x + 1.0) - log1p(x) + atan2(x, 2.0);
    }
    return s;
}

int64_t fib(int64_t n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int64_t mandelbrot(int64_t w, int64_t h, int64_t maxit)
{
    /* real arithmetic as a C programmer would write it (C99 complex
     * multiplication calls __muldc3 for Annex G NaN handling) */
    int64_t count = 0;
    for (int64_t py = 0; py < h; py++)
        for (int64_t px = 0; px < w; px++) {
            double cr = -2.0 + 3.0 * (double)px / (double)w;
            double ci = -1.5 + 3.0 * (double)py / (double)h;
            double zr = 0.0, zi = 0.0;
            int64_t k = 0;
            while (k < maxit && hypot(zr, zi) <= 2.0) {
                double t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k++;
            }
            count += k;
        }
    return count;
}
