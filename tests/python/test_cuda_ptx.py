"""hpcjit.cuda's compiler without a GPU: every kernel of cuda_kernels.py is
compiled to PTX and assembled by ptxas for sm_80 and sm_90; located errors
for what kernels cannot do; compile_ptx's return types; device functions
called from Python run their py_func."""
import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import cuda_kernels as K  # noqa: E402

from hpcjit import cuda, errors, njit  # noqa: E402
from hpcjit.cuda import compile_kernel, compile_ptx  # noqa: E402


def _ptxas():
    for cand in (shutil.which("ptxas"),
                 os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "ptxas"),
                 "/usr/local/cuda/bin/ptxas"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


PTXAS = _ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found (PATH, CUDA_HOME, /usr/local/cuda/bin)")


def assemble(ptx, arch, tmp_path):
    f = tmp_path / f"k_{arch}.ptx"
    f.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", "-o", os.devnull, str(f)], capture_output=True, text=True)
    assert r.returncode == 0, f"ptxas -arch={arch} failed:\n{r.stderr}\n{ptx[:4000]}"


def nflat(a):
    """PTX parameters of one kernel argument (docs/CUDA.md)."""
    if isinstance(a, np.ndarray):
        return 1 + 2 * a.ndim
    if isinstance(a, tuple):
        return sum(nflat(v) for v in a)
    return 2 if isinstance(a, (complex, np.complexfloating)) else 1


def test_suite_is_broad():
    assert len(K.CASES) >= 40
    names = [c.name for c in K.CASES]
    assert len(set(names)) == len(names)


@needs_ptxas
@pytest.mark.parametrize("case", K.CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("cc", [(8, 0), (9, 0)], ids=["sm_80", "sm_90"])
def test_kernel_assembles(case, cc, tmp_path):
    args = case.make(np.random.default_rng(0))
    code = compile_kernel(case.kernel, K.typecodes(args), cc=cc)
    assert f".target sm_{cc[0]}{cc[1]}" in code.ptx
    assert f".visible .entry {code.entry}(" in code.ptx
    assert code.rettype == "n" and not code.debug
    # the flattened parameters of docs/CUDA.md
    head = code.ptx[code.ptx.index(f".entry {code.entry}("):]
    params = head[:head.index(")")].count(".param ")
    assert params == sum(nflat(a) for a in args)
    assemble(code.ptx, f"sm_{cc[0]}{cc[1]}", tmp_path)


@needs_ptxas
def test_options_fastmath_maxreg_opt(tmp_path):
    c = next(c for c in K.CASES if c.name == "math_f32")
    args = c.make(np.random.default_rng(1))
    fast = compile_kernel(c.kernel, K.typecodes(args), fastmath=True, max_registers=32, max_threads=256)
    assert ".maxnreg 32" in fast.ptx and ".maxntid 256" in fast.ptx
    assert "approx" in fast.ptx or ".ftz" in fast.ptx
    assemble(fast.ptx, "sm_90", tmp_path)
    slow = compile_kernel(c.kernel, K.typecodes(args), opt=False)
    assemble(slow.ptx, "sm_90", tmp_path)
    assert "__nv_" not in slow.ptx  # libdevice linked in, not called out


@needs_ptxas
def test_debug_records_errors(tmp_path):
    for k in K.DEBUG_KERNELS:
        code = compile_kernel(k, ["ad1C"], debug=True)
        assert code.debug
        assert ".visible .global .align 8 .b8 __hpcjit_error[56]" in code.ptx
        assemble(code.ptx, "sm_90", tmp_path)
        plain = compile_kernel(k, ["ad1C"])
        assert not plain.debug and "__hpcjit_error" not in plain.ptx


def test_error_layout_documented():
    from hpcjit.cuda import compiler
    assert compiler.ERROR_SIZE == 56 and compiler.ERROR_KINDS[2] == "IndexError"
    doc = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "CUDA.md")
    if os.path.exists(doc):
        assert "__hpcjit_error" in open(doc).read()


def test_compile_ptx_return_types():
    ptx, rt = compile_ptx(K.vec_add, "void(float32[:], float32[:], float32[:])")
    assert str(rt) in ("none", "void") and ".target sm_75" in ptx
    ptx, rt = compile_ptx(K.clamp, "float64(float64, float64, float64)", device=True)
    assert str(rt) == "float64" and ".visible .func" in ptx
    ptx, rt = compile_ptx(K.smooth.py_func, "(float32,)", device=True, cc=(8, 0))
    assert str(rt) == "float64" and ".target sm_80" in ptx


NUMBA_SIGS = [
    ("vec_add", "void(float32[:], float32[:], float32[:])", False),
    ("triad", "void(float64[:], float64[:], float64[:], float64)", False),
    ("clamp", "float64(float64, float64, float64)", True),
    ("clamp", "(int32, int64, int64)", True),
    ("smooth", "(float32,)", True),
    ("warp_sum", "(int32,)", True),
]


@pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                    reason="numba-cuda is not installed (its compile_ptx also needs libNVVM)")
@pytest.mark.parametrize("name,sig,device", NUMBA_SIGS)
def test_compile_ptx_matches_numba(name, sig, device):
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack  # numba-cuda 0.30 names it; NumPy 2.5 removed it
    from numba import cuda as ncuda
    f = getattr(K, name)
    f = getattr(f, "py_func", f)
    try:
        _, nrt = ncuda.compile_ptx(f, sig, device=device)
    except Exception as e:  # no libNVVM, or a kernel naming hpcjit.cuda that Numba cannot type
        pytest.skip(f"numba.cuda.compile_ptx: {type(e).__name__}: {e}")
    _, rt = compile_ptx(f, sig, device=device)
    assert str(rt) == str(nrt)


def test_dropin_numba_cuda(tmp_path):
    script = tmp_path / "k.py"
    script.write_text("from numba import cuda\n"
                      "def k(a, b):\n"
                      "    i = cuda.grid(1)\n"
                      "    if i < a.size:\n"
                      "        b[i] = a[i] * 2 + cuda.threadIdx.x\n"
                      "ptx, rt = cuda.compile_ptx(k, 'void(float64[:], float64[:])', cc=(8, 0))\n"
                      "print(rt, '.target sm_80' in ptx, '.entry' in ptx)\n")
    r = subprocess.run([sys.executable, "-m", "hpcjit.numba", str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["none", "True", "True"]


def test_device_functions_run_py_func():
    rng = np.random.default_rng(2)
    for x in rng.random(20) * 1.4 - 0.2:
        assert K.smooth(x) == K.smooth.py_func(x)
        assert K.clamp(x, 0.0, 0.5) == K.clamp.py_func(x, 0.0, 0.5)


# ---- located errors ---------------------------------------------------------------------

def k_alloc(a):
    tmp = np.empty(4)
    a[0] = tmp[0]


def k_returns(a):
    return a[0]


def k_print(a):
    print(a)


def k_print_fstring(a):
    print(f"{a[0]}")


def k_bad_shared(a, n):
    s = cuda.shared.array(n, np.float32)
    a[0] = s[0]


def k_atomic_bad(a):
    cuda.atomic.add(a, 0, 1.0)


def _check_located(exc, fn, line_text):
    msg = str(exc)
    assert fn.__code__.co_filename in msg
    assert line_text in msg and "^" in msg


@pytest.mark.parametrize("fn,codes,cls,text", [
    (k_alloc, ["ad1C"], errors.UnsupportedError, "tmp = np.empty(4)"),
    (k_returns, ["ad1C"], errors.TypingError, "def k_returns"),
    (k_print, ["ad1C"], errors.UnsupportedError, "print(a)"),
    (k_print_fstring, ["ad1C"], errors.UnsupportedError, 'print(f"{a[0]}")'),
    (k_bad_shared, ["af1C", "l"], errors.UnsupportedError, "cuda.shared.array(n, np.float32)"),
    (k_atomic_bad, ["a?1C"], errors.TypingError, "cuda.atomic.add(a, 0, 1.0)"),
], ids=["alloc", "return", "print_array", "print_fstring", "shared_shape", "atomic_dtype"])
def test_located_errors(fn, codes, cls, text):
    with pytest.raises(cls) as ei:
        compile_kernel(fn, codes)
    _check_located(ei.value, fn, text)


def test_cuda_in_njit_is_an_error():
    @njit
    def f(a):
        cuda.syncthreads()
        return a

    with pytest.raises(errors.UnsupportedError, match="CUDA kernels"):
        f(1.0)
    assert f.py_func  # the same function, run by CPython, says the same where it is used
    with pytest.raises(RuntimeError, match="inside a CUDA kernel"):
        f.py_func(1.0)


@needs_ptxas
def test_lineinfo_gives_loc(tmp_path):
    c = next(c for c in K.CASES if c.name == "device_calls")
    args = c.make(np.random.default_rng(3))
    code = compile_kernel(c.kernel, K.typecodes(args), lineinfo=True)
    import inspect
    lines, first = inspect.getsourcelines(c.kernel)
    call_line = first + next(k for k, l in enumerate(lines) if "smooth(x[i])" in l)
    locs = [int(l.split()[2]) for l in code.ptx.splitlines() if l.strip().startswith(".loc")]
    assert call_line in locs  # the kernel's own lines, as the file numbers them
    lines, first = inspect.getsourcelines(K.smooth.py_func)
    assert first + next(k for k, l in enumerate(lines) if "return clamp" in l) in locs  # inlined device function
    assert 'cuda_kernels.py"' in code.ptx and ".debug_info" not in code.ptx
    assemble(code.ptx, "sm_90", tmp_path)


def test_debug_error_site_line():
    code = compile_kernel(K.debug_raise, ["ad1C"], debug=True, opt=False)
    line = K.debug_raise.__code__.co_firstlineno + 3  # raise ValueError("negative")
    assert f"store i32 {line}, " in code.llvm_ir  # __hpcjit_error.line of that raise
    assert "store i32 5, " in code.llvm_ir  # kind 5: ValueError (compiler.ERROR_KINDS)


# every math.* function hpcjit supports on the CPU, in kernels through libdevice
MATH1 = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "degrees", "erf", "erfc",
         "exp", "expm1", "fabs", "floor", "gamma", "lgamma", "log", "log10", "log1p", "log2", "radians", "sin",
         "sinh", "sqrt", "tan", "tanh", "trunc", "isfinite", "isinf", "isnan"]
MATH2 = ["atan2", "copysign", "hypot", "pow"]


@pytest.fixture(scope="module")
def math_module(tmp_path_factory):
    d = tmp_path_factory.mktemp("mathk")
    src = ["import math", "from hpcjit import cuda", ""]
    for fn in MATH1:
        src += [f"def k_{fn}(a, out):", "    i = cuda.grid(1)", "    if i < a.size:",
                f"        out[i] = math.{fn}(a[i])", ""]
    for fn in MATH2:
        src += [f"def k_{fn}(a, out):", "    i = cuda.grid(1)", "    if i < a.size:",
                f"        out[i] = math.{fn}(a[i], 0.5)", ""]
    src += ["def k_frexp(a, out):", "    i = cuda.grid(1)", "    m, e = math.frexp(a[i])", "    out[i] = m + e", "",
            "def k_modf(a, out):", "    i = cuda.grid(1)", "    f, w = math.modf(a[i])", "    out[i] = f + w", "",
            "def k_ldexp(a, out):", "    i = cuda.grid(1)", "    out[i] = math.ldexp(a[i], 3)", "",
            "def k_gcd(a, out):", "    i = cuda.grid(1)", "    out[i] = math.gcd(int(a[i]), 12)", ""]
    (d / "cuda_mathk.py").write_text("\n".join(src))
    sys.path.insert(0, str(d))
    try:
        import cuda_mathk
    finally:
        sys.path.remove(str(d))
    return cuda_mathk


@needs_ptxas
@pytest.mark.parametrize("fn", MATH1 + MATH2 + ["frexp", "modf", "ldexp", "gcd"])
def test_math_functions(fn, math_module, tmp_path):
    import math
    k = getattr(math_module, "k_" + fn)
    for code in ("ad1C", "af1C"):
        kc = compile_kernel(k, [code, code])
        assemble(kc.ptx, "sm_90", tmp_path)


def test_atomic_minmax_semantics():
    """Float atomic.max/min are Python's max(old, val) (a CAS loop: a stored NaN
    stays, a NaN val changes nothing); nanmax/nanmin treat NaN as missing."""
    c = next(c for c in K.CASES if c.name == "minmax_atomic_f32")
    code = compile_kernel(c.kernel, ["af1C", "af1C"], opt=False)
    assert "cmpxchg" in code.llvm_ir and "atomicrmw fmax" not in code.llvm_ir
    c = next(c for c in K.CASES if c.name == "atomic_nanminmax")
    code = compile_kernel(c.kernel, ["ad1C", "ad1C"], opt=False)
    assert "atomicrmw fmax" in code.llvm_ir and "atomicrmw fmin" in code.llvm_ir
    # the host's view of the same rule, on the reference values
    old, vals = 1.0, [np.nan, 3.0, 2.0]
    for v in vals:
        old = max(old, v)
    assert old == 3.0 and np.isnan(max(np.nan, 1.0))


# ---- print() in kernels: one vprintf call per print ----------------------------------

def k_print_values(a, n, flag):
    i = cuda.grid(1)
    print("i =", i, a[i], n, flag, None, "100%", sep=", ")
    print(a[i] * 1j, end="|\n")


@needs_ptxas
def test_print_is_vprintf(tmp_path):
    ptx = compile_kernel(k_print_values, ["af1C", "B", "?"], cc=(8, 0)).ptx
    assert ptx.count("vprintf") >= 3  # the declaration and two calls
    # the line's format string: text as is (% doubled), Numba's formats
    fmt = "i =, %lld, %f, %llu, %s, None, 100%%\n"
    assert "{" + ", ".join(str(b) for b in fmt.encode()) in ptx
    assert "{" + ", ".join(str(b) for b in "(%f%+fj)|\n".encode()) in ptx
    assemble(ptx, "sm_80", tmp_path)
    assemble(compile_kernel(k_print_values, ["af1C", "B", "?"], cc=(9, 0)).ptx, "sm_90", tmp_path)


# ---- HPCJIT_CUDA_ARCHS ------------------------------------------------------------------

def test_cuda_archs_parse_and_pick():
    from hpcjit.cuda import compiler as C
    from hpcjit.cuda.cudadrv.error import CudaSupportError
    assert C.cuda_archs("") is None
    assert C.cuda_archs("90,80") == [(8, 0), (9, 0)]
    assert C.cuda_archs("sm_80 sm_86;compute_90a 7.5") == [(7, 5), (8, 0), (8, 6), (9, 0)]
    for bad in ("sm_xx", "35", "8.x"):
        with pytest.raises(ValueError, match="HPCJIT_CUDA_ARCHS"):
            C.cuda_archs(bad)
    archs = C.cuda_archs("70,80,90")
    assert C.pick_arch((8, 6), archs) == (8, 0)   # the newest the device runs
    assert C.pick_arch((9, 0), archs) == (9, 0)
    assert C.pick_arch(None, archs) == (9, 0)     # no device: the newest listed
    assert C.pick_arch((8, 6), None) == (8, 6)    # no list: the device's own
    with pytest.raises(CudaSupportError, match="sm_70, sm_80, sm_90: none runs on this device"):
        C.pick_arch((6, 1), archs)


def k_archs(a):
    a[cuda.grid(1)] = 1.0


def test_cuda_archs_sets_compile_ptx_default(monkeypatch):
    monkeypatch.setenv("HPCJIT_CUDA_ARCHS", "sm_75,sm_86")
    ptx, _ = compile_ptx(k_archs, "void(float64[:])")
    assert ".target sm_86" in ptx
    ptx, _ = compile_ptx(k_archs, "void(float64[:])", cc=(8, 0))  # an explicit cc wins
    assert ".target sm_80" in ptx
