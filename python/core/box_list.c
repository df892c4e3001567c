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
    HjMemInfo *mi = bx_list_from_py(obj, ops, unbox_item, &c);
    if (!mi)
        return -1;
    memcpy(out, &mi, sizeof mi);
    return tc_skip(tc) < 0 ? -1 : 0;
}

PyObject *box_list_box(CoreState *st, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    ItemCtx c = {st, *tc + 1};
    PyObject *r = bx_list_to_py(mi, box_item, &c);
    rt_decref(mi); /* the returned value's reference */
    tc_skip(tc);
    return r;
}

int box_list_reflect(CoreState *st, PyObject *obj, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    ItemCtx c = {st, *tc + 1};
    int r = bx_list_reflect(mi, obj, box_item, &c);
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
