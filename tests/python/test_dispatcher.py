"""The dispatcher: lazy specialisation, explicit signatures, argument
errors, introspection, options, keyword arguments, environment variables."""
import io
import os
import sys
import threading

import numpy as np
import pytest

import hpcjit
from hpcjit import jit, njit, prange
from conftest import AGAINST_NUMBA, check, run_python


def test_lazy_specialisation_per_argument_types():
    @njit
    def f(a, b):
        return a + b

    assert len(f.signatures) == 0
    check(f, 1, 2)
    assert len(f.signatures) == 1
    check(f, 3, 4)
    assert len(f.signatures) == 1
    check(f, 1.5, 2)
    assert len(f.signatures) == 2
    check(f, np.float32(1.5), np.float32(2.0))
    assert len(f.signatures) == 3
    joined = " ".join(str(s) for s in f.signatures)
    assert "int64" in joined and "float64" in joined and "float32" in joined


def test_lazy_specialisation_per_array_type():
    @njit
    def g(a, x):
        return a.size * x + a.ndim

    check(g, np.arange(3.0), 1.0)
    assert len(g.signatures) == 1
    check(g, np.arange(3.0), 2.0)
    assert len(g.signatures) == 1
    # another dtype, ndim or layout is a new specialisation
    check(g, np.arange(3, dtype=np.int32), 2.0)
    assert len(g.signatures) == 2
    check(g, np.arange(6.0)[::2], 2.0)
    assert len(g.signatures) == 3
    check(g, np.zeros((2, 2)), 2.0)
    assert len(g.signatures) == 4
    check(g, np.asfortranarray(np.zeros((2, 2))), 2.0)
    assert len(g.signatures) == 5


def test_explicit_signature_compiles_eagerly():
    @njit("float64(float64, int64)")
    def f(x, n):
        return x * n

    assert len(f.signatures) == 1
    check(f, 2.5, 3)


def test_explicit_signature_list_and_arrays():
    @njit(["float64(float64[:], int64)", "float32(float32[:], int64)"])
    def g(a, i):
        return a[i] * 2

    assert len(g.signatures) == 2
    check(g, np.arange(5.0), 3)
    check(g, np.arange(5, dtype=np.float32), -1)
    assert len(g.signatures) == 2


def test_explicit_2d_and_contiguous_signature():
    @njit("float64(float64[:, ::1])")
    def total(a):
        s = 0.0
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                s += a[i, j]
        return s

    check(total, np.arange(12.0).reshape(3, 4))


def test_wrong_kinds_of_arguments_list_signatures():
    @njit("float64(float64, int64)")
    def f(x, n):
        return x * n

    with pytest.raises(TypeError) as ei:
        f("a string", 1)
    if not AGAINST_NUMBA:
        msg = str(ei.value)
        assert "float64" in msg and "int64" in msg, msg
    with pytest.raises(TypeError):
        f(np.arange(3.0), 1)


@pytest.mark.numba_skip(reason="hpcjit lists the known signatures in the message")
def test_wrong_types_message_lists_signatures():
    @njit(["int64(int64)", "float32(float32)"])
    def f(x):
        return x
    with pytest.raises(TypeError) as ei:
        f(np.arange(3.0))
    msg = str(ei.value)
    assert "int64" in msg and "float32" in msg, msg


def test_wrong_argument_count():
    @njit
    def f(a, b):
        return a - b

    with pytest.raises(TypeError):
        f(1)
    with pytest.raises(TypeError):
        f(1, 2, 3)
    with pytest.raises(TypeError):
        f(1, c=3)


def test_keyword_arguments_and_defaults():
    @njit
    def f(a, b=10, c=0.5):
        return a * b + c

    check(f, 1)
    assert f(1, 2) == f.py_func(1, 2)
    assert f(a=3, b=4) == f.py_func(a=3, b=4)
    assert f(2, c=1.5) == f.py_func(2, c=1.5)
    assert f(b=2, a=5, c=0.0) == f.py_func(b=2, a=5, c=0.0)


def test_py_func_and_metadata():
    def plain(x):
        "doc string"
        return x + 1

    f = njit(plain)
    assert f.py_func is plain
    assert f.__name__ == "plain"
    assert f.__doc__ == "doc string"
    assert f(1) == 2


def test_decorator_forms():
    @njit()
    def a(x):
        return x + 1

    @njit(fastmath=False)
    def b(x):
        return x + 2

    def c0(x):
        return x + 3
    c = njit(c0)
    for fn in (a, b, c):
        check(fn, 1)
        check(fn, 1.5)


def test_inspect_types_llvm_asm():
    @njit
    def f(a, x):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * x
        return s

    check(f, np.arange(4.0), 2.0)
    buf = io.StringIO()
    f.inspect_types(file=buf)
    text = buf.getvalue()
    assert "float64" in text and ("s +=" in text or "s =" in text), text
    llvm = f.inspect_llvm()
    assert isinstance(llvm, dict) and len(llvm) == 1
    ir = next(iter(llvm.values()))
    assert "define" in ir
    asm = f.inspect_asm()
    assert isinstance(asm, dict) and len(asm) == 1
    assert len(next(iter(asm.values()))) > 0
    sig = f.signatures[0]
    assert "define" in f.inspect_llvm(sig)


@pytest.mark.parametrize("opts", [
    dict(cache=True), dict(fastmath=True), dict(boundscheck=True), dict(boundscheck=False),
    dict(nogil=True), dict(parallel=True), dict(error_model="numpy"), dict(error_model="python"),
    dict(inline="always"), dict(inline="never"), dict(nopython=True),
    dict(nogil=True, fastmath=True, boundscheck=True, error_model="numpy"),
])
def test_options_accepted(opts):
    @njit(**opts)
    def f(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * a[i]
        return s

    check(f, np.linspace(0.0, 1.0, 101), rtol=1e-9 if opts.get("fastmath") else 1e-12)


@pytest.mark.numba_skip(reason="Numba has an object mode; hpcjit refuses nopython=False")
def test_nopython_false_refused():
    with pytest.raises(Exception) as ei:
        @jit(nopython=False)
        def f(x):
            return x
        f(1)
    assert "object mode" in str(ei.value)


def test_jit_is_njit():
    @jit
    def f(x):
        return x * 2

    @jit(nopython=True)
    def g(x):
        return x * 3

    check(f, 4)
    check(g, 4.5)
    with pytest.raises(hpcjit.TypingError):
        @jit
        def h(x):
            return x + (1, 2)
        h(1.0)


@njit(parallel=True)
def psum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@njit(parallel=True)
def pfill(n):
    out = np.empty(n)
    for i in prange(n):
        out[i] = i * 0.5
    return out


@njit(parallel=True)
def pnested(m, n):
    out = np.zeros((m, n))
    for i in prange(m):
        for j in range(n):
            out[i, j] = i * n + j
    return out


def test_prange():
    check(psum, np.arange(1000.0), rtol=1e-12)
    check(pfill, 17)
    check(pnested, 5, 7)


@njit(nogil=True)
def nogil_work(a):
    s = 0.0
    for x in a:
        s += x * x
    return s


def test_nogil_runs_in_threads():
    a = np.linspace(0, 1, 10000)
    expect = nogil_work.py_func(a)
    results = [None] * 4

    def worker(k):
        results[k] = nogil_work(a)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert abs(r - expect) <= 1e-12 * abs(expect)


def test_bool_and_int_are_distinct():
    @njit
    def f(x):
        return x

    check(f, True)
    check(f, 1)
    assert f(True) is True
    assert type(f(1)) is int


# ---- environment variables (fresh interpreters) -----------------------------

ENV_CODE = """
    import numpy as np
    from hpcjit import njit

    @njit
    def f(a, b):
        s = 0
        for i in range(b):
            s += a * i
        return s

    @njit
    def g(x):
        return np.sqrt(x) + x ** 2

    print(f(2 ** 62, 3), g(2.0))
"""


def _expected_env_output():
    import math
    with np.errstate(all="ignore"):
        s = np.int64(0)
        for i in range(3):
            s = np.int64(s + np.int64(2 ** 62) * np.int64(i))
    return f"{int(s)} {math.sqrt(2.0) + 4.0}"


@pytest.mark.parametrize("env", [{"HPCJIT_OPT": "0"}, {"HPCJIT_OPT": "1"}, {"HPCJIT_OPT": "3"},
                                 {"HPCJIT_CPU_NAME": "generic"},
                                 {"HPCJIT_CPU_NAME": "generic", "HPCJIT_CPU_FEATURES": ""}])
def test_environment_variables(env):
    r = run_python(ENV_CODE, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == _expected_env_output(), r.stdout


@pytest.mark.numba_skip(reason="the NUMBA_* names as fallbacks are an hpcjit feature")
def test_numba_environment_fallbacks():
    r = run_python(ENV_CODE, env={"NUMBA_OPT": "0", "NUMBA_CPU_NAME": "generic"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == _expected_env_output(), r.stdout


def test_debug_compile_does_not_change_results():
    r = run_python(ENV_CODE, env={"HPCJIT_DEBUG_COMPILE": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == _expected_env_output(), r.stdout


def test_disable_jit():
    # with the JIT disabled the functions run as plain Python: no wrap-around
    r = run_python(ENV_CODE, env={"HPCJIT_DISABLE_JIT": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    first = r.stdout.split()[0]
    assert int(first) == 2 ** 62 * 3, r.stdout


def test_explicit_signature_converts_compatible_arguments():
    @njit("float64(float64)")
    def half(x):
        return x / 2

    check(half, 3.0)
    r = half(3)  # an int converts to float64, as in Numba
    assert r == 1.5 and isinstance(r, float)
    assert len(half.signatures) == 1


def test_explicit_signatures_lock_the_dispatcher():
    @njit("int64(int64)")
    def inc(x):
        return x + 1

    check(inc, 41)
    with pytest.raises(TypeError):
        inc(np.arange(3))
    with pytest.raises(TypeError):
        inc(1, 2)
    assert len(inc.signatures) == 1


def test_invalid_signature_string_is_an_error():
    with pytest.raises(Exception):
        @njit("float64(notatype)")
        def f(x):
            return x


def test_explicit_signature_with_keyword_call():
    @njit("float64(float64, float64)")
    def sub(a, b):
        return a - b

    assert sub(b=1.0, a=3.0) == 2.0


@njit
def picklable(x):
    return x * 2 + 1


def test_dispatchers_pickle_by_reference():
    import pickle
    assert picklable(3) == picklable.py_func(3)
    for proto in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(picklable, proto)) is picklable


@pytest.mark.numba_skip(reason="runs a spawn pool of hpcjit processes")
def test_multiprocessing_spawn_pool(tmp_path):
    (tmp_path / "pool_kernels.py").write_text(
        "from hpcjit import njit\n"
        "@njit\n"
        "def square_sum(n):\n"
        "    s = 0\n"
        "    for i in range(n):\n"
        "        s += i * i\n"
        "    return s\n")
    r = run_python(f"""
        import sys, multiprocessing as mp
        sys.path.insert(0, {str(tmp_path)!r})
        import pool_kernels
        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(2) as p:
                got = p.map(pool_kernels.square_sum, [10, 100, 1000])
            assert got == [pool_kernels.square_sum.py_func(n) for n in (10, 100, 1000)], got
            print("ok", got)
    """, env={"PYTHONPATH": os.pathsep.join([str(tmp_path)] + sys.path)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok")


def test_ints_above_int64_are_uint64():
    """Python ints in [2**63, 2**64) type as uint64, as in Numba (not an
    OverflowError); above that, OverflowError; small ints stay int64."""
    import hpcjit as hj

    @hj.njit
    def ident(x):
        return x

    @hj.njit
    def low_bits(x):
        return x & 0xFFFF

    for v in (2**63, 2**63 + 12345, 2**64 - 1):
        assert ident(v) == ident.py_func(v) == v
        assert low_bits(v) == low_bits.py_func(v)
    assert ident(5) == 5 and ident(-(2**63)) == -(2**63)
    with pytest.raises(OverflowError):
        ident(2**64)
    sigs = [str(s) for s in ident.nopython_signatures]
    assert any("uint64" in s for s in sigs) and any("int64" in s for s in sigs), sigs
    if not AGAINST_NUMBA:  # the shim module has no typeof; numba.typeof agrees
        assert str(hj.typeof(2**63)) == "uint64" and str(hj.typeof(2**63 - 1)) == "int64"


@njit
def with_defaults(a, b=2, c=0.5, d=(1, 2)):
    return a * b + c + d[0] - d[1]


def test_defaults_filled_in_by_the_dispatcher():
    import sys
    defs = with_defaults.py_func.__defaults__
    calls = [(3,), (3, 4), (3, 4, 1.5), (3, 4, 1.5, (7, 1)), (2.5,)]
    for args in calls:  # compiles
        assert with_defaults(*args) == with_defaults.py_func(*args)
    assert with_defaults(1, c=3.0) == with_defaults.py_func(1, c=3.0)  # the Python path
    before = [sys.getrefcount(x) for x in defs], sys.getrefcount(defs)
    for args in calls:
        for _ in range(50):
            assert with_defaults(*args) == with_defaults.py_func(*args)
    after = [sys.getrefcount(x) for x in defs], sys.getrefcount(defs)
    assert before == after
    with pytest.raises(TypeError):
        with_defaults()


@njit
def crc_default(data, poly=0x8408, scale=0.5, flip=False):
    crc = 0xFFFF
    for b in data:
        cur = 0xFF & b
        for _ in range(8):
            if (crc & 1) ^ (cur & 1):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur >>= 1
    return -crc * scale if flip else crc * scale


def xor_default(a, poly=0x8408):
    return a ^ poly


def test_omitted_defaults_are_compiled_as_constants():
    # an argument left to its default is a constant in the code (Numba's
    # Omitted): the same results as passing the value, and as py_func
    data = np.arange(200, dtype=np.uint8)
    calls = [(data,), (data, 0x8408), (data, 0x1021), (data, 0x1021, 2.0), (data, 0x8408, 0.5, True),
             (data, 7, 1.25, False), (data,)]
    for args in calls:
        assert crc_default(*args) == crc_default.py_func(*args), args
    assert crc_default(data, flip=True) == crc_default.py_func(data, flip=True)
    if not AGAINST_NUMBA:
        # the omitted default is folded into the code; passed, it is read
        mix = njit(xor_default)
        assert mix(3) == 3 ^ 0x8408 and mix(3, 5) == 6
        mix.inspect_llvm()  # fills llvm_ir of both specialisations
        keys = sorted(i["key"] for i in mix._infos)
        assert keys == ["l=l", "ll"], keys
        folded = [i["llvm_ir"] for i in mix._infos if i["key"] == "l=l"][0]
        assert "33800" in folded
