"""Loops over libm functions: hpcjit with glibc's vector variants
(libmvec, compiler/backend/vecmath.c), hpcjit with them off
(HPCJIT_DISABLE_VECTOR_MATH=1) and Numba 0.68, in one process, calls
interleaved; and the largest error of the vector results in ulps of the
correctly rounded value CPython's math module gives (libm, within 1 ulp).

    PYTHONPATH=build/python python3 benchmarks/vector_math.py [--n 1000000] [--repeat 10] [--json F]

Each kernel is `out[i] = f(a[i])` (or `f(a[i], b[i])`) over float64 arrays
with arguments in the function's usual range; times are the best CPU time
(time.process_time) of --repeat calls, in ms.  Numba here has no Intel SVML
(numba.config.USING_SVML is False unless the icc_rt package is installed),
so its loops call libm once per element, as hpcjit's do with vector math
off."""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

SRC = '''
def k(a, b, out):
    for i in range(a.size):
        out[i] = {expr}
'''

CASES = [
    ("sin", "math.sin(a[i])", (-20, 20), None),
    ("cos", "math.cos(a[i])", (-20, 20), None),
    ("tan", "math.tan(a[i])", (-1.5, 1.5), None),
    ("exp", "math.exp(a[i])", (-700, 700), None),
    ("log", "math.log(a[i])", (1e-3, 1e3), None),
    ("log10", "math.log10(a[i])", (1e-3, 1e3), None),
    ("log1p", "math.log1p(a[i])", (-0.9, 100), None),
    ("expm1", "math.expm1(a[i])", (-5, 5), None),
    ("tanh", "math.tanh(a[i])", (-20, 20), None),
    ("sinh", "math.sinh(a[i])", (-20, 20), None),
    ("asin", "math.asin(a[i])", (-1, 1), None),
    ("atan", "math.atan(a[i])", (-50, 50), None),
    ("erf", "math.erf(a[i])", (-5, 5), None),
    ("atan2", "math.atan2(a[i], b[i])", (-10, 10), (-10, 10)),
    ("hypot", "math.hypot(a[i], b[i])", (-1e3, 1e3), (-1e3, 1e3)),
    ("pow", "a[i] ** b[i]", (0, 100), (-5, 5)),
]


def build(jit, expr):
    ns = {"math": math}
    exec(SRC.format(expr=expr), ns)
    return jit(ns["k"])


def best_cpu(f, args, repeat):
    f(*args)
    best = math.inf
    for _ in range(repeat):
        t = time.process_time()
        f(*args)
        best = min(best, time.process_time() - t)
    return best * 1e3


def max_ulps(got, exp):
    fin = np.isfinite(exp) & (exp != 0)
    return float(np.max(np.abs(got[fin] - exp[fin]) / np.spacing(np.abs(exp[fin])))) if fin.any() else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--check-n", type=int, default=200_000, help="elements checked against math")
    ap.add_argument("--no-numba", action="store_true")
    ap.add_argument("--json")
    args = ap.parse_args()
    import hpcjit
    from hpcjit import _compiler
    info = _compiler.target_info()
    if not info.get("vector_math"):
        print("vector_math.py: this target has no libmvec (or it is turned off)")
    numba = None
    if not args.no_numba:
        try:
            import numba
        except ImportError:
            pass
    rng = np.random.default_rng(0)
    rows = []
    print(f"n={args.n}, best CPU ms of {args.repeat}; cpu {info['cpu']}; "
          f"Numba {numba.__version__ if numba else '-'} (SVML {numba.config.USING_SVML if numba else '-'})")
    print(f"{'function':8} {'vector':>9} {'scalar':>9} {'numba':>9} {'scalar/vector':>14} "
          f"{'numba/vector':>13} {'max ulp':>8}")
    for name, expr, ra, rb in CASES:
        a = rng.uniform(*ra, args.n)
        b = rng.uniform(*rb, args.n) if rb else np.zeros(args.n)
        out = np.empty_like(a)
        os.environ.pop("HPCJIT_DISABLE_VECTOR_MATH", None)
        fv = build(hpcjit.njit, expr)
        fv(a, b, out)  # compiled with vector math
        os.environ["HPCJIT_DISABLE_VECTOR_MATH"] = "1"
        fs = build(hpcjit.njit, expr)
        fs(a, b, out)
        os.environ.pop("HPCJIT_DISABLE_VECTOR_MATH", None)
        fn = build(numba.njit, expr) if numba else None
        if fn:
            fn(a, b, out)
        tv = ts = tn = math.inf
        for _ in range(3):  # rounds, interleaved
            tv = min(tv, best_cpu(fv, (a, b, out), args.repeat))
            ts = min(ts, best_cpu(fs, (a, b, out), args.repeat))
            if fn:
                tn = min(tn, best_cpu(fn, (a, b, out), args.repeat))
        m = min(args.check_n, args.n)
        got = np.empty(m)
        fv(a[:m], b[:m], got)
        exp = np.empty(m)
        fv.py_func(a[:m], b[:m], exp)
        ulps = max_ulps(got, exp)
        rows.append({"function": name, "vector_ms": tv, "scalar_ms": ts,
                     "numba_ms": tn if fn else None, "max_ulp": ulps})
        print(f"{name:8} {tv:9.3f} {ts:9.3f} {tn:9.3f} {ts / tv:13.2f}x {tn / tv:12.2f}x {ulps:8.2f}")
    gm = math.exp(sum(math.log(r["scalar_ms"] / r["vector_ms"]) for r in rows) / len(rows))
    print(f"geometric mean, scalar / vector: {gm:.2f}x")
    if numba:
        gn = math.exp(sum(math.log(r["numba_ms"] / r["vector_ms"]) for r in rows) / len(rows))
        print(f"geometric mean, Numba / hpcjit: {gn:.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "repeat": args.repeat, "cpu": info["cpu"], "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
