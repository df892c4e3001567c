/* generator.c - generator objects of compiled code as Python iterators
 * (typecode 'G' <item>, hpcjit/generator.h).
 *
 * A jitted generator function called from Python (or a compiled function
 * returning a generator object) gives an hpcjit._core.Generator: it holds
 * the object's reference and the typecode of its items; each next()
 * resumes the compiled body (rt_gen_next) and boxes the value it yielded.
 * Nothing runs before the first next().  Arrays that came from Python
 * have no MemInfo (abi.h): the object keeps the call's arguments alive
 * for as long as the body may read them.  Passed back to a jitted
 * function, the object is borrowed like a container. */
#include <string.h>

#include "core.h"
#include "hpcjit/generator.h"

typedef struct GenObject {
    PyObject_HEAD
    HjMemInfo *mi;  /* one reference */
    CoreState *st;  /* for cv_box (the module outlives its objects) */
    PyObject *keep; /* the arguments of the call that made it, or NULL */
    char tc[HJ_MAX_TYPECODE + 1]; /* 'G' <item> */
} GenObject;

static PyTypeObject *gen_type; /* once per process, as typed.c's classes */
static PyObject *keep_now;     /* the arguments of the call whose result is being boxed (GIL held) */

static void gen_dealloc(PyObject *o)
{
    GenObject *g = (GenObject *)o;
    PyTypeObject *tp = Py_TYPE(o);
    rt_decref(g->mi); /* destroys the suspended body: its references go */
    Py_CLEAR(g->keep);
    tp->tp_free(o);
    Py_DECREF(tp);
}

static PyObject *gen_iternext(PyObject *o)
{
    GenObject *g = (GenObject *)o;
    int32_t s = rt_gen_next(g->mi);
    if (s == RT_GEN_READY) {
        const char *tc = g->tc + 1;
        return cv_box(g->st, &tc, rt_gen_header(g->mi)->value); /* takes the value's references */
    }
    if (s == RT_GEN_ERROR)
        core_raise_pending();
    return NULL; /* exhausted: StopIteration */
}

static PyObject *gen_repr(PyObject *o)
{
    return PyUnicode_FromFormat("<hpcjit generator object (%s) at %p>", ((GenObject *)o)->tc, (void *)o);
}

static PyType_Slot gen_slots[] = {
    {Py_tp_dealloc, gen_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, gen_iternext},
    {Py_tp_repr, gen_repr},
    {Py_tp_doc, "A generator object of compiled code: an iterator over the values its body yields."},
    {0, NULL},
};

static PyType_Spec gen_spec = {
    .name = "hpcjit._core.Generator",
    .basicsize = sizeof(GenObject),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = gen_slots,
};

int gen_init(PyObject *mod)
{
    if (!gen_type) {
        gen_type = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &gen_spec, NULL);
        if (!gen_type)
            return -1;
    }
    return PyModule_AddObjectRef(mod, "Generator", (PyObject *)gen_type);
}

PyObject *gen_box(CoreState *st, const char **tc, char *in)
{
    HjMemInfo *mi;
    memcpy(&mi, in, sizeof mi);
    const char *p = *tc;
    if (tc_skip(tc) < 0 || (size_t)(*tc - p) > HJ_MAX_TYPECODE) {
        rt_decref(mi);
        PyErr_Format(PyExc_SystemError, "hpcjit: bad generator typecode '%s'", p);
        return NULL;
    }
    GenObject *g = (GenObject *)gen_type->tp_alloc(gen_type, 0); /* holds a reference to its heap type */
    if (!g) {
        rt_decref(mi);
        return NULL;
    }
    g->mi = mi;
    g->st = st;
    g->keep = Py_XNewRef(keep_now);
    memcpy(g->tc, p, (size_t)(*tc - p));
    g->tc[*tc - p] = '\0';
    return (PyObject *)g;
}

PyObject *gen_keep_push(PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *prev = keep_now;
    PyObject *t = PyTuple_New(nargs);
    if (!t) {
        PyErr_Clear(); /* nothing kept: only arrays from Python would need it */
        keep_now = NULL;
        return prev;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    keep_now = t;
    return prev;
}

void gen_keep_pop(PyObject *prev)
{
    Py_XDECREF(keep_now);
    keep_now = prev;
}

int gen_typecode(PyObject *obj, char *buf, size_t *len, size_t cap)
{
    if (!gen_type || Py_TYPE(obj) != gen_type)
        return 1;
    const char *tc = ((GenObject *)obj)->tc;
    size_t n = strlen(tc);
    if (*len + n >= cap)
        return -1;
    memcpy(buf + *len, tc, n);
    *len += n;
    return 0;
}

int gen_matches(PyObject *obj, const char **tc)
{
    const char *p = *tc;
    if (tc_skip(tc) < 0)
        return 0;
    if (!gen_type || Py_TYPE(obj) != gen_type)
        return 0;
    const char *own = ((GenObject *)obj)->tc;
    return strlen(own) == (size_t)(*tc - p) && memcmp(own, p, (size_t)(*tc - p)) == 0;
}

int gen_unbox(PyObject *obj, const char **tc, char *out)
{
    if (!gen_matches(obj, tc)) {
        PyErr_Format(PyExc_TypeError, "expected an hpcjit generator object of another type, got %R", obj);
        return -1;
    }
    memcpy(out, &((GenObject *)obj)->mi, sizeof(HjMemInfo *)); /* borrowed for the call */
    return 0;
}
