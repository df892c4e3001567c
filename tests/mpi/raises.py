"""Run under mpirun: rank 1 raises while the others wait for it in a
collective; the job must end (MPI_Abort) with a non-zero status."""
import time

from hpcjit import mpi

r = mpi.rank()
mpi.barrier()
if r == min(1, mpi.size() - 1):
    raise RuntimeError(f"boom from rank {r}")
time.sleep(0.2)
mpi.allreduce(1)   # never completes: rank 1 is gone
time.sleep(120)
