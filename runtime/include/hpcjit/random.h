/* random.h - runtime helpers of np.random (runtime/random.c), called from
 * compiled code (compiler/lib/random/lower_random.c). */
#ifndef HPCJIT_RANDOM_H
#define HPCJIT_RANDOM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* xoshiro256** per thread.
 * Each thread's generator is stream k of the current seed: the seed
 * expanded by splitmix64, then jumped k times by 2^128.  A thread takes
 * the next free k on first use (the first thread k = 0); rt_random_seed
 * reseeds every thread (lazily, at its next draw) and restarts the calling
 * thread's stream. */
void rt_random_seed(int64_t seed);
/* Make the calling thread use stream k of the current seed (workers of a
 * parallel loop: k = worker id + 1, say). */
void rt_random_stream(uint64_t k);
enum { RT_RND_RANDOM, RT_RND_NORMAL, RT_RND_UNIFORM, RT_RND_EXPONENTIAL };
/* n float64 draws of a distribution (p0, p1: loc/scale, low/high, scale). */
void rt_random_fill(int32_t kind, double *out, int64_t n, double p0, double p1);
/* n ints uniform in [lo, hi); -1 with ValueError pending if lo >= hi. */
int32_t rt_random_randint(int64_t *out, int64_t n, int64_t lo, int64_t hi);
/* Fisher-Yates over n rows of rowbytes bytes, `stride` bytes apart. */
void rt_random_shuffle(void *data, int64_t n, int64_t stride, int64_t rowbytes);
/* k distinct ints from [0, n) (choice without replacement); -1 with
 * ValueError pending when k > n, MemoryError on allocation failure. */
int32_t rt_random_sample(int64_t *out, int64_t k, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
