/* default_rng.c - np.random.default_rng(seed) in compiled code: NumPy's
 * default bit generator, PCG64 (O'Neill's PCG XSL RR 128/64, a 128-bit
 * LCG), seeded through SeedSequence as NumPy seeds it, so a Generator made
 * in compiled code draws what np.random.default_rng(seed) draws.  Written
 * from NumPy's documented algorithms (SeedSequence: the entropy pool of
 * four 32-bit words hashed by hashmix/mix, generate_state; PCG64: the
 * seeding of pcg_setseq_128_srandom). */
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "hpcjit/random.h"
#include "hpcjit/runtime.h"
#include "npyrandom.h"

typedef unsigned __int128 u128;

typedef struct Pcg {
    bitgen_t bg; /* first: the Generator value is a bitgen_t * */
    u128 state, inc;
    int has_uint32;
    uint32_t uinteger;
} Pcg;

_Static_assert(sizeof(Pcg) <= RT_DEFAULT_RNG_BYTES, "RT_DEFAULT_RNG_BYTES too small");

#define PCG_MULT (((u128)0x2360ed051fc65da4ULL << 64) | 0x4385df649fccf645ULL)

static inline void step(Pcg *p) { p->state = p->state * PCG_MULT + p->inc; }

static uint64_t pcg_next64(void *st) {
    Pcg *p = st;
    step(p);
    uint64_t x = (uint64_t)(p->state >> 64) ^ (uint64_t)p->state;
    unsigned r = (unsigned)(p->state >> 122);
    return (x >> r) | (x << ((64 - r) & 63));
}

/* 32-bit draws: both halves of a 64-bit one, the low half first (NumPy's
 * buffered next_uint32) */
static uint32_t pcg_next32(void *st) {
    Pcg *p = st;
    if (p->has_uint32) {
        p->has_uint32 = 0;
        return p->uinteger;
    }
    uint64_t v = pcg_next64(st);
    p->has_uint32 = 1;
    p->uinteger = (uint32_t)(v >> 32);
    return (uint32_t)v;
}

static double pcg_double(void *st) { return (double)(pcg_next64(st) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- SeedSequence --------------------------------------------------------- */

#define POOL 4
#define INIT_A 0x43b0d7e5U
#define MULT_A 0x931e8875U
#define INIT_B 0x8b51f9ddU
#define MULT_B 0x58f38dedU
#define MIX_MULT_L 0xca01f9ddU
#define MIX_MULT_R 0x4973f715U
#define XSHIFT 16

static uint32_t hashmix(uint32_t v, uint32_t *h) {
    v ^= *h;
    *h *= MULT_A;
    v *= *h;
    return v ^ (v >> XSHIFT);
}

static uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t r = MIX_MULT_L * x - MIX_MULT_R * y;
    return r ^ (r >> XSHIFT);
}

/* The pool of SeedSequence(entropy words), then generate_state(4, uint64)
 * into out. */
static void seed_sequence(const uint32_t *ent, int n, uint64_t out[4]) {
    uint32_t pool[POOL], h = INIT_A;
    for (int i = 0; i < POOL; i++)
        pool[i] = hashmix(i < n ? ent[i] : 0, &h);
    for (int s = 0; s < POOL; s++)
        for (int d = 0; d < POOL; d++)
            if (s != d)
                pool[d] = mix(pool[d], hashmix(pool[s], &h));
    for (int s = POOL; s < n; s++)
        for (int d = 0; d < POOL; d++)
            pool[d] = mix(pool[d], hashmix(ent[s], &h));
    uint32_t w[8], hb = INIT_B;
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % POOL] ^ hb;
        hb *= MULT_B;
        v *= hb;
        w[i] = v ^ (v >> XSHIFT);
    }
    for (int i = 0; i < 4; i++)
        out[i] = w[2 * i] | ((uint64_t)w[2 * i + 1] << 32);
}

int32_t rt_random_default_rng(void *mem, int64_t seed, int32_t has_seed) {
    uint32_t ent[4];
    int n;
    if (has_seed) {
        if (seed < 0) {
            rt_raise("ValueError", "expected non-negative integer");
            return -1;
        }
        /* the seed's 32-bit words, least significant first */
        ent[0] = (uint32_t)seed;
        ent[1] = (uint32_t)((uint64_t)seed >> 32);
        n = ent[1] ? 2 : 1;
    } else {
        /* fresh entropy, 128 bits as NumPy takes */
        if (getrandom(ent, sizeof ent, 0) != (ssize_t)sizeof ent) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ent[0] = (uint32_t)ts.tv_nsec;
            ent[1] = (uint32_t)ts.tv_sec;
            ent[2] = (uint32_t)(uintptr_t)mem;
            ent[3] = (uint32_t)((uintptr_t)mem >> 32);
        }
        n = 4;
        while (n > 1 && ent[n - 1] == 0) /* an int's words: no leading zero words */
            n--;
    }
    uint64_t s[4];
    seed_sequence(ent, n, s);
    Pcg *p = mem;
    memset(p, 0, sizeof *p);
    p->bg = (bitgen_t){.state = p, .next_uint64 = pcg_next64, .next_uint32 = pcg_next32,
                       .next_double = pcg_double, .next_raw = pcg_next64};
    u128 initstate = ((u128)s[0] << 64) | s[1], initseq = ((u128)s[2] << 64) | s[3];
    p->inc = (initseq << 1) | 1;
    step(p);
    p->state += initstate;
    step(p);
    return 0;
}
