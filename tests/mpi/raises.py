"""Run under mpirun: rank 1 raises while the others wait for it in a
collective; the job must end (MPI_Abort) with a non-zero status.
    raises.py [jit]     (jit: the exception comes from @njit code)"""
import sys
import time

import hpcjit
from hpcjit import mpi


@hpcjit.njit
def check_rank(r):
    if r == 1:
        raise ValueError("boom from rank 1 in compiled code")
    return r


r = mpi.rank()
in_jit = sys.argv[1:] == ["jit"]
if in_jit:
    check_rank(0)  # compiled on every rank before the barrier
mpi.barrier()
if r == min(1, mpi.size() - 1):
    if in_jit:
        check_rank(r)
    raise RuntimeError(f"boom from rank {r}")
time.sleep(0.2)
mpi.allreduce(1)   # never completes: rank 1 is gone
time.sleep(120)
