/* random.h - runtime helpers of np.random (runtime/random.c), called from
 * compiled code (compiler/lib/random/lower_random.c). */
#ifndef HPCJIT_RANDOM_H
#define HPCJIT_RANDOM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MT19937 per thread, two generators: np.random's (RT_RNG_NUMPY) and the
 * random module's (RT_RNG_PY), seeded apart (as Numba's are).  Each
 * thread's generator is stream k of the current seed: k = 0 is
 * init_genrand(seed mod 2^32) (Numba's and NumPy's RandomState.seed), k > 0
 * init_by_array({seed mod 2^32, k mod 2^32, k >> 32}).  A thread takes the
 * next free k on first use (the first thread k = 0), worker w of the
 * thread pool k = 2^32 + w (a state per worker id); a seed call reseeds
 * that generator in every thread (lazily, at its next draw) and restarts
 * the calling thread's stream.  Thread-safe: the states are thread-local
 * (per worker id in the pool). */
enum { RT_RNG_NUMPY, RT_RNG_PY };
void rt_random_seed(int64_t seed); /* np.random.seed */
void rt_random_seed2(int32_t which, int64_t seed);
/* Make the calling thread use stream k of the current seeds. */
void rt_random_stream(uint64_t k);
/* The calling thread's generator `which` as a NumPy bitgen_t *
 * (numpy/random/bitgen.h), valid in that thread only.  The functions below
 * take a bitgen_t * `bg`: this one, or the bit generator of a NumPy
 * Generator object handed to compiled code (NULL: np.random's). */
void *rt_random_bitgen(int32_t which);

/* Distributions of rt_random_dist, with parameters a, b, c as listed.
 * Draws are NumPy's Generator algorithms (libnpyrandom), so on a
 * Generator's bit generator they give Generator's streams. */
typedef enum RtDist {
    /* float64 results */
    RT_D_RANDOM,          /* [0, 1) */
    RT_D_UNIFORM,         /* low, high */
    RT_D_NORMAL,          /* loc, scale */
    RT_D_STD_NORMAL,
    RT_D_EXPONENTIAL,     /* scale */
    RT_D_STD_EXPONENTIAL,
    RT_D_GAMMA,           /* shape, scale */
    RT_D_STD_GAMMA,       /* shape */
    RT_D_BETA,            /* a, b */
    RT_D_CHISQUARE,       /* df */
    RT_D_F,               /* dfnum, dfden */
    RT_D_NONC_CHISQUARE,  /* df, nonc */
    RT_D_NONC_F,          /* dfnum, dfden, nonc */
    RT_D_CAUCHY,
    RT_D_STD_T,           /* df */
    RT_D_VONMISES,        /* mu, kappa */
    RT_D_PARETO,          /* a */
    RT_D_WEIBULL,         /* a */
    RT_D_POWER,           /* a */
    RT_D_LAPLACE,         /* loc, scale */
    RT_D_GUMBEL,          /* loc, scale */
    RT_D_LOGISTIC,        /* loc, scale */
    RT_D_LOGNORMAL,       /* mean, sigma */
    RT_D_RAYLEIGH,        /* scale */
    RT_D_WALD,            /* mean, scale */
    RT_D_TRIANGULAR,      /* left, mode, right */
    /* the random module (CPython's formulas where they are short) */
    RT_D_PY_UNIFORM,      /* a, b */
    RT_D_PY_TRIANGULAR,   /* low, high, mode (NaN: None) */
    RT_D_PY_NORMAL,       /* mu, sigma (gauss, normalvariate) */
    RT_D_PY_LOGNORMAL,    /* mu, sigma */
    RT_D_PY_EXPO,         /* lambd */
    RT_D_PY_GAMMA,        /* alpha, beta */
    RT_D_PY_BETA,         /* alpha, beta */
    RT_D_PY_VONMISES,     /* mu, kappa */
    RT_D_PY_PARETO,       /* alpha */
    RT_D_PY_WEIBULL,      /* alpha, beta */
    /* int64 results (from RT_D_INT_FIRST on) */
    RT_D_BINOMIAL,        /* n, p */
    RT_D_NEG_BINOMIAL,    /* n, p */
    RT_D_POISSON,         /* lam */
    RT_D_GEOMETRIC,       /* p */
    RT_D_ZIPF,            /* a */
    RT_D_LOGSERIES,       /* p */
    RT_D_HYPERGEOMETRIC,  /* ngood, nbad, nsample */
    RT_D_COUNT
} RtDist;
#define RT_D_INT_FIRST RT_D_BINOMIAL
#define RT_D_GEN 0x100 /* or'ed into the kind: Generator's checks where they differ from RandomState's */
#define RT_D_F32 0x200 /* or'ed into RT_D_RANDOM, RT_D_STD_NORMAL, RT_D_STD_EXPONENTIAL, RT_D_STD_GAMMA:
                          float32 results (Generator's dtype=np.float32 forms) */
/* n draws of distribution `kind` into out (float64, or int64 from
 * RT_D_INT_FIRST on; float32 with RT_D_F32).  0, or -1 with ValueError/OverflowError pending
 * (NumPy's messages) when a parameter is out of its domain. */
int32_t rt_random_dist(void *bg, int32_t kind, void *out, int64_t n, double a, double b, double c);
/* Generator.integers(lo, hi, endpoint=, dtype=) into n items of itemsize
 * bytes (1, 2, 4, 8), signed or not (Lemire's method, NumPy's buffered
 * draws): -1 with ValueError pending when the range is empty or out of the
 * dtype's bounds (NumPy's messages). */
int32_t rt_random_integers(void *bg, void *out, int64_t n, int64_t lo, int64_t hi, int32_t endpoint,
                           int32_t itemsize, int32_t is_signed);
/* rows draws of multinomial(n, pvals[0..d)) into out (rows x d int64). */
int32_t rt_random_multinomial(void *bg, int64_t *out, int64_t rows, int64_t n, const double *pvals, int64_t d);
/* rows draws of dirichlet(alpha[0..k)) into out (rows x k float64). */
int32_t rt_random_dirichlet(void *bg, double *out, int64_t rows, const double *alpha, int64_t k);
/* random.getrandbits(k) (k <= 64) and random.randrange (nargs: how many
 * arguments the call had, for CPython's messages), on RT_RNG_PY. */
int32_t rt_pyrandom_getrandbits(int64_t k, uint64_t *out);
int32_t rt_pyrandom_randrange(int64_t start, int64_t stop, int64_t step, int32_t nargs, int64_t *out);

/* np.random.default_rng(seed) (has_seed 0: default_rng(), fresh entropy
 * from the OS): NumPy's PCG64 seeded through SeedSequence as NumPy seeds
 * it, built in the RT_DEFAULT_RNG_BYTES bytes at mem (16-byte aligned),
 * which then is the Generator's bitgen_t * (valid while mem is).  0, or -1
 * with ValueError pending for a negative seed.  Thread-safe. */
#define RT_DEFAULT_RNG_BYTES 128
int32_t rt_random_default_rng(void *mem, int64_t seed, int32_t has_seed);

/* np.random.randint: n ints uniform in [lo, hi); -1 with ValueError pending if lo >= hi. */
int32_t rt_random_randint(int64_t *out, int64_t n, int64_t lo, int64_t hi);
/* Fisher-Yates over n rows of rowbytes bytes, `stride` bytes apart, in
 * Generator.shuffle's order of draws. */
void rt_random_shuffle(void *bg, void *data, int64_t n, int64_t stride, int64_t rowbytes);
/* k distinct ints from [0, n) (choice without replacement); -1 with
 * ValueError pending when k > n, MemoryError on allocation failure. */
int32_t rt_random_sample(int64_t *out, int64_t k, int64_t n);

#ifdef __cplusplus
}
#endif
#endif
