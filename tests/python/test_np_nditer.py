"""np.nditer in compiled code (python/hpcjit/_npiter.py, as Numba 0.68):
`for x in np.nditer(a)` and `for x, y in np.nditer((a, b))` give 0-d views
of the operands' elements, broadcast together, in NumPy's order for C and
F arrays and positive strides (C order for other layouts, as Numba).  Compared with NumPy (py_func) where NumPy runs the same code;
writes through the views (Numba allows them, NumPy's default op_flags
refuse them) are checked by hand."""
import os

import numpy as np
import pytest

import hpcjit
from conftest import assert_located_in, AGAINST_NUMBA, check, make_array

LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]

def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


@hpcjit.njit
def walk(a):
    s = 0.0
    for x in np.nditer(a):
        s = s * 1.5 + x.item()  # the order matters
    return s


@hpcjit.njit
def walk_items(a):
    out = []
    for x in np.nditer(a):
        out.append(x[()])
    return out


@hpcjit.njit
def shapes(a):
    for x in np.nditer(a):
        return x.shape, x.ndim, x.size


@hpcjit.njit
def walk2(a, b):
    s = 0.0
    for x, y in np.nditer((a, b)):
        s = s * 1.5 + x.item() * 2 + y.item()
    return s


@hpcjit.njit
def walk3(a, b, c):
    out = []
    for x, y, z in np.nditer((a, b, c)):
        out.append(x.item() + 10 * y.item() + 100 * z.item())
    return out


@pytest.mark.parametrize("layout", [lay for lay in LAYOUTS if lay != "reversed"])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.bool_])
def test_nditer_one(layout, dtype):
    a = make_array(dtype, (3, 4), layout)
    check(walk_items, a)
    if dtype is not np.complex128:
        check(walk, a)


def test_nditer_reversed_is_c_order():
    # NumPy's order 'K' follows memory (here backwards); hpcjit, as Numba,
    # iterates an array of layout A in C order
    a = make_array(np.float64, (3, 4), "reversed")
    assert walk_items(a) == list(a.ravel())


@pytest.mark.parametrize("shape", [5, (2, 3, 2), (1, 4), ()])
def test_nditer_shapes(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    check(walk, a)
    check(shapes, a)


@pytest.mark.parametrize("a, b", [
    (np.arange(6.0).reshape(2, 3), np.arange(3.0)),
    (np.arange(6.0).reshape(2, 3), 2.0),
    (3, np.arange(4)),
    (np.arange(2.0).reshape(2, 1), np.arange(3.0).reshape(1, 3)),
    (np.asfortranarray(np.arange(6.0).reshape(2, 3)), np.asfortranarray(np.ones((2, 3)))),
    (np.arange(6.0).reshape(2, 3), np.arange(2.0)),  # no broadcast: ValueError
])
def test_nditer_tuple(a, b):
    check(walk2, a, b)


def test_nditer_three():
    check(walk3, np.arange(6.0).reshape(2, 3), np.arange(3), np.arange(2.0).reshape(2, 1))


def test_nditer_empty():
    e = check(walk, np.zeros((0, 3)))
    assert isinstance(e, ValueError)


@hpcjit.njit
def fill(a, v):
    for x in np.nditer(a):
        x[()] = v
    return a


def test_nditer_writes_through():
    # Numba's views are writable (NumPy's default op_flags are read-only)
    a = np.arange(6.0).reshape(2, 3)[:, ::2]
    fill(a, 7.0)
    assert (a == 7.0).all()


@hpcjit.njit
def nditer_list(a):
    for x in np.nditer([a, a]):  # NDITER_LIST
        pass


def test_nditer_typing_errors():
    with pytest.raises(hpcjit.TypingError, match="nditer") as ei:
        nditer_list(np.ones(3))
    assert_located(ei.value, "NDITER_LIST")
