"""np.random in compiled code: shapes and dtypes as NumPy's, statistical
sanity of each distribution, reproducibility after seed(), permutations,
choice, shuffle, per-thread streams.  hpcjit's generator (xoshiro256**) is
separate from NumPy's MT19937, so values are not compared with NumPy's."""
import threading

import numpy as np
import pytest

import hpcjit
from conftest import make_array


@hpcjit.njit
def r_seed(n):
    np.random.seed(n)


@hpcjit.njit
def r_random():
    return np.random.random()


@hpcjit.njit
def r_random_n(n):
    return np.random.random(n)


@hpcjit.njit
def r_random_shape(n, m):
    return np.random.random_sample((n, m))


@hpcjit.njit
def r_rand(n, m):
    return np.random.rand(n, m)


@hpcjit.njit
def r_rand0():
    return np.random.rand()


@hpcjit.njit
def r_randn(n):
    return np.random.randn(n)


@hpcjit.njit
def r_randint(lo, hi, n):
    return np.random.randint(lo, hi, n)


@hpcjit.njit
def r_randint1(hi):
    return np.random.randint(hi)


@hpcjit.njit
def r_randint_shape(lo, hi):
    return np.random.randint(lo, hi, size=(3, 4))


@hpcjit.njit
def r_uniform(lo, hi, n):
    return np.random.uniform(lo, hi, n)


@hpcjit.njit
def r_uniform0():
    return np.random.uniform()


@hpcjit.njit
def r_normal(mu, sigma, n):
    return np.random.normal(mu, sigma, size=n)


@hpcjit.njit
def r_normal0():
    return np.random.normal()


@hpcjit.njit
def r_exponential(scale, n):
    return np.random.exponential(scale, n)


@hpcjit.njit
def r_exponential0():
    return np.random.exponential()


@hpcjit.njit
def r_mixed(n):
    np.random.seed(n)
    return np.random.random(3), np.random.randint(0, 100, 3), np.random.normal(0.0, 1.0, 3)


def same_kind(got, exp):
    """dtype/shape (or Python type) as NumPy gives them."""
    if isinstance(exp, np.ndarray):
        assert isinstance(got, np.ndarray)
        assert got.dtype == exp.dtype and got.shape == exp.shape
    else:
        assert type(got) is type(exp) or (isinstance(got, float) and isinstance(exp, float)) or \
            (isinstance(got, int) and isinstance(exp, int))


CASES = [
    (r_random, ()), (r_random_n, (5,)), (r_random_n, (0,)), (r_random_shape, (2, 3)),
    (r_rand, (3, 2)), (r_rand0, ()), (r_randn, (4,)), (r_randint, (3, 7, 6)), (r_randint1, (5,)),
    (r_randint_shape, (-2, 2)), (r_uniform, (1.0, 2.0, 3)), (r_uniform0, ()), (r_normal, (0.0, 1.0, 4)),
    (r_normal0, ()), (r_exponential, (2.0, 5)), (r_exponential0, ()),
]


@pytest.mark.parametrize("f,args", CASES)
def test_shapes_and_dtypes(f, args):
    same_kind(f(*args), f.py_func(*args))


def test_reproducible_after_seed():
    for f, args in CASES:
        r_seed(1234)
        x = f(*args)
        r_seed(1234)
        y = f(*args)
        np.testing.assert_array_equal(x, y)
    a, b = r_mixed(7), r_mixed(7)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    c = r_mixed(8)
    assert not np.array_equal(a[0], c[0])


def test_state_separate_from_numpy():
    np.random.seed(5)
    r_seed(5)
    x = r_random_n(4)
    np.random.seed(5)
    y = r_random_n(4)
    np.testing.assert_array_equal(x[:0], y[:0])  # shapes only
    # NumPy's own stream is not touched by compiled draws
    np.random.seed(9)
    e = np.random.random(3)
    np.random.seed(9)
    r_random_n(100)
    np.testing.assert_array_equal(np.random.random(3), e)


N = 400_000


def test_uniform_stats():
    r_seed(1)
    x = r_random_n(N)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.005 and abs(x.var() - 1 / 12) < 0.002
    u = r_uniform(-3.0, 5.0, N)
    assert u.min() >= -3.0 and u.max() < 5.0
    assert abs(u.mean() - 1.0) < 0.03
    assert abs(u.var() - 64 / 12) < 0.05
    # every decile about equally full
    h = np.histogram(x, 10, range=(0, 1))[0]
    assert np.all(np.abs(h - N / 10) < 5 * np.sqrt(N / 10))


def test_normal_stats():
    r_seed(2)
    x = r_normal(3.0, 2.0, N)
    assert abs(x.mean() - 3.0) < 0.02 and abs(x.std() - 2.0) < 0.02
    z = r_randn(N)
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    assert abs(np.mean(np.abs(z) < 1.0) - 0.6827) < 0.005


def test_exponential_stats():
    r_seed(3)
    x = r_exponential(2.5, N)
    assert x.min() >= 0.0
    assert abs(x.mean() - 2.5) < 0.03 and abs(x.std() - 2.5) < 0.05


def test_randint_stats():
    r_seed(4)
    x = r_randint(-3, 4, N)
    assert x.dtype == np.int64 and x.min() == -3 and x.max() == 3
    counts = np.bincount(x + 3)
    assert np.all(np.abs(counts - N / 7) < 5 * np.sqrt(N / 7))
    for _ in range(50):
        assert 0 <= r_randint1(5) < 5
    big = r_randint(-(2**62), 2**62, 1000)
    assert big.min() < -(2**60) and big.max() > 2**60


def test_errors():
    with pytest.raises(ValueError):
        r_randint(5, 5, 3)
    with pytest.raises(ValueError):
        r_randint1(0)
    with pytest.raises(ValueError):
        r_normal(0.0, -1.0, 3)
    with pytest.raises(ValueError):
        r_exponential(-1.0, 3)
    with pytest.raises(ValueError):
        r_random_n(-1)


@hpcjit.njit
def r_choice_int(n, k):
    return np.random.choice(n, k)


@hpcjit.njit
def r_choice_arr(a, k):
    return np.random.choice(a, size=k)


@hpcjit.njit
def r_choice_one(a):
    return np.random.choice(a)


@hpcjit.njit
def r_choice_noreplace(a, k):
    return np.random.choice(a, k, replace=False)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_])
@pytest.mark.parametrize("layout", ["C", "strided", "reversed"])
def test_choice(dt, layout):
    a = make_array(dt, (20,), layout)
    got = r_choice_arr(a, 50)
    same_kind(got, np.random.choice(a, 50))
    assert set(got.tolist()) <= set(a.tolist())
    one = r_choice_one(a)
    assert one in set(a.tolist())
    idx = r_choice_noreplace(np.arange(20), 20)
    assert sorted(idx.tolist()) == list(range(20))
    sub = r_choice_noreplace(a, 7)
    assert sub.shape == (7,) and sub.dtype == a.dtype


def test_choice_int():
    x = r_choice_int(6, 10000)
    assert x.dtype == np.int64 and x.min() == 0 and x.max() == 5
    assert r_choice_int(6, 0).shape == (0,)
    with pytest.raises(ValueError):
        r_choice_int(0, 3)
    with pytest.raises(ValueError):
        r_choice_noreplace(np.arange(3), 4)


@hpcjit.njit
def r_shuffle(a):
    np.random.shuffle(a)


@hpcjit.njit
def r_perm(a):
    return np.random.permutation(a)


@hpcjit.njit
def r_perm_int(n):
    return np.random.permutation(n)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_])
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
@pytest.mark.parametrize("shape", [(0,), (1,), (30,), (6, 4, 3)])
def test_shuffle_permutation(dt, layout, shape):
    a = make_array(dt, shape, layout)
    orig = a.copy()
    p = r_perm(a)
    np.testing.assert_array_equal(a, orig)  # permutation copies
    assert p.dtype == a.dtype and p.shape == a.shape and p.flags.c_contiguous
    r_shuffle(a)
    for x in (a, p):
        if len(shape) == 1:
            np.testing.assert_array_equal(np.sort(x), np.sort(orig))
        else:
            # rows move whole along the first axis
            rows = sorted(map(bytes, (np.ascontiguousarray(r) for r in x)))
            assert rows == sorted(map(bytes, (np.ascontiguousarray(r) for r in orig)))


def test_permutation_int():
    r_seed(11)
    p = r_perm_int(1000)
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(1000))
    assert not np.array_equal(p, np.arange(1000))
    assert r_perm_int(0).shape == (0,)
    r_seed(11)
    np.testing.assert_array_equal(r_perm_int(1000), p)


def test_threads_get_their_own_streams():
    r_seed(99)
    results = {}

    def work(k):
        results[k] = r_random_n(1000)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    vals = [results[k] for k in range(4)] + [r_random_n(1000)]
    for i in range(len(vals)):
        for j in range(i + 1, len(vals)):
            assert not np.array_equal(vals[i], vals[j])
            # independent streams: no strong correlation
            assert abs(np.corrcoef(vals[i], vals[j])[0, 1]) < 0.15


def test_no_leaks():
    import gc
    gc.collect()
    before = hpcjit._core.memstats()
    for f, args in CASES:
        f(*args)
    r_mixed(3)
    a = make_array(np.float64, (6, 4, 3), "F")
    r_shuffle(a)
    r_perm(a)
    r_perm_int(10)
    r_choice_arr(np.arange(5.0), 4)
    r_choice_noreplace(np.arange(5.0), 4)
    r_choice_int(4, 3)
    for bad in (lambda: r_randint(1, 0, 3), lambda: r_choice_noreplace(np.arange(3), 4),
                lambda: r_normal(0.0, -1.0, 2)):
        with pytest.raises(ValueError):
            bad()
    gc.collect()
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
