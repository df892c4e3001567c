"""Indexing and views: slices on every axis (start/stop/step, negative,
omitted, clipped), None/np.newaxis, `...`, integer/slice mixes; views that
share memory (also when returned to Python); scalar stores through views;
boolean masks and integer-array (fancy) indices on one axis, read and
written.  Every compiled function is compared with its py_func."""
import gc

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check, make_array, AGAINST_NUMBA

DTYPES = [np.int32, np.int64, np.float32, np.float64, np.complex128, np.bool_]
LAYOUTS = ["C", "F", "strided", "reversed"]


def memstats():
    return hpcjit._core.memstats()


# ---- 1-D slices --------------------------------------------------------------

@njit
def s_range(a):
    return a[1:3]


@njit
def s_every_other(a):
    return a[::2]


@njit
def s_reverse(a):
    return a[::-1]


@njit
def s_tail(a):
    return a[-3:]


@njit
def s_init(a):
    return a[:-1]


@njit
def s_down(a):
    return a[5:1:-1]


@njit
def s_clip(a):
    return a[-100:100]


@njit
def s_empty(a):
    return a[3:1]


@njit
def s_back3(a):
    return a[::-3]


@njit
def s_inner(a):
    return a[1:-1:2]


@njit
def s_all(a):
    return a[:]


@njit
def s_none_bounds(a):
    return a[None:2]


SLICES_1D = [s_range, s_every_other, s_reverse, s_tail, s_init, s_down, s_clip, s_empty,
             s_back3, s_inner, s_all, s_none_bounds]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fn", SLICES_1D, ids=lambda f: f.py_func.__name__)
def test_slice_1d(fn, dtype, layout):
    for n in (0, 1, 2, 7):
        check(fn, make_array(dtype, n, layout))


@njit
def s_runtime(a, i, j, k):
    return a[i:j:k]


@njit
def s_runtime_start(a, i):
    return a[i:]


@njit
def s_runtime_stop(a, j):
    return a[:j]


@njit
def s_runtime_step(a, k):
    return a[::k]


def test_slice_runtime_bounds():
    a = make_array(np.float64, 9, "strided")
    vals = [-12, -9, -8, -3, -1, 0, 1, 2, 5, 8, 9, 10, 40]
    for i in vals:
        check(s_runtime_start, a, i)
        check(s_runtime_stop, a, i)
        for j in vals[::3]:
            for k in (-4, -2, -1, 1, 2, 3, 11):
                check(s_runtime, a, i, j, k)
    for k in (-3, -1, 1, 4):
        check(s_runtime_step, a, k)


def test_slice_step_zero():
    a = np.arange(5.0)
    exc = check(s_runtime, a, 0, 5, 0)
    assert isinstance(exc, ValueError)
    exc = check(s_runtime_step, a, 0)
    assert isinstance(exc, ValueError)


# ---- N-D: slices on every axis, None, ..., integer mixes --------------------

@njit
def m_rows(a):
    return a[1:, ::2, -1]


@njit
def m_ellipsis_last(a):
    return a[..., 0]


@njit
def m_ellipsis_first(a):
    return a[0, ...]


@njit
def m_newaxis_mid(a):
    return a[:, None, 1:2]


@njit
def m_newaxis_front(a):
    return a[None]


@njit
def m_np_newaxis(a):
    return a[np.newaxis, ..., np.newaxis]


@njit
def m_int_rev(a):
    return a[1, :, ::-1]


@njit
def m_mid_int(a):
    return a[:, 1]


@njit
def m_neg_steps(a):
    return a[::-1, ::-2, 1::2]


@njit
def m_ellipsis_middle(a):
    return a[-1, ..., 1:]


@njit
def m_all_ellipsis(a):
    return a[...]


@njit
def m_chain(a):
    b = a[1:]
    c = b[:, ::-1]
    return c[..., 0]


def skip_numba_ellipsis(fn):
    if AGAINST_NUMBA and fn is m_all_ellipsis:
        pytest.skip("Numba cannot lower a[...] alone")


M_FUNCS = [m_rows, m_ellipsis_last, m_ellipsis_first, m_newaxis_mid, m_newaxis_front, m_np_newaxis,
           m_int_rev, m_mid_int, m_neg_steps, m_ellipsis_middle, m_all_ellipsis, m_chain]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("fn", M_FUNCS, ids=lambda f: f.py_func.__name__)
def test_slice_3d(fn, dtype, layout):
    skip_numba_ellipsis(fn)
    for shape in ((3, 4, 5), (2, 2, 2), (2, 3, 2)):
        check(fn, make_array(dtype, shape, layout))


@pytest.mark.parametrize("fn", [m_rows, m_ellipsis_last, m_newaxis_mid, m_neg_steps, m_all_ellipsis],
                         ids=lambda f: f.py_func.__name__)
def test_slice_3d_empty(fn):
    skip_numba_ellipsis(fn)
    a = np.zeros((2, 0, 3))
    check(fn, a)


@njit
def int_out_of_range(a, i):
    return a[i, 1:]


def test_slice_clips_integer_wraps():
    a = make_array(np.float64, (3, 4), "C")
    for i in (-3, -1, 0, 2):
        check(int_out_of_range, a, i)
    check(s_runtime, a[0], 100, 200, 1)
    check(s_runtime, a[0], -200, -100, -1)


@njit(boundscheck=True)
def int_out_of_range_bc(a, i):
    return a[i, 1:]


def test_integer_index_boundscheck():
    a = np.arange(12.0).reshape(3, 4)
    exc = check(int_out_of_range_bc, a, 3)
    assert isinstance(exc, IndexError)
    check(int_out_of_range_bc, a, -3)


@njit
def newaxis_0d(a):
    return a[None]


def test_0d():
    check(newaxis_0d, np.array(2.5))
    skip_numba_ellipsis(m_all_ellipsis)
    check(m_all_ellipsis, np.array(7))


# ---- views share memory --------------------------------------------------------

def test_returned_view_shares_memory():
    a = np.arange(24.0).reshape(2, 3, 4)
    v = m_int_rev(a)
    assert np.shares_memory(v, a)
    v[0, 0] = -1.0
    assert a[1, 0, 3] == -1.0
    a[1, 2, 0] = 99.0
    assert v[2, 3] == 99.0


@njit
def write_through_view(a):
    v = a[1:, ::2]
    v[0, 0] = 100.0
    w = v[None, ..., 1:]
    w[0, -1, 0] = -5.0
    return v


@pytest.mark.parametrize("layout", LAYOUTS)
def test_write_through_view(layout):
    check(write_through_view, make_array(np.float64, (4, 5), layout))


@njit
def view_of_local(n):
    a = np.zeros((n, n))
    v = a[1:, ::-1]
    v[0, 0] = 3.0
    return a[::2], v


@njit
def views_in_loop(n):
    a = np.ones((n, 3))
    s = 0.0
    for i in range(n):
        r = a[i, ::2]
        s += r[0] + r[-1]
    return s


@njit
def masked_local(n):
    a = np.zeros(n)
    m = np.zeros(n, np.bool_)
    for i in range(n):
        a[i] = i
        m[i] = i % 3 == 0
    b = a[m]
    idx = np.arange(3)
    return b, a[idx], a[::2][idx[:2]]


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
@pytest.mark.parametrize("fn,args", [(view_of_local, (4,)), (views_in_loop, (5,)),
                                     (masked_local, (7,))])
def test_no_leaks(fn, args):
    check(fn, *args)
    gc.collect()
    a0, f0 = memstats()
    for _ in range(50):
        r = fn(*args)
        del r
    gc.collect()
    a1, f1 = memstats()
    assert a1 - a0 == f1 - f0


def test_returned_view_of_local_keeps_memory():
    a, v = view_of_local(5)
    assert a.shape == (3, 5) and v.shape == (4, 5)
    assert v[0, 0] == 3.0
    assert a[0, 4] == 0.0


# ---- layouts of the view types (Numba's rules) ----------------------------------

@njit
def l_first_axis(a):
    return a[1:3]


@njit
def l_int_first(a):
    return a[1]


@njit
def l_last_axis(a):
    return a[:, 1:3]


@njit
def l_step(a):
    return a[::2]


@njit
def l_newaxis(a):
    return a[None, 1:2]


@njit
def l_ellipsis_int(a):
    return a[..., 1]


@njit
def l_int_ellipsis(a):
    return a[1, ...]


@pytest.mark.parametrize("fn,layout,expect", [
    (l_first_axis, "C", "C"), (l_first_axis, "F", "A"), (l_int_first, "C", "C"),
    (l_last_axis, "C", "A"), (l_last_axis, "F", "A"), (l_step, "C", "A"), (l_newaxis, "C", "C"),
    (l_ellipsis_int, "C", "A"), (l_ellipsis_int, "F", "FC"), (l_int_ellipsis, "C", "C"),
    (l_int_ellipsis, "F", "A"), (l_first_axis, "strided", "A"),
])
def test_view_layout(fn, layout, expect):
    a = make_array(np.float64, (4, 5), layout)
    check(fn, a)
    sig = fn.nopython_signatures[-1]
    # a 1-D F view is typed C by hpcjit (both are contiguous), F by Numba
    assert str(sig.return_type)[-2] in expect, str(sig.return_type)


# ---- scalar stores into views -----------------------------------------------------

@njit
def st_range(a):
    a[1:3] = 0


@njit
def st_column(a, x):
    a[:, 0] = x


@njit
def st_block(a, x):
    a[::2, 1:] = x


@njit
def st_last(a, x):
    a[..., -1] = x


@njit
def st_rev(a, x):
    a[::-1, None, 2:0:-1] = x


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_scalar_store_views(dtype, layout):
    for shape in ((4, 3), (1, 5), (0, 3)):
        a = make_array(dtype, shape, layout)
        check(st_range, a)
        check(st_column, a, 1)
        check(st_block, a, True)
        check(st_last, a, 2)
        check(st_rev, a, 1)
    a3 = make_array(dtype, (3, 2, 4), layout)
    check(st_last, a3, 1)
    check(st_range, a3)


def test_scalar_store_converts():
    check(st_column, np.zeros((3, 3), np.int32), 2.75)
    check(st_column, np.zeros((3, 3)), 5)
    check(st_block, np.zeros((3, 3), np.complex128), 1.5)


# ---- boolean masks -------------------------------------------------------------

@njit
def mask_get(a, m):
    return a[m]


@njit
def mask_set(a, m, v):
    a[m] = v


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_mask_read(dtype, layout):
    for shape in ((0,), (7,), (3, 4), (2, 3, 4)):
        if AGAINST_NUMBA and len(shape) > 1:
            continue  # Numba takes only 1-D masks
        a = make_array(dtype, shape, layout)
        m = make_array(np.bool_, shape, layout, gen=np.random.default_rng(len(shape)))
        check(mask_get, a, m)
        check(mask_get, a, np.zeros(shape, np.bool_))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["C", "F", "reversed"])
def test_mask_write(dtype, layout):
    for shape in ((7,), (3, 4), (2, 3, 4)):
        if AGAINST_NUMBA and len(shape) > 1:
            continue  # Numba takes only 1-D masks
        a = make_array(dtype, shape, layout)
        m = make_array(np.bool_, shape, "strided")
        check(mask_set, a, m, 1)
        k = int(m.sum())
        check(mask_set, a, m, make_array(dtype, k, layout))
        check(mask_set, a, m, make_array(dtype, 1, "C"))


@pytest.mark.numba_skip(reason="Numba does not check mask shapes")
def test_mask_errors():
    a = np.arange(6.0)
    exc = check(mask_get, a, np.ones(5, np.bool_))
    assert isinstance(exc, IndexError)
    exc = check(mask_set, a, np.ones(6, np.bool_), np.arange(4.0))
    assert isinstance(exc, ValueError)
    exc = check(mask_get, a.reshape(2, 3), np.ones((3, 2), np.bool_))
    assert isinstance(exc, IndexError)


def test_mask_write_converts():
    a = np.arange(6.0)
    check(mask_set, a, a > 2, np.arange(3, dtype=np.int32))
    check(mask_set, np.arange(6), np.ones(6, np.bool_), 2.5)


MASK_LENGTHS = (31, 32, 33, 64, 65, 100, 1000)


def _masks(n, seed):
    gen = np.random.default_rng(seed)
    yield np.zeros(n, np.bool_)
    yield np.ones(n, np.bool_)
    yield gen.random(n) < 0.5
    yield gen.random(n) < 0.01  # sparse: most blocks of 32 have none set
    m = np.zeros(n, np.bool_)
    m[[0, n // 2, n - 1]] = True  # first, middle and last items
    yield m


@pytest.mark.parametrize("dtype", DTYPES)
def test_mask_long(dtype):
    """Masks long enough to be read 32 items at a time (contiguous array and
    mask), with the remainder one by one, against py_func."""
    for n in MASK_LENGTHS:
        a = make_array(dtype, (n,), "C")
        for k, m in enumerate(_masks(n, n)):
            check(mask_get, a, m)
            check(mask_set, a, m, 7)
            check(mask_set, a, m, make_array(dtype, int(m.sum()), "C"))


def test_mask_long_layouts():
    """2-D C arrays take the blocks over all their items; strided,
    reversed or F-ordered operands the strided walk."""
    for layout in LAYOUTS:
        a = make_array(np.float64, (40, 9), layout)
        m = make_array(np.bool_, (40, 9), layout, gen=np.random.default_rng(3))
        if AGAINST_NUMBA:
            check(mask_get, a.ravel(), m.ravel())
            continue
        check(mask_get, a, m)
        check(mask_set, a, m, -1.0)
        check(mask_get, a, np.ascontiguousarray(m))
    a = np.arange(200.0)
    for m in _masks(100, 9):
        check(mask_get, a[::2], m)  # a strided, the mask contiguous
        check(mask_set, a[::2], m, 0.5)
        check(mask_get, a[:100], np.repeat(m, 2)[::2])  # the mask strided


@njit
def mask_from_comparison(a):
    return a[a > 0]


@pytest.mark.numba_skip(reason="hpcjit's error classes")
def test_mask_from_comparison():
    a = make_array(np.float64, (3, 4), "F")
    try:
        mask_from_comparison(a)
    except (hpcjit.TypingError, hpcjit.UnsupportedError):
        pytest.skip("array comparisons (array expressions) are not available yet")
    check(mask_from_comparison, a)


# ---- integer-array (fancy) indices on one axis -------------------------------------

@njit
def fancy_get(a, idx):
    return a[idx]


@njit
def fancy_cols(a, idx):
    return a[:, idx]


@njit
def fancy_mixed(a, idx):
    return a[1, idx, ::-1]


@njit
def fancy_newaxis(a, idx):
    return a[None, idx]


@njit
def fancy_set(a, idx, v):
    a[idx] = v


@njit
def fancy_cols_set(a, idx, v):
    a[:, idx] = v


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("itype", [np.int64, np.int32, np.uint8])
def test_fancy_read(dtype, layout, itype):
    gen = np.random.default_rng(1)
    for shape in ((6,), (5, 4), (3, 4, 5)):
        a = make_array(dtype, shape, layout)
        lo = 0 if np.dtype(itype).kind == "u" else -shape[0]
        idx = gen.integers(lo, shape[0], size=7).astype(itype)
        check(fancy_get, a, idx)
        check(fancy_get, a, idx[:0])
        check(fancy_get, a, idx[::-2])
        if len(shape) > 1:
            check(fancy_cols, a, gen.integers(0, shape[1], size=3).astype(itype))
            check(fancy_newaxis, a, idx)
        if len(shape) == 3:
            check(fancy_mixed, a, np.array([3, 0, -1], dtype=np.int64))


@pytest.mark.numba_skip(reason="Numba does not check the mask length")
def test_fancy_bool_axis():
    a = make_array(np.float64, (3, 4), "F")
    check(fancy_cols, a, np.array([True, False, True, True]))
    exc = check(fancy_cols, a, np.array([True, False]))
    assert isinstance(exc, IndexError)


@pytest.mark.numba_skip(reason="Numba does not check fancy indices")
def test_fancy_out_of_range():
    a = np.arange(5.0)
    for bad in ([5], [0, -6], [1, 100]):
        exc = check(fancy_get, a, np.array(bad))
        assert isinstance(exc, IndexError)
        exc = check(fancy_set, a, np.array(bad), 1.0)
        assert isinstance(exc, IndexError)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_fancy_write(dtype, layout):
    a = make_array(dtype, (6,), layout)
    idx = np.array([4, -1, 0, 2])
    check(fancy_set, a, idx, 1)
    check(fancy_set, a, idx, make_array(dtype, 4, layout))
    check(fancy_set, a, idx, make_array(dtype, 1, layout))
    exc = check(fancy_set, a, idx, make_array(dtype, 3, layout))
    assert isinstance(exc, ValueError)
    a2 = make_array(dtype, (3, 5), layout)
    check(fancy_set, a2, np.array([2, 0]), 0)
    check(fancy_cols_set, a2, np.array([4, 1, -2]), 1)
    check(fancy_set, a, np.array([True, False, True, False, False, True]), 0)


# ---- compile-time errors ---------------------------------------------------------

def test_too_many_indices_is_a_typing_error():
    @njit
    def f(a):
        return a[1, :, 2]

    with pytest.raises(hpcjit.TypingError) as ei:
        f(np.zeros((2, 2)))
    assert "too many indices" in str(ei.value) or AGAINST_NUMBA


def test_two_ellipses_is_a_typing_error():
    @njit
    def f(a):
        return a[..., 0, ...]

    with pytest.raises(hpcjit.TypingError):
        f(np.zeros((2, 2)))


@pytest.mark.numba_skip(reason="Numba accepts float slice bounds")
def test_float_slice_bound_is_a_typing_error():
    @njit
    def f(a):
        return a[1.5:]

    with pytest.raises(hpcjit.TypingError):
        f(np.zeros(3))
