#!/usr/bin/env python3
"""First-call latency of hpcjit and Numba (the compile-time regression
benchmark): each run is a fresh interpreter that imports numpy and the JIT,
decorates the kernels of kernels.py and compile_kernels.py (44 of them) and
times one kernel's first call (compilation included; importing the JIT
package is not, it is measured apart as `import`).  Prints the median per
kernel and the ratio Numba / hpcjit, for wall time and for the process's
CPU time (steadier on a shared machine); the issue's target is >= 10x on
every kernel and >= 15x as a geometric mean.

    python3 benchmarks/compile_time.py             # 5 runs per kernel
    python3 benchmarks/compile_time.py -n 3 --kernels add,pairwise
    python3 benchmarks/compile_time.py --no-numba  # hpcjit only, faster
    python3 benchmarks/compile_time.py --json out.json
    python3 benchmarks/compile_time.py --warm      # after another kernel: no start-up
    python3 benchmarks/compile_time.py --callgrind --no-numba   # instructions
    python3 benchmarks/compile_time.py --callgrind --one-process --no-numba

--callgrind counts the instructions of the first call under valgrind's
callgrind (one run per kernel, deterministic; the calling thread and
hpcjit's compile thread; Numba takes ~30 s a kernel there).

The children run with OPENBLAS_NUM_THREADS=1: OpenBLAS's idle worker
threads otherwise spin for a while after `import numpy` and add CPU time
that is neither JIT's (both sides alike).  Byte-code caching is on, as in
an installed package.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# The child executes kernels.py and compile_kernels.py in one module with
# `jit` bound to the backend's decorator, under their real file names (both
# JITs find the source), then times one kernel's first call.
_CHILD = r'''
import sys, time
here, backend, name = sys.argv[1], sys.argv[2], sys.argv[3]
t_start = time.perf_counter()
import numpy as np
t_np = time.perf_counter()
if backend == "hpcjit":
    import hpcjit as jitmod
else:
    import numba as jitmod
t_jit = time.perf_counter()
import types
mod = types.ModuleType("ct_kernels")
mod.jit = jitmod.njit
mod.pjit = jitmod.njit(parallel=True)
mod.prange = jitmod.prange
sys.modules[mod.__name__] = mod
for fn in ("kernels.py", "compile_kernels.py"):
    path = here + "/" + fn
    with open(path) as fh:
        exec(compile(fh.read(), path, "exec"), mod.__dict__)
if name.startswith("ALL:"):  # --callgrind --one-process: every kernel, one process
    for k in name[4:].split(","):
        getattr(mod, k)(*mod.ARGS[k])
    print("RESULT 0 0 0 0")
    sys.exit(0)
if len(sys.argv) > 4 and sys.argv[4] == "warm":  # --warm: the JIT initialised by another kernel
    mod.add(1.0, 2.0)
f = getattr(mod, name)
args = mod.ARGS[name]
c0 = time.process_time()
t0 = time.perf_counter()
f(*args)
t1 = time.perf_counter()
c1 = time.process_time()
f(*args)
t2 = time.perf_counter()
print("RESULT", t1 - t0, t2 - t1, t_jit - t_np, c1 - c0)
'''

KERNELS = [
    # kernels.py (benchmarks/run.py's table)
    "sum_reduce", "dot", "jacobi2d", "blur_f_order", "pairwise", "matmul", "collatz_max", "sieve",
    "int_hash", "math_heavy", "fib", "calls_in_loop", "mandelbrot", "cumsum_strided", "conv2d",
    "six_reductions", "saxpy_f32", "floordiv_mod", "jacobi_swap", "prange_sum", "prange_rows",
    # compile_kernels.py: issue 15's slow first calls, then everyday kernels
    "add", "heat2d", "trapezoid", "trapz_samples", "strided_1d", "strided_2d",
    "histogram", "softmax_rows", "standardize_cols", "insertion_sort", "nbody_step", "lu_inplace",
    "floyd_warshall", "levenshtein", "black_scholes", "horner", "monte_carlo_pi", "kmeans_assign",
    "array_expr", "bisect_root", "logistic_map", "moving_average", "gcd_sum",
]
# accepted by --kernels, not in the default 44 (whose figures README.md
# compares across commits): consecutive array statements, serial and under
# parallel=True (kernels.py; issue 15's parallel array statements)
EXTRA_KERNELS = ["array_chain", "array_chain_par"]


def child_env():
    """Byte-code caching on, as in an installed package: a build tree run
    with PYTHONDONTWRITEBYTECODE=1 would otherwise recompile hpcjit's .py
    files in every child (numba's site-packages already has its .pyc).
    One OpenBLAS thread: its idle workers spin after import numpy."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["OPENBLAS_NUM_THREADS"] = "1"
    return env


def run_child(path, backend, name, warm=False):
    r = subprocess.run([sys.executable, path, HERE, backend, name] + (["warm"] if warm else []),
                       capture_output=True, text=True, timeout=600, env=child_env())
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    if r.returncode != 0 or not lines:
        err = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(f"{backend} {name}: {err}")
    first, second, imp, cpu = map(float, lines[-1].split()[1:])
    return first, second, imp, cpu


# the C functions under which each JIT's first call runs: hpcjit's
# dispatcher (the calling thread) and compile thread, Numba's dispatcher
_TOGGLES = {"hpcjit": ["dispatcher_vectorcall", "compile_thread"],
            "numba": ["Dispatcher_call*"]}


def count_instructions(path, backend, name):
    """Instructions of the first call (callgrind), or None."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise RuntimeError("--callgrind needs valgrind")
    # valgrind must run the interpreter itself, not a wrapper script (pyenv)
    exe = os.path.realpath(sys.executable)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [valgrind, "--tool=callgrind", "--collect-atstart=no",
               f"--callgrind-out-file={tmp}/cg.out"]
        cmd += [f"--toggle-collect={f}" for f in _TOGGLES[backend]]
        cmd += [exe, path, HERE, backend, name]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=child_env())
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        err = (r.stderr.strip().splitlines() or ["failed"])[-1]
        raise RuntimeError(f"{backend} {name} under callgrind: {err}")
    return int(m.group(1))


def fmt_ms(t):
    return "-" if t is None else f"{t * 1e3:7.1f}"


def fx(r):
    return "-" if r is None else f"{r:6.1f}x"


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=5, help="fresh processes per kernel")
    ap.add_argument("--kernels", default=",".join(KERNELS),
                    help="comma-separated; default the 44, also: " + ",".join(EXTRA_KERNELS))
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions of the first call (one run per kernel)")
    ap.add_argument("--warm", action="store_true",
                    help="time the kernel's compilation after another kernel's (add) in the "
                         "same process: without each JIT's one-time start-up")
    ap.add_argument("--one-process", action="store_true",
                    help="with --callgrind: all the kernels compiled in one process, one count")
    ap.add_argument("--json", help="write the results as JSON to this file")
    opts = ap.parse_args(argv)
    backends = ["hpcjit"] + ([] if opts.no_numba else ["numba"])
    names = [k for k in opts.kernels.split(",") if k]
    unknown = [k for k in names if k not in KERNELS + EXTRA_KERNELS]
    if unknown:
        ap.error(f"unknown kernels: {', '.join(unknown)}")

    report = {"kernels": {}, "runs": opts.runs, "python": sys.version.split()[0]}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ct_child.py")
        with open(path, "w") as fh:
            fh.write(_CHILD)
        if opts.callgrind and opts.one_process:
            report["runs"] = 1
            for b in backends:
                n = count_instructions(path, b, "ALL:" + ",".join(names))
                report[b + "_instructions_one_process"] = n
                print(f"{b}: {len(names)} first calls in one process, {n / 1e6:.1f} M instructions")
        elif opts.callgrind:
            report["runs"] = 1
            print("instructions of the first call (callgrind), millions")
            print(f"{'kernel':17s} {'hpcjit':>9s} {'numba':>9s} {'ratio':>7s}")
            ratios = []
            for name in names:
                row = {b + "_instructions": count_instructions(path, b, name) for b in backends}
                r = row.get("numba_instructions")
                r = r / row["hpcjit_instructions"] if r else None
                if r:
                    ratios.append(r)
                report["kernels"][name] = row
                nb = row.get("numba_instructions")
                print(f"{name:17s} {row['hpcjit_instructions'] / 1e6:9.1f} "
                      f"{'-' if nb is None else f'{nb / 1e6:9.1f}':>9s} {fx(r):>7s}", flush=True)
            gm = geomean(list(row["hpcjit_instructions"] for row in report["kernels"].values()))
            report["geomean_hpcjit_instructions"] = gm
            print(f"geometric mean, hpcjit: {gm / 1e6:.1f} M instructions")
            if ratios:
                report["geomean_ratio_instructions"] = geomean(ratios)
                print(f"geometric mean of Numba / hpcjit: {geomean(ratios):.1f}x")
        else:
            print(f"first call (compile + run), median of {opts.runs} fresh processes, ms"
                  + (" (after add's, --warm);" if opts.warm else ";"))
            print("wall time, and the process's CPU time (steadier on a busy machine)")
            print(f"{'kernel':17s} {'hpcjit':>8s} {'numba':>8s} {'ratio':>7s}   "
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
                        first, _second, imp, cpu = run_child(path, b, name, opts.warm)
                        samples[b][0].append(first)
                        samples[b][1].append(cpu)
                        imports[b].append(imp)
                for b in backends:
                    row[b] = statistics.median(samples[b][0])
                    row[b + "_cpu"] = statistics.median(samples[b][1])
                    row[b + "_cpu_range"] = [min(samples[b][1]), max(samples[b][1])]
                ratio = row["numba"] / row["hpcjit"] if "numba" in row else None
                cratio = row["numba_cpu"] / row["hpcjit_cpu"] if "numba" in row else None
                if ratio:
                    ratios.append(ratio)
                    cratios.append(cratio)
                    row["ratio"], row["ratio_cpu"] = ratio, cratio
                report["kernels"][name] = row
                print(f"{name:17s} {fmt_ms(row['hpcjit']):>8s} {fmt_ms(row.get('numba')):>8s} "
                      f"{fx(ratio):>7s}   {fmt_ms(row['hpcjit_cpu']):>8s} "
                      f"{fmt_ms(row.get('numba_cpu')):>8s} {fx(cratio):>7s}", flush=True)
            report["geomean_hpcjit_cpu"] = geomean([r["hpcjit_cpu"] for r in report["kernels"].values()])
            print(f"geometric mean, hpcjit: {report['geomean_hpcjit_cpu'] * 1e3:.1f} ms CPU")
            if ratios:
                gm, cgm = geomean(ratios), geomean(cratios)
                print(f"geometric mean of Numba / hpcjit: {gm:.1f}x wall, {cgm:.1f}x CPU "
                      "(target >= 15x; >= 10x on every kernel)")
                print(f"lowest: {min(ratios):.1f}x wall, {min(cratios):.1f}x CPU")
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
