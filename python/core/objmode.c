/* objmode.c - the hook through which compiled code runs a `with objmode`
 * block (runtime/include/hpcjit/objmode.h): box the inputs, call the
 * block's Python function (hpcjit.objmode_blocks), check and unbox the
 * outputs.  The exception a block raises is kept here, per thread, and
 * raised unchanged by the dispatcher (core_objmode_take).
 *
 * The one place where threads that compiled code runs on (prange workers,
 * nogil callers) enter the Python C API: always through PyGILState_Ensure,
 * as Numba's object mode does. */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcjit/objmode.h"

/* The module's state (boxing arrays needs its owner type), kept here
 * because the runtime calls the hook without a module to ask. */
static CoreState *om_state;

/* The last exception a block raised on this thread, and the name and
 * message it was handed to the runtime as (to recognise it when it
 * reaches the dispatcher, rather than another exception raised after
 * compiled code caught this one). */
static _Thread_local PyObject *om_type, *om_value, *om_tb;
static _Thread_local char om_name[RT_EXC_TYPE_MAX], om_msg[RT_EXC_MSG_MAX];

static void clear_saved(void)
{
    Py_CLEAR(om_type);
    Py_CLEAR(om_value);
    Py_CLEAR(om_tb);
}

/* The pending Python exception becomes the runtime's (by class name and
 * message) and is kept for core_objmode_take. */
static void save_exception(void)
{
    PyObject *s = NULL, *mod = NULL;
    clear_saved();
    PyErr_Fetch(&om_type, &om_value, &om_tb);
    PyErr_NormalizeException(&om_type, &om_value, &om_tb);
    if (om_tb && om_value)
        PyException_SetTraceback(om_value, om_tb);
    PyTypeObject *tp = (PyTypeObject *)om_type;
    const char *cls = tp ? tp->tp_name : "RuntimeError";
    mod = tp ? PyObject_GetAttrString(om_type, "__module__") : NULL;
    const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8(mod) : NULL;
    if (m && strcmp(m, "builtins") != 0 && !strchr(cls, '.'))
        snprintf(om_name, sizeof om_name, "%s.%s", m, cls);
    else
        snprintf(om_name, sizeof om_name, "%s", cls);
    s = om_value ? PyObject_Str(om_value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    snprintf(om_msg, sizeof om_msg, "%s", msg ? msg : "");
    PyErr_Clear(); /* from __module__ or str() */
    Py_XDECREF(s);
    Py_XDECREF(mod);
    rt_raise(om_name, om_msg);
}

int core_objmode_take(const char *type, const char *msg)
{
    if (!om_type)
        return 0;
    if (!type || strcmp(type, om_name) != 0 || strcmp(msg ? msg : "", om_msg) != 0) {
        clear_saved(); /* compiled code caught it and raised another */
        return 0;
    }
    PyErr_Restore(om_type, om_value, om_tb);
    om_type = om_value = om_tb = NULL;
    return 1;
}

/* ---- outputs ----------------------------------------------------------------
 * An array the block made lives on in compiled code through a MemInfo that
 * owns a reference to it; freeing the MemInfo (on any thread) drops it. */

static void pyobj_dtor(HjMemInfo *mi)
{
    PyObject *obj = mi->dtor_info;
    if (obj && !_Py_IsFinalizing()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(obj);
        PyGILState_Release(g);
    }
    free(mi); /* rt_alloc(0): one block, header included */
}

static int unbox_out(PyObject *obj, const char **tc, char *out);

static int unbox_array(PyObject *obj, const char **tc, char *out)
{
    if (cv_unbox(obj, tc, out) < 0)
        return -1;
    HjMemInfo *mi = rt_alloc(0);
    if (!mi) {
        PyErr_NoMemory();
        return -1;
    }
    HjArray *a = (HjArray *)out;
    mi->dtor = pyobj_dtor;
    mi->dtor_info = Py_NewRef(obj);
    mi->data = a->data;
    a->meminfo = mi;
    a->parent = NULL;
    return 0;
}

static int unbox_tuple(PyObject *obj, const char **tc, char *out)
{
    const char *q = *tc + 1;
    size_t off = 0;
    Py_ssize_t i = 0;
    while (*q != ')') {
        const char *elem = q;
        size_t s, al;
        if (tc_layout(&q, &s, &al) < 0) {
            PyErr_SetString(PyExc_SystemError, "hpcjit: bad objmode typecode");
            goto error;
        }
        off = (off + al - 1) / al * al;
        if (unbox_out(PyTuple_GET_ITEM(obj, i), &elem, out + off) < 0)
            goto error;
        off += s;
        i++;
    }
    *tc = q + 1;
    return 0;
error:
    /* release the elements unboxed so far */
    q = *tc + 1;
    off = 0;
    for (Py_ssize_t j = 0; j < i; j++) {
        const char *elem = q;
        size_t s, al;
        tc_layout(&q, &s, &al);
        off = (off + al - 1) / al * al;
        cv_release(&elem, out + off);
        off += s;
    }
    return -1;
}

/* Unbox a value cv_matches accepted: arrays own a reference, the rest as
 * the dispatcher unboxes arguments. */
static int unbox_out(PyObject *obj, const char **tc, char *out)
{
    switch (**tc) {
    case 'a':
    case 'r': return unbox_array(obj, tc, out);
    case '(': return unbox_tuple(obj, tc, out);
    default: return cv_unbox(obj, tc, out);
    }
}

/* The block's function: hpcjit.objmode_blocks._BLOCKS[handle] (new reference). */
static PyObject *block_function(int64_t handle, const char *attr)
{
    PyObject *mod = PyImport_ImportModule("hpcjit.objmode_blocks");
    PyObject *tab = mod ? PyObject_GetAttrString(mod, attr) : NULL;
    PyObject *fn = tab ? PySequence_GetItem(tab, (Py_ssize_t)handle) : NULL;
    Py_XDECREF(tab);
    Py_XDECREF(mod);
    return fn;
}

/* A returned value that does not match its declaration: the TypeError
 * hpcjit.objmode_blocks._mismatch raises (it knows the names, the declared
 * types and the block's location). */
static void mismatch(int64_t handle, Py_ssize_t index, PyObject *value)
{
    PyObject *mod = PyImport_ImportModule("hpcjit.objmode_blocks");
    PyObject *r = mod ? PyObject_CallMethod(mod, "_mismatch", "LnO", (long long)handle, index, value) : NULL;
    Py_XDECREF(r);
    Py_XDECREF(mod);
    if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "objmode: output %zd does not match its declared type", index);
}

static int32_t objmode_call(int64_t handle, const char *in_tc, void *in, const char *out_tc, void *out)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *args = NULL, *fn = NULL, *res = NULL;
    int32_t rc = -1;
    const char *p = in_tc;
    args = cv_box(om_state, &p, in); /* takes over the inputs' references */
    if (!args)
        goto error;
    if (!PyTuple_Check(args)) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: objmode inputs are not a tuple");
        goto error;
    }
    if (handle == RT_OBJMODE_REPR || handle == RT_OBJMODE_INVERT) { /* CPython's repr(x), ~x */
        PyObject *x = PyTuple_GET_SIZE(args) == 1 ? PyTuple_GET_ITEM(args, 0) : NULL;
        PyObject *v = !x ? NULL : handle == RT_OBJMODE_REPR ? PyObject_Repr(x) : PyNumber_Invert(x);
        res = v ? PyTuple_Pack(1, v) : NULL;
        Py_XDECREF(v);
        if (!res) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_SystemError, "hpcjit: bad input to a Python operation");
            goto error;
        }
    } else {
        fn = block_function(handle, "_BLOCKS");
        if (!fn)
            goto error;
        res = PyObject_Call(fn, args, NULL);
        if (!res)
            goto error;
    }
    /* the block function returns the declared outputs as a tuple */
    Py_ssize_t n = 0;
    for (const char *q = out_tc + 1; *q && *q != ')'; n++)
        if (tc_skip(&q) < 0)
            break;
    if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != n) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: objmode block returned a bad tuple");
        goto error;
    }
    const char *q = out_tc + 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!cv_matches(PyTuple_GET_ITEM(res, i), &q)) {
            mismatch(handle, i, PyTuple_GET_ITEM(res, i));
            goto error;
        }
    }
    q = out_tc;
    if (unbox_tuple(res, &q, out) < 0)
        goto error;
    rc = 0;
    goto done;
error:
    save_exception();
done:
    Py_XDECREF(res);
    Py_XDECREF(fn);
    Py_XDECREF(args);
    PyGILState_Release(g);
    return rc;
}

/* A parallel loop that may run objmode blocks: the starting thread lets
 * the GIL go while the pool runs (the blocks' threads take it). */
static void *gil_unlock(void) { return PyGILState_Check() ? (void *)PyEval_SaveThread() : NULL; }

static void gil_relock(void *token) { PyEval_RestoreThread((PyThreadState *)token); }

void core_objmode_install(CoreState *st)
{
    om_state = st;
    rt_objmode_set_hook(objmode_call, gil_unlock, gil_relock);
}

void core_objmode_remove(void)
{
    rt_objmode_set_hook(NULL, NULL, NULL);
    om_state = NULL;
}
