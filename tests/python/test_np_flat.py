"""a.flat in compiled code beyond the for loop's iterable: a.flat[i] (the
element at C-order index i, negative from the end, IndexError outside as
NumPy; Numba 0.68 reads out of bounds instead), a.flat[i] = v and
a.flat[i] += v (stores into a, refused on read-only arrays) and
len(a.flat), a variable bound to a.flat and then indexed, stored through
or iterated, and np.array(a.flat).  a.flat as a value of its own beyond
that (a return value, an argument, next()) is not supported: a located
UnsupportedError.  Each compiled function is compared with NumPy (py_func)."""
import os

import numpy as np
import pytest

import hpcjit
from conftest import assert_located_in, AGAINST_NUMBA, check, make_array

LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]

def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


@hpcjit.njit
def flat_get(a, i):
    return a.flat[i]


@hpcjit.njit
def flat_all(a):
    out = np.empty(len(a.flat), a.dtype)
    for i in range(len(a.flat)):
        out[i] = a.flat[i]
    return out


@hpcjit.njit
def flat_set(a, i, v):
    a.flat[i] = v
    return a


@hpcjit.njit
def flat_aug(a, i):
    a.flat[i] += 10
    a.flat[-1] *= 2


@hpcjit.njit
def flat_len(a):
    return len(a.flat)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex128, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flat_index(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    for i in [0, 5, 11, -1, -12]:
        check(flat_get, a, i)
    check(flat_all, a)
    check(flat_len, a)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_flat_store(layout):
    a = make_array(np.float64, (2, 3, 2), layout)
    for i in [0, 7, -1]:
        check(flat_set, a, i, 9.5)
    check(flat_aug, a, 3)
    check(flat_set, make_array(np.int64, 5, layout), 2, 7)


def test_flat_shapes():
    check(flat_get, np.array(4.5), 0)
    check(flat_get, np.array(4.5), -1)
    check(flat_len, np.array(4.5))
    check(flat_len, np.zeros((0, 3)))
    check(flat_all, np.zeros((0, 3)))
    check(flat_get, np.arange(5), np.int32(3))


def test_flat_out_of_bounds():
    a = np.arange(6.0).reshape(2, 3)
    for i in [6, -7, 100]:
        e = check(flat_get, a, i)
        assert isinstance(e, IndexError)
    assert isinstance(check(flat_get, np.zeros(0), 0), IndexError)
    assert isinstance(check(flat_set, a, 6, 1.0), IndexError)


@hpcjit.njit
def flat_variable(a, i):
    it = a.flat
    s = 0.0
    for x in it:
        s += x
    it[i] = s
    b = a
    jt = b.flat
    return it[i] + jt[0], len(it), np.array(jt), np.asarray(a.T.flat)


@hpcjit.njit
def flat_variable_rebound_array(a):
    # a is rebound below, so `it` would be a value of its own (refused)
    it = a.flat  # FLAT_REBOUND
    a = a * 2.0
    return it[1], a.flat[1]


@pytest.mark.numba_skip("Numba 0.68 aborts on np.asarray(a.T.flat)")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_flat_variable(layout):
    a = make_array(np.float64, (3, 4), layout)
    check(flat_variable, a, 5)
    check(flat_variable, a, -1)
    if not AGAINST_NUMBA:  # Numba reads out of bounds
        assert isinstance(check(flat_variable, a, 12), IndexError)
        with pytest.raises(hpcjit.UnsupportedError, match="not as a value") as ei:
            flat_variable_rebound_array(a)
        assert_located(ei.value, "FLAT_REBOUND")


@hpcjit.njit
def flat_readonly(a):
    b = np.broadcast_to(a, (2, 3))
    b.flat[0] = 1.0  # FLAT_RO


@hpcjit.njit
def flat_value(a):
    return a.flat  # FLAT_VALUE


@hpcjit.njit
def flat_slice(a):
    return a.flat[1:3]  # FLAT_SLICE


@hpcjit.njit
def flat_float_index(a):
    return a.flat[1.5]  # FLAT_FLOAT


@hpcjit.njit
def flat_of_number(x):
    return x.flat[0]  # FLAT_NUMBER


def test_flat_errors():
    with pytest.raises(hpcjit.TypingError, match="readonly") as ei:
        flat_readonly(np.arange(3.0))
    assert_located(ei.value, "FLAT_RO")
    with pytest.raises(hpcjit.UnsupportedError, match="not as a value") as ei:
        flat_value(np.arange(3.0))
    assert_located(ei.value, "FLAT_VALUE")
    with pytest.raises(hpcjit.UnsupportedError, match="one integer index") as ei:
        flat_slice(np.arange(3.0))
    assert_located(ei.value, "FLAT_SLICE")
    with pytest.raises(hpcjit.UnsupportedError, match="one integer index") as ei:
        flat_float_index(np.arange(3.0))
    assert_located(ei.value, "FLAT_FLOAT")
    with pytest.raises(hpcjit.TypingError, match="flat") as ei:
        flat_of_number(3.0)
    assert_located(ei.value, "FLAT_NUMBER")
