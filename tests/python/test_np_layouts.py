"""Array attributes and methods that return views or scalars, swept over
C, F, strided (A) and reversed layouts and several dtypes, and the
exceptions NumPy raises for shape mismatches, bad reshapes, out-of-range
axes and indices (issue 3), each compared with py_func."""
import numpy as np
import pytest

import hpcjit
from conftest import check, make_array, LAYOUTS


@hpcjit.njit
def attrs(a): return a.shape, a.ndim, a.size, a.strides, a.itemsize, len(a)


@hpcjit.njit
def tview(a): return a.T


@hpcjit.njit
def transp(a): return a.transpose()


@hpcjit.njit
def rav(a): return a.ravel()


@hpcjit.njit
def flat(a): return a.flatten()


@hpcjit.njit
def resh(a): return a.reshape(-1)


@hpcjit.njit
def resh2(a): return a.reshape((a.shape[1], a.shape[0]))


@hpcjit.njit
def resh3(a): return np.reshape(a, (2, -1))


@hpcjit.njit
def row(a): return a[1]


@hpcjit.njit
def col(a): return a[:, 1]


@hpcjit.njit
def ell(a): return a[..., 0]


@hpcjit.njit
def stepv(a): return a[::2, ::-1]


@hpcjit.njit
def newax(a): return a[None, :, 1]


@hpcjit.njit
def cp(a): return a.copy()


@hpcjit.njit
def sq(a): return a[:1].squeeze(0), a[:, 1:2].squeeze(axis=1)


@hpcjit.njit
def ed(a): return np.expand_dims(a, 1)


@hpcjit.njit
def re(a): return a.real


@hpcjit.njit
def im(a): return a.imag


@hpcjit.njit
def scal(a): return a[1, 2], a[-1, -1], a.sum(), a.max(), a.argmin(), a.mean()


@hpcjit.njit
def red_ax(a): return a.sum(axis=0), a.min(axis=1), a.cumsum()


@hpcjit.njit
def viewwrite(a):
    v = a.T
    v[0, 1] = 100
    r = a[1]
    r[0] = -5
    return a


@hpcjit.njit
def ascopy(a): return a.astype(np.float32)


@hpcjit.njit
def flip(a): return np.flip(a)


@hpcjit.njit
def fill(a):
    a[::2].fill(7)
    return a


@hpcjit.njit
def it(a):
    s = 0.0
    for r in a:
        s += r[0]
    return s


@hpcjit.njit
def badresh(a): return a.reshape((5, 7))


@hpcjit.njit
def badresh2(a): return a.reshape((-1, -1))



@hpcjit.njit
def badsq(a): return a.squeeze(0)


@hpcjit.njit(boundscheck=True)
def badidx(a): return a[10]


@hpcjit.njit
def badcat(a, b): return np.concatenate((a, b))


@hpcjit.njit
def badbcast(a, b): return a + b


@hpcjit.njit
def badstore(a, b):
    a[:, 0] = b[0]
    return a


@hpcjit.njit
def badmatch(a, b):
    a[...] = b
    return a


VIEWS_AND_SCALARS = [attrs, tview, transp, rav, flat, resh, resh2, resh3, row, col, ell, stepv, newax,
                     cp, sq, ed, re, im, scal, red_ax, viewwrite, ascopy, flip, fill, it]
ERRORS = {badresh: ValueError, badresh2: ValueError, badsq: ValueError,
          badidx: IndexError}
ERRORS2 = [badcat, badbcast, badstore, badmatch]
DTYPES = [np.float64, np.int32, np.complex128, np.bool_]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("f", VIEWS_AND_SCALARS, ids=lambda f: f.py_func.__name__)
def test_views_and_scalars(f, dtype, layout):
    check(f, make_array(dtype, (4, 6), layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 2)], ids=str)
@pytest.mark.parametrize("f", [f for f in VIEWS_AND_SCALARS if f is not it], ids=lambda f: f.py_func.__name__)
def test_views_and_scalars_3d(f, shape, layout):
    check(f, make_array(np.float64, shape, layout))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("f", list(ERRORS), ids=lambda f: f.py_func.__name__)
def test_errors_one(f, layout):
    e = check(f, make_array(np.float64, (4, 6), layout))
    assert isinstance(e, ERRORS[f])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("f", ERRORS2, ids=lambda f: f.py_func.__name__)
def test_errors_two(f, layout):
    e = check(f, make_array(np.float64, (4, 6), layout), make_array(np.float64, (3, 5), layout))
    assert isinstance(e, ValueError)


def test_store_ndim_mismatch():
    # more dimensions than the target: NumPy's ValueError when it runs (the
    # extra leading axes may have length 1, which stores), as Numba
    def f(a, b):
        a[:, 0] = b

    check(hpcjit.njit(f), np.zeros((4, 6)), np.zeros((3, 5)))
    check(hpcjit.njit(f), np.zeros((4, 6)), np.arange(4.0).reshape(1, 4))


@pytest.mark.numba_skip(reason="hpcjit's error classes")
@pytest.mark.parametrize("a", [np.array(["a", "b"]), np.array([1, None], dtype=object)], ids=["str", "object"])
def test_unsupported_dtypes(a):
    with pytest.raises(hpcjit.TypingError) as ei:
        rav(a)
    assert "unsupported array" in str(ei.value) and str(a.dtype) in str(ei.value)
