"""Optimisations of the code generator that must not change results:
float reductions vectorized in source order (bit-for-bit the scalar loop's
sums, whatever the trip count, dtype or layout), and loops over arrays that
overlap in memory.  Every compiled function is compared with its py_func
with ==, not a tolerance."""
import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from hpcjit import njit  # noqa: E402


@njit
def sq_dist(x, y):
    d = 0.0
    for t in range(x.shape[0]):
        diff = x[t] - y[t]
        d += diff * diff
    return d


@njit
def pairwise(X):
    m, k = X.shape
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            d = 0.0
            for t in range(k):
                diff = X[i, t] - X[j, t]
                d += diff * diff
            D[i, j] = np.sqrt(d)
    return D


@njit
def weighted_sum(a, w):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * w[i] + 1.0
    return s


@njit
def sum_minus(a):
    # a subtraction chain is a reduction too
    s = 1e300
    for i in range(a.shape[0]):
        s -= a[i] * 3.0
    return s


@njit
def sum_f32(a):
    s = np.float32(0.0)
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    return s


def _badly_scaled(n, seed, dtype=np.float64):
    # magnitudes from 1e-8 to 1e8: any reordering of the sum shows
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(dtype)


@pytest.mark.parametrize("n", [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 100, 1001])
def test_ordered_sq_dist(n):
    x, y = _badly_scaled(n, 1), _badly_scaled(n, 2)
    assert sq_dist(x, y) == sq_dist.py_func(x, y)


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (20, 16), (33, 17), (40, 100)])
def test_ordered_pairwise(shape):
    X = _badly_scaled(shape[0] * shape[1], 3).reshape(shape)
    np.testing.assert_array_equal(pairwise(X), pairwise.py_func(X))
    F = np.asfortranarray(X)
    np.testing.assert_array_equal(pairwise(F), pairwise.py_func(F))


@pytest.mark.parametrize("n", [0, 2, 13, 64, 257])
def test_ordered_strided_and_reversed(n):
    a, w = _badly_scaled(3 * n, 4), _badly_scaled(3 * n, 5)
    for va, vw in [(a[::3], w[::3]), (a[::-1][:n], w[n:2 * n]), (a[:n], a[:n])]:
        assert weighted_sum(va, vw) == weighted_sum.py_func(va, vw)
        assert sum_minus(va) == sum_minus.py_func(va)


@pytest.mark.parametrize("n", [0, 5, 16, 100, 1000])
def test_ordered_float32(n):
    a = _badly_scaled(n, 6, np.float32)
    r, e = sum_f32(a), sum_f32.py_func(a)
    assert np.float32(r) == np.float32(e) or (np.isnan(r) and np.isnan(e))


@njit
def shift_add(dst, src):
    # dst and src may be views of one buffer: every write must be seen by
    # the later reads through the other view
    for i in range(dst.shape[0]):
        dst[i] += src[i] * 0.5
    return dst


@njit
def smooth_inplace(a, b):
    s = 0.0
    for i in range(1, a.shape[0] - 1):
        a[i] = (b[i - 1] + b[i] + b[i + 1]) / 3.0
        s += a[i]
    return s


@pytest.mark.parametrize("off", [-3, -1, 0, 1, 2, 8, 17])
def test_overlapping_views(off):
    base = np.arange(200, dtype=np.float64) * 0.25
    n = 150
    lo, hi = max(0, off), max(0, -off)
    for f, args in [(shift_add, lambda b: (b[lo:lo + n], b[hi:hi + n])),
                    (smooth_inplace, lambda b: (b[lo:lo + n], b[hi:hi + n]))]:
        b1, b2 = base.copy(), base.copy()
        r1, r2 = f(*args(b1)), f.py_func(*args(b2))
        np.testing.assert_array_equal(np.asarray(r1), np.asarray(r2))
        np.testing.assert_array_equal(b1, b2)


def test_overlapping_2d_views():
    @njit
    def rows_inplace(x, y):
        for i in range(x.shape[0]):
            for j in range(x.shape[1]):
                x[i, j] = y[i, j] + y[i, x.shape[1] - 1 - j]
        return x

    base = np.arange(60, dtype=np.float64).reshape(6, 10)
    for views in [lambda b: (b[1:], b[:-1]), lambda b: (b[:, 1:], b[:, :-1]),
                  lambda b: (b, b), lambda b: (b[:, ::2], b[:, 1::2]), lambda b: (b.T, b.T[::-1])]:
        b1, b2 = base.copy(), base.copy()
        np.testing.assert_array_equal(rows_inplace(*views(b1)), rows_inplace.py_func(*views(b2)))
        np.testing.assert_array_equal(b1, b2)


@njit
def blur_f(a):
    m, n = a.shape
    out = np.zeros_like(a)
    for j in range(1, n - 1):
        for i in range(1, m - 1):
            s = 0.0
            for dj in range(-1, 2):
                for di in range(-1, 2):
                    s += a[i + di, j + dj]
            out[i, j] = s / 9.0
    return out


@njit
def fill_empty(n, v):
    a = np.empty(n)
    a[:] = v
    return a


@njit
def zeros(n):
    return np.zeros(n)


@pytest.mark.parametrize("n", [10, 600, 1100])
def test_large_arrays_aligned_and_zeroed(n):
    # large arrays (>= 4 MiB) come from mappings whose data starts part way
    # into a page; they stay 64-byte aligned and zeroed on reuse
    a = np.asfortranarray(np.random.default_rng(7).random((n, n)))
    for _ in range(3):
        r = blur_f(a)
        assert r.ctypes.data % 64 == 0
        np.testing.assert_array_equal(r, blur_f.py_func(a))
    for _ in range(3):
        del r
        r = fill_empty(n * n, 3.5)
        assert r.ctypes.data % 64 == 0 and (r == 3.5).all()
        del r
        r = zeros(n * n)
        assert r.ctypes.data % 64 == 0 and not r.any()


@njit
def temporaries(x, rounds):
    # medium temporaries (128 KiB .. 4 MiB) made and freed in a loop, as in
    # NPBench stockham_fft: their blocks come back from the runtime's cache
    y = x.copy()
    for r in range(rounds):
        t = np.exp(-1j * y) * (r + 1.0)
        y = (t + y.conj()) * 0.5
    return y


@njit
def many_live(n, k):
    # more live medium blocks than the cache keeps: freeing them evicts
    arrs = [np.full(n, float(i)) for i in range(k)]
    s = 0.0
    for a in arrs:
        s += a.sum()
    return s


@pytest.mark.parametrize("n", [16400, 65536, 300000])
def test_medium_arrays_reused_and_zeroed(n):
    x = np.random.default_rng(3).random(n) + 0.5j
    for _ in range(2):
        np.testing.assert_allclose(temporaries(x, 6), temporaries.py_func(x, 6), rtol=1e-12)
        assert many_live(n, 20) == many_live.py_func(n, 20)
    for _ in range(3):
        r = fill_empty(n, 3.5)
        assert (r == 3.5).all()
        del r
        r = zeros(n)
        assert not r.any()


@njit
def sum_positive(a, s0):
    # a predicated reduction: masked lanes must add nothing (not even +0.0
    # to a -0.0 start)
    s = s0
    for i in range(a.shape[0]):
        if a[i] > 0.0:
            s += a[i] * 2.0
    return s


@njit
def cumsum_into(a, out):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * 0.5
        out[i] = s
    return s


@pytest.mark.parametrize("n", [0, 1, 9, 40, 333])
def test_ordered_predicated_and_scanned(n):
    a = _badly_scaled(n, 8)
    for s0 in (-0.0, 0.0, 1e-300, np.nan):
        r, e = sum_positive(a, s0), sum_positive.py_func(a, s0)
        assert (np.isnan(r) and np.isnan(e)) or (r == e and np.signbit(r) == np.signbit(e))
    neg = -np.abs(a)
    r = sum_positive(neg, -0.0)
    assert r == 0.0 and np.signbit(r)
    o1, o2 = np.empty(n), np.empty(n)
    assert cumsum_into(a, o1) == cumsum_into.py_func(a, o2)
    np.testing.assert_array_equal(o1, o2)
    b = a.copy()
    b[n // 2:] = np.inf
    r, e = sq_dist(b, a), sq_dist.py_func(b, a)
    assert r == e or (np.isnan(r) and np.isnan(e))


@njit
def step_sum(a, start, step):
    # a run-time step: the loop carries a vector-width hint unless it
    # assigns floats (the hint would licence a reordered sum)
    s = 0.0
    for j in range(start, a.shape[0], step):
        s += a[j]
    return s


@njit
def step_sum_into(a, out, step):
    for j in range(0, a.shape[0], step):
        out[0] += a[j] * 0.5
    return out[0]


@njit
def step_sum_complex(a, step):
    z = 0j
    for j in range(0, a.shape[0], step):
        z += complex(a[j], -a[j])
    return z


@njit
def step_sum_tuple(a, step):
    acc = (0.0, 0)
    for j in range(0, a.shape[0], step):
        acc = (acc[0] + a[j], acc[1] + 1)
    return acc


@njit
def step_count_ints(a, step):
    # integer reductions may still be reassociated (and vectorized)
    c = 0
    for j in range(0, a.shape[0], step):
        c += a[j]
    return c


@pytest.mark.parametrize("step", [1, 2, 3, 7, 64])
def test_runtime_step_reductions_in_order(step):
    a = _badly_scaled(5000, 9)
    for start in (0, 1, 5):
        assert step_sum(a, start, step) == step_sum.py_func(a, start, step)
    o1, o2 = np.zeros(1), np.zeros(1)
    assert step_sum_into(a, o1, step) == step_sum_into.py_func(a, o2, step)
    assert step_sum_complex(a, step) == step_sum_complex.py_func(a, step)
    assert step_sum_tuple(a, step) == step_sum_tuple.py_func(a, step)
    ia = np.arange(5000, dtype=np.int64) * 7919 - 10**6
    assert step_count_ints(ia, step) == step_count_ints.py_func(ia, step)
