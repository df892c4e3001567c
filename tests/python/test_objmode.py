"""`with objmode(...)` blocks: the interpreter runs them as a plain context
manager (py_func); hpcjit refuses them in compiled code with a located
UnsupportedError naming objmode (calling the interpreter from compiled code
is not implemented yet); Numba runs them."""
import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    from numba import objmode
    from numba.core import errors
else:
    from hpcjit import errors, objmode
njit = hpcjit.njit


@njit
def sort_in_python(a, k):
    s = a.sum()
    with objmode(out="float64[:]", n="int64"):
        out = np.sort(a)[::-1].copy()
        n = int(len(out) * k)
    return out[:n], s


def test_py_func_runs_the_block():
    a = np.array([3.0, 1.0, 2.0, 5.0])
    out, s = sort_in_python.py_func(a, 0.5)
    assert list(out) == [5.0, 3.0] and s == 11.0


@pytest.mark.numba_skip("Numba runs objmode blocks")
def test_compiled_objmode_is_a_located_unsupported_error():
    with pytest.raises(errors.UnsupportedError) as ei:
        sort_in_python(np.array([3.0, 1.0]), 0.5)
    msg = str(ei.value)
    assert "objmode" in msg and "test_objmode.py:22:" in msg and "with objmode(" in msg


@pytest.mark.skipif(not SHIM, reason="hpcjit refuses objmode blocks (test above)")
def test_numba_runs_the_block():
    a = np.array([3.0, 1.0, 2.0, 5.0])
    out, s = sort_in_python(a, 0.5)
    assert list(out) == [5.0, 3.0] and s == 11.0
