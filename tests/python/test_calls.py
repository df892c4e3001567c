"""Calls between @njit functions: globals, closures, recursion, frozen
numeric globals."""
import math

import numpy as np
import pytest

from hpcjit import njit
from conftest import check, make_array

SCALE = 3
OFFSET = 0.25
FLAG = True
CPLX = 1 + 2j
TUP = (1, 2, 3)


@njit
def square(x):
    return x * x


@njit
def hyp(a, b):
    return math.sqrt(square(a) + square(b))


@njit
def poly(x):
    return square(x) * SCALE + OFFSET


@njit
def both_types(n):
    # square is specialised for int64 and for float64 in the same caller
    return square(n), square(n * 0.5)


@njit
def fill(a, v):
    for i in range(a.shape[0]):
        a[i] = v


@njit
def make(n):
    a = np.empty(n)
    fill(a, 2.5)
    return a


@njit
def minmax(a):
    lo = a[0]
    hi = a[0]
    for x in a:
        lo = min(lo, x)
        hi = max(hi, x)
    return lo, hi


@njit
def spread(a):
    lo, hi = minmax(a)
    return hi - lo


@njit
def with_default(x, y=10, z=0.5):
    return x * y + z


@njit
def calls_with_keywords(x):
    return with_default(x), with_default(x, 2), with_default(x, z=1.5), with_default(y=3, x=x)


def test_global_calls():
    check(hyp, 3.0, 4.0)
    check(hyp, 3, 4)
    check(poly, 2)
    check(poly, -1.5)
    check(both_types, 7)


def test_calls_with_arrays():
    check(make, 5)
    check(spread, make_array(np.float64, 20))
    check(spread, make_array(np.int32, 20, "strided"))


def test_keyword_arguments_and_defaults_in_calls():
    check(calls_with_keywords, 3)
    check(calls_with_keywords, 2.5)


def test_closure_calls():
    @njit
    def inner(x):
        return x + 1

    k = 5  # a frozen numeric closure variable

    @njit
    def outer(x):
        return inner(x) * k + inner(inner(x))

    check(outer, 4)
    check(outer, 1.5)


def make_adder(n):
    @njit
    def add_n(x):
        return x + n
    return add_n


def test_closure_factories():
    add2 = make_adder(2)
    add7 = make_adder(7)
    check(add2, 1)
    check(add7, 1)
    check(add2, 0.5)


@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@njit
def fact(n):
    if n <= 1:
        return 1.0
    return n * fact(n - 1)


@njit
def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


@njit
def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


@njit
def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


@njit
def gcd_rec(a, b):
    return a if b == 0 else gcd_rec(b, a % b)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 20])
def test_self_recursion(n):
    check(fib, n)
    check(fact, n)


def test_fib_value():
    assert fib(25) == 75025


def test_self_recursion_with_signature():
    # the signature compiles at decoration, before the name is bound
    @njit("int64(int64)")
    def fib_sig(n):
        if n < 2:
            return n
        return fib_sig(n - 1) + fib_sig(n - 2)

    @njit(["float64(float64, int64)"])
    def power(x, k):
        return 1.0 if k == 0 else x * power(x, k - 1)

    assert len(fib_sig.signatures) == 1
    check(fib_sig, 20)
    check(power, 1.5, 7)


@pytest.mark.parametrize("n", [0, 1, 7, 10, 101])
def test_mutual_recursion(n):
    check(is_even, n)
    check(is_odd, n)


def test_deeper_recursion():
    check(ackermann, 2, 3)
    check(gcd_rec, 1071, 462)
    check(gcd_rec, 17, 5)


@njit
def read_globals(x):
    return x * SCALE + OFFSET, FLAG, CPLX * x, TUP[1] + x


def test_numeric_globals():
    check(read_globals, 2)
    check(read_globals, 1.5)


LIMIT = 10


@njit
def below_limit(x):
    return x < LIMIT


def test_globals_are_frozen_at_compile_time():
    global LIMIT
    assert below_limit(5) is True
    LIMIT = 3
    try:
        # the int64 specialisation was compiled with LIMIT == 10
        assert below_limit(5) is True
        assert below_limit.py_func(5) is False
    finally:
        LIMIT = 10


@njit
def uses_numpy_and_math(x):
    return np.sqrt(x) + math.floor(x) + np.exp(x) * math.pi


def test_module_functions():
    check(uses_numpy_and_math, 2.25)


@njit
def deep_chain(x):
    return poly(hyp(x, square(x)))


def test_chain_of_calls():
    check(deep_chain, 1.5)
    check(deep_chain, 3)


@njit
def builtin_sums(a, n, t):
    return sum(a), sum(range(n)), sum(range(n, 0, -2)), sum(t), sum(a, 10), sum(t, 0.5), sum(()), sum(a[::-2])


@pytest.mark.parametrize("a,n,t", [
    (np.arange(5.0), 7, (1, 2.5, True)),
    (np.arange(4, dtype=np.int32), 0, (3, 4)),
    (np.ones(3, dtype=np.float32) / 3, 3, (1,)),
    (np.array([True, False, True]), 5, (2.0, 1j)),
    (np.zeros(0, dtype=np.int64), -3, (np.int8(5), np.uint16(7))),  # CPython: an empty float array sums to 0 (int)
])
def test_builtin_sum(a, n, t):
    # left to right from start, as CPython (np.sum is pairwise)
    check(builtin_sums, a, n, t, rtol=1e-6)


@pytest.mark.numba_skip(reason="hpcjit's diagnostics")
def test_builtin_sum_of_2d_arrays_is_located():
    import hpcjit

    @njit
    def f(a):
        return sum(a)

    with pytest.raises(hpcjit.UnsupportedError, match=r"sum\(\) of a 2d array .* use np.sum\(a, axis=0\)"):
        f(np.ones((2, 2)))


lam_add = njit(lambda x, y: x + y)
lam_sum = njit(lambda a: (a * a).sum())
lam_scale = 3
lam_closure = njit(lambda x: x * lam_scale)
lam_multiline = njit(lambda x: (x +
                                1.5))
lam_pair = (njit(lambda q: q + 1), njit(lambda r: r * 2))
lam_none = njit(lambda: 7)


@njit
def calls_lambdas(a):
    return lam_add(a, 1) + lam_sum(np.ones(3))


@pytest.mark.parametrize("f,args", [
    (lam_add, (1, 2)), (lam_add, (1.5, np.float32(2))), (lam_sum, (np.arange(4.0),)), (lam_closure, (2,)),
    (lam_multiline, (1,)), (lam_pair[0], (1,)), (lam_pair[1], (4,)), (lam_none, ()), (calls_lambdas, (2,)),
])
def test_njit_of_a_lambda(f, args):
    check(f, *args)


@pytest.mark.numba_skip(reason="hpcjit's diagnostics")
def test_lambda_errors_point_into_the_line():
    import hpcjit
    bad = njit(lambda x: x + "s")  # the caret goes under this x
    with pytest.raises(hpcjit.TypingError) as e:
        bad(1)
    line = bad.py_func.__code__.co_firstlineno
    assert f"test_calls.py:{line}:26: error: cannot add int64 and unicode" in str(e.value)
    twins = [njit(lambda x: x + 1), njit(lambda x: x + 2)]  # the same arguments twice on a line
    assert [t(1) for t in twins] == [t.py_func(1) for t in twins] == [2, 3]  # told apart by column
