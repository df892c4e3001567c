/* cudrv.c - the CUDA Driver API, dlopened at first use (hpcjit/cudrv.h).
 *
 * The driver's entry points are resolved by name with dlsym, versioned
 * names first (cuMemAlloc_v2...), as cuda.h's macros would pick them.  One
 * translator (check()) turns a CUresult into the thread's error message.
 */
#include "hpcjit/cudrv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The driver's types, declared here rather than taken from cuda.h. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_READY = 600,
};
enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_LOG_VERBOSE = 12,
};
enum { CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8 };
enum { CU_MEM_ATTACH_GLOBAL = 1 };
enum { CU_EVENT_DISABLE_TIMING = 2 };
enum { CU_STREAM_NON_BLOCKING = 1 };

/* X-macro of the entry points: (field, first name tried, fallback name or
 * NULL, parameter list).  Every one returns CUresult. */
#define CUDRV_ENTRY_POINTS(X)                                                                      \
    X(GetErrorName, "cuGetErrorName", NULL, (CUresult, const char **))                             \
    X(GetErrorString, "cuGetErrorString", NULL, (CUresult, const char **))                         \
    X(Init, "cuInit", NULL, (unsigned))                                                            \
    X(DriverGetVersion, "cuDriverGetVersion", NULL, (int *))                                       \
    X(DeviceGetCount, "cuDeviceGetCount", NULL, (int *))                                           \
    X(DeviceGet, "cuDeviceGet", NULL, (CUdevice *, int))                                           \
    X(DeviceGetName, "cuDeviceGetName", NULL, (char *, int, CUdevice))                             \
    X(DeviceGetAttribute, "cuDeviceGetAttribute", NULL, (int *, int, CUdevice))                    \
    X(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL, (size_t *, CUdevice))                           \
    X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, (CUcontext *, CUdevice))                 \
    X(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", (CUdevice))  \
    X(CtxSetCurrent, "cuCtxSetCurrent", NULL, (CUcontext))                                         \
    X(CtxGetCurrent, "cuCtxGetCurrent", NULL, (CUcontext *))                                       \
    X(CtxSynchronize, "cuCtxSynchronize", NULL, (void))                                            \
    X(MemGetInfo, "cuMemGetInfo_v2", NULL, (size_t *, size_t *))                                   \
    X(MemAlloc, "cuMemAlloc_v2", NULL, (CudrvPtr *, size_t))                                       \
    X(MemFree, "cuMemFree_v2", NULL, (CudrvPtr))                                                   \
    X(MemAllocManaged, "cuMemAllocManaged", NULL, (CudrvPtr *, size_t, unsigned))                  \
    X(MemHostAlloc, "cuMemHostAlloc", NULL, (void **, size_t, unsigned))                           \
    X(MemFreeHost, "cuMemFreeHost", NULL, (void *))                                                \
    X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", NULL, (CudrvPtr *, void *, unsigned)) \
    X(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL, (CudrvPtr, const void *, size_t))                       \
    X(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL, (void *, CudrvPtr, size_t))                             \
    X(MemcpyDtoD, "cuMemcpyDtoD_v2", NULL, (CudrvPtr, CudrvPtr, size_t))                           \
    X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL, (CudrvPtr, const void *, size_t, CudrvStream)) \
    X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL, (void *, CudrvPtr, size_t, CudrvStream))      \
    X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL, (CudrvPtr, CudrvPtr, size_t, CudrvStream))    \
    X(MemsetD8, "cuMemsetD8_v2", NULL, (CudrvPtr, unsigned char, size_t))                          \
    X(MemGetAddressRange, "cuMemGetAddressRange_v2", NULL, (CudrvPtr *, size_t *, CudrvPtr))        \
    X(IpcGetMemHandle, "cuIpcGetMemHandle", NULL, (CudrvIpcHandle *, CudrvPtr))                    \
    X(IpcOpenMemHandle, "cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle", (CudrvPtr *, CudrvIpcHandle, unsigned)) \
    X(IpcCloseMemHandle, "cuIpcCloseMemHandle", NULL, (CudrvPtr))                                  \
    X(MemsetD8Async, "cuMemsetD8Async", NULL, (CudrvPtr, unsigned char, size_t, CudrvStream))      \
    X(StreamCreate, "cuStreamCreate", NULL, (CudrvStream *, unsigned))                             \
    X(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy", (CudrvStream))                       \
    X(StreamSynchronize, "cuStreamSynchronize", NULL, (CudrvStream))                               \
    X(StreamQuery, "cuStreamQuery", NULL, (CudrvStream))                                           \
    X(StreamWaitEvent, "cuStreamWaitEvent", NULL, (CudrvStream, CudrvEvent, unsigned))             \
    X(EventCreate, "cuEventCreate", NULL, (CudrvEvent *, unsigned))                                \
    X(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy", (CudrvEvent))                           \
    X(EventRecord, "cuEventRecord", NULL, (CudrvEvent, CudrvStream))                               \
    X(EventSynchronize, "cuEventSynchronize", NULL, (CudrvEvent))                                  \
    X(EventQuery, "cuEventQuery", NULL, (CudrvEvent))                                              \
    X(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime", (float *, CudrvEvent, CudrvEvent)) \
    X(ModuleLoadDataEx, "cuModuleLoadDataEx", NULL, (CudrvModule *, const void *, unsigned, int *, void **)) \
    X(ModuleUnload, "cuModuleUnload", NULL, (CudrvModule))                                         \
    X(ModuleGetFunction, "cuModuleGetFunction", NULL, (CudrvFunction *, CudrvModule, const char *)) \
    X(ModuleGetGlobal, "cuModuleGetGlobal_v2", NULL, (CudrvPtr *, size_t *, CudrvModule, const char *)) \
    X(FuncGetAttribute, "cuFuncGetAttribute", NULL, (int *, int, CudrvFunction))                   \
    X(FuncSetAttribute, "cuFuncSetAttribute", NULL, (CudrvFunction, int, int))                     \
    X(OccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", NULL,                    \
      (int *, int *, CudrvFunction, size_t (*)(int), size_t, int))                                 \
    X(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL, \
      (int *, CudrvFunction, int, size_t))                                                         \
    X(LaunchKernel, "cuLaunchKernel", NULL,                                                        \
      (CudrvFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,       \
       CudrvStream, void **, void **))                                                             \
    X(LaunchCooperativeKernel, "cuLaunchCooperativeKernel", NULL,                                  \
      (CudrvFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,       \
       CudrvStream, void **))

#define DECLARE_FIELD(field, name, fallback, params) CUresult (*field) params;
static struct {
    CUDRV_ENTRY_POINTS(DECLARE_FIELD)
} drv;
#undef DECLARE_FIELD

#define MAX_DEVICES 64
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define STATE_BIAS 16          /* init_state: 0 not tried, else a CudrvStatus + STATE_BIAS */
static int init_state;
static char init_message[1024];    /* why the first init failed */
static int init_code;
static void *lib_handle;
static char lib_path[512];
static CUcontext primary[MAX_DEVICES];

static _Thread_local char last_error[8192];
static _Thread_local int last_code;
static _Thread_local int tls_device;

/* Deferred frees (Numba's count and memory-share thresholds). */
#define PENDING_MAX_COUNT 10
#define PENDING_MAX_SHARE 0.2
typedef struct Pending {
    CudrvPtr ptr;
    size_t bytes;
    int dev;
} Pending;
#define PENDING_CAP 64 /* threads adding while one flushes */
static Pending pending[PENDING_CAP];
static size_t pending_count, pending_bytes;
static size_t device_mem[MAX_DEVICES];

const char *cudrv_last_error(void) { return last_error; }
int cudrv_last_code(void) { return last_code; }
const char *cudrv_library(void) { return lib_path; }

__attribute__((format(printf, 2, 3))) static CudrvStatus fail(CudrvStatus st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return st;
}

/* The one translator of CUresults: "cuMemAlloc(): CUDA_ERROR_OUT_OF_MEMORY
 * (out of memory)". */
static CudrvStatus check(CUresult rc, const char *call)
{
    const char *name = NULL, *text = NULL;
    if (rc == CUDA_SUCCESS)
        return CUDRV_OK;
    last_code = rc;
    if (!drv.GetErrorName || drv.GetErrorName(rc, &name) != CUDA_SUCCESS || !name)
        name = NULL;
    if (!drv.GetErrorString || drv.GetErrorString(rc, &text) != CUDA_SUCCESS || !text)
        text = rc == CUDA_ERROR_STUB_LIBRARY ? "the CUDA driver is a stub library: no NVIDIA driver "
                                               "is installed"
                                             : "unknown error";
    if (name)
        fail(CUDRV_ERROR, "%s(): %s (%s)", call, name, text);
    else
        fail(CUDRV_ERROR, "%s(): CUDA error %d (%s)", call, rc, text);
    return (rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_INVALID_DEVICE) ? CUDRV_NO_DEVICE
                                                                           : CUDRV_ERROR;
}

#define CHECK(call, args)                                                                          \
    do {                                                                                           \
        CudrvStatus st_ = check(drv.call args, "cu" #call);                                        \
        if (st_ != CUDRV_OK)                                                                       \
            return st_;                                                                            \
    } while (0)

static const char *driver_path(void)
{
    const char *p = getenv("HPCJIT_CUDA_DRIVER");
    if (!p || !*p)
        p = getenv("NUMBA_CUDA_DRIVER");
    return (p && *p) ? p : "libcuda.so.1";
}

static void *resolve(const char *name, const char *fallback)
{
    void *p = dlsym(lib_handle, name);
    return (!p && fallback) ? dlsym(lib_handle, fallback) : p;
}

/* dlopen and resolve; under `lock`.  Returns a status + STATE_BIAS. */
static int load_driver(void)
{
    const char *path = driver_path();
    snprintf(lib_path, sizeof lib_path, "%s", path);
    lib_handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib_handle) {
        const char *why = dlerror();
        snprintf(init_message, sizeof init_message,
                 "CUDA driver library cannot be found or loaded: dlopen(\"%s\"): %s "
                 "(no NVIDIA driver on this machine? HPCJIT_CUDA_DRIVER names another path)",
                 path, why ? why : "unknown error");
        return CUDRV_NO_DRIVER + STATE_BIAS;
    }
#define RESOLVE(field, name, fallback, params)                                                     \
    *(void **)&drv.field = resolve(name, fallback);                                                \
    if (!drv.field) {                                                                              \
        snprintf(init_message, sizeof init_message,                                                \
                 "the CUDA driver %s lacks %s (driver too old for hpcjit)", path, name);           \
        memset(&drv, 0, sizeof drv);                                                               \
        dlclose(lib_handle);                                                                       \
        lib_handle = NULL;                                                                         \
        return CUDRV_NO_DRIVER + STATE_BIAS;                                                       \
    }
    CUDRV_ENTRY_POINTS(RESOLVE)
#undef RESOLVE
    CUresult rc = drv.Init(0);
    if (rc != CUDA_SUCCESS) {
        CudrvStatus st = check(rc, "cuInit");
        init_code = rc;
        snprintf(init_message, sizeof init_message, "%.900s%s", last_error,
                 rc == CUDA_ERROR_NO_DEVICE ? ": no CUDA-capable device is detected" : "");
        return (st == CUDRV_NO_DEVICE ? CUDRV_NO_DEVICE : CUDRV_NO_DRIVER) + STATE_BIAS;
    }
    return CUDRV_OK + STATE_BIAS;
}

CudrvStatus cudrv_init(void)
{
    int state = __atomic_load_n(&init_state, __ATOMIC_ACQUIRE);
    if (!state) {
        pthread_mutex_lock(&lock);
        if (!init_state) {
            int s = load_driver();
            __atomic_store_n(&init_state, s, __ATOMIC_RELEASE);
        }
        state = init_state;
        pthread_mutex_unlock(&lock);
    }
    if (state - STATE_BIAS != CUDRV_OK) {
        last_code = init_code;
        snprintf(last_error, sizeof last_error, "%s", init_message);
    }
    return (CudrvStatus)(state - STATE_BIAS);
}

/* ---- devices ---------------------------------------------------------- */

CudrvStatus cudrv_driver_version(int *version)
{
    CudrvStatus st = cudrv_init();
    if (st != CUDRV_OK)
        return st;
    CHECK(DriverGetVersion, (version));
    return CUDRV_OK;
}

CudrvStatus cudrv_device_count(int *count)
{
    CudrvStatus st = cudrv_init();
    *count = 0;
    if (st == CUDRV_NO_DEVICE)
        return CUDRV_OK; /* no device is a count of 0 */
    if (st != CUDRV_OK)
        return st;
    CHECK(DeviceGetCount, (count));
    return CUDRV_OK;
}

static CudrvStatus get_device(int ordinal, CUdevice *dev)
{
    CudrvStatus st = cudrv_init();
    if (st != CUDRV_OK)
        return st;
    if (ordinal < 0 || ordinal >= MAX_DEVICES)
        return fail(CUDRV_NO_DEVICE, "invalid device ordinal %d", ordinal);
    CUresult rc = drv.DeviceGet(dev, ordinal);
    if (rc != CUDA_SUCCESS) {
        check(rc, "cuDeviceGet");
        return fail(CUDRV_NO_DEVICE, "no CUDA device %d (%s)", ordinal, last_error);
    }
    return CUDRV_OK;
}

CudrvStatus cudrv_device_name(int ordinal, char *buf, size_t cap)
{
    CUdevice dev;
    CudrvStatus st = get_device(ordinal, &dev);
    if (st != CUDRV_OK)
        return st;
    CHECK(DeviceGetName, (buf, (int)cap, dev));
    return CUDRV_OK;
}

CudrvStatus cudrv_device_attribute(int ordinal, int attr, int *value)
{
    CUdevice dev;
    CudrvStatus st = get_device(ordinal, &dev);
    if (st != CUDRV_OK)
        return st;
    CHECK(DeviceGetAttribute, (value, attr, dev));
    return CUDRV_OK;
}

CudrvStatus cudrv_device_total_mem(int ordinal, size_t *bytes)
{
    CUdevice dev;
    CudrvStatus st = get_device(ordinal, &dev);
    if (st != CUDRV_OK)
        return st;
    CHECK(DeviceTotalMem, (bytes, dev));
    return CUDRV_OK;
}

static CudrvStatus primary_context(int ordinal, CUcontext *out)
{
    CUdevice dev;
    CudrvStatus st = get_device(ordinal, &dev);
    if (st != CUDRV_OK)
        return st;
    pthread_mutex_lock(&lock);
    if (!primary[ordinal]) {
        CUresult rc = drv.PrimaryCtxRetain(&primary[ordinal], dev);
        if (rc == CUDA_SUCCESS) {
            size_t total = 0;
            if (drv.DeviceTotalMem(&total, dev) == CUDA_SUCCESS)
                device_mem[ordinal] = total;
        } else {
            primary[ordinal] = NULL;
            st = check(rc, "cuDevicePrimaryCtxRetain");
        }
    }
    *out = primary[ordinal];
    pthread_mutex_unlock(&lock);
    return st;
}

CudrvStatus cudrv_set_device(int ordinal)
{
    CUcontext ctx = NULL;
    CudrvStatus st = primary_context(ordinal, &ctx);
    if (st != CUDRV_OK)
        return st;
    tls_device = ordinal;
    CHECK(CtxSetCurrent, (ctx));
    return CUDRV_OK;
}

int cudrv_current_device(void) { return tls_device; }

CudrvStatus cudrv_ensure_context(void)
{
    CUcontext cur = NULL, want = primary[tls_device];
    if (want && drv.CtxGetCurrent && drv.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur == want)
        return CUDRV_OK;
    return cudrv_set_device(tls_device);
}

#define ENSURE()                                                                                   \
    do {                                                                                           \
        CudrvStatus st_ = cudrv_ensure_context();                                                  \
        if (st_ != CUDRV_OK)                                                                       \
            return st_;                                                                            \
    } while (0)

CudrvStatus cudrv_synchronize(void)
{
    ENSURE();
    CHECK(CtxSynchronize, ());
    return cudrv_flush_frees();
}

CudrvStatus cudrv_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    ENSURE();
    CHECK(MemGetInfo, (free_bytes, total_bytes));
    return CUDRV_OK;
}

/* ---- memory ------------------------------------------------------------ */

CudrvStatus cudrv_malloc(size_t bytes, CudrvPtr *out)
{
    ENSURE();
    *out = 0;
    if (bytes == 0)
        return CUDRV_OK; /* empty arrays own no memory */
    CUresult rc = drv.MemAlloc(out, bytes);
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
        cudrv_flush_frees();
        rc = drv.MemAlloc(out, bytes);
    }
    return check(rc, "cuMemAlloc");
}

CudrvStatus cudrv_flush_frees(void)
{
    Pending batch[PENDING_CAP];
    size_t n;
    CudrvStatus st = CUDRV_OK;
    pthread_mutex_lock(&lock);
    n = pending_count;
    memcpy(batch, pending, n * sizeof *batch);
    pending_count = 0;
    pending_bytes = 0;
    pthread_mutex_unlock(&lock);
    if (n == 0)
        return CUDRV_OK;
    int saved = tls_device;
    for (size_t i = 0; i < n; i++) {
        CUcontext ctx = primary[batch[i].dev];
        if (!ctx || drv.CtxSetCurrent(ctx) != CUDA_SUCCESS)
            continue;
        CudrvStatus s = check(drv.MemFree(batch[i].ptr), "cuMemFree");
        if (s != CUDRV_OK)
            st = s;
    }
    if (primary[saved])
        drv.CtxSetCurrent(primary[saved]);
    return st;
}

CudrvStatus cudrv_free(CudrvPtr p, size_t bytes)
{
    int flush;
    if (!p)
        return CUDRV_OK;
    if (cudrv_init() != CUDRV_OK)
        return CUDRV_OK; /* nothing was allocated without a driver */
    pthread_mutex_lock(&lock);
    if (pending_count == PENDING_CAP) {
        pthread_mutex_unlock(&lock);
        ENSURE();
        return check(drv.MemFree(p), "cuMemFree");
    }
    pending[pending_count++] = (Pending){p, bytes, tls_device};
    pending_bytes += bytes;
    flush = pending_count >= PENDING_MAX_COUNT ||
            (device_mem[tls_device] &&
             (double)pending_bytes > PENDING_MAX_SHARE * (double)device_mem[tls_device]);
    pthread_mutex_unlock(&lock);
    return flush ? cudrv_flush_frees() : CUDRV_OK;
}

void cudrv_pending_frees(size_t *count, size_t *bytes)
{
    pthread_mutex_lock(&lock);
    *count = pending_count;
    *bytes = pending_bytes;
    pthread_mutex_unlock(&lock);
}

CudrvStatus cudrv_managed_alloc(size_t bytes, CudrvPtr *out)
{
    ENSURE();
    *out = 0;
    if (bytes == 0)
        return CUDRV_OK;
    CHECK(MemAllocManaged, (out, bytes, CU_MEM_ATTACH_GLOBAL));
    return CUDRV_OK;
}

CudrvStatus cudrv_host_alloc(size_t bytes, unsigned flags, void **out)
{
    ENSURE();
    CHECK(MemHostAlloc, (out, bytes ? bytes : 1, flags));
    return CUDRV_OK;
}

CudrvStatus cudrv_host_free(void *p)
{
    if (!p || cudrv_init() != CUDRV_OK)
        return CUDRV_OK;
    ENSURE();
    CHECK(MemFreeHost, (p));
    return CUDRV_OK;
}

CudrvStatus cudrv_host_device_pointer(void *host, CudrvPtr *out)
{
    ENSURE();
    CHECK(MemHostGetDevicePointer, (out, host, 0));
    return CUDRV_OK;
}

/* ---- IPC ---------------------------------------------------------------- */

CudrvStatus cudrv_ipc_get_handle(CudrvPtr ptr, CudrvIpcHandle *out, size_t *offset, size_t *alloc_bytes)
{
    ENSURE();
    CudrvPtr base = 0;
    size_t size = 0;
    CHECK(MemGetAddressRange, (&base, &size, ptr));
    CHECK(IpcGetMemHandle, (out, base));
    *offset = (size_t)(ptr - base);
    *alloc_bytes = size;
    return CUDRV_OK;
}

CudrvStatus cudrv_ipc_open(const CudrvIpcHandle *h, CudrvPtr *out)
{
    ENSURE();
    *out = 0;
    CHECK(IpcOpenMemHandle, (out, *h, 1u /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */));
    return CUDRV_OK;
}

CudrvStatus cudrv_ipc_close(CudrvPtr base)
{
    ENSURE();
    CHECK(IpcCloseMemHandle, (base));
    return CUDRV_OK;
}

CudrvStatus cudrv_memcpy_htod(CudrvPtr dst, const void *src, size_t n, CudrvStream s, int async)
{
    if (n == 0)
        return CUDRV_OK;
    ENSURE();
    if (async)
        CHECK(MemcpyHtoDAsync, (dst, src, n, s));
    else
        CHECK(MemcpyHtoD, (dst, src, n));
    return CUDRV_OK;
}

CudrvStatus cudrv_memcpy_dtoh(void *dst, CudrvPtr src, size_t n, CudrvStream s, int async)
{
    if (n == 0)
        return CUDRV_OK;
    ENSURE();
    if (async)
        CHECK(MemcpyDtoHAsync, (dst, src, n, s));
    else
        CHECK(MemcpyDtoH, (dst, src, n));
    return CUDRV_OK;
}

CudrvStatus cudrv_memcpy_dtod(CudrvPtr dst, CudrvPtr src, size_t n, CudrvStream s, int async)
{
    if (n == 0)
        return CUDRV_OK;
    ENSURE();
    if (async)
        CHECK(MemcpyDtoDAsync, (dst, src, n, s));
    else
        CHECK(MemcpyDtoD, (dst, src, n));
    return CUDRV_OK;
}

CudrvStatus cudrv_memset8(CudrvPtr dst, unsigned char value, size_t n, CudrvStream s, int async)
{
    if (n == 0)
        return CUDRV_OK;
    ENSURE();
    if (async)
        CHECK(MemsetD8Async, (dst, value, n, s));
    else
        CHECK(MemsetD8, (dst, value, n));
    return CUDRV_OK;
}

/* ---- streams and events ------------------------------------------------ */

CudrvStatus cudrv_stream_create(CudrvStream *out, int non_blocking)
{
    ENSURE();
    CHECK(StreamCreate, (out, non_blocking ? CU_STREAM_NON_BLOCKING : 0));
    return CUDRV_OK;
}

CudrvStatus cudrv_stream_destroy(CudrvStream s)
{
    if (!s || s == CUDRV_STREAM_LEGACY || s == CUDRV_STREAM_PER_THREAD)
        return CUDRV_OK;
    ENSURE();
    CHECK(StreamDestroy, (s));
    return CUDRV_OK;
}

CudrvStatus cudrv_stream_synchronize(CudrvStream s)
{
    ENSURE();
    CHECK(StreamSynchronize, (s));
    return cudrv_flush_frees();
}

int cudrv_stream_query(CudrvStream s)
{
    ENSURE();
    CUresult rc = drv.StreamQuery(s);
    if (rc == CUDA_ERROR_NOT_READY)
        return 0;
    return check(rc, "cuStreamQuery") == CUDRV_OK ? 1 : CUDRV_ERROR;
}

CudrvStatus cudrv_stream_wait_event(CudrvStream s, CudrvEvent e)
{
    ENSURE();
    CHECK(StreamWaitEvent, (s, e, 0));
    return CUDRV_OK;
}

CudrvStatus cudrv_event_create(CudrvEvent *out, int timing)
{
    ENSURE();
    CHECK(EventCreate, (out, timing ? 0 : CU_EVENT_DISABLE_TIMING));
    return CUDRV_OK;
}

CudrvStatus cudrv_event_destroy(CudrvEvent e)
{
    if (!e)
        return CUDRV_OK;
    ENSURE();
    CHECK(EventDestroy, (e));
    return CUDRV_OK;
}

CudrvStatus cudrv_event_record(CudrvEvent e, CudrvStream s)
{
    ENSURE();
    CHECK(EventRecord, (e, s));
    return CUDRV_OK;
}

CudrvStatus cudrv_event_synchronize(CudrvEvent e)
{
    ENSURE();
    CHECK(EventSynchronize, (e));
    return CUDRV_OK;
}

int cudrv_event_query(CudrvEvent e)
{
    ENSURE();
    CUresult rc = drv.EventQuery(e);
    if (rc == CUDA_ERROR_NOT_READY)
        return 0;
    return check(rc, "cuEventQuery") == CUDRV_OK ? 1 : CUDRV_ERROR;
}

CudrvStatus cudrv_event_elapsed(CudrvEvent start, CudrvEvent end, float *ms)
{
    ENSURE();
    CHECK(EventElapsedTime, (ms, start, end));
    return CUDRV_OK;
}

/* ---- modules and launches ---------------------------------------------- */

CudrvStatus cudrv_module_load(const char *image, CudrvModule *out)
{
    enum { LOG = 16384 };
    char *errlog = NULL, *infolog = NULL;
    CudrvStatus st;
    ENSURE();
    errlog = calloc(1, LOG);
    infolog = calloc(1, LOG);
    if (!errlog || !infolog) {
        free(errlog);
        free(infolog);
        return fail(CUDRV_ERROR, "cuModuleLoadDataEx(): out of host memory for the JIT logs");
    }
    int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                  CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void *vals[] = {errlog, (void *)(uintptr_t)LOG, infolog, (void *)(uintptr_t)LOG,
                    (void *)(uintptr_t)1};
    st = check(drv.ModuleLoadDataEx(out, image, 5, opts, vals), "cuModuleLoadDataEx");
    if (st != CUDRV_OK) {
        char head[1024];
        errlog[LOG - 1] = 0;
        snprintf(head, sizeof head, "%.1000s", last_error);
        fail(st, "%s\nPTX JIT log:\n%s", head, errlog[0] ? errlog : "(empty)");
    }
    free(errlog);
    free(infolog);
    return st;
}

CudrvStatus cudrv_module_unload(CudrvModule m)
{
    if (!m)
        return CUDRV_OK;
    ENSURE();
    CHECK(ModuleUnload, (m));
    return CUDRV_OK;
}

CudrvStatus cudrv_module_function(CudrvModule m, const char *name, CudrvFunction *out)
{
    ENSURE();
    CudrvStatus st = check(drv.ModuleGetFunction(out, m, name), "cuModuleGetFunction");
    if (st != CUDRV_OK) {
        char head[1024];
        snprintf(head, sizeof head, "%.1000s", last_error);
        fail(st, "%s: no kernel named '%s' in the module", head, name);
    }
    return st;
}

CudrvStatus cudrv_module_global(CudrvModule m, const char *name, CudrvPtr *out, size_t *bytes)
{
    ENSURE();
    CHECK(ModuleGetGlobal, (out, bytes, m, name));
    return CUDRV_OK;
}

CudrvStatus cudrv_func_attribute(CudrvFunction f, int attr, int *value)
{
    ENSURE();
    CHECK(FuncGetAttribute, (value, attr, f));
    return CUDRV_OK;
}

CudrvStatus cudrv_func_set_max_dynamic_shared(CudrvFunction f, int bytes)
{
    ENSURE();
    CHECK(FuncSetAttribute, (f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes));
    return CUDRV_OK;
}

CudrvStatus cudrv_occupancy_block_size(CudrvFunction f, size_t shmem, int limit, int *min_grid,
                                       int *block)
{
    ENSURE();
    CHECK(OccupancyMaxPotentialBlockSize, (min_grid, block, f, NULL, shmem, limit));
    return CUDRV_OK;
}

CudrvStatus cudrv_occupancy_active_blocks(CudrvFunction f, int block, size_t shmem, int *blocks)
{
    ENSURE();
    CHECK(OccupancyMaxActiveBlocksPerMultiprocessor, (blocks, f, block, shmem));
    return CUDRV_OK;
}

CudrvStatus cudrv_launch(CudrvFunction f, const unsigned grid[3], const unsigned block[3],
                         unsigned shmem, CudrvStream s, void **params, int cooperative)
{
    ENSURE();
    if (cooperative)
        CHECK(LaunchCooperativeKernel,
              (f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shmem, s, params));
    else
        CHECK(LaunchKernel,
              (f, grid[0], grid[1], grid[2], block[0], block[1], block[2], shmem, s, params, NULL));
    return CUDRV_OK;
}

void cudrv_shutdown(void)
{
    if (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != CUDRV_OK + STATE_BIAS)
        return;
    cudrv_flush_frees();
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_DEVICES; i++) {
        if (primary[i]) {
            CUdevice dev;
            if (drv.DeviceGet(&dev, i) == CUDA_SUCCESS)
                drv.PrimaryCtxRelease(dev);
            primary[i] = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
}
