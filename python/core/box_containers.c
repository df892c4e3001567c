/* box_containers.c - conversion between Python lists, dicts and sets and
 * the native containers of compiled code (hpcjit/containers.h).
 *
 * The item conversions are callbacks, so this file knows no item type:
 * the dispatcher passes functions built from the item typecode (abi.h,
 * "CONTAINERS").  Ownership:
 *  - BxUnboxFn writes the unboxed item to `out` as an OWNED value (a
 *    nested container is a new reference; an array is borrowed from its
 *    Python object as for arguments, which stays alive in the Python
 *    container during the call);
 *  - BxBoxFn reads a BORROWED item and returns a new Python reference
 *    (it increfs what the Python object will keep).
 * All functions hold the GIL and return NULL / -1 with a Python exception
 * set on failure, having released everything they made. */
#include "core.h"

#include "hpcjit/containers.h"

/* The runtime's pending exception (raised by rt_list_new & co. on memory
 * or descriptor errors) as a Python exception of the same builtin class. */
void bx_raise_runtime(void)
{
    const char *type = NULL, *msg = NULL;
    if (!rt_exc_fetch(&type, &msg)) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: container runtime failed without an exception");
        return;
    }
    if (strcmp(type, "MemoryError") == 0) {
        PyErr_NoMemory();
        return;
    }
    PyObject *builtins = PyEval_GetBuiltins(); /* borrowed */
    PyObject *exc = builtins ? PyDict_GetItemString(builtins, type) : NULL;
    if (!exc || !PyExceptionClass_Check(exc))
        exc = PyExc_RuntimeError;
    PyErr_SetString(exc, msg ? msg : "");
}

/* ---- list ------------------------------------------------------------- */

HjMemInfo *bx_list_from_py(PyObject *list, const RtItemOps *ops, BxUnboxFn unbox, void *ctx)
{
    if (!PyList_Check(list)) {
        PyErr_Format(PyExc_TypeError, "expected a list, got %.200s", Py_TYPE(list)->tp_name);
        return NULL;
    }
    HjMemInfo *l = rt_list_new(ops, PyList_GET_SIZE(list));
    if (!l) {
        bx_raise_runtime();
        return NULL;
    }
    HjList *L = rt_list_of(l);
    /* the unbox callback may run Python code that changes the list: the
     * size is read on every step and the capacity checked */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); i++) {
        if (L->len == L->cap && rt_list_reserve(l, L->cap + 1 + L->cap / 8)) {
            bx_raise_runtime();
            goto error;
        }
        /* the item is unboxed straight into its slot: the list owns it */
        if (unbox(PyList_GET_ITEM(list, i), L->items + L->len * ops->size, ctx))
            goto error;
        L->len++;
    }
    return l;
error:
    rt_decref(l);
    return NULL;
}

PyObject *bx_list_to_py(HjMemInfo *l, BxBoxFn box, void *ctx)
{
    HjList *L = rt_list_of(l);
    PyObject *res = PyList_New((Py_ssize_t)L->len);
    if (!res)
        return NULL;
    for (int64_t i = 0; i < L->len; i++) {
        PyObject *o = box(L->items + i * L->ops->size, ctx);
        if (!o) {
            Py_DECREF(res);
            return NULL;
        }
        PyList_SET_ITEM(res, (Py_ssize_t)i, o);
    }
    return res;
}

int bx_list_reflect(HjMemInfo *l, PyObject *list, BxBoxFn box, void *ctx)
{
    PyObject *items = bx_list_to_py(l, box, ctx);
    if (!items)
        return -1;
    /* list[:] = items: the caller's list object now holds the final
     * contents, as Numba's reflected lists do */
    int r = PyList_SetSlice(list, 0, PY_SSIZE_T_MAX, items);
    Py_DECREF(items);
    return r;
}

/* ---- dict ------------------------------------------------------------- */

/* Scratch space for one unboxed key and value (released with the ops). */
typedef struct Scratch {
    char *key, *value;
} Scratch;

static int scratch_new(Scratch *s, const RtItemOps *kops, const RtItemOps *vops)
{
    s->key = PyMem_Malloc((size_t)kops->size + 1);
    s->value = PyMem_Malloc((size_t)vops->size + 1);
    if (!s->key || !s->value) {
        PyMem_Free(s->key);
        PyMem_Free(s->value);
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

HjMemInfo *bx_dict_from_py(PyObject *dict, const RtItemOps *key_ops, const RtItemOps *value_ops,
                           BxUnboxFn unbox_key, BxUnboxFn unbox_value, void *ctx)
{
    if (!PyDict_Check(dict)) {
        PyErr_Format(PyExc_TypeError, "expected a dict, got %.200s", Py_TYPE(dict)->tp_name);
        return NULL;
    }
    Scratch s;
    if (scratch_new(&s, key_ops, value_ops))
        return NULL;
    HjMemInfo *d = rt_dict_new(key_ops, value_ops, PyDict_GET_SIZE(dict));
    if (!d) {
        bx_raise_runtime();
        goto error;
    }
    /* a snapshot of the items: the callbacks may run Python code */
    PyObject *items = PyDict_Items(dict);
    if (!items)
        goto error;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *kv = PyList_GET_ITEM(items, i);
        if (unbox_key(PyTuple_GET_ITEM(kv, 0), s.key, ctx))
            goto error_items;
        if (unbox_value(PyTuple_GET_ITEM(kv, 1), s.value, ctx)) {
            if (key_ops->decref)
                key_ops->decref(s.key);
            goto error_items;
        }
        int r = rt_dict_setitem(d, s.key, s.value); /* increfs its copies */
        if (key_ops->decref)
            key_ops->decref(s.key);
        if (value_ops->decref)
            value_ops->decref(s.value);
        if (r) {
            bx_raise_runtime();
            goto error_items;
        }
    }
    Py_DECREF(items);
    PyMem_Free(s.key);
    PyMem_Free(s.value);
    return d;
error_items:
    Py_DECREF(items);
error:
    rt_decref(d);
    PyMem_Free(s.key);
    PyMem_Free(s.value);
    return NULL;
}

/* Add the entries of d to the Python dict `out`. */
static int dict_fill(HjMemInfo *d, PyObject *out, BxBoxFn box_key, BxBoxFn box_value, void *ctx)
{
    RtDictIter it = {0, rt_dict_len(d)};
    void *k, *v;
    int r;
    while ((r = rt_dict_iter_next(d, &it, &k, &v)) == 1) {
        PyObject *pk = box_key(k, ctx);
        PyObject *pv = pk ? box_value(v, ctx) : NULL;
        int bad = !pv || PyDict_SetItem(out, pk, pv) < 0;
        Py_XDECREF(pk);
        Py_XDECREF(pv);
        if (bad)
            return -1;
    }
    if (r < 0) { /* a box callback changed the dict */
        bx_raise_runtime();
        return -1;
    }
    return 0;
}

PyObject *bx_dict_to_py(HjMemInfo *d, BxBoxFn box_key, BxBoxFn box_value, void *ctx)
{
    PyObject *res = PyDict_New();
    if (res && dict_fill(d, res, box_key, box_value, ctx)) {
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

int bx_dict_reflect(HjMemInfo *d, PyObject *dict, BxBoxFn box_key, BxBoxFn box_value, void *ctx)
{
    /* boxed first, so that a failure leaves the caller's dict unchanged */
    PyObject *fresh = bx_dict_to_py(d, box_key, box_value, ctx);
    if (!fresh)
        return -1;
    PyDict_Clear(dict);
    int r = PyDict_Update(dict, fresh);
    Py_DECREF(fresh);
    return r;
}

/* ---- set -------------------------------------------------------------- */

HjMemInfo *bx_set_from_py(PyObject *set, const RtItemOps *ops, BxUnboxFn unbox, void *ctx)
{
    if (!PyAnySet_Check(set)) {
        PyErr_Format(PyExc_TypeError, "expected a set, got %.200s", Py_TYPE(set)->tp_name);
        return NULL;
    }
    char *item = PyMem_Malloc((size_t)ops->size + 1);
    if (!item)
        return (HjMemInfo *)PyErr_NoMemory();
    HjMemInfo *s = rt_set_new(ops, PySet_GET_SIZE(set));
    PyObject *it = s ? PyObject_GetIter(set) : NULL, *o = NULL;
    if (!s)
        bx_raise_runtime();
    if (!it)
        goto error;
    /* CPython's iteration order, so that the native set is built by the
     * same insertions and iterates in the same order */
    while ((o = PyIter_Next(it))) {
        int bad = unbox(o, item, ctx);
        Py_DECREF(o);
        if (bad)
            goto error;
        bad = rt_set_add(s, item);
        if (ops->decref)
            ops->decref(item);
        if (bad) {
            bx_raise_runtime();
            goto error;
        }
    }
    if (PyErr_Occurred())
        goto error;
    Py_DECREF(it);
    PyMem_Free(item);
    return s;
error:
    Py_XDECREF(it);
    rt_decref(s);
    PyMem_Free(item);
    return NULL;
}

PyObject *bx_set_to_py(HjMemInfo *s, BxBoxFn box, void *ctx)
{
    PyObject *res = PySet_New(NULL);
    if (!res)
        return NULL;
    RtSetIter it = {0, rt_set_len(s)};
    void *item;
    int r;
    while ((r = rt_set_iter_next(s, &it, &item)) == 1) {
        PyObject *o = box(item, ctx);
        if (!o || PySet_Add(res, o) < 0) {
            Py_XDECREF(o);
            Py_DECREF(res);
            return NULL;
        }
        Py_DECREF(o);
    }
    if (r < 0) {
        bx_raise_runtime();
        Py_DECREF(res);
        return NULL;
    }
    return res;
}

int bx_set_reflect(HjMemInfo *s, PyObject *set, BxBoxFn box, void *ctx)
{
    PyObject *fresh = bx_set_to_py(s, box, ctx);
    if (!fresh)
        return -1;
    int r = PySet_Clear(set);
    PyObject *it = r == 0 ? PyObject_GetIter(fresh) : NULL, *o;
    if (!it)
        r = -1;
    while (it && (o = PyIter_Next(it))) {
        if (r == 0 && PySet_Add(set, o) < 0)
            r = -1;
        Py_DECREF(o);
    }
    if (it && PyErr_Occurred())
        r = -1;
    Py_XDECREF(it);
    Py_DECREF(fresh);
    return r;
}
