"""NumPy shape functions in compiled code (reshape, ravel, flatten,
transpose/.T, squeeze, expand_dims, concatenate, stack, vstack, hstack,
repeat, tile, roll, flip, diff), compared with NumPy (py_func)."""
import numpy as np
import pytest

import hpcjit
from conftest import check, make_array

DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_]
LAYOUTS = ["C", "F", "strided", "reversed"]


@hpcjit.njit
def reshape_t(a):
    return a.reshape((4, -1))


@hpcjit.njit
def reshape_v(a):
    return a.reshape(2, 3, 4)


@hpcjit.njit
def np_reshape(a, n):
    return np.reshape(a, (n, -1))


@hpcjit.njit
def ravel(a):
    return a.ravel()


@hpcjit.njit
def flatten(a):
    return a.flatten()


@hpcjit.njit
def transpose(a):
    return a.transpose()


@hpcjit.njit
def dot_t(a):
    return a.T


@hpcjit.njit
def squeeze(a):
    return np.squeeze(a, axis=1)


@hpcjit.njit
def expand(a, k):
    return np.expand_dims(a, k)


@hpcjit.njit
def flip_all(a):
    return np.flip(a)


@hpcjit.njit
def flip_ax(a, k):
    return np.flip(a, axis=k)


@hpcjit.njit
def diff1(a):
    return np.diff(a)


@hpcjit.njit
def diffn(a, n, k):
    return np.diff(a, n, k)


@hpcjit.njit
def repeat_flat(a, r):
    return np.repeat(a, r)


@hpcjit.njit
def repeat_ax(a, r, k):
    return a.repeat(r, axis=k)


@hpcjit.njit
def tile_int(a, r):
    return np.tile(a, r)


@hpcjit.njit
def tile_tup(a):
    return np.tile(a, (2, 1, 3))


@hpcjit.njit
def roll_flat(a, s):
    return np.roll(a, s)


@hpcjit.njit
def roll_ax(a, s, k):
    return np.roll(a, s, axis=k)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reshape_ravel_transpose(dt, layout):
    a = make_array(dt, (2, 3, 4), layout)
    for f in (reshape_t, reshape_v, ravel, flatten, transpose, dot_t, flip_all, diff1, tile_tup):
        check(f, a)
    for n in (3, 6, 5, -1):
        check(np_reshape, a, n)
    for k in (0, 1, 2, 3, -1, -4):
        check(expand, a, k)
    with pytest.raises(ValueError):  # NumPy's AxisError is a ValueError
        expand(a, 4)
    for k in (0, 2, -1):
        check(flip_ax, a, k)
    for n, k in ((1, 0), (2, 1), (3, -1), (0, 0), (5, 2)):
        if dt != np.bool_ or n <= 1:
            check(diffn, a, n, k)
    for r in (0, 1, 3):
        check(repeat_flat, a, r)
        check(tile_int, a, r)
        for k in (0, 2, -2):
            check(repeat_ax, a, r, k)
    for s in (0, 1, -5, 25, 7):
        check(roll_flat, a, s)
        for k in (0, 1, -1):
            check(roll_ax, a, s, k)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(0,), (1,), (5,), (0, 3)], ids=str)
def test_small_shapes(layout, shape):
    a = make_array(np.float64, shape, layout)
    for f in (ravel, flatten, transpose, dot_t, flip_all, diff1):
        check(f, a)
    check(expand, a, 0)
    check(roll_flat, a, 2)
    check(repeat_flat, a, 2)


def test_squeeze():
    for layout in LAYOUTS:
        check(squeeze, make_array(np.float64, (3, 1, 4), layout))
    e = check(squeeze, np.ones((3, 2, 4)))
    assert isinstance(e, ValueError)


def test_reshape_errors():
    a = np.arange(24.0)
    assert isinstance(check(np_reshape, a, 5), ValueError)
    assert isinstance(check(np_reshape, a, 0), ValueError)


@hpcjit.njit
def reshape_writes(a):
    b = a.reshape((2, 3))
    b[1, 2] = 99.0
    t = b.T
    t[0, 1] = -1.0
    return b, t


def test_views_share_memory():
    a = np.arange(6.0)
    check(reshape_writes, a)
    b, t = reshape_writes(a)
    assert a[5] == 99.0 and a[3] == -1.0
    assert np.shares_memory(b, a) and np.shares_memory(t, a)


@hpcjit.njit
def local_views():
    a = np.arange(12.0)
    b = a.reshape((3, 4)).T
    c = np.flip(b, 0)
    d = np.expand_dims(c, 0)
    return d, a


def test_local_views_and_leaks():
    before = hpcjit._core.memstats()
    d, a = local_views()
    exp_d, exp_a = local_views.py_func()
    assert np.array_equal(d, exp_d)
    d[0, 0, 0] = 100.0
    assert 100.0 in a
    del d, a
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@hpcjit.njit
def cat0(a, b):
    return np.concatenate((a, b))


@hpcjit.njit
def cat_ax(a, b, k):
    return np.concatenate((a, b, a), axis=k)


@hpcjit.njit
def stack_ax(a, b, k):
    return np.stack((a, b), axis=k)


@hpcjit.njit
def vstack(a, b):
    return np.vstack((a, b))


@hpcjit.njit
def hstack(a, b):
    return np.hstack((a, b))


@pytest.mark.parametrize("dts", [(np.float64, np.float64), (np.int32, np.int64), (np.int32, np.float32),
                                 (np.bool_, np.int32), (np.float64, np.complex128)], ids=str)
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_join(dts, layout):
    a = make_array(dts[0], (2, 3), layout)
    b = make_array(dts[1], (2, 3), "C")
    check(cat0, a, b)
    for k in (0, 1, -1):
        check(cat_ax, a, b, k)
    for k in (0, 1, 2, -1):
        check(stack_ax, a, b, k)
    check(vstack, a, b)
    check(hstack, a, b)
    a1 = make_array(dts[0], (4,), layout)
    b1 = make_array(dts[1], (3,), "C")
    check(cat0, a1, b1)
    check(hstack, a1, b1)
    check(vstack, a1, make_array(dts[1], (4,), "C"))


def test_join_errors():
    assert isinstance(check(cat0, np.ones((2, 3)), np.ones((2, 4))), ValueError)
    assert isinstance(check(stack_ax, np.ones(3), np.ones(4), 0), ValueError)
    with pytest.raises(ValueError):
        cat_ax(np.ones((2, 3)), np.ones((2, 3)), 2)


@pytest.mark.numba_skip(reason="Numba raises ValueError with its own messages")
def test_axis_error_is_numpys():
    """An out-of-range axis raises numpy.exceptions.AxisError (a ValueError
    and an IndexError) with NumPy's message, as py_func does."""
    a = np.ones((2, 3))
    for f, args, k in ((expand, (a, 3), 3), (expand, (a, -4), -4), (flip_ax, (a, 2), 2),
                       (roll_ax, (a, 1, -3), -3), (repeat_ax, (a, 2, 5), 5), (diffn, (a, 1, 2), 2),
                       (stack_ax, (np.ones(3), np.ones(3), 2), 2)):
        e = check(f, *args)
        assert isinstance(e, np.exceptions.AxisError) and isinstance(e, IndexError), (f, e)
        nd = 3 if f is expand else 2
        assert str(e) == f"axis {k} is out of bounds for array of dimension {nd}", (f, str(e))


# ---- np.triu / np.tril (added through lib/np only: docs/DESIGN.md's worked example) ----

@hpcjit.njit
def triu_k(a, k):
    return np.triu(a, k)


@hpcjit.njit
def tril_k(a, k):
    return np.tril(a, k=k)


@hpcjit.njit
def triu0(a):
    return np.triu(a)


@hpcjit.njit
def tril0(a):
    return np.tril(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5, 5), (3, 6), (6, 2), (2, 3, 4), (0, 3)])
def test_triu_tril(dtype, layout, shape):
    a = make_array(dtype, shape, layout)
    for f in (triu0, tril0):
        check(f, a)
    for k in (-7, -2, -1, 0, 1, 3, 9):
        check(triu_k, a, k)
        check(tril_k, a, k)


@pytest.mark.numba_skip(reason="hpcjit's message for the 1-D form it does not support")
def test_triu_1d_unsupported():
    with pytest.raises(hpcjit.UnsupportedError, match="triu\\(\\) of a 1d array"):
        triu0(np.arange(3.0))
