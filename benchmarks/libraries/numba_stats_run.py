#!/usr/bin/env python3
"""numba-stats (1.14.0: statistical distributions, every pdf/cdf/ppf a
Numba function with explicit float32/float64 signatures, scipy.special
reached through `get_cython_function_address`), unmodified, under Numba and
under hpcjit's drop-in.

    python3 benchmarks/libraries/numba_stats_run.py [--repo DIR] [--cases norm_pdf,...]
        [--n 1000000] [--repeat 20] [--rounds 1] [--no-tests] [--test-timeout 1800]
        [--timeout 1800] [--json out.json]

Two parts, each framework in its own interpreters (`python ...` is the real
Numba, `python -m hpcjit.numba ...` the drop-in: `import numba` is hpcjit),
each with a fresh on-disk cache folder:

1. numba-stats' own tests (its repository's tests/ folder, which the wheel
   does not ship: --repo, by default a clone of
   /work/.mirror/HDembinski+numba-stats/repo when that exists, else this
   part is left out with a line saying so), one pytest process per
   framework, `-o addopts=""` (the repository's addopts name plugins and
   options of its own CI), testing the installed numba_stats.
2. A workload: pdf, cdf and ppf (pmf and cdf for poisson) of norm, t,
   crystalball, voigt (pdf only: numba-stats has no other), truncnorm and
   poisson on --n float64 points (x from -5 to 5, p from 1e-6 to 1 - 1e-6,
   k = 0..49).  The first call is timed with compiling (numba-stats
   compiles its explicit signatures at import, so the import is timed too,
   once, before all cases), then the steady state (best of --repeat calls;
   with --rounds R the whole workload runs R times, the frameworks in turn,
   and the best of all is kept: the shared machine's load comes and goes).
   Each result is compared with scipy.stats (scipy.special.voigt_profile)
   and with the other framework's.

numba-stats is not a dependency of hpcjit: without it this prints a line
and exits 0.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import (add_common_args, ok_rows, print_test_table, run_cases, run_frameworks,  # noqa: E402
                      run_test_suites, run_worker, start, write_json)

MIRROR = "/work/.mirror/HDembinski+numba-stats/repo"
CASES = ("norm_pdf", "norm_cdf", "norm_ppf", "t_pdf", "t_cdf", "t_ppf", "crystalball_pdf", "crystalball_cdf",
         "crystalball_ppf", "voigt_pdf", "truncnorm_pdf", "truncnorm_cdf", "truncnorm_ppf", "poisson_pmf",
         "poisson_cdf")


# ---- the workload (in a worker) -------------------------------------------------------

def _setup(case, n):
    """(the numba-stats call, the scipy reference)."""
    import numpy as np
    import scipy.special as sp
    import scipy.stats as st
    import numba_stats as ns
    x = np.linspace(-5.0, 5.0, n)
    p = np.linspace(1e-6, 1.0 - 1e-6, n)
    k = (np.arange(n) % 50).astype(np.float64)
    dist, fn = case.rsplit("_", 1)
    arg = p if fn == "ppf" else k if dist == "poisson" else x
    if dist == "norm":
        ours, ref, par = ns.norm, st.norm(0.5, 1.5), (0.5, 1.5)
    elif dist == "t":
        ours, ref, par = ns.t, st.t(4.5, 0.5, 1.5), (4.5, 0.5, 1.5)
    elif dist == "crystalball":
        ours, ref, par = ns.crystalball, st.crystalball(1.5, 3.0, 0.5, 1.5), (1.5, 3.0, 0.5, 1.5)
    elif dist == "truncnorm":  # numba-stats bounds the variate; scipy bounds the standardised one
        xmin, xmax, loc, scale = -2.0, 3.0, 0.5, 1.5
        ours, ref = ns.truncnorm, st.truncnorm((xmin - loc) / scale, (xmax - loc) / scale, loc, scale)
        par = (xmin, xmax, loc, scale)
    elif dist == "poisson":
        ours, ref, par = ns.poisson, st.poisson(7.5), (7.5,)
    elif dist == "voigt":
        gamma, loc, scale = 0.7, 0.5, 1.5
        return (lambda: ns.voigt.pdf(x, gamma, loc, scale), lambda: sp.voigt_profile(x - loc, scale, gamma))
    else:
        raise ValueError(case)
    return (lambda: getattr(ours, fn)(arg, *par), lambda: getattr(ref, fn)(arg))


def _diff(x, y):
    """Largest |x - y| relative to max(1, |y|) where both are finite, or a
    string when the shapes or the non-finite positions differ."""
    import numpy as np
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        return f"shapes {x.shape} vs {y.shape}"
    fx, fy = np.isfinite(x), np.isfinite(y)
    if not np.array_equal(fx, fy) or not np.array_equal(x[~fx], y[~fy]):
        return f"non-finite at {int((fx != fy).sum())} other places"
    return float(np.max(np.abs(x[fx] - y[fx]) / np.maximum(1.0, np.abs(y[fx])), initial=0.0))


def _one(case, opts):
    import numpy as np
    fn, ref = _setup(case, opts.n)
    t0 = time.perf_counter()
    r = fn()
    t_first = time.perf_counter() - t0
    best = float("inf")
    same = True
    for _ in range(opts.repeat):
        t0 = time.perf_counter()
        r2 = fn()
        best = min(best, time.perf_counter() - t0)
        same = same and np.array_equal(r, r2, equal_nan=True)
    np.save(os.path.join(opts.out, f"{case}.npy"), np.asarray(r))
    return {"t_first": t_first, "t_steady": best, "repeatable": bool(same), "vs_ref": _diff(r, ref()),
            "shape": list(np.shape(r))}


def worker(opts):
    import numba
    t0 = time.perf_counter()
    try:
        import numba_stats
        for m in ("norm", "t", "crystalball", "voigt", "truncnorm", "poisson"):
            __import__("numba_stats." + m)
    except ImportError:
        print('{"skip": "numba_stats is not installed"}')
        return 0
    res = {"numba": numba.__version__, "numba_stats": numba_stats.__version__,
           "t_import": time.perf_counter() - t0, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, opts))


def _run(label, cmd, opts):
    out = os.path.join(opts.out, label)
    os.makedirs(out, exist_ok=True)
    return run_worker(f"numba-stats-{label}", cmd, __file__,
                      ["--cases", ",".join(opts.cases), "--repeat", str(opts.repeat), "--n", str(opts.n),
                       "--out", out], opts.timeout)


# ---- numba-stats' test suite (in the driver) ------------------------------------------------

def _repo(opts, tmp):
    """The repository checkout whose tests/ to run, or None (said why)."""
    if opts.repo:
        return opts.repo if os.path.isdir(os.path.join(opts.repo, "tests")) else None
    if not os.path.isdir(MIRROR):
        print(f"no --repo and no {MIRROR}: numba-stats' tests left out")
        return None
    dest = os.path.join(tmp, "numba-stats")
    r = subprocess.run(["git", "clone", "-q", MIRROR, dest], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"git clone {MIRROR} failed ({r.stderr.strip()[:200]}): numba-stats' tests left out")
        return None
    return dest


def run_tests(opts, repo):
    tests = os.path.join(os.path.abspath(repo), "tests")
    return run_test_suites(opts, "numba-stats", ["-o", "addopts=", tests], lambda i: i.split("/tests/", 1)[-1])


def print_tests(table, repo):
    rev = subprocess.run(["git", "-C", repo, "describe", "--tags", "--always"], capture_output=True,
                         text=True).stdout.strip()
    print_test_table(f"numba-stats' tests ({rev or repo}: tests/, -o addopts=''; one pytest process per framework)",
                     table)


# ---- the driver ---------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--repo", help="a numba-stats repository checkout (its tests/ folder is run)")
    ap.add_argument("--n", type=int, default=1_000_000, help="points per call")
    ap.add_argument("--repeat", type=int, default=20, help="steady-state calls per case (the best is shown; many, as the shared "
                    "machine is loaded)")
    ap.add_argument("--rounds", type=int, default=1, help="workload runs, Numba and hpcjit in turn (the steady "
                    "state is the best of all; the first call is the first round's)")
    ap.add_argument("--no-tests", action="store_true", help="skip numba-stats' test suite")
    ap.add_argument("--test-timeout", type=float, default=1800.0, help="seconds per framework for the suite")
    ap.add_argument("--out", help=argparse.SUPPRESS)  # a worker's folder for its results
    opts, rc = start(ap, argv, worker, "numba_stats", "numba-stats==1.14.0 scipy")
    if rc is not None:
        return rc
    out = {}
    import numpy as np
    with tempfile.TemporaryDirectory(prefix="numba-stats-results-") as results:
        repo = None if opts.no_tests else _repo(opts, results)
        if repo:
            out["tests"] = run_tests(opts, repo)
        opts.out = results
        runs = run_frameworks(opts, _run)
        for _ in range(opts.rounds - 1):  # Numba and hpcjit in turn again: each case's best steady state
            again = run_frameworks(opts, _run)
            for fw, r in again.items():
                for case, c in r.get("cases", {}).items():
                    old = runs.get(fw, {}).get("cases", {}).get(case)
                    if old and old.get("status") == c.get("status") == "ok":
                        old["t_steady"] = min(old["t_steady"], c["t_steady"])
        out["workload"] = runs
        if repo:
            print_tests(out["tests"], repo)
        imp = ", ".join(f"{fw} {r['t_import']:.2f} s" for fw, r in runs.items() if "t_import" in r)
        print(f"\nworkload: {opts.n} float64 points per call; import of the 6 modules (compiling their "
              f"explicit signatures): {imp}; first call (compiling what is left) and steady state (best of "
              f"{opts.repeat} x {opts.rounds} rounds), s; vs scipy and vs Numba: largest |difference| / max(1, |value|)")
        hdr = f"{'case':16s} {'framework':9s} {'status':7s} {'1st call':>9s} {'steady':>9s} {'vs scipy':>9s}  vs Numba"
        print(hdr)
        print("-" * len(hdr))
        for case, fw, c, base in ok_rows(runs, opts.cases, 16):
            cmp = ""
            if base:
                x = np.load(os.path.join(results, "numba", f"{case}.npy"))
                y = np.load(os.path.join(results, fw, f"{case}.npy"))
                d = _diff(y, x)
                c["vs_numba"] = d
                ratio = c["t_steady"] / base["t_steady"]
                cmp = (f"{d:.1e}" if isinstance(d, float) else d) + f"  (steady {ratio:.2f}x Numba's)"
            ref = c["vs_ref"]
            ref = f"{ref:9.1e}" if isinstance(ref, float) else ref
            rep = "" if c.get("repeatable", True) else " (not repeatable)"
            print(f"{case:16s} {fw:9s} {'ok':7s} {c['t_first']:9.3f} {c['t_steady']:9.4f} {ref}  {cmp}{rep}")
    if opts.json:
        write_json(opts.json, out, runs, ())
    return 0


if __name__ == "__main__":
    sys.exit(main())
