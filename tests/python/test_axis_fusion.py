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


# ---- reductions of array expressions over an axis: fused, no temporary ----

@njit
def fsum1(a, b):
    return np.sum(a * b, axis=1)


@njit
def fsum0_bcast(a, b):
    return np.sum(np.reshape(a, (a.shape[0], a.shape[1], 1)) * b, axis=0)


@njit
def fsum_neg2(a, b):
    return (a - 2 * b).sum(axis=-2)


@njit
def fprod1(a, b):
    return np.prod(a + b, axis=1)


@njit
def fmean0(a, b):
    return np.mean(np.sqrt(np.abs(a)) + b, axis=0)


@njit
def fmin1(a, b):
    return np.min(a * b, axis=1)


@njit
def fmax0(a, b):
    return np.max(a - b, axis=0)


@njit
def fsum_last(a, b):
    return np.sum(a * b, axis=2)       # the last axis: not fused (pairwise rows)


@njit
def fsum_cmp(a, b):
    return np.sum(a > b, axis=0)


@njit(parallel=True)
def fsum_par(a, b):
    n = a.shape[0]
    out = np.empty((n, b.shape[2]), dtype=np.float64)
    for i in prange(n):
        out[i] = np.sum(np.sum(np.reshape(a[i], (a.shape[1], a.shape[2], 1)) * b, axis=0), axis=0)
    return out


def fused_pairs(dtype):
    rng = np.random.default_rng(11)
    a = (rng.random((4, 5, 6)) * 8 - 2).astype(dtype)
    b = (rng.random((4, 5, 6)) * 8 - 2).astype(dtype)
    return [
        (a, b),
        (a[:, ::2, ::-1], b[:, 1::2, :]),          # non-contiguous
        (a, b[0]),                                  # broadcast (5, 6)
        (a, b[:1, :, :1]),                          # size-1 axes broadcast
        (a[:, :0], b[:, :0]),                       # size-0 reduced axis
        (a[:0], b[:0]),                             # size-0 outer axis
        (np.asfortranarray(a), b),
    ]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
@pytest.mark.parametrize("f", [fsum1, fsum_neg2, fprod1, fmean0, fmin1, fmax0, fsum_last, fsum_cmp])
def test_fused_axis(f, dtype):
    for a, b in fused_pairs(dtype):
        r = check(f, a, b, rtol=1e-5 if dtype is np.float32 else 1e-12)
        if isinstance(r, np.ndarray):
            assert r.dtype == f.py_func(a, b).dtype


def test_fused_mixed_and_scalar():
    a = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    b = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    check(fsum1, a, b, rtol=1e-6)
    check(fsum1, a, np.float32(1.5))
    check(fsum0_bcast, np.arange(6.0).reshape(2, 3), np.ones((2, 3, 4)))
    check(fsum0_bcast, np.arange(6.0, dtype=np.float32).reshape(2, 3), np.ones((2, 3, 4), np.float32))


def test_fused_nan_and_errors():
    a = np.arange(24.0).reshape(2, 3, 4)
    b = np.ones((2, 3, 4))
    b[1, 2, 3] = np.nan
    check(fmin1, a, b)
    check(fmax0, a, b)
    check(fsum1, a, b)
    check(fsum1, a, np.ones((3, 5)))                   # cannot broadcast: ValueError
    check(fmin1, a[:, :0], b[:, :0])                   # empty min: ValueError


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fused_prange(dtype):
    rng = np.random.default_rng(5)
    a = rng.random((6, 3, 4)).astype(dtype)
    b = rng.random((3, 4, 5)).astype(dtype)
    check(fsum_par, a, b, rtol=1e-5 if dtype is np.float32 else 1e-12)
    check(fsum_par, a[:, :, ::-1], b[:, ::2], rtol=1e-5 if dtype is np.float32 else 1e-12)
