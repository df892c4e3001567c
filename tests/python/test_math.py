"""Every math function Numba supports, on ints and floats, with edge values;
each compiled function is checked against its own py_func.  Inputs where
CPython raises (domain errors) are tested separately: there hpcjit follows
Numba (nan/inf, no exception)."""
import math

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import check

@njit
def m_acos(x):
    return math.acos(x)

@njit
def m_acosh(x):
    return math.acosh(x)

@njit
def m_asin(x):
    return math.asin(x)

@njit
def m_asinh(x):
    return math.asinh(x)

@njit
def m_atan(x):
    return math.atan(x)

@njit
def m_atanh(x):
    return math.atanh(x)

@njit
def m_ceil(x):
    return math.ceil(x)

@njit
def m_cos(x):
    return math.cos(x)

@njit
def m_cosh(x):
    return math.cosh(x)

@njit
def m_degrees(x):
    return math.degrees(x)

@njit
def m_erf(x):
    return math.erf(x)

@njit
def m_erfc(x):
    return math.erfc(x)

@njit
def m_exp(x):
    return math.exp(x)

@njit
def m_expm1(x):
    return math.expm1(x)

@njit
def m_fabs(x):
    return math.fabs(x)

@njit
def m_floor(x):
    return math.floor(x)

@njit
def m_frexp(x):
    return math.frexp(x)

@njit
def m_gamma(x):
    return math.gamma(x)

@njit
def m_isfinite(x):
    return math.isfinite(x)

@njit
def m_isinf(x):
    return math.isinf(x)

@njit
def m_isnan(x):
    return math.isnan(x)

@njit
def m_lgamma(x):
    return math.lgamma(x)

@njit
def m_log(x):
    return math.log(x)

@njit
def m_log10(x):
    return math.log10(x)

@njit
def m_log1p(x):
    return math.log1p(x)

@njit
def m_log2(x):
    return math.log2(x)

@njit
def m_modf(x):
    return math.modf(x)

@njit
def m_radians(x):
    return math.radians(x)

@njit
def m_sin(x):
    return math.sin(x)

@njit
def m_sinh(x):
    return math.sinh(x)

@njit
def m_sqrt(x):
    return math.sqrt(x)

@njit
def m_tan(x):
    return math.tan(x)

@njit
def m_tanh(x):
    return math.tanh(x)

@njit
def m_trunc(x):
    return math.trunc(x)

@njit
def m_atan2(x, y):
    return math.atan2(x, y)

@njit
def m_copysign(x, y):
    return math.copysign(x, y)

@njit
def m_gcd(x, y):
    return math.gcd(x, y)

@njit
def m_hypot(x, y):
    return math.hypot(x, y)

@njit
def m_ldexp(x, y):
    return math.ldexp(x, y)

@njit
def m_pow(x, y):
    return math.pow(x, y)

UNARY = {
    "acos": m_acos,
    "acosh": m_acosh,
    "asin": m_asin,
    "asinh": m_asinh,
    "atan": m_atan,
    "atanh": m_atanh,
    "ceil": m_ceil,
    "cos": m_cos,
    "cosh": m_cosh,
    "degrees": m_degrees,
    "erf": m_erf,
    "erfc": m_erfc,
    "exp": m_exp,
    "expm1": m_expm1,
    "fabs": m_fabs,
    "floor": m_floor,
    "frexp": m_frexp,
    "gamma": m_gamma,
    "isfinite": m_isfinite,
    "isinf": m_isinf,
    "isnan": m_isnan,
    "lgamma": m_lgamma,
    "log": m_log,
    "log10": m_log10,
    "log1p": m_log1p,
    "log2": m_log2,
    "modf": m_modf,
    "radians": m_radians,
    "sin": m_sin,
    "sinh": m_sinh,
    "sqrt": m_sqrt,
    "tan": m_tan,
    "tanh": m_tanh,
    "trunc": m_trunc,
}
BINARY = {
    "atan2": m_atan2,
    "copysign": m_copysign,
    "gcd": m_gcd,
    "hypot": m_hypot,
    "ldexp": m_ldexp,
    "pow": m_pow,
}

INF = float("inf")
NAN = float("nan")
FLOAT_VALUES = [0.0, -0.0, 0.5, -0.5, 0.9999, 1.0, -1.0, 1.5, 2.0, 3.7, -3.7, 10.0, 100.5,
                -100.5, 1e-300, 5e-324, 1e300, -1e300, 709.0, 710.0, INF, -INF, NAN]
INT_VALUES = [0, 1, -1, 2, 3, -7, 10, 1000, -123456, 2 ** 40]


def _cpython_ok(fn, args):
    try:
        fn(*args)
        return True
    except (ValueError, OverflowError, ZeroDivisionError):
        return False


def _cases(values, arity):
    cases = []
    for name, jf in (UNARY if arity == 1 else BINARY).items():
        pf = getattr(math, name)
        if arity == 1:
            argsets = [(v,) for v in values]
        else:
            argsets = [(a, b) for a in values for b in values[::3]]
        for args in argsets:
            if name == "gcd" and not all(isinstance(a, int) for a in args):
                continue
            if name == "ldexp" and not isinstance(args[1], int):
                continue
            if name == "modf":
                continue  # test_modf: Numba lacks it
            if name in ("floor", "ceil", "trunc") and any(
                    isinstance(a, float) and math.isfinite(a) and abs(a) >= 2.0 ** 63 for a in args):
                continue  # CPython gives a big int, compiled code an int64
            if _cpython_ok(pf, args):
                cases.append(pytest.param(jf, args, id=f"{name}{args}"))
    return cases


@pytest.mark.parametrize("f,args", _cases(FLOAT_VALUES, 1))
def test_unary_float(f, args):
    # gamma-family functions differ in the last bits between libm and CPython
    special = f in (m_gamma, m_lgamma, m_erf, m_erfc)
    check(f, *args, rtol=1e-10 if special else 1e-12)


@pytest.mark.parametrize("f,args", _cases(INT_VALUES, 1))
def test_unary_int(f, args):
    check(f, *args)


@pytest.mark.parametrize("f,args", _cases([0.0, -0.0, 1.5, -2.5, 3.0, 1e-10, 1e10, INF, -INF, NAN, 7.25, -1.0], 2))
def test_binary_float(f, args):
    check(f, *args)


@pytest.mark.parametrize("f,args", _cases([0, 1, -1, 2, 12, -18, 35, 1024], 2))
def test_binary_int(f, args):
    check(f, *args)


@pytest.mark.parametrize("x,e", [(1.5, 3), (0.75, -2), (-1.0, 10), (1.0, 1023), (1.0, -1074), (0.0, 5)])
def test_ldexp(x, e):
    check(m_ldexp, x, e)


@pytest.mark.parametrize("f", [m_sin, m_sqrt, m_exp, m_log, m_floor, m_atan, m_tanh])
@pytest.mark.parametrize("x", [np.float32(0.5), np.float32(2.25), np.float32(10.0)])
def test_float32_arguments(f, x):
    check(f, x, rtol=1e-6)


@pytest.mark.numba_skip(reason="Numba does not support math.modf")
@pytest.mark.parametrize("x", [0.0, -0.0, 0.5, -3.75, 1e300, 1e-300, 5, -7, float("inf"), float("nan")])
def test_modf(x):
    check(m_modf, x)


@njit
def constants():
    return math.pi, math.e, math.tau, math.inf, -math.inf


@njit
def nan_constant():
    return math.nan


def test_constants():
    check(constants)
    assert math.isnan(nan_constant())


@njit
def math_kernel(n):
    s = 0.0
    for i in range(1, n):
        x = i * 0.01
        s += math.sin(x) * math.exp(-x) + math.sqrt(x) / (1.0 + math.log1p(x)) - math.atan2(x, 1.5)
    return s


def test_math_in_loop():
    check(math_kernel, 1000, rtol=1e-10)


# Out of the CPython domain, CPython raises; Numba (and hpcjit) return the
# C library's value without raising.
@njit
def sqrt_neg():
    return math.sqrt(-1.0)


@njit
def log_zero(x):
    return math.log(x)


@njit
def exp_big(x):
    return math.exp(x)


def test_domain_errors_follow_numba():
    assert math.isnan(sqrt_neg())
    assert log_zero(0.0) == -INF
    assert math.isnan(log_zero(-1.0))
    assert exp_big(1000.0) == INF
    with pytest.raises(ValueError):
        sqrt_neg.py_func()


@njit
def pow_mod(b, e, m):
    return pow(b, e, m)


@pytest.mark.numba_skip(reason="Numba's pow takes two arguments")
def test_pow_three_arguments():
    for b in (0, 1, 2, 7, -5, 10**12 + 3, -(2**62), True):
        for e in (0, 1, 5, 63, 10**15, -1, -3):
            for m in (1, 2, 7, -7, 12, 10**9 + 7, -(10**18) + 9):
                check(pow_mod, b, e, m)  # negative e: ValueError where b has no inverse, as CPython
    e = check(pow_mod, 2, 3, 0)
    assert isinstance(e, ValueError)
    with pytest.raises(hpcjit.TypingError, match="unless all arguments are integers"):
        pow_mod(2.0, 3, 5)  # CPython's TypeError, found when compiling


@njit
def m_fmod(x, y):
    return math.fmod(x, y)


@pytest.mark.numba_skip(reason="Numba does not support math.fmod")
def test_fmod():
    for x in (-7.0, 7.0, 5.5, -0.0, 1e300, 2, -3, np.float32(2.5)):
        for y in (3.0, -3.0, 2, 0.1, math.inf):
            check(m_fmod, x, y)
    assert math.isnan(m_fmod(1.0, 0.0))  # CPython: ValueError (a domain error: NaN, as Numba's other functions)


@njit
def m_intfuncs(n, k):
    return (math.isqrt(n), math.comb(n, k), math.perm(n, k), math.perm(k), math.factorial(k), math.lcm(n, k),
            math.prod([n, k, 2]), math.prod((1.5, 2.0), start=2.0))


@njit
def m_isclose_dist(a, b):
    return (math.isclose(a, b), math.isclose(a, b, rel_tol=0.1), math.isclose(a, b, abs_tol=1.0),
            math.dist((a, b), (b, a)), math.dist((0.0, 0.0, 0.0), (a, b, 1.0)))


@pytest.mark.numba_skip(reason="Numba has none of these math functions")
def test_math_integer_functions():
    for n in (0, 1, 5, 10, 17, 60, 10**6):
        for k in (0, 1, 3, 9):
            if n < 100 or k < 3:  # C(10**6, 3) and up overflow int64 (OverflowError; CPython's int grows)
                check(m_intfuncs, n, k)
    for bad in ((-1, 2), (5, -1)):  # ValueError, as CPython
        assert isinstance(check(m_intfuncs, *bad), ValueError)
    for big in ((3, 21), (67, 33)):  # factorial(21), comb(67, 33) do not fit; CPython's int does
        with pytest.raises(OverflowError, match="int64"):
            m_intfuncs(*big)
    for a, b in ((1.0, 1.0), (1.0, 1.05), (1e-10, 0.0), (math.inf, math.inf), (math.inf, 1.0), (2.0, 2.5)):
        check(m_isclose_dist, a, b)
