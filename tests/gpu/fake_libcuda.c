/* fake_libcuda.c - a stand-in for libcuda.so.1 for tests without a GPU.
 *
 * Loaded through HPCJIT_CUDA_DRIVER, it answers every entry point
 * runtime/cudrv.c resolves: one device ("hpcjit fake GPU", sm_90), device
 * memory in host memory (so copies really copy), streams and events that
 * complete at once, modules whose functions are the .entry names of the
 * PTX text (with their .param sizes), and launches that record the
 * parameter bytes they were given (fakecuda_last_launch) instead of
 * running anything.  FAKECUDA_NO_DEVICE=1 makes cuInit fail with
 * CUDA_ERROR_NO_DEVICE.  Device memory is mmap'ed, so that IPC can share
 * it: cuIpcGetMemHandle moves the allocation's pages into a memfd mapped at
 * the same address and puts (pid, fd) in the handle; cuIpcOpenMemHandle in
 * another process maps /proc/<pid>/fd/<fd>: both see the same bytes, as
 * with a GPU.  Not thread-safe beyond what the tests need.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
#define API __attribute__((visibility("default")))

enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NO_DEVICE = 100, INVALID_DEVICE = 101,
       INVALID_PTX = 218, NOT_FOUND = 500, INVALID_HANDLE = 400, INVALID_CONTEXT = 201 };

#define MAX_PARAMS 512
typedef struct Func {
    char name[256];
    int nparams;
    int size[MAX_PARAMS];
} Func;
typedef struct Module {
    Func *funcs;
    int nfuncs;
    void *error_global; /* __hpcjit_error, 56 bytes, when the PTX names it */
} Module;

static long live_allocs;
static long total_allocs, total_frees;
static _Thread_local void *current_ctx;
static int ctx_token;

/* The last launch: what the tests read back. */
static struct {
    char name[256];
    unsigned grid[3], block[3], shmem;
    uintptr_t stream;
    int cooperative;
    int nparams;
    int size[MAX_PARAMS];
    unsigned char bytes[MAX_PARAMS][8];
    long count;
} last;

API CUresult cuGetErrorName(CUresult rc, const char **s)
{
    switch (rc) {
    case OK: *s = "CUDA_SUCCESS"; return OK;
    case INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return OK;
    case OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return OK;
    case NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return OK;
    case INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; return OK;
    case INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; return OK;
    case NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; return OK;
    case INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; return OK;
    case INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; return OK;
    default: *s = NULL; return INVALID_VALUE;
    }
}

API CUresult cuGetErrorString(CUresult rc, const char **s)
{
    switch (rc) {
    case INVALID_PTX: *s = "a PTX JIT compilation failed"; return OK;
    case NO_DEVICE: *s = "no CUDA-capable device is detected"; return OK;
    case NOT_FOUND: *s = "named symbol not found"; return OK;
    case INVALID_VALUE: *s = "invalid argument"; return OK;
    default: *s = "fake error"; return OK;
    }
}

API CUresult cuInit(unsigned flags)
{
    const char *e = getenv("FAKECUDA_NO_DEVICE");
    return (e && *e == '1') ? NO_DEVICE : OK;
}
API CUresult cuDriverGetVersion(int *v) { *v = 13000; return OK; }
API CUresult cuDeviceGetCount(int *n) { *n = 1; return OK; }
API CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return ordinal == 0 ? OK : INVALID_DEVICE; }
API CUresult cuDeviceGetName(char *buf, int len, int dev)
{
    snprintf(buf, (size_t)len, "hpcjit fake GPU");
    return OK;
}
API CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
    switch (attr) {
    case 1: *v = 1024; break;       /* max threads per block */
    case 10: *v = 32; break;        /* warp size */
    case 16: *v = 4; break;         /* SMs */
    case 75: *v = 9; break;         /* cc major */
    case 76: *v = 0; break;         /* cc minor */
    case 95: *v = 1; break;         /* cooperative launch */
    default: *v = 0; break;
    }
    return OK;
}
API CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev) { *bytes = (size_t)1 << 30; return OK; }
API CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) { *ctx = &ctx_token; return OK; }
API CUresult cuDevicePrimaryCtxRelease_v2(int dev) { return OK; }
API CUresult cuCtxSetCurrent(void *ctx) { current_ctx = ctx; return OK; }
API CUresult cuCtxGetCurrent(void **ctx) { *ctx = current_ctx; return OK; }
API CUresult cuCtxSynchronize(void) { return current_ctx ? OK : INVALID_HANDLE; }
API CUresult cuMemGetInfo_v2(size_t *f, size_t *t)
{
    *f = (size_t)1 << 29;
    *t = (size_t)1 << 30;
    return OK;
}

/* Live allocations: base, size (cuMemGetAddressRange), the memfd once shared by IPC. */
#define MAX_ALLOCS 16384
static struct { uint64_t ptr; size_t size; int fd; } allocs[MAX_ALLOCS];

static int find_alloc(uint64_t p)
{
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].ptr && p >= allocs[i].ptr && p < allocs[i].ptr + allocs[i].size)
            return i;
    return -1;
}

static CUresult alloc(uint64_t *p, size_t n)
{
    if (!current_ctx)
        return INVALID_HANDLE;
    if (n > ((size_t)1 << 30))
        return OUT_OF_MEMORY;
    int slot = -1;
    for (int i = 0; i < MAX_ALLOCS && slot < 0; i++)
        if (!allocs[i].ptr)
            slot = i;
    if (slot < 0)
        return OUT_OF_MEMORY;
    void *m = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return OUT_OF_MEMORY;
    allocs[slot].ptr = (uint64_t)(uintptr_t)m;
    allocs[slot].size = n ? n : 1;
    allocs[slot].fd = -1;
    *p = (uint64_t)(uintptr_t)m;
    live_allocs++;
    total_allocs++;
    return OK;
}
API CUresult cuMemAlloc_v2(uint64_t *p, size_t n) { return alloc(p, n); }
API CUresult cuMemAllocManaged(uint64_t *p, size_t n, unsigned flags) { return alloc(p, n); }
API CUresult cuMemFree_v2(uint64_t p)
{
    int i = find_alloc(p);
    if (i < 0 || allocs[i].ptr != p)
        return INVALID_VALUE;
    munmap((void *)(uintptr_t)p, allocs[i].size);
    if (allocs[i].fd >= 0)
        close(allocs[i].fd);
    allocs[i].ptr = 0;
    live_allocs--;
    total_frees++;
    return OK;
}
API CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
    *p = calloc(1, n ? n : 1);
    return *p ? OK : OUT_OF_MEMORY;
}
API CUresult cuMemFreeHost(void *p) { free(p); return OK; }
API CUresult cuMemHostGetDevicePointer_v2(uint64_t *d, void *p, unsigned flags)
{
    *d = (uint64_t)(uintptr_t)p;
    return OK;
}
API CUresult cuMemcpyHtoD_v2(uint64_t d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return OK; }
API CUresult cuMemcpyDtoH_v2(void *d, uint64_t s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return OK; }
API CUresult cuMemcpyDtoD_v2(uint64_t d, uint64_t s, size_t n)
{
    memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
    return OK;
}
API CUresult cuMemcpyHtoDAsync_v2(uint64_t d, const void *s, size_t n, void *st) { return cuMemcpyHtoD_v2(d, s, n); }
API CUresult cuMemcpyDtoHAsync_v2(void *d, uint64_t s, size_t n, void *st) { return cuMemcpyDtoH_v2(d, s, n); }
API CUresult cuMemcpyDtoDAsync_v2(uint64_t d, uint64_t s, size_t n, void *st) { return cuMemcpyDtoD_v2(d, s, n); }
API CUresult cuMemGetAddressRange_v2(uint64_t *base, size_t *size, uint64_t p)
{
    int i = find_alloc(p);
    if (i < 0)
        return NOT_FOUND;
    *base = allocs[i].ptr;
    *size = allocs[i].size;
    return OK;
}

/* The handle: "hjfakeipc", then pid and fd (int32 each) and the size. */
typedef struct { char reserved[64]; } FakeIpcHandle;
static const char ipc_magic[] = "hjfakeipc";
static long ipc_opens, ipc_closes;

API CUresult cuIpcGetMemHandle(FakeIpcHandle *h, uint64_t p)
{
    int i = find_alloc(p);
    if (i < 0 || allocs[i].ptr != p)
        return INVALID_VALUE; /* as CUDA: the base of an allocation */
    if (allocs[i].fd < 0) { /* move the pages into a memfd mapped at the same address */
        int fd = memfd_create("fakecuda-ipc", 0);
        if (fd < 0 || ftruncate(fd, (off_t)allocs[i].size) != 0)
            return OUT_OF_MEMORY;
        void *tmp = mmap(NULL, allocs[i].size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (tmp == MAP_FAILED)
            return OUT_OF_MEMORY;
        memcpy(tmp, (void *)(uintptr_t)p, allocs[i].size);
        munmap(tmp, allocs[i].size);
        if (mmap((void *)(uintptr_t)p, allocs[i].size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED)
            return OUT_OF_MEMORY;
        allocs[i].fd = fd;
    }
    memset(h, 0, sizeof *h);
    int32_t pid = (int32_t)getpid(), fd32 = allocs[i].fd;
    uint64_t size = allocs[i].size;
    memcpy(h->reserved, ipc_magic, sizeof ipc_magic);
    memcpy(h->reserved + 16, &pid, 4);
    memcpy(h->reserved + 20, &fd32, 4);
    memcpy(h->reserved + 24, &size, 8);
    return OK;
}

API CUresult cuIpcOpenMemHandle_v2(uint64_t *p, FakeIpcHandle h, unsigned flags)
{
    int32_t pid, fd;
    uint64_t size;
    char path[64];
    (void)flags;
    if (!current_ctx)
        return INVALID_HANDLE;
    if (memcmp(h.reserved, ipc_magic, sizeof ipc_magic) != 0)
        return INVALID_VALUE;
    memcpy(&pid, h.reserved + 16, 4);
    memcpy(&fd, h.reserved + 20, 4);
    memcpy(&size, h.reserved + 24, 8);
    if (pid == (int32_t)getpid())
        return INVALID_CONTEXT; /* as CUDA: not in the exporting process */
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)fd);
    int f = open(path, O_RDWR);
    if (f < 0)
        return INVALID_VALUE;
    void *m = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    close(f);
    if (m == MAP_FAILED)
        return OUT_OF_MEMORY;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (!allocs[i].ptr) {
            allocs[i].ptr = (uint64_t)(uintptr_t)m;
            allocs[i].size = (size_t)size;
            allocs[i].fd = -2; /* mapped from another process: cuIpcCloseMemHandle unmaps */
            break;
        }
    *p = (uint64_t)(uintptr_t)m;
    ipc_opens++;
    return OK;
}

API CUresult cuIpcCloseMemHandle(uint64_t p)
{
    int i = find_alloc(p);
    if (i < 0 || allocs[i].ptr != p || allocs[i].fd != -2)
        return INVALID_VALUE;
    munmap((void *)(uintptr_t)p, allocs[i].size);
    allocs[i].ptr = 0;
    ipc_closes++;
    return OK;
}

API long fakecuda_ipc_count(int closes) { return closes ? ipc_closes : ipc_opens; }

API CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return OK; }
API CUresult cuMemsetD8Async(uint64_t d, unsigned char v, size_t n, void *s) { return cuMemsetD8_v2(d, v, n); }

API CUresult cuStreamCreate(void **s, unsigned flags)
{
    *s = malloc(16);
    return OK;
}
API CUresult cuStreamDestroy_v2(void *s) { free(s); return OK; }
API CUresult cuStreamSynchronize(void *s) { return OK; }
API CUresult cuStreamQuery(void *s) { return OK; }
API CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { return OK; }

typedef struct Event { double t; int timing; } Event;
API CUresult cuEventCreate(void **e, unsigned flags)
{
    Event *ev = calloc(1, sizeof *ev);
    ev->timing = !(flags & 2);
    *e = ev;
    return OK;
}
API CUresult cuEventDestroy_v2(void *e) { free(e); return OK; }
API CUresult cuEventRecord(void *e, void *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ((Event *)e)->t = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
    return OK;
}
API CUresult cuEventSynchronize(void *e) { return OK; }
API CUresult cuEventQuery(void *e) { return OK; }
API CUresult cuEventElapsedTime_v2(float *ms, void *a, void *b)
{
    if (!((Event *)a)->timing || !((Event *)b)->timing)
        return INVALID_HANDLE;
    *ms = (float)(((Event *)b)->t - ((Event *)a)->t);
    return OK;
}

static int param_size(const char *ty)
{
    if (!strncmp(ty, "align ", 6)) { /* ".param .align 2 .b8 name[2]": a byte array (float16) */
        const char *b = strchr(ty, '.'), *lb = b ? strchr(b, '[') : NULL, *nl = b ? strchr(b, '\n') : NULL;
        if (lb && (!nl || lb < nl))
            return atoi(lb + 1);
        return b ? param_size(b + 1) : 8;
    }
    if (!strncmp(ty, "u8", 2) || !strncmp(ty, "s8", 2) || !strncmp(ty, "b8", 2))
        return 1;
    if (!strncmp(ty, "u16", 3) || !strncmp(ty, "s16", 3) || !strncmp(ty, "b16", 3) || !strncmp(ty, "f16", 3))
        return 2;
    if (!strncmp(ty, "u32", 3) || !strncmp(ty, "s32", 3) || !strncmp(ty, "b32", 3) || !strncmp(ty, "f32", 3))
        return 4;
    return 8;
}

/* The .entry names and their .param sizes; "INVALID" anywhere fails. */
API CUresult cuModuleLoadDataEx(void **out, const void *image, unsigned n, int *opts, void **vals)
{
    const char *ptx = image;
    if (strstr(ptx, "INVALID")) {
        for (unsigned i = 0; i < n; i++)
            if (opts[i] == 5) /* CU_JIT_ERROR_LOG_BUFFER */
                snprintf(vals[i], 256, "ptxas fatal   : fake parse error near 'INVALID'");
        return INVALID_PTX;
    }
    Module *m = calloc(1, sizeof *m);
    const char *p = ptx;
    while ((p = strstr(p, ".entry "))) {
        Func *f;
        p += 7;
        m->funcs = realloc(m->funcs, (size_t)(m->nfuncs + 1) * sizeof *m->funcs);
        f = &m->funcs[m->nfuncs++];
        memset(f, 0, sizeof *f);
        size_t k = 0;
        while (*p == ' ')
            p++;
        while (*p && *p != '(' && *p != ' ' && *p != '\n' && k < sizeof f->name - 1)
            f->name[k++] = *p++;
        const char *end = strchr(p, ')');
        const char *q = p;
        while (end && (q = strstr(q, ".param .")) && q < end && f->nparams < MAX_PARAMS) {
            q += 8;
            f->size[f->nparams++] = param_size(q);
        }
    }
    if (strstr(ptx, "__hpcjit_error"))
        m->error_global = calloc(1, 56);
    *out = m;
    return OK;
}
API CUresult cuModuleUnload(void *mod)
{
    Module *m = mod;
    free(m->funcs);
    free(m->error_global);
    free(m);
    return OK;
}
API CUresult cuModuleGetFunction(void **f, void *mod, const char *name)
{
    Module *m = mod;
    for (int i = 0; i < m->nfuncs; i++)
        if (!strcmp(m->funcs[i].name, name)) {
            *f = &m->funcs[i];
            return OK;
        }
    return NOT_FOUND;
}
API CUresult cuModuleGetGlobal_v2(uint64_t *p, size_t *n, void *mod, const char *name)
{
    Module *m = mod;
    if (strcmp(name, "__hpcjit_error") || !m->error_global)
        return NOT_FOUND;
    *p = (uint64_t)(uintptr_t)m->error_global;
    *n = 56;
    return OK;
}
API CUresult cuFuncGetAttribute(int *v, int attr, void *f) { *v = attr == 0 ? 1024 : 0; return OK; }
API CUresult cuFuncSetAttribute(void *f, int attr, int v) { return OK; }
API CUresult cuOccupancyMaxPotentialBlockSize(int *mg, int *bs, void *f, size_t (*cb)(int), size_t sh, int lim)
{
    *mg = 8;
    *bs = lim && lim < 256 ? lim : 256;
    return OK;
}
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t sh)
{
    *n = block > 0 ? 2048 / block : 0; /* 2048 threads per multiprocessor */
    return OK;
}

static CUresult launch(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned sh, void *s, void **params, int coop)
{
    Func *f = fn;
    if (!current_ctx)
        return INVALID_HANDLE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || bx * by * bz > 1024)
        return INVALID_VALUE;
    snprintf(last.name, sizeof last.name, "%s", f->name);
    last.grid[0] = gx, last.grid[1] = gy, last.grid[2] = gz;
    last.block[0] = bx, last.block[1] = by, last.block[2] = bz;
    last.shmem = sh;
    last.stream = (uintptr_t)s;
    last.cooperative = coop;
    last.nparams = f->nparams;
    for (int i = 0; i < f->nparams; i++) {
        last.size[i] = f->size[i];
        memset(last.bytes[i], 0, 8);
        memcpy(last.bytes[i], params[i], (size_t)f->size[i]);
    }
    last.count++;
    return OK;
}
API CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned sh, void *s, void **params, void **extra)
{
    return launch(f, gx, gy, gz, bx, by, bz, sh, s, params, 0);
}
API CUresult cuLaunchCooperativeKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                       unsigned by, unsigned bz, unsigned sh, void *s, void **params)
{
    return launch(f, gx, gy, gz, bx, by, bz, sh, s, params, 1);
}

/* ---- for the tests (ctypes) ---- */
API long fakecuda_live_allocs(void) { return live_allocs; }
API long fakecuda_total_frees(void) { return total_frees; }
API long fakecuda_launch_count(void) { return last.count; }
/* "name grid block shmem stream coop nparams" then one hex string per parameter */
API int fakecuda_last_launch(char *buf, int cap)
{
    int n = snprintf(buf, (size_t)cap, "%s %u,%u,%u %u,%u,%u %u %lu %d %d", last.name, last.grid[0],
                     last.grid[1], last.grid[2], last.block[0], last.block[1], last.block[2], last.shmem,
                     (unsigned long)last.stream, last.cooperative, last.nparams);
    for (int i = 0; i < last.nparams && n < cap - 20; i++) {
        n += snprintf(buf + n, (size_t)(cap - n), " ");
        for (int j = 0; j < last.size[i]; j++)
            n += snprintf(buf + n, (size_t)(cap - n), "%02x", last.bytes[i][j]);
    }
    return n;
}
/* Write a fake error record into a module's __hpcjit_error (debug tests). */
API void fakecuda_set_error(uint64_t ptr, const void *rec, int n) { memcpy((void *)(uintptr_t)ptr, rec, (size_t)n); }
