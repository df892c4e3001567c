"""Run under mpirun with HPCJIT_MPI_COMPILE_ONCE=1 (or not): every rank calls
the same jitted functions with the same types; prints the compile counts
summed over the ranks as 'compiled C received R specs S groups G'."""
import zlib

import numpy as np

import hpcjit
from hpcjit import mpi


@hpcjit.njit
def axpy(a, x, y):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = a * x[i] + y[i]
    return out


@hpcjit.njit
def dot(x, y):
    s = 0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


@hpcjit.njit
def norm1(x):
    return dot(x, x) + 1.0  # calls another jitted function


r = mpi.rank()
x = np.arange(6.0) + r
y = np.ones(6)
xi = np.arange(6) + r
specs = 0
for args in ((2.0, x, y), (3, xi, xi)):
    assert np.array_equal(axpy(*args), axpy.py_func(*args))
    specs += 1
for args in ((x, y), (xi, xi)):
    assert dot(*args) == dot.py_func(*args)
    specs += 1
assert norm1(x) == norm1.py_func(x)
specs += 1
# an error in compilation reaches every rank as the same exception
try:
    dot(x, object())  # no hpcjit type: refused before compiling
except hpcjit.HpcjitError as exc:
    kind = type(exc).__name__
else:
    kind = None
kinds = mpi.allgather(zlib.crc32(str(kind).encode()))
assert kind is not None and len(set(kinds.tolist())) == 1, kinds

st = mpi.compile_stats()
compiled = mpi.allreduce(st["compiled"])
received = mpi.allreduce(st["received"])
fallbacks = mpi.allreduce(st["local_fallbacks"])
if r == 0:
    print(f"compiled {compiled} received {received} fallbacks {fallbacks} specs {specs} "
          f"groups {st['groups']} size {mpi.size()} compile_once {st['compile_once']}", flush=True)
