"""np.compress / a.compress and np.gradient in compiled code (overloads:
python/hpcjit/_npcompress.py, _npgradient.py), compared with NumPy through
check() over dtypes, shapes and layouts (C, F, non-contiguous views), with
memstats balance.  Numba 0.68 has neither function."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

NS = pytest.mark.numba_skip
pytestmark = [NS("Numba 0.68 has no np.compress / np.gradient"), pytest.mark.usefixtures("balanced")]
TypingError = None if AGAINST_NUMBA else hpcjit.errors.TypingError


def layouts(a):
    """a as C, F and a non-contiguous view (every other item of a twice as
    long array along the first axis), each with a's values."""
    big = np.repeat(a, 2, axis=0) if a.ndim else a
    view = big[::2]
    assert not view.flags.c_contiguous or a.ndim == 0 or a.shape[0] <= 1
    return [("C", np.ascontiguousarray(a)), ("F", np.asfortranarray(a)), ("view", view)]


# ---- np.compress ----

@njit
def compress_flat(c, a):
    return np.compress(c, a)


@njit
def compress_axis(c, a, axis):
    return np.compress(c, a, axis=axis)


@njit
def compress_method(c, a, axis):
    return a.compress(c, axis=axis), a.compress(c), a.compress(c, axis)


@njit
def compress_positional(c, a):
    return np.compress(c, a, 0)


DTYPES = [np.float64, np.int32, np.bool_, np.complex128]


def sample(shape, dtype):
    a = np.arange(1, int(np.prod(shape)) + 1).reshape(shape) * 3 % 7
    if dtype is np.complex128:
        return (a + 1j * a[::-1]).astype(dtype) if a.ndim else a.astype(dtype)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_compress_flat(dtype, shape):
    a = sample(shape, dtype)
    for _, v in layouts(a):
        n = v.size
        check(compress_flat, np.arange(n) % 3 == 0, v)
        check(compress_flat, np.array([1, 0, 2]), v)            # ints: non-zero is true, shorter than a
        check(compress_flat, np.zeros(n, np.bool_), v)          # nothing selected
        check(compress_flat, np.ones(n, np.bool_), v)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_compress_axis(dtype, shape):
    a = sample(shape, dtype)
    for _, v in layouts(a):
        for axis in range(-v.ndim, v.ndim):
            n = v.shape[axis]
            check(compress_axis, np.arange(n) % 2 == 1, v, axis)
            check(compress_axis, np.array([True]), v, axis)     # shorter than the axis
            check(compress_axis, (np.arange(n) + 1.5) % 3, v, axis)
            check(compress_method, np.arange(n) % 2 == 0, v, axis)
        check(compress_positional, np.array([False, True]), v)


@njit
def compress_literal_conditions(a):
    return np.compress([True, False, True], a), np.compress((1, 0, 1), a, 0)


def test_compress_list_and_tuple_conditions():
    for _, v in layouts(sample((3, 2), np.float64)):
        check(compress_literal_conditions, v)


@pytest.mark.parametrize("shape", [(4,), (3, 4)])
def test_compress_condition_too_long(shape):
    a = sample(shape, np.float64)
    n = a.shape[0]
    # True past the end: IndexError; False past the end: allowed, as NumPy
    assert isinstance(check(compress_axis, np.ones(n + 2, np.bool_), a, 0), IndexError)
    check(compress_axis, np.r_[np.ones(n, np.bool_), [False, False]], a, 0)
    assert isinstance(check(compress_flat, np.ones(a.size + 1, np.bool_), a), IndexError)


def test_compress_bad_axis():
    a = sample((3, 4), np.float64)
    assert isinstance(check(compress_axis, np.array([True]), a, 2), np.exceptions.AxisError)
    assert isinstance(check(compress_axis, np.array([True]), a, -3), np.exceptions.AxisError)


@njit
def compress_2d_condition(c, a):
    return np.compress(c, a)


def test_compress_refusals():
    with pytest.raises(TypingError, match="condition must be a 1-d array"):
        compress_2d_condition(np.ones((2, 2), np.bool_), np.ones(4))
    with pytest.raises(TypingError, match="compress"):
        compress_flat(np.ones(2, np.bool_), 3.0)


# ---- np.gradient ----

@njit
def grad(f):
    return np.gradient(f)


@njit
def grad_h(f, h):
    return np.gradient(f, h)


@njit
def grad_h_e2(f, h):
    return np.gradient(f, h, edge_order=2)


@njit
def grad_axis(f, axis):
    return np.gradient(f, axis=axis)


@njit
def grad_axis_e(f, axis, e):
    return np.gradient(f, axis=axis, edge_order=e)


@njit
def grad_2h(f, hx, hy, e):
    return np.gradient(f, hx, hy, edge_order=e)


@njit
def grad_axes_h(f, axes, h0, h1):
    return np.gradient(f, h0, h1, axis=axes)


GDTYPES = [np.float64, np.float32, np.int64, np.complex128]


def gsample(shape, dtype):
    a = (np.arange(int(np.prod(shape))).reshape(shape) ** 2 % 11).astype(np.float64)
    if dtype is np.complex128:
        return a + 1j * np.cos(a)
    return a.astype(dtype)


def tol(dtype):
    return 2e-6 if dtype in (np.float32,) else 1e-12


def coords(n, even=False):
    if even:
        return np.arange(n) * 0.5
    return np.cumsum(np.arange(1, n + 1) * 0.25 + (np.arange(n) % 3))


@pytest.mark.parametrize("dtype", GDTYPES)
@pytest.mark.parametrize("shape", [(2,), (3,), (7,), (3, 4), (4, 1, 5)])
def test_gradient_default(dtype, shape):
    for _, v in layouts(gsample(shape, dtype)):
        if min(v.shape) < 2:
            assert isinstance(check(grad, v), ValueError)  # too small along an axis
            continue
        check(grad, v, rtol=tol(dtype))
        check(grad_h, v, 0.25, rtol=tol(dtype))
        check(grad_h, v, 3, rtol=tol(dtype))


@pytest.mark.parametrize("dtype", GDTYPES)
@pytest.mark.parametrize("n", [3, 4, 9])
def test_gradient_1d_spacing(dtype, n):
    for _, v in layouts(gsample((n,), dtype)):
        for x in (coords(n), coords(n, even=True), np.arange(n) * 2, coords(n).astype(np.float32)):
            # float32 coordinates: NumPy 2 computes their coefficients in float32 (weak Python
            # scalars), compiled code in float64 where a float literal meets them
            rt = 2e-6 if x.dtype == np.float32 else tol(dtype)
            check(grad_h, v, x, rtol=rt)
            check(grad_h_e2, v, x, rtol=rt)
        check(grad_h_e2, v, 0.5, rtol=tol(dtype))


@pytest.mark.parametrize("dtype", [np.float64])  # the other dtypes: test_gradient_default (compile time)
@pytest.mark.parametrize("shape", [(3, 4), (5, 3), (3, 4, 5)])
def test_gradient_axis(dtype, shape):
    for _, v in layouts(gsample(shape, dtype)):
        for axis in range(-v.ndim, v.ndim):
            check(grad_axis, v, axis, rtol=tol(dtype))
            check(grad_axis_e, v, axis, 2, rtol=tol(dtype))
        check(grad_axis, v, (0, v.ndim - 1), rtol=tol(dtype))
        check(grad_axis, v, (-1, 0), rtol=tol(dtype))
        check(grad_axes_h, v, (v.ndim - 1, 0), coords(v.shape[-1]), 2.0, rtol=tol(dtype))
        check(grad_axes_h, v, (0, 1), 0.5, coords(v.shape[1], even=True), rtol=tol(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("e", [1, 2])
def test_gradient_2d_spacings(dtype, e):
    for _, v in layouts(gsample((4, 6), dtype)):
        check(grad_2h, v, 0.5, 2.0, e, rtol=tol(dtype))
        check(grad_2h, v, coords(4), coords(6), e, rtol=tol(dtype))
        check(grad_2h, v, 1.5, coords(6), e, rtol=tol(dtype))


def test_gradient_runtime_errors():
    a = gsample((3, 4), np.float64)
    assert isinstance(check(grad_axis_e, a, 0, 3), ValueError)                  # edge_order > 2
    assert isinstance(check(grad_axis_e, gsample((2, 4), np.float64), 0, 2), ValueError)  # too small
    assert isinstance(check(grad_axis, a, 2), np.exceptions.AxisError)
    assert isinstance(check(grad_axis, a, (0, -2)), ValueError)                # repeated axis
    assert isinstance(check(grad_axis, a, (0, 5)), np.exceptions.AxisError)
    assert isinstance(check(grad_h, gsample((5,), np.float64), np.arange(4.0)), ValueError)  # length


@njit
def grad_3h(f):
    return np.gradient(f, 1.0, 2.0, 3.0)


@njit
def grad_bool(f):
    return np.gradient(f)


def test_gradient_refusals():
    with pytest.raises(TypingError, match="invalid number of arguments"):
        grad_3h(np.ones((3, 3)))
    with pytest.raises(TypingError, match="distances must be either scalars or 1d"):
        grad_h(np.ones((3, 3)), np.ones((3, 3)))
    with pytest.raises(TypingError, match="gradient"):
        grad_bool(np.ones(3, np.bool_))


def test_gradient_zero_spacing():
    # NumPy: inf/nan from array divisions; edge_order=2's Python-float coefficients raise
    for a in (gsample((4,), np.float64), gsample((3, 4), np.float64)):
        check(grad_h, a, 0.0)
        assert isinstance(check(grad_h_e2, a, 0.0), ZeroDivisionError)
    check(grad_h, gsample((4,), np.float64), np.array([0.0, 1.0, 1.0, 2.0]))   # a repeated coordinate
    check(grad_h_e2, gsample((4,), np.float64), np.array([0.0, 1.0, 1.0, 2.0]))
