"""@cfunc: C callbacks with .address, .ctypes, .native_name,
.inspect_llvm(); used from ctypes and as a scipy.LowLevelCallable; each
result compared with the Python function (py_func)."""
import ctypes
import math

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
