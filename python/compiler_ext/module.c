/* module.c - hpcjit._compiler: the compiler and the JIT (links LLVM).
 *
 * Imported on the first compilation only (libLLVM is slow to load).  The
 * one place where the compiler's HjDiagKind becomes a Python exception.
 * The GIL is released around hj_compile / hj_jit_load / hj_ir_to_asm,
 * which read only C copies of their inputs. */
#include "compiler_ext.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct CompilerState {
    /* The process's JIT, made on first use.  Never destroyed: dispatchers
     * keep raw entry addresses into its memory until the very end. */
    HjJit *jit;
} CompilerState;

static CompilerState *get_state(PyObject *mod) { return (CompilerState *)PyModule_GetState(mod); }

/* ---- errors ------------------------------------------------------------ */

static const char *exc_class_name(HjDiagKind kind) {
    switch (kind) {
    case HJ_DIAG_SYNTAX: return "HpcjitSyntaxError";
    case HJ_DIAG_UNSUPPORTED: return "UnsupportedError";
    case HJ_DIAG_TYPING:
    case HJ_DIAG_NAME: return "TypingError";
    case HJ_DIAG_LOWERING:
    case HJ_DIAG_LLVM:
    default: return "LoweringError";
    }
}

static int set_attr_obj(PyObject *exc, const char *name, PyObject *value) {
    if (!value)
        return -1;
    int rc = PyObject_SetAttrString(exc, name, value);
    Py_DECREF(value);
    return rc;
}

/* Raise the exception for a compiler diagnostic.  Always returns NULL. */
static PyObject *raise_diag(HjDiagKind kind, const char *message, const char *filename, int line,
                            int col) {
    PyObject *errors = NULL, *cls = NULL, *msg = NULL, *exc = NULL;
    if (!message)
        message = "compilation failed";
    if (kind == HJ_DIAG_MEMORY) {
        PyErr_SetString(PyExc_MemoryError, message);
        return NULL;
    }
    if (kind == HJ_DIAG_SIGNATURE) {
        PyErr_SetString(PyExc_TypeError, message);
        return NULL;
    }
    errors = PyImport_ImportModule("hpcjit.errors");
    if (errors) {
        cls = PyObject_GetAttrString(errors, exc_class_name(kind));
        if (!cls)
            PyErr_Clear();
    } else {
        PyErr_Clear();
    }
    if (!cls)
        cls = Py_NewRef(PyExc_RuntimeError);
    msg = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
    if (!msg)
        goto error;
    exc = PyObject_CallOneArg(cls, msg);
    if (!exc)
        goto error;
    if (set_attr_obj(exc, "filename",
                     filename ? PyUnicode_DecodeFSDefault(filename) : Py_NewRef(Py_None)) < 0 ||
        set_attr_obj(exc, "lineno", PyLong_FromLong(line)) < 0 ||
        set_attr_obj(exc, "col", PyLong_FromLong(col)) < 0)
        goto error;
    if (PyObject_IsSubclass(cls, PyExc_SyntaxError) == 1 &&
        set_attr_obj(exc, "offset", PyLong_FromLong(col)) < 0)
        goto error;
    PyErr_SetObject(cls, exc);
error:
    Py_XDECREF(exc);
    Py_XDECREF(msg);
    Py_XDECREF(cls);
    Py_XDECREF(errors);
    return NULL;
}

/* ---- the JIT ------------------------------------------------------------ */

/* The module's JIT, created with hpcjit._core's runtime symbols on first
 * use.  Needs the GIL; NULL with an exception set on failure. */
static HjJit *get_jit(PyObject *mod) {
    CompilerState *st = get_state(mod);
    PyObject *core = NULL, *list = NULL, *seq = NULL;
    HjSymbol *syms = NULL;
    char *err = NULL;
    if (st->jit)
        return st->jit;

    core = PyImport_ImportModule("hpcjit._core");
    if (!core)
        goto error;
    list = PyObject_CallMethod(core, "_runtime_symbols", NULL);
    if (!list)
        goto error;
    seq = PySequence_Fast(list, "_runtime_symbols() must return a list");
    if (!seq)
        goto error;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    syms = calloc((size_t)n + 1, sizeof *syms);
    if (!syms) {
        PyErr_NoMemory();
        goto error;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        const char *name = NULL;
        PyObject *addr = NULL;
        if (!PyArg_ParseTuple(item, "sO:_runtime_symbols", &name, &addr))
            goto error;
        void *p = PyLong_AsVoidPtr(addr);
        if (!p && PyErr_Occurred())
            goto error;
        syms[i].name = name; /* borrowed from seq, alive until the end */
        syms[i].address = p;
    }
    /* the import above may have let another thread in: check again */
    if (!st->jit) {
        st->jit = hj_jit_create(syms, (int)n, &err);
        if (!st->jit) {
            raise_diag(HJ_DIAG_LLVM, err ? err : "cannot create the JIT", NULL, 0, 0);
            goto error;
        }
    }
error:
    free(err);
    free(syms);
    Py_XDECREF(seq);
    Py_XDECREF(list);
    Py_XDECREF(core);
    return st->jit;
}

/* ---- compile -------------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int dict_set(PyObject *d, const char *key, PyObject *v) {
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *str_or_none(const char *s) {
    return s ? PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace") : Py_NewRef(Py_None);
}

static PyObject *compiler_compile(PyObject *mod, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"funcs", "entry", "argtypes", "rettype", "want_ir", "want_types",
                             "ufunc_loop", "cfunc", NULL};
    PyObject *funcs = NULL, *argtypes = NULL, *rettype = Py_None, *out = NULL;
    int entry = 0, want_ir = 0, want_types = 0, ufunc_loop = 0, cfunc = 0, rc = 0;
    HjRequest req;
    HjResult res;
    HjJit *jit = NULL;
    Arena arena;
    void *addr = NULL;
    char *jit_err = NULL;
    double t_jit = now_seconds();

    memset(&res, 0, sizeof res);
    arena_init(&arena);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiO|Opppp:compile", kwlist, &funcs, &entry,
                                     &argtypes, &rettype, &want_ir, &want_types, &ufunc_loop, &cfunc))
        goto error;
    jit = get_jit(mod);
    if (!jit)
        goto error;
    t_jit = now_seconds() - t_jit; /* made on the first compilation only */
    if (cx_build_request(&arena, &req, funcs, entry, argtypes, rettype) < 0)
        goto error;
    req.want_llvm_ir = want_ir;
    req.want_types = want_types;
    req.entry_kind = ufunc_loop ? HJ_ENTRY_UFUNC_LOOP : cfunc ? HJ_ENTRY_CFUNC : HJ_ENTRY_CALL;

    /* no Python object is touched until Py_END_ALLOW_THREADS */
    Py_BEGIN_ALLOW_THREADS
    rc = hj_compile(&req, &res);
    if (rc == 0) {
        double t0 = now_seconds();
        addr = hj_jit_load(jit, res.object, res.object_size, res.entry_symbol, &jit_err);
        res.seconds_load = now_seconds() - t0;
        res.seconds_llvm += res.seconds_load; /* loading is LLVM's work too */
    }
    Py_END_ALLOW_THREADS

    if (rc != 0) {
        raise_diag(res.diag_kind, res.diag_message, res.diag_filename, res.diag_line,
                   res.diag_col);
        if (res.need_overload) { /* hpcjit.extending resolves it and compiles again */
            PyObject *et = NULL, *ev = NULL, *etb = NULL;
            PyErr_Fetch(&et, &ev, &etb);
            PyErr_NormalizeException(&et, &ev, &etb);
            if (ev && set_attr_obj(ev, "need_overload", PyUnicode_FromString(res.need_overload)) < 0)
                PyErr_Clear();
            PyErr_Restore(et, ev, etb);
        }
        goto error;
    }
    if (!addr) {
        raise_diag(HJ_DIAG_LLVM, jit_err ? jit_err : "cannot load the compiled code", NULL, 0, 0);
        goto error;
    }
    out = PyDict_New();
    if (!out)
        goto error;
    if (dict_set(out, "address", PyLong_FromVoidPtr(addr)) < 0 ||
        dict_set(out, "entry_symbol", str_or_none(res.entry_symbol)) < 0 ||
        dict_set(out, "rettype", str_or_none(res.rettype)) < 0 ||
        dict_set(out, "signature", str_or_none(res.signature)) < 0 ||
        dict_set(out, "llvm_ir", str_or_none(res.llvm_ir)) < 0 ||
        dict_set(out, "types_text", str_or_none(res.types_text)) < 0 ||
        dict_set(out, "object",
                 PyBytes_FromStringAndSize(res.object, (Py_ssize_t)res.object_size)) < 0 ||
        dict_set(out, "time_frontend", PyFloat_FromDouble(res.seconds_frontend)) < 0 ||
        dict_set(out, "time_llvm", PyFloat_FromDouble(res.seconds_llvm)) < 0 ||
        dict_set(out, "time_phases",
                 Py_BuildValue("{s:d,s:d,s:d,s:d,s:d}", "lower", res.seconds_lower, "opt",
                               res.seconds_opt, "emit", res.seconds_emit, "load",
                               res.seconds_load, "jit", t_jit)) < 0 ||
        dict_set(out, "uses_mpi", PyBool_FromLong(res.uses_mpi)) < 0)
        Py_CLEAR(out);
error:
    free(jit_err);
    hj_result_free(&res);
    arena_free(&arena);
    return out;
}

/* compile_cuda(funcs, entry, argtypes, rettype=None, device=False, cc=(9, 0), ...)
 * -> dict(ptx, entry_symbol, rettype, signature, llvm_ir, debug, ...): PTX
 * text for a kernel or device function (docs/CUDA.md); nothing is loaded. */
static PyObject *compiler_compile_cuda(PyObject *mod, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"funcs", "entry", "argtypes", "rettype", "device", "cc", "fastmath", "debug",
                             "lineinfo", "max_registers", "max_threads", "min_blocks", "opt", "libdevice",
                             "want_ir", NULL};
    PyObject *funcs = NULL, *argtypes = NULL, *rettype = Py_None, *out = NULL;
    int entry = 0, device = 0, fastmath = 0, debug = 0, lineinfo = 0, max_registers = 0, max_threads = 0;
    int min_blocks = 0, opt = 1, want_ir = 1, rc = 0, ccmaj = 9, ccmin = 0;
    const char *libdevice = NULL;
    HjRequest req;
    HjResult res;
    HjCudaOptions cuda;
    HjTarget target;
    Arena arena;

    (void)mod;
    memset(&res, 0, sizeof res);
    memset(&cuda, 0, sizeof cuda);
    memset(&target, 0, sizeof target);
    arena_init(&arena);
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiO|Op(ii)pppiiipzp:compile_cuda", kwlist, &funcs, &entry,
                                     &argtypes, &rettype, &device, &ccmaj, &ccmin, &fastmath, &debug, &lineinfo,
                                     &max_registers, &max_threads, &min_blocks, &opt, &libdevice, &want_ir))
        goto error;
    if (cx_build_request(&arena, &req, funcs, entry, argtypes, rettype) < 0)
        goto error;
    /* the path is copied: the GIL is released while the compiler reads it */
    const char *lib_copy = libdevice ? arena_strndup(&arena, libdevice, strlen(libdevice)) : NULL;
    cuda = (HjCudaOptions){.cc_major = ccmaj, .cc_minor = ccmin, .fastmath = fastmath, .debug = debug,
                           .lineinfo = lineinfo, .max_registers = max_registers, .max_threads = max_threads,
                           .min_blocks = min_blocks, .libdevice = lib_copy};
    target.opt_level = opt ? 3 : 0;
    req.target = &target;
    req.cuda = &cuda;
    req.want_llvm_ir = want_ir;
    req.entry_kind = device ? HJ_ENTRY_CUDA_DEVICE : HJ_ENTRY_CUDA_KERNEL;

    Py_BEGIN_ALLOW_THREADS
    rc = hj_compile(&req, &res);
    Py_END_ALLOW_THREADS

    if (rc != 0) {
        raise_diag(res.diag_kind, res.diag_message, res.diag_filename, res.diag_line, res.diag_col);
        if (res.need_overload) {
            PyObject *et = NULL, *ev = NULL, *etb = NULL;
            PyErr_Fetch(&et, &ev, &etb);
            PyErr_NormalizeException(&et, &ev, &etb);
            if (ev && set_attr_obj(ev, "need_overload", PyUnicode_FromString(res.need_overload)) < 0)
                PyErr_Clear();
            PyErr_Restore(et, ev, etb);
        }
        goto error;
    }
    out = PyDict_New();
    if (!out)
        goto error;
    if (dict_set(out, "ptx", PyUnicode_DecodeUTF8(res.object, (Py_ssize_t)res.object_size, "replace")) < 0 ||
        dict_set(out, "entry_symbol", str_or_none(res.entry_symbol)) < 0 ||
        dict_set(out, "rettype", str_or_none(res.rettype)) < 0 ||
        dict_set(out, "signature", str_or_none(res.signature)) < 0 ||
        dict_set(out, "llvm_ir", str_or_none(res.llvm_ir)) < 0 ||
        dict_set(out, "debug", PyBool_FromLong(res.cuda_error_global)) < 0 ||
        dict_set(out, "time_frontend", PyFloat_FromDouble(res.seconds_frontend)) < 0 ||
        dict_set(out, "time_llvm", PyFloat_FromDouble(res.seconds_llvm)) < 0)
        Py_CLEAR(out);
error:
    hj_result_free(&res);
    arena_free(&arena);
    return out;
}

/* load(object, entry_symbol) -> address: object bytes compiled elsewhere
 * (another rank of the same architecture, a cache) into this process. */
static PyObject *compiler_load(PyObject *mod, PyObject *args) {
    const char *object = NULL, *symbol = NULL;
    Py_ssize_t size = 0;
    char *err = NULL;
    void *addr = NULL;
    HjJit *jit = NULL;
    /* the bytes and the str stay alive in args; LLVM copies the object */
    if (!PyArg_ParseTuple(args, "y#s:load", &object, &size, &symbol))
        return NULL;
    if (!(jit = get_jit(mod)))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    addr = hj_jit_load(jit, object, (size_t)size, symbol, &err);
    Py_END_ALLOW_THREADS
    if (!addr) {
        raise_diag(HJ_DIAG_LLVM, err ? err : "cannot load the object code", NULL, 0, 0);
        free(err);
        return NULL;
    }
    free(err);
    return PyLong_FromVoidPtr(addr);
}

/* compile_ir(llvm_ir) -> object bytes for load(): code made outside the
 * compiler (the @box/@unbox of extension types, hpcjit/lowlevel.py). */
static PyObject *compiler_compile_ir(PyObject *mod, PyObject *arg) {
    const char *ir = NULL;
    char *copy = NULL, *obj = NULL, *err = NULL;
    size_t size = 0;
    PyObject *out = NULL;
    (void)mod;
    if (!(ir = PyUnicode_AsUTF8(arg)))
        return NULL;
    if (!(copy = strdup(ir)))
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    obj = hj_ir_to_object(copy, &size, &err);
    Py_END_ALLOW_THREADS
    if (obj)
        out = PyBytes_FromStringAndSize(obj, (Py_ssize_t)size);
    else
        raise_diag(HJ_DIAG_LLVM, err ? err : "cannot emit object code", NULL, 0, 0);
    free(obj);
    free(err);
    free(copy);
    return out;
}

/* ---- small services ---------------------------------------------------------- */

static PyObject *compiler_parse_signature(PyObject *mod, PyObject *arg) {
    const char *sig = NULL;
    char *ret = NULL, **args = NULL, *err = NULL;
    int nargs = 0;
    PyObject *list = NULL, *out = NULL;
    if (!(sig = PyUnicode_AsUTF8(arg)))
        return NULL;
    if (hj_parse_signature(sig, &ret, &args, &nargs, &err) < 0) {
        PyErr_SetString(PyExc_TypeError, err ? err : "invalid signature");
        free(err);
        return NULL;
    }
    list = PyList_New(nargs);
    if (!list)
        goto error;
    for (int i = 0; i < nargs; i++) {
        PyObject *s = PyUnicode_FromString(args[i]);
        if (!s)
            goto error;
        PyList_SET_ITEM(list, i, s);
    }
    out = Py_BuildValue("(NO)", str_or_none(ret), list);
error:
    Py_XDECREF(list);
    for (int i = 0; i < nargs; i++)
        free(args[i]);
    free(args);
    free(ret);
    return out;
}

static PyObject *compiler_typecode_display(PyObject *mod, PyObject *arg) {
    const char *tc = PyUnicode_AsUTF8(arg);
    if (!tc)
        return NULL;
    char *s = hj_typecode_display(tc);
    if (!s)
        return PyErr_Format(PyExc_ValueError, "invalid typecode '%s'", tc);
    PyObject *out = PyUnicode_FromString(s);
    free(s);
    return out;
}

static PyObject *compiler_ir_to_asm(PyObject *mod, PyObject *arg) {
    const char *ir = NULL;
    char *copy = NULL, *text = NULL, *err = NULL;
    PyObject *out = NULL;
    if (!(ir = PyUnicode_AsUTF8(arg)))
        return NULL;
    if (!(copy = strdup(ir)))
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    text = hj_ir_to_asm(copy, NULL, &err);
    Py_END_ALLOW_THREADS
    if (text)
        out = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    else
        raise_diag(HJ_DIAG_LLVM, err ? err : "cannot emit assembly", NULL, 0, 0);
    free(text);
    free(err);
    free(copy);
    return out;
}

static PyObject *compiler_target_info(PyObject *mod, PyObject *unused) {
    HjTarget t;
    memset(&t, 0, sizeof t);
    hj_target_host(&t);
    unsigned major = 0, minor = 0, patch = 0;
    hj_llvm_version(&major, &minor, &patch); /* the LLVM linked in: part of cache keys */
    PyObject *out = Py_BuildValue("{s:s,s:s,s:s,s:i,s:(III),s:O}", "triple", t.triple, "cpu", t.cpu,
                                  "features", t.features, "opt_level", t.opt_level,
                                  "llvm_version", major, minor, patch, "vector_math",
                                  hj_target_vector_math(&t) ? Py_True : Py_False);
    hj_target_free(&t);
    return out;
}

static PyMethodDef compiler_methods[] = {
    {"compile", (PyCFunction)(void (*)(void))compiler_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(funcs, entry, argtypes, rettype=None, want_ir=False, want_types=False,\n"
     "        ufunc_loop=False, cfunc=False) -> dict\n"
     "Compile one specialisation and load it; the GIL is released meanwhile."},
    {"compile_cuda", (PyCFunction)(void (*)(void))compiler_compile_cuda, METH_VARARGS | METH_KEYWORDS,
     "compile_cuda(funcs, entry, argtypes, rettype=None, device=False, cc=(9, 0), fastmath=False,\n"
     "             debug=False, lineinfo=False, max_registers=0, max_threads=0, min_blocks=0,\n"
     "             opt=True, libdevice=None, want_ir=True) -> dict(ptx, entry_symbol, ...)\n"
     "PTX text for a CUDA kernel or device function (docs/CUDA.md); the GIL is released meanwhile."},
    {"load", compiler_load, METH_VARARGS,
     "load(object_bytes, entry_symbol) -> address\n"
     "Load object bytes from compile() (of this or another process of the same\n"
     "architecture) into this process's JIT."},
    {"compile_ir", compiler_compile_ir, METH_O,
     "compile_ir(llvm_ir) -> object bytes (for load()) of LLVM IR text as it is"},
    {"parse_signature", compiler_parse_signature, METH_O,
     "parse_signature(sig) -> (return typecode or None, [argument typecodes])"},
    {"typecode_display", compiler_typecode_display, METH_O,
     "typecode_display(tc) -> display name ('array(float64, 2d, C)')"},
    {"ir_to_asm", compiler_ir_to_asm, METH_O, "ir_to_asm(llvm_ir) -> assembly text"},
    {"target_info", compiler_target_info, METH_NOARGS,
     "target_info() -> dict(triple, cpu, features, opt_level, llvm_version, vector_math)"},
    {NULL, NULL, 0, NULL},
};

static int compiler_exec(PyObject *mod) {
    get_state(mod)->jit = NULL;
    return 0;
}

static PyModuleDef_Slot compiler_slots[] = {
    {Py_mod_exec, compiler_exec},
    {0, NULL},
};

static struct PyModuleDef compiler_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hpcjit._compiler",
    .m_doc = "hpcjit compiler: source to native code (LLVM), and the JIT",
    .m_size = sizeof(CompilerState),
    .m_methods = compiler_methods,
    .m_slots = compiler_slots,
};

PyMODINIT_FUNC PyInit__compiler(void);
PyMODINIT_FUNC PyInit__compiler(void) { return PyModuleDef_Init(&compiler_module); }
