/* test_random_rt.c - the per-thread MT19937 streams of np.random and
 * random (runtime/random.c, mtrand.c) against the generator's published
 * reference outputs, the streams of worker threads, and the distributions. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/random.h"
#include "../../runtime/mtrand.h"

static int failures;
#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                  \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)


static void test_errors(void) {
    int64_t x[3] = {1, -1, 2};
    const char *type = NULL, *msg = NULL;
    CHECK(rt_random_randint(x, 1, 3, 3) == -1);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(type, "ValueError") == 0);
}

static int raised(const char *type, const char *msg);

/* Matsumoto & Nishimura's reference outputs (mt19937ar.out for
 * init_by_array; init_genrand(5489), the generator's default seed). */
static void test_mt_reference(void) {
    static const uint32_t by_array[5] = {1067595299U, 955945823U, 477289528U, 4107218783U, 4228976476U};
    static const uint32_t genrand[5] = {3499211612U, 581869302U, 3890346734U, 3586334585U, 545404204U};
    static Mt m;
    uint32_t key[4] = {0x123, 0x234, 0x345, 0x456};
    mt_seed_array(&m, key, 4);
    for (int i = 0; i < 5; i++)
        CHECK(mt_next32(&m) == by_array[i]);
    mt_seed(&m, 5489);
    for (int i = 0; i < 5; i++)
        CHECK(mt_next32(&m) == genrand[i]);
    /* np.random.seed(5489): randint over [0, 2^32) gives the raw words,
     * random() 53 bits from two of them */
    int64_t w[5];
    rt_random_seed(5489);
    CHECK(rt_random_randint(w, 5, 0, (int64_t)1 << 32) == 0);
    for (int i = 0; i < 5; i++)
        CHECK(w[i] == (int64_t)genrand[i]);
    double d;
    rt_random_seed(5489);
    CHECK(rt_random_dist(NULL, RT_D_RANDOM, &d, 1, 0, 0, 0) == 0);
    CHECK(d == ((genrand[0] >> 5) * 67108864.0 + (genrand[1] >> 6)) / 9007199254740992.0);
    /* stream k > 0: init_by_array over {seed, k, k >> 32} */
    rt_random_stream(3);
    rt_random_seed(77);
    uint32_t k3[3] = {77, 3, 0};
    mt_seed_array(&m, k3, 3);
    CHECK(rt_random_randint(w, 5, 0, (int64_t)1 << 32) == 0);
    for (int i = 0; i < 5; i++)
        CHECK(w[i] == (int64_t)mt_next32(&m));
    rt_random_stream(0);
}

/* default_rng(seed): NumPy's PCG64(seed).random_raw() (values printed by
 * NumPy 2.4), and a Generator's draws on it. */
static void test_default_rng(void) {
    _Alignas(16) unsigned char mem[RT_DEFAULT_RNG_BYTES];
    static const uint64_t raw12345[3] = {0x3a32b18db2ffc19dULL, 0x51171315c9e4c4deULL, 0xcc2024823444efd9ULL};
    static const uint64_t raw_big[2] = {0x01369aef039fedebULL, 0x5f61b40473314316ULL};
    CHECK(rt_random_default_rng(mem, 12345, 1) == 0);
    typedef struct {
        void *state;
        uint64_t (*next_uint64)(void *);
    } BitgenHead; /* the first two fields of NumPy's bitgen_t */
    BitgenHead *g = (BitgenHead *)mem;
    for (int i = 0; i < 3; i++)
        CHECK(g->next_uint64(g->state) == raw12345[i]);
    CHECK(rt_random_default_rng(mem, ((int64_t)1 << 40) + 5, 1) == 0);
    for (int i = 0; i < 2; i++)
        CHECK(g->next_uint64(g->state) == raw_big[i]);
    double x[4];
    CHECK(rt_random_default_rng(mem, 12345, 1) == 0);
    CHECK(rt_random_dist(mem, RT_D_RANDOM | RT_D_GEN, x, 1, 0, 0, 0) == 0);
    CHECK(x[0] == (double)(raw12345[0] >> 11) / 9007199254740992.0);
    CHECK(rt_random_default_rng(mem, -1, 1) == -1 && raised("ValueError", "expected non-negative integer"));
}

static void draw(double *out, int n) { rt_random_dist(NULL, RT_D_RANDOM, out, n, 0, 0, 0); }

static void *thread_draw(void *p) {
    draw(p, 16);
    return NULL;
}

static void test_random(void) {
    double a[16], b[16], c[16];
    rt_random_seed(42);
    draw(a, 16);
    rt_random_seed(42);
    draw(b, 16);
    CHECK(memcmp(a, b, sizeof a) == 0);
    rt_random_seed(43);
    draw(c, 16);
    CHECK(memcmp(a, c, sizeof a) != 0);
    for (int i = 0; i < 16; i++)
        CHECK(a[i] >= 0.0 && a[i] < 1.0);
    /* another thread takes another stream of the same seed */
    rt_random_seed(42);
    pthread_t t;
    double d[16];
    CHECK(pthread_create(&t, NULL, thread_draw, d) == 0);
    pthread_join(t, NULL);
    CHECK(memcmp(a, d, sizeof a) != 0);
    /* explicit streams: stream 1 differs from stream 0 and is reproducible */
    double s1[16], s1b[16];
    rt_random_stream(1);
    draw(s1, 16);
    rt_random_stream(1);
    draw(s1b, 16);
    CHECK(memcmp(s1, s1b, sizeof s1) == 0);
    rt_random_stream(0);
    draw(b, 16);
    CHECK(memcmp(a, b, sizeof a) == 0);
    CHECK(memcmp(a, s1, sizeof a) != 0);
    int64_t k[50];
    CHECK(rt_random_sample(k, 50, 50) == 0);
    int seen[50] = {0};
    for (int i = 0; i < 50; i++)
        seen[k[i]]++;
    for (int i = 0; i < 50; i++)
        CHECK(seen[i] == 1);
}

static int raised(const char *type, const char *msg) {
    const char *t = NULL, *m = NULL;
    int ok = rt_exc_fetch(&t, &m) == 1 && strcmp(t, type) == 0 && (!msg || strcmp(m, msg) == 0);
    if (!ok)
        fprintf(stderr, "raised %s: %s, expected %s: %s\n", t ? t : "-", m ? m : "-", type, msg ? msg : "-");
    return ok;
}

static double mean(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s / n;
}

static void test_dists(void) {
    enum { N = 200000 };
    static double x[N];
    static int64_t k[N];
    rt_random_seed(7);
    CHECK(rt_random_dist(NULL, RT_D_GAMMA, x, N, 2.0, 3.0, 0) == 0);
    CHECK(fabs(mean(x, N) - 6.0) < 0.05);
    CHECK(rt_random_dist(NULL, RT_D_STD_NORMAL, x, N, 0, 0, 0) == 0);
    CHECK(fabs(mean(x, N)) < 0.01);
    CHECK(rt_random_dist(NULL, RT_D_TRIANGULAR, x, N, 0.0, 1.0, 4.0) == 0);
    CHECK(fabs(mean(x, N) - 5.0 / 3.0) < 0.01);
    CHECK(rt_random_dist(NULL, RT_D_POISSON, k, N, 30.0, 0, 0) == 0);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += (double)k[i];
    CHECK(fabs(s / N - 30.0) < 0.1);
    CHECK(rt_random_dist(NULL, RT_D_HYPERGEOMETRIC, k, N, 10, 20, 6) == 0);
    int64_t lo = 99, hi = -1;
    for (int i = 0; i < N; i++) {
        lo = k[i] < lo ? k[i] : lo;
        hi = k[i] > hi ? k[i] : hi;
    }
    CHECK(lo == 0 && hi == 6);
    /* the same seed, the same draws; the random module's generator apart */
    double a[8], b[8];
    rt_random_seed(3);
    rt_random_dist(NULL, RT_D_BETA, a, 8, 2.0, 3.0, 0);
    rt_random_seed(3);
    rt_random_seed2(RT_RNG_PY, 3);
    rt_random_dist(rt_random_bitgen(RT_RNG_PY), RT_D_RANDOM, x, 8, 0, 0, 0);
    rt_random_dist(NULL, RT_D_BETA, b, 8, 2.0, 3.0, 0);
    CHECK(memcmp(a, b, sizeof a) == 0);
}

static void test_dist_errors(void) {
    double x[2];
    int64_t k[2];
    CHECK(rt_random_dist(NULL, RT_D_NORMAL, x, 2, 0.0, -1.0, 0) == -1 && raised("ValueError", "scale < 0"));
    CHECK(rt_random_dist(NULL, RT_D_BETA, x, 2, 0.0, 1.0, 0) == -1 && raised("ValueError", "a <= 0"));
    CHECK(rt_random_dist(NULL, RT_D_UNIFORM, x, 2, 0.0, INFINITY, 0) == -1 &&
          raised("OverflowError", "Range exceeds valid bounds"));
    CHECK(rt_random_dist(NULL, RT_D_UNIFORM | RT_D_GEN, x, 2, 1.0, 0.0, 0) == -1 &&
          raised("ValueError", "high - low < 0"));
    CHECK(rt_random_dist(NULL, RT_D_UNIFORM, x, 2, 1.0, 0.0, 0) == 0); /* RandomState allows it */
    CHECK(rt_random_dist(NULL, RT_D_POISSON, k, 2, NAN, 0, 0) == -1 && raised("ValueError", "lam < 0 or lam is NaN"));
    CHECK(rt_random_dist(NULL, RT_D_ZIPF, k, 2, 1.0, 0, 0) == -1 && raised("ValueError", "a <= 1 or a is NaN"));
    CHECK(rt_random_dist(NULL, RT_D_HYPERGEOMETRIC, k, 2, 1, 1, 5) == -1 &&
          raised("ValueError", "ngood + nbad < nsample"));
    CHECK(rt_random_dist(NULL, RT_D_HYPERGEOMETRIC, k, 2, 1, 1, 0) == -1 &&
          raised("ValueError", "nsample < 1 or nsample is NaN"));
    CHECK(rt_random_dist(NULL, RT_D_HYPERGEOMETRIC | RT_D_GEN, k, 2, 1, 1, 0) == 0);
    CHECK(rt_random_dist(NULL, RT_D_TRIANGULAR, x, 2, 1.0, 1.0, 1.0) == -1 && raised("ValueError", "left == right"));
    CHECK(rt_random_dist(NULL, RT_D_PY_GAMMA, x, 2, 0.0, 1.0, 0) == -1 &&
          raised("ValueError", "gammavariate: alpha and beta must be > 0.0"));
}

static void test_ints(void) {
    int64_t v[1000];
    CHECK(rt_random_integers(NULL, v, 1000, -3, 3, 1, 8, 1) == 0);
    int seen[7] = {0};
    for (int i = 0; i < 1000; i++) {
        CHECK(v[i] >= -3 && v[i] <= 3);
        if (v[i] >= -3 && v[i] <= 3)
            seen[v[i] + 3] = 1;
    }
    for (int i = 0; i < 7; i++)
        CHECK(seen[i]);
    CHECK(rt_random_integers(NULL, v, 1, 5, 5, 0, 8, 1) == -1 && raised("ValueError", "low >= high"));
    CHECK(rt_random_integers(NULL, v, 1, 5, 5, 1, 8, 1) == 0 && v[0] == 5);
    uint8_t b[100];
    CHECK(rt_random_integers(NULL, b, 100, 250, 256, 0, 1, 0) == 0);
    for (int i = 0; i < 100; i++)
        CHECK(b[i] >= 250);
    CHECK(rt_random_integers(NULL, b, 1, 0, 257, 0, 1, 0) == -1 &&
          raised("ValueError", "high is out of bounds for uint8"));
    CHECK(rt_random_integers(NULL, b, 1, -1, 3, 0, 1, 0) == -1 && raised("ValueError", "low is out of bounds for uint8"));
    int64_t r = 0;
    CHECK(rt_pyrandom_randrange(10, -10, -5, 3, &r) == 0 && (r == 10 || r == 5 || r == 0 || r == -5));
    CHECK(rt_pyrandom_randrange(0, 0, 1, 1, &r) == -1 && raised("ValueError", "empty range for randrange()"));
    CHECK(rt_pyrandom_randrange(5, 2, 1, 2, &r) == -1 &&
          raised("ValueError", "empty range for randrange() (5, 2, -3)"));
    CHECK(rt_pyrandom_randrange(1, 9, 0, 3, &r) == -1 && raised("ValueError", "zero step for randrange()"));
    uint64_t bits = 0;
    CHECK(rt_pyrandom_getrandbits(3, &bits) == 0 && bits < 8);
    CHECK(rt_pyrandom_getrandbits(-1, &bits) == -1 && raised("ValueError", "number of bits must be non-negative"));
}

static void test_vectors(void) {
    double p[3] = {0.2, 0.3, 0.5}, alpha[3] = {1.0, 2.0, 3.0}, d[6];
    int64_t m[6];
    CHECK(rt_random_multinomial(NULL, m, 2, 10, p, 3) == 0);
    CHECK(m[0] + m[1] + m[2] == 10 && m[3] + m[4] + m[5] == 10);
    double bad[2] = {0.7, 0.6};
    CHECK(rt_random_multinomial(NULL, m, 1, 10, bad, 2) == 0); /* the last one is what is left */
    double bad3[3] = {0.7, 0.6, 0.1};
    CHECK(rt_random_multinomial(NULL, m, 1, 10, bad3, 3) == -1 && raised("ValueError", "sum(pvals[:-1]) > 1.0"));
    CHECK(rt_random_dirichlet(NULL, d, 2, alpha, 3) == 0);
    CHECK(fabs(d[0] + d[1] + d[2] - 1.0) < 1e-12 && fabs(d[3] + d[4] + d[5] - 1.0) < 1e-12);
    alpha[1] = 0;
    CHECK(rt_random_dirichlet(NULL, d, 1, alpha, 3) == -1 && raised("ValueError", "alpha <= 0"));
}

int main(void) {
    test_mt_reference();
    test_default_rng();
    test_errors();
    test_random();
    test_dists();
    test_dist_errors();
    test_ints();
    test_vectors();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
