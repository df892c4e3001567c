"""Python's random module in compiled code (Numba's list: seed with an int,
random, getrandbits, randrange, randint, uniform, triangular, gauss,
normalvariate, lognormvariate, expovariate, gammavariate, betavariate,
vonmisesvariate, paretovariate, weibullvariate, shuffle of a 1-D array).
The generator is a per-thread MT19937, apart from np.random's and from
CPython's, seeded as Numba's (init_genrand, not CPython's init_by_array),
so each function's draws are compared with CPython's by a two-sample
Kolmogorov-Smirnov distance here (test_np_random.py's test_seeded_random_*
compare them value by value with CPython's from the same state); seeding
inside compiled code repeats them; bad arguments raise CPython's errors."""
import math
import random

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA


@hpcjit.njit
def seed(a):
    random.seed(a)


@hpcjit.njit
def np_seed(a):
    np.random.seed(a)


@hpcjit.njit
def sample(k, n):
    """n draws of function k (numbered as FUNCS)."""
    out = np.empty(n)
    for i in range(n):
        if k == 0:
            out[i] = random.random()
        elif k == 1:
            out[i] = random.uniform(-2.0, 5.0)
        elif k == 2:
            out[i] = random.triangular(0.0, 4.0, 1.0)
        elif k == 3:
            out[i] = random.triangular(1.0, 3.0)
        elif k == 4:
            out[i] = random.gauss(1.0, 2.0)
        elif k == 5:
            out[i] = random.normalvariate(-1.0, 0.5)
        elif k == 6:
            out[i] = random.lognormvariate(0.3, 0.7)
        elif k == 7:
            out[i] = random.expovariate(2.0)
        elif k == 8:
            out[i] = random.gammavariate(0.6, 2.0)
        elif k == 9:
            out[i] = random.gammavariate(4.0, 0.5)
        elif k == 10:
            out[i] = random.betavariate(2.0, 3.0)
        elif k == 11:
            out[i] = random.vonmisesvariate(1.0, 4.0)
        elif k == 12:
            out[i] = random.vonmisesvariate(2.0, 0.0)
        elif k == 13:
            out[i] = random.paretovariate(3.0)
        elif k == 14:
            out[i] = random.weibullvariate(2.0, 1.5)
        elif k == 15:
            out[i] = random.randint(-3, 4)
        elif k == 16:
            out[i] = random.randrange(10)
        elif k == 17:
            out[i] = random.randrange(5, 50, 7)
        elif k == 18:
            out[i] = random.randrange(20, -20, -3)
        else:
            out[i] = random.getrandbits(5)
    return out


FUNCS = [
    lambda: random.random(), lambda: random.uniform(-2.0, 5.0), lambda: random.triangular(0.0, 4.0, 1.0),
    lambda: random.triangular(1.0, 3.0), lambda: random.gauss(1.0, 2.0), lambda: random.normalvariate(-1.0, 0.5),
    lambda: random.lognormvariate(0.3, 0.7), lambda: random.expovariate(2.0),
    lambda: random.gammavariate(0.6, 2.0), lambda: random.gammavariate(4.0, 0.5),
    lambda: random.betavariate(2.0, 3.0), lambda: random.vonmisesvariate(1.0, 4.0),
    lambda: random.vonmisesvariate(2.0, 0.0), lambda: random.paretovariate(3.0),
    lambda: random.weibullvariate(2.0, 1.5), lambda: random.randint(-3, 4), lambda: random.randrange(10),
    lambda: random.randrange(5, 50, 7), lambda: random.randrange(20, -20, -3), lambda: random.getrandbits(5),
]
NAMES = ["random", "uniform", "triangular3", "triangular2", "gauss", "normalvariate", "lognormvariate",
         "expovariate", "gammavariate<1", "gammavariate>1", "betavariate", "vonmisesvariate",
         "vonmisesvariate0", "paretovariate", "weibullvariate", "randint", "randrange1", "randrange3",
         "randrange_neg", "getrandbits"]


def ks_distance(x, y):
    x, y = np.sort(x), np.sort(y)
    v = np.concatenate([x, y])
    return np.max(np.abs(np.searchsorted(x, v, "right") / len(x) - np.searchsorted(y, v, "right") / len(y)))


@pytest.mark.parametrize("k", range(len(FUNCS)), ids=NAMES)
def test_matches_cpython(k):
    n = 60_000
    seed(12)
    x = sample(k, n)
    r = random.Random(3)
    f = FUNCS[k]
    state = random.getstate()
    random.setstate(r.getstate())
    try:
        ref = np.array([f() for _ in range(n)])
    finally:
        random.setstate(state)
    assert ks_distance(x, ref) < 1.63 * math.sqrt(2 / n) * 1.3
    assert abs(x.mean() - ref.mean()) <= 6 * math.sqrt((x.var() + ref.var()) / n)
    if k >= 15:  # integers: the same support
        assert set(np.unique(x)) == set(np.unique(ref))


@pytest.mark.parametrize("k", range(len(FUNCS)), ids=NAMES)
def test_seed_repeats(k):
    seed(99)
    a = sample(k, 50)
    seed(99)
    b = sample(k, 50)
    np.testing.assert_array_equal(a, b)
    seed(100)
    if k != 12:  # vonmises(kappa=0) is uniform: still differs
        assert not np.array_equal(sample(k, 50), a)


def test_separate_from_np_random_and_cpython():
    seed(5)
    a = sample(0, 10)
    seed(5)
    np_seed(5)  # seeding np.random does not touch random's stream
    random.seed(5)  # nor does CPython's own generator
    np.testing.assert_array_equal(sample(0, 10), a)


@hpcjit.njit
def draw_types():
    return (random.random(), random.randint(1, 6), random.randrange(3), random.getrandbits(8),
            random.uniform(1, 2), random.gauss(0.0, 1.0), random.expovariate(1.0))


def test_result_types():
    got = draw_types()
    assert [type(v) for v in got[:3]] == [float, int, int]
    assert isinstance(got[3], int) and 0 <= got[3] < 256
    assert all(isinstance(v, float) for v in got[4:])


@hpcjit.njit
def defaults():
    return random.gauss(), random.normalvariate(), random.triangular(), random.expovariate()


@pytest.mark.skipif(AGAINST_NUMBA, reason="Numba needs every argument of these")
def test_defaults():
    assert all(isinstance(v, float) for v in defaults())


@hpcjit.njit
def bits(k):
    return random.getrandbits(k)


def test_getrandbits():
    seed(1)
    vals = [bits(64) for _ in range(200)]
    assert max(vals) >= 2**63 and all(0 <= v < 2**64 for v in vals)
    assert all(0 <= bits(3) < 8 for _ in range(100))


@pytest.mark.numba_skip("Numba's getrandbits(0) raises OverflowError")
def test_getrandbits_zero():
    assert bits(0) == 0


@pytest.mark.numba_skip("Numba does not check the bit count")
def test_getrandbits_negative():
    with pytest.raises(ValueError, match="number of bits must be non-negative"):
        bits(-1)


@hpcjit.njit
def rr1(a):
    return random.randrange(a)


@hpcjit.njit
def rr2(a, b):
    return random.randrange(a, b)


@hpcjit.njit
def rr3(a, b, c):
    return random.randrange(a, b, c)


@hpcjit.njit
def ri(a, b):
    return random.randint(a, b)


@hpcjit.njit
def gammav(a, b):
    return random.gammavariate(a, b)


@hpcjit.njit
def betav(a, b):
    return random.betavariate(a, b)


BAD = [(rr1, (0,)), (rr1, (-3,)), (rr2, (5, 2)), (rr2, (3, 3)),
       pytest.param(rr3, (1, 10, 0), marks=pytest.mark.numba_skip("Numba does not check a zero step")),
       (rr3, (10, 1, 2)), (ri, (5, 2)), (gammav, (0.0, 1.0)), (gammav, (1.0, -1.0))]


@pytest.mark.parametrize("f,args", BAD, ids=lambda v: getattr(v, "__name__", str(v)))
def test_errors(f, args):
    with pytest.raises(ValueError) as exp:
        f.py_func(*args)
    with pytest.raises(ValueError) as got:
        f(*args)
    if not AGAINST_NUMBA:
        assert str(got.value) == str(exp.value)


def test_randrange_values():
    seed(3)
    assert {rr1(5) for _ in range(300)} == set(range(5))
    assert {rr3(-10, 10, 4) for _ in range(300)} == set(range(-10, 10, 4))
    assert {rr3(10, -10, -4) for _ in range(300)} == set(range(10, -10, -4))
    assert {ri(-1, 1) for _ in range(300)} == {-1, 0, 1}


@pytest.mark.numba_skip("Numba's randrange overflows on a width beyond int64")
def test_randrange_wide():
    big = [rr2(-(2**62), 2**62) for _ in range(200)]
    assert min(big) < -(2**60) and max(big) > 2**60


@hpcjit.njit
def shuffle(a):
    random.shuffle(a)


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.complex128, np.bool_])
def test_shuffle(dt):
    a = np.arange(40).astype(dt)
    orig = a.copy()
    seed(8)
    shuffle(a)
    assert sorted(a.tolist(), key=abs) == sorted(orig.tolist(), key=abs)
    assert dt is np.bool_ or not np.array_equal(a, orig)
    b = orig.copy()
    seed(8)
    shuffle(b)
    np.testing.assert_array_equal(a, b)
    v = np.arange(30.0)[::3]  # strided
    shuffle(v)
    assert sorted(v.tolist()) == list(np.arange(30.0)[::3])


def test_shuffle_uniform():
    """Every position takes every value about equally often."""
    seed(4)
    counts = np.zeros((5, 5))
    for _ in range(20_000):
        a = np.arange(5)
        shuffle(a)
        counts[np.arange(5), a] += 1
    assert np.all(np.abs(counts - 4000) < 5 * math.sqrt(4000))


def test_expovariate_zero_rate_divides_by_zero():
    """CPython's expovariate(0) divides by zero: the same exception."""
    @hpcjit.njit
    def draw(lambd):
        return random.expovariate(lambd)

    with pytest.raises(ZeroDivisionError):
        draw.py_func(0.0)
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        draw(0.0)
    assert draw(3.0) > 0
