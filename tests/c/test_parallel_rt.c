/* test_parallel_rt - what compiled prange loops call (runtime/parallel.c):
 * rt_parallel_for under both schedules and with a chunk size, exceptions
 * from a body, the per-thread chunk size, rt_parallel_for_grain (one chunk
 * on the calling thread below 2 * grain), and the JIT's symbol table. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/parallel.h"
#include "hpcjit/pool.h"
#include "hpcjit/runtime.h"

static int failures;
#define CHECK(c)                                                                                    \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                 \
            failures++;                                                                             \
        }                                                                                           \
    } while (0)

#define N 100003

typedef struct Ctx {
    atomic_int hits[N];
    atomic_llong chunks;
    int64_t fail_at; /* -1: never */
} Ctx;

static int body(void *vctx, int64_t begin, int64_t end, int tid)
{
    Ctx *c = vctx;
    (void)tid;
    atomic_fetch_add(&c->chunks, 1);
    for (int64_t i = begin; i < end; i++) {
        if (i == c->fail_at) {
            rt_raise("ValueError", "body failed");
            return -1;
        }
        atomic_fetch_add(&c->hits[i], 1);
    }
    return 0;
}

static void run(int dynamic, int64_t chunk)
{
    static Ctx c;
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    CHECK(rt_set_parallel_chunksize(chunk) >= 0);
    CHECK(rt_get_parallel_chunksize() == chunk);
    CHECK(rt_parallel_for(N, body, &c, dynamic) == 0);
    for (int i = 0; i < N; i++)
        CHECK(atomic_load(&c.hits[i]) == 1);
    if (chunk > 0 && pool_get_num_threads() > 1) /* one thread: one serial call */
        CHECK(atomic_load(&c.chunks) >= (N + chunk - 1) / chunk);
    c.fail_at = N / 2;
    CHECK(rt_parallel_for(N, body, &c, dynamic) == -1);
    const char *type = NULL, *msg = NULL;
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(type && strcmp(type, "ValueError") == 0);
    CHECK(msg && strcmp(msg, "body failed") == 0);
    CHECK(rt_parallel_for(0, body, &c, dynamic) == 0);
    rt_set_parallel_chunksize(0);
}

static int failing_quietly(void *vctx, int64_t begin, int64_t end, int tid)
{
    (void)vctx, (void)begin, (void)end, (void)tid;
    return -1;
}

/* below 2 * grain items: one call over everything, on this thread */
static void run_grain(void)
{
    static Ctx c;
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    CHECK(rt_parallel_for_grain(1000, body, &c, 600) == 0);
    CHECK(atomic_load(&c.chunks) == 1);
    for (int i = 0; i < 1000; i++)
        CHECK(atomic_load(&c.hits[i]) == 1);
    CHECK(rt_parallel_for_grain(0, body, &c, 600) == 0);
    CHECK(rt_parallel_for_grain(-5, body, &c, 600) == 0);
    CHECK(atomic_load(&c.chunks) == 1);
    c.fail_at = 10;
    CHECK(rt_parallel_for_grain(1000, body, &c, 600) == -1);
    const char *type = NULL, *msg = NULL;
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(type && strcmp(type, "ValueError") == 0);
    CHECK(rt_parallel_for_grain(1000, failing_quietly, NULL, 600) == -1);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
    CHECK(type && strcmp(type, "RuntimeError") == 0);
    /* large: every item once, on up to n / grain threads */
    memset(&c, 0, sizeof c);
    c.fail_at = -1;
    CHECK(rt_parallel_for_grain(N, body, &c, 1000) == 0);
    for (int i = 0; i < N; i++)
        CHECK(atomic_load(&c.hits[i]) == 1);
    if (pool_get_num_threads() == 1)
        CHECK(atomic_load(&c.chunks) == 1);
    c.fail_at = N - 1;
    CHECK(rt_parallel_for_grain(N, body, &c, 1000) == -1);
    CHECK(rt_exc_fetch(&type, &msg) == 1);
}

int main(void)
{
    for (int t = 1; t <= pool_max_threads() && t <= 4; t++) {
        CHECK(pool_set_num_threads(t) == 0);
        run(0, 0);
        run(1, 0);
        run(0, 7);
        run(1, 1000);
        run_grain();
    }
    CHECK(rt_set_parallel_chunksize(-1) == -1);
    CHECK(rt_get_parallel_chunksize() == 0);
    const char *need[] = {"rt_parallel_for", "pool_parallel_for", "pool_get_num_threads", "pool_get_thread_id"};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++) {
        int found = 0;
        for (const RtSymbol *s = rt_symbols(); s->name; s++)
            found |= strcmp(s->name, need[k]) == 0 && s->address != NULL;
        CHECK(found);
    }
    pool_shutdown();
    if (failures) {
        fprintf(stderr, "test_parallel_rt: %d failures\n", failures);
        return 1;
    }
    printf("test_parallel_rt: ok\n");
    return 0;
}
