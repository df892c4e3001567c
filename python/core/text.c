/* text.c - the hooks through which print() in compiled code reaches
 * Python (runtime/include/hpcjit/text.h): lines go to sys.stdout and
 * arrays are formatted by NumPy, both only on a thread that holds the GIL;
 * elsewhere the runtime writes to fd 1 and formats arrays itself. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

#include "hpcjit/text.h"

/* The pending Python exception becomes the runtime's (the dispatcher turns
 * it back when compiled code returns). */
static void to_runtime_exception(void)
{
    PyObject *type = NULL, *value = NULL, *tb = NULL, *s = NULL;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    const char *name = type ? ((PyTypeObject *)type)->tp_name : "RuntimeError";
    s = value ? PyObject_Str(value) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    if (!msg)
        PyErr_Clear();
    rt_raise(name, msg ? msg : "");
    Py_XDECREF(s);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

static int write_stdout(const char *s, size_t n)
{
    if (!PyGILState_Check())
        return 0;
    PyObject *out = PySys_GetObject("stdout"); /* borrowed */
    if (!out || out == Py_None)
        return 1; /* no sys.stdout: dropped, as Python's print() does */
    PyObject *text = PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "replace");
    PyObject *r = text ? PyObject_CallMethod(out, "write", "O", text) : NULL;
    Py_XDECREF(text);
    if (!r) {
        to_runtime_exception();
        return -1;
    }
    Py_DECREF(r);
    return 1;
}

static int array_text(const HjArray *a, int32_t ndim, int32_t dt, int32_t repr, char **out)
{
    if (!PyGILState_Check())
        return 0;
    int typenum = tc_npy_type((char)dt);
    if (typenum < 0 || ndim < 0 || ndim > HJ_MAX_NDIM)
        return 0;
    npy_intp dims[HJ_MAX_NDIM], strides[HJ_MAX_NDIM];
    for (int32_t i = 0; i < ndim; i++) {
        dims[i] = (npy_intp)a->shape_strides[i];
        strides[i] = (npy_intp)a->shape_strides[ndim + i];
    }
    PyObject *arr = NULL, *s = NULL;
    int ok = 0;
    /* a read-only view of the data for the moment of formatting */
    arr = PyArray_New(&PyArray_Type, ndim, dims, typenum, strides, a->data, 0, 0, NULL);
    s = arr ? (repr ? PyObject_Repr(arr) : PyObject_Str(arr)) : NULL;
    const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
    if (u && (*out = strdup(u)) != NULL)
        ok = 1;
    if (!ok)
        PyErr_Clear(); /* the runtime falls back to its own rendering */
    Py_XDECREF(s);
    Py_XDECREF(arr);
    return ok;
}

static const RtTextHooks text_hooks = {write_stdout, array_text};

void core_text_install(void) { rt_text_set_hooks(&text_hooks); }
void core_text_remove(void) { rt_text_set_hooks(NULL); }
