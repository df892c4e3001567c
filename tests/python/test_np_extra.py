"""More of NumPy's array functions in compiled code (lib/nparray):
isclose, allclose, array_equal, elementwise predicates (iscomplex,
isreal, isneginf, isposinf), nan_to_num, sinc, compile-time answers
(isscalar, iscomplexobj, isrealobj, shape), views (swapaxes, moveaxis,
atleast_1d/2d/3d, fliplr, flipud, rot90, broadcast_to), ascontiguousarray,
asfortranarray and the methods a.clip, a.conj, a.conjugate, a.item.
Each compiled function is compared with NumPy (py_func) over several
dtypes, layouts and edge cases; typing errors are located at the
argument."""
import os
import re

import numpy as np
import pytest

import hpcjit
from conftest import assert_located_in, AGAINST_NUMBA, check, make_array

# Numba compiles slowly: two layouts in that mode
LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]
DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_]

def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


# ---- isclose, allclose, array_equal -------------------------------------------

@hpcjit.njit
def isclose(a, b):
    return np.isclose(a, b)


@hpcjit.njit
def isclose_kw(a, b, rtol, atol, equal_nan):
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@hpcjit.njit
def allclose(a, b):
    return np.allclose(a, b)


@hpcjit.njit
def allclose_kw(a, b, rtol, atol, equal_nan):
    return np.allclose(a, b, rtol, atol, equal_nan)


@hpcjit.njit
def array_equal(a, b):
    return np.array_equal(a, b)


@hpcjit.njit
def array_equal_nan(a, b):
    return np.array_equal(a, b, equal_nan=True)


def _near(a, gen):
    """a with some elements nudged within and beyond the tolerances."""
    b = np.array(a, copy=True)
    if b.size and b.dtype.kind in "fc":
        flat = b.reshape(-1)
        flat[:: 3] += 1e-9
        flat[1:: 5] += 1e-3
    return b


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_isclose_allclose(dt, layout):
    gen = np.random.default_rng(1)
    a = make_array(dt, (3, 4), layout, gen)
    b = _near(a, gen)
    pairs = ((a, b), (a, a))
    if not AGAINST_NUMBA:  # Numba 0.68 does not broadcast these or take scalars
        pairs += ((a, b[0]), (b[:, :1], a), (a, 2.5), (1.0, a), (a[0, 0], b[0, 0]))
    if dt is not np.complex128 or not AGAINST_NUMBA:  # Numba 0.68: no complex isclose
        check(isclose, a[0], b[0])
    for x, y in pairs:
        if not AGAINST_NUMBA:  # Numba 0.68's isclose fails on 2-d arrays
            check(isclose, x, y)
        check(allclose, x, y)
        check(array_equal, x, y)
    if AGAINST_NUMBA:
        return
    check(isclose_kw, a, b, 1e-2, 0.0, False)
    check(allclose_kw, a, b, 0.0, 1e-2, True)
    check(isclose, np.zeros((0, 3)), np.ones(3))
    assert isinstance(check(isclose, a, np.ones(5)), ValueError)  # shapes do not broadcast
    assert isinstance(check(allclose, a, np.ones((2, 4))), ValueError)


def test_isclose_special_values():
    a = np.array([np.nan, np.inf, -np.inf, 1.0, 0.0, np.inf, 1e300])
    b = np.array([np.nan, np.inf, np.inf, np.nan, -0.0, 1.0, np.inf])
    # equal_nan= of array_equal is beyond Numba 0.68
    for f in (isclose, allclose, array_equal) + (() if AGAINST_NUMBA else (array_equal_nan,)):
        check(f, a, b)
        check(f, a, a)
    check(isclose_kw, a, b, 1e-5, 1e-8, True)
    check(allclose_kw, a, a, 1e-5, 1e-8, True)
    if AGAINST_NUMBA:  # Numba 0.68: no complex isclose
        return
    c = np.array([1 + 1j, np.nan + 0j, complex(np.inf, 1)])
    for f in (isclose, allclose, array_equal_nan):
        check(f, c, c)
    check(isclose, np.array([1, 2, 3], np.int8), np.array([1.0, 2.0000001, 3.1]))


def test_array_equal_shapes():
    a = np.arange(6.0).reshape(2, 3)
    check(array_equal, a, a.copy())
    check(array_equal, a, a.T)
    check(array_equal, a, a.reshape(3, 2))
    check(array_equal, a, a.ravel())
    check(array_equal, np.arange(4), np.arange(4.0))
    check(array_equal, np.zeros(0), np.zeros(0))
    check(array_equal, 1, 1.0)


# ---- elementwise predicates and maps -------------------------------------------

@hpcjit.njit
def preds(a):
    return np.iscomplex(a), np.isreal(a)


@hpcjit.njit
def infs(a):
    return np.isneginf(a), np.isposinf(a)


@hpcjit.njit
def nan_to_num(a):
    return np.nan_to_num(a)


@hpcjit.njit
def nan_to_num_kw(a):
    return np.nan_to_num(a, nan=-1.0, posinf=1e10, neginf=-1e10)


@hpcjit.njit
def sinc(a):
    return np.sinc(a)


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0])


@pytest.mark.parametrize("dt", DTYPES)
def test_predicates_and_maps(dt):
    # Numba 0.68 cannot make the result of a non-contiguous iscomplex/isreal
    a = make_array(dt, (3, 4), "C" if AGAINST_NUMBA else "strided")
    check(preds, a)
    check(nan_to_num, a)
    check(nan_to_num_kw, a)
    if dt is not np.complex128:
        check(infs, a)
        if a.dtype.kind == "f" or not AGAINST_NUMBA:  # Numba 0.68's sinc of integers keeps their dtype
            check(sinc, a, rtol=1e-6)
    if not AGAINST_NUMBA:  # scalars: beyond Numba 0.68
        check(preds, a[0, 0])
        if dt is not np.complex128:
            check(sinc, a[1, 1], rtol=1e-6)


def test_special_values():
    for a in (SPECIAL, SPECIAL.astype(np.float32)):
        check(infs, a)
        check(nan_to_num, a)
        check(nan_to_num_kw, a)
        check(nan_to_num, a[1])
        if not AGAINST_NUMBA:  # Numba 0.68's sinc of inf differs from NumPy's nan
            check(sinc, a, rtol=1e-6)
    c = np.empty(SPECIAL.size, np.complex128)
    c.real, c.imag = SPECIAL, SPECIAL[::-1]
    check(preds, c)
    check(nan_to_num, c)
    check(nan_to_num_kw, c)
    check(preds, np.array([1 + 0j, 1j, -0j]))
    check(nan_to_num, np.zeros((0, 2)))


@hpcjit.njit
def compile_time(a):
    return np.isscalar(a), np.iscomplexobj(a), np.isrealobj(a), np.shape(a)


def test_compile_time_answers():
    for a in (1, 2.5, 1j, True, np.zeros((2, 3)), np.zeros(4, np.complex64), np.zeros(())):
        check(compile_time, a)


# ---- views ---------------------------------------------------------------------

@hpcjit.njit
def swapaxes(a, i, j):
    return np.swapaxes(a, i, j)


@hpcjit.njit
def moveaxis(a, i, j):
    return np.moveaxis(a, i, j)


@hpcjit.njit
def atleast(a):
    return np.atleast_1d(a), np.atleast_2d(a), np.atleast_3d(a)


@hpcjit.njit
def flips(a):
    return np.fliplr(a), np.flipud(a)


@hpcjit.njit
def flipud(a):
    return np.flipud(a)


@hpcjit.njit
def rot90(a, k):
    return np.rot90(a, k)


@hpcjit.njit
def rot90_axes(a, k, i, j):
    return np.rot90(a, k, axes=(i, j))


@hpcjit.njit
def rot90_default(a):
    return np.rot90(a)


@hpcjit.njit
def broadcast_to(a):
    return np.broadcast_to(a, (2, 3, 4))


@hpcjit.njit
def broadcast_to_n(a, n):
    return np.broadcast_to(a, n)


@pytest.mark.parametrize("dt", [np.int64, np.float64, np.complex128, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_views(dt, layout):
    a = make_array(dt, (2, 3, 4), layout)
    for i in (0, 1, 2, -1):
        for j in (0, 2, -3):
            check(swapaxes, a, i, j)
            check(moveaxis, a, i, j)
    if not AGAINST_NUMBA:  # Numba 0.68 raises ValueError, NumPy AxisError
        assert isinstance(check(swapaxes, a, 0, 3), ValueError)
    for x in (a, a[0], a[0, 0], np.zeros((0, 2))) + (() if AGAINST_NUMBA else (a[0, 0, 0], np.zeros(()))):
        check(atleast, x)  # numbers and 0-d arrays: beyond Numba 0.68
    check(flips, a)
    check(flips, a[0])
    check(flipud, a[0, 0])
    check(rot90_default, a)
    for k in range(-5, 6):
        check(rot90, a, k)
        check(rot90, a[0], k)
        if not AGAINST_NUMBA:  # rot90(axes=): beyond Numba 0.68
            check(rot90_axes, a, k, 2, 0)
            check(rot90_axes, a, k, -1, 1)
    for i, j in () if AGAINST_NUMBA else ((0, 0), (0, 3), (-4, 1), (0, -3)):
        assert isinstance(check(rot90_axes, a, 1, i, j), ValueError)
    check(broadcast_to, a[0, :, :])
    check(broadcast_to, a[:, :1, :])
    check(broadcast_to, a)
    check(broadcast_to_n, a[0, 0], 4)
    check(broadcast_to_n, a[0, 0, :1], 5)
    assert isinstance(check(broadcast_to, a[:, :2, :]), ValueError)
    assert isinstance(check(broadcast_to_n, a[0, 0, :1], -1), ValueError)


@hpcjit.njit
def views_write(a):
    s = np.swapaxes(a, 0, 1)
    s[0, 1] = 100.0
    r = np.rot90(a)
    r[0, 0] = -5.0
    return s, r


@hpcjit.njit
def broadcast_write(a):
    b = np.broadcast_to(a, (3, 4))
    b[0, 0] = 1.0
    return b


def test_views_share_memory():
    a = np.arange(6.0).reshape(2, 3)
    check(views_write, a)
    s, r = views_write(a)
    assert np.shares_memory(s, a) and np.shares_memory(r, a)
    assert a[1, 0] == 100.0 and a[0, 2] == -5.0


@pytest.mark.numba_skip(reason="hpcjit's message and location")
def test_broadcast_to_is_readonly():
    with pytest.raises(hpcjit.TypingError, match="readonly"):
        broadcast_write(np.ones(4))


# ---- contiguity ---------------------------------------------------------------------

@hpcjit.njit
def contiguous(a):
    return np.ascontiguousarray(a), np.asfortranarray(a)


@hpcjit.njit
def contiguous_dtype(a):
    return np.ascontiguousarray(a, dtype=np.float32), np.asfortranarray(a, np.complex128)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_contiguity(layout):
    a = make_array(np.float64, (3, 4), layout)
    for x in (a, a[0], a[0, 0], np.zeros(()), np.zeros((0, 3)), 2.5):
        c, f = contiguous(x)
        ec, ef = contiguous.py_func(x)
        assert c.flags.c_contiguous and f.flags.f_contiguous
        check(contiguous, x)
        if not AGAINST_NUMBA:  # dtype= is beyond Numba 0.68
            check(contiguous_dtype, x, rtol=1e-6)
    c, f = contiguous(a)
    if layout == "C":
        assert np.shares_memory(c, a)
    if layout == "F":
        assert np.shares_memory(f, a)


# ---- methods ---------------------------------------------------------------------

@hpcjit.njit
def methods(a):
    return a.clip(-2, 3), a.conj(), a.conjugate()


@hpcjit.njit
def item(a):
    return a.item()


@pytest.mark.parametrize("dt", [np.int64, np.float32, np.float64, np.complex128])
def test_methods(dt):
    a = make_array(dt, (3, 4), "F")
    if dt is not np.complex128:
        check(methods, a)
    check(item, a[1:2, 2:3])
    check(item, a[1, 1:2])
    check(item, np.zeros((), dt))
    assert isinstance(check(item, a), ValueError)
    assert isinstance(check(item, a[:0]), ValueError)


# ---- typing errors, located at the argument -------------------------------------------

@hpcjit.njit
def bad_isclose(a):
    return np.isclose(a, "x")  # bad-isclose


@hpcjit.njit
def bad_rtol(a):
    return np.allclose(a, a, rtol=1j)  # bad-rtol


@hpcjit.njit
def bad_fliplr(a):
    return np.fliplr(a)  # bad-fliplr


@hpcjit.njit
def bad_swapaxes(a):
    return np.swapaxes(a, 1.5, 0)  # bad-swapaxes


@hpcjit.njit
def bad_neginf(a):
    return np.isneginf(a)  # bad-neginf


@hpcjit.njit
def bad_rot90(a):
    return np.rot90(a, 1, (0, 1, 2))  # bad-rot90


@pytest.mark.numba_skip(reason="hpcjit's located diagnostics")
@pytest.mark.parametrize("fn, arg, marker, text", [
    (bad_isclose, np.ones(3), "bad-isclose", "must be a number or an array of numbers"),
    (bad_rtol, np.ones(3), "bad-rtol", "rtol must be a real number"),
    (bad_fliplr, np.ones(3), "bad-fliplr", "Input must be >= 2-d"),
    (bad_swapaxes, np.ones((2, 2)), "bad-swapaxes", "axis1 must be an integer"),
    (bad_neginf, np.ones(2, np.complex128), "bad-neginf", "not supported for complex values"),
    (bad_rot90, np.ones((2, 2, 2)), "bad-rot90", "len(axes) must be 2"),
])
def test_typing_errors(fn, arg, marker, text):
    with pytest.raises(hpcjit.TypingError) as ei:
        fn(arg)
    assert text in str(ei.value)
    assert_located(ei.value, marker)


# ---- ufuncs: fmod, float_power, gcd, lcm, signbit, ldexp (array expressions) -----------

FLOATS = np.array([5.5, -5.5, 0.0, -0.0, np.inf, np.nan, 3.0, -7.25])
FLOATS2 = np.array([2.0, 2.0, 1.0, -3.0, 2.0, 1.0, 0.0, 0.5])
INTS = np.array([7, -7, 0, 12, -12, 5, 9, 100])
INTS2 = np.array([3, 3, 5, -8, 0, 0, -1, 75])


@hpcjit.njit
def fmod(a, b):
    return np.fmod(a, b)


@hpcjit.njit
def gcd_lcm(a, b):
    return np.gcd(a, b), np.lcm(a, b)


@hpcjit.njit
def float_power(a, b):
    return np.float_power(a, b)


@hpcjit.njit
def signbit(a):
    return np.signbit(a)


@hpcjit.njit
def ldexp(a, b):
    return np.ldexp(a, b)


@hpcjit.njit
def fused(a, b):
    return np.fmod(a, b) + np.ldexp(a, 2) * np.signbit(b)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_new_ufuncs(layout):
    def lay(v):
        out = make_array(v.dtype, v.shape, layout)
        out[...] = v
        return out
    f, g, i, j = lay(FLOATS), lay(FLOATS2), lay(INTS), lay(INTS2)
    for a, b in ((f, g), (i, j), (i.astype(np.int32), j.astype(np.int32)), (i.astype(np.uint8) % 50, j.astype(np.uint8)),
                 (f.astype(np.float32), g.astype(np.float32)), (f, 2.0), (i, 3)):
        if np.asarray(a).dtype.kind == "f" or not AGAINST_NUMBA:  # Numba 0.68's integer fmod differs from C's
            check(fmod, a, b)
        check(float_power, a, b)
        check(signbit, a)
    for a, b in ((i, j), (i.astype(np.int16), j.astype(np.int16)), (i, 6), (f[:3], i[:3])):
        if a.dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu":
            check(gcd_lcm, a, b)
    check(float_power, f.astype(np.complex128), g)
    check(ldexp, f, j)
    check(ldexp, i, j)
    check(ldexp, f.astype(np.float32), j.astype(np.int32))
    check(fused, f, g)


def test_new_ufuncs_scalars():
    for a, b in ((5.5, 2.0), (7, -3), (-7, 3), (0, 0), (np.inf, 2.0)):
        if np.asarray(a).dtype.kind == "f" or not AGAINST_NUMBA:  # Numba 0.68's integer fmod differs from C's
            check(fmod, a, b)
        check(float_power, a, b)
    for a, b in ((12, 18), (-12, 18), (0, 0), (0, 5)):
        check(gcd_lcm, a, b)
    for a in (-0.0, 0.0, -3, 3, np.nan, -np.inf):
        check(signbit, a)
    check(ldexp, 1.5, 3)
    check(ldexp, 1.0, 2000)
    check(ldexp, 3, -2)


@hpcjit.njit
def bad_gcd(a):
    return np.gcd(a, 2)  # bad-gcd


@hpcjit.njit
def bad_ldexp(a):
    return np.ldexp(a, 1.5)  # bad-ldexp


@pytest.mark.numba_skip(reason="hpcjit's located diagnostics")
def test_ufunc_typing_errors():
    with pytest.raises(hpcjit.TypingError, match="not defined for float64") as ei:
        bad_gcd(np.ones(3))
    assert_located(ei.value, "bad-gcd")
    with pytest.raises(hpcjit.TypingError, match="exponent must be an integer") as ei:
        bad_ldexp(np.ones(3))
    assert_located(ei.value, "bad-ldexp")


# ---- as_strided, sliding_window_view, broadcast_arrays/shapes, asarray_chkfinite ----------

from numpy.lib.stride_tricks import as_strided, sliding_window_view  # noqa: E402


@hpcjit.njit
def strided_rows(a):
    return as_strided(a, (4, 3), (2 * a.itemsize, a.itemsize))


@hpcjit.njit
def strided_zero(a):
    return np.lib.stride_tricks.as_strided(a, shape=(3,), strides=(0,))


@hpcjit.njit
def strided_same(a):
    return as_strided(a), as_strided(a, strides=a.strides)


@hpcjit.njit
def windows1(a, w):
    return sliding_window_view(a, w)


@hpcjit.njit
def windows2(a):
    return sliding_window_view(a, (2, 3))


@hpcjit.njit
def windows_axis(a, k):
    return sliding_window_view(a, 2, axis=k)


@hpcjit.njit
def bcast2(a, b):
    return np.broadcast_arrays(a, b)


@hpcjit.njit
def bcast3(a, b, c):
    return np.broadcast_arrays(a, b, c)


@hpcjit.njit
def bshapes(n):
    return np.broadcast_shapes((3, n), 4), np.broadcast_shapes((3, 1), (4,), (1, 1, 4))


@hpcjit.njit
def chkfinite(a):
    return np.asarray_chkfinite(a)


@hpcjit.njit
def clip_one(a):
    return a.clip(3), a.clip(max=4), a.clip(None, 5)


@hpcjit.njit
def item_at(a, i):
    return a.item(i)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_stride_views(layout):
    v = make_array(np.float64, 10, layout)
    m = make_array(np.float64, (3, 4), layout)
    c = np.ascontiguousarray(v)
    check(strided_rows, c)
    check(strided_zero, v)
    if not AGAINST_NUMBA:  # as_strided without shape: beyond Numba 0.68
        check(strided_same, m)
    for w in (0, 3, 10, 11):
        check(windows1, v, w)
    check(windows2, m)
    for k in (0, 1, -1):
        check(windows_axis, m, k)
    if not AGAINST_NUMBA:  # Numba 0.68's broadcast_arrays returns a list, NumPy 2's a tuple
        for a, b in ((m, v[:4]), (m[:, :1], v[:4]), (m, m[:2])):
            check(bcast2, a, b)
        check(bcast3, m, v[:4], m[:1, :1])
    for n in (1, 4, 2):
        check(bshapes, n)
    check(chkfinite, m)
    check(chkfinite, np.arange(3))
    check(chkfinite, np.array([1.0, np.nan]))
    check(chkfinite, np.array([np.inf]))
    if AGAINST_NUMBA:  # a.clip(max=...) and a.item(i): beyond Numba 0.68
        return
    check(clip_one, m)
    for i in (0, 5, 11, -1, -12, 12, -13):
        check(item_at, m, i)


@pytest.mark.numba_skip(reason="hpcjit's read-only view diagnostics")
def test_sliding_window_is_readonly():
    @hpcjit.njit
    def write(a):
        w = sliding_window_view(a, 2)
        w[0, 0] = 1.0
        return w

    with pytest.raises(hpcjit.TypingError, match="readonly"):
        write(np.ones(4))


@hpcjit.njit
def views_as(a):
    return a.view(np.int64), a.view(np.uint8), a.view(np.complex128), a.view(np.float32)


@hpcjit.njit
def view_write(a):
    b = a.view(np.int64)
    b[0] = 0
    return b


def test_view_dtype():
    m = np.arange(12.0).reshape(3, 4)
    for x in (m, m[:, :2], m[::2], np.zeros((2, 0))):
        check(views_as, x)
    assert isinstance(check(views_as, m[:, ::2]), ValueError)  # last axis not contiguous
    assert isinstance(check(views_as, m[:, :1]), ValueError)  # 8 bytes are not a complex128's 16
    a = np.ones(3)
    view_write(a)
    assert a[0] == 0.0


@pytest.mark.numba_skip(reason="hpcjit's allocation counters")
def test_no_leaks():
    m = np.arange(12.0).reshape(3, 4)
    before = hpcjit._core.memstats()
    for _ in range(3):
        isclose(m, m[0])
        allclose(m, m)
        rot90(m, 1)
        atleast(m[0])
        contiguous(m.T)
        bcast2(m, m[0])
        windows1(m[0], 2)
        nan_to_num(m)
        for bad in (np.array([np.nan]),):
            try:
                chkfinite(bad)
            except ValueError:
                pass
        try:
            isclose(m, np.ones(5))
        except ValueError:
            pass
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
