/* extension.c - types of numba.extending's low-level API across the
 * boundary (hpcjit/lowlevel.py).
 *
 * A user's `types.Type` subclass with a `models.StructModel` travels as a
 * named tuple typecode ('N' <id> ':' <name> ':' <attrs> ':' (<members>),
 * namedtuple.c), so the compiler sees a tuple of its members with their
 * attribute names.  What differs is the boundary: a Python object of a
 * class registered with `typeof_impl` is typed by calling lowlevel.py, and
 * converted by the native functions compiled from the user's @unbox and
 * @box code (llvmlite IR, hpcjit's JIT):
 *     int8_t unbox(PyObject *obj, void *out)  -> nonzero on error
 *     PyObject *box(const void *in)           -> new reference or NULL
 * The table maps named tuple ids to those functions and to the class whose
 * instances have the type.  GIL held throughout. */
#include "core.h"

#include <stdlib.h>

typedef int8_t (*ExtUnbox)(PyObject *obj, void *out);
typedef PyObject *(*ExtBox)(const void *in);

typedef struct ExtType {
    long id;       /* its named tuple id (namedtuple.c) */
    PyObject *cls; /* instances of this class have the type; NULL: none seen yet */
    ExtUnbox unbox;
    ExtBox box;
    char name[64];
} ExtType;

static ExtType *ext_tab;
static Py_ssize_t ext_len, ext_cap;
static PyObject *ext_classes;  /* set: classes registered with typeof_impl */
static PyObject *ext_typer;    /* hpcjit.lowlevel._typecode_of */

static ExtType *find(long id)
{
    for (Py_ssize_t i = 0; i < ext_len; i++)
        if (ext_tab[i].id == id)
            return &ext_tab[i];
    return NULL;
}

int ext_is(long id) { return find(id) != NULL; }

int ext_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    if (!ext_classes || !ext_typer)
        return 1;
    int has = PySet_Contains(ext_classes, (PyObject *)Py_TYPE(obj));
    if (has <= 0) {
        PyErr_Clear();
        return 1;
    }
    PyObject *tc = PyObject_CallOneArg(ext_typer, obj);
    const char *s = tc && PyUnicode_Check(tc) ? PyUnicode_AsUTF8(tc) : NULL;
    size_t n = s ? strlen(s) : 0;
    int r = -1;
    if (s && *len + n < cap) {
        memcpy(buf + *len, s, n);
        *len += n;
        r = 0;
    }
    Py_XDECREF(tc);
    PyErr_Clear(); /* a typeof_impl that fails leaves the value untypeable */
    return r;
}

int ext_matches(long id, PyObject *obj)
{
    const ExtType *e = find(id);
    return e && e->cls && (PyObject *)Py_TYPE(obj) == e->cls;
}

int ext_unbox(long id, PyObject *obj, char *out)
{
    const ExtType *e = find(id);
    if (!e || !e->unbox) {
        PyErr_Format(PyExc_TypeError, "hpcjit: no @unbox for the extension type %s",
                     e ? e->name : "?");
        return -1;
    }
    if (e->unbox(obj, out)) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "hpcjit: cannot unbox %.200s as %s", Py_TYPE(obj)->tp_name, e->name);
        return -1;
    }
    return 0;
}

PyObject *ext_box(long id, const char *in)
{
    const ExtType *e = find(id);
    if (!e || !e->box) {
        PyErr_Format(PyExc_TypeError, "hpcjit: cannot convert a native %s to a Python object (no @box "
                     "for it)", e ? e->name : "extension type");
        return NULL;
    }
    PyObject *r = e->box(in);
    if (!r && !PyErr_Occurred())
        PyErr_Format(PyExc_SystemError, "hpcjit: the @box of %s returned NULL with no exception set", e->name);
    return r;
}

/* _ext_register(key, name) -> id: a named tuple id for an extension type. */
static PyObject *py_ext_register(PyObject *mod, PyObject *args)
{
    PyObject *key = NULL;
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "Os:_ext_register", &key, &name))
        return NULL;
    long id = nt_id(key);
    if (id < 0)
        return NULL;
    if (!find(id)) {
        if (ext_len == ext_cap) {
            Py_ssize_t cap = ext_cap ? 2 * ext_cap : 8;
            ExtType *t = realloc(ext_tab, (size_t)cap * sizeof *t);
            if (!t)
                return PyErr_NoMemory();
            ext_tab = t;
            ext_cap = cap;
        }
        ExtType *e = &ext_tab[ext_len++];
        memset(e, 0, sizeof *e);
        e->id = id;
        snprintf(e->name, sizeof e->name, "%s", name);
    }
    return PyLong_FromLong(id);
}

/* _ext_set(id, cls or None, unbox address, box address): 0 = none. */
static PyObject *py_ext_set(PyObject *mod, PyObject *args)
{
    long id;
    PyObject *cls = NULL;
    unsigned long long unbox = 0, box = 0;
    if (!PyArg_ParseTuple(args, "lOKK:_ext_set", &id, &cls, &unbox, &box))
        return NULL;
    ExtType *e = find(id);
    if (!e) {
        PyErr_Format(PyExc_SystemError, "hpcjit: no extension type #%ld", id);
        return NULL;
    }
    if (cls != Py_None) {
        Py_XSETREF(e->cls, Py_NewRef(cls)); /* kept alive: compiled code keys on it */
    }
    if (unbox)
        e->unbox = (ExtUnbox)(uintptr_t)unbox;
    if (box)
        e->box = (ExtBox)(uintptr_t)box;
    Py_RETURN_NONE;
}

/* _ext_watch(cls, typer): instances of cls are typed by typer(obj) -> typecode. */
static PyObject *py_ext_watch(PyObject *mod, PyObject *args)
{
    PyObject *cls = NULL, *typer = NULL;
    if (!PyArg_ParseTuple(args, "OO:_ext_watch", &cls, &typer))
        return NULL;
    if (!ext_classes && !(ext_classes = PySet_New(NULL)))
        return NULL;
    if (PySet_Add(ext_classes, cls) < 0)
        return NULL;
    Py_XSETREF(ext_typer, Py_NewRef(typer));
    Py_RETURN_NONE;
}

PyMethodDef ext_methods[] = {
    {"_ext_register", py_ext_register, METH_VARARGS, "_ext_register(key, name) -> named tuple id"},
    {"_ext_set", py_ext_set, METH_VARARGS, "_ext_set(id, cls, unbox_address, box_address)"},
    {"_ext_watch", py_ext_watch, METH_VARARGS, "_ext_watch(cls, typer): type instances of cls by typer"},
    {NULL, NULL, 0, NULL},
};
