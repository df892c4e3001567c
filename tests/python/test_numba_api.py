"""Numba's API surface in hpcjit: the type names of hpcjit.types, typeof,
numpy_support, hpcjit.errors, hpcjit.config, hpcjit.core, Numba's jit
options, and the alias modules of the drop-in (hpcjit.numba) in-process.
The drop-in as a command is in test_dropin.py."""
import collections
import importlib
import os
import sys
import warnings

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit's own API modules", allow_module_level=True)

from hpcjit import errors, njit, types  # noqa: E402
from conftest import check, run_python  # noqa: E402

pytestmark = pytest.mark.numba_skip("tests hpcjit's Numba-compatible modules themselves")


# ---- hpcjit.types -------------------------------------------------------------

def test_scalar_and_array_names():
    t = types
    assert str(t.float32[:, ::1]) == "array(float32, 2d, C)"
    assert str(t.int64[::1, :]) == "array(int64, 2d, F)"
    assert str(t.boolean[:]) == "array(bool, 1d, A)"
    assert t.Array(t.float64, 2, "C") == t.float64[:, ::1]
    assert t.float64[:, ::1].copy(layout="A") == t.float64[:, :]
    assert t.float64[:].mutable and not t.Array(t.float64, 1, "A", readonly=True).mutable
    assert t.intp is t.int64 and t.uintp is t.uint64 and t.intc is t.int32
    assert t.void is t.none and str(t.none) == "none"
    for name, same in [("byte", "uint8"), ("char", "int8"), ("short", "int16"),
                       ("long_", "int64"), ("ulonglong", "uint64"), ("size_t", "uint64"),
                       ("ssize_t", "int64"), ("np_float64", "float64"), ("np_intp", "int64"),
                       ("np_bool_", "boolean"), ("double", "float64"), ("f4", "float32")]:
        assert getattr(t, name) is getattr(t, same), name
    assert isinstance(t.int8, t.Integer) and isinstance(t.int8, t.Number)
    assert isinstance(t.float32, t.Float) and isinstance(t.complex64, t.Complex)
    assert isinstance(t.boolean, t.Boolean) and isinstance(t.none, t.NoneType)
    assert isinstance(t.int64, t.Type)
    assert t.int64.bitwidth == 64 and t.int64.signed and not t.uint8.signed
    assert t.int16 in t.integer_domain and t.float32 in t.real_domain
    assert t.complex128 in t.number_domain and t.uint8 in t.unsigned_domain


def test_tuple_names():
    t = types
    assert str(t.UniTuple(t.int64, 3)) == "UniTuple(int64 x 3)"
    assert t.Tuple((t.int64, t.int64)) == t.UniTuple(t.int64, 2)
    het = t.Tuple((t.int64, t.float64))
    assert str(het) == "Tuple(int64, float64)" and len(het) == 2 and het[1] is t.float64
    P = collections.namedtuple("P", "x y")
    nt = t.NamedTuple((t.int64, t.float64), P)
    assert str(nt) == "P(int64, float64)" and nt.fields == ("x", "y")
    assert str(t.NamedUniTuple(t.int64, 2, P)) == "P(int64 x 2)"


def test_uncompilable_type_names():
    """Types hpcjit cannot compile yet exist, with Numba's str()."""
    t = types
    cases = [
        (t.Set(t.float64), "set(float64)"),
        (t.literal(3), "Literal[int](3)"),
        (t.literal("a"), "Literal[str](a)"),
        (t.Omitted(3), "omitted(default=3)"),
        (t.pyobject, "pyobject"),
        (t.Any, "any"),
    ]
    for ty, text in cases:
        assert str(ty) == text
        assert ty.typecode is None
    assert t.string is t.unicode_type
    # datetime64/timedelta64 cross the boundary: typecodes 'M'/'m' + the unit's
    assert str(t.NPDatetime("s")) == "datetime64[s]" and t.NPDatetime("s").typecode == "Ms"
    assert str(t.NPTimedelta("")) == "timedelta64[]" and t.NPTimedelta("").typecode == "mg"
    assert str(t.ListType(t.NPDatetime("s"))) == "ListType[datetime64[s]]"
    assert str(t.DictType(t.NPDatetime("s"), t.float64)) == "DictType[datetime64[s],float64]"
    # C pointers cross into cfuncs: typecode 'p' + the number's, "pv" for void*
    assert str(t.CPointer(t.float64)) == "float64*" and t.CPointer(t.float64).typecode == "pd"
    assert str(t.voidptr) == "void*" and t.voidptr.typecode == "pv"
    # str crosses the boundary (lib/str): typecode 's'
    assert str(t.unicode_type) == "unicode_type" and t.unicode_type.typecode == "s"
    assert str(t.DictType(t.unicode_type, t.float64)) == "DictType[unicode_type,float64]"
    # reflected lists cross the boundary (lib/list): typecode '[' + the item's
    assert str(t.List(t.int64, reflected=True)) == "reflected list(int64)"
    assert t.List(t.int64, reflected=True).typecode == "[l"
    # typed.List / typed.Dict: typecodes '#' and '&' (by reference)
    assert t.ListType(t.int64).typecode == "#l" and t.DictType(t.int64, t.float64).typecode == "&ld"
    assert isinstance(t.literal(3), t.IntegerLiteral) and isinstance(t.literal(3), t.Literal)
    assert t.unliteral(t.literal(3)) is t.int64
    assert t.ListType(t.int64) == t.ListType(t.int64) != t.ListType(t.float64)
    assert len({t.ListType(t.int64), t.ListType(t.int64)}) == 1
    assert str(t.float16[:]) == "array(float16, 1d, A)" and t.float16[:].typecode == "ae1A"  # CUDA kernels


def test_optional():
    t = types
    o = t.Optional(t.int64)
    assert t.optional is t.Optional and str(o) == "OptionalType(int64)"
    assert o.type is t.int64 and o.typecode == "ol"
    assert t.from_typecode("ol") == o
    assert t.Optional(o) == o


def test_signature_with_uncompilable_type_is_refused():
    t = types
    with pytest.raises(errors.UnsupportedError, match=r"ListType\[pyobject\] is not supported by hpcjit yet"):
        njit(t.int64(t.ListType(t.pyobject)))(lambda a: 0)
    with pytest.raises(errors.UnsupportedError, match="pyobject"):
        t.int64(t.pyobject).as_typecodes()


def test_signatures_from_types_compile():
    t = types

    def f(a, n):
        return a[:n].sum()

    g = njit(t.float64(t.float64[::1], t.int64))(f)
    check(g, np.arange(5.0), 3)
    h = njit([t.Tuple((t.float64, t.int64))(t.float64, t.int64)])(lambda x, n: (x, n))
    assert h(1.5, 2) == (1.5, 2)


def test_typeof_as_numba():
    P = collections.namedtuple("P", "x y")
    assert str(hpcjit.typeof(np.zeros((2, 3)))) == "array(float64, 2d, C)"
    assert hpcjit.typeof(1) is types.int64 and hpcjit.typeof(1.0) is types.float64
    assert hpcjit.typeof(True) is types.boolean and hpcjit.typeof(None) is types.none
    assert hpcjit.typeof(np.float32(1)) is types.float32
    assert hpcjit.typeof("a") is types.unicode_type
    assert str(hpcjit.typeof([1, 2])) == "reflected list(int64)"
    assert str(hpcjit.typeof({1.0})) == "reflected set(float64)"
    assert str(hpcjit.typeof((1, 2.0))) == "Tuple(int64, float64)"
    assert str(hpcjit.typeof(P(1, 2.0))) == "P(int64, float64)"
    assert str(hpcjit.typeof(np.dtype("f4"))) == "dtype(float32)"
    with pytest.raises(ValueError, match="cannot determine Numba type of <class 'dict'>"):
        hpcjit.typeof({})
    with pytest.raises(ValueError):
        hpcjit.typeof(object())


def test_numpy_support():
    from hpcjit import numpy_support as ns
    assert ns.from_dtype(np.dtype("float32")) is types.float32
    assert ns.from_dtype(np.int16) is types.int16
    assert ns.from_dtype(np.dtype(np.bool_)) is types.boolean
    assert str(ns.from_dtype(np.dtype("M8[s]"))) == "datetime64[s]"
    assert hpcjit.from_dtype is ns.from_dtype
    for t in (types.int8, types.uint64, types.float32, types.complex128, types.boolean):
        assert ns.from_dtype(ns.as_dtype(t)) is t
    assert ns.as_dtype(types.NPTimedelta("ms")) == np.dtype("m8[ms]")
    with pytest.raises(errors.NumbaNotImplementedError):
        ns.from_dtype(np.dtype("U3"))
    with pytest.raises(errors.NumbaNotImplementedError):
        ns.as_dtype(types.unicode_type)


# ---- hpcjit.errors ------------------------------------------------------------

def test_error_names_and_hierarchy():
    e = errors
    for name in ("TypingError", "NumbaError", "UnsupportedError", "LoweringError",
                 "NumbaValueError", "NumbaTypeError", "NumbaIndexError", "NumbaKeyError",
                 "NumbaAttributeError", "NumbaNotImplementedError", "CompilerError",
                 "InternalError", "UnsupportedBytecodeError", "RequireLiteralValue"):
        assert issubclass(getattr(e, name), e.NumbaError), name
        assert issubclass(getattr(e, name), Exception), name
    for name in ("NumbaValueError", "NumbaIndexError", "NumbaKeyError", "NumbaAttributeError"):
        assert issubclass(getattr(e, name), e.TypingError)
    assert e.NumbaError is e.HpcjitError and hpcjit.TypingError is e.TypingError
    for name in ("NumbaWarning", "NumbaPerformanceWarning", "NumbaDeprecationWarning",
                 "NumbaPendingDeprecationWarning", "NumbaParallelSafetyWarning",
                 "NumbaTypeSafetyWarning", "NumbaExperimentalFeatureWarning"):
        assert issubclass(getattr(e, name), Warning) and issubclass(getattr(e, name), e.NumbaWarning)
    assert issubclass(e.NumbaDeprecationWarning, DeprecationWarning)
    assert issubclass(e.NumbaPendingDeprecationWarning, PendingDeprecationWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=e.NumbaPerformanceWarning)  # as programs do


def test_compile_errors_are_numba_errors():
    @njit
    def bad(x):
        return x + "a"

    with pytest.raises(errors.NumbaError):
        bad(1)
    with pytest.raises(errors.TypingError):
        bad(1)


# ---- hpcjit.config, hpcjit.core --------------------------------------------------

def test_config_attributes():
    c = hpcjit.config
    for name in ("NUMBA_NUM_THREADS", "NUMBA_DEFAULT_NUM_THREADS", "DISABLE_JIT",
                 "THREADING_LAYER", "BOUNDSCHECK", "OPT", "DEBUG", "CACHE_DIR", "DEVELOPER_MODE",
                 "DISABLE_PERFORMANCE_WARNINGS", "ENABLE_CUDASIM", "DUMP_LLVM", "CPU_NAME",
                 "CPU_FEATURES", "MACHINE_BITS", "IS_32BITS", "PYVERSION", "FULL_TRACEBACKS"):
        assert hasattr(c, name), name
    assert c.NUMBA_DEFAULT_NUM_THREADS >= 1 and c.NUMBA_NUM_THREADS >= 1
    assert c.PYVERSION == sys.version_info[:2] and c.MACHINE_BITS == 64


def test_config_from_environment():
    r = run_python("""
        import hpcjit
        c = hpcjit.config
        print(c.NUMBA_NUM_THREADS, c.THREADING_LAYER, c.CACHE_DIR, c.DEBUG, c.OPT,
              c.DISABLE_JIT, c.BOUNDSCHECK)
    """, env={"NUMBA_NUM_THREADS": "3", "NUMBA_THREADING_LAYER": "omp",
              "NUMBA_CACHE_DIR": "/tmp/x", "NUMBA_DEBUG": "1", "HPCJIT_OPT": "1",
              "NUMBA_OPT": "2", "NUMBA_DISABLE_JIT": "1", "HPCJIT_BOUNDSCHECK": "0",
              "HPCJIT_NUM_THREADS": ""})
    assert r.returncode == 0, r.stderr
    # HPCJIT_ names win over NUMBA_ ones
    assert r.stdout.split() == ["3", "omp", "/tmp/x", "1", "1", "True", "False"]


def test_config_reload(monkeypatch):
    c = hpcjit.config
    try:
        monkeypatch.setenv("NUMBA_CACHE_DIR", "/tmp/reloaded")
        c.reload_config()
        assert c.CACHE_DIR == "/tmp/reloaded"
    finally:
        monkeypatch.undo()
        c.reload_config()


def test_core_paths():
    import hpcjit.core
    import hpcjit.core.types
    from hpcjit.core import config, errors as core_errors

    assert hpcjit.core.types is types and core_errors is errors and config is hpcjit.config


def test_parallel_helpers():
    assert hpcjit.threading_layer() == "hpcjit"
    old = hpcjit.get_parallel_chunksize()
    with hpcjit.parallel_chunksize(7):
        assert hpcjit.get_parallel_chunksize() == 7
    assert hpcjit.get_parallel_chunksize() == old


# ---- Numba's jit options -------------------------------------------------------

def test_inert_numba_options_accepted():
    def inc(x):
        return x + 1

    f = njit(debug=False, no_cpython_wrapper=False, locals={}, target="cpu",
             parallel={"prange": True})(inc)
    assert f(1) == 2


def test_unsupported_numba_options_named():
    with pytest.raises(errors.UnsupportedError, match=r"pipeline_class=.* is not supported by hpcjit yet"):
        njit(pipeline_class=object)(lambda x: x)
    with pytest.raises(errors.UnsupportedError, match="target='cuda'"):
        njit(target="cuda")(lambda x: x)
    with pytest.raises(TypeError, match="unexpected option 'bogus'"):
        njit(bogus=1)(lambda x: x)


# ---- alias modules in this process ------------------------------------------------

@pytest.fixture
def as_numba():
    """The drop-in installed in this process; the real numba (if the
    session imported it) put back afterwards."""
    from hpcjit import numba as dropin
    saved = {n: m for n, m in sys.modules.items() if n == "numba" or n.startswith("numba.")}
    saved_env = os.environ.get("HPCJIT_AS_NUMBA")
    for n in saved:
        del sys.modules[n]
    dropin.install()
    try:
        yield importlib.import_module("numba")
    finally:
        dropin.uninstall()
        sys.modules.update(saved)
        if saved_env is not None:
            os.environ["HPCJIT_AS_NUMBA"] = saved_env


def test_alias_resolves_to_hpcjit(as_numba):
    nb = as_numba
    assert nb.njit is hpcjit.njit and nb.jit is hpcjit.jit and nb.prange is hpcjit.prange
    assert nb.float64 is types.float64 and nb.typeof is hpcjit.typeof
    from numba.core import types as nbt, errors as nbe, config as nbc
    from numba.np.numpy_support import from_dtype
    import numba.types
    assert nbt.float32 is types.float32 and nbt.ListType is types.ListType
    assert numba.types.int64 is types.int64
    assert nbe.TypingError is errors.TypingError and nbc.OPT == hpcjit.config.OPT
    assert nb.config.DISABLE_JIT == hpcjit.config.DISABLE_JIT
    assert from_dtype(np.float32) is types.float32
    assert nb.__version__.startswith("0.68.0+hpcjit.") and nb.version_info[:2] == (0, 68)
    assert nb.__hpcjit__ is True
    # hpcjit's own modules are not Numba names
    with pytest.raises(AttributeError, match="no attribute 'dispatcher'"):
        nb.dispatcher


def test_top_level_has_errors_and_type_names(as_numba):
    """Numba's top level re-exports numba.core.errors and numba.core.types:
    programs silence warnings with `from numba import NumbaDeprecationWarning`."""
    import numba
    from numba import NumbaDeprecationWarning, NumbaPerformanceWarning, int_, uchar  # noqa: F401
    assert numba.NumbaPendingDeprecationWarning is errors.NumbaPendingDeprecationWarning
    assert issubclass(NumbaDeprecationWarning, Warning)
    assert numba.TypingError is errors.TypingError
    assert int_ is types.int64 and uchar is types.uint8 and numba.size_t is types.uint64
    assert numba.jit_module is hpcjit.jit_module and numba.pndindex is hpcjit.pndindex


def test_typed_container_modules(as_numba):
    from numba.typed.typedlist import List
    from numba.typed.typeddict import Dict
    assert List is hpcjit.typed.List and Dict is hpcjit.typed.Dict


def test_gufunc_module(as_numba):
    """numbagg annotates with `from numba.np.ufunc.gufunc import GUFunc`, and
    probes the threading layer by importing numba.np.ufunc.{tbb,omp}pool:
    those are not there (hpcjit's pool is neither), an ImportError."""
    from numba.np.ufunc.gufunc import GUFunc
    assert GUFunc is hpcjit.ufunc.GUFunc
    for pool in ("tbbpool", "omppool"):
        with pytest.raises(ImportError):
            importlib.import_module("numba.np.ufunc." + pool)


def test_alias_picks_up_new_hpcjit_names(as_numba, monkeypatch):
    """When hpcjit gains a feature, numba.<feature> is it."""
    def vectorize(*a, **k):
        return "hpcjit's"
    monkeypatch.setattr(hpcjit, "vectorize", vectorize, raising=False)
    import numba
    assert numba.vectorize is vectorize


def test_unsupported_stand_ins(as_numba):
    import numba
    from numba import gdb, objmode  # imports fine
    from numba.typed import List, Dict
    from numba.experimental import jitclass
    from numba.extending import lower_builtin, lower_cast

    with pytest.raises(errors.UnsupportedError, match="^numba.gdb is not supported by hpcjit yet$"):
        gdb()
    assert objmode is hpcjit.objmode  # implemented since (extending.py)
    # implemented since: numba.typed.List/Dict are hpcjit.typed's, jitclass hpcjit.experimental's
    assert List is hpcjit.typed.List and Dict is hpcjit.typed.Dict
    assert len(Dict.empty(key_type=types.int64, value_type=types.int64)) == 0
    from hpcjit.experimental import jitclass as hpcjit_jitclass
    assert jitclass is hpcjit_jitclass
    assert lower_builtin is hpcjit.extending.lower_builtin  # implemented since (lowlevel.py)
    with pytest.raises(errors.UnsupportedError, match="numba.extending.lower_cast"):
        lower_cast(types.int64, types.float64)
    from numba.experimental import structref  # implemented since (hpcjit/structref.py)
    assert structref.StructRefProxy is hpcjit.experimental.structref.StructRefProxy
    with pytest.raises(TypeError, match="subclass of types.StructRef"):
        structref.register(object)
    assert not isinstance([], List) and not isinstance({}, Dict)
    assert "not supported" in repr(gdb)
    assert numba.literal_unroll is hpcjit.literal_unroll  # implemented since
    assert numba.stencil is hpcjit.stencil
    assert numba.vectorize is hpcjit.vectorize  # implemented since: resolved to hpcjit's
    assert numba.guvectorize is hpcjit.guvectorize
    assert numba.cfunc is hpcjit.cfunc
    assert hasattr(numba, "guvectorize")
    import numba.cuda
    from hpcjit import cuda as hj_cuda
    assert numba.cuda.is_available() is hj_cuda.is_available()
    assert numba.cuda.jit is hj_cuda.jit and numba.cuda.to_device is hj_cuda.to_device
    from numba.cuda.cudadrv.error import CudaSupportError
    assert CudaSupportError is hj_cuda.CudaSupportError
    assert numba.cuda.cudadrv.driver.CudaAPIError is hj_cuda.cudadrv.driver.CudaAPIError
    with pytest.raises(ModuleNotFoundError):
        import numba.no_such_module  # noqa: F401
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        numba.no_such_name


def test_install_refuses_after_real_numba():
    r = run_python("""
        import sys, types
        sys.modules["numba"] = types.ModuleType("numba")   # stands for the real one
        from hpcjit import numba as dropin
        try:
            dropin.install()
        except RuntimeError as e:
            print("refused:", e)
    """)
    assert r.returncode == 0, r.stderr
    assert "refused:" in r.stdout and "imported already" in r.stdout


def test_register_jitable_callable_from_compiled_code():
    from hpcjit.extending import register_jitable

    @register_jitable
    def clamp(x, lo, hi):
        return lo if x < lo else hi if x > hi else x

    @register_jitable(fastmath=False)
    def twice(x):
        return 2 * x

    @hpcjit.njit
    def f(a):
        s = 0.0
        for x in a:
            s += twice(clamp(x, -1.0, 1.0))
        return s

    a = np.linspace(-3.0, 3.0, 25)
    assert f(a) == f.py_func(a)
    assert clamp(5.0, 0.0, 1.0) == 1.0
