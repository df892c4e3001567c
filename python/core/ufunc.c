/* ufunc.c - NumPy ufuncs whose loops are compiled element loops
 * (hpcjit.vectorize).  The compiler makes, per signature, an
 * HJ_ENTRY_UFUNC_LOOP function (include/hpcjit/compiler.h); this file wraps
 * those in NumPy's loop convention and builds the np.ufunc, so broadcasting,
 * out=, where=, dtype=, reduce/accumulate/outer/at come from NumPy itself.
 * target="parallel" loops split the elements over the pinned pool. */
#include "core.h"

#define PY_UFUNC_UNIQUE_SYMBOL hpcjit_core_UFUNC_API
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes" /* NumPy 2's PyUFunc_ImportUFuncAPI() */
#include <numpy/ufuncobject.h>
#pragma GCC diagnostic pop

#include "hpcjit/pool.h"

#include <string.h>

typedef int32_t (*UfLoopFn)(char **args, int64_t n, const int64_t *steps);

typedef struct UfLoop {
    UfLoopFn fn;
    int nargs;    /* inputs + the output */
    int parallel; /* split over the pool when large */
} UfLoop;

/* Elements below which a parallel ufunc stays on the calling thread. */
#define UF_PAR_GRAIN 16384

typedef struct UfChunk {
    const UfLoop *lp;
    char **args;
    const int64_t *steps;
} UfChunk;

/* A pool body: the elements [begin, end) on one thread. */
static int chunk_body(void *ctx, int64_t begin, int64_t end, int thread_id) {
    const UfChunk *c = ctx;
    char *a[NPY_MAXARGS];
    for (int k = 0; k < c->lp->nargs; k++)
        a[k] = c->args[k] + begin * c->steps[k];
    return c->lp->fn(a, end - begin, c->steps) == 0 ? 0 : -1;
}

/* NumPy's legacy inner loop: may run without the GIL (NumPy releases it
 * for numeric loops), so the exception is set after taking it. */
static void uf_loop(char **args, const npy_intp *dims, const npy_intp *steps, void *data) {
    const UfLoop *lp = data;
    int64_t n = (int64_t)dims[0];
    int rc;
    if (lp->parallel && n >= 2 * UF_PAR_GRAIN && pool_get_num_threads() > 1) {
        UfChunk c = {lp, args, (const int64_t *)steps};
        rc = pool_parallel_for(n, chunk_body, &c, POOL_STATIC, 0);
    } else {
        rc = lp->fn(args, n, (const int64_t *)steps);
    }
    if (rc != 0) {
        PyGILState_STATE g = PyGILState_Ensure();
        if (!PyErr_Occurred())
            core_raise_pending();
        PyGILState_Release(g);
    }
}

_Static_assert(sizeof(npy_intp) == sizeof(int64_t), "npy_intp is 64-bit");

/* Everything a ufunc's arrays need, in one block freed with the ufunc (its
 * `obj` holds the capsule). */
typedef struct UfBlock {
    PyUFuncGenericFunction *funcs;
    void **data;
    char *types;
    UfLoop *loops;
    char *name, *doc;
} UfBlock;

static void free_block(UfBlock *b) {
    PyMem_Free(b->funcs);
    PyMem_Free(b->data);
    PyMem_Free(b->types);
    PyMem_Free(b->loops);
    PyMem_Free(b->name);
    PyMem_Free(b->doc);
    PyMem_Free(b);
}

static void block_free(PyObject *cap) {
    UfBlock *b = PyCapsule_GetPointer(cap, "hpcjit.ufunc");
    if (b)
        free_block(b);
}

static char *copy_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = PyMem_Malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int umath_ready = 0;

/* make_ufunc(name, doc, nin, identity, loops, parallel) -> np.ufunc;
 * loops: [(type numbers nin+1, loop address), ...]. */
static PyObject *core_make_ufunc(PyObject *mod, PyObject *args) {
    const char *name = NULL, *doc = NULL;
    int nin = 0, identity = PyUFunc_None, parallel = 0;
    PyObject *loops = NULL, *cap = NULL, *uf = NULL;
    UfBlock *b = NULL;
    if (!PyArg_ParseTuple(args, "ssiiO!p:make_ufunc", &name, &doc, &nin, &identity, &PyList_Type, &loops,
                          &parallel))
        return NULL;
    if (!umath_ready) {
#if NPY_ABI_VERSION >= 0x02000000
        if (PyUFunc_ImportUFuncAPI() < 0)
            return NULL;
#else
        if (_import_umath() < 0)
            return NULL;
#endif
        umath_ready = 1;
    }
    Py_ssize_t nt = PyList_GET_SIZE(loops);
    int nargs = nin + 1;
    if (nin < 1 || nargs > NPY_MAXARGS || nt < 1) {
        PyErr_SetString(PyExc_ValueError, "make_ufunc: bad arity or no loops");
        return NULL;
    }
    b = PyMem_Calloc(1, sizeof *b);
    if (!b)
        return PyErr_NoMemory();
    b->funcs = PyMem_Calloc((size_t)nt, sizeof *b->funcs);
    b->data = PyMem_Calloc((size_t)nt, sizeof *b->data);
    b->types = PyMem_Calloc((size_t)(nt * nargs), 1);
    b->loops = PyMem_Calloc((size_t)nt, sizeof *b->loops);
    b->name = copy_str(name);
    b->doc = copy_str(doc);
    cap = PyCapsule_New(b, "hpcjit.ufunc", block_free);
    if (!cap) {
        free_block(b);
        return NULL;
    }
    if (!b->funcs || !b->data || !b->types || !b->loops || !b->name || !b->doc) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *item = PyList_GET_ITEM(loops, i), *tys = NULL, *addr = NULL;
        if (!PyArg_ParseTuple(item, "OO", &tys, &addr))
            goto error;
        if (!PyTuple_Check(tys) || PyTuple_GET_SIZE(tys) != nargs) {
            PyErr_SetString(PyExc_ValueError, "make_ufunc: a loop needs nin + 1 type numbers");
            goto error;
        }
        for (int k = 0; k < nargs; k++) {
            long t = PyLong_AsLong(PyTuple_GET_ITEM(tys, k));
            if (t == -1 && PyErr_Occurred())
                goto error;
            b->types[i * nargs + k] = (char)t;
        }
        void *fn = PyLong_AsVoidPtr(addr);
        if (!fn) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "make_ufunc: a NULL loop address");
            goto error;
        }
        b->loops[i].fn = (UfLoopFn)(uintptr_t)fn;
        b->loops[i].nargs = nargs;
        b->loops[i].parallel = parallel;
        b->funcs[i] = uf_loop;
        b->data[i] = &b->loops[i];
    }
    uf = PyUFunc_FromFuncAndData(b->funcs, b->data, b->types, (int)nt, nin, 1, identity, b->name, b->doc, 0);
    if (!uf)
        goto error;
    ((PyUFuncObject *)uf)->obj = cap; /* freed with the ufunc */
    return uf;
error:
    Py_XDECREF(cap);
    return NULL;
}

PyMethodDef uf_methods[] = {
    {"make_ufunc", core_make_ufunc, METH_VARARGS,
     "make_ufunc(name, doc, nin, identity, [(type numbers, loop address), ...], parallel) -> np.ufunc"},
    {NULL, NULL, 0, NULL},
};
