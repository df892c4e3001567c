/* dispatcher.c - the Dispatcher type: vectorcall, overload lookup by the
 * argument typecodes, unbox -> entry(ret, args) -> box.
 *
 * The hit path does no Python-level work and allocates nothing but the
 * result.  Misses, keyword calls and introspection go to the Python layer
 * (hpcjit.dispatcher), where speed does not matter. */
#include "core.h"
#include "hpcjit/signals.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>

typedef struct Overload {
    char *key;       /* lookup key: the arguments' typecodes (NUL-terminated) */
    size_t keylen;
    char *params;    /* the parameters' typecodes: equal to key, except in an
                        alias of an explicit signature (int key, float param) */
    int alias;       /* made by a conversion match, not listed in .signatures */
    HjEntryFn entry;
    char *rettype;   /* typecode of the result */
    Py_ssize_t nargs;
    size_t *offs;    /* offset of each argument in the argument area */
    size_t args_size, ret_off, buf_size;
    PyObject *info;  /* dict from the Python layer (signature, argtypes, IR...) */
    /* what a call does after the entry returns, found once from the
     * typecodes (names in headers of named tuples and records are not
     * typecodes: a scan of the text would mistake them) */
    unsigned char reflect; /* a parameter is a list/dict/set/typed container/jitclass */
    unsigned char strs;    /* a parameter holds str (native copies to release) */
    unsigned char gen;     /* the result is a generator object */
} Overload;

typedef struct Dispatcher {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *dict;
    PyObject *weaklist;
    PyObject *py_func;
    PyObject *options;
    PyObject *compile_hook;
    CoreState *st;
    Overload *ovs;
    Py_ssize_t nov, cap;
    Py_ssize_t last;      /* index of the last overload hit */
    Py_ssize_t argcount;  /* positional parameters; -1: always the slow path */
    Py_ssize_t star_at;   /* def f(a, b, *args): 2, the tuple parameter's index
                             (argcount counts it); -1: no *args */
    int locked;           /* explicit signatures: never compile on a miss */
    int nogil;
    uint64_t litmask;     /* bit i: argument i is keyed by its value too (literal
                             dispatch, numba.literally: compiler/infer/infer_literal.c) */
} Dispatcher;

#define STACK_BUF 2048
#define STACK_ARGS 16

/* ---- helpers --------------------------------------------------------------- */

/* Literal dispatch: after argument i's typecode, "\x01" + its value +
 * "\x02" ("i<int>", "b<0|1>", "s<UTF-8 in hex>"), for an int64, bool or
 * str argument i in self->litmask; other values (and ones too long for
 * the key) get no suffix, and the compilation reports that they cannot
 * be literals.  -1 with an exception set on error. */
static int literal_suffix(Dispatcher *self, Py_ssize_t i, PyObject *arg, char *key, size_t *len, size_t cap)
{
    if (i >= 64 || !(self->litmask >> i & 1))
        return 0;
    char buf[48];
    int n = 0;
    if (PyBool_Check(arg)) {
        memcpy(buf, arg == Py_True ? "\x01" "b1\x02" : "\x01" "b0\x02", 5);
        n = 4;
    } else if (PyLong_CheckExact(arg)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow)
            return 0;
        /* by hand: snprintf doubled the cost of a call keyed by value */
        char digits[24];
        int nd = 0;
        unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
        do {
            digits[nd++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        buf[n++] = '\x01';
        buf[n++] = 'i';
        if (v < 0)
            buf[n++] = '-';
        while (nd)
            buf[n++] = digits[--nd];
        buf[n++] = '\x02';
        buf[n] = '\0';
    } else if (PyUnicode_Check(arg)) {
        Py_ssize_t sl = 0;
        const char *u = PyUnicode_AsUTF8AndSize(arg, &sl);
        if (!u)
            return -1;
        if (*len + 3 + 2 * (size_t)sl >= cap)
            return 0;
        static const char hex[] = "0123456789abcdef";
        key[(*len)++] = '\x01';
        key[(*len)++] = 's';
        for (Py_ssize_t k = 0; k < sl; k++) {
            key[(*len)++] = hex[(unsigned char)u[k] >> 4];
            key[(*len)++] = hex[(unsigned char)u[k] & 15];
        }
        key[(*len)++] = '\x02';
        key[*len] = '\0';
        return 0;
    } else {
        return 0;
    }
    if (*len + (size_t)n >= cap)
        return 0;
    memcpy(key + *len, buf, (size_t)n + 1);
    *len += (size_t)n;
    return 0;
}

/* The parameters' typecodes of a key: its literal suffixes removed. */
static void strip_literals(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        if (*r == '\x01') {
            while (*r && *r != '\x02')
                r++;
            if (*r)
                r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

/* Call hpcjit.dispatcher.<name>(*args): the Python side of slow paths. */
static PyObject *call_helper(const char *name, PyObject *args, PyObject *kwargs)
{
    PyObject *mod = NULL, *fn = NULL, *res = NULL;
    mod = PyImport_ImportModule("hpcjit.dispatcher");
    if (!mod)
        goto error;
    fn = PyObject_GetAttrString(mod, name);
    if (!fn)
        goto error;
    res = PyObject_Call(fn, args, kwargs);
error:
    Py_XDECREF(fn);
    Py_XDECREF(mod);
    return res;
}

static PyObject *call_helper_self(const char *name, PyObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *full = NULL, *res = NULL;
    Py_ssize_t n = args ? PyTuple_GET_SIZE(args) : 0;
    full = PyTuple_New(n + 1);
    if (!full)
        return NULL;
    PyTuple_SET_ITEM(full, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(full, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    res = call_helper(name, full, kwargs);
    Py_DECREF(full);
    return res;
}

/* KeyError(key) as CPython raises it, when msg is the repr of the key (a
 * number, a tuple, a str: compiled code renders the key with its repr);
 * 0 for other messages ("popitem(): dictionary is empty"). */
static int key_error(PyObject *exc, const char *msg)
{
    PyObject *ast = PyImport_ImportModule("ast");
    PyObject *key = ast ? PyObject_CallMethod(ast, "literal_eval", "s", msg) : NULL;
    Py_XDECREF(ast);
    if (!key) {
        PyErr_Clear();
        return 0;
    }
    PyObject *inst = PyObject_CallOneArg(exc, key); /* not SetObject(exc, key): a tuple would be the args */
    Py_DECREF(key);
    if (!inst)
        return 1; /* that error is raised */
    PyErr_SetObject(exc, inst);
    Py_DECREF(inst);
    return 1;
}

/* One argument of an exception raised with several (abi.h
 * HJ_EXC_ARGS_MARK): tag, then len bytes of text.  A new reference, or
 * NULL with a Python error set. */
static PyObject *exc_arg(char tag, const char *text, size_t len)
{
    if (tag == 'n')
        Py_RETURN_NONE;
    if (tag == 'b')
        return PyBool_FromLong(len == 4 && memcmp(text, "True", 4) == 0);
    PyObject *str = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
    if (!str || tag == 's')
        return str;
    PyObject *v = tag == 'i' ? PyLong_FromUnicodeObject(str, 10)
                  : tag == 'f' ? PyFloat_FromString(str)
                  : PyObject_CallOneArg((PyObject *)&PyComplex_Type, str);
    if (!v) { /* a truncated message: the text itself */
        PyErr_Clear();
        return str;
    }
    Py_DECREF(str);
    return v;
}

/* exc(*args) for a message holding the arguments of the raise (abi.h
 * HJ_EXC_ARGS_MARK): 1 with that exception (or the error making it) set,
 * 0 for any other message. */
static int exc_with_args(PyObject *exc, const char *msg)
{
    if (!msg || msg[0] != HJ_EXC_ARGS_MARK[0])
        return 0;
    PyObject *args = PyList_New(0), *tuple = NULL, *inst = NULL;
    if (!args)
        return 1;
    for (const char *p = msg + 1; *p;) {
        const char *end = strchr(p, HJ_EXC_ARGS_SEP[0]);
        size_t len = end ? (size_t)(end - p) : strlen(p);
        PyObject *v = len ? exc_arg(p[0], p + 1, len - 1) : NULL;
        if (!v || PyList_Append(args, v) < 0) {
            Py_XDECREF(v);
            goto error;
        }
        Py_DECREF(v);
        if (!end)
            break;
        p = end + 1;
    }
    tuple = PyList_AsTuple(args);
    inst = tuple ? PyObject_Call(exc, tuple, NULL) : NULL;
    if (inst)
        PyErr_SetObject(exc, inst);
error:
    Py_XDECREF(inst);
    Py_XDECREF(tuple);
    Py_DECREF(args);
    return 1;
}

/* The program's exception classes raised by compiled code, by the key in
 * their runtime type name "<builtin base>|<key>|<keys of its bases>"
 * (compiler.py _exc_class). */
static PyObject *exc_classes;

PyObject *core_register_exception(PyObject *mod, PyObject *args)
{
    const char *key = NULL;
    PyObject *cls = NULL;
    (void)mod;
    if (!PyArg_ParseTuple(args, "sO:_register_exception", &key, &cls))
        return NULL;
    if (!PyExceptionClass_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, "_register_exception: not an exception class");
        return NULL;
    }
    if (!exc_classes && !(exc_classes = PyDict_New()))
        return NULL;
    if (PyDict_SetItemString(exc_classes, key, cls) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* A program's exception class named by the runtime type `type` (one with
 * a '|'): the registered class of its first key, else its builtin base.
 * Borrowed, or NULL. */
static PyObject *program_exc_class(const char *type)
{
    char buf[RT_EXC_TYPE_MAX];
    snprintf(buf, sizeof buf, "%s", type);
    char *bar = strchr(buf, '|');
    *bar = '\0';
    char *key = bar + 1, *end = strchr(key, '|');
    if (end)
        *end = '\0';
    PyObject *cls = exc_classes ? PyDict_GetItemString(exc_classes, key) : NULL;
    if (cls)
        return cls;
    PyObject *builtins = PyEval_GetBuiltins();
    return builtins ? PyDict_GetItemString(builtins, buf) : NULL;
}

/* ---- signals while compiled code runs (runtime/signals.c) ----
 * The exception a Python signal handler raised inside rt_signal_poll, kept
 * until the call that polled returns (only the main thread runs handlers). */
static PyObject *sig_type, *sig_value, *sig_tb;

/* rt_signal_poll's checker: run the Python handlers (with the GIL, which
 * a nogil call does not hold). */
static int check_signals(void)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = PyErr_CheckSignals();
    if (rc < 0) {
        Py_CLEAR(sig_type);
        Py_CLEAR(sig_value);
        Py_CLEAR(sig_tb);
        PyErr_Fetch(&sig_type, &sig_value, &sig_tb);
    }
    PyGILState_Release(g);
    return rc < 0 ? -1 : 0;
}

void core_signals_init(void) { rt_signal_set_checker(check_signals); }

/* Turn the runtime's pending exception into the Python exception. */
static void raise_pending(void)
{
    const char *type = NULL, *msg = NULL;
    int have = rt_exc_fetch(&type, &msg);
    if (sig_type) {
        /* a signal handler raised while the call ran: that is the exception
         * (whatever a prange worker stopped with meanwhile) */
        rt_signal_clear();
        PyErr_Restore(sig_type, sig_value, sig_tb);
        sig_type = sig_value = sig_tb = NULL;
        return;
    }
    if (core_objmode_take(have ? type : NULL, msg))
        return; /* the exception an objmode block raised, unchanged */
    if (!have) {
        PyErr_SetString(PyExc_SystemError, "hpcjit: compiled code failed without setting an exception");
        return;
    }
    if (strcmp(type, RT_SIGNAL_EXC) == 0) { /* cannot happen without sig_type: be safe */
        rt_signal_clear();
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        return;
    }
    PyObject *exc = NULL;
    if (strchr(type, '|')) { /* a class of the program (a user's exception class) */
        char text[RT_EXC_MSG_MAX];
        snprintf(text, sizeof text, "%s", msg ? msg : "");
        exc = program_exc_class(type);
        if (!exc || !PyExceptionClass_Check(exc))
            PyErr_Format(PyExc_RuntimeError, "%s: %s", type, text);
        else if (exc_with_args(exc, text))
            ;
        else if (text[0])
            PyErr_SetString(exc, text);
        else
            PyErr_SetNone(exc);
        return;
    }
    const char *dot = strrchr(type, '.');
    if (dot) {
        /* "numpy.linalg.LinAlgError": a class of an importable module.  The
         * strings live in the runtime's thread-local buffers, which the
         * import could overwrite by running compiled code: copy them. */
        char mod[RT_EXC_TYPE_MAX], text[RT_EXC_MSG_MAX];
        snprintf(mod, sizeof mod, "%s", type);
        mod[dot - type] = '\0';
        const char *cls = mod + (dot - type) + 1;
        snprintf(text, sizeof text, "%s", msg ? msg : "");
        PyObject *m = PyImport_ImportModule(mod);
        exc = m ? PyObject_GetAttrString(m, cls) : NULL;
        Py_XDECREF(m);
        char *up = strrchr(mod, '.');
        if (!exc && up) {
            /* an older home of the class: numpy.exceptions.AxisError was
             * numpy.AxisError before NumPy 1.25 */
            PyErr_Clear();
            *up = '\0';
            m = PyImport_ImportModule(mod);
            exc = m ? PyObject_GetAttrString(m, cls) : NULL;
            Py_XDECREF(m);
            *up = '.';
        }
        if (!exc || !PyExceptionClass_Check(exc))
            PyErr_Format(PyExc_RuntimeError, "%s.%s: %s", mod, cls, text); /* replaces any import error */
        else if (exc_with_args(exc, text))
            ;
        else if (text[0])
            PyErr_SetString(exc, text);
        else
            PyErr_SetNone(exc);
        Py_XDECREF(exc);
        return;
    }
    PyObject *builtins = PyEval_GetBuiltins(); /* borrowed */
    exc = builtins ? PyDict_GetItemString(builtins, type) : NULL;
    if (!exc || !PyExceptionClass_Check(exc)) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", type, msg);
        return;
    }
    if (exc_with_args(exc, msg))
        return;
    if (msg && *msg && strcmp(type, "KeyError") == 0 && key_error(exc, msg))
        return;
    if (msg && *msg)
        PyErr_SetString(exc, msg);
    else
        PyErr_SetNone(exc);
}

static Overload *find_overload(Dispatcher *self, const char *key, size_t len)
{
    if (self->nov == 0)
        return NULL;
    Overload *ov = &self->ovs[self->last];
    if (ov->keylen == len && memcmp(ov->key, key, len) == 0)
        return ov;
    for (Py_ssize_t i = 0; i < self->nov; i++) {
        ov = &self->ovs[i];
        if (ov->keylen == len && memcmp(ov->key, key, len) == 0) {
            self->last = i;
            return ov;
        }
    }
    return NULL;
}

/* Unbox, run the compiled code, box.  `ovp` may move if another thread adds
 * an overload while the GIL is released, so its fields are copied first. */
static PyObject *invoke(Dispatcher *self, const Overload *ovp, PyObject *const *args, Py_ssize_t nargs)
{
    const Overload ov = *ovp;
    alignas(16) char stackbuf[STACK_BUF];
    void *stackargs[STACK_ARGS];
    char *buf = stackbuf;
    void **argv = stackargs;
    PyObject *res = NULL;
    int32_t status;
    Py_ssize_t unboxed = 0; /* arguments unboxed: reflected lists among them are written back */

    if (ov.buf_size > sizeof stackbuf) {
        buf = PyMem_Malloc(ov.buf_size);
        if (!buf)
            return PyErr_NoMemory();
    }
    if (nargs > STACK_ARGS) {
        argv = PyMem_Malloc((size_t)nargs * sizeof(void *));
        if (!argv) {
            PyErr_NoMemory();
            goto done;
        }
    }
    const char *tc = ov.params;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        argv[i] = buf + ov.offs[i];
        if (cv_unbox(args[i], &tc, argv[i]) < 0)
            goto done;
        unboxed = i + 1;
    }
    char *ret = buf + ov.ret_off;
    if (self->nogil) {
        Py_BEGIN_ALLOW_THREADS
        status = ov.entry(ret, argv);
        Py_END_ALLOW_THREADS
    } else {
        status = ov.entry(ret, argv);
    }
    if (status != 0) {
        raise_pending();
        goto done;
    }
    const char *rt = ov.rettype;
    if (ov.gen) { /* a generator's body may read the arguments until it ends */
        PyObject *prev = gen_keep_push(args, nargs);
        res = cv_box(self->st, &rt, ret);
        gen_keep_pop(prev);
    } else {
        res = cv_box(self->st, &rt, ret);
    }
done:
    if (unboxed && ov.reflect) { /* Numba's reflected lists: the caller sees the changes */
        const char *q = ov.params;
        for (Py_ssize_t i = 0; i < unboxed; i++) {
            if (*q == '#' || *q == '&' || *q == 'J') { /* shared: only borrowed arrays to adopt */
                PyObject *et, *ev, *etb;
                PyErr_Fetch(&et, &ev, &etb);
                if (typed_after_call(args[i], q) < 0) {
                    if (et)
                        PyErr_Clear();
                    else
                        Py_CLEAR(res);
                }
                if (et)
                    PyErr_Restore(et, ev, etb);
                tc_skip(&q);
                continue;
            }
            if (*q != '[' && *q != '{' && *q != '<') {
                tc_skip(&q);
                continue;
            }
            PyObject *et, *ev, *etb;
            PyErr_Fetch(&et, &ev, &etb); /* an exception of the call stays the one raised */
            if ((*q == '[' ? box_list_reflect : box_dict_reflect)(self->st, args[i], &q, argv[i]) < 0) {
                if (et)
                    PyErr_Clear();
                else
                    Py_CLEAR(res);
            }
            if (et)
                PyErr_Restore(et, ev, etb);
        }
    }
    if (unboxed && ov.strs) { /* the native copies of str arguments (abi.h) */
        const char *q = ov.params;
        for (Py_ssize_t i = 0; i < unboxed; i++)
            cv_release_strs(&q, argv[i]);
    }
    if (buf != stackbuf)
        PyMem_Free(buf);
    if (argv != stackargs)
        PyMem_Free(argv);
    return res;
}

static PyObject *args_tuple(PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *t = PyTuple_New(nargs);
    if (!t)
        return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    return t;
}

/* The overload that args convert to, the one with the fewest unsafe, then
 * safe, then promoting conversions (Numba's choice among explicit
 * signatures: ints given to f4(f4)/f8(f8) take float64); -1 if none. */
static Py_ssize_t find_convertible(Dispatcher *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t best = -1;
    long best_cost = 0;
    for (Py_ssize_t k = 0; k < self->nov; k++) {
        Overload *ov = &self->ovs[k];
        if (ov->nargs != nargs || ov->alias)
            continue;
        const char *tc = ov->params;
        Py_ssize_t i = 0;
        long cost = 0;
        while (i < nargs) {
            char want = *tc;
            if (!cv_matches(args[i], &tc))
                break;
            int kind = cv_conversion_kind(args[i], want);
            cost += kind == 3 ? 1L << 40 : kind == 2 ? 1L << 20 : kind == 1 ? 1 : 0;
            i++;
        }
        if (i == nargs && (best < 0 || cost < best_cost)) {
            best = k;
            best_cost = cost;
        }
    }
    return best;
}

static void *dup_mem(const void *p, size_t n)
{
    char *d = malloc(n ? n : 1);
    if (d)
        memcpy(d, p, n);
    return d;
}

static int grow(Dispatcher *self)
{
    if (self->nov < self->cap)
        return 0;
    Py_ssize_t cap = self->cap ? self->cap * 2 : 4;
    Overload *ovs = realloc(self->ovs, (size_t)cap * sizeof(Overload));
    if (!ovs) {
        PyErr_NoMemory();
        return -1;
    }
    self->ovs = ovs;
    self->cap = cap;
    return 0;
}

/* Remember that arguments keyed `key` convert to overload `k`, so that the
 * next such call is a plain hit.  Returns the alias's index or -1. */
static Py_ssize_t add_alias(Dispatcher *self, Py_ssize_t k, const char *key, size_t len)
{
    if (grow(self) < 0)
        return -1;
    Overload *src = &self->ovs[k];
    Overload a = *src;
    a.alias = 1;
    a.key = dup_mem(key, len + 1);
    a.keylen = len;
    a.params = dup_mem(src->params, strlen(src->params) + 1);
    a.rettype = dup_mem(src->rettype, strlen(src->rettype) + 1);
    a.offs = dup_mem(src->offs, ((size_t)src->nargs + 1) * sizeof(size_t));
    if (!a.key || !a.params || !a.rettype || !a.offs) {
        free(a.key);
        free(a.params);
        free(a.rettype);
        free(a.offs);
        PyErr_NoMemory();
        return -1;
    }
    a.key[len] = '\0';
    a.info = Py_NewRef(src->info);
    self->ovs[self->nov] = a;
    return self->nov++;
}

/* A default value compiled in as a constant when the caller leaves it out
 * (Numba's Omitted arguments): a number.  Its typecode in the key is
 * marked with a leading '=' (the overload's parameters are unmarked). */
static int const_default(PyObject *o)
{
    return PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o);
}

/* The typecode of argument i into key: marked when it is a default the
 * caller left out (i >= first_def). */
static int arg_typecode(PyObject *const *args, Py_ssize_t i, Py_ssize_t first_def, char *key, size_t *len,
                        size_t cap)
{
    if (i >= first_def && const_default(args[i])) {
        if (*len + 1 >= cap)
            return -1;
        key[(*len)++] = '=';
    }
    return cv_typecode(args[i], key, len, cap);
}

static PyObject *dispatch_miss(Dispatcher *self, PyObject *const *args, Py_ssize_t nargs, Py_ssize_t first_def)
{
    PyObject *targs = NULL, *codes = NULL, *res = NULL, *hook_res = NULL;
    char key[HJ_MAX_TYPECODE];
    size_t len = 0;
    Py_ssize_t bad = -1;

    if (self->locked) {
        Py_ssize_t k = find_convertible(self, args, nargs);
        if (k >= 0) {
            int typed = 1;
            for (Py_ssize_t i = 0; i < nargs && typed; i++)
                typed = cv_typecode(args[i], key, &len, sizeof key) == 0;
            if (typed) {
                Py_ssize_t a = add_alias(self, k, key, len);
                if (a < 0)
                    return NULL;
                k = a;
            }
            /* unbox converts per the overload's parameter typecodes */
            return invoke(self, &self->ovs[k], args, nargs);
        }
        targs = args_tuple(args, nargs);
        if (!targs)
            goto error;
        PyObject *extra = PyTuple_Pack(1, targs);
        if (!extra)
            goto error;
        res = call_helper_self("_no_match", (PyObject *)self, extra, NULL);
        Py_DECREF(extra);
        goto error; /* _no_match raises; res is normally NULL */
    }

    /* a compilation may ask for literal dispatch on an argument (litmask):
     * then the key changes and the hook is called again with it */
    for (int attempt = 0;; attempt++) {
        uint64_t litmask = self->litmask;
        len = 0;
        codes = PyTuple_New(nargs);
        if (!codes)
            goto error;
        for (Py_ssize_t i = 0; i < nargs; i++) {
            size_t start = len;
            if (arg_typecode(args, i, first_def, key, &len, sizeof key) < 0) {
                bad = i;
                break;
            }
            if (literal_suffix(self, i, args[i], key, &len, sizeof key) < 0)
                goto error;
            PyObject *s = PyUnicode_FromStringAndSize(key + start, (Py_ssize_t)(len - start));
            if (!s)
                goto error;
            PyTuple_SET_ITEM(codes, i, s);
        }
        if (bad >= 0) {
            targs = args_tuple(args, nargs);
            if (!targs)
                goto error;
            PyObject *extra = Py_BuildValue("(On)", targs, bad);
            if (!extra)
                goto error;
            /* raises, or (an @njit function among the arguments) calls a
             * specialisation with that function bound (dispatcher.py) */
            res = call_helper_self("_untypeable", (PyObject *)self, extra, NULL);
            Py_DECREF(extra);
            if (!res)
                goto error;
            Py_XDECREF(codes);
            Py_XDECREF(targs);
            return res;
        }
        if (!self->compile_hook) { /* cleared by the GC during teardown */
            PyErr_SetString(PyExc_RuntimeError, "hpcjit: dispatcher has been cleared");
            goto error;
        }
        hook_res = PyObject_CallFunctionObjArgs(self->compile_hook, (PyObject *)self, codes, NULL);
        if (!hook_res)
            goto error;
        Overload *ov = find_overload(self, key, len);
        if (ov) {
            res = invoke(self, ov, args, nargs);
            break;
        }
        if (self->litmask == litmask || attempt >= 8) {
            PyErr_Format(PyExc_RuntimeError, "hpcjit: compiling for %R added no matching overload", codes);
            goto error;
        }
        Py_CLEAR(hook_res);
        Py_CLEAR(codes);
    }
    Py_XDECREF(hook_res);
    Py_XDECREF(codes);
    return res;
error:
    Py_XDECREF(res);
    Py_XDECREF(hook_res);
    Py_XDECREF(codes);
    Py_XDECREF(targs);
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "hpcjit: no matching definition");
    return NULL;
}

static PyObject *slow_call(Dispatcher *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *targs = NULL, *kwargs = NULL, *full = NULL, *res = NULL;
    targs = args_tuple(args, nargs);
    if (!targs)
        goto error;
    kwargs = PyDict_New();
    if (!kwargs)
        goto error;
    for (Py_ssize_t i = 0; i < nkw; i++)
        if (PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0)
            goto error;
    full = Py_BuildValue("(OOO)", (PyObject *)self, targs, kwargs);
    if (!full)
        goto error;
    res = call_helper("_call_slow", full, NULL);
error:
    Py_XDECREF(full);
    Py_XDECREF(kwargs);
    Py_XDECREF(targs);
    return res;
}

static PyObject *dispatcher_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Dispatcher *self = (Dispatcher *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *full[STACK_ARGS], *defs = NULL, *res = NULL;
    Py_ssize_t first_def = nargs; /* arguments from here on are defaults */
    if (self->star_at >= 0) {
        /* def f(a, *args): the arguments past a as one tuple (Python binds
         * keywords and defaults first, then calls again with them in place) */
        if (self->argcount > STACK_ARGS) {
            PyErr_Format(PyExc_TypeError, "hpcjit: a function with *args takes at most %d other parameters",
                         STACK_ARGS - 1);
            return NULL;
        }
        if ((kwnames && PyTuple_GET_SIZE(kwnames)) || nargs < self->star_at)
            return slow_call(self, args, nargsf, kwnames);
        defs = PyTuple_New(nargs - self->star_at); /* held for the call, as defaults are */
        if (!defs)
            return NULL;
        for (Py_ssize_t i = self->star_at; i < nargs; i++)
            PyTuple_SET_ITEM(defs, i - self->star_at, Py_NewRef(args[i]));
        for (Py_ssize_t i = 0; i < self->star_at; i++)
            full[i] = args[i];
        full[self->star_at] = defs;
        args = full;
        nargs = first_def = self->argcount;
    } else if (!(kwnames && PyTuple_GET_SIZE(kwnames)) && nargs < self->argcount && self->argcount <= STACK_ARGS &&
        PyFunction_Check(self->py_func)) {
        /* trailing parameters left to their defaults: filled in here as
         * _call_slow's bind + apply_defaults would, without the ~7 us of
         * inspect.Signature on every call (the tuple is held for the call:
         * a compilation runs Python code) */
        defs = PyFunction_GET_DEFAULTS(self->py_func);
        Py_ssize_t missing = self->argcount - nargs, ndef = defs ? PyTuple_GET_SIZE(defs) : 0;
        if (missing <= ndef) {
            Py_INCREF(defs);
            for (Py_ssize_t i = 0; i < nargs; i++)
                full[i] = args[i];
            for (Py_ssize_t i = 0; i < missing; i++)
                full[nargs + i] = PyTuple_GET_ITEM(defs, ndef - missing + i);
            args = full;
            nargs = self->argcount;
        } else {
            defs = NULL;
        }
    }
    if ((kwnames && PyTuple_GET_SIZE(kwnames)) || nargs != self->argcount)
        return slow_call(self, args, nargsf, kwnames);
    char key[HJ_MAX_TYPECODE];
    size_t len = 0;
    Py_ssize_t i = 0;
    for (; i < nargs; i++)
        if (arg_typecode(args, i, first_def, key, &len, sizeof key) < 0 ||
            (self->litmask && literal_suffix(self, i, args[i], key, &len, sizeof key) < 0))
            break;
    if (i < nargs) {
        PyErr_Clear(); /* dispatch_miss computes the key again and says what failed */
        res = dispatch_miss(self, args, nargs, first_def);
    } else {
        Overload *ov = find_overload(self, key, len);
        res = ov ? invoke(self, ov, args, nargs) : dispatch_miss(self, args, nargs, first_def);
    }
    Py_XDECREF(defs);
    return res;
}

/* ---- construction and lifetime -------------------------------------------- */

static Py_ssize_t positional_count(PyObject *py_func, Py_ssize_t *star_at)
{
    PyObject *code = NULL, *v = NULL;
    Py_ssize_t argc = -1;
    long flags, kwonly;
    code = PyObject_GetAttrString(py_func, "__code__");
    if (!code) {
        PyErr_Clear();
        return -1;
    }
    if (!(v = PyObject_GetAttrString(code, "co_argcount")))
        goto error;
    argc = PyLong_AsSsize_t(v);
    Py_CLEAR(v);
    if (!(v = PyObject_GetAttrString(code, "co_flags")))
        goto error;
    flags = PyLong_AsLong(v);
    Py_CLEAR(v);
    if (!(v = PyObject_GetAttrString(code, "co_kwonlyargcount")))
        goto error;
    kwonly = PyLong_AsLong(v);
    Py_CLEAR(v);
    /* **kwargs and keyword-only parameters go through Python (which refuses
     * them); *args is one more parameter, a tuple packed at the call */
    *star_at = -1;
    if ((flags & CO_VARKEYWORDS) || kwonly > 0) {
        argc = -1;
    } else if (flags & CO_VARARGS) {
        *star_at = argc;
        argc++;
    }
    Py_DECREF(code);
    return argc;
error:
    PyErr_Clear();
    Py_XDECREF(code);
    return -1;
}

static PyObject *dispatcher_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"py_func", "options", "compile_hook", NULL};
    PyObject *py_func = NULL, *options = NULL, *hook = NULL;
    Dispatcher *self = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!O:Dispatcher", kwlist, &py_func, &PyDict_Type, &options,
                                     &hook))
        return NULL;
    if (!PyCallable_Check(py_func) || !PyCallable_Check(hook)) {
        PyErr_SetString(PyExc_TypeError, "Dispatcher: py_func and compile_hook must be callable");
        return NULL;
    }
    CoreState *st = PyType_GetModuleState(type);
    if (!st) {
        /* a Python subclass: find the state through the base type */
        PyErr_Clear();
        PyTypeObject *base = type->tp_base;
        while (base && !(st = PyType_GetModuleState(base))) {
            PyErr_Clear();
            base = base->tp_base;
        }
        if (!st) {
            PyErr_SetString(PyExc_SystemError, "Dispatcher: module state not found");
            return NULL;
        }
    }
    self = (Dispatcher *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    self->vectorcall = dispatcher_vectorcall;
    self->py_func = Py_NewRef(py_func);
    self->options = Py_NewRef(options);
    self->compile_hook = Py_NewRef(hook);
    self->st = st;
    self->argcount = positional_count(py_func, &self->star_at);
    PyObject *nogil = PyDict_GetItemString(options, "nogil"); /* borrowed */
    if (nogil) {
        int t = PyObject_IsTrue(nogil);
        if (t < 0)
            goto error;
        self->nogil = t;
    }
    return (PyObject *)self;
error:
    Py_DECREF(self);
    return NULL;
}

static void free_overloads(Dispatcher *self)
{
    for (Py_ssize_t i = 0; i < self->nov; i++) {
        Overload *ov = &self->ovs[i];
        free(ov->key);
        free(ov->params);
        free(ov->rettype);
        free(ov->offs);
        Py_CLEAR(ov->info);
    }
    free(self->ovs);
    self->ovs = NULL;
    self->nov = self->cap = 0;
    self->last = 0;
}

static int dispatcher_traverse(PyObject *op, visitproc visit, void *arg)
{
    Dispatcher *self = (Dispatcher *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->dict);
    Py_VISIT(self->py_func);
    Py_VISIT(self->options);
    Py_VISIT(self->compile_hook);
    for (Py_ssize_t i = 0; i < self->nov; i++)
        Py_VISIT(self->ovs[i].info);
    return 0;
}

static int dispatcher_clear(PyObject *op)
{
    Dispatcher *self = (Dispatcher *)op;
    Py_CLEAR(self->dict);
    Py_CLEAR(self->py_func);
    Py_CLEAR(self->options);
    Py_CLEAR(self->compile_hook);
    for (Py_ssize_t i = 0; i < self->nov; i++)
        Py_CLEAR(self->ovs[i].info);
    return 0;
}

static void dispatcher_dealloc(PyObject *op)
{
    Dispatcher *self = (Dispatcher *)op;
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (self->weaklist)
        PyObject_ClearWeakRefs(op);
    dispatcher_clear(op);
    free_overloads(self);
    tp->tp_free(op);
    Py_DECREF(tp);
}

/* ---- methods ------------------------------------------------------------------ */

static char *dup_ascii(PyObject *o, size_t *len)
{
    const char *s = NULL;
    Py_ssize_t n = 0;
    if (PyBytes_Check(o)) {
        s = PyBytes_AS_STRING(o);
        n = PyBytes_GET_SIZE(o);
    } else if (PyUnicode_Check(o)) {
        s = PyUnicode_AsUTF8AndSize(o, &n);
        if (!s)
            return NULL;
    } else {
        PyErr_SetString(PyExc_TypeError, "typecode must be str or bytes");
        return NULL;
    }
    char *d = malloc((size_t)n + 1);
    if (!d) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(d, s, (size_t)n);
    d[n] = '\0';
    if (len)
        *len = (size_t)n;
    return d;
}

static size_t align_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* _add_overload(key, address, rettype, signature, info) */
static PyObject *dispatcher_add_overload(PyObject *op, PyObject *args)
{
    Dispatcher *self = (Dispatcher *)op;
    PyObject *key_o = NULL, *addr_o = NULL, *ret_o = NULL, *sig_o = NULL, *info = NULL;
    Overload ov;
    memset(&ov, 0, sizeof ov);
    if (!PyArg_ParseTuple(args, "OOOOO!:_add_overload", &key_o, &addr_o, &ret_o, &sig_o, &PyDict_Type, &info))
        return NULL;
    void *addr = PyLong_AsVoidPtr(addr_o);
    if (!addr) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_add_overload: null entry address");
        return NULL;
    }
    if (!(ov.key = dup_ascii(key_o, &ov.keylen)) || !(ov.params = dup_ascii(key_o, NULL)) ||
        !(ov.rettype = dup_ascii(ret_o, NULL)))
        goto error;
    strip_literals(ov.params);
    ov.entry = (HjEntryFn)(uintptr_t)addr;
    { /* the parameters: the key without the marks of omitted defaults ('=') */
        char *w = ov.params;
        for (const char *q = ov.params; *q; q++)
            if (*q != '=')
                *w++ = *q;
        *w = '\0';
    }

    /* argument offsets, natural alignment (abi.h) */
    Py_ssize_t n = 0;
    for (const char *p = ov.params; *p;) {
        if (tc_skip(&p) < 0)
            goto bad_code;
        n++;
    }
    ov.nargs = n;
    ov.offs = malloc(((size_t)n + 1) * sizeof(size_t));
    if (!ov.offs) {
        PyErr_NoMemory();
        goto error;
    }
    size_t off = 0;
    const char *p = ov.params;
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t s, a;
        tc_layout(&p, &s, &a);
        off = align_up(off, a);
        ov.offs[i] = off;
        off += s;
    }
    ov.args_size = off;
    ov.ret_off = align_up(off, 16);
    p = ov.params;
    for (Py_ssize_t i = 0; i < n; i++) { /* by each parameter's first letter, as the call's loop */
        if (*p && strchr("[{<#&%J", *p))
            ov.reflect = 1;
        tc_skip(&p);
    }
    /* conservative where names in headers may hold the letters: the
     * release and keep paths walk the typecodes properly */
    ov.strs = strchr(ov.params, 's') != NULL;
    ov.gen = strchr(ov.rettype, 'G') != NULL;
    const char *r = ov.rettype;
    size_t rs, ra;
    if (tc_layout(&r, &rs, &ra) < 0 || *r)
        goto bad_code;
    ov.buf_size = ov.ret_off + align_up(rs ? rs : 1, 16);
    ov.info = Py_NewRef(info);
    if (PyDict_SetItemString(info, "signature", sig_o) < 0 || PyDict_SetItemString(info, "rettype_code", ret_o) < 0 ||
        PyDict_SetItemString(info, "key", key_o) < 0)
        goto error;

    /* Two threads may compile the same key at once: the first one added
     * wins, because a call running without the GIL may still read the
     * strings of an overload.  An alias with this key is retired (never
     * matched again) rather than freed, for the same reason. */
    for (Py_ssize_t i = 0; i < self->nov; i++) {
        Overload *old = &self->ovs[i];
        if (old->keylen == ov.keylen && memcmp(old->key, ov.key, ov.keylen) == 0) {
            if (!old->alias)
                goto discard;
            old->keylen = (size_t)-1;
        }
    }
    if (grow(self) < 0)
        goto error;
    self->ovs[self->nov++] = ov;
    Py_RETURN_NONE;
discard:
    free(ov.key);
    free(ov.params);
    free(ov.rettype);
    free(ov.offs);
    Py_XDECREF(ov.info);
    Py_RETURN_NONE;
bad_code:
    PyErr_Format(PyExc_ValueError, "_add_overload: malformed typecode (key %R, return %R)", key_o, ret_o);
error:
    free(ov.key);
    free(ov.params);
    free(ov.rettype);
    free(ov.offs);
    Py_XDECREF(ov.info);
    return NULL;
}

static PyObject *dispatcher_set_literal_params(PyObject *op, PyObject *arg)
{
    unsigned long long m = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred())
        return NULL;
    ((Dispatcher *)op)->litmask = (uint64_t)m;
    Py_RETURN_NONE;
}

static PyObject *dispatcher_lock(PyObject *op, PyObject *unused)
{
    ((Dispatcher *)op)->locked = 1;
    Py_RETURN_NONE;
}

static PyObject *dispatcher_unlock(PyObject *op, PyObject *unused)
{
    ((Dispatcher *)op)->locked = 0;
    Py_RETURN_NONE;
}

/* recompile(): the overloads there are now are matched no more, and not
 * listed; retired rather than freed, as in _add_overload, because a call
 * running without the GIL may still read them. */
static PyObject *dispatcher_retire_overloads(PyObject *op, PyObject *unused)
{
    Dispatcher *self = (Dispatcher *)op;
    for (Py_ssize_t i = 0; i < self->nov; i++) {
        self->ovs[i].keylen = (size_t)-1;
        self->ovs[i].alias = 1;
    }
    Py_RETURN_NONE;
}

static PyObject *dispatcher_recompile(PyObject *op, PyObject *unused)
{
    return call_helper_self("_recompile", op, NULL, NULL);
}

static PyObject *dispatcher_enable_caching(PyObject *op, PyObject *unused)
{
    return call_helper_self("_enable_caching", op, NULL, NULL);
}

static PyObject *dispatcher_inspect_types(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return call_helper_self("_inspect_types", op, args, kwargs);
}

static PyObject *dispatcher_inspect_llvm(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return call_helper_self("_inspect_llvm", op, args, kwargs);
}

static PyObject *dispatcher_inspect_asm(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return call_helper_self("_inspect_asm", op, args, kwargs);
}

static PyObject *dispatcher_get_metadata(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return call_helper_self("_get_metadata", op, args, kwargs);
}

static PyObject *dispatcher_parallel_diagnostics(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return call_helper_self("_parallel_diagnostics", op, args, kwargs);
}

static PyObject *dispatcher_compile(PyObject *op, PyObject *args, PyObject *kwargs)
{
    return call_helper_self("_compile_signature", op, args, kwargs);
}

/* Infos of the overloads, in order (a new list). */
static PyObject *dispatcher_get_infos(PyObject *op, void *closure)
{
    Dispatcher *self = (Dispatcher *)op;
    PyObject *l = PyList_New(0);
    if (!l)
        return NULL;
    for (Py_ssize_t i = 0; i < self->nov; i++)
        if (!self->ovs[i].alias && PyList_Append(l, self->ovs[i].info) < 0) {
            Py_DECREF(l);
            return NULL;
        }
    return l;
}

static PyObject *dispatcher_get_signatures(PyObject *op, void *closure)
{
    return call_helper_self("_signatures", op, NULL, NULL);
}

static PyObject *dispatcher_get_nopython_signatures(PyObject *op, void *closure)
{
    return call_helper_self("_nopython_signatures", op, NULL, NULL);
}

static PyObject *dispatcher_get_overloads(PyObject *op, void *closure)
{
    return call_helper_self("_overloads", op, NULL, NULL);
}

static PyObject *dispatcher_get_locked(PyObject *op, void *closure)
{
    return PyBool_FromLong(((Dispatcher *)op)->locked);
}

static PyObject *dispatcher_repr(PyObject *op)
{
    return PyUnicode_FromFormat("CPUDispatcher(%R)", ((Dispatcher *)op)->py_func);
}

static PyObject *dispatcher_descr_get(PyObject *op, PyObject *obj, PyObject *type)
{
    /* like a plain function: bound when looked up through an instance */
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(op);
    return PyMethod_New(op, obj);
}

/* Pickled by reference, as a module-level function is: pickle imports
 * __module__.__qualname__ and checks that it is this dispatcher, so that
 * multiprocessing, joblib and dask can send it to other processes, which
 * compile it there. */
static PyObject *dispatcher_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    return call_helper_self("_reduce", self, NULL, NULL); /* dispatcher.py */
}

static PyMethodDef dispatcher_methods[] = {
    {"__reduce__", dispatcher_reduce, METH_NOARGS,
     "Pickle by reference (module and qualified name), or by value when that names another object."},
    {"_add_overload", dispatcher_add_overload, METH_VARARGS,
     "_add_overload(key, address, rettype, signature, info): register compiled code."},
    {"_lock", dispatcher_lock, METH_NOARGS, "Compile no more: explicit signatures only."},
    {"_set_literal_params", dispatcher_set_literal_params, METH_O,
     "_set_literal_params(mask): key argument i by its value too when bit i is set (literally())."},
    {"disable_compile", dispatcher_lock, METH_NOARGS, "Compile no more (Numba's name)."},
    {"_unlock", dispatcher_unlock, METH_NOARGS, "Allow compilation on a miss again."},
    {"_retire_overloads", dispatcher_retire_overloads, METH_NOARGS,
     "Match and list none of the overloads there are now (recompile())."},
    {"recompile", dispatcher_recompile, METH_NOARGS,
     "Compile every signature again, with the options as they are now (Numba's)."},
    {"enable_caching", dispatcher_enable_caching, METH_NOARGS,
     "Keep later compilations in the on-disk cache, as cache=True (Numba's)."},
    {"inspect_types", (PyCFunction)(void (*)(void))dispatcher_inspect_types, METH_VARARGS | METH_KEYWORDS,
     "Print the source annotated with the types of each overload."},
    {"inspect_llvm", (PyCFunction)(void (*)(void))dispatcher_inspect_llvm, METH_VARARGS | METH_KEYWORDS,
     "Dict signature -> optimised LLVM IR."},
    {"inspect_asm", (PyCFunction)(void (*)(void))dispatcher_inspect_asm, METH_VARARGS | METH_KEYWORDS,
     "Dict signature -> assembly."},
    {"compile", (PyCFunction)(void (*)(void))dispatcher_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(sig): compile eagerly for a signature."},
    {"get_metadata", (PyCFunction)(void (*)(void))dispatcher_get_metadata, METH_VARARGS | METH_KEYWORDS,
     "get_metadata(signature=None): compile timings of an overload (dict per signature without one)."},
    {"parallel_diagnostics", (PyCFunction)(void (*)(void))dispatcher_parallel_diagnostics,
     METH_VARARGS | METH_KEYWORDS, "parallel_diagnostics(signature=None, level=1): print the prange loops."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef dispatcher_members[] = {
    {"py_func", T_OBJECT, offsetof(Dispatcher, py_func), READONLY, "the Python function"},
    {"targetoptions", T_OBJECT, offsetof(Dispatcher, options), READONLY, "the options dict"},
    {"_compile_hook", T_OBJECT, offsetof(Dispatcher, compile_hook), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Dispatcher, vectorcall), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(Dispatcher, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Dispatcher, weaklist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef dispatcher_getset[] = {
    {"_infos", dispatcher_get_infos, NULL, "infos of the overloads in order", NULL},
    {"signatures", dispatcher_get_signatures, NULL, "argument types of each overload", NULL},
    {"nopython_signatures", dispatcher_get_nopython_signatures, NULL, "full signature of each overload", NULL},
    {"overloads", dispatcher_get_overloads, NULL, "dict: argument types -> compile info", NULL},
    {"_locked", dispatcher_get_locked, NULL, "True when compiled for explicit signatures only", NULL},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot dispatcher_slots[] = {
    {Py_tp_new, dispatcher_new},
    {Py_tp_dealloc, dispatcher_dealloc},
    {Py_tp_traverse, dispatcher_traverse},
    {Py_tp_clear, dispatcher_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_repr, dispatcher_repr},
    {Py_tp_descr_get, dispatcher_descr_get},
    {Py_tp_methods, dispatcher_methods},
    {Py_tp_members, dispatcher_members},
    {Py_tp_getset, dispatcher_getset},
    {Py_tp_doc, "Dispatcher(py_func, options, compile_hook): calls compiled specialisations of py_func."},
    {0, NULL},
};

PyType_Spec dp_dispatcher_spec = {
    .name = "hpcjit._core.Dispatcher",
    .basicsize = sizeof(Dispatcher),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_BASETYPE,
    .slots = dispatcher_slots,
};

void core_raise_pending(void) { raise_pending(); }
