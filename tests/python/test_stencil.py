"""@stencil kernels (relative indexing, neighborhood=, cval=,
standard_indexing=, out=) compared with the same stencil written with NumPy
slices."""
import numpy as np
import pytest

import hpcjit


@hpcjit.stencil
def blur(a):
    return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) / 4


@hpcjit.stencil
def grad(a, b):
    return a[0, 1] - a[0, -1] + 2 * b[1, 0]


@hpcjit.stencil(neighborhood=((-2, 0),), cval=-1.0)
def moving_avg(a):
    s = 0.0
    for i in range(-2, 1):
        s += a[i]
    return s / 3


@hpcjit.stencil(standard_indexing=("w",))
def weighted(a, w):
    return w[0] * a[-1] + w[1] * a[0] + w[2] * a[1]


@hpcjit.stencil
def clipped(a):
    if a[0, 0] > 10:
        return 10
    return a[0, 0] + a[1, 1]


def np_blur(a):
    out = np.zeros(a.shape, dtype=np.float64)
    out[1:-1, 1:-1] = (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) / 4
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_blur(dtype):
    a = (np.arange(63) % 11).reshape(7, 9).astype(dtype)
    np.testing.assert_allclose(blur(a), np_blur(a), rtol=1e-6)


def test_two_arrays_and_out():
    rng = np.random.default_rng(4)
    a, b = rng.random((6, 8)), rng.random((6, 8))
    ref = np.zeros_like(a)
    ref[:-1, 1:-1] = a[:-1, 2:] - a[:-1, :-2] + 2 * b[1:, 1:-1]
    np.testing.assert_allclose(grad(a, b), ref, rtol=1e-15)
    out = np.full_like(a, 7.0)
    r = grad(a, b, out=out)
    np.testing.assert_allclose(out[:-1, 1:-1], ref[:-1, 1:-1], rtol=1e-15)
    assert out[-1, 0] == 7.0 and out[0, 0] == 7.0  # the border is left alone
    assert r is out or np.shares_memory(r, out)


def test_neighborhood_and_cval():
    a = np.arange(10.0)
    ref = np.full(10, -1.0)
    ref[2:] = (a[:-2] + a[1:-1] + a[2:]) / 3
    np.testing.assert_allclose(moving_avg(a), ref)


def test_standard_indexing():
    a, w = np.arange(7.0), np.array([1.0, -2.0, 0.5])
    ref = np.zeros(7)
    ref[1:-1] = w[0] * a[:-2] + w[1] * a[1:-1] + w[2] * a[2:]
    np.testing.assert_allclose(weighted(a, w), ref)


def test_branches_in_kernel():
    a = np.arange(25).reshape(5, 5)
    ref = np.zeros_like(a)
    inner = a[:-1, :-1]
    ref[:-1, :-1] = np.where(inner > 10, 10, inner + a[1:, 1:])
    np.testing.assert_array_equal(clipped(a), ref)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_errors():
    with pytest.raises(hpcjit.TypingError, match="neighborhood"):
        @hpcjit.stencil
        def bad(a, i):
            return a[i]
    with pytest.raises(hpcjit.TypingError, match="dimensions"):
        blur(np.arange(5.0))
