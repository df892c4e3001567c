#!/usr/bin/env python3
"""STUMPY (matrix profiles), unmodified, under Numba and under hpcjit's drop-in.

    python3 benchmarks/libraries/stumpy_run.py [--n 5000] [--m 50]
        [--cases stump,aamp,...] [--timeout 1800] [--json out.json]

Each framework runs in its own interpreter: `python THIS --worker` (the real
Numba) and `python -m hpcjit.numba THIS --worker` (`import numba` is
hpcjit, issue 12), each with a fresh on-disk cache folder (STUMPY compiles
without cache=True unless `stumpy.cache.save()` is called), so the first
call includes compiling.  Per case the worker computes a matrix profile of a seeded random
walk (float64) and repeats it (the second call: compiled code only).  The
exact cases are checked against brute force (NumPy distance profiles of a
sample of subsequences), the approximate ones (scrump) by how far their
profile lies above the exact one, and the two frameworks' profiles are
compared with each other.

STUMPY is not a dependency of hpcjit: without it this prints a line and
exits 0.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import add_common_args, ok_rows, run_cases, run_frameworks, run_worker, start, write_json  # noqa: E402

CASES = ("stump", "stump-ab", "stump-top3", "aamp", "mstump", "scrump", "stumpi", "motifs")


def _walk(n, seed, dims=None):
    import numpy as np
    rng = np.random.default_rng(seed)
    shape = (n,) if dims is None else (dims, n)
    return rng.standard_normal(shape).cumsum(axis=-1)


def _dist_profile(Q, T, normalize):
    """Distances from the subsequence Q to every subsequence of T (NumPy)."""
    import numpy as np
    W = np.lib.stride_tricks.sliding_window_view(T, len(Q))
    if normalize:
        Qn = (Q - Q.mean()) / Q.std()
        Wn = (W - W.mean(axis=1, keepdims=True)) / W.std(axis=1, keepdims=True)
        return np.sqrt(((Wn - Qn) ** 2).sum(axis=1))
    return np.sqrt(((W - Q) ** 2).sum(axis=1))


def _brute_error(T_A, m, P, T_B=None, normalize=True, rows=50):
    """Largest |P[i] - exact| over a sample of rows (exclusion zone m/4 for a
    self-join, as STUMPY's default)."""
    import numpy as np
    import math
    self_join = T_B is None
    T_B = T_A if self_join else T_B
    err = 0.0
    for i in np.linspace(0, len(P) - 1, rows).astype(int):
        d = _dist_profile(T_A[i:i + m], T_B, normalize)
        if self_join:
            z = int(math.ceil(m / 4))
            d[max(0, i - z):i + z + 1] = np.inf
        err = max(err, abs(float(P[i]) - float(d.min())))
    return err


def _one(case, n, m):
    import numpy as np
    import stumpy
    T = _walk(n, 0)
    out = {}
    times = []
    for rep in range(2):
        t0 = time.perf_counter()
        if case == "stump":
            mp = stumpy.stump(T, m)
            P, I = mp[:, 0], mp[:, 1]
        elif case == "stump-ab":
            T_B = _walk(n // 2, 1)
            mp = stumpy.stump(T, m, T_B, ignore_trivial=False)
            P, I = mp[:, 0], mp[:, 1]
        elif case == "stump-top3":
            mp = stumpy.stump(T, m, k=3)
            P, I = mp[:, 0], mp[:, 3]  # the nearest of the three
        elif case == "aamp":
            mp = stumpy.aamp(T, m)
            P, I = mp[:, 0], mp[:, 1]
        elif case == "mstump":
            T3 = _walk(n // 5, 2, dims=3)
            Pm, Im = stumpy.mstump(T3, m)
            P, I = Pm[-1], Im[-1]  # all three dimensions
        elif case == "scrump":
            np.random.seed(7)  # scrump draws its diagonals with NumPy's global stream
            approx = stumpy.scrump(T, m, percentage=0.1, pre_scrump=True)
            approx.update()
            P, I = approx.P_, approx.I_
        elif case == "stumpi":
            inc = stumpy.stumpi(T[: n // 2], m, egress=False)
            for t in T[n // 2: n // 2 + 200]:
                inc.update(t)
            P, I = inc.P_, inc.I_
        elif case == "motifs":
            mp = stumpy.stump(T, m)
            dist, idx = stumpy.motifs(T, mp[:, 0], max_motifs=3)
            P, I = dist[~np.isnan(dist)], idx[idx >= 0]
        times.append(time.perf_counter() - t0)
        P, I = np.asarray(P, dtype=np.float64), np.asarray(I, dtype=np.int64)
        if rep == 0:
            out["P"], out["I"] = P.tolist(), I.tolist()
            if case in ("stump", "stump-top3", "aamp"):
                out["error"] = _brute_error(T, m, P, normalize=case != "aamp")
            elif case == "stump-ab":
                out["error"] = _brute_error(T, m, P, T_B=_walk(n // 2, 1))
            elif case == "stumpi":
                out["error"] = _brute_error(T[: n // 2 + 200], m, P)
            elif case == "scrump":  # mean excess over the exact profile
                exact = stumpy.stump(T, m)[:, 0].astype(np.float64)
                out["error"] = float(np.mean(P - exact))
        else:
            out["repeatable"] = bool(np.array_equal(np.asarray(out["P"]), P))
    out["t_first"], out["t_second"] = times
    return out


def worker(opts):
    try:
        import stumpy  # noqa: F401
    except ImportError:
        print(json.dumps({"skip": "stumpy is not installed"}))
        return 0
    import numba
    import stumpy
    res = {"numba": numba.__version__, "stumpy": stumpy.__version__,
           "threads": numba.config.NUMBA_NUM_THREADS, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, opts.n, opts.m))


def _run(label, cmd, opts):
    return run_worker(f"stumpy-{label}", cmd, __file__,
                      ["--n", str(opts.n), "--m", str(opts.m), "--cases", ",".join(opts.cases)],
                      opts.timeout)


def _compare(a, b):
    """(largest |P difference|, fraction of equal indices) of two profiles."""
    import numpy as np
    Pa, Pb = np.asarray(a["P"]), np.asarray(b["P"])
    Ia, Ib = np.asarray(a["I"]), np.asarray(b["I"])
    if Pa.shape != Pb.shape or Ia.shape != Ib.shape:
        return float("inf"), 0.0
    fin = np.isfinite(Pa) & np.isfinite(Pb)
    dP = float(np.max(np.abs(Pa[fin] - Pb[fin]), initial=0.0))
    if not np.array_equal(np.isfinite(Pa), np.isfinite(Pb)):
        dP = float("inf")
    return dP, float(np.mean(Ia == Ib)) if Ia.size else 1.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--n", type=int, default=5000, help="length of the series")
    ap.add_argument("--m", type=int, default=50, help="subsequence length")
    opts, rc = start(ap, argv, worker, "stumpy", "stumpy")
    if rc is not None:
        return rc
    runs = run_frameworks(opts, _run)
    print(f"\nmatrix profiles of a random walk of {opts.n} points, m={opts.m}; error: largest |P - brute force| "
          "over 50 rows (scrump: mean excess over the exact profile); times in s")
    hdr = (f"{'case':11s} {'framework':9s} {'status':7s} {'error':>9s} "
           f"{'1st call':>9s} {'2nd call':>9s}  vs Numba (max |dP|, same indices)")
    print(hdr)
    print("-" * len(hdr))
    for case, fw, c, base in ok_rows(runs, opts.cases, 11):
        cmp = ""
        if base:
            dP, same = _compare(base, c)
            cmp = f"{dP:.2e}, {same:.1%}"
        err = f"{c['error']:9.2e}" if "error" in c else f"{'-':>9s}"
        print(f"{case:11s} {fw:9s} {'ok':7s} {err} {c['t_first']:9.2f} {c['t_second']:9.2f}  {cmp}")
    if opts.json:
        write_json(opts.json, runs, runs, ("P", "I"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
