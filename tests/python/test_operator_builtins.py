"""The operator module's functions that Numba 0.68 lists (binary, unary and
in-place), called through the module and imported by name, and passed as
first-class values to other compiled functions.  Compared with CPython
through check()."""
import operator
from operator import add, iadd, neg, not_

import numpy as np
import pytest

from hpcjit import njit
from conftest import check

BINARY = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and_",
          "or_", "xor", "eq", "ne", "lt", "le", "gt", "ge"]
INPLACE = ["iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "ilshift", "irshift",
           "iand", "ior", "ixor"]
UNARY = ["neg", "pos", "invert", "not_"]


def _binary(name):
    fn = getattr(operator, name)
    return njit(lambda a, b: fn(a, b))


def _unary(name):
    fn = getattr(operator, name)
    return njit(lambda a: fn(a))


@pytest.mark.parametrize("name", BINARY + INPLACE)
@pytest.mark.parametrize("a,b", [(7, 3), (-7, 2), (5, 0)])
def test_binary_ints(name, a, b):
    check(_binary(name), a, b)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "ne",
                                  "lt", "le", "gt", "ge", "iadd", "isub", "imul", "itruediv"])
@pytest.mark.parametrize("a,b", [(7.5, 2.0), (-1.5, 4.0), (2.0, 0.25)])
def test_binary_floats(name, a, b):
    check(_binary(name), a, b)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("a", [0, 5, -3])
def test_unary(name, a):
    check(_unary(name), a)


@njit
def through_module(a, b):
    return operator.add(a, b), operator.mul(a, b), operator.lt(a, b), operator.neg(a)


@njit
def imported_names(a, b):
    return add(a, b), neg(a), not_(b)


def test_module_and_imported_names():
    check(through_module, 3, 4)
    check(through_module, 2.5, -1.0)
    check(imported_names, 3, 0)


@njit
def arrays(a, b):
    c = operator.add(a, b)
    operator.iadd(a, b)  # updates a in place, as a += b
    return c, operator.mul(a, 2.0)


def test_arrays():
    check(arrays, np.arange(4.0), np.ones(4))


@njit
def matmul(a, b):
    return operator.matmul(a, b)


def test_matmul():
    check(matmul, np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2))


@njit
def apply(f, a, b):
    return f(a, b)


@njit
def first_class(a, b):
    return apply(operator.add, a, b), apply(operator.sub, a, b), apply(iadd, a, b)


def test_first_class():
    # py_func would hand operator.add to the compiled `apply` from Python,
    # which neither compiler accepts: compare with the operators directly
    assert first_class(10, 4) == (14, 6, 14)
    assert first_class(2.5, 0.5) == (3.0, 2.0, 3.0)
