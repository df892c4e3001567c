/* namedtuple.c - named tuple classes across the boundary (typecode 'N',
 * abi.h): 'N' <id> ':' <class __name__> ':' <field>,<field> ':' then the
 * tuple's typecode.  Each class seen gets an id in a process-wide registry
 * (typecodes are process-wide dispatch keys), so that a returned value is
 * boxed into the same class; the fields let the compiler resolve `p.x`.
 * The values unbox and box as the tuples they are.  GIL held throughout. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

static PyObject *nt_classes; /* list: id -> class (kept alive: ids stay valid) */
static PyObject *nt_ids;     /* dict: class -> id */
static PyObject *nt_structs; /* dict: class -> its fields, for classes that are not tuples */

static PyObject *int_fields, *flag_fields; /* ("_int_",), ("_flag_",): IntEnum's, IntFlag's */

/* An enum.Enum subclass: its members cross as named tuples of their
 * `_value_` and box again by cls(value), which returns the member itself.
 * Those of an int subclass (IntEnum, IntFlag) cross as the named tuple of
 * the member as a plain int, under the field "_int_" ("_flag_" for an
 * IntFlag, whose `|` keeps the class in compiled code; nt_struct_values),
 * which compiled code types as an integer that keeps its class (Numba's
 * IntEnumMember, compiler/types/types.h ty_intenum); cls(int) boxes it
 * again (an IntFlag combination included).  Registered when first seen. */
static PyObject *enum_fields(PyObject *cls)
{
    static PyObject *enum_base, *flag_base, *value_fields;
    if (!enum_base) {
        PyObject *m = PyImport_ImportModule("enum");
        enum_base = m ? PyObject_GetAttrString(m, "Enum") : NULL;
        flag_base = m ? PyObject_GetAttrString(m, "Flag") : NULL;
        Py_XDECREF(m);
        if (!enum_base || !PyType_Check(enum_base) || !flag_base || !PyType_Check(flag_base)) {
            Py_CLEAR(enum_base);
            Py_CLEAR(flag_base);
            PyErr_Clear();
            return NULL;
        }
        value_fields = Py_BuildValue("(s)", "_value_"); /* compiler/types/types.h ty_is_enum */
        int_fields = Py_BuildValue("(s)", "_int_");     /* TY_INTENUM_FIELD */
        flag_fields = Py_BuildValue("(s)", "_flag_");   /* TY_INTFLAG_FIELD */
    }
    if (!PyType_Check(cls) || !value_fields || !int_fields || !flag_fields ||
        !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)enum_base))
        return NULL;
    PyObject *fields = value_fields;
    if (PyType_IsSubtype((PyTypeObject *)cls, &PyLong_Type))
        fields = PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)flag_base) ? flag_fields : int_fields;
    if ((!nt_structs && !(nt_structs = PyDict_New())) || PyDict_SetItem(nt_structs, cls, fields) < 0 ||
        nt_id(cls) < 0) {
        PyErr_Clear();
        return NULL;
    }
    return fields;
}

/* The registered fields of a struct class (borrowed), or NULL. */
static PyObject *struct_fields(PyObject *cls)
{
    PyObject *f = nt_structs ? PyDict_GetItemWithError(nt_structs, cls) : NULL;
    if (!f) {
        PyErr_Clear();
        f = enum_fields(cls);
    }
    return f;
}

PyObject *nt_struct_values(PyObject *obj)
{
    PyObject *fields = struct_fields((PyObject *)Py_TYPE(obj));
    if (!fields)
        return NULL;
    if (fields == int_fields || fields == flag_fields) { /* an IntEnum member: (int(member),) */
        PyObject *v = PyNumber_Long(obj), *t = v ? PyTuple_Pack(1, v) : NULL;
        Py_XDECREF(v);
        return t;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(fields);
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t && i < n; i++) {
        PyObject *v = PyObject_GetAttr(obj, PyTuple_GET_ITEM(fields, i));
        if (!v) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v); /* steals v */
    }
    return t;
}

int nt_is_class(PyObject *cls)
{
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &PyTuple_Type) || (PyTypeObject *)cls == &PyTuple_Type)
        return 0;
    PyObject *f = PyObject_GetAttrString(cls, "_fields");
    int ok = f && PyTuple_Check(f);
    Py_XDECREF(f);
    PyErr_Clear();
    return ok;
}

static int is_ident(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* The class's id (registering it), or -1 with an exception. */
long nt_id(PyObject *cls)
{
    if (!nt_classes) {
        nt_classes = PyList_New(0);
        nt_ids = PyDict_New();
        if (!nt_classes || !nt_ids)
            return -1;
    }
    PyObject *v = PyDict_GetItemWithError(nt_ids, cls);
    if (v)
        return PyLong_AsLong(v);
    if (PyErr_Occurred())
        return -1;
    long id = (long)PyList_GET_SIZE(nt_classes);
    PyObject *o = PyLong_FromLong(id);
    if (!o || PyList_Append(nt_classes, cls) < 0 || PyDict_SetItem(nt_ids, cls, o) < 0) {
        Py_XDECREF(o);
        return -1;
    }
    Py_DECREF(o);
    return id;
}

/* Append the header "N<id>:<name>:<fields>:" of class cls; -1 when the
 * class cannot be named in a typecode (no exception set). */
int nt_header(PyObject *cls, char *buf, size_t *len, size_t cap)
{
    long id = nt_id(cls);
    PyObject *sf = struct_fields(cls);
    PyObject *fields = id < 0 ? NULL : sf ? Py_NewRef(sf) : PyObject_GetAttrString(cls, "_fields");
    const char *name = ((PyTypeObject *)cls)->tp_name;
    const char *dot = strrchr(name, '.');
    if (dot)
        name = dot + 1;
    int r = -1;
    if (!fields || !PyTuple_Check(fields) || !is_ident(name))
        goto done;
    int n = snprintf(buf + *len, cap - *len, "N%ld:%s:", id, name);
    if (n < 0 || (size_t)n >= cap - *len)
        goto done;
    *len += (size_t)n;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fields); i++) {
        const char *f = PyUnicode_Check(PyTuple_GET_ITEM(fields, i)) ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(fields, i)) : NULL;
        if (!f || !is_ident(f))
            goto done;
        n = snprintf(buf + *len, cap - *len, "%s%s", i ? "," : "", f);
        if (n < 0 || (size_t)n >= cap - *len)
            goto done;
        *len += (size_t)n;
    }
    if (*len + 1 >= cap)
        goto done;
    buf[(*len)++] = ':';
    r = 0;
done:
    Py_XDECREF(fields);
    PyErr_Clear();
    return r;
}

const char *nt_skip_header(const char *p, long *id)
{
    char *end = NULL;
    long v = strtol(p + 1, &end, 10);
    if (!end || *end != ':')
        return NULL;
    const char *q = strchr(end + 1, ':');
    q = q ? strchr(q + 1, ':') : NULL;
    if (!q || q[1] != '(')
        return NULL;
    if (id)
        *id = v;
    return q + 1;
}

int tc_has_refs(const char *tc, const char *end)
{
    for (; tc < end; tc++) {
        if (*tc == 'N') {
            const char *q = nt_skip_header(tc, NULL);
            if (!q)
                return 1;
            tc = q;
        }
        if (*tc && strchr("aryY[#{&<sJG%", *tc))
            return 1;
    }
    return 0;
}

char nt_int_code(const char *tc)
{
    const char *q = tc[0] == 'N' ? nt_skip_header(tc, NULL) : NULL;
    if (!q || !q[1] || q[2] != ')')
        return 0;
    size_t n = (size_t)(q - tc);
    if (!((n > 7 && !memcmp(q - 7, ":_int_:", 7)) || (n > 8 && !memcmp(q - 8, ":_flag_:", 8))))
        return 0;
    return strchr("bhilBHIL", q[1]) ? q[1] : 0;
}

PyObject *nt_class(long id)
{
    if (!nt_classes || id < 0 || id >= PyList_GET_SIZE(nt_classes)) {
        PyErr_Format(PyExc_SystemError, "hpcjit: unknown named tuple class #%ld", id);
        return NULL;
    }
    return PyList_GET_ITEM(nt_classes, id);
}

/* _nt_header(cls): the typecode header of a named tuple class, or None. */
static PyObject *py_nt_header(PyObject *mod, PyObject *cls)
{
    char buf[HJ_MAX_TYPECODE];
    size_t len = 0;
    if (!(nt_is_class(cls) || struct_fields(cls)) || nt_header(cls, buf, &len, sizeof buf) < 0)
        Py_RETURN_NONE;
    return PyUnicode_FromStringAndSize(buf, (Py_ssize_t)len);
}

/* _nt_register_struct(cls, fields): instances of cls cross the boundary as
 * named tuples of those attributes and are made again by cls(*values). */
static PyObject *py_nt_register_struct(PyObject *mod, PyObject *args)
{
    PyObject *cls, *fields;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &cls, &PyTuple_Type, &fields))
        return NULL;
    if (!nt_structs && !(nt_structs = PyDict_New()))
        return NULL;
    if (PyDict_SetItem(nt_structs, cls, fields) < 0 || nt_id(cls) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_nt_class(PyObject *mod, PyObject *arg)
{
    long id = PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred())
        return NULL;
    PyObject *c = nt_class(id);
    return c ? Py_NewRef(c) : NULL;
}

PyMethodDef nt_methods[] = {
    {"_nt_header", py_nt_header, METH_O, "The typecode header of a named tuple class, or None."},
    {"_nt_class", py_nt_class, METH_O, "The named tuple class of an id."},
    {"_nt_register_struct", py_nt_register_struct, METH_VARARGS,
     "Make instances of a class cross as named tuples of the given attributes."},
    {NULL, NULL, 0, NULL},
};
