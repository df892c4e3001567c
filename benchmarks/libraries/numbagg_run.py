#!/usr/bin/env python3
"""numbagg (0.9.6: moving-window, exponential and grouped NaN-aware reductions),
unmodified, under Numba and under hpcjit's drop-in.

    python3 benchmarks/libraries/numbagg_run.py [--cases move_mean,nanmean,...]
        [--rows 32] [--n 100000] [--repeat 5] [--no-tests] [--test-timeout 2400]
        [--timeout 1800] [--json out.json]

Two parts, each framework in its own interpreters (`python ...` is the real
Numba, `python -m hpcjit.numba ...` the drop-in: `import numba` is hpcjit),
each with a fresh on-disk cache folder:

1. numbagg's own tests (shipped in the wheel: numbagg/test), one pytest
   process per framework over the whole suite, `-m "not nightly"` (what
   numbagg's repository runs by default: the nightly ones are its 10^7-point
   benchmarks and a cache-segfault check) and `--benchmark-disable` (each
   benchmark test runs its function once, as a test).
2. A workload of numbagg's functions on a seeded array of `--rows` random
   walks of `--n` float64 points, 5% NaN (labels for the grouped ones: the
   day of the year, 365 groups along the last axis): move_mean and move_std
   (window 20), move_exp_nanmean (alpha 0.1), nanmean and nanquantile
   ([0.25, 0.75]) along the last axis, group_nansum and group_nanmean, and
   ffill.  numbagg compiles a gufunc per function on its first call
   (`target="parallel"`), so the first call is timed with compiling, then
   the steady state: the best and the median of --repeat calls, and the
   process's CPU time per call (on a shared machine a parallel gufunc's
   best of a few calls is mostly the scheduler's; gufunc_rows.py takes the
   slow cases apart).  Each result is compared with
   a reference computed without numbagg (bottleneck, NumPy, pandas) and
   with the other framework's.

numbagg is not a dependency of hpcjit: without it this prints a line and
exits 0.
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import (add_common_args, ok_rows, print_test_table, run_cases, run_frameworks,  # noqa: E402
                      run_test_suites, run_worker, start, write_json)

CASES = ("move_mean", "move_std", "move_exp_nanmean", "nanmean", "nanquantile", "group_nansum",
         "group_nanmean", "ffill")


# ---- the workload (in a worker) -------------------------------------------------------

def _data(rows, n):
    import numpy as np
    rng = np.random.default_rng(0)
    a = rng.standard_normal((rows, n)).cumsum(axis=-1)
    a[rng.random((rows, n)) < 0.05] = np.nan
    labels = (np.arange(n) % 365).astype(np.int64)
    return a, labels


def _group_ref(a, labels, mean):
    """Per row: the sum (or mean) of the non-NaN values of each label."""
    import numpy as np
    ok = ~np.isnan(a)
    k = int(labels.max()) + 1
    s = np.stack([np.bincount(labels[m], weights=r[m], minlength=k) for r, m in zip(a, ok)])
    if not mean:
        return s
    c = np.stack([np.bincount(labels[m], minlength=k) for m in ok])
    with np.errstate(invalid="ignore"):
        return s / c


def _setup(case, a, labels):
    """(the numbagg call, the reference without numbagg)."""
    import numpy as np
    import numbagg

    def frame_t(x):  # pandas works down columns: the rows of `a` as columns
        import pandas as pd
        return pd.DataFrame(x.T)

    if case == "move_mean":
        import bottleneck as bn
        return (lambda: numbagg.move_mean(a, window=20), lambda: bn.move_mean(a, 20, axis=-1))
    if case == "move_std":
        return (lambda: numbagg.move_std(a, window=20),
                lambda: frame_t(a).rolling(20).std().to_numpy().T)
    if case == "move_exp_nanmean":
        return (lambda: numbagg.move_exp_nanmean(a, alpha=0.1),
                lambda: frame_t(a).ewm(alpha=0.1).mean().to_numpy().T)
    if case == "nanmean":
        return lambda: numbagg.nanmean(a, axis=-1), lambda: np.nanmean(a, axis=-1)
    if case == "nanquantile":
        q = [0.25, 0.75]
        return lambda: numbagg.nanquantile(a, q, axis=-1), lambda: np.nanquantile(a, q, axis=-1)
    if case == "group_nansum":
        return (lambda: numbagg.group_nansum(a, labels, axis=-1), lambda: _group_ref(a, labels, False))
    if case == "group_nanmean":
        return (lambda: numbagg.group_nanmean(a, labels, axis=-1), lambda: _group_ref(a, labels, True))
    if case == "ffill":
        return lambda: numbagg.ffill(a, axis=-1), lambda: frame_t(a).ffill().to_numpy().T
    raise ValueError(case)


def _diff(x, y):
    """Largest |x - y| where both are numbers, or a string when the shapes
    or the NaN positions differ."""
    import numpy as np
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        return f"shapes {x.shape} vs {y.shape}"
    nx, ny = np.isnan(x), np.isnan(y)
    if not np.array_equal(nx, ny):
        return f"NaN at {int((nx != ny).sum())} other places"
    return float(np.max(np.abs(x[~nx] - y[~nx]), initial=0.0))


def _one(case, opts, a, labels):
    import numpy as np
    fn, ref = _setup(case, a, labels)
    t0 = time.perf_counter()
    r = fn()
    t_first = time.perf_counter() - t0
    times = []
    same = True
    c0 = time.process_time()
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        r2 = fn()
        times.append(time.perf_counter() - t0)
        same = same and np.array_equal(r, r2, equal_nan=True)
    # CPU time of every thread of the process: a pool's waiting threads
    # count while they spin
    cpu = (time.process_time() - c0) / opts.repeat
    times.sort()
    np.save(os.path.join(opts.out, f"{case}.npy"), np.asarray(r))
    return {"t_first": t_first, "t_steady": times[0], "t_median": times[len(times) // 2], "cpu_per_call": cpu,
            "repeatable": bool(same), "vs_ref": _diff(r, ref()), "shape": list(np.shape(r))}


def worker(opts):
    try:
        import numbagg
    except ImportError:
        print('{"skip": "numbagg is not installed"}')
        return 0
    import numba
    a, labels = _data(opts.rows, opts.n)
    res = {"numba": numba.__version__, "numbagg": numbagg.__version__, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, opts, a, labels))


def _run(label, cmd, opts):
    out = os.path.join(opts.out, label)
    os.makedirs(out, exist_ok=True)
    return run_worker(f"numbagg-{label}", cmd, __file__,
                      ["--cases", ",".join(opts.cases), "--repeat", str(opts.repeat), "--rows", str(opts.rows),
                       "--n", str(opts.n), "--out", out], opts.timeout)


# ---- numbagg's test suite (in the driver) ------------------------------------------------

def run_tests(opts):
    return run_test_suites(opts, "numbagg", ["-m", "not nightly", "--benchmark-disable", "--pyargs", "numbagg"],
                           lambda i: i)


def print_tests(table):
    print_test_table("numbagg's tests (-m 'not nightly' --benchmark-disable; one pytest process per framework)",
                     table)


# ---- the driver ---------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--rows", type=int, default=32, help="series (rows of the array)")
    ap.add_argument("--n", type=int, default=100_000, help="points per series")
    ap.add_argument("--repeat", type=int, default=21,
                    help="steady-state calls per case (the best and the median are shown)")
    ap.add_argument("--no-tests", action="store_true", help="skip numbagg's test suite")
    ap.add_argument("--test-timeout", type=float, default=2400.0, help="seconds per framework for the suite")
    ap.add_argument("--out", help=argparse.SUPPRESS)  # a worker's folder for its results
    opts, rc = start(ap, argv, worker, "numbagg", "numbagg==0.9.6 pandas bottleneck hypothesis pytest-benchmark")
    if rc is not None:
        return rc
    out = {}
    if not opts.no_tests:
        out["tests"] = run_tests(opts)
    import numpy as np
    with tempfile.TemporaryDirectory(prefix="numbagg-results-") as results:
        opts.out = results
        runs = run_frameworks(opts, _run)
        out["workload"] = runs
        if "tests" in out:
            print_tests(out["tests"])
        print(f"\nworkload: {opts.rows} x {opts.n} float64, 5% NaN; first call (compiling) and steady "
              f"state (best and median of {opts.repeat}, and the process's CPU time per call: all its threads), s; "
              "vs reference (bottleneck, NumPy, pandas) and vs Numba: largest |difference|")
        hdr = (f"{'case':17s} {'framework':9s} {'status':7s} {'1st call':>9s} {'best':>9s} {'median':>9s} "
               f"{'CPU/call':>9s} {'vs ref':>9s}  vs Numba")
        print(hdr)
        print("-" * len(hdr))
        for case, fw, c, base in ok_rows(runs, opts.cases, 17):
            cmp = ""
            if base:
                x = np.load(os.path.join(results, "numba", f"{case}.npy"))
                y = np.load(os.path.join(results, fw, f"{case}.npy"))
                d = _diff(x, y)
                c["vs_numba"] = d
                cmp = f"{d:.1e} over {x.size} values" if isinstance(d, float) else d
            ref = c["vs_ref"]
            ref = f"{ref:9.1e}" if isinstance(ref, float) else ref
            rep = "" if c.get("repeatable", True) else " (not repeatable)"
            print(f"{case:17s} {fw:9s} {'ok':7s} {c['t_first']:9.3f} {c['t_steady']:9.4f} {c['t_median']:9.4f} "
                  f"{c['cpu_per_call']:9.4f} {ref}  {cmp}{rep}")
    if opts.json:
        write_json(opts.json, out, runs, ())
    return 0


if __name__ == "__main__":
    sys.exit(main())
