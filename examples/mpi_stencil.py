"""1-D heat equation split across ranks: each rank owns a block plus one
ghost cell per side, exchanged with its neighbours (send/recv) every step;
the jitted kernel updates the interior.  Rank 0 checks the gathered result
against the same computation done serially with NumPy.

    hpcjit run -n 4 -c 1 examples/mpi_stencil.py
"""
import numpy as np

import hpcjit
from hpcjit import mpi


@hpcjit.njit
def step(u, out, alpha):
    for i in range(1, u.shape[0] - 1):
        out[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])


def serial(u0, alpha, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + alpha * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


def main(n=4096, steps=200, alpha=0.25):
    r, size = mpi.rank(), mpi.size()
    assert n % size == 0
    m = n // size
    x = np.linspace(0.0, 1.0, n)
    u0 = np.exp(-100.0 * (x - 0.5) ** 2)
    u0[0] = u0[-1] = 0.0
    # local block with ghosts at 0 and m+1; the global ends stay fixed
    u = np.zeros(m + 2)
    u[1:-1] = u0[r * m:(r + 1) * m]
    new = u.copy()
    left, right = r - 1, r + 1
    for _ in range(steps):
        # halo exchange, even ranks send first so that nobody waits in a cycle
        for turn in range(2):
            if (r + turn) % 2 == 0:
                if right < size:
                    mpi.send(u[m:m + 1], right, tag=1)
                if left >= 0:
                    mpi.send(u[1:2], left, tag=2)
            else:
                if left >= 0:
                    u[0] = mpi.recv(source=left, tag=1)[0]
                if right < size:
                    u[m + 1] = mpi.recv(source=right, tag=2)[0]
        step(u, new, alpha)
        if r == 0:
            new[1] = u[1]  # global boundary: fixed
        if r == size - 1:
            new[m] = u[m]
        u[1:-1] = new[1:-1]
    full = mpi.gather(np.ascontiguousarray(u[1:-1]), root=0)
    if r == 0:
        full = full.reshape(-1)
        ref = serial(u0, alpha, steps)
        err = np.abs(full - ref).max()
        print(f"ranks {size}  n {n}  steps {steps}  max |distributed - serial| = {err:.3e}")
        assert err < 1e-12
    return u


if __name__ == "__main__":
    main()
