"""A distributed reduction: each rank sums its block of the series with a
jitted loop, MPI combines the partial sums.  Same answer on 1 or N ranks.

    hpcjit run -n 2 -c 1 examples/mpi_reduce.py            # mpirun outside Slurm
    hpcjit run -n 4 --compile-once examples/mpi_reduce.py  # one compile per architecture
    python3 examples/mpi_reduce.py                         # one rank
"""
import math
import sys
import time

import numpy as np

import hpcjit
from hpcjit import mpi


@hpcjit.njit
def block_sum(start, stop):
    # sum of 1/k^2 over [start, stop)
    s = 0.0
    for k in range(start, stop):
        s += 1.0 / (k * k)
    return s


def main(n=20_000_000):
    t0 = time.perf_counter()
    r, size = mpi.rank(), mpi.size()
    chunk = (n + size - 1) // size
    start, stop = 1 + r * chunk, min(1 + (r + 1) * chunk, n + 1)
    part = block_sum(start, stop)
    total = mpi.allreduce(part, mpi.SUM)
    elapsed = mpi.allreduce(time.perf_counter() - t0, mpi.MAX)
    stats = mpi.compile_stats()
    compiled = mpi.allreduce(stats["compiled"])
    if r == 0:
        print(f"ranks {size}  sum {total:.12f}  pi ~ {math.sqrt(6 * total):.9f}  "
              f"time {elapsed:.3f} s  compiles over all ranks {compiled}")
        # the serial answer for a short prefix, by CPython
        assert abs(block_sum(1, 1000) - block_sum.py_func(1, 1000)) < 1e-12
    return total


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000_000)
