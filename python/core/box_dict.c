/* box_dict.c - dicts and sets across the boundary (typecodes '{' <key>
 * <value> and '<' <item>, abi.h): a Python dict or set argument is copied
 * into a native one and its final contents are written back into the
 * caller's object after the call (reflected, as Numba's reflected sets;
 * Numba passes a plain dict only as a typed.Dict); a returned native dict
 * or set becomes a new Python dict or set (Numba returns a typed.Dict: a
 * plain dict is what hpcjit's callers get).  Keys and set items made here
 * are numbers (the runtime's descriptors hash them as CPython); values are
 * numbers, tuples of numbers, arrays and containers.  The items convert
 * through cv_unbox / cv_box with their typecodes (box_containers.c walks
 * the containers).  GIL held throughout. */
#include "core.h"
#include "hpcjit/containers.h"

#include <stdalign.h>
#include <string.h>

/* ---- item descriptors of containers made here ------------------------- */

typedef struct OpsEntry {
    struct OpsEntry *next;
    char code[HJ_MAX_TYPECODE];
    RtItemOps ops;
} OpsEntry;

static OpsEntry *ops_cache; /* immortal: compiled code may keep the containers */

static const RtItemOps *number_ops(char c)
{
    switch (c) {
    case 'l': return &rt_ops_i64;
    case 'L': return &rt_ops_u64;
    case 'i': return &rt_ops_i32;
    case 'd': return &rt_ops_f64;
    case 'f': return &rt_ops_f32;
    case '?': return &rt_ops_bool;
    default: return NULL;
    }
}

static const RtItemOps *key_ops(const char *tc)
{
    const RtItemOps *o = tc[0] == 's' ? &rt_ops_str : number_ops(tc[0]);
    if (!o) /* an IntEnum member (namedtuple.c): its int */
        o = number_ops(nt_int_code(tc));
    if (!o)
        PyErr_Format(PyExc_TypeError, "hpcjit: dict keys and set items of typecode '%.20s' cannot be passed yet "
                     "(int, float and bool can)", tc);
    return o;
}

/* The descriptor of values of the typecode at tc; NULL with a TypeError. */
static const RtItemOps *value_ops(const char *tc)
{
    const RtItemOps *o = number_ops(tc[0]);
    if (o)
        return o;
    if (tc[0] == 's')
        return &rt_ops_str;
    if (tc[0] == '[' || tc[0] == '{' || tc[0] == '<')
        return &rt_ops_meminfo;
    const char *end = tc;
    size_t size, align;
    if (tc_layout(&end, &size, &align) < 0 || (size_t)(end - tc) >= HJ_MAX_TYPECODE) {
        PyErr_SetString(PyExc_TypeError, "hpcjit: bad dict value typecode");
        return NULL;
    }
    int array = tc[0] == 'a' || tc[0] == 'r';
    if (!array && tc_has_refs(tc, end)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: dict values of typecode '%.*s' cannot be passed yet", (int)(end - tc), tc);
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
    if (array) { /* the meminfo is the HjArray's first field */
        e->ops.incref = rt_item_incref_mi;
        e->ops.decref = rt_item_decref_mi;
    }
    e->next = ops_cache;
    ops_cache = e;
    return &e->ops;
}

/* ---- item conversions --------------------------------------------------- */

typedef struct ItemCtx {
    CoreState *st;
    const char *key_tc, *value_tc;
} ItemCtx;

static int unbox_with(PyObject *obj, void *out, const char *tc)
{
    const char *q = tc;
    if (!cv_matches(obj, &q)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: can't unbox a heterogeneous dict or set: %.200s does not match "
                     "its first item", Py_TYPE(obj)->tp_name);
        return -1;
    }
    q = tc;
    return cv_unbox(obj, &q, out);
}

static int unbox_key(PyObject *obj, void *out, void *ctx) { return unbox_with(obj, out, ((ItemCtx *)ctx)->key_tc); }

static int unbox_value(PyObject *obj, void *out, void *ctx)
{
    return unbox_with(obj, out, ((ItemCtx *)ctx)->value_tc);
}

/* A new Python object for a borrowed item: the references it holds are
 * taken anew (cv_box takes them over). */
static PyObject *box_with(CoreState *st, const void *item, const char *tc)
{
    size_t size, align;
    const char *q = tc;
    if (tc_layout(&q, &size, &align) < 0)
        return NULL;
    alignas(16) char buf[HJ_ARRAY_SIZE(HJ_MAX_NDIM) + 64];
    char *tmp = size <= sizeof buf ? buf : PyMem_Malloc(size);
    if (!tmp)
        return PyErr_NoMemory();
    memcpy(tmp, item, size);
    q = tc;
    box_retain(&q, tmp); /* the value stays the dict's: box a new reference (tuples' too) */
    q = tc;
    PyObject *r = cv_box(st, &q, tmp);
    if (tmp != buf)
        PyMem_Free(tmp);
    return r;
}

static PyObject *box_key(const void *item, void *ctx)
{
    ItemCtx *c = ctx;
    return box_with(c->st, item, c->key_tc);
}

static PyObject *box_value(const void *item, void *ctx)
{
    ItemCtx *c = ctx;
    return box_with(c->st, item, c->value_tc);
}

/* The context of the container typecode at tc ('{' or '<'). */
static int item_ctx(CoreState *st, const char *tc, ItemCtx *c)
{
    c->st = st;
    c->key_tc = tc + 1;
    c->value_tc = NULL;
    if (*tc == '{') {
        const char *q = c->key_tc;
        if (tc_skip(&q) < 0)
            return -1;
        c->value_tc = q;
    }
    return 0;
}

/* ---- the typecode's operations ----------------------------------------- */

int box_dict_unbox(PyObject *obj, const char **tc, char *out)
{
    ItemCtx c;
    if (item_ctx(NULL, *tc, &c) < 0)
        return -1;
    int dict = **tc == '{';
    if (dict ? !PyDict_Check(obj) : !PyAnySet_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: expected a %s, got %.200s", dict ? "dict" : "set",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const RtItemOps *kops = key_ops(c.key_tc);
    const RtItemOps *vops = kops && dict ? value_ops(c.value_tc) : kops;
    if (!vops)
        return -1;
    HjMemInfo *mi = dict ? bx_dict_from_py(obj, kops, vops, unbox_key, unbox_value, &c)
                         : bx_set_from_py(obj, kops, unbox_key, &c);
    if (!mi)
        return -1;
    memcpy(out, &mi, sizeof mi);
    return tc_skip(tc) < 0 ? -1 : 0;
}

PyObject *box_dict_box(CoreState *st, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    ItemCtx c;
    PyObject *r = NULL;
    if (item_ctx(st, *tc, &c) == 0)
        r = **tc == '{' ? bx_dict_to_py(mi, box_key, box_value, &c) : bx_set_to_py(mi, box_key, &c);
    rt_decref(mi); /* the returned value's reference */
    tc_skip(tc);
    return r;
}

int box_dict_reflect(CoreState *st, PyObject *obj, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    ItemCtx c;
    int r = -1;
    if (item_ctx(st, *tc, &c) == 0)
        r = **tc == '{' ? bx_dict_reflect(mi, obj, box_key, box_value, &c) : bx_set_reflect(mi, obj, box_key, &c);
    rt_decref(mi); /* made by the unboxing */
    tc_skip(tc);
    return r;
}

int box_dict_matches(PyObject *obj, const char **tc)
{
    ItemCtx c;
    int ok = item_ctx(NULL, *tc, &c) == 0;
    if (ok && **tc == '{') {
        ok = PyDict_Check(obj) && PyDict_GET_SIZE(obj) > 0;
        if (ok) {
            Py_ssize_t pos = 0;
            PyObject *k, *v;
            PyDict_Next(obj, &pos, &k, &v);
            const char *q = c.key_tc, *r = c.value_tc;
            ok = cv_matches(k, &q) && cv_matches(v, &r);
        }
    } else if (ok) {
        ok = PySet_Check(obj) && PySet_GET_SIZE(obj) > 0;
        PyObject *it = ok ? PyObject_GetIter(obj) : NULL, *k = it ? PyIter_Next(it) : NULL;
        const char *q = c.key_tc;
        ok = k && cv_matches(k, &q);
        Py_XDECREF(k);
        Py_XDECREF(it);
        PyErr_Clear();
    }
    return tc_skip(tc) < 0 ? 0 : ok;
}
