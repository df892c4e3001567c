/* parallel.c - schedule choice for compiled prange loops (see
 * hpcjit/parallel.h). */
#include "hpcjit/parallel.h"

static _Thread_local int64_t tls_chunksize;

int rt_parallel_for(int64_t n, PoolBody body, void *ctx, int32_t dynamic) {
    int64_t chunk = tls_chunksize;
    if (dynamic || chunk > 0)
        return pool_parallel_for(n, body, ctx, POOL_DYNAMIC, chunk);
    return pool_parallel_for(n, body, ctx, POOL_STATIC, 0);
}

int64_t rt_set_parallel_chunksize(int64_t n) {
    if (n < 0)
        return -1;
    int64_t old = tls_chunksize;
    tls_chunksize = n;
    return old;
}

int64_t rt_get_parallel_chunksize(void) { return tls_chunksize; }
