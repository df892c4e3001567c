"""hpcjit.cuda.random (xoroshiro128+ per thread, numba.cuda.random's API):
the states made on the host against a reference in Python integers and
against Numba's own generator, the device functions in CPython against
the reference, and the functions in kernels (PTX assembled by ptxas; the
shared kernel suite runs them in the simulator and on a GPU)."""
import math
import warnings

import numpy as np
import pytest

from hpcjit import cuda
from hpcjit.cuda import random as R

MASK = (1 << 64) - 1


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def _next(s):
    s0, s1 = s
    r = (s0 + s1) & MASK
    s1 ^= s0
    return r, [(_rotl(s0, 55) ^ s1 ^ ((s1 << 14) & MASK)) & MASK, _rotl(s1, 36)]


def _jump(s):
    a = b = 0
    for w in (0xbeac0467eba5facb, 0xd86b048b86aa9922):
        for bit in range(64):
            if w >> bit & 1:
                a ^= s[0]
                b ^= s[1]
            _, s = _next(s)
    return [a, b]


def _reference_states(n, seed, start):
    if n == 0:
        return []
    z = (seed + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    z ^= z >> 31
    s = [z, z]
    for _ in range(start):
        s = _jump(s)
    out = [s]
    for _ in range(n - 1):
        s = _jump(s)
        out.append(s)
    return out


@pytest.mark.parametrize("n,seed,start", [(1, 0, 0), (6, 42, 0), (4, 2**64 - 1, 3), (0, 5, 0)])
def test_host_states_match_the_reference(n, seed, start):
    st = R._host_init(n, seed, start)
    assert st.dtype == np.uint64 and st.shape == (n, 2)
    assert [list(map(int, row)) for row in st] == _reference_states(n, seed, start)


def test_host_states_match_numba():
    nr = pytest.importorskip("numba.cuda.random")
    ref = np.empty(50, dtype=nr.xoroshiro128p_dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nr.init_xoroshiro128p_states_cpu(ref, 1234, 2)
    st = R._host_init(50, 1234, 2)
    assert np.array_equal(st[:, 0], ref["s0"]) and np.array_equal(st[:, 1], ref["s1"])


def test_device_functions_in_cpython_follow_the_reference():
    st = R._host_init(3, 9, 0)
    ref = [list(map(int, row)) for row in st]
    with np.errstate(over="ignore"):
        for i in range(3):
            for _ in range(5):
                bits, ref[i] = _next(ref[i])
                assert int(R.xoroshiro128p_next(st, i)) == bits
            bits, ref[i] = _next(ref[i])
            assert R.xoroshiro128p_uniform_float64(st, i) == (bits >> 11) / 2.0**53
            bits, ref[i] = _next(ref[i])
            assert R.xoroshiro128p_uniform_float32(st, i) == np.float32((bits >> 11) / 2.0**53)
            u1, ref[i] = _next(ref[i])
            u2, ref[i] = _next(ref[i])
            z = math.sqrt(-2.0 * math.log((u1 >> 11) / 2.0**53)) * math.cos(2 * math.pi * (u2 >> 11) / 2.0**53)
            assert R.xoroshiro128p_normal_float64(st, i) == pytest.approx(z, rel=1e-15)
            assert [int(st[i, 0]), int(st[i, 1])] == ref[i]


def test_draws_are_uniform_and_normal():
    st = R._host_init(64, 3, 0)
    with np.errstate(over="ignore"):
        u = np.array([R.xoroshiro128p_uniform_float64(st, i % 64) for i in range(20000)])
        z = np.array([R.xoroshiro128p_normal_float64(st, i % 64) for i in range(20000)])
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03


def monte_carlo_pi(states, iterations, out):
    i = cuda.grid(1)
    if i < out.size:
        inside = 0
        for _ in range(iterations):
            x = R.xoroshiro128p_uniform_float32(states, i)
            y = R.xoroshiro128p_uniform_float32(states, i)
            if x * x + y * y <= 1.0:
                inside += 1
        out[i] = 4.0 * inside / iterations


def test_kernel_compiles_and_assembles(tmp_path):
    from test_cuda_ptx import PTXAS, assemble
    code = cuda.compile_kernel(monte_carlo_pi, ["aL2C", "l", "af1C"], cc=(8, 0))
    assert "hj_entry_monte_carlo_pi" in code.ptx
    if PTXAS:
        assemble(code.ptx, "sm_80", tmp_path)


def test_numba_spellings():
    assert R.xoroshiro128p_dtype.names == ("s0", "s1")
    for name in R.__all__:
        assert hasattr(R, name)
