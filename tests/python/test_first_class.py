"""@njit functions as values: passed as arguments (the callee specialises
on each function), held in variables that may be one of several functions,
in tuples indexed or looped over; compared with CPython (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats
literal_unroll = hpcjit.literal_unroll


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    before = memstats()
    yield
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


@hpcjit.njit
def sq(x):
    return x * x


@hpcjit.njit
def cube(x):
    return x * x * x


@hpcjit.njit
def neg(x):
    return -x


@hpcjit.njit
def halve(x):
    return x / 2


@hpcjit.njit
def add(x, y):
    return x + y


@hpcjit.njit
def mul(x, y):
    return x * y


@hpcjit.njit
def apply(f, x):
    return f(x)


@hpcjit.njit
def twice(f, x):
    return f(f(x))


@hpcjit.njit
def fold(f, a, init):
    acc = init
    for v in a:
        acc = f(acc, v)
    return acc


@hpcjit.njit
def apply_each(f, a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = f(a[i])
    return out


@hpcjit.njit
def passes_functions(x):
    return apply(sq, x) + apply(cube, x) + twice(neg, x) + apply(halve, x)


@hpcjit.njit
def folds(a):
    return fold(add, a, 0.0), fold(mul, a, 1.0)


def test_function_arguments():
    check(passes_functions, 3)
    check(passes_functions, 2.5)
    a = np.array([1.0, 2.0, 3.5, -1.0])
    check(folds, a)


def test_function_argument_from_python():
    """A dispatcher passed from Python: the callee is compiled for it."""
    assert apply(sq, 7) == apply.py_func(sq, 7) == 49
    assert apply(cube, 2.0) == 8.0
    assert twice(neg, 5) == 5
    a = np.arange(5.0)
    np.testing.assert_array_equal(apply_each(sq, a), a * a)
    np.testing.assert_array_equal(apply_each(neg, a), -a)
    assert fold(add, a, 0.0) == fold.py_func(add, a, 0.0)


@hpcjit.njit
def choose(c, x):
    f = sq if c else cube
    return f(x)


@hpcjit.njit
def choose3(k, x):
    if k > 0:
        f = sq
    elif k < 0:
        f = neg
    else:
        f = cube
    return f(x) + f(1)


@hpcjit.njit
def choose_rebind(n, x):
    f = sq
    s = 0
    for i in range(n):
        s += f(x + i)
        f = neg if i % 2 == 0 else cube
    return s


def test_function_variable():
    for c in (True, False):
        check(choose, c, 3)
    for k in (-2, 0, 5):
        check(choose3, k, 4)
    check(choose_rebind, 5, 2)


@pytest.mark.numba_skip("Numba fixes a function variable's type to the first signature compiled")
def test_function_variable_other_types():
    for c in (True, False):
        check(choose, c, 1.5)
        check(choose, c, np.float32(2.0))


TRANSFORMS = (sq, cube, neg)


@hpcjit.njit
def loop_global_tuple(x):
    s = 0
    for f in TRANSFORMS:
        s += f(x)
    return s


@hpcjit.njit
def index_tuple(x):
    fs = (sq, cube, neg)
    s = 0
    for i in range(len(fs)):
        s += fs[i](x) * (i + 1)
    return s + fs[1](x) + fs[-1](x)


@hpcjit.njit
def pick_by_index(i, x):
    fs = (sq, neg, cube)
    return fs[i](x)


@pytest.mark.numba_skip("Numba iterates a tuple of different functions only with literal_unroll")
def test_tuple_of_functions():
    check(loop_global_tuple, 3)
    check(index_tuple, 2)
    for i in range(3):
        check(pick_by_index, i, 3)


@hpcjit.njit
def const_index(x):
    fs = (sq, cube)
    return fs[0](x) + fs[1](x)


def test_tuple_of_functions_constant_index():
    check(const_index, 3)


@hpcjit.njit
def same_function_tuple(x):
    fs = (sq, sq)
    s = 0
    for f in fs:
        s += f(x)
    return s


def test_homogeneous_tuple_of_functions():
    check(same_function_tuple, 4)


@hpcjit.njit
def inner_lambda_arg(a):
    return apply_each(sq, a) + fold(add, a, 1.0)


def test_function_arguments_with_arrays():
    check(inner_lambda_arg, np.linspace(0.0, 1.0, 7))


@hpcjit.njit
def in_containers(x):
    fs = [sq, cube]
    fs.append(sq)
    s = 0
    for f in fs:
        s += f(x)
    d = {1: sq, 2: cube}
    return s + d[2](x) + fs[-1](x)


@pytest.mark.numba_skip("Numba has no lists or dicts of functions")
def test_functions_in_containers(balanced):
    check(in_containers, 3)


@hpcjit.njit
def lambda_value(c, x):
    inc = lambda v: v + 1  # noqa: E731  (reads nothing of the enclosing function)
    dec = lambda v: v - 1  # noqa: E731
    f = inc if c else dec
    return f(x) + f(f(x))


def test_named_lambda_as_value():
    for c in (True, False):
        check(lambda_value, c, 3)


@hpcjit.cfunc("float64(float64)")
def c_half(x):
    return x / 2.0


@hpcjit.njit
def calls_cfunc(x):
    return c_half(x) + apply(c_half, x + 1.0)


def test_cfunc_as_function():
    check(calls_cfunc, 3.0)
    assert apply(c_half, 5.0) == 2.5


@hpcjit.njit
def unroll_functions(fs, x):
    s = 0
    for f in literal_unroll(fs):
        s += f(x)
    return s


@hpcjit.njit
def loop_functions(fs, x):
    s = 0
    for f in fs:
        s += f(x)
    return s + fs[0](x)


def test_tuple_of_functions_from_python():
    assert unroll_functions((sq, cube), 3) == unroll_functions.py_func((sq, cube), 3) == 36
    assert unroll_functions((sq, cube, neg), 2) == 2 ** 2 + 2 ** 3 - 2


@pytest.mark.numba_skip("Numba iterates a tuple of different functions only with literal_unroll")
def test_tuple_of_functions_from_python_loop():
    for _ in range(2):  # the second call reuses the compiled wrapper
        assert loop_functions((sq, cube), 3) == loop_functions.py_func((sq, cube), 3) == 45


# ---- located errors ---------------------------------------------------------

@hpcjit.njit
def different_returns(c, x):
    f = sq if c else halve  # int64 -> int64 and int64 -> float64
    return f(x)


@hpcjit.njit
def different_arity(c, x):
    f = sq if c else add
    return f(x)


@hpcjit.njit
def returns_function(c):
    return sq


@hpcjit.njit
def returns_list_of_functions(c):
    return [sq, cube]


@pytest.mark.numba_skip("hpcjit's messages")
def test_errors():
    with pytest.raises(hpcjit.TypingError, match="different signatures") as ei:
        different_returns(True, 3)
    assert "test_first_class.py" in str(ei.value) and "return f(x)" in str(ei.value)
    with pytest.raises(hpcjit.TypingError, match="take different arguments"):
        different_arity(True, 3)
    with pytest.raises(hpcjit.TypingError, match="cannot be returned to Python"):
        returns_function(True)
    with pytest.raises(hpcjit.TypingError, match="cannot be returned to Python"):
        returns_list_of_functions(True)
