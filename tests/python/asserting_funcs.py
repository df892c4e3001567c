"""Jitted functions that use `assert`.  They live outside the test modules
because pytest rewrites assert statements in test files, which would change
what py_func (and Numba, which reads bytecode) does."""
from hpcjit import njit


@njit
def with_assert(x):
    assert x > 0
    return x


@njit
def with_assert_msg(x):
    assert x != 3, "x must not be 3"
    return x
