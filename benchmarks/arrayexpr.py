"""Fused array expressions and NumPy reductions: hpcjit vs NumPy vs Numba
on arrays larger than the last-level cache.  Each expression kernel is one
expression of three or more operators; hpcjit fuses it into one loop with
one output allocation, NumPy makes a temporary per operator.  The
reduction kernels are whole-array and axis reductions as NumPy code writes
them (np.sum pairwise on every side that does it).

    PYTHONPATH=build/python python3 benchmarks/arrayexpr.py [--n N] [--repeat R]

Prints the best-of-R time (calls interleaved) of each and the ratios NumPy/hpcjit (target
>= 1.5) and Numba/hpcjit (target >= 1.0).

Large arrays come from the runtime's cache of huge-page mappings
(runtime/memory.c), so a result array does not page-fault on every call;
figures are in the top-level README ("Array memory")."""
import argparse
import time

import numpy as np


def k_poly(a, b, c):
    return a * b + c * a - b


def k_mixed(a, b, c):
    return a * b + c - np.sqrt(np.abs(a)) / (1.0 + b * b)


def k_where(a, b, c):
    return np.where(a > b, a - c, b * c) + 2.0


def k_affine(a, b, c):
    return a * 2.0 + b * 3.0 - c


def r_sum(a, b, c):
    return np.sum(a)


def r_sum_expr(a, b, c):
    return np.sum(a * b + c)


def r_std(a, b, c):
    return a.std()


def r_range(a, b, c):
    return a.max() - a.min()


def r_cols(a, b, c):
    return a.reshape(-1, 1000).sum(axis=0)


def r_rows_mean(a, b, c):
    return a.reshape(-1, 1000).mean(axis=1)


KERNELS = [k_poly, k_mixed, k_where, k_affine]
REDUCTIONS = [r_sum, r_sum_expr, r_std, r_range, r_cols, r_rows_mean]


def best_interleaved(fs, args, repeat):
    """Best-of-`repeat` time of each function, the calls interleaved so that
    load from other jobs on the machine hits every side alike."""
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
    ap.add_argument("--n", type=int, default=8_000_000,
                    help="elements per array (default 8M: 61 MiB each, past a 32 MiB last-level cache)")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    import hpcjit
    try:
        import numba
    except ImportError:
        numba = None
    gen = np.random.default_rng(0)
    a, b, c = (gen.random(args.n) + 0.5 for _ in range(3))
    print(f"n = {args.n} float64 ({args.n * 8 / 2**20:.0f} MiB per array), best of {args.repeat}")
    print(f"{'kernel':12} {'numpy ms':>9} {'hpcjit ms':>9} {'numba ms':>9} {'np/hj':>7} {'nb/hj':>7}")
    for k in KERNELS + REDUCTIONS:
        if k is REDUCTIONS[0]:
            print("reductions")
        hj = hpcjit.njit(k)
        exp = k(a, b, c)
        assert np.allclose(hj(a, b, c), exp, rtol=1e-9)
        fs = [k, hj]
        if numba is not None:
            try:
                nb = numba.njit(k)
                assert np.allclose(nb(a, b, c), exp, rtol=1e-9)
                fs.append(nb)
            except Exception as e:  # a form Numba does not compile (mean(axis=))
                print(f"  (Numba cannot run {k.__name__}: {type(e).__name__})")
        ts = best_interleaved(fs, (a, b, c), args.repeat)
        t_np, t_hj = ts[0], ts[1]
        t_nb = ts[2] if len(ts) > 2 else float("nan")
        print(f"{k.__name__:12} {t_np * 1e3:9.2f} {t_hj * 1e3:9.2f} {t_nb * 1e3:9.2f} "
              f"{t_np / t_hj:7.2f} {t_nb / t_hj:7.2f}")


if __name__ == "__main__":
    main()
