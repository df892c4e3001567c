"""Loops over libm calls vectorized with glibc's libmvec
(compiler/backend/vecmath.c): the results stay within libmvec's stated
error (4 ulp) of CPython's math module, special values (NaN, infinities,
signed zeros, out-of-domain arguments) are IEEE's, the vector variants are
what the loop calls, and HPCJIT_DISABLE_VECTOR_MATH / Numba's
NUMBA_DISABLE_INTEL_SVML keep every call scalar."""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import hpcjit
from hpcjit import _compiler

VECTOR_MATH = _compiler.target_info().get("vector_math", False)
needs_mvec = pytest.mark.skipif(not VECTOR_MATH, reason="no libmvec on this target")


@hpcjit.njit
def k_sin(a, out):
    for i in range(a.size):
        out[i] = math.sin(a[i])


@hpcjit.njit
def k_cos(a, out):
    for i in range(a.size):
        out[i] = math.cos(a[i])


@hpcjit.njit
def k_tan(a, out):
    for i in range(a.size):
        out[i] = math.tan(a[i])


@hpcjit.njit
def k_asin(a, out):
    for i in range(a.size):
        out[i] = math.asin(a[i])


@hpcjit.njit
def k_acos(a, out):
    for i in range(a.size):
        out[i] = math.acos(a[i])


@hpcjit.njit
def k_atan(a, out):
    for i in range(a.size):
        out[i] = math.atan(a[i])


@hpcjit.njit
def k_sinh(a, out):
    for i in range(a.size):
        out[i] = math.sinh(a[i])


@hpcjit.njit
def k_cosh(a, out):
    for i in range(a.size):
        out[i] = math.cosh(a[i])


@hpcjit.njit
def k_tanh(a, out):
    for i in range(a.size):
        out[i] = math.tanh(a[i])


@hpcjit.njit
def k_asinh(a, out):
    for i in range(a.size):
        out[i] = math.asinh(a[i])


@hpcjit.njit
def k_acosh(a, out):
    for i in range(a.size):
        out[i] = math.acosh(a[i])


@hpcjit.njit
def k_atanh(a, out):
    for i in range(a.size):
        out[i] = math.atanh(a[i])


@hpcjit.njit
def k_exp(a, out):
    for i in range(a.size):
        out[i] = math.exp(a[i])


@hpcjit.njit
def k_expm1(a, out):
    for i in range(a.size):
        out[i] = math.expm1(a[i])


@hpcjit.njit
def k_log(a, out):
    for i in range(a.size):
        out[i] = math.log(a[i])


@hpcjit.njit
def k_log2(a, out):
    for i in range(a.size):
        out[i] = math.log2(a[i])


@hpcjit.njit
def k_log10(a, out):
    for i in range(a.size):
        out[i] = math.log10(a[i])


@hpcjit.njit
def k_log1p(a, out):
    for i in range(a.size):
        out[i] = math.log1p(a[i])


@hpcjit.njit
def k_erf(a, out):
    for i in range(a.size):
        out[i] = math.erf(a[i])


@hpcjit.njit
def k_erfc(a, out):
    for i in range(a.size):
        out[i] = math.erfc(a[i])


@hpcjit.njit
def k_atan2(a, b, out):
    for i in range(a.size):
        out[i] = math.atan2(a[i], b[i])


@hpcjit.njit
def k_hypot(a, b, out):
    for i in range(a.size):
        out[i] = math.hypot(a[i], b[i])


@hpcjit.njit
def k_pow(a, b, out):
    for i in range(a.size):
        out[i] = a[i] ** b[i]


def _uniform(lo, hi, lo32=None, hi32=None):
    """Arguments uniform in [lo, hi) (float32: [lo32, hi32), where the
    results stay finite in float32)."""
    def gen(rng, n, dtype):
        a, b = (lo, hi) if dtype == np.float64 or lo32 is None else (lo32, hi32)
        return rng.uniform(a, b, n).astype(dtype)
    return gen


def _logu(lo, hi, lo32, hi32):
    def gen(rng, n, dtype):
        a, b = (lo, hi) if dtype == np.float64 else (lo32, hi32)
        return np.exp(rng.uniform(math.log(a), math.log(b), n)).astype(dtype)
    return gen


UNARY = [
    (k_sin, _uniform(-20, 20)), (k_cos, _uniform(-20, 20)), (k_tan, _uniform(-1.5, 1.5)),
    (k_asin, _uniform(-1, 1)), (k_acos, _uniform(-1, 1)), (k_atan, _uniform(-50, 50)),
    (k_sinh, _uniform(-700, 700, -88, 88)), (k_cosh, _uniform(-700, 700, -88, 88)),
    (k_tanh, _uniform(-20, 20)), (k_asinh, _uniform(-1e3, 1e3)), (k_acosh, _uniform(1, 1e3)),
    (k_atanh, _uniform(-0.999, 0.999)), (k_exp, _uniform(-700, 700, -87, 88)),
    (k_expm1, _uniform(-5, 5)), (k_log, _logu(1e-300, 1e300, 1e-30, 1e30)),
    (k_log2, _logu(1e-300, 1e300, 1e-30, 1e30)), (k_log10, _logu(1e-300, 1e300, 1e-30, 1e30)),
    (k_log1p, _uniform(-0.99, 100)), (k_erf, _uniform(-5, 5)), (k_erfc, _uniform(-5, 5, -5, 9)),
]
BINARY = [
    (k_atan2, _uniform(-10, 10), _uniform(-10, 10)),
    (k_hypot, _uniform(-1e3, 1e3), _uniform(-1e3, 1e3)),
    (k_pow, _uniform(0, 100), _uniform(-5, 5)),
]


def _within_ulps(got, exp, ulps, what):
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(exp)), f"{what}: NaN positions differ"
    fin = np.isfinite(exp)
    assert np.array_equal(got[~fin], exp[~fin], equal_nan=True), f"{what}: infinities differ"
    g, e = got[fin], exp[fin]
    spacing = np.spacing(np.abs(e).astype(ulps[1])).astype(np.float64)
    err = np.abs(g - e) / spacing
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err[worst] <= ulps[0], \
        f"{what}: {err[worst]:.1f} ulp at {worst} (got {g[worst]!r}, expected {e[worst]!r})"


# float64: libmvec's stated bound; float32: the float result is within 4
# float ulps of the correctly rounded one CPython's double computation gives
ULPS = {np.float64: (4, np.float64), np.float32: (4, np.float32)}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel,gen", UNARY, ids=[k.__name__[2:] for k, _ in UNARY])
def test_unary_within_libmvec_error(kernel, gen, dtype):
    rng = np.random.default_rng(1234)
    a = gen(rng, 4099, dtype)  # not a multiple of the lanes: the scalar tail runs too
    got, exp = np.zeros_like(a), np.zeros_like(a)
    kernel(a, got)
    kernel.py_func(a, exp)
    _within_ulps(got, exp, ULPS[dtype], kernel.__name__)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kernel,gen_a,gen_b", BINARY, ids=[k.__name__[2:] for k, _, _ in BINARY])
def test_binary_within_libmvec_error(kernel, gen_a, gen_b, dtype):
    rng = np.random.default_rng(99)
    a = gen_a(rng, 4099, dtype)
    b = gen_b(rng, 4099, dtype)
    got, exp = np.zeros_like(a), np.zeros_like(a)
    kernel(a, b, got)
    kernel.py_func(a, b, exp)
    _within_ulps(got, exp, ULPS[dtype], kernel.__name__)


SPECIALS = [math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324, -5e-324, 2.2e-308, 1e-300, 1e300,
            -1e300, 1e22, 1e5, 709.78, 710.0, -745.1, -746.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0]


@hpcjit.njit
def np_kernels(a, b):
    return (np.sin(a), np.cos(a), np.tan(a), np.exp(a), np.log(a), np.log2(a), np.log10(a),
            np.log1p(a), np.expm1(a), np.arcsin(a), np.arccos(a), np.arctan(a), np.sinh(a),
            np.cosh(a), np.tanh(a), np.arcsinh(a), np.arccosh(a), np.arctanh(a),
            np.arctan2(a, b), np.hypot(a, b), np.power(a, b))


def test_special_values_as_numpy():
    """NaN, infinities, zeros, subnormals and out-of-domain arguments in
    lanes beside ordinary ones: IEEE's answers, as NumPy gives them."""
    vals = np.array(SPECIALS * 8, dtype=np.float64)
    rng = np.random.default_rng(7)
    a = vals[rng.permutation(vals.size)]
    b = vals[rng.permutation(vals.size)]
    got = np_kernels(a, b)
    with np.errstate(all="ignore"):
        exp = np_kernels.py_func(a, b)
    names = ["sin", "cos", "tan", "exp", "log", "log2", "log10", "log1p", "expm1", "arcsin", "arccos",
             "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "arctan2", "hypot",
             "power"]
    for name, g, e in zip(names, got, exp):
        _within_ulps(g, e, (4, np.float64), name)
        zero = e == 0.0
        assert np.array_equal(np.signbit(g[zero]), np.signbit(e[zero])), f"{name}: sign of zero"


@needs_mvec
def test_the_loop_calls_the_vector_variants():
    a = np.linspace(0.0, 1.0, 64)
    out, exp = np.empty_like(a), np.empty_like(a)
    k_exp(a, out)
    k_exp.py_func(a, exp)
    _within_ulps(out, exp, (4, np.float64), "exp")
    assert re.search(r"_ZGV[bcde]N\d+v_exp\b", k_exp.inspect_asm(k_exp.signatures[0]))
    k_atan2(a, a, out)
    k_atan2.py_func(a, a, exp)
    _within_ulps(out, exp, (4, np.float64), "atan2")
    assert re.search(r"_ZGV[bcde]N\d+vv_atan2\b", k_atan2.inspect_asm(k_atan2.signatures[0]))


_CHILD = """
import math, numpy as np, hpcjit
@hpcjit.njit
def f(a, out):
    for i in range(a.size):
        out[i] = math.exp(a[i])
a = np.linspace(0.0, 1.0, 64); out = np.empty_like(a); f(a, out)
f.py_func(a, expect := np.empty_like(a))
assert np.allclose(out, expect, rtol=1e-15)
print("_ZGV" in f.inspect_asm(f.signatures[0]))
"""


@needs_mvec
@pytest.mark.parametrize("var", ["HPCJIT_DISABLE_VECTOR_MATH", "NUMBA_DISABLE_INTEL_SVML"])
def test_disabled_by_environment(var):
    env = dict(os.environ)
    env.pop("HPCJIT_DISABLE_VECTOR_MATH", None)
    env[var] = "1"
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@needs_mvec
def test_cache_keeps_the_two_apart(tmp_path):
    """An object compiled with vector math is not what a process that has
    turned it off reads back from the disk cache, and the other way round."""
    mod = tmp_path / "vm_cached.py"
    mod.write_text("import math, hpcjit\n"
                   "@hpcjit.njit(cache=True)\n"
                   "def kern(a, out):\n"
                   "    for i in range(a.size):\n"
                   "        out[i] = math.sin(a[i])\n")
    child = ("import sys, numpy as np; sys.path.insert(0, %r)\n"
             "import vm_cached as m\n"
             "a = np.linspace(0, 1, 64); o = np.empty_like(a); m.kern(a, o)\n"
             "e = np.empty_like(a); m.kern.py_func(a, e); assert np.allclose(o, e, rtol=1e-15)\n"
             ) % str(tmp_path)
    kinds = []
    for disable in ("", "1", "", "1"):
        env = dict(os.environ, HPCJIT_CACHE_DIR=str(tmp_path / "cache"), HPCJIT_DEBUG_COMPILE="1",
                   HPCJIT_DISABLE_VECTOR_MATH=disable)
        out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0, out.stderr
        kinds.append("hit" if "hpcjit: cache hit kern " in out.stderr
                     else "miss" if "hpcjit: compiled kern " in out.stderr else out.stderr)
    assert kinds == ["miss", "miss", "hit", "hit"], kinds
