"""NumPy functions written as overloads (python/hpcjit/_npextra.py):
np.unique with return_index/return_inverse/return_counts, np.count_nonzero
with an axis, np.meshgrid, np.pad, np.lexsort, np.put / a.put,
np.heaviside, np.divmod, np.polyfit, np.polyval, and float()/int() of a
0-d array (np.nditer's items).  Each compiled function is compared with
NumPy (py_func) over dtypes, layouts and edge cases, memstats balanced;
the refused options give a located TypingError naming the function."""
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check, make_array

NS = pytest.mark.numba_skip

LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]
DTYPES = [np.int32, np.int64, np.float32, np.float64, np.bool_]


@pytest.fixture(autouse=True)
def all_freed(balanced):
    """Every allocation made by the test is freed (conftest's balanced:
    after gc, as a raised exception's traceback is a cycle)."""
    yield


def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


def small_ints(dtype, shape, layout):
    """Values with repeats (unique, lexsort): make_array's values mod 4."""
    a = make_array(dtype, shape, layout)
    if a.dtype != np.bool_:
        a[...] = (np.abs(a.astype(np.float64)) % 4).astype(a.dtype)
    return a


# ---- np.unique(return_index, return_inverse, return_counts) ----------------------

@njit
def unique_all(a):
    return np.unique(a, return_index=True, return_inverse=True, return_counts=True)


@njit
def unique_counts(a):
    return np.unique(a, return_counts=True)


@njit
def unique_inverse(a):
    return np.unique(a, False, True)


@njit
def unique_index(a):
    u, i = np.unique(a, return_index=True)
    return u, i


@njit
def unique_none(a):
    return np.unique(a, return_counts=False)


@NS("Numba 0.68's np.unique takes only the array")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(0,), (1,), (9,), (3, 4)])
def test_unique_returns(dtype, layout, shape):
    a = small_ints(dtype, shape, layout)
    for f in (unique_all, unique_counts, unique_inverse, unique_index, unique_none):
        check(f, a)
    u, i, v, c = unique_all(a)
    assert i.dtype == v.dtype == c.dtype == np.intp
    assert v.shape == np.unique(a, return_inverse=True)[1].shape


@NS("Numba 0.68's np.unique takes only the array")
def test_unique_nan():
    a = np.array([np.nan, 1.0, np.nan, 0.0, 1.0, np.nan, -np.inf])
    got = check(unique_all, a)
    assert np.isnan(got[0][-1]) and got[3][-1] == 3  # NaNs collapse (equal_nan=True)
    check(unique_all, np.full(4, np.nan, np.float32))


# ---- np.count_nonzero(a, axis) ----------------------------------------------------

@njit
def count_nonzero_axis(a, axis):
    return np.count_nonzero(a, axis=axis)


@njit
def count_nonzero_pos(a):
    return np.count_nonzero(a, 0), np.count_nonzero(a, -1)


@NS("Numba 0.68's np.count_nonzero has no axis")
@pytest.mark.parametrize("dtype", DTYPES + [np.complex128])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(7,), (0, 3), (4, 5), (2, 3, 4)])
def test_count_nonzero_axis(dtype, layout, shape):
    a = make_array(dtype, shape, layout)
    a.flat[::3] = 0
    for ax in range(-len(shape), len(shape)):
        got = check(count_nonzero_axis, a, ax)
        assert len(shape) == 1 or got.dtype == np.intp
    check(count_nonzero_pos, a)
    check(count_nonzero_axis, a, len(shape))  # AxisError
    check(count_nonzero_axis, a, -len(shape) - 1)


# ---- np.meshgrid ------------------------------------------------------------------

@njit
def meshgrid2(x, y):
    return np.meshgrid(x, y)


@njit
def meshgrid2_ij(x, y):
    return np.meshgrid(x, y, indexing="ij")


@njit
def meshgrid3(x, y, z):
    return np.meshgrid(x, y, z)


@njit
def meshgrid3_ij_sparse(x, y, z):
    return np.meshgrid(x, y, z, indexing="ij", sparse=True)


@njit
def meshgrid2_sparse(x, y):
    return np.meshgrid(x, y, sparse=True, copy=True)


@njit
def meshgrid1(x):
    return np.meshgrid(x)


@NS("Numba 0.68 has no np.meshgrid")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_meshgrid(dtype, layout):
    x = make_array(dtype, 4, layout)
    y = make_array(np.float64, 3, layout)
    z = make_array(dtype, (2, 1), layout)  # raveled, as NumPy
    for f in (meshgrid2, meshgrid2_ij, meshgrid2_sparse):
        got = check(f, x, y)
        assert isinstance(got, tuple) and [g.dtype for g in got] == [x.dtype, y.dtype]
    check(meshgrid3, x, y, z)
    check(meshgrid3_ij_sparse, x, y, z)
    check(meshgrid1, x)
    check(meshgrid2, x[:0], y)


# ---- np.pad -----------------------------------------------------------------------

@njit
def pad_const(a, w):
    return np.pad(a, w)


@njit
def pad_const_value(a, w):
    return np.pad(a, w, mode="constant", constant_values=7)


@njit
def pad_edge(a, w):
    return np.pad(a, w, "edge")


@njit
def pad_reflect(a, w):
    return np.pad(a, w, mode="reflect")


@njit
def pad_symmetric(a, w):
    return np.pad(a, w, mode="symmetric")


@njit
def pad_wrap(a, w):
    return np.pad(a, w, mode="wrap")


PADS = [pad_const, pad_const_value, pad_edge, pad_reflect, pad_symmetric, pad_wrap]


@NS("Numba 0.68 has no np.pad")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pad_1d(dtype, layout):
    for n in (1, 2, 5):
        a = make_array(dtype, n, layout)
        for w in (0, 1, 3, 11, (2, 0), (0, 7), (5, 2), ((1, 9),)):
            for f in PADS:
                check(f, a, w)


@NS("Numba 0.68 has no np.pad")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pad_nd(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    for w in (2, (1, 3), ((1, 2), (0, 5)), ((4, 1),), ((0, 0), (7, 2))):
        for f in PADS:
            check(f, a, w)
    b = make_array(dtype, (2, 3, 2), layout)
    for w in (1, ((1, 0), (2, 1), (0, 3))):
        for f in PADS:
            check(f, b, w)


@NS("Numba 0.68 has no np.pad")
def test_pad_errors():
    a = np.arange(4.0)
    for f in PADS:
        check(f, a, -1)  # ValueError: negative widths
        check(f, a, (1, -2))
    e = np.zeros((0, 3))
    check(pad_const, e, 2)
    for f in (pad_edge, pad_reflect, pad_symmetric, pad_wrap):
        check(f, e, ((1, 0), (0, 0)))  # ValueError: an empty axis
        check(f, e, ((0, 0), (1, 1)))


# ---- np.lexsort -------------------------------------------------------------------

@njit
def lexsort2(a, b):
    return np.lexsort((a, b))


@njit
def lexsort3(a, b, c):
    return np.lexsort((a, b, c))


@njit
def lexsort_rows(k):
    return np.lexsort(k)


@NS("Numba 0.68 has no np.lexsort")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", [0, 1, 13])
def test_lexsort(dtype, layout, n):
    a = small_ints(dtype, n, layout)
    b = small_ints(np.int64, n, "C")
    b[::2] = 1
    c = small_ints(np.float64, n, layout)
    check(lexsort2, a, b)
    check(lexsort3, a, b, c)
    check(lexsort3, c, a, b)
    check(lexsort_rows, np.ascontiguousarray(np.stack((c, b.astype(np.float64)))))


@NS("Numba 0.68 has no np.lexsort")
def test_lexsort_nan_and_errors():
    a = np.array([np.nan, 1.0, np.nan, 0.0, 1.0])
    b = np.array([1, 0, 0, 1, 0])
    check(lexsort2, a, b)
    check(lexsort2, b, a)
    check(lexsort2, a, np.arange(3))  # ValueError: keys of different lengths
    check(lexsort_rows, np.zeros((0, 3)))  # TypeError: no keys


# ---- np.put / a.put ---------------------------------------------------------------

@njit
def put_fn(a, ind, v):
    np.put(a, ind, v)
    return a


@njit
def put_method(a, ind, v):
    a.put(ind, v)
    return a


@njit
def put_method_none(a, ind, v):
    return a.put(ind, v)


@NS("Numba 0.68 has no np.put / a.put")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_put(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    v = make_array(dtype, 3, layout)
    for f in (put_fn, put_method, put_method_none):
        check(f, a, np.array([0, 5, -1, 11, 2]), v)  # v repeated
        check(f, a, np.array([[1, 2], [3, -12]]), v[:1])
        check(f, a, 7, v)
        check(f, a, np.array([4, 0]), v[0])
        check(f, a, np.array([4]), v[:0])  # nothing
        check(f, a, np.array([1, 12]), v)  # IndexError
        check(f, a, -13, v)


# ---- np.heaviside, np.divmod ------------------------------------------------------

@njit
def heaviside(x1, x2):
    return np.heaviside(x1, x2)


@njit
def divmod_np(x1, x2):
    return np.divmod(x1, x2)


@NS("Numba 0.68 has no np.heaviside")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_heaviside(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    if a.dtype.kind == "f":
        a[0, :2] = [np.nan, 0]
    a[1, 1] = 0
    h = make_array(np.float64, 4, layout)
    h[0] = np.nan
    # scalars typed as the arrays' dtype: a Python float is float64 in
    # compiled code (NumPy 2 takes it as a weak float32 with float32 arrays)
    half = np.float32(0.5) if dtype is np.float32 else np.float64(0.5)
    check(heaviside, a, half)
    h = h.astype(np.float32) if dtype is np.float32 else h
    check(heaviside, a, h)  # broadcast
    check(heaviside, h[:1], a)
    if dtype is not np.bool_:  # bool, bool: NumPy's float16 loop (refused: test_refusals)
        check(heaviside, a, a)
    for x in (-2.5, 0.0, 3, np.nan):
        for hv in (0.5, np.float32(1.0), np.nan, 2):
            check(heaviside, x, hv)
    check(heaviside, np.float32(0.0), np.float32(0.25))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_divmod(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    b = make_array(dtype, 4, layout)
    b[b == 0] = 3
    b[1] = -b[1]
    check(divmod_np, a, b)
    check(divmod_np, a, dtype(3))
    check(divmod_np, a, np.float32(-2.5) if dtype is np.float32 else -2.5)
    check(divmod_np, dtype(-7), b)
    for x, y in ((7, 2), (-7, 2), (7, -2), (-7.5, 2.0), (7.5, -2.0)):
        check(divmod_np, x, y)


@NS("an integer divmod by zero: NumPy's 0, Numba's ZeroDivisionError; Numba's 0.0 % -3.0 is +0.0, NumPy's -0.0")
def test_divmod_by_zero():
    check(divmod_np, 0.0, -3.0)
    check(divmod_np, np.array([5, -3, 0]), np.array([0, 0, 0]))
    check(divmod_np, np.array([5.0, -3.0, 0.0]), 0.0)


# ---- np.polyfit, np.polyval -------------------------------------------------------

@njit
def polyfit(x, y, deg):
    return np.polyfit(x, y, deg)


@njit
def polyfit_rcond(x, y, deg):
    return np.polyfit(x, y, deg, rcond=1e-3)


@njit
def polyval(p, x):
    return np.polyval(p, x)


@NS("Numba 0.68 has no np.polyfit")
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_polyfit(dtype, layout):
    x = make_array(dtype, 12, layout)
    x[...] = np.arange(12, dtype=dtype)
    y = make_array(np.float64, 12, layout)
    for deg in (0, 1, 2, 5):
        got = check(polyfit, x, y, deg, rtol=1e-7, atol=1e-9)
        assert got.dtype == np.float64
        check(polyfit_rcond, x, y, deg, rtol=1e-7, atol=1e-9)
    y2 = make_array(np.float64, (12, 3), layout)
    check(polyfit, x, y2, 2, rtol=1e-7, atol=1e-9)
    check(polyfit, x, y.astype(dtype), 3, rtol=1e-7, atol=1e-9)


@NS("Numba 0.68 has no np.polyfit")
def test_polyfit_errors():
    x = np.arange(5.0)
    check(polyfit, x, x, -1)  # ValueError
    check(polyfit, x[:0], x[:0], 1)  # TypeError: empty x
    check(polyfit, x, x[:3], 1)  # TypeError: lengths differ


@NS("Numba 0.68 has no np.polyval")
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_polyval(dtype, layout):
    p = make_array(dtype, 4, layout)
    x = make_array(np.float64, (3, 2), layout)
    check(polyval, p, x)
    check(polyval, p, x.astype(dtype))
    check(polyval, p, 1.5)
    check(polyval, p, 3)
    check(polyval, p.astype(np.float64), np.float32(2))


# ---- float() / int() of a 0-d array -----------------------------------------------

@njit
def nditer_floats(a):
    out = 0.0
    for v in np.nditer(a):
        out += float(v)
    return out


@njit
def nditer_ints(a):
    out = 0
    for v in np.nditer(a):
        out += int(v)
    return out


@njit
def zero_d_conversions(a):
    z = np.asarray(a.sum())
    return float(z), int(z), float(a.sum())


@NS("Numba 0.68 cannot convert a 0-d array with float()/int()")
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_zero_d_conversions(dtype, layout):
    a = make_array(dtype, (3, 4), layout)
    tol = 1e-6 if dtype is np.float32 else 1e-12  # float32 sums in another order than NumPy's pairwise
    check(nditer_floats, a, rtol=tol)
    check(nditer_ints, a)
    check(zero_d_conversions, a, rtol=tol)


# ---- refusals ---------------------------------------------------------------------

def bad_unique_axis(a):
    return np.unique(a, return_counts=True, axis=0)  # bad-unique-axis


def bad_pad_mode(a):
    return np.pad(a, 1, mode="linear_ramp")  # bad-pad-mode


def bad_pad_values(a):
    return np.pad(a, 1, constant_values=(1, 2))  # bad-pad-values


def bad_polyfit_full(a):
    return np.polyfit(a, a, 1, full=True)  # bad-polyfit-full


def bad_polyfit_w(a):
    return np.polyfit(a, a, 1, w=a)  # bad-polyfit-w


def bad_put_mode(a):
    np.put(a, 0, 1.0, mode="clip")  # bad-put-mode


def bad_meshgrid_indexing(a):
    return np.meshgrid(a, a, indexing="yx")  # bad-meshgrid-indexing


def bad_count_nonzero_tuple(a):
    return np.count_nonzero(a, axis=(0, 1))  # bad-count-nonzero-tuple


def bad_heaviside_half(a):
    return np.heaviside(a > 0, a > 1)  # bad-heaviside-half


def bad_float_1d(a):
    return float(a)  # bad-float-1d


@NS("hpcjit's located diagnostics")
@pytest.mark.parametrize("fn,marker,text", [
    (bad_unique_axis, "bad-unique-axis", "np.unique(axis=...) is not supported"),
    (bad_pad_mode, "bad-pad-mode", "np.pad(mode='linear_ramp') is not supported"),
    (bad_pad_values, "bad-pad-values", "constant_values must be a number"),
    (bad_polyfit_full, "bad-polyfit-full", "np.polyfit(full=True) is not supported"),
    (bad_polyfit_w, "bad-polyfit-w", "np.polyfit(w=...) is not supported"),
    (bad_put_mode, "bad-put-mode", "np.put(mode=...) is not supported"),
    (bad_meshgrid_indexing, "bad-meshgrid-indexing", "Valid values for `indexing`"),
    (bad_count_nonzero_tuple, "bad-count-nonzero-tuple", "a tuple of axes is not supported"),
    (bad_heaviside_half, "bad-heaviside-half", "np.heaviside() computing in float16 is not supported"),
    (bad_float_1d, "bad-float-1d", "cannot convert array(float64, 2d, C) to float64"),
])
def test_refusals(fn, marker, text):
    with pytest.raises(hpcjit.TypingError) as ei:
        njit(fn)(np.ones((2, 2)))
    assert text in str(ei.value), str(ei.value)
    assert_located(ei.value, marker)
