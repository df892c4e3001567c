"""reversed() as the iterable of a for loop (ranges with any step, arrays
of any ndim and layout, homogeneous tuples, inside enumerate/zip),
compared with CPython (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import check, make_array

# Numba 0.68 has no reversed() ("Untyped global name 'reversed'")
pytestmark = pytest.mark.numba_skip(reason="Numba does not support reversed()")


@hpcjit.njit
def rev_range(start, stop, step):
    out = 0
    for i in reversed(range(start, stop, step)):
        out = out * 31 + i
    return out


@hpcjit.njit
def rev_array(a):
    s = 0.0
    k = 0
    for x in reversed(a):
        s += (k + 1) * x
        k += 1
    return s


@hpcjit.njit
def rev_rows(a):
    s = 0.0
    k = 1
    for row in reversed(a):
        s += k * row.sum()
        k += 1
    return s


@hpcjit.njit
def rev_tuple(t):
    out = 0
    for v in reversed(t):
        out = out * 10 + v
    return out


@hpcjit.njit
def rev_nested(a):
    s = 0.0
    for i, (x, y) in enumerate(zip(reversed(a), a)):
        s += i * x - y
    return s


@pytest.mark.parametrize("args", [(0, 10, 1), (2, 17, 3), (10, 0, -2), (5, 5, 1), (-3, 4, 2)])
def test_range(args):
    check(rev_range, *args)


@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_arrays(layout):
    check(rev_array, make_array(np.float64, 7, layout))
    check(rev_rows, make_array(np.float64, (3, 4), layout))


def test_tuple_and_nested():
    check(rev_tuple, (1, 2, 3, 4))
    check(rev_nested, np.arange(5.0))


@pytest.mark.numba_skip(reason="hpcjit's message")
def test_not_reversible():
    def f(a):
        for x in reversed(enumerate(a)):
            pass

    with pytest.raises(hpcjit.TypingError, match="not reversible"):
        hpcjit.njit(f)(np.arange(3.0))
