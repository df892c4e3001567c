/* box_str.c - Python str <-> the runtime's native str (hpcjit/str.h), the
 * Unicode table the runtime uses for non-ASCII text, and a private
 * _str_selftest() through which tests/python/test_str_runtime.py compares
 * each rt_str_ function with CPython's str methods.
 *
 * Both sides store text as PEP 393 (kind 1/2/4, narrowest), so boxing is
 * a copy of the code units either way, never a re-encoding. */
#include "core.h"

#include <dlfcn.h>
#include <string.h>

#include "hpcjit/str.h"
#include "hpcjit/text.h"

/* ---- boxing ------------------------------------------------------------- */

/* The pending runtime exception as the Python exception of that builtin
 * name (RuntimeError for another name). */
static void raise_runtime_exception(void)
{
    const char *type = NULL, *msg = NULL;
    if (!rt_exc_fetch(&type, &msg)) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: str runtime failed without an exception");
        return;
    }
    PyObject *cls = PyDict_GetItemString(PyEval_GetBuiltins(), type); /* borrowed */
    if (!cls || !PyExceptionClass_Check(cls))
        cls = PyExc_RuntimeError;
    PyErr_SetString(cls, msg ? msg : "");
}

HjMemInfo *box_str_from_py(PyObject *obj)
{
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected str, got %.100s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(obj) < 0)
        return NULL;
#endif
    int kind = PyUnicode_KIND(obj);
    Py_ssize_t n = PyUnicode_GET_LENGTH(obj);
    /* CPython keeps every ready str in its narrowest kind, as HjStr must be */
    HjMemInfo *mi = rt_str_alloc(kind, n, PyUnicode_IS_ASCII(obj));
    if (!mi) {
        raise_runtime_exception();
        return NULL;
    }
    memcpy(RT_STR(mi)->data, PyUnicode_DATA(obj), (size_t)n * (size_t)kind);
    return mi;
}

PyObject *box_str_to_py(HjMemInfo *mi)
{
    const HjStr *s = RT_STR(mi);
    return PyUnicode_FromKindAndData(s->kind, s->data, s->length);
}

/* ---- the Unicode table ----------------------------------------------------
 * CPython's _PyUnicode_* lookups are pure reads of static tables: safe
 * without the GIL from any thread.  Py_UCS4 is uint32_t, so they fit
 * RtUnicodeDb's members as they are.  Python 3.13 made several private
 * (_PyUnicode_ToUpperFull, _PyUnicode_IsCased, ...): there they are looked
 * up by name, and where that fails the public simple mappings stand in. */

#if PY_VERSION_HEX < 0x030D0000
static const RtUnicodeDb unicode_db = {
    _PyUnicode_ToLowerFull,  _PyUnicode_ToUpperFull,    _PyUnicode_ToTitleFull, _PyUnicode_ToFoldedFull,
    _PyUnicode_IsCased,      _PyUnicode_IsCaseIgnorable, _PyUnicode_IsLowercase, _PyUnicode_IsUppercase,
    _PyUnicode_IsTitlecase,  _PyUnicode_IsAlpha,        _PyUnicode_IsDecimalDigit, _PyUnicode_IsDigit,
    _PyUnicode_IsNumeric,    _PyUnicode_IsPrintable,    _PyUnicode_IsXidStart,  _PyUnicode_IsXidContinue,
    _PyUnicode_ToDecimalDigit,
};

static const RtUnicodeDb *unicode_db_get(void) { return &unicode_db; }
#else
static int lower1(uint32_t c, uint32_t *r) { r[0] = Py_UNICODE_TOLOWER(c); return 1; }
static int upper1(uint32_t c, uint32_t *r) { r[0] = Py_UNICODE_TOUPPER(c); return 1; }
static int title1(uint32_t c, uint32_t *r) { r[0] = Py_UNICODE_TOTITLE(c); return 1; }
static int cased(uint32_t c) { return Py_UNICODE_ISLOWER(c) || Py_UNICODE_ISUPPER(c) || Py_UNICODE_ISTITLE(c); }
static int never(uint32_t c) { (void)c; return 0; }
static int alpha(uint32_t c) { return Py_UNICODE_ISALPHA(c); }
static int alnum(uint32_t c) { return Py_UNICODE_ISALNUM(c); }

static RtUnicodeDb unicode_db;

#define LOOKUP(member, name, fallback)                                                             \
    do {                                                                                           \
        void *p = dlsym(RTLD_DEFAULT, name);                                                       \
        if (p)                                                                                     \
            memcpy(&unicode_db.member, &p, sizeof p);                                              \
        else                                                                                       \
            unicode_db.member = fallback;                                                          \
    } while (0)

static const RtUnicodeDb *unicode_db_get(void)
{
    LOOKUP(to_lower_full, "_PyUnicode_ToLowerFull", lower1);
    LOOKUP(to_upper_full, "_PyUnicode_ToUpperFull", upper1);
    LOOKUP(to_title_full, "_PyUnicode_ToTitleFull", title1);
    LOOKUP(to_folded_full, "_PyUnicode_ToFoldedFull", lower1);
    LOOKUP(is_cased, "_PyUnicode_IsCased", cased);
    LOOKUP(is_case_ignorable, "_PyUnicode_IsCaseIgnorable", never);
    LOOKUP(is_xid_start, "_PyUnicode_IsXidStart", alpha);
    LOOKUP(is_xid_continue, "_PyUnicode_IsXidContinue", alnum);
    unicode_db.is_lowercase = _PyUnicode_IsLowercase;
    unicode_db.is_uppercase = _PyUnicode_IsUppercase;
    unicode_db.is_titlecase = _PyUnicode_IsTitlecase;
    unicode_db.is_alpha = _PyUnicode_IsAlpha;
    unicode_db.is_decimal_digit = _PyUnicode_IsDecimalDigit;
    unicode_db.is_digit = _PyUnicode_IsDigit;
    unicode_db.is_numeric = _PyUnicode_IsNumeric;
    unicode_db.is_printable = _PyUnicode_IsPrintable;
    unicode_db.to_decimal_digit = _PyUnicode_ToDecimalDigit;
    return &unicode_db;
}
#endif

void core_str_install(void) { rt_str_set_unicode_db(unicode_db_get()); }

/* ---- _str_selftest(op, *args) ------------------------------------------------
 * Runs one rt_str_ function on unboxed arguments and boxes its result:
 * a str, an int, a bool, a float, a list (parts), or a 3-tuple. */

#define MAX_TEMPS 8

typedef struct Args {
    PyObject *const *v;
    Py_ssize_t n;
    HjMemInfo *temps[MAX_TEMPS]; /* the unboxed strs, released at the end */
    int ntemps;
    int bad;
} Args;

static HjMemInfo *arg_str(Args *a, Py_ssize_t i, int optional)
{
    if (a->bad)
        return NULL;
    if (i >= a->n || (a->v[i] == Py_None && optional))
        return NULL;
    HjMemInfo *mi = box_str_from_py(a->v[i]);
    if (!mi || a->ntemps == MAX_TEMPS) {
        rt_decref(mi);
        a->bad = 1;
        return NULL;
    }
    a->temps[a->ntemps++] = mi;
    return mi;
}

static int64_t arg_int(Args *a, Py_ssize_t i)
{
    if (a->bad || i >= a->n || a->v[i] == Py_None)
        return RT_STR_NONE;
    int64_t v = PyLong_AsLongLong(a->v[i]);
    if (v == -1 && PyErr_Occurred())
        a->bad = 1;
    return v;
}

static PyObject *box_new(HjMemInfo *mi)
{
    if (!mi) {
        raise_runtime_exception();
        return NULL;
    }
    PyObject *r = box_str_to_py(mi);
    rt_decref(mi);
    return r;
}

static PyObject *box_parts(HjMemInfo *parts)
{
    if (!parts) {
        raise_runtime_exception();
        return NULL;
    }
    int64_t n = rt_str_parts_count(parts);
    HjMemInfo **items = rt_str_parts_items(parts);
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (int64_t i = 0; list && i < n; i++) {
        PyObject *x = box_str_to_py(items[i]);
        if (!x) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, x);
    }
    rt_str_parts_release(parts);
    return list;
}

/* An int64 result where -1 with a pending exception is a failure. */
static PyObject *box_checked(int64_t v)
{
    if (v == -1 && rt_exc_pending()) {
        raise_runtime_exception();
        return NULL;
    }
    return PyLong_FromLongLong(v);
}

static PyObject *str_selftest(PyObject *mod, PyObject *const *argv, Py_ssize_t argc)
{
    (void)mod;
    if (argc < 1 || !PyUnicode_Check(argv[0])) {
        PyErr_SetString(PyExc_TypeError, "_str_selftest(op: str, *args)");
        return NULL;
    }
    const char *op = PyUnicode_AsUTF8(argv[0]);
    if (!op)
        return NULL;
    Args a = {argv + 1, argc - 1, {NULL}, 0, 0};
    PyObject *r = NULL;
    HjMemInfo *s = NULL;
    rt_exc_clear();
#define OP(name) else if (strcmp(op, name) == 0)
#define S0 (s = arg_str(&a, 0, 0))
#define STR(i) arg_str(&a, (i), 0)
#define OPT(i) arg_str(&a, (i), 1)
#define INT(i) arg_int(&a, (i))
    if (0) {
    }
    /* str -> str */
#define UNARY(name, fn) OP(name) { if (S0) r = box_new(fn(s)); }
    UNARY("upper", rt_str_upper) UNARY("lower", rt_str_lower) UNARY("capitalize", rt_str_capitalize)
    UNARY("title", rt_str_title) UNARY("swapcase", rt_str_swapcase) UNARY("casefold", rt_str_casefold)
#undef UNARY
    OP("roundtrip") { if (S0) r = box_str_to_py(s); }
#define PRED(name, fn) OP(name) { if (S0) r = PyBool_FromLong(fn(s)); }
    PRED("isdigit", rt_str_isdigit) PRED("isalpha", rt_str_isalpha) PRED("isalnum", rt_str_isalnum)
    PRED("isspace", rt_str_isspace) PRED("isupper", rt_str_isupper) PRED("islower", rt_str_islower)
    PRED("isdecimal", rt_str_isdecimal) PRED("isnumeric", rt_str_isnumeric) PRED("istitle", rt_str_istitle)
    PRED("isidentifier", rt_str_isidentifier) PRED("isascii", rt_str_isascii)
    PRED("isprintable", rt_str_isprintable)
#undef PRED
#define STRIP(name, fn) OP(name) { if (S0) { HjMemInfo *c = OPT(1); if (!a.bad) r = box_new(fn(s, c)); } }
    STRIP("strip", rt_str_strip) STRIP("lstrip", rt_str_lstrip) STRIP("rstrip", rt_str_rstrip)
#undef STRIP
#define FIND(name, fn, box)                                                                        \
    OP(name) {                                                                                     \
        if (S0) {                                                                                  \
            HjMemInfo *x = STR(1);                                                                 \
            int64_t st = INT(2), en = INT(3);                                                      \
            if (!a.bad)                                                                            \
                r = box(fn(s, x, st, en));                                                         \
        }                                                                                          \
    }
    FIND("find", rt_str_find, PyLong_FromLongLong) FIND("rfind", rt_str_rfind, PyLong_FromLongLong)
    FIND("count", rt_str_count, PyLong_FromLongLong) FIND("index", rt_str_index, box_checked)
    FIND("rindex", rt_str_rindex, box_checked) FIND("startswith", rt_str_startswith, PyBool_FromLong)
    FIND("endswith", rt_str_endswith, PyBool_FromLong)
#undef FIND
    OP("contains") { if (S0) { HjMemInfo *x = STR(1); if (!a.bad) r = PyBool_FromLong(rt_str_contains(s, x)); } }
    OP("eq") { if (S0) { HjMemInfo *x = STR(1); if (!a.bad) r = PyBool_FromLong(rt_str_eq(s, x)); } }
    OP("cmp") { if (S0) { HjMemInfo *x = STR(1); if (!a.bad) r = PyLong_FromLong(rt_str_cmp(s, x)); } }
    OP("hash") { if (S0) r = PyLong_FromLongLong(rt_str_hash(s)); }
    OP("len") { if (S0) r = PyLong_FromLongLong(rt_str_len(s)); }
    OP("kind") { if (S0) r = Py_BuildValue("(ii)", RT_STR(s)->kind, RT_STR(s)->is_ascii); }
    OP("ord") { if (S0) r = box_checked(rt_str_ord(s)); }
#define STR_INT(name, fn) OP(name) { if (S0) { int64_t i = INT(1); if (!a.bad) r = box_new(fn(s, i)); } }
    STR_INT("getitem", rt_str_getitem) STR_INT("repeat", rt_str_repeat) STR_INT("zfill", rt_str_zfill)
    STR_INT("expandtabs", rt_str_expandtabs)
#undef STR_INT
    OP("slice") { if (S0) { int64_t b = INT(1), e = INT(2), st = INT(3); if (!a.bad) r = box_new(rt_str_slice(s, b, e, st)); } }
    OP("concat") { if (S0) { HjMemInfo *x = STR(1); if (!a.bad) r = box_new(rt_str_concat(s, x)); } }
    OP("format") { if (S0) { HjMemInfo *x = STR(1); if (!a.bad) r = box_new(rt_str_format(s, x)); } }
    OP("replace") {
        if (S0) {
            HjMemInfo *o = STR(1), *n = STR(2);
            int64_t c = a.n > 3 ? INT(3) : -1;
            if (!a.bad)
                r = box_new(rt_str_replace(s, o, n, c == RT_STR_NONE ? -1 : c));
        }
    }
#define SPLIT(name, fn)                                                                            \
    OP(name) {                                                                                     \
        if (S0) {                                                                                  \
            HjMemInfo *sep = OPT(1);                                                               \
            int64_t m = a.n > 2 ? INT(2) : -1;                                                     \
            if (!a.bad)                                                                            \
                r = box_parts(fn(s, sep, m == RT_STR_NONE ? -1 : m));                              \
        }                                                                                          \
    }
    SPLIT("split", rt_str_split) SPLIT("rsplit", rt_str_rsplit)
#undef SPLIT
    OP("splitlines") { if (S0) { int64_t k = a.n > 1 ? INT(1) : 0; if (!a.bad) r = box_parts(rt_str_splitlines(s, k == 1)); } }
    OP("join") {
        /* join(sep, list of str) */
        if (S0 && a.n == 2) {
            PyObject *seq = PySequence_Fast(a.v[1], "join() needs a sequence");
            Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
            HjMemInfo **items = seq ? PyMem_Calloc((size_t)n + 1, sizeof *items) : NULL;
            Py_ssize_t got = 0;
            for (; items && got < n; got++)
                if (!(items[got] = box_str_from_py(PySequence_Fast_GET_ITEM(seq, got))))
                    break;
            if (items && got == n)
                r = box_new(rt_str_join(s, items, n));
            for (Py_ssize_t i = 0; items && i < got; i++)
                rt_decref(items[i]);
            PyMem_Free(items);
            Py_XDECREF(seq);
            if (!r && !PyErr_Occurred())
                PyErr_NoMemory();
        }
    }
#define PART(name, fn)                                                                             \
    OP(name) {                                                                                     \
        HjMemInfo *out[3];                                                                         \
        if (S0) {                                                                                  \
            HjMemInfo *sep = STR(1);                                                               \
            if (!a.bad) {                                                                          \
                if (fn(s, sep, out) < 0) {                                                         \
                    raise_runtime_exception();                                                     \
                } else {                                                                           \
                    r = Py_BuildValue("(NNN)", box_new(out[0]), box_new(out[1]), box_new(out[2])); \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
    PART("partition", rt_str_partition) PART("rpartition", rt_str_rpartition)
#undef PART
#define JUST(name, fn)                                                                             \
    OP(name) {                                                                                     \
        if (S0) {                                                                                  \
            int64_t w = INT(1);                                                                    \
            HjMemInfo *f = OPT(2);                                                                 \
            if (!a.bad)                                                                            \
                r = box_new(fn(s, w, f));                                                          \
        }                                                                                          \
    }
    JUST("center", rt_str_center) JUST("ljust", rt_str_ljust) JUST("rjust", rt_str_rjust)
#undef JUST
    OP("repr") {
        if (S0) {
            rt_text_begin(); /* the buffer of this thread: nothing else is in it here */
            rt_str_text_repr(s);
            r = box_new(rt_str_from_text());
        }
    }
    OP("int") {
        if (S0) {
            int64_t base = a.n > 1 ? INT(1) : 10, v = 0;
            if (!a.bad)
                r = rt_str_to_int64(s, base, &v) < 0 ? (raise_runtime_exception(), NULL) : PyLong_FromLongLong(v);
        }
    }
    OP("float") {
        double v = 0;
        if (S0)
            r = rt_str_to_double(s, &v) < 0 ? (raise_runtime_exception(), NULL) : PyFloat_FromDouble(v);
    }
    OP("chr") { int64_t i = INT(0); if (!a.bad) r = box_new(rt_str_chr(i)); }
    OP("from_int") { int64_t i = INT(0); if (!a.bad) r = box_new(rt_str_from_int64(i)); }
    OP("from_uint") {
        unsigned long long u = a.n ? PyLong_AsUnsignedLongLong(a.v[0]) : 0;
        if (!PyErr_Occurred())
            r = box_new(rt_str_from_uint64(u));
    }
    OP("from_float") {
        double d = a.n ? PyFloat_AsDouble(a.v[0]) : 0;
        if (!PyErr_Occurred())
            r = box_new(rt_str_from_double(d));
    }
    OP("from_bool") { r = box_new(rt_str_from_bool(a.n && PyObject_IsTrue(a.v[0]) == 1)); }
    OP("format_int") {
        int64_t v = INT(0);
        HjMemInfo *spec = STR(1);
        if (!a.bad)
            r = box_new(rt_str_format_int(v, 0, spec));
    }
    OP("format_float") {
        double d = a.n ? PyFloat_AsDouble(a.v[0]) : 0;
        HjMemInfo *spec = STR(1);
        if (!a.bad && !PyErr_Occurred())
            r = box_new(rt_str_format_float(d, 0, spec));
    }
    else {
        PyErr_Format(PyExc_ValueError, "_str_selftest: unknown op '%s'", op);
    }
#undef OP
#undef S0
#undef STR
#undef OPT
#undef INT
    for (int i = 0; i < a.ntemps; i++)
        rt_decref(a.temps[i]);
    if (!r && !PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "_str_selftest: bad arguments");
    return r;
}

PyMethodDef box_str_methods[] = {
    {"_str_selftest", (PyCFunction)(void (*)(void))str_selftest, METH_FASTCALL,
     "For tests: run one rt_str_ operation on Python strs and box its result."},
    {NULL, NULL, 0, NULL},
};
