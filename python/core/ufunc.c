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

/* Arguments of a ufunc at most (NumPy 1.x: 32; NPY_MAXARGS is not a
 * constant under NumPy 2). */
#define UF_MAXARGS 32

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
    char *a[UF_MAXARGS];
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
    if (nin < 1 || nargs > UF_MAXARGS || nt < 1) {
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

/* ---- generalized ufuncs (hpcjit.guvectorize) --------------------------------
 * The kernel is an ordinary compiled function (the entry of abi.h) taking
 * its inputs and outputs as arguments: an argument with core dimensions
 * is passed as a borrowed HjArray view of its core block, a "()" argument
 * as its scalar.  The loop below runs the kernel once per outer element. */

#define GU_MAXD 8 /* core dimensions of one argument */

typedef int32_t (*GuEntry)(void *ret, void **args);

typedef struct GuArg {
    int ndim;            /* core dimensions; 0: a scalar                    */
    int dims[GU_MAXD];   /* index into NumPy's core dimension sizes; -1: a
                            1-element axis (an array argument of layout "()") */
    int64_t itemsize;
} GuArg;

typedef struct GuLoop {
    GuEntry fn;
    int nargs;
    int parallel;
    GuArg arg[UF_MAXARGS];
} GuLoop;

typedef struct GuCall {
    const GuLoop *lp;
    char **args;
    const npy_intp *dims, *steps;
} GuCall;

/* Outer elements [begin, end): one kernel call each. */
static int gu_range(const GuCall *c, int64_t begin, int64_t end) {
    const GuLoop *lp = c->lp;
    int na = lp->nargs;
    /* the views: HjArray with room for GU_MAXD shape and stride entries */
    struct {
        HjArray a;
        int64_t ss[2 * GU_MAXD];
    } views[UF_MAXARGS];
    void *argp[UF_MAXARGS];
    const npy_intp *core_steps = c->steps + na;
    for (int k = 0; k < na; k++) {
        const GuArg *g = &lp->arg[k];
        if (g->ndim == 0)
            continue;
        HjArray *v = &views[k].a;
        memset(v, 0, sizeof views[k]);
        v->itemsize = g->itemsize;
        v->nitems = 1;
        int used = 0;
        for (int d = 0; d < g->ndim; d++) {
            if (g->dims[d] < 0) { /* an array argument of layout "()": a 1-element view */
                v->shape_strides[d] = 1;
                v->shape_strides[g->ndim + d] = g->itemsize;
                continue;
            }
            v->shape_strides[d] = (int64_t)c->dims[1 + g->dims[d]];
            v->shape_strides[g->ndim + d] = (int64_t)core_steps[used++];
            v->nitems *= v->shape_strides[d];
        }
        core_steps += used;
        argp[k] = v;
    }
    char ret[16];
    for (int64_t i = begin; i < end; i++) {
        for (int k = 0; k < na; k++) {
            char *p = c->args[k] + i * (int64_t)c->steps[k];
            if (lp->arg[k].ndim == 0)
                argp[k] = p;
            else
                views[k].a.data = p;
        }
        if (lp->fn(ret, argp) != 0)
            return -1;
    }
    return 0;
}

static int gu_body(void *ctx, int64_t begin, int64_t end, int thread_id) {
    return gu_range(ctx, begin, end);
}

static void gu_loop(char **args, const npy_intp *dims, const npy_intp *steps, void *data) {
    const GuLoop *lp = data;
    GuCall c = {lp, args, dims, steps};
    int64_t n = (int64_t)dims[0];
    int rc;
    if (lp->parallel && n > 1 && pool_get_num_threads() > 1)
        rc = pool_parallel_for(n, gu_body, &c, POOL_DYNAMIC, 0);
    else
        rc = gu_range(&c, 0, n);
    if (rc != 0) {
        PyGILState_STATE g = PyGILState_Ensure();
        if (!PyErr_Occurred())
            core_raise_pending();
        PyGILState_Release(g);
    }
}

typedef struct GuBlock {
    PyUFuncGenericFunction *funcs;
    void **data;
    char *types;
    GuLoop *loops;
    char *name, *doc, *signature;
} GuBlock;

static void gu_free_block(GuBlock *b) {
    PyMem_Free(b->funcs);
    PyMem_Free(b->data);
    PyMem_Free(b->types);
    PyMem_Free(b->loops);
    PyMem_Free(b->name);
    PyMem_Free(b->doc);
    PyMem_Free(b->signature);
    PyMem_Free(b);
}

static void gu_block_free(PyObject *cap) {
    GuBlock *b = PyCapsule_GetPointer(cap, "hpcjit.gufunc");
    if (b)
        gu_free_block(b);
}

/* make_gufunc(name, doc, signature, nin, nout, argdims, loops, parallel[, writable]):
 * argdims: per argument a tuple of core dimension indices (NumPy's order);
 * loops: [(type numbers nin+nout, entry address), ...]; writable: the
 * input indices the kernel may write (writable_args): NumPy copies a cast
 * operand back after the call. */
static PyObject *core_make_gufunc(PyObject *mod, PyObject *args) {
    const char *name = NULL, *doc = NULL, *sig = NULL;
    int nin = 0, nout = 0, parallel = 0;
    PyObject *argdims = NULL, *loops = NULL, *cap = NULL, *uf = NULL, *writable = NULL;
    if (!PyArg_ParseTuple(args, "sssiiO!O!p|O!:make_gufunc", &name, &doc, &sig, &nin, &nout, &PyList_Type,
                          &argdims, &PyList_Type, &loops, &parallel, &PyList_Type, &writable))
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
    int na = nin + nout;
    Py_ssize_t nt = PyList_GET_SIZE(loops);
    if (nin < 1 || nout < 0 || na > UF_MAXARGS || nt < 1 || PyList_GET_SIZE(argdims) != na) {
        PyErr_SetString(PyExc_ValueError, "make_gufunc: bad arity or no loops");
        return NULL;
    }
    GuBlock *b = PyMem_Calloc(1, sizeof *b);
    if (!b)
        return PyErr_NoMemory();
    b->funcs = PyMem_Calloc((size_t)nt, sizeof *b->funcs);
    b->data = PyMem_Calloc((size_t)nt, sizeof *b->data);
    b->types = PyMem_Calloc((size_t)(nt * na), 1);
    b->loops = PyMem_Calloc((size_t)nt, sizeof *b->loops);
    b->name = copy_str(name);
    b->doc = copy_str(doc);
    b->signature = copy_str(sig);
    cap = PyCapsule_New(b, "hpcjit.gufunc", gu_block_free);
    if (!cap) {
        gu_free_block(b);
        return NULL;
    }
    if (!b->funcs || !b->data || !b->types || !b->loops || !b->name || !b->doc || !b->signature) {
        PyErr_NoMemory();
        goto error;
    }
    GuArg proto[UF_MAXARGS];
    memset(proto, 0, sizeof proto);
    for (int k = 0; k < na; k++) {
        PyObject *t = PyList_GET_ITEM(argdims, k);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) > GU_MAXD) {
            PyErr_SetString(PyExc_ValueError, "make_gufunc: core dimensions of an argument: a tuple of <= 8");
            goto error;
        }
        proto[k].ndim = (int)PyTuple_GET_SIZE(t);
        for (int d = 0; d < proto[k].ndim; d++)
            proto[k].dims[d] = (int)PyLong_AsLong(PyTuple_GET_ITEM(t, d));
    }
    if (PyErr_Occurred())
        goto error;
    for (Py_ssize_t i = 0; i < nt; i++) {
        PyObject *item = PyList_GET_ITEM(loops, i), *tys = NULL, *addr = NULL;
        if (!PyArg_ParseTuple(item, "OO", &tys, &addr))
            goto error;
        if (!PyTuple_Check(tys) || PyTuple_GET_SIZE(tys) != na) {
            PyErr_SetString(PyExc_ValueError, "make_gufunc: a loop needs nin + nout type numbers");
            goto error;
        }
        GuLoop *lp = &b->loops[i];
        memcpy(lp->arg, proto, sizeof proto);
        for (int k = 0; k < na; k++) {
            long t = PyLong_AsLong(PyTuple_GET_ITEM(tys, k));
            if (t == -1 && PyErr_Occurred())
                goto error;
            PyArray_Descr *d = PyArray_DescrFromType((int)t);
            if (!d)
                goto error;
            lp->arg[k].itemsize = (int64_t)PyDataType_ELSIZE(d);
            Py_DECREF(d);
            b->types[i * na + k] = (char)t;
        }
        void *fn = PyLong_AsVoidPtr(addr);
        if (!fn) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "make_gufunc: a NULL entry address");
            goto error;
        }
        lp->fn = (GuEntry)(uintptr_t)fn;
        lp->nargs = na;
        lp->parallel = parallel;
        b->funcs[i] = gu_loop;
        b->data[i] = lp;
    }
    uf = PyUFunc_FromFuncAndDataAndSignature(b->funcs, b->data, b->types, (int)nt, nin, nout, PyUFunc_None,
                                             b->name, b->doc, 0, b->signature);
    if (!uf)
        goto error;
    ((PyUFuncObject *)uf)->obj = cap;
    for (Py_ssize_t i = 0; writable && i < PyList_GET_SIZE(writable); i++) {
        long k = PyLong_AsLong(PyList_GET_ITEM(writable, i));
        if (k < 0 || k >= nin || !((PyUFuncObject *)uf)->op_flags) {
            Py_DECREF(uf);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "make_gufunc: bad writable argument index");
            return NULL;
        }
        ((PyUFuncObject *)uf)->op_flags[k] = NPY_ITER_READWRITE | NPY_ITER_UPDATEIFCOPY;
    }
    return uf;
error:
    Py_XDECREF(cap);
    return NULL;
}

PyMethodDef gu_methods[] = {
    {"make_gufunc", core_make_gufunc, METH_VARARGS,
     "make_gufunc(name, doc, signature, nin, nout, argdims, loops, parallel) -> np.ufunc"},
    {NULL, NULL, 0, NULL},
};
