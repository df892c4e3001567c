"""np.polynomial.polynomial in compiled code (python/hpcjit/_nppoly.py):
Polynomial(coef[, domain[, window]]) made, passed in and returned (it
crosses the boundary as a named tuple of coef, domain, window), its
attributes, and the functions Numba 0.68 compiles: polyadd, polysub,
polymul, polydiv, polyval, polyint(c, m).  Each compiled function is
compared with NumPy (py_func); bad arguments are located TypingErrors,
NumPy's run-time errors its exception classes."""
import os

import numpy as np
import pytest
from numpy.polynomial import Polynomial
from numpy.polynomial import polynomial as P

import hpcjit
from conftest import assert_located_in, check

def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


# ---- the Polynomial class ---------------------------------------------------------

@hpcjit.njit
def make1(c):
    return Polynomial(c)


@hpcjit.njit
def make3(c, d, w):
    return Polynomial(c, d, w)


@hpcjit.njit
def make_domain(c, d):
    return np.polynomial.Polynomial(c, d)


@hpcjit.njit
def parts(p):
    return p.coef, p.domain, p.window


@hpcjit.njit
def same(p):
    return p


@hpcjit.njit
def made_parts(c):
    p = np.polynomial.polynomial.Polynomial(c)
    return p.coef.sum(), p.domain[0], p.window[1]


@hpcjit.njit
def rebuild(p, k):
    return Polynomial(p.coef * k, p.domain, p.window)


@pytest.mark.parametrize("coef", [np.array([1.0, 2.0, 3.0]), np.array([1, 2, 3]), np.array([0.5]),
                                  np.array([1 + 2j, 3.0]),
                                  np.arange(6.0)[::2]])
def test_polynomial_make(coef):
    got = check(make1, coef)
    assert isinstance(got, Polynomial) and got.coef.dtype == Polynomial(coef).coef.dtype
    check(made_parts, coef)


def test_polynomial_domain_window():
    c = np.array([1.0, -2.0])
    got = check(make3, c, np.array([0.0, 2.0]), np.array([-1, 1]))
    assert got.domain.dtype == np.float64 and list(got.domain) == [0.0, 2.0]
    check(make_domain, c, np.array([2, 5]))
    for d, w in [(np.array([0.0, 1.0, 2.0]), np.array([-1.0, 1.0])),
                 (np.array([0.0, 1.0]), np.array([1.0]))]:
        e = check(make3, c, d, w)
        assert isinstance(e, ValueError) and "wrong number of elements" in str(e)


def test_polynomial_arguments():
    for p in [Polynomial([1.0, 2.0]), Polynomial([1, 2, 3], domain=[0, 4], window=[0, 1]),
              Polynomial([1j, 2.0])]:
        check(parts, p)
        got = same(p)
        assert got == p and type(got) is Polynomial
        check(rebuild, p, 2.0)


@hpcjit.njit
def make_2d(c):
    return Polynomial(c)  # MAKE_2D


@hpcjit.njit
def make_number(c):
    return Polynomial(c)  # MAKE_NUMBER


@hpcjit.njit
def make_bad_domain(c):
    return Polynomial(c, 3.0)  # MAKE_DOMAIN


def test_polynomial_typing_errors():
    with pytest.raises(hpcjit.TypingError, match="not 1-d") as ei:
        make_2d(np.ones((2, 2)))
    assert_located(ei.value, "MAKE_2D")
    with pytest.raises(hpcjit.TypingError, match="array of coefficients") as ei:
        make_number(2.0)
    assert_located(ei.value, "MAKE_NUMBER")
    with pytest.raises(hpcjit.TypingError, match="domain") as ei:
        make_bad_domain(np.ones(2))
    assert_located(ei.value, "MAKE_DOMAIN")
    with pytest.raises(hpcjit.TypingError, match="no common type") as ei:
        make_number(np.array([True, False]))  # NumPy: a ValueError
    assert_located(ei.value, "MAKE_NUMBER")


# ---- the functions -----------------------------------------------------------------

@hpcjit.njit
def add(a, b):
    return P.polyadd(a, b)


@hpcjit.njit
def sub(a, b):
    return P.polysub(a, b)


@hpcjit.njit
def mul(a, b):
    return np.polynomial.polynomial.polymul(a, b)


@hpcjit.njit
def div(a, b):
    return P.polydiv(a, b)


@hpcjit.njit
def val(x, c):
    return P.polyval(x, c)


@hpcjit.njit
def integ(c, m):
    return P.polyint(c, m)


@hpcjit.njit
def integ1(c):
    return P.polyint(c)


PAIRS = [
    (np.array([1.0, 2.0, 3.0]), np.array([3.0, 4.0])),
    (np.array([3.0, 4.0]), np.array([1.0, 2.0, 3.0])),
    (np.array([1, 2, 3]), np.array([1, 2, 3])),
    (np.array([1.0, 2.0, 0.0, 0.0]), np.array([0.0])),
    (np.array([1.0, 2.0]), 2.5),
    (3, np.array([1.0, -1.0, 0.0])),
    (np.array([1 + 1j, 2.0]), np.array([0.5, 1j, 3.0])),
    (np.array([1.0, 2.0], np.float32), np.array([3.0, 1.0], np.float32)),
    (np.array([2.0, 0.0, 1.0])[::-1], np.array([1.0, 1.0])),
]


@pytest.mark.parametrize("a, b", PAIRS)
def test_add_sub_mul(a, b):
    for f in (add, sub, mul):
        got = check(f, a, b)
        exp = f.py_func(a, b)
        assert got.dtype == exp.dtype


@pytest.mark.parametrize("a, b", [p for p in PAIRS if not (np.ndim(p[1]) and not np.any(p[1]))])
def test_div(a, b):
    check(div, a, b)


def test_div_cases():
    check(div, np.array([1.0, 2.0]), np.array([1.0, 2.0, 3.0]))  # lower degree: 0, c1
    check(div, np.array([4.0, 2.0, 6.0]), np.array([2.0]))       # by a constant
    check(div, np.array([-1.0, 0.0, 1.0]), np.array([-1.0, 1.0]))
    e = check(div, np.array([1.0, 2.0]), np.array([0.0, 0.0]))
    assert isinstance(e, ZeroDivisionError)


@pytest.mark.parametrize("x", [2.0, 3, np.array([0.0, 1.0, -2.5]), np.arange(6.0).reshape(2, 3),
                               np.array([1, 2])])
@pytest.mark.parametrize("c", [np.array([1.0, 2.0, 3.0]), np.array([4]), np.array([1, -1, 2]),
                               np.array([1j, 2.0])])
def test_val(x, c):
    check(val, x, c)


@pytest.mark.parametrize("c", [np.array([1.0, 2.0, 3.0]), np.array([1, 2]), np.array([0.0]),
                               np.array([3.0]), np.array([1j, 2.0]), 2.0])
@pytest.mark.parametrize("m", [0, 1, 2, 3])
def test_int(c, m):
    check(integ, c, m)
    check(integ1, c)


def test_function_errors():
    e = check(integ, np.array([1.0, 2.0]), -1)
    assert isinstance(e, ValueError)
    for f in (add, sub, mul, div):
        e = check(f, np.zeros(0), np.array([1.0]))
        assert isinstance(e, ValueError) and "empty" in str(e)
    assert isinstance(check(val, 2.0, np.zeros(0)), IndexError)


@hpcjit.njit
def add_2d(a):
    return P.polyadd(a, a)  # ADD_2D


@hpcjit.njit
def int_float_m(c):
    return P.polyint(c, 1.5)  # INT_FLOAT_M


def test_function_typing_errors():
    with pytest.raises(hpcjit.TypingError, match="not 1-d") as ei:
        add_2d(np.ones((2, 2)))
    assert_located(ei.value, "ADD_2D")
    with pytest.raises(hpcjit.TypingError, match="must be an integer") as ei:
        int_float_m(np.ones(2))
    assert_located(ei.value, "INT_FLOAT_M")
