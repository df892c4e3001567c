"""NumPy's building and selecting functions in compiled code (lib/nparray,
lower_nparray_make.c): diag, diagflat, tri, fill_diagonal, indices,
vander, tril/triu_indices(_from), flatnonzero, extract, append, delete,
insert, trim_zeros, ediff1d, take/a.take, take_along_axis, resize,
column_stack, dstack, row_stack.  Each compiled function is compared
with NumPy (py_func) over several dtypes, layouts and edge cases
(empty arrays, out-of-range indices: NumPy's exception)."""
import os
import re

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, make_array

# Numba compiles slowly: two layouts in that mode
LAYOUTS = ["C", "strided"] if AGAINST_NUMBA else ["C", "F", "strided", "reversed"]
DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_]

THIS_FILE = os.path.abspath(__file__)
with open(THIS_FILE) as _fh:
    _LINES = _fh.read().splitlines()


def assert_located(exc, marker):
    msg = str(exc)
    m = re.search(re.escape(os.path.basename(THIS_FILE)) + r":(\d+):(\d+)", msg)
    assert m, f"no file:line:col in message:\n{msg}"
    line = next(i for i, t in enumerate(_LINES, 1) if t.rstrip().endswith("# " + marker))
    assert int(m.group(1)) == line, msg
    assert re.search(r"^\s*\^", msg, re.M), f"no caret line:\n{msg}"


@hpcjit.njit
def diag(a, k):
    return np.diag(a, k)


@hpcjit.njit
def diag0(a):
    return np.diag(a)


@hpcjit.njit
def diagflat(a, k):
    return np.diagflat(a, k)


@hpcjit.njit
def tri(n, m, k):
    return np.tri(n, m, k)


@hpcjit.njit
def tri_dtype(n):
    return np.tri(n, dtype=np.int32), np.tri(n, k=1, dtype=np.bool_)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_diag(dt, layout):
    m = make_array(dt, (3, 4), layout)
    v = make_array(dt, 5, layout)
    for k in (0, 1, -2, 4, -3, 9):
        check(diag, m, k)
        check(diag, v, k)
        check(diagflat, m, k)
    check(diag0, m)
    check(diag0, v[:0])
    check(diagflat, v[0], 1)


def test_tri():
    for n, m, k in ((3, 4, 0), (3, 3, -1), (4, 2, 1), (0, 2, 0), (2, 0, 5)):
        check(tri, n, m, k)
    if not AGAINST_NUMBA:  # np.tri(dtype=): beyond Numba 0.68
        check(tri_dtype, 3)
    check(tri, -1, 2, 0)
    check(tri, 2, -3, 1)


@hpcjit.njit
def fill_diag(a, v):
    np.fill_diagonal(a, v)
    return a


@hpcjit.njit
def fill_diag_wrap(a, v):
    np.fill_diagonal(a, v, wrap=True)
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fill_diagonal(layout):
    for shape in ((3, 4), (5, 3), (7, 3), (3, 3, 3), (0, 2), (1, 1)):
        a = make_array(np.float64, shape, layout)
        check(fill_diag, a, 5.0)
        check(fill_diag, a, np.array([1.0, 2.0]))
        if not AGAINST_NUMBA:  # an empty val: Numba 0.68 divides by zero
            check(fill_diag, a, np.zeros(0))
        check(fill_diag_wrap, a, 7.0)
    check(fill_diag, make_array(np.int64, (3, 3), layout), 2)
    check(fill_diag, make_array(np.complex128, (3, 3), layout), 2.5)
    assert isinstance(check(fill_diag, np.zeros((2, 3, 2)), 1.0), ValueError)


@hpcjit.njit
def indices2():
    return np.indices((2, 3))


@hpcjit.njit
def indices3(n):
    return np.indices((2, n, 3), dtype=np.float64)


@hpcjit.njit
def vander(x, n):
    return np.vander(x, n)


@hpcjit.njit
def vander_inc(x):
    return np.vander(x, increasing=True)


def test_indices_vander():
    check(indices2)
    for n in (0, 1, 4):
        if not AGAINST_NUMBA:  # np.indices(dtype=): beyond Numba 0.68
            check(indices3, n)
    for dt in (np.int8, np.int64, np.float32, np.float64, np.complex128, np.bool_):
        x = make_array(dt, 4, "strided")
        for n in (0, 1, 3, 6):
            check(vander, x, n)
        check(vander_inc, x)
    check(vander_inc, np.zeros(0))
    assert isinstance(check(vander, np.arange(3.0), -1), ValueError)


@hpcjit.njit
def tril_idx(n, k, m):
    return np.tril_indices(n, k, m)


@hpcjit.njit
def triu_idx(n, k):
    return np.triu_indices(n, k)


@hpcjit.njit
def tri_idx_from(a):
    return np.tril_indices_from(a), np.triu_indices_from(a, k=1), np.tril_indices_from(a, -1)


def test_tri_indices():
    for n, k, m in ((3, 0, 3), (3, 5, 2), (4, -1, 6), (0, 0, 0), (-1, 0, 2), (2, -5, 3)):
        check(tril_idx, n, k, m)
        check(triu_idx, n, k)
    for shape in ((3, 4), (4, 2), (0, 3)):
        check(tri_idx_from, np.zeros(shape))


# ---- flatnonzero, extract, trim_zeros ---------------------------------------------

@hpcjit.njit
def flatnonzero(a):
    return np.flatnonzero(a)


@hpcjit.njit
def extract(c, a):
    return np.extract(c, a)


@hpcjit.njit
def trim(a):
    return np.trim_zeros(a), np.trim_zeros(a, "f"), np.trim_zeros(a, trim="b")


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_selecting(dt, layout):
    a = make_array(dt, (3, 4), layout)
    check(flatnonzero, a)
    check(extract, a, a)
    check(extract, a.real > 0 if dt is np.complex128 else a > 0, a)
    v = make_array(dt, 7, layout)
    v[:2] = 0
    v[-1] = 0
    check(trim, v)
    check(trim, v[:0])
    check(trim, np.zeros(4, dt))


def test_extract_sizes():
    check(extract, np.ones(2), np.arange(3))
    if not AGAINST_NUMBA:  # Numba 0.68 raises ValueError, NumPy IndexError
        assert isinstance(check(extract, np.ones(5), np.arange(3)), IndexError)
    if not AGAINST_NUMBA:  # a longer condition: Numba 0.68 raises ValueError
        check(extract, np.array([0, 0, 0, 1, 1]), np.arange(3))
    check(flatnonzero, np.zeros(0))


@hpcjit.njit
def trim_view(a):
    t = np.trim_zeros(a)
    t[0] = 42.0
    return t


def test_trim_zeros_view():
    a = np.array([0.0, 1.0, 2.0, 0.0])
    check(trim_view, a)
    trim_view(a)
    assert a[1] == 42.0


# ---- append, delete, insert, ediff1d, resize -----------------------------------------

@hpcjit.njit
def append(a, v):
    return np.append(a, v)


@hpcjit.njit
def append_ax(a, v, k):
    return np.append(a, v, axis=k)


@hpcjit.njit
def delete(a, i):
    return np.delete(a, i)


@hpcjit.njit
def insert(a, i, v):
    return np.insert(a, i, v)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_append_delete_insert(dt, layout):
    m = make_array(dt, (3, 4), layout)
    v = make_array(dt, 5, layout)
    check(append, m, v)
    check(append, v, 1)
    check(append, v, 2.5)
    check(append, m, m[:0])
    check(append_ax, m, m, 0)
    check(append_ax, m, m[:, :2], 1)
    check(append_ax, m, m[:, :2], -1)
    assert isinstance(check(append_ax, m, m[:, :2], 0), ValueError)
    for i in (0, 1, -1, 11, 12, -13):
        check(delete, m, i)
    check(delete, v, np.array([0, 2, 2, -1]))
    check(delete, v, np.array([], np.int64))
    if not AGAINST_NUMBA:  # Numba 0.68 ignores an index out of range
        assert isinstance(check(delete, v, np.array([7])), IndexError)
    for i in (0, 2, 5, -1, -5, 6, -6):
        check(insert, v, i, 9)
        check(insert, m, i, v[:2])
    check(insert, v[:0], 0, 1)


@hpcjit.njit
def ediff1d(a):
    return np.ediff1d(a)


@hpcjit.njit
def ediff1d_ends(a, e, b):
    return np.ediff1d(a, to_end=e, to_begin=b)


@hpcjit.njit
def resize(a, s):
    return np.resize(a, s)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_ediff1d_resize(dt, layout):
    m = make_array(dt, (3, 4), layout)
    check(ediff1d, m)
    check(ediff1d, m[0])
    check(ediff1d, m[0, :1])
    check(ediff1d, m[:0])
    if not AGAINST_NUMBA:  # to_end/to_begin of mixed kinds: beyond Numba 0.68
        check(ediff1d_ends, m[0], np.array([1, 2], dt), 3)
        check(ediff1d_ends, m, 1, np.zeros(0, dt))
    for s in ((2, 7), (5,), (0,), (2, 2, 2), 13):
        check(resize, m, s)
    check(resize, m[:0], (2, 3))
    assert isinstance(check(resize, m, (2, -1)), ValueError)


# ---- take, take_along_axis --------------------------------------------------------

@hpcjit.njit
def take(a, i):
    return np.take(a, i), a.take(i)


@hpcjit.njit
def take_along(a, i, k):
    return np.take_along_axis(a, i, k)


@hpcjit.njit
def take_along_default(a, i):
    return np.take_along_axis(a, i)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_take(dt, layout):
    m = make_array(dt, (3, 4), layout)
    for i in (0, 3, -1, -12, np.array([[0, 5], [11, -12]]), np.array([], np.int64), np.array([2], np.int32)):
        check(take, m, i)
    for i in (12, -13, np.array([0, 12])):
        assert isinstance(check(take, m, i), IndexError)
    if AGAINST_NUMBA:  # take_along_axis of these operands: beyond Numba 0.68
        return
    order = np.argsort(np.arange(12.0)[::-1].reshape(3, 4), axis=1)
    check(take_along, m, order, 1)
    check(take_along_default, m, order)
    check(take_along, m, np.argsort(np.ones((3, 4)), axis=0, kind="stable"), 0)
    check(take_along, m, np.array([[0], [2], [-1]]), 1)
    check(take_along, m, np.array([[0, 1, 2, 0]]), 0)
    check(take_along, m, np.array([[2, 0]]), -2)
    assert isinstance(check(take_along, m, np.array([[5]]), 0), IndexError)
    assert isinstance(check(take_along, m, np.zeros((2, 3), np.int64), 1), IndexError)


# ---- column_stack, dstack, row_stack ---------------------------------------------------

@hpcjit.njit
def column_stack(a, b):
    return np.column_stack((a, b))


@hpcjit.njit
def dstack(a, b):
    return np.dstack((a, b))


@hpcjit.njit
def row_stack(a, b):
    return np.row_stack((a, b))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_stacks(layout):
    m = make_array(np.float64, (3, 4), layout)
    v = make_array(np.int32, 3, layout)
    for a, b in ((v, v), (m, m), (v, m), (m[:, :0], v)):
        check(column_stack, a, b)
    for a, b in ((m, m),) if AGAINST_NUMBA else ((v, v), (m, m), (m[None], m[None]), (m, m[None])):
        check(dstack, a, b)  # mixed dimensions: beyond Numba 0.68
    check(row_stack, m, m)
    check(row_stack, v, v)
    assert isinstance(check(column_stack, v, m[:2]), ValueError)
    assert isinstance(check(dstack, m, m[:2]), ValueError)


@pytest.mark.numba_skip(reason="hpcjit's allocation counters")
def test_no_leaks():
    m = np.arange(12.0).reshape(3, 4)
    before = hpcjit._core.memstats()
    for _ in range(3):
        tril_idx(4, 0, 4)
        delete(m, np.array([1, 2]))
        extract(m > 3, m)
        take_along(m, np.argsort(m, axis=1), 1)
        try:
            take(m, 40)
        except IndexError:
            pass
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]


# ---- typing errors, located at the argument -------------------------------------------

@hpcjit.njit
def bad_diag(a):
    return np.diag(a)  # bad-diag


@hpcjit.njit
def bad_take(a):
    return np.take(a, 1.5)  # bad-take


@hpcjit.njit
def bad_take_along(a):
    return np.take_along_axis(a, np.zeros(3, np.int64), 0)  # bad-take-along


@hpcjit.njit
def bad_ediff(a):
    return np.ediff1d(a, to_end=1.5)  # bad-ediff


@hpcjit.njit
def bad_fill(a):
    np.fill_diagonal(a, 1.0)  # bad-fill


@hpcjit.njit
def bad_vander(a):
    return np.vander(a)  # bad-vander


@hpcjit.njit
def bad_from(a):
    return np.triu_indices_from(a)  # bad-from


@pytest.mark.numba_skip(reason="hpcjit's located diagnostics")
@pytest.mark.parametrize("fn, arg, marker, text", [
    (bad_diag, np.ones((2, 2, 2)), "bad-diag", "Input must be 1- or 2-d"),
    (bad_take, np.ones(3), "bad-take", "indices must be an integer or an array of integers"),
    (bad_take_along, np.ones((2, 2)), "bad-take-along", "must have the same number of dimensions"),
    (bad_ediff, np.arange(3), "bad-ediff", "same_kind"),
    (bad_fill, np.ones(3), "bad-fill", "at least 2-d"),
    (bad_vander, np.ones((2, 2)), "bad-vander", "one-dimensional"),
    (bad_from, np.ones(3), "bad-from", "must be 2-d"),
])
def test_typing_errors(fn, arg, marker, text):
    with pytest.raises(hpcjit.TypingError) as ei:
        fn(arg)
    assert text in str(ei.value)
    assert_located(ei.value, marker)


# ---- split, array_split, hsplit, vsplit, dsplit (lists of views), select ----------------

def check_list(f, *args):
    """f returns a list of arrays: compare it item by item with py_func's."""
    try:
        exp = f.py_func(*args)
    except Exception as e:  # the same exception type
        with pytest.raises(type(e)):
            f(*args)
        return None
    got = f(*args)
    assert isinstance(got, list) and len(got) == len(exp)
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)
    return got


@hpcjit.njit
def split(a, s):
    return np.split(a, s)


@hpcjit.njit
def split_ax(a, s, k):
    return np.split(a, s, axis=k)


@hpcjit.njit
def array_split(a, s):
    return np.array_split(a, s)


@hpcjit.njit
def array_split_ax(a, s, k):
    return np.array_split(a, s, k)


@hpcjit.njit
def hvd_split(a, s):
    return np.hsplit(a, s), np.vsplit(a, s), np.dsplit(a, s)


@hpcjit.njit
def hsplit(a, s):
    return np.hsplit(a, s)


@hpcjit.njit
def split_write(a):
    parts = np.split(a, 3)
    parts[1][0] = 100.0
    return len(parts)


@pytest.mark.parametrize("dt", [np.int64, np.float64, np.complex128, np.bool_])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_split(dt, layout):
    v = make_array(dt, 6, layout)
    m = make_array(dt, (4, 6), layout)
    for s in (1, 2, 3, 6, (2, 4), (-2, 10), (4, 2), np.array([1, 3]), np.array([], np.int64)):
        check_list(split, v, s)
        check_list(array_split, v, s)
    for s in (4, 5, 10):
        check_list(array_split, v, s)
    for s in (4,) if AGAINST_NUMBA else (4, 0, -1):  # Numba 0.68 raises for 0, not for -1, unlike NumPy
        check_list(split, v, s)
    if not AGAINST_NUMBA:  # Numba 0.68 does not raise NumPy's ValueError
        check_list(array_split, v, 0)
    for k in (0, 1, -1):
        check_list(split_ax, m, 2, k)
        check_list(split_ax, m, (1, 3), k)
        check_list(array_split_ax, m, 4, k)
    check_list(hsplit, v, 3)
    check_list(hsplit, m, (1, 5))
    check_list(split, v[:0], 3)
    c = make_array(dt, (2, 4, 6), layout)
    for s in (2, (1,)):
        got = hvd_split(c, s)
        exp = hvd_split.py_func(c, s)
        for g, e in zip(got, exp):
            assert len(g) == len(e)
            for x, y in zip(g, e):
                np.testing.assert_array_equal(x, y)


def test_split_views():
    a = np.arange(6.0)
    assert split_write(a) == 3
    assert a[2] == 100.0


@hpcjit.njit
def select_tuple(a):
    return np.select((a > 5, a < 2), (a, a + a))


@hpcjit.njit
def select_list(a, d):
    return np.select([a > 5, a < 2], [a, -a], d)


@hpcjit.njit
def select_built(a, n):
    conds = [a > k for k in range(n)]
    choices = [a - a + a for k in range(n)]
    return np.select(conds, choices)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_select(dt, layout):
    if AGAINST_NUMBA and dt in (np.int32, np.float32):  # Numba 0.68 widens by the default 0
        return
    a = make_array(dt, (3, 4), layout)
    check(select_tuple, a)
    check(select_list, a, 7)
    check(select_list, a[0], 1.5)
    check(select_built, a, 3)
    check(select_built, a, 1)
    if not AGAINST_NUMBA:  # Numba 0.68 raises IndexError for no conditions
        assert isinstance(check(select_built, a, 0), ValueError)


@pytest.mark.numba_skip(reason="hpcjit's allocation counters")
def test_no_leaks_lists():
    a = np.arange(12.0)
    before = hpcjit._core.memstats()
    for _ in range(3):
        parts = split(a, 3)
        del parts
        array_split(a.reshape(3, 4), 2)
        select_built(a, 3)
        select_list(a, 1.0)
        try:
            split(a, 5)
        except ValueError:
            pass
        try:
            select_built(a, 0)
        except ValueError:
            pass
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1]
