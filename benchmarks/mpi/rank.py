"""One rank of the MPI benchmark (started by run.py through `hpcjit run`):
the distributed reduction and the halo-exchange stencil of kernels.py,
strong and weak, with hpcjit.njit + hpcjit.mpi or numba.njit + mpi4py
(hpcjit-jit: kernels_mpi.py, the MPI calls inside the compiled code).

    hpcjit run -n 4 -c 1 --compile-once -- python3 rank.py --impl hpcjit
    hpcjit run -n 4 -c 1 -- python3 rank.py --impl numba

Rank 0 prints one line `RESULT {json}`.  Every result is checked against
NumPy (the script fails otherwise).  Times are max over ranks; the time to
first result counts from the first line of this script (interpreter start-up
not included) to the first global sum on every rank, so it includes
importing the JIT, starting MPI and compiling."""
import time

T_START = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402


class Side:
    """What rank.py calls; the MPI calls from Python by default."""

    def global_sum(self, x):
        return self.allsum(self.local_sum(x))

    def stencil(self, u, out, steps):
        for _ in range(steps):
            halo(self, u)
            self.jacobi_rows(u, out)
            u, out = out, u
        return u


class HpcjitSide(Side):
    """hpcjit.njit kernels, hpcjit.mpi for the halos and reductions."""

    def __init__(self):
        import hpcjit
        from hpcjit import mpi
        self.mpi = mpi
        self.rank, self.size = mpi.rank(), mpi.size()  # starts MPI (and compile-once)
        self.local_sum, self.jacobi_rows = kernels.jit_kernels(hpcjit.njit, hpcjit.prange)
        self.threads = hpcjit.get_num_threads()
        self.compile_once = bool(mpi.compile_stats()["compile_once"])

    def send(self, a, dest, tag):
        self.mpi.send(a, dest, tag=tag)

    def recv(self, buf, source, tag):
        self.mpi.recv(buf, source=source, tag=tag)

    def allsum(self, v):
        return self.mpi.allreduce(v, self.mpi.SUM)

    def allmax(self, v):
        return self.mpi.allreduce(v, self.mpi.MAX)

    def barrier(self):
        self.mpi.barrier()

    def compiles(self):
        return self.mpi.compile_stats()["compiled"]


class HpcjitJitSide(HpcjitSide):
    """The MPI calls inside the compiled code too (kernels_mpi.py): one
    compiled call per global sum and per run of sweeps, halos included."""

    def __init__(self):
        super().__init__()
        import kernels_mpi
        self.global_sum = kernels_mpi.global_sum
        self.stencil = kernels_mpi.jacobi_steps


class NumbaSide(Side):
    """numba.njit kernels (compiled on every rank), mpi4py for MPI."""

    def __init__(self):
        import numba
        from mpi4py import MPI
        self.MPI = MPI
        self.comm = MPI.COMM_WORLD
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        want = int(os.environ.get("HPCJIT_NUM_THREADS", "1"))  # set by hpcjit run -c
        numba.set_num_threads(max(1, min(want, numba.config.NUMBA_NUM_THREADS)))
        self.local_sum, self.jacobi_rows = kernels.jit_kernels(numba.njit, numba.prange)
        self.threads = numba.get_num_threads()
        self.compile_once = False

    def send(self, a, dest, tag):
        self.comm.Send(a, dest=dest, tag=tag)

    def recv(self, buf, source, tag):
        self.comm.Recv(buf, source=source, tag=tag)

    def allsum(self, v):
        return self.comm.allreduce(v, op=self.MPI.SUM)

    def allmax(self, v):
        return self.comm.allreduce(v, op=self.MPI.MAX)

    def barrier(self):
        self.comm.Barrier()

    def compiles(self):
        return sum(len(f.overloads) for f in (self.local_sum, self.jacobi_rows))


def block(n, r, size):
    return n * r // size, n * (r + 1) // size


def check(ok, what):
    if not ok:
        raise AssertionError(f"wrong result: {what}")


# ---- the distributed reduction ------------------------------------------------------

def reduce_run(side, n, reps, first=None):
    start, stop = block(n, side.rank, side.size)
    h = 1.0 / n
    x = (np.arange(start, stop, dtype=np.float64) + 0.5) * h
    ref = side.allsum(kernels.reference_sum(start, stop, h))
    times = []
    total = None
    for rep in range(reps):
        side.barrier()
        t0 = time.perf_counter()
        total = side.global_sum(x)
        times.append(side.allmax(time.perf_counter() - t0))
        check(abs(total - ref) <= 1e-9 * abs(ref), f"reduction n={n}: {total!r} != NumPy {ref!r}")
    return {"n": n, "time": min(times), "value": total}


def reduce_first(side, n):
    """The first call: compile (once per architecture or on every rank) and
    run; the clock started with the script."""
    start, stop = block(n, side.rank, side.size)
    h = 1.0 / n
    x = (np.arange(start, stop, dtype=np.float64) + 0.5) * h
    c0 = side.compiles()
    side.barrier()
    t0 = time.perf_counter()
    total = side.global_sum(x)
    t1 = time.perf_counter()
    ref = side.allsum(kernels.reference_sum(start, stop, h))
    check(abs(total - ref) <= 1e-9 * abs(ref), f"first reduction: {total!r} != NumPy {ref!r}")
    return {"first_call": side.allmax(t1 - t0), "ttfr": side.allmax(t1 - T_START),
            "compiles": side.allsum(side.compiles() - c0)}


# ---- the stencil with halo exchange -------------------------------------------------

def local_grid(side, nx, ny):
    start, stop = block(nx, side.rank, side.size)
    u = np.zeros((stop - start + 2, ny))
    if side.rank == 0:
        u[0, 1:-1] = 1.0  # the hot global boundary row
    return u, start, stop


def halo(side, u):
    """Rows 1 and m go to the neighbours, rows 0 and m + 1 come from them;
    even ranks send first, so no cycle of blocking sends."""
    m = u.shape[0] - 2
    r, size = side.rank, side.size
    up, down = r - 1, r + 1
    for turn in range(2):
        if (r + turn) % 2 == 0:
            if down < size:
                side.send(u[m], down, 1)
            if up >= 0:
                side.send(u[1], up, 2)
        else:
            if up >= 0:
                side.recv(u[0], up, 1)
            if down < size:
                side.recv(u[m + 1], down, 2)


def stencil_first(side, nx, ny):
    u, _, _ = local_grid(side, nx, ny)
    out = u.copy()
    c0 = side.compiles()
    side.barrier()
    t0 = time.perf_counter()
    u = side.stencil(u, out, 1)
    t1 = time.perf_counter()
    return {"first_call": side.allmax(t1 - t0), "compiles": side.allsum(side.compiles() - c0)}


def stencil_run(side, nx, ny, steps, reps, verify):
    u0, start, stop = local_grid(side, nx, ny)
    times = []
    for rep in range(reps):
        u, out = u0.copy(), u0.copy()
        side.barrier()
        t0 = time.perf_counter()
        u = side.stencil(u, out, steps)
        times.append(side.allmax(time.perf_counter() - t0))
        if rep == 0:
            checksum = side.allsum(float(u[1:-1].sum()))
            if verify:
                ref = kernels.reference_jacobi(nx, ny, steps)[start + 1:stop + 1]
                err = side.allmax(float(np.abs(u[1:-1] - ref).max()))
                check(err <= 1e-12, f"stencil {nx}x{ny}: max |distributed - NumPy| = {err}")
    return {"nx": nx, "ny": ny, "steps": steps, "time": min(times), "checksum": checksum}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--impl", choices=("hpcjit", "hpcjit-jit", "numba"), required=True)
    ap.add_argument("--n-strong", type=int, default=1 << 24, help="reduction size, strong scaling")
    ap.add_argument("--n-weak", type=int, default=1 << 22, help="reduction size per rank, weak scaling")
    ap.add_argument("--nx-strong", type=int, default=1024, help="stencil rows, strong scaling")
    ap.add_argument("--nx-weak", type=int, default=256, help="stencil rows per rank, weak scaling")
    ap.add_argument("--ny", type=int, default=1024, help="stencil columns")
    ap.add_argument("--steps", type=int, default=50, help="stencil sweeps per timed run")
    ap.add_argument("--reps", type=int, default=5, help="timed runs (the best is kept)")
    a = ap.parse_args()

    side = {"hpcjit": HpcjitSide, "hpcjit-jit": HpcjitJitSide, "numba": NumbaSide}[a.impl]()
    if a.nx_strong < side.size:
        raise SystemExit(f"--nx-strong {a.nx_strong} < {side.size} ranks")
    res = {"impl": a.impl, "ranks": side.size, "threads": side.threads, "compile_once": side.compile_once}
    res["reduce"] = reduce_first(side, a.n_strong)
    res["reduce"]["strong"] = reduce_run(side, a.n_strong, a.reps)
    res["reduce"]["weak"] = reduce_run(side, a.n_weak * side.size, a.reps)
    res["stencil"] = stencil_first(side, a.nx_strong, a.ny)
    res["stencil"]["strong"] = stencil_run(side, a.nx_strong, a.ny, a.steps, a.reps, verify=True)
    res["stencil"]["weak"] = stencil_run(side, a.nx_weak * side.size, a.ny, a.steps, a.reps, verify=False)
    res["compiles_total"] = side.allsum(side.compiles())
    res["wall"] = side.allmax(time.perf_counter() - T_START)
    if side.rank == 0:
        print("RESULT " + json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
