/* mpi_hooks.c - the rt_mpi_* functions compiled code calls, forwarded to
 * the table hpcjit._mpi installs (see hpcjit/mpi_hooks.h).  Argument checks
 * live here so that every caller gets the errors hpcjit.mpi gives. */
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "hpcjit/mpi_hooks.h"
#include "hpcjit/runtime.h"

static _Atomic(const RtMpiHooks *) hooks_table;

int rt_mpi_set_hooks(const RtMpiHooks *hooks)
{
    if (hooks && hooks->version != RT_MPI_HOOKS_VERSION)
        return -1;
    atomic_store(&hooks_table, hooks);
    return 0;
}

int rt_mpi_has_hooks(void) { return atomic_load(&hooks_table) != NULL; }

static const RtMpiHooks *get(const char *fname)
{
    const RtMpiHooks *h = atomic_load(&hooks_table);
    if (!h) {
        char msg[200];
        snprintf(msg, sizeof msg, "hpcjit.mpi.%s: MPI is not started (hpcjit was built without MPI, or "
                 "hpcjit.mpi.init() was not called)", fname);
        rt_raise("RuntimeError", msg);
    }
    return h;
}

static int32_t check(const RtMpiHooks *h, int rc, const char *fname)
{
    if (rc == 0)
        return 0;
    char err[256] = "", msg[400];
    if (h->error_string)
        h->error_string(rc, err, (int)sizeof err);
    snprintf(msg, sizeof msg, "hpcjit.mpi.%s failed: %s (MPI error %d)", fname, err[0] ? err : "unknown error", rc);
    rt_raise("RuntimeError", msg);
    return -1;
}

static int fits(int64_t n, const char *fname)
{
    if (n >= 0 && n <= INT_MAX)
        return 1;
    char msg[160];
    snprintf(msg, sizeof msg, "hpcjit.mpi.%s: more than %d elements", fname, INT_MAX);
    rt_raise("OverflowError", msg);
    return 0;
}

static int dtype_ok(int32_t dtype, const char *fname)
{
    if (dtype >= 0 && dtype < RT_MPI_NTYPES)
        return 1;
    char msg[160];
    snprintf(msg, sizeof msg, "hpcjit.mpi.%s: unsupported element type", fname);
    rt_raise("TypeError", msg);
    return 0;
}

static const char *const op_names[] = {"SUM", "PROD", "MIN", "MAX", "BOR", "BAND", "BXOR"};

/* The checks of hpcjit.mpi._check_op. */
static int op_ok(int64_t op, int32_t dtype, const char *fname)
{
    char msg[200];
    if (op < 0 || op >= RT_MPI_NOPS) {
        snprintf(msg, sizeof msg, "unknown reduction op %lld (use hpcjit.mpi.SUM, PROD, MIN or MAX)",
                 (long long)op);
        rt_raise("ValueError", msg);
        return 0;
    }
    bool cx = dtype == RT_MPI_COMPLEX64 || dtype == RT_MPI_COMPLEX128;
    if (cx && op != RT_MPI_SUM && op != RT_MPI_PROD) {
        snprintf(msg, sizeof msg, "%s of complex numbers is not defined", op_names[op]);
        rt_raise("TypeError", msg);
        return 0;
    }
    if (dtype == RT_MPI_BOOL && (op == RT_MPI_SUM || op == RT_MPI_PROD)) {
        snprintf(msg, sizeof msg, "%s of booleans: convert to an integer type first", op_names[op]);
        rt_raise("TypeError", msg);
        return 0;
    }
    if ((dtype == RT_MPI_FLOAT32 || dtype == RT_MPI_FLOAT64) && op >= RT_MPI_BOR) {
        snprintf(msg, sizeof msg, "hpcjit.mpi.%s: bitwise reduction of floats", fname);
        rt_raise("TypeError", msg);
        return 0;
    }
    return 1;
}

/* root/dest/source within the communicator */
static int rank_ok(const RtMpiHooks *h, int64_t r, int any, const char *what, const char *fname)
{
    int size = 0;
    if (check(h, h->size(&size), fname) < 0)
        return 0;
    if ((any && r == RT_MPI_ANY) || (r >= 0 && r < size))
        return 1;
    char msg[200];
    snprintf(msg, sizeof msg, "hpcjit.mpi.%s: %s %lld is not a rank (there are %d)", fname, what, (long long)r, size);
    rt_raise("ValueError", msg);
    return 0;
}

static int64_t ident(int (*fn)(int *), const char *fname)
{
    const RtMpiHooks *h = get(fname);
    int v = 0;
    if (!h || check(h, fn ? fn(&v) : -1, fname) < 0)
        return -1;
    return v;
}

int64_t rt_mpi_rank(void)
{
    const RtMpiHooks *h = get("rank");
    return h ? ident(h->rank, "rank") : -1;
}

int64_t rt_mpi_size(void)
{
    const RtMpiHooks *h = get("size");
    return h ? ident(h->size, "size") : -1;
}

int64_t rt_mpi_local_rank(void)
{
    const RtMpiHooks *h = get("local_rank");
    return h ? ident(h->local_rank, "local_rank") : -1;
}

int32_t rt_mpi_barrier(void)
{
    const RtMpiHooks *h = get("barrier");
    return h ? check(h, h->barrier(), "barrier") : -1;
}

/* send and recv of one size */
static int same_size(int64_t count, int64_t recv_count, const char *fname)
{
    if (count == recv_count)
        return 1;
    char msg[200];
    snprintf(msg, sizeof msg, "hpcjit.mpi.%s: send has %lld elements, recv %lld", fname, (long long)count,
             (long long)recv_count);
    rt_raise("ValueError", msg);
    return 0;
}

int32_t rt_mpi_allreduce(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype,
                         int64_t op)
{
    const RtMpiHooks *h = get("allreduce");
    if (!h || !fits(count, "allreduce") || !dtype_ok(dtype, "allreduce") || !op_ok(op, dtype, "allreduce") ||
        !same_size(count, recv_count, "allreduce"))
        return -1;
    return check(h, h->allreduce(send, recv, (int)count, dtype, (int)op), "allreduce");
}

int32_t rt_mpi_reduce(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype, int64_t op,
                      int64_t root)
{
    const RtMpiHooks *h = get("reduce");
    int me = 0;
    if (!h || !fits(count, "reduce") || !dtype_ok(dtype, "reduce") || !op_ok(op, dtype, "reduce") ||
        !rank_ok(h, root, 0, "root", "reduce") || check(h, h->rank(&me), "reduce") < 0)
        return -1;
    if (me == root && !same_size(count, recv_count, "reduce"))
        return -1;
    return check(h, h->reduce(send, recv, (int)count, dtype, (int)op, (int)root), "reduce");
}

int32_t rt_mpi_bcast(void *buf, int64_t count, int32_t dtype, int64_t root)
{
    const RtMpiHooks *h = get("bcast");
    if (!h || !fits(count, "bcast") || !dtype_ok(dtype, "bcast") || !rank_ok(h, root, 0, "root", "bcast"))
        return -1;
    return check(h, h->bcast(buf, (int)count, dtype, (int)root), "bcast");
}

/* the root's buffer of `total` elements must hold count per rank */
static int sizes_ok(const RtMpiHooks *h, int64_t count, int64_t total, const char *what, const char *fname)
{
    int size = 0;
    if (check(h, h->size(&size), fname) < 0)
        return 0;
    if (total == count * size)
        return 1;
    char msg[240];
    snprintf(msg, sizeof msg, "hpcjit.mpi.%s: the %s buffer has %lld elements, %d ranks x %lld expected", fname,
             what, (long long)total, size, (long long)count);
    rt_raise("ValueError", msg);
    return 0;
}

int32_t rt_mpi_gather(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype,
                      int64_t root)
{
    const RtMpiHooks *h = get("gather");
    int me = 0;
    if (!h || !fits(count, "gather") || !dtype_ok(dtype, "gather") || !rank_ok(h, root, 0, "root", "gather") ||
        check(h, h->rank(&me), "gather") < 0)
        return -1;
    if (me == root && !sizes_ok(h, count, recv_count, "receive", "gather"))
        return -1;
    return check(h, h->gather(send, recv, (int)count, dtype, (int)root), "gather");
}

int32_t rt_mpi_allgather(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype)
{
    const RtMpiHooks *h = get("allgather");
    if (!h || !fits(count, "allgather") || !dtype_ok(dtype, "allgather") ||
        !sizes_ok(h, count, recv_count, "receive", "allgather"))
        return -1;
    return check(h, h->allgather(send, recv, (int)count, dtype), "allgather");
}

int32_t rt_mpi_scatter(const void *send, void *recv, int64_t send_count, int64_t count, int32_t dtype,
                       int64_t root)
{
    const RtMpiHooks *h = get("scatter");
    int me = 0;
    if (!h || !fits(count, "scatter") || !dtype_ok(dtype, "scatter") || !rank_ok(h, root, 0, "root", "scatter") ||
        check(h, h->rank(&me), "scatter") < 0)
        return -1;
    if (me == root && !sizes_ok(h, count, send_count, "send", "scatter"))
        return -1;
    return check(h, h->scatter(send, recv, (int)count, dtype, (int)root), "scatter");
}

int32_t rt_mpi_send(const void *buf, int64_t count, int32_t dtype, int64_t dest, int64_t tag)
{
    const RtMpiHooks *h = get("send");
    if (!h || !fits(count, "send") || !dtype_ok(dtype, "send") || !rank_ok(h, dest, 0, "dest", "send"))
        return -1;
    if (tag < 0 || tag > INT_MAX) {
        rt_raise("ValueError", "hpcjit.mpi.send: the tag must be >= 0");
        return -1;
    }
    return check(h, h->send(buf, (int)count, dtype, (int)dest, (int)tag), "send");
}

int32_t rt_mpi_recv(void *buf, int64_t count, int32_t dtype, int64_t source, int64_t tag)
{
    const RtMpiHooks *h = get("recv");
    if (!h || !fits(count, "recv") || !dtype_ok(dtype, "recv") || !rank_ok(h, source, 1, "source", "recv"))
        return -1;
    if (tag < RT_MPI_ANY || tag > INT_MAX) {
        rt_raise("ValueError", "hpcjit.mpi.recv: the tag must be >= 0 or ANY_TAG");
        return -1;
    }
    int got = -1;
    if (check(h, h->recv(buf, (int)count, dtype, (int)source, (int)tag, &got), "recv") < 0)
        return -1;
    if (got != count) {
        char msg[200];
        snprintf(msg, sizeof msg, "hpcjit.mpi.recv: the message has %d elements, the buffer %lld", got,
                 (long long)count);
        rt_raise("ValueError", msg);
        return -1;
    }
    return 0;
}

int32_t rt_mpi_block(int64_t len, int64_t *lo, int64_t *hi)
{
    const RtMpiHooks *h = get("prange");
    int me = 0, size = 1;
    if (!h || check(h, h->rank(&me), "prange") < 0 || check(h, h->size(&size), "prange") < 0)
        return -1;
    if (len < 0)
        len = 0;
    int64_t q = len / size, r = len % size;
    *lo = me * q + (me < r ? me : r);
    *hi = *lo + q + (me < r ? 1 : 0);
    return 0;
}
