"""float ** int: the exponent stays an integer and the power is taken by
repeated squaring, as Numba does (x ** 3 is x * (x * x), not pow()), so
the results are Numba's bits and close to CPython's pow(); and a root
finder that takes jitted functions as arguments (QuantEcon's newton and
brentq idiom) still gives CPython's roots."""
import math

import numpy as np
import pytest

from hpcjit import njit
from conftest import check


def squaring(x, n):
    """Numba's int_power_impl in Python: the reference for the bits."""
    if abs(n) > 0x10000:
        return math.pow(x, float(n))
    r, a, e = 1.0, x, abs(n)
    while e:
        if e & 1:
            r *= a
        e >>= 1
        a *= a
    return 1.0 / r if n < 0 else r


@njit
def pow_const(x):
    return x ** 0, x ** 1, x ** 2, x ** 3, x ** 5, x ** 7, x ** 10, x ** -1, x ** -3


@njit
def pow_var(x, n):
    return x ** n


@njit
def pow_big(x):
    return x ** 70000, x ** -70000


@njit
def pow_f32(x, n):
    return x ** 3, x ** n


CONSTS = (0, 1, 2, 3, 5, 7, 10, -1, -3)
XS = [1.1, -1.1, 2.5, 0.3, 1e-3, 7.25, 1.0000001, float("inf"), -float("inf")]


@pytest.mark.parametrize("x", XS + [float("nan")])
def test_constant_exponents(x):
    got = check(pow_const, x, rtol=4e-15)
    for k, n in enumerate(CONSTS):
        assert np.array_equal(got[k], squaring(x, n), equal_nan=True), (x, n, got[k])


@pytest.mark.parametrize("x", XS + [0.0, -0.0])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 9, 16, 31, -1, -2, -5, 0x10000, -0x10000])
def test_variable_exponent(x, n):
    if abs(x) not in (0.0, float("inf")) and abs(n) * abs(math.log(abs(x))) > 700:
        pytest.skip("CPython raises OverflowError where the product is inf")
    got = check(pow_var, x, n, rtol=1e-12)  # 16 squarings for 0x10000
    if isinstance(got, ZeroDivisionError):  # 0.0 ** -n, as CPython
        with pytest.raises(ZeroDivisionError):
            squaring(x, n)
        return
    assert np.array_equal(got, squaring(x, n), equal_nan=True), (x, n, got)


def test_big_exponents_take_pow():
    for x in (1.0000001, 0.9999999, -1.0, 1.0):
        got = pow_big(x)
        assert got == (math.pow(x, 70000.0), math.pow(x, -70000.0))
        assert got == pow_big.py_func(x)
    assert pow_var(1.00000001, 70001) == math.pow(1.00000001, 70001.0) == pow_var.py_func(1.00000001, 70001)


@pytest.mark.parametrize("n", [-1, -2, -7])
def test_zero_to_negative_power_raises(n):
    assert isinstance(check(pow_var, 0.0, n), ZeroDivisionError)
    assert isinstance(check(pow_var, -0.0, n), ZeroDivisionError)


def test_float32_base():
    for x in (1.1, -2.5, 0.3):
        got = pow_f32(np.float32(x), 5)
        ref = pow_f32.py_func(np.float32(x), 5)
        assert all(type(g) is type(r) for g, r in zip(got, ref)) or all(isinstance(g, float) for g in got)
        np.testing.assert_allclose(np.float64(got), np.float64(ref), rtol=1e-6)
        xs = np.float32(x)
        assert np.float32(got[0]) == xs * (xs * xs)


@njit
def pow_forms(x, n):
    y = x
    y **= 3
    a = np.empty(2)
    a[0] = x
    a[0] **= n
    z = x
    z **= n
    return y, pow(x, 3), pow(x, n), z, a[0]


@pytest.mark.parametrize("x", [1.1, -2.5, 0.3, 1.0000001, 7.25])
@pytest.mark.parametrize("n", [3, 5, -3, 13])
def test_augmented_and_builtin_pow(x, n):
    got = check(pow_forms, x, n, rtol=4e-15)
    ref = (squaring(x, 3), squaring(x, 3), squaring(x, n), squaring(x, n), squaring(x, n))
    assert got == ref, (x, n, got, ref)


@pytest.mark.parametrize("n", [-1, -4])
def test_augmented_and_builtin_pow_zero(n):
    assert isinstance(check(pow_forms, 0.0, n), ZeroDivisionError)


# ---- a root finder taking jitted functions as arguments (QuantEcon's idiom) ----------

@njit
def cubic(x, a):
    return x ** 3 - a * x - 1.0


@njit
def cubic_prime(x, a):
    return 3.0 * x ** 2 - a


@njit
def newton(func, x0, fprime, args=(), tol=1.48e-8, maxiter=50):
    p0 = 1.0 * x0
    p = p0
    for _ in range(maxiter):
        fval = func(p0, *args)
        if fval == 0:
            return p0
        fder = fprime(p0, *args)
        if fder == 0:
            return p0
        p = p0 - fval / fder
        if abs(p - p0) < tol:
            return p
        p0 = p
    raise RuntimeError("Failed to converge")


@njit
def roots(n):
    out = np.empty(n)
    for i in range(n):
        out[i] = newton(cubic, 2.0, cubic_prime, args=(1.0 + i / n,))
    return out


def test_root_finder_with_function_arguments():
    n = 500
    got = roots(n)
    ref = np.array([newton.py_func(cubic.py_func, 2.0, cubic_prime.py_func, args=(1.0 + i / n,))
                    for i in range(n)])
    np.testing.assert_allclose(got, ref, rtol=1e-14)
    assert np.all(np.abs(cubic.py_func(got, 1.0 + np.arange(n) / n)) < 1e-12)


def test_root_finder_failure_raises():
    @njit
    def no_root(x, a):
        return x * x + a

    @njit
    def no_root_prime(x, a):
        return 2.0 * x

    @njit
    def solve(a):
        return newton(no_root, 2.0, no_root_prime, args=(a,), maxiter=5)

    with pytest.raises(RuntimeError, match="Failed to converge"):
        solve(1.0)
    with pytest.raises(RuntimeError, match="Failed to converge"):
        solve.py_func(1.0)
