"""Arrays: indexing, stores, attributes, every dtype and layout (C, F,
strided, negative strides), allocation, copies, returned arrays."""
import numpy as np
import pytest

from hpcjit import njit
from conftest import check, make_array, DTYPES_ALL, DTYPES_REAL, LAYOUTS


# ---- indexing and stores ----------------------------------------------------

@njit
def get1(a, i):
    return a[i]


@njit
def get2(a, i, j):
    return a[i, j]


@njit
def get3(a, i, j, k):
    return a[i, j, k]


@njit
def get_tuple_index(a, idx):
    return a[idx]


@njit
def set1(a, i, v):
    a[i] = v


@njit
def set2(a, i, j, v):
    a[i, j] = v


@njit
def set_tuple_index(a, idx, v):
    a[idx] = v
    return a[idx]


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_get_negative_wrap_1d(dtype, layout):
    a = make_array(dtype, 7, layout)
    for i in [0, 3, 6, -1, -7, -3]:
        check(get1, a, i)


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_get_2d(dtype, layout):
    a = make_array(dtype, (4, 5), layout)
    for i, j in [(0, 0), (3, 4), (-1, -1), (-4, 2), (1, -5), (2, 3)]:
        check(get2, a, i, j)
        check(get_tuple_index, a, (i, j))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_get_3d(layout):
    a = make_array(np.float64, (3, 4, 5), layout)
    for idx in [(0, 0, 0), (2, 3, 4), (-1, -2, -3), (1, 0, -5)]:
        check(get3, a, *idx)
        check(get_tuple_index, a, idx)


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_set(dtype, layout):
    a = make_array(dtype, 6, layout)
    v = make_array(dtype, 1)[0]
    check(set1, a, 2, v)
    check(set1, a, -1, v)
    b = make_array(dtype, (3, 4), layout)
    check(set2, b, 1, -2, v)
    check(set_tuple_index, b, (-1, 0), v)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.float32])
def test_store_converts(dtype):
    # storing a float into an int array truncates; an int into a float converts
    a = make_array(dtype, 4)
    check(set1, a, 0, 3.75)
    check(set1, a, 1, 7)
    check(set1, a, 2, True)


# ---- attributes ------------------------------------------------------------

@njit
def attrs(a):
    return a.shape, a.ndim, a.size, a.strides, len(a)


@njit
def shape_unpack(a):
    m, n = a.shape
    return m * 100 + n


@njit
def same_dtype_zeros(a):
    return np.zeros(a.shape, a.dtype)


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_attributes(dtype, layout):
    for shape in [(5,), (3, 4), (2, 3, 4), (0,), (4, 0)]:
        a = make_array(dtype, shape, layout)
        check(attrs, a)
        check(same_dtype_zeros, a)


def test_shape_unpack():
    check(shape_unpack, np.zeros((7, 9)))
    check(shape_unpack, np.zeros((7, 9))[::2, ::-3])


# ---- loops over all dtypes and layouts ------------------------------------

@njit
def copy_loop_1d(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i]
    return out


@njit
def copy_loop_2d(a):
    out = np.empty(a.shape, a.dtype)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j]
    return out


@njit
def sum_2d(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += float(a[i, j]) * (i + 1) - j
    return s


@njit
def sum_3d(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                s += float(a[i, j, k]) * (i - j + 2 * k)
    return s


@njit
def scale_inplace(a, k):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * k


@njit
def int_sum(a):
    s = 0
    for i in range(len(a)):
        s += int(a[i])
    return s


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_copy_loops(dtype, layout):
    check(copy_loop_1d, make_array(dtype, 11, layout))
    check(copy_loop_2d, make_array(dtype, (5, 6), layout))


@pytest.mark.parametrize("dtype", DTYPES_REAL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reductions(dtype, layout):
    check(sum_2d, make_array(dtype, (6, 7), layout), rtol=1e-6 if dtype == np.float32 else 1e-12)
    check(sum_3d, make_array(dtype, (3, 4, 5), layout), rtol=1e-6 if dtype == np.float32 else 1e-12)
    if np.dtype(dtype).kind in "iu":
        check(int_sum, make_array(dtype, 50, layout))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mutation_through_views(dtype, layout):
    check(scale_inplace, make_array(dtype, (4, 3), layout), 2)


def test_large_strides_and_transposed():
    a = make_array(np.float64, (40, 30))
    check(sum_2d, a.T)
    check(sum_2d, a[::3, ::-7])
    check(copy_loop_2d, a[5:9, 2:20:4])


# ---- allocation --------------------------------------------------------------

@njit
def alloc_1d(n):
    a = np.empty(n)
    b = np.zeros(n)
    c = np.ones(n)
    for i in range(n):
        a[i] = i * 0.5
    return a, b, c


@njit
def alloc_tuple_shape(m, n):
    a = np.zeros((m, n))
    b = np.ones((m, n), np.int32)
    c = np.empty((m, n), dtype=np.float32)
    for i in range(m):
        for j in range(n):
            a[i, j] = i - j
            c[i, j] = i * j
    return a, b, c


@njit
def alloc_dtypes(n):
    return (np.zeros(n, np.int8), np.ones(n, np.uint64), np.zeros(n, np.complex128),
            np.ones(n, np.bool_), np.zeros(n, dtype=np.int64), np.ones((n, 2), np.float32))


@njit
def alloc_3d(n):
    a = np.zeros((n, n + 1, n + 2))
    a[n - 1, n, n + 1] = 5.0
    return a


@njit
def alloc_like(a):
    e = np.empty_like(a)
    z = np.zeros_like(a)
    o = np.ones_like(a)
    return z, o, e.shape


@njit
def alloc_like_dtype(a):
    return np.zeros_like(a, np.float32), np.ones_like(a, dtype=np.int16)


@njit
def arange1(n):
    return np.arange(n)


@njit
def arange3(start, stop, step):
    return np.arange(start, stop, step)


@njit
def copies(a):
    b = a.copy()
    c = np.copy(a)
    b[0] = 99
    return b, c


@pytest.mark.parametrize("n", [0, 1, 5])
def test_alloc_1d(n):
    check(alloc_1d, n)
    check(alloc_dtypes, n)


@pytest.mark.parametrize("m,n", [(0, 3), (3, 4), (1, 1)])
def test_alloc_tuple_shape(m, n):
    check(alloc_tuple_shape, m, n)


def test_alloc_3d():
    check(alloc_3d, 3)


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_alloc_like(dtype, layout):
    check(alloc_like, make_array(dtype, (3, 4), layout))
    check(alloc_like_dtype, make_array(dtype, (3, 4), layout))


@pytest.mark.parametrize("n", [0, 1, 10])
def test_arange_int(n):
    check(arange1, n)


@pytest.mark.parametrize("args", [(0, 10, 3), (10, 0, -2), (-5, 5, 1), (5, 5, 1), (0.0, 1.0, 0.1),
                                  (1.5, -2.0, -0.25)])
def test_arange_range(args):
    check(arange3, *args)


@pytest.mark.parametrize("dtype", DTYPES_ALL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_copy(dtype, layout):
    check(copies, make_array(dtype, 5, layout))
    b, c = copies(make_array(dtype, (2, 3), layout))
    assert b.flags.c_contiguous and b.flags.writeable


# ---- returning arrays --------------------------------------------------------

@njit
def ident(a):
    return a


@njit
def return_pair(n):
    a = np.zeros(n)
    b = np.arange(n)
    return a, b


@njit
def return_mixed_tuple(n):
    a = np.ones((n, 2))
    return n, a, a.shape[0] * 1.5


def test_return_argument_is_same_memory():
    a = np.arange(6.0)
    r = ident(a)
    assert isinstance(r, np.ndarray) and np.shares_memory(r, a)
    r[0] = 42.0
    assert a[0] == 42.0
    check(ident, make_array(np.int32, (3, 4), "strided"))


def test_return_tuples_of_arrays():
    check(return_pair, 4)
    check(return_mixed_tuple, 3)
    a, b = return_pair(4)
    assert type(a) is np.ndarray and type(b) is np.ndarray
    assert a.flags.writeable and b.flags.writeable


# ---- the pairwise example from the issue ------------------------------------

@njit
def pairwise(X):
    m, k = X.shape
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            d = 0.0
            for t in range(k):
                diff = X[i, t] - X[j, t]
                d += diff * diff
            D[i, j] = np.sqrt(d)
    return D


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_pairwise(layout, dtype):
    X = make_array(dtype, (20, 3), layout)
    check(pairwise, X, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_pairwise_against_numpy():
    X = np.random.default_rng(0).standard_normal((50, 4))
    D = pairwise(X)
    ref = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(D, ref, rtol=1e-12, atol=1e-12)
    assert D.dtype == np.float64 and D.shape == (50, 50)


# ---- extreme values, complex64, high ndim, unusual arrays ------------------

@pytest.mark.parametrize("dtype", DTYPES_REAL + [np.complex64, np.complex128])
def test_extreme_values_roundtrip(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [info.min, info.max, 0, 1, info.max - 1]
    elif dt.kind == "f":
        info = np.finfo(dt)
        vals = [info.min, info.max, info.tiny, -0.0, np.inf, -np.inf, np.nan, info.eps]
    else:
        vals = [complex(np.inf, -1), complex(0, np.nan), 1e30 + 1e-30j, -0.0 + 0j]
    a = np.array(vals, dtype=dt)
    for i in range(len(vals)):
        check(get1, a, i)
    check(copy_loop_1d, a)
    b = np.zeros(len(vals), dtype=dt)
    for i in range(len(vals)):
        check(set1, b, i, a[i])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_complex64_arrays(layout):
    a = make_array(np.complex128, (3, 4), layout).astype(np.complex64)
    if layout == "strided":
        a = make_array(np.complex128, (3, 4), "C").astype(np.complex64)[::2, ::-1]
    check(copy_loop_2d, a)
    check(get2, a, 1, -1)
    check(alloc_like, a)


@njit
def sum_5d(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                for l in range(a.shape[3]):
                    for m in range(a.shape[4]):
                        s += a[i, j, k, l, m] * (i + 2 * j - k + l * m)
    return s, a.ndim, a.shape, a[-1, -1, -1, -1, -1]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_five_dimensions(layout):
    check(sum_5d, make_array(np.float64, (2, 3, 2, 3, 2), layout))


@njit
def read_only_sum(a):
    s = 0.0
    for x in a:
        s += x
    return s


@njit
def write_first(a):
    a[0] = 1.0


def test_read_only_arrays():
    a = np.arange(5.0)
    a.flags.writeable = False
    check(read_only_sum, a)
    # writing into a read-only array must not happen silently
    with pytest.raises(Exception):
        write_first(a)
    assert a[0] == 0.0


def test_byte_swapped_arrays_are_refused_or_correct():
    a = np.arange(6.0).astype(">f8")
    try:
        r = read_only_sum(a)
    except Exception:
        return  # refused: fine (Numba refuses too)
    assert r == 15.0


@njit
def sum_bool(a):
    c = 0
    for i in range(a.shape[0]):
        if a[i]:
            c += 1
    return c, a[0], a[-1]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_bool_arrays(layout):
    check(sum_bool, make_array(np.bool_, 9, layout))


# ---- element arithmetic across dtypes ----------------------------------------

@njit
def elementwise(a, b, out):
    for i in range(a.shape[0]):
        out[0, i] = a[i] + b[i]
        out[1, i] = a[i] * b[i]
        out[2, i] = a[i] / b[i]
        out[3, i] = a[i] // b[i]
        out[4, i] = a[i] % b[i]
        out[5, i] = a[i] < b[i]
        out[6, i] = a[i] == b[i]
        out[7, i] = max(a[i], b[i])
        out[8, i] = abs(a[i])


@pytest.mark.parametrize("dtype", DTYPES_REAL)
@pytest.mark.parametrize("layout", ["C", "strided"])
def test_elementwise_same_dtype(dtype, layout):
    g = np.random.default_rng(7)
    a = make_array(dtype, 40, layout, g)
    b = make_array(dtype, 40, layout, g)
    b[b == 0] = 3  # no division by zero
    out = np.zeros((9, 40))
    check(elementwise, a, b, out, rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("da,db", [(np.int8, np.int64), (np.int32, np.float64), (np.uint8, np.int16),
                                   (np.float32, np.float64), (np.uint32, np.int32), (np.int16, np.float32)])
def test_elementwise_mixed_dtypes(da, db):
    g = np.random.default_rng(11)
    a = make_array(da, 40, "C", g)
    b = make_array(db, 40, "C", g)
    b[b == 0] = 3
    out = np.zeros((9, 40))
    check(elementwise, a, b, out, rtol=1e-6)


@njit
def nested_array_tuple(n):
    a = np.zeros(n)
    b = np.ones((n, 2))
    return (a, (b, n)), a.shape


def test_nested_tuples_with_arrays():
    check(nested_array_tuple, 3)


@njit
def dtype_facts(a, b):
    return (a.nbytes, a.dtype.itemsize, a.dtype == np.float64, a.dtype != b.dtype, a.dtype == b.dtype,
            b.dtype == np.int32, a[::2].nbytes)


@pytest.mark.parametrize("a,b", [
    (np.ones((3, 4)), np.arange(3, dtype=np.int32)),
    (np.ones(5, dtype=np.float32), np.ones(2, dtype=np.float32)),
    (np.zeros((2, 0, 3), dtype=np.complex128), np.ones(1, dtype=np.uint8)),
    (np.asfortranarray(np.ones((4, 3), dtype=np.int16)), np.ones((2, 2))),
])
def test_nbytes_itemsize_and_dtype_comparisons(a, b):
    check(dtype_facts, a, b)


@njit
def dtype_type_and_kind(a, out):
    # numbagg's nansum and group_nanfirst: a zero of the array's own type,
    # and a branch on the kind that stores NaN only into a float array
    s = a.dtype.type(0)
    for x in a:
        s += x
    out[0] = s
    if out.dtype.kind == "f":
        out[1:] = np.nan
    return s, a.dtype.kind


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64])
def test_dtype_type_and_kind(dt):
    r = check(dtype_type_and_kind, np.arange(1, 6, dtype=dt), np.zeros(3, dtype=dt))
    assert r[1] == np.dtype(dt).kind


# ---- unpacking an array's first axis: x, y = a ----

@njit
def unpack_pair(a):
    x, y = a
    return x * 10 + y


@njit
def unpack_rows(m):
    r0, r1, r2 = m
    return r0.sum(), r2[1], r1 * 2


@pytest.mark.parametrize("a", [np.array([1.0, 2.0]), np.arange(2), np.arange(3.0), np.arange(1.0),
                               np.arange(4.0)[::2]])
def test_unpack_array(a):
    check(unpack_pair, a)  # ValueError as CPython when the length differs


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (4, 2)])
def test_unpack_rows(shape):
    check(unpack_rows, np.arange(float(np.prod(shape))).reshape(shape))
