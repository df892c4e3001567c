/* convert.c - typecodes of Python values, unboxing arguments into the
 * abi.h layout and boxing results back into Python objects. */
#include "core.h"

#include <ctype.h>
#include <string.h>

_Static_assert(sizeof(npy_intp) == sizeof(int64_t), "hpcjit needs a 64-bit npy_intp");

/* ---- typecodes of arguments ---------------------------------------------- */

/* hpcjit._fntype.<name>(obj[, code]): first-class function values (abi.h
 * 'P'), whose addresses and signatures come from Python objects (@cfunc,
 * Wrapper Address Protocol objects, dispatchers compiled at the boundary). */
static PyObject *fntype_call(const char *name, PyObject *obj, const char *code)
{
    PyObject *mod = NULL, *fn = NULL, *c = NULL, *res = NULL;
    mod = PyImport_ImportModule("hpcjit._fntype");
    if (!mod)
        goto error;
    fn = PyObject_GetAttrString(mod, name);
    if (!fn)
        goto error;
    if (code) {
        const char *end = strchr(code, ')');
        c = end ? PyUnicode_FromStringAndSize(code, end + 1 - code) : NULL;
        if (!c) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_SystemError, "hpcjit: bad function typecode");
            goto error;
        }
    }
    res = PyObject_CallFunctionObjArgs(fn, obj, c, NULL);
error:
    Py_XDECREF(c);
    Py_XDECREF(fn);
    Py_XDECREF(mod);
    return res;
}

/* The typecode of a @cfunc or Wrapper Address Protocol object: 1 when obj
 * is none of them, -1 when it cannot be typed (an error cleared). */
static int fn_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    if (!PyObject_HasAttrString((PyObject *)Py_TYPE(obj), "__wrapper_address__"))
        return 1;
    PyObject *code = fntype_call("typecode", obj, NULL);
    int r = -1;
    if (code && PyUnicode_Check(code)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(code, &n);
        if (s && *len + (size_t)n < cap) {
            memcpy(buf + *len, s, (size_t)n);
            *len += (size_t)n;
            r = 0;
        }
    }
    Py_XDECREF(code);
    PyErr_Clear();
    return r;
}

/* A numpy.random.Generator (not a subclass): typecode 'R'; compiled code
 * gets its bit generator's bitgen_t * (the capsule NumPy's BitGenerator
 * exposes for C code, numpy/random/bitgen.h) and calls NumPy's
 * distributions on it (lib/random, runtime/random.c). */
static int is_np_generator(PyObject *obj)
{
    return strcmp(Py_TYPE(obj)->tp_name, "numpy.random._generator.Generator") == 0;
}

/* Borrowed for the call: the Generator keeps its BitGenerator alive. */
static void *np_generator_bitgen(PyObject *obj)
{
    PyObject *bg = PyObject_GetAttrString(obj, "bit_generator");
    PyObject *cap = bg ? PyObject_GetAttrString(bg, "capsule") : NULL;
    void *p = cap ? PyCapsule_GetPointer(cap, "BitGenerator") : NULL;
    Py_XDECREF(cap);
    Py_XDECREF(bg);
    return p;
}

static int put(char *buf, size_t *len, size_t cap, char c)
{
    if (*len + 1 >= cap)
        return -1;
    buf[(*len)++] = c;
    return 0;
}

static char array_layout(PyArrayObject *arr)
{
    int flags = PyArray_FLAGS(arr);
    if (flags & NPY_ARRAY_C_CONTIGUOUS)
        return 'C';
    if (flags & NPY_ARRAY_F_CONTIGUOUS)
        return 'F';
    return 'A';
}

static char array_dtype(PyArrayObject *arr)
{
    if (!PyArray_ISALIGNED(arr))
        return 0;
    return tc_of_descr(PyArray_DESCR(arr));
}

static char scalar_obj_code(PyObject *obj)
{
    PyArray_Descr *d = PyArray_DescrFromScalar(obj);
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    char c = tc_of_descr(d);
    Py_DECREF(d);
    return c;
}

/* The dtype a dtype object or a NumPy scalar class stands for; 0 if not one. */
static char dtype_obj_code(PyObject *obj)
{
    if (PyArray_DescrCheck(obj))
        return tc_of_descr((PyArray_Descr *)obj);
    if (PyType_Check(obj) && PyType_IsSubtype((PyTypeObject *)obj, &PyGenericArrType_Type)) {
        PyArray_Descr *d = PyArray_DescrFromTypeObject(obj);
        if (!d) {
            PyErr_Clear();
            return 0;
        }
        char c = tc_of_descr(d);
        Py_DECREF(d);
        return c;
    }
    return 0;
}

/* A datetime64/timedelta64 dtype object (M8[D]) or class (np.datetime64:
 * generic): its two typecode characters into out, else 0. */
static int dtype_obj_dt(PyObject *obj, char *out)
{
    if (PyArray_DescrCheck(obj))
        return tc_dt_of_descr((PyArray_Descr *)obj, out);
    if (PyType_Check(obj) && (obj == (PyObject *)&PyDatetimeArrType_Type || obj == (PyObject *)&PyTimedeltaArrType_Type)) {
        out[0] = obj == (PyObject *)&PyDatetimeArrType_Type ? 'M' : 'm';
        out[1] = 'g';
        return 1;
    }
    return 0;
}

/* 'l' for an int that fits int64, 'L' for one above it that fits uint64 (as
 * Numba types it); larger ones stay 'l' and raise OverflowError when
 * unboxed.  Ints of up to two 30-bit digits (the common case) are decided
 * from the object's size alone, so the dispatcher's fast path pays a
 * compare. */
static char long_code(PyObject *obj)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (PyUnstable_Long_IsCompact((PyLongObject *)obj))
        return 'l';
#else
    Py_ssize_t digits = Py_SIZE(obj);
    if (digits >= -2 && digits <= 2)
        return 'l';
#endif
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 'l';
    }
    if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(obj);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* above uint64: unboxing as int64 says so */
            return 'l';
        }
        return 'L';
    }
    return 'l';
}

int cv_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    PyTypeObject *tp = Py_TYPE(obj);
    /* the common exact types first: they are the hot path */
    if (tp == &PyFloat_Type)
        return put(buf, len, cap, 'd');
    if (tp == &PyLong_Type)
        return put(buf, len, cap, long_code(obj));
    if (PyArray_Check(obj)) {
        PyArrayObject *arr = (PyArrayObject *)obj;
        int nd = PyArray_NDIM(arr);
        if (PyArray_HASFIELDS(arr)) { /* a record array: 'a' <'V' typecode> nd layout */
            if (nd > HJ_MAX_NDIM || put(buf, len, cap, PyArray_ISWRITEABLE(arr) ? 'a' : 'r') < 0 ||
                rec_typecode(PyArray_DESCR(arr), buf, len, cap) < 0 || put(buf, len, cap, (char)('0' + nd)) < 0)
                return -1;
            return put(buf, len, cap, array_layout(arr));
        }
        char dt = array_dtype(arr), mc[2];
        if (!dt && PyArray_ISALIGNED(arr) && tc_dt_of_descr(PyArray_DESCR(arr), mc)) { /* 'a' 'M' <unit> nd layout */
            if (nd > HJ_MAX_NDIM || *len + 5 >= cap)
                return -1;
            buf[(*len)++] = PyArray_ISWRITEABLE(arr) ? 'a' : 'r';
            buf[(*len)++] = mc[0];
            buf[(*len)++] = mc[1];
            buf[(*len)++] = (char)('0' + nd);
            buf[(*len)++] = array_layout(arr);
            return 0;
        }
        if (!dt || nd > HJ_MAX_NDIM || *len + 4 >= cap)
            return -1;
        /* read-only arrays are their own type: stores into them are refused */
        buf[(*len)++] = PyArray_ISWRITEABLE(arr) ? 'a' : 'r';
        buf[(*len)++] = dt;
        buf[(*len)++] = (char)('0' + nd);
        buf[(*len)++] = array_layout(arr);
        return 0;
    }
    if (tp == &PyBool_Type)
        return put(buf, len, cap, '?');
    if (PyUnicode_Check(obj))
        return put(buf, len, cap, 's');
    if (tp == &PyComplex_Type)
        return put(buf, len, cap, 'D');
    if (tp == &PyBytes_Type) /* bytes/bytearray: their buffer as a uint8 array */
        return put(buf, len, cap, 'y');
    if (tp == &PyByteArray_Type)
        return put(buf, len, cap, 'Y');
    if (obj == Py_None)
        return put(buf, len, cap, 'n');
    if (PyTuple_Check(obj)) {
        /* a named tuple: its class's header first (namedtuple.c) */
        if (!PyTuple_CheckExact(obj) && nt_is_class((PyObject *)tp) && nt_header((PyObject *)tp, buf, len, cap) < 0)
            return -1;
        if (put(buf, len, cap, '(') < 0)
            return -1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(obj); i++)
            if (cv_typecode(PyTuple_GET_ITEM(obj, i), buf, len, cap) < 0)
                return -1;
        return put(buf, len, cap, ')');
    }
    PyObject *sv = nt_struct_values(obj); /* a registered struct class (np.polynomial.Polynomial) */
    if (sv) {
        int r = nt_header((PyObject *)tp, buf, len, cap) < 0 ? -1 : cv_typecode(sv, buf, len, cap);
        Py_DECREF(sv);
        return r;
    }
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    int tr = typed_typecode(obj, buf, len, cap); /* typed.List / typed.Dict */
    if (tr <= 0)
        return tr;
    tr = jc_typecode(obj, buf, len, cap); /* a jitclass instance */
    if (tr <= 0)
        return tr;
    tr = gen_typecode(obj, buf, len, cap); /* a generator object of compiled code */
    if (tr <= 0)
        return tr;
    tr = ext_typecode(obj, buf, len, cap); /* a typeof_impl-registered class's instance */
    if (tr <= 0)
        return tr;
    if (PyList_Check(obj)) { /* a reflected list, typed by its first item as Numba */
        if (PyList_GET_SIZE(obj) == 0 || put(buf, len, cap, '[') < 0)
            return -1;
        return cv_typecode(PyList_GET_ITEM(obj, 0), buf, len, cap);
    }
    if (PyDict_Check(obj)) { /* typed by its first entry */
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        if (!PyDict_Next(obj, &pos, &k, &v) || put(buf, len, cap, '{') < 0 || cv_typecode(k, buf, len, cap) < 0)
            return -1;
        return cv_typecode(v, buf, len, cap);
    }
    if (PySet_Check(obj)) { /* a reflected set, typed by its first item */
        PyObject *it = PySet_GET_SIZE(obj) ? PyObject_GetIter(obj) : NULL, *k = it ? PyIter_Next(it) : NULL;
        int r = k && put(buf, len, cap, '<') == 0 ? cv_typecode(k, buf, len, cap) : -1;
        Py_XDECREF(k);
        Py_XDECREF(it);
        return r;
    }
    if (rec_is_record_scalar(obj)) /* np.void / np.record: a record by reference */
        return rec_scalar_typecode(obj, buf, len, cap);
    if (PyArray_DescrCheck(obj) && PyDataType_HASFIELDS((PyArray_Descr *)obj))
        return put(buf, len, cap, 't') < 0 ? -1 : rec_typecode((PyArray_Descr *)obj, buf, len, cap);
    if (PyArray_IsScalar(obj, Generic)) {
        char mc[2];
        if (tc_dt_of_scalar(obj, mc)) /* np.datetime64 / np.timedelta64: 'M'|'m' <unit> */
            return put(buf, len, cap, mc[0]) < 0 ? -1 : put(buf, len, cap, mc[1]);
        char c = scalar_obj_code(obj);
        return c ? put(buf, len, cap, c) : -1;
    }
    char mc[2];
    if (dtype_obj_dt(obj, mc))
        return put(buf, len, cap, 't') < 0 || put(buf, len, cap, mc[0]) < 0 ? -1 : put(buf, len, cap, mc[1]);
    char dc = dtype_obj_code(obj);
    if (dc) {
        if (put(buf, len, cap, 't') < 0)
            return -1;
        return put(buf, len, cap, dc);
    }
    if (is_np_generator(obj))
        return put(buf, len, cap, 'R');
    tr = fn_typecode(obj, buf, len, cap); /* a first-class function (@cfunc, WAP) */
    if (tr <= 0)
        return tr;
    /* subclasses of the Python number types */
    if (PyLong_Check(obj))
        return put(buf, len, cap, 'l');
    if (PyFloat_Check(obj))
        return put(buf, len, cap, 'd');
    if (PyComplex_Check(obj))
        return put(buf, len, cap, 'D');
    return -1;
}

/* ---- numbers -------------------------------------------------------------- */

typedef enum NumKind { NUM_BOOL, NUM_INT, NUM_UINT, NUM_FLOAT, NUM_COMPLEX } NumKind;

typedef struct Num {
    NumKind kind;
    long long i;
    unsigned long long u;
    double re, im;
} Num;

/* Classify a number without converting it; -1 if obj is not a number. */
static int num_kind(PyObject *obj, NumKind *kind)
{
    if (PyBool_Check(obj)) {
        *kind = NUM_BOOL;
        return 0;
    }
    if (PyArray_IsScalar(obj, Generic)) {
        char c = scalar_obj_code(obj);
        switch (c) {
        case '?': *kind = NUM_BOOL; return 0;
        case 'b': case 'h': case 'i': case 'l': *kind = NUM_INT; return 0;
        case 'B': case 'H': case 'I': case 'L': *kind = NUM_UINT; return 0;
        case 'e': case 'f': case 'd': *kind = NUM_FLOAT; return 0;
        case 'F': case 'D': *kind = NUM_COMPLEX; return 0;
        default: return -1;
        }
    }
    if (PyLong_Check(obj)) {
        *kind = NUM_INT;
        return 0;
    }
    if (PyFloat_Check(obj)) {
        *kind = NUM_FLOAT;
        return 0;
    }
    if (PyComplex_Check(obj)) {
        *kind = NUM_COMPLEX;
        return 0;
    }
    return -1;
}

static int get_num(PyObject *obj, Num *n)
{
    memset(n, 0, sizeof *n);
    if (PyBool_Check(obj)) {
        n->kind = NUM_BOOL;
        n->i = obj == Py_True;
        return 0;
    }
    if (PyArray_IsScalar(obj, Generic)) {
        union {
            npy_bool b;
            int8_t i8; int16_t i16; int32_t i32; int64_t i64;
            uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
            float f; double d; float fc[2]; double dc[2];
        } v;
        char c = scalar_obj_code(obj);
        if (!c) {
            PyErr_Format(PyExc_TypeError, "unsupported NumPy scalar type %s", Py_TYPE(obj)->tp_name);
            return -1;
        }
        PyArray_ScalarAsCtype(obj, &v);
        switch (c) {
        case '?': n->kind = NUM_BOOL; n->i = v.b != 0; break;
        case 'b': n->kind = NUM_INT; n->i = v.i8; break;
        case 'h': n->kind = NUM_INT; n->i = v.i16; break;
        case 'i': n->kind = NUM_INT; n->i = v.i32; break;
        case 'l': n->kind = NUM_INT; n->i = v.i64; break;
        case 'B': n->kind = NUM_UINT; n->u = v.u8; break;
        case 'H': n->kind = NUM_UINT; n->u = v.u16; break;
        case 'I': n->kind = NUM_UINT; n->u = v.u32; break;
        case 'L': n->kind = NUM_UINT; n->u = v.u64; break;
        case 'e': n->kind = NUM_FLOAT; n->re = tc_half_to_double(v.u16); break;
        case 'f': n->kind = NUM_FLOAT; n->re = v.f; break;
        case 'd': n->kind = NUM_FLOAT; n->re = v.d; break;
        case 'F': n->kind = NUM_COMPLEX; n->re = v.fc[0]; n->im = v.fc[1]; break;
        case 'D': n->kind = NUM_COMPLEX; n->re = v.dc[0]; n->im = v.dc[1]; break;
        }
        return 0;
    }
    if (PyLong_Check(obj)) {
        int overflow = 0;
        n->kind = NUM_INT;
        n->i = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (n->i == -1 && PyErr_Occurred())
            return -1;
        if (overflow > 0) {
            n->kind = NUM_UINT;
            n->u = PyLong_AsUnsignedLongLong(obj);
            if (n->u == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
        } else if (overflow < 0) {
            PyErr_SetString(PyExc_OverflowError, "int too large to convert to int64");
            return -1;
        }
        return 0;
    }
    if (PyFloat_Check(obj)) {
        n->kind = NUM_FLOAT;
        n->re = PyFloat_AS_DOUBLE(obj);
        return 0;
    }
    if (PyComplex_Check(obj)) {
        n->kind = NUM_COMPLEX;
        n->re = PyComplex_RealAsDouble(obj);
        n->im = PyComplex_ImagAsDouble(obj);
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "expected a number, got %s", Py_TYPE(obj)->tp_name);
    return -1;
}

static double num_real(const Num *n)
{
    switch (n->kind) {
    case NUM_BOOL: case NUM_INT: return (double)n->i;
    case NUM_UINT: return (double)n->u;
    default: return n->re;
    }
}

static long long num_int(const Num *n)
{
    switch (n->kind) {
    case NUM_BOOL: case NUM_INT: return n->i;
    case NUM_UINT: return (long long)n->u;
    default: return (long long)n->re;
    }
}

#define STORE(T, v) do { T tmp_ = (T)(v); memcpy(out, &tmp_, sizeof tmp_); } while (0)

static int store_num(const Num *n, char c, char *out)
{
    switch (c) {
    case '?': STORE(uint8_t, num_int(n) != 0 || (n->kind >= NUM_FLOAT && n->re != 0.0)); break;
    case 'b': STORE(int8_t, num_int(n)); break;
    case 'h': STORE(int16_t, num_int(n)); break;
    case 'i': STORE(int32_t, num_int(n)); break;
    case 'l': STORE(int64_t, num_int(n)); break;
    case 'B': STORE(uint8_t, num_int(n)); break;
    case 'H': STORE(uint16_t, num_int(n)); break;
    case 'I': STORE(uint32_t, num_int(n)); break;
    case 'L': STORE(uint64_t, n->kind == NUM_UINT ? n->u : (unsigned long long)num_int(n)); break;
    case 'e': STORE(uint16_t, tc_double_to_half(num_real(n))); break;
    case 'f': STORE(float, num_real(n)); break;
    case 'd': STORE(double, num_real(n)); break;
    case 'F': {
        float v[2] = {(float)num_real(n), (float)n->im};
        memcpy(out, v, sizeof v);
        break;
    }
    case 'D': {
        double v[2] = {num_real(n), n->im};
        memcpy(out, v, sizeof v);
        break;
    }
    default:
        PyErr_Format(PyExc_SystemError, "hpcjit: bad scalar typecode '%c'", c);
        return -1;
    }
    return 0;
}

/* ---- matching with conversion (explicit signatures) ------------------------ */

static int code_is_int(char c) { return strchr("bhilBHIL", c) != NULL; }

int cv_matches(PyObject *obj, const char **tc)
{
    const char *p = *tc;
    char c = *p;
    int ok = 0;
    NumKind k;
    switch (c) {
    case 'n':
        ok = obj == Py_None;
        break;
    case 's':
        ok = PyUnicode_Check(obj);
        break;
    case 'R':
        ok = is_np_generator(obj);
        break;
    case 'P': { /* a first-class function of this signature, or a dispatcher */
        PyObject *m = fntype_call("matches", obj, p);
        ok = m ? PyObject_IsTrue(m) == 1 : 0;
        Py_XDECREF(m);
        PyErr_Clear();
        break;
    }
    case 'y':
        ok = PyBytes_CheckExact(obj);
        break;
    case 'Y':
        ok = PyByteArray_CheckExact(obj);
        break;
    case 't':
        if (p[1] == 'V')
            ok = PyArray_DescrCheck(obj) && PyDataType_HASFIELDS((PyArray_Descr *)obj) &&
                 rec_same((PyArray_Descr *)obj, p + 1);
        else if (p[1] == 'M' || p[1] == 'm') {
            char mc[2];
            ok = dtype_obj_dt(obj, mc) && mc[0] == p[1] && mc[1] == p[2];
        } else
            ok = dtype_obj_code(obj) == p[1];
        break;
    case 'M':
    case 'm': {
        char mc[2];
        ok = tc_dt_of_scalar(obj, mc) && mc[0] == p[0] && mc[1] == p[1];
        break;
    }
    case 'V':
        ok = rec_is_record_scalar(obj) && rec_subtype(rec_scalar_descr(obj), p); /* width subtyping */
        break;
    case 'a':
    case 'r': {
        if (PyArray_Check(obj)) {
            PyArrayObject *arr = (PyArrayObject *)obj;
            const char *q = p + 1;
            char mc[2];
            int dt_ok = *q == 'V' ? PyArray_HASFIELDS(arr) && rec_same(PyArray_DESCR(arr), q)
                        : *q == 'M' || *q == 'm'
                            ? PyArray_ISALIGNED(arr) && tc_dt_of_descr(PyArray_DESCR(arr), mc) && mc[0] == q[0] &&
                                  mc[1] == q[1]
                            : !PyArray_HASFIELDS(arr) && array_dtype(arr) == *q;
            q = tc_elem_skip(q);
            char lay = q ? q[1] : 0;
            ok = (c == 'r' || PyArray_ISWRITEABLE(arr)) && dt_ok && q &&
                 PyArray_NDIM(arr) == q[0] - '0' &&
                 (lay == 'A' || array_layout(arr) == lay ||
                  (lay == 'F' && (PyArray_FLAGS(arr) & NPY_ARRAY_F_CONTIGUOUS)));
        }
        break;
    }
    case '[':
        return box_list_matches(obj, tc);
    case '#':
    case '&':
    case '%':
        return typed_matches(obj, tc);
    case 'J':
        return jc_matches(obj, tc);
    case 'G':
        return gen_matches(obj, tc);
    case '{':
    case '<':
        return box_dict_matches(obj, tc);
    case 'N': {
        long id;
        const char *q = nt_skip_header(p, &id);
        if (q && ext_is(id)) { /* an extension type: its class, unboxed by its code */
            ok = ext_matches(id, obj);
            *tc = q;
            tc_skip(tc);
            return ok;
        }
        PyObject *cls = q ? nt_class(id) : NULL;
        PyErr_Clear();
        ok = cls && (PyObject *)Py_TYPE(obj) == cls;
        if (ok) { /* a struct class's instance: as the tuple of its attributes */
            PyObject *sv = nt_struct_values(obj);
            PyErr_Clear();
            ok = cv_matches(sv ? sv : obj, &q);
            Py_XDECREF(sv);
        }
        *tc = q ? q : p + 1;
        return ok;
    }
    case 'o': { /* Optional: None, or a value of the inner type (`optional(uint64)` given 1) */
        const char *q = p + 1;
        if (obj == Py_None) {
            *tc = q;
            return tc_skip(tc) < 0 ? 0 : 1;
        }
        ok = cv_matches(obj, &q);
        *tc = q;
        return ok;
    }
    case '(': {
        const char *q = p + 1;
        if (!PyTuple_Check(obj))
            break;
        Py_ssize_t i = 0, n = PyTuple_GET_SIZE(obj);
        ok = 1;
        while (*q != ')' && *q) {
            if (i >= n || !cv_matches(PyTuple_GET_ITEM(obj, i), &q)) {
                ok = 0;
                break;
            }
            i++;
        }
        if (i != n)
            ok = 0;
        break;
    }
    default:
        if (num_kind(obj, &k) < 0)
            break;
        if (c == '?')
            ok = k == NUM_BOOL;
        else if (code_is_int(c))
            ok = k <= NUM_UINT;
        else if (c == 'f' || c == 'd')
            ok = k <= NUM_FLOAT;
        else if (c == 'F' || c == 'D')
            ok = 1;
    }
    if (tc_skip(tc) < 0)
        return 0;
    return ok;
}

static int int_bits(char c)
{
    switch (c) {
    case 'b': case 'B': return 8;
    case 'h': case 'H': return 16;
    case 'i': case 'I': return 32;
    default: return 64;
    }
}

/* Numba's typeconv rules (bool -> int8 safe, wider ints of a signedness
 * promote, unsigned -> wider signed safe, int16 -> float32 and int32,
 * int64 -> float64 safe, float32 -> float64 promote, real -> complex safe)
 * closed over chains: the kind of a chain is its worst step. */
int cv_conversion_kind(PyObject *obj, char want)
{
    char buf[8];
    size_t len = 0;
    if (!strchr("?bhilBHILfdFD", want) || cv_typecode(obj, buf, &len, sizeof buf) < 0 || len != 1)
        return 4;
    char have = buf[0];
    if (have == want)
        return 0;
    int hi = code_is_int(have), wi = code_is_int(want);
    int hu = hi && isupper((unsigned char)have), wu = wi && isupper((unsigned char)want);
    if (have == '?')
        return 2;
    if (hi && wi) {
        if (hu == wu)
            return int_bits(want) > int_bits(have) ? 1 : 3;
        return hu && int_bits(want) > int_bits(have) ? 2 : 3;
    }
    if (hi && (want == 'd' || want == 'D'))
        return 2;
    if (hi && (want == 'f' || want == 'F'))
        return int_bits(have) <= 16 ? 2 : 3;
    if (have == 'f')
        return want == 'd' ? 1 : want == 'F' || want == 'D' ? 2 : 3;
    if (have == 'd')
        return want == 'D' ? 2 : 3;
    if (have == 'F')
        return want == 'D' ? 1 : 3;
    return 3;
}

/* ---- unboxing ------------------------------------------------------------ */

int cv_unbox(PyObject *obj, const char **tc, char *out)
{
    const char *p = *tc;
    char c = *p;
    switch (c) {
    case 'd':
        if (PyFloat_Check(obj)) {
            double v = PyFloat_AS_DOUBLE(obj);
            memcpy(out, &v, sizeof v);
            *tc = p + 1;
            return 0;
        }
        break;
    case 'l':
        if (PyLong_CheckExact(obj)) {
            int64_t v = PyLong_AsLongLong(obj);
            if (v == -1 && PyErr_Occurred())
                return -1;
            memcpy(out, &v, sizeof v);
            *tc = p + 1;
            return 0;
        }
        break;
    case 'n':
        *tc = p + 1;
        return 0;
    case 's': { /* a new native str (abi.h), released by cv_release_strs */
        HjMemInfo *mi = box_str_from_py(obj);
        if (!mi)
            return -1;
        memcpy(out, &mi, sizeof mi);
        *tc = p + 1;
        return 0;
    }
    case 't':
        return tc_skip(tc);
    case 'V': { /* a record scalar: its bytes, by reference */
        void *data = rec_scalar_data(obj);
        if (!data) {
            PyErr_SetString(PyExc_TypeError, "hpcjit: expected a record (np.void of a structured dtype)");
            return -1;
        }
        memcpy(out, &data, sizeof data);
        return tc_skip(tc);
    }
    case 'M': /* datetime64 / timedelta64: its int64 */
    case 'm': {
        char mc[2];
        if (!tc_dt_of_scalar(obj, mc) || mc[0] != c || mc[1] != p[1]) {
            PyErr_SetString(PyExc_TypeError, "hpcjit: datetime argument does not match the signature");
            return -1;
        }
        int64_t v = c == 'M' ? ((PyDatetimeScalarObject *)obj)->obval : ((PyTimedeltaScalarObject *)obj)->obval;
        memcpy(out, &v, sizeof v);
        *tc = p + 2;
        return 0;
    }
    case 'P': { /* a first-class function: its C function's address */
        PyObject *a = fntype_call("address", obj, p);
        void *addr = a ? PyLong_AsVoidPtr(a) : NULL;
        Py_XDECREF(a);
        if (!addr)
            return -1;
        memcpy(out, &addr, sizeof addr);
        return tc_skip(tc);
    }
    case 'R': {
        void *bg = np_generator_bitgen(obj);
        if (!bg)
            return -1;
        memcpy(out, &bg, sizeof bg);
        *tc = p + 1;
        return 0;
    }
    case 'a':
    case 'r': {
        PyArrayObject *arr = (PyArrayObject *)obj;
        HjArray *a = (HjArray *)out;
        const char *q = tc_elem_skip(p + 1);
        if (!q || !PyArray_Check(obj) || PyArray_NDIM(arr) != q[0] - '0') {
            PyErr_SetString(PyExc_TypeError, "hpcjit: array argument does not match the signature");
            return -1;
        }
        int nd = PyArray_NDIM(arr);
        a->meminfo = NULL;
        a->parent = arr;
        a->nitems = PyArray_SIZE(arr);
        a->itemsize = PyArray_ITEMSIZE(arr);
        a->data = PyArray_DATA(arr);
        if (nd) { /* a 0-d array's dims and strides may be NULL */
            memcpy(a->shape_strides, PyArray_DIMS(arr), (size_t)nd * sizeof(int64_t));
            memcpy(a->shape_strides + nd, PyArray_STRIDES(arr), (size_t)nd * sizeof(int64_t));
        }
        *tc = q + 2;
        return 0;
    }
    case 'y':   /* bytes: its buffer, borrowed (parent: the object) */
    case 'Y': { /* bytearray: the same, writable */
        HjArray *a = (HjArray *)out;
        if (c == 'y' ? !PyBytes_Check(obj) : !PyByteArray_Check(obj)) {
            PyErr_SetString(PyExc_TypeError, "hpcjit: bytes argument does not match the signature");
            return -1;
        }
        a->meminfo = NULL;
        a->parent = obj;
        a->nitems = c == 'y' ? PyBytes_GET_SIZE(obj) : PyByteArray_GET_SIZE(obj);
        a->itemsize = 1;
        a->data = c == 'y' ? PyBytes_AS_STRING(obj) : PyByteArray_AS_STRING(obj);
        a->shape_strides[0] = a->nitems;
        a->shape_strides[1] = 1;
        *tc = p + 1;
        return 0;
    }
    case '[':
        return box_list_unbox(obj, tc, out);
    case '#':
    case '&':
    case '%':
        return typed_unbox(obj, tc, out);
    case 'J':
        return jc_unbox(obj, tc, out);
    case 'G':
        return gen_unbox(obj, tc, out);
    case 'o': { /* Optional (an explicit signature's optional(uint64)): the flag, then the value
                   at the inner type's alignment (typecode.c tc_layout) */
        const char *q = p + 1, *inner = p + 1;
        size_t s, a;
        if (tc_layout(&q, &s, &a) < 0)
            return -1;
        memset(out, 0, a + s);
        *tc = q;
        if (obj == Py_None)
            return 0;
        out[0] = 1;
        return cv_unbox(obj, &inner, out + a);
    }
    case '{':
    case '<':
        return box_dict_unbox(obj, tc, out);
    case 'N': {
        long id;
        const char *q = nt_skip_header(p, &id);
        if (!q) {
            PyErr_SetString(PyExc_SystemError, "hpcjit: bad named tuple typecode");
            return -1;
        }
        *tc = q;
        if (ext_is(id)) { /* an extension type: the user's @unbox writes the members */
            tc_skip(tc);
            return ext_unbox(id, obj, out);
        }
        PyObject *sv = nt_struct_values(obj); /* a struct class's instance: its attributes, */
        if (sv) {                              /* arrays borrowed from obj (alive in the call) */
            int r = cv_unbox(sv, tc, out);
            Py_DECREF(sv);
            return r;
        }
        if (PyErr_Occurred())
            return -1;
        return cv_unbox(obj, tc, out);
    }
    case '(': {
        const char *q = p + 1;
        size_t off = 0;
        Py_ssize_t i = 0;
        if (!PyTuple_Check(obj)) {
            PyErr_SetString(PyExc_TypeError, "hpcjit: expected a tuple argument");
            return -1;
        }
        while (*q != ')') {
            const char *elem = q;
            size_t s, a;
            if (tc_layout(&q, &s, &a) < 0 || i >= PyTuple_GET_SIZE(obj)) {
                PyErr_SetString(PyExc_TypeError, "hpcjit: tuple argument does not match the signature");
                return -1;
            }
            off = (off + a - 1) / a * a;
            if (cv_unbox(PyTuple_GET_ITEM(obj, i), &elem, out + off) < 0)
                return -1;
            off += s;
            i++;
        }
        *tc = q + 1;
        return 0;
    }
    default:
        break;
    }
    Num n;
    if (get_num(obj, &n) < 0)
        return -1;
    if (store_num(&n, c, out) < 0)
        return -1;
    *tc = p + 1;
    return 0;
}

/* ---- the owner of compiled-code memory behind a returned ndarray ---------- */

typedef struct MemInfoOwner {
    PyObject_HEAD
    HjMemInfo *mi;
} MemInfoOwner;

static void owner_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    rt_decref(((MemInfoOwner *)self)->mi);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot owner_slots[] = {
    {Py_tp_dealloc, owner_dealloc},
    {Py_tp_doc, "Owns the memory of an array allocated by compiled code."},
    {0, NULL},
};

PyType_Spec cv_owner_spec = {
    .name = "hpcjit._core._MemInfoOwner",
    .basicsize = sizeof(MemInfoOwner),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = owner_slots,
};

/* Steals the reference to `mi`, also on failure. */
PyObject *cv_owner_new(CoreState *st, HjMemInfo *mi)
{
    PyObject *o = st->owner_type->tp_alloc(st->owner_type, 0);
    if (!o) {
        rt_decref(mi);
        return NULL;
    }
    ((MemInfoOwner *)o)->mi = mi;
    return o;
}

/* ---- boxing ---------------------------------------------------------------- */

/* The dtype of an array typecode's element (a new reference). */
static PyArray_Descr *elem_descr(const char *p)
{
    long id;
    if (p[1] == 'M' || p[1] == 'm')
        return tc_dt_descr(p + 1);
    if (p[1] != 'V')
        return PyArray_DescrFromType(tc_npy_type(p[1]));
    PyArray_Descr *d = rec_skip(p + 1, &id) ? rec_descr(id) : NULL;
    return d ? (PyArray_Descr *)Py_NewRef((PyObject *)d) : NULL;
}

/* An ndarray over (a part of) the buffer of the bytes/bytearray `obj`,
 * keeping it alive; writable when obj is a bytearray (np.frombuffer). */
static PyObject *array_over_buffer(const char *p, HjArray *a, PyObject *obj)
{
    const char *q = tc_elem_skip(p + 1);
    int nd = q ? q[0] - '0' : 0;
    PyArray_Descr *descr = elem_descr(p);
    if (!descr)
        return NULL;
    /* steals descr */
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, (npy_intp *)a->shape_strides,
                                         (npy_intp *)a->shape_strides + nd, a->data,
                                         PyByteArray_Check(obj) ? NPY_ARRAY_WRITEABLE : 0, NULL);
    if (!arr)
        return NULL;
    if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef(obj)) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* A bytes (bytearray) object of the buffer `a` (uint8, 1-d): the argument
 * itself when it is that object unchanged, else a copy; takes the reference
 * to a's meminfo. */
static PyObject *box_bytes(int bytearray, HjArray *a)
{
    PyObject *par = (PyObject *)a->parent, *res = NULL;
    int64_t n = a->shape_strides[0], stride = a->shape_strides[1];
    if (!a->meminfo && par && (bytearray ? PyByteArray_CheckExact(par) : PyBytes_CheckExact(par)) &&
        (bytearray ? PyByteArray_AS_STRING(par) : PyBytes_AS_STRING(par)) == a->data &&
        (bytearray ? PyByteArray_GET_SIZE(par) : PyBytes_GET_SIZE(par)) == n)
        return Py_NewRef(par);
    res = bytearray ? PyByteArray_FromStringAndSize(NULL, n) : PyBytes_FromStringAndSize(NULL, n);
    if (res) {
        char *dst = bytearray ? PyByteArray_AS_STRING(res) : PyBytes_AS_STRING(res);
        if (stride == 1)
            memcpy(dst, a->data, (size_t)n);
        else
            for (int64_t i = 0; i < n; i++)
                dst[i] = a->data[i * stride];
    }
    rt_decref(a->meminfo);
    return res;
}

/* d is the datetime dtype of the two typecode characters at p. */
static int same_dt_unit(PyArray_Descr *d, const char *p)
{
    char mc[2];
    return tc_dt_of_descr(d, mc) && mc[0] == p[0] && mc[1] == p[1];
}

static PyObject *box_array(CoreState *st, const char *p, HjArray *a)
{
    const char *q = tc_elem_skip(p + 1);
    if (!q) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: bad record array typecode");
        return NULL;
    }
    int tn = p[1] == 'V' ? NPY_VOID : p[1] == 'M' ? NPY_DATETIME : p[1] == 'm' ? NPY_TIMEDELTA : tc_npy_type(p[1]);
    int nd = q[0] - '0';
    npy_intp *shape = (npy_intp *)a->shape_strides;
    npy_intp *strides = (npy_intp *)a->shape_strides + nd;
    PyArray_Descr *descr = NULL;
    PyObject *arr = NULL;

    if (!a->meminfo) {
        PyArrayObject *par = a->parent;
        if (!par) {
            /* a frozen global array (or a view of one): its items live in
             * the compiled code, so the caller gets a read-only copy */
            PyObject *tmp = NULL, *copy = NULL;
            if (!(descr = elem_descr(p)))
                return NULL;
            /* steals descr */
            tmp = PyArray_NewFromDescr(&PyArray_Type, descr, nd, shape, strides, a->data, 0, NULL);
            if (!tmp)
                return NULL;
            copy = PyArray_NewCopy((PyArrayObject *)tmp, NPY_CORDER);
            Py_DECREF(tmp);
            if (copy)
                PyArray_CLEARFLAGS((PyArrayObject *)copy, NPY_ARRAY_WRITEABLE);
            return copy;
        }
        if (!PyArray_Check((PyObject *)par)) /* a bytes/bytearray argument's buffer */
            return array_over_buffer(p, a, (PyObject *)par);
        if (PyArray_DATA(par) == a->data && PyArray_NDIM(par) == nd && PyArray_TYPE(par) == tn &&
            (tn != NPY_VOID || PyArray_ITEMSIZE(par) == a->itemsize) &&
            ((tn != NPY_DATETIME && tn != NPY_TIMEDELTA) || same_dt_unit(PyArray_DESCR(par), p + 1)) &&
            memcmp(PyArray_DIMS(par), shape, (size_t)nd * sizeof(npy_intp)) == 0 &&
            memcmp(PyArray_STRIDES(par), strides, (size_t)nd * sizeof(npy_intp)) == 0)
            return Py_NewRef((PyObject *)par);
        descr = elem_descr(p);
        if (!descr)
            return NULL;
        /* steals descr */
        arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, shape, strides, a->data,
                                   PyArray_FLAGS(par) & NPY_ARRAY_WRITEABLE, NULL);
        if (!arr)
            return NULL;
        if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef((PyObject *)par)) < 0) {
            Py_DECREF(arr);
            return NULL;
        }
        return arr;
    }

    PyObject *owner = cv_owner_new(st, a->meminfo); /* takes the reference */
    if (!owner)
        return NULL;
    descr = elem_descr(p);
    if (!descr)
        goto error;
    /* a read-only type stays read-only (np.frombuffer of bytes, broadcast_to), as Numba boxes it */
    arr = PyArray_NewFromDescr(&PyArray_Type, descr, nd, shape, strides, a->data, p[0] == 'r' ? 0 : NPY_ARRAY_WRITEABLE,
                               NULL);
    if (!arr)
        goto error;
    /* steals owner, also on failure */
    if (PyArray_SetBaseObject((PyArrayObject *)arr, owner) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
error:
    Py_DECREF(owner);
    return NULL;
}

PyObject *cv_box(CoreState *st, const char **tc, char *in)
{
    const char *p = *tc;
    char c = *p;
    PyObject *res = NULL;
    switch (c) {
    case 'd': { double v; memcpy(&v, in, sizeof v); res = PyFloat_FromDouble(v); break; }
    case 'f': { float v; memcpy(&v, in, sizeof v); res = PyFloat_FromDouble(v); break; }
    case 'e': { uint16_t v; memcpy(&v, in, sizeof v); res = PyFloat_FromDouble(tc_half_to_double(v)); break; }
    case 'l': { int64_t v; memcpy(&v, in, sizeof v); res = PyLong_FromLongLong(v); break; }
    case 'i': { int32_t v; memcpy(&v, in, sizeof v); res = PyLong_FromLong(v); break; }
    case 'h': { int16_t v; memcpy(&v, in, sizeof v); res = PyLong_FromLong(v); break; }
    case 'b': { int8_t v; memcpy(&v, in, sizeof v); res = PyLong_FromLong(v); break; }
    case 'L': { uint64_t v; memcpy(&v, in, sizeof v); res = PyLong_FromUnsignedLongLong(v); break; }
    case 'I': { uint32_t v; memcpy(&v, in, sizeof v); res = PyLong_FromUnsignedLong(v); break; }
    case 'H': { uint16_t v; memcpy(&v, in, sizeof v); res = PyLong_FromLong(v); break; }
    case 'B': { uint8_t v; memcpy(&v, in, sizeof v); res = PyLong_FromLong(v); break; }
    case '?': res = Py_NewRef(*(uint8_t *)in ? Py_True : Py_False); break;
    case 'F': { float v[2]; memcpy(v, in, sizeof v); res = PyComplex_FromDoubles(v[0], v[1]); break; }
    case 'D': { double v[2]; memcpy(v, in, sizeof v); res = PyComplex_FromDoubles(v[0], v[1]); break; }
    case 'n': res = Py_NewRef(Py_None); break;
    case 's': { /* a returned str owns one reference */
        HjMemInfo *mi;
        memcpy(&mi, in, sizeof mi);
        res = box_str_to_py(mi);
        rt_decref(mi);
        break;
    }
    case 't':
        if (p[1] == 'V') {
            long id;
            PyArray_Descr *d = rec_skip(p + 1, &id) ? rec_descr(id) : NULL;
            res = d ? Py_NewRef((PyObject *)d) : NULL;
        } else if (p[1] == 'M' || p[1] == 'm') {
            res = (PyObject *)tc_dt_descr(p + 1);
        } else {
            res = (PyObject *)PyArray_DescrFromType(tc_npy_type(p[1]));
        }
        break;
    case 'M': /* a datetime64 / timedelta64 scalar of its unit */
    case 'm': {
        PyArray_Descr *d = tc_dt_descr(p);
        if (d) {
            res = PyArray_Scalar(in, d, NULL);
            Py_DECREF(d);
        }
        break;
    }
    case 'V': { /* a record: a new np.record holding a copy of its bytes */
        long id;
        void *data;
        memcpy(&data, in, sizeof data);
        if (!rec_skip(p, &id))
            goto bad;
        res = rec_box(id, data);
        break;
    }
    case 'P': { /* a first-class function: the object its address came from */
        void *addr;
        memcpy(&addr, in, sizeof addr);
        PyObject *a = PyLong_FromVoidPtr(addr);
        res = a ? fntype_call("box", a, NULL) : NULL;
        Py_XDECREF(a);
        break;
    }
    case 'a': case 'r': res = box_array(st, p, (HjArray *)in); break;
    case 'y': case 'Y': res = box_bytes(p[0] == 'Y', (HjArray *)in); break;
    case '[': return box_list_box(st, tc, in);
    case '#': case '&': case '%': return typed_box(tc, in);
    case 'J': return jc_box(tc, in);
    case 'G': return gen_box(st, tc, in);
    /* a dict compiled code returns is a typed.Dict holding its native dict
     * (Numba's DictType: no copy); a set is a new Python set */
    case '{': return typed_box(tc, in);
    case '<': return box_dict_box(st, tc, in);
    case 'N': { /* a named tuple: the tuple, then its class made of it */
        long id;
        const char *q = nt_skip_header(p, &id);
        if (!q)
            goto bad;
        *tc = q;
        if (ext_is(id)) { /* an extension type: the user's @box makes the object */
            tc_skip(tc);
            return ext_box(id, in);
        }
        PyObject *t = cv_box(st, tc, in);
        /* id -1: a slice value (compiler/infer/infer_call.c slice_call),
           boxed as slice(start, stop, step) with Numba's filled bounds */
        PyObject *cls = t ? (id == -1 ? (PyObject *)&PySlice_Type : nt_class(id)) : NULL;
        res = cls ? PyObject_Call(cls, t, NULL) : NULL;
        Py_XDECREF(t);
        return res;
    }
    case 'o': { /* Optional: None, or the value after the flag */
        const char *q = p + 1, *base = p + 1;
        size_t s, a;
        if (tc_layout(&q, &s, &a) < 0)
            goto bad;
        if (!in[0]) {
            *tc = q;
            return Py_NewRef(Py_None);
        }
        res = cv_box(st, &base, in + a);
        *tc = q;
        return res;
    }
    case '(': {
        const char *q = p + 1;
        const char *scan = p;
        size_t off = 0;
        Py_ssize_t n = 0, i = 0;
        /* count the elements first to size the tuple */
        for (scan = p + 1; *scan != ')';) {
            if (tc_skip(&scan) < 0)
                goto bad;
            n++;
        }
        res = PyTuple_New(n);
        while (*q != ')') {
            const char *elem = q;
            size_t s, a;
            tc_layout(&q, &s, &a);
            off = (off + a - 1) / a * a;
            if (res) {
                PyObject *item = cv_box(st, &elem, in + off);
                if (!item)
                    Py_CLEAR(res);
                else
                    PyTuple_SET_ITEM(res, i, item);
            } else {
                cv_release(&elem, in + off); /* keep no leaked arrays after an error */
            }
            off += s;
            i++;
        }
        *tc = q + 1;
        return res;
    }
    case 'R': /* compiled code holds only the bit generator, not the object */
        PyErr_SetString(PyExc_TypeError,
                        "hpcjit: a numpy.random.Generator cannot be returned from compiled code");
        return NULL;
    default:
        goto bad;
    }
    if (tc_skip(tc) < 0)
        goto bad;
    return res;
bad:
    Py_XDECREF(res);
    PyErr_Format(PyExc_SystemError, "hpcjit: bad return typecode '%s'", p);
    return NULL;
}

void cv_release(const char **tc, char *in)
{
    const char *p = *tc;
    if (*p == 'a' || *p == 'r' || *p == 'y' || *p == 'Y') {
        rt_decref(((HjArray *)in)->meminfo);
    } else if (*p == '[' || *p == '{' || *p == '<' || *p == 's' || *p == '#' || *p == '&' || *p == 'J' ||
               *p == 'G' || *p == '%') {
        rt_decref(*(HjMemInfo **)in);
    } else if (*p == 'N') {
        const char *q = nt_skip_header(p, NULL);
        if (q) {
            *tc = q;
            cv_release(tc, in);
        }
        return;
    } else if (*p == 'o') {
        const char *q = p + 1, *base = p + 1;
        size_t s, a;
        if (tc_layout(&q, &s, &a) < 0)
            return;
        if (in[0])
            cv_release(&base, in + a);
        *tc = q;
        return;
    } else if (*p == '(') {
        const char *q = p + 1;
        size_t off = 0;
        while (*q && *q != ')') {
            const char *elem = q;
            size_t s, a;
            if (tc_layout(&q, &s, &a) < 0)
                return;
            off = (off + a - 1) / a * a;
            cv_release(&elem, in + off);
            off += s;
        }
    }
    tc_skip(tc);
}

void cv_release_strs(const char **tc, char *in)
{
    const char *p = *tc;
    if (*p == 'N') { /* a named tuple: its tuple's */
        const char *q = nt_skip_header(p, NULL);
        if (q) {
            *tc = q;
            cv_release_strs(tc, in);
        } else {
            tc_skip(tc);
        }
        return;
    }
    if (*p == 's') {
        HjMemInfo *mi;
        memcpy(&mi, in, sizeof mi);
        rt_decref(mi);
    } else if (*p == '(') {
        const char *q = p + 1;
        size_t off = 0;
        while (*q && *q != ')') {
            const char *elem = q;
            size_t s, a;
            if (tc_layout(&q, &s, &a) < 0)
                return;
            off = (off + a - 1) / a * a;
            cv_release_strs(&elem, in + off);
            off += s;
        }
    }
    tc_skip(tc);
}
