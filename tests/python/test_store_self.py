"""Array statements whose right side reads the destination itself
(`x[i, :] = np.minimum(x[i, :], x[i, k] + x[k, :])`): stored in place, with
no temporary, when the operand names the destination's view and the
destination has no two elements at one address; through a temporary, as
NumPy, whenever an operand overlaps the destination otherwise.  Each case
against py_func; the allocation counts show which way a store went."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit, prange
from conftest import AGAINST_NUMBA, check

needs_hpcjit = pytest.mark.skipif(AGAINST_NUMBA, reason="hpcjit's allocation counts")


def floyd(path):
    for k in range(path.shape[0]):
        for i in range(path.shape[0]):
            path[i, :] = np.minimum(path[i, :], path[i, k] + path[k, :])


def floyd_par(path):
    for k in range(path.shape[0]):
        for i in prange(path.shape[0]):
            path[i, :] = np.minimum(path[i, :], path[i, k] + path[k, :])


def row_update(a, i, k):
    a[i, :] = a[i, :] * 2.0 + a[k, :]
    return a


def whole_name(a):
    a[:] = a[:] * 3 - a[:]
    return a


def aug_name(a):
    a += a  # the destination on both sides
    return a


def aug_row(a, i, k):
    a[i, :] += a[k, :]  # i == k: through a temporary
    return a


def shifted(a):
    a[1:-1] = a[1:-1] + a[2:]  # overlaps, shifted: NumPy's temporary
    return a


def reversed_(a):
    a[:] = a[:] + a[::-1]
    return a


def strided(a, n):
    a[::2] = a[::2] + n * a[1::2]
    return a


def slice_expr(a, lo, n):
    a[lo:n - 1] = a[lo:n - 1] * a[lo:n - 1] + 1
    return a


def interior(u):
    u[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return u


def transposed(a):
    b = a.T
    b[:] = b[:] * 2 + 1
    return a


def into(dst, src):
    dst[:] = dst[:] + src
    return dst


def cplx(z):
    z[1, :] = z[1, :] * 1j + z[0, :]
    return z


def flags(b, c):
    b[:] = b[:] ^ c
    return b


@pytest.mark.parametrize("n", [1, 7, 33, 200])
def test_floyd_serial(n):
    rng = np.random.default_rng(n)
    path = rng.integers(1, 100, (n, n)).astype(np.int32)
    check(njit(fastmath=True)(floyd), path)


@pytest.mark.parametrize("n", [1, 7, 33, 200])
def test_floyd_parallel(n):
    rng = np.random.default_rng(n + 1)
    path = rng.integers(1, 100, (n, n)).astype(np.int32)
    check(njit(parallel=True, fastmath=True)(floyd_par), path)


@pytest.mark.parametrize("ik", [(0, 0), (2, 2), (1, 3), (3, 1)])
def test_row_update(ik):
    a = np.arange(20.0).reshape(4, 5)
    check(njit(row_update), a, *ik)


@pytest.mark.parametrize("ik", [(0, 0), (1, 3)])
def test_aug_row(ik):
    a = np.arange(20.0).reshape(4, 5)
    check(njit(aug_row), a, *ik)


@pytest.mark.parametrize("f", [whole_name, aug_name, shifted, reversed_, interior, transposed, cplx])
def test_overlapping_and_self(f):
    if f is interior:
        a = np.arange(36.0).reshape(6, 6)
    elif f is transposed:
        a = np.arange(12.0).reshape(3, 4)
    elif f is cplx:
        a = np.arange(8.0).reshape(2, 4) + 0.5j
    else:
        a = np.arange(11.0)
    check(njit(f), a)


def test_strided_and_slice_bounds():
    check(njit(strided), np.arange(10.0), 3.0)
    check(njit(strided), np.arange(11.0), -1.0)
    for lo, n in [(0, 10), (3, 10), (5, 6), (7, 3)]:
        check(njit(slice_expr), np.arange(10.0), lo, n)


def test_other_array_same_memory():
    """Another name for the destination's memory is not the destination's
    view: the overlap test sees it (NumPy's temporary)."""
    f = njit(into)
    base = np.arange(10.0)
    for cut in [lambda x: (x, x), lambda x: (x[1:], x[:-1]), lambda x: (x[:-1], x[1:])]:
        a, b = base.copy(), base.copy()
        got = f(*cut(a))
        exp = into(*cut(b))
        np.testing.assert_array_equal(got, exp)
        np.testing.assert_array_equal(a, b)


def test_bool_xor():
    check(njit(flags), np.array([True, False, True, True]), np.array([True, True, False, True]))


def test_self_overlapping_destination():
    """as_strided views whose elements share memory (stride 0, overlapping
    rows): stored through a temporary, as NumPy, not in place."""
    f = njit(whole_name)
    for shape, strides in [((5,), (0,)), ((3, 4), (8, 8)), ((4, 3), (0, 8))]:
        base_j = np.arange(20.0)
        base_p = np.arange(20.0)
        vj = np.lib.stride_tricks.as_strided(base_j, shape, strides)
        vp = np.lib.stride_tricks.as_strided(base_p, shape, strides)
        f(vj)
        whole_name(vp)
        np.testing.assert_array_equal(base_j, base_p)


@needs_hpcjit
def test_floyd_allocates_no_row_temporary():
    """Rows store in place: before, each took a temporary (the operand
    path[i, :] overlapped the destination), 64 * 64 allocations a call; now
    only the row i == k does, where path[k, :] is the destination's memory
    under another name."""
    f = njit(fastmath=True)(floyd)
    path = np.ones((64, 64), dtype=np.int32)
    f(path)
    before = hpcjit._core.memstats()
    f(path)
    after = hpcjit._core.memstats()
    assert after[0] - before[0] <= 64, (before, after)
    # a shifted operand still goes through its temporary
    g = njit(shifted)
    a = np.arange(100.0)
    g(a)
    before = hpcjit._core.memstats()
    g(a)
    after = hpcjit._core.memstats()
    assert after[0] - before[0] >= 1


def test_walrus_on_the_right():
    src = """
def walrus(a, b):
    a[:] = a[:] + (c := b)[:]
    return a, c
"""
    ns = {}
    exec(src, ns)
    check(njit(ns["walrus"]), np.arange(5.0), np.ones(5))


def whole_by_name(x, v, dt):
    x[:] = x + dt * v
    return x


def whole_2d(x):
    x[:, :] = x * 2.0 - x.T
    return x


def whole_ellipsis(x, y):
    x[...] = np.sqrt(x) + y
    return x


def test_whole_slice_by_name():
    """`x[:] = x + ...`: the name x is the destination's view (no temporary);
    other operands that overlap (x.T) still take one."""
    check(njit(whole_by_name), np.arange(9.0), np.ones(9), 0.5)
    check(njit(whole_2d), np.arange(16.0).reshape(4, 4))
    check(njit(whole_ellipsis), np.arange(12.0).reshape(3, 4), np.arange(4.0))
    x = np.arange(8.0)
    check(njit(whole_by_name), x[::2], np.ones(4), 2.0)


@needs_hpcjit
def test_whole_slice_allocates_nothing():
    f = njit(whole_by_name)
    x, v = np.arange(1000.0), np.ones(1000)
    f(x, v, 0.1)
    before = hpcjit._core.memstats()
    f(x, v, 0.1)
    after = hpcjit._core.memstats()
    assert after[0] == before[0], (before, after)


@needs_hpcjit
def test_row_store_needs_no_runtime_alias_test():
    """The row store's operands carry alias scopes, so LLVM's vectorizer
    adds no run-time overlap test: the one it added before, hoisted out of
    the `i` loop, spanned every row and always sent the loop to its scalar
    copy (`found.conflict` in the optimised IR)."""
    f = njit(fastmath=True)(floyd)
    path = np.ones((40, 40), dtype=np.int32)
    check(f, path)
    ir = f.inspect_llvm(f.signatures[0])
    assert "!noalias" in ir and "!alias.scope" in ir
    assert "found.conflict" not in ir
