"""Idioms of libraries built on Numba, each found running one unmodified
through the drop-in (issue 12; benchmarks/libraries/): `locals={...}`,
Numba's type names called as functions on the top-level module, a
recursive function compiled at decoration (its name not bound yet), bool
fields of jitclasses and structrefs, `overloads[sig].entry_point`,
`cgutils.get_or_insert_function` in an @intrinsic, and stumpy's
`numba.config.NUMBA_NUM_THREADS`, `if a.ndim == 1:` branches, fastmath flag
sets and `recompile()`; QuantEcon's gufunc with no outputs, `a.ctypes`
passed to a C function and `numba.np.linalg._LAPACK().numba_xgesv`;
numba-stats' `type(x)(1)`, scipy.special called through Wrapper Address
Protocol globals, `optional(uint64)` parameters and ints given to
float32/float64 signatures (float64 is chosen, as Numba).  Every compiled function is checked against its
py_func where the two can agree."""
import ctypes
import ctypes.util
import math

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_same, check

if AGAINST_NUMBA:
    import numba as nb
    from numba.core import types
    from numba.experimental import jitclass, structref
    from numba.extending import intrinsic, overload
    from numba.core import cgutils
    from numba.np.linalg import _LAPACK
else:
    nb = hpcjit
    from hpcjit import types
    from hpcjit.experimental import jitclass, structref
    from hpcjit.extending import intrinsic, overload
    from hpcjit import cgutils
    from hpcjit._nplinalg import _LAPACK  # numba.np.linalg under the drop-in


# ---- locals={name: type} (pynndescent's distances: float32 accumulators) -------

@njit(locals={"result": types.float32, "diff": types.float32, "dim": types.intp})
def squared_euclidean(x, y):
    result = 0.0
    dim = x.shape[0]
    for i in range(dim):
        diff = x[i] - y[i]
        result += diff * diff
    return result


@njit(locals={"h": types.uint32, "i": types.uint32})
def hash_u32(a):
    h = 2166136261
    for i in range(a.shape[0]):
        h = (h ^ a[i]) * 16777619  # wraps to 32 bits at each store
    return h, i


@njit(locals={"n": types.int32})
def rebound(x):
    n = x * 2       # every version of the name keeps the declared type
    if n > 4:
        n = n + 0.75  # a float converted (truncated) to int32, as Numba does
    return n


@njit(locals={"best": types.float32})
def tuple_and_loop(a):
    best, at = np.inf, -1
    for i in range(a.shape[0]):
        if a[i] < best:
            best, at = a[i], i
    return best, at


def test_locals_float32_accumulator():
    x = np.linspace(0, 1, 37)
    y = np.linspace(1, 3, 37)
    got = check(squared_euclidean, x, y, rtol=1e-6)
    assert isinstance(got, float)
    assert np.float32(got) == got  # computed and returned in float32
    assert str(squared_euclidean.nopython_signatures[0].return_type) == "float32"


def test_locals_unsigned_wraps():
    a = np.arange(1, 50, dtype=np.int64)
    got, last = hash_u32(a)
    h = 2166136261
    for v in a:
        h = ((h ^ int(v)) * 16777619) & 0xFFFFFFFF
    assert (got, last) == (h, 48)
    sig = hash_u32.nopython_signatures[0].return_type
    assert [str(t) for t in sig] == ["uint32", "uint32"]


def test_locals_every_version_converts():
    assert check(rebound, 1) == 2
    assert rebound(3) == 6 and rebound.py_func(3) == 6.75
    assert str(rebound.nopython_signatures[-1].return_type) == "int32"


def test_locals_in_tuple_assignment():
    a = np.array([3.5, 1.25, 2.0, 0.5, 7.0])
    assert check(tuple_and_loop, a) == (0.5, 3)


@pytest.mark.numba_skip("hpcjit's own message for a type hpcjit cannot compile")
def test_locals_refused_type_named():
    with pytest.raises(hpcjit.UnsupportedError, match=r"locals=\.\.\.\): x="):
        njit(locals={"x": object()})(lambda v: v)


# ---- numba.uint8(...) on the top-level module (pynndescent's utils) -------------

@njit
def bit_mask(candidate):
    return nb.uint8(1 << (candidate & 7)), nb.float32(candidate) / 3


def test_module_level_type_as_function():
    got = check(bit_mask, 13, rtol=1e-6)
    assert got[0] == 32


# ---- a recursive function compiled at decoration -------------------------------

@njit("int64(int64[::1], int64, int64)")
def tree_depth(children, node, depth):
    if children[node] < 0:
        return depth
    return max(tree_depth(children, children[node], depth + 1), depth)


def test_recursive_with_signature_at_decoration():
    children = np.array([2, -1, 3, 1], dtype=np.int64)
    assert check(tree_depth, children, 0, 0) == 3


# ---- bool fields of jitclasses and structrefs ---------------------------------

@jitclass([("flag", types.boolean), ("k", types.int64)])
class Flagged:
    def __init__(self, flag, k):
        self.flag = flag
        self.k = k


@njit
def flagged_value(flag, k):
    f = Flagged(flag, k)
    return f.k * 2 if f.flag else -f.k


def test_jitclass_bool_field():
    f = Flagged(True, 3)
    assert f.flag is True and f.k == 3
    assert flagged_value(True, 3) == 6 and flagged_value(False, 3) == -3


@structref.register
class IndexType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Index(structref.StructRefProxy):
    pass


structref.define_proxy(Index, IndexType, ["data", "normalize", "k"])


@njit
def new_index(data, normalize, k):
    return Index(data, normalize, k)


@njit
def index_score(index, i):
    v = index.data[i] * index.k
    return -v if index.normalize else v


def test_structref_bool_field_and_entry_point():
    data = np.arange(5.0, dtype=np.float32)
    index = new_index(data, True, np.int64(3))
    # (a structref proxy has no Python attributes of its own: py_func cannot run)
    assert index_score(index, 2) == -6.0
    assert index_score(new_index(data, False, np.int64(2)), 2) == 4.0
    # pynndescent: compile one exact signature, then call its entry point
    sig = (nb.typeof(index), types.int64)
    index_score.compile(sig)
    entry = index_score.overloads[sig].entry_point
    assert entry(index, 4) == -12.0


# ---- cgutils.get_or_insert_function in an @intrinsic ---------------------------

@intrinsic
def popcnt_u8(typingctx, val):
    sig = types.uint8(types.uint8)

    def codegen(context, builder, sig, args):
        from llvmlite import ir
        [v] = args
        fnty = ir.FunctionType(v.type, [v.type])
        ctpop = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i8")
        return builder.call(ctpop, [v])

    return sig, codegen


@njit
def popcount_sum(a):
    s = 0
    for i in range(a.shape[0]):
        s += popcnt_u8(a[i])
    return s


def test_intrinsic_declares_llvm_intrinsic():
    a = np.arange(256, dtype=np.uint8)
    assert popcount_sum(a) == sum(bin(v).count("1") for v in range(256))


# ---- pow() of a float64 and a float32 (pynndescent's distance corrections) ------

@njit
def pow_mixed(x, d):
    return 1.0 - pow(2.0, -d), pow(x, d), pow(d, 2)


def test_pow_builtin_mixed_float_widths():
    check(pow_mixed, 1.5, np.float32(3.0), rtol=1e-6)  # NumPy 2 keeps float32 here
    check(pow_mixed, 2.0, np.float32(-0.5), rtol=1e-6)


# ---- comparing functions (pynndescent: `if dist == alternative_dot:`) ----------

@njit
def plus_one(x):
    return x + 1.0


@njit
def twice(x):
    return x * 2.0


def make_search(dist):
    @njit
    def search(x):
        if dist == twice:  # a different function: a constant False, as Numba's
            return -dist(x)
        return dist(x)
    return search


@njit
def pick(c, x):
    f = plus_one if c else twice  # one of two: compared by what it holds
    return f == plus_one, f != twice, f(x)


def test_function_equality_with_another_function():
    s = make_search(plus_one)
    assert check(s, 3.0) == 4.0


@pytest.mark.numba_skip("Numba has no == for two values of one function type, nor for a choice of functions")
def test_function_equality_same_and_chosen():
    s = make_search(twice)
    assert check(s, 3.0) == -6.0
    assert check(pick, True, 1.0) == (True, True, 2.0)
    assert check(pick, False, 1.0) == (False, False, 2.0)


# ---- f(x, *t): a tuple's items as arguments (UMAP's output_metric(x, y, *kwds)) --

@njit
def weighted(x, y, p, q):
    return x * p + y * q


@njit
def plus(x, y):
    return x + y


@njit
def star_variable(t, x):
    return weighted(x, *t)


@njit
def star_empty_and_display(kwds, metric, x):
    return metric(x, 2.0, *kwds), weighted(*(x, 1.0), *(0.5, 0.25))


def test_star_arguments_from_tuples():
    assert check(star_variable, (1.0, 2.0, 3.0), 4.0) == 11.0
    assert check(star_variable, (1, 2.5, 3), 4.0) == 13.0
    assert check(star_empty_and_display, (), plus, 1.5) == (3.5, 1.0)


@pytest.mark.numba_skip("hpcjit's own message")
def test_star_argument_not_a_tuple_refused():
    @njit
    def bad(a):
        return plus(*a)
    with pytest.raises(hpcjit.UnsupportedError, match="supported for tuples, not array"):
        bad(np.zeros(2))


# ---- an array in a global tuple (pynndescent: `dist_args = (sigma,)`) ------------

SIGMA_ARGS = (np.array([1.0, 2.0, 4.0]),)


@njit
def standardised(x, y, sigma):
    return np.sum((x - y) ** 2 / sigma)


@njit
def partial_dist(x, y):
    return standardised(x, y, *SIGMA_ARGS)


@njit
def tuple_array_items(x):
    return SIGMA_ARGS[0][1] + x, len(SIGMA_ARGS), SIGMA_ARGS[0].sum()


def test_array_in_global_tuple():
    x, y = np.ones(3), np.zeros(3)
    assert check(partial_dist, x, y) == 1.75
    assert check(tuple_array_items, 1.0) == (3.0, 1, 7.0)


# ---- pickling a second dispatcher of one function (pynndescent's NNDescent) ------

def test_pickle_second_dispatcher_of_a_function():
    import pickle
    pytest.importorskip("cloudpickle")
    fast = njit(fastmath=True)(standardised.py_func)  # not what the module names
    x, y = np.ones(3), np.zeros(3)
    again = pickle.loads(pickle.dumps(fast))
    assert again(x, y, SIGMA_ARGS[0]) == fast(x, y, SIGMA_ARGS[0]) == 1.75
    assert pickle.loads(pickle.dumps(standardised)) is standardised  # by reference


# ---- a call of a function with an explicit signature uses it (UMAP's RNG) --------

@njit("i4(i8[:])")
def tau_like(state):
    state[0] = (state[0] * 1103515245 + 12345) & 0xFFFFFFFF
    return state[0]  # int64 truncated to int32: negative half the time


@njit
def draws(state, n, nv):
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = tau_like(state) % nv  # the int32 sign-extends, as Numba's
    return out


@njit("f8(f8, i4)")
def scaled(x, k):
    return x * k


@njit
def call_converted(x, k):
    return scaled(x, k)  # int64 k converts to the signature's int32


def test_call_uses_explicit_signature():
    state = np.array([987654321], dtype=np.int64)
    got = draws(state.copy(), 50, 1000)
    s = int(state[0])
    want = []
    for _ in range(50):
        s = (s * 1103515245 + 12345) & 0xFFFFFFFF
        want.append((s - (1 << 32) if s >= (1 << 31) else s) % 1000)
    assert got.tolist() == want
    assert check(call_converted, 1.5, 3) == 4.5


# ---- numba.config.NUMBA_NUM_THREADS read in compiled code (stumpy's _stump) -----

@njit
def per_thread_rows(n):
    n_threads = nb.config.NUMBA_NUM_THREADS  # frozen at compile time, as Numba's
    rho = np.full((n_threads, n), -np.inf)
    return rho.shape[0], n_threads


def test_config_setting_read_in_compiled_code():
    got = check(per_thread_rows, 4)
    assert got[0] == got[1] == nb.config.NUMBA_NUM_THREADS


# ---- `a.ndim == 1` on an array argument decides the branch (stumpy's _merge_topk_PI) --

@njit
def merge_smaller(PA, PB):
    if PA.ndim == 1:
        mask = PB < PA
        PA[mask] = PB[mask]
    else:
        k = PA.shape[1]  # a 1-d PA has no shape[1]: this branch is never typed for it
        for i in range(PA.shape[0]):
            for j in range(k):
                PA[i, j] = min(PA[i, j], PB[i, j])
    return PA.ndim


def test_ndim_of_argument_prunes_branch():
    assert check(merge_smaller, np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 0.0])) == 1
    assert check(merge_smaller, np.ones((2, 3)), np.arange(6.0).reshape(2, 3)) == 2


# ---- fastmath as a set of LLVM flags (stumpy: no nnan/ninf), changed and recompiled --

STUMPY_FLAGS = {"nsz", "arcp", "contract", "afn", "reassoc"}


@njit(fastmath=STUMPY_FLAGS)
def count_not_finite(a):
    n = 0
    for x in a:
        if np.isnan(x) or np.isinf(x):  # kept: the set has no nnan/ninf
            n += 1
    return n, np.sum(a[:2])


def add_assoc(x, y):
    return (x - y) + y


def test_fastmath_flag_set_keeps_nan_and_inf():
    assert check(count_not_finite, np.array([1.0, 2.0, np.nan, np.inf, -np.inf]))[0] == 3
    assert count_not_finite.targetoptions["fastmath"] == STUMPY_FLAGS  # kept as given
    with pytest.raises(ValueError):
        njit(fastmath={"reassoc", "fastest"})(add_assoc)(1.0, 2.0)  # Numba: when it compiles


@pytest.mark.parametrize("flags, want_nan", [(False, True), (True, False), ({"reassoc", "nsz"}, False),
                                             ({"reassoc"}, True), ({"nsz"}, True)])
def test_fastmath_flags_as_numba(flags, want_nan):
    # (0 - inf) + inf: NaN unless reassociated, which needs nsz too (as Numba)
    f = njit(fastmath=flags)(add_assoc)
    assert np.isnan(f(0.0, np.inf)) == want_nan


def test_recompile_after_changing_options():
    f = njit(fastmath=True)(add_assoc)
    assert f(0.0, np.inf) == 0.0
    f.targetoptions["fastmath"] = {"reassoc"}  # stumpy's fastmath._set, then cache._recompile
    f.recompile()
    assert np.isnan(f(0.0, np.inf))
    assert len(f.signatures) == 1
    g = njit("f8(f8, f8)")(add_assoc)
    g.recompile()  # explicit signatures stay the only ones
    assert g(1.0, 2.0) == 1.0 and len(g.signatures) == 1
    with pytest.raises(TypeError):
        g(np.ones(2), 1.0)
    g.enable_caching()  # Numba's: later compilations go to the on-disk cache


# ---- QuantEcon 0.11.4 ------------------------------------------------------------

def fill_probvec(r, out):  # quantecon.random.utilities._probvec: writes an input
    n = r.shape[0]
    r.sort()
    out[0] = r[0]
    for i in range(1, n):
        out[i] = r[i] - r[i - 1]
    out[n] = 1 - r[n - 1]


@pytest.mark.parametrize("target", ["cpu", "parallel"])
def test_gufunc_layout_without_outputs(target):
    # a layout with no "->" has no outputs: the kernel writes into an input
    # and the call returns () (NumPy's gufunc with nout == 0)
    gu = nb.guvectorize(["(f8[:], f8[:])"], "(n), (k)", nopython=True, target=target)(fill_probvec)
    assert (gu.nin, gu.nout) == (2, 0)
    r = np.random.default_rng(3).random((5, 3))
    got, want = np.empty((5, 4)), np.empty((5, 4))
    assert gu(r.copy(), got) == ()
    for i in range(5):
        fill_probvec(r[i].copy(), want[i])
    np.testing.assert_array_equal(got, want)


libc = ctypes.CDLL(None)
c_memset = libc.memset
c_memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
c_memset.restype = None


@njit
def clear_head(a, n):
    c_memset(a.ctypes, 0, n * a.itemsize)  # the data pointer as a void *
    return a.sum()


def test_array_ctypes_to_a_c_function():
    check(clear_head, np.arange(6.0), 3)
    check(clear_head, np.arange(12, dtype=np.int32).reshape(3, 4), 5)


def lapack_solve(a, b):  # quantecon.util.numba._numba_linalg_solve
    pass


@overload(lapack_solve)
def lapack_solve_ol(a, b):
    xgesv = _LAPACK().numba_xgesv(a.dtype)
    kind = ord({types.float64: "d", types.float32: "s"}[a.dtype])

    def impl(a, b):
        n = a.shape[-1]
        nrhs = 1 if b.ndim == 1 else b.shape[-1]
        ipiv = np.empty(n, dtype=np.int32)
        return xgesv(kind, n, nrhs, a.ctypes, n, ipiv.ctypes, b.ctypes, n)
    return impl


@njit
def solve_in_place(a, b):
    return lapack_solve(a, b)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 1e-4)])
def test_numba_xgesv(dtype, tol):
    rng = np.random.default_rng(5)
    for n, nrhs in ((1, 1), (4, 1), (6, 3)):
        a = np.asfortranarray(rng.standard_normal((n, n))).astype(dtype, order="F")
        b = np.asfortranarray(rng.standard_normal((n, nrhs))).astype(dtype, order="F")
        want = np.linalg.solve(a.astype(np.float64), b.astype(np.float64))
        x = b.copy(order="F") if nrhs > 1 else b[:, 0].copy()
        assert solve_in_place(a.copy(order="F"), x) == 0  # LAPACK's info
        np.testing.assert_allclose(x.reshape(n, nrhs), want, rtol=tol, atol=tol)
    # a singular matrix: info is the 1-based index of the zero pivot, no error
    sing = np.array([[1.0, 2.0], [2.0, 4.0]], dtype=dtype, order="F")
    assert solve_in_place(sing, np.ones(2, dtype=dtype)) == 2
    assert solve_in_place(np.zeros((3, 3), dtype=dtype, order="F"), np.ones(3, dtype=dtype)) == 1


TOL_PIV = 1e-10  # quantecon.optimize.pivoting: tolerances as module constants
MAX_ITER = 7
CAPPING = None
STRICT = True


@njit
def ratio_test(x, tol_piv=TOL_PIV, max_iter=MAX_ITER, capping=CAPPING, strict=STRICT):
    n = max_iter if capping is None else capping
    return (x > tol_piv) == strict, n, tol_piv * 2


@njit
def calls_with_defaults(x):
    # the callee's defaults name its module's globals; this caller reads none of them
    return ratio_test(x), ratio_test(x, 1.0), ratio_test(x, max_iter=3, capping=5), ratio_test(x, strict=False)


def test_defaults_naming_globals():
    check(calls_with_defaults, 1e-12)
    check(calls_with_defaults, 0.5)
    check(ratio_test, 0.5)  # from Python: the dispatcher fills them in


@njit
def by_slice_values(a, order):
    # quantecon._gridtools: the step picked at run time, the slice bound to a name
    step = -1 if order == 1 else 1
    s = slice(None, None, step)
    head, tail, mid = slice(3), slice(2, None), slice(1, -1, 2)
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[s][i] * (i + 1) + a[head][-1] + a[mid].sum()
    return (a[s].copy(), a[tail].copy(), a[mid].copy(), acc,
            s.step, head.stop, tail.start, mid.start, mid.stop, mid.step)  # (None fields differ: Numba fills them)


@njit
def slice_rows(m, start, stop, step):
    r = slice(start, stop, step)
    m[r, 0] = -1.0  # a store through it, one of several index items
    return m[r, 1:].sum(), m[1, r].copy()


def test_slice_values():
    for order in (0, 1):
        for n in (0, 1, 6):
            check(by_slice_values, np.arange(float(n)), order)
    m = np.arange(30.0).reshape(5, 6)
    for args in ((0, 5, 1), (4, 0, -1), (-1, -6, -2), (1, 100, 3), (0, 0, 1)):
        check(slice_rows, m, *args)


@pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's message")
def test_slice_value_refusals():
    def f(a, k):
        return a[slice(None, None, k + 1)].sum()  # the step computed in the call, with a None bound

    def g(a):
        return a[slice(0, 2)].sum()  # a slice value indexes as a variable

    with pytest.raises(hpcjit.errors.UnsupportedError, match="step as a name") as ei:
        njit(f)(np.ones(3), 1)
    assert "test_library_idioms.py" in str(ei.value)
    with pytest.raises(hpcjit.errors.UnsupportedError, match="as a variable"):
        njit(g)(np.ones(3))


@pytest.mark.skipif(AGAINST_NUMBA, reason="Numba cannot box a slice (SystemError)")
def test_slice_value_returned():
    def h(n):
        return slice(1, n), slice(None, None, n)

    # Numba's filled bounds, as Python's slice.indices reads them
    got = njit(h)(-2)
    assert got[0] == slice(1, -2, 1)
    assert range(10)[got[1]] == range(10)[h(-2)[1]]


# ---- numba-stats: type(x)(1), scipy.special through WAP objects, optional(uint64)
# parameters and the choice among explicit float32/float64 signatures ---------

@njit
def reciprocal_of_own_type(x):
    return type(x)(1) / x  # numba_stats._util._trans: the number's class as a cast


@nb.njit([types.float32[:](types.Array(types.float32, 1, "A", readonly=True), types.float32),
          types.float64[:](types.Array(types.float64, 1, "A", readonly=True), types.float64)])
def scaled_by_own_type(x, scale):
    T = type(scale)
    return (x - T(0.5)) * (T(1) / scale)


def test_type_of_number_as_cast():
    for x in (3.0, 7, np.float32(3.0), np.float64(0.1), np.int32(-4), True):
        check(reciprocal_of_own_type, x)
    for dt in (np.float32, np.float64):
        x = np.linspace(0, 1, 7).astype(dt)
        got = scaled_by_own_type(x, dt(3))
        assert got.dtype == dt
        assert_same(got, scaled_by_own_type.py_func(x, dt(3)))


@pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's message")
def test_type_of_array_refused():
    def f(a):
        return type(a)(a)

    with pytest.raises(hpcjit.errors.UnsupportedError, match=r"type\(\) of array") as ei:
        njit(f)(np.ones(3))
    assert "test_library_idioms.py" in str(ei.value) and "^" in str(ei.value)


_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


class _LibmErf(types.WrapperAddressProtocol):
    """libm's erf as numba-stats wraps scipy.special's functions; callable
    from Python too, so that py_func runs."""

    def __wrapper_address__(self):
        return ctypes.cast(_libm.erf, ctypes.c_void_p).value

    def signature(self):
        return types.float64(types.float64)

    def __call__(self, x):
        return math.erf(x)


libm_erf = _LibmErf()


@njit
def erf_through_wap(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = libm_erf(x[i]) + 1.0
    return out


def test_wap_object_as_global():
    check(erf_through_wap, np.linspace(-3, 3, 25), rtol=1e-15)


@pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's messages")
def test_wap_global_refusals():
    class ArraySig(types.WrapperAddressProtocol):
        def __wrapper_address__(self):
            return 0

        def signature(self):
            return types.float64[:](types.float64)

    class Raises(ArraySig):
        def __wrapper_address__(self):
            raise RuntimeError("no address")

    for obj, why in ((ArraySig(), r"array\(float64, 1d, A\) in its signature"), (Raises(), "no address")):
        def f(x):
            return obj(x)

        with pytest.raises(hpcjit.errors.TypingError, match=why) as ei:
            njit(f)(1.0)
        assert "test_library_idioms.py" in str(ei.value) and "^" in str(ei.value)


def test_cython_special_through_wap_global():
    cython_special = pytest.importorskip("scipy.special.cython_special")
    import scipy.special as sp
    if AGAINST_NUMBA:
        from numba.extending import get_cython_function_address as hj_addr
    else:
        from hpcjit.extending import get_cython_function_address as hj_addr
    name = "__pyx_fuse_1ndtri" if "__pyx_fuse_1ndtri" in cython_special.__pyx_capi__ else "ndtri"
    addr = hj_addr("scipy.special.cython_special", name)
    ndtri = type("ndtri", (types.WrapperAddressProtocol,),
                 {"__wrapper_address__": lambda self: addr,
                  "signature": lambda self: types.float64(types.float64)})()

    def ppf(p):
        out = np.empty_like(p)
        for i in range(len(p)):
            out[i] = ndtri(p[i])
        return out

    p = np.linspace(0.01, 0.99, 33)
    np.testing.assert_allclose(njit(ppf)(p), sp.ndtri(p), rtol=1e-15)


@nb.njit([types.float64[:](types.float64, types.uint64, types.optional(types.uint64))])
def draws_with_optional_seed(loc, size, seed):
    out = np.full(size, loc)
    if seed is not None:
        out += seed
    return out


def test_optional_parameter_of_explicit_signature():
    for args in ((1.5, 4, 7), (2.0, 3, None), (0.5, 0, 1), (-1.0, 2, None)):
        check(draws_with_optional_seed, *args)
    # ints convert to the signature's float64 and uint64
    assert_same(draws_with_optional_seed(2, 3, None), draws_with_optional_seed.py_func(2.0, 3, None))


@nb.njit([types.float32(types.float32, types.float32), types.float64(types.float64, types.float64)])
def sum_f4_or_f8(a, b):
    return a + b


@njit
def sum_f4_or_f8_called(a, b):
    return sum_f4_or_f8(a, b)


def test_explicit_signature_fewest_unsafe_conversions():
    # ints take float64 (safe), not float32 (unsafe), as in Numba: 2**24 + 1 survives
    for f in (sum_f4_or_f8, sum_f4_or_f8_called):
        for args in ((16777217, 0), (16777217, 1e-9), (np.int32(16777217), np.int16(0)), (True, 16777216)):
            assert f(*args) == float(f.py_func(*args))
        check(f, np.float32(1.5), np.float32(1e-9), rtol=0.0)  # float32 stays float32


# ---- libm calls of loop-invariant arguments leave the loop (numba-stats'
# crystalball ppf: _norm._cdf1(a) per element, a = -beta: 1.4x Numba's time) -----

@njit
def shifted_by_invariant_erf(x, a):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * 0.5 + math.erf(a * 0.7071067811865476)
    return out


def test_libm_call_of_invariant_arguments():
    x = np.linspace(-3, 3, 101)
    for a in (-1.5, 0.0, 2.0):
        check(shifted_by_invariant_erf, x, a)


@pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's IR")
def test_libm_declared_without_memory_effects():
    shifted_by_invariant_erf(np.ones(3), 1.0)
    ir = shifted_by_invariant_erf.inspect_llvm()
    ir = "\n".join(ir.values()) if isinstance(ir, dict) else ir
    decl = [ln for ln in ir.splitlines() if ln.startswith("declare double @erf(")]
    assert decl, ir
    group = decl[0].rsplit("#", 1)[1]
    attrs = [ln for ln in ir.splitlines() if ln.startswith(f"attributes #{group} ")]
    assert attrs and "memory(none)" in attrs[0] and "nounwind" in attrs[0]
    assert ir.count("call double @erf(") == 1


# ---- pandas 3.1.1's engine="numba" (pandas/core/_numba/kernels/min_max_.py:
# `this_start = start[i].item()`; tests/window/test_numba.py: a lambda on a
# continuation line of a chained call, `.apply(lambda x, a: ..., engine="numba")`) --

@njit
def windowed_max_by_item(values, start, end):
    out = np.empty(len(start))
    for i in range(len(start)):
        s = start[i].item()
        e = end[i].item()
        m = values[s]
        for j in range(s + 1, e):
            if values[j] > m:
                m = values[j]
        out[i] = m + np.float32(0.5).item() + (m > 0).item()
    return out


def test_scalar_item_is_the_value():
    values = np.array([3.0, -1.0, 4.0, 1.5, -9.0, 2.6])
    start = np.array([0, 0, 1, 2, 3, 4], dtype=np.int64)
    end = np.array([1, 2, 3, 4, 5, 6], dtype=np.int64)
    check(windowed_max_by_item, values, start, end)
    check(windowed_max_by_item, values, start.astype(np.int32), end.astype(np.uint64))


def test_lambda_on_a_continuation_line():
    x = np.arange(5.0)
    fs = (np.arange(2)
          .tolist() and [njit(lambda v, a: (v + a).sum()), njit(lambda v, a: (v * a).sum())])
    for f in fs:
        check(f, x, 1.5)


@njit
def monotonic_queue(v):
    """pandas' min/max kernel's deque: a list tested beside a bool."""
    cand = [0]
    cand.pop()
    out = 0
    for i in range(len(v)):
        if cand and cand[-1] == i - 1:
            out += 1
        while cand and v[cand[-1]] < v[i]:
            cand.pop()
        cand.append(i)
        x = i if not cand else cand[0]
        if not cand or v[i] > 0.5:
            out += 10
        out += x
    return out + (1 if (cand or v[0] > 0) and len(cand) > 2 else 0)


def test_list_truth_in_and_or_conditions():
    rng = np.random.default_rng(1)
    for n in (1, 2, 50):
        check(monotonic_queue, rng.random(n))


# pandas' table rolling apply (core/window/numba_.py roll_table):
# `result[i, :] = numba_func(window)` where the function returns shape (1, n)

@njit
def rows_from_leading_unit_axes(r, a):
    for i in range(r.shape[0]):
        r[i, :] = a * (i + 1)
    return r


def test_store_of_leading_unit_axes():
    for shape in ((1, 3), (1, 1, 3), (1, 1, 1), (3,)):
        check(rows_from_leading_unit_axes, np.zeros((2, 3)), np.arange(np.prod(shape), dtype=np.float64).reshape(shape))
    for shape in ((2, 3), (1, 2, 3)):  # NumPy and Numba raise ValueError
        check(rows_from_leading_unit_axes, np.zeros((2, 3)), np.ones(shape))
