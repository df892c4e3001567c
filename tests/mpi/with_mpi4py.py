"""Run under mpirun with mpi4py imported first: hpcjit.mpi uses mpi4py's
(already initialised) MPI, leaves finalisation to it, and accepts its
communicators.  Prints 'rank R ok'."""
from mpi4py import MPI

import numpy as np

from hpcjit import mpi
import hpcjit._mpi as lib

world = MPI.COMM_WORLD
r, n = world.Get_rank(), world.Get_size()
assert mpi.rank() == r and mpi.size() == n
st = lib.state()
assert st["initialized"] and not st["ours"], st   # mpi4py's MPI, not ours
sub = world.Split(r % 2, r)
assert mpi.rank(comm=sub) == sub.Get_rank() and mpi.size(comm=sub) == sub.Get_size()
assert mpi.allreduce(r, comm=world) == world.allreduce(r) == n * (n - 1) // 2
assert mpi.allreduce(r, mpi.MAX, comm=sub) == sub.allreduce(r, op=MPI.MAX)
a = np.arange(3.0) * (r + 1)
assert np.array_equal(mpi.allgather(a, comm=sub), np.array(sub.allgather(a)))
sub.Free()
print(f"rank {r} ok", flush=True)
