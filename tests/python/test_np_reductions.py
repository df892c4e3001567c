"""NumPy reductions in compiled code: sum, prod, min, max, mean, std, var,
argmin, argmax, all, any, cumsum, cumprod, as methods and np. functions,
with and without axis=, compared with NumPy (py_func) across dtypes,
layouts and shapes."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, make_array

DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_]
SHAPES = [(), (0,), (7,), (300,), (3, 4, 5), (2, 0, 3)]


def tol(dt):
    return 2e-5 if np.dtype(dt) in (np.float32, np.complex64) else 1e-10


@hpcjit.njit
def r_sum(a):
    return a.sum()


@hpcjit.njit
def r_npsum(a):
    return np.sum(a)


@hpcjit.njit
def r_prod(a):
    return np.prod(a)


@hpcjit.njit
def r_min(a):
    return a.min()


@hpcjit.njit
def r_max(a):
    return np.max(a)


@hpcjit.njit
def r_mean(a):
    return a.mean()


@hpcjit.njit
def r_var(a):
    return np.var(a)


@hpcjit.njit
def r_std(a):
    return a.std(ddof=1)


@hpcjit.njit
def r_argmin(a):
    return a.argmin()


@hpcjit.njit
def r_argmax(a):
    return np.argmax(a)


@hpcjit.njit
def r_all(a):
    return a.all()


@hpcjit.njit
def r_any(a):
    return np.any(a)


@hpcjit.njit
def r_cumsum(a):
    return np.cumsum(a)


@hpcjit.njit
def r_cumprod(a):
    return a.cumprod()


FULL = [r_sum, r_npsum, r_prod, r_min, r_max, r_mean, r_var, r_std, r_argmin, r_argmax, r_all, r_any,
        r_cumsum, r_cumprod]


@pytest.mark.parametrize("f", FULL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_full_reductions(f, dt, layout, shape):
    if shape == () and layout != "C":
        pytest.skip("0-d arrays have one layout")
    if f in (r_prod, r_cumprod) and np.dtype(dt).kind in "fc":
        a = make_array(dt, shape, layout) / 8
    else:
        a = make_array(dt, shape, layout)
    check(f, a, rtol=tol(dt), atol=1e-9)


@hpcjit.njit
def ax_sum(a, k):
    return a.sum(axis=k)


@hpcjit.njit
def ax_prod(a, k):
    return np.prod(a, axis=k)


@hpcjit.njit
def ax_min(a, k):
    return np.min(a, axis=k)


@hpcjit.njit
def ax_max(a, k):
    return a.max(axis=k)


@hpcjit.njit
def ax_mean(a, k):
    return np.mean(a, axis=k)


@hpcjit.njit
def ax_var(a, k):
    return a.var(axis=k, ddof=1)


@hpcjit.njit
def ax_std(a, k):
    return np.std(a, k)


@hpcjit.njit
def ax_argmin(a, k):
    return a.argmin(axis=k)


@hpcjit.njit
def ax_argmax(a, k):
    return np.argmax(a, axis=k)


@hpcjit.njit
def ax_all(a, k):
    return np.all(a, axis=k)


@hpcjit.njit
def ax_any(a, k):
    return a.any(k)


@hpcjit.njit
def ax_cumsum(a, k):
    return a.cumsum(axis=k)


@hpcjit.njit
def ax_cumprod(a, k):
    return np.cumprod(a, axis=k)


AXIS = [ax_sum, ax_prod, ax_min, ax_max, ax_mean, ax_var, ax_std, ax_argmin, ax_argmax, ax_all, ax_any,
        ax_cumsum, ax_cumprod]


@pytest.mark.parametrize("f", AXIS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("shape,axis", [((9,), 0), ((9,), -1), ((3, 4, 5), 0), ((3, 4, 5), 1),
                                        ((3, 4, 5), -1), ((2, 130), 1), ((4, 0), 0)], ids=str)
def test_axis_reductions(f, dt, layout, shape, axis):
    a = make_array(dt, shape, layout)
    if np.dtype(dt).kind in "fc":
        a = a / 8
    check(f, a, axis, rtol=tol(dt), atol=1e-9)


@pytest.mark.parametrize("f", AXIS, ids=lambda f: f.__name__)
def test_axis_out_of_range(f):
    a = np.ones((2, 3))
    with pytest.raises(ValueError):
        f.py_func(a, 2)
    with pytest.raises(ValueError):
        f(a, 2)
    with pytest.raises(ValueError):
        f(a, -3)


@pytest.mark.numba_skip(reason="Numba raises ValueError with its own message")
@pytest.mark.parametrize("f", AXIS, ids=lambda f: f.__name__)
def test_axis_error_is_numpys(f):
    """numpy.exceptions.AxisError (a ValueError and an IndexError) with
    NumPy's message, as py_func raises it."""
    for a, k in ((np.ones((2, 3)), 2), (np.ones((2, 3)), -3), (np.ones(4), 5), (np.ones((2, 3, 4)), -4)):
        e = check(f, a, k)
        assert isinstance(e, np.exceptions.AxisError) and isinstance(e, IndexError)
        assert str(e) == f"axis {k} is out of bounds for array of dimension {a.ndim}"


@pytest.mark.parametrize("f", [r_min, r_max, r_argmin, r_argmax], ids=lambda f: f.__name__)
def test_empty_raises(f):
    e = check(f, np.zeros(0))
    assert isinstance(e, ValueError)


def test_result_dtypes():
    for dt, exp in [(np.int32, np.int64), (np.bool_, np.int64), (np.uint8, np.uint64), (np.float32, np.float32)]:
        a = np.arange(6).astype(dt).reshape(2, 3)
        assert r_cumsum(a).dtype == exp
        assert ax_sum(a, 0).dtype == exp
    assert ax_mean(np.ones((2, 3), np.int32), 1).dtype == np.float64
    assert ax_var(np.ones((2, 3), np.complex128), 1).dtype == np.float64


def test_pairwise_matches_numpy():
    """Pairwise summation: bit-identical to NumPy on contiguous data."""
    g = np.random.default_rng(1)
    for n in [1, 7, 8, 9, 127, 128, 129, 1000, 4097, 100003]:
        a = g.standard_normal(n)
        assert r_sum(a) == a.sum()
        f = a.astype(np.float32)
        assert r_sum(f) == f.sum()
        c = a + 1j * g.standard_normal(n)
        assert r_sum(c) == c.sum()


def test_nan_propagation():
    a = np.array([1.0, np.nan, -3.0, np.nan])
    for f in (r_min, r_max, r_argmin, r_argmax, r_sum, r_mean):
        check(f, a)


def test_no_leaks():
    before = hpcjit._core.memstats()
    a = make_array(np.float64, (3, 4, 5), "F")
    for f in AXIS:
        f(a, 1)
    r_cumsum(a)
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]


# ---- dtype= (accumulate in that dtype, as NumPy) ----

@hpcjit.njit
def dt_sum(a):
    return np.sum(a, dtype=np.float64), a.sum(dtype=np.int32), np.sum(a, None, np.complex128), a.sum(dtype="int8")


@hpcjit.njit
def dt_prod(a):
    return np.prod(a, dtype=np.float64), a.prod(dtype=np.int64), np.prod(a, dtype=np.float32)


@hpcjit.njit
def dt_mean(a):
    return np.mean(a, dtype=np.float32), a.mean(dtype=np.float64), np.mean(a, dtype=np.int64), \
        a.mean(dtype=np.complex64)


@hpcjit.njit
def dt_cum(a):
    return np.cumsum(a, dtype=np.float64), a.cumsum(dtype=np.int16), np.cumprod(a, dtype=np.float64), \
        a.cumprod(dtype=np.complex128)


@hpcjit.njit
def dt_axis(a):
    return (a.sum(axis=0, dtype=np.float32), np.sum(a, -1, np.int64), a.prod(0, np.float64),
            np.mean(a, axis=0, dtype=np.float64), a.mean(-1, np.int32), np.cumsum(a, 0, np.float64),
            a.cumprod(axis=-1, dtype=np.int64))


@hpcjit.njit
def dt_complex(z):
    return (z.sum(dtype=np.complex64), np.prod(z, dtype=np.complex128), np.mean(z, 0, np.complex128),
            np.cumsum(z, dtype=np.complex64), z.cumprod(0, np.complex128))


@hpcjit.njit
def dt_complex_bad(z):
    return z.sum(dtype=np.float64)


@pytest.mark.numba_skip(reason="Numba takes dtype= only on np.sum")
@pytest.mark.parametrize("dt", [np.int8, np.int32, np.uint16, np.int64, np.float32, np.float64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (300,), (6, 33), (3, 4, 5)], ids=str)
def test_reduction_dtype(dt, layout, shape):
    if shape == () and layout != "C":
        pytest.skip("0-d arrays have one layout")
    a = make_array(dt, shape, layout)
    if np.dtype(dt).kind == "f":
        a = a / 8  # products stay finite
    for f in (dt_sum, dt_prod, dt_mean, dt_cum):
        check(f, a, rtol=1e-4, atol=1e-6)
    if len(shape) >= 1:
        check(dt_axis, a, rtol=1e-4, atol=1e-6)


@pytest.mark.numba_skip(reason="Numba takes dtype= only on np.sum")
@pytest.mark.parametrize("dt", [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_reduction_dtype_complex(dt, layout):
    z = make_array(dt, (6, 5), layout) / 8
    check(dt_complex, z, rtol=1e-5, atol=1e-7)
    with pytest.raises(hpcjit.TypingError):
        dt_complex_bad(z)


# ---- nansum/nanprod/nanmean/nanmin/nanmax, ptp ----

@hpcjit.njit
def nan_all(a):
    return np.nansum(a), np.nanprod(a), np.nanmean(a), np.ptp(a)


@hpcjit.njit
def nan_minmax(a):
    return np.nanmin(a), np.nanmax(a)


@hpcjit.njit
def nan_axis(a, k):
    return np.nansum(a, k), np.nanprod(a, axis=k), np.nanmean(a, k), np.ptp(a, axis=k)


@hpcjit.njit
def nan_minmax_axis(a, k):
    return np.nanmin(a, axis=k), np.nanmax(a, k)


def _with_nans(a):
    if a.dtype.kind == "f" and a.size > 2:
        a[np.unravel_index(np.arange(0, a.size, 3), a.shape)] = np.nan
    return a


@pytest.mark.numba_skip(reason="Numba's nan* functions and np.ptp take no axis")
@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint8, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (300,), (6, 33), (3, 4, 5)], ids=str)
def test_nan_reductions(dt, layout, shape):
    if shape == () and layout != "C":
        pytest.skip("0-d arrays have one layout")
    a = make_array(dt, shape, layout)
    if np.dtype(dt).kind == "f":
        a = _with_nans(a / 8)
    check(nan_all, a, rtol=tol(dt), atol=1e-9)
    check(nan_minmax, a, rtol=tol(dt))
    for k in range(-len(shape), len(shape)):
        check(nan_axis, a, k, rtol=tol(dt), atol=1e-9)
        check(nan_minmax_axis, a, k, rtol=tol(dt))


@pytest.mark.numba_skip(reason="Numba's nan* functions and np.ptp take no axis")
def test_nan_reductions_all_nan_and_errors():
    a = np.full((3, 4), np.nan)
    a[1, 2] = 5.0
    check(nan_all, a)
    check(nan_minmax, a)
    for k in (0, 1):
        check(nan_axis, a, k)
        check(nan_minmax_axis, a, k)
    check(nan_all, np.array([-0.0, np.inf, np.nan, -np.inf]))
    for f in (nan_minmax, nan_all):  # ValueError for empty arrays, as NumPy
        e = check(f, np.zeros(0))
        assert isinstance(e, ValueError)
    with pytest.raises(hpcjit.TypingError):
        nan_all(np.ones(3, dtype=np.bool_))


@hpcjit.njit
def nan_args(a):
    return np.nanargmax(a), np.nanargmin(a)


@pytest.mark.parametrize("dt", [np.int32, np.uint8, np.bool_, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (7,), (6, 33)], ids=str)
def test_nan_argmax_argmin(dt, layout, shape):
    if shape == () and layout != "C":
        pytest.skip("0-d arrays have one layout")
    a = make_array(dt, shape, layout)
    if np.dtype(dt).kind == "f":
        a = _with_nans(a / 8)
    check(nan_args, a)  # empty: ValueError, as NumPy


def test_nan_argmax_argmin_ties_and_all_nan():
    check(nan_args, np.array([np.nan, 2.0, -1.0, 2.0, -1.0, np.nan]))
    check(nan_args, np.array([-np.inf, np.nan, np.inf]))
    e = check(nan_args, np.full(4, np.nan))
    assert isinstance(e, ValueError)


@hpcjit.njit
def nan_cum(a):
    return np.nancumsum(a), np.nancumprod(a)


@hpcjit.njit
def nan_cum_axis(a, k):
    return np.nancumsum(a, axis=k), np.nancumprod(a, k)


@pytest.mark.parametrize("dt", [np.int32, np.uint8, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4, 5)], ids=str)
def test_nan_cumulative(dt, layout, shape):
    if shape == () and layout != "C":
        pytest.skip("0-d arrays have one layout")
    a = make_array(dt, shape, layout)
    if np.dtype(dt).kind == "f":
        a = _with_nans(a / 8)
    check(nan_cum, a, rtol=tol(dt), atol=1e-9)


@pytest.mark.numba_skip(reason="Numba's nancumsum/nancumprod take no axis")
@pytest.mark.parametrize("dt", [np.int64, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_nan_cumulative_axis(dt, layout):
    a = make_array(dt, (3, 4, 5), layout)
    if np.dtype(dt).kind == "f":
        a = _with_nans(a / 8)
    for k in range(-3, 3):
        check(nan_cum_axis, a, k, rtol=1e-10, atol=1e-9)


@hpcjit.njit
def nan_var(a):
    return np.nanvar(a), np.nanstd(a), np.nanvar(a, ddof=1), np.nanstd(a, None, None, None, 2)


@hpcjit.njit
def nan_var_axis(a, k):
    return np.nanvar(a, axis=k), np.nanstd(a, k, ddof=1)


@pytest.mark.parametrize("dt", [np.int32, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2,), (7,), (300,), (3, 4, 5)], ids=str)
def test_nanvar_nanstd(dt, layout, shape):
    if shape == () and layout != "C":
        pytest.skip("0-d arrays have one layout")
    a = make_array(dt, shape, layout)
    if np.dtype(dt).kind == "f":
        a = _with_nans(a)
    if AGAINST_NUMBA and np.dtype(dt).kind == "i" and a.size == 2:
        pytest.skip("Numba gives NaN, NumPy inf, for integers with ddof >= size")
    check(nan_var, a, rtol=tol(dt), atol=1e-9)


@pytest.mark.numba_skip(reason="Numba's nanvar/nanstd take no axis or ddof")
@pytest.mark.parametrize("dt", [np.int64, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_nanvar_nanstd_axis(dt, layout):
    a = make_array(dt, (3, 4, 5), layout)
    if np.dtype(dt).kind == "f":
        a = _with_nans(a)
        a[1, :, 2] = np.nan  # an all-NaN slice along axis 1
    for k in range(-3, 3):
        check(nan_var_axis, a, k, rtol=1e-10, atol=1e-9)


# ---- np.average (the whole array; weights, returned) ----

@hpcjit.njit
def average_all(a, w):
    return np.average(a), np.average(a, weights=w)


@hpcjit.njit
def average_returned(a, w):
    return np.average(a, weights=w, returned=True), np.average(a, returned=True)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(1,), (7,), (6, 5)], ids=str)
def test_average(dt, layout, shape):
    a = make_array(dt, shape, layout)
    w = np.abs(make_array(np.float64, shape, layout)) + 0.5
    check(average_all, a, w, rtol=tol(dt))
    check(average_all, a, np.abs(make_array(np.int64, shape, layout)) + 1, rtol=tol(dt))


@pytest.mark.numba_skip(reason="Numba's np.average takes no returned=")
def test_average_returned():
    a = make_array(np.float64, (4, 3), "F")
    check(average_returned, a, np.abs(a) + 1.0)
    check(average_returned, np.arange(5), np.arange(5))


def test_average_zero_weights():
    e = check(average_all, np.arange(4.0), np.zeros(4))  # ZeroDivisionError, as NumPy
    assert isinstance(e, ZeroDivisionError)


@hpcjit.njit
def r_group_spread(values, begin, end, j):
    """pandas' groupby agg loop: a column of each group's rows ('A' layout;
    contiguous when values has one column)."""
    out = np.empty(len(begin))
    for i in range(len(begin)):
        g = values[begin[i]:end[i], j]
        out[i] = g.max() - g.min()
    return out


@hpcjit.njit
def r_column_reductions(values, j):
    c = values[:, j]
    return c.max(), c.min(), c.prod(), c.all(), c.any(), c.argmax(), np.max(c[::2]), np.min(c[1::3])


@pytest.mark.parametrize("ncols", [1, 3])
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int32])
def test_column_slice_reductions(ncols, dt):
    """min/max over a run-time stride: one loop for stride == itemsize, one
    for the rest, NaN anywhere in either."""
    g = np.random.default_rng(3)
    values = (g.standard_normal((1000, ncols)) * 100).astype(dt)
    begin = np.array([0, 5, 7, 300, 301, 999])
    end = np.array([5, 7, 300, 301, 999, 1000])
    for j in range(ncols):
        check(r_group_spread, values, begin, end, j)
        check(r_column_reductions, values, j)
    if np.dtype(dt).kind == "f":
        for rows in ([3], [6], [0, 500], [998, 999], list(range(300, 1000))):
            v = values.copy()
            v[rows, ncols - 1] = np.nan
            check(r_group_spread, v, begin, end, ncols - 1)
            check(r_column_reductions, v, ncols - 1)
        v = values.copy()
        v[5, 0] = -np.inf
        v[6, 0] = np.inf
        check(r_group_spread, v, begin, end, 0)


@hpcjit.njit
def r_count_nan_windows(values, begin, end):
    """pandas' rolling apply: np.sum(np.isnan(window)) per window."""
    out = np.empty(len(begin), dtype=np.int64)
    for i in range(len(begin)):
        w = values[begin[i]:end[i]]
        out[i] = np.sum(np.isnan(w))
    return out


@hpcjit.njit
def r_expr_folds(a, b):
    return (np.sum(a > 0.5), (a > b).sum(), np.sum(np.isnan(a)), np.prod((a > 0.2) + 1),
            np.max(a * 2.0 - b), np.min(a + b), (a < b).astype(np.int64).sum())


@hpcjit.njit
def r_int_expr_folds(x, y):
    return np.sum(x * y), np.prod(x + 1), np.max(x - y), np.min(x * 3), np.sum(x[::-1] > y)


@hpcjit.njit
def r_broadcast_fold(a, b):
    return np.sum(a[:, None] > b), np.max(a[:, None] - b), np.min(a[:, None] * b)


@hpcjit.njit
def r_empty_min(a):
    return np.min(a * 2.0)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (300,), (3, 4), (2, 3, 5), (1, 6)])
def test_fused_whole_reductions(layout, shape):
    """Order-free whole-array reductions of an array expression fold it in
    one loop without a temporary (flat when contiguous, else a nest)."""
    g = np.random.default_rng(5)
    a = make_array(np.float64, shape, layout, g)
    b = make_array(np.float64, shape, "C", g)
    if a.size > 2:
        a.flat[1] = np.nan
    check(r_expr_folds, a, b)
    x = make_array(np.int64, shape, layout, g) % 7
    y = make_array(np.int64, shape, "F", g) % 5
    check(r_int_expr_folds, x, y)
    check(r_empty_min, a)


def test_fused_whole_reductions_windows_and_broadcast():
    g = np.random.default_rng(6)
    v = g.standard_normal(2000)
    v[g.integers(0, 2000, 50)] = np.nan
    begin = np.maximum(np.arange(2000) - 99, 0)
    end = np.arange(2000) + 1
    check(r_count_nan_windows, v, begin, end)
    check(r_count_nan_windows, v[::2], begin[:1000] // 2, end[:1000] // 2)
    check(r_broadcast_fold, g.standard_normal(5), g.standard_normal(4))
    check(r_broadcast_fold, g.standard_normal(1), g.standard_normal(4))
    check(r_broadcast_fold, np.array([1.0, np.nan, 3.0]), g.standard_normal(2))
