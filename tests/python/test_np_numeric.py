"""NumPy's numerical functions in compiled code (lib/nparray,
lower_nparray_num.c): the windows (bartlett, blackman, hamming, hanning,
kaiser), logspace, geomspace, trapezoid, cross, convolve, correlate,
unwrap and the two-output ufuncs modf and frexp, compared with NumPy
(py_func) over dtypes, layouts and edge cases."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, make_array

# Numba compiles slowly: two layouts in that mode
LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]


@hpcjit.njit
def windows(m):
    return np.bartlett(m), np.blackman(m), np.hamming(m), np.hanning(m)


@hpcjit.njit
def kaiser(m, beta):
    return np.kaiser(m, beta)


def test_windows():
    for m in (0, 1, 2, 5, 12, 51):
        check(windows, m, rtol=1e-10, atol=1e-15)
        for beta in (0.0, 1.0, 5.5, 14.0):
            check(kaiser, m, beta, rtol=1e-10)
    if not AGAINST_NUMBA:  # Numba 0.68 differs for negative sizes
        check(windows, -3)


@hpcjit.njit
def logspace(a, b, n):
    return np.logspace(a, b, n)


@hpcjit.njit
def logspace_kw(a, b):
    return np.logspace(a, b, 5, endpoint=False, base=2.0)


@hpcjit.njit
def geomspace(a, b, n):
    return np.geomspace(a, b, n)


@hpcjit.njit
def geomspace_open(a, b):
    return np.geomspace(a, b, 5, endpoint=False)


def test_spaces():
    for a, b, n in ((0, 3, 4), (1.5, -2.0, 7), (0, 1, 1), (0, 1, 0), (2, 2, 3)):
        check(logspace, a, b, n)
    if not AGAINST_NUMBA:  # endpoint=/base= keywords: beyond Numba 0.68
        check(logspace_kw, 0, 3)
    for a, b, n in ((1, 1000, 4), (-1.0, -8.0, 7), (2.0, 3.0, 1), (1, 0.001, 5), (3.0, 3.0, 2)):
        check(geomspace, a, b, n)
    if not AGAINST_NUMBA:  # endpoint=: beyond Numba 0.68
        check(geomspace_open, 1, 32)
    assert isinstance(check(geomspace, 0.0, 1.0, 3), ValueError)
    assert isinstance(check(logspace, 0.0, 1.0, -1), ValueError)


@hpcjit.njit
def trapezoid(y):
    return np.trapezoid(y)


@hpcjit.njit
def trapezoid_x(y, x):
    return np.trapezoid(y, x)


@hpcjit.njit
def trapezoid_dx(y, d):
    return np.trapezoid(y, dx=d)


@pytest.mark.skipif(not hasattr(np, "trapezoid"), reason="NumPy < 2")
@pytest.mark.numba_skip(reason="Numba 0.68 has np.trapz, not NumPy 2's np.trapezoid")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_trapezoid(layout):
    for dt in (np.int32, np.int64, np.float32, np.float64, np.complex128):
        y = make_array(dt, 9, layout)
        check(trapezoid, y, rtol=1e-6 if dt == np.float32 else 1e-12)
        check(trapezoid_x, y, make_array(np.float64, 9, layout))
        check(trapezoid_x, y, np.arange(9))
        check(trapezoid_dx, y, 0.25, rtol=1e-6 if dt == np.float32 else 1e-12)
    check(trapezoid, np.zeros(0))
    check(trapezoid, np.ones(1))
    assert isinstance(check(trapezoid_x, np.ones(4), np.ones(3)), ValueError)


@hpcjit.njit
def cross(a, b):
    return np.cross(a, b)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cross(layout):
    for dt in (np.int64, np.float64, np.complex128):
        a = make_array(dt, (4, 3), layout)
        b = make_array(dt, (4, 3), layout, np.random.default_rng(5))
        check(cross, a[0], b[0])
        check(cross, a, b)
        check(cross, a, b[1])
        check(cross, a[1], b)
    check(cross, np.arange(3), np.arange(3.0, 6.0))
    check(cross, np.zeros((0, 3)), np.ones(3))
    assert isinstance(check(cross, np.ones(4), np.ones(4)), ValueError)
    assert isinstance(check(cross, np.ones((2, 3)), np.ones((3, 3))), ValueError)


@hpcjit.njit
def conv(a, v):
    return np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, mode="valid")


@hpcjit.njit
def corr(a, v):
    return np.correlate(a, v), np.correlate(a, v, "same"), np.correlate(a, v, mode="full")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_convolve_correlate(layout):
    gen = np.random.default_rng(3)
    for n, m in ((5, 3), (3, 5), (1, 1), (4, 4), (6, 1), (2, 7), (8, 6)):
        for dt in (np.int64, np.float64, np.complex128):
            a = make_array(dt, n, layout, gen)
            v = make_array(dt, m, layout, gen)
            check(conv, a, v)
            check(corr, a, v)
    check(conv, np.arange(4), np.array([0.5, 1.0]))
    assert isinstance(check(conv, np.zeros(0), np.ones(3)), ValueError)
    assert isinstance(check(corr, np.ones(3), np.zeros(0)), ValueError)


@hpcjit.njit
def unwrap(p):
    return np.unwrap(p)


@hpcjit.njit
def unwrap_kw(p, d, per):
    return np.unwrap(p, discont=d, period=per)


def test_unwrap():
    gen = np.random.default_rng(7)
    p = np.cumsum(gen.uniform(-4, 4, 30))
    for layout in LAYOUTS:
        q = make_array(np.float64, 30, layout)
        q[...] = p
        check(unwrap, q)
    if not AGAINST_NUMBA:  # Numba 0.68 unwraps float32 in float64
        check(unwrap, p.astype(np.float32), rtol=1e-6)
    check(unwrap, np.arange(0, 20, 3))
    if not AGAINST_NUMBA:  # Numba 0.68 divides by zero on empty input
        check(unwrap, p[:1])
        check(unwrap, p[:0])
    check(unwrap, np.array([0.0, np.pi, 0.0, -np.pi, np.pi, 2 * np.pi]))
    check(unwrap_kw, p, 4.0, 6.0)
    check(unwrap_kw, p, 1.0, 2 * np.pi)


@hpcjit.njit
def modf_frexp(x):
    return np.modf(x), np.frexp(x)


@pytest.mark.numba_skip(reason="Numba 0.68 does not return modf/frexp's tuple for arrays")
def test_modf_frexp():
    special = np.array([1.5, -2.25, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, 5e-324])
    for layout in LAYOUTS:
        x = make_array(np.float64, (2, 3), layout)
        check(modf_frexp, x)
    check(modf_frexp, special)
    check(modf_frexp, special[:-2].astype(np.float32))
    check(modf_frexp, np.arange(6).reshape(2, 3))
    check(modf_frexp, np.zeros(0))
    if not AGAINST_NUMBA:  # scalars: beyond Numba 0.68
        for x in (-3.75, 7, 0.0, np.inf):
            check(modf_frexp, x)


@hpcjit.njit
def bad_mode(a):
    return np.convolve(a, a, "middle")  # bad-mode


@hpcjit.njit
def bad_modf(a):
    return np.modf(a)  # bad-modf


@pytest.mark.numba_skip(reason="hpcjit's located diagnostics")
def test_typing_errors():
    with pytest.raises(hpcjit.TypingError, match="mode must be one of"):
        bad_mode(np.ones(3))
    with pytest.raises(hpcjit.TypingError, match="not defined for complex"):
        bad_modf(np.ones(3, np.complex128))


@hpcjit.njit
def partition(a, k):
    return np.partition(a, k)


@hpcjit.njit
def argpartition(a, k):
    return np.argpartition(a, k)


@hpcjit.njit
def partition_axis(a, k):
    return np.partition(a, k, axis=-1), np.argpartition(a, k, axis=-1)


def _assert_partitioned(p, src, kths):
    """p is src rearranged along the last axis with each kth in place."""
    np.testing.assert_array_equal(np.sort(p, axis=-1), np.sort(src, axis=-1))
    ref = np.sort(src, axis=-1)
    n = src.shape[-1]
    for k in np.atleast_1d(kths):
        k = k % n
        np.testing.assert_array_equal(p[..., k], ref[..., k])
        assert np.all(p[..., :k] <= p[..., k:k + 1]) and np.all(p[..., k + 1:] >= p[..., k:k + 1])


# NumPy's order around kth is its introselect's: the tests check the
# partition property (as Numba's own tests do), not NumPy's exact result
@pytest.mark.parametrize("layout", LAYOUTS)
def test_partition(layout):
    for dt in (np.int32, np.float64):
        for shape in ((9,), (3, 7)):
            a = make_array(dt, shape, layout)
            for k in (0, 3, -1, (1, 4)):
                _assert_partitioned(partition(a, k), a, k)
                idx = argpartition(a, k)
                assert idx.dtype == np.int64
                _assert_partitioned(np.take_along_axis(a, idx, -1), a, k)
            if not AGAINST_NUMBA:  # axis=: beyond Numba 0.68
                p, i = partition_axis(a, 2)
                _assert_partitioned(p, a, 2)
    a = np.array([3.0, np.nan, 1.0, 2.0])
    assert np.isnan(partition(a, 3)[3])


def test_partition_kth_array():
    # numbagg's nanquantile: np.partition(arr, kth=np.unique(indexes))
    a = make_array(np.float64, 11, "C")
    for k in (np.array([2, 7], dtype=np.int32), np.array([0, 5, -1]), np.array([4])):
        _assert_partitioned(partition(a, k), a, k)
        _assert_partitioned(np.take_along_axis(a, argpartition(a, k), -1), a, k)
    with pytest.raises(ValueError):
        partition(a, np.array([3, 11]))


def test_partition_long_rows():
    # rows longer than a few items (the quickselect's partitioning, not only its
    # small-range sort): repeated values, NaNs, several rows, kth repeated
    rng = np.random.default_rng(7)
    f = rng.integers(0, 20, (4, 301)).astype(np.float64)
    f[rng.random(f.shape) < 0.1] = np.nan
    for a in (f, rng.integers(-5, 5, 1000).astype(np.int32), rng.standard_normal(2000),
              np.full(500, 3.0), np.arange(400.0)[::-1].copy()):
        n = a.shape[-1]
        for k in (0, n // 2, -1, (n // 3, n // 3, n - 2), np.array([n // 4, n // 2, 3 * n // 4, 1])):
            p = partition(a, k)
            if p.dtype.kind == "f":  # NaN sorts last: as +inf for the comparisons
                p, a_ = np.where(np.isnan(p), np.inf, p), np.where(np.isnan(a), np.inf, a)
            else:
                a_ = a
            _assert_partitioned(p, a_, k)
    for k in (9, -10):
        with pytest.raises(ValueError):
            partition(np.ones(9), k)



def test_partition_random_rows_and_patterns():
    # Hoare's partition with median-of-three sentinels: every size around the
    # small-range sort's limit (16), sorted, reversed, organ-pipe, few distinct
    # values, NaNs anywhere, several kth at once; the kth items against
    # np.sort's and the partition property around each
    rng = np.random.default_rng(11)
    cases = []
    for n in (2, 3, 16, 17, 18, 19, 33, 64, 257, 1000):
        cases += [rng.standard_normal(n), np.arange(float(n)), np.arange(float(n))[::-1].copy(),
                  np.concatenate([np.arange(n // 2), np.arange(n - n // 2)[::-1]]).astype(np.float64),
                  rng.integers(0, 3, n).astype(np.float64)]
        x = rng.standard_normal(n)
        x[rng.random(n) < 0.3] = np.nan
        cases.append(x)
        cases.append(rng.integers(-3, 3, n).astype(np.int64))
    for a in cases:
        n = a.shape[0]
        for k in (0, n - 1, n // 2, np.unique(rng.integers(0, n, 4)), np.array([n // 4, n // 4 + 1, n - 1])):
            p = partition(a, k)
            idx = argpartition(a, k)  # the same quickselect on indices
            np.testing.assert_array_equal(np.sort(idx), np.arange(n))  # a permutation
            want = np.sort(a)
            for kk in np.atleast_1d(k):
                np.testing.assert_array_equal(p[kk], want[kk])
                np.testing.assert_array_equal(a[idx[kk]], want[kk])
            for q in (p, a[idx]):
                if q.dtype.kind == "f":
                    q, a_ = np.where(np.isnan(q), np.inf, q), np.where(np.isnan(a), np.inf, a)
                else:
                    a_ = a
                _assert_partitioned(q, a_, k)


@hpcjit.njit
def roots(p):
    return np.roots(p)


def _same_roots(got, exp):
    """The same multiset of roots (LAPACK's order and the last bits differ
    between zgeev and NumPy's dgeev); always complex128, as in Numba."""
    assert got.dtype == np.complex128 and got.shape == exp.shape
    left = list(got)
    for e in exp:
        k = int(np.argmin([abs(g - e) for g in left]))
        assert abs(left[k] - e) <= 1e-8 * max(1.0, abs(e)), (got, exp)
        left.pop(k)


def test_roots():
    for p in ([1, -3, 2], [1.0, 0, 1], [0, 0, 1, -6, 11, -6, 0, 0], [2.5], [0, 0], [1j, 2, 3 - 1j],
              [3.0, -2, 0.5, 4, 1], [1, 0, 0, 0, -1], [0.0]):
        p = np.array(p)
        _same_roots(roots(p), roots.py_func(p))
    _same_roots(roots(np.zeros(0)), np.zeros(0))
    _same_roots(roots(np.arange(6.0)[::-2]), np.roots(np.arange(6.0)[::-2]))


@pytest.mark.numba_skip(reason="hpcjit's allocation counters")
def test_no_leaks():
    p = np.array([1.0, -3, 2, 0])
    before = hpcjit._core.memstats()
    for _ in range(3):
        roots(p)
        modf_frexp(p)
        partition(p, 1)
        argpartition(p, 1)
        conv(p, p[:2])
        cross(np.ones((2, 3)), np.ones(3))
        try:
            geomspace(0.0, 1.0, 3)
        except ValueError:
            pass
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
