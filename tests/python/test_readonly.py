"""Read-only NumPy arrays (flags.writeable False): a type of their own
("readonly array(...)", typecode 'r'); reading works, any store into one
or into a view of one is refused at compile time, as in Numba."""
import numpy as np
import pytest

from hpcjit import njit
from hpcjit import errors, types
from conftest import assert_same


def check(f, *args):
    # conftest.check clones its arguments, which makes them writable:
    # here the read-only arrays themselves are passed (nothing can change them)
    got = f(*args)
    assert_same(got, f.py_func(*args), 1e-12, 0.0)
    return got


def ro(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


@njit
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@njit
def total_2d(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j] * (i + 1)
    return s, a[-1, -1], a.shape


@njit
def copy_and_write(a):
    b = a.copy()
    b[0] = 99.0
    return b


@njit
def zeros_like_write(a):
    b = np.zeros_like(a)
    for i in range(a.shape[0]):
        b[i] = a[i] * 2.0
    return b


@njit
def pick(a, b, c):
    x = a if c else b   # read-only unified with writable: read-only
    return x[0] + x[-1]


@njit
def read_row(a):
    r = a[1]
    return r[0] + r[1]


def test_typeof_and_typecode():
    a = ro(np.arange(3.0))
    t = types.typeof(a)
    assert t.readonly and t.typecode == "rd1C"
    assert str(t) == "readonly array(float64, 1d, C)"
    assert types.from_typecode("rd1C") == t
    assert not types.typeof(np.arange(3.0)).readonly


@pytest.mark.parametrize("order", ["C", "F"])
def test_reading_works(order):
    a = ro(np.asarray(np.arange(12.0).reshape(3, 4), order=order))
    check(total, ro(np.arange(10.0)))
    check(total_2d, a)
    check(total_2d, ro(np.arange(24.0).reshape(4, 6)[::2, 1::2]))
    check(read_row, a)
    check(copy_and_write, ro(np.arange(4.0)))
    check(zeros_like_write, ro(np.arange(4.0)))
    check(pick, ro(np.arange(4.0)), np.arange(5.0), True)
    check(pick, ro(np.arange(4.0)), np.arange(5.0), False)


def test_readonly_and_writable_are_separate_overloads():
    a = np.arange(5.0)
    check(total, a)
    check(total, ro(a))
    sigs = [str(s) for s in total.signatures]
    assert any("readonly array(float64, 1d, C)" in s for s in sigs), sigs
    assert any("readonly" not in s for s in sigs), sigs


@njit
def store_item(a):
    a[0] = 1.0


@njit
def store_2d(a):
    a[1, 1] = 5


@njit
def aug_item(a):
    a[0] += 1.0


@njit
def aug_whole(a):
    a += 1.0


@njit
def store_into_view(a):
    r = a[1]
    r[0] = 3.0


@njit
def store_into_transpose(a):
    t = a.T
    t[0, 1] = 3.0


@njit
def store_into_reshape(a):
    t = a.reshape((2, 2))
    t[0, 1] = 3.0


@njit
def store_through_unified(a, b, c):
    x = a if c else b
    x[0] = 1.0


@njit
def store_in_callee(a):
    store_item(a)


@njit
def fill_it(a):
    a.fill(0.0)


@pytest.mark.parametrize("f, arg", [
    (store_item, np.arange(4.0)),
    (store_2d, np.arange(4.0).reshape(2, 2)),
    (aug_item, np.arange(4.0)),
    (aug_whole, np.arange(4.0)),
    (store_into_view, np.arange(4.0).reshape(2, 2)),
    (store_into_transpose, np.arange(4.0).reshape(2, 2)),
    (store_into_reshape, np.arange(4.0)),
    (store_in_callee, np.arange(4.0)),
    (fill_it, np.arange(4.0)),
])
def test_writing_is_refused_at_compile_time(f, arg):
    # the same function on a writable array works and matches CPython
    w1, w2 = arg.copy(), arg.copy()
    try:
        f(w1)
    except (errors.UnsupportedError, errors.TypingError) as e:
        if "not supported" not in str(e):
            raise
        pytest.skip(f"{f.__name__} needs a feature hpcjit does not support yet: {e}")
    f.py_func(w2)
    np.testing.assert_array_equal(w1, w2)
    a = ro(arg)
    before = a.copy()
    with pytest.raises(errors.TypingError, match="Cannot modify readonly array"):
        f(a)
    np.testing.assert_array_equal(a, before)


def test_unified_readonly_is_refused():
    with pytest.raises(errors.TypingError, match="Cannot modify readonly array"):
        store_through_unified(ro(np.arange(3.0)), np.arange(3.0), True)


def first(a):
    return a[0]


def test_explicit_writable_signature_refuses_readonly_argument():
    f = njit("float64(float64[::1])")(first)
    assert f(np.arange(3.0)) == 0.0
    with pytest.raises(TypeError):
        f(ro(np.arange(3.0)))
