"""The test machinery itself: check() must notice every kind of difference
between a compiled function and its py_func (no JIT needed here)."""
import numpy as np
import pytest

from conftest import assert_same, check, clone, make_array, LAYOUTS


class Fake:
    """Stands in for a dispatcher: `impl` plays the compiled code."""

    def __init__(self, impl, py_func):
        self.impl = impl
        self.py_func = py_func

    def __call__(self, *args):
        return self.impl(*args)


def _fails(fake, *args):
    with pytest.raises(AssertionError):
        check(fake, *args)


def test_equal_results_pass():
    check(Fake(lambda x: x + 1, lambda x: x + 1), 1)
    check(Fake(lambda a: a * 2, lambda a: a * 2), np.arange(3.0))


def test_value_difference_detected():
    _fails(Fake(lambda x: x + 2, lambda x: x + 1), 1)
    _fails(Fake(lambda x: x * (1 + 1e-9), lambda x: x), 1.0)


def test_kind_difference_detected():
    _fails(Fake(lambda x: float(x), lambda x: x), 1)
    _fails(Fake(lambda x: int(x), lambda x: bool(x)), 1)
    _fails(Fake(lambda x: (x,), lambda x: x), 1)


def test_array_dtype_and_shape_detected():
    _fails(Fake(lambda a: a.astype(np.float32), lambda a: a), np.arange(3.0))
    _fails(Fake(lambda a: a.reshape(1, 3), lambda a: a), np.arange(3.0))


def test_exception_mismatch_detected():
    def raises_value(x):
        raise ValueError("v")

    def raises_type(x):
        raise TypeError("t")

    _fails(Fake(raises_value, lambda x: x), 1)
    _fails(Fake(lambda x: x, raises_value), 1)
    _fails(Fake(raises_type, raises_value), 1)
    exc = check(Fake(raises_value, raises_value), 1)
    assert isinstance(exc, ValueError)


def test_argument_mutation_detected():
    def mutate(a):
        a[0] = 5.0

    _fails(Fake(lambda a: None, mutate), np.zeros(3))
    check(Fake(mutate, mutate), np.zeros(3))


def test_nan_and_inf_compare_equal_to_themselves():
    assert_same(float("nan"), float("nan"))
    assert_same(float("inf"), float("inf"))
    with pytest.raises(AssertionError):
        assert_same(float("inf"), float("-inf"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_clone_keeps_layout(layout):
    a = make_array(np.int32, (4, 5), layout)
    b = clone(a)
    assert b.strides == a.strides and (b == a).all()
    assert not np.shares_memory(a, b)
    assert b.flags.c_contiguous == a.flags.c_contiguous
    assert b.flags.f_contiguous == a.flags.f_contiguous


def test_layouts_are_what_they_say():
    assert make_array(np.float64, (3, 4), "C").flags.c_contiguous
    f = make_array(np.float64, (3, 4), "F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    s = make_array(np.float64, (3, 4), "strided")
    assert not s.flags.c_contiguous and not s.flags.f_contiguous
    r = make_array(np.float64, (3, 4), "reversed")
    assert all(st < 0 for st in r.strides)
