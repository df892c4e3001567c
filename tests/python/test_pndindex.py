"""pndindex: Numba's parallel N-d index loop.  Under parallel=True the
iterations run on the pool (a prange over the flattened index space),
elsewhere they run as np.ndindex; each case against py_func."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit, pndindex
from conftest import check

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)


@njit(parallel=True)
def scale_shape(a):
    out = np.zeros_like(a)
    for idx in pndindex(a.shape):
        out[idx] = a[idx] * 2.0 + idx[0]
    return out


@njit(parallel=True)
def index_sum(n, m):
    s = 0
    for i in pndindex(n, m):
        s += i[0] * 10 + i[1]
    return s


@njit
def index_sum_serial(n, m):
    s = 0
    for i in pndindex(n, m):
        s += i[0] * 10 + i[1]
    return s


@njit(parallel=True)
def unpack_3d(a):
    out = np.empty(a.shape)
    for ix in pndindex(a.shape):
        i, j, k = ix
        out[i, j, k] = a[ix] + i - j * k
    return out


@njit(parallel=True)
def float_reduction(a):
    s = 0.0
    for ix in pndindex(a.shape):
        s += a[ix] * a[ix]
    return s


@njit(parallel=True)
def zero_d():
    n = 0
    for ix in pndindex():
        n += 1 + len(ix)
    return n


@njit(parallel=True)
def inside_prange(a):
    out = np.zeros(a.shape[0])
    for r in hpcjit.prange(a.shape[0]):
        t = 0.0
        for ix in pndindex(a.shape[1], a.shape[2]):
            t += a[r, ix[0], ix[1]]
        out[r] = t
    return out


@njit(parallel=True)
def negative(n):
    s = 0
    for _ in pndindex(n, -1):
        s += 1
    return s


@njit(parallel=True)
def threads_used(n):
    out = np.zeros((n, 512), np.int64)
    for idx in pndindex(n, 512):
        out[idx] = hpcjit.get_thread_id()
    return out


def test_whole_shape():
    a = np.arange(12.0).reshape(3, 4)
    check(scale_shape, a)
    check(scale_shape, np.asfortranarray(np.random.default_rng(0).random((7, 5))))


@pytest.mark.parametrize("n,m", [(3, 5), (0, 5), (5, 0), (1, 1), (37, 29)])
def test_integer_sum_serial(n, m):
    check(index_sum_serial, n, m)


@pytest.mark.numba_skip("Numba 0.68's parfor lowering types the index of pndindex(n, m) as uint64, "
                        "and i[0] fails")
@pytest.mark.parametrize("n,m", [(3, 5), (0, 5), (5, 0), (1, 1), (37, 29)])
def test_integer_sum_parallel(n, m):
    check(index_sum, n, m)


def test_three_dims_unpacked():
    check(unpack_3d, np.random.default_rng(1).random((5, 6, 7)))


def test_float_reduction():
    check(float_reduction, np.random.default_rng(2).random((40, 30)), rtol=1e-12)


@pytest.mark.numba_skip("Numba 0.68's parfor lowering raises IndexError on pndindex()")
def test_no_dimensions():
    check(zero_d)


@pytest.mark.numba_skip("Numba 0.68 raises IndexError on a pndindex nested in a prange")
def test_nested_in_prange():
    check(inside_prange, np.random.default_rng(3).random((6, 4, 9)), rtol=1e-12)


@pytest.mark.numba_skip("Numba 0.68's parallel pndindex does not raise for a negative dimension "
                        "where np.ndindex raises")
def test_negative_dimension_raises():
    with pytest.raises(ValueError):
        negative.py_func(3)
    with pytest.raises(ValueError):
        negative(3)


@pytest.mark.numba_skip("hpcjit's pool: get_thread_id inside the loop")
def test_runs_on_the_pool():
    if hpcjit.get_num_threads() < 2:
        pytest.skip("one thread")
    ids = np.unique(threads_used(64))
    assert len(ids) >= 2, ids
    assert np.array_equal(np.sort(threads_used.py_func(4).ravel()), np.zeros(4 * 512, np.int64))


def test_python_side_is_ndindex():
    assert list(pndindex(2, 3)) == list(np.ndindex(2, 3))
    assert list(pndindex((2, 2))) == list(np.ndindex((2, 2)))


@pytest.mark.numba_skip("hpcjit's message")
def test_used_as_value_is_located():
    @njit(parallel=True)
    def bad(n):
        it = pndindex(n)
        return it
    with pytest.raises(hpcjit.UnsupportedError, match="pndindex"):
        bad(3)
