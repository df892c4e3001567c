"""np.array / np.asarray from (nested) lists and tuples, and stores and
augmented assignments into rows, sub-arrays and selections (a[i] = row,
a[i, :] = b, a[i] += b, a[:, j] *= 2, a[mask] += 1), each checked against
the same function run by CPython (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import check, make_array, LAYOUTS


# ---- np.array / np.asarray ---------------------------------------------------------

@hpcjit.njit
def arr_list2d():
    return np.array([[1.0, 2.0], [3.0, 4.0]])


@hpcjit.njit
def arr_list_scalars(x, y, z):
    return np.array([x, y, z])


@hpcjit.njit
def arr_list3d(x):
    return np.array([[[1, 2], [3, x]], [[5, 6], [7, 8]]])


@hpcjit.njit
def arr_list_dtype(x):
    return (np.array([1, 2, x], dtype=np.float32), np.array([[1, 2], [3, 4]], dtype=np.int8),
            np.array([x, 2], dtype=np.complex128))


@hpcjit.njit
def arr_mixed(x, i, b):
    # NumPy's promotion across elements: bool < int < float < complex
    return np.array([b, i]), np.array([i, x]), np.array([[i, b], [x, 1j]]), np.array([(i, x), [b, 2]])


@hpcjit.njit
def arr_bools(b):
    return np.array([b, True, False])


@hpcjit.njit
def arr_empty_list():
    return np.array([[], []])


@hpcjit.njit
def asarray_tuple(x):
    return np.asarray((x, 2.0, 3)), np.asarray([[x, 1], [2, 3]]), np.asarray((1, 2), dtype=np.float32)


@hpcjit.njit
def asarray_same(a):
    b = np.asarray(a)
    b[0] = 42
    return b


@hpcjit.njit
def asarray_dtype(a):
    b = np.asarray(a, dtype=np.float32)
    b[0] = 42
    return b


def test_array_from_lists():
    check(arr_list2d)
    check(arr_list_scalars, 1.5, 2.0, -3.0)
    check(arr_list_scalars, 1, 2, 3)
    check(arr_list3d, 9)
    check(arr_list_dtype, 7)
    check(arr_mixed, 2.5, 3, True)
    check(arr_bools, False)
    check(arr_empty_list)


def test_asarray():
    check(asarray_tuple, 1.5)
    for layout in LAYOUTS:
        a = make_array(np.float64, (4, 3), layout)
        check(asarray_same, a)          # writes through: the argument changes too
        check(asarray_dtype, a)         # a converted copy: the argument stays


def test_asarray_shares_memory():
    a = np.arange(5.0)
    b = asarray_same(a)
    assert a[0] == 42.0 and np.shares_memory(a, b)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_array_list_errors():
    def ragged():
        return np.array([[1.0, 2.0], [3.0]])

    def deep_ragged(x):
        return np.array([[1.0, 2.0], x])

    def list_elsewhere():
        x = [1, 2]
        return x

    with pytest.raises(hpcjit.TypingError) as ei:
        hpcjit.njit(ragged)()
    assert "ragged" in str(ei.value) and "test_np_array_store.py:" in str(ei.value) and "^" in str(ei.value)
    with pytest.raises(hpcjit.TypingError) as ei:
        hpcjit.njit(deep_ragged)(1.0)
    assert "ragged" in str(ei.value)
    assert hpcjit.njit(list_elsewhere)() == [1, 2]  # lists are values now (lib/list)


# ---- stores into rows and sub-arrays ------------------------------------------------

@hpcjit.njit
def set_row(a, b):
    a[0] = b
    a[-1] = b
    return a


@hpcjit.njit
def set_row_slice(a, i, b):
    a[i, :] = b
    return a


@hpcjit.njit
def set_plane(a, i, b):
    a[i] = b
    return a


@hpcjit.njit
def iadd_row(a, i, b):
    a[i] += b
    return a


@hpcjit.njit
def imul_col(a, j):
    a[:, j] *= 2
    return a


@hpcjit.njit
def isub_sub(a, i, j, b):
    a[i, j] -= b
    return a


@hpcjit.njit
def mask_iadd(a):
    a[a > 0] += 1
    return a


@hpcjit.njit
def mask_ops(a, m, v):
    a[m] *= v
    a[m] -= 1
    return a


@hpcjit.njit
def fancy_iadd(a, idx, v):
    a[idx] += v
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32, np.int32, np.complex128])
def test_row_stores(layout, dtype):
    a = make_array(dtype, (4, 5), layout)
    b = make_array(dtype, 5, "strided")
    check(set_row, a, b)
    check(set_row, a, b[::-1].copy())
    check(set_row, a, dtype(3))
    check(set_row_slice, a, 2, b)
    check(set_row_slice, a, -3, dtype(1))
    check(iadd_row, a, 1, b)
    check(iadd_row, a, -1, dtype(2))
    check(imul_col, a, 3)
    check(imul_col, a, -1)
    a3 = make_array(dtype, (3, 4, 2), layout)
    check(set_plane, a3, 1, make_array(dtype, (4, 2), layout))
    check(set_plane, a3, 2, make_array(dtype, 2, "C"))          # broadcast along the rows
    check(set_plane, a3, 0, make_array(dtype, (4, 1), "C"))
    check(iadd_row, a3, 2, make_array(dtype, (4, 2), layout))
    check(iadd_row, a3, 0, make_array(dtype, (1, 2), layout))
    check(isub_sub, a3, 1, 2, make_array(dtype, 2, layout))


def test_row_store_casts():
    # a store converts like NumPy's setitem (unsafe casting)
    check(set_row, np.zeros((3, 4), dtype=np.int64), np.arange(4.0) + 0.5)
    check(set_row, np.zeros((3, 4), dtype=np.float32), np.arange(4))
    # in-place operators keep the target's dtype (same_kind)
    check(iadd_row, np.zeros((3, 4)), 1, np.arange(4, dtype=np.int32))
    check(iadd_row, np.zeros((3, 4), dtype=np.int64), 1, np.arange(4, dtype=np.int8))


@hpcjit.njit
def set_rows_from_sequences(n, x):
    # numbagg's nanquantile: `indexes[i] = [int(np.floor(r)), int(np.ceil(r))]`
    idx = np.zeros((n, 2), dtype=np.int32)
    vals = np.zeros((n, 3))
    for i in range(n):
        r = i * x
        idx[i] = [int(np.floor(r)), int(np.ceil(r))]
        vals[i] = (r, r + 0.5, 2.0 * r)
        vals[i, 1:] = [r + 1, 2 * r]
    return idx, vals


def test_row_store_from_list_and_tuple():
    check(set_rows_from_sequences, 5, 0.75)
    check(set_rows_from_sequences, 0, 0.5)


def test_row_store_shape_mismatch():
    e = check(set_row, np.zeros((3, 4)), np.arange(3.0))
    assert isinstance(e, ValueError) and "could not broadcast" in str(e)
    e = check(iadd_row, np.zeros((3, 4)), 0, np.arange(5.0))
    assert isinstance(e, ValueError)
    e = check(set_plane, np.zeros((3, 4, 2)), 0, np.zeros((3, 2)))
    assert isinstance(e, ValueError)


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_row_store_errors():
    def too_many_dims(a, b):
        a[0] = b

    def same_kind(a, b):
        a[0] += b

    def same_kind_mask(a):
        a[a > 0] += 1.5

    # more dimensions than the target: allowed when the extra leading ones
    # have length 1 (pandas' table rolling), else NumPy's ValueError at run
    # time, as Numba
    with pytest.raises(ValueError, match="could not broadcast input array from shape") as ei:
        hpcjit.njit(too_many_dims)(np.zeros((3, 4)), np.zeros((2, 4)))
    with pytest.raises(ValueError) as pe:
        too_many_dims(np.zeros((3, 4)), np.zeros((2, 4)))
    assert str(ei.value) == str(pe.value)
    check(hpcjit.njit(too_many_dims), np.zeros((3, 4)), np.ones((1, 4)))
    with pytest.raises(hpcjit.TypingError) as ei:
        hpcjit.njit(same_kind)(np.zeros((3, 4), dtype=np.int64), np.ones(4))
    assert "same_kind" in str(ei.value)
    with pytest.raises(hpcjit.TypingError) as ei:
        hpcjit.njit(same_kind_mask)(np.zeros(4, dtype=np.int64))
    assert "same_kind" in str(ei.value)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.int32, np.uint8])
def test_mask_and_fancy_augassign(dtype):
    a = make_array(dtype, (4, 5), "C")
    check(mask_iadd, a)
    check(mask_iadd, make_array(dtype, 7, "strided"))
    m = make_array(np.bool_, (4, 5), "F")
    check(mask_ops, a, m, dtype(3))
    v = make_array(dtype, 9)
    check(mask_ops, v, v > 2, dtype(2))
    # NumPy does not accumulate repeated indices: a[idx] += v reads a copy
    check(fancy_iadd, v, np.array([0, 3, 3, -1]), dtype(5))
    check(fancy_iadd, v, np.array([True, False] * 4 + [True]), dtype(1))
    check(fancy_iadd, v, np.array([1, 2]), make_array(dtype, 2))
    check(fancy_iadd, v, np.array([1, 20]), dtype(1))              # IndexError


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
def test_row_stores_free_everything():
    a = np.zeros((50, 8))
    b = np.arange(8.0)
    set_row(a, b), iadd_row(a, 3, b), mask_iadd(a), fancy_iadd(b, np.array([1, 2]), 1.0)
    asarray_same(b), asarray_dtype(a), arr_list3d(1)
    a0, f0 = hpcjit._core.memstats()
    for _ in range(10):
        set_row(a, b), iadd_row(a, 3, b), mask_iadd(a), fancy_iadd(b, np.array([1, 2]), 1.0)
        asarray_same(b), asarray_dtype(a), arr_list3d(1)
    a1, f1 = hpcjit._core.memstats()
    assert a1 - a0 == f1 - f0
