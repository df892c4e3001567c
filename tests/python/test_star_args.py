"""`def f(a, *args)`: the arguments past the other parameters arrive as one
tuple, packed by the dispatcher for calls from Python (after Python binds
keywords and defaults) and by inference for calls from compiled code, as
in Numba.  Checked against CPython through check()."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check


@njit
def total(a, *args):
    s = a
    for v in args:
        s += v
    return s + len(args)


@njit
def first_and_last(*args):
    return args[0] * 2, args[-1], len(args)


@njit
def with_default(a, b=10, *rest):
    return a + b + len(rest)


@njit
def forward(*args):
    return total(*args)


@njit
def calls_from_compiled(x):
    return total(x, 1, 2) + total(x, 2.5) + first_and_last(x, "s")[0] + with_default(x) + with_default(x, 1, 2, 3)


@njit
def array_args(*arrays):
    s = 0.0
    for a in arrays:
        s += a.sum()
    return s


@pytest.mark.parametrize("args", [(1, 2, 3, 4), (1, 2), (1.5, 2.0), (3, 4.5), (True, 2, 3)])
def test_from_python(args):
    check(total, *args)


@pytest.mark.parametrize("args", [(3, "a", np.ones(2)), (2.5,), (np.arange(3), 1j)])
def test_heterogeneous(args):
    check(first_and_last, *args)


@pytest.mark.parametrize("args,kwargs", [((1,), {}), ((1, 2), {}), ((1, 2, 3, 4), {}), ((), {"a": 1, "b": 3}),
                                         ((1,), {"b": 5})])
def test_defaults_and_keywords_before_star(args, kwargs):
    assert with_default(*args, **kwargs) == with_default.py_func(*args, **kwargs)


def test_star_call_and_calls_from_compiled_code():
    check(forward, 1, 2, 3)
    check(calls_from_compiled, 5)
    check(calls_from_compiled, 0.5)


def test_tuple_of_arrays():
    check(array_args, np.ones(3), np.arange(4.0), np.ones(5))


def test_one_compilation_per_argument_types():
    total(1, 2, 3)
    total(4, 5, 6)
    total(1, 2.0)
    assert len(total.signatures) >= 2
    if not AGAINST_NUMBA:
        assert any("UniTuple(int64 x 2)" in str(s) for s in total.signatures)


@pytest.mark.numba_skip("hpcjit's message")
def test_kwargs_still_refused():
    def kw(a, **kw):
        return a

    with pytest.raises(hpcjit.errors.UnsupportedError, match=r"\*\*kwargs"):
        njit(kw)(1)
