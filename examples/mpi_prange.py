"""A distributed loop in compiled code: hpcjit.mpi.prange gives each rank
its contiguous block of the iterations (and, with parallel=True, splits it
over the rank's threads); the loop's reduction is allreduced at its end, so
every rank gets the whole sum.  Same answer on 1 or N ranks.

    hpcjit run -n 4 -c 1 --compile-once examples/mpi_prange.py
    python3 examples/mpi_prange.py                         # one rank
"""
import math
import sys
import time

import hpcjit
from hpcjit import mpi


@hpcjit.njit(parallel=True)
def leibniz(n):
    # pi/4 = 1 - 1/3 + 1/5 - ...
    s = 0.0
    for k in mpi.prange(n):
        s += (1.0 - 2.0 * (k % 2)) / (2 * k + 1)
    return 4.0 * s


def main(n=20_000_000):
    t0 = time.perf_counter()
    pi = leibniz(n)  # every rank gets the whole sum
    elapsed = mpi.allreduce(time.perf_counter() - t0, mpi.MAX)
    r, size = mpi.rank(), mpi.size()
    compiled = mpi.allreduce(mpi.compile_stats()["compiled"])
    # CPython runs the loop serially (hpcjit.mpi.prange is range there)
    assert abs(leibniz(10_001) - leibniz.py_func(10_001)) < 1e-12
    assert abs(pi - math.pi) < 2.0 / n
    if r == 0:
        print(f"ranks {size}  pi ~ {pi:.12f}  error {abs(pi - math.pi):.1e}  time {elapsed:.3f} s  "
              f"compiles over all ranks {compiled}")
    return pi


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000_000)
