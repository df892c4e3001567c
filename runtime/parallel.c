/* parallel.c - schedule choice for compiled prange loops (see
 * hpcjit/parallel.h). */
#include "hpcjit/parallel.h"

#include <stdio.h>

#include "hpcjit/runtime.h"

static _Thread_local int64_t tls_chunksize;

int rt_parallel_for(int64_t n, PoolBody body, void *ctx, int32_t dynamic) {
    int64_t chunk = tls_chunksize;
    /* inside the loop's body the chunk size is 0 on every thread, the
     * caller's included (Numba's rule: a nested prange starts afresh) */
    tls_chunksize = 0;
    int rc = dynamic || chunk > 0 ? pool_parallel_for(n, body, ctx, POOL_DYNAMIC, chunk)
                                  : pool_parallel_for(n, body, ctx, POOL_STATIC, 0);
    tls_chunksize = chunk;
    return rc;
}

int64_t rt_set_parallel_chunksize(int64_t n) {
    if (n < 0)
        return -1;
    int64_t old = tls_chunksize;
    tls_chunksize = n;
    return old;
}

int64_t rt_get_parallel_chunksize(void) { return tls_chunksize; }

int rt_parallel_for_grain(int64_t n, PoolBody body, void *ctx, int64_t grain) {
    if (n <= 0)
        return 0;
    int64_t t = grain > 0 ? n / grain : n;
    int64_t have = pool_get_num_threads();
    if (t > have)
        t = have;
    if (t <= 1) {
        /* one chunk: on the calling thread, as if there were no pool (it is
         * not started, the thread is not marked as inside a loop) */
        if (body(ctx, 0, n, pool_get_thread_id()) == 0)
            return 0;
        if (!rt_exc_pending())
            rt_raise("RuntimeError", "a parallel loop body failed without setting an exception");
        return -1;
    }
    return pool_parallel_for(n, body, ctx, POOL_STATIC, (n + t - 1) / t);
}

int rt_set_num_threads(int64_t n) {
    int max = pool_max_threads();
    if (n < 1 || n > max || pool_set_num_threads((int)n) < 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "The number of threads must be between 1 and %d", max);
        rt_raise("ValueError", msg);
        return -1;
    }
    return 0;
}
