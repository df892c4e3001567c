"""Specs return {status, value} by value: values of every kind cross calls,
exceptions unwind through recursion without leaks, and LLVM turns fib's
second recursive call into a loop."""
import gc
import re

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check


@njit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@njit
def sum_down(n, acc):
    if n == 0:
        return acc
    return sum_down(n - 1, acc + n * 0.5)


@njit
def is_pos(x):
    return x > 0


@njit
def cplx(x):
    return complex(x, -x)


@njit
def pair(n):
    return n + 1, np.arange(n) * 2.0


@njit
def nothing(a):
    a[0] = 7.0


@njit
def make(n):
    return np.ones(n)


@njit
def use_all(n):
    a = np.zeros(3)
    nothing(a)
    k, b = pair(n)
    c = make(n)
    z = cplx(n)
    flag = is_pos(n - 2)
    return a[0] + k + b.sum() + c.sum() + z.real - z.imag, flag


@njit
def countdown_raises(n, k):
    t = np.empty(4)
    if n == k:
        raise ValueError("reached")
    if n <= 0:
        return 0
    return countdown_raises(n - 1, k) + t.size


@njit
def ping(n):
    if n <= 0:
        return 0.0
    return pong(n - 1) + 1.0


@njit
def pong(n):
    if n < 0:
        raise ValueError("negative")
    return ping(n - 1) * 2.0


@pytest.mark.parametrize("n", [0, 1, 5, 15])
def test_values_of_every_kind_cross_calls(n):
    check(fib, n)
    check(sum_down, n, 0.25)
    check(use_all, n)
    check(ping, n)


@pytest.mark.parametrize("n,k", [(5, 2), (5, 5), (0, 0), (4, -1)])
def test_exceptions_unwind_through_recursion(n, k):
    check(countdown_raises, n, k)
    check(pong, -1)


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
def test_unwinding_frees_arrays():
    with pytest.raises(ValueError):
        countdown_raises(6, 1)
    gc.collect()
    a0, f0 = hpcjit._core.memstats()
    for _ in range(100):
        with pytest.raises(ValueError):
            countdown_raises(6, 1)
        r = use_all(4)
        del r
    gc.collect()
    a1, f1 = hpcjit._core.memstats()
    assert a1 - a0 == f1 - f0


@pytest.mark.numba_skip(reason="inspects hpcjit's LLVM IR")
def test_fib_recursion_checks_the_stack():
    """A function on a call cycle checks the stack at entry (RecursionError
    instead of SIGSEGV, runtime/stack.c).  The price: the recursive calls
    may fail, so LLVM no longer turns fib's second call into a loop (it
    did before the check; README, "Deep recursion")."""
    assert fib(20) == fib.py_func(20)
    ir = fib.inspect_llvm()
    if isinstance(ir, dict):
        ir = next(iter(ir.values()))
    m = re.search(r"define internal[^\n]*@(\S+)\(.*?\n}", ir, re.S)
    assert m, ir
    body, name = m.group(0), m.group(1)
    assert "@hj.stack_hint" in body and "@rt_stack_check(" in body, body
    # the limit is the module's own (no GOT load) and no frame pointer is kept
    assert "llvm.frameaddress" not in body and "@llvm.stacksave" in body, body
    assert body.count("@" + name + "(") <= 3, body  # its definition + at most two calls