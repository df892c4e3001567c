"""What the library drivers (pynndescent_run.py, umap_run.py, stumpy_run.py,
quantecon_run.py, numbagg_run.py, numba_stats_run.py, pandas_numba_run.py)
share: one framework's worker run in its own interpreter with a fresh cache
folder, both frameworks in turn, a library's test suite under each and its
table, the common options, the table's rows and the --json file."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


_COUNT = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")


def run_pytest(cmd, pytest_args, label, timeout, nodeid):
    """A library's tests in one pytest process (`cmd + -m pytest ...
    pytest_args`, in a fresh cache folder that is also its working
    directory): {"time", "failures": [nodeid(id)...], "passed", "failed",
    ...}; {"error": 1, "note": ...} on a timeout or when no count was
    printed (a collection error)."""
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    if env.get("PYTHONPATH"):  # pytest runs in the cache folder: PYTHONPATH=build/python made absolute
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep))
    with tempfile.TemporaryDirectory(prefix=f"{label}-tests-") as cache:
        env["NUMBA_CACHE_DIR"] = cache
        env["HPCJIT_CACHE_DIR"] = cache
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd + ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE"] + list(pytest_args),
                               capture_output=True, text=True, timeout=timeout, env=env, cwd=cache)
        except subprocess.TimeoutExpired:
            return {"error": 1, "time": timeout, "note": f"timed out after {timeout:.0f} s", "failures": []}
    out = {"time": time.perf_counter() - t0, "failures": []}
    lines = r.stdout.strip().splitlines()
    for line in lines:
        if line.startswith(("FAILED ", "ERROR ")):
            out["failures"].append(nodeid(line.split(" ", 1)[1].split(" - ")[0]))
    for n, what in _COUNT.findall(lines[-1] if lines else ""):
        what = "error" if what.startswith("error") else what
        out[what] = out.get(what, 0) + int(n)
    if not any(k in out for k in ("passed", "failed", "error")):
        out["error"] = 1
        out["note"] = (r.stderr.strip().splitlines() or lines or ["(no output)"])[-1][:200]
    return out


FRAMEWORK_CMDS = {"numba": [sys.executable], "hpcjit": [sys.executable, "-m", "hpcjit.numba"]}


def run_test_suites(opts, label, pytest_args, nodeid):
    """The library's tests (run_pytest) under each framework, or only
    --only's: {framework: counts}, each printed to stderr as it ends."""
    frameworks = {opts.only: FRAMEWORK_CMDS[opts.only]} if opts.only else FRAMEWORK_CMDS
    table = {}
    for fw, cmd in frameworks.items():
        table[fw] = c = run_pytest(cmd, pytest_args, label, opts.test_timeout, nodeid)
        print(f"  {label} tests [{fw}]: {c.get('passed', 0)} passed, {c.get('failed', 0)} failed, "
              f"{c.get('error', 0)} errors {c.get('note', '')}", file=sys.stderr, flush=True)
    return table


def print_test_table(title, table):
    """run_test_suites' counts as a table, then each failure."""
    print(f"\n{title}")
    hdr = f"{'framework':10s} {'passed':>7s} {'failed':>7s} {'errors':>7s} {'skipped':>8s} {'xfailed':>8s} {'time (s)':>9s}"
    print(hdr)
    print("-" * len(hdr))
    for fw, c in table.items():
        print(f"{fw:10s} {c.get('passed', 0):7d} {c.get('failed', 0):7d} {c.get('error', 0):7d} "
              f"{c.get('skipped', 0):8d} {c.get('xfailed', 0):8d} {c['time']:9.1f}")
        for t in c["failures"]:
            print(f"    {fw} failed: {t}")
        if "note" in c:
            print(f"    {fw}: {c['note']}")

def run_worker(label, cmd, script, worker_args, timeout):
    """Run `cmd + [script, "--worker", *worker_args]` (cmd: the interpreter,
    plain or `-m hpcjit.numba`); its RESULT line as a dict with the process's
    wall time, else {"error": ...}."""
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    with tempfile.TemporaryDirectory(prefix=f"{label}-") as cache:
        env["NUMBA_CACHE_DIR"] = cache
        env["HPCJIT_CACHE_DIR"] = cache
        args = cmd + [os.path.abspath(script), "--worker"] + list(worker_args)
        t0 = time.perf_counter()
        try:
            r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            res = json.loads(line[7:])
            res["wall"] = wall
            return res
        if line.startswith("{"):
            return json.loads(line)
    tail = (r.stderr.strip().splitlines() or ["(no output)"])[-1]
    return {"error": f"exit {r.returncode}: {tail[:300]}"}


def run_frameworks(opts, run):
    """run(label, cmd, opts) under Numba and under the drop-in (one of them
    with opts.only); prints each one's numba.__version__ line.  Returns
    {"numba": ..., "hpcjit": ...}."""
    runs = {}
    if opts.only != "hpcjit":
        runs["numba"] = run("numba", [sys.executable], opts)
    if opts.only != "numba":
        runs["hpcjit"] = run("hpcjit", [sys.executable, "-m", "hpcjit.numba"], opts)
    for fw, r in runs.items():
        wall = f" (process {r['wall']:.1f} s)" if "wall" in r else ""
        print(f"{fw}: numba.__version__ {r.get('numba', '?')} {r.get('error', r.get('skip', ''))}{wall}")
    return runs


def add_common_args(ap, cases):
    """The options every driver has: its worker flag, --cases (of `cases`),
    --timeout, --only and --json."""
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cases", default=",".join(cases), help=f"comma-separated, of: {', '.join(cases)}")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per framework")
    ap.add_argument("--only", choices=("numba", "hpcjit"), help="run one framework")
    ap.add_argument("--json", help="write the results to this file")


def ok_rows(runs, cases, width):
    """The table's rows: prints the rows of a framework that has no result
    for a case, or whose case failed, and yields (case, framework, result,
    Numba's result when it is ok else None) for the others."""
    for case in cases:
        base = runs.get("numba", {}).get("cases", {}).get(case)
        if base is not None and base.get("status") != "ok":
            base = None
        for fw, r in runs.items():
            c = r.get("cases", {}).get(case)
            if c is None:
                print(f"{case:{width}s} {fw:9s} {'-':7s} {r.get('error', '')[:90]}")
            elif c["status"] != "ok":
                print(f"{case:{width}s} {fw:9s} {'error':7s} {c['where']}: {c['error'][:110]}")
            else:
                yield case, fw, c, (base if fw != "numba" else None)


def run_cases(res, cases, one):
    """In a worker: res["cases"][case] = one(case) with status "ok", or the
    error and where it was raised; a progress line per case on stderr, then
    the RESULT line run_worker reads."""
    import traceback
    for case in cases:
        t0 = time.perf_counter()
        try:
            r = one(case)
            r["status"] = "ok"
        except Exception as e:  # noqa: BLE001 - reported per case
            tb = traceback.extract_tb(e.__traceback__)
            where = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
            r = {"status": "error", "error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}",
                 "where": where, "t_first": time.perf_counter() - t0}
            print(traceback.format_exc(), file=sys.stderr)
        res["cases"][case] = r
        print(f"[{res.get('numba', '?')}] {case}: {r['status']} {r.get('error', '')}", file=sys.stderr, flush=True)
    print("RESULT " + json.dumps(res))
    return 0


def write_json(path, data, runs, drop):
    """--json: data written to path, the per-case arrays named in drop (the
    results compared between frameworks) left out of each run's cases."""
    for r in runs.values():
        for c in r.get("cases", {}).values():
            for key in drop:
                c.pop(key, None)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def start(ap, argv, worker, module, pip):
    """Parse the options (--cases split into a list); a worker process runs
    `worker(opts)`.  (opts, None) to go on, or (opts, exit code): the
    worker's, or 0 with a message when the library is not installed."""
    import importlib
    opts = ap.parse_args(argv)
    opts.cases = [c for c in opts.cases.split(",") if c]
    if opts.worker:
        return opts, worker(opts)
    try:
        importlib.import_module(module)
    except ImportError:
        print(f"{module} is not installed (pip install {pip}): nothing to run")
        return opts, 0
    return opts, None
