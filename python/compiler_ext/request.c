/* request.c - the Python description of a compilation -> HjRequest.
 *
 *   funcs: [(name, qualname, filename, source, first_line, col_offset,
 *            env, options), ...]
 *   env:   [(name, kind, payload), ...]   kinds as in HjEnvKind
 *   options: {"fastmath", "boundscheck", "error_model", "nogil",
 *             "parallel", "inline", "deterministic", "schedule",
 *             "locals": "name\ttypecode\n"...,
 *             "signatures": "rettypecode\targtypecodes\n"...}
 *
 * Everything is copied into one arena, freed after hj_compile(). */
#include "compiler_ext.h"

#include <string.h>

/* Tuples of constants nest; deeper ones are left for inference to refuse. */
#define MAX_ENV_DEPTH 32

static const char *copy_str(Arena *a, PyObject *o, const char *what) {
    Py_ssize_t n = 0;
    const char *s = NULL;
    if (!PyUnicode_Check(o)) {
        PyErr_Format(PyExc_TypeError, "hpcjit._compiler: %s must be a str, not %.100s", what,
                     Py_TYPE(o)->tp_name);
        return NULL;
    }
    s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s)
        return NULL;
    return arena_strndup(a, s, (size_t)n);
}

static int entry_from(Arena *a, HjEnvEntry *e, PyObject *item, int depth);

static int tuple_items(Arena *a, HjEnvEntry *e, PyObject *payload, int depth) {
    PyObject *seq = PySequence_Fast(payload, "hpcjit._compiler: tuple payload must be a list");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    HjEnvEntry *items = arena_alloc(a, sizeof(HjEnvEntry) * (size_t)(n + 1));
    if (a->oom) { /* the arena's fallback block is too small to fill */
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (entry_from(a, &items[i], PySequence_Fast_GET_ITEM(seq, i), depth + 1) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    e->items = items;
    e->nitems = (int)n;
    return 0;
}

/* One (name, kind, payload) entry. */
static int entry_from(Arena *a, HjEnvEntry *e, PyObject *item, int depth) {
    PyObject *name = NULL, *kind = NULL, *payload = NULL;
    const char *k = NULL;
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "hpcjit._compiler: env entries must be (name, kind, payload) tuples");
        return -1;
    }
    name = PyTuple_GET_ITEM(item, 0);
    kind = PyTuple_GET_ITEM(item, 1);
    payload = PyTuple_GET_ITEM(item, 2);
    memset(e, 0, sizeof *e);
    if (name != Py_None && !(e->name = copy_str(a, name, "env name")))
        return -1;
    if (!(k = PyUnicode_AsUTF8(kind)))
        return -1;

    if (!strcmp(k, "module") || !strcmp(k, "builtin") || !strcmp(k, "str") ||
        !strcmp(k, "other")) {
        e->kind = !strcmp(k, "module")    ? HJ_ENV_MODULE
                  : !strcmp(k, "builtin") ? HJ_ENV_BUILTIN
                  : !strcmp(k, "str")     ? HJ_ENV_STR
                                          : HJ_ENV_OTHER;
        if (!(e->qualname = copy_str(a, payload, "env payload")))
            return -1;
    } else if (!strcmp(k, "func")) {
        e->kind = HJ_ENV_FUNC;
        long v = PyLong_AsLong(payload);
        if (v == -1 && PyErr_Occurred())
            return -1;
        e->func = (int)v;
    } else if (!strcmp(k, "int") || !strcmp(k, "bool")) {
        e->kind = HJ_ENV_INT;
        e->is_bool = k[0] == 'b';
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(payload, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow) { /* Numba refuses these too; say so if it is used */
            e->kind = HJ_ENV_OTHER;
            e->qualname = "an int too large for int64";
        }
        e->i = v;
    } else if (!strcmp(k, "datetime")) { /* (typecode, count) */
        e->kind = HJ_ENV_DATETIME;
        if (!PyTuple_Check(payload) || PyTuple_GET_SIZE(payload) != 2) {
            PyErr_SetString(PyExc_TypeError, "hpcjit._compiler: datetime payload must be (typecode, count)");
            return -1;
        }
        if (!(e->qualname = copy_str(a, PyTuple_GET_ITEM(payload, 0), "datetime typecode")))
            return -1;
        e->i = PyLong_AsLongLong(PyTuple_GET_ITEM(payload, 1));
        if (e->i == -1 && PyErr_Occurred())
            return -1;
    } else if (!strcmp(k, "float")) {
        e->kind = HJ_ENV_FLOAT;
        e->f = PyFloat_AsDouble(payload);
        if (e->f == -1.0 && PyErr_Occurred())
            return -1;
    } else if (!strcmp(k, "complex")) {
        e->kind = HJ_ENV_COMPLEX;
        Py_complex c = PyComplex_AsCComplex(payload);
        if (c.real == -1.0 && PyErr_Occurred())
            return -1;
        e->f = c.real;
        e->f_imag = c.imag;
    } else if (!strcmp(k, "none")) {
        e->kind = HJ_ENV_NONE;
    } else if (!strcmp(k, "tuple") || !strcmp(k, "ntuple")) {
        /* "ntuple": (class header "<id>:<name>:<fields>", items), a named
         * tuple or Enum member constant; the header rides in qualname */
        e->kind = HJ_ENV_TUPLE;
        if (k[0] == 'n') {
            if (!PyTuple_Check(payload) || PyTuple_GET_SIZE(payload) != 2) {
                PyErr_SetString(PyExc_TypeError, "hpcjit._compiler: ntuple payload must be (header, items)");
                return -1;
            }
            if (!(e->qualname = copy_str(a, PyTuple_GET_ITEM(payload, 0), "ntuple header")))
                return -1;
            payload = PyTuple_GET_ITEM(payload, 1);
        }
        if (depth >= MAX_ENV_DEPTH) {
            e->kind = HJ_ENV_OTHER;
            e->qualname = "a tuple nested too deeply";
        } else if (tuple_items(a, e, payload, depth) < 0) {
            return -1;
        }
    } else if (!strcmp(k, "array")) { /* (typecode, [shape...], bytes in C order) */
        PyObject *sh = NULL;
        char *buf = NULL;
        Py_ssize_t nb = 0;
        e->kind = HJ_ENV_ARRAY;
        if (!PyTuple_Check(payload) || PyTuple_GET_SIZE(payload) != 3 ||
            !PyBytes_Check(PyTuple_GET_ITEM(payload, 2))) {
            PyErr_SetString(PyExc_TypeError, "hpcjit._compiler: array payload must be (typecode, shape, bytes)");
            return -1;
        }
        if (!(e->qualname = copy_str(a, PyTuple_GET_ITEM(payload, 0), "array typecode")))
            return -1;
        if (!(sh = PySequence_Fast(PyTuple_GET_ITEM(payload, 1), "hpcjit._compiler: array shape must be a list")))
            return -1;
        Py_ssize_t nd = PySequence_Fast_GET_SIZE(sh);
        int64_t *shape = arena_alloc(a, sizeof(int64_t) * (size_t)(nd + 1));
        for (Py_ssize_t i = 0; i < nd; i++) {
            shape[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(sh, i));
            if (shape[i] == -1 && PyErr_Occurred()) {
                Py_DECREF(sh);
                return -1;
            }
        }
        Py_DECREF(sh);
        e->shape = shape;
        if (PyBytes_AsStringAndSize(PyTuple_GET_ITEM(payload, 2), &buf, &nb) < 0)
            return -1;
        void *data = arena_alloc(a, (size_t)nb + 1);
        if (nb)
            memcpy(data, buf, (size_t)nb);
        e->data = data;
        e->nbytes = nb;
    } else {
        PyErr_Format(PyExc_ValueError, "hpcjit._compiler: unknown env kind '%s'", k);
        return -1;
    }
    return 0;
}

/* A truthy option (absent or None: off). */
static int opt_flag(PyObject *opts, const char *key, int *out) {
    PyObject *v = PyDict_GetItemString(opts, key); /* borrowed */
    *out = 0;
    if (!v || v == Py_None)
        return 0;
    int t = PyObject_IsTrue(v);
    if (t < 0)
        return -1;
    *out = t;
    return 0;
}

/* fastmath: a bool (True: every flag), or an int of LLVMFastMathFlags bits
 * (compiler.py turns Numba's flag sets into one). */
static int opt_fastmath(PyObject *opts, int *out) {
    PyObject *v = PyDict_GetItemString(opts, "fastmath"); /* borrowed */
    *out = 0;
    if (!v || v == Py_None)
        return 0;
    if (PyLong_Check(v) && !PyBool_Check(v)) {
        long m = PyLong_AsLong(v);
        if (m == -1 && PyErr_Occurred())
            return -1;
        *out = (int)(m & HJ_FASTMATH_ALL);
        return 0;
    }
    int t = PyObject_IsTrue(v);
    if (t < 0)
        return -1;
    *out = t ? HJ_FASTMATH_ALL : 0;
    return 0;
}

static int options_from(Arena *a, HjOptions *o, PyObject *opts) {
    memset(o, 0, sizeof *o);
    if (opts == Py_None)
        return 0;
    if (!PyDict_Check(opts)) {
        PyErr_SetString(PyExc_TypeError, "hpcjit._compiler: options must be a dict");
        return -1;
    }
    if (opt_fastmath(opts, &o->fastmath) < 0 || opt_flag(opts, "boundscheck", &o->boundscheck) < 0 ||
        opt_flag(opts, "nogil", &o->nogil) < 0 || opt_flag(opts, "parallel", &o->parallel) < 0 ||
        opt_flag(opts, "deterministic", &o->deterministic) < 0)
        return -1;
    PyObject *poll = PyDict_GetItemString(opts, "poll_signals"); /* borrowed */
    if (poll && poll != Py_None) {
        int t = PyObject_IsTrue(poll);
        if (t < 0)
            return -1;
        o->no_signal_poll = !t;
    }
    PyObject *sched = PyDict_GetItemString(opts, "schedule"); /* borrowed */
    if (sched && PyUnicode_Check(sched))
        o->schedule_dynamic = PyUnicode_CompareWithASCIIString(sched, "dynamic") == 0;
    PyObject *em = PyDict_GetItemString(opts, "error_model");
    if (em && PyUnicode_Check(em)) {
        if (PyUnicode_CompareWithASCIIString(em, "numpy") == 0)
            o->error_model = 1;
        else if (PyUnicode_CompareWithASCIIString(em, "python") != 0) {
            PyErr_Format(PyExc_ValueError, "error_model must be 'python' or 'numpy', not %R", em);
            return -1;
        }
    }
    PyObject *lp = PyDict_GetItemString(opts, "literal_params"); /* borrowed; infer_literal.c */
    if (lp && PyLong_Check(lp)) {
        o->literal_params = (uint64_t)PyLong_AsUnsignedLongLongMask(lp);
        if (PyErr_Occurred())
            return -1;
    }
    PyObject *loc = PyDict_GetItemString(opts, "locals"); /* borrowed; "name\ttypecode\n"... */
    if (loc && loc != Py_None && !(o->locals = copy_str(a, loc, "locals")))
        return -1;
    PyObject *sigs = PyDict_GetItemString(opts, "signatures"); /* borrowed; "ret\targs\n"... */
    if (sigs && sigs != Py_None && !(o->signatures = copy_str(a, sigs, "signatures")))
        return -1;
    PyObject *inl = PyDict_GetItemString(opts, "inline");
    if (inl && PyUnicode_Check(inl))
        o->inline_always = PyUnicode_CompareWithASCIIString(inl, "always") == 0;
    return 0;
}

/* A stub's description (HjStubKind):
 *   ("overload", [(key, func, diag_kind, message or None[, elementwise]), ...][, caller_parallel])
 *   ("pycall", handle, ret_typecode)
 *   ("llvmir", ret_typecode, arg_typecodes): the source is LLVM IR text */
static int stub_from(Arena *a, HjFunction *f, PyObject *d) {
    PyObject *seq = NULL;
    const char *kind = NULL;
    int rc = -1;
    if (!PyTuple_Check(d) || PyTuple_GET_SIZE(d) < 2 || !(kind = PyUnicode_AsUTF8(PyTuple_GET_ITEM(d, 0)))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "hpcjit._compiler: bad stub description");
        return -1;
    }
    if (!strcmp(kind, "pycall") && PyTuple_GET_SIZE(d) == 3) {
        f->stub = HJ_STUB_PYCALL;
        f->handle = PyLong_AsLongLong(PyTuple_GET_ITEM(d, 1));
        if (f->handle == -1 && PyErr_Occurred())
            return -1;
        return (f->ret_typecode = copy_str(a, PyTuple_GET_ITEM(d, 2), "stub typecode")) ? 0 : -1;
    }
    if (!strcmp(kind, "llvmir") && PyTuple_GET_SIZE(d) == 3) {
        f->stub = HJ_STUB_LLVMIR;
        if (!(f->ret_typecode = copy_str(a, PyTuple_GET_ITEM(d, 1), "stub typecode")))
            return -1;
        return (f->arg_typecodes = copy_str(a, PyTuple_GET_ITEM(d, 2), "stub typecodes")) ? 0 : -1;
    }
    if (strcmp(kind, "overload") != 0) {
        PyErr_Format(PyExc_ValueError, "hpcjit._compiler: unknown stub kind '%s'", kind);
        return -1;
    }
    f->stub = HJ_STUB_OVERLOAD;
    if (PyTuple_GET_SIZE(d) > 2 && (f->caller_parallel = PyObject_IsTrue(PyTuple_GET_ITEM(d, 2))) < 0)
        return -1;
    seq = PySequence_Fast(PyTuple_GET_ITEM(d, 1), "hpcjit._compiler: overload impls must be a list");
    if (!seq)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    HjStubImpl *im = arena_alloc(a, sizeof(HjStubImpl) * (size_t)(n + 1));
    if (a->oom) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyTuple_Check(it) || (PyTuple_GET_SIZE(it) != 4 && PyTuple_GET_SIZE(it) != 5)) {
            PyErr_SetString(PyExc_TypeError,
                            "hpcjit._compiler: overload impls are (key, func, kind, message[, elementwise])");
            goto error;
        }
        if (!(im[i].key = copy_str(a, PyTuple_GET_ITEM(it, 0), "overload key")))
            goto error;
        im[i].func = (int)PyLong_AsLong(PyTuple_GET_ITEM(it, 1));
        im[i].diag_kind = (int)PyLong_AsLong(PyTuple_GET_ITEM(it, 2));
        if (PyTuple_GET_SIZE(it) == 5)
            im[i].elementwise = PyObject_IsTrue(PyTuple_GET_ITEM(it, 4)) == 1;
        if (PyErr_Occurred())
            goto error;
        PyObject *m = PyTuple_GET_ITEM(it, 3);
        if (m != Py_None && !(im[i].message = copy_str(a, m, "overload message")))
            goto error;
    }
    f->impls = im;
    f->nimpls = (int)n;
    rc = 0;
error:
    Py_XDECREF(seq);
    return rc;
}

static int function_from(Arena *a, HjFunction *f, PyObject *t) {
    PyObject *env = NULL;
    long first_line = 0, col_offset = 0;
    if (!PyTuple_Check(t) || (PyTuple_GET_SIZE(t) != 8 && PyTuple_GET_SIZE(t) != 9)) {
        PyErr_SetString(PyExc_TypeError,
                        "hpcjit._compiler: funcs entries must be (name, qualname, filename, "
                        "source, first_line, col_offset, env, options[, stub])");
        return -1;
    }
    memset(f, 0, sizeof *f);
    if (!(f->name = copy_str(a, PyTuple_GET_ITEM(t, 0), "name")) ||
        !(f->qualname = copy_str(a, PyTuple_GET_ITEM(t, 1), "qualname")) ||
        !(f->filename = copy_str(a, PyTuple_GET_ITEM(t, 2), "filename")) ||
        !(f->source = copy_str(a, PyTuple_GET_ITEM(t, 3), "source")))
        return -1;
    first_line = PyLong_AsLong(PyTuple_GET_ITEM(t, 4));
    if (first_line == -1 && PyErr_Occurred())
        return -1;
    col_offset = PyLong_AsLong(PyTuple_GET_ITEM(t, 5));
    if (col_offset == -1 && PyErr_Occurred())
        return -1;
    f->first_line = (int)first_line;
    f->col_offset = (int)col_offset;

    env = PySequence_Fast(PyTuple_GET_ITEM(t, 6), "hpcjit._compiler: env must be a list");
    if (!env)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(env);
    HjEnvEntry *entries = arena_alloc(a, sizeof(HjEnvEntry) * (size_t)(n + 1));
    if (a->oom) {
        Py_DECREF(env);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (entry_from(a, &entries[i], PySequence_Fast_GET_ITEM(env, i), 0) < 0) {
            Py_DECREF(env);
            return -1;
        }
    }
    Py_DECREF(env);
    f->env = entries;
    f->nenv = (int)n;
    if (PyTuple_GET_SIZE(t) == 9 && PyTuple_GET_ITEM(t, 8) != Py_None &&
        stub_from(a, f, PyTuple_GET_ITEM(t, 8)) < 0)
        return -1;
    return options_from(a, &f->options, PyTuple_GET_ITEM(t, 7));
}

int cx_build_request(Arena *arena, HjRequest *req, PyObject *funcs, int entry,
                     PyObject *argtypes, PyObject *rettype) {
    PyObject *fseq = NULL, *aseq = NULL;
    int rc = -1;
    memset(req, 0, sizeof *req);

    fseq = PySequence_Fast(funcs, "hpcjit._compiler: funcs must be a list");
    if (!fseq)
        goto error;
    Py_ssize_t nf = PySequence_Fast_GET_SIZE(fseq);
    if (entry < 0 || entry >= nf) {
        PyErr_Format(PyExc_IndexError, "hpcjit._compiler: entry %d out of range (%zd funcs)",
                     entry, nf);
        goto error;
    }
    HjFunction *fs = arena_alloc(arena, sizeof(HjFunction) * (size_t)nf);
    if (arena->oom) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < nf; i++)
        if (function_from(arena, &fs[i], PySequence_Fast_GET_ITEM(fseq, i)) < 0)
            goto error;
    req->funcs = fs;
    req->nfuncs = (int)nf;
    req->entry = entry;

    aseq = PySequence_Fast(argtypes, "hpcjit._compiler: argtypes must be a list of typecodes");
    if (!aseq)
        goto error;
    Py_ssize_t na = PySequence_Fast_GET_SIZE(aseq);
    const char **ats = arena_alloc(arena, sizeof(char *) * (size_t)(na + 1));
    if (arena->oom) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < na; i++)
        if (!(ats[i] = copy_str(arena, PySequence_Fast_GET_ITEM(aseq, i), "typecode")))
            goto error;
    req->argtypes = ats;
    req->nargs = (int)na;
    if (rettype != Py_None && !(req->rettype = copy_str(arena, rettype, "rettype")))
        goto error;
    if (arena->oom) {
        PyErr_NoMemory();
        goto error;
    }
    rc = 0;
error:
    Py_XDECREF(aseq);
    Py_XDECREF(fseq);
    return rc;
}
