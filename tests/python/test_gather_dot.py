"""`v @ a[idx]` and np.dot(v, a[idx]) with an integer index array (NPBench's
spmv: `vals @ x[cols]` per row) are multiplied without an array copy of
a[idx] (lower_linalg.c's gather_dot, runtime rt_linalg_gather_dot).  Each
compiled function is compared with its py_func (NumPy); the sums are also
compared bit for bit with the same product through a named copy, which
takes the path the gather replaced; and the copy's IndexError (out-of-range
and negative indices) and the product's ValueError (lengths) still come,
in Python's order."""
import importlib.util

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

pytestmark = pytest.mark.skipif(AGAINST_NUMBA and importlib.util.find_spec("scipy") is None,
                                reason="Numba's linear algebra needs SciPy")


@hpcjit.njit
def matmul_gather(v, a, idx):
    return v @ a[idx]


@hpcjit.njit
def dot_gather(v, a, idx):
    return np.dot(v, a[idx])


@hpcjit.njit
def dot_gather_left(v, a, idx):
    return np.dot(a[idx], v)


@hpcjit.njit
def matmul_copy(v, a, idx):
    t = a[idx]
    return v @ t


@hpcjit.njit
def spmv(A_row, A_col, A_val, x):
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = vals @ x[cols]
    return y


@hpcjit.njit
def row_gather(v, A, i, idx):
    return v @ A[i, idx]


def tol(dt):
    return dict(rtol=2e-5, atol=1e-5) if np.dtype(dt) in (np.float32, np.complex64) else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", [matmul_gather, dot_gather, dot_gather_left])
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.complex128, np.int64, np.int32])
@pytest.mark.parametrize("k", [0, 1, 2, 3, 5, 8, 33, 300])
def test_gather_product(f, dt, k):
    g = np.random.default_rng(k)
    a = (g.standard_normal(64) * 10).astype(dt)
    v = (g.standard_normal(k) * 10).astype(dt)
    idx = g.integers(-64, 64, k)
    check(f, v, a, idx, **tol(dt))


@pytest.mark.parametrize("dt", [np.float64, np.float32])
@pytest.mark.parametrize("k", [2, 7, 31, 64, 1000, 70000])
@pytest.mark.parametrize("step", [1, 3])
def test_same_bits_as_copy(dt, k, step):
    g = np.random.default_rng(k + step)
    a = g.standard_normal(5000).astype(dt)
    v = g.standard_normal(k * step).astype(dt)[::step]
    idx = g.integers(-5000, 5000, k)
    assert matmul_gather(v, a, idx) == matmul_copy(v, a, idx)
    check(matmul_gather, v, a, idx, **tol(dt))


@pytest.mark.parametrize("ity", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_index_dtypes(ity):
    g = np.random.default_rng(1)
    a = g.standard_normal(100)
    idx = g.integers(0, 100, 20).astype(ity)
    check(matmul_gather, g.standard_normal(20), a, idx)
    if np.dtype(ity).kind == "i":
        check(matmul_gather, g.standard_normal(20), a, (-idx.astype(np.int64) // 2).astype(ity))


def test_non_contiguous_operands():
    g = np.random.default_rng(2)
    a = g.standard_normal(200)
    v = g.standard_normal(60)
    idx = g.integers(-100, 100, 60)
    check(matmul_gather, v[::3], a[::2], idx[::3])
    check(matmul_gather, v[::-2], a[::-1], idx[::2])
    check(dot_gather_left, v[::3], a[1::2], idx[1::3])
    A = g.standard_normal((6, 40))
    check(row_gather, v[:10], A, 4, g.integers(-40, 40, 10))
    check(row_gather, v[:10], np.asfortranarray(A), -2, g.integers(-40, 40, 10))


@pytest.mark.parametrize("vt,at", [(np.float32, np.float64), (np.float64, np.float32), (np.int64, np.float64),
                                   (np.float32, np.int32), (np.int32, np.float32), (np.int32, np.int64)])
def test_mixed_dtypes(vt, at):
    g = np.random.default_rng(3)
    a = (g.standard_normal(50) * 10).astype(at)
    v = (g.standard_normal(12) * 10).astype(vt)
    idx = g.integers(-50, 50, 12)
    r = check(matmul_gather, v, a, idx, rtol=2e-5, atol=1e-4)
    check(dot_gather_left, v, a, idx, rtol=2e-5, atol=1e-4)
    assert np.asarray(r).dtype == np.result_type(vt, at)


@pytest.mark.parametrize("f", [matmul_gather, dot_gather, dot_gather_left])
def test_errors(f):
    a = np.arange(5.0)
    for bad in ([0, 5], [-6, 1], [1, 2, 7]):
        e = check(f, np.ones(len(bad)), a, np.array(bad))
        assert isinstance(e, IndexError)
        assert str(e) == f"index {[i for i in bad if not -5 <= i < 5][0]} is out of bounds for axis 0 with size 5"
    # out of range and of the wrong length: the gather's IndexError first
    assert isinstance(check(f, np.ones(3), a, np.array([0, 9])), IndexError)
    assert isinstance(check(f, np.ones(3), a, np.array([0, -1])), ValueError)
    assert isinstance(check(f, np.ones(0), np.zeros(0), np.zeros(0, np.int64)), float)
    assert isinstance(check(f, np.ones(1), np.zeros(0), np.zeros(1, np.int64)), IndexError)


def test_spmv():
    g = np.random.default_rng(4)
    m, n, nnz = 300, 200, 700
    rows = np.sort(g.integers(0, m, nnz))
    A_row = np.searchsorted(rows, np.arange(m + 1)).astype(np.int32)
    A_col = g.integers(0, n, nnz).astype(np.int32)
    A_val = g.standard_normal(nnz)
    x = g.standard_normal(n)
    check(spmv, A_row, A_col, A_val, x)
