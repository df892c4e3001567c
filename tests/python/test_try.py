"""try/except/else/finally in compiled code, compared with CPython
(py_func): exceptions from raise statements, from checks in compiled code
(division by zero, bounds), from callees; handler order, tuples of
classes, the builtin hierarchy, bare except, re-raise, loops."""
import numpy as np
import pytest

import hpcjit
from conftest import check

# Numba matches only `except Exception` and bare `except`; hpcjit matches
# classes, tuples of classes and the builtin hierarchy as CPython
SPECIFIC = pytest.mark.numba_skip(reason="Numba catches only Exception (or bare except)")


@hpcjit.njit
def safe_div(a, b):
    try:
        return a // b
    except ZeroDivisionError:
        return -1


@hpcjit.njit
def hierarchy(x):
    try:
        if x == 0:
            raise ValueError("zero")
        if x == 1:
            raise KeyError("one")
        if x == 2:
            return 10 // (x - 2)
        if x == 3:
            raise RuntimeError("three")
        return x
    except LookupError:
        return -1
    except (ValueError, ArithmeticError):
        return -2
    except Exception:
        return -3


@hpcjit.njit
def with_else(x):
    r = 0
    try:
        r = 100 // x
    except ZeroDivisionError:
        r = -5
    else:
        r += 1
    return r


@hpcjit.njit
def bare(x):
    try:
        if x < 0:
            raise ValueError("neg")
        return 1.0 / x
    except:  # noqa: E722
        return 0.0


@hpcjit.njit
def reraise(x):
    try:
        if x > 3:
            raise ValueError("too big")
    except ValueError:
        raise
    return x


@hpcjit.njit
def not_caught(x):
    try:
        if x > 3:
            raise IndexError("x")
    except ValueError:
        return -1
    return x


@hpcjit.njit
def inner(x):
    if x > 5:
        raise ValueError("from the callee")
    return x * 2


@hpcjit.njit
def outer(x):
    try:
        return inner(x)
    except ValueError:
        return -1


@hpcjit.njit
def in_loop(n):
    s = 0
    for i in range(n):
        try:
            s += 12 // (i - 3)
        except ZeroDivisionError:
            s += 1000
            continue
        s += 1
    return s


@hpcjit.njit
def nested(x):
    try:
        try:
            return 10 // x
        except ValueError:
            return -1
    except ZeroDivisionError:
        return -2


@hpcjit.njit(boundscheck=True)
def bounds(a, i):
    try:
        return a[i]
    except IndexError:
        return -1.0


@hpcjit.njit
def arrays_released(n):
    s = 0.0
    for i in range(n):
        try:
            t = np.ones(100) * i
            if i % 2:
                raise ValueError("odd")
            s += t.sum()
        except ValueError:
            s -= 1.0
    return s


@SPECIFIC
@pytest.mark.parametrize("b", [3, 0, -2])
def test_caught_zero_division(b):
    check(safe_div, 7, b)


@SPECIFIC
@pytest.mark.parametrize("x", range(6))
def test_hierarchy_and_order(x):
    check(hierarchy, x)


@SPECIFIC
@pytest.mark.parametrize("x", [4, 0])
def test_else(x):
    check(with_else, x)


@pytest.mark.parametrize("x", [2.0, -1.0, 0.0])
def test_bare_except(x):
    check(bare, x)


@SPECIFIC
@pytest.mark.parametrize("x", [1, 5])
def test_reraise_and_uncaught(x):
    check(reraise, x)
    check(not_caught, x)


@SPECIFIC
@pytest.mark.parametrize("x", [3, 9])
def test_from_callee(x):
    check(outer, x)


@SPECIFIC
def test_loop_continue():
    check(in_loop, 8)


@SPECIFIC
@pytest.mark.parametrize("x", [5, 0])
def test_nested(x):
    check(nested, x)


@SPECIFIC
@pytest.mark.parametrize("i", [1, -1, 9])
def test_bounds(i):
    check(bounds, np.arange(4.0), i)


@hpcjit.njit
def generic_outer(x):
    try:
        return inner(x)
    except Exception:
        return -1


@hpcjit.njit
def generic_loop(n):
    s = 0
    for i in range(n):
        try:
            if i == 3:
                raise ValueError("three")
            s += i
        except Exception:
            s += 1000
    return s


@pytest.mark.parametrize("x", [3, 9])
def test_except_exception(x):
    check(generic_outer, x)
    check(generic_loop, 6)


@pytest.mark.numba_skip(reason="hpcjit's memory statistics")
def test_temporaries_released():
    arrays_released(4)
    before = hpcjit.memstats()
    assert arrays_released(10) == arrays_released.py_func(10)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@hpcjit.njit
def with_finally(x):
    log = 0
    try:
        log += 1
        if x:
            raise ValueError("x")
        log += 10
    except ValueError:
        log += 100
    finally:
        log += 1000
    return log


@hpcjit.njit
def finally_propagates(x):
    r = 0
    try:
        try:
            if x:
                raise KeyError("k")
            r = 1
        finally:
            r += 10
    except KeyError:
        r += 100
    return r


@pytest.mark.numba_skip(reason="Numba does not support 'finally'")
@pytest.mark.parametrize("x", [0, 1])
def test_finally(x):
    check(with_finally, x)
    check(finally_propagates, x)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_refused_forms():
    def bind(x):
        try:
            return 1 // x
        except ZeroDivisionError as e:
            return len(str(e))  # the exception read: refused (bound and unread: test_except_as_unread)

    with pytest.raises(hpcjit.UnsupportedError, match="as e"):
        hpcjit.njit(bind)(1)

    def ret_in_finally(x):  # both leave: the finally's return would win
        try:
            return x
        finally:
            return x + 1

    with pytest.raises(hpcjit.UnsupportedError, match="finally"):
        hpcjit.njit(ret_in_finally)(1)

    def bare_raise(x):
        raise

    with pytest.raises(hpcjit.TypingError, match="outside an except"):
        hpcjit.njit(bare_raise)(1)


# ---- exceptions with arguments, the program's own classes (test_exceptions.py
# raises them; handlers here: the bytecode decompiler of test_nosource.py
# does not rebuild try statements) -------------------------------------------

from test_exceptions import AppError, ParseError, Unrelated, _args_of, raise_own  # noqa: E402


@hpcjit.njit
def args_caught_and_reraised(x):
    try:
        raise ValueError("inner", x)
    except ValueError:
        raise


@pytest.mark.numba_skip("Numba 0.68 refuses a bare raise in a handler (UnsupportedBytecodeError)")
def test_exception_arguments_through_reraise():
    assert _args_of(args_caught_and_reraised, 7) == (ValueError, ("inner", 7))
    assert _args_of(args_caught_and_reraised.py_func, 7) == (ValueError, ("inner", 7))


@hpcjit.njit
def catch_own(kind):
    try:
        raise_own(kind, 3)
    except Unrelated:
        return 10
    except ParseError:
        return 1
    except AppError:
        return 2
    return 0


@hpcjit.njit
def catch_by_builtin_base(kind):
    try:
        raise_own(kind, 3)
    except ValueError:
        return 1
    except Exception:
        return 2
    return 0


@pytest.mark.numba_skip("Numba 0.68 matches handlers against Exception only")
@pytest.mark.parametrize("kind", range(5))
def test_own_exception_class_caught(kind):
    check(catch_own, kind)
    check(catch_by_builtin_base, kind)


# ---- an index out of range where the program catches IndexError ----

@hpcjit.njit
def caught_out_of_range(a, i, j):
    hits = 0
    try:
        hits += int(a[i, j])
    except IndexError:
        hits += 100
    try:
        a[i, 0] = 7.0
    except LookupError:
        hits += 1000
    try:
        hits += int(a[0][j])
    except Exception:
        hits += 10000
    return hits


@pytest.mark.numba_skip(reason="Numba reads out of bounds unless boundscheck=True")
def test_index_error_caught():
    a = np.arange(6.0).reshape(2, 3)
    for i, j in ((0, 0), (1, 2), (-2, -3), (2, 0), (0, 3), (-3, 1), (1, -4), (5, 5)):
        check(caught_out_of_range, a, i, j)


@hpcjit.njit
def bound_unread(n):
    try:
        if n > 5:
            raise ValueError("too large")
        out = n
    except ValueError as e:  # noqa: F841  bound, never read
        out = -1
    except (KeyError, IndexError) as err:  # noqa: F841
        out = -2
    return out


@pytest.mark.numba_skip(reason="Numba refuses 'except ... as e' even when e is not read")
def test_except_as_unread():
    for n in (3, 7):
        check(bound_unread, n)
    with pytest.raises(hpcjit.UnsupportedError, match="reading the exception"):
        hpcjit.njit(_reads_exc)(1)


def _reads_exc(n):
    try:
        raise ValueError("x")
    except ValueError as e:
        return len(str(e))
