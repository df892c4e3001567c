#!/usr/bin/env python3
"""NumPy's BLAS/LAPACK beside the compiler's thread pool: does importing
hpcjit (or Numba), compiling, or running a prange loop slow down a NumPy
call made from Python afterwards, or change which CPUs the process and its
threads may use?

    python3 benchmarks/libraries/blas_beside_pool.py [--n 300] [--reps 200]
        [--processes 3] [--blas-threads N] [--json out.json]

Each framework runs in its own interpreters (`--processes` each, in turn):
`python -m hpcjit.numba` (the drop-in: `import numba` is hpcjit) and the
real Numba.  In each, np.linalg.solve of an n x n system (and a matrix-vector
product of QuantEcon's DiscreteDP shape, (300*30) x 300) is timed, best and
median of --reps calls, at four points: before `import numba`, after it,
after one jitted function's first call, after one prange function's first
call.  At each point it records the process's affinity mask, every
thread's Cpus_allowed_list, and the CPU time (utime+stime ticks) the
threads that did not exist before `import numba` used during the timing.
--blas-threads sets OPENBLAS_NUM_THREADS/OMP_NUM_THREADS/MKL_NUM_THREADS
for the worker processes (default: left as they are).
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time

STAGES = ("plain", "import", "njit", "prange")


def _threads():
    """{tid: (cpus allowed, utime+stime ticks)} of this process's threads."""
    out = {}
    for d in glob.glob("/proc/self/task/*"):
        try:
            status = open(d + "/status").read()
            stat = open(d + "/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        cpus = status.split("Cpus_allowed_list:")[1].split()[0]
        out[os.path.basename(d)] = (cpus, int(stat[11]) + int(stat[12]))
    return out


def worker(opts):
    import threading
    import numpy as np
    rng = np.random.default_rng(0)
    A = rng.random((opts.n, opts.n)) + opts.n * np.eye(opts.n)
    b = rng.random(opts.n)
    Q = rng.random((300 * 30, 300))
    v = rng.random(300)
    main = str(threading.get_native_id())
    res = {"main": main, "stages": {}}
    first = None

    def measure(stage):
        np.linalg.solve(A, b)
        Q.dot(v)
        t0 = _threads()
        ts, td = [], []
        for _ in range(opts.reps):
            s = time.perf_counter()
            np.linalg.solve(A, b)
            ts.append(time.perf_counter() - s)
            s = time.perf_counter()
            Q.dot(v)
            td.append(time.perf_counter() - s)
        t1 = _threads()
        new = [t for t in t1 if first is not None and t not in first]
        res["stages"][stage] = {
            "solve_min": min(ts), "solve_median": statistics.median(ts),
            "dot_min": min(td), "dot_median": statistics.median(td),
            "proc_cpus": sorted(os.sched_getaffinity(0)),
            "threads": {t: c for t, (c, _) in t1.items()},
            "new_threads_ticks": sum(t1[t][1] - t0.get(t, (None, 0))[1] for t in new),
        }

    measure("plain")
    first = _threads()
    from numba import njit, prange
    measure("import")

    @njit
    def total(x):
        return x.sum()

    @njit(parallel=True)
    def ptotal(x):
        s = 0.0
        for i in prange(x.shape[0]):
            s += x[i]
        return s

    x = np.arange(100000.0)
    assert total(x) == total.py_func(x)
    measure("njit")
    assert ptotal(x) == ptotal.py_func(x)
    measure("prange")
    print("RESULT " + json.dumps(res))
    return 0


def run(opts):
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    if opts.blas_threads:
        for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[k] = str(opts.blas_threads)
    cmds = {"hpcjit": [sys.executable, "-m", "hpcjit.numba"], "numba": [sys.executable]}
    args = [os.path.abspath(__file__), "--worker", "--n", str(opts.n), "--reps", str(opts.reps)]
    runs = {fw: [] for fw in cmds}
    for _ in range(opts.processes):
        for fw, cmd in cmds.items():
            r = subprocess.run(cmd + args, capture_output=True, text=True, env=env, timeout=600)
            line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
            if r.returncode != 0 or not line:
                print(f"{fw}: worker failed:\n{r.stderr[-2000:]}", file=sys.stderr)
                return 1
            runs[fw].append(json.loads(line[0][len("RESULT "):]))
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(f"np.linalg.solve {opts.n}x{opts.n} and Q.dot(v) (9000x300), ms: best / median of {opts.reps} calls "
          f"per process, {opts.processes} processes per framework; OPENBLAS_NUM_THREADS="
          f"{env.get('OPENBLAS_NUM_THREADS', '(unset)')}; load average {' '.join(load)}")
    print(f"{'framework':10s} {'stage':8s} {'solve best':>10s} {'median':>8s} {'dot best':>9s} {'median':>8s} "
          f"{'new thr. ticks':>14s}  affinity: process / caller / threads")
    for fw, rs in runs.items():
        for st in STAGES:
            rows = [r["stages"][st] for r in rs]
            sm = min(r["solve_min"] for r in rows) * 1e3
            smed = statistics.median(r["solve_median"] for r in rows) * 1e3
            dm = min(r["dot_min"] for r in rows) * 1e3
            dmed = statistics.median(r["dot_median"] for r in rows) * 1e3
            ticks = max(r["new_threads_ticks"] for r in rows)
            last = rs[-1]["stages"][st]
            procs = ",".join(map(str, last["proc_cpus"]))
            caller = last["threads"][rs[-1]["main"]]
            others = " ".join(sorted(c for t, c in last["threads"].items() if t != rs[-1]["main"]))
            print(f"{fw:10s} {st:8s} {sm:10.3f} {smed:8.3f} {dm:9.3f} {dmed:8.3f} {ticks:14d}  "
                  f"{procs} / {caller} / {others}")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"load": load, "runs": runs}, f, indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--blas-threads", type=int, default=0)
    ap.add_argument("--json")
    opts = ap.parse_args()
    return worker(opts) if opts.worker else run(opts)


if __name__ == "__main__":
    sys.exit(main())
