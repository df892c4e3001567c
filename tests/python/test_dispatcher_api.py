"""The C dispatcher (hpcjit._core) without the compiler: "compiled code" here
is a ctypes callback with the entry ABI int32 entry(void *ret, void **args),
so keys, unboxing, boxing, exceptions and memory ownership are tested on
their own.  Tests of the API on real compiled functions follow at the end."""
import ctypes
import gc
import sys

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit internals", allow_module_level=True)

from hpcjit import _core, types  # noqa: E402

pytestmark = pytest.mark.numba_skip("tests hpcjit's own dispatcher internals")

ENTRY = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
SYMS = dict(_core._runtime_symbols())
rt_alloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)(SYMS["rt_alloc"])
rt_raise = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_char_p)(SYMS["rt_raise"])
rt_raise_index = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(SYMS["rt_raise_index"])


def hjarray(nd):
    class HjArray(ctypes.Structure):
        _fields_ = [("meminfo", ctypes.c_void_p), ("parent", ctypes.c_void_p),
                    ("nitems", ctypes.c_int64), ("itemsize", ctypes.c_int64),
                    ("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * nd),
                    ("strides", ctypes.c_int64 * nd)]
    return HjArray


class MemInfo(ctypes.Structure):
    _fields_ = [("refcnt", ctypes.c_int64), ("data", ctypes.c_void_p), ("size", ctypes.c_int64),
                ("dtor", ctypes.c_void_p), ("dtor_info", ctypes.c_void_p)]


_keep = []


def entry(fn):
    cb = ENTRY(fn)
    _keep.append(cb)
    return ctypes.cast(cb, ctypes.c_void_p).value


def arg(args, i, ctype):
    return ctypes.cast(args[i], ctypes.POINTER(ctype))[0]


def setret(ret, ctype, value):
    ctypes.cast(ret, ctypes.POINTER(ctype))[0] = value


def make(py_func, overloads=(), options=None, hook=None):
    def no_compile(disp, codes):
        raise AssertionError(f"unexpected compilation for {codes}")
    d = _core.Dispatcher(py_func, dict(options or {}), hook or no_compile)
    for key, fn, ret, sig in overloads:
        d._add_overload(key, entry(fn), ret, sig,
                        {"argtypes": tuple(types.from_typecode(c) for c in split(key))})
    return d


def split(key):
    out, i = [], 0
    while i < len(key):
        t, j = types._parse(key, i)
        out.append(key[i:j])
        i = j
    return out


def add_dd(ret, args):
    setret(ret, ctypes.c_double, arg(args, 0, ctypes.c_double) + arg(args, 1, ctypes.c_double))
    return 0


def add_ll(ret, args):
    setret(ret, ctypes.c_int64, arg(args, 0, ctypes.c_int64) + arg(args, 1, ctypes.c_int64))
    return 0


def py_add(a, b):
    return a + b


def test_scalar_hit_and_key_selection():
    d = make(py_add, [("dd", add_dd, "d", "(float64, float64) -> float64"),
                      ("ll", add_ll, "l", "(int64, int64) -> int64")])
    assert d(1.5, 2.25) == py_add(1.5, 2.25)
    r = d(2, 3)
    assert r == 5 and type(r) is int
    assert type(d(1.0, 2.0)) is float
    # NumPy scalars key like their dtype: float64 -> 'd'
    assert d(np.float64(1.0), 2.0) == 3.0


def test_miss_calls_hook_with_typecodes():
    seen = []

    def hook(disp, codes):
        seen.append(codes)
        disp._add_overload("".join(codes), entry(add_ll), "l", "(int64, int64) -> int64",
                           {"argtypes": (types.int64, types.int64)})

    d = make(py_add, hook=hook)
    assert d(4, 5) == 9
    assert d(6, 7) == 13
    assert seen == [("l", "l")]


def test_typecode_keys_of_arguments():
    seen = []

    def hook(disp, codes):
        seen.append(codes)
        raise KeyError("stop")

    d = make(lambda *a: None, hook=hook)
    d2 = make(lambda a: None, hook=hook)

    def key(v):
        seen.clear()
        with pytest.raises(KeyError):
            d2(v)
        return seen[0][0]

    assert key(True) == "?"
    assert key(3) == "l"
    assert key(2.0) == "d"
    assert key(1j) == "D"
    assert key(None) == "n"
    assert key(np.int8(1)) == "b"
    assert key(np.uint16(1)) == "H"
    assert key(np.float32(1)) == "f"
    assert key(np.complex64(1)) == "F"
    assert key(np.bool_(True)) == "?"
    assert key(np.zeros(3)) == "ad1C"
    assert key(np.zeros((3, 4))) == "ad2C"
    assert key(np.zeros((3, 4), order="F")) == "ad2F"
    assert key(np.zeros((3, 4))[:, ::2]) == "ad2A"
    assert key(np.zeros(6)[::2]) == "ad1A"
    assert key(np.zeros((), dtype=np.int32)) == "ai0C"
    assert key(np.zeros((2, 3), dtype=np.uint8)) == "aB2C"
    assert key((1, 2.0, (None, True))) == "(ld(n?))"
    assert key(()) == "()"
    assert key(np.float64) == "td"
    assert key(np.dtype(np.int32)) == "ti"
    assert d is not None


def test_untypeable_argument_raises_typing_error():
    d = make(py_add)
    with pytest.raises(hpcjit.TypingError, match="argument 1"):
        d(1, object())
    with pytest.raises(hpcjit.TypingError):
        d(np.zeros(3, dtype=">f8"), 1)  # non-native byte order


def test_wrong_argument_count_and_keywords():
    d = make(py_add, [("ll", add_ll, "l", "(int64, int64) -> int64")])
    with pytest.raises(TypeError):
        d(1)
    with pytest.raises(TypeError):
        d(1, 2, 3)
    assert d(1, b=2) == 3
    assert d(b=2, a=5) == 7


def py_defaults(a, b=10):
    return a + b


def test_defaults_are_applied():
    d = make(py_defaults, [("ll", add_ll, "l", "(int64, int64) -> int64")])
    d._lock()  # an omitted default is its own key ('=' marked): locked, it converts to "ll"
    assert d(1) == py_defaults(1)
    assert d(1, 2) == 3


def test_locked_conversion_and_no_match_message():
    def add_dl(ret, args):
        setret(ret, ctypes.c_double, arg(args, 0, ctypes.c_double) + arg(args, 1, ctypes.c_int64))
        return 0

    d = make(py_add, [("dl", add_dl, "d", "(float64, int64) -> float64")])
    d._lock()
    assert d(1.5, 2) == 3.5
    assert d(1, 2) == 3.0           # int converts to a float parameter
    assert d(True, np.int32(4)) == 5.0
    with pytest.raises(TypeError) as ei:
        d(1.0, "x")
    assert str(ei.value) == ("No matching definition for argument type(s) float64, unicode\n"
                             "Known signatures:\n  (float64, int64) -> float64")
    with pytest.raises(TypeError):
        d(1.0, 2.5)                 # float does not convert to int
    # conversions are remembered as aliases, not listed as signatures
    assert d(3, 4) == 7.0 and d(3, 4) == 7.0
    assert d.signatures == [(types.float64, types.int64)]


def sum1d(a):
    return a.sum()


def sum_entry(ret, args):
    A = hjarray(1)
    a = ctypes.cast(args[0], ctypes.POINTER(A))[0]
    base = a.data
    s = 0.0
    for i in range(a.shape[0]):
        s += ctypes.c_double.from_address(base + i * a.strides[0]).value
    setret(ret, ctypes.c_double, s)
    return 0


def test_array_argument_unboxing_all_layouts():
    d = make(sum1d, [("ad1C", sum_entry, "d", "(array(float64, 1d, C),) -> float64"),
                     ("ad1A", sum_entry, "d", "(array(float64, 1d, A),) -> float64")])
    x = np.arange(10.0)
    assert d(x) == sum1d(x)
    assert d(x[::3]) == sum1d(x[::3])
    assert d(x[::-1]) == sum1d(x[::-1])


def test_locked_array_layout_conversion():
    d = make(sum1d, [("ad1A", sum_entry, "d", "(array(float64, 1d, A),) -> float64")])
    d._lock()
    x = np.arange(5.0)
    assert d(x) == 10.0             # C array passes as A
    with pytest.raises(TypeError, match="No matching definition"):
        d(np.arange(5))             # int64 array: no conversion


def ident(a):
    return a


def test_return_of_argument_is_the_same_object_and_views():
    def ret_same(ret, args):
        ctypes.memmove(ret, args[0], ctypes.sizeof(hjarray(2)))
        return 0

    def ret_row(ret, args):
        A2, A1 = hjarray(2), hjarray(1)
        a = ctypes.cast(args[0], ctypes.POINTER(A2))[0]
        r = ctypes.cast(ret, ctypes.POINTER(A1))[0]
        r.meminfo = None
        r.parent = a.parent
        r.nitems = a.shape[1]
        r.itemsize = 8
        r.data = a.data + a.strides[0]
        r.shape[0] = a.shape[1]
        r.strides[0] = a.strides[1]
        return 0

    x = np.arange(12.0).reshape(3, 4)
    d = make(ident, [("ad2C", ret_same, "ad2C", "")])
    assert d(x) is x
    # a read-only array has its own typecode ('r', abi.h)
    d2 = make(ident, [("ad2C", ret_row, "ad1C", ""), ("rd2C", ret_row, "ad1C", "")])
    r = d2(x)
    assert np.shares_memory(r, x) and np.array_equal(r, x[1])
    r[0] = 100.0                    # a view: writes go to x
    assert x[1, 0] == 100.0
    x.flags.writeable = False
    assert not d2(x).flags.writeable


def test_owned_array_return_is_freed():
    A1 = hjarray(1)

    def alloc(ret, args):
        n = arg(args, 0, ctypes.c_int64)
        mi = rt_alloc(n * 8)
        if not mi:
            return -1
        data = MemInfo.from_address(mi).data
        r = ctypes.cast(ret, ctypes.POINTER(A1))[0]
        r.meminfo, r.parent, r.nitems, r.itemsize, r.data = mi, None, n, 8, data
        r.shape[0], r.strides[0] = n, 8
        for i in range(n):
            ctypes.c_double.from_address(data + 8 * i).value = i
        return 0

    d = make(lambda n: None, [("l", alloc, "ad1C", "")])
    a0, f0 = _core.memstats()
    out = d(5)
    assert np.array_equal(out, np.arange(5.0)) and out.flags.writeable and out.flags.c_contiguous
    assert out.ctypes.data % 64 == 0
    view = out[1:]
    del out
    gc.collect()
    assert _core.memstats() == (a0 + 1, f0)      # the view keeps the memory
    del view
    gc.collect()
    assert _core.memstats() == (a0 + 1, f0 + 1)
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        d(-1)


def test_tuple_arguments_and_results():
    def swap(ret, args):
        # (l, d) tuple: struct {int64; double}
        t = ctypes.cast(args[0], ctypes.POINTER(ctypes.c_int64 * 2))[0]
        out = ctypes.cast(ret, ctypes.POINTER(ctypes.c_int64 * 2))[0]
        out[0], out[1] = t[1], t[0]
        return 0

    d = make(lambda t: (t[1], t[0]), [("(ld)", swap, "(dl)", "")])
    assert d((3, 2.5)) == (2.5, 3)
    r = d((3, 2.5))
    assert type(r[0]) is float and type(r[1]) is int

    def mixed(ret, args):
        # (?, i, d): bool at 0, int32 at 4, double at 8
        buf = (ctypes.c_char * 16).from_address(ret)
        buf[0] = b"\x01"
        ctypes.c_int32.from_address(ret + 4).value = -7
        ctypes.c_double.from_address(ret + 8).value = 0.5
        return 0

    d2 = make(lambda: None, [("", mixed, "(?id)", "")])
    assert d2() == (True, -7, 0.5)


def test_none_bool_complex_float32_returns():
    def none(ret, args):
        return 0

    def cplx(ret, args):
        (ctypes.c_double * 2).from_address(ret)[:] = [1.0, -2.0]
        return 0

    def f32(ret, args):
        ctypes.c_float.from_address(ret).value = 0.5
        return 0

    def u64(ret, args):
        ctypes.c_uint64.from_address(ret).value = 2 ** 64 - 1
        return 0

    assert make(lambda: None, [("", none, "n", "")])() is None
    assert make(lambda: None, [("", cplx, "D", "")])() == 1 - 2j
    r = make(lambda: None, [("", f32, "f", "")])()
    assert r == 0.5 and type(r) is float
    assert make(lambda: None, [("", u64, "L", "")])() == 2 ** 64 - 1


def test_exceptions_from_compiled_code():
    def raises(ret, args):
        k = arg(args, 0, ctypes.c_int64)
        if k == 0:
            rt_raise(b"ValueError", b"bad value")
        elif k == 1:
            rt_raise_index(7, 0, 5)
        elif k == 2:
            rt_raise(b"NoSuchError", b"oops")
        elif k == 3:
            rt_raise(b"AssertionError", None)
        else:
            return 0
        return -1

    d = make(lambda k: None, [("l", raises, "n", "")])
    with pytest.raises(ValueError, match="^bad value$"):
        d(0)
    with pytest.raises(IndexError, match="^index 7 is out of bounds for axis 0 with size 5$"):
        d(1)
    with pytest.raises(RuntimeError, match="NoSuchError: oops"):
        d(2)
    with pytest.raises(AssertionError) as ei:
        d(3)
    assert ei.value.args == ()
    assert d(4) is None


def test_nogil_releases_the_gil():
    import threading
    import time
    # a ctypes callback re-acquires the GIL; the call must still work
    d = make(py_add, [("dd", add_dd, "d", "")], options={"nogil": True})
    results = []
    ts = [threading.Thread(target=lambda: results.append(d(1.0, 2.0))) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert results == [3.0] * 4
    del time


def test_attributes_and_wrapping():
    from hpcjit.dispatcher import make_dispatcher, check_options
    disp = make_dispatcher(py_add, check_options({}))
    assert disp.py_func is py_add
    assert disp.__name__ == "py_add" and disp.__wrapped__ is py_add
    assert disp.__doc__ == py_add.__doc__
    assert disp.targetoptions["error_model"] == "python"
    assert disp.signatures == [] and disp.overloads == {}
    assert "py_add" in repr(disp)


def test_signatures_and_overloads_lists():
    d = make(py_add, [("dd", add_dd, "d", "(float64, float64) -> float64"),
                      ("ll", add_ll, "l", "(int64, int64) -> int64")])
    assert d.signatures == [(types.float64, types.float64), (types.int64, types.int64)]
    assert [str(s) for s in d.nopython_signatures] == ["(float64, float64) -> float64",
                                                       "(int64, int64) -> int64"]
    assert set(d.overloads) == {(types.float64, types.float64), (types.int64, types.int64)}


def test_bad_add_overload_input():
    d = make(py_add)
    with pytest.raises(ValueError):
        d._add_overload("dz", entry(add_dd), "d", "", {})
    with pytest.raises(ValueError):
        d._add_overload("dd", entry(add_dd), "q", "", {})
    with pytest.raises(ValueError):
        d._add_overload("dd", 0, "d", "", {})


def test_runtime_symbols_and_memstats():
    names = {n for n, a in _core._runtime_symbols()}
    assert {"rt_alloc", "rt_alloc_zeroed", "rt_incref", "rt_decref", "rt_raise",
            "rt_raise_index", "rt_raise_zerodiv"} <= names
    a, f = _core.memstats()
    assert a >= f >= 0


def test_refcounts_do_not_leak_on_hits():
    d = make(py_add, [("dd", add_dd, "d", "")])
    x = 1.5
    before = sys.getrefcount(x)
    for _ in range(100):
        d(x, x)
    assert sys.getrefcount(x) == before


# ---- the Python layer --------------------------------------------------------

def test_njit_option_errors():
    with pytest.raises(TypeError, match="bogus"):
        hpcjit.njit(bogus=True)
    with pytest.raises(hpcjit.UnsupportedError, match="object mode"):
        hpcjit.jit(nopython=False)
    with pytest.raises(hpcjit.UnsupportedError, match="object mode"):
        hpcjit.njit(forceobj=True)
    with pytest.raises(ValueError):
        hpcjit.njit(error_model="fortran")
    with pytest.raises(ValueError):
        hpcjit.njit(inline="sometimes")


def test_njit_forms_make_dispatchers():
    def f(x):
        return x
    assert isinstance(hpcjit.njit(f), _core.Dispatcher)
    assert isinstance(hpcjit.njit()(f), _core.Dispatcher)
    d = hpcjit.njit(fastmath=True, nogil=True, parallel=True, cache=True, boundscheck=True,
                    error_model="numpy", inline="always")(f)
    o = d.targetoptions
    assert o["fastmath"] and o["nogil"] and o["parallel"] and o["boundscheck"]
    assert o["error_model"] == "numpy" and o["inline"] == "always"
    assert isinstance(hpcjit.jit(f), _core.Dispatcher)


def test_prange_runs_like_range():
    assert list(hpcjit.prange(5)) == list(range(5))
    assert list(hpcjit.prange(1, 10, 3)) == list(range(1, 10, 3))


def test_type_objects():
    t = hpcjit.types
    assert str(hpcjit.float64(hpcjit.float64[:], hpcjit.int64)) == \
        "(array(float64, 1d, A), int64) -> float64"
    assert str(t.float64[:, ::1]) == "array(float64, 2d, C)"
    assert str(t.float64[::1, :]) == "array(float64, 2d, F)"
    assert str(t.float64[::1]) == "array(float64, 1d, C)"
    assert str(t.UniTuple(t.int64, 3)) == "UniTuple(int64 x 3)"
    assert str(t.Tuple(t.int64, t.float64)) == "Tuple(int64, float64)"
    assert t.from_typecode("ad2F") == t.Array(t.float64, 2, "F")
    assert t.from_typecode("(ld)") == t.Tuple(t.int64, t.float64)
    for tc in ("?", "b", "h", "i", "l", "B", "H", "I", "L", "f", "d", "F", "D", "n",
               "ai3A", "(l(dd)n)", "tf"):
        assert t.from_typecode(tc).typecode == tc
    with pytest.raises(ValueError):
        t.from_typecode("z")
    assert hpcjit.float64(hpcjit.int64).as_typecodes() == ("d", ["l"])


# ---- on compiled code ----------------------------------------------------------

def _compiled_or_skip():
    try:
        from hpcjit import _compiler  # noqa: F401
    except ImportError as exc:
        pytest.skip(f"compiler not available: {exc}")


def test_compiled_signatures_inspect_and_overloads():
    _compiled_or_skip()
    from hpcjit import float64, int64

    @hpcjit.njit
    def f(a, b):
        return a + b

    assert f(1.0, 2.5) == f.py_func(1.0, 2.5)
    assert f(1, 2) == f.py_func(1, 2)
    assert f.signatures == [(float64, float64), (int64, int64)]
    assert [str(s) for s in f.nopython_signatures] == ["(float64, float64) -> float64",
                                                       "(int64, int64) -> int64"]
    ir = f.inspect_llvm()
    assert set(ir) == {(float64, float64), (int64, int64)}
    assert "define" in ir[(float64, float64)] and "fadd" in ir[(float64, float64)]
    asm = f.inspect_asm((int64, int64))
    assert isinstance(asm, str) and len(asm) > 0
    import io
    buf = io.StringIO()
    f.inspect_types(file=buf)
    assert "float64" in buf.getvalue() and "int64" in buf.getvalue()


def test_compiled_explicit_signatures_lock_and_convert():
    _compiled_or_skip()
    from hpcjit import float64, int64

    @hpcjit.njit([float64(float64[:], int64), "int64(int64[:], int64)"])
    def at(a, i):
        return a[i]

    x = np.arange(6.0)
    assert at(x, 2) == at.py_func(x, 2)
    assert at(x[::2], 1) == at.py_func(x[::2], 1)
    assert at(np.arange(4), np.int32(3)) == 3
    assert len(at.signatures) == 2
    with pytest.raises(TypeError, match="Known signatures"):
        at(np.arange(4.0, dtype=np.float32), 1)
    with pytest.raises(TypeError, match="No matching definition"):
        at(x, 1.5)


def test_compiled_keywords_defaults_and_returned_argument():
    _compiled_or_skip()

    @hpcjit.njit
    def scale(a, k=2.0):
        return a

    @hpcjit.njit
    def mul(a, b=3):
        return a * b

    x = np.ones(3)
    assert scale(x) is x and scale(a=x, k=1.0) is x
    assert mul(2) == mul.py_func(2) and mul(b=4, a=2) == mul.py_func(2, 4)


def test_compiled_allocation_is_freed():
    _compiled_or_skip()

    @hpcjit.njit
    def make(n):
        a = np.zeros(n)
        for i in range(n):
            a[i] = i
        return a

    a0, f0 = _core.memstats()
    for n in range(1, 50):
        np.testing.assert_array_equal(make(n), make.py_func(n))
    gc.collect()
    a1, f1 = _core.memstats()
    assert a1 - a0 == 49 and f1 - f0 == 49


@pytest.mark.numba_skip("hpcjit's phases (Numba records LLVM passes only with NUMBA_LLVM_PASS_TIMINGS)")
def test_get_metadata_pass_timings():
    @hpcjit.njit
    def foo(n):
        c = 0
        for i in range(n):
            for j in range(i):
                c += j
        return c

    assert foo(10) == foo.py_func(10)
    md = foo.get_metadata(foo.signatures[0])
    text = str(md["llvm_pass_timings"])
    assert "Finalize object" in text and "Front end" in text
    longest = md["llvm_pass_timings"].list_longest_first()
    assert longest == sorted(longest, key=lambda r: -r[1]) and all(t >= 0 for _, t in longest)
    assert set(md["timers"]) >= {"compiler_lock", "llvm_lock"}
    assert list(foo.get_metadata()) == [foo.signatures[0]]


@pytest.mark.numba_skip("hpcjit's report format")
def test_parallel_diagnostics(capsys):
    @hpcjit.njit(parallel=True)
    def loops(x):
        acc = 0.0
        for i in hpcjit.prange(x.shape[0]):
            for j in hpcjit.prange(3):
                acc += x[i] * j
        return acc

    x = np.arange(5.0)
    assert loops(x) == loops.py_func(x)
    loops.parallel_diagnostics(level=2)
    out = capsys.readouterr().out
    assert "Loop #1" in out and "reductions: acc" in out and "Loop #2" in out and "serial" in out
    with pytest.raises(ValueError):
        loops.parallel_diagnostics(level=9)


def test_compile_returns_a_callable():
    # Numba's dispatcher.compile(sig) returns the overload's entry point;
    # scripts call it (numba-examples legacy/sum.py)
    @hpcjit.njit
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                s += a[i, j]
        return s

    entry = total.compile("float64(float64[:, ::1])")
    a = np.arange(12.0).reshape(3, 4)
    assert callable(entry)
    assert entry(a) == total.py_func(a)
