#!/usr/bin/env python3
"""pandas (3.1.1: `engine="numba"` of rolling/expanding/groupby/ewm and
DataFrame.apply, which jits the user's function and pandas' own kernels,
pandas/core/_numba/), unmodified, under Numba and under hpcjit's drop-in.

    python3 benchmarks/libraries/pandas_numba_run.py [--cases rolling_apply,...]
        [--n 1000000] [--window 100] [--groups 1000] [--repeat 7] [--no-tests]
        [--test-timeout 1800] [--timeout 1800] [--only numba|hpcjit] [--json out.json]

Two parts, each framework in its own interpreters (`python ...` is the real
Numba, `python -m hpcjit.numba ...` the drop-in: `import numba` is hpcjit),
each with a fresh on-disk cache folder:

1. pandas' own tests of the numba engine, from the installed package
   (tests/apply/test_numba.py, tests/groupby/aggregate/test_numba.py,
   tests/groupby/test_numba.py, tests/groupby/transform/test_numba.py,
   tests/window/test_numba.py, tests/window/test_online.py), one pytest
   process per framework.
2. A workload on a --n row float64 Series/DataFrame (keys: --groups
   groups): rolling(--window).apply(f, raw=True, engine="numba") of a user
   function, rolling(--window).mean(engine="numba"),
   groupby(key).transform(g, engine="numba") and .agg(h, engine="numba") of
   user functions, groupby(key).mean(engine="numba").  The first call is
   timed with compiling, then the steady state (best and median of
   --repeat calls).  Each result is compared with the other framework's and
   with engine="cython" (computed here, in the driver, without Numba).

pandas is not a dependency of hpcjit: without it this prints a line and
exits 0.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import (add_common_args, ok_rows, print_test_table, run_cases, run_frameworks,  # noqa: E402
                      run_test_suites, run_worker, start, write_json)

CASES = ("rolling_apply", "rolling_mean", "groupby_transform", "groupby_agg", "groupby_mean")
TEST_FILES = ("apply/test_numba.py", "groupby/aggregate/test_numba.py", "groupby/test_numba.py",
              "groupby/transform/test_numba.py", "window/test_numba.py", "window/test_online.py")


# ---- the workload (the user functions at module level: each framework jits them) -----------

def rms(x):
    """rolling(...).apply(rms, raw=True): one window's values."""
    s = 0.0
    for v in x:
        s += v * v
    return (s / len(x)) ** 0.5


def centred(values, index):
    """groupby(...).transform(centred, engine=...): one group's values."""
    return values - values.mean()


def spread(values, index):
    """groupby(...).agg(spread, engine=...): one group's values."""
    return values.max() - values.min()


def _frame(n, groups):
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(12)
    return pd.DataFrame({"key": rng.integers(0, groups, n), "x": rng.standard_normal(n)})


def _call(case, df, window, engine):
    """The case's call with `engine` ("numba" or "cython"), as a float64 array."""
    import numpy as np
    if case == "rolling_apply":
        r = df["x"].rolling(window).apply(rms, raw=True, engine=engine)
    elif case == "rolling_mean":
        r = df["x"].rolling(window).mean(engine=engine)
    elif case == "groupby_transform":
        r = df.groupby("key")["x"].transform(centred if engine == "numba" else (lambda v: v - v.mean()),
                                             engine=engine)
    elif case == "groupby_agg":
        r = df.groupby("key")["x"].agg(spread if engine == "numba" else (lambda v: v.max() - v.min()),
                                       engine=engine)
    elif case == "groupby_mean":
        r = df.groupby("key")["x"].mean(engine=engine)
    else:
        raise ValueError(case)
    return np.asarray(r, dtype=np.float64)


def _one(case, df, opts):
    import numpy as np
    t0 = time.perf_counter()
    r = _call(case, df, opts.window, "numba")
    t_first = time.perf_counter() - t0
    times, same = [], True
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        r2 = _call(case, df, opts.window, "numba")
        times.append(time.perf_counter() - t0)
        same = same and np.array_equal(r, r2, equal_nan=True)
    np.save(os.path.join(opts.out, f"{case}.npy"), r)
    return {"t_first": t_first, "t_best": min(times), "t_median": statistics.median(times),
            "repeatable": bool(same), "shape": list(r.shape)}


def worker(opts):
    import numba
    try:
        import pandas
    except ImportError:
        print('{"skip": "pandas is not installed"}')
        return 0
    df = _frame(opts.n, opts.groups)
    res = {"numba": numba.__version__, "pandas": pandas.__version__, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, df, opts))


def _run(label, cmd, opts):
    out = os.path.join(opts.out, label)
    os.makedirs(out, exist_ok=True)
    return run_worker(f"pandas-numba-{label}", cmd, __file__,
                      ["--cases", ",".join(opts.cases), "--repeat", str(opts.repeat), "--n", str(opts.n),
                       "--window", str(opts.window), "--groups", str(opts.groups), "--out", out], opts.timeout)


def _diff(x, y):
    """Largest |x - y| relative to max(1, |y|) where both are finite, or a
    string when the shapes or the non-finite positions differ."""
    import numpy as np
    if x.shape != y.shape:
        return f"shapes {x.shape} vs {y.shape}"
    fx, fy = np.isfinite(x), np.isfinite(y)
    if not np.array_equal(fx, fy):
        return f"non-finite at {int((fx != fy).sum())} other places"
    return float(np.max(np.abs(x[fx] - y[fx]) / np.maximum(1.0, np.abs(y[fx])), initial=0.0))


# ---- pandas' tests of the numba engine (in the driver) ---------------------------------------

def run_tests(opts):
    import pandas
    root = os.path.join(os.path.dirname(pandas.__file__), "tests")
    files = [os.path.join(root, f) for f in TEST_FILES if os.path.exists(os.path.join(root, f))]
    return run_test_suites(opts, "pandas-numba", files, lambda i: i.split("/pandas/tests/", 1)[-1])


def print_tests(table):
    import pandas
    print_test_table(f"pandas {pandas.__version__}'s numba-engine tests ({', '.join(TEST_FILES)}; one pytest "
                     "process per framework)", table)


# ---- the driver ---------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--n", type=int, default=1_000_000, help="rows")
    ap.add_argument("--window", type=int, default=100, help="rolling window")
    ap.add_argument("--groups", type=int, default=1000, help="groupby keys")
    ap.add_argument("--repeat", type=int, default=7, help="steady-state calls per case (best and median shown)")
    ap.add_argument("--no-tests", action="store_true", help="skip pandas' numba-engine tests")
    ap.add_argument("--test-timeout", type=float, default=1800.0, help="seconds per framework for the tests")
    ap.add_argument("--out", help=argparse.SUPPRESS)  # a worker's folder for its results
    opts, rc = start(ap, argv, worker, "pandas", "pandas numba")
    if rc is not None:
        return rc
    out = {}
    import numpy as np
    if not opts.no_tests:
        out["tests"] = run_tests(opts)
    with tempfile.TemporaryDirectory(prefix="pandas-numba-results-") as results:
        opts.out = results
        runs = run_frameworks(opts, _run)
        out["workload"] = runs
        if "tests" in out:
            print_tests(out["tests"])
        df = _frame(opts.n, opts.groups)
        print(f"\nworkload: {opts.n} rows, rolling window {opts.window}, {opts.groups} groups; first call "
              f"(compiling included) and steady state (best / median of {opts.repeat}), s; vs engine='cython' "
              "and vs Numba: largest |difference| / max(1, |value|)")
        hdr = (f"{'case':18s} {'framework':9s} {'status':7s} {'1st call':>9s} {'best':>8s} {'median':>8s} "
               f"{'vs cython':>9s}  vs Numba")
        print(hdr)
        print("-" * len(hdr))
        refs = {}
        for case, fw, c, base in ok_rows(runs, opts.cases, 18):
            y = np.load(os.path.join(results, fw, f"{case}.npy"))
            if case not in refs:
                refs[case] = _call(case, df, opts.window, "cython")
            ref = _diff(y, refs[case])
            c["vs_cython"] = ref
            cmp = ""
            if base:
                d = _diff(y, np.load(os.path.join(results, "numba", f"{case}.npy")))
                c["vs_numba"] = d
                cmp = (f"{d:.1e}" if isinstance(d, float) else d) + \
                    f"  (best {c['t_best'] / base['t_best']:.2f}x Numba's)"
            ref = f"{ref:9.1e}" if isinstance(ref, float) else ref
            rep = "" if c.get("repeatable", True) else " (not repeatable)"
            print(f"{case:18s} {fw:9s} {'ok':7s} {c['t_first']:9.3f} {c['t_best']:8.4f} {c['t_median']:8.4f} "
                  f"{ref}  {cmp}{rep}")
    if opts.json:
        write_json(opts.json, out, runs, ())
    return 0


if __name__ == "__main__":
    sys.exit(main())
