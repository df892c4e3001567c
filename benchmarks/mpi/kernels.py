"""The two kernels of the MPI benchmark, as plain Python: rank.py compiles
the same source with hpcjit.njit or numba.njit (parallel=True, so that
each rank's block is split across its threads with prange)."""
import math

import numpy as np

prange = range  # set to the JIT's prange by jit_kernels() before the first call


def local_sum(x):
    """This rank's part of the distributed reduction: sum of sqrt(x^2 + 1)."""
    s = 0.0
    for i in prange(x.shape[0]):
        v = x[i]
        s += math.sqrt(v * v + 1.0)
    return s


def jacobi_rows(u, out):
    """One Jacobi sweep of the 5-point Laplace stencil over this rank's rows:
    u and out are (m + 2, ny), rows 0 and m + 1 are the halo (or the global
    boundary), columns 0 and ny - 1 the fixed boundary."""
    m = u.shape[0] - 2
    ny = u.shape[1]
    for i in prange(1, m + 1):
        for j in range(1, ny - 1):
            out[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
    return 0


def jit_kernels(njit, prange_):
    """(local_sum, jacobi_rows) compiled lazily by `njit(parallel=True)`."""
    global prange
    prange = prange_
    return njit(parallel=True)(local_sum), njit(parallel=True)(jacobi_rows)


def reference_sum(start, stop, h):
    """NumPy's value of the reduction over global elements [start, stop)."""
    x = (np.arange(start, stop, dtype=np.float64) + 0.5) * h
    return float(np.sqrt(x * x + 1.0).sum())


def initial_grid(nx, ny):
    """The global grid with its boundary: nx interior rows between a hot top
    row (1.0) and a cold bottom row, fixed columns at 0."""
    g = np.zeros((nx + 2, ny))
    g[0, 1:-1] = 1.0
    return g


def reference_jacobi(nx, ny, steps):
    """The serial answer by NumPy: `steps` Jacobi sweeps of the whole grid."""
    u = initial_grid(nx, ny)
    out = u.copy()
    for _ in range(steps):
        out[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        u, out = out, u
    return u

