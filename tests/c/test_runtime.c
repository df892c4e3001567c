/* test_runtime.c - one small check per runtime API (runtime.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>

#include "hpcjit/runtime.h"

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void test_alloc(void)
{
    RtMemStats before = rt_memstats();
    HjMemInfo *mi = rt_alloc(1000);
    CHECK(mi != NULL);
    CHECK(mi->refcnt == 1);
    CHECK(mi->size == 1000);
    CHECK(((uintptr_t)mi->data & 63) == 0);
    memset(mi->data, 0xab, 1000); /* whole block writable (ASan checks) */
    RtMemStats mid = rt_memstats();
    CHECK(mid.alloc == before.alloc + 1);
    rt_decref(mi);
    RtMemStats after = rt_memstats();
    CHECK(after.free == before.free + 1);
    CHECK(!rt_exc_pending());
}

static void test_alloc_zero_size(void)
{
    HjMemInfo *mi = rt_alloc(0);
    CHECK(mi != NULL && mi->data != NULL && mi->size == 0);
    rt_decref(mi);
}

static void test_alloc_zeroed(void)
{
    HjMemInfo *mi = rt_alloc_zeroed(4096);
    CHECK(mi != NULL);
    int allzero = 1;
    for (int i = 0; i < 4096; i++)
        allzero &= ((unsigned char *)mi->data)[i] == 0;
    CHECK(allzero);
    CHECK(((uintptr_t)mi->data & 63) == 0);
    rt_decref(mi);
}

/* Large blocks: mapped, reused from the cache after a free (zero-filled
 * again for rt_alloc_zeroed), counted like the others, thread-safe. */
static void *large_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++) {
        HjMemInfo *mi = rt_alloc((int64_t)(5 + i % 3) << 20);
        if (!mi)
            return (void *)1;
        memset(mi->data, i, (size_t)mi->size);
        rt_decref(mi);
    }
    return NULL;
}

static void test_alloc_large(void)
{
    const int64_t n = 8 << 20;
    RtMemStats before = rt_memstats();
    HjMemInfo *mi = rt_alloc(n);
    CHECK(mi != NULL && mi->size == n);
    CHECK(((uintptr_t)mi->data & 63) == 0);
    memset(mi->data, 0xab, (size_t)n);
    void *data = mi->data;
    rt_decref(mi);
    HjMemInfo *z = rt_alloc_zeroed(n - 1000);
    CHECK(z != NULL && z->data == data); /* the cached block comes back */
    int allzero = 1;
    for (int64_t i = 0; i < n - 1000; i++)
        allzero &= ((unsigned char *)z->data)[i] == 0;
    CHECK(allzero);
    HjMemInfo *big = rt_alloc(3 * n); /* too large for the cached block: a new one */
    CHECK(big != NULL && big->data != z->data);
    rt_decref(big);
    rt_decref(z);
    RtMemStats after = rt_memstats();
    CHECK(after.alloc == before.alloc + 3 && after.free == before.free + 3);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, large_worker, NULL);
    for (int i = 0; i < 4; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        CHECK(r == NULL);
    }
    RtMemStats end = rt_memstats();
    CHECK(end.alloc - after.alloc == 200 && end.free - after.free == 200);
    rt_memory_shutdown();
    HjMemInfo *late = rt_alloc(n); /* still works after the shutdown, unmapped at once */
    CHECK(late != NULL);
    rt_decref(late);
    CHECK(!rt_exc_pending());
}

static void test_alloc_negative(void)
{
    const char *type = NULL, *msg = NULL;
    CHECK(rt_alloc(-8) == NULL);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(type, "ValueError") == 0);
    CHECK(strcmp(msg, "negative dimensions are not allowed") == 0);
    CHECK(!rt_exc_pending());
}

static void test_alloc_huge(void)
{
    const char *type = NULL, *msg = NULL;
    CHECK(rt_alloc(INT64_MAX) == NULL);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(type, "MemoryError") == 0);
    CHECK(rt_alloc_zeroed(INT64_MAX - 10) == NULL);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(type, "MemoryError") == 0);
}

static void test_refcount(void)
{
    RtMemStats before = rt_memstats();
    HjMemInfo *mi = rt_alloc(16);
    rt_incref(mi);
    rt_incref(mi);
    CHECK(mi->refcnt == 3);
    rt_decref(mi);
    rt_decref(mi);
    CHECK(rt_memstats().free == before.free);
    rt_decref(mi);
    CHECK(rt_memstats().free == before.free + 1);
    rt_incref(NULL); /* no-ops */
    rt_decref(NULL);
}

static int dtor_calls;
static void counting_dtor(HjMemInfo *mi)
{
    dtor_calls++;
    CHECK(mi->dtor_info == &dtor_calls);
}

static void test_custom_dtor(void)
{
    HjMemInfo mi = {1, NULL, 0, counting_dtor, &dtor_calls};
    rt_decref(&mi);
    CHECK(dtor_calls == 1);
}

#define NTHREADS 4
#define NITER 100000
static void *hammer(void *arg)
{
    HjMemInfo *mi = arg;
    for (int i = 0; i < NITER; i++) {
        rt_incref(mi);
        rt_decref(mi);
    }
    rt_raise("KeyError", "per thread"); /* must not leak into main thread */
    return NULL;
}

/* Counts are per thread: each thread allocates blocks that the next
 * thread frees, then exits, and threads started later take over the
 * exited threads' slots; the sums still balance. */
#define NBLOCKS 1000
static HjMemInfo *handoff[NTHREADS + 1][NBLOCKS];
static void *alloc_and_free(void *arg)
{
    int k = (int)(intptr_t)arg;
    for (int i = 0; i < NBLOCKS; i++) {
        handoff[k + 1][i] = rt_alloc(64 + i);
        if (handoff[k][i])
            rt_decref(handoff[k][i]);
        handoff[k][i] = NULL;
    }
    return NULL;
}

static void test_counts_across_threads(void)
{
    RtMemStats before = rt_memstats();
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < NTHREADS; k++) { /* one after the other: k frees what k - 1 made */
            pthread_t t;
            CHECK(pthread_create(&t, NULL, alloc_and_free, (void *)(intptr_t)k) == 0);
            pthread_join(t, NULL);
        }
        for (int i = 0; i < NBLOCKS; i++) { /* the last thread's blocks back to the first */
            handoff[0][i] = handoff[NTHREADS][i];
            handoff[NTHREADS][i] = NULL;
        }
    }
    RtMemStats mid = rt_memstats();
    CHECK(mid.alloc - before.alloc == 3 * NTHREADS * NBLOCKS);
    CHECK(mid.free - before.free == 3 * NTHREADS * NBLOCKS - NBLOCKS);
    for (int i = 0; i < NBLOCKS; i++) {
        rt_decref(handoff[0][i]);
        handoff[0][i] = NULL;
    }
    RtMemStats after = rt_memstats();
    CHECK(after.alloc - before.alloc == after.free - before.free);
}

static void test_atomic_threads(void)
{
    pthread_t th[NTHREADS];
    HjMemInfo *mi = rt_alloc(8);
    for (int i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, hammer, mi);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    CHECK(mi->refcnt == 1);
    CHECK(!rt_exc_pending());
    rt_decref(mi);
}

static void test_raise_fetch(void)
{
    const char *type = NULL, *msg = NULL;
    CHECK(rt_exc_fetch(&type, &msg) == 0);
    char tmp[32];
    strcpy(tmp, "bad value");
    rt_raise("ValueError", tmp);
    strcpy(tmp, "clobbered"); /* the runtime keeps its own copy */
    CHECK(rt_exc_pending());
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(type, "ValueError") == 0 && strcmp(msg, "bad value") == 0);
    CHECK(rt_exc_fetch(&type, &msg) == 0);
    rt_raise("AssertionError", NULL);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(msg, "") == 0);
}

static void test_raise_long_message(void)
{
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rt_raise("ValueError", big);
    const char *type = NULL, *msg = NULL;
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strlen(msg) > 100 && strlen(msg) < sizeof big);
}

static void test_raise_index(void)
{
    const char *type = NULL, *msg = NULL;
    rt_raise_index(7, 0, 5);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(type, "IndexError") == 0);
    CHECK(strcmp(msg, "index 7 is out of bounds for axis 0 with size 5") == 0);
    rt_raise_index(-6, 1, 5);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(msg, "index -6 is out of bounds for axis 1 with size 5") == 0);
}

static void test_raise_broadcast(void)
{
    const char *type = NULL, *msg = NULL;
    /* x = a * b (leaves 0, 1); y = x + c (statement 0, leaf 2): 1-D */
    const int32_t desc[] = {2, 2, 0, 1, 2, -1, 2};
    const int64_t ok_then_bad[] = {5, 1, 4};
    rt_raise_broadcast(desc, ok_then_bad, 1);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(type, "ValueError") == 0);
    CHECK(strcmp(msg, "operands could not be broadcast together with shapes (5,) (4,) ") == 0);
    const int64_t bad_first[] = {2, 3, 3, 1, 1, 1}; /* 2-D: (2,3) (3,1) */
    rt_raise_broadcast(desc, bad_first, 2);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(msg, "operands could not be broadcast together with shapes (2,3) (3,1) ") == 0);
}

static void test_raise_zerodiv(void)
{
    const char *type = NULL, *msg = NULL;
    rt_raise_zerodiv("integer division by zero");
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(strcmp(type, "ZeroDivisionError") == 0 && strcmp(msg, "integer division by zero") == 0);
    rt_raise_zerodiv(NULL);
    CHECK(rt_exc_fetch(&type, &msg) == 1 && strcmp(msg, "division by zero") == 0);
}

static void test_clear(void)
{
    rt_raise("ValueError", "x");
    rt_exc_clear();
    CHECK(!rt_exc_pending());
}

static void test_symbols(void)
{
    const char *want[] = {"rt_alloc", "rt_alloc_zeroed", "rt_incref", "rt_decref",
                          "rt_raise", "rt_raise_index", "rt_raise_zerodiv"};
    const RtSymbol *tab = rt_symbols();
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (const RtSymbol *s = tab; s->name; s++)
            if (strcmp(s->name, want[w]) == 0 && s->address)
                found = 1;
        CHECK(found);
    }
    /* the address really is the function */
    for (const RtSymbol *s = tab; s->name; s++)
        if (strcmp(s->name, "rt_raise_index") == 0) {
            void (*fn)(int64_t, int64_t, int64_t) = (void (*)(int64_t, int64_t, int64_t))(uintptr_t)s->address;
            fn(1, 2, 3);
            CHECK(rt_exc_pending());
            rt_exc_clear();
        }
}

int main(void)
{
    test_alloc();
    test_alloc_zero_size();
    test_alloc_zeroed();
    test_alloc_negative();
    test_alloc_huge();
    test_refcount();
    test_custom_dtor();
    test_atomic_threads();
    test_counts_across_threads();
    test_alloc_large();
    test_raise_fetch();
    test_raise_long_message();
    test_raise_index();
    test_raise_broadcast();
    test_raise_zerodiv();
    test_clear();
    test_symbols();
    if (failures) {
        fprintf(stderr, "test_runtime: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_runtime: ok\n");
    return 0;
}
