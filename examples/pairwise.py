"""The pairwise-distance example from the README: compiled with hpcjit,
checked against the same function run by CPython (py_func), and timed
against Numba when it is installed."""
import time

import numpy as np

from hpcjit import njit


@njit
def pairwise(X):
    m, k = X.shape
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            d = 0.0
            for t in range(k):
                diff = X[i, t] - X[j, t]
                d += diff * diff
            D[i, j] = np.sqrt(d)
    return D


def best_times(funcs, X, repeats=10):
    """Best time of each function, timed in alternation so that a busy
    machine slows them alike."""
    best = [float("inf")] * len(funcs)
    for _ in range(repeats):
        for i, f in enumerate(funcs):
            t0 = time.perf_counter()
            f(X)
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def main():
    rng = np.random.default_rng(0)

    # correctness: compiled vs CPython on a small input, C and Fortran order
    small = rng.standard_normal((60, 5))
    t0 = time.perf_counter()
    pairwise(small)
    t_compile = time.perf_counter() - t0
    for X in (small, np.asfortranarray(small), small[::2, ::-1]):
        np.testing.assert_allclose(pairwise(X), pairwise.py_func(X), rtol=1e-12, atol=1e-12)
    print("pairwise: hpcjit result matches CPython (py_func) on C, F and strided inputs")

    X = rng.standard_normal((1000, 16))
    D = pairwise(X)
    try:
        import numba
    except ImportError:
        (t_hj,) = best_times([pairwise], X)
        print(f"hpcjit: {t_hj * 1e3:8.2f} ms  (best of 10, X = {X.shape[0]}x{X.shape[1]}; "
              f"first call incl. compile {t_compile:.3f} s)")
        print("numba:  not installed")
        return
    nb = numba.njit(pairwise.py_func)
    t0 = time.perf_counter()
    nb(small)
    t_first = time.perf_counter() - t0
    D_nb = nb(X)
    np.testing.assert_allclose(D, D_nb, rtol=1e-12, atol=1e-12)
    t_hj, t_nb = best_times([pairwise, nb], X)
    print(f"hpcjit: {t_hj * 1e3:8.2f} ms  (best of 10, X = {X.shape[0]}x{X.shape[1]}; "
          f"first call incl. compile {t_compile:.3f} s)")
    print(f"numba:  {t_nb * 1e3:8.2f} ms  (best of 10; first call incl. compile {t_first:.3f} s)")
    print(f"hpcjit speed / numba speed: {t_nb / t_hj:.2f}x")


if __name__ == "__main__":
    main()
