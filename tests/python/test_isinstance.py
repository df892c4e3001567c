"""isinstance() decided at compile time from the argument's type, with the
branch that cannot run pruned before typing (as Numba), compared with
CPython (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import check


@hpcjit.njit
def dispatch(x):
    if isinstance(x, np.ndarray):
        return x.sum()  # typed only when x is an array
    elif isinstance(x, (int, float)):
        return x * 2.0
    return -1.0


@hpcjit.njit
def kinds(x):
    return isinstance(x, int), isinstance(x, float), isinstance(x, complex), isinstance(x, tuple)


@hpcjit.njit
def not_instance(x):
    if not isinstance(x, tuple):
        return x + 1
    return x[0]


@pytest.mark.numba_skip(reason="Numba's isinstance does not take np.ndarray")
@pytest.mark.parametrize("x", [np.arange(4.0), 3, 2.5, 1j + 2])
def test_pruned_dispatch(x):
    check(dispatch, x)


@pytest.mark.parametrize("x", [3, 2.5, 1j, (1, 2)])
def test_kinds(x):
    check(kinds, x)


@pytest.mark.parametrize("x", [4, (7, 8)])
def test_negated(x):
    check(not_instance, x)


@pytest.mark.numba_skip(reason="hpcjit's message")
def test_undecidable_class():
    def f(x):
        return isinstance(x, np.float64)

    with pytest.raises(hpcjit.UnsupportedError, match="isinstance"):
        hpcjit.njit(f)(1.0)
