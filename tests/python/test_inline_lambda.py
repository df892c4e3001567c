"""A lambda written where a function value goes (a sort key, map/filter's
function) is lifted as a function of
its own (python/hpcjit/closures.py).  Compared with CPython (py_func)."""
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check

FROM_BYTECODE = bool(os.environ.get("HPCJIT_SOURCE_FROM_BYTECODE"))  # test_nosource.py


@njit
def sort_keys(n):
    lst = [((i * 7) % n) - n / 2 for i in range(n)]
    lst.sort(key=lambda x: x * x)
    m = sorted(lst, key=lambda x: -x, reverse=True)
    return lst[0], lst[-1], m[0], m[-1]


@njit
def mapped(a):
    s = 0.0
    for v in map(lambda x: x * 2.0 + 1.0, a):
        s += v
    for v in filter(lambda x: x > 1.0, a):
        s += 100.0 * v
    return s + sum([x for x in map(lambda v: v * v, a)])


@njit
def lambda_and_named(a):
    sq = lambda x: x * x  # noqa: E731
    return sq(2.0) + sum([v for v in map(lambda x: x + 0.5, a)]) + sq(3.0)


def test_sort_key_lambda():
    for n in (3, 8):
        check(sort_keys, n)


def test_map_filter_lambda():
    check(mapped, np.array([0.5, 1.5, 2.5]))


@njit
def called_at_once(x):
    return (lambda y: y + 1)(x)


def test_lambda_as_argument():
    check(called_at_once, 2.5)
    check(lambda_and_named, np.arange(3.0))


@njit
def reads_outer(a, k):
    return sorted(a, key=lambda x: x * k)


@njit
def stores_reading_outer(a, k):
    keys = [lambda x: x * k]  # U:stored_lambda
    return sorted(a, key=keys[0])


@pytest.mark.numba_skip("Numba refuses a lambda reading the enclosing function's variables as a key")
@pytest.mark.parametrize("k", [2.0, -1.0])
def test_lambda_reading_outer_variables(k):
    check(reads_outer, [1.0, -3.0, 2.0], k)


@pytest.mark.numba_skip("hpcjit's limits and messages")
def test_lambda_reading_outer_variables_stored_is_located():
    from conftest import assert_located_in
    with pytest.raises(hpcjit.UnsupportedError, match="a lambda reading 'k'") as ei:
        stores_reading_outer([1.0, 2.0], 2.0)
    assert "other than as an argument of a call" in str(ei.value)
    assert_located_in(__file__, ei.value, "U:stored_lambda")


@njit
def key_walrus(a, k):
    return sorted(a, key=lambda t: (m := t * k))  # noqa: F841


@njit
def key_yields(a, k):
    a.sort(key=lambda t: (yield t * k))  # U:yield_key
    return a


@pytest.mark.numba_skip("Numba refuses a lambda reading the enclosing function's variables as a key")
@pytest.mark.skipif(FROM_BYTECODE, reason="the decompiler refuses a lambda with an assignment expression")
def test_lambda_body_in_parentheses():
    check(key_walrus, [3.0, -1.0, 2.0], -2.0)


@pytest.mark.numba_skip("hpcjit's limits and messages")
@pytest.mark.skipif(FROM_BYTECODE, reason="a generator lambda's text is not rebuilt from bytecode")
def test_generator_lambda_as_key_is_located():
    # its lifted text once lost the parentheses around `yield` (a SyntaxError
    # with no location, found by tests/fuzz/mutate.py)
    from conftest import assert_located_in
    with pytest.raises(hpcjit.UnsupportedError) as ei:
        key_yields([1.0, 2.0], 2.0)
    assert "'yield'" in str(ei.value)
    assert_located_in(__file__, ei.value, "U:yield_key")
