"""Fork/join overhead of an empty prange under Numba, per thread count:
prints "threads numba_us" lines (median of rounds).  Used by run.sh."""
import statistics
import sys
import time

import numba
import numpy as np
from numba import njit, prange


@njit(parallel=True)
def empty(a):
    # One store per iteration: Numba deletes a prange with an empty body.
    for i in prange(a.shape[0]):
        a[i] = i
    return 0


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    maxt = int(sys.argv[2]) if len(sys.argv) > 2 else numba.config.NUMBA_NUM_THREADS
    a = np.zeros(1000, dtype=np.int64)
    empty(a)
    for t in range(1, maxt + 1):
        numba.set_num_threads(t)
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
