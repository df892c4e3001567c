"""numba.extending's low-level API (hpcjit.lowlevel): a Python class taught
to the compiler with typeof_impl, a StructModel, make_attribute_wrapper,
type_callable + lower_builtin and unbox/box written on llvmlite builders,
as Numba's extension libraries write them.  Every compiled function is
checked against its py_func, which runs on the plain Python class."""
import math
from contextlib import ExitStack

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
pytest.importorskip("llvmlite")
from conftest import check  # noqa: E402

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    from numba.core import cgutils, types
    from numba.extending import (NativeValue, box, lower_builtin, make_attribute_wrapper, models,
                                 overload_attribute, overload_method, register_model, type_callable,
                                 typeof_impl, unbox)
else:
    from hpcjit import cgutils, types
    from hpcjit.extending import (NativeValue, box, lower_builtin, make_attribute_wrapper, models,
                                  overload_attribute, overload_method, register_model, type_callable,
                                  typeof_impl, unbox)
njit = hpcjit.njit


class Vec2:
    """A plain Python 2-vector (what py_func runs on)."""

    def __init__(self, x, y):
        self.x = x
        self.y = y

    @property
    def norm2(self):
        return self.x * self.x + self.y * self.y

    def dot(self, other):
        return self.x * other.x + self.y * other.y

    def __eq__(self, other):
        return type(other) is Vec2 and (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Vec2({self.x!r}, {self.y!r})"


class Vec2Type(types.Type):
    def __init__(self):
        super().__init__(name="Vec2")


vec2_t = Vec2Type()


@typeof_impl.register(Vec2)
def _typeof_vec2(val, c):
    return vec2_t


@type_callable(Vec2)
def _type_vec2(context):
    def typer(x, y):
        if isinstance(x, (types.Integer, types.Float)) and isinstance(y, (types.Integer, types.Float)):
            return vec2_t
    return typer


@register_model(Vec2Type)
class _Vec2Model(models.StructModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, [("x", types.float64), ("y", types.float64)])


make_attribute_wrapper(Vec2Type, "x", "x")
make_attribute_wrapper(Vec2Type, "y", "y")


@overload_attribute(Vec2Type, "norm2")
def _ol_norm2(v):
    def get(v):
        return v.x * v.x + v.y * v.y
    return get


@overload_method(Vec2Type, "dot")
def _ol_dot(v, other):
    if isinstance(other, Vec2Type):
        def impl(v, other):
            return v.x * other.x + v.y * other.y
        return impl


@lower_builtin(Vec2, types.Number, types.Number)
def _lower_vec2(context, builder, sig, args):
    out = cgutils.create_struct_proxy(sig.return_type)(context, builder)
    out.x = context.cast(builder, args[0], sig.args[0], types.float64)
    out.y = context.cast(builder, args[1], sig.args[1], types.float64)
    return out._getvalue()


@unbox(Vec2Type)
def _unbox_vec2(typ, obj, c):
    failed = cgutils.alloca_once_value(c.builder, cgutils.false_bit)
    vec = cgutils.create_struct_proxy(typ)(c.context, c.builder)
    with ExitStack() as stack:
        for name in ("x", "y"):
            attr = c.pyapi.object_getattr_string(obj, name)
            with cgutils.early_exit_if_null(c.builder, stack, attr):
                c.builder.store(cgutils.true_bit, failed)
            native = c.unbox(types.float64, attr)
            c.pyapi.decref(attr)
            with cgutils.early_exit_if(c.builder, stack, native.is_error):
                c.builder.store(cgutils.true_bit, failed)
            setattr(vec, name, native.value)
    return NativeValue(vec._getvalue(), is_error=c.builder.load(failed))


@box(Vec2Type)
def _box_vec2(typ, val, c):
    vec = cgutils.create_struct_proxy(typ)(c.context, c.builder, value=val)
    result = cgutils.alloca_once_value(c.builder, c.pyapi.get_null_object())
    with ExitStack() as stack:
        x = c.box(types.float64, vec.x)
        with cgutils.early_exit_if_null(c.builder, stack, x):
            pass
        y = c.box(types.float64, vec.y)
        with cgutils.early_exit_if_null(c.builder, stack, y):
            c.pyapi.decref(x)
        cls = c.pyapi.unserialize(c.pyapi.serialize_object(Vec2))
        obj = c.pyapi.call_function_objargs(cls, (x, y))
        c.pyapi.decref(cls)
        c.pyapi.decref(x)
        c.pyapi.decref(y)
        c.builder.store(obj, result)
    return c.builder.load(result)


# ---- the boundary: unbox, box ----------------------------------------------------

@njit
def identity(v):
    return v


def test_round_trip():
    for v in (Vec2(2.0, -3.5), Vec2(1, 2), Vec2(np.float32(0.5), True), Vec2(-0.0, math.inf)):
        r = identity(v)
        assert type(r) is Vec2 and r is not v
        assert (r.x, r.y) == (float(v.x), float(v.y))
    assert hpcjit.typeof(Vec2(1.0, 2.0)) == vec2_t if not SHIM else True


@njit
def pair_with(v, s):
    return (v, s * 2.0), v.x


def test_in_tuples():
    check(pair_with, Vec2(1.5, 2.5), 3.0)


# ---- members, overloaded attribute and method -------------------------------------

@njit
def geometry(a, b):
    return a.x * b.y - a.y * b.x, a.norm2, a.dot(b), b.norm2 > a.norm2


def test_members_attribute_method():
    check(geometry, Vec2(1.0, 2.0), Vec2(-3.0, 0.5))
    check(geometry, Vec2(0.25, 0.0), Vec2(4.0, 4.0))


# ---- construction in compiled code (type_callable + lower_builtin) ----------------

@njit
def add(a, b):
    return Vec2(a.x + b.x, a.y + b.y)


@njit
def from_ints(i, j):
    return Vec2(i, j * 3)


@njit
def centroid(xs, ys):
    acc = Vec2(0.0, 0.0)
    for i in range(xs.shape[0]):
        acc = Vec2(acc.x + xs[i], acc.y + ys[i])
    return Vec2(acc.x / xs.shape[0], acc.y / xs.shape[0])


def test_construct():
    check(add, Vec2(1.0, 2.0), Vec2(0.5, -4.0))
    check(from_ints, 3, -7)
    rng = np.random.default_rng(5)
    check(centroid, rng.random(101), rng.random(101))


# ---- errors ------------------------------------------------------------------------

class _NoFloat:
    def __float__(self):
        raise RuntimeError("no float here")


def test_unbox_errors_are_python_exceptions():
    width = njit(lambda v: v.x + v.y)
    assert width(Vec2(1.0, 2.0)) == 3.0
    with pytest.raises(TypeError):  # PyFloat_AsDouble of the failed conversion, as Numba
        width(Vec2(1.0, _NoFloat()))
    bad = Vec2(1.0, 2.0)
    del bad.y
    with pytest.raises(AttributeError):
        width(bad)
    assert width(Vec2(4.0, 0.5)) == 4.5  # nothing left behind


@pytest.mark.skipif(SHIM, reason="hpcjit's located errors")
def test_unsupported_member_type_is_located():
    from hpcjit import errors

    class Holder:
        pass

    class HolderType(types.Type):
        def __init__(self):
            super().__init__(name="Holder")

    holder_t = HolderType()

    @typeof_impl.register(Holder)
    def _typeof_holder(val, c):
        return holder_t

    @register_model(HolderType)
    class _HolderModel(models.StructModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, [("data", types.float64[:])])

    f = njit(lambda h: 1)
    with pytest.raises(errors.TypingError, match="member 'data' of Holder"):
        f(Holder())


@pytest.mark.skipif(SHIM, reason="hpcjit's own error text")
def test_no_matching_lowering():
    bad = njit(lambda: Vec2(1.0, 2j))
    from hpcjit import errors
    with pytest.raises(errors.TypingError):
        bad()
