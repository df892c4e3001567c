/* test_topo - hwloc discovery against the OS, the thread plan from the
 * environment, places and binding (topology/). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpcjit/topo.h"

static int failures;
#define CHECK(c)                                                                                    \
    do {                                                                                            \
        if (!(c)) {                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);                 \
            failures++;                                                                             \
        }                                                                                           \
    } while (0)

/* "0-3,8" -> cpu_set_t; returns -1 on bad syntax. */
static int parse_list(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            return -1;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long i = a; i <= b && i < CPU_SETSIZE; i++)
            CPU_SET((int)i, set);
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        s = end;
    }
    return 0;
}

static int list_is(const char *list, const cpu_set_t *want)
{
    cpu_set_t got;
    return list && parse_list(list, &got) == 0 && CPU_EQUAL(&got, want);
}

static int list_inside(const char *list, const cpu_set_t *outer)
{
    cpu_set_t got, both;
    if (!list || parse_list(list, &got) < 0 || CPU_COUNT(&got) == 0)
        return 0;
    CPU_AND(&both, &got, outer);
    return CPU_EQUAL(&both, &got);
}

static cpu_set_t mask;
static int mask_cpus[CPU_SETSIZE], nmask;

static void clear_env(void)
{
    static const char *vars[] = {"HPCJIT_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OMP_PLACES",
                                 "OMP_PROC_BIND", "HPCJIT_PROC_BIND", "SLURM_CPUS_PER_TASK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

static TopoPlan *plan_of(TopoNode *node)
{
    TopoPlan *p = NULL;
    int rc = topo_plan(node, &p);
    CHECK(rc == TOPO_OK && p);
    return p;
}

static void test_discovery(void)
{
    TopoNode *node = NULL;
    CHECK(topo_discover(&node, 0) == TOPO_OK);
    if (!node)
        return;
    const TopoInfo *in = topo_info(node);
    CHECK(in->npus == nmask);
    CHECK(in->ncores >= 1 && in->ncores <= in->npus);
    CHECK(in->npackages >= 1 && in->npackages <= in->ncores);
    CHECK(in->nnuma >= 1);
    CHECK(in->npus <= sysconf(_SC_NPROCESSORS_ONLN));
    CHECK(list_is(in->current_cpus, &mask));
    cpu_set_t allowed, both;
    CHECK(parse_list(in->allowed_cpus, &allowed) == 0);
    CPU_AND(&both, &allowed, &mask);
    CHECK(CPU_EQUAL(&both, &mask)); /* the binding lies inside the cgroup */
    for (int i = 0; i < in->ncaches; i++) {
        CHECK(in->caches[i].level >= 1 && in->caches[i].level <= 5);
        CHECK(in->caches[i].size > 0 && in->caches[i].count >= 1);
    }
    CHECK(!in->io_discovered && in->ndevices == 0);

    /* architecture key: stable, feature order does not matter */
    char *k1 = topo_arch_key(node, "skylake", "+avx2,+fma,-avx512f");
    char *k2 = topo_arch_key(node, "skylake", "-avx512f,+fma,+avx2");
    char *k3 = topo_arch_key(node, "skylake", "+avx2,+fma,+avx512f");
    char *k4 = topo_arch_key(node, "znver3", "+avx2,+fma,-avx512f");
    CHECK(k1 && k2 && k3 && k4);
    if (k1 && k2 && k3 && k4) {
        CHECK(strcmp(k1, k2) == 0);
        CHECK(strcmp(k1, k3) != 0);
        CHECK(strcmp(k1, k4) != 0);
        CHECK(strncmp(k1, "skylake-", 8) == 0);
        CHECK(strncmp(k4, "znver3-", 7) == 0);
    }
    free(k1), free(k2), free(k3), free(k4);
    char *k5 = topo_arch_key(NULL, NULL, NULL);
    CHECK(k5 && strncmp(k5, "generic-", 8) == 0);
    free(k5);
    topo_free(node);

    /* I/O discovery: no device is a normal answer */
    CHECK(topo_discover(&node, TOPO_DISCOVER_IO) == TOPO_OK);
    if (node) {
        in = topo_info(node);
        CHECK(in->io_discovered);
        CHECK(in->ngpus >= 0 && in->ngpus <= in->ndevices);
        for (int i = 0; i < in->ndevices; i++)
            CHECK(in->devices[i].busid[0] != '\0');
        topo_free(node);
    }
    CHECK(topo_discover(NULL, 0) == TOPO_EINVAL);
    CHECK(strcmp(topo_strerror(TOPO_ENOMEM), "out of memory") == 0);
}

static void test_count(TopoNode *node)
{
    TopoPlan *p;
    clear_env();
    p = plan_of(node);
    if (p) {
        CHECK(p->nthreads == nmask);
        CHECK(strcmp(p->nthreads_from, "affinity mask") == 0);
        CHECK(p->bind == TOPO_BIND_SPREAD && strcmp(p->bind_from, "default") == 0);
        CHECK(p->places == TOPO_PLACES_DEFAULT && p->nplaces == 0);
        CHECK(strcmp(p->warnings, "") == 0);
        cpu_set_t seen;
        CPU_ZERO(&seen);
        for (int i = 0; i < p->nthreads; i++) {
            CHECK(p->thread_pu[i] >= 0 && CPU_ISSET(p->thread_pu[i], &mask));
            CHECK(!CPU_ISSET(p->thread_pu[i], &seen)); /* one PU each */
            CPU_SET(p->thread_pu[i], &seen);
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(p->thread_pu[i], &one);
            CHECK(list_is(p->thread_cpus[i], &one));
        }
        topo_plan_free(p);
    }

    setenv("OMP_NUM_THREADS", "7", 1);
    setenv("NUMBA_NUM_THREADS", "5", 1);
    setenv("HPCJIT_NUM_THREADS", "3", 1);
    if ((p = plan_of(node))) {
        CHECK(p->nthreads == 3 && strcmp(p->nthreads_from, "HPCJIT_NUM_THREADS") == 0);
        for (int i = 0; i < 3; i++)
            CHECK(list_inside(p->thread_cpus[i], &mask));
        topo_plan_free(p);
    }
    setenv("HPCJIT_NUM_THREADS", "abc", 1);
    if ((p = plan_of(node))) {
        CHECK(p->nthreads == 5 && strcmp(p->nthreads_from, "NUMBA_NUM_THREADS") == 0);
        CHECK(strstr(p->warnings, "HPCJIT_NUM_THREADS='abc' ignored") != NULL);
        topo_plan_free(p);
    }
    unsetenv("HPCJIT_NUM_THREADS");
    unsetenv("NUMBA_NUM_THREADS");
    setenv("OMP_NUM_THREADS", "2,1", 1);
    if ((p = plan_of(node))) {
        CHECK(p->nthreads == 2 && strcmp(p->nthreads_from, "OMP_NUM_THREADS") == 0);
        topo_plan_free(p);
    }
    setenv("OMP_NUM_THREADS", "0", 1);
    if ((p = plan_of(node))) {
        CHECK(p->nthreads == nmask && strstr(p->warnings, "OMP_NUM_THREADS") != NULL);
        topo_plan_free(p);
    }
    /* SLURM_CPUS_PER_TASK: warn on disagreement only */
    setenv("OMP_NUM_THREADS", "2", 1);
    setenv("SLURM_CPUS_PER_TASK", "2", 1);
    if ((p = plan_of(node))) {
        CHECK(strstr(p->warnings, "SLURM_CPUS_PER_TASK") == NULL);
        topo_plan_free(p);
    }
    setenv("SLURM_CPUS_PER_TASK", "4", 1);
    if ((p = plan_of(node))) {
        CHECK(strstr(p->warnings, "SLURM_CPUS_PER_TASK=4 but the plan runs 2 threads") != NULL);
        topo_plan_free(p);
    }
    /* more threads than CPUs: planned, with a warning, still inside the mask */
    clear_env();
    char buf[16];
    snprintf(buf, sizeof buf, "%d", 2 * nmask + 1);
    setenv("HPCJIT_NUM_THREADS", buf, 1);
    if ((p = plan_of(node))) {
        CHECK(p->nthreads == 2 * nmask + 1 && strstr(p->warnings, "oversubscribed") != NULL);
        for (int i = 0; i < p->nthreads; i++)
            CHECK(p->thread_pu[i] >= 0 && CPU_ISSET(p->thread_pu[i], &mask));
        topo_plan_free(p);
    }
    clear_env();
}

static void test_bind_and_places(TopoNode *node)
{
    const TopoInfo *in = topo_info(node);
    TopoPlan *p;
    char buf[128];
    clear_env();
    setenv("OMP_PROC_BIND", "false", 1);
    if ((p = plan_of(node))) {
        CHECK(p->bind == TOPO_BIND_FALSE);
        for (int i = 0; i < p->nthreads; i++)
            CHECK(p->thread_pu[i] == -1 && list_is(p->thread_cpus[i], &mask));
        CHECK(topo_bind_thread(node, p, 0) == TOPO_OK); /* unbound: nothing to do */
        topo_plan_free(p);
    }
    setenv("OMP_PROC_BIND", "spread,close", 1);
    setenv("HPCJIT_PROC_BIND", "CLOSE", 1);
    if ((p = plan_of(node))) {
        CHECK(p->bind == TOPO_BIND_CLOSE && strcmp(p->bind_from, "HPCJIT_PROC_BIND") == 0);
        topo_plan_free(p);
    }
    setenv("HPCJIT_PROC_BIND", "sideways", 1);
    if ((p = plan_of(node))) {
        CHECK(p->bind == TOPO_BIND_SPREAD && strcmp(p->bind_from, "OMP_PROC_BIND") == 0);
        CHECK(strstr(p->warnings, "HPCJIT_PROC_BIND='sideways' ignored") != NULL);
        topo_plan_free(p);
    }
    clear_env();

    setenv("OMP_PLACES", "threads", 1);
    if ((p = plan_of(node))) {
        CHECK(p->places == TOPO_PLACES_THREADS && p->nplaces == in->npus);
        topo_plan_free(p);
    }
    setenv("OMP_PLACES", "cores", 1);
    if ((p = plan_of(node))) {
        CHECK(p->places == TOPO_PLACES_CORES && p->nplaces == in->ncores);
        for (int i = 0; i < p->nthreads; i++)
            CHECK(list_inside(p->thread_cpus[i], &mask) && p->thread_place[i] >= 0);
        topo_plan_free(p);
    }
    setenv("OMP_PLACES", "sockets", 1);
    if ((p = plan_of(node))) {
        CHECK(p->places == TOPO_PLACES_SOCKETS && p->nplaces == in->npackages);
        topo_plan_free(p);
    }
    setenv("OMP_PLACES", "threads(1)", 1);
    if ((p = plan_of(node))) {
        CHECK(p->nplaces == 1);
        topo_plan_free(p);
    }

    /* explicit lists, four places on the first CPU: spread and close */
    int a = mask_cpus[0];
    snprintf(buf, sizeof buf, "{%d},{%d},{%d},{%d}", a, a, a, a);
    setenv("OMP_PLACES", buf, 1);
    setenv("OMP_NUM_THREADS", "2", 1);
    setenv("OMP_PROC_BIND", "spread", 1);
    if ((p = plan_of(node))) {
        CHECK(p->places == TOPO_PLACES_LIST && p->nplaces == 4);
        CHECK(p->thread_place[0] == 0 && p->thread_place[1] == 2);
        CHECK(p->thread_pu[0] == a && p->thread_pu[1] == a);
        topo_plan_free(p);
    }
    setenv("OMP_PROC_BIND", "close", 1);
    if ((p = plan_of(node))) {
        CHECK(p->thread_place[0] == 0 && p->thread_place[1] == 1);
        topo_plan_free(p);
    }
    setenv("OMP_PROC_BIND", "primary", 1);
    if ((p = plan_of(node))) {
        CHECK(p->thread_place[0] == 0 && p->thread_place[1] == 0);
        topo_plan_free(p);
    }
    /* more threads than places, close: consecutive threads share a place */
    snprintf(buf, sizeof buf, "{%d}:2:0", a); /* replication: two places */
    setenv("OMP_PLACES", buf, 1);
    setenv("OMP_NUM_THREADS", "4", 1);
    setenv("OMP_PROC_BIND", "close", 1);
    if ((p = plan_of(node))) {
        CHECK(p->nplaces == 2);
        CHECK(p->thread_place[0] == 0 && p->thread_place[1] == 0);
        CHECK(p->thread_place[2] == 1 && p->thread_place[3] == 1);
        topo_plan_free(p);
    }
    /* never widen: a CPU outside the mask is dropped with a warning */
    snprintf(buf, sizeof buf, "{%d},{%d}", a, CPU_SETSIZE - 1);
    setenv("OMP_PLACES", buf, 1);
    if ((p = plan_of(node))) {
        CHECK(p->places == TOPO_PLACES_LIST && p->nplaces == 1);
        CHECK(strstr(p->warnings, "OMP_PLACES") != NULL);
        for (int i = 0; i < p->nthreads; i++)
            CHECK(p->thread_pu[i] == a);
        topo_plan_free(p);
    }
    if (nmask >= 2) {
        int b = mask_cpus[1];
        snprintf(buf, sizeof buf, "{%d,%d},{!%d,%d}", a, b, a, b);
        setenv("OMP_PLACES", buf, 1);
        setenv("OMP_NUM_THREADS", "2", 1);
        if ((p = plan_of(node))) {
            cpu_set_t two;
            CPU_ZERO(&two);
            CPU_SET(a, &two);
            CPU_SET(b, &two);
            CHECK(p->nplaces == 2 && list_is(p->place_cpus[0], &two));
            CHECK(p->thread_pu[0] == -1 && p->thread_pu[1] == b);
            topo_plan_free(p);
        }
        if (b == a + 1) {
            snprintf(buf, sizeof buf, "{%d:2}", a);
            setenv("OMP_PLACES", buf, 1);
            if ((p = plan_of(node))) {
                cpu_set_t two;
                CPU_ZERO(&two);
                CPU_SET(a, &two);
                CPU_SET(b, &two);
                CHECK(p->nplaces == 1 && list_is(p->place_cpus[0], &two));
                topo_plan_free(p);
            }
        }
    }
    static const char *bad[] = {"{0", "{0},", "{x}", "cores(0)", "nonsense", "{0}:0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("OMP_PLACES", bad[i], 1);
        if ((p = plan_of(node))) {
            CHECK(p->places == TOPO_PLACES_DEFAULT && strstr(p->warnings, "OMP_PLACES=") != NULL);
            topo_plan_free(p);
        }
    }
    clear_env();
}

typedef struct BindArg {
    TopoNode *node;
    TopoPlan *plan;
    int tid, rc;
    cpu_set_t got;
} BindArg;

static void *bind_thread(void *arg)
{
    BindArg *b = arg;
    b->rc = topo_bind_thread(b->node, b->plan, b->tid);
    sched_getaffinity(0, sizeof b->got, &b->got);
    return NULL;
}

static void test_bind_thread(TopoNode *node)
{
    clear_env();
    TopoPlan *p = plan_of(node);
    if (!p)
        return;
    for (int t = 0; t < p->nthreads; t++) {
        BindArg b = {node, p, t, -99, {{0}}};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, bind_thread, &b) == 0);
        pthread_join(th, NULL);
        CHECK(b.rc == TOPO_OK);
        CHECK(CPU_COUNT(&b.got) == 1 && CPU_ISSET(p->thread_pu[t], &b.got));
    }
    CHECK(topo_bind_thread(node, p, p->nthreads) == TOPO_EINVAL);
    topo_plan_free(p);
}

/* The caller's CPU goes to thread 0 (never pinned), its owner to the
 * caller's old set; nothing moves unbound, with one place for all, or when
 * thread 0 has it already. */
static void test_keep_cpu(TopoNode *node)
{
    clear_env();
    setenv("HPCJIT_PROC_BIND", "close", 1);
    TopoPlan *p = plan_of(node);
    if (p && p->nthreads >= 2 && p->thread_pu[1] >= 0) {
        int pu0 = p->thread_pu[0], pu1 = p->thread_pu[1];
        char *cpus1 = strdup(p->thread_cpus[1]);
        CHECK(topo_plan_keep_cpu(p, pu0) == 0);
        CHECK(topo_plan_keep_cpu(p, pu1) == 1);
        CHECK(p->thread_pu[0] == pu1 && p->thread_pu[1] == pu0);
        CHECK(cpus1 && strcmp(p->thread_cpus[0], cpus1) == 0);
        /* the pinning follows: thread 1 now runs on the caller's old CPU */
        BindArg b = {node, p, 1, -99, {{0}}};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, bind_thread, &b) == 0);
        pthread_join(th, NULL);
        CHECK(b.rc == TOPO_OK && CPU_COUNT(&b.got) == 1 && CPU_ISSET(pu0, &b.got));
        CHECK(topo_plan_keep_cpu(p, -1) == 0);
        free(cpus1);
    }
    topo_plan_free(p);
    setenv("HPCJIT_PROC_BIND", "primary", 1);
    p = plan_of(node);
    if (p && p->nthreads >= 2)
        for (int c = 0; c < nmask; c++)
            CHECK(topo_plan_keep_cpu(p, mask_cpus[c]) == 0);
    topo_plan_free(p);
    setenv("HPCJIT_PROC_BIND", "false", 1);
    p = plan_of(node);
    for (int c = 0; p && c < nmask; c++)
        CHECK(topo_plan_keep_cpu(p, mask_cpus[c]) == 0);
    topo_plan_free(p);
    CHECK(topo_plan_keep_cpu(NULL, 0) == 0);
    clear_env();
}

/* As under `taskset -c N`: bind the process to one CPU, rediscover. */
static void test_restricted(void)
{
    cpu_set_t one;
    int cpu = mask_cpus[nmask - 1];
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return;
    TopoNode *node = NULL;
    CHECK(topo_discover(&node, 0) == TOPO_OK);
    if (node) {
        CHECK(topo_info(node)->npus == 1 && list_is(topo_info(node)->current_cpus, &one));
        clear_env();
        TopoPlan *p = plan_of(node);
        if (p) {
            CHECK(p->nthreads == 1 && p->thread_pu[0] == cpu);
            topo_plan_free(p);
        }
        topo_free(node);
    }
    sched_setaffinity(0, sizeof mask, &mask);
}

int main(void)
{
    if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
        perror("sched_getaffinity");
        return 1;
    }
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &mask))
            mask_cpus[nmask++] = i;
    test_discovery();
    TopoNode *node = NULL;
    CHECK(topo_discover(&node, 0) == TOPO_OK);
    if (node) {
        test_count(node);
        test_bind_and_places(node);
        test_bind_thread(node);
        test_keep_cpu(node);
        topo_free(node);
    }
    test_restricted();
    if (failures) {
        fprintf(stderr, "test_topo: %d failures\n", failures);
        return 1;
    }
    printf("test_topo: ok (%d CPUs in the mask)\n", nmask);
    return 0;
}
