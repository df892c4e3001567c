"""hpcjit.experimental.structref (numba.experimental.structref): Numba's
documentation example (a struct type, its proxy, construction from Python
and compiled code, field writes, overload_method on the struct type), a
second layout of the same type, and its errors."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA

if AGAINST_NUMBA:
    from numba.core import types
    from numba.core.extending import overload_method
    from numba.experimental import structref
else:
    from hpcjit import types
    from hpcjit.experimental import structref
    from hpcjit.extending import overload_method


@structref.register
class PointType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Point(structref.StructRefProxy):
    def __new__(cls, name, vector):
        return structref.StructRefProxy.__new__(cls, name, vector)

    @property
    def name(self):
        return point_name(self)

    @property
    def vector(self):
        return point_vector(self)


@njit
def point_name(self):
    return self.name


@njit
def point_vector(self):
    return self.vector


structref.define_proxy(Point, PointType, ["name", "vector"])


@overload_method(PointType, "distance")
def _ol_distance(self, other):
    if not isinstance(other, PointType):
        raise hpcjit.TypingError(f"*other* must be a {PointType}; got {other}")

    def impl(self, other):
        return np.linalg.norm(self.vector - other.vector)
    return impl


def test_made_in_python_and_in_compiled_code():
    alice = Point("Alice", vector=np.array([1.0, 2.0, 2.0]))
    assert isinstance(alice, Point)
    assert alice.name == "Alice" and np.array_equal(alice.vector, [1.0, 2.0, 2.0])

    @njit
    def make_bob(v):
        bob = Point("unnamed", vector=np.zeros(3))
        bob.name = "Bob"
        bob.vector = v * 2
        return bob

    bob = make_bob(np.ones(3))
    assert isinstance(bob, Point) and bob.name == "Bob" and np.array_equal(bob.vector, [2.0, 2.0, 2.0])

    def distance(a, b):
        return np.linalg.norm(a.vector - b.vector)

    assert njit(distance)(alice, bob) == distance(alice, bob)


def test_overload_method_on_the_struct_type():
    @njit
    def both():
        a = Point("a", vector=np.array([0.0, 3.0]))
        b = Point("b", vector=np.array([4.0, 0.0]))
        return a.distance(b)

    assert both() == 5.0


def test_shared_by_reference_and_other_layouts():
    p = Point("p", vector=np.arange(3.0))

    @njit
    def rename(s, name):
        s.name = name

    rename(p, "q")
    assert p.name == "q"  # compiled code wrote the Python object's field
    ints = Point(7, vector=np.arange(2))  # another layout of the same type
    assert ints.name == 7 and ints.vector.dtype == np.arange(2).dtype


def test_bad_construction():
    with pytest.raises(TypeError):
        Point("only a name")
