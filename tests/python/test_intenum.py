"""enum.IntEnum and enum.IntFlag members in compiled code (Numba's
IntEnumMember): integers that keep their class, so that a member returned
(alone, in a tuple, a list, a dict, a set) comes back as the member
(`type(r) is Color`), as arguments, as globals.  `.value`, arithmetic
(plain ints, as CPython and Numba), comparisons with members and ints,
`is`, containers, IntFlag's `|`/`&`/`^` (members of the class, as
CPython).  Every case is compared with py_func by check() and then by the
types of what it returns (same_types)."""
import enum
import os
import textwrap

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check, run_python


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Shape(enum.IntEnum):  # the same values as Color: another type
    CIRCLE = 1
    SQUARE = 2
    TRIANGLE = 3


class Perm(enum.IntFlag):
    R = 4
    W = 2
    X = 1


def same_types(got, exp, path="result"):
    """Enum members in got where exp has them, of the same class, into
    tuples, lists, dicts and sets."""
    if isinstance(exp, (tuple, list)):
        assert len(got) == len(exp), path
        for i, (g, e) in enumerate(zip(got, exp)):
            same_types(g, e, f"{path}[{i}]")
        return
    if isinstance(exp, dict):
        assert sorted(got.items()) == sorted(exp.items()), path
        for (gk, gv), (ek, ev) in zip(sorted(got.items()), sorted(exp.items())):
            same_types(gk, ek, f"{path} key {ek!r}")
            same_types(gv, ev, f"{path}[{ek!r}]")
        return
    if isinstance(exp, (set, frozenset)):
        assert sorted(got) == sorted(exp), path
        for g, e in zip(sorted(got), sorted(exp)):
            same_types(g, e, f"{path} item {e!r}")
        return
    if isinstance(exp, enum.Enum) or isinstance(got, enum.Enum):  # numbers: check() compared their kinds
        assert type(got) is type(exp), \
            f"{path}: got {type(got).__name__} {got!r}, expected {type(exp).__name__} {exp!r}"


def check_typed(f, *args):
    """check(), then the same types as py_func's result."""
    got = check(f, *args)
    same_types(got, f.py_func(*args))
    return got


def check_dict(f, *args):
    """A function returning a dict (a typed.Dict from compiled code)."""
    got, exp = f(*args), f.py_func(*args)
    same_types(dict(got), exp)


# ---- members as results, arguments, globals ----

@njit
def red():
    return Color.RED


@njit
def identity(c):
    return c


@njit
def pick(flag):
    c = Color.RED
    if flag:
        c = Color.BLUE
    return c


def test_global_member_returns_the_member():
    assert check_typed(red) is Color.RED


@pytest.mark.parametrize("c", list(Color) + list(Shape))
def test_argument_round_trip(c):
    assert check_typed(identity, c) is c


def test_branch_keeps_the_class():
    assert check_typed(pick, True) is Color.BLUE
    assert check_typed(pick, False) is Color.RED


def test_each_class_is_its_own_specialisation():
    """Two classes with the same values never share a specialisation's
    boxing; a plain int is a third."""
    @njit
    def ident(c):
        return c

    assert ident(Color.RED) is Color.RED
    assert ident(Shape.CIRCLE) is Shape.CIRCLE
    assert type(ident(1)) is int
    assert ident(Color.GREEN) is Color.GREEN
    assert len(ident.signatures) == 3
    assert {str(s[0]) for s in ident.signatures} == {"IntEnum<int64>(Color)", "IntEnum<int64>(Shape)", "int64"}


def test_typeof():
    t = hpcjit.typeof(Color.RED)
    assert str(t) == "IntEnum<int64>(Color)"
    assert t != hpcjit.typeof(Shape.CIRCLE)
    assert str(hpcjit.typeof(1)) == "int64"


# ---- .value, int(), arithmetic: plain ints ----

@njit
def value_of(c):
    return c.value, Color.BLUE.value, c.value + 1


@njit
def arith(c):
    return c + 1, c - Color.RED, c * 2, -c, c // 2, c % 2, c ** 2, c << 1, c >> 1, abs(c), c / 2


@njit
def arith_members(a, b):
    return a + b, a * b, a - b, a | b, a & b, a ^ b


@njit
def augmented(c):
    c += 1
    return c


@njit
def as_int(c):
    return int(c), float(c), bool(c)


@pytest.mark.parametrize("c", list(Color))
def test_value_and_arithmetic_are_ints(c):
    check_typed(value_of, c)
    check_typed(arith, c)
    check_typed(arith_members, c, Color.GREEN)
    check_typed(augmented, c)


@pytest.mark.numba_skip("Numba 0.68 has no int()/float()/bool() of an IntEnum member")
def test_int_of_member():
    check_typed(as_int, Color.GREEN)


@njit
def index_with(a, c):
    return a[c], a[Color.RED]


@njit
def range_to(c):
    s = 0
    for i in range(c):
        s += i
    return s


def test_member_as_an_index_and_bound():
    check_typed(index_with, np.arange(10.0), Color.BLUE)
    check_typed(range_to, Color.BLUE)


# ---- comparisons and `is` ----

@njit
def compare(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b


@njit
def is_red(c):
    return c is Color.RED, c is not Color.RED, Color.GREEN is c


@njit
def classify(c):
    if c is Color.RED:
        return 10
    elif c == Color.GREEN:
        return 20
    return 30


@njit
def member_in(c):
    return c in (Color.RED, Color.BLUE), c not in (Color.RED, Color.BLUE)


@pytest.mark.parametrize("a,b", [(Color.RED, Color.RED), (Color.RED, Color.BLUE), (Color.BLUE, Color.GREEN),
                                 (Color.GREEN, 2), (3, Color.GREEN), (Color.RED, Shape.CIRCLE),
                                 (Color.RED, Shape.SQUARE)])
def test_compare(a, b):
    check_typed(compare, a, b)


@pytest.mark.parametrize("c", list(Color))
def test_is_and_in(c):
    check_typed(is_red, c)
    check_typed(classify, c)
    check_typed(member_in, c)


# ---- containers ----

@njit
def in_tuple(c):
    return (c, Color.GREEN, c.value)


@njit
def in_list(c):
    lst = [c, Color.RED]
    lst.append(Color.BLUE)
    return lst


@njit
def in_dict(c):
    d = {c: 1.0, Color.RED: 2.0}
    d[Color.BLUE] = 3.0
    return d


@njit
def dict_values(c):
    return {1: c, 2: Color.BLUE}


@njit
def dict_lookup(c):
    d = {Color.RED: 1.0, Color.GREEN: 2.0}
    return d[c], c in d, Color.BLUE in d


@njit
def in_set(c):
    return {c, Color.RED}


@njit
def sorted_members(a, b, c):
    return sorted([a, b, c])


@njit
def sum_tuple(t):
    s = 0
    for c in t:
        s += c
    return s


def test_containers():
    check_typed(in_tuple, Color.BLUE)
    check_typed(in_list, Color.GREEN)
    check_dict(in_dict, Color.GREEN)
    check_dict(dict_values, Color.GREEN)
    check_typed(dict_lookup, Color.GREEN)
    check_typed(sorted_members, Color.BLUE, Color.RED, Color.GREEN)
    check_typed(sum_tuple, (Color.RED, Color.BLUE))


@pytest.mark.numba_skip("Numba 0.68 cannot make a set of IntEnum members")
def test_set_of_members():
    check_typed(in_set, Color.GREEN)


def test_typed_list_of_members():
    List = hpcjit.typed.List

    @njit
    def extend(lst, c):
        lst.append(c)
        return lst

    lst = List()
    lst.append(Color.RED)
    r = extend(lst, Color.BLUE)
    assert list(r) == [Color.RED, Color.BLUE]
    assert all(type(x) is Color for x in r)


@njit
def list_arg(lst):
    lst.append(Color.RED)
    return lst[0], len(lst)


def test_reflected_list_argument():
    lst = [Color.GREEN, Color.BLUE]
    check_typed(list_arg, [Color.GREEN, Color.BLUE])
    list_arg(lst)
    assert lst == [Color.GREEN, Color.BLUE, Color.RED] and all(type(x) is Color for x in lst)


@njit
def dict_arg(d):
    d[Color.GREEN] = 5
    return d[Color.RED], len(d)


@njit
def set_arg(s):
    return Color.RED in s, Color.BLUE in s, len(s)


@pytest.mark.numba_skip("Numba passes no plain dict (nor a set of IntEnum members)")
def test_dict_and_set_arguments():
    d = {Color.RED: 1}
    check_typed(dict_arg, {Color.RED: 1})
    dict_arg(d)
    assert d == {Color.RED: 1, Color.GREEN: 5} and all(type(k) is Color for k in d)
    check_typed(set_arg, {Color.RED, Color.GREEN})


def test_typed_dict_made_in_python():
    d = hpcjit.typed.Dict()
    d[Color.RED] = 1.0
    d[Color.GREEN] = 3.0

    @njit
    def lookup(d):
        d[Color.BLUE] = 4.0
        return d[Color.GREEN], Color.RED in d, len(d)

    assert lookup(d) == (3.0, True, 3)
    assert all(type(k) is Color for k in d.keys())


@njit
def first_and_min(a, b):
    return min(a, b), max(a, b)


@pytest.mark.numba_skip("Numba 0.68 has no min/max of IntEnum members")
def test_min_max_keep_the_member():
    check_typed(first_and_min, Color.BLUE, Color.GREEN)


@njit
def member_or_int(flag):
    if flag:
        return Color.RED
    return 5


def test_member_unified_with_int_is_an_int():
    """As Numba: the return type unifies IntEnum<int64>(Color) and int64 to
    int64 (CPython returns the member itself: the values agree)."""
    for flag in (True, False):
        r = check(member_or_int, flag)
        assert type(r) is int


@njit
def to_array(c):
    a = np.zeros(3, np.int64)
    a[0] = c
    a[1] = Color.BLUE
    return a


def test_member_stored_in_an_array():
    check_typed(to_array, Color.GREEN)


# ---- IntFlag ----

@njit
def flag_ops(a, b):
    return a | b, a & b, a ^ b, a | 8, 1 | a, a + 1


@njit
def flag_global():
    return Perm.R | Perm.W


@njit
def flag_augmented(p):
    p |= Perm.X
    return p


@njit
def flag_test(p):
    return (p & Perm.R) == Perm.R, p is Perm.R


@pytest.mark.numba_skip("Numba 0.68 types IntFlag arguments as int64 (they return as ints) and refuses "
                        "`|` of IntFlag globals")
@pytest.mark.parametrize("a,b", [(Perm.R, Perm.W), (Perm.R | Perm.X, Perm.X), (Perm.W, Perm.W)])
def test_intflag_members_combine_into_members(a, b):
    check_typed(identity, a)
    check_typed(flag_ops, a, b)
    check_typed(flag_global)
    check_typed(flag_augmented, a)
    check_typed(flag_test, a)


# ---- the compile cache keys each class ----

@pytest.mark.numba_skip("hpcjit's own cache")
def test_cache_keeps_classes_apart(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent("""
        import enum, sys
        from hpcjit import njit

        class A(enum.IntEnum):
            X = 1

        class B(enum.IntEnum):
            X = 1

        @njit(cache=True)
        def ident(c):
            return c

        @njit(cache=True)
        def glob(flag):
            return A.X if flag else A.X

        order = (B, A) if sys.argv[1] == "ba" else (A, B)
        for cls in order:
            r = ident(cls.X)
            assert type(r) is cls, (r, cls)
        assert glob(True) is A.X
        print("OK")
    """))
    env = {"HPCJIT_CACHE_DIR": str(tmp_path / "cache")}
    for order in ("ab", "ba", "ab"):
        r = run_python(f"import sys; sys.argv = ['prog', {order!r}]; exec(open({str(prog)!r}).read())", env=env)
        assert r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


# ---- refused, as by Numba, with a located error ----

@njit
def member_name(c):
    return c.name  # name


@njit
def from_value(v):
    return Color(v)  # from-value


@njit
def two_classes(flag):
    if flag:
        return Color.RED
    return Shape.CIRCLE  # two-classes


@njit
def iterate_class():
    s = 0
    for c in Color:  # iterate
        s += c
    return s


@pytest.mark.parametrize("fn,args,marker,words", [
    (member_name, (Color.RED,), "name", "'name' of IntEnum<int64>(Color)"),
    (from_value, (1,), "from-value", "calling the Enum class"),
    (two_classes, (True,), "two-classes", "IntEnum<int64>(Color) and IntEnum<int64>(Shape)"),
    (iterate_class, (), "iterate", "cannot iterate"),
])
def test_refused_with_numbas_error_class(fn, args, marker, words):
    with pytest.raises(hpcjit.TypingError) as ei:
        fn(*args)
    if not AGAINST_NUMBA:
        assert words in str(ei.value)
        assert_located_in(__file__, ei.value, marker)


# ---- a member by name: Color['GREEN'] (Numba's EnumClass getitem) ----

class Fruit(enum.Enum):
    APPLE = 1
    PEAR = 2


@njit
def by_name():
    return Color['GREEN'], Color['GREEN'] + 1, Fruit['PEAR'], Fruit['APPLE'] is Fruit.APPLE


def test_member_by_name():
    r = check_typed(by_name)
    assert r[0] is Color.GREEN and r[2] is Fruit.PEAR


@njit
def no_such_member():
    return Color['BLACK']  # no-member


@njit
def name_not_constant(s):
    return Color[s]  # not-constant


@pytest.mark.parametrize("fn,args,marker,words", [
    (no_such_member, (), "no-member", "'BLACK' is not a member"),
    (name_not_constant, ("RED",), "not-constant", "as a constant str"),
])
def test_member_by_name_refused(fn, args, marker, words):
    with pytest.raises(hpcjit.TypingError) as ei:
        fn(*args)
    if not AGAINST_NUMBA:
        assert words in str(ei.value)
        assert_located_in(__file__, ei.value, marker)


# ---- ~ of an IntFlag member, repr()/str() in compiled code, `is` with ints ----

class Sparse(enum.IntFlag):  # a gap in the bits: ~ keeps CPython's extra-bit pseudo-member
    LOW = 1
    HIGH = 8


class Strict(enum.IntFlag, boundary=enum.STRICT):  # ~ within the flag mask, not all the bits
    ONE = 1
    FOUR = 4


@njit
def invert(p):
    return ~p


@njit
def invert_global():
    return ~Perm.W


@njit
def clear_write(p):
    return p & ~Perm.W, int(~p) + 1, ~p == 3


@pytest.mark.numba_skip("Numba 0.68 types IntFlag arguments as int64 (~ gives -p-1) and refuses ~ of an "
                        "IntFlag global")
@pytest.mark.parametrize("p", [Perm.R, Perm.R | Perm.W, Perm(0), Perm.R | Perm.W | Perm.X, Sparse.LOW, Perm(16),
                               Strict.ONE, Strict(0)],
                         ids=["R", "RW", "none", "RWX", "sparse", "keep-extra-bit", "strict", "strict-none"])
def test_invert_intflag_member(p):
    check_typed(invert, p)
    check_typed(clear_write, p)
    check_typed(invert_global)


def test_invert_intenum_member_is_an_int():
    check_typed(invert, Color.GREEN)  # IntEnum: int's ~ (CPython, Numba)


@njit
def texts(c):
    return repr(c), str(c), f"{c}"


@njit
def texts_global():
    return repr(Color.BLUE), str(Perm.R | Perm.X), repr(Perm.R | Perm.X)


@pytest.mark.numba_skip("Numba 0.68's str()/repr() of an IntEnum member is '<object type:...>'")
@pytest.mark.parametrize("c", [Color.RED, Shape.TRIANGLE, Perm.W, Perm.R | Perm.W, Perm(0)],
                         ids=["Color", "Shape", "flag", "flags", "no-flag"])
def test_repr_and_str_are_cpythons(c):
    check(texts, c)
    check(texts_global)


@njit
def is_int(c, k):
    return c is 1, c is not 1, c is k, c is Shape.CIRCLE, c is Color.RED  # noqa: F632


def test_member_is_not_a_plain_int():
    with np.errstate(all="ignore"):
        check(is_int, Color.RED, 1)
        check(is_int, Color.GREEN, 2.0)


@njit(parallel=True)
def invert_in_prange(p, n):
    out = np.zeros(n, dtype=np.int64)
    for i in hpcjit.prange(n):
        out[i] = ~p + i
    return out


@pytest.mark.numba_skip("Numba 0.68 types IntFlag arguments as int64 (~ gives -p-1)")
def test_invert_in_a_parallel_loop():
    # the pool's threads ask CPython for ~p: the loop's thread lets the GIL go
    check(invert_in_prange, Perm.R, 64)
