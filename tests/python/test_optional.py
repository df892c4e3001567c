"""Optional values (Numba's OptionalType): None on some paths and a value on
others, in returns, variables, tuples and calls.  Every compiled function is
checked against its py_func."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check


@njit
def find(a, v):
    for i in range(a.size):
        if a[i] == v:
            return i
    return None


@njit
def use_find(a, v):
    r = find(a, v)
    if r is None:
        return -1
    return r + 100


@njit
def sum_found(a, vs):
    total = 0
    for v in vs:
        r = find(a, v)
        if r is not None:
            total += r
    return total


@pytest.mark.parametrize("v", [0.0, 3.0, 4.0, 7.5])
def test_return_none_or_index(v):
    a = np.arange(5.0)
    check(find, a, v)
    check(use_find, a, v)
    check(sum_found, a, np.array([v, 1.0, 9.0]))


@njit
def last_negative(a):
    x = None
    for v in a:
        if v < 0:
            x = v
    return x


@pytest.mark.parametrize("a", [np.array([1.0, -2.0, 3.0, -4.5]), np.array([1.0]), np.zeros(0)])
def test_variable_none_then_value(a):
    check(last_negative, a)


@njit
def falls_off_the_end(x):
    if x > 0:
        return x * 2


@pytest.mark.parametrize("x", [3, -1, 0])
def test_implicit_none_at_the_end(x):
    check(falls_off_the_end, x)


@njit
def maybe_array(n):
    if n > 0:
        return np.arange(n)
    return None


@njit
def maybe_array_sum(n):
    a = maybe_array(n)
    if a is None:
        return 0
    return a.sum()


@pytest.mark.parametrize("n", [0, 1, 4])
def test_optional_arrays(n):
    check(maybe_array, n)
    check(maybe_array_sum, n)


def test_optional_arrays_do_not_leak():
    before = hpcjit._core.memstats()
    for i in range(3000):
        maybe_array(i % 3)
        maybe_array_sum(i % 3)
    allocs, frees = hpcjit._core.memstats()
    assert allocs - before[0] == frees - before[1]


@njit
def in_tuples(a):
    return find(a, 1.0), find(a, 55.0), (find(a, 2.0), 3)


def test_tuples_with_optional_elements():
    check(in_tuples, np.arange(4.0))


@njit
def truth_and_defaults(a, v):
    r = find(a, v)
    flag = 0
    if r:  # None and 0 are false
        flag += 1
    if not r:
        flag += 10
    d = r or -5  # Optional or int: an Optional
    e = r if r is not None else 99
    return flag, d, e


@pytest.mark.parametrize("v", [0.0, 2.0, 9.0])
def test_truth_or_and_conditional(v):
    check(truth_and_defaults, np.arange(4.0), v)


@njit
def takes_optional(x):
    # an Optional argument from a jitted caller: decided at run time
    if x is None:
        return -1.0
    return x * 0.5


@njit
def passes_optional(a, v):
    return takes_optional(find(a, v)), takes_optional(3)


@pytest.mark.parametrize("v", [1.0, 8.0])
def test_optional_arguments_between_jitted_functions(v):
    check(passes_optional, np.arange(3.0), v)


@njit
def unwraps_none(a):
    r = find(a, 42.0)
    return r * 2


@njit
def stores_none(a, out):
    out[0] = find(a, 42.0)


def test_using_none_as_a_value_raises_type_error():
    a = np.arange(3.0)
    with pytest.raises(TypeError, match="expected int64, got None"):
        unwraps_none(a)
    with pytest.raises(TypeError):
        unwraps_none.py_func(a)
    # NumPy stores None into a float array as NaN; compiled code, as Numba's,
    # unwraps the Optional and raises
    with pytest.raises(TypeError, match="got None"):
        stores_none(a, np.zeros(2))


@njit
def widened(n):
    x = None
    if n > 0:
        x = 1
    if n > 5:
        x = 2.5  # Optional(int64) and float64: Optional(float64)
    return x


def test_optional_unifies_its_value_type():
    # Optional(int64) with float64 is Optional(float64): 1 comes back as 1.0
    assert widened(0) is None and widened.py_func(0) is None
    assert widened(3) == widened.py_func(3) == 1 and isinstance(widened(3), float)
    check(widened, 9)


@pytest.mark.numba_skip(reason="hpcjit's type names and diagnostics")
def test_types_and_errors(capsys):
    find(np.arange(3.0), 1.0)
    find.inspect_types()
    assert "-> OptionalType(int64)" in capsys.readouterr().out

    @njit
    def bad(n):
        x = None
        if n > 2:
            x = range(n)
        return x is None  # read after the merge: None and range must unify

    with pytest.raises(hpcjit.TypingError, match="cannot unify none and range for variable 'x'"):
        bad(3)


@njit
def prints_optional(a):
    print(find(a, 1.0), find(a, 7.0), (find(a, 2.0),))


def test_print_optional(capsys):
    prints_optional(np.arange(3.0))
    got = capsys.readouterr().out
    prints_optional.py_func(np.arange(3.0))
    assert got == capsys.readouterr().out == "1 None (2,)\n"


@njit
def equality(a, v, w):
    r = find(a, v)
    s = find(a, w)
    return r == 3, r != 3, r == s, r != s, 3.0 == r, r == True


@pytest.mark.parametrize("v,w", [(3.0, 3.0), (3.0, 50.0), (50.0, 60.0), (1.0, 2.0)])
def test_equality_with_none_is_false_not_an_error(v, w):
    check(equality, np.arange(5.0), v, w)


@njit(parallel=True)
def in_prange(a, vs):
    total = 0
    for k in hpcjit.prange(vs.size):
        r = find(a, vs[k])
        if r is not None:
            total += r
    return total


def test_optional_in_prange_bodies():
    check(in_prange, np.arange(100.0), np.array([3.0, 500.0, 7.0, 99.0] * 50))


@njit
def recursive(n):
    if n < 0:
        return None
    if n == 0:
        return 0
    r = recursive(n - 1)
    if r is None:
        return None
    return r + n


@pytest.mark.parametrize("n", [-1, 0, 5])
def test_recursive_optional(n):
    check(recursive, n)
