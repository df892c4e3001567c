"""A fused group of array statements with broadcasting operands (N_FUSED,
compiler/lower/lower_arrayexpr.c): what one call costs, by shape.

    PYTHONPATH=build/python python3 benchmarks/fused_broadcast.py [--repeat 25]
    PYTHONPATH=build/python python3 benchmarks/fused_broadcast.py --callgrind

Calls kernels.py's `array_chain` and `array_chain_par` (seven array
statements and a returned expression, one group) on 160000-200000 float64
items: `same` (three 1-D arrays of one shape: the flat loop), `bcast1`
(strike one item), `bcast2d` (price (400, 1), strike (1, 400), t (400,
400)), `trow` (t one row (1, 400) under (400, 400) prices: `np.sqrt(t)` and
`np.exp(-0.02 * t)` are computed again down every column where statement
by statement they were computed once).  Prints best-of-N wall ms per call,
or with --callgrind the instructions of one call (valgrind; the calling
thread and the pool's workers; (20 calls - 0 calls) / 20): steadier than
time on a shared machine."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ("same", "bcast1", "bcast2d", "trow")
KERNELS = ("array_chain", "array_chain_par")


def kernels():
    import hpcjit
    ns = {"jit": hpcjit.njit, "pjit": lambda f: hpcjit.njit(parallel=True)(f), "__name__": "kernels"}
    with open(os.path.join(HERE, "kernels.py")) as fh:
        exec(compile(fh.read(), "kernels.py", "exec"), ns)
    return ns


def inputs(case):
    rng = np.random.default_rng(0)
    n, m = 200000, 400
    p, s, t = rng.uniform(50, 150, n), rng.uniform(50, 150, n), rng.uniform(0.5, 2, n)
    if case == "same":
        return p, s, t
    if case == "bcast1":
        return p, s[:1], t
    if case == "bcast2d":
        return rng.uniform(50, 150, (m, 1)), rng.uniform(50, 150, (1, m)), rng.uniform(0.5, 2, (m, m))
    q = rng.uniform(50, 150, (m, m))
    return q, q * 0.9, rng.uniform(0.5, 2, (1, m))


def child(name, case, calls):
    """Under valgrind: compile (the first call), then `calls` more calls."""
    f = kernels()[name]
    args = inputs(case)
    f(*args)
    for _ in range(calls):
        f(*args)


def instructions(name, case, calls):
    exe = os.path.realpath(sys.executable)  # not a wrapper script (pyenv)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={tmp}/cg.out",
               "--toggle-collect=dispatcher_vectorcall", "--toggle-collect=worker_main",
               exe, os.path.abspath(__file__), "--child", name, case, str(calls)]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        raise RuntimeError(f"{name} {case} under callgrind: {(r.stderr.strip().splitlines() or ['failed'])[-1]}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=25)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], a.child[1], int(a.child[2]))
        return
    if a.callgrind and not shutil.which("valgrind"):
        sys.exit("--callgrind needs valgrind")
    ns = None if a.callgrind else kernels()
    print(f"{'kernel':17s}" + "".join(f"{c:>10s}" for c in CASES) + ("  (M instructions per call)" if a.callgrind else "  (ms, best of %d)" % a.repeat))
    for name in KERNELS:
        row = []
        for case in CASES:
            if a.callgrind:
                row.append((instructions(name, case, 20) - instructions(name, case, 0)) / 20 / 1e6)
                continue
            f, args = ns[name], inputs(case)
            got = f(*args)
            assert np.allclose(got, f.py_func(*args), rtol=1e-12)
            best = float("inf")
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                f(*args)
                best = min(best, time.perf_counter() - t0)
            row.append(best * 1e3)
        print(f"{name:17s}" + "".join(f"{v:10.2f}" for v in row))


if __name__ == "__main__":
    main()
