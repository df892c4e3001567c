"""numba.np.unsafe.ndarray.to_fixed_tuple and numba.cpython.unsafe.tuple.
tuple_setitem (hpcjit._unsafe under the drop-in): an array's first `length`
items as a tuple, `length` a constant; a tuple with one item replaced.
Numba's versions cannot run in the interpreter, so each compiled function is
checked against the same computation written with `tuple(a[:n])` or tuple
slicing and run by CPython."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA

if AGAINST_NUMBA:
    from numba.np.unsafe.ndarray import to_fixed_tuple
    from numba.cpython.unsafe.tuple import tuple_setitem
else:
    from hpcjit._unsafe import to_fixed_tuple, tuple_setitem


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


def setitem_loop(t, v):
    out = []
    for k in range(len(t)):
        out.append(tuple_setitem(t, k, v))
    return out


def index_walk(n):
    idx = (0, 0, 0)
    s = 0
    for i in range(n):
        idx = tuple_setitem(idx, i % 3, i)
        s += idx[0] * 10000 + idx[1] * 100 + idx[2]
    return s, idx


def py_index_walk(n):
    idx = (0, 0, 0)
    s = 0
    for i in range(n):
        k = i % 3
        idx = idx[:k] + (i,) + idx[k + 1:]
        s += idx[0] * 10000 + idx[1] * 100 + idx[2]
    return s, idx


@pytest.mark.parametrize("t, v", [((1.5, 2.5, 3.5), 7), ((1, 2, 3, 4), 9),
                                  ((1, 2), 7.9), ((True, False), True)])
def test_tuple_setitem(t, v):
    got = njit(setitem_loop)(t, v)
    cast = type(t[0])  # the item is cast to the tuple's item type (int(7.9) == 7)
    want = [t[:k] + (cast(v),) + t[k + 1:] for k in range(len(t))]
    assert got == want
    assert all(type(x) is type(y) for g, w in zip(got, want) for x, y in zip(g, w))


def test_tuple_setitem_index_walk():
    assert njit(index_walk)(17) == py_index_walk(17)


@pytest.mark.numba_skip("hpcjit's messages; Numba writes outside the tuple")
def test_tuple_setitem_refusals():
    def mixed(t):
        return tuple_setitem(t, 0, 1)

    def out_of_range(t, k):
        return tuple_setitem(t, k, 1)

    with pytest.raises(hpcjit.TypingError, match="one item type"):
        njit(mixed)((1, 2.5))
    with pytest.raises(IndexError):
        njit(out_of_range)((1, 2), 2)
    with pytest.raises(IndexError):
        njit(out_of_range)((1, 2), -1)
