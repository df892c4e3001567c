#!/usr/bin/env python3
"""pynndescent, unmodified, under Numba and under hpcjit's drop-in.

    python3 benchmarks/libraries/pynndescent_run.py [--n 2000] [--dim 20]
        [--k 15] [--cases euclidean,cosine,...] [--timeout 900] [--json out.json]

Each framework runs in its own interpreter: `python THIS --worker` (the real
Numba) and `python -m hpcjit.numba THIS --worker` (`import numba` is
hpcjit, issue 12), each with a fresh on-disk cache folder (pynndescent asks
for cache=True), so the first call includes compiling.  Per case the worker
builds an NNDescent index on a seeded random data set (float32), reads its
neighbour graph, queries it with held-out points, then builds and queries
again (the second call: compiled code only).  Recall is against brute force
(NumPy / SciPy), and the two frameworks' graphs are compared with each
other (the fraction of identical neighbour lists and of shared neighbours).

pynndescent is not a dependency of hpcjit: without it this prints a line
and exits 0.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import add_common_args, ok_rows, run_cases, run_frameworks, run_worker, start, write_json  # noqa: E402

CASES = ("euclidean", "cosine", "manhattan", "correlation", "hamming-bits", "sparse-euclidean",
         "sparse-cosine")


def _data(case, n, dim, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    if case.startswith("sparse-"):
        import scipy.sparse as sp
        X = sp.random(n, dim * 5, density=0.1, format="csr", dtype=np.float32, random_state=seed)
        X.data[:] = rng.random(X.data.shape[0]).astype(np.float32)
        Q = sp.random(n // 10, dim * 5, density=0.1, format="csr", dtype=np.float32,
                      random_state=seed + 1)
        return X, Q
    if case == "hamming-bits":  # pynndescent's bit-packed path (uint8 data, "bit_hamming")
        X = rng.integers(0, 256, size=(n, dim), dtype=np.uint8)
        Q = rng.integers(0, 256, size=(n // 10, dim), dtype=np.uint8)
        return X, Q
    # a few clusters so that neighbours mean something
    centres = rng.standard_normal((10, dim)).astype(np.float32) * 4
    X = (centres[rng.integers(0, 10, n)] + rng.standard_normal((n, dim))).astype(np.float32)
    Q = (centres[rng.integers(0, 10, n // 10)] + rng.standard_normal((n // 10, dim))).astype(np.float32)
    return X, Q


def _metric(case):
    if case == "hamming-bits":
        return "bit_hamming"
    return case.split("-", 1)[1] if case.startswith("sparse-") else case


def _brute(X, Q, metric, k, self_query):
    """Exact k nearest neighbours of each row of Q among the rows of X."""
    import numpy as np
    from scipy.spatial.distance import cdist
    if hasattr(X, "toarray"):
        X, Q = X.toarray(), Q.toarray()
    if metric == "bit_hamming":
        bits = lambda A: np.unpackbits(A, axis=1).astype(bool)  # noqa: E731
        D = cdist(bits(Q), bits(X), "hamming") * (8 * X.shape[1])  # a count of bits, as bit_hamming
    else:
        D = cdist(Q.astype(np.float64), X.astype(np.float64), {"manhattan": "cityblock"}.get(metric, metric))
    D = np.nan_to_num(D, nan=np.inf)
    return np.argsort(D, axis=1, kind="stable")[:, :k], np.sort(D, axis=1)[:, :k]


def _recall(approx, exact_d, approx_d):
    """Fraction of true neighbours found, counting ties at the k-th distance
    (many points may lie at the k-th distance, so ids alone undercount)."""
    import numpy as np
    kth = exact_d[:, -1:]
    return float(np.mean(approx_d <= kth + 1e-5 * np.maximum(1.0, np.abs(kth))))


def _one(case, n, dim, k):
    import numpy as np
    from pynndescent import NNDescent
    X, Q = _data(case, n, dim)
    metric = _metric(case)
    times, out = [], {}
    for rep in range(2):
        t0 = time.perf_counter()
        index = NNDescent(X, n_neighbors=k, metric=metric, random_state=42, n_jobs=1,
                          low_memory=True, verbose=False)
        ind, dist = index.neighbor_graph
        qi, qd = index.query(Q, k=k)
        times.append(time.perf_counter() - t0)
        if rep == 0:
            out["graph"] = ind.tolist()
            _, ed = _brute(X, X, metric, k, True)
            out["recall"] = _recall(ind, ed, dist)
            _, eqd = _brute(X, Q, metric, k, False)
            out["query_recall"] = _recall(qi, eqd, qd)
        else:
            out["repeatable"] = bool(np.array_equal(np.asarray(out["graph"]), ind))
    out["t_first"], out["t_second"] = times
    return out


def worker(opts):
    try:
        import pynndescent  # noqa: F401
    except ImportError:
        print(json.dumps({"skip": "pynndescent is not installed"}))
        return 0
    import numba
    res = {"numba": numba.__version__, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, opts.n, opts.dim, opts.k))


def _run(label, cmd, opts):
    return run_worker(f"pnn-{label}", cmd, __file__,
                      ["--n", str(opts.n), "--dim", str(opts.dim), "--k", str(opts.k), "--cases", ",".join(opts.cases)],
                      opts.timeout)


def _compare(a, b):
    """(identical lists, shared neighbours) between two neighbour graphs."""
    import numpy as np
    A, B = np.asarray(a), np.asarray(b)
    same = float(np.mean(np.all(A == B, axis=1)))
    shared = float(np.mean([len(set(x) & set(y)) / len(x) for x, y in zip(A.tolist(), B.tolist())]))
    return same, shared


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--dim", type=int, default=20)
    ap.add_argument("--k", type=int, default=15)
    opts, rc = start(ap, argv, worker, "pynndescent", "pynndescent")
    if rc is not None:
        return rc
    runs = run_frameworks(opts, _run)
    print(f"\nNNDescent({opts.n}x{opts.dim}, n_neighbors={opts.k}) then query({opts.n // 10} points); "
          "recall vs brute force (graph / query); times in s (build + graph + query)")
    hdr = (f"{'case':18s} {'framework':9s} {'status':7s} {'recall':>7s} {'q-recall':>8s} "
           f"{'1st call':>9s} {'2nd call':>9s}  vs Numba graph")
    print(hdr)
    print("-" * len(hdr))
    for case, fw, c, base in ok_rows(runs, opts.cases, 18):
        cmp = ""
        if base:
            same, shared = _compare(base["graph"], c["graph"])
            cmp = f"{same:.1%} identical rows, {shared:.1%} shared"
        print(f"{case:18s} {fw:9s} {'ok':7s} {c['recall']:7.3f} {c['query_recall']:8.3f} "
              f"{c['t_first']:9.2f} {c['t_second']:9.2f}  {cmp}")
    if opts.json:
        write_json(opts.json, runs, runs, ("graph",))
    return 0


if __name__ == "__main__":
    sys.exit(main())
