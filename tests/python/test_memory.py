"""Memory: every allocation made by compiled code is freed, returned arrays
are ordinary ndarrays that keep their memory alive, references to argument
arrays do not leak, resident memory stays flat over 10**6 calls."""
import gc
import os
import sys

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

N_CALLS = 10 ** 6


def rss_bytes():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def memstats():
    return hpcjit._core.memstats()


@njit
def temp_sum(n):
    a = np.empty(n)
    for i in range(n):
        a[i] = i
    s = 0.0
    for i in range(n):
        s += a[i]
    return s


@njit
def make(n):
    a = np.zeros(n)
    a[0] = 1.0
    return a


@njit
def make_two(n):
    a = np.ones(n)
    b = np.arange(n)
    return a, b


@njit
def reassign(n):
    a = np.zeros(4)
    for i in range(n):
        a = np.ones(4)
        a[0] = i
    return a[0]


@njit
def alloc_then_raise(n):
    a = np.zeros(n)
    b = make(n)
    if n > 2:
        raise ValueError("too big")
    return a[0] + b[0]


@njit
def ident(a):
    return a


@njit
def pass_through(a):
    b = ident(a)
    c = make(3)
    return b[0] + c[0]


@njit
def copy_of(a):
    return a.copy()


@njit
def chain(n):
    return make(n)


@njit
def unpack_second(n):
    a, b = make_two(n)
    return b


@njit
def cond_reassign(n):
    a = np.zeros(3)
    if n > 2:
        a = np.ones(3)
    return a


@njit
def keep_best(n):
    best = np.zeros(2)
    for i in range(n):
        cur = np.ones(2) if i % 2 else np.zeros(2)
        cur[0] = i
        if i % 3 == 0:
            best = cur
    return best


@njit
def rebind_argument(a):
    a = a.copy()
    a[0] = 1.0
    return a


@njit
def row_of_local(n):
    A = np.zeros((3, n))
    for i in range(3):
        for j in range(n):
            A[i, j] = i * 10 + j
    return A[1]


@njit
def last_row(A):
    r = A[0]
    for row in A:
        r = row
    return r


@njit
def rows_of_local(n):
    A = np.ones((n, 2))
    s = 0.0
    for row in A:
        s += row[0] + row[1]
    return s


@njit
def raise_after_alloc_in_callee(n):
    t = np.zeros(n)
    u = make(n)
    x = callee_raises(n)
    return t[0] + u[0] + x


@njit
def callee_raises(n):
    tmp = np.ones(n)
    if n > 2:
        raise RuntimeError("callee")
    return tmp[0]


@njit(boundscheck=True)
def index_after_alloc(n, i):
    a = np.zeros(n)
    return a[i]


@njit
def fresh_zeros(n):
    return np.zeros(n)


@njit
def store_into_views(n):
    # a view that is only a store's destination borrows its base (a local,
    # an overlapping source, a temporary base): no reference of its own
    D = np.zeros((2, 3, n))
    t = np.ones((2, 3))
    for k in range(n):
        D[:, :, k] = t * k
        D[:, :, k] += t
    D[0, 1:, :] = D[0, :-1, :] + 1.0
    fresh_zeros(n)[1:] = np.arange(n - 1.0)
    return D.sum()


@njit
def augassign_rebinding_base(n):
    # the right side rebinds the base's variable: the old array (whose view
    # is the destination) must live until the store is done
    a = np.arange(n * 1.0)
    b = np.ones(n)
    a[1:] += (a := b * 2.0)[1:]
    return a.sum() + b.sum()


def _balanced(fn, *args, calls=1000):
    gc.collect()
    a0, f0 = memstats()
    for _ in range(calls):
        r = fn(*args)
        del r
    gc.collect()
    a1, f1 = memstats()
    return a1 - a0, f1 - f0


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
@pytest.mark.parametrize("fn,args", [
    (temp_sum, (10,)), (make, (10,)), (make_two, (5,)), (reassign, (7,)),
    (pass_through, (np.arange(3.0),)), (copy_of, (np.arange(6.0).reshape(2, 3),)),
    (chain, (4,)), (unpack_second, (4,)), (cond_reassign, (1,)), (cond_reassign, (5,)),
    (keep_best, (10,)), (rebind_argument, (np.arange(3.0),)), (row_of_local, (4,)),
    (rows_of_local, (5,)), (store_into_views, (6,)), (augassign_rebinding_base, (40000,)),
])
def test_allocations_are_freed(fn, args):
    check(fn, *args)
    allocs, frees = _balanced(fn, *args)
    assert allocs > 0
    assert allocs == frees, (allocs, frees)


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
def test_allocations_freed_on_exception():
    check(alloc_then_raise, 2)
    gc.collect()
    a0, f0 = memstats()
    for _ in range(100):
        with pytest.raises(ValueError):
            alloc_then_raise(5)
    a1, f1 = memstats()
    assert a1 - a0 >= 200 and a1 - a0 == f1 - f0, (a1 - a0, f1 - f0)


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
@pytest.mark.parametrize("fn,args,exc", [
    (raise_after_alloc_in_callee, (5,), RuntimeError),
    (index_after_alloc, (3, 7), IndexError),
])
def test_allocations_freed_when_exceptions_unwind(fn, args, exc):
    assert isinstance(check(fn, *args), exc)
    gc.collect()
    a0, f0 = memstats()
    for _ in range(100):
        with pytest.raises(exc):
            fn(*args)
    a1, f1 = memstats()
    assert a1 - a0 >= 100 and a1 - a0 == f1 - f0, (a1 - a0, f1 - f0)


def test_views_returned_from_compiled_code():
    check(row_of_local, 4)
    A = np.arange(12.0).reshape(4, 3)
    check(last_row, A)
    r = last_row(A)
    assert np.shares_memory(r, A)
    del A
    gc.collect()
    assert list(r) == [9.0, 10.0, 11.0]
    row = row_of_local(5)
    junk = [make(5) for _ in range(50)]
    del junk
    assert list(row) == [10.0, 11.0, 12.0, 13.0, 14.0]


def test_million_calls_rss_flat():
    temp_sum(10)
    make(10)
    if not AGAINST_NUMBA:
        a0, f0 = memstats()
    # warm up the allocator, then measure
    for _ in range(10000):
        make(16)
    gc.collect()
    r0 = rss_bytes()
    for _ in range(N_CALLS):
        make(16)
    gc.collect()
    r1 = rss_bytes()
    assert r1 - r0 < 8 * 2 ** 20, f"RSS grew by {(r1 - r0) / 2 ** 20:.1f} MiB over {N_CALLS} calls"
    if not AGAINST_NUMBA:
        a1, f1 = memstats()
        assert a1 - a0 >= N_CALLS
        assert a1 - a0 == f1 - f0, (a1 - a0, f1 - f0)


def test_million_calls_temporaries_rss_flat():
    temp_sum(32)
    gc.collect()
    r0 = rss_bytes()
    for _ in range(N_CALLS):
        temp_sum(32)
    gc.collect()
    r1 = rss_bytes()
    assert r1 - r0 < 8 * 2 ** 20, f"RSS grew by {(r1 - r0) / 2 ** 20:.1f} MiB"


def test_returned_arrays_are_ordinary_and_survive():
    a, b = make_two(1000)
    assert type(a) is np.ndarray and type(b) is np.ndarray
    assert a.flags.writeable and a.flags.aligned and a.flags.c_contiguous
    del b
    gc.collect()
    # churn the allocator so freed memory would be reused
    junk = [make(1000) for _ in range(100)]
    del junk
    gc.collect()
    assert (a == 1.0).all()
    a[:] = 5.0
    assert a.sum() == 5000.0
    # NumPy operations on it behave as on any array
    c = a.reshape(10, 100).T.copy()
    assert c.shape == (100, 10) and c.sum() == 5000.0
    d = np.concatenate([a, a])
    assert d.shape == (2000,)


@pytest.mark.numba_skip(reason="hpcjit._core.memstats is hpcjit's allocator")
def test_returned_array_freed_when_dropped():
    gc.collect()
    a0, f0 = memstats()
    x = make(100)
    view = x[10:20]
    a1, f1 = memstats()
    assert a1 - a0 == 1 and f1 - f0 == 0
    del x
    gc.collect()
    assert memstats()[1] - f0 == 0, "freed while a view still refers to it"
    assert view[0] == 0.0
    del view
    gc.collect()
    assert memstats()[1] - f0 == 1


def test_argument_refcounts_do_not_leak():
    a = np.arange(5.0)
    check(ident, a)
    check(pass_through, a)
    gc.collect()
    before = sys.getrefcount(a)
    for _ in range(100000):
        ident(a)
        pass_through(a)
    gc.collect()
    assert sys.getrefcount(a) == before


def test_returned_argument_keeps_owner_alive():
    a = np.arange(8.0)
    r = ident(a)
    del a
    gc.collect()
    assert r[7] == 7.0
