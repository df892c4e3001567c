/* mtrand.h - the Mersenne Twister (MT19937) and the draws Numba makes from
 * it for np.random and the random module (runtime/mtrand.c): NumPy's
 * legacy RandomState streams wherever Numba reproduces them, Numba's own
 * algorithms where it does not (gamma by CPython's gammavariate, vonmises
 * by CPython's vonmisesvariate, ...).  Private to the runtime: random.c
 * owns the per-thread states and calls these. */
#ifndef HPCJIT_MTRAND_H
#define HPCJIT_MTRAND_H

#include <stdbool.h>
#include <stdint.h>

#define MT_N 624

typedef struct Mt {
    uint32_t key[MT_N];
    int pos;        /* next word of key; MT_N: regenerate first */
    int has_gauss;  /* the second value of the last polar pair is cached */
    double gauss;
} Mt;

/* Seeding (Matsumoto & Nishimura 1998): init_genrand, as NumPy's
 * RandomState.seed(int) and Numba's np.random.seed / random.seed; and
 * init_by_array over n 32-bit words.  Both clear the cached normal. */
void mt_seed(Mt *m, uint32_t s);
void mt_seed_array(Mt *m, const uint32_t *k, int n);

void mt_regen(Mt *m);
static inline uint32_t mt_next32(Mt *m) {
    if (m->pos >= MT_N)
        mt_regen(m);
    uint32_t y = m->key[m->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    return y ^ (y >> 18);
}
/* [0, 1) with 53 bits from two words (the first gives the top 27). */
static inline double mt_double(Mt *m) {
    uint32_t a = mt_next32(m) >> 5, b = mt_next32(m) >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

/* Standard normal: the polar Box-Muller pair, the second value cached. */
double mt_gauss(Mt *m);
/* Uniform integer in [0, n), n >= 1: masked rejection, the mask of n - 1
 * (np.random.randint; one draw less than CPython's for n a power of two,
 * none for n == 1); 64-bit values take the high word first. */
uint64_t mt_below_np(Mt *m, uint64_t n);
/* random.getrandbits(k), 1 <= k <= 64: CPython's word order (low word
 * first, the last word's top bits). */
uint64_t mt_bits_py(Mt *m, int k);
/* Uniform integer in [0, n), n >= 1: CPython's _randbelow (getrandbits of
 * n's bit length, rejected while >= n). */
uint64_t mt_below_py(Mt *m, uint64_t n);

/* Numba's draws (numba/np/random/legacy.py, numba/cpython/randomimpl.py,
 * written here from their documented algorithms). */
double mt_gamma(Mt *m, double shape, double scale); /* CPython's gammavariate */
double mt_beta(Mt *m, double a, double b);
double mt_chisquare(Mt *m, double df);
double mt_vonmises(Mt *m, double mu, double kappa); /* CPython's vonmisesvariate */
int64_t mt_geometric(Mt *m, double p);
int64_t mt_zipf(Mt *m, double a);
int64_t mt_logseries(Mt *m, double p);
int64_t mt_hypergeometric(Mt *m, int64_t good, int64_t bad, int64_t sample);

#endif
