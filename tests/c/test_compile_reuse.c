/* test_compile_reuse.c - what compile-time caching must not change: many
 * compilations from several threads at once (the pooled TargetMachines are
 * never shared by two threads), mixed optimisation levels and targets, each
 * result loaded and called; and the host target stays the same across
 * calls while the environment overrides are still read every time. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/compiler.h"

static int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
#define CHECK(c)                                                                             \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            pthread_mutex_lock(&fail_lock);                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);            \
            failures++;                                                                      \
            pthread_mutex_unlock(&fail_lock);                                                \
        }                                                                                    \
    } while (0)

typedef int32_t (*EntryFn)(void *ret, void **args);

#define NTHREADS 4
#define NROUNDS 12

static HjJit *jit;

static const char *SRC =
    "def poly(x, n):\n"
    "    s = 0.0\n"
    "    for i in range(n):\n"
    "        s = s * x + i\n"
    "    return s\n";

static double poly_ref(double x, int64_t n) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s = s * x + (double)i;
    return s;
}

/* Compile poly for (float64, int64) at `opt` (and for an explicit CPU when
 * cpu is set), load it and check one call. */
static void compile_and_check(int opt, const char *cpu, int round) {
    HjEnvEntry env[1] = {{.name = "range", .kind = HJ_ENV_BUILTIN, .qualname = "builtins.range"}};
    HjFunction f;
    memset(&f, 0, sizeof f);
    f.name = f.qualname = "poly";
    f.filename = "reuse.py";
    f.source = SRC;
    f.first_line = 1;
    f.env = env;
    f.nenv = 1;
    HjTarget t;
    memset(&t, 0, sizeof t);
    hj_target_host(&t); /* the host, with this process's overrides */
    t.opt_level = opt;
    if (cpu) {
        free((char *)t.cpu);
        t.cpu = strdup(cpu);
        free((char *)t.features);
        t.features = strdup("");
    }
    const char *argtypes[2] = {"d", "l"};
    HjRequest req;
    memset(&req, 0, sizeof req);
    req.funcs = &f;
    req.nfuncs = 1;
    req.argtypes = argtypes;
    req.nargs = 2;
    req.target = &t;
    HjResult res;
    int rc = hj_compile(&req, &res);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "compile: %s\n", res.diag_message ? res.diag_message : "?");
    } else {
        char *err = NULL;
        void *p = hj_jit_load(jit, res.object, res.object_size, res.entry_symbol, &err);
        CHECK(p != NULL);
        if (p) {
            double x = 0.5 + round, out = 0.0;
            int64_t n = 3 + round % 5;
            void *args[2] = {&x, &n};
            CHECK(((EntryFn)(uintptr_t)p)(&out, args) == 0);
            CHECK(out == poly_ref(x, n));
        } else {
            fprintf(stderr, "load: %s\n", err ? err : "?");
        }
        free(err);
    }
    hj_result_free(&res);
    hj_target_free(&t);
}

static void *worker(void *p) {
    int id = (int)(intptr_t)p;
    for (int r = 0; r < NROUNDS; r++) {
        /* levels and CPUs interleave so that the pool holds several kinds
         * of machines and more threads than machines of one kind */
        int opt = (id + r) % 4;
        const char *cpu = (id + r) % 3 == 0 ? "x86-64" : NULL;
        compile_and_check(opt, cpu, r);
    }
    return NULL;
}

static void test_host_target_is_stable(void) {
    HjTarget a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    hj_target_host(&a);
    hj_target_host(&b);
    CHECK(a.triple && b.triple && strcmp(a.triple, b.triple) == 0);
    CHECK(a.cpu && b.cpu && strcmp(a.cpu, b.cpu) == 0);
    CHECK(a.features && b.features && strcmp(a.features, b.features) == 0);
    CHECK(a.triple != b.triple); /* each caller owns its copy */
    hj_target_free(&b);
    /* the overrides are read on every call, after the host was cached */
    setenv("HPCJIT_CPU_NAME", "x86-64", 1);
    setenv("HPCJIT_OPT", "1", 1);
    hj_target_host(&b);
    CHECK(b.cpu && strcmp(b.cpu, "x86-64") == 0);
    CHECK(b.opt_level == 1);
    hj_target_free(&b);
    unsetenv("HPCJIT_CPU_NAME");
    unsetenv("HPCJIT_OPT");
    hj_target_host(&b);
    CHECK(b.cpu && a.cpu && strcmp(b.cpu, a.cpu) == 0);
    CHECK(b.opt_level == 3);
    hj_target_free(&b);
    hj_target_free(&a);
}

int main(void) {
    unsetenv("HPCJIT_CPU_NAME");
    unsetenv("NUMBA_CPU_NAME");
    unsetenv("HPCJIT_OPT");
    unsetenv("NUMBA_OPT");
    char *err = NULL;
    jit = hj_jit_create(NULL, 0, &err);
    if (!jit) {
        fprintf(stderr, "hj_jit_create: %s\n", err ? err : "?");
        free(err);
        return 1;
    }
    test_host_target_is_stable();
    pthread_t th[NTHREADS];
    int started[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        started[i] = pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0;
    for (int i = 0; i < NTHREADS; i++)
        if (started[i])
            pthread_join(th[i], NULL);
        else
            worker((void *)(intptr_t)i);
    /* and once more on this thread, after the others returned their machines */
    compile_and_check(3, NULL, 1);
    hj_jit_destroy(jit);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
