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


# ---- stencils called from @njit code (an overload: the output made with
# the kernel's result dtype and cval, then the loop nest), checked against
# the same function run by CPython, which calls the stencil from Python ----

@hpcjit.njit
def jacobi_steps(a, n):
    for _ in range(n):
        a = blur(a)
    return a


@hpcjit.njit
def stencils_in_njit(a, b, w):
    out = np.full_like(a, 7.0)
    grad(a, b, out=out)
    return grad(a, b), out, weighted(a[0], w), moving_avg(a[1])


@hpcjit.njit
def int_stencil(a):
    return clipped(a), blur(a)  # int result, float result


def test_called_from_njit():
    from conftest import check
    rng = np.random.default_rng(5)
    a, b = rng.random((6, 8)), rng.random((6, 8))
    check(jacobi_steps, a, 3)
    check(stencils_in_njit, a, b, np.array([1.0, -2.0, 0.5]))
    check(int_stencil, np.arange(30).reshape(5, 6))
    check(int_stencil, np.arange(2).reshape(1, 2))  # no interior point: all cval


@hpcjit.njit
def mismatched(a, b):
    return grad(a, b)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_called_from_njit_errors():
    with pytest.raises(ValueError, match="same shape"):
        mismatched(np.ones((4, 4)), np.ones((4, 5)))
    with pytest.raises(hpcjit.TypingError, match="dimensions"):
        jacobi_steps(np.ones(5), 1)


@hpcjit.stencil
def wave(p, c, r):
    # r is a scalar: only the subscripted arguments are relatively indexed
    return 2 * c[0, 0] - p[0, 0] + r * r * (c[-1, 0] + c[1, 0] + c[0, -1] + c[0, 1] - 4 * c[0, 0])


@hpcjit.njit
def wave_step(p, c, r):
    f = np.zeros_like(c)
    wave(p, c, r, out=f)
    return f, wave(p, c, r)


def test_scalar_argument():
    from conftest import check
    rng = np.random.default_rng(6)
    p, c = rng.random((5, 6)), rng.random((5, 6))
    ref = np.zeros_like(c)
    ref[1:-1, 1:-1] = (2 * c[1:-1, 1:-1] - p[1:-1, 1:-1] + 0.25 * (c[:-2, 1:-1] + c[2:, 1:-1] + c[1:-1, :-2]
                                                                  + c[1:-1, 2:] - 4 * c[1:-1, 1:-1]))
    np.testing.assert_allclose(wave(p, c, 0.5), ref, rtol=1e-14)
    check(wave_step, p, c, 0.5)


# ---- stencils called from parallel=True code (issue 12): as Numba's stencil
# parfor, the outer loop over the first axis runs on the pool, each thread
# also writing the border (cval) of its rows; the results equal the serial
# ones and CPython's ----

@hpcjit.stencil(cval=1.5)
def int_sum(a):
    return a[-1] + a[1]


@hpcjit.stencil(neighborhood=((0, 2), (-1, 0)), cval=2.5)
def forward(a):
    return a[0, 0] + a[2, -1] + a[1, 0]


@hpcjit.stencil(cval=7)
def in_3d(a, b, c):
    return a[0, -1, 1] + b[1, 0, -1] * c


def _stencil_body(a, b, w, v, vi, a3, b3):
    out = np.full_like(a, 7.0)
    grad(a, b, out=out)  # out= given: its border is left as it is
    return (blur(a) + 1.0, grad(a, b), out, forward(a), weighted(v, w), moving_avg(v), int_sum(vi),
            in_3d(a3, b3, 0.5), in_3d(a3, b3, 2), wave(a, b, 0.25))


stencils_serial = hpcjit.njit(_stencil_body)
stencils_parallel = hpcjit.njit(parallel=True)(_stencil_body)


def _stencil_args(n):
    rng = np.random.default_rng(9)
    return (rng.random((n, n + 3)), rng.random((n, n + 3)), np.array([1.0, -2.0, 0.5]), rng.random(n * 50),
            np.arange(n * 50), rng.random((n, 4, n + 1)), rng.random((n, 4, n + 1)))


@pytest.mark.parametrize("n", [1, 2, 6, 300])  # no interior point, some, enough for the pool
def test_called_from_parallel(n):
    from conftest import check
    args = _stencil_args(n)
    got = check(stencils_parallel, *args)
    for x, y in zip(got, stencils_serial(*args)):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


@pytest.mark.numba_skip(reason="Numba 0.68's stencil parfor does not compile for an F-ordered input "
                        "(an assertion in its array_to_array cast)")
@pytest.mark.parametrize("n", [6, 300])
def test_called_from_parallel_strided(n):
    from conftest import check
    args = _stencil_args(n)
    check(stencils_parallel, np.asfortranarray(args[0]), args[1][::-1], *args[2:])


@hpcjit.njit(parallel=True)
def jacobi_parallel(a, n):
    for _ in range(n):
        a = blur(a)
    return a


@hpcjit.njit(parallel=True)
def stencil_in_prange(a):
    out = np.empty((a.shape[0],) + a.shape[1:])
    for i in hpcjit.prange(a.shape[0]):
        out[i] = blur(a[i])  # the body's thread runs the nest
    return out


def test_parallel_steps_and_prange_body():
    from conftest import check
    rng = np.random.default_rng(10)
    a = rng.random((200, 150))
    np.testing.assert_array_equal(jacobi_parallel(a, 4), jacobi_steps(a, 4))
    check(jacobi_parallel, a, 2)
    check(stencil_in_prange, rng.random((8, 30, 20)))


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_called_from_parallel_errors():
    @hpcjit.njit(parallel=True)
    def bad(a, b):
        return grad(a, b)

    with pytest.raises(ValueError, match="same shape"):
        bad(np.ones((4, 4)), np.ones((4, 5)))
