/* pool.c - the persistent, pinned thread pool (see hpcjit/pool.h).
 *
 * Each worker has its own cache line with the generation it should run
 * (`go`, also its futex word) and a flag saying it sleeps on it, so a fork
 * touches only the participating workers and a futex wake is a system call
 * only for a sleeper.  The join is one counter.  Both handshakes use the
 * store-then-load pattern on two seq_cst atomics (the waiter publishes
 * "sleeping" then re-reads the word; the poster writes the word then reads
 * "sleeping"), so at least one side always sees the other.
 *
 * A worker claims its share of a loop with a CAS on its `claim` word before
 * it reads the loop; the caller, once done with its own share, claims the
 * shares still unclaimed and runs them itself, and so does every worker
 * once done with its own, so a late worker (asleep, or its CPU busy with
 * another process) never holds up the join and its share goes to the
 * first thread free. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hpcjit/pool.h"
#include "hpcjit/runtime.h"
#include "hpcjit/topo.h"

#define EXC_TYPE_MAX 64
#define EXC_MSG_MAX 1024
#define DEFAULT_SPIN_US 200
#define DEFAULT_WAKE_FANOUT 4

typedef struct Worker {
    _Alignas(64) atomic_uint go; /* generation posted to this worker; futex word */
    atomic_int sleeping;
    /* gen << 1 when posted; | 1 once claimed, by the worker or by the
     * caller that runs (or skips) the share of a worker that is late */
    atomic_ullong claim;
    struct Pool *pool;
    pthread_t thread;
    int tid;
    int bind_rc;   /* topo_bind_thread's result                            */
    char *cpus;    /* the worker's binding as it saw it, for display        */
} Worker;

typedef struct Job {
    PoolBody body;
    void *ctx;
    int64_t n, chunk;
    PoolSchedule schedule;
    int nthreads;
    _Alignas(64) atomic_llong next; /* dynamic schedule: next iteration     */
    atomic_int stop;                /* a body failed: skip remaining chunks  */
    atomic_int failed;              /* the first failure claims exc_*        */
    char exc_type[EXC_TYPE_MAX];
    char exc_msg[EXC_MSG_MAX];
} Job;

typedef struct Pool {
    TopoNode *node;
    TopoPlan *plan;
    int nthreads; /* workers + the caller                                   */
    Worker *workers; /* [nthreads]; index 0 (the caller) unused            */
    long spin_ns;
    int fanout;      /* wake tree: thread k wakes k*fanout+1 .. k*fanout+fanout */
    unsigned gen;    /* the owner's generation counter                     */
    Job job;
    _Alignas(64) atomic_int pending; /* workers still running; futex word   */
    atomic_int caller_sleeping;
    _Alignas(64) atomic_int owner;   /* 1 while a caller runs a loop        */
    atomic_int started;
    atomic_int quit;
} Pool;

static _Atomic(Pool *) g_pool;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* creation, shutdown */
static int g_atfork_done;
static int g_displayed;
static char g_error[256];

static _Thread_local int tls_tid;            /* 0: not a worker           */
static _Thread_local int tls_in_loop;        /* inside a loop body         */
static _Thread_local int tls_loop_threads;   /* threads of that loop       */
static _Thread_local int tls_num_threads;    /* pool_set_num_threads; 0 unset */

/* ---- waiting -------------------------------------------------------------- */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void futex_wait(atomic_uint *addr, unsigned val)
{
    syscall(SYS_futex, (unsigned *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *addr, int n)
{
    syscall(SYS_futex, (unsigned *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Spin until *word != seen for at most spin_ns, then sleep on the futex. */
static unsigned wait_change(atomic_uint *word, atomic_int *sleeping, unsigned seen, long spin_ns)
{
    unsigned v;
    if (spin_ns > 0) {
        long deadline = now_ns() + spin_ns;
        for (unsigned i = 1;; i++) {
            v = atomic_load_explicit(word, memory_order_acquire);
            if (v != seen)
                return v;
            cpu_relax();
            if ((i & 63) == 0 && now_ns() > deadline)
                break;
        }
    }
    for (;;) {
        atomic_store(sleeping, 1);
        v = atomic_load(word);
        if (v != seen)
            break;
        futex_wait(word, seen);
        v = atomic_load(word);
        if (v != seen)
            break;
    }
    atomic_store(sleeping, 0);
    return v;
}

static void post(atomic_uint *word, atomic_int *sleeping, unsigned v)
{
    atomic_store(word, v);
    if (atomic_load(sleeping))
        futex_wake(word, INT_MAX);
}

/* A fork posts every participant's `go` word, highest thread id first, but
 * makes the futex calls only for its own children in a tree over thread ids
 * (k wakes k*fanout+1 .. k*fanout+fanout); each worker, once awake, wakes
 * its children before it runs its share, so the caller makes at most
 * `fanout` futex calls before its own share instead of one per sleeper.
 * On 16 threads this measured the same as the flat wake (the wake-up of a
 * sleeping vCPU is the cost, benchmarks/scaling/README.md); it bounds the
 * caller's system calls on nodes with many more cores.  A child is
 * posted before its parent (higher id first), so a parent that sees its own
 * word also sees its child's, and the store-then-load handshake of post()
 * holds between the parent's load of `sleeping` and the child's. */
static void wake_children(Pool *p, int k, unsigned gen)
{
    const int64_t first = (int64_t)k * p->fanout + 1;
    for (int64_t c = first; c < first + p->fanout && c < p->nthreads; c++) {
        Worker *w = &p->workers[c];
        if (atomic_load(&w->go) == gen && atomic_load(&w->sleeping))
            futex_wake(&w->go, INT_MAX);
    }
}

/* ---- running a share of the loop ------------------------------------------ */
static void fail(Job *j)
{
    const char *type = NULL, *msg = NULL;
    if (!rt_exc_fetch(&type, &msg)) {
        type = "RuntimeError";
        msg = "a parallel loop body failed without setting an exception";
    }
    if (atomic_exchange(&j->failed, 1) == 0) {
        snprintf(j->exc_type, sizeof j->exc_type, "%s", type);
        snprintf(j->exc_msg, sizeof j->exc_msg, "%s", msg ? msg : "");
    }
    atomic_store(&j->stop, 1);
}

static void run_share(Job *j, int tid)
{
    const int64_t n = j->n, T = j->nthreads;
    if (j->schedule == POOL_DYNAMIC) {
        for (;;) {
            if (atomic_load_explicit(&j->stop, memory_order_relaxed))
                return;
            int64_t b = atomic_fetch_add_explicit(&j->next, j->chunk, memory_order_relaxed);
            if (b >= n)
                return;
            int64_t e = n - b > j->chunk ? b + j->chunk : n;
            if (j->body(j->ctx, b, e, tid) != 0) {
                fail(j);
                return;
            }
        }
    }
    if (j->chunk <= 0) {
        int64_t q = n / T, r = n % T;
        int64_t b = tid * q + (tid < r ? tid : r);
        int64_t e = b + q + (tid < r);
        if (b < e && !atomic_load_explicit(&j->stop, memory_order_relaxed) && j->body(j->ctx, b, e, tid) != 0)
            fail(j);
        return;
    }
    const int64_t c = j->chunk;
    int64_t stride;
    if (__builtin_mul_overflow(T, c, &stride))
        stride = INT64_MAX;
    for (int64_t b = tid * c; b < n; b += stride) {
        if (atomic_load_explicit(&j->stop, memory_order_relaxed))
            return;
        int64_t e = n - b > c ? b + c : n;
        if (j->body(j->ctx, b, e, tid) != 0) {
            fail(j);
            return;
        }
        if (n - b <= stride)
            return;
    }
}

/* One share of the job is done (run, or skipped for a dynamic schedule):
 * the last one wakes the caller if it sleeps in the join. */
static void share_done(Pool *p)
{
    if (atomic_fetch_sub(&p->pending, 1) == 1 && atomic_load(&p->caller_sleeping))
        futex_wake((atomic_uint *)&p->pending, 1);
}

/* After its own share a worker takes the shares of workers that have not
 * claimed theirs yet (asleep, or their CPU busy), as the caller does after
 * its own: a late worker's share goes to whichever thread is free first
 * instead of waiting for the caller alone, one after the other.  A claim
 * of generation `gen` that is still open proves the job is still that
 * generation's (the join waits for it); after the job every claim of it
 * is closed, so a worker running behind claims nothing. */
static void help_late(Pool *p, int self, unsigned gen)
{
    const unsigned long long open = (unsigned long long)gen << 1;
    for (int d = 1; d < p->nthreads; d++) {
        int i = (self + d) % p->nthreads;
        if (i == 0)
            continue;
        Worker *o = &p->workers[i];
        unsigned long long want = open;
        if (atomic_load_explicit(&o->claim, memory_order_relaxed) != open ||
            !atomic_compare_exchange_strong(&o->claim, &want, open | 1))
            continue;
        Job *j = &p->job;
        if (j->schedule != POOL_DYNAMIC) { /* a dynamic share is already done */
            tls_loop_threads = j->nthreads;
            tls_tid = i;
            run_share(j, i);
            tls_tid = self;
        }
        share_done(p);
    }
}

static void *worker_main(void *arg)
{
    Worker *w = arg;
    Pool *p = w->pool;
    tls_tid = w->tid;
    tls_in_loop = 1; /* a loop started from a body here runs serially */
    w->bind_rc = topo_bind_thread(p->node, p->plan, w->tid);
    w->cpus = topo_thread_cpus(p->node);
    atomic_fetch_add(&p->started, 1);
    unsigned seen = 0;
    for (;;) {
        seen = wait_change(&w->go, &w->sleeping, seen, p->spin_ns);
        if (atomic_load(&p->quit))
            break;
        wake_children(p, w->tid, seen);
        unsigned long long want = (unsigned long long)seen << 1;
        if (atomic_compare_exchange_strong(&w->claim, &want, want | 1)) {
            tls_loop_threads = p->job.nthreads;
            run_share(&p->job, w->tid);
            share_done(p);
        }
        /* else another thread took our share; the job may be over (and
         * the next one posted): help_late touches it only through a claim
         * of this generation that is still open */
        help_late(p, w->tid, seen);
    }
    return NULL;
}

/* ---- creation --------------------------------------------------------------- */
static int env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (strcasecmp(v, "true") == 0 || strcmp(v, "1") == 0);
}

static void display_affinity(Pool *p)
{
    char *caller = topo_thread_cpus(p->node);
    fprintf(stderr, "hpcjit: %d threads, bind=%s (from %s), places=%s\n", p->nthreads, topo_bind_name(p->plan->bind),
            p->plan->bind_from, topo_places_name(p->plan->places));
    fprintf(stderr, "hpcjit: thread 0 (the caller, not pinned) cpus %s\n", caller ? caller : "?");
    for (int i = 1; i < p->nthreads; i++) {
        Worker *w = &p->workers[i];
        fprintf(stderr, "hpcjit: thread %d %s cpus %s\n", i, w->bind_rc == TOPO_OK ? "on" : "(binding failed) on",
                w->cpus ? w->cpus : "?");
    }
    for (const char *s = p->plan->warnings; s && *s;) {
        size_t n = strcspn(s, "\n");
        fprintf(stderr, "hpcjit: warning: %.*s\n", (int)n, s);
        s += n + (s[n] == '\n');
    }
    free(caller);
}

static void free_pool(Pool *p)
{
    if (!p)
        return;
    for (int i = 0; p->workers && i < p->nthreads; i++)
        free(p->workers[i].cpus);
    free(p->workers);
    topo_plan_free(p->plan);
    topo_free(p->node);
    free(p);
}

static void atfork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_lock); }
/* The child has only the forking thread: forget the parent's pool (not
 * freed: another parent thread may have been mid-loop in it) and make a
 * new one on the next loop. */
static void atfork_child(void)
{
    atomic_store(&g_pool, NULL);
    pthread_mutex_unlock(&g_lock);
}

/* Zeroed memory aligned for the cache-line (_Alignas(64)) members of Pool
 * and Worker: calloc gives 16 bytes (UBSan finding, scripts/hardening.sh). */
static void *calloc64(size_t n, size_t size)
{
    void *p = NULL;
    if (size && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    if (posix_memalign(&p, 64, bytes > 0 ? bytes : 64) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

static Pool *create_pool(void)
{
    Pool *p = NULL;
    int rc;
    sigset_t all, old;
    p = calloc64(1, sizeof *p);
    if (!p) {
        snprintf(g_error, sizeof g_error, "out of memory");
        return NULL;
    }
    if ((rc = topo_discover(&p->node, 0)) != TOPO_OK || (rc = topo_plan(p->node, &p->plan)) != TOPO_OK) {
        snprintf(g_error, sizeof g_error, "topology: %s", topo_strerror(rc));
        goto error;
    }
    /* The caller is not pinned: keep workers off the CPU it runs on now (a
     * worker spinning there would take turns with it; on a 16-vCPU guest
     * back-to-back loops took 0.16-0.18 ms in place of 0.08-0.09 ms in the
     * processes where that happened). */
    topo_plan_keep_cpu(p->plan, sched_getcpu());
    p->nthreads = p->plan->nthreads;
    p->workers = calloc64((size_t)p->nthreads, sizeof *p->workers);
    if (!p->workers) {
        snprintf(g_error, sizeof g_error, "out of memory");
        goto error;
    }
    const char *spin = getenv("HPCJIT_SPIN_US");
    long us = spin && *spin ? strtol(spin, NULL, 10) : DEFAULT_SPIN_US;
    if (us < 0)
        us = 0;
    /* Spinning on a CPU another worker needs only delays it. */
    if (p->nthreads > topo_info(p->node)->npus)
        us = 0;
    p->spin_ns = us * 1000;
    const char *fan = getenv("HPCJIT_WAKE_FANOUT");
    long f = fan && *fan ? strtol(fan, NULL, 10) : DEFAULT_WAKE_FANOUT;
    p->fanout = f < 1 || f >= p->nthreads ? (p->nthreads > 1 ? p->nthreads - 1 : 1) : (int)f;

    /* Workers take no signals: Python handles them on its main thread. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int made = 1;
    for (int i = 1; i < p->nthreads; i++, made++) {
        Worker *w = &p->workers[i];
        w->pool = p;
        w->tid = i;
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            break;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    /* Fewer threads than planned if the system refused some. */
    p->nthreads = made;
    while (atomic_load(&p->started) < made - 1)
        sched_yield();
    if (!g_displayed && (env_true("OMP_DISPLAY_AFFINITY") || env_true("HPCJIT_DISPLAY_AFFINITY"))) {
        g_displayed = 1;
        display_affinity(p);
    }
    return p;
error:
    free_pool(p);
    return NULL;
}

static Pool *get_pool(void)
{
    Pool *p = atomic_load_explicit(&g_pool, memory_order_acquire);
    if (p)
        return p;
    pthread_mutex_lock(&g_lock);
    p = atomic_load(&g_pool);
    if (!p) {
        if (!g_atfork_done && pthread_atfork(atfork_prepare, atfork_parent, atfork_child) == 0)
            g_atfork_done = 1;
        p = create_pool();
        atomic_store_explicit(&g_pool, p, memory_order_release);
    }
    pthread_mutex_unlock(&g_lock);
    return p;
}

/* ---- public API ----------------------------------------------------------- */
static int run_serial(int64_t n, PoolBody body, void *ctx)
{
    int saved_in = tls_in_loop, saved_threads = tls_loop_threads;
    tls_in_loop = 1;
    tls_loop_threads = 1;
    int rc = body(ctx, 0, n, tls_tid);
    tls_in_loop = saved_in;
    tls_loop_threads = saved_threads;
    if (rc == 0)
        return 0;
    if (!rt_exc_pending())
        rt_raise("RuntimeError", "a parallel loop body failed without setting an exception");
    return -1;
}

int pool_parallel_for(int64_t n, PoolBody body, void *ctx, PoolSchedule schedule, int64_t chunk)
{
    if (!body) {
        rt_raise("ValueError", "pool_parallel_for: no loop body");
        return -1;
    }
    if (n <= 0)
        return 0;
    if (tls_in_loop)
        return run_serial(n, body, ctx);
    Pool *p = get_pool();
    if (!p) {
        char msg[320];
        snprintf(msg, sizeof msg, "hpcjit: cannot start the thread pool: %s", g_error);
        rt_raise("RuntimeError", msg);
        return -1;
    }
    int T = tls_num_threads > 0 && tls_num_threads < p->nthreads ? tls_num_threads : p->nthreads;
    if (chunk < 0)
        chunk = 0;
    if (schedule == POOL_DYNAMIC && chunk == 0) {
        chunk = n / (8 * (int64_t)T);
        if (chunk < 1)
            chunk = 1;
    }
    /* No thread without work: at most one per block. */
    int64_t blocks = chunk > 0 ? (n - 1) / chunk + 1 : n;
    if (blocks < T)
        T = (int)blocks;
    if (T <= 1 || atomic_exchange_explicit(&p->owner, 1, memory_order_acquire) != 0)
        return run_serial(n, body, ctx);

    Job *j = &p->job;
    j->body = body;
    j->ctx = ctx;
    j->n = n;
    j->chunk = chunk;
    j->schedule = schedule;
    j->nthreads = T;
    atomic_store_explicit(&j->next, 0, memory_order_relaxed);
    atomic_store_explicit(&j->stop, 0, memory_order_relaxed);
    atomic_store_explicit(&j->failed, 0, memory_order_relaxed);
    atomic_store_explicit(&p->pending, T - 1, memory_order_relaxed);
    unsigned gen = ++p->gen;
    for (int i = T - 1; i >= 1; i--) { /* children before parents: wake_children */
        atomic_store_explicit(&p->workers[i].claim, (unsigned long long)gen << 1, memory_order_relaxed);
        atomic_store(&p->workers[i].go, gen);
    }
    wake_children(p, 0, gen);

    tls_in_loop = 1;
    tls_loop_threads = T;
    run_share(j, 0);
    /* A worker that has not claimed its share yet (asleep, or its CPU taken
     * by another process) would make us wait: run its static share here
     * under its thread id instead (a dynamic share is already done). */
    for (int i = 1; i < T; i++) {
        Worker *w = &p->workers[i];
        unsigned long long want = (unsigned long long)gen << 1;
        if (atomic_load_explicit(&w->claim, memory_order_relaxed) != want ||
            !atomic_compare_exchange_strong(&w->claim, &want, want | 1))
            continue;
        if (schedule != POOL_DYNAMIC) {
            int saved_tid = tls_tid;
            tls_tid = i;
            run_share(j, i);
            tls_tid = saved_tid;
        }
        atomic_fetch_sub(&p->pending, 1);
    }
    tls_in_loop = 0;
    tls_loop_threads = 0;

    /* join */
    if (atomic_load_explicit(&p->pending, memory_order_acquire) != 0) {
        long deadline = now_ns() + p->spin_ns;
        for (unsigned i = 1; atomic_load_explicit(&p->pending, memory_order_acquire) != 0; i++) {
            cpu_relax();
            if ((i & 63) == 0 && now_ns() > deadline) {
                int v;
                atomic_store(&p->caller_sleeping, 1);
                while ((v = atomic_load(&p->pending)) != 0)
                    futex_wait((atomic_uint *)&p->pending, (unsigned)v);
                atomic_store(&p->caller_sleeping, 0);
                break;
            }
        }
    }
    int failed = atomic_load(&j->failed);
    char type[EXC_TYPE_MAX], msg[EXC_MSG_MAX];
    if (failed) {
        memcpy(type, j->exc_type, sizeof type);
        memcpy(msg, j->exc_msg, sizeof msg);
    }
    atomic_store_explicit(&p->owner, 0, memory_order_release);
    if (!failed)
        return 0;
    rt_raise(type, msg);
    return -1;
}

int pool_max_threads(void)
{
    Pool *p = get_pool();
    return p ? p->nthreads : 1;
}

int pool_set_num_threads(int n)
{
    if (n < 1 || n > pool_max_threads())
        return -1;
    tls_num_threads = n;
    return 0;
}

int pool_get_num_threads(void)
{
    if (tls_in_loop)
        return tls_loop_threads > 0 ? tls_loop_threads : 1;
    if (tls_num_threads > 0)
        return tls_num_threads;
    return pool_max_threads();
}

int pool_get_thread_id(void) { return tls_tid; }

void pool_shutdown(void)
{
    pthread_mutex_lock(&g_lock);
    Pool *p = atomic_load(&g_pool);
    if (!p) {
        pthread_mutex_unlock(&g_lock);
        return;
    }
    /* Wait for the loop in flight, then keep the pool from new ones. */
    while (atomic_exchange(&p->owner, 1) != 0)
        sched_yield();
    atomic_store(&g_pool, NULL);
    atomic_store(&p->quit, 1);
    unsigned gen = ++p->gen;
    for (int i = 1; i < p->nthreads; i++)
        post(&p->workers[i].go, &p->workers[i].sleeping, gen);
    for (int i = 1; i < p->nthreads; i++)
        pthread_join(p->workers[i].thread, NULL);
    free_pool(p);
    pthread_mutex_unlock(&g_lock);
}
