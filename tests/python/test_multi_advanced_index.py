"""Several advanced indices in one subscript (compiler/infer/infer_index.c,
compiler/lower/lower_index.c): integer arrays of any ndim and 1-D boolean
arrays broadcast together, with integers and slices between them, read and
written, compared with NumPy through check() over dtypes and layouts (C,
F, non-contiguous views), with memstats balance.  NumPy's placement rule:
the broadcast axes replace the indexed ones when the advanced items are
adjacent, and come first when a slice separates them."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

NS = pytest.mark.numba_skip
pytestmark = pytest.mark.usefixtures("balanced")
TypingError = None if AGAINST_NUMBA else hpcjit.errors.TypingError
MULTI = NS("Numba 0.68 does not broadcast index arrays of different shapes, take boolean ones among "
           "several, nor check their bounds")


def layouts(a):
    """a as C, F and a non-contiguous view with a's values."""
    big = np.zeros((a.shape[0] * 2,) + a.shape[1:], a.dtype)
    big[::2] = a
    return [np.ascontiguousarray(a), np.asfortranarray(a), big[::2]]


def sample(shape, dtype):
    a = np.arange(int(np.prod(shape))).reshape(shape) * 7 % 23
    return a.astype(dtype)


@njit
def get_ij(a, i, j):
    return a[i, j]


@njit
def get_i_slice_j(a, i, j):
    return a[i, :, j]


@njit
def get_i_int_j(a, i, j):
    return a[i, 1, j]


@njit
def get_slice_i_j(a, i, j):
    return a[:, i, j]


@njit
def get_i_j_slice(a, i, j):
    return a[i, j, 1:]


@njit
def get_ijk(a, i, j, k):
    return a[i, j, k]


@njit
def get_slice_i_slice_int(a, i):
    return a[:, i, :, 1]


@njit
def get_int_slice_i(a, i):
    return a[1, :, i]


@njit
def get_ell_i_j(a, i, j):
    return a[..., i, j]


@njit
def get_i_newaxis_j(a, i, j):
    return a[i, None, j]


@njit
def get_nd(a, i):
    return a[i]


@njit
def set_ij(a, i, j, v):
    a[i, j] = v
    return a


@njit
def set_i_slice_j(a, i, j, v):
    a[i, :, j] = v
    return a


@njit
def aug_ij(a, i, j, v):
    a[i, j] += v
    return a


DTYPES = [np.float64, np.int32, np.complex128, np.bool_]
I3 = np.array([0, 2, -1])
J3 = np.array([1, 0, 3])


@pytest.mark.parametrize("dtype", DTYPES)
def test_two_arrays_2d(dtype):
    for a in layouts(sample((3, 4), dtype)):
        check(get_ij, a, I3, J3)
        check(get_ij, a, I3.astype(np.uint8) % 3, J3.astype(np.int16))
        check(get_ij, a, I3[::-1], J3[::-1])                   # non-contiguous index arrays


@MULTI
@pytest.mark.parametrize("dtype", DTYPES)
def test_two_arrays_2d_broadcast(dtype):
    for a in layouts(sample((3, 4), dtype)):
        check(get_ij, a, I3[:, None], J3)                      # broadcast to (3, 3)
        check(get_ij, a, np.array([[0, 1], [2, 1]]), np.array([3]))
        check(get_ij, a, np.array([True, False, True]), np.array([1, 2]))
        check(get_ij, a, I3[:2], np.array([True, False, True, False]))
        check(get_ij, a, I3[::-1], J3[::2][:1])
        check(get_ij, a, np.zeros(0, np.int64), np.zeros(0, np.int64))


@pytest.mark.parametrize("dtype", DTYPES)
def test_placement_3d(dtype):
    for a in layouts(sample((3, 4, 5), dtype)):
        check(get_i_slice_j, a, I3, np.array([0, 4, 2]))      # separated: broadcast axes first
        check(get_i_int_j, a, I3, np.array([[1], [4]]))       # adjacent through the integer
        check(get_slice_i_j, a, np.array([0, 3]), np.array([4, -5]))
        check(get_i_j_slice, a, I3, J3)
        check(get_ijk, a, I3, J3, np.array([4]))
        check(get_ell_i_j, a, J3, np.array([[0], [2]]))
        check(get_i_newaxis_j, a, I3, J3)
        check(get_nd, a, np.array([[0, 2], [1, 1]]))           # one 2-D index array


def test_placement_4d():
    for a in layouts(sample((5, 2, 3, 4), np.float64)):
        check(get_slice_i_slice_int, a, np.array([0, 1, 1]))
        check(get_int_slice_i, a, np.array([[0], [2]]))


@MULTI
def test_out_of_range_and_mismatch():
    a = sample((3, 4), np.float64)
    assert isinstance(check(get_ij, a, np.array([0, 3]), np.array([0, 1])), IndexError)
    assert isinstance(check(get_ij, a, np.array([0, 1]), np.array([0, -5])), IndexError)
    assert isinstance(check(get_ij, a, np.array([0, 1]), np.array([0, 1, 2])), IndexError)   # broadcast
    assert isinstance(check(get_ij, a, np.array([True, False]), np.array([0])), IndexError)  # bool length
    b = sample((3, 4, 5), np.float64)
    assert isinstance(check(get_i_int_j, b, np.array([0]), np.array([5])), IndexError)


@MULTI
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
def test_set(dtype):
    for a in layouts(sample((3, 4), dtype)):
        check(set_ij, a, I3, J3, 5)
        check(set_ij, a, I3, J3, np.array([1, 2, 3]).astype(dtype))
        check(set_ij, a, I3[:, None], J3, np.arange(9).reshape(3, 3).astype(dtype))
        check(set_ij, a, I3[:, None], J3, np.arange(3).astype(dtype))   # the value broadcasts
        check(set_ij, a, np.array([True, False, True]), np.array([0, 3]), 9)
        check(aug_ij, a, I3, J3, 2)
    for a in layouts(sample((3, 4, 5), dtype)):
        check(set_i_slice_j, a, I3, np.array([0, 4, 2]), 1)
        check(set_i_slice_j, a, I3, np.array([0, 4, 2]), np.arange(4).astype(dtype))
        check(set_i_slice_j, a, I3, np.array([0, 4, 2]), np.arange(12).reshape(3, 4).astype(dtype))


@MULTI
def test_set_errors():
    a = sample((3, 4), np.float64)
    assert isinstance(check(set_ij, a, I3, J3, np.arange(2.0)), ValueError)
    assert isinstance(check(set_ij, a, I3, np.array([4, 0, 0]), 1.0), IndexError)


def test_single_array_still_works():
    # one advanced index: the form Numba supports too
    a = sample((3, 4), np.float64)
    check(get_ij, a, I3, 1)
    check(get_ij, a, 2, J3)
    check(get_slice_i_j, sample((3, 4, 5), np.float64), I3, 2)


@njit
def get_mask2d_and_int(a, m):
    return a[m, 0]


@NS("hpcjit's message")
def test_refusal_2d_bool_with_others():
    with pytest.raises(TypingError, match="boolean array index is supported only alone"):
        get_mask2d_and_int(np.ones((3, 4, 2)), np.ones((3, 4), np.bool_))
