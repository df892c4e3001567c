/* random.c - np.random in compiled code: xoshiro256** (Blackman & Vigna)
 * with one state per thread, separate from NumPy's MT19937 stream.
 *
 * Seeding: the 64-bit seed is expanded to 256 bits by splitmix64 (stream
 * 0); stream k is stream 0 advanced by k jumps of 2^128 draws, so threads
 * never overlap.  A seed call bumps a global generation: other threads
 * re-derive their state from the new seed at their next draw. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/random.h"

#define DEFAULT_SEED 0x5eedULL

typedef struct Rng {
    uint64_t s[4];
    uint64_t gen;    /* the generation the state was derived in */
    uint64_t stream;
    int ready;
} Rng;

static _Atomic uint64_t g_seed = DEFAULT_SEED;
static _Atomic uint64_t g_gen = 1;
static _Atomic uint64_t g_next_stream = 0;
static _Thread_local Rng t_rng;

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t next(uint64_t *s) {
    uint64_t r = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* Advance by 2^128 draws (the reference jump polynomial). */
static void jump(uint64_t *s) {
    static const uint64_t J[] = {0x180ec6d33cfd0abaULL, 0xd5a61266f0c9392cULL, 0xa9582618e03fc9aaULL,
                                 0x39abdc4529b1661cULL};
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 64; b++) {
            if (J[i] & (1ULL << b)) {
                s0 ^= s[0];
                s1 ^= s[1];
                s2 ^= s[2];
                s3 ^= s[3];
            }
            next(s);
        }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}

static void derive(Rng *r, uint64_t seed, uint64_t stream, uint64_t gen) {
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    for (uint64_t k = 0; k < stream; k++)
        jump(r->s);
    r->stream = stream;
    r->gen = gen;
    r->ready = 1;
}

static Rng *rng(void) {
    Rng *r = &t_rng;
    uint64_t gen = atomic_load_explicit(&g_gen, memory_order_acquire);
    if (!r->ready) {
        r->stream = atomic_fetch_add(&g_next_stream, 1);
        derive(r, atomic_load(&g_seed), r->stream, gen);
    } else if (r->gen != gen) {
        derive(r, atomic_load(&g_seed), r->stream, gen);
    }
    return r;
}

void rt_random_seed(int64_t seed) {
    Rng *r = rng();
    atomic_store(&g_seed, (uint64_t)seed);
    uint64_t gen = atomic_fetch_add_explicit(&g_gen, 1, memory_order_acq_rel) + 1;
    derive(r, (uint64_t)seed, r->stream, gen);
}

void rt_random_stream(uint64_t k) {
    Rng *r = rng();
    derive(r, atomic_load(&g_seed), k, r->gen);
}

static inline double uniform01(uint64_t *s) { return (double)(next(s) >> 11) * 0x1.0p-53; }

/* Uniform in [0, n), n > 0 (Lemire's multiply-and-reject). */
static uint64_t bounded(uint64_t *s, uint64_t n) {
    unsigned __int128 m = (unsigned __int128)next(s) * n;
    uint64_t lo = (uint64_t)m;
    if (lo < n) {
        uint64_t t = -n % n;
        while (lo < t) {
            m = (unsigned __int128)next(s) * n;
            lo = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

static double gauss(uint64_t *s) {
    /* Marsaglia's polar method (one of the pair is dropped: no cached
     * spare to keep reproducible across seed calls) */
    double x, y, r2;
    do {
        x = 2.0 * uniform01(s) - 1.0;
        y = 2.0 * uniform01(s) - 1.0;
        r2 = x * x + y * y;
    } while (r2 >= 1.0 || r2 == 0.0);
    return x * sqrt(-2.0 * log(r2) / r2);
}

void rt_random_fill(int32_t kind, double *out, int64_t n, double p0, double p1) {
    uint64_t *s = rng()->s;
    for (int64_t i = 0; i < n; i++) {
        switch (kind) {
        case RT_RND_NORMAL: out[i] = p0 + p1 * gauss(s); break;
        case RT_RND_UNIFORM: out[i] = p0 + (p1 - p0) * uniform01(s); break;
        case RT_RND_EXPONENTIAL: out[i] = -log1p(-uniform01(s)) * p0; break;
        default: out[i] = uniform01(s); break;
        }
    }
}

int32_t rt_random_randint(int64_t *out, int64_t n, int64_t lo, int64_t hi) {
    if (lo >= hi) {
        rt_raise("ValueError", "low >= high");
        return -1;
    }
    uint64_t *s = rng()->s;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    for (int64_t i = 0; i < n; i++)
        out[i] = (int64_t)((uint64_t)lo + bounded(s, span));
    return 0;
}

static void swap_bytes(char *a, char *b, int64_t n) {
    char buf[256];
    while (n > 0) {
        size_t k = n > (int64_t)sizeof buf ? sizeof buf : (size_t)n;
        memcpy(buf, a, k);
        memcpy(a, b, k);
        memcpy(b, buf, k);
        a += k;
        b += k;
        n -= (int64_t)k;
    }
}

void rt_random_shuffle(void *data, int64_t n, int64_t stride, int64_t rowbytes) {
    uint64_t *s = rng()->s;
    char *p = data;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)bounded(s, (uint64_t)i + 1);
        if (j != i)
            swap_bytes(p + i * stride, p + j * stride, rowbytes);
    }
}

int32_t rt_random_sample(int64_t *out, int64_t k, int64_t n) {
    if (k > n || k < 0) {
        rt_raise("ValueError", "Cannot take a larger sample than population when replace is False");
        return -1;
    }
    int64_t *perm = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!perm) {
        rt_raise("MemoryError", "out of memory in choice()");
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        perm[i] = i;
    uint64_t *s = rng()->s;
    /* partial Fisher-Yates: the first k places */
    for (int64_t i = 0; i < k; i++) {
        int64_t j = i + (int64_t)bounded(s, (uint64_t)(n - i));
        int64_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        out[i] = perm[i];
    }
    free(perm);
    return 0;
}
