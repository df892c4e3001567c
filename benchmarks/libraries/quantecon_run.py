#!/usr/bin/env python3
"""QuantEcon (quantecon 0.11.4), unmodified, under Numba and under hpcjit's drop-in.

    python3 benchmarks/libraries/quantecon_run.py [--cases markov,ddp,...]
        [--no-tests] [--test-timeout 900] [--repeat 5] [--timeout 1800] [--json out.json]

Two parts, each framework in its own interpreters (`python ...` is the real
Numba, `python -m hpcjit.numba ...` the drop-in: `import numba` is hpcjit),
each with a fresh on-disk cache folder (QuantEcon asks for cache=True):

1. QuantEcon's own tests (shipped inside the package: quantecon/*/tests):
   every test file in its own pytest process per framework, with a timeout;
   the table gives passed/failed per file and framework.
2. A workload of its compiled routines, seeded: MarkovChain.simulate (50
   states, 4 paths of 200000 steps), gth_solve (300 states), DiscreteDP
   (300 states, 30 actions) solved by policy and by value iteration,
   lemke_howson (a random 150x150 game, 20 initial pivots),
   support_enumeration (a random 10x10 game), nelder_mead (4-d Rosenbrock,
   a jitted objective), newton and brentq called from a jitted loop (20000
   cubics), linprog_simplex (150 inequalities, 200 variables).  Per case the first call
   (compiling into the empty cache) and the steady state (best of --repeat
   later calls) are timed, and the results are compared between frameworks.

QuantEcon is not a dependency of hpcjit: without it this prints a line and
exits 0.
"""
import argparse
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import add_common_args, run_pytest, ok_rows, run_cases, run_frameworks, run_worker, start, write_json  # noqa: E402

CASES = ("markov-sim", "gth-solve", "ddp-pi", "ddp-vi", "lemke-howson", "support-enum",
         "nelder-mead", "root-finding", "linprog")


# ---- the workload (in a worker) -------------------------------------------------------

def _setup(case):
    """(what to call, its arguments) for a case: the inputs are made once,
    seeded, outside the timing."""
    import numpy as np
    import quantecon as qe
    from numba import njit
    from quantecon import game_theory as gt
    from quantecon import optimize as qo

    if case == "markov-sim":
        P = qe.markov.random_stochastic_matrix(50, k=10, random_state=0)
        mc = qe.MarkovChain(P)
        return lambda: mc.simulate(ts_length=200_000, init=0, num_reps=4, random_state=1234)
    if case == "gth-solve":
        P = qe.markov.random_stochastic_matrix(300, random_state=1)
        return lambda: qe.markov.gth_solve(P)
    if case in ("ddp-pi", "ddp-vi"):
        ddp = qe.markov.random_discrete_dp(300, 30, beta=0.95, random_state=2)
        method = "policy_iteration" if case == "ddp-pi" else "value_iteration"

        def solve():
            res = ddp.solve(method=method, epsilon=1e-6)
            return np.concatenate([res.v, res.sigma.astype(np.float64)])
        return solve
    if case == "lemke-howson":
        g = gt.random_game((150, 150), random_state=3)

        def lh():
            return np.concatenate([np.concatenate(gt.lemke_howson(g, init_pivot=k)) for k in range(20)])
        return lh
    if case == "support-enum":
        g = gt.random_game((10, 10), random_state=4)

        def se():
            return np.concatenate([np.concatenate(ne) for ne in gt.support_enumeration(g)])
        return se
    if case == "nelder-mead":
        @njit
        def neg_rosen(x):
            s = 0.0
            for i in range(x.shape[0] - 1):
                s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
            return -s

        x0 = np.full(4, -1.0)

        def nm():
            r = qo.nelder_mead(neg_rosen, x0, max_iter=20000)
            return np.append(r.x, [r.fun, r.nit])
        return nm
    if case == "root-finding":
        @njit
        def f(x, a):
            return x ** 3 - a * x - 1.0

        @njit
        def fp(x, a):
            return 3.0 * x ** 2 - a

        @njit
        def roots(n):
            out = np.empty((n, 2))
            for i in range(n):
                a = 1.0 + i / n
                out[i, 0] = qo.newton(f, 2.0, fp, args=(a,)).root
                out[i, 1] = qo.brentq(f, 1.0, 3.0, args=(a,)).root
            return out
        return lambda: roots(20_000).ravel()
    if case == "linprog":
        rng = np.random.default_rng(5)
        m, n = 150, 200
        A = rng.random((m, n))
        b = A @ rng.random(n) + 1.0
        c = rng.random(n)

        def lp():
            r = qo.linprog_simplex(c, A_ub=A, b_ub=b)
            return np.append(r.x, [r.fun, r.num_iter, r.success])
        return lp
    raise ValueError(case)


def _one(case, repeat):
    import numpy as np
    fn = _setup(case)
    t0 = time.perf_counter()
    r = np.asarray(fn(), dtype=np.float64).ravel()
    t_first = time.perf_counter() - t0
    best = float("inf")
    same = True
    for _ in range(repeat):
        t0 = time.perf_counter()
        r2 = np.asarray(fn(), dtype=np.float64).ravel()
        best = min(best, time.perf_counter() - t0)
        same = same and np.array_equal(r, r2, equal_nan=True)
    return {"result": r.tolist(), "t_first": t_first, "t_steady": best, "repeatable": bool(same)}


def worker(opts):
    try:
        import quantecon  # noqa: F401
    except ImportError:
        print(json.dumps({"skip": "quantecon is not installed"}))
        return 0
    import numba
    import quantecon
    res = {"numba": numba.__version__, "quantecon": quantecon.__version__, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, opts.repeat))


def _run(label, cmd, opts):
    return run_worker(f"quantecon-{label}", cmd, __file__,
                      ["--cases", ",".join(opts.cases), "--repeat", str(opts.repeat)], opts.timeout)


# ---- QuantEcon's test files (in the driver) -------------------------------------------

def test_files():
    """QuantEcon's test files, as paths (its package's */tests/test_*.py)."""
    import importlib.util
    spec = importlib.util.find_spec("quantecon")
    root = os.path.dirname(spec.origin)
    return root, sorted(glob.glob(os.path.join(root, "**", "tests", "test_*.py"), recursive=True))


def run_test_file(cmd, path, timeout):
    """One pytest process on one file: {"passed": n, "failed": n, ...,
    "time": s, "failures": [test ids]} (a timeout or a collection error
    counts as "error")."""
    return run_pytest(cmd, [path], "quantecon", timeout, lambda i: i.split("::", 1)[-1])


def run_tests(opts):
    root, files = test_files()
    frameworks = {"numba": [sys.executable], "hpcjit": [sys.executable, "-m", "hpcjit.numba"]}
    if opts.only:
        frameworks = {opts.only: frameworks[opts.only]}
    table = {}
    for path in files:
        name = os.path.relpath(path, root)
        table[name] = {}
        for fw, cmd in frameworks.items():
            table[name][fw] = run_test_file(cmd, path, opts.test_timeout)
            c = table[name][fw]
            print(f"  {name} [{fw}]: {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
                  f"{c.get('error', 0)} errors {c.get('note', '')}", file=sys.stderr, flush=True)
    return table


def print_tests(table):
    fws = list(next(iter(table.values())).keys()) if table else []
    print("\nQuantEcon's test files (one pytest process per file and framework; passed/failed, time in s)")
    hdr = f"{'test file':48s} " + " ".join(f"{fw + ' pass/fail':>16s} {'time':>6s}" for fw in fws)
    print(hdr)
    print("-" * len(hdr))
    tot = {fw: [0, 0, 0.0] for fw in fws}
    for name, row in table.items():
        cells = []
        for fw in fws:
            c = row[fw]
            p, f = c.get("passed", 0), c.get("failed", 0) + c.get("error", 0)
            tot[fw][0] += p
            tot[fw][1] += f
            tot[fw][2] += c["time"]
            cells.append(f"{p:>9d}/{f:<6d} {c['time']:6.1f}")
        print(f"{name:48s} " + " ".join(cells))
        for fw in fws:
            for t in row[fw]["failures"]:
                print(f"    {fw} failed: {t}")
            if "note" in row[fw]:
                print(f"    {fw}: {row[fw]['note']}")
    print(f"{'total (' + str(len(table)) + ' files)':48s} "
          + " ".join(f"{tot[fw][0]:>9d}/{tot[fw][1]:<6d} {tot[fw][2]:6.1f}" for fw in fws))


# ---- the driver ---------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--repeat", type=int, default=5, help="steady-state calls per case (the best is shown)")
    ap.add_argument("--no-tests", action="store_true", help="skip QuantEcon's test files")
    ap.add_argument("--test-timeout", type=float, default=900.0, help="seconds per test file and framework")
    opts, rc = start(ap, argv, worker, "quantecon", "quantecon==0.11.4")
    if rc is not None:
        return rc
    out = {}
    if not opts.no_tests:
        out["tests"] = run_tests(opts)
    runs = run_frameworks(opts, _run)
    out["workload"] = runs
    if "tests" in out:
        print_tests(out["tests"])
    print("\nworkload: first call (compiling into an empty cache) and steady state (best of "
          f"{opts.repeat}), s; vs Numba: largest |difference| of the results")
    hdr = f"{'case':13s} {'framework':9s} {'status':7s} {'1st call':>9s} {'steady':>9s}  vs Numba"
    print(hdr)
    print("-" * len(hdr))
    import numpy as np
    for case, fw, c, base in ok_rows(runs, opts.cases, 13):
        cmp = ""
        if base:
            a, b = np.asarray(base["result"]), np.asarray(c["result"])
            cmp = (f"{float(np.max(np.abs(a - b), initial=0.0)):.1e} over {a.size} values"
                   if a.shape == b.shape else f"shapes differ: {a.shape} vs {b.shape}")
        rep = "" if c.get("repeatable", True) else " (not repeatable)"
        print(f"{case:13s} {fw:9s} {'ok':7s} {c['t_first']:9.3f} {c['t_steady']:9.4f}  {cmp}{rep}")
    if opts.json:
        write_json(opts.json, out, runs, ("result",))
    return 0


if __name__ == "__main__":
    sys.exit(main())
