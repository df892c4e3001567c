"""literal_unroll (hpcjit.literal_unroll, numba.literal_unroll): a for loop
over a heterogeneous tuple runs one copy of its body per element, typed
with that element's type; compared with CPython (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import check

literal_unroll = hpcjit.literal_unroll


@hpcjit.njit
def mixed_sum(t):
    s = 0.0
    for x in literal_unroll(t):
        s += x * 2
    return s


@hpcjit.njit
def arrays(t):
    s = 0.0
    n = 0
    for a in literal_unroll(t):
        s += a.sum()
        n += a.ndim
    return s, n


@hpcjit.njit
def local_tuple(x):
    t = (1, x, 2.5, True)
    s = 0.0
    k = 0
    for v in literal_unroll(t):
        s += v + k
        k += 1
    return s, k


def test_heterogeneous_tuples():
    check(mixed_sum, (1, 2.5, True))
    check(mixed_sum, (np.float32(1.5), 3, np.int8(-2), 1j))
    check(arrays, (np.arange(3.0), np.ones((2, 3)), np.arange(4, dtype=np.int32)))
    check(local_tuple, 7)
    check(local_tuple, 0.25)


@hpcjit.njit
def control(t, stop):
    s = 0.0
    for x in literal_unroll(t):
        if x == 2:
            continue
        if x > stop:
            break
        s += x
    else:
        s += 1000
    return s


def test_break_continue_else():
    t = (1, 2.0, 3, 4.5, np.int16(6))
    for stop in (0, 3.5, 5, 100):
        check(control, t, stop)


@hpcjit.njit
def sq(x):
    return x * x


@hpcjit.njit
def half(x):
    return x / 2


@hpcjit.njit
def over_functions(x):
    s = 0.0
    for f in literal_unroll((sq, half, sq)):
        s += f(x)
    return s


def test_tuple_of_functions():
    check(over_functions, 3)
    check(over_functions, 1.5)


@hpcjit.njit
def nested(t, u):
    s = 0.0
    for x in literal_unroll(t):
        for y in literal_unroll(u):
            s += x * y
    return s


@pytest.mark.numba_skip("Numba refuses nested literal_unroll loops")
def test_nested():
    check(nested, (1, 2.5), (3, True, np.float32(0.5)))


@hpcjit.njit
def homogeneous(t):
    s = 0
    for x in literal_unroll(t):
        s += x
    return s


@hpcjit.njit
def over_array(a):
    s = 0.0
    for x in literal_unroll(a):
        s += x
    return s


def test_homogeneous():
    check(homogeneous, (1, 2, 3))


@pytest.mark.numba_skip("Numba takes only tuples as literal_unroll arguments")
def test_array_loops_as_usual():
    check(over_array, np.arange(5.0))


@hpcjit.njit
def numba_spelling(t):
    import_free = 0.0
    for x in numba_literal_unroll(t):
        import_free += x
    return import_free


try:
    import numba
    numba_literal_unroll = numba.literal_unroll
except ImportError:  # pragma: no cover - numba is a test dependency
    numba_literal_unroll = None


@pytest.mark.skipif(numba_literal_unroll is None, reason="numba not installed")
def test_numba_literal_unroll():
    check(numba_spelling, (1, 2.5, False))


@hpcjit.njit
def attribute_spelling(t):
    s = 0.0
    for x in hpcjit.literal_unroll(t):
        s += x
    return s


@pytest.mark.numba_skip("Numba recognises literal_unroll as a global name only")
def test_attribute_spelling():
    check(attribute_spelling, (1, 2.5))


@hpcjit.njit
def conflicting(t):
    y = 0
    for x in literal_unroll(t):
        y = x
    return y


@hpcjit.njit
def empty():
    s = 0
    for x in literal_unroll(()):
        s += x
    return s


@pytest.mark.numba_skip("hpcjit's messages")
def test_errors():
    with pytest.raises(hpcjit.TypingError, match="cannot unify") as ei:
        conflicting((1, np.arange(3.0)))
    assert "test_literal_unroll.py" in str(ei.value)
    with pytest.raises(hpcjit.TypingError, match="empty tuple"):
        empty()


@hpcjit.njit
def by_isinstance(t, n):
    tot = 0.0
    names = 0
    for it in literal_unroll(t):
        if isinstance(it, str):
            names += len(it)
        elif isinstance(it, tuple):
            tot += it[0] + it[1]
        elif isinstance(it, (int, float)) and not isinstance(it, bool):
            tot += it * n
        else:
            tot += 1000.0 if it else -1000.0
    return tot, names


@hpcjit.njit
def by_isinstance_arrays(t):
    tot = 0.0
    for it in literal_unroll(t):
        tot += it.sum() if isinstance(it, np.ndarray) else it
    return tot


def test_isinstance_decides_each_copy():
    # each element's copy of the body keeps only the arm its type takes
    check(by_isinstance, (1, 2.5, "abc", (4, 5), True, "de"), 3)
    check(by_isinstance, ("x", False), 2)


@pytest.mark.numba_skip("Numba's isinstance() does not know np.ndarray")
def test_isinstance_ndarray_copies():
    check(by_isinstance_arrays, (np.arange(3.0), 2.5, np.ones((2, 2)), 4))
