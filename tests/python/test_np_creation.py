"""NumPy creation functions in compiled code (full, full_like, eye,
identity, linspace, array from tuples, astype, fill, empty_like family
with dtype), compared with NumPy (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import check, make_array


@hpcjit.njit
def full(n, v):
    return np.full((n, 3), v)


@hpcjit.njit
def full_dt(n):
    return np.full(n, 7, dtype=np.float32)


@hpcjit.njit
def full_like(a, v):
    return np.full_like(a, v), np.full_like(a, v, dtype=np.complex128)


@hpcjit.njit
def eye(n, m, k):
    return np.eye(n, m, k), np.eye(n, dtype=np.int32), np.identity(n)


@hpcjit.njit
def linspace(a, b, n):
    return np.linspace(a, b, n), np.linspace(a, b, n, endpoint=False), np.linspace(a, b)


@hpcjit.njit
def arr_tuple(x, y):
    return np.array((x, y, 3)), np.array(((x, y), (y, x))), np.array((1, 2), dtype=np.float32)


@hpcjit.njit
def arr_copy(a):
    return np.array(a)


@hpcjit.njit
def astype(a):
    return a.astype(np.float32), a.astype(np.int64), a.astype(np.complex128)


@hpcjit.njit
def fill(a, v):
    a.fill(v)
    return a


@hpcjit.njit
def likes(a):
    return np.zeros_like(a, dtype=np.int32), np.ones_like(a, dtype=np.float32)


@hpcjit.njit
def arange_f(a, b, s):
    return np.arange(a, b, s)


def test_full():
    for n in (0, 1, 4):
        for v in (2, 2.5, True, 1 + 2j):
            check(full, n, v)
        check(full_dt, n)
    assert isinstance(check(full, -1, 1.0), ValueError)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("dt", [np.int32, np.float64, np.bool_], ids=lambda d: np.dtype(d).name)
def test_like_astype_fill(layout, dt):
    a = make_array(dt, (3, 4), layout)
    check(full_like, a, 3)
    check(astype, a)
    check(fill, a, 5)
    check(likes, a)
    check(arr_copy, a)


def test_eye_linspace():
    for n, m, k in ((3, 3, 0), (3, 5, 1), (4, 2, -1), (0, 3, 0), (3, 3, 7)):
        check(eye, n, m, k)
    for n in (0, 1, 2, 5, 50):
        check(linspace, 0.0, 1.0, n)
        check(linspace, -3, 7, n)
    assert isinstance(check(linspace, 0.0, 1.0, -1), ValueError)


def test_array_from_tuples():
    check(arr_tuple, 1, 2)
    check(arr_tuple, 1.5, 2)
    check(arr_tuple, True, False)


def test_arange_float_steps():
    for a, b, s in ((0.0, 1.0, 0.1), (1.0, -2.0, -0.25), (0.0, 10.0, 3.0), (0.0, 0.0, 0.5)):
        check(arange_f, a, b, s)


def test_no_leaks():
    before = hpcjit._core.memstats()
    a = np.ones((3, 4))
    for _ in range(3):
        full(3, 1.0)
        eye(3, 4, 1)
        astype(a)
        likes(a)
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
