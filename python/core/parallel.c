/* parallel.c - hpcjit.set_num_threads & co. over the pool (runtime/pool.c).
 * The pool and its topology are made on the first call that needs them,
 * never at import. */
#include "core.h"
#include "hpcjit/parallel.h"
#include "hpcjit/pool.h"

static PyObject *pa_set_num_threads(PyObject *mod, PyObject *arg)
{
    (void)mod;
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    int max = pool_max_threads();
    if (n < 1 || n > max || pool_set_num_threads((int)n) < 0) {
        PyErr_Format(PyExc_ValueError, "The number of threads must be between 1 and %d", max);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *pa_get_num_threads(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyLong_FromLong(pool_get_num_threads());
}

static PyObject *pa_get_thread_id(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyLong_FromLong(pool_get_thread_id());
}

static PyObject *pa_set_parallel_chunksize(PyObject *mod, PyObject *arg)
{
    (void)mod;
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    int64_t old = rt_set_parallel_chunksize((int64_t)n);
    if (old < 0) {
        PyErr_SetString(PyExc_ValueError, "chunksize must be greater than or equal to zero");
        return NULL;
    }
    return PyLong_FromLongLong((long long)old);
}

static PyObject *pa_get_parallel_chunksize(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    return PyLong_FromLongLong((long long)rt_get_parallel_chunksize());
}

PyMethodDef pa_methods[] = {
    {"set_num_threads", pa_set_num_threads, METH_O,
     "Threads used by parallel loops started from this thread (1..the plan's count)."},
    {"get_num_threads", pa_get_num_threads, METH_NOARGS,
     "Threads parallel loops started from this thread use."},
    {"get_thread_id", pa_get_thread_id, METH_NOARGS, "0 on the calling thread, 1..n-1 on workers."},
    {"set_parallel_chunksize", pa_set_parallel_chunksize, METH_O,
     "Chunk size of dynamic scheduling for loops started from this thread (0: default); "
     "returns the previous value."},
    {"get_parallel_chunksize", pa_get_parallel_chunksize, METH_NOARGS,
     "Chunk size set by set_parallel_chunksize."},
    {NULL, NULL, 0, NULL},
};
