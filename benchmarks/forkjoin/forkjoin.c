/* forkjoin - fork/join overhead of a (nearly) empty parallel loop: hpcjit's pool
 * beside its OpenMP twin (gcc -fopenmp), in one process, alternating rounds
 * so that both see the same machine.  Prints one line per thread count:
 *   threads pool_median_us omp_median_us pool_min_us omp_min_us
 * (microseconds per loop over ROUNDS interleaved rounds of `reps` loops;
 * argv[2] sets ROUNDS, default 15).  Built and run by run.sh. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hpcjit/pool.h"

#define N 1000 /* iterations, as in prange(1000) */

/* Each iteration stores one element, as the Numba twin must (Numba removes
 * a prange whose body has no effect). */
static int64_t out[N];

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int empty_body(void *ctx, int64_t begin, int64_t end, int tid)
{
    int64_t *a = ctx;
    for (int64_t i = begin; i < end; i++)
        a[i] = i;
    __asm__ __volatile__("" ::: "memory");
    return 0;
}

static void omp_loop(void)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < N; i++)
        out[i] = i;
    __asm__ __volatile__("" ::: "memory");
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 20000;
    int ROUNDS = argc > 2 ? atoi(argv[2]) : 15;
    if (reps < 1)
        reps = 1;
    if (ROUNDS < 1 || ROUNDS > 1000)
        ROUNDS = 15;
    int maxt = pool_max_threads();
    for (int t = 1; t <= maxt; t++) {
        double pool[1000], omp[1000];
        pool_set_num_threads(t);
        omp_set_num_threads(t);
        /* warm both runtimes up (thread creation, first touch) */
        for (int i = 0; i < 1000; i++) {
            pool_parallel_for(N, empty_body, out, POOL_STATIC, 0);
            omp_loop();
        }
        for (int r = 0; r < ROUNDS; r++) {
            usleep(20000); /* let the other runtime's spinners go to sleep */
            double t0 = now_us();
            for (int i = 0; i < reps; i++)
                pool_parallel_for(N, empty_body, out, POOL_STATIC, 0);
            pool[r] = (now_us() - t0) / reps;
            usleep(20000);
            t0 = now_us();
            for (int i = 0; i < reps; i++)
                omp_loop();
            omp[r] = (now_us() - t0) / reps;
        }
        qsort(pool, ROUNDS, sizeof pool[0], cmp);
        qsort(omp, ROUNDS, sizeof omp[0], cmp);
        printf("%d %.3f %.3f %.3f %.3f\n", t, pool[ROUNDS / 2], omp[ROUNDS / 2], pool[0], omp[0]);
        fflush(stdout);
    }
    pool_shutdown();
    return 0;
}
