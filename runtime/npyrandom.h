/* npyrandom.h - the part of NumPy's C distribution library (libnpyrandom,
 * numpy/random/lib; prototypes from numpy/random/distributions.h, which
 * cannot be included here since it includes Python.h) that runtime/random.c
 * calls.  NumPy documents these as its random C API ("C API for random",
 * the functions Generator's methods are made of): called on a bitgen_t,
 * they give Generator's streams.  Private to the runtime. */
#ifndef HPCJIT_NPYRANDOM_H
#define HPCJIT_NPYRANDOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "numpy/random/bitgen.h"

/* must match distributions.h (RAND_INT_TYPE int64_t) */
typedef struct s_binomial_t {
    int has_binomial;
    double psave;
    int64_t nsave;
    double r, q, fm;
    int64_t m;
    double p1, xm, xl, xr, c, laml, lamr, p2, p3, p4;
} binomial_t;

double random_standard_uniform(bitgen_t *bitgen_state);
void random_standard_uniform_fill_f(bitgen_t *, intptr_t, float *);
void random_standard_normal_fill_f(bitgen_t *, intptr_t, float *);
void random_standard_exponential_fill_f(bitgen_t *, intptr_t, float *);
float random_standard_gamma_f(bitgen_t *bitgen_state, float shape);
void random_standard_uniform_fill(bitgen_t *, intptr_t, double *);
void random_standard_exponential_fill(bitgen_t *, intptr_t, double *);
void random_standard_normal_fill(bitgen_t *, intptr_t, double *);
double random_standard_exponential(bitgen_t *bitgen_state);
double random_standard_normal(bitgen_t *bitgen_state);
double random_standard_gamma(bitgen_t *bitgen_state, double shape);
double random_normal(bitgen_t *bitgen_state, double loc, double scale);
double random_gamma(bitgen_t *bitgen_state, double shape, double scale);
double random_exponential(bitgen_t *bitgen_state, double scale);
double random_uniform(bitgen_t *bitgen_state, double lower, double range);
double random_beta(bitgen_t *bitgen_state, double a, double b);
double random_chisquare(bitgen_t *bitgen_state, double df);
double random_f(bitgen_t *bitgen_state, double dfnum, double dfden);
double random_standard_cauchy(bitgen_t *bitgen_state);
double random_pareto(bitgen_t *bitgen_state, double a);
double random_weibull(bitgen_t *bitgen_state, double a);
double random_power(bitgen_t *bitgen_state, double a);
double random_laplace(bitgen_t *bitgen_state, double loc, double scale);
double random_gumbel(bitgen_t *bitgen_state, double loc, double scale);
double random_logistic(bitgen_t *bitgen_state, double loc, double scale);
double random_lognormal(bitgen_t *bitgen_state, double mean, double sigma);
double random_rayleigh(bitgen_t *bitgen_state, double mode);
double random_standard_t(bitgen_t *bitgen_state, double df);
double random_noncentral_chisquare(bitgen_t *bitgen_state, double df, double nonc);
double random_noncentral_f(bitgen_t *bitgen_state, double dfnum, double dfden, double nonc);
double random_wald(bitgen_t *bitgen_state, double mean, double scale);
double random_vonmises(bitgen_t *bitgen_state, double mu, double kappa);
double random_triangular(bitgen_t *bitgen_state, double left, double mode, double right);
int64_t random_poisson(bitgen_t *bitgen_state, double lam);
int64_t random_negative_binomial(bitgen_t *bitgen_state, double n, double p);
int64_t random_binomial(bitgen_t *bitgen_state, double p, int64_t n, binomial_t *binomial);
int64_t random_logseries(bitgen_t *bitgen_state, double p);
int64_t random_geometric(bitgen_t *bitgen_state, double p);
int64_t random_zipf(bitgen_t *bitgen_state, double a);
int64_t random_hypergeometric(bitgen_t *bitgen_state, int64_t good, int64_t bad, int64_t sample);
uint64_t random_interval(bitgen_t *bitgen_state, uint64_t max);
void random_bounded_uint64_fill(bitgen_t *bitgen_state, uint64_t off, uint64_t rng, intptr_t cnt, bool use_masked,
                                uint64_t *out);
void random_bounded_uint32_fill(bitgen_t *bitgen_state, uint32_t off, uint32_t rng, intptr_t cnt, bool use_masked,
                                uint32_t *out);
void random_bounded_uint16_fill(bitgen_t *bitgen_state, uint16_t off, uint16_t rng, intptr_t cnt, bool use_masked,
                                uint16_t *out);
void random_bounded_uint8_fill(bitgen_t *bitgen_state, uint8_t off, uint8_t rng, intptr_t cnt, bool use_masked,
                               uint8_t *out);
void random_multinomial(bitgen_t *bitgen_state, int64_t n, int64_t *mnix, double *pix, intptr_t d,
                        binomial_t *binomial);

#endif
