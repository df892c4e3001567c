"""The kernels of kernels.py with their MPI calls inside the compiled code
(hpcjit.mpi in @njit code): the reduction's allreduce, and the stencil's
whole time loop, halo exchange included.  hpcjit only (rank.py --impl
hpcjit-jit); needs an hpcjit whose compiler knows hpcjit.mpi."""
import math

import hpcjit
from hpcjit import mpi, prange


@hpcjit.njit(parallel=True)
def global_sum(x):
    """local_sum of kernels.py, then MPI_Allreduce, in one compiled call."""
    s = 0.0
    for i in prange(x.shape[0]):
        v = x[i]
        s += math.sqrt(v * v + 1.0)
    return mpi.allreduce(s, mpi.SUM)


@hpcjit.njit(parallel=True)
def jacobi_steps(u, out, steps):
    """`steps` sweeps of jacobi_rows with the halo exchange of rank.py
    before each (even ranks send first); returns the last grid."""
    m = u.shape[0] - 2
    ny = u.shape[1]
    r = mpi.rank()
    size = mpi.size()
    for _ in range(steps):
        for turn in range(2):
            if (r + turn) % 2 == 0:
                if r + 1 < size:
                    mpi.send(u[m], r + 1, 1)
                if r >= 1:
                    mpi.send(u[1], r - 1, 2)
            else:
                if r >= 1:
                    mpi.recv(u[0], r - 1, 1)
                if r + 1 < size:
                    mpi.recv(u[m + 1], r + 1, 2)
        for i in prange(1, m + 1):
            for j in range(1, ny - 1):
                out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        t = u
        u = out
        out = t
    return u
