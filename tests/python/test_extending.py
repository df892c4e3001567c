"""hpcjit.extending: overload, overload_method, overload_attribute and
@intrinsic, written as libraries write them; every compiled function is
checked against its py_func (which calls the plain Python function)."""
import math

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from conftest import check  # noqa: E402

SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    from numba.core import errors, types
    from numba.extending import intrinsic, overload, overload_attribute, overload_method
else:
    from hpcjit import errors, types
    from hpcjit.extending import intrinsic, overload, overload_attribute, overload_method
njit = hpcjit.njit


# ---- a library function with per-type implementations ----------------------------

def clip_unit(x):
    """The pure Python version (what py_func calls)."""
    if isinstance(x, np.ndarray):
        return np.minimum(np.maximum(x, 0.0), 1.0)
    return min(max(x, 0.0), 1.0)


@overload(clip_unit)
def _ol_clip_unit(x):
    if isinstance(x, (types.Float, types.Integer)):
        def impl(x):
            return min(max(x, 0.0), 1.0)
        return impl
    if isinstance(x, types.Array) and isinstance(x.dtype, types.Float):
        def impl(x):
            out = np.empty_like(x)
            flat_in = x.ravel()
            flat_out = out.ravel()
            for i in range(flat_in.size):
                flat_out[i] = min(max(flat_in[i], 0.0), 1.0)
            return out
        return impl
    return None


@njit
def use_clip(a, s):
    return clip_unit(a), clip_unit(s), clip_unit(3)


def test_overload_scalars_and_arrays():
    check(use_clip, np.array([-1.0, 0.25, 7.0]), 0.5)
    check(use_clip, np.linspace(-2.0, 2.0, 12).reshape(3, 4), -4.0)


@njit
def clip_tuple(t):
    return clip_unit(t)


def test_overload_declined_is_a_located_typing_error():
    with pytest.raises(errors.TypingError) as ei:
        clip_tuple((1, 2))
    if not SHIM:
        assert "clip_unit" in str(ei.value) and "test_extending.py" in str(ei.value)


# ---- keyword arguments, defaults and jit_options --------------------------------

def scaled_norm(v, scale=1.0, squared=False):
    s = 0.0
    for x in v:
        s += x * x
    s *= scale
    return s if squared else math.sqrt(s)


@overload(scaled_norm, jit_options={"fastmath": False})
def _ol_scaled_norm(v, scale=1.0, squared=False):
    if not (isinstance(v, types.Array) and v.ndim == 1):
        return None

    def impl(v, scale=1.0, squared=False):
        s = 0.0
        for x in v:
            s += x * x
        s *= scale
        return s if squared else math.sqrt(s)
    return impl


@njit
def norms(v):
    return scaled_norm(v), scaled_norm(v, 2.0), scaled_norm(v, squared=True), \
        scaled_norm(v, scale=0.5, squared=True)


def test_overload_keywords_and_defaults():
    check(norms, np.array([3.0, 4.0, 12.0]))


# ---- the types a typing function sees -----------------------------------------------

def describe(x):
    return 0


SEEN = []


@overload(describe)
def _ol_describe(x):
    SEEN.append(x)
    if isinstance(x, types.Array):
        code = 100 * x.ndim + (1 if x.layout == "C" else 2 if x.layout == "F" else 3)
    elif isinstance(x, types.Boolean):
        code = 7
    elif isinstance(x, types.Integer):
        code = 1000 + x.bitwidth
    elif isinstance(x, types.Float):
        code = 2000 + x.bitwidth
    elif isinstance(x, types.BaseTuple):
        code = 3000 + len(x)
    elif isinstance(x, types.NoneType):
        code = 4000
    else:
        return None

    def impl(x):
        return code
    return impl


@njit
def describe_all(a, b, c):
    return (describe(a), describe(b), describe(c), describe(a[0]), describe(True),
            describe(np.float32(1.0)), describe((1, 2.0)), describe(None), describe(a.T))


def test_overload_argument_types():
    a = np.zeros((3, 4))
    got = describe_all(a, np.zeros((4, 4))[::2, ::2], np.int32(3))
    assert got == (201, 203, 1032, 101, 7, 2032, 3002, 4000, 202)
    assert all(isinstance(t, types.Type) for t in SEEN)


# ---- prefer_literal -------------------------------------------------------------------

def power_of(x, n):
    return x ** n


@overload(power_of, prefer_literal=True)
def _ol_power_of(x, n):
    if isinstance(n, types.IntegerLiteral):
        k = n.literal_value
        if k == 2:
            def impl(x, n):
                return x * x
            return impl

    def impl(x, n):
        return x ** n
    return impl


@njit
def powers(x, m):
    return power_of(x, 2), power_of(x, 3), power_of(x, m)


def test_overload_prefer_literal():
    check(powers, 1.5, 4)


# ---- overloading a NumPy function hpcjit lacks ---------------------------------------

def _np_fix_py(x):
    return np.fix(x)


@overload(np.fix)
def _ol_np_fix(x):
    if isinstance(x, types.Float):
        def impl(x):
            return np.floor(x) if x >= 0 else np.ceil(x)
        return impl


@njit
def fix_scalars(x, y):
    return np.fix(x), np.fix(y)


def test_overload_numpy_function():
    check(fix_scalars, 2.7, -2.7)


# ---- methods and attributes -----------------------------------------------------------

@overload_method(types.Array, "sumsq")
def _ol_sumsq(a, start=0.0):
    if isinstance(a.dtype, (types.Float, types.Integer)):
        def impl(a, start=0.0):
            s = start
            for x in a.ravel():
                s += x * x
            return s
        return impl


@overload_attribute(types.Array, "ncols")
def _ol_ncols(a):
    if a.ndim == 2:
        def impl(a):
            return a.shape[1]
        return impl


@njit
def methods(a):
    return a.sumsq(), a.sumsq(1.0), a.sumsq(start=2.0), a.ncols


def test_overload_method_and_attribute():
    a = np.arange(12.0).reshape(3, 4)
    got = methods(a)
    exp = ((a * a).sum(), (a * a).sum() + 1.0, (a * a).sum() + 2.0, 4)
    assert got == exp


@njit
def attr_of_1d(a):
    return a.ncols


def test_overload_attribute_declined():
    with pytest.raises(errors.TypingError):
        attr_of_1d(np.zeros(3))


# ---- overloads calling overloads and jitted functions ----------------------------------

@njit
def _helper(x):
    return 2 * x


def double_clip(x):
    return 2 * clip_unit(x)


@overload(double_clip)
def _ol_double_clip(x):
    def impl(x):
        return _helper(clip_unit(x))
    return impl


@njit
def chained(v):
    s = 0.0
    for x in v:
        s += double_clip(x)
    return s


def test_overload_chains():
    check(chained, np.array([-1.0, 0.3, 0.9, 5.0]))


# ---- intrinsic --------------------------------------------------------------------------

@intrinsic
def _add_one(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        return builder.add(args[0], context.get_constant(signature.return_type, 1))
    return sig, codegen


@njit
def use_intrinsic(x):
    return _add_one(x)


# An intrinsic cannot run in the interpreter (in Numba neither), so py_func
# cannot check these: each is compared with the same computation written in
# Python, and under the suite's Numba mode the same code runs on Numba.

def test_intrinsic_llvmlite_codegen():
    for x in (3, -7, 2**40):
        assert use_intrinsic(x) == x + 1


@intrinsic
def _fma_like(typingctx, x, y, z):
    if not all(isinstance(t, (types.Float, types.Integer)) for t in (x, y, z)):
        return None
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        a, b, c = args
        return builder.fadd(builder.fmul(a, b), c)
    return sig, codegen


@intrinsic
def _popcount(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)], fnty)
        return builder.call(fn, [args[0]])
    return sig, codegen


@intrinsic
def _is_positive(typingctx, x):
    sig = types.boolean(types.float64)

    def codegen(context, builder, signature, args):
        return builder.fcmp_ordered(">", args[0], context.get_constant(types.float64, 0.0))
    return sig, codegen


@njit
def intrinsic_loop(a):
    s = 0.0
    bits = 0
    for i in range(a.shape[0]):
        if _is_positive(a[i]):
            s = _fma_like(a[i], 2, s)   # int 2 converted as the signature says
            bits += _popcount(i)
    return s, bits


def test_intrinsic_in_a_loop_with_llvm_intrinsics_and_casts():
    a = np.array([1.5, -2.0, 3.25, 0.0, 7.0, float("nan")])
    s, bits = 0.0, 0
    for i, v in enumerate(a):
        if v > 0:
            s, bits = v * 2 + s, bits + bin(i).count("1")
    assert intrinsic_loop(a) == (s, bits)


@intrinsic
def _array_intrinsic(typingctx, a):
    sig = types.float64(a)

    def codegen(context, builder, signature, args):
        return context.get_constant(types.float64, 0.0)
    return sig, codegen


@njit
def use_array_intrinsic(a):
    return _array_intrinsic(a)


@pytest.mark.numba_skip("hpcjit's limit: an array in an intrinsic's signature is not portable")
def test_intrinsic_with_array_is_a_located_unsupported_error():
    with pytest.raises(errors.UnsupportedError) as ei:
        use_array_intrinsic(np.zeros(3))
    msg = str(ei.value)
    assert "@intrinsic _array_intrinsic" in msg and "not portable" in msg
    assert "test_extending.py" in msg and "^" in msg


@intrinsic
def _uses_numba_context(typingctx, x):
    sig = types.float64(types.float64)

    def codegen(context, builder, signature, args):
        return context.compile_internal(builder, lambda v: v, signature, args)
    return sig, codegen


@njit
def use_numba_context(x):
    return _uses_numba_context(x)


@pytest.mark.numba_skip("hpcjit's limit: Numba's lowering context services are not portable")
def test_intrinsic_with_numba_context_service_is_located():
    with pytest.raises(errors.UnsupportedError) as ei:
        use_numba_context(1.0)
    msg = str(ei.value)
    assert "context.compile_internal" in msg and "test_extending.py" in msg


# ---- literal strings and literal_unroll'd constants reach overloads as literals ------------

def _fruit(x):
    pass


@overload(_fruit)
def _ol_fruit(li):
    if isinstance(li, types.StringLiteral):
        value = li.literal_value
        if value == "apple":
            return lambda li: 1
        if value == "orange":
            return lambda li: 2
        if value == "banana":
            return lambda li: 3
    elif isinstance(li, types.IntegerLiteral) and li.literal_value == 0xca11ab1e:
        value = li.literal_value
        return lambda li: 0x5ca1ab1e + value


_FRUITS = ("orange", "banana", "apple")


def test_string_literal_overloads_and_literal_unroll():
    """Numba's literal_unroll example (reference/pysupported.rst): each
    unrolled constant of a tuple display or a global tuple is a
    StringLiteral / IntegerLiteral for the overload."""
    from hpcjit import literal_unroll

    @njit
    def display():
        acc = 0
        for t in literal_unroll(('apple', 'orange', 'banana', 3390155550)):
            acc += _fruit(t)
        return acc

    @njit
    def global_tuple():
        acc = 0
        for t in literal_unroll(_FRUITS):
            acc = acc * 10 + _fruit(t)
        return acc

    @njit
    def direct():
        return _fruit("orange") * 10 + _fruit("apple")

    assert display() == 1 + 2 + 3 + 0x5ca1ab1e + 0xca11ab1e
    assert global_tuple() == 231
    assert direct() == 21


# ---- a failed resolution for plain types leaves the literal ones open ----

def _fixed_len(a, n):
    return a[:n]


@overload(_fixed_len, prefer_literal=True)
def _ol_fixed_len(a, n):
    if not isinstance(n, types.IntegerLiteral):
        raise hpcjit.TypingError("n must be a constant")
    k = n.literal_value
    return lambda a, n: a[:k].sum()


def test_literal_key_after_plain_failure():
    def var_n(a, n):
        return _fixed_len(a, n)

    def const_n(a):
        return _fixed_len(a, 3)

    a = np.arange(6.0)
    with pytest.raises(hpcjit.TypingError, match="constant"):
        njit(var_n)(a, 2)
    # the same argument types but a literal: resolved again, not the failure above
    assert njit(const_n)(a) == a[:3].sum()


# ---- float/int/bool/complex passed to an overload are NumPy types ----

def _zeros_of(n, dtype):
    return np.zeros(n, dtype)


@overload(_zeros_of)
def _ol_zeros_of(n, dtype):
    return lambda n, dtype: np.zeros(n, dtype)


def _check_zeros(f):
    got = njit(f)(3)
    want = f(3)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_float_as_dtype_argument():
    def f(n):
        return (_zeros_of(n, float),)

    _check_zeros(f)


@pytest.mark.numba_skip("Numba: no implementation for Function(<class 'int'>)")
def test_builtin_types_as_dtype_arguments():
    def f(n):
        return _zeros_of(n, int), _zeros_of(n, dtype=bool), _zeros_of(n, complex)

    _check_zeros(f)


# ---- types.NumberClass: np.float64 passed as a value (hpcjit: one DType) ----

def _filled(n, dt):
    return np.full(n, 2, dt)


@overload(_filled)
def _ol_filled(n, dt):
    if isinstance(dt, types.NumberClass):  # Numba's type of np.float32 itself
        inst = dt.instance_type
        assert isinstance(inst, types.Number)
        return lambda n, dt: np.full(n, 2, dt)
    return None


def test_number_class_argument():
    def f(n):
        return _filled(n, np.float32), _filled(n, np.int16)

    got = njit(f)(3)
    want = (np.full(3, 2, np.float32), np.full(3, 2, np.int16))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


# ---- an @njit function given to an overload (types.Dispatcher) ----

def _trapezoid(f, a, b, n):
    h = (b - a) / n
    s = 0.5 * (f(a) + f(b))
    for i in range(1, n):
        s += f(a + i * h)
    return s * h


@overload(_trapezoid)
def _ol_trapezoid(f, a, b, n):
    if not isinstance(f, types.Dispatcher):
        raise errors.TypingError("_trapezoid() takes an @njit function")
    assert callable(f.dispatcher.py_func)

    def impl(f, a, b, n):
        h = (b - a) / n
        s = 0.5 * (f(a) + f(b))
        for i in range(1, n):
            s += f(a + i * h)
        return s * h
    return impl


@njit
def _square(x):
    return x * x


@njit
def _cube(x):
    return x * x * x


def test_function_given_to_overload():
    def f(n):
        return _trapezoid(_square, 0.0, 1.0, n), _trapezoid(_cube, 0.0, 2.0, n)

    def py(n):
        return (_trapezoid(_square.py_func, 0.0, 1.0, n), _trapezoid(_cube.py_func, 0.0, 2.0, n))

    assert njit(f)(100) == py(100)


def test_non_function_refused_by_overload():
    def f(n):
        return _trapezoid(3.0, 0.0, 1.0, n)

    with pytest.raises(errors.TypingError, match="takes an @njit function"):
        njit(f)(10)
