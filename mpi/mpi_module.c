/* mpi_module.c - hpcjit._mpi: the MPI layer under hpcjit.mpi (links libmpi).
 *
 * A separate extension so that `import hpcjit` never loads MPI.  Buffers
 * are C-contiguous objects with the buffer protocol (NumPy arrays); the
 * value forms, op checks and compile-once logic live in hpcjit/mpi.py.
 * Communicators cross into Python as Fortran handles (MPI_Comm_c2f ints);
 * an mpi4py communicator is accepted through its py2f() method.
 * The GIL is released around every call that may block. */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE
#include <Python.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "hpcjit/mpi_hooks.h"
#include "hpcjit/topo.h"

/* Whether this module called MPI_Init_thread (and so owes MPI_Finalize) */
static int we_initialised = 0;
/* node-local communicator (MPI_COMM_TYPE_SHARED), made on first use */
static MPI_Comm node_comm = MPI_COMM_NULL;

/* ---- errors and arguments ------------------------------------------------ */

static PyObject *raise_mpi(const char *what, int code)
{
    char msg[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        len = 0;
    msg[len] = '\0';
    PyErr_Format(PyExc_RuntimeError, "%s failed: %s (MPI error %d)", what, len ? msg : "unknown error", code);
    return NULL;
}

static int check_ready(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init || fin) {
        PyErr_SetString(PyExc_RuntimeError,
                        fin ? "MPI is finalized" : "MPI is not initialized (call hpcjit.mpi.init())");
        return -1;
    }
    return 0;
}

/* None -> MPI_COMM_WORLD; an int -> a Fortran handle; else obj.py2f() (mpi4py) */
static int get_comm(PyObject *obj, MPI_Comm *out)
{
    PyObject *h = NULL;
    if (check_ready() < 0)
        return -1;
    if (!obj || obj == Py_None) {
        *out = MPI_COMM_WORLD;
        return 0;
    }
    if (PyLong_Check(obj))
        h = Py_NewRef(obj);
    else if (!(h = PyObject_CallMethod(obj, "py2f", NULL)))
        return -1;
    long v = PyLong_AsLong(h);
    Py_DECREF(h);
    if (v == -1 && PyErr_Occurred())
        return -1;
    MPI_Comm c = MPI_Comm_f2c((MPI_Fint)v);
    if (c == MPI_COMM_NULL) {
        PyErr_SetString(PyExc_ValueError, "null communicator");
        return -1;
    }
    *out = c;
    return 0;
}

static MPI_Datatype format_type(const char *fmt, Py_ssize_t itemsize)
{
    if (!fmt)
        return itemsize == 1 ? MPI_BYTE : MPI_DATATYPE_NULL;
    if (*fmt == '<' || *fmt == '=' || *fmt == '@' || *fmt == '!' || *fmt == '>')
        fmt++; /* native order: NumPy arrays received here are native */
    if (fmt[0] && fmt[1] && fmt[0] != 'Z')
        return MPI_DATATYPE_NULL;
    switch (fmt[0]) {
    case '?': return MPI_C_BOOL;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
        return itemsize == 1 ? MPI_INT8_T : itemsize == 2 ? MPI_INT16_T : itemsize == 4 ? MPI_INT32_T
             : itemsize == 8 ? MPI_INT64_T : MPI_DATATYPE_NULL;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
        return itemsize == 1 ? MPI_UINT8_T : itemsize == 2 ? MPI_UINT16_T : itemsize == 4 ? MPI_UINT32_T
             : itemsize == 8 ? MPI_UINT64_T : MPI_DATATYPE_NULL;
    case 'f': return MPI_FLOAT;
    case 'd': return MPI_DOUBLE;
    case 'g': return MPI_LONG_DOUBLE;
    case 'Z':
        return fmt[1] == 'f' ? MPI_C_FLOAT_COMPLEX : fmt[1] == 'd' ? MPI_C_DOUBLE_COMPLEX
             : fmt[1] == 'g' ? MPI_C_LONG_DOUBLE_COMPLEX : MPI_DATATYPE_NULL;
    default: return MPI_DATATYPE_NULL;
    }
}

typedef struct Buf {
    Py_buffer view;
    int have;
    MPI_Datatype type;
    int count;
} Buf;

/* A contiguous buffer with an MPI element type; None leaves it empty. */
static int get_buf(PyObject *obj, int writable, Buf *b, const char *what)
{
    memset(b, 0, sizeof *b);
    if (!obj || obj == Py_None)
        return 0;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &b->view, flags) < 0)
        return -1;
    b->have = 1;
    b->type = format_type(b->view.format, b->view.itemsize);
    if (b->type == MPI_DATATYPE_NULL) {
        PyErr_Format(PyExc_TypeError, "%s: unsupported element type '%s'", what,
                     b->view.format ? b->view.format : "?");
        return -1;
    }
    Py_ssize_t n = b->view.itemsize ? b->view.len / b->view.itemsize : 0;
    if (n > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "%s: more than %d elements", what, INT_MAX);
        return -1;
    }
    b->count = (int)n;
    return 0;
}

static void release(Buf *b)
{
    if (b->have)
        PyBuffer_Release(&b->view);
    b->have = 0;
}

static int get_op(int op, MPI_Op *out)
{
    switch (op) {
    case 0: *out = MPI_SUM; return 0;
    case 1: *out = MPI_PROD; return 0;
    case 2: *out = MPI_MIN; return 0;
    case 3: *out = MPI_MAX; return 0;
    default:
        PyErr_Format(PyExc_ValueError, "unknown reduction op %d", op);
        return -1;
    }
}

static int same_memory(const Buf *a, const Buf *b)
{
    return a->have && b->have && a->view.buf == b->view.buf;
}

/* ---- lifetime -------------------------------------------------------------- */

static PyObject *mpi_init(PyObject *mod, PyObject *args)
{
    int level = MPI_THREAD_MULTIPLE, init = 0, fin = 0, provided = 0;
    if (!PyArg_ParseTuple(args, "|i:init", &level))
        return NULL;
    MPI_Finalized(&fin);
    if (fin) {
        PyErr_SetString(PyExc_RuntimeError, "MPI was finalized: it cannot be initialised again");
        return NULL;
    }
    MPI_Initialized(&init);
    if (init) /* mpi4py or the program did it */
        return Py_NewRef(Py_False);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Init_thread(NULL, NULL, level, &provided);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS)
        return raise_mpi("MPI_Init_thread", rc);
    we_initialised = 1;
    /* errors become Python exceptions, not a silent abort */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    return Py_NewRef(Py_True);
}

static PyObject *mpi_finalize(PyObject *mod, PyObject *unused)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!we_initialised || !init || fin)
        Py_RETURN_FALSE;
    if (node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&node_comm);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Finalize();
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS)
        return raise_mpi("MPI_Finalize", rc);
    Py_RETURN_TRUE;
}

static PyObject *mpi_state(PyObject *mod, PyObject *unused)
{
    int init = 0, fin = 0, level = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Query_thread(&level);
    return Py_BuildValue("{s:O,s:O,s:O,s:i}", "initialized", init ? Py_True : Py_False, "finalized",
                         fin ? Py_True : Py_False, "ours", we_initialised ? Py_True : Py_False,
                         "thread_level", level);
}

static PyObject *mpi_abort(PyObject *mod, PyObject *args)
{
    int code = 1;
    if (!PyArg_ParseTuple(args, "|i:abort", &code))
        return NULL;
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Abort(MPI_COMM_WORLD, code);
    Py_RETURN_NONE; /* not reached under MPI; the caller exits otherwise */
}

/* ---- identity -------------------------------------------------------------- */

static PyObject *mpi_rank(PyObject *mod, PyObject *args)
{
    PyObject *c = Py_None;
    MPI_Comm comm;
    int r = 0, rc;
    if (!PyArg_ParseTuple(args, "|O:rank", &c) || get_comm(c, &comm) < 0)
        return NULL;
    if ((rc = MPI_Comm_rank(comm, &r)) != MPI_SUCCESS)
        return raise_mpi("MPI_Comm_rank", rc);
    return PyLong_FromLong(r);
}

static PyObject *mpi_size(PyObject *mod, PyObject *args)
{
    PyObject *c = Py_None;
    MPI_Comm comm;
    int n = 0, rc;
    if (!PyArg_ParseTuple(args, "|O:size", &c) || get_comm(c, &comm) < 0)
        return NULL;
    if ((rc = MPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return raise_mpi("MPI_Comm_size", rc);
    return PyLong_FromLong(n);
}

/* (node-local rank, ranks on this node) from MPI_COMM_TYPE_SHARED */
static PyObject *mpi_local(PyObject *mod, PyObject *unused)
{
    MPI_Comm world;
    int r = 0, n = 0, rc = MPI_SUCCESS;
    if (get_comm(Py_None, &world) < 0)
        return NULL;
    if (node_comm == MPI_COMM_NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
        Py_END_ALLOW_THREADS
        if (rc != MPI_SUCCESS)
            return raise_mpi("MPI_Comm_split_type", rc);
    }
    MPI_Comm_rank(node_comm, &r);
    MPI_Comm_size(node_comm, &n);
    return Py_BuildValue("(ii)", r, n);
}

static PyObject *mpi_comm_split(PyObject *mod, PyObject *args)
{
    PyObject *c = Py_None;
    MPI_Comm comm, out = MPI_COMM_NULL;
    int color = 0, key = 0, rc;
    if (!PyArg_ParseTuple(args, "ii|O:comm_split", &color, &key, &c) || get_comm(c, &comm) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Comm_split(comm, color, key, &out);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS)
        return raise_mpi("MPI_Comm_split", rc);
    MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
    return PyLong_FromLong((long)MPI_Comm_c2f(out));
}

static PyObject *mpi_barrier(PyObject *mod, PyObject *args)
{
    PyObject *c = Py_None;
    MPI_Comm comm;
    int rc;
    if (!PyArg_ParseTuple(args, "|O:barrier", &c) || get_comm(c, &comm) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Barrier(comm);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS)
        return raise_mpi("MPI_Barrier", rc);
    Py_RETURN_NONE;
}

/* ---- collectives on buffers ---------------------------------------------- */

/* bcast(buf, root, comm): in place */
static PyObject *mpi_bcast(PyObject *mod, PyObject *args)
{
    PyObject *o = NULL, *c = Py_None, *out = NULL;
    int root = 0, rc;
    MPI_Comm comm;
    Buf b;
    memset(&b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "Oi|O:bcast", &o, &root, &c) || get_comm(c, &comm) < 0 ||
        get_buf(o, 1, &b, "bcast") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Bcast(b.view.buf, b.count, b.type, root, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Bcast", rc);
done:
    release(&b);
    return out;
}

/* bcast_bytes(data or None, root, comm) -> bytes: the root's data everywhere */
static PyObject *mpi_bcast_bytes(PyObject *mod, PyObject *args)
{
    PyObject *data = Py_None, *c = Py_None, *out = NULL;
    int root = 0, me = 0, rc;
    MPI_Comm comm;
    long long n = 0;
    if (!PyArg_ParseTuple(args, "Oi|O:bcast_bytes", &data, &root, &c) || get_comm(c, &comm) < 0)
        return NULL;
    MPI_Comm_rank(comm, &me);
    if (me == root) {
        if (!PyBytes_Check(data)) {
            PyErr_SetString(PyExc_TypeError, "bcast_bytes: the root passes bytes");
            return NULL;
        }
        n = (long long)PyBytes_GET_SIZE(data);
    }
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Bcast(&n, 1, MPI_LONG_LONG, root, comm);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS)
        return raise_mpi("MPI_Bcast", rc);
    if (n < 0 || n > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "bcast_bytes: more than 2 GiB");
        return NULL;
    }
    if (me == root)
        out = Py_NewRef(data);
    else if (!(out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n)))
        return NULL; /* the others will hang on the payload: the caller aborts */
    char *p = PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Bcast(p, (int)n, MPI_BYTE, root, comm);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS) {
        Py_DECREF(out);
        return raise_mpi("MPI_Bcast", rc);
    }
    return out;
}

/* reduce(send, recv or None, op, root, comm); send is recv: in place */
static PyObject *mpi_reduce(PyObject *mod, PyObject *args)
{
    PyObject *s = NULL, *r = Py_None, *c = Py_None, *out = NULL;
    int op = 0, root = 0, me = 0, rc;
    MPI_Comm comm;
    MPI_Op mop;
    Buf sb, rb;
    memset(&sb, 0, sizeof sb);
    memset(&rb, 0, sizeof rb);
    if (!PyArg_ParseTuple(args, "OOii|O:reduce", &s, &r, &op, &root, &c) || get_comm(c, &comm) < 0 ||
        get_op(op, &mop) < 0 || get_buf(s, 0, &sb, "reduce") < 0 || get_buf(r, 1, &rb, "reduce") < 0)
        goto done;
    MPI_Comm_rank(comm, &me);
    if (me == root && (!rb.have || rb.count != sb.count || rb.type != sb.type)) {
        PyErr_SetString(PyExc_ValueError, "reduce: the root's receive buffer must match the send buffer");
        goto done;
    }
    const void *sp = (me == root && same_memory(&sb, &rb)) ? MPI_IN_PLACE : sb.view.buf;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Reduce(sp, rb.have ? rb.view.buf : NULL, sb.count, sb.type, mop, root, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Reduce", rc);
done:
    release(&sb);
    release(&rb);
    return out;
}

static PyObject *mpi_allreduce(PyObject *mod, PyObject *args)
{
    PyObject *s = NULL, *r = NULL, *c = Py_None, *out = NULL;
    int op = 0, rc;
    MPI_Comm comm;
    MPI_Op mop;
    Buf sb, rb;
    memset(&sb, 0, sizeof sb);
    memset(&rb, 0, sizeof rb);
    if (!PyArg_ParseTuple(args, "OOi|O:allreduce", &s, &r, &op, &c) || get_comm(c, &comm) < 0 ||
        get_op(op, &mop) < 0 || get_buf(s, 0, &sb, "allreduce") < 0 || get_buf(r, 1, &rb, "allreduce") < 0)
        goto done;
    if (!rb.have || rb.count != sb.count || rb.type != sb.type) {
        PyErr_SetString(PyExc_ValueError, "allreduce: the receive buffer must match the send buffer");
        goto done;
    }
    const void *sp = same_memory(&sb, &rb) ? MPI_IN_PLACE : sb.view.buf;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Allreduce(sp, rb.view.buf, sb.count, sb.type, mop, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Allreduce", rc);
done:
    release(&sb);
    release(&rb);
    return out;
}

/* gather(send, recv or None, root, comm); recv holds size x send */
static PyObject *mpi_gather(PyObject *mod, PyObject *args)
{
    PyObject *s = NULL, *r = Py_None, *c = Py_None, *out = NULL;
    int root = 0, me = 0, n = 0, rc;
    MPI_Comm comm;
    Buf sb, rb;
    memset(&sb, 0, sizeof sb);
    memset(&rb, 0, sizeof rb);
    if (!PyArg_ParseTuple(args, "OOi|O:gather", &s, &r, &root, &c) || get_comm(c, &comm) < 0 ||
        get_buf(s, 0, &sb, "gather") < 0 || get_buf(r, 1, &rb, "gather") < 0)
        goto done;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (me == root && (!rb.have || rb.type != sb.type || (long long)rb.count != (long long)sb.count * n)) {
        PyErr_SetString(PyExc_ValueError, "gather: the root's receive buffer must hold size x the send buffer");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Gather(sb.view.buf, sb.count, sb.type, rb.have ? rb.view.buf : NULL, sb.count, sb.type, root, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Gather", rc);
done:
    release(&sb);
    release(&rb);
    return out;
}

static PyObject *mpi_allgather(PyObject *mod, PyObject *args)
{
    PyObject *s = NULL, *r = NULL, *c = Py_None, *out = NULL;
    int n = 0, rc;
    MPI_Comm comm;
    Buf sb, rb;
    memset(&sb, 0, sizeof sb);
    memset(&rb, 0, sizeof rb);
    if (!PyArg_ParseTuple(args, "OO|O:allgather", &s, &r, &c) || get_comm(c, &comm) < 0 ||
        get_buf(s, 0, &sb, "allgather") < 0 || get_buf(r, 1, &rb, "allgather") < 0)
        goto done;
    MPI_Comm_size(comm, &n);
    if (!rb.have || rb.type != sb.type || (long long)rb.count != (long long)sb.count * n) {
        PyErr_SetString(PyExc_ValueError, "allgather: the receive buffer must hold size x the send buffer");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Allgather(sb.view.buf, sb.count, sb.type, rb.view.buf, sb.count, sb.type, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Allgather", rc);
done:
    release(&sb);
    release(&rb);
    return out;
}

/* scatter(send or None, recv, root, comm); send holds size x recv at the root */
static PyObject *mpi_scatter(PyObject *mod, PyObject *args)
{
    PyObject *s = Py_None, *r = NULL, *c = Py_None, *out = NULL;
    int root = 0, me = 0, n = 0, rc;
    MPI_Comm comm;
    Buf sb, rb;
    memset(&sb, 0, sizeof sb);
    memset(&rb, 0, sizeof rb);
    if (!PyArg_ParseTuple(args, "OOi|O:scatter", &s, &r, &root, &c) || get_comm(c, &comm) < 0 ||
        get_buf(s, 0, &sb, "scatter") < 0 || get_buf(r, 1, &rb, "scatter") < 0)
        goto done;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (!rb.have || (me == root && (!sb.have || sb.type != rb.type ||
                                    (long long)sb.count != (long long)rb.count * n))) {
        PyErr_SetString(PyExc_ValueError, "scatter: the root's send buffer must hold size x the receive buffer");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Scatter(sb.have ? sb.view.buf : NULL, rb.count, rb.type, rb.view.buf, rb.count, rb.type, root, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Scatter", rc);
done:
    release(&sb);
    release(&rb);
    return out;
}

/* ---- point to point ------------------------------------------------------- */

static PyObject *mpi_send(PyObject *mod, PyObject *args)
{
    PyObject *o = NULL, *c = Py_None, *out = NULL;
    int dest = 0, tag = 0, rc;
    MPI_Comm comm;
    Buf b;
    memset(&b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "Oii|O:send", &o, &dest, &tag, &c) || get_comm(c, &comm) < 0 ||
        get_buf(o, 0, &b, "send") < 0)
        goto done;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Send(b.view.buf, b.count, b.type, dest, tag, comm);
    Py_END_ALLOW_THREADS
    out = rc == MPI_SUCCESS ? Py_NewRef(Py_None) : raise_mpi("MPI_Send", rc);
done:
    release(&b);
    return out;
}

/* recv(buf, source, tag, comm) -> (source, tag, count); -1 = any */
static PyObject *mpi_recv(PyObject *mod, PyObject *args)
{
    PyObject *o = NULL, *c = Py_None, *out = NULL;
    int src = 0, tag = 0, rc, count = 0;
    MPI_Comm comm;
    MPI_Status st;
    Buf b;
    memset(&b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "Oii|O:recv", &o, &src, &tag, &c) || get_comm(c, &comm) < 0 ||
        get_buf(o, 1, &b, "recv") < 0)
        goto done;
    if (src < 0)
        src = MPI_ANY_SOURCE;
    if (tag < 0)
        tag = MPI_ANY_TAG;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Recv(b.view.buf, b.count, b.type, src, tag, comm, &st);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS) {
        raise_mpi("MPI_Recv", rc);
        goto done;
    }
    MPI_Get_count(&st, b.type, &count);
    out = Py_BuildValue("(iii)", st.MPI_SOURCE, st.MPI_TAG, count);
done:
    release(&b);
    return out;
}

/* probe(source, tag, comm) -> (source, tag, bytes) of the next message */
static PyObject *mpi_probe(PyObject *mod, PyObject *args)
{
    PyObject *c = Py_None;
    int src = 0, tag = 0, rc, count = 0;
    MPI_Comm comm;
    MPI_Status st;
    if (!PyArg_ParseTuple(args, "ii|O:probe", &src, &tag, &c) || get_comm(c, &comm) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Probe(src < 0 ? MPI_ANY_SOURCE : src, tag < 0 ? MPI_ANY_TAG : tag, comm, &st);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS)
        return raise_mpi("MPI_Probe", rc);
    MPI_Get_count(&st, MPI_BYTE, &count);
    return Py_BuildValue("(iii)", st.MPI_SOURCE, st.MPI_TAG, count);
}

/* ---- node architecture ------------------------------------------------------ */

/* arch_key(llvm_cpu, llvm_features) -> topology's architecture key */
static PyObject *mpi_arch_key(PyObject *mod, PyObject *args)
{
    const char *cpu = NULL, *features = NULL;
    TopoNode *node = NULL;
    char *key = NULL;
    int rc;
    if (!PyArg_ParseTuple(args, "zz:arch_key", &cpu, &features))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = topo_discover(&node, 0);
    if (rc == TOPO_OK)
        key = topo_arch_key(node, cpu, features);
    Py_END_ALLOW_THREADS
    if (rc != TOPO_OK) {
        PyErr_Format(PyExc_RuntimeError, "topology: %s", topo_strerror(rc));
        return NULL;
    }
    topo_free(node);
    if (!key)
        return PyErr_NoMemory();
    PyObject *out = PyUnicode_FromString(key);
    free(key);
    return out;
}

/* ---- the table for compiled code (runtime/include/hpcjit/mpi_hooks.h) ------
 * Installed into hpcjit._core by hpcjit.mpi.init().  These run without the
 * GIL (called from compiled code) and touch no Python object; the
 * communicator is MPI_COMM_WORLD, and node_comm is made by hooks() (from
 * init, collectively) so local_rank never runs a collective. */

static MPI_Datatype hook_type(int code)
{
    switch (code) {
    case RT_MPI_BOOL: return MPI_C_BOOL;
    case RT_MPI_INT8: return MPI_INT8_T;
    case RT_MPI_INT16: return MPI_INT16_T;
    case RT_MPI_INT32: return MPI_INT32_T;
    case RT_MPI_INT64: return MPI_INT64_T;
    case RT_MPI_UINT8: return MPI_UINT8_T;
    case RT_MPI_UINT16: return MPI_UINT16_T;
    case RT_MPI_UINT32: return MPI_UINT32_T;
    case RT_MPI_UINT64: return MPI_UINT64_T;
    case RT_MPI_FLOAT32: return MPI_FLOAT;
    case RT_MPI_FLOAT64: return MPI_DOUBLE;
    case RT_MPI_COMPLEX64: return MPI_C_FLOAT_COMPLEX;
    case RT_MPI_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
    }
}

/* The op for a type: bool takes the logical ops, and MIN/MAX on bool run on
 * its byte (*type is changed then). */
static MPI_Op hook_op(int op, int dtype, MPI_Datatype *type)
{
    bool b = dtype == RT_MPI_BOOL;
    if (b && (op == RT_MPI_MIN || op == RT_MPI_MAX))
        *type = MPI_UINT8_T;
    switch (op) {
    case RT_MPI_SUM: return MPI_SUM;
    case RT_MPI_PROD: return MPI_PROD;
    case RT_MPI_MIN: return MPI_MIN;
    case RT_MPI_MAX: return MPI_MAX;
    case RT_MPI_BOR: return b ? MPI_LOR : MPI_BOR;
    case RT_MPI_BAND: return b ? MPI_LAND : MPI_BAND;
    case RT_MPI_BXOR: return b ? MPI_LXOR : MPI_BXOR;
    default: return MPI_OP_NULL;
    }
}

static int hook_ready(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin ? MPI_SUCCESS : MPI_ERR_OTHER;
}

static int hook_rank(int *out)
{
    int rc = hook_ready();
    return rc ? rc : MPI_Comm_rank(MPI_COMM_WORLD, out);
}

static int hook_size(int *out)
{
    int rc = hook_ready();
    return rc ? rc : MPI_Comm_size(MPI_COMM_WORLD, out);
}

static int hook_local_rank(int *out)
{
    int rc = hook_ready();
    if (rc)
        return rc;
    if (node_comm == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    return MPI_Comm_rank(node_comm, out);
}

static int hook_barrier(void)
{
    int rc = hook_ready();
    return rc ? rc : MPI_Barrier(MPI_COMM_WORLD);
}

static int hook_allreduce(const void *send, void *recv, int count, int dtype, int op)
{
    MPI_Datatype t = hook_type(dtype);
    MPI_Op o = hook_op(op, dtype, &t);
    int rc = hook_ready();
    return rc ? rc : MPI_Allreduce(send == recv ? MPI_IN_PLACE : send, recv, count, t, o, MPI_COMM_WORLD);
}

static int hook_reduce(const void *send, void *recv, int count, int dtype, int op, int root)
{
    MPI_Datatype t = hook_type(dtype);
    MPI_Op o = hook_op(op, dtype, &t);
    int me = 0, rc = hook_rank(&me);
    if (rc)
        return rc;
    const void *s = me == root && send == recv ? MPI_IN_PLACE : send;
    return MPI_Reduce(s, me == root ? recv : NULL, count, t, o, root, MPI_COMM_WORLD);
}

static int hook_bcast(void *buf, int count, int dtype, int root)
{
    int rc = hook_ready();
    return rc ? rc : MPI_Bcast(buf, count, hook_type(dtype), root, MPI_COMM_WORLD);
}

static int hook_gather(const void *send, void *recv, int count, int dtype, int root)
{
    MPI_Datatype t = hook_type(dtype);
    int me = 0, rc = hook_rank(&me);
    return rc ? rc : MPI_Gather(send, count, t, me == root ? recv : NULL, count, t, root, MPI_COMM_WORLD);
}

static int hook_allgather(const void *send, void *recv, int count, int dtype)
{
    MPI_Datatype t = hook_type(dtype);
    int rc = hook_ready();
    return rc ? rc : MPI_Allgather(send, count, t, recv, count, t, MPI_COMM_WORLD);
}

static int hook_scatter(const void *send, void *recv, int count, int dtype, int root)
{
    MPI_Datatype t = hook_type(dtype);
    int me = 0, rc = hook_rank(&me);
    return rc ? rc : MPI_Scatter(me == root ? send : NULL, count, t, recv, count, t, root, MPI_COMM_WORLD);
}

static int hook_send(const void *buf, int count, int dtype, int dest, int tag)
{
    int rc = hook_ready();
    return rc ? rc : MPI_Send(buf, count, hook_type(dtype), dest, tag, MPI_COMM_WORLD);
}

static int hook_recv(void *buf, int count, int dtype, int source, int tag, int *got)
{
    MPI_Status st;
    MPI_Datatype t = hook_type(dtype);
    int rc = hook_ready();
    if (rc)
        return rc;
    if ((rc = MPI_Probe(source == RT_MPI_ANY ? MPI_ANY_SOURCE : source, tag == RT_MPI_ANY ? MPI_ANY_TAG : tag,
                        MPI_COMM_WORLD, &st)) != MPI_SUCCESS)
        return rc;
    int n = 0;
    if ((rc = MPI_Get_count(&st, t, &n)) != MPI_SUCCESS)
        return rc;
    if (n != count) { /* leave the message for a matching recv: the caller raises */
        *got = n;
        return MPI_SUCCESS;
    }
    rc = MPI_Recv(buf, count, t, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    *got = count;
    return rc;
}

static void hook_error_string(int code, char *buf, int cap)
{
    char msg[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    if (cap <= 0)
        return;
    if (MPI_Error_string(code, msg, &len) != MPI_SUCCESS)
        len = 0;
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, msg, (size_t)len);
    buf[len] = '\0';
}

static const RtMpiHooks hook_table = {
    .version = RT_MPI_HOOKS_VERSION,
    .rank = hook_rank,
    .size = hook_size,
    .local_rank = hook_local_rank,
    .barrier = hook_barrier,
    .allreduce = hook_allreduce,
    .reduce = hook_reduce,
    .bcast = hook_bcast,
    .gather = hook_gather,
    .allgather = hook_allgather,
    .scatter = hook_scatter,
    .send = hook_send,
    .recv = hook_recv,
    .error_string = hook_error_string,
};

/* hooks() -> capsule of the table, for hpcjit._core._set_mpi_hooks;
 * collective (makes the node communicator). */
static PyObject *mpi_hooks(PyObject *mod, PyObject *unused)
{
    PyObject *t = mpi_local(mod, NULL);
    if (!t)
        return NULL;
    Py_DECREF(t);
    return PyCapsule_New((void *)&hook_table, "hpcjit._mpi.hooks", NULL);
}

static PyMethodDef mpi_methods[] = {
    {"hooks", mpi_hooks, METH_NOARGS, "hooks() -> capsule of the MPI table for compiled code (collective)"},
    {"init", mpi_init, METH_VARARGS, "init(thread_level=MULTIPLE) -> True when this call initialised MPI"},
    {"finalize", mpi_finalize, METH_NOARGS, "finalize() -> True when MPI was finalized here (only if init did it)"},
    {"state", mpi_state, METH_NOARGS, "state() -> dict(initialized, finalized, ours, thread_level)"},
    {"abort", mpi_abort, METH_VARARGS, "abort(code=1): MPI_Abort(MPI_COMM_WORLD, code)"},
    {"rank", mpi_rank, METH_VARARGS, "rank(comm=None)"},
    {"size", mpi_size, METH_VARARGS, "size(comm=None)"},
    {"local", mpi_local, METH_NOARGS, "local() -> (node-local rank, ranks on this node)"},
    {"comm_split", mpi_comm_split, METH_VARARGS, "comm_split(color, key, comm=None) -> Fortran handle"},
    {"barrier", mpi_barrier, METH_VARARGS, "barrier(comm=None)"},
    {"bcast", mpi_bcast, METH_VARARGS, "bcast(buf, root, comm=None): in place"},
    {"bcast_bytes", mpi_bcast_bytes, METH_VARARGS, "bcast_bytes(data, root, comm=None) -> bytes"},
    {"reduce", mpi_reduce, METH_VARARGS, "reduce(send, recv, op, root, comm=None)"},
    {"allreduce", mpi_allreduce, METH_VARARGS, "allreduce(send, recv, op, comm=None)"},
    {"gather", mpi_gather, METH_VARARGS, "gather(send, recv, root, comm=None)"},
    {"allgather", mpi_allgather, METH_VARARGS, "allgather(send, recv, comm=None)"},
    {"scatter", mpi_scatter, METH_VARARGS, "scatter(send, recv, root, comm=None)"},
    {"send", mpi_send, METH_VARARGS, "send(buf, dest, tag, comm=None)"},
    {"recv", mpi_recv, METH_VARARGS, "recv(buf, source, tag, comm=None) -> (source, tag, count)"},
    {"probe", mpi_probe, METH_VARARGS, "probe(source, tag, comm=None) -> (source, tag, nbytes)"},
    {"arch_key", mpi_arch_key, METH_VARARGS, "arch_key(llvm_cpu, llvm_features) -> str"},
    {NULL, NULL, 0, NULL},
};

static int mpi_exec(PyObject *mod)
{
    /* Open MPI's plugins resolve libmpi's symbols globally: make them so
     * (Python loaded us, hence libmpi, with RTLD_LOCAL), as mpi4py does. */
    static const char *const libs[] = {"libmpi.so.40", "libmpi.so.12", "libmpi.so", NULL};
    for (const char *const *l = libs; *l; l++)
        if (dlopen(*l, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD))
            break;
    int version = 0, subversion = 0;
    MPI_Get_version(&version, &subversion);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    int len = 0;
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS)
        len = 0;
    lib[len] = '\0';
    if (len > 0 && lib[len - 1] == '\n')
        lib[len - 1] = '\0';
    if (PyModule_AddIntConstant(mod, "SUM", 0) < 0 || PyModule_AddIntConstant(mod, "PROD", 1) < 0 ||
        PyModule_AddIntConstant(mod, "MIN", 2) < 0 || PyModule_AddIntConstant(mod, "MAX", 3) < 0 ||
        PyModule_AddIntConstant(mod, "THREAD_SINGLE", MPI_THREAD_SINGLE) < 0 ||
        PyModule_AddIntConstant(mod, "THREAD_FUNNELED", MPI_THREAD_FUNNELED) < 0 ||
        PyModule_AddIntConstant(mod, "THREAD_SERIALIZED", MPI_THREAD_SERIALIZED) < 0 ||
        PyModule_AddIntConstant(mod, "THREAD_MULTIPLE", MPI_THREAD_MULTIPLE) < 0 ||
        PyModule_AddObject(mod, "mpi_version", Py_BuildValue("(ii)", version, subversion)) < 0 ||
        PyModule_AddStringConstant(mod, "library_version", lib) < 0)
        return -1;
    return 0;
}

static PyModuleDef_Slot mpi_slots[] = {
    {Py_mod_exec, mpi_exec},
    {0, NULL},
};

static struct PyModuleDef mpi_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hpcjit._mpi",
    .m_doc = "hpcjit's MPI layer (libmpi): used by hpcjit.mpi",
    .m_size = 0,
    .m_methods = mpi_methods,
    .m_slots = mpi_slots,
};

PyMODINIT_FUNC PyInit__mpi(void);
PyMODINIT_FUNC PyInit__mpi(void) { return PyModuleDef_Init(&mpi_module); }
