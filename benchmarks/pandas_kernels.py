#!/usr/bin/env python3
"""pandas' engine="numba" kernels, reduced to what made hpcjit slower than
Numba there (issue 15), timed under both compilers in one process.

    python3 benchmarks/pandas_kernels.py [--repeat 15] [--rounds 3]
    python3 benchmarks/pandas_kernels.py --pandas [--repeat 9] [--rounds 2] [--fixed-malloc]

Reproducers (default): each kernel is compiled by Numba and by hpcjit from
the same source, and the two are called alternately, --repeat times each,
--rounds times; the best CPU time (time.process_time) of each round is
printed, so the spread between rounds is the noise of the machine.

- group_agg_1col / group_agg_3col: pandas' group_agg looper
  (pandas/core/groupby/numba_.py) with the user function
  `values.max() - values.min()` per group of 1000 rows of a (10^6, k)
  array: a column slice `values[b:e, j]` is an 'A' array (run-time stride),
  8 bytes when k == 1.
- window_nan_count: pandas' roll_apply looper (pandas/core/window/numba_.py)
  minus the user function: `np.sum(np.isnan(window))` per window of 100.
- rolling_apply_rms: the same looper with the benchmark's user function.
- grouped_kahan_sum: pandas' grouped_kahan_sum + add_sum
  (pandas/core/_numba/kernels/sum_.py), labels in random order.

--pandas: the five cases of benchmarks/libraries/pandas_numba_run.py, each
framework in its own interpreter (`python -m hpcjit.numba` for hpcjit), the
two alternated --rounds times; per case the best total time of a pandas
call, the best time inside the jitted kernel pandas calls (measured by
wrapping what pandas' kernel generators return), the rest (pandas' own
code) and the page faults per call.  --fixed-malloc runs both with
GLIBC_TUNABLES fixing glibc's mmap and trim thresholds (32 and 64 MiB), so
that neither process's heap history decides how often pandas' temporaries
fault pages in.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

CASES = ("rolling_apply", "rolling_mean", "groupby_transform", "groupby_agg", "groupby_mean")


# ---- reproducers: kernels in pandas' shape, built by either compiler ----------------------

def spread(values, index):
    return values.max() - values.min()


def rms(x):
    s = 0.0
    for v in x:
        s += v * v
    return (s / len(x)) ** 0.5


def build(jit, prange, register_jitable):
    user = register_jitable(spread)
    user_rms = register_jitable(rms)

    @jit(nogil=False, parallel=False)
    def group_agg(values, index, begin, end, num_columns):
        assert len(begin) == len(end)
        num_groups = len(begin)
        result = np.empty((num_groups, num_columns))
        for i in prange(num_groups):
            group_index = index[begin[i]:end[i]]
            for j in prange(num_columns):
                group = values[begin[i]:end[i], j]
                result[i, j] = user(group, group_index)
        return result

    @jit(nogil=False, parallel=False)
    def window_nan_count(values, begin, end, minimum_periods):
        result = np.empty(len(begin))
        for i in prange(len(result)):
            window = values[begin[i]:end[i]]
            count_nan = np.sum(np.isnan(window))
            result[i] = 1.0 if len(window) - count_nan >= minimum_periods else np.nan
        return result

    @jit(nogil=False, parallel=False)
    def roll_apply(values, begin, end, minimum_periods):
        result = np.empty(len(begin))
        for i in prange(len(result)):
            window = values[begin[i]:end[i]]
            count_nan = np.sum(np.isnan(window))
            if len(window) - count_nan >= minimum_periods:
                result[i] = user_rms(window)
            else:
                result[i] = np.nan
        return result

    @jit(nogil=True)
    def add_sum(val, nobs, sum_x, compensation, num_consecutive_same_value, prev_value):
        if not np.isnan(val):
            nobs += 1
            y = val - compensation
            t = sum_x + y
            compensation = t - sum_x - y
            sum_x = t
            if val == prev_value:
                num_consecutive_same_value += 1
            else:
                num_consecutive_same_value = 1
            prev_value = val
        return nobs, sum_x, compensation, num_consecutive_same_value, prev_value

    @jit(nogil=True)
    def grouped_kahan_sum(values, labels, ngroups, skipna):
        N = len(labels)
        nobs_arr = np.zeros(ngroups, dtype=np.int64)
        comp_arr = np.zeros(ngroups, dtype=values.dtype)
        consecutive_counts = np.zeros(ngroups, dtype=np.int64)
        prev_vals = np.zeros(ngroups, dtype=values.dtype)
        output = np.zeros(ngroups, dtype=np.float64)
        for i in range(N):
            lab = labels[i]
            val = values[i]
            if lab < 0 or np.isnan(output[lab]):
                continue
            if not skipna and np.isnan(val):
                output[lab] = np.nan
                nobs_arr[lab] += 1
                comp_arr[lab] = np.nan
                consecutive_counts[lab] = 1
                prev_vals[lab] = np.nan
                continue
            sum_x = output[lab]
            nobs = nobs_arr[lab]
            compensation_add = comp_arr[lab]
            num_consecutive_same_value = consecutive_counts[lab]
            prev_value = prev_vals[lab]
            (nobs, sum_x, compensation_add, num_consecutive_same_value, prev_value) = add_sum(
                val, nobs, sum_x, compensation_add, num_consecutive_same_value, prev_value)
            output[lab] = sum_x
            consecutive_counts[lab] = num_consecutive_same_value
            prev_vals[lab] = prev_value
            comp_arr[lab] = compensation_add
            nobs_arr[lab] = nobs
        return output

    return {"group_agg": group_agg, "window_nan_count": window_nan_count, "roll_apply": roll_apply,
            "grouped_kahan_sum": grouped_kahan_sum}


def reproducers(opts):
    import numba
    import numba.extending

    import hpcjit
    import hpcjit.extending

    rng = np.random.default_rng(12)
    n, groups, window = 1_000_000, 1000, 100
    v1 = rng.standard_normal((n, 1))
    v3 = rng.standard_normal((n, 3))
    x = v1[:, 0].copy()
    index = np.arange(n)
    gb = np.arange(0, n, n // groups)
    ge = gb + n // groups
    wb = np.maximum(np.arange(n) - window + 1, 0)
    we = np.arange(n) + 1
    labels = rng.integers(0, groups, n)
    kn = build(numba.njit, numba.prange, numba.extending.register_jitable)
    kh = build(hpcjit.njit, hpcjit.prange, hpcjit.extending.register_jitable)
    runs = [("group_agg_1col", "group_agg", (v1, index, gb, ge, 1)),
            ("group_agg_3col", "group_agg", (v3, index, gb, ge, 3)),
            ("window_nan_count", "window_nan_count", (x, wb, we, window)),
            ("rolling_apply_rms", "roll_apply", (x, wb, we, window)),
            ("grouped_kahan_sum", "grouped_kahan_sum", (x, labels, groups, True))]
    print(f"{'kernel':20s} {'Numba best per round (ms)':>32s} {'hpcjit best per round (ms)':>32s}  hpcjit/Numba")
    for name, key, args in runs:
        a, b = kn[key](*args), kh[key](*args)
        if not np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True):
            raise SystemExit(f"{name}: the two compilers disagree")
        rounds = {"numba": [], "hpcjit": []}
        for _ in range(opts.rounds):
            best = {"numba": 1e9, "hpcjit": 1e9}
            for _ in range(opts.repeat):
                for label, k in (("numba", kn[key]), ("hpcjit", kh[key])):
                    t0 = time.process_time()
                    k(*args)
                    best[label] = min(best[label], time.process_time() - t0)
            for label in best:
                rounds[label].append(best[label] * 1e3)
        ratio = [h / m for h, m in zip(rounds["hpcjit"], rounds["numba"])]
        print(f"{name:20s} {' '.join(f'{t:7.3f}' for t in rounds['numba']):>32s} "
              f"{' '.join(f'{t:7.3f}' for t in rounds['hpcjit']):>32s}  {min(ratio):.2f}-{max(ratio):.2f}",
              flush=True)


# ---- the pandas workload, a framework per interpreter ---------------------------------------

def worker(opts):
    import resource

    import numba
    import pandas.core._numba.executor as ex
    import pandas.core.groupby.numba_ as gn
    import pandas.core.window.rolling as wr
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "libraries"))
    from pandas_numba_run import _call, _frame

    inside = [0.0]

    def wrap(mod, name):
        orig = getattr(mod, name)
        made = {}

        def gen(*a, **k):
            f = orig(*a, **k)
            if id(f) not in made:
                def timed(*args, **kw):
                    t0 = time.process_time()
                    try:
                        return f(*args, **kw)
                    finally:
                        inside[0] += time.process_time() - t0
                made[id(f)] = (f, timed)
            return made[id(f)][1]
        setattr(mod, name, gen)

    wrap(ex, "generate_shared_aggregator")
    wrap(gn, "generate_numba_agg_func")
    wrap(gn, "generate_numba_transform_func")
    wrap(wr, "generate_numba_apply_func")
    df = _frame(1_000_000, 1000)
    out = {}
    for case in CASES:
        _call(case, df, 100, "numba")
        total, kern, rest, faults = [], [], [], []
        for _ in range(opts.repeat):
            inside[0] = 0.0
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            t0 = time.process_time()
            _call(case, df, 100, "numba")
            t = time.process_time() - t0
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
            total.append(t)
            kern.append(inside[0])
            rest.append(t - inside[0])
        out[case] = {"total": min(total) * 1e3, "kernel": min(kern) * 1e3, "rest": min(rest) * 1e3,
                     "faults": sorted(faults)[len(faults) // 2]}
    print("RESULT " + json.dumps({"framework": "hpcjit" if "hpcjit" in numba.__version__ else "numba",
                                  "cases": out}))


def pandas_mode(opts):
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("pandas is not installed")
        return 0
    env = dict(os.environ)
    if opts.fixed_malloc:
        env["GLIBC_TUNABLES"] = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864"
    me = os.path.abspath(__file__)
    args = ["--worker", "--repeat", str(opts.repeat)]
    runs = {"numba": [], "hpcjit": []}
    for _ in range(opts.rounds):
        for label, cmd in (("numba", [sys.executable, me]), ("hpcjit", [sys.executable, "-m", "hpcjit.numba", me])):
            p = subprocess.run(cmd + args, env=env, capture_output=True, text=True, timeout=opts.timeout)
            line = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
            if p.returncode or not line:
                sys.stderr.write(p.stdout + p.stderr)
                raise SystemExit(f"{label} worker failed")
            runs[label].append(json.loads(line[0][7:])["cases"])
    print(f"malloc: {'fixed thresholds (GLIBC_TUNABLES)' if opts.fixed_malloc else 'glibc defaults'}; "
          f"{opts.rounds} rounds x {opts.repeat} calls; ms, min-max over the rounds of the best call")
    print(f"{'case':18s} {'':6s} {'total':>15s} {'kernel':>15s} {'rest':>15s} {'faults/call':>15s}")

    def rng_(xs, fmt):
        return f"{fmt.format(min(xs))}-{fmt.format(max(xs))}"
    for case in CASES:
        for label in ("numba", "hpcjit"):
            r = [x[case] for x in runs[label]]
            print(f"{case:18s} {label:6s} {rng_([x['total'] for x in r], '{:.1f}'):>15s} "
                  f"{rng_([x['kernel'] for x in r], '{:.2f}'):>15s} {rng_([x['rest'] for x in r], '{:.1f}'):>15s} "
                  f"{rng_([x['faults'] for x in r], '{:d}'):>15s}")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump(runs, fh, indent=1)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=None, help="calls per round (15; 9 with --pandas)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds (3; 2 with --pandas)")
    ap.add_argument("--pandas", action="store_true", help="the pandas workload instead of the reproducers")
    ap.add_argument("--fixed-malloc", action="store_true", help="--pandas: fix glibc's mmap/trim thresholds")
    ap.add_argument("--timeout", type=float, default=1800.0, help="--pandas: seconds per worker")
    ap.add_argument("--json", help="--pandas: write the raw results here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.worker:
        opts.repeat = opts.repeat or 9
        return worker(opts)
    if opts.pandas:
        opts.repeat, opts.rounds = opts.repeat or 9, opts.rounds or 2
        return pandas_mode(opts)
    opts.repeat, opts.rounds = opts.repeat or 15, opts.rounds or 3
    return reproducers(opts)


if __name__ == "__main__":
    sys.exit(main())
