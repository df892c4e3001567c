/* hpcjit/pool.h - the persistent thread pool parallel loops run on.
 *
 * Created on first use (topology discovery and the thread plan of
 * hpcjit/topo.h happen then, not at import): plan.nthreads - 1 workers,
 * each pinned to its CPUs from the plan with hwloc_set_cpubind(...,
 * HWLOC_CPUBIND_THREAD).  The calling thread is thread 0 of every loop and
 * is not pinned (it is the user's thread; its affinity stays the user's).
 *
 * Fork/join: the caller publishes the loop to each worker's own word and
 * wakes only workers asleep on it; idle workers spin for HPCJIT_SPIN_US
 * microseconds (default 200; 0 when the plan oversubscribes the CPUs) and
 * then sleep on a futex.  The join is a counter the caller spins on, then
 * sleeps on.
 *
 * Concurrency (documented choice): one caller at a time owns the pool.  A
 * second thread that calls pool_parallel_for while the pool is busy runs its
 * loop serially on its own thread instead of waiting, so callers never
 * deadlock and results are the same.  A call from inside a loop body (on a
 * worker or on the owning caller) runs serially too.
 *
 * fork(): the child has no workers; the pool is forgotten in the child
 * (pthread_atfork) and made again on its first use there.  Calling fork()
 * from inside a loop body is not supported (the child would wait for
 * workers it does not have).
 *
 * No Python API, no exit: this lives in hpcjit._core. */
#ifndef HPCJIT_POOL_H
#define HPCJIT_POOL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A loop body runs iterations [begin, end) as thread `thread_id` (0..n-1)
 * of the loop.  It returns 0, or non-zero after rt_raise() to stop the loop
 * with that exception.  Two calls never run with the same thread_id at the
 * same time, but the id names the share, not the OS thread: the caller runs
 * the static share of a worker that is late to claim it, under that
 * worker's id (pool_get_thread_id() agrees). */
typedef int (*PoolBody)(void *ctx, int64_t begin, int64_t end, int thread_id);

typedef enum PoolSchedule {
    POOL_STATIC,  /* chunk 0: one contiguous block per thread; chunk k:
                     blocks of k dealt round-robin                         */
    POOL_DYNAMIC, /* blocks of `chunk` taken in turn from a shared counter;
                     chunk 0: n / (8 * threads), at least 1                */
} PoolSchedule;

/* Run body over [0, n) on the pool with the calling thread's thread count
 * (pool_get_num_threads).  Returns 0, or -1 with the first exception raised
 * by any body pending on the calling thread (rt_exc_fetch); remaining
 * chunks are skipped once a body fails.  -1 with a RuntimeError pending
 * when the pool cannot be made (the loop then has not run).
 * Thread-safe; see the concurrency note above. */
int pool_parallel_for(int64_t n, PoolBody body, void *ctx, PoolSchedule schedule, int64_t chunk);

/* Threads used by loops started from the calling thread (thread-local, as in
 * Numba): 1 <= n <= pool_max_threads().  Returns 0, or -1 if n is out of
 * range (nothing changed).  Inside a loop body, get returns the number of
 * threads running that loop. */
int pool_set_num_threads(int n);
int pool_get_num_threads(void);
/* The plan's thread count (makes the pool's plan on first call). */
int pool_max_threads(void);
/* 0 on the calling thread, 1..n-1 on workers. */
int pool_get_thread_id(void);

/* Join and free the workers (for tests and clean shutdown); the next loop
 * makes the pool again.  Must not be called from inside a loop body. */
void pool_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
