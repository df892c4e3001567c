/* pool_scaling - strong scaling of hpcjit's pinned pool on 1..N threads,
 * beside an OpenMP twin (gcc -fopenmp, OMP_PROC_BIND=close), in one
 * process with interleaved rounds.  The two kernels are those of
 * scaling.py in C (what a prange body compiles to): a compute-bound one
 * (16 sin/sqrt steps per element of 2M doubles, a sum) and the STREAM
 * triad out[i] = a[i] + k * b[i] over 20M doubles.  For machines where the
 * Python package cannot be built (another Python, no LLVM): run by
 * device_scaling.sh.  Prints a markdown table:
 *   threads | compute pool ms, efficiency | compute omp ms | triad pool ms, GB/s, efficiency | triad omp ms
 * (medians over ROUNDS rounds; argv[1] = rounds, default 7). */
#define _GNU_SOURCE
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include "hpcjit/pool.h"

#define NC (2 * 1000 * 1000)
#define NT (20 * 1000 * 1000)
#define MAXT 256
#define MAXR 64

static double *ca, *ta, *tb, *tout;
static double partial[MAXT];
static int where[MAXT];   /* the CPU each thread id last ran a chunk on */
static int64_t done[MAXT]; /* elements each thread id computed */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double step(double x) {
    for (int k = 0; k < 16; k++)
        x = sin(x) * 0.5 + sqrt(x * x + 1.0);
    return x;
}

static int compute_body(void *ctx, int64_t begin, int64_t end, int tid) {
    double s = 0.0;
    for (int64_t i = begin; i < end; i++)
        s += step(ca[i]);
    partial[tid] += s;
    where[tid] = sched_getcpu();
    done[tid] += end - begin;
    return 0;
}

static int triad_body(void *ctx, int64_t begin, int64_t end, int tid) {
    const double k = 3.0;
    for (int64_t i = begin; i < end; i++)
        tout[i] = ta[i] + k * tb[i];
    return 0;
}

static double pool_compute(int t) {
    for (int i = 0; i < t; i++)
        partial[i] = 0.0;
    pool_parallel_for(NC, compute_body, NULL, POOL_STATIC, 0);
    double s = 0.0;
    for (int i = 0; i < t; i++)
        s += partial[i];
    return s;
}

static double omp_compute(void) {
    double s = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < NC; i++)
        s += step(ca[i]);
    return s;
}

static void omp_triad(void) {
    const double k = 3.0;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < NT; i++)
        tout[i] = ta[i] + k * tb[i];
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    int quick = argc > 2 && argv[2][0] == 'q'; /* 1 and all threads only, with where each ran */
    if (rounds < 1 || rounds > MAXR)
        rounds = 7;
    ca = malloc(sizeof(double) * NC);
    ta = malloc(sizeof(double) * NT);
    tb = malloc(sizeof(double) * NT);
    tout = malloc(sizeof(double) * NT);
    if (!ca || !ta || !tb || !tout)
        return 1;
    int maxt = pool_max_threads();
    if (maxt > MAXT)
        maxt = MAXT;
    /* first touch by the pool's threads, as a parallel program would */
    pool_set_num_threads(maxt);
    pool_parallel_for(NT, triad_body, NULL, POOL_STATIC, 0);
    for (int64_t i = 0; i < NC; i++)
        ca[i] = (double)(i % 1000) / 1000.0;
    for (int64_t i = 0; i < NT; i++)
        ta[i] = 1.0, tb[i] = 2.0;
    double cref = omp_compute();
    printf("| threads | compute pool (ms) | speedup | efficiency | compute OpenMP (ms) | triad pool (ms) | "
           "triad pool (GB/s) | speedup | efficiency | triad OpenMP (ms) |\n");
    printf("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    double c1 = 0, t1 = 0;
    for (int t = 1; t <= maxt; t++) {
        double cp[MAXR], co[MAXR], tp[MAXR], to[MAXR];
        if (quick && t != 1 && t != maxt)
            continue;
        for (int i = 0; i < MAXT; i++)
            where[i] = -1, done[i] = 0;
        pool_set_num_threads(t);
        omp_set_num_threads(t);
        pool_compute(t), omp_compute(); /* warm up */
        for (int r = 0; r < rounds; r++) {
            usleep(5000);
            double x = now_ms();
            double s = pool_compute(t);
            cp[r] = now_ms() - x;
            if (fabs(s - cref) > 1e-6 * fabs(cref)) {
                fprintf(stderr, "pool sum differs: %g vs %g\n", s, cref);
                return 1;
            }
            usleep(5000);
            x = now_ms();
            omp_compute();
            co[r] = now_ms() - x;
            usleep(5000);
            x = now_ms();
            pool_parallel_for(NT, triad_body, NULL, POOL_STATIC, 0);
            tp[r] = now_ms() - x;
            usleep(5000);
            x = now_ms();
            omp_triad();
            to[r] = now_ms() - x;
        }
        double mc = median(cp, rounds), mo = median(co, rounds), mt = median(tp, rounds), mto = median(to, rounds);
        if (t == 1)
            c1 = mc, t1 = mt;
        double gbs = 3.0 * 8.0 * NT / (mt * 1e-3) / 1e9;
        printf("| %d | %.2f | %.2f | %.0f%% | %.2f | %.2f | %.1f | %.2f | %.0f%% | %.2f |\n", t, mc, c1 / mc,
               100.0 * c1 / mc / t, mo, mt, gbs, t1 / mt, 100.0 * t1 / mt / t, mto);
        if (quick) {
            printf("  thread id: cpu (elements computed):");
            for (int i = 0; i < t; i++)
                printf(" %d:%d(%lld)", i, where[i], (long long)done[i]);
            printf("\n");
        }
        fflush(stdout);
    }
    return 0;
}
