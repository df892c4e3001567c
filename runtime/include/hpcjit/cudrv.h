/* hpcjit/cudrv.h - the CUDA Driver API layer (runtime/cudrv.c).
 *
 * libcuda.so.1 is dlopened at the first call of cudrv_init(), never at load
 * time: programs that never touch a GPU need no driver.  The library path
 * may be overridden with HPCJIT_CUDA_DRIVER (or Numba's NUMBA_CUDA_DRIVER).
 * Nothing here links libcuda or includes cuda.h: the few driver types are
 * declared below as plain integers and opaque pointers.
 *
 * Every function returns a CudrvStatus.  On failure the calling thread's
 * message (cudrv_last_error()) says which driver call failed and why, with
 * the driver's error name and string: "cuModuleLoadDataEx():
 * CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed) ...", and
 * cudrv_last_code() is the CUresult.  A missing driver or device is a
 * normal result (CUDRV_NO_DRIVER / CUDRV_NO_DEVICE), never an abort.
 *
 * Thread safety: every function may be called from any thread.  Contexts
 * are the devices' primary contexts, retained once per process; the
 * functions that need one make the selected device's context current on
 * the calling thread first (cudrv_set_device() selects, per thread,
 * device 0 by default).  Deferred frees are kept in one locked list.
 */
#ifndef HPCJIT_CUDRV_H
#define HPCJIT_CUDRV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t CudrvPtr;          /* CUdeviceptr */
typedef struct CudrvStream_ *CudrvStream;   /* CUstream; NULL = legacy default */
typedef struct CudrvEvent_ *CudrvEvent;     /* CUevent */
typedef struct CudrvModule_ *CudrvModule;   /* CUmodule */
typedef struct CudrvFunction_ *CudrvFunction; /* CUfunction */

/* The driver's special stream handles (cuda.h CU_STREAM_LEGACY/PER_THREAD). */
#define CUDRV_STREAM_LEGACY ((CudrvStream)(uintptr_t)1)
#define CUDRV_STREAM_PER_THREAD ((CudrvStream)(uintptr_t)2)

typedef enum CudrvStatus {
    CUDRV_OK = 0,
    CUDRV_NO_DRIVER = -1, /* libcuda.so.1 missing or lacking an entry point */
    CUDRV_NO_DEVICE = -2, /* cuInit failed with NO_DEVICE, or no such ordinal */
    CUDRV_ERROR = -3,     /* a driver call failed: cudrv_last_code() */
    CUDRV_INVALID = -4,   /* bad argument detected before calling the driver */
} CudrvStatus;

/* Device attributes used by the Python layer (cuda.h CUdevice_attribute). */
enum {
    CUDRV_ATTR_MAX_THREADS_PER_BLOCK = 1,
    CUDRV_ATTR_WARP_SIZE = 10,
    CUDRV_ATTR_MULTIPROCESSOR_COUNT = 16,
    CUDRV_ATTR_CC_MAJOR = 75,
    CUDRV_ATTR_CC_MINOR = 76,
    CUDRV_ATTR_COOPERATIVE_LAUNCH = 95,
    CUDRV_ATTR_MAX_SHARED_PER_BLOCK_OPTIN = 97,
};

/* Flags of cudrv_host_alloc (cuda.h CU_MEMHOSTALLOC_*). */
enum { CUDRV_HOST_PORTABLE = 1, CUDRV_HOST_MAPPED = 2 };

/* The message and CUresult of this thread's last failure. */
const char *cudrv_last_error(void);
int cudrv_last_code(void);

/* Load the driver and cuInit(0); idempotent and thread-safe (the first
 * result is kept: a process without a driver keeps CUDRV_NO_DRIVER). */
CudrvStatus cudrv_init(void);
/* The path actually dlopened ("libcuda.so.1" or the override), after init. */
const char *cudrv_library(void);
/* Release the primary contexts this process retained (after freeing what
 * is pending).  Later calls retain them again. */
void cudrv_shutdown(void);

/* ---- devices ---- */
CudrvStatus cudrv_driver_version(int *version);
CudrvStatus cudrv_device_count(int *count);
CudrvStatus cudrv_device_name(int dev, char *buf, size_t cap);
CudrvStatus cudrv_device_attribute(int dev, int attr, int *value);
CudrvStatus cudrv_device_total_mem(int dev, size_t *bytes);
/* Select `dev` for the calling thread: retain its primary context (once per
 * process) and make it current. */
CudrvStatus cudrv_set_device(int dev);
/* The calling thread's device (0 until cudrv_set_device). */
int cudrv_current_device(void);
/* Make the calling thread's device context current (cheap when it is). */
CudrvStatus cudrv_ensure_context(void);
/* cuCtxSynchronize of the current device, then the deferred frees. */
CudrvStatus cudrv_synchronize(void);
CudrvStatus cudrv_mem_info(size_t *free_bytes, size_t *total_bytes);

/* ---- memory ---- */
/* cuMemAlloc; on OUT_OF_MEMORY the deferred frees are flushed and the
 * allocation tried once more. */
CudrvStatus cudrv_malloc(size_t bytes, CudrvPtr *out);
/* Defer cuMemFree: the pointer joins a pending list that is flushed when it
 * holds more than a count or a share of the device memory, at
 * cudrv_synchronize() and before an allocation retries. */
CudrvStatus cudrv_free(CudrvPtr p, size_t bytes);
CudrvStatus cudrv_flush_frees(void);
/* Pending (count, bytes) of the deferred list, for tests. */
void cudrv_pending_frees(size_t *count, size_t *bytes);
CudrvStatus cudrv_managed_alloc(size_t bytes, CudrvPtr *out);
CudrvStatus cudrv_host_alloc(size_t bytes, unsigned flags, void **out);
CudrvStatus cudrv_host_free(void *p);
CudrvStatus cudrv_host_device_pointer(void *host, CudrvPtr *out);
/* ---- CUDA IPC (cuIpc*MemHandle): device memory shared with another process ---- */
#define CUDRV_IPC_HANDLE_BYTES 64
typedef struct CudrvIpcHandle { unsigned char reserved[CUDRV_IPC_HANDLE_BYTES]; } CudrvIpcHandle; /* CUipcMemHandle */
/* The handle of the allocation that holds `ptr`, the offset of ptr in it
 * and the allocation's size (a handle names a whole cuMemAlloc block). */
CudrvStatus cudrv_ipc_get_handle(CudrvPtr ptr, CudrvIpcHandle *out, size_t *offset, size_t *alloc_bytes);
/* Map another process's allocation into this one's current context (lazy
 * peer access, as Numba); the base address, to close with cudrv_ipc_close. */
CudrvStatus cudrv_ipc_open(const CudrvIpcHandle *h, CudrvPtr *out);
CudrvStatus cudrv_ipc_close(CudrvPtr base);

/* Copies: async on `stream` when `async` is nonzero, else synchronous. */
CudrvStatus cudrv_memcpy_htod(CudrvPtr dst, const void *src, size_t n, CudrvStream s, int async);
CudrvStatus cudrv_memcpy_dtoh(void *dst, CudrvPtr src, size_t n, CudrvStream s, int async);
CudrvStatus cudrv_memcpy_dtod(CudrvPtr dst, CudrvPtr src, size_t n, CudrvStream s, int async);
CudrvStatus cudrv_memset8(CudrvPtr dst, unsigned char value, size_t n, CudrvStream s, int async);

/* ---- streams and events ---- */
CudrvStatus cudrv_stream_create(CudrvStream *out, int non_blocking);
CudrvStatus cudrv_stream_destroy(CudrvStream s);
CudrvStatus cudrv_stream_synchronize(CudrvStream s);
/* 1 when all work is done, 0 when not, <0 on error. */
int cudrv_stream_query(CudrvStream s);
CudrvStatus cudrv_stream_wait_event(CudrvStream s, CudrvEvent e);
CudrvStatus cudrv_event_create(CudrvEvent *out, int timing);
CudrvStatus cudrv_event_destroy(CudrvEvent e);
CudrvStatus cudrv_event_record(CudrvEvent e, CudrvStream s);
CudrvStatus cudrv_event_synchronize(CudrvEvent e);
int cudrv_event_query(CudrvEvent e);
CudrvStatus cudrv_event_elapsed(CudrvEvent start, CudrvEvent end, float *ms);

/* ---- modules and launches ---- */
/* Load PTX (NUL-terminated) with the JIT's error and info logs: a failure's
 * message carries the driver's log. */
CudrvStatus cudrv_module_load(const char *image, CudrvModule *out);
CudrvStatus cudrv_module_unload(CudrvModule m);
CudrvStatus cudrv_module_function(CudrvModule m, const char *name, CudrvFunction *out);
CudrvStatus cudrv_module_global(CudrvModule m, const char *name, CudrvPtr *out, size_t *bytes);
CudrvStatus cudrv_func_attribute(CudrvFunction f, int attr, int *value);
CudrvStatus cudrv_func_set_max_dynamic_shared(CudrvFunction f, int bytes);
CudrvStatus cudrv_occupancy_block_size(CudrvFunction f, size_t shmem, int limit, int *min_grid,
                                       int *block);
/* Blocks of `block` threads (and shmem bytes of dynamic shared memory) of f
 * that fit on one multiprocessor at once (cooperative launches' limit). */
CudrvStatus cudrv_occupancy_active_blocks(CudrvFunction f, int block, size_t shmem, int *blocks);
/* cuLaunchKernel (or cuLaunchCooperativeKernel) with kernelParams `params`.
 * Thread-safe; does not wait for the kernel. */
CudrvStatus cudrv_launch(CudrvFunction f, const unsigned grid[3], const unsigned block[3],
                         unsigned shmem, CudrvStream s, void **params, int cooperative);

#ifdef __cplusplus
}
#endif
#endif
