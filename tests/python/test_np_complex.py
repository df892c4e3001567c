"""Complex math (issue 3): np.* ufuncs on complex scalars and arrays (one
set of kernels, runtime/complexmath.c), the cmath module, and the
functions that have no complex form (TypingError, never a wrong value)."""
import cmath
import math

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check, make_array, LAYOUTS

if not AGAINST_NUMBA:
    from hpcjit import _core

RTOL = {np.complex128: 1e-12, np.complex64: 1e-4 if AGAINST_NUMBA else 1e-5}  # Numba's float tanh

# ufuncs with a complex loop in NumPy, and a njit function for each (scalar
# and array argument alike)
UNARY = ["sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
         "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
         "square", "reciprocal", "sign", "rint", "negative", "positive", "conjugate", "absolute"]


def _module(defs):
    """njit functions written to a real file (hpcjit reads the source):
    `defs` maps a name to (parameters, return expression)."""
    import importlib.util
    import tempfile
    src = ["import cmath, math", "import numpy as np", "from hpcjit import njit"]
    for name, (params, expr) in defs.items():
        src += ["@njit", f"def {name}({params}):", f"    return {expr}"]
    path = tempfile.mkdtemp() + "/hj_complex_funcs.py"
    with open(path, "w") as fh:
        fh.write("\n".join(src) + "\n")
    spec = importlib.util.spec_from_file_location("hj_complex_funcs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


NO_COMPLEX = ["fabs", "cbrt", "deg2rad", "rad2deg", "floor", "ceil", "trunc"]
NO_COMPLEX2 = ["arctan2", "hypot", "copysign", "logaddexp"]
CMATH_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "log",
               "log10", "sin", "sinh", "sqrt", "tan", "tanh", "phase", "polar", "isnan", "isinf",
               "isfinite"]
MATH_NAMES = ["sqrt", "exp", "log", "sin", "cos", "tan", "atan", "log10", "isnan", "floor", "fabs"]
_M = _module({**{"np_" + n: ("z", f"np.{n}(z)") for n in UNARY + NO_COMPLEX},
              **{"np2_" + n: ("z, w", f"np.{n}(z, w)") for n in NO_COMPLEX2},
              **{"cm_" + n: ("z", f"cmath.{n}(z)") for n in CMATH_UNARY},
              **{"m_" + n: ("z", f"math.{n}(z)") for n in MATH_NAMES}})
FUNCS = {name: getattr(_M, "np_" + name) for name in UNARY}

# finite values around the branch cuts (both signs of zero on the axes),
# the unit circle, tiny and large magnitudes
FINITE = [0.5 + 0.25j, -1.5 + 2j, 3 - 4j, -0.3 - 0.7j, 2 + 0j, 2 - 0j, -2 + 0j, -2 - 0j,
          0 + 2j, 0 - 2j, -0.0 + 2j, -0.0 - 2j, 0.5 + 0j, -0.5 - 0j, 1 + 0j, -1 + 0j, 1j, -1j,
          1e-9 + 1e-9j, -1e-12 + 3e-13j, 20 + 1j, -20 - 1j, 1 + 20j, 300 + 1j]
if AGAINST_NUMBA:  # Numba's kernels lose the tiny parts NumPy (and hpcjit) keep
    FINITE = [z for z in FINITE if 1e-6 < abs(z) < 100]
ATOL = 1e-15 if AGAINST_NUMBA else 1e-300
ATOL32 = 1e-15 if AGAINST_NUMBA else 1e-35
SPECIAL = [0j, -0.0 + 0j, 0 - 0j, complex(math.inf, 0), complex(-math.inf, 0), complex(0, math.inf),
           complex(1, -math.inf), complex(math.inf, math.inf), complex(-math.inf, math.nan),
           complex(math.nan, 0), complex(0, math.nan), complex(math.nan, math.nan),
           complex(math.inf, 2), complex(-math.inf, -2)]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
def test_ufunc_complex_scalar(name, dt):
    f = FUNCS[name]
    for z in FINITE:
        check(f, dt(z), rtol=RTOL[dt], atol=ATOL if dt is np.complex128 else ATOL32)


@pytest.mark.parametrize("name", UNARY)
def test_ufunc_python_complex(name):
    f = FUNCS[name]
    for z in FINITE:
        check(f, z, atol=ATOL)


@pytest.mark.numba_skip(reason="Numba's complex kernels differ from the C library's on inf/nan")
@pytest.mark.parametrize("name", UNARY)
def test_ufunc_complex_special(name):
    """inf/nan/signed-zero inputs give NumPy's results (the C library's)."""
    f = FUNCS[name]
    a = np.array(SPECIAL, dtype=np.complex128)
    check(f, a)
    for z in SPECIAL:
        check(f, z)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3, 4)])
def test_ufunc_complex_array(name, dt, layout, shape):
    f = FUNCS[name]
    if shape == ():
        if layout != "C":
            return
        a = np.array(dt(0.7 - 1.3j))
        # NumPy gives a scalar for a 0-d array, hpcjit (as Numba) a 0-d array
        got, exp = np.asarray(f(a)), np.asarray(f.py_func(a))
        assert (got.dtype == exp.dtype or AGAINST_NUMBA) and got.shape == ()  # Numba: complex128
        np.testing.assert_allclose(got, exp, rtol=RTOL[dt])
        return
    else:
        a = make_array(dt, shape, layout)
        a /= 4
    if AGAINST_NUMBA:
        check(f, a, rtol=RTOL[dt], atol=ATOL if dt is np.complex128 else ATOL32)
        return
    a0, f0 = _core.memstats()
    check(f, a, rtol=RTOL[dt], atol=ATOL if dt is np.complex128 else ATOL32)
    a1, f1 = _core.memstats()
    assert a1 - f1 == a0 - f0


def test_ufunc_complex_branch_cuts_array():
    a = np.array(FINITE, dtype=np.complex128)
    for name in UNARY:
        check(FUNCS[name], a, atol=ATOL)
        check(FUNCS[name], a.astype(np.complex64), rtol=RTOL[np.complex64], atol=ATOL32)


@njit
def fused(z, w):
    return np.exp(z) * np.sqrt(w) + np.log1p(z) - np.arctanh(w / 20) + 1.5


@njit
def fused_scalar_mix(z, s):
    return np.sin(z) + np.cos(s) * z  # complex array with a complex scalar


@njit
def inplace(z):
    z[1:] = np.tanh(z[:-1])
    z += np.expm1(z) * 0.5
    return z


@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_fused_complex(dt, layout):
    if AGAINST_NUMBA and dt is np.complex64:
        pytest.skip("Numba promotes complex64 with Python scalars to complex128")
    z = make_array(dt, (4, 5), layout) / 4
    w = make_array(dt, (5,), "C")
    check(fused, z, w, rtol=RTOL[dt] * 10)
    check(fused_scalar_mix, z, 0.5 - 0.25j, rtol=RTOL[dt] * 10)
    check(inplace, make_array(dt, (9,), layout) / 4, rtol=RTOL[dt] * 10)


@njit
def real_to_complex_mix(x, z):
    return np.sqrt(x + z)  # float array + complex scalar is complex


def test_real_array_with_complex_scalar():
    check(real_to_complex_mix, make_array(np.float64, (6,)), -4 + 0j)
    check(real_to_complex_mix, make_array(np.float32, (6,)), np.complex64(-4 + 1j), rtol=1e-5)


@njit(parallel=True)
def par_exp(z):
    return np.exp(z) + np.sqrt(z)


@pytest.mark.numba_skip(reason="Numba's parfors have no complex sqrt")
def test_parallel_complex_array():
    z = make_array(np.complex128, (1 << 16,)) / 4
    check(par_exp, z)


@njit
def scalar_loop(a):
    s = 0j
    for i in range(a.shape[0]):
        s += np.exp(a[i]) - np.sqrt(a[i]) * np.log(a[i])
    return s


def test_complex_scalar_in_loop():
    check(scalar_loop, make_array(np.complex128, (8,)) / 4)
    check(scalar_loop, make_array(np.complex64, (8,)) / 4, rtol=1e-5)


# ---- cmath ----

CMATH = {name: getattr(_M, "cm_" + name) for name in CMATH_UNARY}


@pytest.mark.parametrize("name", CMATH_UNARY)
def test_cmath(name):
    f = CMATH[name]
    for z in FINITE:
        try:
            f.py_func(z)
        except ValueError:  # CPython's domain errors (atan(1j)): hpcjit returns inf, as Numba
            continue
        check(f, z, atol=ATOL)


@pytest.mark.numba_skip(reason="Numba's cmath takes complex arguments only")
@pytest.mark.parametrize("name", CMATH_UNARY)
def test_cmath_real_arguments(name):
    for x in [0.5, -2.0, 3, -1]:  # reals become complex128
        try:
            CMATH[name].py_func(x)
        except ValueError:  # CPython's domain errors (atanh(-1))
            continue
        check(CMATH[name], x)


@pytest.mark.parametrize("name", CMATH_UNARY)
def test_cmath_complex64(name):
    f = CMATH[name]
    for z in FINITE[:8]:
        got = f(np.complex64(z))
        exp = getattr(cmath, name)(complex(np.complex64(z)))
        if isinstance(exp, tuple):
            np.testing.assert_allclose(got, exp, rtol=1e-5)
        elif isinstance(exp, bool):
            assert got == exp
        else:
            np.testing.assert_allclose(complex(got), exp, rtol=1e-5, atol=1e-30)


@pytest.mark.numba_skip(reason="CPython's cmath raises ValueError on some of these")
def test_cmath_predicates_special():
    for name in ["isnan", "isinf", "isfinite"]:
        for z in SPECIAL:
            check(CMATH[name], z)


@njit
def cmath_two(z, b, r, phi):
    return cmath.log(z, b), cmath.rect(r, phi), cmath.log(z, 10)


@pytest.mark.numba_skip(reason="Numba's cmath takes complex arguments only")
def test_cmath_log_base_rect():
    check(cmath_two, 3 - 4j, 2 + 1j, 2.0, 0.75)
    check(cmath_two, -1 + 0j, 2.0, -1.5, 0.0)
    check(cmath_two, 0.5j, 10, 3, -2.0)


@njit
def cmath_float32(x):
    return cmath.sqrt(x)


@pytest.mark.numba_skip(reason="Numba's cmath takes complex arguments only")
def test_cmath_real_argument_is_complex128():
    check(cmath_float32, np.float32(-2.0))
    assert isinstance(cmath_float32(-4.0), complex)


# ---- no complex form: TypingError, never a wrong value ----

@pytest.mark.parametrize("name", NO_COMPLEX)
def test_no_complex_loop_is_typing_error(name):
    f = getattr(_M, "np_" + name)
    with pytest.raises(hpcjit.TypingError):
        f(1 + 2j)
    with pytest.raises(hpcjit.TypingError):
        f(np.ones(3, dtype=np.complex128))


@pytest.mark.parametrize("name", NO_COMPLEX2)
def test_no_complex_loop_binary(name):
    f = getattr(_M, "np2_" + name)
    with pytest.raises(hpcjit.TypingError):
        f(1 + 2j, 1.0)
    with pytest.raises(hpcjit.TypingError):
        f(np.ones(3, dtype=np.complex64), 1.0)


@pytest.mark.parametrize("name", MATH_NAMES)
def test_math_on_complex_is_typing_error(name):
    with pytest.raises(hpcjit.TypingError):
        getattr(_M, "m_" + name)(1 + 2j)


# ---- complex minimum/maximum/fmin/fmax: NumPy's lexicographic order ----

@njit
def cminmax(a, b):
    return np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.fmin(a, b)


@pytest.mark.numba_skip(reason="Numba orders complex NaNs differently")
@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
def test_complex_minmax(dt):
    n = math.nan
    a = np.array([1 + 2j, 1 + 2j, 3 + 0j, complex(n, 1), 1 + 1j, complex(1, n), 2 + 0j, complex(n, n), -1j],
                 dtype=dt)
    b = np.array([1 + 3j, 0 + 5j, 3 + 0j, 1 + 1j, complex(n, 2), 2 + 2j, complex(2, n), complex(n, 0), -0j],
                 dtype=dt)
    check(cminmax, a, b)
    check(cminmax, a, b[::-1].copy())
    check(cminmax, a[0], b[1])  # scalars
    z = make_array(dt, (3, 4), "F")
    check(cminmax, z, make_array(dt, (4,), "strided"), rtol=RTOL[dt])


@njit
def ccmp(a, b):
    return a < b, a <= b, a > b, a >= b, np.less(a, b), np.greater_equal(a, b), a == b, a != b


@pytest.mark.numba_skip(reason="Numba has no ordering of complex arrays")
@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
def test_complex_ordering(dt):
    n = math.nan
    a = np.array([1 + 2j, 1 + 2j, 3 + 0j, complex(n, 1), 1 + 1j, complex(1, n), 2 + 0j, complex(n, n), -1j,
                  2 + 1j, 2 - 1j], dtype=dt)
    b = np.array([1 + 3j, 0 + 5j, 3 + 0j, 1 + 1j, complex(n, 2), 2 + 2j, complex(2, n), complex(n, 0), -0j,
                  1 + n * 1j, 1 + 5j], dtype=dt)
    check(ccmp, a, b)
    check(ccmp, a, b[::-1].copy())
    check(ccmp, a, dt(2 + 0j))
    check(ccmp, make_array(dt, (3, 4), "strided"), make_array(dt, (4,), "C"))


@njit
def cmath_consts(z):
    return z * cmath.pi + cmath.e - cmath.tau, cmath.inf > 1e308, math.isnan(cmath.nan)


def test_cmath_constants():
    check(cmath_consts, 1 + 2j)


@njit
def np_real_imag(z):
    return np.real(z), np.imag(z)


@njit
def np_real_write(z, v):
    r = np.real(z)
    r[...] = v  # a view, as in NumPy
    return z


@pytest.mark.parametrize("dt", [np.complex128, np.complex64, np.float64, np.int32])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_np_real_imag(dt, layout):
    if AGAINST_NUMBA and np.dtype(dt).kind != "c" and layout in ("strided", "reversed"):
        pytest.skip("Numba cannot allocate np.imag of a non-contiguous real array")
    a = make_array(dt, (3, 4), layout)
    check(np_real_imag, a)
    check(np_real_imag, a[0, 1])
    if np.dtype(dt).kind == "c":
        check(np_real_write, a, make_array(np.float64, (4,)))
    check(np_real_imag, 2.5 - 1j)
    check(np_real_imag, 3)


@njit
def cclip(a, lo, hi):
    return np.clip(a, lo, hi)


@pytest.mark.numba_skip(reason="Numba has no complex np.clip")
@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
def test_complex_clip(dt):
    n = math.nan
    x = np.array([1 + 5j, 3 + 0j, 2 + 0j, 2.2 + 3j, complex(n, 1), complex(1, n), -1 - 1j, 2.5 + 1j, 2.5 + 2j],
                 dtype=dt)
    check(cclip, x, dt(2 + 0j), dt(2.5 + 1j))
    check(cclip, x, np.full(9, complex(n, 0), dtype=dt), dt(2.5 + 1j))
    check(cclip, make_array(dt, (3, 4), "strided"), dt(-1 + 0j), dt(1 + 1j))
    check(cclip, dt(3 - 1j), dt(-1 + 0j), dt(1 + 1j))


@njit
def complex_power(z, w):
    return z ** w


@njit
def complex_small_powers(z):
    return z ** 2, z ** 3, z ** -2, z ** 0, z ** 1.0, z ** 2.5


POW_BASES = [1 + 0j, -1.5 + 2j, 3 - 4j, 2.5j, -0.75 - 0.5j, 1e-3 + 7j]


@pytest.mark.parametrize("z", POW_BASES)
@pytest.mark.parametrize("w", [2, 3, -1, -3, 0, 7, 100, -100, 101, 2.5, 0.5 + 1j, 2 + 1e-17j])
def test_complex_power_integral_exponents(z, w):
    # an integral exponent with |n| <= 100 is raised by repeated squaring,
    # as CPython does (2.5j ** 2 is exactly -6.25 there, not -6.25+7.7e-16j)
    res = check(complex_power, z, complex(w), rtol=1e-14, atol=0.0)
    if complex(w).imag == 0 and complex(w).real == int(complex(w).real) and abs(complex(w).real) <= 100:
        assert res == complex_power.py_func(z, complex(w))


@pytest.mark.parametrize("z", POW_BASES + [0j])
def test_complex_power_constant_exponents(z):
    check(complex_small_powers, z)


@njit
def exp_of(a):
    return np.exp(a)


@pytest.mark.skipif(AGAINST_NUMBA, reason="Numba's exp is its own, not the C library's")
@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
def test_exp_bit_identical(dt):
    """exp of finite values with a moderate real part is inlined (exp, sin,
    cos); the C library's cexp handles the rest.  Both give NumPy's bits,
    the signs of zeros and the edges of the inlined range included."""
    parts = np.array([0.0, -0.0, 1.0, -1.0, 87.9, 88.0, 88.5, 89.0, -104.0, 708.9, 709.0, 709.5, 710.0,
                      -745.0, -800.0, 1e-310, 5e-45, np.inf, -np.inf, np.nan, 1e300, -1e300, 3.5, 2.0**60])
    rng = np.random.default_rng(7)
    z = np.concatenate([(parts[:, None] + 1j * parts[None, :]).ravel(),
                        rng.normal(0, 40, 4000) + 1j * rng.normal(0, 1e3, 4000)])
    with np.errstate(all="ignore"):
        z = z.astype(dt)
        got, ref = exp_of(z), exp_of.py_func(z)
    assert got.dtype == ref.dtype
    g, r = got.view(got.real.dtype), ref.view(ref.real.dtype)
    same = (g == r) | (np.isnan(g) & np.isnan(r))
    assert same.all(), z[~same.reshape(-1, 2).all(axis=1)][:5]
    assert (np.signbit(g) == np.signbit(r))[~np.isnan(r)].all()
