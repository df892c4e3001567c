"""numba.np.extensions.cross2d (hpcjit._npextensions under the drop-in): the
z component of 2-vector cross products, broadcast, against NumPy's
a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]."""
import numpy as np
import pytest

from hpcjit import njit
from conftest import AGAINST_NUMBA

if AGAINST_NUMBA:
    from numba.np.extensions import cross2d
else:
    from hpcjit._npextensions import cross2d


def call(a, b):
    return cross2d(a, b)


def ref(a, b):
    return np.multiply(a[..., 0], b[..., 1]) - np.multiply(a[..., 1], b[..., 0])


@pytest.mark.parametrize("a, b", [
    (np.array([1.0, 2.0]), np.array([3.0, 4.5])),
    (np.arange(6.0).reshape(3, 2), np.array([1.0, -1.0])),
    (np.arange(6).reshape(3, 2), np.arange(6).reshape(3, 2)[::-1]),
    (np.arange(12.0).reshape(2, 3, 2), np.arange(4.0).reshape(2, 1, 2)),
    (np.array([1 + 2j, 3j]), np.array([2.0, -1.0])),
])
def test_cross2d(a, b):
    got = njit(call)(a, b)
    want = ref(a, b)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_cross2d_wrong_size():
    with pytest.raises(ValueError, match="Incompatible dimensions for 2D cross product"):
        njit(call)(np.ones(3), np.ones(3))
