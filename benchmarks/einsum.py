"""np.einsum in compiled code (hpcjit; Numba 0.68 has none) against NumPy's
own np.einsum called from Python, on a few subscripts: a matrix product,
batched matrix-vector products, a contraction over two axes, an outer
product and a trace.

    PYTHONPATH=build/python python3 benchmarks/einsum.py [--repeat R] [--json]

Prints the best-of-R time of each and the ratio NumPy/hpcjit (> 1: hpcjit
faster); each result is checked against NumPy's."""
import argparse
import json
import time

import numpy as np

CASES = [
    ("ij,jk->ik", [(300, 300), (300, 300)]),
    ("bij,bj->bi", [(1000, 16, 16), (1000, 16)]),
    ("ijk,jk->i", [(200, 100, 50), (100, 50)]),
    ("i,j->ij", [(1000,), (1000,)]),
    ("ii", [(2000, 2000)]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    import hpcjit
    rng = np.random.default_rng(0)
    rows = []
    for sub, shapes in CASES:
        ops = [rng.standard_normal(s) for s in shapes]
        src = f"def f({', '.join(f'a{k}' for k in range(len(ops)))}):\n" \
              f"    return np.einsum({sub!r}, {', '.join(f'a{k}' for k in range(len(ops)))})\n"
        ns = {"np": np}
        exec(src, ns)
        f = hpcjit.njit(ns["f"])
        want = np.einsum(sub, *ops)
        assert np.allclose(f(*ops), want), sub
        best = {"hpcjit": float("inf"), "numpy": float("inf")}
        for _ in range(args.repeat):
            for name, fn in (("hpcjit", f), ("numpy", lambda *o: np.einsum(sub, *o))):
                t0 = time.perf_counter()
                fn(*ops)
                best[name] = min(best[name], time.perf_counter() - t0)
        rows.append({"subscripts": sub, "hpcjit_ms": best["hpcjit"] * 1e3, "numpy_ms": best["numpy"] * 1e3,
                     "numpy/hpcjit": best["numpy"] / best["hpcjit"]})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'subscripts':14s} {'hpcjit ms':>10s} {'numpy ms':>10s} {'ratio':>7s}")
    for r in rows:
        print(f"{r['subscripts']:14s} {r['hpcjit_ms']:10.3f} {r['numpy_ms']:10.3f} {r['numpy/hpcjit']:7.2f}")


if __name__ == "__main__":
    main()
