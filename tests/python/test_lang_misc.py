"""Smaller language points of issue 11 that Numba 0.68 runs: tuple
concatenation, min()/max() of a 1-D array.  Compared with CPython
(py_func), with memstats balance where arrays are held."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

njit = hpcjit.njit


@njit
def concat(a, t):
    u = (1, 2) + (3.5,)
    v = t + (a,) + ()
    return u, v[2].sum(), len(v), u + t, () + t


def test_tuple_concatenation():
    before = None if AGAINST_NUMBA else hpcjit._core.memstats()
    check(concat, np.ones(3), (1, 2.0))
    check(concat, np.arange(2.0), (-4, 0.5))
    if before is not None:
        after = hpcjit._core.memstats()
        assert after[0] - before[0] == after[1] - before[1]


@njit
def array_min_max(a, b):
    return max(a), min(a), max(b), min(b), max(a[1:]) + min(b[::2])


def test_min_max_of_an_array():
    check(array_min_max, np.array([3.0, -1.0, 2.0]), np.array([4, 9, 1]))
    check(array_min_max, np.array([0.5, 0.25]), np.array([-3, 7, 7, 2], dtype=np.int32))


@njit
def empty_max(a):
    return max(a)


@pytest.mark.numba_skip("Numba raises StopIteration where CPython raises ValueError")
def test_min_max_of_an_empty_array():
    check(empty_max, np.zeros(0))


# ---- tuple slices with constant bounds ---------------------------------------------

def test_tuple_slices():
    def f(A, t):
        return (A.shape[:2], t[1:], t[::-1], t[-2:], t[5:], np.empty(A.shape[1:]).shape, t[::2],
                t[-10:2], t[3:0:-1])

    A, t = np.zeros((3, 4, 5)), (1, 2.5, 3, 4)
    assert njit(f)(A, t) == f(A, t)


@pytest.mark.numba_skip("hpcjit's message")
def test_tuple_slice_bounds_must_be_constant():
    @njit
    def f(t, k):
        return t[:k]

    with pytest.raises(hpcjit.errors.UnsupportedError, match="constant bounds"):
        f((1, 2, 3), 2)
