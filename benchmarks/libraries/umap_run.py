#!/usr/bin/env python3
"""UMAP (umap-learn, which calls pynndescent), unmodified, under Numba and
under hpcjit's drop-in.

    python3 benchmarks/libraries/umap_run.py [--n 1000] [--dim 20]
        [--cases euclidean,cosine,...] [--timeout 1800] [--json out.json]

As pynndescent_run.py: each framework in its own interpreter (`python THIS
--worker`, `python -m hpcjit.numba THIS --worker`) with a fresh cache
folder.  Per case the worker fits UMAP(random_state=42, n_epochs=100) on a
seeded clustered data set twice (first call: compiling included; second:
compiled code), and scores the embedding by scikit-learn's trustworthiness
(15 neighbours) and by how well 5-NN on the embedding recovers the cluster
labels ("exact-knn" passes scikit-learn's neighbours as precomputed_knn, so
both frameworks lay out the same graph).  The two frameworks' embeddings are compared by the fraction of
points whose 10 nearest neighbours in the embedding agree.

Without umap-learn this prints a line and exits 0.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import add_common_args, ok_rows, run_cases, run_frameworks, run_worker, start, write_json  # noqa: E402

CASES = ("euclidean", "cosine", "manhattan", "supervised", "transform", "densmap", "inverse", "exact-knn")


def _data(n, dim, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((6, dim)) * 4
    labels = rng.integers(0, 6, n)
    X = (centres[labels] + rng.standard_normal((n, dim))).astype(np.float32)
    return X, labels


def _fit(case, X, labels):
    import umap
    kw = dict(n_neighbors=15, random_state=42, n_epochs=100)
    if case in ("cosine", "manhattan"):
        return umap.UMAP(metric=case, **kw).fit_transform(X)
    if case == "supervised":
        return umap.UMAP(**kw).fit_transform(X, y=labels)
    if case == "transform":  # fit on 80%, embed the rest
        m = len(X) * 4 // 5
        model = umap.UMAP(**kw).fit(X[:m])
        import numpy as np
        return np.vstack([model.embedding_, model.transform(X[m:])])
    if case == "exact-knn":  # neighbours from scikit-learn: the same graph in both frameworks
        import numpy as np
        from sklearn.neighbors import NearestNeighbors
        d, i = NearestNeighbors(n_neighbors=15).fit(X).kneighbors(X)
        return umap.UMAP(precomputed_knn=(i, d.astype(np.float32), None), **kw).fit_transform(X)
    if case == "densmap":
        return umap.UMAP(densmap=True, **kw).fit_transform(X)
    if case == "inverse":  # back from the embedding: scored as an embedding of its own
        model = umap.UMAP(**kw).fit(X)
        return model.inverse_transform(model.embedding_[:200])
    return umap.UMAP(**kw).fit_transform(X)


def _scores(case, X, labels, emb):
    import numpy as np
    from sklearn.manifold import trustworthiness
    from sklearn.neighbors import KNeighborsClassifier
    if case == "inverse":  # reconstruction: nearest original point keeps the label?
        from scipy.spatial.distance import cdist
        near = np.argmin(cdist(emb, X), axis=1)
        return {"trust": float("nan"), "label_acc": float(np.mean(labels[near] == labels[:len(emb)]))}
    trust = trustworthiness(X, emb, n_neighbors=15)
    knn = KNeighborsClassifier(5).fit(emb[::2], labels[::2])
    return {"trust": float(trust), "label_acc": float(knn.score(emb[1::2], labels[1::2]))}


def _one(case, n, dim):
    import numpy as np
    X, labels = _data(n, dim)
    out, times, cpu = {}, [], []
    for rep in range(2):
        t0, c0 = time.perf_counter(), time.process_time()
        emb = _fit(case, X, labels)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if rep == 0:
            out["emb"] = np.asarray(emb, dtype=np.float64).tolist()
            out.update(_scores(case, X, labels, emb))
            out["finite"] = bool(np.isfinite(emb).all())
    out["t_first"], out["t_second"] = times
    out["cpu_second"] = cpu[1]  # CPU time of the process: less dependent on the load than wall time
    return out


def worker(opts):
    try:
        import umap  # noqa: F401
    except ImportError:
        print(json.dumps({"skip": "umap-learn is not installed"}))
        return 0
    import warnings
    warnings.simplefilter("ignore")
    import numba
    res = {"numba": numba.__version__, "cases": {}}
    return run_cases(res, opts.cases, lambda case: _one(case, opts.n, opts.dim))


def _run(label, cmd, opts):
    return run_worker(f"umap-{label}", cmd, __file__,
                      ["--n", str(opts.n), "--dim", str(opts.dim), "--cases", ",".join(opts.cases)],
                      opts.timeout)


def _agreement(a, b, k=10):
    """Fraction of shared k nearest neighbours between two embeddings."""
    import numpy as np
    from scipy.spatial.distance import cdist
    A, B = np.asarray(a), np.asarray(b)
    na = np.argsort(cdist(A, A), axis=1)[:, 1:k + 1]
    nb = np.argsort(cdist(B, B), axis=1)[:, 1:k + 1]
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(na.tolist(), nb.tolist())]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_args(ap, CASES)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--dim", type=int, default=20)
    opts, rc = start(ap, argv, worker, "umap", "umap-learn")
    if rc is not None:
        return rc
    runs = run_frameworks(opts, _run)
    print(f"\nUMAP on {opts.n}x{opts.dim} (6 clusters), n_epochs=100; trust = trustworthiness(15), "
          "label = 5-NN label accuracy on the embedding; times in s")
    hdr = (f"{'case':12s} {'framework':9s} {'status':7s} {'trust':>6s} {'label':>6s} "
           f"{'1st call':>9s} {'2nd call':>9s} {'2nd cpu':>8s}  vs Numba embedding")
    print(hdr)
    print("-" * len(hdr))
    for case, fw, c, base in ok_rows(runs, opts.cases, 12):
        cmp = f"{_agreement(base['emb'], c['emb']):.1%} shared 10-NN" if base else ""
        print(f"{case:12s} {fw:9s} {'ok':7s} {c['trust']:6.3f} {c['label_acc']:6.3f} "
              f"{c['t_first']:9.2f} {c['t_second']:9.2f} {c.get('cpu_second', float('nan')):8.2f}  {cmp}")
    if opts.json:
        write_json(opts.json, runs, runs, ("emb",))
    return 0


if __name__ == "__main__":
    sys.exit(main())
