"""Named tuples (collections.namedtuple and typing.NamedTuple classes) in
compiled code: as arguments, made by their class with positional and
keyword arguments, fields by name and by index, unpacking, iteration of
homogeneous ones, returns boxed into the same class; compared with CPython
through check()."""
import gc
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, typed
from conftest import AGAINST_NUMBA, check

Point = namedtuple("Point", ["x", "y"])
Rec = namedtuple("Rec", "name_id weight data")


memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    gc.collect()
    before = memstats()
    yield
    gc.collect()
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


class Vec3(NamedTuple):
    x: float
    y: float
    z: float


class Pair(NamedTuple):
    first: int
    second: float


@njit
def norm(p):
    return (p.x * p.x + p.y * p.y) ** 0.5


@njit
def fields_and_index(p):
    return p.x, p[1], p[-1], len(p)


@njit
def make_point(a, b):
    return Point(a, b)


@njit
def make_keywords(a, b):
    return Point(y=b, x=a), Vec3(1.0, z=b, y=a)


@njit
def unpack(p):
    x, y = p
    return x - y


@njit
def iterate(v):
    s = 0.0
    for c in v:
        s += c
    return s


@njit
def scale(v, k):
    return Vec3(v.x * k, v.y * k, v.z * k)


@njit
def mixed(p):
    q = Pair(p.first + 1, p.second * 2.0)
    return q, q.first, q.second


@njit
def with_array(r):
    return r.data.sum() * r.weight + r.name_id


@njit
def returns_array_record(n):
    return Rec(n, 0.5, np.arange(n * 1.0))


@njit
def nested(p, v):
    return (p, v), p.x + v.z


@njit
def branch(p, flag):
    if flag:
        q = Point(p.x, p.y)
    else:
        q = Point(p.y, p.x)
    return q


def test_argument_fields():
    check(norm, Point(3.0, 4.0))
    check(fields_and_index, Point(1, 2.5))
    check(fields_and_index, Point(np.arange(3.0), 0.5))


def test_made_by_the_class():
    r = check(make_point, 1, 2.5)
    got = make_point(1, 2.5)
    assert type(got) is Point and got == Point(1, 2.5) and got.y == 2.5


def test_keyword_arguments():
    p, v = make_keywords(1.5, 2.5)
    assert type(p) is Point and p == Point(1.5, 2.5)
    assert type(v) is Vec3 and v == Vec3(1.0, 1.5, 2.5)
    check(make_keywords, 1.5, 2.5)


def test_unpacking_and_iteration():
    check(unpack, Point(5, 3))
    check(iterate, Vec3(1.0, 2.0, 3.5))


def test_typing_namedtuple_roundtrip():
    r = scale(Vec3(1.0, 2.0, 3.0), 2.0)
    assert type(r) is Vec3 and r == Vec3(2.0, 4.0, 6.0)
    check(scale, Vec3(1.0, 2.0, 3.0), 2.0)
    q, f, s = mixed(Pair(1, 1.5))
    assert type(q) is Pair and q == Pair(2, 3.0) and (f, s) == (2, 3.0)


def test_array_field(balanced):
    check(with_array, Rec(3, 2.0, np.arange(4.0)))
    r = returns_array_record(3)
    assert type(r) is Rec and r.name_id == 3 and r.data.tolist() == [0.0, 1.0, 2.0]


def test_nested_and_branches(balanced):
    (p, v), s = nested(Point(1.0, 2.0), Vec3(0.0, 0.0, 3.0))
    assert type(p) is Point and type(v) is Vec3 and s == 4.0
    check(branch, Point(1, 2), True)
    check(branch, Point(1, 2), False)


def test_distinct_classes_are_distinct_types():
    Other = namedtuple("Other", ["x", "y"])
    assert norm(Other(3.0, 4.0)) == 5.0
    assert type(make_point(1, 2)) is Point  # the class it was made by, not another of the same shape


@pytest.mark.numba_skip("hpcjit's error text")
def test_errors_are_located():
    @njit
    def bad_field(p):
        return p.z

    @njit
    def missing(a):
        return Point(a)

    with pytest.raises(hpcjit.TypingError, match="has no field 'z'"):
        bad_field(Point(1, 2))
    with pytest.raises(hpcjit.TypingError, match="missing required argument 'y'"):
        missing(1)


@pytest.mark.numba_skip("hpcjit's typecodes")
def test_typeof():
    t = hpcjit.typeof(Point(1, 2.0))
    assert str(t) == "Point(int64, float64)" and t.typecode is not None
    assert hpcjit.types.from_typecode(t.typecode).instance_class is Point


def test_in_typed_list(balanced):
    @njit
    def total(lst):
        s = 0.0
        for p in lst:
            s += p.x * p.y
        return s
    lst = typed.List([Point(1.0, 2.0), Point(3.0, 4.0)])
    assert total(lst) == 14.0
    assert type(lst[0]) is Point
