"""Error paths of the constructs that landed after the spine (issue 16):
containers, strings, typed containers, jitclass, ufunc builders.  Each
run-time failure raises the exception CPython raises for the same code
(checked against py_func with conftest.check, which compares exception
types), and each unsupported or ill-typed use is a located error naming
this file, the line, the column, the source line and a caret.  The
run-time half also runs in the suite's Numba mode."""
import os
import re

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

THIS_FILE = os.path.abspath(__file__)
with open(THIS_FILE) as _fh:
    _LINES = _fh.read().splitlines()


def line_of(marker):
    for i, text in enumerate(_LINES, 1):
        if text.rstrip().endswith("# " + marker):
            return i
    raise KeyError(marker)


def assert_located(exc, marker):
    msg = str(exc)
    m = re.search(re.escape(os.path.basename(THIS_FILE)) + r":(\d+):(\d+)", msg)
    assert m, f"no file:line:col in message:\n{msg}"
    assert int(m.group(1)) == line_of(marker), msg
    src = _LINES[line_of(marker) - 1].split("#")[0].strip()
    assert src in msg, f"source line not quoted:\n{msg}"
    assert re.search(r"^\s*\^", msg, re.M), f"no caret line:\n{msg}"


# ---- run-time failures: the same exception as CPython -------------------------

@njit
def list_pop_empty(n):
    l = [1.0]
    for _ in range(n):
        l.pop()
    return len(l)


@njit
def list_index_out_of_range(i):
    l = [1, 2, 3]
    return l[i]


@njit
def list_store_out_of_range(i):
    l = [1, 2, 3]
    l[i] = 7
    return l[0]


@njit
def list_remove_missing(x):
    l = [1, 2, 3]
    l.remove(x)
    return len(l)


@njit
def list_index_missing(x):
    l = [1, 2, 3]
    return l.index(x)


@njit
def list_insert_then_pop_bad(i):
    l = [1, 2]
    l.insert(0, 5)
    return l.pop(i)


@njit
def dict_missing_key(k):
    d = {1: 2.0, 3: 4.0}
    return d[k]


@njit
def dict_pop_missing(k):
    d = {"a": 1}
    return d.pop(k)


@njit
def dict_del_missing(k):
    d = {1: 1}
    del d[k]
    return len(d)


@njit
def set_remove_missing(x):
    s = {1, 2, 3}
    s.remove(x)
    return len(s)


@njit
def set_pop_empty(n):
    s = {1}
    for _ in range(n):
        s.pop()
    return len(s)


@njit
def str_index_out_of_range(i):
    s = "abc"
    return s[i]


@njit
def str_to_int_bad(s):
    return int(s)


@njit
def str_to_float_bad(s):
    return float(s)


@njit
def str_index_missing(s, sub):
    return s.index(sub)


@njit
def min_of_empty_list(n):
    l = [0.0 for _ in range(n)]
    return min(l)


@njit
def zero_division_in_container(n):
    l = [1, 2, 0]
    total = 0
    for x in l:
        total += n // x
    return total


@njit
def raise_while_holding(n):
    keep = {i: np.zeros(i + 1) for i in range(n)}
    names = [str(i) for i in range(n)]
    if n > 2:
        raise ValueError("too many: " + names[-1])
    return len(keep) + len(names)


@njit
def gen_checked(n):
    for i in range(n):
        if i > 1:
            raise ValueError("i > 1")
        yield i


@njit
def gen_next_past_end(n):
    g = gen_checked(n)
    s = 0
    for _ in range(n + 1):
        s += next(g)
    return s


@njit
def gen_body_raises(n):
    s = 0
    for v in gen_checked(n):
        s += v
    return s


RUNTIME_CASES = [
    (gen_next_past_end, (1,)),              # StopIteration
    (gen_next_past_end, (3,)),              # ValueError from the generator's body
    (gen_body_raises, (4,)),                # ValueError
    (list_pop_empty, (2,)),                 # IndexError: pop from empty list
    (list_index_out_of_range, (3,)),        # IndexError
    (list_index_out_of_range, (-4,)),       # IndexError
    (list_store_out_of_range, (5,)),        # IndexError
    (list_remove_missing, (9,)),            # ValueError
    (list_index_missing, (9,)),             # ValueError
    (list_insert_then_pop_bad, (5,)),       # IndexError
    (dict_missing_key, (2,)),               # KeyError
    (dict_pop_missing, ("b",)),             # KeyError
    pytest.param(dict_del_missing, (2,), marks=pytest.mark.numba_skip("Numba raises AssertionError")),  # KeyError
    (set_remove_missing, (9,)),             # KeyError
    (set_pop_empty, (2,)),                  # KeyError
    (str_index_out_of_range, (3,)),         # IndexError
    pytest.param(str_to_int_bad, ("12a",), marks=pytest.mark.numba_skip("Numba has no int(str)")),  # ValueError
    pytest.param(str_to_float_bad, ("x1.5",), marks=pytest.mark.numba_skip("Numba has no float(str)")),  # ValueError
    (str_index_missing, ("abc", "z")),      # ValueError
    pytest.param(min_of_empty_list, (0,), marks=pytest.mark.numba_skip("Numba returns a value for min([])")),  # ValueError
    (zero_division_in_container, (5,)),     # ZeroDivisionError
    (raise_while_holding, (4,)),            # ValueError
]


def _id(case):
    f, args = case.values if hasattr(case, "values") else case
    return f"{f.__name__}{args}"


@pytest.mark.parametrize("f,args", RUNTIME_CASES, ids=[_id(c) for c in RUNTIME_CASES])
def test_runtime_failure_is_the_python_exception(f, args):
    exc = check(f, *args)
    assert isinstance(exc, Exception), f"{f.__name__}{args} raised nothing: {exc!r}"


@pytest.mark.parametrize("f,args", [(list_index_out_of_range, (1,)), (dict_missing_key, (3,)),
                                    pytest.param(str_to_int_bad, ("-42",), marks=pytest.mark.numba_skip("Numba has no int(str)")),
                                    (raise_while_holding, (2,))])
def test_same_functions_succeed_on_good_input(f, args):
    check(f, *args)


@pytest.mark.numba_skip("Numba's messages and int(str) differ")
def test_messages_match_cpython():
    for f, args in [(list_pop_empty, (2,)), (list_remove_missing, (9,)), (str_to_int_bad, ("12a",)),
                    (raise_while_holding, (4,))]:
        with pytest.raises(Exception) as got:
            f(*args)
        with pytest.raises(Exception) as want:
            f.py_func(*args)
        assert type(got.value) is type(want.value)
        if not AGAINST_NUMBA:
            assert str(got.value) == str(want.value), (f.__name__, str(got.value), str(want.value))


def test_typed_dict_missing_key():
    from hpcjit import typed, types

    @njit
    def get(d, k):
        return d[k]

    d = typed.Dict.empty(types.int64, types.float64)
    d[1] = 2.0
    assert get(d, 1) == 2.0
    with pytest.raises(KeyError):
        get(d, 5)


def test_typed_list_index_error():
    from hpcjit import typed

    @njit
    def get(l, i):
        return l[i]

    l = typed.List([1.0, 2.0])
    assert get(l, 1) == 2.0
    with pytest.raises(IndexError):
        get(l, 2)


# ---- ill-typed uses: located errors ---------------------------------------------

def bad_list_mix(n):
    l = [1.0, "a"]  # list_mix
    return len(l)


def bad_dict_list_key(n):
    d = {}
    d[[1, 2]] = n  # dict_list_key
    return len(d)


def bad_set_of_arrays(n):
    s = {np.zeros(n)}  # set_arrays
    return len(s)


def bad_str_plus_int(n):
    return "a" + n  # str_plus_int


def bad_list_append_type(n):
    l = [1.0, 2.0]
    l.append("x")  # list_append_type
    return len(l)


def bad_dict_value_type(n):
    d = {1: 1.0}
    d[2] = "x"  # dict_value_type
    return len(d)


def bad_str_method(n):
    return "abc".no_such_method(n)  # str_method


@njit
def gen_squares(n):
    for i in range(n):
        yield i * i


@njit
def gen_delegates(n):
    yield from gen_squares(n)  # gen_yield_from


@njit
def gen_sends(n):
    for i in range(n):
        n += yield i  # gen_send


@njit
def gen_finally(n):
    try:
        yield n  # gen_finally
    finally:
        n = 0


def bad_gen_yield_from(n):
    return next(gen_delegates(n))


def bad_gen_send(n):
    return next(gen_sends(n))


def bad_gen_finally(n):
    return next(gen_finally(n))


def bad_gen_len(n):
    return len(gen_squares(n))  # gen_len


def _flat(*classes):
    out = []
    for c in classes:
        out.extend(c if isinstance(c, tuple) else (c,))
    return tuple(out)


COMPILE_ERRORS = _flat(hpcjit.TypingError, hpcjit.UnsupportedError)

TYPING_CASES = [
    pytest.param(bad_list_mix, "list_mix", marks=pytest.mark.numba_skip("Numba types it as a literal list")),
    (bad_dict_list_key, "dict_list_key"),
    pytest.param(bad_set_of_arrays, "set_arrays", marks=pytest.mark.numba_skip("Numba's error differs")),
    (bad_str_plus_int, "str_plus_int"),
    (bad_list_append_type, "list_append_type"),
    (bad_dict_value_type, "dict_value_type"),
    (bad_str_method, "str_method"),
    (bad_gen_yield_from, "gen_yield_from"),
    (bad_gen_send, "gen_send"),
    pytest.param(bad_gen_finally, "gen_finally",
                 marks=pytest.mark.numba_skip("Numba compiles a yield inside try/finally (hpcjit refuses it)")),
    (bad_gen_len, "gen_len"),
]


@pytest.mark.parametrize("pyf,marker", TYPING_CASES,
                         ids=[(c.values if hasattr(c, "values") else c)[1] for c in TYPING_CASES])
def test_ill_typed_use_is_a_located_error(pyf, marker):
    f = njit(pyf)
    # TypingError for what cannot be typed, UnsupportedError for Python that
    # hpcjit does not compile (both are NumbaError subclasses in Numba's mode)
    with pytest.raises(COMPILE_ERRORS) as ei:
        f(3)
    if not AGAINST_NUMBA:
        assert_located(ei.value, marker)
    # the second call fails the same way (no half-compiled state kept)
    with pytest.raises(type(ei.value)):
        f(3)


# ---- ufunc builders ----------------------------------------------------------------

def test_vectorize_runtime_error_is_python_exception():
    @hpcjit.vectorize(["float64(float64)"])
    def checked(a):
        if a < 0:
            raise ValueError("negative input")
        return a * 2

    assert list(checked(np.array([1.0, 2.0]))) == [2.0, 4.0]
    with pytest.raises(ValueError, match="negative input"):
        checked(np.array([1.0, -2.0]))

    # integer division by zero in a ufunc follows NumPy (0, no exception), as Numba
    @hpcjit.vectorize(["int64(int64, int64)"])
    def fdiv(a, b):
        return a // b

    assert list(fdiv(np.array([6, 7]), np.array([2, 0]))) == [3, 0]


def test_vectorize_no_matching_signature():
    @hpcjit.vectorize(["float64(float64)"])
    def twice(a):
        return 2 * a

    with pytest.raises(TypeError):
        twice(np.array(["a", "b"]))


def test_guvectorize_layout_mismatch():
    @hpcjit.guvectorize(["void(float64[:], float64[:])"], "(n)->(n)")
    def cumsum(a, out):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i]
            out[i] = s

    x = np.arange(4.0)
    assert np.array_equal(cumsum(x), np.cumsum(x))
    with pytest.raises((ValueError, TypeError)):
        cumsum(x, np.empty(3))
