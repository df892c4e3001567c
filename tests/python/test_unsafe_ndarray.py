"""numba.np.unsafe.ndarray.to_fixed_tuple (hpcjit._unsafe under the drop-in):
an array's first `length` items as a tuple, `length` a constant.  Numba's
to_fixed_tuple cannot run in the interpreter, so each compiled function is
checked against the same computation written with `tuple(a[:n])` and run by
CPython."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA

if AGAINST_NUMBA:
    from numba.np.unsafe.ndarray import to_fixed_tuple
else:
    from hpcjit._unsafe import to_fixed_tuple


def first3(a):
    t = to_fixed_tuple(a, 3)
    return t[0] + t[2], t


def as_shape(dims, a):
    return a.reshape(to_fixed_tuple(dims, 2))


def empty_tuple(a):
    return to_fixed_tuple(a, 0)


@pytest.mark.parametrize("a", [np.arange(3.0), np.arange(5, dtype=np.int32)[::-1],
                               np.array([1.5, -2.0, 3.25, 9.0])])
def test_to_fixed_tuple(a):
    got = njit(first3)(a)
    assert got == (a[0] + a[2], tuple(a[:3]))
    assert type(got[1][0]) is type(tuple(a[:3])[0].item())
    assert njit(empty_tuple)(a) == ()


def test_to_fixed_tuple_as_shape():
    got = njit(as_shape)(np.array([3, 4]), np.arange(12.0))
    np.testing.assert_array_equal(got, np.arange(12.0).reshape(3, 4))


@pytest.mark.numba_skip("hpcjit's messages; Numba reads past the end of a short array")
def test_to_fixed_tuple_refusals():
    def var_length(a, n):
        return to_fixed_tuple(a, n)

    def two_d(a):
        return to_fixed_tuple(a, 2)

    def short(a):
        return to_fixed_tuple(a, 5)

    with pytest.raises(hpcjit.TypingError, match="constant"):
        njit(var_length)(np.arange(3), 2)
    with pytest.raises(hpcjit.TypingError, match="1-d array"):
        njit(two_d)(np.ones((2, 2)))
    with pytest.raises(IndexError):
        njit(short)(np.arange(3))
