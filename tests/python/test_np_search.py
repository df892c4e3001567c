"""NumPy sorting and searching in compiled code: sort (np. and method),
argsort, searchsorted, unique, nonzero / 1-argument where, argwhere,
count_nonzero, histogram, bincount, digitize, interp; compared with NumPy
(py_func) across dtypes, layouts and shapes."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, make_array

DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_]
LAYOUTS = ["C", "F", "strided", "reversed"]
SHAPES = [(0,), (1,), (7,), (300,), (3, 4, 5), (2, 0, 3)]


def with_nans(a):
    """Some NaNs (and repeats) in float/complex arrays, written in place."""
    if a.dtype.kind in "fc" and a.size > 2:
        idx = np.unravel_index(np.arange(0, a.size, 3), a.shape)
        a[idx] = np.nan
        if a.dtype.kind == "c":
            a[np.unravel_index(np.arange(1, a.size, 5), a.shape)] = complex(1.0, np.nan)
    return a


@hpcjit.njit
def s_sort(a):
    return np.sort(a)


@hpcjit.njit
def s_sort_flat(a):
    return np.sort(a, axis=None)


@hpcjit.njit
def s_msort(a):
    a.sort()
    return a.sum()


@hpcjit.njit
def s_argsort_stable(a):
    return np.argsort(a, kind="stable")


@hpcjit.njit
def s_argsort_method(a):
    return a.argsort(kind="mergesort")


@hpcjit.njit
def s_argsort(a):
    return np.argsort(a)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort(dt, layout, shape):
    a = with_nans(make_array(dt, shape, layout))
    check(s_sort, a)
    check(s_sort_flat, a)
    check(s_msort, a)
    check(s_argsort_stable, a)
    check(s_argsort_method, a)


@pytest.mark.parametrize("dt", DTYPES)
def test_argsort_default(dt):
    # kind='quicksort' (the default) does not promise an order for equal
    # keys: compare the values it sorts into
    a = with_nans(make_array(dt, (200,), "strided"))
    idx = s_argsort(a)
    assert idx.dtype == np.int64 and idx.shape == a.shape
    np.testing.assert_array_equal(a[idx], np.sort(a))
    assert sorted(idx.tolist()) == list(range(a.size))


def test_sort_specials():
    a = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, np.nan, -1.0])
    check(s_sort, a)
    check(s_argsort_stable, a)
    c = np.array([1 + 1j, np.nan + 0j, 1 - 1j, complex(np.nan, 1), complex(1, np.nan), 0j])
    check(s_sort, c)
    check(s_argsort_stable, c)
    check(s_sort, np.arange(10, dtype=np.uint8)[::-1])


@hpcjit.njit
def s_sort_axis0(a):
    return np.sort(a, axis=0)


@hpcjit.njit
def s_sort_axis(a, k):
    return np.sort(a, axis=k)


@hpcjit.njit
def s_msort_axis(a, k):
    a.sort(axis=k)


@hpcjit.njit
def s_argsort_axis(a, k):
    return np.argsort(a, axis=k, kind="stable")


@hpcjit.njit
def s_argsort_method_axis(a, k):
    return a.argsort(k, kind="mergesort")


@hpcjit.njit
def s_sort_consts(a):
    return (np.sort(a, 0), np.sort(a, axis=1), np.argsort(a, axis=-3, kind="stable"), np.sort(a, -1),
            np.argsort(a, axis=2, kind="stable"))


@pytest.mark.numba_skip(reason="Numba's np.sort/argsort take no axis")
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort_axis(dt, layout, shape):
    a = with_nans(make_array(dt, shape, layout))
    for k in range(-len(shape), len(shape)):
        check(s_sort_axis, a, k)
        check(s_msort_axis, a, k)
        check(s_argsort_axis, a, k)
        check(s_argsort_method_axis, a, k)
    if len(shape) == 3:
        check(s_sort_consts, a)
        check(s_sort_axis0, a)


@pytest.mark.numba_skip(reason="Numba's np.sort/argsort take no axis")
def test_sort_axis_out_of_range():
    a = np.ones((2, 3))
    for f in (s_sort_axis, s_msort_axis, s_argsort_axis):
        for k in (2, -3, 7):
            e = check(f, a, k)
            assert isinstance(e, np.exceptions.AxisError)
            assert str(e) == f"axis {k} is out of bounds for array of dimension 2"


def test_sort_errors():
    with pytest.raises(hpcjit.TypingError):
        s_sort(np.float64(1.0) * np.ones(()))


@hpcjit.njit
def s_search_left(a, v):
    return np.searchsorted(a, v)


@hpcjit.njit
def s_search_right(a, v):
    return np.searchsorted(a, v, side="right")


@hpcjit.njit
def s_search_method(a, v):
    return a.searchsorted(v, "left")


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("vdt", [np.int64, np.float64, np.float32])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_searchsorted(dt, vdt, layout):
    a = np.sort(make_array(dt, (50,), "C"))
    if layout != "C":
        a = make_array(dt, (50,), layout)
        a[...] = np.sort(a)
    v = make_array(vdt, (3, 4, 5), layout)
    for f in (s_search_left, s_search_right, s_search_method):
        check(f, a, v)
        check(f, a, v[0, 0, 0].item())
        check(f, a, make_array(vdt, (0,), "C"))


def test_searchsorted_nan():
    a = np.array([0.0, 1.0, 1.0, 2.0, np.nan, np.nan])
    v = np.array([np.nan, 1.0, -1.0, 3.0, np.inf])
    check(s_search_left, a, v)
    check(s_search_right, a, v)
    check(s_search_left, np.zeros(0), v)


@hpcjit.njit
def s_unique(a):
    return np.unique(a)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (300,), (3, 4, 5)])
def test_unique(dt, layout, shape):
    if shape == () and layout != "C":
        return
    a = with_nans(make_array(dt, shape, layout))
    check(s_unique, a)


@hpcjit.njit
def s_nonzero(a):
    return np.nonzero(a)


@hpcjit.njit
def s_nonzero_method(a):
    return a.nonzero()


@hpcjit.njit
def s_where1(a):
    return np.where(a)


@hpcjit.njit
def s_where_mask(a):
    return np.where(a > 0)


@hpcjit.njit
def s_argwhere(a):
    return np.argwhere(a)


@hpcjit.njit
def s_count_nonzero(a):
    return np.count_nonzero(a)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_nonzero(dt, layout, shape):
    a = with_nans(make_array(dt, shape, layout))
    check(s_nonzero, a)
    check(s_nonzero_method, a)
    check(s_where1, a)
    check(s_argwhere, a)
    check(s_count_nonzero, a)
    if dt != np.complex128:
        check(s_where_mask, a)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (7,), (8,), (9,), (31,), (32,), (33,), (100,), (3, 17), (2, 3, 9),
                                   (4, 0), (0, 4), (5, 1, 16)])
def test_nonzero_sparse(dt, shape):
    """Mostly zeros (the rows are tested 8 items, and counted 32, at a
    time): nonzero items at the first, last and a middle position of the
    flat array and of some rows, none, all."""
    n = int(np.prod(shape))
    gen = np.random.default_rng(n)
    cases = [np.zeros(n), np.ones(n)]
    z = np.zeros(n)
    if n:
        z[[0, n // 2, n - 1]] = 1
    cases.append(z)
    cases.append((gen.random(n) < 0.05).astype(np.float64))
    for c in cases:
        a = c.reshape(shape)
        if np.dtype(dt).kind == "f":
            a = np.where(a != 0, np.nan if n % 2 else -2.5, 0.0)
        a = a.astype(dt)
        check(s_nonzero, a)
        check(s_argwhere, a)
        check(s_count_nonzero, a)
        check(s_nonzero, a.T)


def test_count_nonzero_0d():
    check(s_count_nonzero, np.array(3.0))
    check(s_count_nonzero, np.array(0))


@hpcjit.njit
def s_hist(a):
    return np.histogram(a)


@hpcjit.njit
def s_hist_bins(a, n):
    return np.histogram(a, n)


@hpcjit.njit
def s_hist_range(a, n, lo, hi):
    return np.histogram(a, bins=n, range=(lo, hi))


@hpcjit.njit
def s_hist_edges(a, edges):
    return np.histogram(a, edges)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1,), (7,), (300,), (3, 4, 5)])
def test_histogram(dt, layout, shape):
    a = make_array(dt, shape, layout)
    rt = 1e-5 if dt == np.float32 else 1e-12
    check(s_hist, a, rtol=rt)
    check(s_hist_bins, a, 7, rtol=rt)
    check(s_hist_range, a, 4, -5.0, 5.0, rtol=rt)
    check(s_hist_range, a, 3, 0, 0)
    check(s_hist_edges, a, np.array([-10.0, -2.5, 0.0, 0.5, 3.0, 9.0]))
    check(s_hist_edges, a, np.array([-3, 0, 4]))


def test_histogram_edges_and_errors():
    check(s_hist, np.zeros(0))
    check(s_hist, np.array([1.0, 1.0]))
    check(s_hist_bins, np.linspace(0, 1, 11), 10)
    check(s_hist_bins, np.arange(5.0), 0)                    # ValueError
    check(s_hist_range, np.arange(5.0), 3, 4.0, 1.0)         # ValueError
    check(s_hist_edges, np.arange(5.0), np.array([3.0, 1.0]))  # ValueError
    check(s_hist, np.array([1.0, np.nan]))                   # ValueError


@pytest.mark.parametrize("base,width,nb", [(0.0, 1.0, 1000), (1e6, 1e-3, 997), (-3.3, 3.7, 13),
                                             (7e15, 123.0, 61), (1e-8, 1e-10, 250)])
def test_histogram_values_on_edges(base, width, nb):
    # values exactly on (and just past) the edges: the bin of each is the
    # one NumPy's edges define, however the estimate is computed
    rng = np.random.default_rng(nb)
    a = base + rng.random(600) * width
    edges = np.histogram(a, nb)[1]
    a[:300] = edges[rng.integers(0, nb + 1, 300)]
    a[300:310] = np.nextafter(a[300:310], np.inf)
    a[310:320] = np.nextafter(a[310:320], -np.inf)
    check(s_hist_bins, a, nb, rtol=0.0)
    check(s_hist_range, a, nb, base + 0.1 * width, base + 0.9 * width, rtol=0.0)


@pytest.mark.parametrize("n", [255, 256, 257, 1000, 4099])
def test_histogram_blocks(n):
    # rt_histogram bins blocks of 256 items with vector code and leaves
    # the rest (out of range, NaN, near an edge, the short last block) to
    # the exact path: mix them across block and lane boundaries
    rng = np.random.default_rng(n)
    a = rng.random(n) * 10.0 - 2.0
    a[::7] = np.nan
    a[3::11] = -np.inf
    a[5::13] = 1e300
    a[1::17] = 4.0
    check(s_hist_range, a, 9, -1.0, 6.0, rtol=0.0)
    check(s_hist_range, a, 1, -1.0, 6.0, rtol=0.0)
    check(s_hist_range, a[::-3], 1000, 0.0, 1.0, rtol=0.0)
    b = rng.standard_normal(n)
    check(s_hist_bins, b, 50, rtol=0.0)
    check(s_hist_bins, b[::-2], 7, rtol=0.0)
    check(s_hist_bins, b.astype(np.float32), 33, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("pos", [0, 1, 2, 3, 4, 5, 6, 7, 100, 1022, 1023])
def test_histogram_nan_in_range_scan(pos):
    # the range scan reads 4 items a step: a NaN in any lane is found
    a = np.linspace(-1.0, 1.0, 1024)
    a[pos] = np.nan
    check(s_hist_bins, a, 10)


@hpcjit.njit
def s_bincount(x):
    return np.bincount(x)


@hpcjit.njit
def s_bincount_w(x, w):
    return np.bincount(x, weights=w)


@hpcjit.njit
def s_bincount_ml(x, m):
    return np.bincount(x, minlength=m)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_bincount(dt, layout):
    x = make_array(dt, (40,), layout)
    if x.dtype.kind == "i":
        x[...] = np.abs(x)
    w = make_array(np.float64, (40,), layout)
    check(s_bincount, x)
    check(s_bincount_w, x, w)
    check(s_bincount_w, x, make_array(np.int32, (40,), "C"))
    check(s_bincount_ml, x, 50)
    check(s_bincount_ml, x, 0)
    check(s_bincount, x[:0])
    check(s_bincount_ml, x[:0], 3)


def test_bincount_errors():
    check(s_bincount, np.array([1, -1, 2]))
    check(s_bincount_ml, np.array([1, 2]), -1)
    check(s_bincount_w, np.array([1, 2]), np.ones(3))


@hpcjit.njit
def s_digitize(x, b):
    return np.digitize(x, b)


@hpcjit.njit
def s_digitize_right(x, b):
    return np.digitize(x, b, right=True)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_digitize(dt, layout):
    x = make_array(dt, (3, 4, 5), layout)
    inc = np.array([-5.0, -1.0, 0.0, 0.0, 2.0, 7.0])
    for b in (inc, inc[::-1], inc.astype(np.int64), np.zeros(0)):
        check(s_digitize, x, b)
        check(s_digitize_right, x, b)
        check(s_digitize, x[0, 0, 0].item(), b)
    check(s_digitize, x, np.array([1.0, 0.0, 2.0]))  # not monotonic: ValueError


@hpcjit.njit
def s_interp(x, xp, fp):
    return np.interp(x, xp, fp)


@hpcjit.njit
def s_interp_lr(x, xp, fp, lo, hi):
    return np.interp(x, xp, fp, left=lo, right=hi)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_interp(dt, layout):
    x = make_array(dt, (3, 4, 5), layout)
    xp = np.array([-8.0, -3.0, 0.0, 0.5, 4.0, 6.0])
    fp = make_array(np.float64, (6,), layout)
    check(s_interp, x, xp, fp)
    check(s_interp_lr, x, xp, fp, -100.0, 100)
    check(s_interp, x[0, 0, 0].item(), xp, fp)
    check(s_interp, x, xp[:1], fp[:1])
    check(s_interp, x, xp.astype(np.int32), fp.astype(np.float32), rtol=1e-6)


def test_interp_specials():
    xp = np.array([0.0, 1.0, 2.0])
    fp = np.array([0.0, np.inf, 1.0])
    check(s_interp, np.array([np.nan, 0.5, 1.0, 2.0, -1.0, 3.0]), xp, fp)
    check(s_interp, np.array([0.5]), np.zeros(0), np.zeros(0))  # ValueError
    check(s_interp, np.array([0.5]), xp, np.zeros(2))           # ValueError


def test_no_leaks():
    import gc
    gc.collect()
    before = hpcjit._core.memstats()
    a = make_array(np.float64, (3, 4, 5), "F")
    for f in (s_sort, s_sort_flat, s_msort, s_argsort_stable, s_unique, s_nonzero, s_argwhere,
              s_count_nonzero, s_hist):
        f(a)
    s_hist_edges(a, np.array([0.0, 1.0]))
    s_search_right(np.arange(5.0), a)
    s_digitize(a, np.arange(5.0))
    with pytest.raises(ValueError):
        s_digitize(a, np.array([1.0, 0.0, 2.0]))
    with pytest.raises(ValueError):
        s_bincount(np.array([1, -1]))
    s_bincount_w(np.array([1, 2]), np.ones(2))
    s_interp(a, np.arange(3.0), np.arange(3.0))
    gc.collect()
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@hpcjit.njit
def s_median(a):
    return np.median(a)


@hpcjit.njit
def s_median_axis(a, k):
    return np.median(a, axis=k)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(0,), (1,), (2,), (7,), (300,), (3, 4, 5), (2, 0, 3)])
def test_median(dt, layout, shape):
    a = make_array(dt, shape, layout)
    rtol = 1e-6 if dt == np.float32 else 1e-12
    check(s_median, a, rtol=rtol)


@pytest.mark.numba_skip(reason="Numba's np.median drops NaNs of N-d arrays")
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(0,), (7,), (300,), (3, 4, 5), (2, 0, 3)])
def test_median_nan(dt, layout, shape):
    a = with_nans(make_array(dt, shape, layout))
    check(s_median, a, rtol=1e-6 if dt == np.float32 else 1e-12)


@pytest.mark.numba_skip(reason="Numba's np.median takes no axis")
@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1,), (8,), (3, 4, 5), (2, 0, 3), (4, 1)])
def test_median_axis(dt, layout, shape):
    a = make_array(dt, shape, layout)
    rtol = 1e-6 if dt == np.float32 else 1e-12
    for k in range(-len(shape), len(shape)):
        check(s_median_axis, a, k, rtol=rtol)
    if a.dtype.kind == "f" and a.size > 3:
        a.flat[2] = np.nan
        for k in range(-len(shape), len(shape)):
            check(s_median_axis, a, k, rtol=rtol)
    e = check(s_median_axis, a, len(shape))
    assert isinstance(e, np.exceptions.AxisError)


@hpcjit.njit
def s_nanmedian(a):
    return np.nanmedian(a)


@hpcjit.njit
def s_nanmedian_axis(a, k):
    return np.nanmedian(a, axis=k)


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(0,), (1,), (7,), (300,), (3, 4, 5), (2, 0, 3)])
def test_nanmedian(dt, layout, shape):
    a = with_nans(make_array(dt, shape, layout))
    rtol = 1e-6 if dt == np.float32 else 1e-12
    check(s_nanmedian, a, rtol=rtol)


@pytest.mark.numba_skip(reason="Numba's np.nanmedian takes no axis")
@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(8,), (3, 4, 5), (2, 0, 3)])
def test_nanmedian_axis(dt, layout, shape):
    a = with_nans(make_array(dt, shape, layout))
    if a.dtype.kind == "f" and len(shape) == 3 and a.size:
        a[0, 1, :] = np.nan  # an all-NaN slice gives NaN
    rtol = 1e-6 if dt == np.float32 else 1e-12
    for k in range(-len(shape), len(shape)):
        check(s_nanmedian_axis, a, k, rtol=rtol)


@hpcjit.njit
def s_percentiles(a, q):
    return np.percentile(a, q), np.quantile(a, q / 100), np.nanpercentile(a, q), np.nanquantile(a, q / 100)


@pytest.mark.parametrize("dt", [np.int64, np.int8, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(1,), (2,), (7,), (300,), (3, 4, 5)])
def test_percentile(dt, layout, shape):
    a = make_array(dt, shape, layout)
    rtol = 1e-6 if dt == np.float32 else 1e-12
    for q in (0, 50, 100, 33.3, 12.5, 99.9, 75):
        check(s_percentiles, a, q, rtol=rtol)
    check(s_percentiles, a, np.array([0.0, 25.0, 62.5, 100.0]), rtol=rtol)
    if not AGAINST_NUMBA:  # Numba flattens an N-d q
        check(s_percentiles, a, np.array([[10, 20], [30, 99]]), rtol=rtol)


@hpcjit.njit
def s_percentile_seqs(a, q):
    qs = [0.25]
    qs.append(0.75)
    return (np.quantile(a, [0.1, 0.5]), np.percentile(a, (10, 50.5, 90)), np.nanpercentile(a, q),
            np.nanquantile(a, qs))


def test_percentile_of_lists_and_tuples():
    """q as a list display, a tuple, a list argument and a list built in the
    function: np.asarray(q), as NumPy and Numba."""
    for a in (make_array(np.float64, (30,), "C"), with_nans(make_array(np.float64, (12,), "strided"))):
        check(s_percentile_seqs, a, [5.0, 95.0])


@pytest.mark.numba_skip(reason="NumPy's NaN, empty and range rules")
def test_percentile_nan_and_errors():
    a = with_nans(make_array(np.float64, (20,), "strided"))
    for q in (0, 40, 100):
        check(s_percentiles, a, q)
    check(s_percentiles, np.full(4, np.nan), 50.0)
    for bad in (-1.0, 100.5, np.nan):
        e = check(s_percentiles, np.arange(5.0), bad)
        assert isinstance(e, ValueError) and "must be in the range" in str(e)
    e = check(s_percentiles, np.arange(5.0), np.array([50.0, 101.0]))
    assert isinstance(e, ValueError)
    e = check(s_percentiles, np.zeros(0), 50.0)
    assert isinstance(e, IndexError)
    with pytest.raises(hpcjit.TypingError):
        s_percentiles(np.ones(3, dtype=np.bool_), 5.0)


# ---- array-like arguments given as lists or tuples ---------------------------------
# NumPy converts them with np.asarray; so do Numba and hpcjit.

@hpcjit.njit
def array_likes(a):
    return (np.searchsorted(a, [1.5, 3.5], side="right"), np.searchsorted(a, (0.5,)),
            np.searchsorted([1.0, 2.0, 3.0], a), np.digitize([0.2, 2.2], a), np.interp([0.5, 2.5], a, a * 2.0),
            np.append(a, [1.0, 2.0]), np.append([7.0, 8.0], a), np.append(a, (3, 4)))


def test_list_and_tuple_operands_are_array_likes():
    a = np.arange(5.0)
    got, want = array_likes(a), array_likes.py_func(a)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w), (g, w)
