"""First-call time of the n-th specialisation of a function that calls an
overload (np.pad, written with hpcjit.extending.overload): 75 argument
types in turn (5 dtypes x 3 layouts x 5 pad widths), each call compiling.
The time of a late specialisation should match an early one's; it grew
with n while every compilation gathered the overload's earlier
implementations again (docs/PERFORMANCE.md, "First-call compile latency").  Numba 0.68
has no np.pad, so there is no Numba column.

    PYTHONPATH=build/python python3 benchmarks/overload_specialisations.py [--json FILE]
"""
import argparse
import json
import time

import numpy as np

import hpcjit


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    args = ap.parse_args()

    @hpcjit.njit
    def pad_edge(a, w):
        return np.pad(a, w, mode="edge")

    widths = [1, (1, 2), ((1, 2),), ((1, 2), (3, 4)), (3,)]  # five types
    times = []
    for dt in (np.int32, np.int64, np.float32, np.float64, np.bool_):
        base = np.ones((3, 8), dt)
        for a in (base[:, :4].copy(), np.asfortranarray(base[:, :4]), base[:, ::2]):
            for w in widths:
                t = time.perf_counter()
                pad_edge(a, w)
                times.append(time.perf_counter() - t)
    ms = [round(t * 1e3, 1) for t in times]
    print(f"{len(ms)} specialisations of np.pad(mode='edge'), first-call ms")
    print(f"  first 5: {ms[:5]}")
    print(f"  last 5:  {ms[-5:]}")
    print(f"  median of the first 15: {sorted(ms[:15])[7]}, of the last 15: {sorted(ms[-15:])[7]}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"first_call_ms": ms}, fh, indent=1)


if __name__ == "__main__":
    main()
