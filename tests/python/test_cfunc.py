"""@cfunc: C callbacks with .address, .ctypes, .native_name,
.inspect_llvm(); used from ctypes and as a scipy.LowLevelCallable; each
result compared with the Python function (py_func)."""
import ctypes
import math

import numpy as np

import pytest

import hpcjit


def gauss(x):
    return math.exp(-x * x)


def poly(a, b):
    return a * a - 3 * b + 1


def floordiv(a, b):
    return a // b


def test_call_and_attributes():
    f = hpcjit.cfunc("float64(float64)")(gauss)
    for x in (-2.0, -0.5, 0.0, 0.3, 4.0):
        assert f(x) == gauss(x)
        assert f.ctypes(x) == gauss(x)
    assert isinstance(f.address, int) and f.address != 0
    assert isinstance(f.native_name, str) and f.native_name
    assert "define" in f.inspect_llvm()
    # the address is a C function: call it through a new ctypes prototype
    proto = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(f.address)
    assert proto(1.5) == gauss(1.5)


@pytest.mark.parametrize("sig", ["int64(int64, int64)", "int32(int32, int32)", "float32(float32, float32)"])
def test_integer_and_float32_signatures(sig):
    f = hpcjit.cfunc(sig)(poly)
    assert f(7, 2) == pytest.approx(poly(7, 2))
    assert f(-3, 5) == pytest.approx(poly(-3, 5))


def test_scipy_quad_low_level_callable():
    scipy = pytest.importorskip("scipy")
    from scipy import LowLevelCallable, integrate

    f = hpcjit.cfunc("float64(float64)")(gauss)
    val, err = integrate.quad(LowLevelCallable(f.ctypes), -10, 10)
    assert val == pytest.approx(math.sqrt(math.pi), rel=1e-12)
    assert scipy.__version__


@pytest.mark.numba_skip(reason="hpcjit's message on stderr")
def test_exception_is_reported_and_returns_zero(capfd):
    f = hpcjit.cfunc("int64(int64, int64)")(floordiv)
    assert f(7, 2) == 3
    assert f(1, 0) == 0
    err = capfd.readouterr().err
    assert "ZeroDivisionError" in err and "floordiv" in err


@pytest.mark.numba_skip(reason="hpcjit's messages")
def test_bad_signatures():
    with pytest.raises(TypeError, match="takes 1") as ei:
        hpcjit.cfunc("float64(float64, float64)")(gauss)
    msg = str(ei.value)
    assert "test_cfunc.py:" in msg and "error: cfunc()" in msg and "def gauss(" in msg and "^" in msg
    with pytest.raises(hpcjit.TypingError):
        hpcjit.cfunc("float64(float64[:])")(gauss)


@pytest.mark.numba_skip(reason="hpcjit's message (Numba raises a ValueError without a location)")
def test_called_with_wrong_arity_is_located():
    c = hpcjit.cfunc("float64(float64)")(gauss)

    @hpcjit.njit
    def use(x):
        return c(x, x)

    with pytest.raises(hpcjit.TypingError) as ei:
        use(1.0)
    msg = str(ei.value)
    assert "test_cfunc.py:" in msg and "return c(x, x)" in msg and "^" in msg
    # through ctypes: ctypes' own TypeError, as in Numba
    with pytest.raises(TypeError, match="takes at least 1 argument"):
        c.ctypes()
    assert c.ctypes(0.5) == gauss(0.5)


# ---- C pointers: CPointer/voidptr arguments, carray/farray, p[i] ---------------------------

def test_pointer_arguments_and_carray():
    """Numba's cfunc example with carray: void(double *in, double *out,
    int m, int n), against the same function run by CPython (with
    hpcjit.carray over ctypes pointers)."""
    import ctypes
    from hpcjit import carray, cfunc, types

    def twice(in_, out, m, n):
        a = carray(in_, (m, n))
        b = carray(out, (m, n))
        for i in range(m):
            for j in range(n):
                b[i, j] = 2 * a[i, j] + out[0] * 0  # p[i] reads too
        out[0] += 1.0  # and writes, in place

    sig = types.void(types.CPointer(types.double), types.CPointer(types.double), types.intc, types.intc)
    cb = cfunc(sig)(twice)
    dp = ctypes.POINTER(ctypes.c_double)
    a = np.arange(6.0).reshape(2, 3)
    got, want = np.zeros_like(a), np.zeros_like(a)
    cb.ctypes(a.ctypes.data_as(dp), got.ctypes.data_as(dp), 2, 3)
    twice(a.ctypes.data_as(dp), want.ctypes.data_as(dp), 2, 3)
    np.testing.assert_array_equal(got, want)
    assert got[0, 0] == 1.0


def test_voidptr_and_farray():
    import ctypes
    from hpcjit import cfunc, farray, types

    def colsum(p, m, n):
        a = farray(p, (m, n), np.float32)
        return a[:, 1].sum() + a[1, 0]

    cb = cfunc(types.double(types.voidptr, types.intc, types.intc))(colsum)
    x = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert cb.ctypes(x.ctypes.data, 3, 4) == colsum(ctypes.c_void_p(x.ctypes.data), 3, 4)


def test_scipy_generic_filter_low_level_callable():
    ndimage = pytest.importorskip("scipy.ndimage")
    from scipy import LowLevelCallable

    from hpcjit import carray, cfunc, types

    @cfunc(types.intc(types.CPointer(types.double), types.intp, types.CPointer(types.double), types.voidptr))
    def mean_filter(values_ptr, len_values, result, data):
        values = carray(values_ptr, (len_values,))
        s = 0.0
        for v in values:
            s += v
        result[0] = s / len_values
        return 1

    img = np.random.default_rng(0).random((7, 6))
    got = ndimage.generic_filter(img, LowLevelCallable(mean_filter.ctypes), size=3)
    np.testing.assert_allclose(got, ndimage.generic_filter(img, np.mean, size=3), rtol=1e-14)


@pytest.mark.numba_skip("hpcjit's messages")
def test_pointer_errors_are_located():
    from hpcjit import carray, cfunc, types

    def bad_dtype(p, n):
        return carray(p, (n,), np.int32)[0]

    def void_index(p, n):
        return p[0]

    with pytest.raises(hpcjit.errors.TypingError, match="does not match the pointer"):
        cfunc(types.double(types.CPointer(types.double), types.intc))(bad_dtype)
    with pytest.raises(hpcjit.errors.TypingError, match="void\\* cannot be indexed"):
        cfunc(types.double(types.voidptr, types.intc))(void_index)
