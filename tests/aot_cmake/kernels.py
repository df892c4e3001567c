"""Kernels for the CMake AOT example: explicit signatures, real numbers
in and out, so the same module builds a Python module and a C library."""
from hpcjit import njit


@njit("float64(float64, int64)")
def geometric(x, n):
    s = 0.0
    for i in range(n):
        s += x ** i
    return s


@njit("int64(int64)")
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
