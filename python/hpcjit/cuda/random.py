"""hpcjit.cuda.random: xoroshiro128+ generators for CUDA kernels
(numba.cuda.random's API).

    from hpcjit.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    states = create_xoroshiro128p_states(nthreads, seed=1)
    ...in a kernel: x = xoroshiro128p_uniform_float32(states, cuda.grid(1))

One generator per thread: generator i starts 2**64 draws after generator
i-1 (the xoroshiro128+ jump), so the streams never overlap.  The states
are made on the host (by a function hpcjit compiles for the CPU) and
copied to the device; the draws are device functions hpcjit compiles into
the kernel.  Same seed, same numbers as Numba's generators: the same
seeding (splitmix64), jumps and conversions to floats.

A state array is a uint64 device array of shape (n, 2) (s0, s1 of each
generator), where Numba's is a 1-D array of n records with fields s0 and
s1: `len(states)` and `states.shape[0]` are n in both, `states.size` is 2n
here (records are not supported in kernels).
"""
import math

import numpy as np

from .. import njit
from . import jit, to_device

__all__ = ["create_xoroshiro128p_states", "init_xoroshiro128p_states", "xoroshiro128p_next",
           "xoroshiro128p_jump", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
           "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64", "xoroshiro128p_dtype"]

# the dtype of one generator's state, as Numba spells it (the arrays here
# hold the two words as a row of a uint64 (n, 2) array)
xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

_u32 = np.uint32
_u64 = np.uint64


@jit(device=True)
def _rotl(x, k):
    return (x << _u32(k)) | (x >> _u32(64 - k))


@jit(device=True)
def xoroshiro128p_next(states, index):
    """The next 64 random bits of generator `index` (advances it)."""
    s0 = states[index, 0]
    s1 = states[index, 1]
    result = s0 + s1
    s1 ^= s0
    states[index, 0] = _rotl(s0, 55) ^ s1 ^ (s1 << _u32(14))
    states[index, 1] = _rotl(s1, 36)
    return result


@jit(device=True)
def xoroshiro128p_jump(states, index):
    """Advance generator `index` by 2**64 draws."""
    s0 = _u64(0)
    s1 = _u64(0)
    for word in (_u64(0xbeac0467eba5facb), _u64(0xd86b048b86aa9922)):
        for b in range(64):
            if word & (_u64(1) << _u32(b)):
                s0 ^= states[index, 0]
                s1 ^= states[index, 1]
            xoroshiro128p_next(states, index)
    states[index, 0] = s0
    states[index, 1] = s1


@jit(device=True)
def _to_float64(x):
    return np.float64(x >> _u32(11)) * (1.0 / 9007199254740992.0)  # 53 random bits / 2**53


@jit(device=True)
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform on [0, 1)."""
    return _to_float64(xoroshiro128p_next(states, index))


@jit(device=True)
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform on [0, 1) (the float64 one, rounded)."""
    return np.float32(_to_float64(xoroshiro128p_next(states, index)))


@jit(device=True)
def xoroshiro128p_normal_float64(states, index):
    """A standard normal float64 by Box-Muller (the pair's second value is
    dropped, as in Numba)."""
    u1 = xoroshiro128p_uniform_float64(states, index)
    u2 = xoroshiro128p_uniform_float64(states, index)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@jit(device=True)
def xoroshiro128p_normal_float32(states, index):
    """A standard normal float32 (Box-Muller in float32)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return np.float32(math.sqrt(np.float32(-2.0) * math.log(u1))
                      * math.cos(np.float32(2.0 * math.pi) * u2))


def _seed_state(states, seed):
    """Generator 0 from the seed by splitmix64 (both words the same value)."""
    z = seed + _u64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> _u32(30))) * _u64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _u32(27))) * _u64(0x94D049BB133111EB)
    z = z ^ (z >> _u32(31))
    states[0, 0] = z
    states[0, 1] = z


def _init_states(states, seed, subsequence_start):
    n = states.shape[0]
    if n == 0:
        return
    _seed_state(states, seed)
    for _ in range(subsequence_start):
        xoroshiro128p_jump(states, 0)
    for i in range(1, n):
        states[i, 0] = states[i - 1, 0]
        states[i, 1] = states[i - 1, 1]
        xoroshiro128p_jump(states, i)


_init_cpu = None


def _host_init(n, seed, subsequence_start):
    """The states of n generators, computed on the CPU by hpcjit."""
    global _init_cpu
    if _init_cpu is None:
        g = {}
        g["_rotl"] = njit(_rebind(_rotl.py_func, g))
        g["xoroshiro128p_next"] = njit(_rebind(xoroshiro128p_next.py_func, g))
        g["xoroshiro128p_jump"] = njit(_rebind(xoroshiro128p_jump.py_func, g))
        g["_seed_state"] = njit(_rebind(_seed_state, g))
        _init_cpu = njit(_rebind(_init_states, g))
    states = np.zeros((int(n), 2), dtype=np.uint64)
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    _init_cpu(states, np.uint64(seed), np.uint64(int(subsequence_start)))
    return states


def _rebind(f, g):
    """f with g's names over its globals: the CPU versions call each other
    (made in call order), not the device functions of the same names."""
    import types
    glb = dict(f.__globals__)
    glb.update(g)
    return types.FunctionType(f.__code__, glb, f.__name__, f.__defaults__)


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0):
    """Seed the generators of an existing state array (device or host)."""
    host = _host_init(len(states), seed, subsequence_start)
    if hasattr(states, "copy_to_device"):
        states.copy_to_device(host, stream=stream)
    else:
        np.copyto(states, host)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """A device array of n generators' states, seeded from `seed`;
    generator i starts at subsequence subsequence_start + i."""
    return to_device(_host_init(n, seed, subsequence_start), stream=stream)
