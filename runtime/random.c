/* random.c - np.random and the random module in compiled code, and the
 * draws of a NumPy Generator object handed to compiled code.
 *
 * np.random and random draw from two MT19937 states per thread (mtrand.c),
 * seeded as Numba seeds them, so that a seeded compiled function gives
 * Numba's numbers: np.random.seed(s) and random.seed(s) run init_genrand
 * on s mod 2^32 (NumPy's RandomState.seed(int) does the same; CPython's
 * random.seed runs init_by_array, so the random module's streams equal
 * Numba's, not CPython's).  The draws are Numba's algorithms (mtrand.h);
 * binomial, poisson and multinomial are NumPy's (libnpyrandom) on the
 * MT19937 state, as Numba's are bit for bit.  Each state is also a NumPy
 * bitgen_t for those calls.  A Generator's bit generator draws with
 * NumPy's Generator algorithms (libnpyrandom, npyrandom.h).
 *
 * Streams: a thread takes a stream number k on first use (the first thread
 * 0, the next 1, ...; rt_random_stream sets it); worker w of the thread
 * pool (pool_get_thread_id() w >= 1) draws from stream 2^32 + w, a state
 * kept per worker id.  Stream 0 of seed s is init_genrand(s), Numba's;
 * stream k > 0 is init_by_array over the words {s mod 2^32, k mod 2^32,
 * k >> 32}: a state of its own for each thread and worker, the same for the
 * same seed and k.  A seed call bumps a global generation: other threads
 * and workers re-derive their state from the new seed at their next draw,
 * so a parallel loop after np.random.seed(s) draws the same numbers in
 * each worker's share at every run (static schedule, same thread count). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/pool.h"
#include "hpcjit/random.h"
#include "hpcjit/runtime.h"
#include "mtrand.h"
#include "npyrandom.h"

#define DEFAULT_SEED 0x5eedULL

typedef struct Rng {
    Mt mt;
    uint64_t gen;    /* the generation the state was derived in */
    uint64_t stream;
    int ready;
    bitgen_t bg;     /* bg.state points back at this Rng */
} Rng;

/* per generator (RT_RNG_NUMPY, RT_RNG_PY) */
static _Atomic uint64_t g_seed[2] = {DEFAULT_SEED, DEFAULT_SEED};
static _Atomic uint64_t g_gen[2] = {1, 1};
static _Atomic uint64_t g_next_stream = 0;
static _Thread_local Rng t_rng[2];

static void derive(Rng *r, uint64_t seed, uint64_t stream, uint64_t gen) {
    if (stream == 0) {
        mt_seed(&r->mt, (uint32_t)seed);
    } else {
        uint32_t key[3] = {(uint32_t)seed, (uint32_t)stream, (uint32_t)(stream >> 32)};
        mt_seed_array(&r->mt, key, 3);
    }
    r->stream = stream;
    r->gen = gen;
    r->ready = 1;
}

/* NumPy's MT19937 bit generator's word order: a 64-bit value is the high
 * word, then the low one. */
static uint64_t bg_next_uint64(void *st) {
    Mt *m = &((Rng *)st)->mt;
    uint64_t hi = mt_next32(m);
    return (hi << 32) | mt_next32(m);
}
static uint32_t bg_next_uint32(void *st) { return mt_next32(&((Rng *)st)->mt); }
static double bg_next_double(void *st) { return mt_double(&((Rng *)st)->mt); }

/* The states of the thread pool's workers, kept per worker id rather than
 * per OS thread: the share of a parallel loop a worker id names draws the
 * same numbers whichever thread runs it (the caller runs a late worker's
 * share under its id, pool.h).  Worker w's stream is WORKER_STREAM + w. */
#define WORKER_STREAM ((uint64_t)1 << 32)
typedef struct Workers {
    int n;         /* worker ids 1..n-1 have states */
    Rng r[][2];
} Workers;
static _Atomic(Workers *) g_workers;

/* This thread's (or its worker id's) state of generator `which`; *stream
 * gets the worker's stream number, UINT64_MAX outside workers. */
static Rng *slot(int which, uint64_t *stream) {
    int tid = pool_get_thread_id();
    *stream = UINT64_MAX;
    if (tid <= 0)
        return &t_rng[which];
    Workers *w = atomic_load_explicit(&g_workers, memory_order_acquire);
    if (!w) {
        int n = pool_max_threads();
        Workers *fresh = calloc(1, sizeof(Workers) + (size_t)n * sizeof fresh->r[0]);
        if (!fresh)
            return &t_rng[which]; /* no memory: the thread's own state */
        fresh->n = n;
        Workers *none = NULL;
        if (atomic_compare_exchange_strong(&g_workers, &none, fresh)) {
            w = fresh;
        } else {
            free(fresh);
            w = none;
        }
    }
    if (tid >= w->n)
        return &t_rng[which];
    *stream = WORKER_STREAM + (uint64_t)tid;
    return &w->r[tid][which];
}

static Rng *rng_of(int which) {
    uint64_t stream;
    Rng *r = slot(which, &stream);
    uint64_t gen = atomic_load_explicit(&g_gen[which], memory_order_acquire);
    if (!r->ready) {
        /* one stream number per thread, the same for both generators */
        if (stream == UINT64_MAX) {
            Rng *o = &t_rng[!which];
            stream = o->ready ? o->stream : atomic_fetch_add(&g_next_stream, 1);
        }
        r->bg = (bitgen_t){.state = r, .next_uint64 = bg_next_uint64, .next_uint32 = bg_next_uint32,
                           .next_double = bg_next_double, .next_raw = bg_next_uint64};
        derive(r, atomic_load(&g_seed[which]), stream, gen);
    } else if (r->gen != gen) {
        derive(r, atomic_load(&g_seed[which]), r->stream, gen);
    }
    return r;
}

static Rng *rng(void) { return rng_of(RT_RNG_NUMPY); }

/* The thread's own state behind bg (NULL: np.random's), or NULL when bg is
 * a Generator's bit generator. */
static Rng *own(void *bg) {
    if (!bg)
        return rng();
    bitgen_t *g = bg;
    return g->next_uint64 == bg_next_uint64 ? g->state : NULL;
}

static bool is_py(Rng *r) {
    uint64_t stream;
    return r == slot(RT_RNG_PY, &stream);
}

void rt_random_seed2(int32_t which, int64_t seed) {
    which = which != 0;
    Rng *r = rng_of(which);
    atomic_store(&g_seed[which], (uint64_t)seed);
    uint64_t gen = atomic_fetch_add_explicit(&g_gen[which], 1, memory_order_acq_rel) + 1;
    derive(r, (uint64_t)seed, r->stream, gen);
}

void rt_random_seed(int64_t seed) { rt_random_seed2(RT_RNG_NUMPY, seed); }

void rt_random_stream(uint64_t k) {
    for (int w = 0; w < 2; w++) {
        Rng *r = rng_of(w);
        derive(r, atomic_load(&g_seed[w]), k, r->gen);
    }
}

void *rt_random_bitgen(int32_t which) { return &rng_of(which != 0)->bg; }

int32_t rt_random_randint(int64_t *out, int64_t n, int64_t lo, int64_t hi) {
    if (lo >= hi) {
        rt_raise("ValueError", "low >= high");
        return -1;
    }
    Mt *m = &rng()->mt;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    for (int64_t i = 0; i < n; i++)
        out[i] = (int64_t)((uint64_t)lo + mt_below_np(m, span));
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

void rt_random_shuffle(void *bg, void *data, int64_t n, int64_t stride, int64_t rowbytes) {
    Rng *r = own(bg);
    bitgen_t *g = r ? &r->bg : bg;
    bool py = r && is_py(r);
    char *p = data;
    /* from the last row down, as NumPy's shuffle and CPython's; the index
     * drawn as np.random.randint(0, i + 1), random.randrange(i + 1) or
     * Generator.shuffle draws it */
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = !r ? (int64_t)random_interval(g, (uint64_t)i)
                       : (int64_t)(py ? mt_below_py(&r->mt, (uint64_t)i + 1) : mt_below_np(&r->mt, (uint64_t)i + 1));
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
    /* the first k of permutation(n), as NumPy's RandomState.choice (and
     * Numba's) take them */
    rt_random_shuffle(NULL, perm, n, sizeof(int64_t), sizeof(int64_t));
    memcpy(out, perm, (size_t)k * sizeof(int64_t));
    free(perm);
    return 0;
}

/* ---- distributions -------------------------------------------------------- */

static int32_t fail(const char *type, const char *msg) {
    rt_raise(type, msg);
    return -1;
}

/* NumPy's parameter checks (numpy/random/_common.pyx check_constraint),
 * with its messages. */
static bool nonneg(double v) { return isnan(v) || !signbit(v); }

#define POISSON_LAM_MAX (9.223372036854775807e18 - 3.0370004999760497e10) /* INT64_MAX - sqrt(INT64_MAX) * 10 */

static int32_t check(int32_t kind, bool gen, double a, double b, double c) {
    switch (kind) {
    case RT_D_UNIFORM:
        if (!isfinite(b - a))
            return fail("OverflowError", gen ? "high - low range exceeds valid bounds" : "Range exceeds valid bounds");
        if (gen && !nonneg(b - a))
            return fail("ValueError", "high - low < 0");
        return 0;
    case RT_D_NORMAL: case RT_D_EXPONENTIAL: case RT_D_LAPLACE: case RT_D_GUMBEL: case RT_D_LOGISTIC:
    case RT_D_RAYLEIGH:
        return nonneg(kind == RT_D_EXPONENTIAL || kind == RT_D_RAYLEIGH ? a : b) ? 0 : fail("ValueError", "scale < 0");
    case RT_D_LOGNORMAL: return nonneg(b) ? 0 : fail("ValueError", "sigma < 0");
    case RT_D_STD_GAMMA: return nonneg(a) ? 0 : fail("ValueError", "shape < 0");
    case RT_D_GAMMA:
        if (!nonneg(a))
            return fail("ValueError", "shape < 0");
        return nonneg(b) ? 0 : fail("ValueError", "scale < 0");
    case RT_D_BETA:
        if (a <= 0)
            return fail("ValueError", "a <= 0");
        return b <= 0 ? fail("ValueError", "b <= 0") : 0;
    case RT_D_CHISQUARE: case RT_D_STD_T: return a <= 0 ? fail("ValueError", "df <= 0") : 0;
    case RT_D_NONC_CHISQUARE:
        if (a <= 0)
            return fail("ValueError", "df <= 0");
        return nonneg(b) ? 0 : fail("ValueError", "nonc < 0");
    case RT_D_F: case RT_D_NONC_F:
        if (a <= 0)
            return fail("ValueError", "dfnum <= 0");
        if (b <= 0)
            return fail("ValueError", "dfden <= 0");
        return kind == RT_D_F || nonneg(c) ? 0 : fail("ValueError", "nonc < 0");
    case RT_D_VONMISES: return nonneg(b) ? 0 : fail("ValueError", "kappa < 0");
    case RT_D_PARETO: case RT_D_POWER: return a <= 0 ? fail("ValueError", "a <= 0") : 0;
    case RT_D_WEIBULL: return nonneg(a) ? 0 : fail("ValueError", "a < 0");
    case RT_D_WALD:
        if (a <= 0)
            return fail("ValueError", "mean <= 0");
        return b <= 0 ? fail("ValueError", "scale <= 0") : 0;
    case RT_D_TRIANGULAR:
        if (a > b)
            return fail("ValueError", "left > mode");
        if (b > c)
            return fail("ValueError", "mode > right");
        return a == c ? fail("ValueError", "left == right") : 0;
    case RT_D_PY_EXPO: /* CPython divides by lambd */
        return a == 0 ? fail("ZeroDivisionError", "float division by zero") : 0;
    case RT_D_PY_GAMMA: case RT_D_PY_BETA:
        if (!(a > 0) || !(b > 0))
            return fail("ValueError", kind == RT_D_PY_GAMMA ? "gammavariate: alpha and beta must be > 0.0"
                                                            : "betavariate: alpha and beta must be > 0.0");
        return 0;
    case RT_D_BINOMIAL:
        if (!(b >= 0 && b <= 1))
            return fail("ValueError", "p < 0, p > 1 or p is NaN");
        return a < 0 ? fail("ValueError", "n < 0") : 0;
    case RT_D_NEG_BINOMIAL:
        if (gen && isnan(a))
            return fail("ValueError", "n must not be NaN");
        if (a <= 0)
            return fail("ValueError", "n <= 0");
        /* (0, 1] for both: p = 0 would draw a Poisson of an infinite mean */
        if (b > 0 && b <= 1)
            return 0;
        return fail("ValueError", gen ? "p <= 0, p > 1 or p contains NaNs" : "p < 0, p > 1 or p is NaN");
    case RT_D_POISSON:
        if (!(a >= 0))
            return fail("ValueError", "lam < 0 or lam is NaN");
        return a > POISSON_LAM_MAX ? fail("ValueError", "lam value too large") : 0;
    case RT_D_GEOMETRIC: return a > 0 && a <= 1 ? 0 : fail("ValueError", "p <= 0, p > 1 or p contains NaNs");
    case RT_D_ZIPF: return a > 1 ? 0 : fail("ValueError", "a <= 1 or a is NaN");
    case RT_D_LOGSERIES: return a >= 0 && a < 1 ? 0 : fail("ValueError", "p < 0, p >= 1 or p is NaN");
    case RT_D_HYPERGEOMETRIC:
        if (gen && (a >= 1e9 || b >= 1e9))
            return fail("ValueError", "both ngood and nbad must be less than 1000000000");
        if (a + b < c)
            return fail("ValueError", "ngood + nbad < nsample");
        if (a < 0)
            return fail("ValueError", "ngood < 0");
        if (b < 0)
            return fail("ValueError", "nbad < 0");
        if (gen ? c < 0 : c < 1)
            return fail("ValueError", gen ? "nsample < 0" : "nsample < 1 or nsample is NaN");
        return 0;
    default: return 0;
    }
}

/* ---- np.random and random: Numba's draws on this thread's MT19937 ---------- */

static double nonc_chisquare(Rng *r, double df, double nonc) {
    Mt *m = &r->mt;
    if (isnan(nonc))
        return NAN;
    if (df > 1) {
        double chi2 = mt_chisquare(m, df - 1);
        double z = mt_gauss(m) + sqrt(nonc);
        return chi2 + z * z;
    }
    int64_t i = random_poisson(&r->bg, nonc / 2.0);
    return mt_chisquare(m, df + 2 * (double)i);
}

/* CPython's random.triangular; mode NaN stands for None. */
static double py_triangular(Mt *m, double low, double high, double mode) {
    double c = 0.5;
    if (!isnan(mode)) {
        if (high == low)
            return low;
        c = (mode - low) / (high - low);
    }
    double u = mt_double(m);
    if (u > c) {
        u = 1.0 - u;
        c = 1.0 - c;
        double t = low;
        low = high;
        high = t;
    }
    return low + (high - low) * sqrt(u * c);
}

static double own_real(Rng *r, int32_t kind, double a, double b, double c) {
    Mt *m = &r->mt;
    switch (kind) {
    case RT_D_RANDOM: return mt_double(m);
    case RT_D_UNIFORM: case RT_D_PY_UNIFORM: return a + (b - a) * mt_double(m);
    case RT_D_NORMAL: case RT_D_PY_NORMAL: return a + b * mt_gauss(m);
    case RT_D_STD_NORMAL: return mt_gauss(m);
    case RT_D_EXPONENTIAL: return -log(1.0 - mt_double(m)) * a;
    case RT_D_STD_EXPONENTIAL: return -log(1.0 - mt_double(m));
    case RT_D_GAMMA: case RT_D_PY_GAMMA: return mt_gamma(m, a, b);
    case RT_D_STD_GAMMA: return mt_gamma(m, a, 1.0);
    case RT_D_BETA: case RT_D_PY_BETA: return mt_beta(m, a, b);
    case RT_D_CHISQUARE: return mt_chisquare(m, a);
    case RT_D_F: {
        double num = mt_chisquare(m, a) * b;
        return num / (mt_chisquare(m, b) * a);
    }
    case RT_D_NONC_CHISQUARE: return nonc_chisquare(r, a, b);
    case RT_D_NONC_F: { /* NumPy's legacy form (Numba has none) */
        double num = nonc_chisquare(r, a, c) * b;
        return num / (mt_chisquare(m, b) * a);
    }
    case RT_D_CAUCHY: {
        double n = mt_gauss(m);
        return n / mt_gauss(m);
    }
    case RT_D_STD_T: {
        double n = mt_gauss(m), g = mt_gamma(m, a / 2.0, 1.0);
        return sqrt(a / 2.0) * n / sqrt(g);
    }
    case RT_D_VONMISES: case RT_D_PY_VONMISES: return mt_vonmises(m, a, b);
    case RT_D_PARETO: return 1.0 / pow(1.0 - mt_double(m), 1.0 / a) - 1;
    case RT_D_WEIBULL: return pow(-log(1.0 - mt_double(m)), 1.0 / a);
    case RT_D_POWER: {
        double e = -log(1.0 - mt_double(m));
        return pow(1 - exp(-e), 1. / a);
    }
    case RT_D_LAPLACE: {
        double u = mt_double(m);
        return u < 0.5 ? a + b * log(u + u) : a - b * log(2.0 - u - u);
    }
    case RT_D_GUMBEL: return a - b * log(-log(1.0 - mt_double(m)));
    case RT_D_LOGISTIC: {
        double u = mt_double(m);
        return a + b * log(u / (1.0 - u));
    }
    case RT_D_LOGNORMAL: case RT_D_PY_LOGNORMAL: return exp(a + b * mt_gauss(m));
    case RT_D_RAYLEIGH: return a * sqrt(-2.0 * log(1.0 - mt_double(m)));
    case RT_D_WALD: {
        double mu_2l = a / (2.0 * b), y = mt_gauss(m);
        y = a * y * y;
        double x = a + mu_2l * (y - sqrt(4 * b * y + y * y));
        return mt_double(m) <= a / (a + x) ? x : a * a / x;
    }
    case RT_D_TRIANGULAR: /* (left, mode, right), left < right checked above: CPython's form */
        return py_triangular(m, a, c, b);
    case RT_D_PY_TRIANGULAR: return py_triangular(m, a, b, c);
    case RT_D_PY_EXPO: return -log(1.0 - mt_double(m)) / a;
    case RT_D_PY_PARETO: return 1.0 / pow(1.0 - mt_double(m), 1.0 / a);
    case RT_D_PY_WEIBULL: return a * pow(-log(1.0 - mt_double(m)), 1.0 / b);
    default: return NAN;
    }
}

static int64_t own_int(Rng *r, int32_t kind, double a, double b, double c, binomial_t *bin) {
    Mt *m = &r->mt;
    switch (kind) {
    case RT_D_BINOMIAL: return random_binomial(&r->bg, b, (int64_t)a, bin);
    case RT_D_NEG_BINOMIAL: return random_poisson(&r->bg, mt_gamma(m, a, (1.0 - b) / b));
    case RT_D_POISSON: return random_poisson(&r->bg, a);
    case RT_D_GEOMETRIC: return mt_geometric(m, a);
    case RT_D_ZIPF: return mt_zipf(m, a);
    case RT_D_LOGSERIES: return mt_logseries(m, a);
    case RT_D_HYPERGEOMETRIC: return mt_hypergeometric(m, (int64_t)a, (int64_t)b, (int64_t)c);
    default: return 0;
    }
}

/* ---- a Generator's bit generator: NumPy's Generator algorithms ------------ */

static double gen_real(bitgen_t *g, int32_t kind, double a, double b, double c) {
    switch (kind) {
    case RT_D_RANDOM: return g->next_double(g->state);
    case RT_D_UNIFORM: return random_uniform(g, a, b - a);
    case RT_D_NORMAL: return random_normal(g, a, b);
    case RT_D_STD_NORMAL: return random_standard_normal(g);
    case RT_D_EXPONENTIAL: return random_exponential(g, a);
    case RT_D_STD_EXPONENTIAL: return random_standard_exponential(g);
    case RT_D_GAMMA: return random_gamma(g, a, b);
    case RT_D_STD_GAMMA: return random_standard_gamma(g, a);
    case RT_D_BETA: return random_beta(g, a, b);
    case RT_D_CHISQUARE: return random_chisquare(g, a);
    case RT_D_F: return random_f(g, a, b);
    case RT_D_NONC_CHISQUARE: return random_noncentral_chisquare(g, a, b);
    case RT_D_NONC_F: return random_noncentral_f(g, a, b, c);
    case RT_D_CAUCHY: return random_standard_cauchy(g);
    case RT_D_STD_T: return random_standard_t(g, a);
    case RT_D_VONMISES: return random_vonmises(g, a, b);
    case RT_D_PARETO: return random_pareto(g, a);
    case RT_D_WEIBULL: return random_weibull(g, a);
    case RT_D_POWER: return random_power(g, a);
    case RT_D_LAPLACE: return random_laplace(g, a, b);
    case RT_D_GUMBEL: return random_gumbel(g, a, b);
    case RT_D_LOGISTIC: return random_logistic(g, a, b);
    case RT_D_LOGNORMAL: return random_lognormal(g, a, b);
    case RT_D_RAYLEIGH: return random_rayleigh(g, a);
    case RT_D_WALD: return random_wald(g, a, b);
    case RT_D_TRIANGULAR: return random_triangular(g, a, b, c);
    default: return NAN;
    }
}

static int64_t gen_int(bitgen_t *g, int32_t kind, double a, double b, double c, binomial_t *bin) {
    switch (kind) {
    case RT_D_BINOMIAL: return random_binomial(g, b, (int64_t)a, bin);
    case RT_D_NEG_BINOMIAL: return random_negative_binomial(g, a, b);
    case RT_D_POISSON: return random_poisson(g, a);
    case RT_D_GEOMETRIC: return random_geometric(g, a);
    case RT_D_ZIPF: return random_zipf(g, a);
    case RT_D_LOGSERIES: return random_logseries(g, a);
    case RT_D_HYPERGEOMETRIC: return random_hypergeometric(g, (int64_t)a, (int64_t)b, (int64_t)c);
    default: return 0;
    }
}

int32_t rt_random_dist(void *bg, int32_t kind, void *out, int64_t n, double a, double b, double c) {
    bool gen = (kind & RT_D_GEN) != 0, f32 = (kind & RT_D_F32) != 0;
    kind &= ~(RT_D_GEN | RT_D_F32);
    if (check(kind, gen, a, b, c) < 0)
        return -1;
    Rng *r = own(bg);
    if (r && !f32) {
        if (kind >= RT_D_INT_FIRST) {
            binomial_t bin = {0};
            int64_t *o = out;
            for (int64_t i = 0; i < n; i++)
                o[i] = own_int(r, kind, a, b, c, &bin);
            return 0;
        }
        double *o = out;
        Mt *m = &r->mt;
        if (kind == RT_D_RANDOM) { /* the loop inlined: np.random.rand(n) */
            for (int64_t i = 0; i < n; i++)
                o[i] = mt_double(m);
            return 0;
        }
        for (int64_t i = 0; i < n; i++)
            o[i] = own_real(r, kind, a, b, c);
        return 0;
    }
    bitgen_t *g = r ? &r->bg : bg;
    if (f32) { /* Generator's float32 loops */
        float *o = out;
        switch (kind) {
        case RT_D_RANDOM: random_standard_uniform_fill_f(g, (intptr_t)n, o); return 0;
        case RT_D_STD_NORMAL: random_standard_normal_fill_f(g, (intptr_t)n, o); return 0;
        case RT_D_STD_EXPONENTIAL: random_standard_exponential_fill_f(g, (intptr_t)n, o); return 0;
        case RT_D_STD_GAMMA:
            for (int64_t i = 0; i < n; i++)
                o[i] = random_standard_gamma_f(g, (float)a);
            return 0;
        default: return fail("SystemError", "hpcjit: no float32 form of this distribution");
        }
    }
    if (kind >= RT_D_INT_FIRST) {
        binomial_t bin = {0};
        int64_t *o = out;
        for (int64_t i = 0; i < n; i++)
            o[i] = gen_int(g, kind, a, b, c, &bin);
        return 0;
    }
    double *o = out;
    switch (kind) { /* Generator's fill loops where it has them (the same draws) */
    case RT_D_RANDOM: random_standard_uniform_fill(g, (intptr_t)n, o); return 0;
    case RT_D_STD_NORMAL: random_standard_normal_fill(g, (intptr_t)n, o); return 0;
    case RT_D_STD_EXPONENTIAL: random_standard_exponential_fill(g, (intptr_t)n, o); return 0;
    default: break;
    }
    for (int64_t i = 0; i < n; i++)
        o[i] = gen_real(g, kind, a, b, c);
    return 0;
}


int32_t rt_random_integers(void *bg, void *out, int64_t n, int64_t lo, int64_t hi, int32_t endpoint,
                           int32_t itemsize, int32_t is_signed) {
    /* Generator.integers (numpy/random/_bounded_integers.pyx _rand_<type>):
     * the closed interval [lo, high], checked against the dtype's bounds */
    int bits = 8 * itemsize;
    __int128 high = (__int128)hi - (endpoint ? 0 : 1);
    __int128 lb = is_signed ? -((__int128)1 << (bits - 1)) : 0;
    __int128 ub = is_signed ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
    char msg[64];
    const char *name = is_signed ? "int" : "uint";
    if (lo < lb) {
        snprintf(msg, sizeof msg, "low is out of bounds for %s%d", name, bits);
        return fail("ValueError", msg);
    }
    if (high > ub) {
        snprintf(msg, sizeof msg, "high is out of bounds for %s%d", name, bits);
        return fail("ValueError", msg);
    }
    if (lo > high)
        return fail("ValueError", endpoint ? "low > high" : "low >= high");
    uint64_t rng_ = (uint64_t)(high - lo), off = (uint64_t)lo;
    bitgen_t *g = bg ? bg : &rng()->bg;
    switch (itemsize) {
    case 1: random_bounded_uint8_fill(g, (uint8_t)off, (uint8_t)rng_, (intptr_t)n, false, out); break;
    case 2: random_bounded_uint16_fill(g, (uint16_t)off, (uint16_t)rng_, (intptr_t)n, false, out); break;
    case 4: random_bounded_uint32_fill(g, (uint32_t)off, (uint32_t)rng_, (intptr_t)n, false, out); break;
    default: random_bounded_uint64_fill(g, off, rng_, (intptr_t)n, false, out); break;
    }
    return 0;
}

int32_t rt_random_multinomial(void *bg, int64_t *out, int64_t rows, int64_t n, const double *pvals, int64_t d) {
    if (n < 0)
        return fail("ValueError", "n < 0");
    double sum = 0;
    for (int64_t i = 0; i < d; i++) {
        if (!(pvals[i] >= 0 && pvals[i] <= 1))
            return fail("ValueError", "pvals < 0, pvals > 1 or pvals contains NaNs");
        if (i < d - 1)
            sum += pvals[i];
    }
    if (sum > 1.0 + 1e-12)
        return fail("ValueError", "sum(pvals[:-1]) > 1.0");
    bitgen_t *g = bg ? bg : &rng()->bg;
    binomial_t bin = {0};
    for (int64_t r = 0; r < rows; r++)
        random_multinomial(g, n, out + r * d, (double *)pvals, (intptr_t)d, &bin);
    return 0;
}


int32_t rt_random_dirichlet(void *bg, double *out, int64_t rows, const double *alpha, int64_t k) {
    for (int64_t i = 0; i < k; i++)
        if (!(alpha[i] > 0))
            return fail("ValueError", "alpha <= 0");
    Rng *r = own(bg);
    /* normalised gammas: Numba's gamma on np.random's stream,
     * random_standard_gamma on a Generator's */
    for (int64_t j = 0; j < rows; j++) {
        double *o = out + j * k, sum = 0;
        for (int64_t i = 0; i < k; i++) {
            o[i] = r ? mt_gamma(&r->mt, alpha[i], 1.0) : random_standard_gamma(bg, alpha[i]);
            sum += o[i];
        }
        for (int64_t i = 0; i < k; i++)
            o[i] /= sum;
    }
    return 0;
}

/* random.getrandbits(k), 0 <= k <= 64. */
int32_t rt_pyrandom_getrandbits(int64_t k, uint64_t *out) {
    if (k < 0)
        return fail("ValueError", "number of bits must be non-negative");
    if (k > 64)
        return fail("ValueError", "getrandbits() limited to 64 bits in compiled code");
    *out = k == 0 ? 0 : mt_bits_py(&rng_of(RT_RNG_PY)->mt, (int)k);
    return 0;
}

/* random.randrange(start, stop, step): CPython's checks and messages. */
int32_t rt_pyrandom_randrange(int64_t start, int64_t stop, int64_t step, int32_t nargs, int64_t *out) {
    char msg[128];
    if (step == 0)
        return fail("ValueError", "zero step for randrange()");
    /* the count of values, in 128 bits: stop - start may overflow int64 */
    __int128 width = (__int128)stop - start, cnt;
    if (step > 0)
        cnt = (width + step - 1) / step;
    else
        cnt = (width + step + 1) / step;
    if (cnt <= 0) {
        if (nargs != 2)
            return fail("ValueError", "empty range for randrange()");
        snprintf(msg, sizeof msg, "empty range for randrange() (%lld, %lld, %lld)", (long long)start,
                 (long long)stop, (long long)width);
        return fail("ValueError", msg);
    }
    uint64_t k = mt_below_py(&rng_of(RT_RNG_PY)->mt, (uint64_t)cnt);
    *out = (int64_t)((__int128)start + (__int128)step * (__int128)k);
    return 0;
}
