"""hpcjit cc (python/hpcjit/aot.py, _aot.py, docs/AOT.md): a module's
functions with explicit signatures compiled ahead of time into an extension
module that is imported in a fresh process with hpcjit's compiler blocked
(no LLVM loaded), on several architectures; each function checked against
its py_func."""
import json
import os
import platform
import subprocess
import sys
import textwrap

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit internals", allow_module_level=True)

from hpcjit import _aot, aot  # noqa: E402

pytestmark = pytest.mark.numba_skip("tests hpcjit cc")

SRC = '''
import numpy as np
from hpcjit import njit, prange

SCALE = 3

@njit
def helper(x):
    return x * SCALE + 1

@njit(["int64(int64)", "float64(float64)"])
def poly(x):
    """helper(x) + x**2"""
    return helper(x) + x * x

@njit("float64(float64[:], float64[:])")
def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s

@njit("float64[:, :](int64, int64)")
def grid(n, m):
    out = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            out[i, j] = np.sin(i) * np.cos(j)
    return out

@njit("float64[:](float64[:])")
def vexp(a):
    # a loop over libm calls: glibc's vector variants on the host build (-lmvec)
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = np.exp(-a[i]) * np.sin(a[i]) + a[i] ** 1.5
    return out

@njit("UniTuple(float64, 2)(float64[:])")
def minmax(a):
    return a.min(), a.max()

@njit("int64(int64, int64)")
def div(a, b):
    return a // b

@njit("float64(float64[:])", parallel=True)
def psum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += np.sqrt(a[i])
    return s

@njit
def rdepth_(n):
    if n == 0:
        return 0
    return rdepth_(n - 1) + 1

@njit("int64(int64)")
def rdepth(n):
    return rdepth_(n)

@njit("int64(int64)")
def fib(n):
    # calls itself by its name, which the signature compiles before it is bound
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

@njit
def not_exported(x):
    return x
'''

CALLS = '''
import sys
sys.modules["hpcjit._compiler"] = None     # the compiler must not be needed
import json, numpy as np
import {name} as m
a = np.linspace(0.0, 3.0, 1001)
b = np.cos(a)
out = {{
    "arch": m.__hpcjit_arch__,
    "poly_i": m.poly(7), "poly_f": m.poly(0.5), "poly_kw": m.poly(x=3),
    "dot": m.dot(a, b),
    "grid": m.grid(4, 5).tolist(),
    "vexp": m.vexp(a).tolist(),
    "minmax": list(m.minmax(a)),
    "div": [m.div(7, 2), m.div(-7, 2)],
    "psum": m.psum(a),
    "fib": m.fib(20),
    "doc": m.poly.__doc__,
    "names": sorted(k for k in vars(m) if not k.startswith("_")),
}}
try:
    m.div(1, 0)
except ZeroDivisionError as exc:
    out["zerodiv"] = str(exc)
out["rdepth"] = m.rdepth(5000)
try:
    m.rdepth(10**9)
except RecursionError as exc:
    out["recursion"] = str(exc)
try:
    m.dot("x", b)
except TypeError as exc:
    out["typeerror"] = str(exc).splitlines()[0]
from hpcjit import _core
al, fr = _core.memstats()
out["balanced"] = al == fr
out["llvm_mapped"] = "libLLVM" in open("/proc/self/maps").read()
print("RESULT " + json.dumps(out))
'''


def _env(extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(os.path.dirname(
        hpcjit.__file__))] + env.get("PYTHONPATH", "").split(os.pathsep) if p)
    env.pop("HPCJIT_AOT_ARCH", None)
    env.update(extra or {})
    return env


def _cc(tmp_path, src, *args, check=True):
    mod = tmp_path / "kernels.py"
    mod.write_text(textwrap.dedent(src))
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "hpcjit.aot", str(mod), "--outdir", str(out),
                        "--json", *args], capture_output=True, text=True, env=_env(),
                       cwd=tmp_path, timeout=300)
    if check:
        assert r.returncode == 0, r.stderr
    return r, out


def _run_calls(outdir, name, extra=None):
    r = subprocess.run([sys.executable, "-c", CALLS.format(name=name)], capture_output=True,
                       text=True, env=_env(extra), cwd=outdir, timeout=120)
    assert r.returncode == 0, r.stderr
    line = [x for x in r.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """The source module imported here (for py_func) and its cc build."""
    tmp = tmp_path_factory.mktemp("aot")
    machine = platform.machine()
    archs = "host,x86-64,x86-64-v3" if machine == "x86_64" else "host,generic"
    r, out = _cc(tmp, SRC, "-o", "kern_aot", "--archs", archs, "-q")
    sys.path.insert(0, str(tmp))
    try:
        import kernels as src  # noqa: F401
    finally:
        sys.path.remove(str(tmp))
        sys.modules.pop("kernels", None)
    return src, out, json.loads(r.stdout)


def _expected(src):
    a = np.linspace(0.0, 3.0, 1001)
    b = np.cos(a)
    return {
        "poly_i": src.poly.py_func(7), "poly_f": src.poly.py_func(0.5),
        "poly_kw": src.poly.py_func(3), "dot": src.dot.py_func(a, b),
        "grid": src.grid.py_func(4, 5).tolist(), "vexp": src.vexp.py_func(a).tolist(),
        "minmax": list(src.minmax.py_func(a)),
        "div": [src.div.py_func(7, 2), src.div.py_func(-7, 2)],
        "psum": src.psum.py_func(a),
        "fib": src.fib.py_func(20),
    }


def _check(got, src):
    exp = _expected(src)
    for k, v in exp.items():
        np.testing.assert_allclose(np.asarray(got[k], dtype=float), np.asarray(v, dtype=float),
                                   rtol=1e-12, err_msg=k)
    assert isinstance(got["poly_i"], int) and isinstance(got["poly_f"], float)
    assert got["zerodiv"] == "integer division or modulo by zero"
    assert got["rdepth"] == 5000 and "stack is nearly full" in got["recursion"]
    assert got["typeerror"].startswith("No matching definition")
    assert got["doc"] == "helper(x) + x**2"
    assert got["balanced"]
    assert not got["llvm_mapped"]


def test_build_report(kernels):
    src, out, report = kernels
    assert os.path.isfile(report["path"]) and os.path.dirname(report["path"]) == str(out)
    names = {f["name"] for f in report["functions"]}
    assert names == {"poly", "dot", "grid", "vexp", "minmax", "div", "psum", "rdepth", "fib"}  # explicit signatures only
    per_arch = {}
    for f in report["functions"]:
        per_arch.setdefault(f["arch"], []).append(f["name"])
    assert set(per_arch) == set(report["archs"]) and len(report["archs"]) >= 2
    assert all(len(v) == 10 for v in per_arch.values())  # poly has two signatures
    assert "rt_alloc" in report["runtime_symbols"]


def test_import_without_compiler(kernels):
    src, out, _ = kernels
    got = _run_calls(out, "kern_aot")
    _check(got, src)
    assert got["arch"] == "host"  # the build machine's own features are the most
    assert "poly" in got["names"] and "not_exported" not in got["names"]


@pytest.mark.parametrize("arch", ["x86-64", "x86-64-v3"])
def test_each_arch(kernels, arch):
    src, out, report = kernels
    if arch not in report["archs"]:
        pytest.skip(f"{arch} not built on {platform.machine()}")
    if _aot.missing_features(aot.ARCH_FEATURES["x86_64"][arch]):
        pytest.skip(f"this CPU cannot run {arch}")
    got = _run_calls(out, "kern_aot", {"HPCJIT_AOT_ARCH": arch})
    assert got["arch"] == arch
    _check(got, src)


def test_exports_list(tmp_path):
    src = """
    from hpcjit import njit

    @njit
    def f(x, y):
        return x * y + 1

    @njit("float64(float64)")
    def g(x):
        return -x

    exports = [("f", ["int64(int64, int64)", "float64(float64, float64)"])]
    """
    r, out = _cc(tmp_path, src, "-o", "listed", "-q")
    rep = json.loads(r.stdout)
    assert {(f["name"], f["signature"]) for f in rep["functions"]} == {
        ("f", "(int64, int64) -> int64"), ("f", "(float64, float64) -> float64")}
    code = ("import sys; sys.modules['hpcjit._compiler'] = None; import listed; "
            "print(listed.f(3, 4), listed.f(0.5, 4.0), hasattr(listed, 'g'))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_env(), cwd=out, timeout=60)
    assert p.returncode == 0, p.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        import kernels as ns  # the source module, for py_func
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kernels", None)
    assert p.stdout.split() == [str(ns.f.py_func(3, 4)), str(ns.f.py_func(0.5, 4.0)), "False"]


def test_errors(tmp_path):
    r, _ = _cc(tmp_path, "from hpcjit import njit\n@njit\ndef f(x):\n    return x\n",
               check=False)
    assert r.returncode == 1 and "no @njit function with an explicit signature" in r.stderr
    r, _ = _cc(tmp_path, SRC, "--archs", "pentium-mmx-9000", check=False)
    assert r.returncode == 1 and "unknown architecture 'pentium-mmx-9000'" in r.stderr
    r, _ = _cc(tmp_path, SRC, "-o", "not-a-name", check=False)
    assert r.returncode == 1 and "must be a Python identifier" in r.stderr
    r, _ = _cc(tmp_path, SRC + "\nexports = ['nothing_here']\n", check=False)
    assert r.returncode == 1 and "'nothing_here'" in r.stderr


def test_forced_arch_not_built(kernels):
    _, out, _ = kernels
    code = "import kern_aot"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_env({"HPCJIT_AOT_ARCH": "znver9"}), cwd=out, timeout=60)
    assert p.returncode != 0 and "HPCJIT_AOT_ARCH='znver9'" in p.stderr


def test_choose_arch_by_features():
    archs = [["x86-64", "x86_64", ["sse", "sse2"]],
             ["x86-64-v3", "x86_64", aot.ARCH_FEATURES["x86_64"]["x86-64-v3"]],
             ["x86-64-v4", "x86_64", aot.ARCH_FEATURES["x86_64"]["x86-64-v4"]],
             ["neoverse-v2", "aarch64", aot.ARCH_FEATURES["aarch64"]["neoverse-v2"]]]
    v3_flags = {"sse", "sse2", "pni", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16", "lahf_lm",
                "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}
    if platform.machine() != "x86_64":
        pytest.skip("x86 flag names")
    assert _aot.choose_arch(archs, flags={"sse", "sse2"}, forced="") == 0
    assert _aot.choose_arch(archs, flags=v3_flags, forced="") == 1
    v4 = v3_flags | {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
    assert _aot.choose_arch(archs, flags=v4, forced="") == 2
    assert _aot.choose_arch(archs, flags=v4, forced="x86-64") == 0
    with pytest.raises(ImportError, match="lacks"):
        _aot.choose_arch(archs[1:], flags={"sse", "sse2"}, forced="")
    assert _aot.missing_features(["avx512f", "sse4.2", "64bit"], flags={"sse4_2"},
                                 machine="x86_64") == ["avx512f"]


CSRC = """
from hpcjit import njit

@njit("float64(float64, int64)")
def powsum(x, n):
    s = 0.0
    for i in range(n):
        s += x ** i
    return s

@njit(["int64(int64, int64)", "float64(float64, float64)"])
def fdiv(a, b):
    return a // b

@njit("bool(int32)")
def is_even(k):
    return k % 2 == 0
"""

CMAIN = r"""
#include <stdio.h>
#include "lib.h"
int main(void) {
    printf("%.17g\n", lib_powsum(0.5, 12));
    printf("%lld %lld\n", (long long)lib_fdiv_int64_int64(-7, 2), (long long)lib_fdiv_int64_int64(9, 4));
    printf("%.17g\n", lib_fdiv_float64_float64(7.5, -2.0));
    printf("%d %d\n", (int)lib_is_even(10), (int)lib_is_even(7));
    printf("%lld\n", (long long)lib_fdiv_int64_int64(1, 0));
    return 0;
}
"""


def test_c_header_library(tmp_path):
    import shutil
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    r, out = _cc(tmp_path, CSRC, "--c-header", "-o", "lib", "-q")
    rep = json.loads(r.stdout)
    assert {f["symbol"] for f in rep["functions"]} == {
        "lib_powsum", "lib_fdiv_int64_int64", "lib_fdiv_float64_float64", "lib_is_even"}
    header = (out / "lib.h").read_text()
    assert "double lib_powsum(double x, int64_t n);" in header
    assert "bool lib_is_even(int32_t k);" in header
    (tmp_path / "main.c").write_text(CMAIN)
    exe = tmp_path / "main"
    subprocess.run([cc, "-o", str(exe), str(tmp_path / "main.c"), f"-I{out}", f"-L{out}", "-llib",
                    f"-Wl,-rpath,{out}"], check=True)
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, env={})
    assert p.returncode == 0, p.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        import kernels as src
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("kernels", None)
    lines = p.stdout.splitlines()
    assert float(lines[0]) == src.powsum.py_func(0.5, 12)
    assert lines[1].split() == [str(src.fdiv.py_func(-7, 2)), str(src.fdiv.py_func(9, 4))]
    assert float(lines[2]) == src.fdiv.py_func(7.5, -2.0)
    assert lines[3].split() == [str(int(src.is_even.py_func(10))), str(int(src.is_even.py_func(7)))]
    # an exception cannot reach a C caller: reported on stderr, 0 returned (@cfunc's rule)
    assert lines[4] == "0" and "ZeroDivisionError" in p.stderr
    # the library exports its functions only, and needs neither Python nor LLVM
    nm = subprocess.run(["nm", "-D", "--defined-only", str(out / "liblib.so")],
                        capture_output=True, text=True).stdout
    exported = {ln.split()[-1] for ln in nm.splitlines() if " T " in ln}
    assert exported == {f["symbol"] for f in rep["functions"]}
    ldd = subprocess.run(["ldd", str(out / "liblib.so")], capture_output=True, text=True).stdout
    assert "python" not in ldd.lower() and "llvm" not in ldd.lower()


def test_c_header_refuses_arrays(tmp_path):
    r, _ = _cc(tmp_path, SRC, "--c-header", check=False)
    assert r.returncode == 1 and "arrays are not C arguments yet" in r.stderr
    r, _ = _cc(tmp_path, CSRC, "--c-header", "--archs", "host,x86-64", check=False)
    assert r.returncode == 1 and "one architecture" in r.stderr


def test_launcher_cc_help():
    launcher = os.environ.get("HPCJIT_LAUNCHER")
    if not launcher:
        root = os.path.dirname(os.path.dirname(os.path.dirname(hpcjit.__file__)))
        launcher = os.path.join(root, "launcher", "hpcjit")
    if not os.path.exists(launcher):
        pytest.skip("launcher not built here")
    r = subprocess.run([launcher, "cc", "--help"], capture_output=True, text=True, env=_env())
    assert r.returncode == 0 and "usage: hpcjit cc" in r.stdout
    r = subprocess.run([launcher, "--help"], capture_output=True, text=True)
    assert "  cc " in r.stdout


def test_cc_warm_fills_the_cache(tmp_path):
    """hpcjit cc --warm SCRIPT is hpcjit cache warm SCRIPT: the script's
    explicit signatures compiled into the cache before a job."""
    prog = tmp_path / "job.py"
    prog.write_text(textwrap.dedent("""
    from hpcjit import njit

    @njit("float64(float64)")
    def f(x):
        return x * 2.0 + 1.0

    if __name__ == "__main__":
        raise SystemExit("the main part must not run")
    """))
    env = _env({"HPCJIT_CACHE_DIR": str(tmp_path / "cache")})
    cmd = [sys.executable, "-m", "hpcjit.aot", "--warm", str(prog), "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["compiled"] == 1
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert json.loads(r.stdout)["loaded"] == 1
