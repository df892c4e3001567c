"""Global and closure values are compile-time constants (Numba's rule):
numbers and tuples are folded, NumPy arrays are frozen into the compiled
code as read-only arrays (reading works, any store is refused at compile
time; returning one gives a read-only array)."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit, prange
from conftest import AGAINST_NUMBA, assert_same, check

TABLE = np.arange(12.0).reshape(3, 4)
WEIGHTS = np.array([0.5, 0.25, 0.125], dtype=np.float32)
IDX = np.array([2, 0, 1])
FLAGS = np.array([True, False, True])
CPLX = np.array([1 + 2j, 3 - 1j])
SCALE = 2.5
SHAPE = (3, 4)
PAIR = (1, 2.5)


@njit
def read_table(i):
    s = 0.0
    for j in range(TABLE.shape[1]):
        s += TABLE[i, j] * SCALE
    return s, TABLE.shape, SHAPE[1] + PAIR[1]


@njit
def table_expressions():
    return (TABLE * 2.0).sum(axis=0), TABLE[1:, ::2].copy(), TABLE.T @ WEIGHTS.astype(np.float64)


@njit
def other_dtypes(a):
    return a[IDX], WEIGHTS.sum(), FLAGS.sum(), np.conj(CPLX), IDX.size


@njit
def return_global():
    return TABLE


@njit
def return_view():
    return TABLE[:, 1]


@njit(parallel=True)
def parallel_read(n):
    out = np.empty(n)
    for i in prange(n):
        out[i] = TABLE[i % 3, i % 4] + WEIGHTS[i % 3]
    return out


def make_closure(arr):
    @njit
    def inner(i):
        return arr[i] * 2 + arr.sum()
    return inner


def test_read_global_arrays():
    check(read_table, 1)
    check(read_table, -1)
    check(table_expressions, rtol=1e-6)
    check(other_dtypes, np.arange(3.0) * 1.5, rtol=1e-6)
    check(parallel_read, 10, rtol=1e-6)


def test_closure_array():
    f = make_closure(np.arange(5.0))
    check(f, 3)
    g = make_closure(np.array([[1, 2], [3, 4]]))
    check(g, 1)


def test_returned_global_is_readonly_copy():
    r = return_global()
    assert_same(r, TABLE)
    assert not r.flags.writeable
    assert r is not TABLE
    v = return_view()
    assert_same(v, TABLE[:, 1])
    assert not v.flags.writeable


def test_frozen_at_compile_time():
    data = np.arange(4.0)

    @njit
    def total():
        return data.sum()

    assert total() == 6.0
    data[0] = 100.0  # Numba's rule: the array was frozen when compiled
    assert total() == 6.0


@njit
def write_global():
    TABLE[0, 0] = 1.0


@njit
def write_global_view():
    v = TABLE[0]
    v[:] = 0.0


@njit
def write_global_augassign():
    WEIGHTS[0] += 1


@pytest.mark.parametrize("f", [write_global, write_global_view, write_global_augassign])
def test_store_into_global_is_refused(f):
    with pytest.raises(hpcjit.TypingError) as ei:
        f()
    if not AGAINST_NUMBA:
        msg = str(ei.value)
        assert "readonly array" in msg and "test_globals.py:" in msg
    assert TABLE[0, 0] == 0.0 and WEIGHTS[0] == 0.5


# ---- attributes of a user's module: `mod.f(x)`, `mod.CONST` ------------------------------

import modattr_helpers as mh  # noqa: E402


def test_module_attributes():
    @njit
    def f(x):
        return mh.scale(x) + mh.K * mh.TABLE[2] + mh.SHAPE[1]

    for x in (0.0, 3.5, -2.0):
        assert f(x) == f.py_func(x)


def test_module_attributes_in_a_callee():
    @njit
    def inner(a):
        return mh.TABLE[1] * a + len(mh.SHAPE)

    @njit
    def g(a):
        return inner(a) + mh.scale(a)

    assert g(2.0) == g.py_func(2.0)


@pytest.mark.numba_skip("hpcjit's message")
def test_module_attribute_errors_are_located():
    @njit
    def h(x):
        return mh.missing(x)

    with pytest.raises(hpcjit.errors.TypingError, match="unknown attribute 'missing' of module 'modattr_helpers'"):
        h(1.0)
