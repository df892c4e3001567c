"""NumPy's set routines in compiled code (lib/nparray, lower_nparray_set.c):
isin, intersect1d, union1d, setdiff1d, setxor1d, compared with NumPy
(py_func) over int, float (NaN included) and bool operands of any
layout and shape, empty ones and Python numbers."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, make_array

# Numba compiles slowly: two layouts in that mode
LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]


@hpcjit.njit
def intersect1d(a, b):
    return np.intersect1d(a, b)


@hpcjit.njit
def union1d(a, b):
    return np.union1d(a, b)


@hpcjit.njit
def setdiff1d(a, b):
    return np.setdiff1d(a, b)


@hpcjit.njit
def setxor1d(a, b):
    return np.setxor1d(a, b)


@hpcjit.njit
def isin(a, b):
    return np.isin(a, b)


@hpcjit.njit
def isin_inv(a, b):
    return np.isin(a, b, invert=True)


@hpcjit.njit
def intersect_unique(a, b):
    return np.intersect1d(a, b, assume_unique=True)


FUNCS = (intersect1d, union1d, setdiff1d, setxor1d, isin)


def _ints(dt, shape, layout, seed):
    a = make_array(np.int64, shape, layout, np.random.default_rng(seed))
    return a.astype(dt) if layout == "C" else a


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float64])
def test_sets(layout, dt):
    a = _ints(dt, (4, 5), layout, 1)
    b = _ints(dt, 9, layout, 2)
    for f in FUNCS:
        check(f, a, b)
        check(f, b, a)
        check(f, a, a)
        check(f, a[:0], b)
        check(f, a, b[:0])
    check(isin_inv, a, b)
    check(intersect_unique, np.unique(b), np.unique(a))


def test_sets_nan_and_mixed():
    a = np.array([3.0, 1, 2, np.nan, 5, 2, 1, np.nan])
    b = np.array([2.0, 7, np.nan, 3, 3, 0])
    i = np.array([5, 1, 4, 1, 9])
    for f in FUNCS:
        check(f, a, b)
        check(f, i, a)
        check(f, np.array([True, False, True]), np.array([True]))
    check(isin_inv, a, b)
    if not AGAINST_NUMBA:  # Python numbers: beyond Numba 0.68
        for f in FUNCS:
            check(f, i.astype(np.int32), 4)
        check(isin, 3, i)
        check(isin, np.nan, a)


@hpcjit.njit
def bad_sets(a):
    return np.intersect1d(a, a, return_indices=True)  # bad-indices


@pytest.mark.numba_skip(reason="hpcjit's diagnostic")
def test_return_indices_unsupported():
    with pytest.raises(hpcjit.UnsupportedError, match="return_indices"):
        bad_sets(np.ones(3))


@pytest.mark.numba_skip(reason="hpcjit's allocation counters")
def test_no_leaks():
    a = np.array([3.0, 1, 2, np.nan])
    b = np.array([2.0, 7])
    before = hpcjit._core.memstats()
    for _ in range(3):
        for f in FUNCS:
            f(a, b)
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
