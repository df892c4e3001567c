#!/usr/bin/env python3
"""Closer looks at two QuantEcon cases of quantecon_run.py, in this process
(run it once as `python -m hpcjit.numba ...` and once as plain `python ...`
to compare the drop-in with Numba):

    python3 benchmarks/libraries/quantecon_probe.py roots [--reps 15]
    python3 benchmarks/libraries/quantecon_probe.py ddp [--method value_iteration] [--reps 6]

roots: QuantEcon's jitted newton and brentq, each from its own jitted loop
over 20000 cubics (the root-finding case's objective and derivative),
best of --reps calls, and the calls left in the compiled loop's LLVM IR.
ddp: DiscreteDP(300 states, 30 actions).solve(method) timed per call with
the CPU ticks of each thread meanwhile, then one call under cProfile.
"""
import argparse
import cProfile
import glob
import os
import pstats
import re
import sys
import time


def roots(opts):
    import numpy as np
    from numba import njit
    from quantecon import optimize as qo

    @njit
    def f(x, a):
        return x ** 3 - a * x - 1.0

    @njit
    def fp(x, a):
        return 3.0 * x ** 2 - a

    @njit
    def roots_newton(n):
        out = np.empty(n)
        for i in range(n):
            out[i] = qo.newton(f, 2.0, fp, args=(1.0 + i / n,)).root
        return out

    @njit
    def roots_brentq(n):
        out = np.empty(n)
        for i in range(n):
            out[i] = qo.brentq(f, 1.0, 3.0, args=(1.0 + i / n,)).root
        return out

    for g in (roots_newton, roots_brentq):
        g(10)
        best = float("inf")
        for _ in range(opts.reps):
            t0 = time.perf_counter()
            g(20000)
            best = min(best, time.perf_counter() - t0)
        ir = "\n".join(g.inspect_llvm().values())
        called = sorted({m for m in re.findall(r"call [^@]*@([\w.$]+)\(", ir)})
        print(f"{g.__name__}: best {best * 1e3:.2f} ms of {opts.reps}; functions called in its IR: "
              f"{', '.join(called) if called else '(none)'}")
    return 0


def _ticks():
    out = {}
    for d in glob.glob("/proc/self/task/*"):
        try:
            st = open(d + "/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[os.path.basename(d)] = int(st[11]) + int(st[12])
    return out


def ddp(opts):
    import numba  # noqa: F401  (hpcjit under the drop-in)
    import quantecon as qe
    d = qe.markov.random_discrete_dp(300, 30, beta=0.95, random_state=2)
    d.solve(method=opts.method, epsilon=1e-6)
    for _ in range(opts.reps):
        c0 = _ticks()
        t0 = time.perf_counter()
        r = d.solve(method=opts.method, epsilon=1e-6)
        dt = time.perf_counter() - t0
        c1 = _ticks()
        per = " ".join(f"{t}:{c1[t] - c0.get(t, 0)}" for t in sorted(c1))
        print(f"{opts.method}: {dt:.4f} s, {r.num_iter} iterations; CPU ticks per thread {per}")
    pr = cProfile.Profile()
    pr.enable()
    d.solve(method=opts.method, epsilon=1e-6)
    pr.disable()
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(5)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("roots", "ddp"))
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--method", default="value_iteration")
    opts = ap.parse_args()
    try:
        import quantecon  # noqa: F401
    except ImportError:
        print("quantecon is not installed")
        return 0
    if opts.what == "roots":
        opts.reps = opts.reps or 15
        return roots(opts)
    opts.reps = opts.reps or 6
    return ddp(opts)


if __name__ == "__main__":
    sys.exit(main())
