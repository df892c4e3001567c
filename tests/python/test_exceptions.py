"""Exceptions raised by compiled code propagate as the same Python
exceptions; ZeroDivisionError, error_model, boundscheck, allocation errors."""
import math

import numpy as np
import pytest

from hpcjit import njit, prange
from conftest import AGAINST_NUMBA, check, run_python
from asserting_funcs import with_assert, with_assert_msg


@njit
def raise_value_error(x):
    if x < 0:
        raise ValueError("x must be non-negative")
    return x * 2


@njit
def raise_bare(kind):
    if kind == 0:
        raise ValueError
    if kind == 1:
        raise TypeError()
    if kind == 2:
        raise RuntimeError("runtime problem")
    if kind == 3:
        raise IndexError("bad index")
    if kind == 4:
        raise KeyError("key")
    if kind == 5:
        raise ZeroDivisionError("explicit")
    if kind == 6:
        raise OverflowError("too big")
    if kind == 7:
        raise NotImplementedError("later")
    if kind == 8:
        raise ArithmeticError
    if kind == 9:
        raise AssertionError("asserted")
    return kind


@njit
def raise_in_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] < 0:
            raise ValueError("negative element")
        s += a[i]
    return s


@njit
def callee_raises(x):
    if x > 5:
        raise RuntimeError("callee failed")
    return x


@njit
def caller(x):
    t = np.zeros(3)
    y = callee_raises(x)
    return y + t[0]


def _same_message(f, *args):
    exc = check(f, *args)
    assert isinstance(exc, BaseException)
    try:
        f.py_func(*args)
    except BaseException as e:
        assert str(exc) == str(e), f"message {str(exc)!r} != CPython's {str(e)!r}"
    return exc


def test_raise_with_message():
    check(raise_value_error, 3)
    exc = _same_message(raise_value_error, -1)
    assert isinstance(exc, ValueError)


@pytest.mark.parametrize("kind", list(range(11)))
def test_builtin_exceptions(kind):
    if kind == 10:
        check(raise_bare, kind)
    elif kind == 4:
        exc = check(raise_bare, kind)
        assert isinstance(exc, KeyError)
    else:
        _same_message(raise_bare, kind)


def test_assert():
    check(with_assert, 1)
    exc = check(with_assert, 0)
    assert isinstance(exc, AssertionError)
    check(with_assert_msg, 2)
    exc = _same_message(with_assert_msg, 3)
    assert isinstance(exc, AssertionError)


def test_raise_in_loop_and_through_calls():
    check(raise_in_loop, np.array([1.0, 2.0, 3.0]))
    check(raise_in_loop, np.array([1.0, -2.0, 3.0]))
    check(caller, 1)
    exc = _same_message(caller, 10)
    assert isinstance(exc, RuntimeError)


def test_exception_does_not_poison_later_calls():
    with pytest.raises(ValueError):
        raise_value_error(-5)
    assert raise_value_error(5) == 10
    with pytest.raises(ValueError):
        raise_value_error(-5)


# ---- division by zero --------------------------------------------------------

@njit
def div(a, b):
    return a / b


@njit
def floordiv(a, b):
    return a // b


@njit
def mod(a, b):
    return a % b


@njit(error_model="numpy")
def div_np(a, b):
    return a / b


@njit(error_model="numpy")
def floordiv_np(a, b):
    return a // b


@njit(error_model="numpy")
def mod_np(a, b):
    return a % b


@njit(error_model="python")
def div_py(a, b):
    return a / b


@pytest.mark.parametrize("f", [div, floordiv, mod, div_py])
@pytest.mark.parametrize("a,b", [(1, 0), (-7, 0), (0, 0), (1.5, 0.0), (-1.5, -0.0), (0.0, 0.0), (3, 0.0),
                                 (2.5, 0)])
def test_zero_division_error(f, a, b):
    exc = check(f, a, b)
    assert isinstance(exc, ZeroDivisionError)


def test_zero_division_in_augmented_assignment():
    @njit
    def aug(a, b):
        a //= b
        return a
    assert isinstance(check(aug, 5, 0), ZeroDivisionError)


def test_error_model_numpy_floats():
    assert div_np(1.0, 0.0) == math.inf
    assert div_np(-1.0, 0.0) == -math.inf
    assert math.isnan(div_np(0.0, 0.0))
    assert math.isnan(mod_np(1.0, 0.0))
    assert floordiv_np(1.0, 0.0) == math.inf
    assert div_np(1, 0) == math.inf
    # non-zero divisors behave as usual
    assert div_np(7.0, 2.0) == 3.5 and floordiv_np(-7.0, 2.0) == -4.0 and mod_np(-7.0, 2.0) == 1.0


def test_error_model_numpy_ints_do_not_raise():
    # Numba returns 0 for integer // and % by zero under error_model="numpy"
    assert floordiv_np(7, 0) == 0
    assert mod_np(7, 0) == 0
    assert floordiv_np(-7, 2) == -4 and mod_np(-7, 2) == 1


# ---- bounds checking --------------------------------------------------------

@njit(boundscheck=True)
def get_checked(a, i):
    return a[i]


@njit(boundscheck=True)
def get2_checked(a, i, j):
    return a[i, j]


@njit(boundscheck=True)
def set_checked(a, i, v):
    a[i] = v


@pytest.mark.parametrize("i", [5, 100, -6, -100])
def test_boundscheck_raises_index_error(i):
    a = np.arange(5.0)
    exc = check(get_checked, a, i)
    assert isinstance(exc, IndexError)
    exc = check(set_checked, a, i, 1.0)
    assert isinstance(exc, IndexError)


def test_boundscheck_in_range_and_negative_wrap():
    a = np.arange(5.0)
    for i in [0, 4, -1, -5]:
        check(get_checked, a, i)
    b = np.arange(12.0).reshape(3, 4)
    check(get2_checked, b, 2, -4)
    assert isinstance(check(get2_checked, b, 1, 4), IndexError)
    assert isinstance(check(get2_checked, b, 3, 0), IndexError)


@pytest.mark.numba_skip(reason="Numba's message is 'index is out of bounds', without index or length")
def test_boundscheck_message_names_index_and_length():
    a = np.arange(5.0)
    with pytest.raises(IndexError) as ei:
        get_checked(a, 17)
    assert "17" in str(ei.value) and "5" in str(ei.value)
    b = np.zeros((3, 9))
    with pytest.raises(IndexError) as ei:
        get2_checked(b, 1, 11)
    assert "11" in str(ei.value) and "9" in str(ei.value)


def test_boundscheck_environment_variable():
    code = """
        import numpy as np
        from hpcjit import njit

        @njit
        def get(a, i):
            return a[i]

        try:
            get(np.arange(4.0), 9)
        except IndexError as e:
            print("IndexError:", e)
        else:
            print("no error")
    """
    r = run_python(code, env={"HPCJIT_BOUNDSCHECK": "1"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("IndexError:"), r.stdout + r.stderr
    if not AGAINST_NUMBA:
        assert "9" in r.stdout and "4" in r.stdout, r.stdout


# ---- allocation errors ----------------------------------------------------

@njit
def alloc(n):
    return np.empty(n)


@njit
def alloc2(m, n):
    return np.zeros((m, n))


def test_negative_allocation_raises_value_error():
    assert isinstance(check(alloc, -1), ValueError)
    assert isinstance(check(alloc2, 3, -2), ValueError)


def test_huge_allocation_raises_memory_error():
    # 2**44 float64 = 128 TiB: more than any machine's address space allows
    with pytest.raises(MemoryError):
        alloc(2 ** 44)
    with pytest.raises(MemoryError):
        alloc2(2 ** 22, 2 ** 22)
    # and the process is still fine afterwards
    assert alloc(3).shape == (3,)


@pytest.mark.numba_skip(reason="hpcjit-specific: overflowing shape product")
def test_overflowing_allocation_size():
    # the byte count overflows int64: NumPy says ValueError, hpcjit may say
    # ValueError or MemoryError but must not allocate a wrapped size
    with pytest.raises((ValueError, MemoryError)):
        alloc2(2 ** 40, 2 ** 40)


@pytest.mark.numba_skip(reason="hpcjit's exception boundary")
def test_axis_error_found_where_numpy_1_24_kept_it():
    # NumPy 1.24 has numpy.AxisError but no numpy.exceptions.AxisError:
    # the dispatcher falls back to the parent module
    r = run_python("""
        import numpy as np, numpy.exceptions as ex
        np.AxisError = ex.AxisError
        del ex.AxisError
        from hpcjit import njit

        @njit
        def f(a, k):
            return a.sum(axis=k)

        try:
            f(np.ones((2, 2)), 3)
        except np.AxisError as e:
            print("AxisError", e)
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "AxisError axis 3 is out of bounds for array of dimension 2"


# ---- exceptions with arguments other than one message ---------------------------
# Their args tuple comes back as CPython's (and Numba's): values keep their
# types (ints, floats, bools, None, complex, str), in order.

@njit
def raise_args(kind, x, s):
    if kind == 0:
        raise ValueError("negative value", x)
    if kind == 1:
        raise ValueError(x)  # one non-str argument: args is (x,), not (str(x),)
    if kind == 2:
        raise KeyError("k", 1, 2.5, True, None)
    if kind == 3:
        raise IndexError(s, x * 2.0, -x, x > 1)
    if kind == 4:
        raise RuntimeError(s, s + "!", "é∑")
    if kind == 5:
        raise ValueError(complex(x, 1.0), np.float32(0.1), np.uint64(2**63 + 5))
    if kind == 6:
        raise ValueError(float("nan"), float("-inf"), 1e300, -0.0)
    if kind == 7:
        raise ValueError(s)  # a str value: the message
    return x


def _args_of(f, *a):
    try:
        f(*a)
    except Exception as e:  # noqa: BLE001
        return type(e), e.args
    return None


@pytest.mark.parametrize("kind", range(8))
def test_exception_arguments_keep_their_types(kind):
    got = _args_of(raise_args, kind, 3, "ab")
    want = _args_of(raise_args.py_func, kind, 3, "ab")
    assert got[0] is want[0]
    assert len(got[1]) == len(want[1])
    for g, w in zip(got[1], want[1]):
        if isinstance(w, np.floating):
            w = float(w)  # Numba and hpcjit box a float32 as a Python float
        if isinstance(w, np.integer):
            w = int(w)
        assert type(g) is type(w), (got, want)
        assert g == w or (g != g and w != w), (got, want)
        if isinstance(w, float) and w == 0.0:
            assert math.copysign(1.0, g) == math.copysign(1.0, w)


@njit(parallel=True)
def args_from_prange(n):
    s = 0
    for i in prange(n):
        if i == n - 1:
            raise IndexError("row", i, 0.5)
        s += i
    return s


def test_exception_arguments_from_the_pool():
    assert _args_of(args_from_prange, 50) == (IndexError, ("row", 49, 0.5))
    assert _args_of(args_from_prange.py_func, 50) == (IndexError, ("row", 49, 0.5))


@njit
def raise_optional_args(x, missing):
    # Optional values: None or the value, whichever the variable holds
    v = None if missing else x
    w = None if missing else x * 0.5
    t = None if missing else "text"
    b = None if missing else x > 0
    if x < 0:
        raise ValueError("optional", v, w, t, b, 7)
    return x


@pytest.mark.parametrize("missing", [False, True])
def test_exception_arguments_that_are_optional(missing):
    got = _args_of(raise_optional_args, -3, missing)
    want = _args_of(raise_optional_args.py_func, -3, missing)
    assert got == want
    assert [type(g) for g in got[1]] == [type(w) for w in want[1]]


@pytest.mark.numba_skip("hpcjit's message")
def test_exception_argument_of_unsupported_type_is_located():
    import hpcjit

    @njit
    def bad(a):
        raise ValueError("array", a)
    with pytest.raises(hpcjit.UnsupportedError, match="exception argument of type"):
        bad(np.zeros(3))


# ---- the program's own exception classes -----------------------------------------

class AppError(Exception):
    pass


class ParseError(AppError, ValueError):
    def __init__(self, what, pos):
        super().__init__(what, pos)
        self.pos = pos


class Unrelated(Exception):
    pass


@njit
def raise_own(kind, x):
    if kind == 0:
        raise AppError
    if kind == 1:
        raise AppError("bad thing")
    if kind == 2:
        raise ParseError("unexpected token", x)
    if kind == 3:
        raise AppError("code", x, x * 0.5)
    return x


@pytest.mark.parametrize("kind", range(4))
def test_own_exception_class_raised(kind):
    got = _args_of(raise_own, kind, 7)
    want = _args_of(raise_own.py_func, kind, 7)
    assert got == want
    if kind == 2:
        with pytest.raises(ParseError) as ei:
            raise_own(2, 9)
        assert ei.value.pos == 9  # the class's own __init__ ran


@njit(parallel=True)
def own_from_prange(n):
    s = 0
    for i in prange(n):
        if i == 3:
            raise ParseError("in the loop", i)
        s += i
    return s


def test_own_exception_from_the_pool():
    assert _args_of(own_from_prange, 20) == (ParseError, ("in the loop", 3))


@pytest.mark.numba_skip("hpcjit's disk cache")
def test_own_exception_class_from_the_cache(tmp_path):
    (tmp_path / "ownexc.py").write_text(
        "from hpcjit import njit\n"
        "class AppError(Exception):\n    pass\n"
        "class Deep(AppError, KeyError):\n    pass\n"
        "@njit(cache=True)\n"
        "def f(x):\n    if x > 1:\n        raise Deep('big', x)\n    return x\n"
        "@njit(cache=True)\n"
        "def g(x):\n    try:\n        f(x)\n    except AppError:\n        return -1\n    return 0\n")
    code = f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import ownexc
        try:
            ownexc.f(5)
        except ownexc.Deep as e:
            print(type(e).__name__, e.args)
        print(ownexc.g(5), ownexc.g(0))
        """
    # the module's source is on disk: not rebuilt from bytecode (test_nosource.py)
    env = {"HPCJIT_CACHE_DIR": str(tmp_path / "cache"), "HPCJIT_SOURCE_FROM_BYTECODE": "0"}
    first = run_python(code, env=env)
    second = run_python(code, env=env)
    for r in (first, second):
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines() == ["Deep ('big', 5)", "-1 0"], r.stdout
    assert list((tmp_path / "cache").rglob("*.hjc")), "nothing was cached"
