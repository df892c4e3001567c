"""np.random in compiled code: shapes and dtypes as NumPy's, statistical
sanity of each distribution, reproducibility after seed(), permutations,
choice, shuffle, per-thread streams.  Each distribution's sample is compared
with one of NumPy's Generator by a two-sample Kolmogorov-Smirnov distance;
the seeded draws (test_seeded_*, at the end) are Numba's: np.random's
MT19937 seeded as RandomState.seed(int), so they equal NumPy's legacy draws
where Numba's do, and CPython's algorithms where Numba takes those.  The
methods of a numpy.random.Generator argument draw from its own bit
generator and must give NumPy's values exactly (test_generator_*)."""
import math
import threading

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, make_array


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
        # compiled code returns Python scalars where NumPy may return NumPy's
        assert type(got) is type(exp) or (isinstance(got, float) and isinstance(exp, (float, np.floating))) or \
            (isinstance(got, int) and isinstance(exp, (int, np.integer)))


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


@pytest.mark.numba_skip("Numba's randint overflows on a range wider than int64")
def test_randint_wide():
    big = r_randint(-(2**62), 2**62, 1000)
    assert big.min() < -(2**60) and big.max() > 2**60


@pytest.mark.numba_skip("Numba does not check normal's and exponential's scale")
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


@pytest.mark.numba_skip("hpcjit's allocation counters")
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


# ---- the distributions ------------------------------------------------------
# one compiled function per distribution: its parameters, then size

@hpcjit.njit
def d_beta(a, b, size):
    return np.random.beta(a, b, size)


@hpcjit.njit
def d_binomial(n, p, size):
    return np.random.binomial(n, p, size)


@hpcjit.njit
def d_chisquare(df, size):
    return np.random.chisquare(df, size)


@hpcjit.njit
def d_exponential(scale, size):
    return np.random.exponential(scale, size)


@hpcjit.njit
def d_f(dfnum, dfden, size):
    return np.random.f(dfnum, dfden, size)


@hpcjit.njit
def d_gamma(shape, scale, size):
    return np.random.gamma(shape, scale, size)


@hpcjit.njit
def d_geometric(p, size):
    return np.random.geometric(p, size)


@hpcjit.njit
def d_gumbel(loc, scale, size):
    return np.random.gumbel(loc, scale, size)


@hpcjit.njit
def d_hypergeometric(ngood, nbad, nsample, size):
    return np.random.hypergeometric(ngood, nbad, nsample, size)


@hpcjit.njit
def d_laplace(loc, scale, size):
    return np.random.laplace(loc, scale, size)


@hpcjit.njit
def d_logistic(loc, scale, size):
    return np.random.logistic(loc, scale, size)


@hpcjit.njit
def d_lognormal(mean, sigma, size):
    return np.random.lognormal(mean, sigma, size)


@hpcjit.njit
def d_logseries(p, size):
    return np.random.logseries(p, size)


@hpcjit.njit
def d_negative_binomial(n, p, size):
    return np.random.negative_binomial(n, p, size)


@hpcjit.njit
def d_noncentral_chisquare(df, nonc, size):
    return np.random.noncentral_chisquare(df, nonc, size)


@hpcjit.njit
def d_normal(loc, scale, size):
    return np.random.normal(loc, scale, size)


@hpcjit.njit
def d_pareto(a, size):
    return np.random.pareto(a, size)


@hpcjit.njit
def d_poisson(lam, size):
    return np.random.poisson(lam, size)


@hpcjit.njit
def d_power(a, size):
    return np.random.power(a, size)


@hpcjit.njit
def d_rayleigh(scale, size):
    return np.random.rayleigh(scale, size)


@hpcjit.njit
def d_standard_cauchy(size):
    return np.random.standard_cauchy(size)


@hpcjit.njit
def d_standard_exponential(size):
    return np.random.standard_exponential(size)


@hpcjit.njit
def d_standard_gamma(shape, size):
    return np.random.standard_gamma(shape, size)


@hpcjit.njit
def d_standard_normal(size):
    return np.random.standard_normal(size)


@hpcjit.njit
def d_standard_t(df, size):
    return np.random.standard_t(df, size)


@hpcjit.njit
def d_triangular(left, mode, right, size):
    return np.random.triangular(left, mode, right, size)


@hpcjit.njit
def d_uniform(low, high, size):
    return np.random.uniform(low, high, size)


@hpcjit.njit
def d_vonmises(mu, kappa, size):
    return np.random.vonmises(mu, kappa, size)


@hpcjit.njit
def d_wald(mean, scale, size):
    return np.random.wald(mean, scale, size)


@hpcjit.njit
def d_weibull(a, size):
    return np.random.weibull(a, size)


@hpcjit.njit
def d_zipf(a, size):
    return np.random.zipf(a, size)


@hpcjit.njit
def d_ranf(size):
    return np.random.ranf(size)


# (function, parameters): several parameter sets where the algorithm
# changes with them (gamma < 1 / >= 1, binomial's inversion / BTPE,
# Poisson's multiplication / PTRS, hypergeometric's HIN / H2PE...)
DISTS = [
    (d_beta, (0.5, 0.5)), (d_beta, (2.0, 5.0)),
    (d_binomial, (10, 0.3)), (d_binomial, (1000, 0.6)), (d_binomial, (5, 0.0)),
    (d_chisquare, (3.0,)),
    (d_exponential, (2.5,)),
    (d_f, (5.0, 7.0)),
    (d_gamma, (0.4, 2.0)), (d_gamma, (3.0, 0.5)),
    (d_geometric, (0.2,)), (d_geometric, (1.0,)),
    (d_gumbel, (1.0, 2.0)),
    (d_hypergeometric, (10, 15, 8)), (d_hypergeometric, (500, 400, 300)),
    (d_laplace, (-1.0, 0.5)),
    (d_logistic, (2.0, 3.0)),
    (d_lognormal, (0.5, 0.8)),
    (d_logseries, (0.6,)), (d_logseries, (0.99,)),
    (d_negative_binomial, (5.0, 0.4)), (d_negative_binomial, (0.5, 0.9)),
    (d_noncentral_chisquare, (3.0, 2.0)), (d_noncentral_chisquare, (0.5, 1.5)),
    (d_normal, (3.0, 2.0)),
    (d_pareto, (3.0,)),
    (d_poisson, (4.0,)), (d_poisson, (250.0,)), (d_poisson, (0.0,)),
    (d_power, (2.5,)),
    (d_rayleigh, (1.5,)),
    (d_standard_cauchy, ()),
    (d_standard_exponential, ()),
    (d_standard_gamma, (0.7,)), (d_standard_gamma, (9.0,)),
    (d_standard_normal, ()),
    (d_standard_t, (4.0,)),
    (d_triangular, (-1.0, 0.5, 3.0)),
    (d_uniform, (-2.0, 5.0)),
    (d_vonmises, (1.0, 3.0)), (d_vonmises, (0.0, 1e-9)),
    (d_wald, (2.0, 1.5)),
    (d_weibull, (1.7,)),
    (d_zipf, (2.5,)),
    (d_ranf, ()),
]


def dist_id(case):
    f, args = case
    return f.__name__[2:] + str(args)


# where Numba 0.68 differs (the Numba mode of the suite skips these)
NUMBA_DIFFERS = {
    "negative_binomial": "Numba's np.random.negative_binomial takes no size",
    "vonmises": "Numba's np.random.vonmises draws in [0, 2pi) (CPython's vonmisesvariate), NumPy's in [-pi, pi]",
}


def numba_marked(cases, unchecked=()):
    """cases as pytest parameters, those where Numba differs marked."""
    out = []
    for case in cases:
        name = case[0].__name__[2:]
        reason = NUMBA_DIFFERS.get(name) or ("Numba does not check this parameter" if case in unchecked else None)
        out.append(pytest.param(case, marks=pytest.mark.numba_skip(reason)) if reason else case)
    return out


def numpy_name(f):
    return "random" if f is d_ranf else f.__name__[2:]


def ks_distance(x, y):
    """The two-sample Kolmogorov-Smirnov statistic (ties handled exactly)."""
    x, y = np.sort(x), np.sort(y)
    v = np.concatenate([x, y])
    return np.max(np.abs(np.searchsorted(x, v, "right") / len(x) - np.searchsorted(y, v, "right") / len(y)))


@pytest.mark.parametrize("case", numba_marked(DISTS), ids=dist_id)
def test_distribution_matches_numpy(case):
    f, args = case
    r_seed(2024)
    n = 100_000
    x = f(*args, n)
    ref = getattr(np.random.default_rng(7), numpy_name(f))(*args, size=n)
    assert x.shape == (n,) and x.dtype == ref.dtype
    if f is d_vonmises:  # np.random's (as Numba's) in [0, 2pi), Generator's in [-pi, pi]
        x, ref = np.mod(x, 2 * math.pi), np.mod(ref, 2 * math.pi)
    # the distance two samples of the same law exceed with probability ~1e-6
    assert ks_distance(x, ref) < 1.63 * math.sqrt(2 / n) * 1.3
    if np.all(np.isfinite(ref)) and f not in (d_standard_cauchy, d_pareto, d_zipf, d_standard_t, d_logseries):
        # same mean within 6 standard errors
        assert abs(x.mean() - ref.mean()) <= 6 * math.sqrt((x.var() + ref.var()) / n) + 1e-12


@pytest.mark.parametrize("case", numba_marked(DISTS), ids=dist_id)
def test_distribution_size_forms(case):
    """size=None gives a scalar of NumPy's kind, an int a 1-D array, a tuple
    its shape; seeding makes the draws repeat."""
    f, args = case
    for size in (None, 3, (2, 3), (0,)):
        got, exp = f(*args, size), f.py_func(*args, size)
        same_kind(got, exp)
    r_seed(5)
    a = f(*args, (4, 5))
    r_seed(5)
    np.testing.assert_array_equal(f(*args, (4, 5)), a)


@hpcjit.njit
def d_defaults():
    # every optional parameter left out
    return (np.random.exponential(), np.random.gamma(2.0), np.random.gumbel(), np.random.laplace(),
            np.random.logistic(), np.random.lognormal(), np.random.normal(), np.random.poisson(),
            np.random.rayleigh(), np.random.uniform(), np.random.standard_normal(),
            np.random.standard_cauchy(), np.random.standard_exponential())


@hpcjit.njit
def d_keywords(n):
    return (np.random.gamma(shape=2.0, scale=3.0, size=n), np.random.binomial(n=10, p=0.5, size=(n, 2)),
            np.random.triangular(left=0.0, mode=1.0, right=2.0), np.random.hypergeometric(5, 5, nsample=3))


@pytest.mark.numba_skip("Numba's np.random takes some of these only positionally")
def test_defaults_and_keywords():
    same_kind(d_defaults(), d_defaults.py_func())
    got, exp = d_keywords(4), d_keywords.py_func(4)
    for g, e in zip(got, exp):
        same_kind(g, e)


# NumPy's checks of the parameters, with its messages
BAD = [
    (d_beta, (0.0, 1.0)), (d_beta, (1.0, -1.0)), (d_binomial, (-1, 0.5)), (d_binomial, (5, 1.5)),
    (d_binomial, (5, math.nan)), (d_chisquare, (0.0,)), (d_exponential, (-1.0,)), (d_f, (0.0, 1.0)),
    (d_f, (1.0, 0.0)), (d_gamma, (-1.0, 1.0)), (d_gamma, (1.0, -1.0)), (d_geometric, (0.0,)),
    (d_geometric, (1.5,)), (d_gumbel, (0.0, -1.0)), (d_hypergeometric, (1, 1, 5)),
    (d_hypergeometric, (1, 1, 0)), (d_laplace, (0.0, -1.0)), (d_logistic, (0.0, -1.0)),
    (d_lognormal, (0.0, -1.0)), (d_logseries, (1.0,)), (d_logseries, (math.nan,)),
    (d_negative_binomial, (0.0, 0.5)), (d_negative_binomial, (1.0, 1.5)),
    (d_noncentral_chisquare, (0.0, 1.0)), (d_noncentral_chisquare, (1.0, -1.0)), (d_normal, (0.0, -1.0)),
    (d_pareto, (0.0,)), (d_poisson, (-1.0,)), (d_poisson, (1e20,)), (d_power, (-1.0,)),
    (d_rayleigh, (-1.0,)), (d_standard_gamma, (-1.0,)), (d_standard_t, (0.0,)),
    (d_triangular, (2.0, 1.0, 3.0)), (d_triangular, (1.0, 3.0, 2.0)), (d_triangular, (1.0, 1.0, 1.0)),
    (d_uniform, (0.0, math.inf)), (d_vonmises, (0.0, -1.0)), (d_wald, (0.0, 1.0)), (d_wald, (1.0, 0.0)),
    (d_weibull, (-1.0,)), (d_zipf, (1.0,)), (d_zipf, (math.nan,)),
]


# those Numba lets through (or raises another error for, or loops on: zipf(nan))
NUMBA_UNCHECKED = [
    (d_exponential, (-1.0,)), (d_gumbel, (0.0, -1.0)), (d_hypergeometric, (1, 1, 5)), (d_hypergeometric, (1, 1, 0)),
    (d_laplace, (0.0, -1.0)), (d_logistic, (0.0, -1.0)), (d_lognormal, (0.0, -1.0)), (d_logseries, (1.0,)),
    (d_normal, (0.0, -1.0)), (d_pareto, (0.0,)), (d_poisson, (1e20,)), (d_triangular, (2.0, 1.0, 3.0)),
    (d_triangular, (1.0, 3.0, 2.0)), (d_triangular, (1.0, 1.0, 1.0)), (d_uniform, (0.0, math.inf)),
    (d_vonmises, (0.0, -1.0)), (d_weibull, (-1.0,)),
]


def _unchecked_by_numba():
    nan_cases = [c for c in BAD if any(isinstance(a, float) and not math.isfinite(a) for a in c[1])
                 and c[0] is not d_binomial]
    return NUMBA_UNCHECKED + nan_cases


@pytest.mark.parametrize("case", numba_marked(BAD, _unchecked_by_numba()), ids=dist_id)
@pytest.mark.parametrize("size", [None, 3])
def test_distribution_errors(case, size):
    f, args = case
    with pytest.raises((ValueError, OverflowError)) as exp:
        f.py_func(*args, size)
    with pytest.raises(exp.type) as got:
        f(*args, size)
    if not AGAINST_NUMBA:  # Numba words some of them its own way
        assert str(got.value) == str(exp.value)


@hpcjit.njit
def d_dirichlet(alpha, size):
    return np.random.dirichlet(alpha, size)


@hpcjit.njit
def d_dirichlet1(alpha):
    return np.random.dirichlet(alpha)


@hpcjit.njit
def d_multinomial(n, pvals, size):
    return np.random.multinomial(n, pvals, size)


@hpcjit.njit
def d_multinomial1(n, pvals):
    return np.random.multinomial(n, pvals)


def test_dirichlet():
    alpha = np.array([0.5, 2.0, 3.5])
    for size in (None, 4, (2, 3)):
        same_kind(d_dirichlet(alpha, size), d_dirichlet.py_func(alpha, size))
    same_kind(d_dirichlet1(alpha), d_dirichlet1.py_func(alpha))
    r_seed(3)
    x = d_dirichlet(alpha, 200_000)
    np.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.mean(axis=0), alpha / alpha.sum(), atol=3e-3)
    # integer alphas are read as floats; a strided vector too
    same_kind(d_dirichlet(np.array([1, 2]), 3), d_dirichlet.py_func(np.array([1, 2]), 3))
    assert d_dirichlet(np.array([1.0, 9.0, 1.0, 9.0])[::2], 2).shape == (2, 2)
    with pytest.raises(ValueError):
        d_dirichlet(np.array([1.0, 0.0]), 2)


def test_multinomial():
    p = np.array([0.2, 0.3, 0.5])
    for size in (None, 4, (2, 3)):
        same_kind(d_multinomial(10, p, size), d_multinomial.py_func(10, p, size))
    same_kind(d_multinomial1(10, p), d_multinomial1.py_func(10, p))
    r_seed(4)
    x = d_multinomial(20, p, 100_000)
    assert np.all(x.sum(axis=1) == 20) and x.min() >= 0
    np.testing.assert_allclose(x.mean(axis=0), 20 * p, atol=0.05)
    for bad in ((-1, p), (5, np.array([0.7, 0.6, 0.1])), (5, np.array([0.5, -0.1, 0.6]))):
        with pytest.raises(ValueError):
            d_multinomial(*bad, 2)


@pytest.mark.numba_skip("hpcjit's allocation counters")
def test_distributions_no_leaks():
    import gc
    gc.collect()
    before = hpcjit._core.memstats()
    for f, args in DISTS:
        f(*args, (2, 2))
        f(*args, None)
    d_dirichlet(np.array([1.0, 2.0]), 3)
    d_multinomial(4, np.array([0.5, 0.5]), 3)
    for f, args in BAD[:6]:
        with pytest.raises(ValueError):
            f(*args, 3)
    with pytest.raises(ValueError):
        d_dirichlet(np.array([1.0, 0.0]), 2)
    gc.collect()
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]


# ---- numpy.random.Generator arguments -----------------------------------------
# compiled code draws from the Generator's own bit generator with NumPy's
# algorithms: the same values as the Generator's methods, and the
# Generator's state moves on as if NumPy had drawn them

@hpcjit.njit
def g_random(rng, size):
    return rng.random(size)


@hpcjit.njit
def g_uniform(rng, low, high, size):
    return rng.uniform(low, high, size)


@hpcjit.njit
def g_normal(rng, loc, scale, size):
    return rng.normal(loc, scale, size)


@hpcjit.njit
def g_standard_normal(rng, size):
    return rng.standard_normal(size)


@hpcjit.njit
def g_exponential(rng, scale, size):
    return rng.exponential(scale, size)


@hpcjit.njit
def g_standard_exponential(rng, size):
    return rng.standard_exponential(size)


@hpcjit.njit
def g_gamma(rng, shape, scale, size):
    return rng.gamma(shape, scale, size)


@hpcjit.njit
def g_standard_gamma(rng, shape, size):
    return rng.standard_gamma(shape, size)


@hpcjit.njit
def g_beta(rng, a, b, size):
    return rng.beta(a, b, size)


@hpcjit.njit
def g_chisquare(rng, df, size):
    return rng.chisquare(df, size)


@hpcjit.njit
def g_f(rng, dfnum, dfden, size):
    return rng.f(dfnum, dfden, size)


@hpcjit.njit
def g_noncentral_chisquare(rng, df, nonc, size):
    return rng.noncentral_chisquare(df, nonc, size)


@hpcjit.njit
def g_noncentral_f(rng, dfnum, dfden, nonc, size):
    return rng.noncentral_f(dfnum, dfden, nonc, size)


@hpcjit.njit
def g_standard_cauchy(rng, size):
    return rng.standard_cauchy(size)


@hpcjit.njit
def g_standard_t(rng, df, size):
    return rng.standard_t(df, size)


@hpcjit.njit
def g_vonmises(rng, mu, kappa, size):
    return rng.vonmises(mu, kappa, size)


@hpcjit.njit
def g_pareto(rng, a, size):
    return rng.pareto(a, size)


@hpcjit.njit
def g_weibull(rng, a, size):
    return rng.weibull(a, size)


@hpcjit.njit
def g_power(rng, a, size):
    return rng.power(a, size)


@hpcjit.njit
def g_laplace(rng, loc, scale, size):
    return rng.laplace(loc, scale, size)


@hpcjit.njit
def g_gumbel(rng, loc, scale, size):
    return rng.gumbel(loc, scale, size)


@hpcjit.njit
def g_logistic(rng, loc, scale, size):
    return rng.logistic(loc, scale, size)


@hpcjit.njit
def g_lognormal(rng, mean, sigma, size):
    return rng.lognormal(mean, sigma, size)


@hpcjit.njit
def g_rayleigh(rng, scale, size):
    return rng.rayleigh(scale, size)


@hpcjit.njit
def g_wald(rng, mean, scale, size):
    return rng.wald(mean, scale, size)


@hpcjit.njit
def g_triangular(rng, left, mode, right, size):
    return rng.triangular(left, mode, right, size)


@hpcjit.njit
def g_binomial(rng, n, p, size):
    return rng.binomial(n, p, size)


@hpcjit.njit
def g_negative_binomial(rng, n, p, size):
    return rng.negative_binomial(n, p, size)


@hpcjit.njit
def g_poisson(rng, lam, size):
    return rng.poisson(lam, size)


@hpcjit.njit
def g_geometric(rng, p, size):
    return rng.geometric(p, size)


@hpcjit.njit
def g_zipf(rng, a, size):
    return rng.zipf(a, size)


@hpcjit.njit
def g_logseries(rng, p, size):
    return rng.logseries(p, size)


@hpcjit.njit
def g_hypergeometric(rng, ngood, nbad, nsample, size):
    return rng.hypergeometric(ngood, nbad, nsample, size)


def _numba_lacks(f, args):
    return pytest.param(f, args, marks=pytest.mark.numba_skip("not among Numba's Generator methods"))


GEN = [
    (g_random, ()), (g_uniform, (-2.0, 5.0)), (g_normal, (3.0, 2.0)), (g_standard_normal, ()),
    (g_exponential, (2.5,)), (g_standard_exponential, ()), (g_gamma, (0.4, 2.0)), (g_gamma, (3.0, 0.5)),
    (g_standard_gamma, (0.7,)), (g_standard_gamma, (9.0,)), (g_beta, (0.5, 0.5)), (g_beta, (2.0, 5.0)),
    (g_chisquare, (3.0,)), (g_f, (5.0, 7.0)), (g_noncentral_chisquare, (3.0, 2.0)),
    (g_noncentral_chisquare, (0.5, 1.5)), (g_noncentral_f, (5.0, 7.0, 1.5)), (g_standard_cauchy, ()),
    (g_standard_t, (4.0,)), (g_pareto, (3.0,)), (g_weibull, (1.7,)),
    (g_power, (2.5,)), (g_laplace, (-1.0, 0.5)), (g_logistic, (2.0, 3.0)),
    (g_lognormal, (0.5, 0.8)), (g_rayleigh, (1.5,)), (g_wald, (2.0, 1.5)), (g_triangular, (-1.0, 0.5, 3.0)),
    _numba_lacks(g_gumbel, (1.0, 2.0)), _numba_lacks(g_vonmises, (1.0, 3.0)),
    (g_negative_binomial, (5.0, 0.4)), (g_poisson, (4.0,)), (g_poisson, (250.0,)), (g_geometric, (0.2,)),
    (g_zipf, (2.5,)), (g_logseries, (0.6,)), (g_logseries, (0.99,)),
    _numba_lacks(g_binomial, (10, 0.3)), _numba_lacks(g_binomial, (1000, 0.6)),
    _numba_lacks(g_hypergeometric, (10, 15, 8)), _numba_lacks(g_hypergeometric, (500, 400, 300)),
]


def gen_id(v):
    return v.__name__[2:] if callable(v) else str(v)


def same_values(got, exp):
    """Exactly NumPy's (Numba's Generator may differ by a few ulps where its
    compiler fuses multiply-adds: its documentation says so)."""
    same_kind(got, exp)
    if AGAINST_NUMBA and np.asarray(exp).dtype.kind == "f":
        np.testing.assert_allclose(got, exp, rtol=1e-12)
    else:
        np.testing.assert_array_equal(got, exp)


BITGENS = [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64]


@pytest.mark.parametrize("f,args", GEN, ids=gen_id)
@pytest.mark.parametrize("bitgen", BITGENS, ids=lambda b: b.__name__)
def test_generator_same_stream(f, args, bitgen):
    name = f.__name__[2:]
    r1, r2 = np.random.Generator(bitgen(123)), np.random.Generator(bitgen(123))
    for size in (None, 1000, (3, 4)):
        same_values(f(r1, *args, size), getattr(r2, name)(*args, size=size))
    # the Generator went on where NumPy's draws left it
    same_values(r1.random(5), r2.random(5))


@hpcjit.njit
def g_integers(rng, low, high, size):
    return rng.integers(low, high, size)


@hpcjit.njit
def g_integers_closed(rng, low, high, size):
    return rng.integers(low, high, size, endpoint=True)


@hpcjit.njit
def g_integers1(rng, high):
    return rng.integers(high)


@pytest.mark.parametrize("bitgen", BITGENS, ids=lambda b: b.__name__)
def test_generator_integers(bitgen):
    r1, r2 = np.random.Generator(bitgen(9)), np.random.Generator(bitgen(9))
    for lo, hi in ((0, 10), (-5, 5), (0, 2**32), (7, 8), (0, 1000003)):
        for size in (None, 17, (2, 5)):
            same_values(g_integers(r1, lo, hi, size), r2.integers(lo, hi, size))
            same_values(g_integers_closed(r1, lo, hi, size), r2.integers(lo, hi, size, endpoint=True))
    same_values(r1.random(3), r2.random(3))


@pytest.mark.numba_skip("Numba's Generator.integers draws other values beyond 2**63")
def test_generator_integers_wide():
    r1, r2 = np.random.default_rng(6), np.random.default_rng(6)
    for size in (None, 9):
        same_values(g_integers(r1, -(2**62), 2**62, size), r2.integers(-(2**62), 2**62, size))
        same_values(g_integers_closed(r1, -(2**63), 2**63 - 1, size),
                    r2.integers(-(2**63), 2**63 - 1, size, endpoint=True))


@pytest.mark.numba_skip("Numba's Generator.integers needs both low and high")
def test_generator_integers_one_bound():
    r1, r2 = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(20):
        same_values(g_integers1(r1, 50), r2.integers(50))


def test_generator_integers_errors():
    rng = np.random.default_rng()
    with pytest.raises(ValueError) as e1:
        g_integers(rng, 5, 5, 3)
    with pytest.raises(ValueError) as e2:
        g_integers_closed(rng, 5, 4, None)
    if not AGAINST_NUMBA:  # Numba: "low is greater than high in given interval"
        assert str(e1.value) == "low >= high" and str(e2.value) == "low > high"


@hpcjit.njit
def g_shuffle(rng, a):
    rng.shuffle(a)


@hpcjit.njit
def g_permutation(rng, a):
    return rng.permutation(a)


@pytest.mark.parametrize("shape", [(0,), (1,), (50,), (7, 3)])
@pytest.mark.parametrize("layout", ["C", "strided"])
def test_generator_shuffle_permutation(shape, layout):
    a = make_array(np.float64, shape, layout)
    b = a.copy()
    r1, r2 = np.random.default_rng(31), np.random.default_rng(31)
    same_values(g_permutation(r1, a), r2.permutation(a))
    g_shuffle(r1, a)
    r2.shuffle(b)
    np.testing.assert_array_equal(a, b)
    same_values(g_permutation(r1, 25), r2.permutation(25))
    same_values(r1.random(3), r2.random(3))


# Generator's own checks (a few differ from RandomState's)
GEN_BAD = [
    (g_normal, (0.0, -1.0)), (g_uniform, (1.0, 0.0)), (g_uniform, (0.0, math.inf)), (g_gamma, (-1.0, 1.0)),
    (g_beta, (0.0, 1.0)), (g_negative_binomial, (1.0, 0.0)), (g_negative_binomial, (math.nan, 0.5)),
    (g_poisson, (-1.0,)), (g_zipf, (1.0,)), (g_noncentral_f, (1.0, 1.0, -1.0)),
    (g_triangular, (1.0, 1.0, 1.0)), (g_logseries, (1.0,)),
    _numba_lacks(g_hypergeometric, (1, 1, -1)), _numba_lacks(g_hypergeometric, (10**9, 1, 1)),
    _numba_lacks(g_binomial, (-1, 0.5)),
]


@pytest.mark.numba_skip("Numba's Generator methods do not check their parameters (negative_binomial(nan) loops)")
@pytest.mark.parametrize("f,args", GEN_BAD, ids=gen_id)
def test_generator_errors(f, args):
    rng = np.random.default_rng(1)
    with pytest.raises((ValueError, OverflowError)) as exp:
        getattr(rng, f.__name__[2:])(*args, size=2)
    with pytest.raises(exp.type) as got:
        f(rng, *args, 2)
    if not AGAINST_NUMBA:
        assert str(got.value) == str(exp.value)


@hpcjit.njit
def g_pass_along(rng, n):
    # a Generator is an ordinary value: passed to another function, kept in a variable
    r = rng
    return g_normal(r, 0.0, 1.0, n), r.random()


def test_generator_passed_along():
    r1, r2 = np.random.default_rng(5), np.random.default_rng(5)
    x, y = g_pass_along(r1, 4)
    same_values(x, r2.normal(0.0, 1.0, 4))
    assert y == r2.random()


@hpcjit.njit
def g_unsupported(rng):
    return rng.multivariate_normal(np.zeros(2), np.eye(2))


@pytest.mark.numba_skip("hpcjit's diagnostic")
def test_generator_unsupported_method():
    with pytest.raises(hpcjit.UnsupportedError, match="Generator.multivariate_normal"):
        g_unsupported(np.random.default_rng())


@pytest.mark.numba_skip("hpcjit's allocation counters")
def test_generator_no_leaks():
    import gc
    rng = np.random.default_rng(2)
    gc.collect()
    before = hpcjit._core.memstats()
    for f, args in GEN[:10]:
        f(rng, *args, (2, 2))
    g_permutation(rng, np.arange(5.0))
    g_integers(rng, 0, 9, 4)
    with pytest.raises(ValueError):
        g_normal(rng, 0.0, -1.0, 3)
    gc.collect()
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@hpcjit.njit
def g_return(rng):
    return rng


@pytest.mark.numba_skip("Numba boxes the Generator back")
def test_generator_not_returned():
    with pytest.raises(TypeError, match="cannot be returned"):
        g_return(np.random.default_rng())


@hpcjit.njit
def g_float32(rng, n):
    return (rng.random(n, np.float32), rng.standard_normal(n, dtype=np.float32),
            rng.standard_exponential(n, np.float32), rng.standard_gamma(0.5, n, np.float32),
            rng.standard_gamma(3.5, (2, n), dtype=np.float32), rng.random(dtype=np.float64))


def test_generator_float32():
    r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
    got = g_float32(r1, 50)
    exp = (r2.random(50, np.float32), r2.standard_normal(50, dtype=np.float32),
           r2.standard_exponential(50, np.float32), r2.standard_gamma(0.5, 50, np.float32),
           r2.standard_gamma(3.5, (2, 50), dtype=np.float32), r2.random(dtype=np.float64))
    for g, e in zip(got, exp):
        same_values(g, e)
    same_values(r1.random(2), r2.random(2))


@hpcjit.njit
def g_integers_dt(rng, low, high, size, dt):
    return rng.integers(low, high, size, dtype=dt)


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: d.__name__)
def test_generator_integers_dtype(dt):
    r1, r2 = np.random.default_rng(12), np.random.default_rng(12)
    info = np.iinfo(dt)
    lo = max(int(info.min), -(2**30))  # wider: test_generator_integers_wide
    hi = min(int(info.max), 2**30)
    for a, b in ((0, 5), (lo, hi), (hi - 3, hi)):
        for size in (None, 40, (3, 2)):
            same_values(g_integers_dt(r1, a, b, size, dt), r2.integers(a, b, size, dtype=dt))
    same_values(r1.random(2), r2.random(2))


@pytest.mark.numba_skip("hpcjit's bounds messages")
def test_generator_integers_dtype_bounds():
    rng = np.random.default_rng()
    for a, b, dt in ((0, 300, np.uint8), (-1, 5, np.uint16), (-200, 0, np.int8)):
        with pytest.raises(ValueError) as exp:
            rng.integers(a, b, dtype=dt)
        with pytest.raises(ValueError) as got:
            g_integers_dt(rng, a, b, None, dt)
        assert str(got.value) == str(exp.value)


# ---------------------------------------------------------------------------
# Seeded draws: the numbers of Numba (np.random's MT19937 seeded as
# RandomState.seed(int), NumPy's legacy draws where Numba reproduces them;
# benchmarks/random/parity.py lists them all).

import random  # noqa: E402 (this section's reference is CPython's random module)

SEEDS = [0, 1, 12345, 2**32 - 1]


def _seeded(body):
    """A compiled function of the seed: np.random.seed(seed), then body."""
    src = "def f(seed):\n    np.random.seed(seed)\n" + "".join("    " + ln + "\n" for ln in body.splitlines())
    ns = {"np": np}
    exec(src, ns)
    return hpcjit.njit(ns["f"])


_LOOP = "out = np.empty(6)\nfor i in range(6):\n    out[i] = {}\nreturn out"

# np.random functions whose seeded draws equal NumPy's (and Numba's)
NP_SAME = [
    "np.random.rand()", "np.random.rand(7)", "np.random.rand(2, 3)",
    "np.random.randn()", "np.random.randn(7)",
    "np.random.random()", "np.random.random(7)", "np.random.random_sample((2, 3))",
    "np.random.ranf(7)", "np.random.sample(7)",
    "np.random.randint(0, 1000)", "np.random.randint(-5, 1000, 7)", "np.random.randint(17)",
    "np.random.randint(-2**40, 2**40, 7)", "np.random.randint(0, 2**32, 7)", "np.random.randint(0, 1, 3)",
    "np.random.uniform(1.0, 3.0)", "np.random.uniform(1.0, 3.0, 7)", "np.random.uniform()",
    "np.random.normal(1.0, 2.0)", "np.random.normal(1.0, 2.0, 7)", "np.random.normal()",
    "np.random.standard_normal(7)",
    "np.random.exponential(2.0)", "np.random.exponential(2.0, 7)", "np.random.standard_exponential(7)",
    "np.random.standard_cauchy(7)",
    "np.random.weibull(2.0, 7)", "np.random.power(2.0, 7)",
    "np.random.laplace(1.0, 2.0, 7)", "np.random.gumbel(1.0, 2.0, 7)", "np.random.logistic(1.0, 2.0, 7)",
    "np.random.lognormal(1.0, 0.5, 7)", "np.random.rayleigh(2.0, 7)", "np.random.wald(1.0, 2.0, 7)",
    "np.random.binomial(10, 0.3, 7)", "np.random.binomial(1000, 0.3, 7)", "np.random.binomial(1000, 0.8, 7)",
    "np.random.poisson(3.0, 7)", "np.random.poisson(50.0, 7)",
    "np.random.geometric(0.5, 7)", "np.random.geometric(0.1, 7)",
    "np.random.zipf(2.5, 7)", "np.random.logseries(0.7, 7)", "np.random.logseries(0.2, 7)",
    "np.random.hypergeometric(10, 20, 8, 7)",
    "np.random.choice(100)", "np.random.choice(100, 7)", "np.random.choice(100, 7, replace=False)",
    "np.random.choice(np.arange(100.0), 7)", "np.random.choice(np.arange(10.0), 10, replace=False)",
    "np.random.permutation(9)", "np.random.permutation(np.arange(9.0))",
    "np.random.multinomial(20, np.array([0.2, 0.3, 0.5]), 3)",
]
# scalar draws in a loop: the cached second normal carried between calls
NP_SAME_LOOP = [
    "np.random.randn()", "np.random.normal(1.0, 2.0)", "np.random.standard_normal()",
    "np.random.standard_cauchy()", "np.random.lognormal(0.5, 0.3)", "np.random.random() + np.random.randn()",
    "np.random.randint(-3, 3)", "np.random.binomial(20, 0.6)", "np.random.poisson(12.0)",
]


@pytest.mark.parametrize("call", NP_SAME)
def test_seeded_same_as_numpy(call):
    f = _seeded("return " + call)
    for s in SEEDS:
        np.testing.assert_array_equal(f(s), f.py_func(s))


@pytest.mark.parametrize("call", NP_SAME_LOOP)
def test_seeded_loop_same_as_numpy(call):
    f = _seeded(_LOOP.format(call))
    for s in SEEDS:
        np.testing.assert_array_equal(f(s), f.py_func(s))


# the same law, rounded otherwise than NumPy's formula
@pytest.mark.parametrize("call", ["np.random.pareto(3.0, 7)", "np.random.triangular(0.0, 1.0, 3.0, 7)"])
def test_seeded_close_to_numpy(call):
    f = _seeded("return " + call)
    for s in SEEDS:
        np.testing.assert_allclose(f(s), f.py_func(s), rtol=1e-13)


@hpcjit.njit
def s_shuffle(seed, a):
    np.random.seed(seed)
    np.random.shuffle(a)


@pytest.mark.parametrize("shape", [(20,), (6, 3)])
def test_seeded_shuffle_same_as_numpy(shape):
    for s in SEEDS:
        a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        b = a.copy()
        s_shuffle(s, a)
        s_shuffle.py_func(s, b)
        np.testing.assert_array_equal(a, b)


def _mt_state(seed):
    """CPython's random module state holding the MT19937 words that
    np.random.seed(seed) makes (Numba's random.seed(seed) makes the same)."""
    key = np.random.RandomState(seed).get_state()[1]
    return (3, tuple(int(x) for x in key) + (624,), None)


def _py_gammas(seed, n, draw):
    random.setstate(_mt_state(seed))
    return np.array([draw() for _ in range(n)])


# np.random functions drawn as Numba draws them: by the algorithms of
# CPython's random module (gammavariate, vonmisesvariate), not NumPy's
NP_AS_CPYTHON = [
    ("np.random.gamma(0.5, 2.0, 7)", lambda: random.gammavariate(0.5, 2.0)),
    ("np.random.gamma(1.0, 2.0, 7)", lambda: random.gammavariate(1.0, 2.0)),
    ("np.random.gamma(3.0, 2.0, 7)", lambda: random.gammavariate(3.0, 2.0)),
    ("np.random.standard_gamma(3.0, 7)", lambda: random.gammavariate(3.0, 1.0)),
    ("np.random.beta(2.0, 3.0, 7)", lambda: random.betavariate(2.0, 3.0)),
    ("np.random.beta(0.5, 0.5, 7)", lambda: random.betavariate(0.5, 0.5)),
    ("np.random.chisquare(3.0, 7)", lambda: 2.0 * random.gammavariate(1.5, 1.0)),
    ("np.random.f(3.0, 5.0, 7)",
     lambda: (2.0 * random.gammavariate(1.5, 1.0)) * 5.0 / ((2.0 * random.gammavariate(2.5, 1.0)) * 3.0)),
    ("np.random.vonmises(0.5, 2.0, 7)", lambda: random.vonmisesvariate(0.5, 2.0)),
    ("np.random.vonmises(0.5, 1e-9, 7)", lambda: random.vonmisesvariate(0.5, 1e-9)),
]


@pytest.mark.parametrize("call,draw", NP_AS_CPYTHON, ids=[c for c, _ in NP_AS_CPYTHON])
def test_seeded_as_cpython_algorithm(call, draw):
    f = _seeded("return " + call)
    for s in SEEDS:
        np.testing.assert_array_equal(f(s), _py_gammas(s, 7, draw))


@hpcjit.njit
def s_t(seed, df):
    np.random.seed(seed)
    return np.random.standard_t(df)


def test_seeded_standard_t():
    # a legacy normal, then CPython's gamma, on the same words
    for s in SEEDS:
        rs = np.random.RandomState(s)
        z = rs.standard_normal()
        st = rs.get_state()
        random.setstate((3, tuple(int(x) for x in st[1]) + (int(st[2]),), None))
        g = random.gammavariate(2.0, 1.0)
        assert s_t(s, 4.0) == math.sqrt(2.0) * z / math.sqrt(g)


@hpcjit.njit
def s_dirichlet(seed, alpha):
    np.random.seed(seed)
    return np.random.dirichlet(alpha, 2)


def test_seeded_dirichlet():
    alpha = np.array([1.0, 2.0, 3.0])
    for s in SEEDS:
        random.setstate(_mt_state(s))
        g = np.array([[random.gammavariate(a, 1.0) for a in alpha] for _ in range(2)])
        np.testing.assert_array_equal(s_dirichlet(s, alpha), g / g.sum(axis=1, keepdims=True))


# the random module: Numba's random.seed(n) seeds as np.random.seed(n)
# (init_genrand), CPython's random.seed(n) otherwise (init_by_array); the
# draws after the same state are CPython's

@hpcjit.njit
def py_seed(seed):
    random.seed(seed)


def _py_draws(body):
    src = "def f():\n" + "".join("    " + ln + "\n" for ln in body.splitlines())
    ns = {"np": np, "random": random}
    exec(src, ns)
    return hpcjit.njit(ns["f"])


PY_SAME = [
    "random.random()", "random.uniform(1.0, 3.0)", "random.triangular(0.0, 3.0, 1.0)",
    "random.triangular(0.0, 3.0)", "random.expovariate(2.0)",
    "random.gammavariate(0.5, 2.0)", "random.gammavariate(1.0, 2.0)", "random.gammavariate(3.0, 2.0)",
    "random.betavariate(2.0, 3.0)", "random.vonmisesvariate(0.5, 2.0)", "random.weibullvariate(1.0, 2.0)",
    "random.getrandbits(20)", "random.getrandbits(33)", "random.getrandbits(64)",
    "random.randrange(1000)", "random.randrange(-50, 1000)", "random.randrange(-50, 1000, 7)",
    "random.randrange(1000, -50, -3)", "random.randint(-50, 1000)", "random.randint(0, 2**40)",
    "random.randrange(1024)",
    # typed again inside another call
    "float(random.randrange(1000))", "float(random.randint(-5, 5)) + float(random.randrange(3, 9, 2))",
]


@pytest.mark.parametrize("call", PY_SAME)
def test_seeded_random_module(call):
    f = _py_draws(_LOOP.format(call))
    for s in SEEDS:
        py_seed(s)
        got = f()
        random.setstate(_mt_state(s))
        np.testing.assert_array_equal(got, f.py_func())


def test_seeded_random_paretovariate():
    f = _py_draws(_LOOP.format("random.paretovariate(3.0)"))
    for s in SEEDS:
        py_seed(s)
        got = f()
        random.setstate(_mt_state(s))
        np.testing.assert_allclose(got, f.py_func(), rtol=1e-13)


@pytest.mark.parametrize("call,mu,sigma,exp", [
    ("random.gauss(1.0, 2.0)", 1.0, 2.0, False), ("random.normalvariate(1.0, 2.0)", 1.0, 2.0, False),
    ("random.lognormvariate(1.0, 0.5)", 1.0, 0.5, True)])
def test_seeded_random_gauss(call, mu, sigma, exp):
    # Numba's gauss is the polar method with a cached value (NumPy's legacy
    # normal), not CPython's
    f = _py_draws(_LOOP.format(call))
    for s in SEEDS:
        py_seed(s)
        want = mu + sigma * np.random.RandomState(s).standard_normal(6)
        np.testing.assert_array_equal(f(), np.array([math.exp(w) for w in want]) if exp else want)


@hpcjit.njit
def py_shuffle(seed, a):
    random.seed(seed)
    random.shuffle(a)


def test_seeded_random_shuffle():
    for s in SEEDS:
        a = np.arange(30.0)
        py_shuffle(s, a)
        random.setstate(_mt_state(s))
        b = list(range(30))
        random.shuffle(b)
        np.testing.assert_array_equal(a, np.array(b, dtype=np.float64))


@hpcjit.njit
def both_seeded(s):
    np.random.seed(s)
    random.seed(s + 1)
    return np.random.random(), random.random(), np.random.random()


def test_seeded_generators_apart():
    # the random module's state is apart from np.random's
    a, b, c = both_seeded(5)
    rs = np.random.RandomState(5)
    assert (a, c) == (rs.random_sample(), rs.random_sample())
    assert b == np.random.RandomState(6).random_sample()


# parallel loops: each worker of the pool draws from its own stream,
# re-derived from the seed: the same numbers at every run

@hpcjit.njit(parallel=True)
def par_draws(seed, n):
    np.random.seed(seed)
    out = np.empty(n)
    for i in hpcjit.prange(n):
        out[i] = np.random.random()
    return out


@pytest.mark.numba_skip("Numba seeds its worker threads from the OS: np.random.seed in the caller does not reach them")
def test_prange_streams_reproducible_and_independent():
    n = 4000
    a = par_draws(7, n)
    b = par_draws(7, n)
    np.testing.assert_array_equal(a, b)
    assert np.all((a >= 0) & (a < 1))
    c = par_draws(8, n)
    assert not np.array_equal(a, c)
    # the static schedule: share t of the loop is worker t's; share 0 (the
    # caller's) continues np.random's stream 0, NumPy's numbers
    nt = hpcjit.get_num_threads()
    shares = np.array_split(a, nt)
    first = np.random.RandomState(7).random_sample(n)
    np.testing.assert_array_equal(shares[0], first[:len(shares[0])])
    # the workers' shares are streams of their own: no value of stream 0
    # repeats there, and no share repeats another's
    rest = a[len(shares[0]):]
    assert len(set(rest.tolist()) & set(first.tolist())) == 0
    for i in range(nt):
        for j in range(i + 1, nt):
            assert len(set(shares[i].tolist()) & set(shares[j].tolist())) == 0


# np.random.default_rng inside compiled code: PCG64 seeded through
# SeedSequence as NumPy's (Numba 0.68 has no np.random.default_rng in
# nopython mode)

NO_DEFAULT_RNG = "Numba 0.68 has no np.random.default_rng in nopython mode"


@hpcjit.njit
def dr_draws(seed, n):
    rng = np.random.default_rng(seed)
    return (rng.random(n), rng.normal(1.0, 2.0, n), rng.integers(0, 100, n), rng.standard_gamma(3.0, n),
            rng.integers(0, 2**40, n), rng.random(n, np.float32), rng.binomial(50, 0.3, n), rng.random())


@pytest.mark.numba_skip(NO_DEFAULT_RNG)
@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1])
def test_default_rng_seeded(seed):
    got = dr_draws(seed, 9)
    want = dr_draws.py_func(seed, 9)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert np.asarray(g).dtype == np.asarray(w).dtype


@hpcjit.njit
def dr_use(rng, n):
    return rng.standard_normal(n)


@hpcjit.njit
def dr_passed(seed, n):
    rng = np.random.default_rng(seed)
    a = dr_use(rng, n)
    b = dr_use(rng, n)
    x = np.arange(10)
    rng.shuffle(x)
    return a, b, x, rng.permutation(7)


@pytest.mark.numba_skip(NO_DEFAULT_RNG)
def test_default_rng_passed_along():
    for got, want in zip(dr_passed(5, 4), dr_passed.py_func(5, 4)):
        np.testing.assert_array_equal(got, want)


@hpcjit.njit
def dr_loop(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = np.random.default_rng(i).random()
    return out


@hpcjit.njit
def dr_unseeded(n):
    return np.random.default_rng().random(n), np.random.default_rng(None).random(n)


@pytest.mark.numba_skip(NO_DEFAULT_RNG)
def test_default_rng_loop_and_unseeded():
    np.testing.assert_array_equal(dr_loop(20), dr_loop.py_func(20))
    a, b = dr_unseeded(50)
    c, d = dr_unseeded(50)
    # fresh entropy at each call, as NumPy's default_rng()
    assert not np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.all((a >= 0) & (a < 1))


@hpcjit.njit
def dr_negative(s):
    return np.random.default_rng(s).random()


@hpcjit.njit
def dr_returned(s):
    return np.random.default_rng(s)


@pytest.mark.numba_skip(NO_DEFAULT_RNG)
def test_default_rng_errors():
    with pytest.raises(ValueError) as e:
        dr_negative(-1)
    with pytest.raises(ValueError) as ref:
        dr_negative.py_func(-1)
    assert str(e.value) in str(ref.value)
    # the bit generator lives in the frame: it cannot be returned
    with pytest.raises(hpcjit.errors.UnsupportedError, match="cannot return a Generator") as e:
        dr_returned(1)
    assert "test_np_random.py:" in str(e.value) and "^" in str(e.value)
