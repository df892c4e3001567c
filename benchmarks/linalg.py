"""Linear algebra in compiled code: hpcjit (BLAS/LAPACK dlopened by the
runtime) vs NumPy (its bundled OpenBLAS) vs Numba (SciPy's LAPACK, when
SciPy is installed).

    PYTHONPATH=build/python python3 benchmarks/linalg.py [--repeat R]

Two kinds of kernel: one large BLAS/LAPACK call (the libraries do the
work; the ratio says whether hpcjit adds overhead or picked a slower
library), and many small calls in a loop, where compiled code avoids
NumPy's per-call cost.  Prints the best-of-R time (calls interleaved).
The BLAS thread count follows OPENBLAS_NUM_THREADS on every side."""
import argparse
import time

import numpy as np


def k_gemm(a, b):
    return a @ b


def k_solve(a, b):
    return np.linalg.solve(a, b)


def k_small_solves(A, B):
    # many 4x4 systems: per-call overhead dominates
    acc = 0.0
    for i in range(A.shape[0]):
        x = np.linalg.solve(A[i], B[i])
        acc += np.dot(x, x)
    return acc


def k_gram_trace(X):
    acc = 0.0
    for i in range(X.shape[0]):
        g = X[i].T @ X[i]
        acc += np.trace(g) + np.linalg.det(g)
    return acc


def inputs():
    r = np.random.default_rng(0)
    return [
        ("gemm 512x512", k_gemm, (r.random((512, 512)), r.random((512, 512)))),
        ("solve 400x400, 10 rhs", k_solve, (r.random((400, 400)) + 400 * np.eye(400), r.random((400, 10)))),
        ("10000 solves of 4x4", k_small_solves, (r.random((10000, 4, 4)) + 4 * np.eye(4), r.random((10000, 4)))),
        ("5000 Gram 6x3 + det", k_gram_trace, (r.random((5000, 6, 3)),)),
    ]


def best_interleaved(fs, args, repeat):
    for f in fs:
        f(*args)
    t = [float("inf")] * len(fs)
    for _ in range(repeat):
        for i, f in enumerate(fs):
            t0 = time.perf_counter()
            f(*args)
            t[i] = min(t[i], time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    import hpcjit
    try:
        import numba
    except ImportError:
        numba = None
    print(f"{'kernel':24s} {'NumPy ms':>10s} {'hpcjit ms':>10s} {'Numba ms':>10s} {'NumPy/hpcjit':>13s}")
    for name, k, a in inputs():
        fs = [k, hpcjit.njit(k)]
        nb = None
        if numba is not None:
            try:
                nb = numba.njit(k)
                nb(*a)
                fs.append(nb)
            except Exception:  # Numba's linear algebra needs SciPy
                nb = None
        t = best_interleaved(fs, a, args.repeat)
        tn = f"{t[2] * 1e3:10.3f}" if nb is not None else f"{'-':>10s}"
        print(f"{name:24s} {t[0] * 1e3:10.3f} {t[1] * 1e3:10.3f} {tn} {t[0] / t[1]:12.1f}x")
    maps = open("/proc/self/maps").read()
    libs = sorted({ln.split()[-1] for ln in maps.splitlines() if ("blas" in ln or "lapack" in ln) and "/" in ln})
    print("BLAS/LAPACK mapped:", ", ".join(libs))


if __name__ == "__main__":
    main()
