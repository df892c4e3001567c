/* test_random_rt.c - the per-thread xoshiro256** streams of np.random
 * (runtime/random.c). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "hpcjit/runtime.h"
#include "hpcjit/random.h"

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

int main(void) {
    test_errors();
    test_random();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
