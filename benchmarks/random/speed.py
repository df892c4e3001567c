"""The cost of np.random's draws in compiled code: np.random.rand(10**7)
and a loop of 10**7 scalar np.random.normal() calls, best of 5 runs.

    PYTHONPATH=build/python python3 benchmarks/random/speed.py          # hpcjit
    python3 benchmarks/random/speed.py --numba                          # Numba
"""
import argparse
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--numba", action="store_true")
    ap.add_argument("-n", type=int, default=10**7)
    args = ap.parse_args()
    if args.numba:
        import numba as jit_mod
    else:
        import hpcjit as jit_mod

    @jit_mod.njit
    def rand(n):
        np.random.seed(1)
        return np.random.rand(n)

    @jit_mod.njit
    def normal_loop(n):
        np.random.seed(1)
        s = 0.0
        for _ in range(n):
            s += np.random.normal()
        return s

    for name, f in (("np.random.rand(n)", rand), ("loop of np.random.normal()", normal_loop)):
        f(10)
        best = min(_time(f, args.n) for _ in range(5))
        print(f"{jit_mod.__name__:7s} {name:28s} n={args.n}: {best * 1e3:8.1f} ms")


def _time(f, n):
    t = time.perf_counter()
    f(n)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
