"""The operator module's functions that Numba 0.68 lists (binary, unary and
in-place), called through the module and imported by name, and passed as
first-class values to other compiled functions; small builtins of Numba's
list: tuple.index, math.nextafter, getattr with a constant name, repr.
Compared with CPython through check()."""
import math
import operator
from operator import add, iadd, neg, not_

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import assert_located_in, check

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


# ---- small builtins ----

@njit
def tuple_index(t, x):
    return t.index(x)


@pytest.mark.parametrize("t,x", [((1, 2, 3, 2), 2), ((1, 2, 3), 4), ((1.5, 2.5), 2.5)])
def test_tuple_index(t, x):
    check(tuple_index, t, x)


@pytest.mark.numba_skip("Numba 0.68 indexes only homogeneous tuples in tuple.index")
@pytest.mark.parametrize("t,x", [((1, 2.5, 3), 3), ((1, 2.5, 3), 7)])
def test_tuple_index_heterogeneous(t, x):
    check(tuple_index, t, x)


@njit
def nextafter(x, y):
    return math.nextafter(x, y)


@pytest.mark.parametrize("x,y", [(1.0, 2.0), (1.0, 0.0), (0.0, -1.0), (1, 2), (math.inf, 0.0)])
def test_math_nextafter(x, y):
    check(nextafter, x, y)


@njit
def getattr_const(z, a):
    return getattr(z, "real"), getattr(z, "imag"), getattr(a, "shape"), getattr(a, "ndim")


def test_getattr_constant_name():
    check(getattr_const, 1.5 - 2j, np.zeros((2, 3)))


@njit
def getattr_var(z, name):
    return getattr(z, name)  # getattr-var


@pytest.mark.numba_skip("hpcjit's located message; Numba refuses it too")
def test_getattr_needs_a_constant_name():
    with pytest.raises(hpcjit.errors.UnsupportedError) as ei:
        getattr_var(1.5, "real")
    assert "string constant" in str(ei.value)
    assert_located_in(__file__, ei.value, "getattr-var")


@njit
def repr_of(x):
    return repr(x)


@pytest.mark.parametrize("x", [3, -17, True, False, "abc", 'say "hi"'])
def test_repr(x):
    check(repr_of, x)


@pytest.mark.numba_skip("Numba's repr of a str puts it in single quotes as it is; hpcjit escapes as CPython")
@pytest.mark.parametrize("x", ["it's", 'both \' "', "tab\tnl\n\\", "\x01\x7f", "caf\xe9 \u20ac \xa0"])
def test_repr_str_escapes(x):
    check(repr_of, x)


@pytest.mark.numba_skip("Numba's repr of floats and None is '<object type:...>'")
@pytest.mark.parametrize("x", [1.5, 0.1, 1e20, -0.0, math.inf, None])
def test_repr_float_none(x):
    check(repr_of, x)
