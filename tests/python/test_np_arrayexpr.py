"""Array expressions (area arrexpr): operators and ufuncs on arrays with
broadcasting and NumPy's dtype promotion, fused into one loop nest with
one allocation; in-place updates; complex arrays."""
import numpy as np
import pytest

from hpcjit import njit, _core
from conftest import check, make_array, DTYPES_INT, DTYPES_FLOAT, LAYOUTS


@njit
def add(a, b):
    return a + b


@njit
def sub(a, b):
    return a - b


@njit
def mul(a, b):
    return a * b


@njit
def div(a, b):
    return a / b


@njit
def floordiv(a, b):
    return a // b


@njit
def mod(a, b):
    return a % b


@njit
def lt(a, b):
    return a < b


@njit
def eq(a, b):
    return a == b


@njit
def bitand(a, b):
    return a & b


@njit
def xor(a, b):
    return a ^ b


@njit
def fused(a, b, c):
    return a * b + c - np.sqrt(np.abs(a)) / (1.0 + b * b)


@njit
def neg(a):
    return -a


@njit
def inv(a):
    return ~a


@njit
def iadd(a, b):
    a += b
    return a


DT = [np.int32, np.int64, np.float32, np.float64]
SHAPES = [(0,), (7,), (2, 3, 4)]


@pytest.mark.parametrize("dt", DT + [np.complex128])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_arith_layouts(dt, layout, shape):
    a = make_array(dt, shape, layout)
    b = make_array(dt, shape, "C")
    for f in (add, sub, mul):
        check(f, a, b)
    check(div, a, b + (b == 0))


@pytest.mark.parametrize("da", [np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64, np.bool_])
@pytest.mark.parametrize("db", [np.int8, np.uint16, np.int32, np.float32, np.float64, np.bool_])
def test_promotion(da, db):
    a = make_array(da, (3, 4))
    b = make_array(db, (4,))
    if not (da == np.bool_ and db == np.bool_):
        r = check(add, a, b)
        assert r.dtype == (a + b).dtype
    check(mul, a, b)
    check(lt, a, b)
    check(eq, a, b)
    check(div, a, b)


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float64])
def test_floordiv_mod_zero(dt):
    a = make_array(dt, (10,))
    b = make_array(dt, (10,))
    b[::3] = 0
    check(floordiv, a, b)
    check(mod, a, b)
    check(div, a, b)


@pytest.mark.parametrize("dt", DTYPES_INT + [np.bool_])
def test_bitwise(dt):
    a = make_array(dt, (3, 5))
    b = make_array(dt, (5,), "strided")
    check(bitand, a, b)
    check(xor, a, b)
    check(inv, a)


@pytest.mark.parametrize("dt", DT + [np.complex128])
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3, 4)])
def test_unary(dt, shape):
    a = make_array(dt, shape)
    check(neg, a)


def test_broadcast():
    check(add, make_array(np.float64, (3, 1, 4)), make_array(np.float64, (5, 1)))
    check(add, make_array(np.float64, (2, 3), "F"), make_array(np.float64, (3,), "reversed"))
    check(add, make_array(np.float64, (4,)), 2.5)
    check(add, 3, make_array(np.int64, (2, 2)))
    e = check(add, np.ones(3), np.ones(4))
    assert isinstance(e, ValueError)
    assert "operands could not be broadcast together with shapes (3,) (4,)" in str(e)


def test_scalar_dtypes_follow_numba():
    # array (op) scalar: a scalar of a lower kind does not widen the array
    assert add(np.ones(3, np.float32), 1).dtype == np.float32
    assert add(np.ones(3, np.float32), 1.0).dtype == np.float64
    assert add(np.ones(3, np.int32), 1).dtype == np.int64
    assert add(np.ones(3, np.int8), np.ones(3, np.int8)).dtype == np.int8
    assert div(np.ones(3, np.int32), np.ones(3, np.int32)).dtype == np.float64


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SHAPES)
def test_fused(layout, shape):
    a, b, c = (make_array(np.float64, shape, layout) for _ in range(3))
    check(fused, a, b, c)
    check(fused, make_array(np.float32, shape, layout), b, make_array(np.int32, shape))


def test_fused_one_allocation():
    a, b, c = (np.random.rand(1000) for _ in range(3))
    fused(a, b, c)
    a0, f0 = _core.memstats()
    r = fused(a, b, c)
    a1, f1 = _core.memstats()
    assert a1 - a0 == 1  # the result only: no temporaries
    del r
    a2, f2 = _core.memstats()
    assert a2 - f2 == a0 - f0  # all freed


@pytest.mark.parametrize("layout", LAYOUTS)
def test_inplace(layout):
    a = make_array(np.float64, (3, 4), layout)
    a0, f0 = _core.memstats()
    check(iadd, a, make_array(np.float64, (4,)))
    check(iadd, a, 2.0)
    check(iadd, make_array(np.int64, (3, 4), layout), make_array(np.int32, (3, 1)))
    a1, f1 = _core.memstats()
    assert a1 - f1 == a0 - f0
    assert isinstance(check(iadd, np.ones(3), np.ones(4)), ValueError)


U1 = ["sqrt", "exp", "log", "log1p", "expm1", "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos",
      "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc", "rint",
      "sign", "negative", "square", "abs", "absolute", "isnan", "isinf", "isfinite", "logical_not",
      "exp2", "deg2rad", "rad2deg", "fabs", "cbrt", "positive", "reciprocal", "spacing"]
U2 = ["arctan2", "hypot", "minimum", "maximum", "fmin", "fmax", "copysign", "logical_and", "logical_or",
      "logical_xor", "floor_divide", "remainder", "power", "add", "subtract", "multiply", "divide",
      "greater", "less_equal", "equal", "not_equal", "logaddexp", "logaddexp2", "nextafter"]


def _ufunc_module():
    # one wrapper per ufunc, written to a real file (hpcjit reads the source)
    import importlib.util
    import tempfile
    src = ["import numpy as np", "from hpcjit import njit"]
    for n in U1:
        src += ["@njit", f"def u1_{n}(a):", f"    return np.{n}(a)"]
    for n in U2:
        src += ["@njit", f"def u2_{n}(a, b):", f"    return np.{n}(a, b)"]
    path = tempfile.mkdtemp() + "/hj_ufuncs.py"
    with open(path, "w") as fh:
        fh.write("\n".join(src) + "\n")
    spec = importlib.util.spec_from_file_location("hj_ufuncs", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


UF = _ufunc_module()


def make_u1(name):
    return getattr(UF, "u1_" + name)


def make_u2(name):
    return getattr(UF, "u2_" + name)


@pytest.mark.parametrize("name", U1)
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_ufunc1(name, dt):
    f = make_u1(name)
    a = make_array(dt, (2, 3, 4), "strided")
    if name in ("arcsin", "arccos", "arctanh"):
        a = a / 11
    if name == "arccosh":
        a = np.abs(a) + 1
    if name == "reciprocal":
        a = a + (a == 0)
    rtol = 1e-5 if dt == np.float32 else 1e-12
    check(f, a, rtol=rtol)
    check(f, make_array(dt, (7,)), rtol=rtol)
    check(f, dt(0.5), rtol=rtol)


@pytest.mark.parametrize("name", ["abs", "sign", "negative", "square", "floor", "isnan", "isfinite",
                                  "logical_not", "positive"])
@pytest.mark.parametrize("dt", [np.int32, np.int64])
def test_ufunc1_int(name, dt):
    check(make_u1(name), make_array(dt, (3, 4), "F"))


@pytest.mark.parametrize("name", U2)
@pytest.mark.parametrize("dt", [np.float64, np.int64])
def test_ufunc2(name, dt):
    if dt == np.int64 and name in ("arctan2", "hypot", "copysign", "fmin", "fmax", "logaddexp",
                                   "logaddexp2", "nextafter"):
        return
    f = make_u2(name)
    a = make_array(dt, (3, 4), "reversed")
    b = make_array(dt, (4,))
    if name == "power" and dt == np.int64:
        b = np.abs(b)
    check(f, a, b)
    c = make_array(dt, (5,))
    check(f, make_array(dt, (5,)), np.abs(c) if name == "power" else c)


def test_spacing_nextafter_logaddexp2_special_values():
    x = np.array([0.0, -0.0, 1.0, -1.0, 1e308, -5e-324, np.inf, -np.inf, np.nan])
    check(make_u1("spacing"), x)
    check(make_u1("spacing"), x.astype(np.float32))
    y = np.array([1.0, -1.0, 0.0, 2.0, np.inf, 0.0, 0.0, np.nan, 1.0])
    check(make_u2("nextafter"), x, y)
    check(make_u2("logaddexp2"), x, y)
    check(make_u2("logaddexp2"), 3.0, 3.0)


def test_minmax_nan():
    a = np.array([1.0, np.nan, 3.0, np.nan])
    b = np.array([np.nan, 2.0, 1.0, np.nan])
    for name in ("minimum", "maximum", "fmin", "fmax"):
        check(make_u2(name), a, b)


@njit
def where3(c, a, b):
    return np.where(c > 0, a, b)


@njit
def clip(a, lo, hi):
    return np.clip(a, lo, hi)


def test_where_clip():
    c = make_array(np.float64, (3, 4))
    check(where3, c, make_array(np.float64, (3, 4), "F"), make_array(np.float64, (4,)))
    check(where3, c, make_array(np.int64, (3, 4)), make_array(np.int64, (3, 4)))
    check(clip, make_array(np.float64, (3, 4)), -2.0, 3.0)
    check(clip, make_array(np.int64, (10,)), make_array(np.int64, (10,)), 5)


@njit
def cplx(z):
    return np.abs(z), np.conj(z), np.conjugate(z), np.angle(z), z * z + 1.0


def test_complex():
    z = make_array(np.complex128, (3, 4), "strided")
    check(cplx, z)
    check(neg, z)
    check(eq, z, z)


def test_errors():
    import hpcjit

    @njit
    def bad_sub(a):
        return a - a

    with pytest.raises(hpcjit.TypingError):
        bad_sub(np.ones(3, np.bool_))

    @njit
    def bad_cast(a):
        a += 1.5
        return a

    with pytest.raises(hpcjit.TypingError):
        bad_cast(np.ones(3, np.int64))


@njit
def store_rows(a, b):
    a[1:-1, :] = b[None, :]
    return a


@njit
def stencil(a):
    a[1:-1] = (a[:-2] + a[2:]) * 0.5 - a[1:-1]
    return a


@njit
def store_all(out, x, y):
    out[...] = x * y + 1


@njit
def aug_slice(a):
    a[1:] += a[:-1]
    return a


@njit
def aug_strided(a, b):
    a[::2] *= b
    return a


@pytest.mark.parametrize("layout", LAYOUTS)
def test_store_views(layout):
    a0, f0 = _core.memstats()
    check(store_rows, make_array(np.float64, (4, 3), layout), make_array(np.float64, (3,)))
    check(store_rows, make_array(np.int32, (4, 3), layout), make_array(np.int64, (3,)))
    check(stencil, make_array(np.float64, (9,), layout))
    check(store_all, make_array(np.float64, (2, 3), layout), make_array(np.float64, (2, 3)),
          make_array(np.float64, (3,)))
    check(aug_slice, make_array(np.float64, (7,), layout))
    check(aug_strided, make_array(np.float64, (6,), layout), make_array(np.float64, (3,)))
    a1, f1 = _core.memstats()
    assert a1 - f1 == a0 - f0
    assert isinstance(check(store_rows, np.zeros((4, 3)), np.ones(4)), ValueError)


def test_store_fused_no_allocation():
    out, x, y = np.zeros((50, 40)), np.ones((50, 40)), np.arange(40.0)
    store_all(out, x, y)
    a0, f0 = _core.memstats()
    store_all(out, x, y)
    assert _core.memstats()[0] == a0  # written straight into out


@njit
def parts(z):
    return z.real, z.imag, z.real - z.imag


@njit
def set_imag(z, v):
    z.imag[...] = v
    return z


@pytest.mark.parametrize("dt", [np.complex128, np.complex64, np.float64, np.int32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_real_imag(dt, layout):
    a0, f0 = _core.memstats()
    check(parts, make_array(dt, (3, 4), layout), rtol=1e-6)
    a1, f1 = _core.memstats()
    assert a1 - f1 == a0 - f0


def test_real_imag_views_write_through():
    z = make_array(np.complex128, (5,))
    check(set_imag, z, make_array(np.float64, (5,)))


# ---- np.round / np.around / a.round (NumPy: rint(x * 10**d) / 10**d) ----

@njit
def rnd0(a):
    return np.round(a)


@njit
def rnd(a, d):
    return np.round(a, d), np.around(a, decimals=d), a.round(d)


@njit
def rnd_scalar(x, d):
    return np.round(x, d), np.around(x), np.round(x, decimals=-1)


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int32, np.int8, np.uint8,
                                np.complex128, np.complex64])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3, 4)])
def test_round(dt, layout, shape):
    if shape == () and layout != "C":
        return
    a = make_array(dt, shape, layout) if shape != () else np.array(dt(7.25))
    if np.dtype(dt).kind in "fc":
        a = a * 37.123
    rtol = 1e-6 if dt in (np.float32, np.complex64) else 1e-12
    if shape == ():  # NumPy gives a scalar for a 0-d array, hpcjit (as Numba) a 0-d array
        np.testing.assert_allclose(np.asarray(rnd0(a)), np.round(a), rtol=rtol)
        return
    check(rnd0, a, rtol=rtol)
    for d in (0, 1, 2, 3, -1, -2):
        check(rnd, a, d, rtol=rtol)


@pytest.mark.numba_skip(reason="NumPy's wrap of uint8 and its huge-decimals results")
def test_round_scalars_and_halfway():
    for x in (2.5, 3.5, -2.5, 2.675, 1234.5678, -0.4, 1e300, float("nan"), float("inf")):
        for d in (0, 2, -1, 3):
            check(rnd_scalar, x, d)
        check(rnd_scalar, np.float32(x), 1, rtol=1e-6)
    for k in (15, 25, -15, 149, 0, 7):
        check(rnd_scalar, k, -1)
        check(rnd_scalar, np.int32(k), 0)
    check(rnd_scalar, 2.5 - 3.5j, 0)
    check(rnd, np.array([1.123456789e300, 1.5, -0.5]), 300)
    check(rnd, np.array([250, 255, 14], dtype=np.uint8), -1)
