/* mtrand.c - MT19937 and the draws Numba's np.random and random make
 * from it (mtrand.h).  Written from the published algorithms: the
 * generator and its two seedings from Matsumoto & Nishimura, "Mersenne
 * Twister" (ACM TOMACS 8(1), 1998) and its 2002 init_by_array; the
 * distributions from the algorithms NumPy's RandomState, CPython's random
 * module and Numba document (Numba's docstrings name them). */
#include <math.h>

#include "mtrand.h"

#define MT_M 397
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void mt_seed(Mt *m, uint32_t s) {
    m->key[0] = s;
    for (int i = 1; i < MT_N; i++)
        m->key[i] = 1812433253U * (m->key[i - 1] ^ (m->key[i - 1] >> 30)) + (uint32_t)i;
    m->pos = MT_N;
    m->has_gauss = 0;
    m->gauss = 0;
}

void mt_seed_array(Mt *m, const uint32_t *k, int n) {
    mt_seed(m, 19650218U);
    uint32_t *x = m->key;
    int i = 1, j = 0;
    for (int c = MT_N > n ? MT_N : n; c > 0; c--) {
        x[i] = (x[i] ^ ((x[i - 1] ^ (x[i - 1] >> 30)) * 1664525U)) + k[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            x[0] = x[MT_N - 1];
            i = 1;
        }
        if (j >= n)
            j = 0;
    }
    for (int c = MT_N - 1; c > 0; c--) {
        x[i] = (x[i] ^ ((x[i - 1] ^ (x[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            x[0] = x[MT_N - 1];
            i = 1;
        }
    }
    x[0] = 0x80000000U; /* a non-zero state whatever the key */
}

/* The next 624 words of the recurrence, in place. */
static inline uint32_t twist(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t y = (a & 0x80000000U) | (b & 0x7fffffffU);
    return c ^ (y >> 1) ^ (-(y & 1U) & 0x9908b0dfU);
}

void mt_regen(Mt *m) {
    uint32_t *x = m->key;
    int k = 0;
    /* the index arithmetic of the recurrence split where it wraps */
    for (; k < MT_N - MT_M; k++)
        x[k] = twist(x[k], x[k + 1], x[k + MT_M]);
    for (; k < MT_N - 1; k++)
        x[k] = twist(x[k], x[k + 1], x[k + MT_M - MT_N]);
    x[MT_N - 1] = twist(x[MT_N - 1], x[0], x[MT_M - 1]);
    m->pos = 0;
}

double mt_gauss(Mt *m) {
    if (m->has_gauss) {
        m->has_gauss = 0;
        return m->gauss;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * mt_double(m) - 1.0;
        x2 = 2.0 * mt_double(m) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    m->gauss = f * x1;
    m->has_gauss = 1;
    return f * x2;
}

uint64_t mt_below_np(Mt *m, uint64_t n) {
    if (n <= 1)
        return 0;
    uint64_t top = n - 1, mask = top;
    for (int s = 1; s < 64; s <<= 1)
        mask |= mask >> s;
    uint64_t v;
    if (top <= 0xffffffffU) {
        do
            v = mt_next32(m) & mask;
        while (v > top);
    } else {
        do {
            uint64_t hi = mt_next32(m);
            v = ((hi << 32) | mt_next32(m)) & mask;
        } while (v > top);
    }
    return v;
}

uint64_t mt_bits_py(Mt *m, int k) {
    if (k <= 32)
        return mt_next32(m) >> (32 - k);
    uint64_t lo = mt_next32(m);
    return lo | ((uint64_t)(mt_next32(m) >> (64 - k)) << 32);
}

uint64_t mt_below_py(Mt *m, uint64_t n) {
    int k = 64 - __builtin_clzll(n);
    uint64_t v;
    do
        v = mt_bits_py(m, k);
    while (v >= n);
    return v;
}

/* CPython's gammavariate: Cheng's GB for shape > 1, the exponential at 1,
 * Ahrens-Dieter GS below. */
double mt_gamma(Mt *m, double alpha, double beta) {
    if (alpha > 1.0) {
        const double sg_magic = 1.0 + log(4.5);
        double ainv = sqrt(2.0 * alpha - 1.0), bbb = alpha - log(4.0), ccc = alpha + ainv;
        for (;;) {
            double u1 = mt_double(m);
            if (!(1e-7 < u1 && u1 < .9999999))
                continue;
            double u2 = 1.0 - mt_double(m);
            double v = log(u1 / (1.0 - u1)) / ainv, x = alpha * exp(v);
            double z = u1 * u1 * u2, r = bbb + ccc * v - x;
            if (r + sg_magic - 4.5 * z >= 0.0 || r >= log(z))
                return x * beta;
        }
    }
    if (alpha == 1.0)
        return -log(1.0 - mt_double(m)) * beta;
    double x;
    for (;;) {
        double u = mt_double(m), b = (M_E + alpha) / M_E, p = b * u;
        x = p <= 1.0 ? pow(p, 1.0 / alpha) : -log((b - p) / alpha);
        double u1 = mt_double(m);
        if (p > 1.0 ? u1 <= pow(x, alpha - 1.0) : u1 <= exp(-x))
            break;
    }
    return x * beta;
}

double mt_beta(Mt *m, double a, double b) {
    double y = mt_gamma(m, a, 1.0);
    return y == 0.0 ? 0.0 : y / (y + mt_gamma(m, b, 1.0));
}

double mt_chisquare(Mt *m, double df) { return 2.0 * mt_gamma(m, df / 2.0, 1.0); }

/* Python's % on floats: the result takes the divisor's sign. */
static double py_fmod(double x, double d) {
    double r = fmod(x, d);
    return r != 0 && (r < 0) != (d < 0) ? r + d : r;
}

/* Best & Fisher's method as CPython's vonmisesvariate has it: values in
 * [0, 2 pi) (NumPy's vonmises gives (-pi, pi]). */
double mt_vonmises(Mt *m, double mu, double kappa) {
    const double twopi = 2.0 * M_PI;
    if (kappa <= 1e-6)
        return twopi * mt_double(m);
    double s = 0.5 / kappa, r = s + sqrt(1.0 + s * s), z, d, u2;
    do {
        z = cos(M_PI * mt_double(m));
        d = z / (r + z);
        u2 = mt_double(m);
    } while (!(u2 < 1.0 - d * d || u2 <= (1.0 - d) * exp(d)));
    double q = 1.0 / r, f = (q + z) / (1.0 + q * z);
    return mt_double(m) > 0.5 ? py_fmod(mu + acos(f), twopi) : py_fmod(mu - acos(f), twopi);
}

/* Search for p >= 1/3, inversion below (NumPy's legacy geometric). */
int64_t mt_geometric(Mt *m, double p) {
    double q = 1.0 - p;
    if (p >= 0.333333333333333333333333) {
        int64_t x = 1;
        double sum = p, prod = p, u = mt_double(m);
        while (u > sum) {
            prod *= q;
            sum += prod;
            x++;
        }
        return x;
    }
    return (int64_t)ceil(log(1.0 - mt_double(m)) / log(q));
}

/* Devroye's rejection (NumPy's legacy zipf). */
int64_t mt_zipf(Mt *m, double a) {
    double am1 = a - 1.0, b = pow(2.0, am1);
    for (;;) {
        double u = 1.0 - mt_double(m), v = mt_double(m);
        double x = floor(pow(u, -1.0 / am1));
        if (x > 9223372036854775807.0 || x < 1.0)
            continue;
        double t = pow(1.0 + 1.0 / x, am1);
        if (v * x * (t - 1.0) / (b - 1.0) <= t / b)
            return (int64_t)x;
    }
}

/* Kemp's LK algorithm (NumPy's legacy logseries). */
int64_t mt_logseries(Mt *m, double p) {
    double r = log(1.0 - p);
    double v = mt_double(m);
    if (v >= p)
        return 1;
    double u = mt_double(m), q = 1.0 - exp(r * u);
    if (v <= q * q)
        return (int64_t)(1.0 + log(v) / log(q));
    return v >= q ? 1 : 2;
}

/* The HYP algorithm (Kachitvichyanukul & Schmeiser) for every size: Numba
 * does not switch to HRUA for large samples as NumPy does. */
int64_t mt_hypergeometric(Mt *m, int64_t good, int64_t bad, int64_t sample) {
    int64_t d1 = bad + good - sample;
    double d2 = (double)(bad < good ? bad : good), y = d2;
    int64_t k = sample;
    while (y > 0.0 && k > 0) {
        y -= floor(mt_double(m) + y / (double)(d1 + k));
        k--;
    }
    int64_t z = (int64_t)(d2 - y);
    return good > bad ? sample - z : z;
}
