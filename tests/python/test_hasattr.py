"""hasattr(obj, "name") with a constant name: decided at compile time from
obj's type, as Numba 0.68 does (whether typing resolves the attribute), so
a branch on it on an argument is never typed when it cannot run.  Each
compiled function is compared with its py_func through check(); bad uses
are located errors."""
import os
from collections import namedtuple

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, types
from conftest import AGAINST_NUMBA, assert_located_in, check

if AGAINST_NUMBA:
    from numba.experimental import jitclass
else:
    from hpcjit.experimental import jitclass


class Counter:
    def __init__(self, x):
        self.x = x

    def bump(self):
        self.x += 1
        return self.x

    @property
    def double(self):
        return 2 * self.x


CounterJ = jitclass([("x", types.int64)])(Counter)
NT = namedtuple("NT", "a b")


def has(obj):
    return (hasattr(obj, "x"), hasattr(obj, "y"), hasattr(obj, "bump"), hasattr(obj, "double"),
            hasattr(obj, "a"), hasattr(obj, "shape"), hasattr(obj, "sum"), hasattr(obj, "append"),
            hasattr(obj, "upper"), hasattr(obj, "real"), hasattr(obj, "conjugate"), hasattr(obj, "foo"))


has_j = njit(has)


@pytest.mark.parametrize("obj", [
    1, 2.5, 1j, np.arange(3.0), [1, 2], "abc", NT(1, 2.0), (1, 2),
    pytest.param(True, marks=pytest.mark.numba_skip("Numba's bool has no .real (CPython's has)")),
])
def test_builtin_types(obj, balanced):
    check(has_j, obj)


def test_jitclass_instance(balanced):
    got = has_j(CounterJ(3))
    assert got == has(Counter(3)) == (True, False, True, True) + (False,) * 8


@njit
def field_or_default(obj):
    if hasattr(obj, "x"):
        return obj.x  # only typed where obj has x
    return -1


@njit
def other_field_or_default(obj):
    if not hasattr(obj, "b"):
        return -1.0
    return obj.b * 2


def test_branches_on_arguments(balanced):
    assert field_or_default(CounterJ(7)) == 7
    check(field_or_default, NT(1, 2))
    check(field_or_default, 3.5)
    check(other_field_or_default, NT(1, 2.5))
    check(other_field_or_default, np.arange(2))


@njit
def on_a_local(n):
    t = NT(n, 2 * n)
    return hasattr(t, "a"), hasattr(t, "c"), hasattr(np, "sum")


@njit
def missing_module_attribute():
    return hasattr(np, "no_such_function")


def test_locals_and_modules(balanced):
    check(on_a_local, 4)


@pytest.mark.numba_skip("Numba raises AttributeError for a module attribute that does not exist")
def test_missing_module_attribute():
    check(missing_module_attribute)


@njit
def plus_one(n):
    return n + 1


@njit
def zeros(n):
    return np.zeros(n)


@njit
def local_if(n):
    x = plus_one(n)  # int64: the branch on its shape is never typed
    if hasattr(x, "shape"):
        return x.shape[0]
    return x


@njit
def local_if_array(n):
    x = zeros(n)
    if hasattr(x, "shape"):
        return x.shape[0]
    return -1


@njit
def local_if_not(n):
    x = plus_one(n)
    if not hasattr(x, "shape"):
        return x
    return x.shape[0]  # after the kept return: unreachable, never typed


@njit
def local_ifexp(n):
    x = plus_one(n)
    return x.shape[0] if hasattr(x, "shape") else x


@njit
def local_else_branch(n):
    x = NT(n, 2.5)
    if hasattr(x, "c") or hasattr(x, "d"):
        y = x.c
    else:
        y = x.b * 2
    return y


@njit
def on_an_expression(n):
    if hasattr(plus_one(n), "shape"):
        return plus_one(n).shape[0]
    if hasattr(zeros(n), "shape") and n > 1:
        return zeros(n).shape[0] + 100
    return 0


@njit
def in_a_loop(n):
    s = 0
    for i in range(n):
        x = plus_one(i)
        if hasattr(x, "append"):
            x.append(1)
        else:
            s += x
    return s


@pytest.mark.parametrize("fn,arg", [
    (local_if, 3), (local_if_array, 3), (local_if_not, 3), (local_ifexp, 3),
    (local_else_branch, 3), (on_an_expression, 3), (on_an_expression, 1), (in_a_loop, 5),
])
def test_branches_on_locals_and_expressions(fn, arg, balanced):
    check(fn, arg)


@njit
def name_not_constant(obj, name):
    return hasattr(obj, name)  # not-const


@njit
def one_argument(obj):
    return hasattr(obj)  # one-arg


@pytest.mark.numba_skip("hpcjit's located messages; Numba refuses these too")
@pytest.mark.parametrize("fn,args,words,marker", [
    (name_not_constant, (1, "x"), "string constant", "not-const"),
    (one_argument, (1,), "hasattr() takes 2 arguments", "one-arg"),
])
def test_bad_uses_are_located(fn, args, words, marker):
    with pytest.raises(hpcjit.errors.TypingError) as ei:
        fn(*args)
    assert words in str(ei.value)
    assert_located_in(os.path.abspath(__file__), ei.value, marker)
