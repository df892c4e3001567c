"""np.cov / np.corrcoef (Numba's forms: 1-D and 2-D, y=, rowvar=, bias=,
ddof=), transpose with axes and ufuncs with an out argument, compared
with NumPy through py_func."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check, make_array

RTOL = 1e-10


@njit
def cov1(m):
    return np.cov(m)


@njit
def cov_y(m, y):
    return np.cov(m, y)


@njit
def cov_kw(m, rowvar, bias):
    return np.cov(m, rowvar=rowvar, bias=bias)


@njit
def cov_ddof(m, d):
    return np.cov(m, ddof=d)


@njit
def corr1(x):
    return np.corrcoef(x)


@njit
def corr_y(x, y, rowvar):
    return np.corrcoef(x, y, rowvar=rowvar)


def data(shape, dtype=np.float64, layout="C", seed=1):
    return make_array(dtype, shape, layout, np.random.default_rng(seed))


@pytest.mark.parametrize("layout", ["C", "strided"])
def test_cov_forms(layout):
    m = data((3, 7), layout=layout)
    check(cov1, m, rtol=RTOL)
    check(cov1, data(7), rtol=RTOL)            # 1-D: a 0-d array
    check(cov_y, data(6), data(6, seed=2), rtol=RTOL)
    check(cov_y, m, data((2, 7), seed=3), rtol=RTOL)
    check(cov_y, m, data(7, seed=4), rtol=RTOL)
    for rowvar in (True, False):
        for bias in (True, False):
            check(cov_kw, m, rowvar, bias, rtol=RTOL)
    check(cov_ddof, m, 0, rtol=RTOL)
    check(cov_ddof, m, 3, rtol=RTOL)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.complex128])
def test_cov_dtypes(dtype):
    m = data((3, 5), dtype)
    check(cov1, m, rtol=1e-6 if dtype == np.float32 else RTOL)
    check(corr1, m, rtol=1e-6 if dtype == np.float32 else RTOL)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_cov_large_through_blas(dtype):
    # big enough for rt_cov's X @ X^H to go through BLAS
    m = data((40, 300), dtype)
    check(cov1, m, rtol=RTOL)
    check(corr1, m, rtol=RTOL)
    check(cov_kw, m.T.copy(), False, True, rtol=RTOL)


def test_corrcoef_forms():
    m = data((4, 9))
    check(corr1, m, rtol=RTOL)
    r = check(corr1, data(9), rtol=RTOL)      # one 1-D array: a number
    assert isinstance(r, float)
    check(corr_y, data(8), data(8, seed=5), True, rtol=RTOL)
    check(corr_y, m, data((9, 2), seed=6).T.copy(), False, rtol=RTOL)
    check(corr_y, data((9, 3)), data((9, 2), seed=7), False, rtol=RTOL)


def test_cov_mismatched_observations():
    with pytest.raises(ValueError):
        cov_y(data((2, 5)), data((2, 6)))


@njit
def cov_of_3d(m):
    return np.cov(m)


def test_cov_3d_is_refused():
    with pytest.raises(hpcjit.TypingError if AGAINST_NUMBA else hpcjit.errors.UnsupportedError) as ei:
        cov_of_3d(np.ones((2, 2, 2)))
    if not AGAINST_NUMBA:
        assert "1-D or 2-D" in str(ei.value) and "test_np_cov_transpose.py:" in str(ei.value)


@njit
def transposes(a, ax):
    b = a.transpose(1, 0, 2)
    c = np.transpose(a, axes=(2, 0, 1))
    d = a.transpose((0, -1, 1))
    e = np.transpose(a, ax)
    return b.copy(), c + 0, d.sum(axis=0), e.copy(), a.transpose(), a.T.shape


@njit
def transpose_write(a):
    v = a.transpose(1, 0)
    v[0, 1] = 100.0          # a view: writes through
    return v.shape


@njit
def transpose_2d(a, ax):
    return np.transpose(a, ax)


@pytest.mark.parametrize("layout", ["F", "reversed"])
def test_transpose_axes(layout):
    a = make_array(np.float64, (2, 3, 4), layout)
    check(transposes, a, (1, 2, 0))
    check(transposes, a, (2, 1, 0))
    check(transpose_write, make_array(np.float64, (3, 4), layout))
    check(transpose_2d, make_array(np.int32, (3, 4), layout), (1, 0))
    check(transpose_2d, make_array(np.int32, (3, 4), layout), (0, 1))


def test_transpose_bad_axes():
    a = np.zeros((2, 3))
    with pytest.raises(ValueError):
        transpose_2d(a, (1, 1))
    with pytest.raises(ValueError):       # numpy's AxisError is a ValueError
        transpose_2d(a, (0, 2))


@njit
def ufunc_out_statements(Z, C, I):
    np.multiply(Z, Z, Z)         # out as the last positional argument
    np.add(Z, C, Z)
    np.logical_not(I, I)
    np.sqrt(np.abs(C), C)        # a float result stored into a complex array
    return Z, I, C


def test_ufunc_out_argument_as_statement():
    Z = np.arange(4.0) + 1j
    C = np.arange(4.0) + 0j
    check(ufunc_out_statements, Z, C, np.array([True, False, True, True]))


@njit
def ufunc_out_keyword(Z, C):
    np.add(Z, C, out=Z)
    return Z


@pytest.mark.numba_skip(reason="Numba 0.68 refuses the out= keyword of ufuncs")
def test_ufunc_out_keyword():
    check(ufunc_out_keyword, np.arange(3.0), np.ones(3))


@njit
def cov_of_none(m):
    return np.cov(None)


def test_cov_of_none_is_a_typing_error():
    """m=None once crashed inference (a mutant found it)."""
    with pytest.raises(hpcjit.TypingError) as ei:
        cov_of_none(np.ones(3))
    if not AGAINST_NUMBA:
        assert "for m, not none" in str(ei.value) and "test_np_cov_transpose.py:" in str(ei.value)
