"""ctypes foreign functions called from compiled code (Numba's ctypes
support, python/hpcjit/_ctypesfn.py): libm functions with argtypes and
restype, an integer function, a CFUNCTYPE pointer to a Python callback;
each compiled function compared with CPython (py_func, which calls the
same ctypes objects)."""
import ctypes
import ctypes.util
import math

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

libm = ctypes.CDLL(ctypes.util.find_library("m"))
c_cos = libm.cos
c_cos.argtypes = [ctypes.c_double]
c_cos.restype = ctypes.c_double
c_powf = libm.powf
c_powf.argtypes = [ctypes.c_float, ctypes.c_float]
c_powf.restype = ctypes.c_float
libc = ctypes.CDLL(None)
c_labs = libc.labs
c_labs.argtypes = [ctypes.c_long]
c_labs.restype = ctypes.c_long

CALLS = [0]


def _py_square(x):
    CALLS[0] += 1
    return x * x


py_square = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)(_py_square)

c_nosig = libm.sin  # no argtypes: hpcjit cannot know the C signature

c_ptr = libc.strlen
c_ptr.argtypes = [ctypes.c_char_p]
c_ptr.restype = ctypes.c_size_t


@hpcjit.njit
def sum_cos(a):
    s = 0.0
    for x in a:
        s += c_cos(x)
    return s


@hpcjit.njit
def mixed(i, x):
    return c_labs(i), c_powf(np.float32(x), np.float32(2.0)), c_cos(i)  # an int converted to double


@hpcjit.njit
def callback(x):
    return py_square(x) + py_square(2.0)


def test_libm_in_a_loop():
    check(sum_cos, np.linspace(0.0, math.pi, 17))


def test_numbers_converted_to_the_c_signature():
    check(mixed, -7, 1.5)
    check(mixed, 3, -2.25)


def test_cfunctype_callback_into_python():
    before = CALLS[0]
    assert callback(3.0) == callback.py_func(3.0) == 13.0
    assert CALLS[0] - before == 4  # two calls each way


@hpcjit.njit
def no_argtypes(x):
    return c_nosig(x)  # NOSIG


@hpcjit.njit
def pointer_argument(s):
    return c_ptr(s)  # POINTER


@pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's messages")
def test_unsupported_signatures_are_located():
    with pytest.raises(hpcjit.TypingError, match="argtypes") as ei:
        no_argtypes(1.0)
    assert "test_ctypes_calls.py" in str(ei.value) and "NOSIG" in str(ei.value)
    with pytest.raises(hpcjit.TypingError, match="c_char_p") as ei:
        pointer_argument(1)
    assert "POINTER" in str(ei.value)
