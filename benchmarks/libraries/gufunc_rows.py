"""numbagg's slow cases taken apart: one gufunc on 1 row and on 32 rows,
target="cpu" and "parallel", under Numba and under hpcjit's drop-in.

    PYTHONPATH=build/python python3 benchmarks/libraries/gufunc_rows.py [--rounds 4] [--calls 30]

The kernels here are written with numbagg 0.9.6's idioms (not its
source): a grouped NaN-sum over labels whose loop is
`np.ndindex` over the core dimensions with a store per element, the same
with `range`, and a moving standard deviation (window 20).  The data is
numbagg_run.py's: rows of 100000 float64 random-walk points, 5% NaN, labels
the day of the year (365 groups).  With numbagg installed the cases also
include its own group_nansum, group_nanmean, move_std and nanquantile on
the same array; np.partition in an @njit function (nanquantile's kernel
is mostly that) is timed on one row too.

Each round starts one worker process per framework, in turn (Numba, then
hpcjit: both see the same load); a worker makes each call `--calls` times
after a first one and reports the best and the median wall time and the
CPU time per call (all threads of the process: a pool's waiting threads
count while they spin).  The table gives, per case, the median over the
rounds of each worker's best and median, and the range of the bests; the
load average is printed before and after: on a shared machine the parallel
cases' times are mostly the scheduler's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

N = 100000
ROW_COUNTS = (1, 32)


def _data(rows):
    import numpy as np
    rng = np.random.default_rng(42)
    a = rng.standard_normal((rows, N)).cumsum(axis=-1)
    a[rng.random(a.shape) < 0.05] = np.nan
    labels = (np.arange(N) % 365).astype(np.int64)
    return a, labels


def _kernels(target):
    import numpy as np
    import numba
    from numba import float64, int64

    @numba.guvectorize([(float64[:], int64[:], float64[:])], "(n),(n),(z)", nopython=True, target=target)
    def group_nansum_ndindex(values, labels, out):
        out[:] = 0
        for ix in np.ndindex(values.shape):
            g = labels[ix]
            v = values[ix]
            if g >= 0 and not np.isnan(v):
                out[g] += v

    @numba.guvectorize([(float64[:], int64[:], float64[:])], "(n),(n),(z)", nopython=True, target=target)
    def group_nansum_range(values, labels, out):
        out[:] = 0
        for i in range(values.shape[0]):
            g = labels[i]
            v = values[i]
            if g >= 0 and not np.isnan(v):
                out[g] += v

    @numba.guvectorize([(float64[:], int64, int64, float64[:])], "(n),(),()->(n)", nopython=True, target=target)
    def move_std(a, window, min_count, out):
        s = 0.0
        s2 = 0.0
        cnt = 0
        need = max(min_count, 2)
        for i in range(a.shape[0]):
            x = a[i]
            if not np.isnan(x):
                s += x
                s2 += x * x
                cnt += 1
            if i >= window:
                old = a[i - window]
                if not np.isnan(old):
                    s -= old
                    s2 -= old * old
                    cnt -= 1
            if cnt >= need:
                out[i] = np.sqrt((s2 - s * s / cnt) / (cnt - 1))
            else:
                out[i] = np.nan

    return group_nansum_ndindex, group_nansum_range, move_std


def _cases():
    """[(name, rows, fn)] for one worker."""
    import numpy as np
    out = []
    for target in ("cpu", "parallel"):
        gnd, grg, mstd = _kernels(target)
        for rows in ROW_COUNTS:
            a, labels = _data(rows)
            res = np.empty((rows, 365))
            out.append((f"group_nansum ndindex {target}", rows, lambda g=gnd, a=a, l=labels, r=res: g(a, l, r)))
            out.append((f"group_nansum range {target}", rows, lambda g=grg, a=a, l=labels, r=res: g(a, l, r)))
            out.append((f"move_std kernel {target}", rows, lambda g=mstd, a=a: g(a, 20, 0)))
    # np.partition in compiled code, as nanquantile's kernel calls it (kth:
    # the two ranks either side of each quantile), on one 100000-point row
    import numba

    @numba.njit
    def partition(a, kth):
        return np.partition(a, kth)
    a, _ = _data(1)
    kth = np.array([24999, 25000, 74998, 74999])
    clean = np.where(np.isnan(a[0]), np.nanmax(a[0]), a[0])
    out.append(("np.partition (njit), 4 kth, no NaN", 1, lambda: partition(clean, kth)))
    out.append(("np.partition (njit), 4 kth, 5% NaN", 1, lambda: partition(a[0], kth)))
    try:
        import numbagg
    except ImportError:
        return out
    for rows in ROW_COUNTS:
        a, labels = _data(rows)
        out += [("numbagg.group_nansum", rows, lambda a=a, l=labels: numbagg.group_nansum(a, l, axis=-1)),
                ("numbagg.group_nanmean", rows, lambda a=a, l=labels: numbagg.group_nanmean(a, l, axis=-1)),
                ("numbagg.move_std", rows, lambda a=a: numbagg.move_std(a, window=20)),
                ("numbagg.nanquantile", rows, lambda a=a: numbagg.nanquantile(a, [0.25, 0.75]))]
    return out


def worker(calls):
    import warnings
    warnings.simplefilter("ignore")  # Numba's gufuncs report NaN comparisons as "invalid value"
    res = {}
    for name, rows, fn in _cases():
        fn()  # compiles
        walls = []
        c0 = time.process_time()
        for _ in range(calls):
            t0 = time.perf_counter()
            fn()
            walls.append(time.perf_counter() - t0)
        cpu = (time.process_time() - c0) / calls
        walls.sort()
        res[f"{name}|{rows}"] = {"best": walls[0], "median": walls[len(walls) // 2], "cpu": cpu}
    print("RESULT " + json.dumps(res))


def _run(cmd, opts):
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    r = subprocess.run(cmd + [os.path.abspath(__file__), "--worker", "--calls", str(opts.calls)],
                       capture_output=True, text=True, env=env, timeout=opts.timeout)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{cmd}: no result\n{r.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4, help="worker processes per framework, interleaved")
    ap.add_argument("--calls", type=int, default=30, help="timed calls per case in a worker")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", help="write every worker's figures here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        return worker(opts.calls)
    frameworks = {"Numba": [sys.executable], "hpcjit": [sys.executable, "-m", "hpcjit.numba"]}
    load0 = os.getloadavg()
    runs = {k: [] for k in frameworks}
    for _ in range(opts.rounds):
        for k, cmd in frameworks.items():
            runs[k].append(_run(cmd, opts))
    load1 = os.getloadavg()
    import numba
    print(f"Numba {numba.__version__}; {os.cpu_count()} CPUs; load average before "
          f"{load0[0]:.1f}/{load0[1]:.1f}/{load0[2]:.1f}, after {load1[0]:.1f}/{load1[1]:.1f}/{load1[2]:.1f}; "
          f"{opts.rounds} rounds x {opts.calls} calls; times in ms, per call")
    print("| case | rows | framework | best (median of rounds) | best (range) | median | CPU per call |")
    print("|---|---|---|---|---|---|---|")
    for key in runs["Numba"][0]:
        name, rows = key.split("|")
        for k in frameworks:
            per = [r[key] for r in runs[k]]
            bests = [p["best"] * 1e3 for p in per]
            print(f"| {name} | {rows} | {k} | {statistics.median(bests):.3f} | {min(bests):.3f}-{max(bests):.3f} "
                  f"| {statistics.median(p['median'] * 1e3 for p in per):.3f} "
                  f"| {statistics.median(p['cpu'] * 1e3 for p in per):.3f} |")
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"load_before": load0, "load_after": load1, "runs": runs}, f, indent=1)


if __name__ == "__main__":
    main()
