"""Run under mpirun with HPCJIT_CACHE=1 and a fresh HPCJIT_CACHE_DIR: the
on-disk cache's compile-once without collectives.  Every rank calls the
same functions (the first to need a specialisation compiles it, the others
wait on its lock file and load it); rank 0 alone calls one more, which must
not hang anyone.  Prints the counts summed over the ranks as 'compiled C
cache_hits H specs S first_result_s T'."""
import time

import numpy as np

import hpcjit
from hpcjit import mpi

t0 = time.perf_counter()
r = mpi.rank()  # MPI up first: compile_stats() counts from here


@hpcjit.njit
def axpy(a, x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]
    return out


@hpcjit.njit
def dot(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


@hpcjit.njit
def norm1(x):
    return dot(x, x) + 1.0


x = np.arange(6.0) + r
y = np.ones(6)
specs = 0
assert np.array_equal(axpy(2.0, x, y), axpy.py_func(2.0, x, y))
specs += 1
assert dot(x, y) == dot.py_func(x, y)
specs += 1
assert norm1(x) == norm1.py_func(x)
specs += 1
if r == 0:  # called on one rank only: compiles there, nobody waits for it
    @hpcjit.njit
    def only_rank0(n):
        return n * 2 + 1
    assert only_rank0(20) == only_rank0.py_func(20)
first = mpi.allreduce(time.perf_counter() - t0, mpi.MAX)
st = mpi.compile_stats()
compiled = mpi.allreduce(st["compiled"])
hits = mpi.allreduce(st["cache_hits"])
if r == 0:
    print(f"compiled {compiled} cache_hits {hits} specs {specs} first_result_s {first:.3f}", flush=True)
