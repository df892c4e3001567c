"""Fork/join overhead of a nearly empty prange compiled by hpcjit
(@njit(parallel=True)), called from Python, per thread count: prints
"threads hpcjit_py_us" lines (median of rounds), as numba_forkjoin.py does.
Used by run.sh; PYTHONPATH must reach the hpcjit package."""
import statistics
import sys
import time

import numpy as np

import hpcjit
from hpcjit import njit, prange


@njit(parallel=True)
def empty(a):
    # the same body as the Numba and C twins: one store per iteration
    for i in prange(a.shape[0]):
        a[i] = i
    return 0


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    maxt = int(sys.argv[2]) if len(sys.argv) > 2 else hpcjit.get_num_threads()
    a = np.zeros(1000, dtype=np.int64)
    empty(a)
    for t in range(1, maxt + 1):
        hpcjit.set_num_threads(t)
        for _ in range(1000):
            empty(a)
        rounds = []
        for _ in range(9):
            time.sleep(0.02)
            t0 = time.perf_counter()
            for _ in range(reps):
                empty(a)
            rounds.append((time.perf_counter() - t0) / reps * 1e6)
        print(t, "%.3f" % statistics.median(rounds), flush=True)


if __name__ == "__main__":
    main()
