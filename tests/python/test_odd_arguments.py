"""Odd arguments that once crashed the compiler, found by the fuzzers
(tests/fuzz/mutate.py, tests/fuzz/api_sweep.py): None where an integer or
an array is required is a located TypingError, and a constant axis out of
range raises NumPy's AxisError when the call runs, as NumPy does."""
import random

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

NS = pytest.mark.numba_skip


@njit
def expand_none(a):
    return np.expand_dims(a, None)


@njit
def swap_none(b):
    return np.swapaxes(b, None, None)


@njit
def move_none(b):
    return np.moveaxis(b, 0, None)


@njit
def multinomial_none(p):
    return np.random.multinomial(None, p)


@njit
def cov_none(a):
    return np.cov(None)


@njit
def randint_none(x):
    return random.randint(x, None)


@njit
def getrandbits_none(x):
    return random.getrandbits(None)


@njit
def randrange_none(x):
    return random.randrange(None, x)


@njit
def integers_none(x):
    rng = np.random.default_rng(1)
    return rng.integers(None)


@njit
def spacing_complex(c):
    return np.spacing(c)


CASES = [(expand_none, (np.ones(3),), "expand_dims() axis must be an integer, not None"),
         (swap_none, (np.ones((2, 3)),), "swapaxes() axis1 must be an integer, not None"),
         (move_none, (np.ones((2, 3)),), "moveaxis() destination must be an integer, not None"),
         (multinomial_none, (np.ones(3) / 3,), "multinomial() n must be an integer, not None"),
         (cov_none, (np.ones(3),), "cov() needs a 1-D or 2-D array for m, not none"),
         (randint_none, (3,), "randint() b must be an integer, not None"),
         (getrandbits_none, (3,), "getrandbits() k must be an integer, not None"),
         (randrange_none, (3,), "randrange() start must be an integer, not None"),
         (integers_none, (3,), "integers() low must be an integer, not None"),
         (spacing_complex, (1 + 2j,), "np.spacing() is not defined for complex numbers")]


@pytest.mark.parametrize("f,args,msg", CASES, ids=[c[0].py_func.__name__ for c in CASES])
def test_none_for_a_required_argument(f, args, msg):
    with pytest.raises(hpcjit.TypingError) as ei:
        f(*args)
    if not AGAINST_NUMBA:
        text = str(ei.value)
        assert msg in text and "test_odd_arguments.py:" in text and "^" in text, text


@njit
def sum_axis_m3(b):
    return np.sum(b, -3)


@njit
def mean_axis_2(b):
    return np.mean(b, 2)


@njit
def amax_axis_m3(b):
    return np.amax(b, -3)


@NS("Numba refuses a constant axis out of range at compile time")
@pytest.mark.parametrize("f", [sum_axis_m3, mean_axis_2, amax_axis_m3])
def test_constant_axis_out_of_range(f):
    b = np.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError) as want:
        f.py_func(b)
    with pytest.raises(np.exceptions.AxisError) as got:
        f(b)
    assert str(got.value) == str(want.value)
    check(f, np.ones((2, 3, 4)))


@njit
def optional_none_bounds(x):
    rng = np.random.default_rng(1)
    return rng.integers(x, None), random.randrange(x, None)


@NS("Numba has no None for these bounds")
def test_none_where_none_is_allowed():
    """integers(low, high=None) and randrange(start, stop=None) draw from
    [0, low) and [0, start), as NumPy and CPython do."""
    for _ in range(20):
        i, r = optional_none_bounds(3)
        assert 0 <= i < 3 and 0 <= r < 3
    i, r = optional_none_bounds.py_func(3)
    assert 0 <= i < 3 and 0 <= r < 3
