"""Truth of arrays as NumPy (and Numba) define it: the one element's truth;
ValueError for an empty or larger array.  `not a[..., 0]` was a lowering
error (found by tests/fuzz/mutate.py), and array truth used to be
`size != 0`, a silently wrong value for a 0-d or 1-element zero."""
import numpy as np
import pytest

from hpcjit import njit


@njit
def cond(a):
    if a:
        return 1
    return 0


@njit
def not_ellipsis(a):
    return not a[..., 0]


@njit
def not_view(a):
    x = a[1:2]
    return not x


@pytest.mark.parametrize("arr", [np.zeros(1), np.ones(1), np.array([[0.0]]), np.array([2], np.int64),
                                 np.array([True]), np.array([0j])])
def test_one_element(arr):
    assert cond(arr) == cond.py_func(arr)


@pytest.mark.parametrize("arr", [np.zeros(0), np.zeros(3), np.ones((2, 2))])
def test_ambiguous(arr):
    with pytest.raises(ValueError):
        cond.py_func(arr)
    with pytest.raises(ValueError):
        cond(arr)


@pytest.mark.numba_skip("Numba has no `not` of an array")
@pytest.mark.parametrize("arr", [np.zeros(3), np.ones(3), np.array([0.0, 5.0, 0.0])])
def test_not_of_views(arr):
    assert not_ellipsis(arr) == not_ellipsis.py_func(arr)
    assert not_view(arr) == not_view.py_func(arr)
