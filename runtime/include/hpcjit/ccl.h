/* hpcjit/ccl.h - NCCL collectives on device memory (runtime/ccl.c).
 *
 * libnccl.so.2 is dlopened at the first call (HPCJIT_NCCL_LIBRARY overrides
 * the name), like libcuda in cudrv.h: nothing links NCCL.  The
 * communicator is bootstrapped by the caller (hpcjit.mpi): rank 0 makes a
 * unique id (ccl_unique_id), MPI broadcasts its bytes, every rank calls
 * ccl_comm_init.  Functions return 0 or -1 with ccl_last_error() set
 * ("ncclAllReduce(): unhandled cuda error ..."); -2 when NCCL is missing.
 * Thread safety: as NCCL's (one communicator per thread at a time); the
 * error message is per thread.
 */
#ifndef HPCJIT_CCL_H
#define HPCJIT_CCL_H

#include <stddef.h>
#include <stdint.h>

#define CCL_ID_BYTES 128 /* sizeof(ncclUniqueId) */

/* Reduction ops and data types (NCCL's values). */
enum { CCL_SUM = 0, CCL_PROD = 1, CCL_MAX = 2, CCL_MIN = 3 };
enum { CCL_INT8 = 0, CCL_UINT8 = 1, CCL_INT32 = 2, CCL_UINT32 = 3, CCL_INT64 = 4, CCL_UINT64 = 5,
       CCL_FLOAT16 = 6, CCL_FLOAT32 = 7, CCL_FLOAT64 = 8 };

const char *ccl_last_error(void);
int ccl_init(void);
int ccl_version(int *version);
int ccl_unique_id(unsigned char id[CCL_ID_BYTES]);
int ccl_comm_init(void **comm, int nranks, const unsigned char id[CCL_ID_BYTES], int rank);
int ccl_comm_destroy(void *comm);
/* ncclCommAbort: for a failing rank, before MPI_Abort. */
int ccl_comm_abort(void *comm);
int ccl_allreduce(const void *send, void *recv, size_t count, int dtype, int op, void *comm,
                  void *stream);
int ccl_reduce(const void *send, void *recv, size_t count, int dtype, int op, int root, void *comm,
               void *stream);
int ccl_bcast(const void *send, void *recv, size_t count, int dtype, int root, void *comm,
              void *stream);
int ccl_allgather(const void *send, void *recv, size_t sendcount, int dtype, void *comm,
                  void *stream);
int ccl_reduce_scatter(const void *send, void *recv, size_t recvcount, int dtype, int op,
                       void *comm, void *stream);

#endif
