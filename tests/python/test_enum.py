"""enum.Enum and enum.IntEnum members in compiled code (Numba's "enum"
section of "Supported Python features"): members as globals, arguments and
results (boxed back to the same member), `.value`, `==`/`!=`/`is` within a
class, members in tuples; IntEnum members are ints.  Compared with CPython
through check()."""
import enum

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Other(enum.Enum):
    ONE = 1
    TWO = 2


class Weight(enum.Enum):
    LIGHT = 0.5
    HEAVY = 2.5


class Letter(enum.Enum):
    A = "a"
    B = "b"


class Planet(enum.Enum):
    MERCURY = (3.303e+23, 2.4397e6)
    EARTH = (5.976e+24, 6.37814e6)


class Perm(enum.Flag):
    R = 1
    W = 2


class Shape(enum.IntEnum):
    CIRCLE = 1
    SQUARE = 2
    TRIANGLE = 3


@njit
def member_global():
    return Color.GREEN


@njit
def member_value():
    return Color.BLUE.value


@njit
def identity(c):
    return c


@njit
def value_of(c):
    return c.value


@njit
def compare(a, b):
    return a == b, a != b, a is b, a is not b


@njit
def is_red(c):
    if c is Color.RED:
        return 10
    elif c == Color.GREEN:
        return 20
    return 30


@njit
def pick(flag):
    c = Color.RED
    if flag:
        c = Color.BLUE
    return c


@njit
def member_tuple(c):
    return (c, Color.GREEN, c.value)


@njit
def loop_values():
    s = 0
    for c in (Color.RED, Color.GREEN, Color.BLUE):
        s += c.value
    return s


def test_member_global_boxes_to_the_member():
    check(member_global)
    assert member_global() is Color.GREEN
    check(member_value)


@pytest.mark.parametrize("c", list(Color))
def test_member_argument_and_result(c):
    check(identity, c)
    assert identity(c) is c
    check(value_of, c)
    check(is_red, c)


def test_member_float_values():
    check(identity, Weight.HEAVY)
    assert identity(Weight.LIGHT) is Weight.LIGHT
    check(value_of, Weight.LIGHT)


@pytest.mark.parametrize("a,b", [(Color.RED, Color.RED), (Color.RED, Color.GREEN),
                                 (Color.BLUE, Color.GREEN)])
def test_compare_same_class(a, b):
    check(compare, a, b)


def test_branch_unifies_members():
    check(pick, True)
    check(pick, False)
    assert pick(True) is Color.BLUE


def test_members_in_tuples():
    check(member_tuple, Color.BLUE)
    r = member_tuple(Color.RED)
    assert r[0] is Color.RED and r[1] is Color.GREEN
    check(loop_values)


def test_dispatch_per_enum_class():
    """A member of another class with the same value is another type."""
    assert identity(Other.ONE) is Other.ONE
    assert identity(Color.RED) is Color.RED
    assert value_of(Weight.HEAVY) == 2.5


def test_member_str_values():
    check(identity, Letter.B)
    assert identity(Letter.A) is Letter.A
    check(value_of, Letter.A)
    check(compare, Letter.A, Letter.B)
    check(compare, Letter.B, Letter.B)


@njit
def gravity(p):
    m, r = p.value
    return m / (r * r), p is Planet.EARTH, Planet.MERCURY


def test_member_tuple_values():
    check(gravity, Planet.EARTH)
    check(gravity, Planet.MERCURY)


def test_flag_members_round_trip():
    assert identity(Perm.R) is Perm.R
    assert identity(Perm.R | Perm.W) == Perm.R | Perm.W


@njit
def none_test(c):
    return c is None, c is not None


def test_member_is_never_none():
    check(none_test, Color.RED)


@njit
def in_containers():
    d = {Color.RED: 1, Color.GREEN: 2}
    s = {Color.RED, Color.GREEN, Color.RED}
    lst = [Color.BLUE, Color.RED]
    return d[Color.GREEN], len(s), lst[0]


@pytest.mark.numba_skip("Numba 0.68 cannot hash Enum members (dict keys, set items)")
def test_members_in_containers():
    check(in_containers)


@njit
def cross_class():
    return Color.RED == Other.ONE  # cross


@njit
def with_int(c):
    return c == 1  # with-int


@njit
def ordered(a, b):
    return a < b  # ordered


@njit
def member_name(c):
    return c.name  # name


@njit
def from_value(v):
    return Color(v)  # from-value


@pytest.mark.numba_skip("hpcjit's located messages; Numba refuses these too")
@pytest.mark.parametrize("fn,args,exc,marker,words", [
    (cross_class, (), "TypingError", "cross", "never equal"),
    (with_int, (Color.RED,), "TypingError", "with-int", "cannot compare Color(int64) and int64"),
    (ordered, (Color.RED, Color.BLUE), "TypingError", "ordered", "with '<'"),
    (member_name, (Color.RED,), "UnsupportedError", "name", "name of an Enum member"),
    (from_value, (1,), "TypingError", "from-value", "calling the Enum class"),
])
def test_unsupported_is_located(fn, args, exc, marker, words):
    with pytest.raises(getattr(hpcjit.errors, exc)) as ei:
        fn(*args)
    assert words in str(ei.value)
    assert_located_in(__file__, ei.value, marker)


# ---- IntEnum: ints in compiled code ----

@njit
def int_arith(s):
    return s + 1, s * 2, s > 1, s == 2, Shape.SQUARE + 1


@njit
def int_index(a):
    return a[Shape.TRIANGLE] + a[Shape.CIRCLE]


@njit
def int_compare(a, b):
    return a == b, a < b, a != b


@pytest.mark.parametrize("s", list(Shape))
def test_intenum_behaves_as_int(s):
    check(int_arith, s)
    check(identity, s)
    check(int_compare, s, Shape.SQUARE)


def test_intenum_index():
    check(int_index, np.arange(5.0))
