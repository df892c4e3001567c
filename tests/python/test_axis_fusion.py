"""Reductions over one axis of N-d arrays (out[o, j] op= a[o, i, j] with the
axes after the reduced one innermost), strided copies, and both inside
prange bodies; every compiled function against its py_func."""
import numpy as np
import pytest

from hpcjit import njit, prange

from conftest import check


@njit
def sum_ax0(a):
    return np.sum(a, axis=0)


@njit
def sum_ax1(a):
    return np.sum(a, axis=1)


@njit
def sum_ax2(a):
    return np.sum(a, axis=2)


@njit
def sum_neg2(a):
    return a.sum(axis=-2)


@njit
def prod_ax1(a):
    return np.prod(a, axis=1)


@njit
def mean_ax1(a):
    return np.mean(a, axis=1)


@njit
def min_ax1(a):
    return np.min(a, axis=1)


@njit
def max_ax0(a):
    return np.max(a, axis=0)


@njit
def chain3(a):
    return np.sum(np.sum(np.sum(a, axis=1), axis=1), axis=1)


def arrays(dtype):
    rng = np.random.default_rng(7)
    base = (rng.random((4, 3, 5, 6)) * 10 - 3).astype(dtype)
    return [
        base,
        base[:, ::2, 1:, ::-1],                 # strided, reversed
        np.asfortranarray(base),
        base.transpose(2, 0, 3, 1),
        np.zeros((3, 0, 2, 2), dtype),          # size-0 axes
        np.zeros((0, 2, 3, 1), dtype),
        base[:1, :1, :1, :],                    # size-1 axes
        base[:, :, :1, :1],
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("f", [sum_ax0, sum_ax1, sum_ax2, sum_neg2, prod_ax1, mean_ax1, chain3])
def test_axis_reductions(f, dtype):
    if dtype is np.bool_ and f in (mean_ax1,):
        pytest.skip("mean of bool: covered elsewhere")
    for a in arrays(dtype):
        r = check(f, a, rtol=1e-6 if dtype is np.float32 else 1e-12)
        if isinstance(r, np.ndarray):
            assert r.dtype == f.py_func(a).dtype


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16, np.uint8])
@pytest.mark.parametrize("f", [min_ax1, max_ax0])
def test_axis_minmax(f, dtype):
    for a in arrays(dtype)[:4] + arrays(dtype)[6:]:
        check(f, a)


def test_axis_minmax_nan():
    a = np.arange(24.0).reshape(2, 3, 4)
    a[1, 1, 2] = np.nan
    check(min_ax1, a)
    check(max_ax0, a)


def test_axis_2d_and_3d():
    for shape in [(5, 7), (1, 9), (9, 1), (3, 4, 5), (2, 1, 8)]:
        a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * 0.37
        check(sum_ax0, a)
        if len(shape) > 2:
            check(sum_ax1, a)


def conv_body(input, weights, out, i, j):
    K = weights.shape[0]
    N = input.shape[0]
    C_in = input.shape[3]
    C_out = weights.shape[3]
    inp = input[:, i:i + K, j:j + K, :].copy()
    out[:, i, j, :] = np.sum(np.sum(np.sum(
        np.reshape(inp, (N, K, K, C_in, 1)) * np.reshape(weights, (1, K, K, C_in, C_out)),
        axis=1), axis=1), axis=1)


def make_conv(parallel, nested):
    @njit(parallel=parallel)
    def conv(input, weights):
        K = weights.shape[0]
        N = input.shape[0]
        H_out = input.shape[1] - K + 1
        W_out = input.shape[2] - K + 1
        C_in = input.shape[3]
        C_out = weights.shape[3]
        out = np.zeros((N, H_out, W_out, C_out), dtype=input.dtype)
        for i in prange(H_out):
            for j in (prange(W_out) if nested else range(W_out)):
                inp = input[:, i:i + K, j:j + K, :].copy()
                out[:, i, j, :] = np.sum(np.sum(np.sum(
                    np.reshape(inp, (N, K, K, C_in, 1)) * np.reshape(weights, (1, K, K, C_in, C_out)),
                    axis=1), axis=1), axis=1)
        return out
    return conv


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("nested", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_conv_prange(parallel, nested, dtype):
    f = make_conv(parallel, nested)
    rng = np.random.default_rng(3)
    for (n, h, w, ci, k, co) in [(3, 8, 7, 2, 2, 5), (1, 3, 3, 1, 1, 1), (2, 5, 5, 3, 3, 4), (0, 4, 4, 2, 2, 3)]:
        x = (rng.random((n, h, w, ci)) * 4).astype(dtype)
        wt = (rng.random((k, k, ci, co)) * 4).astype(dtype)
        check(f, x, wt, rtol=1e-5 if dtype is np.float32 else 1e-12)
        # a non-contiguous input (every other column)
        x2 = (rng.random((n, h, 2 * w, ci)) * 4).astype(dtype)[:, :, ::2, :]
        check(f, x2, wt, rtol=1e-5 if dtype is np.float32 else 1e-12)


@njit
def copy4(a):
    return a[:, 1:, ::2, :].copy()


@njit
def copy_t(a):
    return a.T.copy()


@njit
def copy_f(a):
    return np.asfortranarray(a).copy()


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128, np.bool_])
def test_strided_copy(dtype):
    a = (np.arange(2 * 5 * 6 * 3) % 7).astype(dtype).reshape(2, 5, 6, 3)
    for x in [a, a[:, ::-1], a[:0], a[:, :, :1], np.asfortranarray(a)]:
        check(copy4, x)
        check(copy_t, x)
    check(copy_f, a[:, 1, :, :])


@njit(parallel=True)
def par_rows(a):
    n = a.shape[0]
    out = np.empty((n, a.shape[3]), a.dtype)
    for i in prange(n):
        out[i] = np.sum(np.sum(a[i], axis=0), axis=0)
    return out


def test_par_rows():
    a = np.arange(5 * 3 * 4 * 6, dtype=np.float64).reshape(5, 3, 4, 6) * 0.25
    check(par_rows, a)
    check(par_rows, a[:, :, ::-1, 1:])
    check(par_rows, a.astype(np.float32))
