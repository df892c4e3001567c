/* hpcjit/parallel.h - what compiled prange loops call on top of the pool
 * (hpcjit/pool.h), and the chunk size setting behind
 * hpcjit.set_parallel_chunksize.
 *
 * Thread-safety: any thread, with or without the GIL; the chunk size is
 * per thread (as the thread count is).  No Python API. */
#ifndef HPCJIT_PARALLEL_H
#define HPCJIT_PARALLEL_H

#include <stdint.h>

#include "hpcjit/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run body over [0, n) on the pool: static scheduling, or dynamic chunks
 * when `dynamic` (schedule="dynamic") or a chunk size > 0 is set on the
 * calling thread.  Returns pool_parallel_for's status (-1: exception
 * pending on the calling thread). */
int rt_parallel_for(int64_t n, PoolBody body, void *ctx, int32_t dynamic);

/* Run body over [0, n) on the pool with static scheduling, on at most
 * n / grain threads.  When that is one (n < 2 * grain, or one thread set),
 * the calling thread runs body(ctx, 0, n, its thread id) directly: the
 * pool is not started and nothing is marked, so a library loop of a
 * parallel=True function needs no separate copy for small sizes.
 * For library loops of parallel=True functions (array expressions,
 * whole-array reductions), where a small loop is not worth a fork.
 * 0 when n <= 0 (body not called); -1 with an exception pending. */
int rt_parallel_for_grain(int64_t n, PoolBody body, void *ctx, int64_t grain);

/* hpcjit.set_num_threads(n) from compiled code: 0, or -1 with ValueError
 * pending when n is not in 1..pool_max_threads(). */
int rt_set_num_threads(int64_t n);

/* The chunk size of dynamic schedules started from the calling thread
 * (0: the pool's default).  set returns the previous value, or -1 when
 * n < 0 (nothing changed). */
int64_t rt_set_parallel_chunksize(int64_t n);
int64_t rt_get_parallel_chunksize(void);

#ifdef __cplusplus
}
#endif
#endif
