"""range loops with a run-time step: correct for every step sign and size,
and not vectorized wider than 16 lanes (32-lane byte scatters cost tens of
ms of LLVM codegen for no speed).  Every compiled function is compared with
its py_func."""
import re

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from hpcjit import njit  # noqa: E402


@njit
def sieve(n):
    flags = np.ones(n + 1, np.uint8)
    flags[0] = 0
    flags[1] = 0
    i = 2
    while i * i <= n:
        if flags[i]:
            for j in range(i * i, n + 1, i):
                flags[j] = 0
        i += 1
    count = 0
    for i in range(n + 1):
        if flags[i]:
            count += 1
    return count


@njit
def strided_scale(a, start, stop, step):
    t = 0.0
    for j in range(start, stop, step):
        a[j] = a[j] * 2.0 + 1.0
        t += a[j]
    return t


@njit
def strided_fill(a, step, v):
    for j in range(0, a.shape[0], step):
        a[j] = v
    return a


@pytest.mark.parametrize("n", [2, 3, 10, 97, 1000, 4099])
def test_sieve(n):
    assert sieve(n) == sieve.py_func(n)


@pytest.mark.parametrize("start,stop,step", [
    (0, 1000, 1), (0, 1000, 3), (5, 1000, 17), (999, -1, -1), (999, 0, -7),
    (0, 1000, 1000), (0, 1000, 2000), (10, 5, 1), (-300, -1, 5),
])
def test_strided_scale(start, stop, step):
    a = np.random.default_rng(1).random(1000)
    b = a.copy()
    expect = strided_scale.py_func(b, start, stop, step)
    assert strided_scale(a, start, stop, step) == pytest.approx(expect)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float64])
@pytest.mark.parametrize("step", [1, 2, 3, 31, 33])
def test_strided_fill(dtype, step):
    a = np.arange(301).astype(dtype)
    expect = strided_fill.py_func(a.copy(), step, 7)
    np.testing.assert_array_equal(strided_fill(a.copy(), step, 7), expect)


@njit
def zero_bytes(a, start, step):
    for j in range(start, a.shape[0], step):
        a[j] = 0


@pytest.mark.numba_skip("hpcjit's own IR")
def test_runtime_step_vectorized_at_most_16_lanes():
    if getattr(hpcjit, "__hpcjit_numba_shim__", False):
        pytest.skip("hpcjit internals")
    a = np.ones(100, np.uint8)
    b = a.copy()
    zero_bytes(a, 4, 3)
    zero_bytes.py_func(b, 4, 3)
    np.testing.assert_array_equal(a, b)
    ir = zero_bytes.inspect_llvm()
    ir = ir if isinstance(ir, str) else "\n".join(ir.values())
    lanes = [int(m) for m in re.findall(r"<(\d+) x ", ir)]
    assert not [n for n in lanes if n > 16], sorted(set(lanes))
