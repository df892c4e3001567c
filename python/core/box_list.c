/* box_list.c - reflected lists across the boundary (typecode '[' <item>,
 * abi.h): a Python list argument is copied into a native list, and its
 * final contents are written back into the caller's list after the call
 * (Numba's reflected lists); a returned native list becomes a new Python
 * list.  The items convert through cv_unbox / cv_box with the item's
 * typecode (box_containers.c walks the lists).  GIL held throughout. */
#include "core.h"
#include "hpcjit/containers.h"

#include <stdalign.h>
#include <string.h>

/* ---- item descriptors of lists made here --------------------------------
 * Numbers use the runtime's; nested lists rt_ops_meminfo; arrays one per
 * ndim (the meminfo is the first field); tuples of numbers a POD
 * descriptor per typecode.  They are immortal (lists made here may be kept
 * by compiled code). */
typedef struct OpsEntry {
    struct OpsEntry *next;
    char code[HJ_MAX_TYPECODE];
    RtItemOps ops;
} OpsEntry;

static OpsEntry *ops_cache;

/* The descriptor of items of the typecode at tc (one item); NULL with a
 * TypeError when the item type cannot be held here. */
static const RtItemOps *item_ops(const char *tc)
{
    switch (tc[0]) {
    case 'l': return &rt_ops_i64;
    case 'L': return &rt_ops_u64;
    case 'i': return &rt_ops_i32;
    case 'd': return &rt_ops_f64;
    case 'f': return &rt_ops_f32;
    case '?': return &rt_ops_bool;
    case '[': return &rt_ops_meminfo;
    case 's': return &rt_ops_str;
    default: break;
    }
    const char *end = tc;
    size_t size, align;
    if (tc_layout(&end, &size, &align) < 0 || (size_t)(end - tc) >= HJ_MAX_TYPECODE) {
        PyErr_SetString(PyExc_TypeError, "hpcjit: bad list item typecode");
        return NULL;
    }
    int refs = tc[0] == 'a' || tc[0] == 'r';
    if (!refs && tc_has_refs(tc, end)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: lists of items of typecode '%.40s' cannot be passed yet", tc);
        return NULL;
    }
    for (OpsEntry *e = ops_cache; e; e = e->next)
        if (strlen(e->code) == (size_t)(end - tc) && memcmp(e->code, tc, (size_t)(end - tc)) == 0)
            return &e->ops;
    OpsEntry *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(e->code, tc, (size_t)(end - tc));
    e->ops.size = (int64_t)size;
    e->ops.align = (int64_t)align;
    if (refs) {
        e->ops.incref = rt_item_incref_mi;
        e->ops.decref = rt_item_decref_mi;
    }
    e->next = ops_cache;
    ops_cache = e;
    return &e->ops;
}

/* Take new references to what the unboxed value at `in` holds (the
 * reverse of cv_release): boxing takes them over. */
void box_retain(const char **tc, char *in)
{
    const char *p = *tc;
    if (*p == 'a' || *p == 'r' || *p == 'y' || *p == 'Y') {
        rt_incref(((HjArray *)in)->meminfo);
    } else if (strchr("[#{&<sGJ", *p)) { /* every value that is an HjMemInfo * */
        rt_incref(*(HjMemInfo **)in);
    } else if (*p == '(') {
        const char *q = p + 1;
        size_t off = 0;
        while (*q && *q != ')') {
            const char *elem = q;
            size_t s, a;
            if (tc_layout(&q, &s, &a) < 0)
                return;
            off = (off + a - 1) / a * a;
            box_retain(&elem, in + off);
            off += s;
        }
    }
    tc_skip(tc);
}

typedef struct ItemCtx {
    CoreState *st;
    const char *tc; /* the item's typecode */
} ItemCtx;

static int unbox_item(PyObject *obj, void *out, void *ctx)
{
    ItemCtx *c = ctx;
    const char *tc = c->tc;
    if (!cv_matches(obj, &tc)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: can't unbox heterogeneous list: %.200s does not match the first item",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    tc = c->tc;
    return cv_unbox(obj, &tc, out);
}

static PyObject *box_item(const void *item, void *ctx)
{
    ItemCtx *c = ctx;
    size_t size, align;
    const char *tc = c->tc;
    if (tc_layout(&tc, &size, &align) < 0)
        return NULL;
    alignas(16) char buf[HJ_ARRAY_SIZE(HJ_MAX_NDIM) + 64];
    char *tmp = size <= sizeof buf ? buf : PyMem_Malloc(size);
    if (!tmp)
        return PyErr_NoMemory();
    memcpy(tmp, item, size);
    tc = c->tc;
    box_retain(&tc, tmp); /* the item stays the list's: box a new reference */
    tc = c->tc;
    PyObject *r = cv_box(c->st, &tc, tmp);
    if (tmp != buf)
        PyMem_Free(tmp);
    return r;
}

/* ---- lists of float64 and int64: a loop with no typecode walk ------------
 * A list of Python floats or ints is unboxed straight into the native
 * items, and reflected item by item: an item whose value the call left as
 * it was keeps its Python object (no new float per item, and a float list
 * passed as float32 keeps its digits, as Numba, which writes back only a
 * list the call changed).  Any other object falls back to the general
 * path (cv_matches/cv_unbox), which raises Numba's heterogeneous-list
 * TypeError. */
static HjMemInfo *unbox_numbers(PyObject *list, const RtItemOps *ops, char code, ItemCtx *c)
{
    Py_ssize_t n = PyList_GET_SIZE(list);
    HjMemInfo *l = rt_list_new(ops, n);
    if (!l) {
        bx_raise_runtime();
        return NULL;
    }
    HjList *L = rt_list_of(l);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyList_GET_ITEM(list, i);
        char *slot = L->items + i * ops->size;
        if (code == 'd' && PyFloat_CheckExact(o)) {
            double v = PyFloat_AS_DOUBLE(o);
            memcpy(slot, &v, sizeof v);
        } else if (code == 'l' && PyLong_CheckExact(o)) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (overflow || (v == -1 && PyErr_Occurred())) {
                PyErr_Clear();
                if (unbox_item(o, slot, c)) /* its error: out of range for int64 */
                    goto error;
            } else {
                int64_t w = v;
                memcpy(slot, &w, sizeof w);
            }
        } else if (unbox_item(o, slot, c)) {
            goto error;
        }
        L->len = i + 1;
    }
    return l;
error:
    rt_decref(l);
    return NULL;
}

/* list[i] = item only where the value differs from what the Python item
 * holds; a list whose length changed is written back whole. */
static int reflect_numbers(HjMemInfo *mi, PyObject *list, char code, ItemCtx *c)
{
    HjList *L = rt_list_of(mi);
    if (PyList_GET_SIZE(list) != (Py_ssize_t)L->len)
        return bx_list_reflect(mi, list, box_item, c);
    for (int64_t i = 0; i < L->len; i++) {
        PyObject *o = PyList_GET_ITEM(list, (Py_ssize_t)i);
        const char *slot = L->items + i * L->ops->size;
        PyObject *v = NULL;
        if (code == 'd') {
            double d;
            memcpy(&d, slot, sizeof d);
            if (PyFloat_CheckExact(o)) {
                double old = PyFloat_AS_DOUBLE(o);
                if (memcmp(&old, &d, sizeof d) == 0)
                    continue;
            }
            v = PyFloat_FromDouble(d);
        } else {
            int64_t w;
            memcpy(&w, slot, sizeof w);
            if (PyLong_CheckExact(o)) {
                int overflow = 0;
                long long old = PyLong_AsLongLongAndOverflow(o, &overflow);
                if (!overflow && old == w)
                    continue;
                PyErr_Clear();
            }
            v = PyLong_FromLongLong(w);
        }
        if (!v || PyList_SetItem(list, (Py_ssize_t)i, v) < 0) /* steals v */
            return -1;
    }
    return 0;
}

int box_list_unbox(PyObject *obj, const char **tc, char *out)
{
    const char *item = *tc + 1;
    ItemCtx c = {NULL, item};
    if (!PyList_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: expected a list, got %.200s", Py_TYPE(obj)->tp_name);
        return -1;
    }
    const RtItemOps *ops = item_ops(item);
    if (!ops)
        return -1;
    HjMemInfo *mi = item[0] == 'd' || item[0] == 'l' ? unbox_numbers(obj, ops, item[0], &c)
                                                     : bx_list_from_py(obj, ops, unbox_item, &c);
    if (!mi)
        return -1;
    memcpy(out, &mi, sizeof mi);
    return tc_skip(tc) < 0 ? -1 : 0;
}

/* A new Python list of a native list of float64 or int64. */
static PyObject *box_numbers(HjMemInfo *mi, char code)
{
    HjList *L = rt_list_of(mi);
    PyObject *res = PyList_New((Py_ssize_t)L->len);
    for (int64_t i = 0; res && i < L->len; i++) {
        const char *slot = L->items + i * L->ops->size;
        PyObject *v;
        if (code == 'd') {
            double d;
            memcpy(&d, slot, sizeof d);
            v = PyFloat_FromDouble(d);
        } else {
            int64_t w;
            memcpy(&w, slot, sizeof w);
            v = PyLong_FromLongLong(w);
        }
        if (!v)
            Py_CLEAR(res);
        else
            PyList_SET_ITEM(res, (Py_ssize_t)i, v);
    }
    return res;
}

PyObject *box_list_box(CoreState *st, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    ItemCtx c = {st, *tc + 1};
    char code = c.tc[0];
    PyObject *r = code == 'd' || code == 'l' ? box_numbers(mi, code) : bx_list_to_py(mi, box_item, &c);
    rt_decref(mi); /* the returned value's reference */
    tc_skip(tc);
    return r;
}

int box_list_reflect(CoreState *st, PyObject *obj, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    ItemCtx c = {st, *tc + 1};
    char code = c.tc[0];
    int r = code == 'd' || code == 'l' ? reflect_numbers(mi, obj, code, &c) : bx_list_reflect(mi, obj, box_item, &c);
    rt_decref(mi); /* made by the unboxing */
    tc_skip(tc);
    return r;
}

int box_list_matches(PyObject *obj, const char **tc)
{
    const char *item = *tc + 1;
    int ok = PyList_Check(obj) && PyList_GET_SIZE(obj) > 0;
    if (ok) {
        const char *q = item;
        ok = cv_matches(PyList_GET_ITEM(obj, 0), &q);
    }
    return tc_skip(tc) < 0 ? 0 : ok;
}
