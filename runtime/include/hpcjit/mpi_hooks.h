/* hpcjit/mpi_hooks.h - MPI for compiled code without linking MPI.
 *
 * The runtime (hpcjit._core) must load without libmpi, so compiled code
 * calls the rt_mpi_* functions below, which go through a table of function
 * pointers that hpcjit._mpi (the extension that links libmpi) installs when
 * MPI starts (hpcjit.mpi.init() hands a PyCapsule of the table to
 * hpcjit._core._set_mpi_hooks).  With no table installed every rt_mpi_*
 * call raises RuntimeError.  The communicator is MPI_COMM_WORLD, looked up
 * at run time, so compiled code holds no MPI handle and stays cacheable.
 *
 * rt_mpi_rank/size/local_rank return the number or -1 with an exception
 * pending; the others return 0 or -1 with an exception pending (RuntimeError
 * for MPI errors, ValueError/TypeError/OverflowError for bad arguments, the
 * types hpcjit.mpi raises from Python).  No function here touches Python. */
#ifndef HPCJIT_MPI_HOOKS_H
#define HPCJIT_MPI_HOOKS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types (the compiler passes these codes; _mpi maps them to MPI). */
enum {
    RT_MPI_BOOL, RT_MPI_INT8, RT_MPI_INT16, RT_MPI_INT32, RT_MPI_INT64,
    RT_MPI_UINT8, RT_MPI_UINT16, RT_MPI_UINT32, RT_MPI_UINT64,
    RT_MPI_FLOAT32, RT_MPI_FLOAT64, RT_MPI_COMPLEX64, RT_MPI_COMPLEX128,
    RT_MPI_NTYPES
};

/* Reduction ops: the first four are hpcjit.mpi.SUM/PROD/MIN/MAX; the
 * bitwise ones (logical on bool) combine |=, &=, ^= reductions of
 * hpcjit.mpi.prange loops. */
enum { RT_MPI_SUM, RT_MPI_PROD, RT_MPI_MIN, RT_MPI_MAX, RT_MPI_BOR, RT_MPI_BAND, RT_MPI_BXOR, RT_MPI_NOPS };

#define RT_MPI_ANY (-1) /* ANY_SOURCE / ANY_TAG */
#define RT_MPI_HOOKS_VERSION 1

/* Installed by hpcjit._mpi.  Every function returns an MPI error code
 * (0 = MPI_SUCCESS); counts are already checked to fit an int, types and
 * ops to be in range. */
typedef struct RtMpiHooks {
    int version; /* RT_MPI_HOOKS_VERSION */
    int (*rank)(int *out);
    int (*size)(int *out);
    int (*local_rank)(int *out);
    int (*barrier)(void);
    /* send == recv: in place */
    int (*allreduce)(const void *send, void *recv, int count, int dtype, int op);
    int (*reduce)(const void *send, void *recv, int count, int dtype, int op, int root);
    int (*bcast)(void *buf, int count, int dtype, int root);
    int (*gather)(const void *send, void *recv, int count, int dtype, int root);
    int (*allgather)(const void *send, void *recv, int count, int dtype);
    int (*scatter)(const void *send, void *recv, int count, int dtype, int root);
    int (*send)(const void *buf, int count, int dtype, int dest, int tag);
    /* *got: the number of elements received */
    int (*recv)(void *buf, int count, int dtype, int source, int tag, int *got);
    /* MPI_Error_string into buf (cap bytes, NUL-terminated) */
    void (*error_string)(int code, char *buf, int cap);
} RtMpiHooks;

/* Install (or, with NULL, remove) the table.  -1 on a version mismatch. */
int rt_mpi_set_hooks(const RtMpiHooks *hooks);
int rt_mpi_has_hooks(void);

int64_t rt_mpi_rank(void);
int64_t rt_mpi_size(void);
int64_t rt_mpi_local_rank(void);
int32_t rt_mpi_barrier(void);
/* count: elements of send; recv_count: of recv (ValueError when they differ) */
int32_t rt_mpi_allreduce(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype,
                         int64_t op);
/* recv is only used (and its count checked) on the root */
int32_t rt_mpi_reduce(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype, int64_t op,
                      int64_t root);
int32_t rt_mpi_bcast(void *buf, int64_t count, int32_t dtype, int64_t root);
/* recv_count (the root's recv elements) must be count * size on the root */
int32_t rt_mpi_gather(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype,
                      int64_t root);
int32_t rt_mpi_allgather(const void *send, void *recv, int64_t count, int64_t recv_count, int32_t dtype);
/* send_count must be count * size on the root */
int32_t rt_mpi_scatter(const void *send, void *recv, int64_t send_count, int64_t count, int32_t dtype,
                       int64_t root);
int32_t rt_mpi_send(const void *buf, int64_t count, int32_t dtype, int64_t dest, int64_t tag);
/* ValueError when the message's size differs from count */
int32_t rt_mpi_recv(void *buf, int64_t count, int32_t dtype, int64_t source, int64_t tag);
/* The block [*lo, *hi) of positions 0..len this rank runs in an
 * hpcjit.mpi.prange loop: contiguous, in rank order, sizes differing by
 * at most one.  0 or -1. */
int32_t rt_mpi_block(int64_t len, int64_t *lo, int64_t *hi);

#ifdef __cplusplus
}
#endif
#endif
