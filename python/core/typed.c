/* typed.c - the native side of hpcjit.typed.List, hpcjit.typed.Dict and
 * hpcjit.typed.Set (typecodes '#' <item>, '&' <key> <value>, '%' <item>,
 * abi.h).
 *
 * A typed container is a Python object holding one reference to a native
 * list or dict (hpcjit/containers.h).  Compiled code receives that very
 * container (no conversion, nothing written back: both sides see every
 * change), and a typed container compiled code returns is wrapped, not
 * converted.  The Python classes (python/hpcjit/typed.py) subclass the two
 * base types here and build Numba's API on the few primitives below; they
 * register themselves with _register_typed so that boxing makes instances
 * of them.
 *
 * Array items: a native item owns its data through a MemInfo.  An array
 * coming from Python gets a MemInfo that holds a reference to the ndarray
 * (released with the GIL taken), so the item and the ndarray share their
 * data as in Numba.  Compiled code stores argument arrays borrowed (a NULL
 * MemInfo and the ndarray as `parent`, valid during the call): after each
 * call the typed containers among the arguments and the results are walked
 * and such items adopt their parent the same way.  GIL held throughout. */
#include "core.h"
#include "hpcjit/containers.h"
#include "hpcjit/jitclass.h"
#include "hpcjit/str.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

typedef struct TList {
    PyObject_HEAD
    HjMemInfo *mi;             /* NULL until the item type is known */
    char tc[HJ_MAX_TYPECODE];  /* the item's typecode, "" while unknown */
} TList;

typedef struct TDict {
    PyObject_HEAD
    HjMemInfo *mi;             /* NULL until the types are known */
    char ktc[HJ_MAX_TYPECODE]; /* key and value typecodes, "" while unknown */
    char vtc[HJ_MAX_TYPECODE];
} TDict;

typedef struct TSet {
    PyObject_HEAD
    HjMemInfo *mi;             /* NULL until the item type is known */
    char tc[HJ_MAX_TYPECODE];  /* the item's typecode, "" while unknown */
} TSet;

/* Process-wide (not module state): cv_typecode and cv_unbox have no module
 * at hand, and the classes are made once per process by hpcjit.typed. */
static PyTypeObject *list_base, *dict_base, *set_base;
static PyObject *list_cls, *dict_cls, *set_cls;
static CoreState *core_st; /* hpcjit._core's state: boxing arrays needs its owner type */

static int is_ref_code(char c) { return strchr("ar[#{&<sJG%", c) != NULL; }

/* ---- item descriptors of containers made from Python ------------------- */

typedef struct OpsEntry {
    struct OpsEntry *next;
    char code[HJ_MAX_TYPECODE];
    RtItemOps ops;
} OpsEntry;

static OpsEntry *ops_cache; /* immortal: containers may outlive anything */

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

/* Tuple keys made from Python: a descriptor's hash and eq see only the
 * item, so each layout has its own pair; the common ones are here (compiled
 * code makes descriptors for any other). */
static uint64_t field_hash(char c, const char *p)
{
    switch (c) {
    case 'l': return rt_hash_i64(p);
    case 'L': return rt_hash_u64(p);
    case 'i': return rt_hash_i32(p);
    case 'd': return rt_hash_f64(p);
    case 'f': return rt_hash_f32(p);
    default: return rt_hash_bool(p);
    }
}

static int field_eq(char c, const char *a, const char *b)
{
    switch (c) {
    case 'd': return rt_eq_f64(a, b);
    case 'f': return rt_eq_f32(a, b);
    case 'l': case 'L': return memcmp(a, b, 8) == 0;
    case 'i': return memcmp(a, b, 4) == 0;
    default: return *a == *b;
    }
}

/* Fields of a flat tuple typecode "(ld)": their chars and offsets. */
static int tuple_fields(const char *code, char *chars, size_t *offs)
{
    int n = 0;
    size_t off = 0;
    for (const char *q = code + 1; *q != ')'; q++, n++) {
        size_t s, a;
        const char *e = q;
        tc_layout(&e, &s, &a);
        off = (off + a - 1) / a * a;
        chars[n] = *q;
        offs[n] = off;
        off += s;
    }
    return n;
}

static uint64_t tuple_hash(const char *code, const void *item)
{
    char c[8];
    size_t off[8];
    uint64_t lanes[8];
    int n = tuple_fields(code, c, off);
    for (int i = 0; i < n; i++)
        lanes[i] = field_hash(c[i], (const char *)item + off[i]);
    return rt_hash_tuple(lanes, n);
}

static int tuple_eq(const char *code, const void *a, const void *b)
{
    char c[8];
    size_t off[8];
    int n = tuple_fields(code, c, off);
    for (int i = 0; i < n; i++)
        if (!field_eq(c[i], (const char *)a + off[i], (const char *)b + off[i]))
            return 0;
    return 1;
}

#define TUPLE_KEY(name, code)                                                                          \
    static uint64_t hash_##name(const void *x) { return tuple_hash(code, x); }                         \
    static int eq_##name(const void *a, const void *b) { return tuple_eq(code, a, b); }
TUPLE_KEY(ll, "(ll)")
TUPLE_KEY(lll, "(lll)")
TUPLE_KEY(llll, "(llll)")
TUPLE_KEY(dd, "(dd)")
TUPLE_KEY(ddd, "(ddd)")
TUPLE_KEY(ld, "(ld)")
TUPLE_KEY(dl, "(dl)")
TUPLE_KEY(ii, "(ii)")

static const struct {
    const char *code;
    uint64_t (*hash)(const void *);
    int (*eq)(const void *, const void *);
} tuple_keys[] = {
    {"(ll)", hash_ll, eq_ll}, {"(lll)", hash_lll, eq_lll}, {"(llll)", hash_llll, eq_llll},
    {"(dd)", hash_dd, eq_dd}, {"(ddd)", hash_ddd, eq_ddd}, {"(ld)", hash_ld, eq_ld},
    {"(dl)", hash_dl, eq_dl}, {"(ii)", hash_ii, eq_ii},
};

/* str items and keys (hpcjit/str.h): one HjMemInfo * */
static HjMemInfo *str_of(const void *item)
{
    HjMemInfo *mi;
    memcpy(&mi, item, sizeof mi);
    return mi;
}
static uint64_t str_hash(const void *item) { return (uint64_t)rt_str_hash(str_of(item)); }
static int str_eq(const void *a, const void *b) { return rt_str_eq(str_of(a), str_of(b)) == 1; }
static int str_lt(const void *a, const void *b) { return rt_str_cmp(str_of(a), str_of(b)) < 0; }
static const RtItemOps str_ops = {sizeof(HjMemInfo *), sizeof(HjMemInfo *), rt_item_incref_mi,
                                  rt_item_decref_mi, str_hash, str_eq, str_lt, NULL};

/* The descriptor of items (key: of dict keys, which need a hash) of the
 * typecode tc; NULL with a TypeError. */
static const RtItemOps *item_ops(const char *tc, int key)
{
    const RtItemOps *o = number_ops(tc[0]);
    if (o)
        return o;
    if ((o = number_ops(nt_int_code(tc))) != NULL)
        return o; /* an IntEnum member (namedtuple.c): its int, hashed as compiled code does */
    if (tc[0] == 's' && !tc[1])
        return &str_ops;
    int tk = -1;
    for (size_t i = 0; key && i < sizeof tuple_keys / sizeof tuple_keys[0]; i++)
        if (strcmp(tuple_keys[i].code, tc) == 0)
            tk = (int)i;
    if (key && tk < 0) {
        PyErr_Format(PyExc_TypeError, "hpcjit: typed.Dict keys of typecode '%.40s' cannot be made from Python yet "
                     "(numbers, str and pairs/triples of int64 or float64 can; compiled code makes the others)", tc);
        return NULL;
    }
    if (tc[0] == '[' || tc[0] == '#' || tc[0] == '{' || tc[0] == '&' || tc[0] == '<' || tc[0] == 'J' ||
        tc[0] == 'G')
        return &rt_ops_meminfo;
    const char *end = tc;
    size_t size, align;
    if (tc_layout(&end, &size, &align) < 0 || *end) {
        PyErr_Format(PyExc_TypeError, "hpcjit: bad typed container item typecode '%.40s'", tc);
        return NULL;
    }
    int array = tc[0] == 'a' || tc[0] == 'r';
    if ((!array && tc_has_refs(tc, end)) || tc[0] == 'n' || tc[0] == 't' || tc[0] == 'o') {
        PyErr_Format(PyExc_TypeError, "hpcjit: typed containers of items of typecode '%.40s' cannot be made "
                     "from Python yet", tc);
        return NULL;
    }
    for (OpsEntry *e = ops_cache; e; e = e->next)
        if (strcmp(e->code, tc) == 0 && (tk < 0) == (e->ops.hash == NULL))
            return &e->ops;
    OpsEntry *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e) {
        PyErr_NoMemory();
        return NULL;
    }
    snprintf(e->code, sizeof e->code, "%s", tc);
    e->ops.size = (int64_t)size;
    e->ops.align = (int64_t)align;
    if (array) { /* the MemInfo is the HjArray's first field */
        e->ops.incref = rt_item_incref_mi;
        e->ops.decref = rt_item_decref_mi;
    }
    if (tk >= 0) {
        e->ops.hash = tuple_keys[tk].hash;
        e->ops.eq = tuple_keys[tk].eq;
    }
    e->next = ops_cache;
    ops_cache = e;
    return &e->ops;
}

/* ---- array items that hold an ndarray ---------------------------------- */

static void pyobj_dtor(HjMemInfo *mi)
{
    PyGILState_STATE g = PyGILState_Ensure(); /* the last owner may be compiled code without the GIL */
    Py_XDECREF((PyObject *)mi->dtor_info);
    PyGILState_Release(g);
    free(mi); /* rt_alloc(0): the header is the whole block */
}

/* Give the borrowed array at `a` (meminfo NULL, parent an ndarray) a
 * MemInfo of its own that keeps the ndarray alive; 0 or -1. */
static int adopt(HjArray *a)
{
    if (a->meminfo || !a->parent)
        return 0;
    HjMemInfo *mi = rt_alloc(0);
    if (!mi) {
        core_raise_pending();
        return -1;
    }
    mi->dtor = pyobj_dtor;
    mi->dtor_info = Py_NewRef((PyObject *)a->parent);
    a->meminfo = mi;
    a->parent = NULL;
    return 0;
}

static int is_array_code(const char *tc) { return tc[0] == 'a' || tc[0] == 'r' || tc[0] == 'y' || tc[0] == 'Y'; }

/* Adopt the borrowed arrays inside the value of typecode tc at p: itself,
 * a tuple's fields, the items of nested lists and the values of nested
 * dicts (compiled code may have stored an argument array anywhere). */
static int adopt_value(const char *tc, char *p, int depth)
{
    if (depth > 32)
        return 0;
    if (is_array_code(tc))
        return adopt((HjArray *)p);
    if (tc[0] == 'N') {
        tc = nt_skip_header(tc, NULL);
        if (!tc)
            return 0;
    }
    if (tc[0] == '(') {
        const char *q = tc + 1;
        size_t off = 0;
        while (*q && *q != ')') {
            const char *elem = q;
            size_t s, a;
            if (tc_layout(&q, &s, &a) < 0)
                return 0;
            off = (off + a - 1) / a * a;
            if (adopt_value(elem, p + off, depth + 1) < 0)
                return -1;
            off += s;
        }
        return 0;
    }
    if (tc[0] == 'o') { /* an Optional: the value after the flag, when not None */
        const char *q = tc + 1;
        size_t s, a;
        if (!p[0] || tc_layout(&q, &s, &a) < 0)
            return 0;
        return adopt_value(tc + 1, p + a, depth + 1);
    }
    HjMemInfo *mi;
    if (tc[0] == 'J') { /* a jitclass instance: its fields (hpcjit/jitclass.h) */
        memcpy(&mi, p, sizeof mi);
        const RtJcInfo *info = rt_jc_info(mi);
        return info ? adopt_value(info->fields_typecode, mi->data, depth + 1) : 0;
    }
    if (tc[0] == '#' || tc[0] == '[') {
        memcpy(&mi, p, sizeof mi);
        if (!mi)
            return 0;
        HjList *L = rt_list_of(mi);
        for (int64_t i = 0; i < L->len; i++)
            if (adopt_value(tc + 1, rt_list_item(mi, i), depth + 1) < 0)
                return -1;
        return 0;
    }
    if (tc[0] == '&' || tc[0] == '{') {
        memcpy(&mi, p, sizeof mi);
        const char *vt = tc + 1;
        if (!mi || tc_skip(&vt) < 0)
            return 0;
        RtDictIter it = {0, rt_dict_len(mi)};
        void *k, *v;
        while (rt_dict_iter_next(mi, &it, &k, &v) == 1)
            if (adopt_value(vt, v, depth + 1) < 0)
                return -1;
    }
    return 0;
}

static int has_arrays(const char *tc)
{
    for (; *tc; tc++) {
        if (*tc == 'N') {
            tc = nt_skip_header(tc, NULL);
            if (!tc)
                return 0;
        }
        if (is_array_code(tc) || *tc == 'J')
            return 1;
    }
    return 0;
}

static int adopt_list_items(TList *l)
{
    if (!l->mi || !has_arrays(l->tc))
        return 0;
    char code[HJ_MAX_TYPECODE + 1];
    snprintf(code, sizeof code, "#%s", l->tc);
    return adopt_value(code, (char *)&l->mi, 0);
}

static int adopt_dict_values(TDict *d)
{
    if (!d->mi || !has_arrays(d->vtc))
        return 0;
    char code[2 * HJ_MAX_TYPECODE + 1];
    snprintf(code, sizeof code, "&%s%s", d->ktc, d->vtc);
    return adopt_value(code, (char *)&d->mi, 0);
}

/* ---- item conversions --------------------------------------------------- */

/* Unbox obj as an item of typecode tc into out, owning what it holds (the
 * caller releases it with release_item once the container has its copy). */
static int unbox_item(PyObject *obj, const char *tc, char *out)
{
    const char *q = tc;
    if (!cv_matches(obj, &q)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: cannot store %.200s in a typed container of %.40s items",
                     Py_TYPE(obj)->tp_name, tc);
        return -1;
    }
    q = tc;
    if (cv_unbox(obj, &q, out) < 0)
        return -1;
    if (is_array_code(tc))
        return adopt((HjArray *)out);
    if (tc[0] == '#' || tc[0] == '&' || tc[0] == 'J' || tc[0] == 'G')
        rt_incref(*(HjMemInfo **)out); /* unboxing borrowed it */
    return 0;
}

static void release_item(const char *tc, char *item)
{
    if (is_array_code(tc))
        rt_decref(((HjArray *)item)->meminfo);
    else if (is_ref_code(tc[0]))
        rt_decref(*(HjMemInfo **)item);
}

/* A Python object for the item at `item` (borrowed: its references are
 * taken anew) or, with `owned`, for an item whose references it takes. */
static PyObject *box_item(const char *tc, const void *item, int owned)
{
    size_t size, align;
    const char *q = tc;
    if (tc_layout(&q, &size, &align) < 0) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: bad typed container typecode");
        return NULL;
    }
    alignas(16) char buf[HJ_ARRAY_SIZE(HJ_MAX_NDIM) + 256];
    char *tmp = size <= sizeof buf ? buf : PyMem_Malloc(size);
    if (!tmp)
        return PyErr_NoMemory();
    memcpy(tmp, item, size);
    if (!owned) { /* references of its own, tuples' fields included (box_list.c) */
        q = tc;
        box_retain(&q, tmp);
    }
    q = tc;
    PyObject *r = cv_box(core_st, &q, tmp);
    if (tmp != buf)
        PyMem_Free(tmp);
    return r;
}

static int item_size(const char *tc, size_t *size)
{
    size_t align;
    const char *q = tc;
    if (tc_layout(&q, size, &align) < 0) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: bad typed container typecode");
        return -1;
    }
    return 0;
}

#define ITEM_BUF (HJ_ARRAY_SIZE(HJ_MAX_NDIM) + 256)

static int check_code(const char *tc)
{
    const char *q = tc;
    if (!*tc || strlen(tc) >= HJ_MAX_TYPECODE || tc_skip(&q) < 0 || *q) {
        PyErr_Format(PyExc_ValueError, "hpcjit: bad typecode '%.40s'", tc);
        return -1;
    }
    size_t size;
    if (item_size(tc, &size) < 0)
        return -1;
    if (size > ITEM_BUF) {
        PyErr_SetString(PyExc_TypeError, "hpcjit: typed container items this large are not supported");
        return -1;
    }
    return 0;
}

/* ---- typed.List ---------------------------------------------------------- */

static int list_ready(TList *self)
{
    if (self->mi)
        return 0;
    PyErr_SetString(PyExc_TypeError, "hpcjit: the typed.List has no item type yet");
    return -1;
}

static PyObject *list_set_item_type(TList *self, PyObject *arg)
{
    const char *tc = PyUnicode_AsUTF8(arg);
    if (!tc || check_code(tc) < 0)
        return NULL;
    if (self->mi) {
        if (strcmp(tc, self->tc) == 0)
            Py_RETURN_NONE;
        PyErr_SetString(PyExc_TypeError, "hpcjit: the typed.List already has an item type");
        return NULL;
    }
    const RtItemOps *ops = item_ops(tc, 0);
    if (!ops)
        return NULL;
    HjMemInfo *mi = rt_list_new(ops, 0);
    if (!mi) {
        core_raise_pending();
        return NULL;
    }
    self->mi = mi;
    snprintf(self->tc, sizeof self->tc, "%s", tc);
    Py_RETURN_NONE;
}

static PyObject *list_item_typecode(TList *self, void *unused)
{
    if (!self->mi)
        Py_RETURN_NONE;
    return PyUnicode_FromString(self->tc);
}

static Py_ssize_t list_len(TList *self) { return self->mi ? (Py_ssize_t)rt_list_of(self->mi)->len : 0; }

static PyObject *list_getitem(TList *self, PyObject *arg)
{
    int64_t i = PyLong_AsLongLong(arg);
    if ((i == -1 && PyErr_Occurred()) || list_ready(self) < 0)
        return NULL;
    alignas(16) char buf[ITEM_BUF];
    if (rt_list_getitem(self->mi, i, buf) < 0) {
        core_raise_pending();
        return NULL;
    }
    return box_item(self->tc, buf, 1);
}

static PyObject *list_setitem(TList *self, PyObject *args)
{
    long long i;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "LO:_setitem", &i, &v) || list_ready(self) < 0)
        return NULL;
    alignas(16) char buf[ITEM_BUF];
    if (unbox_item(v, self->tc, buf) < 0)
        return NULL;
    int32_t r = rt_list_setitem(self->mi, i, buf);
    release_item(self->tc, buf);
    if (r < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *list_append(TList *self, PyObject *v)
{
    if (list_ready(self) < 0)
        return NULL;
    alignas(16) char buf[ITEM_BUF];
    if (unbox_item(v, self->tc, buf) < 0)
        return NULL;
    int32_t r = rt_list_append(self->mi, buf);
    release_item(self->tc, buf);
    if (r < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

/* _extend(seq): append each item of a list or tuple (the Python side gives
 * the list its item type from the first); the items before one that fails
 * to convert stay appended, as with append() in a loop. */
static PyObject *list_extend(TList *self, PyObject *seq)
{
    PyObject *fast = NULL;
    if (list_ready(self) < 0 || !(fast = PySequence_Fast(seq, "_extend takes a sequence")))
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (rt_list_reserve(self->mi, rt_list_of(self->mi)->len + n) < 0) {
        core_raise_pending();
        goto error;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++) {
        PyObject *v = PySequence_Fast_GET_ITEM(fast, i);
        alignas(16) char buf[ITEM_BUF];
        if (self->tc[0] == 'd' && !self->tc[1] && PyFloat_CheckExact(v)) { /* the common case, no typecode walk */
            double d = PyFloat_AS_DOUBLE(v);
            memcpy(buf, &d, sizeof d);
        } else if (unbox_item(v, self->tc, buf) < 0) {
            goto error;
        }
        int32_t r = rt_list_append(self->mi, buf);
        release_item(self->tc, buf);
        if (r < 0) {
            core_raise_pending();
            goto error;
        }
    }
    Py_DECREF(fast);
    Py_RETURN_NONE;
error:
    Py_XDECREF(fast);
    return NULL;
}

static PyObject *list_insert(TList *self, PyObject *args)
{
    long long i;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "LO:_insert", &i, &v) || list_ready(self) < 0)
        return NULL;
    alignas(16) char buf[ITEM_BUF];
    if (unbox_item(v, self->tc, buf) < 0)
        return NULL;
    int32_t r = rt_list_insert(self->mi, i, buf);
    release_item(self->tc, buf);
    if (r < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *list_pop(TList *self, PyObject *arg)
{
    int64_t i = PyLong_AsLongLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (!self->mi) {
        PyErr_SetString(PyExc_IndexError, "pop from empty list");
        return NULL;
    }
    alignas(16) char buf[ITEM_BUF];
    if (rt_list_pop(self->mi, i, buf) < 0) {
        core_raise_pending();
        return NULL;
    }
    return box_item(self->tc, buf, 1);
}

static PyObject *list_delitem(TList *self, PyObject *arg)
{
    int64_t i = PyLong_AsLongLong(arg);
    if ((i == -1 && PyErr_Occurred()) || list_ready(self) < 0)
        return NULL;
    if (rt_list_delitem(self->mi, i) < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *list_clear(TList *self, PyObject *unused)
{
    if (self->mi)
        rt_list_clear(self->mi);
    Py_RETURN_NONE;
}

static PyObject *list_reverse(TList *self, PyObject *unused)
{
    if (self->mi)
        rt_list_reverse(self->mi);
    Py_RETURN_NONE;
}

static void list_dealloc(TList *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    rt_decref(self->mi);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyMethodDef list_methods[] = {
    {"_set_item_type", (PyCFunction)list_set_item_type, METH_O, "Give an untyped list its item typecode."},
    {"_getitem", (PyCFunction)list_getitem, METH_O, NULL},
    {"_setitem", (PyCFunction)list_setitem, METH_VARARGS, NULL},
    {"_append", (PyCFunction)list_append, METH_O, NULL},
    {"_extend", (PyCFunction)list_extend, METH_O, NULL},
    {"_insert", (PyCFunction)list_insert, METH_VARARGS, NULL},
    {"_pop", (PyCFunction)list_pop, METH_O, NULL},
    {"_delitem", (PyCFunction)list_delitem, METH_O, NULL},
    {"_clear", (PyCFunction)list_clear, METH_NOARGS, NULL},
    {"_reverse", (PyCFunction)list_reverse, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef list_getset[] = {
    {"_item_typecode", (getter)list_item_typecode, NULL, "The item typecode, None while unknown.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot list_slots[] = {
    {Py_tp_dealloc, list_dealloc},
    {Py_tp_methods, list_methods},
    {Py_tp_getset, list_getset},
    {Py_sq_length, list_len},
    {Py_tp_doc, "Native list of hpcjit.typed.List (subclassed there)."},
    {0, NULL},
};

static PyType_Spec list_spec = {
    .name = "hpcjit._core._TypedList",
    .basicsize = sizeof(TList),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = list_slots,
};

/* ---- typed.Dict ---------------------------------------------------------- */

static int dict_ready(TDict *self)
{
    if (self->mi)
        return 0;
    PyErr_SetString(PyExc_TypeError, "hpcjit: the typed.Dict has no key and value types yet");
    return -1;
}

static PyObject *dict_set_types(TDict *self, PyObject *args)
{
    const char *k, *v;
    if (!PyArg_ParseTuple(args, "ss:_set_types", &k, &v) || check_code(k) < 0 || check_code(v) < 0)
        return NULL;
    if (self->mi) {
        if (strcmp(k, self->ktc) == 0 && strcmp(v, self->vtc) == 0)
            Py_RETURN_NONE;
        PyErr_SetString(PyExc_TypeError, "hpcjit: the typed.Dict already has its types");
        return NULL;
    }
    const RtItemOps *kops = item_ops(k, 1), *vops = kops ? item_ops(v, 0) : NULL;
    if (!vops)
        return NULL;
    HjMemInfo *mi = rt_dict_new(kops, vops, 0);
    if (!mi) {
        core_raise_pending();
        return NULL;
    }
    self->mi = mi;
    snprintf(self->ktc, sizeof self->ktc, "%s", k);
    snprintf(self->vtc, sizeof self->vtc, "%s", v);
    Py_RETURN_NONE;
}

static PyObject *dict_typecodes(TDict *self, void *unused)
{
    if (!self->mi)
        Py_RETURN_NONE;
    return Py_BuildValue("(ss)", self->ktc, self->vtc);
}

static Py_ssize_t dict_len(TDict *self) { return self->mi ? (Py_ssize_t)rt_dict_len(self->mi) : 0; }

/* Unbox a key for a lookup: 0 when it cannot be a key of the dict (no
 * exception), 1 when unboxed, -1 on error. */
static int lookup_key(TDict *self, PyObject *key, char *buf)
{
    if (!self->mi)
        return 0;
    const char *q = self->ktc;
    if (!cv_matches(key, &q))
        return 0;
    q = self->ktc;
    if (cv_unbox(key, &q, buf) < 0)
        return -1;
    return 1;
}

static PyObject *dict_getitem(TDict *self, PyObject *key)
{
    alignas(16) char kb[ITEM_BUF];
    int r = lookup_key(self, key, kb);
    if (r < 0)
        return NULL;
    void *v = r ? rt_dict_lookup(self->mi, kb) : NULL;
    if (r)
        release_item(self->ktc, kb); /* a str key was unboxed into a new native str */
    if (!v) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    return box_item(self->vtc, v, 0);
}

static PyObject *dict_contains(TDict *self, PyObject *key)
{
    alignas(16) char kb[ITEM_BUF];
    int r = lookup_key(self, key, kb);
    if (r < 0)
        return NULL;
    int found = r && rt_dict_contains(self->mi, kb);
    if (r)
        release_item(self->ktc, kb);
    return PyBool_FromLong(found);
}

static PyObject *dict_setitem(TDict *self, PyObject *args)
{
    PyObject *k, *v;
    if (!PyArg_ParseTuple(args, "OO:_setitem", &k, &v) || dict_ready(self) < 0)
        return NULL;
    alignas(16) char kb[ITEM_BUF], vb[ITEM_BUF];
    if (unbox_item(k, self->ktc, kb) < 0)
        return NULL;
    if (unbox_item(v, self->vtc, vb) < 0) {
        release_item(self->ktc, kb);
        return NULL;
    }
    int32_t r = rt_dict_setitem(self->mi, kb, vb);
    release_item(self->ktc, kb);
    release_item(self->vtc, vb);
    if (r < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *dict_delitem(TDict *self, PyObject *key)
{
    alignas(16) char kb[ITEM_BUF];
    int r = lookup_key(self, key, kb);
    if (r < 0)
        return NULL;
    if (!r || !rt_dict_contains(self->mi, kb)) {
        if (r)
            release_item(self->ktc, kb);
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    int32_t st = rt_dict_delitem(self->mi, kb);
    release_item(self->ktc, kb);
    if (st < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

/* [(key, value), ...] in insertion order (keys / values alone: what 0 / 1). */
static PyObject *dict_entries(TDict *self, PyObject *arg)
{
    long what = PyLong_AsLong(arg); /* 0 keys, 1 values, 2 items */
    if (what == -1 && PyErr_Occurred())
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out || !self->mi)
        return out;
    RtDictIter it = {0, rt_dict_len(self->mi)};
    void *k, *v;
    while (rt_dict_iter_next(self->mi, &it, &k, &v) == 1) {
        PyObject *ko = what != 1 ? box_item(self->ktc, k, 0) : NULL;
        PyObject *vo = what != 0 ? box_item(self->vtc, v, 0) : NULL;
        PyObject *e = what == 0 ? ko : what == 1 ? vo : (ko && vo ? PyTuple_Pack(2, ko, vo) : NULL);
        if (what == 2) {
            Py_XDECREF(ko);
            Py_XDECREF(vo);
        }
        if (!e || PyList_Append(out, e) < 0) {
            Py_XDECREF(e);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(e);
    }
    return out;
}

static PyObject *dict_popitem(TDict *self, PyObject *unused)
{
    if (!self->mi || rt_dict_len(self->mi) == 0) {
        PyErr_SetString(PyExc_KeyError, "dictionary is empty");
        return NULL;
    }
    alignas(16) char kb[ITEM_BUF], vb[ITEM_BUF];
    if (rt_dict_popitem(self->mi, kb, vb) < 0) {
        core_raise_pending();
        return NULL;
    }
    PyObject *k = box_item(self->ktc, kb, 1);
    PyObject *v = box_item(self->vtc, vb, 1);
    PyObject *r = k && v ? PyTuple_Pack(2, k, v) : NULL;
    Py_XDECREF(k);
    Py_XDECREF(v);
    return r;
}

static PyObject *dict_clear(TDict *self, PyObject *unused)
{
    if (self->mi)
        rt_dict_clear(self->mi);
    Py_RETURN_NONE;
}

static void dict_dealloc(TDict *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    rt_decref(self->mi);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyMethodDef dict_methods[] = {
    {"_set_types", (PyCFunction)dict_set_types, METH_VARARGS, "Give an untyped dict its key and value typecodes."},
    {"_getitem", (PyCFunction)dict_getitem, METH_O, NULL},
    {"_contains", (PyCFunction)dict_contains, METH_O, NULL},
    {"_setitem", (PyCFunction)dict_setitem, METH_VARARGS, NULL},
    {"_delitem", (PyCFunction)dict_delitem, METH_O, NULL},
    {"_entries", (PyCFunction)dict_entries, METH_O, NULL},
    {"_popitem", (PyCFunction)dict_popitem, METH_NOARGS, NULL},
    {"_clear", (PyCFunction)dict_clear, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef dict_getset[] = {
    {"_typecodes", (getter)dict_typecodes, NULL, "(key typecode, value typecode), None while unknown.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot dict_slots[] = {
    {Py_tp_dealloc, dict_dealloc},
    {Py_tp_methods, dict_methods},
    {Py_tp_getset, dict_getset},
    {Py_mp_length, dict_len},
    {Py_tp_doc, "Native dict of hpcjit.typed.Dict (subclassed there)."},
    {0, NULL},
};

static PyType_Spec dict_spec = {
    .name = "hpcjit._core._TypedDict",
    .basicsize = sizeof(TDict),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = dict_slots,
};

/* ---- typed.Set ------------------------------------------------------------ */

static PyObject *set_set_item_type(TSet *self, PyObject *arg)
{
    const char *tc = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!tc) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_set_item_type takes a typecode");
        return NULL;
    }
    if (check_code(tc) < 0)
        return NULL;
    if (self->mi) {
        if (strcmp(tc, self->tc) == 0)
            Py_RETURN_NONE;
        PyErr_SetString(PyExc_TypeError, "hpcjit: the typed.Set already has its item type");
        return NULL;
    }
    const RtItemOps *ops = item_ops(tc, 1);
    if (!ops)
        return NULL;
    HjMemInfo *mi = rt_set_new(ops, 0);
    if (!mi) {
        core_raise_pending();
        return NULL;
    }
    self->mi = mi;
    snprintf(self->tc, sizeof self->tc, "%s", tc);
    Py_RETURN_NONE;
}

static PyObject *set_item_typecode(TSet *self, void *unused)
{
    if (!self->mi)
        Py_RETURN_NONE;
    return PyUnicode_FromString(self->tc);
}

static Py_ssize_t set_len(TSet *self) { return self->mi ? (Py_ssize_t)rt_set_len(self->mi) : 0; }

/* Unbox an item for a lookup: 0 when it cannot be in the set (no
 * exception), 1 when unboxed, -1 on error. */
static int lookup_item(TSet *self, PyObject *v, char *buf)
{
    if (!self->mi)
        return 0;
    const char *q = self->tc;
    if (!cv_matches(v, &q))
        return 0;
    q = self->tc;
    return cv_unbox(v, &q, buf) < 0 ? -1 : 1;
}

static PyObject *set_add(TSet *self, PyObject *v)
{
    if (!self->mi) {
        PyErr_SetString(PyExc_TypeError, "hpcjit: the typed.Set has no item type yet");
        return NULL;
    }
    alignas(16) char b[ITEM_BUF];
    if (unbox_item(v, self->tc, b) < 0)
        return NULL;
    int32_t r = rt_set_add(self->mi, b);
    release_item(self->tc, b);
    if (r < 0) {
        core_raise_pending();
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *set_contains(TSet *self, PyObject *v)
{
    alignas(16) char b[ITEM_BUF];
    int r = lookup_item(self, v, b);
    if (r < 0)
        return NULL;
    int found = r && rt_set_contains(self->mi, b);
    if (r)
        release_item(self->tc, b);
    return PyBool_FromLong(found);
}

/* discard(v): True when v was removed. */
static PyObject *set_discard(TSet *self, PyObject *v)
{
    alignas(16) char b[ITEM_BUF];
    int r = lookup_item(self, v, b);
    if (r < 0)
        return NULL;
    int32_t st = r ? rt_set_discard(self->mi, b) : 0;
    if (r)
        release_item(self->tc, b);
    if (st < 0) {
        core_raise_pending();
        return NULL;
    }
    return PyBool_FromLong(st == 1);
}

static PyObject *set_pop(TSet *self, PyObject *unused)
{
    if (!self->mi || rt_set_len(self->mi) == 0) {
        PyErr_SetString(PyExc_KeyError, "pop from an empty set");
        return NULL;
    }
    alignas(16) char b[ITEM_BUF];
    if (rt_set_pop(self->mi, b) < 0) {
        core_raise_pending();
        return NULL;
    }
    return box_item(self->tc, b, 1);
}

static PyObject *set_clear(TSet *self, PyObject *unused)
{
    if (self->mi)
        rt_set_clear(self->mi);
    Py_RETURN_NONE;
}

/* The items in iteration order, as a list. */
static PyObject *set_items(TSet *self, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    if (!out || !self->mi)
        return out;
    RtSetIter it = {0, rt_set_len(self->mi)};
    void *item;
    int32_t r;
    while ((r = rt_set_iter_next(self->mi, &it, &item)) == 1) {
        PyObject *o = box_item(self->tc, item, 0);
        if (!o || PyList_Append(out, o) < 0) {
            Py_XDECREF(o);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(o);
    }
    if (r < 0) {
        Py_DECREF(out);
        core_raise_pending();
        return NULL;
    }
    return out;
}

static void set_dealloc(TSet *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    rt_decref(self->mi);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyMethodDef set_methods[] = {
    {"_set_item_type", (PyCFunction)set_set_item_type, METH_O, "Give an untyped set its item typecode."},
    {"_add", (PyCFunction)set_add, METH_O, NULL},
    {"_contains", (PyCFunction)set_contains, METH_O, NULL},
    {"_discard", (PyCFunction)set_discard, METH_O, NULL},
    {"_pop", (PyCFunction)set_pop, METH_NOARGS, NULL},
    {"_clear", (PyCFunction)set_clear, METH_NOARGS, NULL},
    {"_items", (PyCFunction)set_items, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef set_getset[] = {
    {"_item_typecode", (getter)set_item_typecode, NULL, "The item's typecode, None while unknown.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot set_slots[] = {
    {Py_tp_dealloc, set_dealloc},
    {Py_tp_methods, set_methods},
    {Py_tp_getset, set_getset},
    {Py_sq_length, set_len},
    {Py_tp_doc, "Native set of hpcjit.typed.Set (subclassed there)."},
    {0, NULL},
};

static PyType_Spec set_spec = {
    .name = "hpcjit._core._TypedSet",
    .basicsize = sizeof(TSet),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = set_slots,
};

/* ---- jitclass instances ('J' <id>) --------------------------------------- */

typedef struct JObj {
    PyObject_HEAD
    HjMemInfo *mi; /* the instance (hpcjit/jitclass.h) */
    long id;       /* its class's id */
} JObj;

static PyTypeObject *jit_base;
static PyObject *jit_classes; /* list: id -> the boxing class (hpcjit.experimental) */

static void jobj_dealloc(JObj *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    rt_decref(self->mi);
    tp->tp_free((PyObject *)self);
    Py_DECREF(tp);
}

static PyObject *jobj_meminfo(JObj *self, void *unused)
{
    return PyLong_FromVoidPtr(self->mi);
}

static PyGetSetDef jobj_getset[] = {
    {"_meminfo", (getter)jobj_meminfo, NULL, "The instance's MemInfo address.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot jobj_slots[] = {
    {Py_tp_dealloc, jobj_dealloc},
    {Py_tp_getset, jobj_getset},
    {Py_tp_doc, "A jitclass instance (subclassed per class by hpcjit.experimental)."},
    {0, NULL},
};

static PyType_Spec jobj_spec = {
    .name = "hpcjit._core._JitObject",
    .basicsize = sizeof(JObj),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = jobj_slots,
};

/* _jc_register(id, cls): the boxing class of jitclass id. */
static PyObject *jc_register(PyObject *mod, PyObject *args)
{
    long id;
    PyObject *cls;
    if (!PyArg_ParseTuple(args, "lO:_jc_register", &id, &cls))
        return NULL;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, jit_base)) {
        PyErr_SetString(PyExc_TypeError, "_jc_register takes a subclass of _JitObject");
        return NULL;
    }
    if (!jit_classes && !(jit_classes = PyList_New(0)))
        return NULL;
    if (id != PyList_GET_SIZE(jit_classes)) {
        PyErr_SetString(PyExc_ValueError, "_jc_register: ids are given in order");
        return NULL;
    }
    if (PyList_Append(jit_classes, cls) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static long jc_code_id(const char *tc, const char **end)
{
    char *e = NULL;
    long id = strtol(tc + 1, &e, 10);
    if (end)
        *end = e;
    return e == tc + 1 ? -1 : id;
}

int jc_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    if (!jit_base || !PyObject_TypeCheck(obj, jit_base))
        return 1;
    int n = snprintf(buf + *len, cap - *len, "J%ld", ((JObj *)obj)->id);
    if (n < 0 || (size_t)n >= cap - *len)
        return -1;
    *len += (size_t)n;
    return 0;
}

int jc_matches(PyObject *obj, const char **tc)
{
    const char *end;
    long id = jc_code_id(*tc, &end);
    *tc = end;
    return jit_base && PyObject_TypeCheck(obj, jit_base) && ((JObj *)obj)->id == id && ((JObj *)obj)->mi;
}

int jc_unbox(PyObject *obj, const char **tc, char *out)
{
    const char *start = *tc;
    if (!jc_matches(obj, tc)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: expected an instance of jitclass #%ld, got %.200s",
                     jc_code_id(start, NULL), Py_TYPE(obj)->tp_name);
        return -1;
    }
    memcpy(out, &((JObj *)obj)->mi, sizeof(HjMemInfo *)); /* borrowed during the call */
    return 0;
}

PyObject *jc_box(const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    const char *end;
    long id = jc_code_id(*tc, &end);
    *tc = end;
    if (!mi) /* an instance field never assigned (instances start zeroed): None, not a dangling object */
        Py_RETURN_NONE;
    if (!jit_classes || id < 0 || id >= PyList_GET_SIZE(jit_classes)) {
        rt_decref(mi);
        PyErr_Format(PyExc_SystemError, "hpcjit: unknown jitclass #%ld", id);
        return NULL;
    }
    PyTypeObject *tp = (PyTypeObject *)PyList_GET_ITEM(jit_classes, id);
    JObj *o = (JObj *)tp->tp_alloc(tp, 0);
    if (!o) {
        rt_decref(mi);
        return NULL;
    }
    o->mi = mi; /* takes the returned reference */
    o->id = id;
    if (adopt_value("J", (char *)&o->mi, 0) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

/* ---- the boundary (convert.c, dispatcher.c) ---------------------------- */

int typed_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    const char *a = NULL, *b = "";
    char c;
    if (list_base && PyObject_TypeCheck(obj, list_base)) {
        TList *l = (TList *)obj;
        if (!l->mi)
            return -1; /* an empty List() has no type yet, as in Numba */
        c = '#';
        a = l->tc;
    } else if (dict_base && PyObject_TypeCheck(obj, dict_base)) {
        TDict *d = (TDict *)obj;
        if (!d->mi)
            return -1;
        c = '&';
        a = d->ktc;
        b = d->vtc;
    } else if (set_base && PyObject_TypeCheck(obj, set_base)) {
        TSet *t = (TSet *)obj;
        if (!t->mi)
            return -1;
        c = '%';
        a = t->tc;
    } else {
        return 1; /* not a typed container */
    }
    size_t na = strlen(a), nb = strlen(b);
    if (*len + 1 + na + nb + 1 >= cap)
        return -1;
    buf[(*len)++] = c;
    memcpy(buf + *len, a, na);
    *len += na;
    memcpy(buf + *len, b, nb);
    *len += nb;
    return 0;
}

int typed_matches(PyObject *obj, const char **tc)
{
    char buf[HJ_MAX_TYPECODE];
    size_t len = 0;
    const char *start = *tc;
    if (tc_skip(tc) < 0)
        return 0;
    if (typed_typecode(obj, buf, &len, sizeof buf) != 0)
        return 0;
    return len == (size_t)(*tc - start) && memcmp(buf, start, len) == 0;
}

int typed_unbox(PyObject *obj, const char **tc, char *out)
{
    const char *start = *tc;
    if (!typed_matches(obj, tc)) {
        PyErr_Format(PyExc_TypeError, "hpcjit: expected a typed %s of typecode '%.60s', got %.200s",
                     *start == '#' ? "List" : *start == '%' ? "Set" : "Dict", start, Py_TYPE(obj)->tp_name);
        return -1;
    }
    HjMemInfo *mi = *start == '#' ? ((TList *)obj)->mi : *start == '%' ? ((TSet *)obj)->mi : ((TDict *)obj)->mi;
    memcpy(out, &mi, sizeof mi); /* borrowed: the object keeps it alive during the call */
    return 0;
}

int typed_after_call(PyObject *obj, const char *tc)
{
    if (*tc == 'J' && jit_base && PyObject_TypeCheck(obj, jit_base))
        return adopt_value("J", (char *)&((JObj *)obj)->mi, 0);
    if (*tc == '#' && list_base && PyObject_TypeCheck(obj, list_base))
        return adopt_list_items((TList *)obj);
    if (*tc == '&' && dict_base && PyObject_TypeCheck(obj, dict_base))
        return adopt_dict_values((TDict *)obj);
    return 0;
}

static int copy_code(char *dst, const char **tc)
{
    const char *s = *tc;
    if (tc_skip(tc) < 0 || (size_t)(*tc - s) >= HJ_MAX_TYPECODE)
        return -1;
    memcpy(dst, s, (size_t)(*tc - s));
    dst[*tc - s] = '\0';
    return 0;
}

static PyObject *registered(PyObject **cls, const char *name)
{
    if (!*cls) {
        PyObject *m = PyImport_ImportModule("hpcjit.typed"); /* registers the classes */
        Py_XDECREF(m);
        if (!m)
            return NULL;
    }
    if (!*cls)
        PyErr_Format(PyExc_SystemError, "hpcjit: %s is not registered", name);
    return *cls;
}

PyObject *typed_box(const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    const char *p = *tc;
    int list = *p == '#';
    if (*p == '%') {
        PyTypeObject *st = (PyTypeObject *)registered(&set_cls, "typed.Set");
        TSet *o = st ? (TSet *)st->tp_alloc(st, 0) : NULL;
        if (!o) {
            rt_decref(mi);
            tc_skip(tc);
            return NULL;
        }
        o->mi = mi; /* takes the returned reference */
        (*tc)++;
        if (copy_code(o->tc, tc) < 0) {
            PyErr_SetString(PyExc_SystemError, "hpcjit: bad typed container typecode");
            Py_DECREF(o);
            return NULL;
        }
        return (PyObject *)o;
    }
    PyObject *cls = registered(list ? &list_cls : &dict_cls, list ? "typed.List" : "typed.Dict");
    PyTypeObject *tp = (PyTypeObject *)cls;
    PyObject *obj = tp ? tp->tp_alloc(tp, 0) : NULL;
    if (!obj) {
        rt_decref(mi);
        tc_skip(tc);
        return NULL;
    }
    (*tc)++;
    int bad;
    if (list) {
        TList *l = (TList *)obj;
        l->mi = mi; /* takes the returned reference */
        bad = copy_code(l->tc, tc) < 0 || adopt_list_items(l) < 0;
    } else {
        TDict *d = (TDict *)obj;
        d->mi = mi;
        bad = copy_code(d->ktc, tc) < 0 || copy_code(d->vtc, tc) < 0 || adopt_dict_values(d) < 0;
    }
    if (bad) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "hpcjit: bad typed container typecode");
        Py_DECREF(obj);
        return NULL;
    }
    return obj;
}

/* _register_typed(List, Dict): the Python classes boxing makes. */
static PyObject *typed_register(PyObject *mod, PyObject *args)
{
    PyObject *l, *d, *st = NULL;
    if (!PyArg_ParseTuple(args, "OO|O:_register_typed", &l, &d, &st))
        return NULL;
    if (!PyType_Check(l) || !PyType_IsSubtype((PyTypeObject *)l, list_base) || !PyType_Check(d) ||
        !PyType_IsSubtype((PyTypeObject *)d, dict_base) ||
        (st && (!PyType_Check(st) || !PyType_IsSubtype((PyTypeObject *)st, set_base)))) {
        PyErr_SetString(PyExc_TypeError, "_register_typed takes subclasses of _TypedList, _TypedDict "
                        "and _TypedSet");
        return NULL;
    }
    Py_XSETREF(list_cls, Py_NewRef(l));
    Py_XSETREF(dict_cls, Py_NewRef(d));
    if (st)
        Py_XSETREF(set_cls, Py_NewRef(st));
    Py_RETURN_NONE;
}

/* _typecode(value): the typecode the dispatcher gives value, or None. */
static PyObject *typed_typecode_of(PyObject *mod, PyObject *obj)
{
    char buf[HJ_MAX_TYPECODE];
    size_t len = 0;
    if (cv_typecode(obj, buf, &len, sizeof buf) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len);
}

PyMethodDef typed_methods[] = {
    {"_jc_register", jc_register, METH_VARARGS, "Register the boxing class of a jitclass id."},
    {"_register_typed", typed_register, METH_VARARGS, "Register hpcjit.typed's List and Dict classes."},
    {"_typecode", typed_typecode_of, METH_O, "The dispatcher's typecode of a value, or None."},
    {NULL, NULL, 0, NULL},
};

int typed_init(PyObject *mod)
{
    core_st = PyModule_GetState(mod);
    if (!list_base) { /* once per process (see above) */
        list_base = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &list_spec, NULL);
        if (!list_base)
            return -1;
        dict_base = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &dict_spec, NULL);
        if (!dict_base)
            return -1;
        jit_base = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &jobj_spec, NULL);
        if (!jit_base)
            return -1;
        set_base = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &set_spec, NULL);
        if (!set_base)
            return -1;
    }
    if (PyModule_AddObjectRef(mod, "_TypedList", (PyObject *)list_base) < 0 ||
        PyModule_AddObjectRef(mod, "_TypedDict", (PyObject *)dict_base) < 0 ||
        PyModule_AddObjectRef(mod, "_JitObject", (PyObject *)jit_base) < 0 ||
        PyModule_AddObjectRef(mod, "_TypedSet", (PyObject *)set_base) < 0)
        return -1;
    return PyModule_AddFunctions(mod, typed_methods);
}
