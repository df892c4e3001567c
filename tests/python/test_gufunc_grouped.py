"""Gufuncs of the kind numbagg builds (benchmarks/libraries/gufunc_rows.py
times them): grouped NaN-aware reductions over labels whose loop is
`np.ndindex` over the core dimensions with a store per element, and a
moving standard deviation, with target="cpu" and "parallel", on one row and
on many (the parallel loop splits the rows over the pool).  Each result is
compared with the kernel run by CPython row by row, and the grouped ones
with np.bincount too."""
import numpy as np
import pytest

import hpcjit

TARGETS = ["cpu", "parallel"]


def group_nansum(values, labels, out):
    # a store into the group's slot per element, the loop over the core
    # dimensions by np.ndindex (numbagg's grouped reductions are so)
    out[:] = 0
    for ix in np.ndindex(values.shape):
        g = labels[ix]
        v = values[ix]
        if g >= 0 and not np.isnan(v):
            out[g] += v


def group_nanmean(values, labels, out):
    seen = np.zeros(out.shape[0], dtype=np.int64)
    out[:] = 0.0
    for ix in np.ndindex(values.shape):
        g = labels[ix]
        v = values[ix]
        if g >= 0 and not np.isnan(v):
            seen[g] += 1
            out[g] += v
    for g in range(out.shape[0]):
        if seen[g] > 0:
            out[g] = out[g] / seen[g]
        else:
            out[g] = np.nan


def move_std(a, window, min_count, out):
    # running sums over the window, NaNs left out; the sample std once
    # max(min_count, 2) values are in it
    s = 0.0
    s2 = 0.0
    cnt = 0
    need = max(min_count, 2)
    for i in range(a.shape[0]):
        x = a[i]
        if not np.isnan(x):
            s += x
            s2 += x * x
            cnt += 1
        if i >= window:
            old = a[i - window]
            if not np.isnan(old):
                s -= old
                s2 -= old * old
                cnt -= 1
        if cnt >= need:
            out[i] = np.sqrt((s2 - s * s / cnt) / (cnt - 1))
        else:
            out[i] = np.nan


def _walks(rows, n, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((rows, n)).cumsum(axis=-1).astype(dtype)
    a[rng.random(a.shape) < 0.05] = np.nan
    return a


def _bincount_sum(a, labels, k):
    ok = (labels >= 0) & ~np.isnan(a)
    return np.bincount(labels[ok], weights=a[ok], minlength=k)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows", [1, 2, 32, 33])
def test_group_nansum_1d_core(target, rows):
    n, k = 4000, 37
    gu = hpcjit.guvectorize(["void(float64[:], int64[:], float64[:])"], "(n),(n),(z)", nopython=True,
                            target=target)(group_nansum)
    a = _walks(rows, n, rows)
    labels = (np.arange(n) % k).astype(np.int64)
    labels[::11] = -1  # in no group
    out = np.full((rows, k), 123.0)
    gu(a, labels, out)  # labels broadcast over the rows
    for r in range(rows):
        want = np.full(k, 123.0)
        group_nansum(a[r], labels, want)
        np.testing.assert_array_equal(out[r], want)
        np.testing.assert_allclose(out[r], _bincount_sum(a[r], labels, k), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("target", TARGETS)
def test_group_nanmean_1d_core_strided_rows(target):
    n, k, rows = 3001, 365, 32
    gu = hpcjit.guvectorize(["void(float64[:], int64[:], float64[:])"], "(n),(n),(z)", nopython=True,
                            target=target)(group_nanmean)
    big = _walks(2 * rows, 2 * n, 7)
    a = big[::2, ::2][:, :n]  # strided core and outer axes
    labels = (np.arange(n) * 7 % k).astype(np.int64)
    labels[-400:] = 3  # group 3 large, some groups empty below
    labels[labels == 5] = -1
    out = np.empty((rows, k))
    gu(a, labels, out)
    for r in range(rows):
        want = np.empty(k)
        group_nanmean(a[r].copy(), labels, want)
        np.testing.assert_array_equal(out[r], want)
        ok = ~np.isnan(a[r]) & (labels >= 0)
        counts = np.bincount(labels[ok], minlength=k)
        ref = np.where(counts == 0, np.nan, _bincount_sum(a[r], labels, k) / np.maximum(counts, 1))
        np.testing.assert_allclose(out[r], ref, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("target", TARGETS)
def test_group_nansum_2d_core_int32_labels(target):
    # axis=(1, 2) in numbagg: the core is a 2-D block, np.ndindex over it
    rows, m, n, k = 5, 40, 30, 9
    gu = hpcjit.guvectorize(["void(float32[:, :], int32[:, :], float32[:])"], "(m,n),(m,n),(z)", nopython=True,
                            target=target)(group_nansum)
    a = _walks(rows * m, n, 3, np.float32).reshape(rows, m, n)
    labels = (np.arange(m * n).reshape(m, n) % (k + 1) - 1).astype(np.int32)  # -1 .. k-1
    out = np.empty((rows, k), np.float32)
    gu(a, labels, out)
    for r in range(rows):
        want = np.empty(k, np.float32)
        group_nansum(a[r], labels, want)
        np.testing.assert_allclose(out[r], want, rtol=1e-5, atol=1e-3)
        np.testing.assert_allclose(out[r], _bincount_sum(a[r].ravel().astype(np.float64), labels.ravel(), k),
                                   rtol=1e-4, atol=1e-2)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("rows", [1, 32])
def test_move_std(target, rows):
    n, window, min_count = 2000, 20, 3
    gu = hpcjit.guvectorize(["void(float32[:], int64, int64, float32[:])",
                             "void(float64[:], int64, int64, float64[:])"],
                            "(n),(),()->(n)", nopython=True, target=target)(move_std)
    a = _walks(rows, n, 11)
    got = gu(a, window, min_count)
    for r in range(rows):
        want = np.empty(n)
        move_std(a[r], window, min_count, want)
        np.testing.assert_allclose(got[r], want, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(np.isnan(got[r]), np.isnan(want))
    # NumPy's own: the sample std of each full window without NaN
    windows = np.lib.stride_tricks.sliding_window_view(a, window, axis=-1)
    full = ~np.isnan(windows).any(axis=-1)
    ref = np.std(windows, axis=-1, ddof=1)
    np.testing.assert_allclose(got[:, window - 1:][full], ref[full], rtol=1e-6, atol=1e-8)
    # float32 rows take the float32 loop: the sums are float64 there (a
    # Python float's type in compiled code; NumPy 2 keeps them float32 in
    # CPython) but ai * ai is a float32 product, so near CPython's run on
    # the float64 values to float32's precision only
    a32 = a.astype(np.float32)
    got32 = gu(a32, window, min_count)
    assert got32.dtype == np.float32
    want = np.empty(n)
    move_std(a32[-1].astype(np.float64), window, min_count, want)
    np.testing.assert_allclose(got32[-1], want.astype(np.float32), rtol=2e-3, atol=1e-4)


@pytest.mark.parametrize("target", TARGETS)
def test_group_nansum_many_calls_same_result(target):
    # the steady state numbagg_run.py times: the same call again and again
    n, k, rows = 5000, 365, 32
    gu = hpcjit.guvectorize(["void(float64[:], int64[:], float64[:])"], "(n),(n),(z)", nopython=True,
                            target=target)(group_nansum)
    a = _walks(rows, n, 5)
    labels = (np.arange(n) % k).astype(np.int64)
    first = np.empty((rows, k))
    gu(a, labels, first)
    want = np.empty(k)
    group_nansum(a[rows // 2], labels, want)
    np.testing.assert_array_equal(first[rows // 2], want)
    for _ in range(20):
        out = np.empty((rows, k))
        gu(a, labels, out)
        np.testing.assert_array_equal(out, first)
