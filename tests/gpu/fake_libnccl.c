/* fake_libnccl.c - a one-rank stand-in for libnccl.so.2 (tests without a
 * GPU, with tests/gpu/fake_libcuda.c, whose device memory is host memory).
 * Every collective over one rank is a copy; more than one rank is refused. */
#include <stdint.h>
#include <string.h>

#define API __attribute__((visibility("default")))
typedef struct { unsigned char internal[128]; } Id;

static int comms;
static long calls[5];

static size_t dsize(int t)
{
    switch (t) {
    case 0: case 1: return 1;
    case 6: case 9: return 2;
    case 2: case 3: case 7: return 4;
    default: return 8;
    }
}

API const char *ncclGetErrorString(int rc) { return rc == 4 ? "invalid argument" : "fake NCCL error"; }
API int ncclGetVersion(int *v) { *v = 22800; return 0; }
API int ncclGetUniqueId(Id *id) { memset(id->internal, 0x5a, sizeof id->internal); return 0; }
API int ncclCommInitRank(void **comm, int n, Id id, int rank)
{
    if (n != 1 || rank != 0 || id.internal[0] != 0x5a)
        return 4;
    *comm = &comms;
    comms++;
    return 0;
}
API int ncclCommDestroy(void *c) { comms--; return 0; }
API int ncclCommAbort(void *c) { comms--; return 0; }
API int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *c, void *st)
{
    calls[0]++;
    memmove(r, s, n * dsize(t));
    return 0;
}
API int ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, void *c, void *st)
{
    calls[1]++;
    if (root != 0)
        return 4;
    memmove(r, s, n * dsize(t));
    return 0;
}
API int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, void *c, void *st)
{
    calls[2]++;
    memmove(r, s, n * dsize(t));
    return root == 0 ? 0 : 4;
}
API int ncclAllGather(const void *s, void *r, size_t n, int t, void *c, void *st)
{
    calls[3]++;
    memmove(r, s, n * dsize(t));
    return 0;
}
API int ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, void *c, void *st)
{
    calls[4]++;
    memmove(r, s, n * dsize(t));
    return 0;
}
API long fakenccl_calls(int kind) { return calls[kind]; }
API int fakenccl_comms(void) { return comms; }
