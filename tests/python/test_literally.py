"""literally(): literal dispatch.  A parameter that compiled code (or an
overload's implementation) passes to literally() is compiled as the literal
of its argument's value, one specialisation per value, and overloads see
types.Literal.  Every compiled function is checked against its py_func."""
import pytest

hpcjit = pytest.importorskip("hpcjit")
from conftest import check  # noqa: E402

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    from numba import literally
    from numba.core import errors, types
    from numba.extending import overload, SentryLiteralArgs, sentry_literal_args
else:
    from hpcjit import errors, literally, types
    from hpcjit.extending import overload, SentryLiteralArgs, sentry_literal_args
njit = hpcjit.njit


# ---- Numba's documentation example: an overload that asks for a literal ----------

SEEN = []


def power(x, n):
    return x ** n


@overload(power)
def _ol_power(x, n):
    if isinstance(n, types.Literal):
        SEEN.append(n.literal_value)
        if n.literal_value == 2:
            return lambda x, n: x * x
        if n.literal_value == 3:
            return lambda x, n: x * x * x
        return lambda x, n: x ** n
    return lambda x, n: literally(n)


@njit
def use_power(x, n):
    return power(x, n)


def test_overload_gets_literal_per_value():
    del SEEN[:]
    for n in (2, 3, 4, 2, 3):
        check(use_power, 3, n)
        check(use_power, 1.5, n)
    assert SEEN.count(2) == 2 and SEEN.count(3) == 2 and SEEN.count(4) == 2  # int64 x, float64 x
    sigs = [tuple(str(t) for t in s) for s in use_power.signatures]
    assert ("int64", "Literal[int](2)") in sigs
    assert ("float64", "Literal[int](4)") in sigs
    assert len(sigs) == 6


def test_keyword_argument():
    assert use_power(2, n=3) == 8
    assert use_power(x=2, n=2) == 4


@njit
def power_through(x, n):
    return use_power(x, n) + 1


@njit
def power_of_const(x):
    return use_power(x, 3) + use_power(x, 2)


def test_calls_between_jitted_functions():
    check(power_through, 5, 2)
    check(power_through, 5, 3)
    check(power_of_const, 7)
    sigs = [tuple(str(t) for t in s) for s in power_through.signatures]
    assert ("int64", "Literal[int](3)") in sigs


@njit
def power_of_computed(x, n):
    return use_power(x, n + 1)


def test_computed_argument_is_located_error():
    with pytest.raises(errors.TypingError) as ei:
        power_of_computed(2, 3)
    if not SHIM:
        assert "test_literally.py" in str(ei.value)


# ---- literally() in a jitted function's own body ---------------------------------

@njit
def lit_plus_one(n):
    return literally(n) + 1


@njit
def lit_echo(n):
    return literally(n)


def test_literally_in_body():
    for n in (4, 5, -7):
        check(lit_plus_one, n)
    check(lit_echo, True)
    check(lit_echo, False)
    check(lit_echo, "abc")
    check(lit_echo, "héllo wörld")
    sigs = [str(s[0]) for s in lit_echo.signatures]
    assert "Literal[bool](True)" in sigs and "Literal[str](abc)" in sigs


def test_float_cannot_be_literal():
    @njit
    def f(n):
        return literally(n)

    with pytest.raises(errors.LiteralTypingError, match="cannot be used as a literal"):
        f(1.5)
    assert f(3) == 3  # the dispatcher still works


def test_non_argument_is_typing_error():
    @njit
    def f(n):
        return literally(n * 2)

    with pytest.raises(errors.TypingError, match="non-Literal type in literally"):
        f(3)


def test_functions_without_literally_keep_type_keys():
    @njit
    def f(x, n):
        return x + n

    assert f(1, 2) == 3 and f(1, 5) == 6
    assert [tuple(str(t) for t in s) for s in f.signatures] == [("int64", "int64")]


# ---- the literal seen by other overloads in the specialisation --------------------

def describe(n):
    return "int"


@overload(describe, prefer_literal=True)
def _ol_describe(n):
    if isinstance(n, types.IntegerLiteral):
        val = n.literal_value * 10
        return lambda n: val
    return lambda n: -1


@njit
def describe_lit(n):
    literally(n)
    return describe(n)


def test_literal_reaches_other_overloads():
    assert describe_lit(4) == 40
    assert describe_lit(7) == 70


def select(flag, x):
    return x + 1 if flag else x - 1


@overload(select)
def _ol_select(flag, x):
    if not isinstance(flag, types.Literal):
        return lambda flag, x: literally(flag)
    if flag.literal_value:
        return lambda flag, x: x + 1
    return lambda flag, x: x - 1


@njit
def use_select(flag, x):
    return select(flag, x)


def test_bool_literal_dispatch():
    check(use_select, True, 10)
    check(use_select, False, 10)
    check(use_select, True, 2.5)


# ---- literal containers and initial values ------------------------------------------

import numpy as np  # noqa: E402


def describe_items(d):
    """The Python version: from the values themselves."""
    out = []
    for k, v in d.items():
        if isinstance(v, str):
            out.append(v.upper())
        elif isinstance(v, (int, np.integer)):
            out.append(k * int(v))
        else:
            out.append(f"arr{v.ndim}")
    return tuple(out)


@overload(describe_items)
def _ol_describe_items(d):
    out = []
    for k, v in d.literal_value.items():  # a LiteralStrKeyDict: key literal -> value type
        if isinstance(v, types.Literal) and isinstance(v.literal_value, str):
            out.append(v.literal_value.upper())
        elif isinstance(v, types.Literal):
            out.append(k.literal_value * v.literal_value)
        else:
            out.append(f"arr{v.ndim}")
    res = tuple(out)
    return lambda d: res


@njit
def str_key_dict():
    d = {"a": 1, "b": 3, "c": "cat", "e": np.ones((2, 2))}
    return describe_items(d)


@njit
def str_key_dict_direct():
    return describe_items({"x": 2, "y": "dog"})


def test_literal_str_key_dict():
    check(str_key_dict)
    check(str_key_dict_direct)
    assert str_key_dict() == ("a", "bbb", "CAT", "arr2")


def kinds(seq):
    out = []
    for v in seq:
        if isinstance(v, str):
            out.append("str:" + v)
        elif isinstance(v, int):
            out.append(f"int:{v}")
        elif isinstance(v, complex):
            out.append("complex")
        else:
            out.append(f"list{len(v)}")
    return tuple(out)


SEEN_TYPES = []


@overload(kinds)
def _ol_kinds(seq):
    SEEN_TYPES[:] = [str(t) for t in seq.literal_value]
    out = []
    for t in seq.literal_value:  # a LiteralList: the items' types
        if isinstance(t, types.Literal) and isinstance(t.literal_value, str):
            out.append("str:" + t.literal_value)
        elif isinstance(t, types.Literal):
            out.append(f"int:{t.literal_value}")
        elif isinstance(t, types.Complex):
            out.append("complex")
        else:
            out.append(f"list{len(t.initial_value)}")
    res = tuple(out)
    return lambda seq: res


@njit
def literal_list():
    lst = ["a", 10, 1j, ["another", "list"]]
    return kinds(lst)


def test_literal_list():
    check(literal_list)
    assert SEEN_TYPES == ["Literal[str](a)", "Literal[int](10)", "complex128",
                          "list(unicode_type)<iv=['another', 'list']>"]


def test_heterogeneous_list_elsewhere_is_still_an_error():
    @njit
    def mixed():
        return [1, "a"]

    with pytest.raises((TypeError, errors.TypingError)):
        mixed()


def first_value(x):
    return x


IVS = []


@overload(first_value)
def _ol_first_value(x):
    iv = x.initial_value
    IVS.append(iv)
    if iv is None:
        return lambda x: literally(x)  # ask for the initial value
    return lambda x: x


@njit
def dict_initial_value():
    d = {"a": 1, "b": 2}
    d["c"] = 30
    return first_value(d)


def first_list(x):
    return x


@overload(first_list)
def _ol_first_list(x):
    iv = x.initial_value
    IVS.append(iv)
    if iv is None:
        return lambda x: literally(x)
    return lambda x: x


@njit
def list_initial_value():
    lst = [1, 2, 3]
    lst[2] = 20
    lst.append(30)
    return first_list(lst)


def test_initial_values():
    del IVS[:]
    got = dict_initial_value()
    assert dict(got) == dict_initial_value.py_func()
    assert {"a": 1, "b": 2} in IVS
    del IVS[:]
    check(list_initial_value)
    assert [1, 2, 3] in IVS


# ---- a function that asks for a literal, called from Python and from compiled code

@njit
def doubled(n):
    return literally(n) * 2


@njit
def doubled_plus_one(n):
    return doubled(n) + 1


def test_callee_then_direct_call():
    check(doubled_plus_one, 3)
    check(doubled, 5)
    check(doubled, "ab")
    check(doubled, True)


def test_explicit_signature_cannot_be_literal():
    with pytest.raises(errors.NumbaError):
        @njit("int64(int64)")
        def h(n):
            return literally(n)


def test_literally_through_a_copy():
    @njit
    def f(n):
        m = n
        return literally(m) + 1

    check(f, 4)
    check(f, 9)


def count_items(x):
    return len(x)


@overload(count_items)
def _ol_count_items(x):
    n = len(x.literal_value)

    def impl(x):
        literally(x)  # a literal container is a literal already
        return n
    return impl


@njit
def count_literal_containers():
    d = {"a": 1, "c": "cat"}
    return count_items(d) + 10 * count_items(["a", 10, 1j])


def test_literally_of_literal_containers():
    check(count_literal_containers)


def pick(d):
    return d["b"] * 2


@overload(pick)
def _ol_pick(d):
    if isinstance(d, types.LiteralStrKeyDict):
        return lambda d: d["b"] * 2
    return None


@njit
def pick_from_literal_dict(x):
    return pick({"a": "text", "b": x, "c": np.zeros(2)})


def test_literal_str_key_dict_getitem():
    check(pick_from_literal_dict, 21)
    check(pick_from_literal_dict, 1.5)


# ---- SentryLiteralArgs: the typing function asks for literals ------------------

def scaled(x, mode):
    return x * 2 if mode == "double" else x + 1


@overload(scaled)
def _ov_scaled(x, mode):
    SentryLiteralArgs(["mode"]).for_function(_ov_scaled).bind(x, mode)
    if mode.literal_value == "double":
        return lambda x, mode: x * 2
    return lambda x, mode: x + 1


def clipped(x, lo):
    return max(x, lo)


@overload(clipped)
def _ov_clipped(x, lo):
    import inspect
    sentry_literal_args(inspect.signature(_ov_clipped), ("lo",), (x, lo), {})
    lo_value = lo.literal_value
    return lambda x, lo: max(x, lo_value)


@njit
def sentry_constants(x):
    return scaled(x, "double") + scaled(x, "same") + clipped(x, 10)


@njit
def sentry_from_parameter(x, m):
    return scaled(x, m)


def test_sentry_literal_args_with_constants():
    check(sentry_constants, 3)
    check(sentry_constants, 30)


def test_sentry_literal_args_from_caller_parameter():
    """The caller's parameter is compiled as a literal of its value (one
    specialisation per value), as Numba's ForceLiteralArg does."""
    check(sentry_from_parameter, 3, "double")
    check(sentry_from_parameter, 3, "other")


def test_sentry_raises_force_literal_arg():
    import inspect

    def typing_fn(a, b):
        pass
    with pytest.raises(errors.ForceLiteralArg) as ei:
        sentry_literal_args(inspect.signature(typing_fn), ("b",), (types.int64, types.int64), {})
    assert ei.value.requested_args == frozenset({1})
    # a literal passes
    sentry_literal_args(inspect.signature(typing_fn), ("b",), (types.int64, types.literal(3)), {})
