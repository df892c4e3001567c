/* cuda.c - hpcjit._core's functions for hpcjit.cuda: the driver layer
 * (runtime/cudrv.c) for Python, and the kernel launch fast path.
 *
 * Handles (device pointers, streams, events, modules, functions) cross as
 * Python ints; hpcjit/cuda/ wraps them in objects.  A failing driver call
 * raises hpcjit.cuda's CudaAPIError(code, message), a missing driver or
 * device its CudaSupportError (classes given by _cuda_set_errors).
 *
 * Launch fast path (_cuda_launch): the key of the arguments' typecodes is
 * looked up in the kernel's dict of specialisations; each specialisation
 * (a capsule holding a CuSpec) has a packing plan computed once from its
 * typecodes: one slot per PTX parameter of docs/CUDA.md, at its natural
 * size and alignment in one buffer.  A device array contributes its
 * precomputed descriptor (the bytes of data pointer, shape, strides: the
 * DeviceNDArray's _hj_desc), so a launch is a dict lookup, a memcpy per
 * array and cuLaunchKernel.
 */
#include "core.h"

#include <stdint.h>
#include <string.h>

#include "hpcjit/ccl.h"
#include "hpcjit/cudrv.h"

/* hpcjit.cuda's exception classes and DeviceNDArray type (strong
 * references for the life of the process: the package registers them once
 * at import). */
static PyObject *support_error, *api_error, *array_type;
static PyObject *str_tc, *str_desc, *str_handle;

#define SPEC_CAPSULE "hpcjit.cuda.spec"
#define MAX_SLOTS 512
#define MAX_PARAM_BYTES 4096 /* the PTX .param space of a kernel (sm_70+ allow more) */
#define MAX_ARGS 128

/* One specialisation of a kernel: its function and packing plan. */
typedef struct CuSpec {
    CudrvFunction fn;
    int debug;                  /* the kernel records errors in __hpcjit_error */
    int cooperative;            /* it syncs its grid: always a cooperative launch */
    int nargs;
    int nslots;
    int dyn_shared_set;         /* the max dynamic shared memory opted in so far */
    size_t bytes;               /* the packed buffer's size */
    uint16_t offset[MAX_SLOTS]; /* slot i at buf + offset[i] */
    uint8_t size[MAX_SLOTS];
    char tc[HJ_MAX_TYPECODE];   /* the argument typecodes, concatenated */
} CuSpec;

static PyObject *raise_status(CudrvStatus st)
{
    PyObject *cls = NULL;
    if (st == CUDRV_NO_DRIVER || st == CUDRV_NO_DEVICE) {
        cls = support_error ? support_error : PyExc_RuntimeError;
        PyErr_SetString(cls, cudrv_last_error());
        return NULL;
    }
    if (st == CUDRV_INVALID) {
        PyErr_SetString(PyExc_ValueError, cudrv_last_error());
        return NULL;
    }
    if (api_error) {
        PyObject *exc = PyObject_CallFunction(api_error, "is", cudrv_last_code(), cudrv_last_error());
        if (exc) {
            PyErr_SetObject(api_error, exc);
            Py_DECREF(exc);
        }
        return NULL;
    }
    PyErr_SetString(PyExc_RuntimeError, cudrv_last_error());
    return NULL;
}

#define TRY(call)                                                                                  \
    do {                                                                                           \
        CudrvStatus st_ = (call);                                                                  \
        if (st_ != CUDRV_OK)                                                                       \
            return raise_status(st_);                                                              \
    } while (0)

/* The same, with the GIL released around the call (it may wait). */
#define TRY_NOGIL(call)                                                                            \
    do {                                                                                           \
        CudrvStatus st_;                                                                           \
        Py_BEGIN_ALLOW_THREADS st_ = (call);                                                       \
        Py_END_ALLOW_THREADS if (st_ != CUDRV_OK) return raise_status(st_);                        \
    } while (0)

static PyObject *cu_set_errors(PyObject *mod, PyObject *args)
{
    PyObject *support = NULL, *api = NULL, *arr = NULL;
    if (!PyArg_ParseTuple(args, "OOO:_cuda_set_errors", &support, &api, &arr))
        return NULL;
    if (!PyType_Check(arr)) {
        PyErr_SetString(PyExc_TypeError, "_cuda_set_errors: the array class must be a type");
        return NULL;
    }
    Py_XSETREF(support_error, Py_NewRef(support));
    Py_XSETREF(api_error, Py_NewRef(api));
    Py_XSETREF(array_type, Py_NewRef(arr));
    if (!str_tc) {
        str_tc = PyUnicode_InternFromString("_hj_tc");
        str_desc = PyUnicode_InternFromString("_hj_desc");
        str_handle = PyUnicode_InternFromString("handle");
        if (!str_tc || !str_desc || !str_handle)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* _cuda_init() -> None; CudaSupportError when there is no driver/device. */
static PyObject *cu_init(PyObject *mod, PyObject *unused)
{
    TRY(cudrv_init());
    Py_RETURN_NONE;
}

/* _cuda_status() -> (status, message): cudrv_init()'s result, no raise. */
static PyObject *cu_status(PyObject *mod, PyObject *unused)
{
    CudrvStatus st = cudrv_init();
    return Py_BuildValue("(is)", (int)st, st == CUDRV_OK ? "" : cudrv_last_error());
}

static PyObject *cu_library(PyObject *mod, PyObject *unused)
{
    return PyUnicode_FromString(cudrv_library());
}

static PyObject *cu_driver_version(PyObject *mod, PyObject *unused)
{
    int v = 0;
    TRY(cudrv_driver_version(&v));
    return PyLong_FromLong(v);
}

static PyObject *cu_device_count(PyObject *mod, PyObject *unused)
{
    int n = 0;
    TRY(cudrv_device_count(&n));
    return PyLong_FromLong(n);
}

static PyObject *cu_device_name(PyObject *mod, PyObject *arg)
{
    char name[256] = {0};
    int dev = PyLong_AsLong(arg);
    if (dev == -1 && PyErr_Occurred())
        return NULL;
    TRY(cudrv_device_name(dev, name, sizeof name));
    return PyUnicode_FromString(name);
}

static PyObject *cu_device_attribute(PyObject *mod, PyObject *args)
{
    int dev = 0, attr = 0, value = 0;
    if (!PyArg_ParseTuple(args, "ii:_cuda_device_attribute", &dev, &attr))
        return NULL;
    TRY(cudrv_device_attribute(dev, attr, &value));
    return PyLong_FromLong(value);
}

static PyObject *cu_device_total_mem(PyObject *mod, PyObject *arg)
{
    size_t bytes = 0;
    int dev = PyLong_AsLong(arg);
    if (dev == -1 && PyErr_Occurred())
        return NULL;
    TRY(cudrv_device_total_mem(dev, &bytes));
    return PyLong_FromSize_t(bytes);
}

static PyObject *cu_set_device(PyObject *mod, PyObject *arg)
{
    int dev = PyLong_AsLong(arg);
    if (dev == -1 && PyErr_Occurred())
        return NULL;
    TRY(cudrv_set_device(dev));
    Py_RETURN_NONE;
}

static PyObject *cu_current_device(PyObject *mod, PyObject *unused)
{
    return PyLong_FromLong(cudrv_current_device());
}

static PyObject *cu_synchronize(PyObject *mod, PyObject *unused)
{
    TRY_NOGIL(cudrv_synchronize());
    Py_RETURN_NONE;
}

static PyObject *cu_mem_info(PyObject *mod, PyObject *unused)
{
    size_t f = 0, t = 0;
    TRY(cudrv_mem_info(&f, &t));
    return Py_BuildValue("(nn)", (Py_ssize_t)f, (Py_ssize_t)t);
}

static PyObject *cu_shutdown(PyObject *mod, PyObject *unused)
{
    Py_BEGIN_ALLOW_THREADS cudrv_shutdown();
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

/* ---- memory ---- */

static PyObject *cu_malloc(PyObject *mod, PyObject *arg)
{
    CudrvPtr p = 0;
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "negative allocation size");
        return NULL;
    }
    TRY(cudrv_malloc((size_t)n, &p));
    return PyLong_FromUnsignedLongLong(p);
}

static PyObject *cu_managed_alloc(PyObject *mod, PyObject *arg)
{
    CudrvPtr p = 0;
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "negative allocation size");
        return NULL;
    }
    TRY(cudrv_managed_alloc((size_t)n, &p));
    return PyLong_FromUnsignedLongLong(p);
}

static PyObject *cu_free(PyObject *mod, PyObject *args)
{
    unsigned long long p = 0;
    Py_ssize_t n = 0;
    if (!PyArg_ParseTuple(args, "Kn:_cuda_free", &p, &n))
        return NULL;
    TRY(cudrv_free(p, (size_t)n));
    Py_RETURN_NONE;
}

static PyObject *cu_flush_frees(PyObject *mod, PyObject *unused)
{
    TRY_NOGIL(cudrv_flush_frees());
    Py_RETURN_NONE;
}

static PyObject *cu_pending_frees(PyObject *mod, PyObject *unused)
{
    size_t c = 0, b = 0;
    cudrv_pending_frees(&c, &b);
    return Py_BuildValue("(nn)", (Py_ssize_t)c, (Py_ssize_t)b);
}

static PyObject *cu_host_alloc(PyObject *mod, PyObject *args)
{
    Py_ssize_t n = 0;
    unsigned flags = 0;
    void *p = NULL;
    if (!PyArg_ParseTuple(args, "nI:_cuda_host_alloc", &n, &flags))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "negative allocation size");
        return NULL;
    }
    TRY(cudrv_host_alloc((size_t)n, flags, &p));
    return PyLong_FromVoidPtr(p);
}

static PyObject *cu_host_free(PyObject *mod, PyObject *arg)
{
    void *p = PyLong_AsVoidPtr(arg);
    if (!p && PyErr_Occurred())
        return NULL;
    TRY(cudrv_host_free(p));
    Py_RETURN_NONE;
}

static PyObject *cu_host_device_pointer(PyObject *mod, PyObject *arg)
{
    CudrvPtr d = 0;
    void *p = PyLong_AsVoidPtr(arg);
    if (!p && PyErr_Occurred())
        return NULL;
    TRY(cudrv_host_device_pointer(p, &d));
    return PyLong_FromUnsignedLongLong(d);
}

/* A stream argument: None/0 is the legacy default stream, an int a raw
 * handle, any other object its `handle` attribute (an int). */
static int stream_of(PyObject *obj, CudrvStream *out)
{
    PyObject *h = NULL;
    *out = NULL;
    if (obj == Py_None)
        return 0;
    if (PyLong_Check(obj)) {
        *out = (CudrvStream)PyLong_AsVoidPtr(obj);
        return (!*out && PyErr_Occurred()) ? -1 : 0;
    }
    h = PyObject_GetAttr(obj, str_handle ? str_handle : PyUnicode_FromString("handle"));
    if (!h) {
        PyErr_Format(PyExc_TypeError, "expected a CUDA stream, got %.200s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (h == Py_None || (PyLong_Check(h) && PyLong_AsVoidPtr(h) == NULL && !PyErr_Occurred())) {
        Py_DECREF(h);
        return 0;
    }
    *out = (CudrvStream)PyLong_AsVoidPtr(h);
    Py_DECREF(h);
    return (!*out && PyErr_Occurred()) ? -1 : 0;
}

/* _cuda_copy(kind, dst, src, nbytes, stream, async): kind 0 host->device,
 * 1 device->host, 2 device->device; host addresses and device pointers
 * as ints. */
static PyObject *cu_copy(PyObject *mod, PyObject *args)
{
    int kind = 0, async = 0;
    unsigned long long dst = 0, src = 0;
    Py_ssize_t n = 0;
    PyObject *sobj = Py_None;
    CudrvStream s = NULL;
    CudrvStatus st = CUDRV_OK;
    if (!PyArg_ParseTuple(args, "iKKnOp:_cuda_copy", &kind, &dst, &src, &n, &sobj, &async))
        return NULL;
    if (n < 0 || stream_of(sobj, &s) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "negative copy size");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (kind == 0)
        st = cudrv_memcpy_htod(dst, (const void *)(uintptr_t)src, (size_t)n, s, async);
    else if (kind == 1)
        st = cudrv_memcpy_dtoh((void *)(uintptr_t)dst, src, (size_t)n, s, async);
    else
        st = cudrv_memcpy_dtod(dst, src, (size_t)n, s, async);
    Py_END_ALLOW_THREADS
    if (st != CUDRV_OK)
        return raise_status(st);
    Py_RETURN_NONE;
}

static PyObject *cu_memset(PyObject *mod, PyObject *args)
{
    unsigned long long dst = 0;
    int value = 0, async = 0;
    Py_ssize_t n = 0;
    PyObject *sobj = Py_None;
    CudrvStream s = NULL;
    if (!PyArg_ParseTuple(args, "KinOp:_cuda_memset", &dst, &value, &n, &sobj, &async))
        return NULL;
    if (n < 0 || stream_of(sobj, &s) < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "negative memset size");
        return NULL;
    }
    TRY_NOGIL(cudrv_memset8(dst, (unsigned char)value, (size_t)n, s, async));
    Py_RETURN_NONE;
}

/* ---- IPC ---- */

/* _cuda_ipc_get_handle(ptr) -> (64 handle bytes, offset of ptr in its
 * allocation, the allocation's size) */
static PyObject *cu_ipc_get_handle(PyObject *mod, PyObject *arg)
{
    unsigned long long ptr = PyLong_AsUnsignedLongLong(arg);
    if (ptr == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    CudrvIpcHandle h;
    size_t offset = 0, size = 0;
    TRY_NOGIL(cudrv_ipc_get_handle(ptr, &h, &offset, &size));
    return Py_BuildValue("y#nn", (const char *)h.reserved, (Py_ssize_t)sizeof h.reserved, (Py_ssize_t)offset,
                         (Py_ssize_t)size);
}

/* _cuda_ipc_open(handle bytes) -> base address in this process */
static PyObject *cu_ipc_open(PyObject *mod, PyObject *arg)
{
    Py_buffer view = {0};
    CudrvIpcHandle h;
    CudrvPtr out = 0;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    if (view.len != (Py_ssize_t)sizeof h.reserved) {
        PyErr_Format(PyExc_ValueError, "a CUDA IPC handle has %d bytes, not %zd", CUDRV_IPC_HANDLE_BYTES,
                     view.len);
        PyBuffer_Release(&view);
        return NULL;
    }
    memcpy(h.reserved, view.buf, sizeof h.reserved);
    PyBuffer_Release(&view);
    TRY_NOGIL(cudrv_ipc_open(&h, &out));
    return PyLong_FromUnsignedLongLong(out);
}

static PyObject *cu_ipc_close(PyObject *mod, PyObject *arg)
{
    unsigned long long ptr = PyLong_AsUnsignedLongLong(arg);
    if (ptr == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    TRY_NOGIL(cudrv_ipc_close(ptr));
    Py_RETURN_NONE;
}

/* ---- streams and events ---- */

static PyObject *cu_stream_create(PyObject *mod, PyObject *arg)
{
    CudrvStream s = NULL;
    int nb = PyObject_IsTrue(arg);
    if (nb < 0)
        return NULL;
    TRY(cudrv_stream_create(&s, nb));
    return PyLong_FromVoidPtr(s);
}

static PyObject *cu_stream_destroy(PyObject *mod, PyObject *arg)
{
    CudrvStream s = NULL;
    if (stream_of(arg, &s) < 0)
        return NULL;
    TRY(cudrv_stream_destroy(s));
    Py_RETURN_NONE;
}

static PyObject *cu_stream_synchronize(PyObject *mod, PyObject *arg)
{
    CudrvStream s = NULL;
    if (stream_of(arg, &s) < 0)
        return NULL;
    TRY_NOGIL(cudrv_stream_synchronize(s));
    Py_RETURN_NONE;
}

static PyObject *cu_stream_query(PyObject *mod, PyObject *arg)
{
    CudrvStream s = NULL;
    if (stream_of(arg, &s) < 0)
        return NULL;
    int rc = cudrv_stream_query(s);
    if (rc < 0)
        return raise_status((CudrvStatus)rc);
    return PyBool_FromLong(rc);
}

static int event_of(PyObject *arg, CudrvEvent *e)
{
    *e = (CudrvEvent)PyLong_AsVoidPtr(arg);
    return (!*e && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *cu_stream_wait_event(PyObject *mod, PyObject *args)
{
    PyObject *sobj = NULL, *eobj = NULL;
    CudrvStream s = NULL;
    CudrvEvent e = NULL;
    if (!PyArg_ParseTuple(args, "OO:_cuda_stream_wait_event", &sobj, &eobj) || stream_of(sobj, &s) < 0 ||
        event_of(eobj, &e) < 0)
        return NULL;
    TRY(cudrv_stream_wait_event(s, e));
    Py_RETURN_NONE;
}

static PyObject *cu_event_create(PyObject *mod, PyObject *arg)
{
    CudrvEvent e = NULL;
    int timing = PyObject_IsTrue(arg);
    if (timing < 0)
        return NULL;
    TRY(cudrv_event_create(&e, timing));
    return PyLong_FromVoidPtr(e);
}

static PyObject *cu_event_destroy(PyObject *mod, PyObject *arg)
{
    CudrvEvent e = NULL;
    if (event_of(arg, &e) < 0)
        return NULL;
    TRY(cudrv_event_destroy(e));
    Py_RETURN_NONE;
}

static PyObject *cu_event_record(PyObject *mod, PyObject *args)
{
    PyObject *eobj = NULL, *sobj = Py_None;
    CudrvEvent e = NULL;
    CudrvStream s = NULL;
    if (!PyArg_ParseTuple(args, "OO:_cuda_event_record", &eobj, &sobj) || event_of(eobj, &e) < 0 ||
        stream_of(sobj, &s) < 0)
        return NULL;
    TRY(cudrv_event_record(e, s));
    Py_RETURN_NONE;
}

static PyObject *cu_event_synchronize(PyObject *mod, PyObject *arg)
{
    CudrvEvent e = NULL;
    if (event_of(arg, &e) < 0)
        return NULL;
    TRY_NOGIL(cudrv_event_synchronize(e));
    Py_RETURN_NONE;
}

static PyObject *cu_event_query(PyObject *mod, PyObject *arg)
{
    CudrvEvent e = NULL;
    if (event_of(arg, &e) < 0)
        return NULL;
    int rc = cudrv_event_query(e);
    if (rc < 0)
        return raise_status((CudrvStatus)rc);
    return PyBool_FromLong(rc);
}

static PyObject *cu_event_elapsed(PyObject *mod, PyObject *args)
{
    PyObject *a = NULL, *b = NULL;
    CudrvEvent ea = NULL, eb = NULL;
    float ms = 0;
    if (!PyArg_ParseTuple(args, "OO:_cuda_event_elapsed", &a, &b) || event_of(a, &ea) < 0 ||
        event_of(b, &eb) < 0)
        return NULL;
    TRY(cudrv_event_elapsed(ea, eb, &ms));
    return PyFloat_FromDouble(ms);
}

/* ---- modules ---- */

static PyObject *cu_module_load(PyObject *mod, PyObject *arg)
{
    const char *image = NULL;
    CudrvModule m = NULL;
    CudrvStatus st;
    if (PyUnicode_Check(arg))
        image = PyUnicode_AsUTF8(arg);
    else if (PyBytes_Check(arg))
        image = PyBytes_AS_STRING(arg);
    else
        PyErr_SetString(PyExc_TypeError, "_cuda_module_load: PTX must be str or bytes");
    if (!image)
        return NULL;
    Py_BEGIN_ALLOW_THREADS st = cudrv_module_load(image, &m);
    Py_END_ALLOW_THREADS if (st != CUDRV_OK) return raise_status(st);
    return PyLong_FromVoidPtr(m);
}

static PyObject *cu_module_unload(PyObject *mod, PyObject *arg)
{
    void *m = PyLong_AsVoidPtr(arg);
    if (!m && PyErr_Occurred())
        return NULL;
    TRY(cudrv_module_unload((CudrvModule)m));
    Py_RETURN_NONE;
}

static PyObject *cu_module_function(PyObject *mod, PyObject *args)
{
    PyObject *mobj = NULL;
    const char *name = NULL;
    CudrvFunction f = NULL;
    if (!PyArg_ParseTuple(args, "Os:_cuda_module_function", &mobj, &name))
        return NULL;
    void *m = PyLong_AsVoidPtr(mobj);
    if (!m && PyErr_Occurred())
        return NULL;
    TRY(cudrv_module_function((CudrvModule)m, name, &f));
    return PyLong_FromVoidPtr(f);
}

static PyObject *cu_module_global(PyObject *mod, PyObject *args)
{
    PyObject *mobj = NULL;
    const char *name = NULL;
    CudrvPtr p = 0;
    size_t n = 0;
    if (!PyArg_ParseTuple(args, "Os:_cuda_module_global", &mobj, &name))
        return NULL;
    void *m = PyLong_AsVoidPtr(mobj);
    if (!m && PyErr_Occurred())
        return NULL;
    TRY(cudrv_module_global((CudrvModule)m, name, &p, &n));
    return Py_BuildValue("(Kn)", (unsigned long long)p, (Py_ssize_t)n);
}

static PyObject *cu_func_attribute(PyObject *mod, PyObject *args)
{
    PyObject *fobj = NULL;
    int attr = 0, v = 0;
    if (!PyArg_ParseTuple(args, "Oi:_cuda_func_attribute", &fobj, &attr))
        return NULL;
    void *f = PyLong_AsVoidPtr(fobj);
    if (!f && PyErr_Occurred())
        return NULL;
    TRY(cudrv_func_attribute((CudrvFunction)f, attr, &v));
    return PyLong_FromLong(v);
}

static PyObject *cu_func_set_shared(PyObject *mod, PyObject *args)
{
    PyObject *fobj = NULL;
    int bytes = 0;
    if (!PyArg_ParseTuple(args, "Oi:_cuda_func_set_max_dynamic_shared", &fobj, &bytes))
        return NULL;
    void *f = PyLong_AsVoidPtr(fobj);
    if (!f && PyErr_Occurred())
        return NULL;
    TRY(cudrv_func_set_max_dynamic_shared((CudrvFunction)f, bytes));
    Py_RETURN_NONE;
}

static PyObject *cu_occupancy(PyObject *mod, PyObject *args)
{
    PyObject *fobj = NULL;
    Py_ssize_t shmem = 0;
    int limit = 0, min_grid = 0, block = 0;
    if (!PyArg_ParseTuple(args, "Oni:_cuda_occupancy_block_size", &fobj, &shmem, &limit))
        return NULL;
    void *f = PyLong_AsVoidPtr(fobj);
    if (!f && PyErr_Occurred())
        return NULL;
    TRY(cudrv_occupancy_block_size((CudrvFunction)f, (size_t)shmem, limit, &min_grid, &block));
    return Py_BuildValue("(ii)", min_grid, block);
}

/* _cuda_occupancy_active_blocks(function, block, shmem) -> blocks per multiprocessor */
static PyObject *cu_active_blocks(PyObject *mod, PyObject *args)
{
    PyObject *fobj = NULL;
    Py_ssize_t shmem = 0;
    int block = 0, blocks = 0;
    if (!PyArg_ParseTuple(args, "Oin:_cuda_occupancy_active_blocks", &fobj, &block, &shmem))
        return NULL;
    void *f = PyLong_AsVoidPtr(fobj);
    if (!f && PyErr_Occurred())
        return NULL;
    TRY(cudrv_occupancy_active_blocks((CudrvFunction)f, block, (size_t)shmem, &blocks));
    return PyLong_FromLong(blocks);
}

/* ---- packing plans ---- */

static size_t align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

static int add_slot(CuSpec *s, unsigned size)
{
    if (s->nslots >= MAX_SLOTS)
        return -1;
    size_t off = align_up(s->bytes, size);
    if (off + size > MAX_PARAM_BYTES)
        return -1;
    s->offset[s->nslots] = (uint16_t)off;
    s->size[s->nslots] = (uint8_t)size;
    s->nslots++;
    s->bytes = off + size;
    return 0;
}

static unsigned scalar_size(char c)
{
    switch (c) {
    case '?': case 'b': case 'B': return 1;
    case 'h': case 'H': case 'e': return 2;
    case 'i': case 'I': case 'f': return 4;
    case 'l': case 'L': case 'd': return 8;
    default: return 0;
    }
}

/* Append the slots of the typecode at *tc (advanced); -1 on an unknown
 * typecode or too many slots (ValueError set). */
static int plan_one(CuSpec *s, const char **tc)
{
    char c = **tc;
    unsigned sz = scalar_size(c);
    if (sz) {
        (*tc)++;
        return add_slot(s, sz) < 0 ? -2 : 0;
    }
    if (c == 'F' || c == 'D') {
        (*tc)++;
        sz = c == 'F' ? 4 : 8;
        return (add_slot(s, sz) < 0 || add_slot(s, sz) < 0) ? -2 : 0;
    }
    if (c == 'a' || c == 'r') {
        const char *p = *tc;
        if (!scalar_size(p[1]) && p[1] != 'F' && p[1] != 'D')
            return -1;
        int nd = p[2] - '0';
        if (nd < 0 || nd > HJ_MAX_NDIM || (p[3] != 'C' && p[3] != 'F' && p[3] != 'A'))
            return -1;
        *tc = p + 4;
        for (int i = 0; i < 1 + 2 * nd; i++)
            if (add_slot(s, 8) < 0)
                return -2;
        return 0;
    }
    if (c == '(') {
        (*tc)++;
        while (**tc && **tc != ')') {
            int rc = plan_one(s, tc);
            if (rc < 0)
                return rc;
        }
        if (**tc != ')')
            return -1;
        (*tc)++;
        return 0;
    }
    return -1;
}

static void spec_destroy(PyObject *cap)
{
    PyMem_Free(PyCapsule_GetPointer(cap, SPEC_CAPSULE));
}

/* _cuda_spec(function, (typecode, ...), debug, cooperative=False) -> capsule of a CuSpec. */
static PyObject *cu_spec(PyObject *mod, PyObject *args)
{
    PyObject *fobj = NULL, *tcs = NULL, *cap = NULL;
    int debug = 0, cooperative = 0;
    CuSpec *s = NULL;
    size_t len = 0;
    if (!PyArg_ParseTuple(args, "OO!p|p:_cuda_spec", &fobj, &PyTuple_Type, &tcs, &debug, &cooperative))
        return NULL;
    s = PyMem_Calloc(1, sizeof *s);
    if (!s)
        return PyErr_NoMemory();
    s->fn = (CudrvFunction)PyLong_AsVoidPtr(fobj);
    if (!s->fn && PyErr_Occurred())
        goto error;
    s->debug = debug;
    s->cooperative = cooperative;
    s->nargs = (int)PyTuple_GET_SIZE(tcs);
    if (s->nargs > MAX_ARGS) {
        PyErr_Format(PyExc_ValueError, "a kernel takes at most %d arguments", MAX_ARGS);
        goto error;
    }
    for (int i = 0; i < s->nargs; i++) {
        Py_ssize_t n = 0;
        const char *t = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(tcs, i), &n);
        if (!t)
            goto error;
        if (len + (size_t)n + 1 > sizeof s->tc) {
            PyErr_SetString(PyExc_ValueError, "kernel signature too long");
            goto error;
        }
        const char *p = t;
        int rc = plan_one(s, &p);
        if (rc < 0 || *p) {
            if (rc == -2)
                PyErr_Format(PyExc_ValueError,
                             "kernel parameters exceed %d bytes or %d slots", MAX_PARAM_BYTES,
                             MAX_SLOTS);
            else
                PyErr_Format(PyExc_TypeError, "unsupported kernel argument typecode %R",
                             PyTuple_GET_ITEM(tcs, i));
            goto error;
        }
        memcpy(s->tc + len, t, (size_t)n);
        len += (size_t)n;
    }
    cap = PyCapsule_New(s, SPEC_CAPSULE, spec_destroy);
    if (!cap)
        goto error;
    return cap;
error:
    PyMem_Free(s);
    return NULL;
}

/* Pack one argument of typecode *tc (advanced) into its slots from *slot
 * on (advanced).  -1 with TypeError/OverflowError set. */
static int pack_one(const CuSpec *s, const char **tc, PyObject *obj, char *buf, int *slot)
{
    char c = **tc;
    char *dst = buf + s->offset[*slot];
    switch (c) {
    case '?': {
        int v = PyObject_IsTrue(obj);
        if (v < 0)
            return -1;
        *(uint8_t *)dst = (uint8_t)v;
        break;
    }
    case 'b': case 'h': case 'i': case 'l': case 'B': case 'H': case 'I': case 'L': {
        long long v = 0;
        if (PyFloat_Check(obj) || PyComplex_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "cannot pass %.100s as an integer kernel argument",
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        PyObject *ix = PyNumber_Index(obj);
        if (!ix)
            return -1;
        if (c == 'L') {
            v = (long long)PyLong_AsUnsignedLongLongMask(ix);
        } else {
            v = PyLong_AsLongLong(ix);
        }
        Py_DECREF(ix);
        if (v == -1 && PyErr_Occurred())
            return -1;
        /* wrap to the parameter's width, as a C cast (and NumPy) would */
        switch (scalar_size(c)) {
        case 1: *(int8_t *)dst = (int8_t)v; break;
        case 2: *(int16_t *)dst = (int16_t)v; break;
        case 4: *(int32_t *)dst = (int32_t)v; break;
        default: *(int64_t *)dst = (int64_t)v; break;
        }
        break;
    }
    case 'e': { /* float16: an np.float16 keeps its bits, anything else rounds as np.float16(x) */
        uint16_t h;
        if (PyArray_IsScalar(obj, Half)) {
            PyArray_ScalarAsCtype(obj, &h);
        } else {
            double v = PyFloat_AsDouble(obj);
            if (v == -1.0 && PyErr_Occurred())
                return -1;
            h = tc_double_to_half(v);
        }
        memcpy(dst, &h, sizeof h);
        break;
    }
    case 'f': case 'd': {
        double v = PyFloat_AsDouble(obj);
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        if (c == 'f')
            *(float *)dst = (float)v;
        else
            *(double *)dst = v;
        break;
    }
    case 'F': case 'D': {
        Py_complex z = PyComplex_AsCComplex(obj);
        if (z.real == -1.0 && PyErr_Occurred())
            return -1;
        char *im = buf + s->offset[*slot + 1];
        if (c == 'F') {
            *(float *)dst = (float)z.real;
            *(float *)im = (float)z.imag;
        } else {
            *(double *)dst = z.real;
            *(double *)im = z.imag;
        }
        (*slot)++;
        break;
    }
    case 'a': case 'r': {
        int nd = (*tc)[2] - '0';
        PyObject *desc = NULL;
        if (!array_type || !PyObject_TypeCheck(obj, (PyTypeObject *)array_type)) {
            PyErr_Format(PyExc_TypeError, "expected a device array, got %.100s",
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        desc = PyObject_GetAttr(obj, str_desc);
        if (!desc)
            return -1;
        if (!PyBytes_Check(desc) || PyBytes_GET_SIZE(desc) != (Py_ssize_t)(8 * (1 + 2 * nd))) {
            PyErr_Format(PyExc_TypeError, "device array of the wrong dimension for a %d-D parameter", nd);
            Py_DECREF(desc);
            return -1;
        }
        /* the array's slots are consecutive u64s: one memcpy */
        memcpy(dst, PyBytes_AS_STRING(desc), (size_t)(8 * (1 + 2 * nd)));
        Py_DECREF(desc);
        *tc += 4;
        *slot += 1 + 2 * nd;
        return 0;
    }
    case '(': {
        Py_ssize_t i = 0;
        if (!PyTuple_Check(obj)) {
            PyErr_Format(PyExc_TypeError, "expected a tuple kernel argument, got %.100s",
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
        (*tc)++;
        while (**tc != ')') {
            if (i >= PyTuple_GET_SIZE(obj)) {
                PyErr_SetString(PyExc_TypeError, "tuple kernel argument too short");
                return -1;
            }
            if (pack_one(s, tc, PyTuple_GET_ITEM(obj, i), buf, slot) < 0)
                return -1;
            i++;
        }
        if (i != PyTuple_GET_SIZE(obj)) {
            PyErr_SetString(PyExc_TypeError, "tuple kernel argument too long");
            return -1;
        }
        (*tc)++;
        return 0;
    }
    default:
        PyErr_Format(PyExc_TypeError, "unsupported kernel typecode '%c'", c);
        return -1;
    }
    (*tc)++;
    (*slot)++;
    return 0;
}

static int pack_args(const CuSpec *s, PyObject *const *args, Py_ssize_t nargs, char *buf)
{
    const char *tc = s->tc;
    int slot = 0;
    if (nargs != s->nargs) {
        PyErr_Format(PyExc_TypeError, "kernel takes %d arguments, %zd given", s->nargs, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        if (pack_one(s, &tc, args[i], buf, &slot) < 0)
            return -1;
    return 0;
}

/* A launch dimension: int or sequence of 1-3 ints. */
static int dims_of(PyObject *obj, unsigned out[3], const char *what)
{
    out[0] = out[1] = out[2] = 1;
    if (PyLong_Check(obj) || (PyIndex_Check(obj) && !PySequence_Check(obj))) {
        long v = PyLong_AsLong(obj); /* NumPy integers through __index__ */
        if (v < 0 || v > 0x7fffffffL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s must be non-negative, got %ld", what, v);
            return -1;
        }
        out[0] = (unsigned)v;
        return 0;
    }
    PyObject *seq = PySequence_Fast(obj, "");
    if (!seq) {
        PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1-3 ints, got %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 3) {
        PyErr_Format(PyExc_ValueError, "%s must have 1 to 3 dimensions, got %zd", what, n);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v < 0 || v > 0x7fffffffL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "%s must be non-negative, got %ld", what, v);
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (unsigned)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* The typecode of a launch argument for the fast path's key; 1 when the
 * argument needs the Python slow path (host arrays, foreign device arrays,
 * anything unusual). */
static int key_of(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    if (array_type && PyObject_TypeCheck(obj, (PyTypeObject *)array_type)) {
        PyObject *tc = PyObject_GetAttr(obj, str_tc);
        Py_ssize_t n = 0;
        const char *t = tc ? PyUnicode_AsUTF8AndSize(tc, &n) : NULL;
        if (!t) {
            Py_XDECREF(tc);
            return -1;
        }
        if (*len + (size_t)n >= cap) {
            Py_DECREF(tc);
            return 1;
        }
        memcpy(buf + *len, t, (size_t)n);
        *len += (size_t)n;
        Py_DECREF(tc);
        return 0;
    }
    if (PyBool_Check(obj) || PyLong_CheckExact(obj) || PyFloat_CheckExact(obj) ||
        PyComplex_CheckExact(obj) || PyArray_IsScalar(obj, Generic))
        return cv_typecode(obj, buf, len, cap) < 0 ? 1 : 0;
    return 1;
}

/* Kernels get 48 KiB of dynamic shared memory without asking; more needs
 * cuFuncSetAttribute once (up to the device's opt-in maximum). */
#define DEFAULT_DYN_SHARED (48 * 1024)

static PyObject *launch(CuSpec *s, PyObject *grid, PyObject *block, PyObject *stream,
                        PyObject *shmem_obj, PyObject *const *args, Py_ssize_t nargs, int coop)
{
    unsigned g[3], b[3];
    CudrvStream st = NULL;
    _Alignas(16) char buf[MAX_PARAM_BYTES];
    void *params[MAX_SLOTS];
    long shmem = 0;
    CudrvStatus rc;
    if (dims_of(grid, g, "griddim") < 0 || dims_of(block, b, "blockdim") < 0 ||
        stream_of(stream, &st) < 0)
        return NULL;
    if (shmem_obj != Py_None) {
        shmem = PyLong_AsLong(shmem_obj);
        if (shmem < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "dynamic shared memory size must be >= 0");
            return NULL;
        }
    }
    if (pack_args(s, args, nargs, buf) < 0)
        return NULL;
    if (shmem > DEFAULT_DYN_SHARED && shmem > s->dyn_shared_set) {
        rc = cudrv_func_set_max_dynamic_shared(s->fn, (int)shmem);
        if (rc != CUDRV_OK)
            return raise_status(rc);
        s->dyn_shared_set = (int)shmem;
    }
    for (int i = 0; i < s->nslots; i++)
        params[i] = buf + s->offset[i];
    coop = coop || s->cooperative;
    Py_BEGIN_ALLOW_THREADS rc = cudrv_launch(s->fn, g, b, (unsigned)shmem, st, params, coop);
    Py_END_ALLOW_THREADS if (rc != CUDRV_OK) return raise_status(rc);
    Py_RETURN_NONE;
}

/* _cuda_launch(specs, grid, block, stream, shmem, *args): the fast path.
 * Returns None after a launch, NotImplemented when the Python slow path
 * must run (no specialisation for these types, or an argument it must
 * convert), or the spec's capsule after launching a debug kernel (the
 * caller then reads its error word). */
static PyObject *cu_launch(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    char key[HJ_MAX_TYPECODE];
    size_t len = 0;
    PyObject *k = NULL, *cap = NULL, *r = NULL;
    if (nargs < 5 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "_cuda_launch(specs, grid, block, stream, shmem, *args)");
        return NULL;
    }
    for (Py_ssize_t i = 5; i < nargs; i++) {
        int rc = key_of(args[i], key, &len, sizeof key);
        if (rc < 0)
            return NULL;
        if (rc > 0)
            Py_RETURN_NOTIMPLEMENTED;
    }
    k = PyUnicode_FromStringAndSize(key, (Py_ssize_t)len);
    if (!k)
        return NULL;
    cap = PyDict_GetItemWithError(args[0], k); /* borrowed */
    Py_DECREF(k);
    if (!cap) {
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    CuSpec *s = PyCapsule_GetPointer(cap, SPEC_CAPSULE);
    if (!s)
        return NULL;
    r = launch(s, args[1], args[2], args[3], args[4], args + 5, nargs - 5, 0);
    if (r && s->debug) {
        Py_DECREF(r);
        return Py_NewRef(cap);
    }
    return r;
}

/* _cuda_launch_spec(spec, grid, block, stream, shmem, cooperative, *args):
 * launch one specialisation, converting the arguments to its types. */
static PyObject *cu_launch_spec(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 6) {
        PyErr_SetString(PyExc_TypeError,
                        "_cuda_launch_spec(spec, grid, block, stream, shmem, cooperative, *args)");
        return NULL;
    }
    CuSpec *s = PyCapsule_GetPointer(args[0], SPEC_CAPSULE);
    if (!s)
        return NULL;
    int coop = PyObject_IsTrue(args[5]);
    if (coop < 0)
        return NULL;
    return launch(s, args[1], args[2], args[3], args[4], args + 6, nargs - 6, coop);
}

/* _cuda_pack(spec, args) -> list of bytes, one per PTX parameter slot:
 * what a launch would pass (for tests of the packing plans). */
static PyObject *cu_pack(PyObject *mod, PyObject *a)
{
    PyObject *cap = NULL, *tup = NULL, *out = NULL;
    _Alignas(16) char buf[MAX_PARAM_BYTES];
    if (!PyArg_ParseTuple(a, "OO!:_cuda_pack", &cap, &PyTuple_Type, &tup))
        return NULL;
    const CuSpec *s = PyCapsule_GetPointer(cap, SPEC_CAPSULE);
    if (!s)
        return NULL;
    memset(buf, 0, sizeof buf);
    if (pack_args(s, &PyTuple_GET_ITEM(tup, 0), PyTuple_GET_SIZE(tup), buf) < 0)
        return NULL;
    out = PyList_New(s->nslots);
    if (!out)
        return NULL;
    for (int i = 0; i < s->nslots; i++) {
        PyObject *b = PyBytes_FromStringAndSize(buf + s->offset[i], s->size[i]);
        if (!b) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, b);
    }
    return out;
}

/* _cuda_spec_info(spec) -> (function, debug, nslots, bytes, typecodes) */
static PyObject *cu_spec_info(PyObject *mod, PyObject *cap)
{
    const CuSpec *s = PyCapsule_GetPointer(cap, SPEC_CAPSULE);
    if (!s)
        return NULL;
    return Py_BuildValue("(Niins)", PyLong_FromVoidPtr(s->fn), s->debug, s->nslots,
                         (Py_ssize_t)s->bytes, s->tc);
}

/* ---- NCCL (runtime/ccl.c): device-array collectives for hpcjit.mpi ---- */

static PyObject *raise_ccl(int rc)
{
    PyErr_SetString(rc == -2 && support_error ? support_error : PyExc_RuntimeError, ccl_last_error());
    return NULL;
}

/* _nccl_status() -> (ok, message) */
static PyObject *cu_nccl_status(PyObject *mod, PyObject *unused)
{
    int rc = ccl_init();
    return Py_BuildValue("(Os)", rc == 0 ? Py_True : Py_False, rc == 0 ? "" : ccl_last_error());
}

static PyObject *cu_nccl_version(PyObject *mod, PyObject *unused)
{
    int v = 0, rc = ccl_version(&v);
    if (rc)
        return raise_ccl(rc);
    return PyLong_FromLong(v);
}

static PyObject *cu_nccl_unique_id(PyObject *mod, PyObject *unused)
{
    unsigned char id[CCL_ID_BYTES];
    int rc = ccl_unique_id(id);
    if (rc)
        return raise_ccl(rc);
    return PyBytes_FromStringAndSize((const char *)id, CCL_ID_BYTES);
}

/* _nccl_comm_init(nranks, id, rank) -> handle (collective: waits for all ranks) */
static PyObject *cu_nccl_comm_init(PyObject *mod, PyObject *args)
{
    int nranks = 0, rank = 0, rc;
    const char *id = NULL;
    Py_ssize_t n = 0;
    void *comm = NULL;
    if (!PyArg_ParseTuple(args, "iy#i:_nccl_comm_init", &nranks, &id, &n, &rank))
        return NULL;
    if (n != CCL_ID_BYTES) {
        PyErr_Format(PyExc_ValueError, "an NCCL unique id has %d bytes, got %zd", CCL_ID_BYTES, n);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS rc = ccl_comm_init(&comm, nranks, (const unsigned char *)id, rank);
    Py_END_ALLOW_THREADS if (rc) return raise_ccl(rc);
    return PyLong_FromVoidPtr(comm);
}

static PyObject *cu_nccl_comm_end(PyObject *mod, PyObject *args)
{
    PyObject *h = NULL;
    int abort_it = 0, rc;
    if (!PyArg_ParseTuple(args, "Op:_nccl_comm_end", &h, &abort_it))
        return NULL;
    void *comm = PyLong_AsVoidPtr(h);
    if (!comm && PyErr_Occurred())
        return NULL;
    Py_BEGIN_ALLOW_THREADS rc = abort_it ? ccl_comm_abort(comm) : ccl_comm_destroy(comm);
    Py_END_ALLOW_THREADS if (rc) return raise_ccl(rc);
    Py_RETURN_NONE;
}

/* _nccl_collective(kind, send, recv, count, dtype, op, root, comm, stream):
 * kind 0 allreduce, 1 reduce, 2 bcast, 3 allgather, 4 reduce_scatter;
 * pointers and handles as ints; enqueued on the stream (not waited for). */
static PyObject *cu_nccl_collective(PyObject *mod, PyObject *args)
{
    int kind = 0, dtype = 0, op = 0, root = 0, rc = 0;
    unsigned long long send = 0, recv = 0;
    Py_ssize_t count = 0;
    PyObject *cobj = NULL, *sobj = NULL;
    CudrvStream s = NULL;
    if (!PyArg_ParseTuple(args, "iKKniiiOO:_nccl_collective", &kind, &send, &recv, &count, &dtype,
                          &op, &root, &cobj, &sobj))
        return NULL;
    void *comm = PyLong_AsVoidPtr(cobj);
    if ((!comm && PyErr_Occurred()) || stream_of(sobj, &s) < 0)
        return NULL;
    const void *sp = (const void *)(uintptr_t)send;
    void *rp = (void *)(uintptr_t)recv;
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case 0: rc = ccl_allreduce(sp, rp, (size_t)count, dtype, op, comm, s); break;
    case 1: rc = ccl_reduce(sp, rp, (size_t)count, dtype, op, root, comm, s); break;
    case 2: rc = ccl_bcast(sp, rp, (size_t)count, dtype, root, comm, s); break;
    case 3: rc = ccl_allgather(sp, rp, (size_t)count, dtype, comm, s); break;
    default: rc = ccl_reduce_scatter(sp, rp, (size_t)count, dtype, op, comm, s); break;
    }
    Py_END_ALLOW_THREADS
    if (rc)
        return raise_ccl(rc);
    Py_RETURN_NONE;
}

PyMethodDef cu_methods[] = {
    {"_cuda_set_errors", cu_set_errors, METH_VARARGS, "Register hpcjit.cuda's error classes and DeviceNDArray."},
    {"_cuda_init", cu_init, METH_NOARGS, "Load the CUDA driver (CudaSupportError without one)."},
    {"_cuda_status", cu_status, METH_NOARGS, "(status, message) of loading the CUDA driver."},
    {"_cuda_library", cu_library, METH_NOARGS, "The CUDA driver library path tried."},
    {"_cuda_driver_version", cu_driver_version, METH_NOARGS, NULL},
    {"_cuda_device_count", cu_device_count, METH_NOARGS, NULL},
    {"_cuda_device_name", cu_device_name, METH_O, NULL},
    {"_cuda_device_attribute", cu_device_attribute, METH_VARARGS, NULL},
    {"_cuda_device_total_mem", cu_device_total_mem, METH_O, NULL},
    {"_cuda_set_device", cu_set_device, METH_O, NULL},
    {"_cuda_current_device", cu_current_device, METH_NOARGS, NULL},
    {"_cuda_synchronize", cu_synchronize, METH_NOARGS, NULL},
    {"_cuda_mem_info", cu_mem_info, METH_NOARGS, NULL},
    {"_cuda_shutdown", cu_shutdown, METH_NOARGS, NULL},
    {"_cuda_malloc", cu_malloc, METH_O, NULL},
    {"_cuda_managed_alloc", cu_managed_alloc, METH_O, NULL},
    {"_cuda_free", cu_free, METH_VARARGS, NULL},
    {"_cuda_flush_frees", cu_flush_frees, METH_NOARGS, NULL},
    {"_cuda_pending_frees", cu_pending_frees, METH_NOARGS, NULL},
    {"_cuda_host_alloc", cu_host_alloc, METH_VARARGS, NULL},
    {"_cuda_host_free", cu_host_free, METH_O, NULL},
    {"_cuda_host_device_pointer", cu_host_device_pointer, METH_O, NULL},
    {"_cuda_copy", cu_copy, METH_VARARGS, NULL},
    {"_cuda_memset", cu_memset, METH_VARARGS, NULL},
    {"_cuda_ipc_get_handle", cu_ipc_get_handle, METH_O, NULL},
    {"_cuda_ipc_open", cu_ipc_open, METH_O, NULL},
    {"_cuda_ipc_close", cu_ipc_close, METH_O, NULL},
    {"_cuda_stream_create", cu_stream_create, METH_O, NULL},
    {"_cuda_stream_destroy", cu_stream_destroy, METH_O, NULL},
    {"_cuda_stream_synchronize", cu_stream_synchronize, METH_O, NULL},
    {"_cuda_stream_query", cu_stream_query, METH_O, NULL},
    {"_cuda_stream_wait_event", cu_stream_wait_event, METH_VARARGS, NULL},
    {"_cuda_event_create", cu_event_create, METH_O, NULL},
    {"_cuda_event_destroy", cu_event_destroy, METH_O, NULL},
    {"_cuda_event_record", cu_event_record, METH_VARARGS, NULL},
    {"_cuda_event_synchronize", cu_event_synchronize, METH_O, NULL},
    {"_cuda_event_query", cu_event_query, METH_O, NULL},
    {"_cuda_event_elapsed", cu_event_elapsed, METH_VARARGS, NULL},
    {"_cuda_module_load", cu_module_load, METH_O, NULL},
    {"_cuda_module_unload", cu_module_unload, METH_O, NULL},
    {"_cuda_module_function", cu_module_function, METH_VARARGS, NULL},
    {"_cuda_module_global", cu_module_global, METH_VARARGS, NULL},
    {"_cuda_func_attribute", cu_func_attribute, METH_VARARGS, NULL},
    {"_cuda_func_set_max_dynamic_shared", cu_func_set_shared, METH_VARARGS, NULL},
    {"_cuda_occupancy_block_size", cu_occupancy, METH_VARARGS, NULL},
    {"_cuda_occupancy_active_blocks", cu_active_blocks, METH_VARARGS, NULL},
    {"_cuda_spec", cu_spec, METH_VARARGS, "Packing plan of a kernel specialisation."},
    {"_cuda_spec_info", cu_spec_info, METH_O, NULL},
    {"_cuda_launch", (PyCFunction)(void (*)(void))cu_launch, METH_FASTCALL, "Kernel launch fast path."},
    {"_cuda_launch_spec", (PyCFunction)(void (*)(void))cu_launch_spec, METH_FASTCALL, NULL},
    {"_cuda_pack", cu_pack, METH_VARARGS, "The parameter slots a launch would pass (tests)."},
    {"_nccl_status", cu_nccl_status, METH_NOARGS, "(ok, message) of loading NCCL."},
    {"_nccl_version", cu_nccl_version, METH_NOARGS, NULL},
    {"_nccl_unique_id", cu_nccl_unique_id, METH_NOARGS, NULL},
    {"_nccl_comm_init", cu_nccl_comm_init, METH_VARARGS, NULL},
    {"_nccl_comm_end", cu_nccl_comm_end, METH_VARARGS, NULL},
    {"_nccl_collective", cu_nccl_collective, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
