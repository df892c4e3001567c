/* record.c - NumPy structured dtypes across the boundary (typecode 'V',
 * abi.h): 'V' <id> ':' <itemsize> ':' ('A' aligned struct | 'U') '{' then
 * per field <name> '@' <offset> <field typecode> '}'.  A field is a number,
 * a nested record, a subarray of numbers: 'x' <ndim> (<dim> ',')* <dtype>, or
 * a character sequence ('S10' 'c10,', 'U3' 'w3,').  Each dtype seen gets an id in a process-wide
 * registry (typecodes are process-wide dispatch keys), so that a returned
 * record array or record is boxed with the same dtype.  A record argument
 * (np.void / np.record) is passed as a pointer to its bytes; a returned
 * record is boxed as a new np.record holding a copy, as Numba does.
 * GIL held throughout. */
#include "core.h"

#include <numpy/arrayscalars.h>

#include <string.h>

static PyObject *rec_dtypes;  /* list: id -> dtype (kept alive: ids stay valid) */
static PyObject *rec_records; /* list: id -> np.dtype((np.record, dtype)) or None */

/* The fast path: the typecode of each descr object seen, by pointer. */
#define REC_CACHE 32
typedef struct RecCacheEntry {
    PyArray_Descr *descr; /* strong reference */
    char tc[HJ_MAX_TYPECODE];
    size_t len;
} RecCacheEntry;
static RecCacheEntry rec_cache[REC_CACHE];
static int rec_cache_next;

static int is_aligned_struct(PyArray_Descr *d)
{
    return (PyDataType_FLAGS(d) & NPY_ALIGNED_STRUCT) != 0;
}

/* The id of dtype d (registering it): equal dtypes with the same aligned
 * flag share one id.  -1 with an exception. */
static long rec_id_of(PyArray_Descr *d)
{
    if (!rec_dtypes) {
        rec_dtypes = PyList_New(0);
        rec_records = PyList_New(0);
        if (!rec_dtypes || !rec_records)
            return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(rec_dtypes); i++) {
        PyArray_Descr *o = (PyArray_Descr *)PyList_GET_ITEM(rec_dtypes, i);
        if (is_aligned_struct(o) != is_aligned_struct(d))
            continue;
        int eq = PyObject_RichCompareBool((PyObject *)o, (PyObject *)d, Py_EQ);
        if (eq < 0)
            return -1;
        if (eq)
            return (long)i;
    }
    /* a recarray's dtype (np.record items) is kept as the plain one that
     * compiled code's new arrays get, as Numba's */
    PyArray_Descr *plain = NULL;
    if (d->typeobj != &PyVoidArrType_Type) {
        PyObject *spec = PyTuple_Pack(2, (PyObject *)&PyVoidArrType_Type, (PyObject *)d);
        int ok = spec && PyArray_DescrConverter(spec, &plain) == NPY_SUCCEED;
        Py_XDECREF(spec);
        if (!ok)
            return -1;
    } else {
        plain = (PyArray_Descr *)Py_NewRef((PyObject *)d);
    }
    int r = PyList_Append(rec_dtypes, (PyObject *)plain);
    Py_DECREF(plain);
    if (r < 0 || PyList_Append(rec_records, Py_None) < 0)
        return -1;
    return (long)PyList_GET_SIZE(rec_dtypes) - 1;
}

static int name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s == '@' || *s == '{' || *s == '}' || *s == ':' || (unsigned char)*s < ' ')
            return 0;
    return 1;
}

static int append(char *buf, size_t *len, size_t cap, const char *s, size_t n)
{
    if (*len + n + 1 >= cap)
        return -1;
    memcpy(buf + *len, s, n);
    *len += n;
    return 0;
}

/* A subarray field's dtype (its base a number): 'x' ndim (dim ',')* dtype. */
static int subarray_code(PyArray_Descr *fd, char *buf, size_t *len, size_t cap)
{
    PyObject *sub = PyObject_GetAttrString((PyObject *)fd, "subdtype"); /* (base, shape) */
    int r = -1;
    if (!sub || !PyTuple_Check(sub) || PyTuple_GET_SIZE(sub) != 2 || !PyArray_DescrCheck(PyTuple_GET_ITEM(sub, 0)))
        goto done;
    PyObject *shape = PyTuple_GET_ITEM(sub, 1);
    char c = tc_of_descr((PyArray_Descr *)PyTuple_GET_ITEM(sub, 0));
    Py_ssize_t nd = PyTuple_Check(shape) ? PyTuple_GET_SIZE(shape) : 0;
    if (!c || nd < 1 || nd > 9)
        goto done;
    char head[32];
    int n = snprintf(head, sizeof head, "x%c", (char)('0' + nd));
    if (append(buf, len, cap, head, (size_t)n) < 0)
        goto done;
    for (Py_ssize_t d = 0; d < nd; d++) {
        long v = PyLong_AsLong(PyTuple_GET_ITEM(shape, d));
        if (v < 0)
            goto done;
        n = snprintf(head, sizeof head, "%ld,", v);
        if (append(buf, len, cap, head, (size_t)n) < 0)
            goto done;
    }
    r = append(buf, len, cap, &c, 1);
done:
    Py_XDECREF(sub);
    return r;
}

/* Append d's typecode; -1 when it has none (a subarray field, an object
 * field...), with no exception set. */
static int rec_format(PyArray_Descr *d, char *buf, size_t *len, size_t cap, int depth)
{
    PyObject *names = NULL, *fields = NULL, *info = NULL;
    int r = -1;
    long id = rec_id_of(d);
    if (id < 0 || depth > 16)
        goto done;
    names = PyObject_GetAttrString((PyObject *)d, "names");
    fields = PyObject_GetAttrString((PyObject *)d, "fields");
    if (!names || !fields || !PyTuple_Check(names))
        goto done;
    char head[64];
    int n = snprintf(head, sizeof head, "V%ld:%ld:%c{", id, (long)PyDataType_ELSIZE(d), is_aligned_struct(d) ? 'A' : 'U');
    if (append(buf, len, cap, head, (size_t)n) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
        PyObject *nm = PyTuple_GET_ITEM(names, i);
        info = PyObject_GetItem(fields, nm); /* (dtype, offset[, title]) */
        const char *s = PyUnicode_Check(nm) ? PyUnicode_AsUTF8(nm) : NULL;
        if (!s || !name_ok(s) || !info || !PyTuple_Check(info) || PyTuple_GET_SIZE(info) < 2 ||
            !PyArray_DescrCheck(PyTuple_GET_ITEM(info, 0)))
            goto done;
        PyArray_Descr *fd = (PyArray_Descr *)PyTuple_GET_ITEM(info, 0);
        long off = PyLong_AsLong(PyTuple_GET_ITEM(info, 1));
        if (off < 0)
            goto done;
        n = snprintf(head, sizeof head, "@%ld", off);
        if (append(buf, len, cap, s, strlen(s)) < 0 || append(buf, len, cap, head, (size_t)n) < 0)
            goto done;
        if (PyDataType_HASFIELDS(fd)) {
            if (rec_format(fd, buf, len, cap, depth + 1) < 0)
                goto done;
        } else if (PyDataType_HASSUBARRAY(fd)) { /* ('v', 'f8', (3,)): 'x' ndim (dim ',')* dtype */
            if (subarray_code(fd, buf, len, cap) < 0)
                goto done;
        } else if (fd->type_num == NPY_STRING || fd->type_num == NPY_UNICODE) { /* 'c'|'w' count ',' */
            int wide = fd->type_num == NPY_UNICODE;
            n = snprintf(head, sizeof head, "%c%ld,", wide ? 'w' : 'c', (long)PyDataType_ELSIZE(fd) / (wide ? 4 : 1));
            if (append(buf, len, cap, head, (size_t)n) < 0)
                goto done;
        } else {
            char c = tc_of_descr(fd);
            if (!c || append(buf, len, cap, &c, 1) < 0)
                goto done;
        }
        Py_CLEAR(info);
    }
    r = append(buf, len, cap, "}", 1);
done:
    Py_XDECREF(info);
    Py_XDECREF(names);
    Py_XDECREF(fields);
    PyErr_Clear();
    return r;
}

int rec_typecode(PyArray_Descr *d, char *buf, size_t *len, size_t cap)
{
    for (int i = 0; i < REC_CACHE; i++)
        if (rec_cache[i].descr == d)
            return append(buf, len, cap, rec_cache[i].tc, rec_cache[i].len);
    RecCacheEntry *e = &rec_cache[rec_cache_next];
    size_t n = 0;
    if (rec_format(d, e->tc, &n, sizeof e->tc, 0) < 0)
        return -1;
    Py_XSETREF(e->descr, (PyArray_Descr *)Py_NewRef((PyObject *)d));
    e->len = n;
    rec_cache_next = (rec_cache_next + 1) % REC_CACHE;
    return append(buf, len, cap, e->tc, n);
}

const char *rec_skip(const char *p, long *id)
{
    if (*p != 'V')
        return NULL;
    char *end = NULL;
    long v = strtol(p + 1, &end, 10);
    const char *q = end ? strchr(end, '{') : NULL;
    if (!q)
        return NULL;
    int depth = 0;
    for (; *q; q++) {
        if (*q == '{')
            depth++;
        else if (*q == '}' && --depth == 0) {
            if (id)
                *id = v;
            return q + 1;
        }
    }
    return NULL;
}

int rec_same(PyArray_Descr *d, const char *p)
{
    char buf[HJ_MAX_TYPECODE];
    size_t len = 0;
    const char *end = rec_skip(p, NULL);
    return end && rec_typecode(d, buf, &len, sizeof buf) == 0 && len == (size_t)(end - p) &&
           memcmp(buf, p, len) == 0;
}

/* The end of the field entry <name> '@' <offset> <code> at q, or NULL. */
static const char *field_end(const char *q)
{
    q = strchr(q, '@');
    if (!q)
        return NULL;
    q++;
    while (*q >= '0' && *q <= '9')
        q++;
    if (*q == 'V')
        return rec_skip(q, NULL);
    if (*q == 'c' || *q == 'w') { /* a character sequence: count ',' */
        q = strchr(q, ',');
        return q ? q + 1 : NULL;
    }
    if (*q == 'x') { /* 'x' ndim (dim ',')* code */
        int nd = q[1] - '0';
        q += 2;
        for (int d = 0; d < nd; d++) {
            q = strchr(q, ',');
            if (!q)
                return NULL;
            q++;
        }
    }
    return *q ? q + 1 : NULL;
}

int rec_subtype(PyArray_Descr *d, const char *p)
{
    char buf[HJ_MAX_TYPECODE];
    size_t len = 0;
    const char *end = rec_skip(p, NULL);
    if (!end || rec_typecode(d, buf, &len, sizeof buf) < 0)
        return 0;
    buf[len] = '\0';
    const char *want = strchr(p, '{'), *have = strchr(buf, '{');
    if (!want || !have)
        return 0;
    /* every field of p's record, the same entry (name, offset, type) in d's */
    for (const char *q = want + 1; q < end - 1;) {
        const char *e = field_end(q);
        if (!e || e > end - 1)
            return 0;
        int found = 0;
        for (const char *h = have + 1; *h && *h != '}' && !found;) {
            const char *he = field_end(h);
            if (!he)
                return 0;
            found = he - h == e - q && memcmp(h, q, (size_t)(e - q)) == 0;
            h = he;
        }
        if (!found)
            return 0;
        q = e;
    }
    return 1;
}

PyArray_Descr *rec_scalar_descr(PyObject *obj)
{
    return ((PyVoidScalarObject *)obj)->descr;
}

PyArray_Descr *rec_descr(long id)
{
    if (!rec_dtypes || id < 0 || id >= PyList_GET_SIZE(rec_dtypes)) {
        PyErr_Format(PyExc_SystemError, "hpcjit: unknown structured dtype #%ld", id);
        return NULL;
    }
    return (PyArray_Descr *)PyList_GET_ITEM(rec_dtypes, id);
}

int rec_is_record_scalar(PyObject *obj)
{
    return PyArray_IsScalar(obj, Void) && PyDataType_HASFIELDS(((PyVoidScalarObject *)obj)->descr);
}

int rec_scalar_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    return rec_typecode(((PyVoidScalarObject *)obj)->descr, buf, len, cap);
}

void *rec_scalar_data(PyObject *obj)
{
    return rec_is_record_scalar(obj) ? ((PyVoidScalarObject *)obj)->obval : NULL;
}

PyObject *rec_box(long id, const void *data)
{
    PyArray_Descr *d = rec_descr(id);
    if (!d)
        return NULL;
    PyObject *rd = PyList_GET_ITEM(rec_records, id);
    if (rd == Py_None) { /* np.dtype((np.record, d)): boxes as np.record */
        PyObject *np = PyImport_ImportModule("numpy");
        PyObject *rt = np ? PyObject_GetAttrString(np, "record") : NULL;
        PyObject *spec = rt ? PyTuple_Pack(2, rt, (PyObject *)d) : NULL;
        PyArray_Descr *out = NULL;
        if (spec && PyArray_DescrConverter(spec, &out) == NPY_SUCCEED)
            PyList_SetItem(rec_records, id, (PyObject *)out); /* steals out */
        Py_XDECREF(spec);
        Py_XDECREF(rt);
        Py_XDECREF(np);
        if (!out)
            return NULL;
        rd = (PyObject *)out;
    }
    /* no base: NumPy copies the bytes into the new scalar */
    return PyArray_Scalar((void *)data, (PyArray_Descr *)rd, NULL);
}

/* _rec_typecode(dtype): the typecode of a structured dtype, or None. */
static PyObject *py_rec_typecode(PyObject *mod, PyObject *arg)
{
    char buf[HJ_MAX_TYPECODE];
    size_t len = 0;
    if (!PyArray_DescrCheck(arg) || !PyDataType_HASFIELDS((PyArray_Descr *)arg) ||
        rec_typecode((PyArray_Descr *)arg, buf, &len, sizeof buf) < 0)
        Py_RETURN_NONE;
    return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len);
}

/* _rec_dtype(id): the structured dtype of a registry id. */
static PyObject *py_rec_dtype(PyObject *mod, PyObject *arg)
{
    long id = PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred())
        return NULL;
    PyArray_Descr *d = rec_descr(id);
    return d ? Py_NewRef((PyObject *)d) : NULL;
}

PyMethodDef rec_methods[] = {
    {"_rec_typecode", py_rec_typecode, METH_O, "The typecode of a structured dtype, or None."},
    {"_rec_dtype", py_rec_dtype, METH_O, "The structured dtype of a registry id."},
    {NULL, NULL, 0, NULL},
};
