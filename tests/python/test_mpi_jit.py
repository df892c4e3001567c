"""hpcjit.mpi from @njit code with one process (no mpirun): compile-time
errors located in the source, MPI started by the first compilation that
needs it (never by `import hpcjit`), and tests/mpi/compiled.py's checks
(collectives against NumPy and py_func, distributed prange loops against
the serial loop) at size 1.  The runs that start MPI happen in a
subprocess so that this pytest process never loads libmpi; the same
script runs under mpirun -np 2 and 4 in ctest (mpi.compiled_np*)."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import hpcjit

if getattr(hpcjit, "__hpcjit_numba_shim__", False):  # HPCJIT_TESTS_AGAINST_NUMBA=1
    pytest.skip("hpcjit.mpi is hpcjit's own", allow_module_level=True)

from hpcjit import mpi, njit  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
THIS_FILE = os.path.abspath(__file__)
COMPILED = os.path.join(HERE, "..", "mpi", "compiled.py")

pytestmark = pytest.mark.numba_skip("hpcjit.mpi is hpcjit's own")

try:
    import hpcjit._mpi  # noqa: F401  (built?)
    HAVE_MPI = True
except ImportError:
    HAVE_MPI = False
need_mpi = pytest.mark.skipif(not HAVE_MPI, reason="hpcjit built without MPI")


def env():
    e = dict(os.environ)
    e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
             OMPI_MCA_btl="self,vader,tcp", OMPI_MCA_btl_vader_single_copy_mechanism="none",
             HPCJIT_NUM_THREADS="2")
    for k in ("HPCJIT_MPI_COMPILE_ONCE", "HPCJIT_DEBUG_COMPILE"):
        e.pop(k, None)
    return e


def run(code_or_file, timeout=240):
    args = [sys.executable, code_or_file] if code_or_file.endswith(".py") else [sys.executable, "-c", code_or_file]
    p = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@need_mpi
def test_compiled_collectives_and_prange_single_rank():
    assert "rank 0 ok" in run(COMPILED)


@need_mpi
def test_mpi_starts_at_the_first_compilation_that_needs_it():
    out = run(
        "import sys, numpy as np, hpcjit\n"
        "from hpcjit import mpi, njit\n"
        "@njit\n"
        "def plain(x):\n"
        "    return x + 1\n"
        "@njit\n"
        "def total(x):\n"
        "    return mpi.allreduce(x, mpi.SUM), hpcjit.mpi.size()\n"
        "assert plain(1) == 2\n"
        "assert 'hpcjit._mpi' not in sys.modules and not mpi.initialized()\n"
        "assert total(2.5) == (2.5, 1) and total.py_func(2.5) == (2.5, 1)\n"
        "assert 'hpcjit._mpi' in sys.modules and mpi.initialized()\n"
        "from hpcjit.mpi import allreduce, allgather, MIN\n"
        "@njit\n"
        "def names(a):\n"
        "    return allreduce(a, MIN), allgather(a.sum())\n"
        "a = np.arange(3.0)\n"
        "m, g = names(a)\n"
        "pm, pg = names.py_func(a)\n"
        "assert np.array_equal(m, pm) and np.array_equal(g, pg) and g.shape == (1,)\n"
        "print('ok')\n")
    assert out.strip() == "ok"


@need_mpi
def test_without_the_table_compiled_calls_raise():
    out = run(
        "from hpcjit import mpi, njit, _core\n"
        "@njit\n"
        "def r():\n"
        "    return mpi.rank()\n"
        "assert r() == 0\n"
        "_core._set_mpi_hooks(None)\n"
        "try:\n"
        "    r()\n"
        "except RuntimeError as e:\n"
        "    assert 'MPI is not started' in str(e), e\n"
        "    print('raised')\n")
    assert out.strip() == "raised"


def test_set_mpi_hooks_checks_its_argument():
    with pytest.raises(ValueError):  # not a capsule of the right name
        hpcjit._core._set_mpi_hooks(object())


def test_python_prange_is_range():
    assert list(mpi.prange(2, 9, 3)) == list(range(2, 9, 3))


# ---- compile-time errors (compilation fails before MPI would start) ----------

_LINES = open(THIS_FILE).read().splitlines()


def line_of(marker):
    for i, text in enumerate(_LINES, 1):
        if text.rstrip().endswith("# " + marker):
            return i
    raise KeyError(marker)


def located(exc, marker):
    msg = str(exc)
    m = re.search(re.escape(os.path.basename(THIS_FILE)) + r":(\d+):(\d+)", msg)
    assert m and int(m.group(1)) == line_of(marker), msg
    assert re.search(r"^\s*\^", msg, re.M), msg
    return msg


def complex_max(z):
    return mpi.allreduce(z, mpi.MAX)  # complex_max


def bool_sum(b):
    return mpi.allreduce(b, mpi.SUM)  # bool_sum


def recv_no_buf(x):
    return mpi.recv()  # recv_no_buf


def with_comm(x):
    return mpi.allreduce(x, mpi.SUM, comm=None)  # with_comm


def value_reduce(x):
    return mpi.reduce(x, mpi.SUM, 0)  # value_reduce


def mixed_dtypes(a, b):
    mpi.allreduce(a, b, mpi.SUM)  # mixed_dtypes
    return b


def string_data(x):
    return mpi.bcast("text", 0)  # string_data


def collective_in_loop(n):
    s = 0.0
    for i in mpi.prange(n):
        s += mpi.allreduce(1.0, mpi.SUM)  # collective_in_loop
    return s


def nested_prange(n):
    s = 0
    for i in mpi.prange(n):
        for j in mpi.prange(n):  # nested_prange
            s += j
    return s


def array_reduction(a):
    acc = np.zeros(3)
    for i in mpi.prange(a.shape[0]):  # array_reduction
        acc += a[i]
    return acc


def early_exit(n):
    s = 0
    for i in mpi.prange(n):  # early_exit
        if i > 3:
            break
        s += i
    return s


def unknown_attr(x):
    return mpi.init()  # unknown_attr


CASES = [
    (complex_max, (1j,), hpcjit.TypingError, "MAX of complex numbers is not defined"),
    (bool_sum, (True,), hpcjit.TypingError, "SUM of booleans"),
    (recv_no_buf, (1,), hpcjit.TypingError, "missing required argument 'buf'"),
    (with_comm, (1.0,), hpcjit.UnsupportedError, "comm= is not supported"),
    (value_reduce, (1.0,), hpcjit.TypingError, "recv must be a NumPy array"),
    (mixed_dtypes, (np.ones(2), np.ones(2, np.float32)), hpcjit.TypingError, "needs one dtype"),
    (string_data, (1,), hpcjit.TypingError, "must be a NumPy array or a number"),
    (collective_in_loop, (4,), hpcjit.UnsupportedError, "would not meet"),
    (nested_prange, (4,), hpcjit.UnsupportedError, "only the outermost loop is distributed"),
    (array_reduction, (np.ones((4, 3)),), hpcjit.UnsupportedError, "array reduction of 'acc'"),
    (early_exit, (9,), hpcjit.UnsupportedError, "cannot leave the loop together"),
    (unknown_attr, (1,), hpcjit.TypingError, "unknown attribute 'init' of module 'hpcjit.mpi'"),
]


@pytest.mark.parametrize("f,args,exc,text", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_errors(f, args, exc, text):
    with pytest.raises(exc) as ei:
        njit(f)(*args)
    msg = located(ei.value, f.__name__)
    assert text in msg, msg
    assert "hpcjit._mpi" not in sys.modules or mpi.initialized() is False
