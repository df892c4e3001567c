/* module.c - hpcjit._core: the dispatcher and the runtime, without LLVM. */
#define CORE_IMPORT_ARRAY
#include "core.h"

#include "hpcjit/linalg.h"
#include "hpcjit/objload.h"
#include "hpcjit/signals.h"
#include "hpcjit/str.h"

static PyObject *core_runtime_symbols(PyObject *mod, PyObject *unused)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    for (const RtSymbol *s = rt_symbols(); s->name; s++) {
        PyObject *item = Py_BuildValue("(sN)", s->name, PyLong_FromVoidPtr(s->address));
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
    }
    return list;
}

/* hpcjit.mpi.init(): install hpcjit._mpi's table of MPI functions for
 * compiled code (a PyCapsule "hpcjit._mpi.hooks" of a static RtMpiHooks in
 * that extension, which is never unloaded); None removes it. */
static PyObject *core_set_mpi_hooks(PyObject *mod, PyObject *capsule)
{
    const RtMpiHooks *h = NULL;
    if (capsule != Py_None) {
        h = PyCapsule_GetPointer(capsule, "hpcjit._mpi.hooks");
        if (!h)
            return NULL;
    }
    if (rt_mpi_set_hooks(h) < 0) {
        PyErr_Format(PyExc_RuntimeError, "hpcjit._mpi's MPI table has version %d, hpcjit._core expects %d "
                     "(rebuild hpcjit)", h->version, RT_MPI_HOOKS_VERSION);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *core_memstats(PyObject *mod, PyObject *unused)
{
    RtMemStats s = rt_memstats();
    return Py_BuildValue("(LL)", (long long)s.alloc, (long long)s.free);
}

/* memory_debug(since=-1) -> dict: the allocation-owner debug mode's counts
 * (runtime/memdebug.c); with since >= 0 also "live": the allocations still
 * live whose sequence number is above `since`, as (seq, size, owner) tuples. */
static PyObject *core_memory_debug(PyObject *mod, PyObject *args)
{
    long long since = -1;
    PyObject *d = NULL, *live = NULL, *item = NULL;
    RtMemDebugEntry *buf = NULL;
    if (!PyArg_ParseTuple(args, "|L:memory_debug", &since))
        return NULL;
    RtMemDebugStats s = rt_memdebug_stats();
    d = Py_BuildValue("{s:O,s:L,s:L,s:L}", "enabled", s.enabled ? Py_True : Py_False, "allocations",
                      (long long)s.allocations, "live_count", (long long)s.live, "errors", (long long)s.errors);
    if (!d || since < 0 || !s.enabled)
        return d;
    int64_t n = rt_memdebug_live(NULL, 0, since);
    buf = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *buf);
    if (!buf) {
        PyErr_NoMemory();
        goto error;
    }
    int64_t got = rt_memdebug_live(buf, n, since);
    if (got > n)
        got = n; /* more appeared meanwhile (another thread) */
    live = PyList_New(0);
    if (!live)
        goto error;
    for (int64_t i = 0; i < got; i++) {
        item = Py_BuildValue("(LLs)", (long long)buf[i].seq, (long long)buf[i].size, buf[i].owner_name);
        if (!item || PyList_Append(live, item) < 0)
            goto error;
        Py_CLEAR(item);
    }
    if (PyDict_SetItemString(d, "live", live) < 0)
        goto error;
    Py_DECREF(live);
    PyMem_Free(buf);
    return d;
error:
    Py_XDECREF(item);
    Py_XDECREF(live);
    Py_XDECREF(d);
    PyMem_Free(buf);
    return NULL;
}

/* The BLAS/LAPACK library compiled code uses (loaded now if it was not):
 * what HPCJIT_BLAS_LIB or the search found, or None when none loads. */
static PyObject *core_linalg_library(PyObject *mod, PyObject *unused)
{
    const char *name = rt_linalg_library();
    if (!name)
        Py_RETURN_NONE;
    return PyUnicode_FromString(name);
}

/* _load_object(object, symbol) -> address: load object bytes without LLVM
 * (runtime/objload.c); raises ImportError with the loader's reason when it
 * refuses the object, and the caller loads it through LLVM instead. */
static PyObject *core_load_object(PyObject *mod, PyObject *args)
{
    const char *object = NULL, *symbol = NULL;
    Py_ssize_t size = 0;
    char err[256];
    void *addr = NULL;
    if (!PyArg_ParseTuple(args, "y#s:_load_object", &object, &size, &symbol))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    addr = rt_obj_load(object, (size_t)size, symbol, err, sizeof err);
    Py_END_ALLOW_THREADS
    if (!addr) {
        PyErr_SetString(PyExc_ImportError, err);
        return NULL;
    }
    return PyLong_FromVoidPtr(addr);
}

/* _signal_hook(signum) -> bool: compiled loops answer `signum` (see
 * runtime/signals.c); False when it has no Python handler to chain to.
 * Call it from the main thread, after signal.signal(). */
static PyObject *core_signal_hook(PyObject *mod, PyObject *arg)
{
    int sig = (int)PyLong_AsLong(arg);
    if (sig == -1 && PyErr_Occurred())
        return NULL;
    int rc = rt_signal_hook(sig);
    if (rc < 0) {
        PyErr_Format(PyExc_ValueError, "cannot hook signal %d", sig);
        return NULL;
    }
    return PyBool_FromLong(rc == 0);
}

/* For tests: raise through the runtime exactly as compiled code does. */
static PyObject *core_test_raise(PyObject *mod, PyObject *args)
{
    const char *type = NULL, *msg = NULL;
    if (!PyArg_ParseTuple(args, "sz:_test_raise", &type, &msg))
        return NULL;
    rt_raise(type, msg);
    return PyBool_FromLong(rt_exc_pending());
}

static PyMethodDef core_methods[] = {
    {"_runtime_symbols", core_runtime_symbols, METH_NOARGS,
     "List of (name, address) of the runtime functions compiled code calls."},
    {"_set_mpi_hooks", core_set_mpi_hooks, METH_O,
     "Install hpcjit._mpi's MPI functions for compiled code (a capsule), or remove them (None)."},
    {"memstats", core_memstats, METH_NOARGS, "(allocations, frees) of array memory so far."},
    {"_register_exception", core_register_exception, METH_VARARGS,
     "_register_exception(key, cls): compiled code raises cls under key (compiler.py _exc_class)."},
    {"memory_debug", core_memory_debug, METH_VARARGS,
     "memory_debug(since=-1): HPCJIT_DEBUG_MEMORY's counts; since >= 0 adds the live allocations after that sequence number."},
    {"linalg_library", core_linalg_library, METH_NOARGS,
     "The BLAS/LAPACK library np.dot/np.linalg in compiled code use (loaded on this call), or None."},
    {"_load_object", core_load_object, METH_VARARGS,
     "Load ELF object bytes without LLVM: (object, symbol) -> address."},
    {"_signal_hook", core_signal_hook, METH_O,
     "Make compiled loops answer this signal's Python handler (main thread, after signal.signal)."},
    {"_test_raise", core_test_raise, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

#if PY_VERSION_HEX >= 0x030D0000
/* CPython 3.13 moved the key to an internal header (pycore_pyhash.h); the
 * symbol is still exported (for _elementtree), with this layout */
typedef union {
    unsigned char uc[24];
    struct {
        uint64_t k0, k1;
    } siphash;
} HashSecret;
PyAPI_DATA(HashSecret) _Py_HashSecret;
#endif

static int core_exec(PyObject *mod)
{
    CoreState *st = PyModule_GetState(mod);
    /* str hashes equal to CPython's: its SipHash key (hpcjit/str.h) */
    rt_str_hash_seed(_Py_HashSecret.siphash.k0, _Py_HashSecret.siphash.k1);
    /* NumPy 2 headers provide the int-returning importer; 1.x headers only
     * the macro that returns NULL, so call the function behind it. */
#if NPY_ABI_VERSION >= 0x02000000
    if (PyArray_ImportNumPyAPI() < 0)
        return -1;
#else
    if (_import_array() < 0)
        return -1;
#endif
    st->dispatcher_type = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &dp_dispatcher_spec, NULL);
    if (!st->dispatcher_type)
        return -1;
    if (PyModule_AddType(mod, st->dispatcher_type) < 0)
        return -1;
    st->owner_type = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &cv_owner_spec, NULL);
    if (!st->owner_type)
        return -1;
    if (PyModule_AddType(mod, st->owner_type) < 0)
        return -1;
    if (PyModule_AddIntConstant(mod, "MAX_NDIM", HJ_MAX_NDIM) < 0)
        return -1;
    if (PyModule_AddFunctions(mod, pa_methods) < 0 || PyModule_AddFunctions(mod, cu_methods) < 0)
        return -1;
    if (PyModule_AddFunctions(mod, box_str_methods) < 0)
        return -1;
    if (PyModule_AddFunctions(mod, uf_methods) < 0 || PyModule_AddFunctions(mod, gu_methods) < 0)
        return -1;
    if (typed_init(mod) < 0 || gen_init(mod) < 0 || PyModule_AddFunctions(mod, nt_methods) < 0 ||
        PyModule_AddFunctions(mod, rec_methods) < 0 || PyModule_AddFunctions(mod, ext_methods) < 0)
        return -1;
    core_text_install();
    core_str_install();
    core_signals_init();
    core_objmode_install(st);
    return 0;
}

static int core_traverse(PyObject *mod, visitproc visit, void *arg)
{
    CoreState *st = PyModule_GetState(mod);
    if (st) {
        Py_VISIT(st->dispatcher_type);
        Py_VISIT(st->owner_type);
    }
    return 0;
}

static int core_clear(PyObject *mod)
{
    CoreState *st = PyModule_GetState(mod);
    if (st) {
        Py_CLEAR(st->dispatcher_type);
        Py_CLEAR(st->owner_type);
    }
    return 0;
}

static void core_free(void *mod)
{
    rt_signal_set_checker(NULL);
    core_objmode_remove();
    core_clear((PyObject *)mod);
    core_text_remove();
    rt_memory_shutdown();
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hpcjit._core",
    .m_doc = "hpcjit dispatcher and runtime (no LLVM)",
    .m_size = sizeof(CoreState),
    .m_methods = core_methods,
    .m_slots = core_slots,
    .m_traverse = core_traverse,
    .m_clear = core_clear,
    .m_free = core_free,
};

PyMODINIT_FUNC PyInit__core(void);
PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&core_module); }
