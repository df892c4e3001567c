#!/usr/bin/env python3
"""First-call latency of hpcjit and Numba: each run is a fresh interpreter
that imports numpy and the JIT, decorates one kernel and times its first
call (compilation included; importing the JIT package is not, it is
measured apart as `import`).  Prints the median per kernel and the ratio
Numba / hpcjit (the issue's target is >= 10x).

    python3 benchmarks/compile_time.py             # 7 runs per kernel
    python3 benchmarks/compile_time.py -n 3 --kernels add,pairwise
    python3 benchmarks/compile_time.py --no-numba  # hpcjit only, faster
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

# The kernels live in the child's own file so that both JITs find their
# source; `jit` is bound before they are defined.
_CHILD = r'''
import sys, time
t_start = time.perf_counter()
import numpy as np
t_np = time.perf_counter()
backend, name = sys.argv[1], sys.argv[2]
if backend == "hpcjit":
    from hpcjit import njit as jit
else:
    from numba import njit as jit
t_jit = time.perf_counter()

@jit
def add(a, b):
    return a + b

@jit
def pairwise(X):
    m, k = X.shape
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            d = 0.0
            for t in range(k):
                diff = X[i, t] - X[j, t]
                d += diff * diff
            D[i, j] = np.sqrt(d)
    return D

@jit
def sum_reduce(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s

@jit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

@jit
def smoothstep(x):
    x = min(max(x, 0.0), 1.0)
    return x * x * (3.0 - 2.0 * x)

@jit
def calls_in_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += smoothstep(a[i])
    return s

@jit
def mandelbrot(w, h, maxit):
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            c = complex(-2.0 + 3.0 * x / w, -1.0 + 2.0 * y / h)
            z = 0j
            n = 0
            while n < maxit and abs(z) <= 2.0:
                z = z * z + c
                n += 1
            out[y, x] = n
    return out

ARGS = {
    "add": (1.0, 2.0),
    "pairwise": (np.arange(9.0).reshape(3, 3),),
    "sum_reduce": (np.arange(10.0),),
    "fib": (10,),
    "calls_in_loop": (np.arange(10.0) / 10,),
    "mandelbrot": (8, 6, 20),
}
f = globals()[name]
args = ARGS[name]
c0 = time.process_time()
t0 = time.perf_counter()
f(*args)
t1 = time.perf_counter()
c1 = time.process_time()
f(*args)
t2 = time.perf_counter()
print("RESULT", t1 - t0, t2 - t1, t_jit - t_np, c1 - c0)
'''

KERNELS = ["add", "pairwise", "sum_reduce", "fib", "calls_in_loop", "mandelbrot"]


def child_env():
    """Byte-code caching on, as in an installed package: a build tree run
    with PYTHONDONTWRITEBYTECODE=1 would otherwise recompile hpcjit's .py
    files in every child (numba's site-packages already has its .pyc)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_child(path, backend, name):
    r = subprocess.run([sys.executable, path, backend, name], capture_output=True, text=True,
                       timeout=300, env=child_env())
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    if r.returncode != 0 or not lines:
        err = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(f"{backend} {name}: {err}")
    first, second, imp, cpu = map(float, lines[-1].split()[1:])
    return first, second, imp, cpu


def fmt_ms(t):
    return "-" if t is None else f"{t * 1e3:7.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=7, help="fresh processes per kernel")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--json", help="write the medians as JSON to this file")
    opts = ap.parse_args(argv)
    backends = ["hpcjit"] + ([] if opts.no_numba else ["numba"])
    names = [k for k in opts.kernels.split(",") if k]

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ct_child.py")
        with open(path, "w") as fh:
            fh.write(_CHILD)
        report = {}
        print(f"first call (compile + run), median of {opts.runs} fresh processes, ms;")
        print("wall time, and the process's CPU time (steadier on a busy machine)")
        print(f"{'kernel':15s} {'hpcjit':>8s} {'numba':>8s} {'ratio':>7s}   "
              f"{'cpu hj':>8s} {'cpu nb':>8s} {'ratio':>7s}")
        ratios, cratios = [], []
        imports = {b: [] for b in backends}
        for b in backends:  # warm-up: writes .pyc files, fills the page cache
            run_child(path, b, names[0])
        for name in names:
            row = {}
            samples = {b: ([], []) for b in backends}
            for _ in range(opts.runs):
                for b in backends:  # interleaved: both see the same machine load
                    first, _second, imp, cpu = run_child(path, b, name)
                    samples[b][0].append(first)
                    samples[b][1].append(cpu)
                    imports[b].append(imp)
            for b in backends:
                row[b] = statistics.median(samples[b][0])
                row[b + "_cpu"] = statistics.median(samples[b][1])
            ratio = row["numba"] / row["hpcjit"] if "numba" in row else None
            cratio = row["numba_cpu"] / row["hpcjit_cpu"] if "numba" in row else None
            if ratio:
                ratios.append(ratio)
                cratios.append(cratio)
            report[name] = row

            def fx(r):
                return "-" if r is None else f"{r:6.1f}x"
            print(f"{name:15s} {fmt_ms(row['hpcjit']):>8s} {fmt_ms(row.get('numba')):>8s} "
                  f"{fx(ratio):>7s}   {fmt_ms(row['hpcjit_cpu']):>8s} "
                  f"{fmt_ms(row.get('numba_cpu')):>8s} {fx(cratio):>7s}", flush=True)
        if ratios:
            gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
            cgm = math.exp(sum(math.log(r) for r in cratios) / len(cratios))
            print(f"geometric mean of Numba / hpcjit: {gm:.1f}x wall, {cgm:.1f}x CPU "
                  "(target >= 10x)")
            report["geomean_ratio"] = gm
            report["geomean_ratio_cpu"] = cgm
        for b in backends:
            med = statistics.median(imports[b])
            report[f"import_{b}"] = med
            print(f"import {b} after numpy (median): {med * 1e3:.1f} ms")
        if opts.json:
            with open(opts.json, "w") as fh:
                json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
