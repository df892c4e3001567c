#!/usr/bin/env python3
"""hpcjit benchmark harness: the same kernels under hpcjit, Numba, CPython
and (for some) C compiled with gcc -O3 -march=native, in one run.

Measures steady-state time (best of N), first-call compile time (fresh
subprocess per kernel and JIT), `import hpcjit` time over `import numpy`
(fresh subprocesses, median) and call overhead of a 2-scalar and a 2-array
function.  Prints a table of ratios and optionally writes JSON.

    python3 benchmarks/run.py             # full run
    python3 benchmarks/run.py --quick     # smaller sizes, fewer repeats
    python3 benchmarks/run.py --json out.json --kernels dot,fib
"""
import argparse
import ctypes
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS_FILE = os.path.join(HERE, "kernels.py")
C_FILE = os.path.join(HERE, "ckernels.c")


# ---------------------------------------------------------------------------
# Loading the kernels once per backend

def load_kernels(backend):
    """Execute kernels.py with `jit` bound to the backend's decorator.  The
    real file name is kept so that hpcjit finds the source with inspect."""
    import types as _types
    if backend == "hpcjit":
        import hpcjit
        jit = hpcjit.njit
        pjit, prange = hpcjit.njit(parallel=True), hpcjit.prange
    elif backend == "numba":
        import numba
        jit = numba.njit
        pjit, prange = numba.njit(parallel=True), numba.prange
    elif backend == "python":
        def jit(f):
            return f
        pjit, prange = jit, range
    else:
        raise ValueError(backend)
    mod = _types.ModuleType("kernels_" + backend)
    mod.__file__ = KERNELS_FILE
    mod.jit = jit
    mod.pjit = pjit
    mod.prange = prange
    sys.modules[mod.__name__] = mod
    with open(KERNELS_FILE) as fh:
        code = compile(fh.read(), KERNELS_FILE, "exec")
    exec(code, mod.__dict__)
    return mod


# ---------------------------------------------------------------------------
# Kernel table: arguments per size class ("full", "quick", "py" = CPython)

def _rng():
    return np.random.default_rng(12345)


def _vec(n):
    return _rng().uniform(0.0, 1.0, n)


class Kernel:
    def __init__(self, name, kind, sizes, make, c=None, threads=False):
        self.name = name
        self.kind = kind
        self.sizes = sizes  # {"full": x, "quick": x, "py": x}
        self.make = make    # size -> tuple of arguments
        self.c = c          # (lib, args) -> result, or None
        self.threads = threads  # runs on a thread pool: timed after a quiet gap (QUIET_GAP_S)

    def args(self, size_class):
        return self.make(self.sizes[size_class])


def _dp(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def _c_jacobi(lib, u, steps):
    v = np.ascontiguousarray(u).copy()
    lib.jacobi2d(_dp(v), v.shape[0], v.shape[1], steps)
    return v


def _c_pairwise(lib, X):
    X = np.ascontiguousarray(X)
    D = np.empty((X.shape[0], X.shape[0]))
    lib.pairwise(_dp(X), X.shape[0], X.shape[1], _dp(D))
    return D


def _c_matmul(lib, A, B):
    C = np.empty((A.shape[0], B.shape[1]))
    lib.matmul(_dp(A), _dp(B), A.shape[0], A.shape[1], B.shape[1], _dp(C))
    return C


KERNELS = [
    Kernel("sum_reduce", "reduction", {"full": 10_000_000, "quick": 1_000_000, "py": 100_000},
           lambda n: (_vec(n),), lambda lib, a: lib.sum_reduce(_dp(a), a.shape[0])),
    Kernel("dot", "reduction", {"full": 10_000_000, "quick": 1_000_000, "py": 100_000},
           lambda n: (_vec(n), _vec(n)[::-1].copy()),
           lambda lib, a, b: lib.dot(_dp(a), _dp(b), a.shape[0])),
    Kernel("jacobi2d", "2-D stencil + allocation", {"full": (500, 20), "quick": (200, 5), "py": (60, 2)},
           lambda s: (_rng().uniform(0, 1, (s[0], s[0])), s[1]), _c_jacobi),
    Kernel("blur_f_order", "2-D stencil, F layout", {"full": 1000, "quick": 300, "py": 60},
           lambda n: (np.asfortranarray(_rng().uniform(0, 1, (n, n))),)),
    Kernel("pairwise", "nested loops + allocation", {"full": (600, 16), "quick": (200, 8), "py": (40, 8)},
           lambda s: (_rng().uniform(0, 1, s),), _c_pairwise),
    Kernel("matmul", "nested loops + allocation", {"full": 250, "quick": 100, "py": 25},
           lambda n: (_rng().uniform(0, 1, (n, n)), _rng().uniform(0, 1, (n, n))), _c_matmul),
    Kernel("collatz_max", "integer", {"full": 300_000, "quick": 50_000, "py": 3_000},
           lambda n: (n,), lambda lib, n: lib.collatz_max(n)),
    Kernel("sieve", "integer + allocation", {"full": 10_000_000, "quick": 1_000_000, "py": 100_000},
           lambda n: (n,), lambda lib, n: lib.sieve(n)),
    Kernel("int_hash", "integer // and %", {"full": 2_000_000, "quick": 300_000, "py": 20_000},
           lambda n: (n,)),
    Kernel("math_heavy", "math functions", {"full": 2_000_000, "quick": 300_000, "py": 20_000},
           lambda n: (_rng().uniform(0, 10, n),), lambda lib, a: lib.math_heavy(_dp(a), a.shape[0])),
    Kernel("fib", "recursive calls", {"full": 30, "quick": 25, "py": 20},
           lambda n: (n,), lambda lib, n: lib.fib(n)),
    Kernel("calls_in_loop", "calls between jitted functions", {"full": 10_000_000, "quick": 1_000_000, "py": 100_000},
           lambda n: (_rng().uniform(-0.5, 1.5, n),)),
    Kernel("mandelbrot", "complex numbers", {"full": (400, 300, 200), "quick": (160, 120, 100), "py": (40, 30, 50)},
           lambda s: s, lambda lib, w, h, m: lib.mandelbrot(w, h, m)),
    Kernel("cumsum_strided", "strided view", {"full": 5_000_000, "quick": 500_000, "py": 50_000},
           lambda n: (_vec(2 * n)[::2],)),
    # kernel classes of issue 15
    Kernel("conv2d", "4 nested loops, run-time 5x5", {"full": 200, "quick": 100, "py": 30},
           lambda n: (_rng().uniform(0, 1, (n, n)), _rng().uniform(0, 1, (5, 5)))),
    Kernel("six_reductions", "6 reductions as a tuple", {"full": 1_000_000, "quick": 200_000, "py": 10_000},
           lambda n: (_vec(n),)),
    Kernel("saxpy_f32", "float32 into a new array", {"full": 500_000, "quick": 100_000, "py": 10_000},
           lambda n: (np.float32(1.5), _vec(n).astype(np.float32), _vec(n)[::-1].astype(np.float32))),
    Kernel("floordiv_mod", "// and % on negatives", {"full": 2_000_000, "quick": 300_000, "py": 20_000},
           lambda n: (n,)),
    Kernel("jacobi_swap", "stencil, tuple-swapped grids", {"full": (300, 20), "quick": (150, 5), "py": (40, 2)},
           lambda s: (_rng().uniform(0, 1, (s[0], s[0])), s[1])),
    Kernel("row_min_update", "row stores reading their own row", {"full": 200, "quick": 100, "py": 30},
           lambda n: (((np.arange(n)[:, None] * np.arange(n)[None, :]) % 7 + 1).astype(np.int32),)),
    Kernel("mask_mean", "sparse boolean masks in a loop", {"full": (400_000, 200), "quick": (100_000, 100),
                                                           "py": (10_000, 20)},
           lambda s: (_rng().uniform(0, 1, s[0]), _rng().uniform(0, 1, s[0]), s[1])),
    Kernel("array_chain", "array statements, one loop", {"full": 1_000_000, "quick": 200_000, "py": 20_000},
           lambda n: (_rng().uniform(10, 50, n), _rng().uniform(10, 50, n)[::-1].copy(), _rng().uniform(0.1, 2, n))),
    Kernel("array_chain_par", "the same, parallel=True", {"full": 1_000_000, "quick": 200_000, "py": 20_000},
           lambda n: (_rng().uniform(10, 50, n), _rng().uniform(10, 50, n)[::-1].copy(), _rng().uniform(0.1, 2, n)),
           threads=True),
    Kernel("prange_sum", "prange reduction", {"full": 10_000_000, "quick": 1_000_000, "py": 100_000},
           lambda n: (_vec(n),), threads=True),
    Kernel("prange_rows", "prange row reductions", {"full": (2000, 1000), "quick": (500, 500), "py": (50, 50)},
           lambda s: (_rng().uniform(0, 1, s),), threads=True),
]
KERNEL_BY_NAME = {k.name: k for k in KERNELS}

# Numba's OpenMP workers spin for a while after a parallel region: a call
# of the other pool right after it shares the cores with them (measured on
# 2 vCPUs: a prange sum of 10^7 float64 takes 8.4 ms after a Numba call,
# 5.8 ms after this gap, against 5.7 ms for Numba).  Every contender of a
# thread-pool kernel is timed after the same gap.
QUIET_GAP_S = 0.05


# ---------------------------------------------------------------------------
# Timing helpers

def best_of(fn, args, repeats):
    best = float("inf")
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn(*args)
        dt = time.perf_counter() - t0
        best = min(best, dt)
    return best, result


def same_result(a, b):
    try:
        if isinstance(a, tuple):
            return len(a) == len(b) and all(same_result(x, y) for x, y in zip(a, b))
        a = np.asarray(a)
        b = np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" or b.dtype.kind in "fc":
            return bool(np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True))
        return bool(np.array_equal(a, b))
    except Exception:
        return False


def build_c(tmpdir):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        return None, "no C compiler"
    out = os.path.join(tmpdir, "libhjbench.so")
    cmd = [cc, "-O3", "-march=native", "-shared", "-fPIC", "-o", out, C_FILE, "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    lib = ctypes.CDLL(out)
    i64, dbl, vp = ctypes.c_int64, ctypes.c_double, ctypes.c_void_p
    dp = ctypes.POINTER(ctypes.c_double)
    sigs = {
        "sum_reduce": (dbl, [dp, i64]), "dot": (dbl, [dp, dp, i64]),
        "pairwise": (None, [dp, i64, i64, dp]), "jacobi2d": (None, [dp, i64, i64, i64]),
        "matmul": (None, [dp, dp, i64, i64, i64, dp]), "collatz_max": (i64, [i64]),
        "sieve": (i64, [i64]), "math_heavy": (dbl, [dp, i64]), "fib": (i64, [i64]),
        "mandelbrot": (i64, [i64, i64, i64]),
    }
    for name, (res, argt) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = argt
    del vp
    return lib, " ".join(cmd[:4])


# ---------------------------------------------------------------------------
# Fresh-subprocess measurements

_CHILD_COMPILE = r"""
import json, sys, time
sys.path.insert(0, {here!r})
import run as R
k = R.KERNEL_BY_NAME[{name!r}]
args = k.args("py")
mod = R.load_kernels({backend!r})
f = getattr(mod, {name!r})
t0 = time.perf_counter(); f(*args); t1 = time.perf_counter(); f(*args); t2 = time.perf_counter()
print(json.dumps([t1 - t0, t2 - t1]))
"""

_CHILD_IMPORT = r"""
import time
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
import {mod}
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def compile_time(backend, name):
    code = _CHILD_COMPILE.format(here=HERE, name=name, backend=backend)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
    first, second = json.loads(r.stdout.strip().splitlines()[-1])
    return max(first - second, 0.0), None


def import_time(module, runs):
    over = []
    for _ in range(runs):
        r = subprocess.run([sys.executable, "-c", _CHILD_IMPORT.format(mod=module)],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            return None, (r.stderr.strip().splitlines() or ["failed"])[-1]
        over.append(float(r.stdout.split()[1]))
    return statistics.median(over), None


def call_overhead(mod, repeat, number):
    out = {}
    s = mod.call2_scalars
    a = mod.call2_arrays
    x, y = np.ones(4), np.ones(4)
    s(1.0, 2.0)
    a(x, y)
    for label, stmt, g in [("2 scalars", "f(1.0, 2.0)", {"f": s}),
                           ("2 arrays", "f(x, y)", {"f": a, "x": x, "y": y})]:
        t = min(timeit.repeat(stmt, globals=g, number=number, repeat=repeat)) / number
        out[label] = t * 1e9
    return out


# ---------------------------------------------------------------------------

def fmt_ms(t):
    if t is None:
        return "-"
    return f"{t * 1e3:.3f}" if t < 0.01 else f"{t * 1e3:.1f}"


def fmt_x(r):
    return "-" if r is None else f"{r:.2f}x"


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Ratios > 1 mean hpcjit is faster.  No fastmath on any side.")
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    ap.add_argument("--json", metavar="PATH", help="write all measurements to PATH as JSON")
    ap.add_argument("--kernels", metavar="A,B", help="only these kernels (comma-separated)")
    ap.add_argument("--repeats", type=int, help="best of N for steady-state timing")
    ap.add_argument("--no-compile-time", action="store_true", help="skip the first-call compile timings")
    ap.add_argument("--no-import-time", action="store_true", help="skip the import timings")
    ap.add_argument("--no-cpython", action="store_true", help="skip CPython timings")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the table as Markdown (the README's Performance table)")
    opts = ap.parse_args(argv)

    size_class = "quick" if opts.quick else "full"
    repeats = opts.repeats or (3 if opts.quick else 7)
    kernels = KERNELS
    if opts.kernels:
        want = opts.kernels.split(",")
        unknown = [w for w in want if w not in KERNEL_BY_NAME]
        if unknown:
            ap.error(f"unknown kernels: {', '.join(unknown)} (known: {', '.join(KERNEL_BY_NAME)})")
        kernels = [KERNEL_BY_NAME[w] for w in want]

    report = {"machine": {"platform": platform.platform(), "processor": platform.processor(),
                          "python": sys.version.split()[0], "numpy": np.__version__,
                          "cpus": os.cpu_count()},
              "size_class": size_class, "repeats": repeats, "kernels": {}}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    report["machine"]["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass

    backends = {}
    for name in ("hpcjit", "numba", "python"):
        if name == "python" and opts.no_cpython:
            continue
        try:
            backends[name] = load_kernels(name)
        except Exception as e:  # report and go on without that backend
            print(f"# {name} unavailable: {type(e).__name__}: {e}", file=sys.stderr)
    if "numba" in backends:
        import numba
        report["machine"]["numba"] = numba.__version__

    tmpdir = tempfile.mkdtemp(prefix="hjbench")
    clib, cinfo = build_c(tmpdir)
    report["c_compiler"] = cinfo
    if clib is None:
        print(f"# C kernels unavailable: {cinfo}", file=sys.stderr)

    print(f"hpcjit benchmarks ({size_class} sizes, best of {repeats}) on "
          f"{report['machine'].get('cpu', platform.processor())}, {os.cpu_count()} CPUs", flush=True)

    for k in kernels:
        row = {"kind": k.kind, "size": str(k.sizes[size_class])}
        args = k.args(size_class)
        small = k.args("py")
        ref_small = None
        if "python" in backends:
            t, ref_small = best_of(getattr(backends["python"], k.name), small, max(1, repeats // 3))
            row["python_small_s"] = t
        # hpcjit, Numba and C are timed in alternation, so that a noisy
        # machine (other jobs, frequency changes) affects them alike
        contenders = {}
        for be in ("hpcjit", "numba"):
            if be not in backends:
                continue
            f = getattr(backends[be], k.name)
            try:
                _, r_small = best_of(f, small, 1)  # compiles
                if ref_small is not None:
                    row[f"{be}_correct"] = same_result(r_small, ref_small)
                row[f"{be}_small_s"], _ = best_of(f, small, repeats)
                best_of(f, args, 1)  # warm up at full size
                contenders[be] = f
            except Exception as e:
                row[f"{be}_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if clib is not None and k.c is not None:
            contenders["c"] = lambda *a, _k=k: _k.c(clib, *a)
        best = {name: float("inf") for name in contenders}
        for _ in range(repeats):
            for name, f in contenders.items():
                if k.threads:
                    time.sleep(QUIET_GAP_S)
                try:
                    t, _ = best_of(f, args, 1)
                except Exception as e:
                    row[f"{name}_error"] = f"{type(e).__name__}: {e}"
                    continue
                best[name] = min(best[name], t)
        for name, t in best.items():
            if t != float("inf"):
                row[f"{name}_s"] = t
        report["kernels"][k.name] = row
        print(f"  {k.name:16s} hpcjit {fmt_ms(row.get('hpcjit_s')):>9s} ms   "
              f"numba {fmt_ms(row.get('numba_s')):>9s} ms   C {fmt_ms(row.get('c_s')):>9s} ms"
              + (f"   [hpcjit error: {row['hpcjit_error']}]" if "hpcjit_error" in row else "")
              + ("" if row.get("hpcjit_correct", True) else "   [hpcjit result differs from CPython]"),
              flush=True)

    if not opts.no_compile_time:
        print("first-call compile time (fresh subprocess per kernel):", flush=True)
        for k in kernels:
            row = report["kernels"][k.name]
            for be in ("hpcjit", "numba"):
                if be not in backends:
                    continue
                t, err = compile_time(be, k.name)
                row[f"{be}_compile_s"] = t
                if err:
                    row[f"{be}_compile_error"] = err
            print(f"  {k.name:16s} hpcjit {fmt_ms(row.get('hpcjit_compile_s')):>9s} ms   "
                  f"numba {fmt_ms(row.get('numba_compile_s')):>9s} ms", flush=True)

    if not opts.no_import_time:
        runs = 7 if opts.quick else 21
        report["import_over_numpy_s"] = {}
        for mod in ("hpcjit", "numba"):
            t, err = import_time(mod, runs)
            report["import_over_numpy_s"][mod] = t if err is None else err

    report["call_overhead_ns"] = {}
    number = 100_000 if opts.quick else 1_000_000
    for be in ("hpcjit", "numba"):
        if be in backends:
            try:
                report["call_overhead_ns"][be] = call_overhead(backends[be], 5, number)
            except Exception as e:
                report["call_overhead_ns"][be] = f"{type(e).__name__}: {e}"

    print_table(report)
    if opts.markdown:
        print_markdown(report)
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(report, fh, indent=2, default=str)
        print(f"wrote {opts.json}")
    shutil.rmtree(tmpdir, ignore_errors=True)
    return 0


def _ratio(a, b):
    return a / b if a and b else None


def print_markdown(report):
    """The README's table: times in ms and ratios (> 1: hpcjit faster)."""
    print()
    print("| kernel | kind | hpcjit ms | Numba ms | C -O3 ms | speed vs Numba | vs C | hpcjit compile ms "
          "| Numba compile ms | compile ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in report["kernels"].items():
        def ms(key, digits=None):
            v = r.get(key)
            return "-" if v is None else f"{v * 1e3:.{digits}f}" if digits is not None else fmt_ms(v)
        cells = [name, r["kind"], ms("hpcjit_s"), ms("numba_s"), ms("c_s"),
                 fmt_x(_ratio(r.get("numba_s"), r.get("hpcjit_s"))), fmt_x(_ratio(r.get("c_s"), r.get("hpcjit_s"))),
                 ms("hpcjit_compile_s", 1), ms("numba_compile_s", 1),
                 fmt_x(_ratio(r.get("numba_compile_s"), r.get("hpcjit_compile_s")))]
        print("| " + " | ".join(c.strip() for c in cells) + " |")


def print_table(report):
    rows = report["kernels"]
    head = (f"{'kernel':16s} {'kind':30s} {'hpcjit ms':>10s} {'numba ms':>10s} {'C -O3 ms':>10s} "
            f"{'vs numba':>9s} {'vs C':>7s} {'vs CPython':>11s} {'compile hj':>11s} {'compile nb':>11s} {'ratio':>7s}")
    print()
    print(head)
    print("-" * len(head))
    speed, comp = [], []
    for name, r in rows.items():
        vs_numba = _ratio(r.get("numba_s"), r.get("hpcjit_s"))
        vs_c = _ratio(r.get("c_s"), r.get("hpcjit_s"))
        vs_py = _ratio(r.get("python_small_s"), r.get("hpcjit_small_s"))
        cr = _ratio(r.get("numba_compile_s"), r.get("hpcjit_compile_s"))
        speed.append(vs_numba)
        comp.append(cr)
        flag = ""
        if "hpcjit_error" in r:
            flag = "  hpcjit failed"
        elif r.get("hpcjit_correct") is False:
            flag = "  WRONG RESULT"
        print(f"{name:16s} {r['kind'][:30]:30s} {fmt_ms(r.get('hpcjit_s')):>10s} {fmt_ms(r.get('numba_s')):>10s} "
              f"{fmt_ms(r.get('c_s')):>10s} {fmt_x(vs_numba):>9s} {fmt_x(vs_c):>7s} {fmt_x(vs_py):>11s} "
              f"{fmt_ms(r.get('hpcjit_compile_s')):>11s} {fmt_ms(r.get('numba_compile_s')):>11s} {fmt_x(cr):>7s}{flag}")
    print("-" * len(head))
    gs, gc = geomean(speed), geomean(comp)
    report["geomean_speed_vs_numba"] = gs
    report["geomean_compile_speedup_vs_numba"] = gc
    print(f"geometric mean: hpcjit speed / Numba speed = {fmt_x(gs)};  "
          f"Numba compile time / hpcjit compile time = {fmt_x(gc)}")
    print("(vs numba, vs C: time ratio at full size, > 1 = hpcjit faster; vs CPython: at the small CPython size)")
    imp = report.get("import_over_numpy_s")
    if imp:
        parts = [f"{m} {v * 1e3:.1f} ms" if isinstance(v, float) else f"{m} error: {v}" for m, v in imp.items()]
        print("import time over `import numpy` (median, fresh processes): " + ";  ".join(parts))
    for be, d in report.get("call_overhead_ns", {}).items():
        if isinstance(d, dict):
            print(f"call overhead {be:7s}: " + ";  ".join(f"{k} {v:.0f} ns" for k, v in d.items()))
        else:
            print(f"call overhead {be:7s}: error {d}")


if __name__ == "__main__":
    sys.exit(main())
