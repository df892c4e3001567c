/* ccl.c - NCCL, dlopened at first use (hpcjit/ccl.h). */
#include "hpcjit/ccl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int NcclResult;
typedef struct NcclId {
    unsigned char internal[CCL_ID_BYTES];
} NcclId;

/* X-macro of the entry points: (field, name, parameter list). */
#define CCL_ENTRY_POINTS(X)                                                                        \
    X(GetErrorString, "ncclGetErrorString", const char *, (NcclResult))                            \
    X(GetVersion, "ncclGetVersion", NcclResult, (int *))                                           \
    X(GetUniqueId, "ncclGetUniqueId", NcclResult, (NcclId *))                                      \
    X(CommInitRank, "ncclCommInitRank", NcclResult, (void **, int, NcclId, int))                   \
    X(CommDestroy, "ncclCommDestroy", NcclResult, (void *))                                        \
    X(CommAbort, "ncclCommAbort", NcclResult, (void *))                                            \
    X(AllReduce, "ncclAllReduce", NcclResult,                                                      \
      (const void *, void *, size_t, int, int, void *, void *))                                    \
    X(Reduce, "ncclReduce", NcclResult,                                                            \
      (const void *, void *, size_t, int, int, int, void *, void *))                               \
    X(Broadcast, "ncclBroadcast", NcclResult, (const void *, void *, size_t, int, int, void *, void *)) \
    X(AllGather, "ncclAllGather", NcclResult, (const void *, void *, size_t, int, void *, void *)) \
    X(ReduceScatter, "ncclReduceScatter", NcclResult,                                              \
      (const void *, void *, size_t, int, int, void *, void *))

#define FIELD(field, name, ret, params) ret(*field) params;
static struct {
    CCL_ENTRY_POINTS(FIELD)
} nccl;
#undef FIELD

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int state; /* 0 not tried, 1 loaded, -1 missing */
static char init_message[768];
static _Thread_local char last_error[1024];

const char *ccl_last_error(void) { return last_error; }

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return -1;
}

/* The one translator of ncclResult_t. */
static int check(NcclResult rc, const char *call)
{
    if (rc == 0)
        return 0;
    const char *s = nccl.GetErrorString ? nccl.GetErrorString(rc) : NULL;
    return fail("%s(): NCCL error %d (%s)", call, rc, s ? s : "unknown");
}

static int load(void)
{
    const char *path = getenv("HPCJIT_NCCL_LIBRARY");
    void *h;
    if (!path || !*path)
        path = "libnccl.so.2";
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(init_message, sizeof init_message,
                 "NCCL cannot be loaded: dlopen(\"%.200s\"): %.400s (HPCJIT_NCCL_LIBRARY names "
                 "another path)", path, why ? why : "unknown error");
        return -1;
    }
#define RESOLVE(field, name, ret, params)                                                          \
    *(void **)&nccl.field = dlsym(h, name);                                                        \
    if (!nccl.field) {                                                                             \
        snprintf(init_message, sizeof init_message, "%.200s lacks %s (NCCL too old)", path, name); \
        memset(&nccl, 0, sizeof nccl);                                                             \
        dlclose(h);                                                                                \
        return -1;                                                                                 \
    }
    CCL_ENTRY_POINTS(RESOLVE)
#undef RESOLVE
    return 1;
}

int ccl_init(void)
{
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (!s) {
        pthread_mutex_lock(&lock);
        if (!state)
            __atomic_store_n(&state, load(), __ATOMIC_RELEASE);
        s = state;
        pthread_mutex_unlock(&lock);
    }
    if (s < 0) {
        snprintf(last_error, sizeof last_error, "%s", init_message);
        return -2;
    }
    return 0;
}

#define READY()                                                                                    \
    do {                                                                                           \
        int rc_ = ccl_init();                                                                      \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

int ccl_version(int *version)
{
    READY();
    return check(nccl.GetVersion(version), "ncclGetVersion");
}

int ccl_unique_id(unsigned char id[CCL_ID_BYTES])
{
    NcclId u;
    READY();
    if (check(nccl.GetUniqueId(&u), "ncclGetUniqueId"))
        return -1;
    memcpy(id, u.internal, CCL_ID_BYTES);
    return 0;
}

int ccl_comm_init(void **comm, int nranks, const unsigned char id[CCL_ID_BYTES], int rank)
{
    NcclId u;
    READY();
    memcpy(u.internal, id, CCL_ID_BYTES);
    return check(nccl.CommInitRank(comm, nranks, u, rank), "ncclCommInitRank");
}

int ccl_comm_destroy(void *comm)
{
    READY();
    return check(nccl.CommDestroy(comm), "ncclCommDestroy");
}

int ccl_comm_abort(void *comm)
{
    READY();
    return check(nccl.CommAbort(comm), "ncclCommAbort");
}

int ccl_allreduce(const void *send, void *recv, size_t count, int dtype, int op, void *comm,
                  void *stream)
{
    READY();
    return check(nccl.AllReduce(send, recv, count, dtype, op, comm, stream), "ncclAllReduce");
}

int ccl_reduce(const void *send, void *recv, size_t count, int dtype, int op, int root, void *comm,
               void *stream)
{
    READY();
    return check(nccl.Reduce(send, recv, count, dtype, op, root, comm, stream), "ncclReduce");
}

int ccl_bcast(const void *send, void *recv, size_t count, int dtype, int root, void *comm,
              void *stream)
{
    READY();
    return check(nccl.Broadcast(send, recv, count, dtype, root, comm, stream), "ncclBroadcast");
}

int ccl_allgather(const void *send, void *recv, size_t sendcount, int dtype, void *comm,
                  void *stream)
{
    READY();
    return check(nccl.AllGather(send, recv, sendcount, dtype, comm, stream), "ncclAllGather");
}

int ccl_reduce_scatter(const void *send, void *recv, size_t recvcount, int dtype, int op,
                       void *comm, void *stream)
{
    READY();
    return check(nccl.ReduceScatter(send, recv, recvcount, dtype, op, comm, stream),
                 "ncclReduceScatter");
}
