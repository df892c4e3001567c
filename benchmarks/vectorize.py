"""@vectorize ufuncs: hpcjit vs Numba (same decorator, same signatures) vs
NumPy's own expression, on 10^7 float64 elements, for target="cpu" and
target="parallel".

    PYTHONPATH=build/python python3 benchmarks/vectorize.py [--n N] [--repeat R] [--json]

Prints the best-of-R time of each (calls interleaved) and the ratio
Numba/hpcjit (target >= 1.0)."""
import argparse
import json
import math
import time

import numpy as np


def k_trig(x):
    return math.sin(x) * math.cos(x) + x * x


def k_rel(x, y):
    return 2 * (x - y) / (x + y)


def k_branch(x):
    return math.exp(x) if x < 0.5 else 1.0 / x


KERNELS = [
    ("sin*cos+x*x", k_trig, 1, lambda x, y: np.sin(x) * np.cos(x) + x * x),
    ("2(x-y)/(x+y)", k_rel, 2, lambda x, y: 2 * (x - y) / (x + y)),
    ("exp or 1/x", k_branch, 1, lambda x, y: np.where(x < 0.5, np.exp(x), 1.0 / x)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    import hpcjit
    try:
        import numba
    except ImportError:
        numba = None
    rng = np.random.default_rng(0)
    x = rng.random(args.n) + 0.01
    y = rng.random(args.n) + 1.0
    rows = []
    for target in ("cpu", "parallel"):
        for name, fn, nin, npexpr in KERNELS:
            sig = ["float64(" + ", ".join(["float64"] * nin) + ")"]
            ins = (x, y)[:nin]
            cands = {"hpcjit": hpcjit.vectorize(sig, target=target)(fn),
                     "numpy": lambda *a: npexpr(x, y)}
            if numba is not None:
                cands["numba"] = numba.vectorize(sig, target=target)(fn)
            ref = npexpr(x, y)
            best = {}
            for k, f in cands.items():
                np.testing.assert_allclose(f(*ins), ref, rtol=1e-12)
                best[k] = float("inf")
            for _ in range(args.repeat):
                for k, f in cands.items():
                    t = time.perf_counter()
                    f(*ins)
                    best[k] = min(best[k], time.perf_counter() - t)
            row = {"target": target, "kernel": name, **{k + "_ms": v * 1e3 for k, v in best.items()}}
            if "numba" in best:
                row["numba/hpcjit"] = best["numba"] / best["hpcjit"]
            row["numpy/hpcjit"] = best["numpy"] / best["hpcjit"]
            rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"@vectorize on {args.n} float64 (best of {args.repeat}, ms)")
    print(f"{'target':9} {'kernel':14} {'hpcjit':>8} {'Numba':>8} {'NumPy':>8} {'Numba/hpcjit':>13} {'NumPy/hpcjit':>13}")
    for r in rows:
        print(f"{r['target']:9} {r['kernel']:14} {r['hpcjit_ms']:8.1f} {r.get('numba_ms', float('nan')):8.1f} "
              f"{r['numpy_ms']:8.1f} {r.get('numba/hpcjit', float('nan')):12.2f}x {r['numpy/hpcjit']:12.2f}x")


if __name__ == "__main__":
    main()
