"""Run under mpirun (or alone: one rank): hpcjit.mpi called from @njit code,
checked against NumPy's answers computed locally from what every rank holds
and against the same functions run by CPython (py_func, which calls
hpcjit.mpi's Python layer: the same collectives in the same order).
Distributed hpcjit.mpi.prange loops give the serial answer (py_func runs
every iteration on every rank).  Prints 'rank R ok'."""
import sys

import numpy as np

import hpcjit
from hpcjit import mpi, njit


@njit
def ident():
    return mpi.rank(), mpi.size(), mpi.local_rank()


@njit
def data(r, n):
    a = np.empty(n)
    for i in range(n):
        a[i] = (r + 1) * 0.5 + i * (r - 1.5)
    return a


@njit
def value_forms(x, k, a):
    s = mpi.allreduce(x, mpi.SUM)
    m = mpi.allreduce(x, mpi.MAX)
    p = mpi.allreduce(k, mpi.PROD)
    lo = mpi.allreduce(a, mpi.MIN)
    tot = mpi.allreduce(a)  # SUM by default
    return s, m, p, lo, tot


@njit
def buffer_forms(a, op):
    out = np.empty_like(a)
    same = mpi.allreduce(a, out, op)
    b = a.copy()
    mpi.allreduce(b, b, op)  # in place
    return out, same, b


@njit
def all_gathered(a, x):
    g = mpi.allgather(a)
    gx = mpi.allgather(x)
    buf = np.empty((mpi.size(), a.shape[0]), a.dtype)
    mpi.allgather(a, buf)
    return g, gx, buf


@njit
def rooted(a, root):
    n = mpi.size()
    red = np.zeros_like(a)
    mpi.reduce(a, red, mpi.SUM, root)
    gat = np.zeros((n, a.shape[0]), a.dtype)
    mpi.gather(a, gat, root)
    src = np.empty((n, 3), np.int64)
    for q in range(n):
        for j in range(3):
            src[q, j] = 10 * q + j + root
    part = np.empty(3, np.int64)
    mpi.scatter(src, part, root)
    return red, gat, part


@njit
def broadcast(a, x, root):
    mpi.bcast(a, root)
    y = mpi.bcast(x, root)
    return a, y


@njit
def ring(a):
    r, n = mpi.rank(), mpi.size()
    got = np.empty_like(a)
    if n == 1:
        return a.copy()
    if r % 2 == 0:
        mpi.send(a, (r + 1) % n, 7)
        mpi.recv(got, (r - 1) % n, 7)
    else:
        mpi.recv(got, (r - 1) % n, 7)
        mpi.send(a, (r + 1) % n, 7)
    return got


@njit
def barrier_count(k):
    for _ in range(k):
        mpi.barrier()
    return k


@njit
def dist_sum(n):
    acc = 1.5
    cnt = 0
    hi = -1
    lo = n
    bits = 0
    for i in mpi.prange(n):
        acc += i * 0.5
        cnt += 1
        hi = max(hi, i * 7 % 1000)
        lo = min(lo, (i * 13 + 5) % 997)
        bits |= 1 << (i % 40)
    return acc, cnt, hi, lo, bits


@njit(parallel=True)
def dist_sum_par(n):
    acc = 1.5
    prod = 1.0
    for i in mpi.prange(1, n, 3):
        acc += i * 0.25
        prod *= 1.0 + (i % 3 == 1) * 0.001
    return acc, prod


@njit(parallel=True)
def dist_threads(n):
    # the rank's block runs on its threads: every thread of every rank
    # takes part (static schedule, n >= threads)
    top = -1
    seen = 0
    for i in mpi.prange(n):
        top = max(top, hpcjit.get_thread_id())
        seen += 1
    return top, seen


@njit
def dist_fill(n):
    a = np.zeros(n)
    for i in mpi.prange(n):
        a[i] = i * 2.0
    mpi.allreduce(a, a, mpi.SUM)
    return a


@njit
def bad_size(a, b):
    mpi.allreduce(a, b, mpi.SUM)
    return b


@njit
def op_at_runtime(x, op):
    return mpi.allreduce(x, op)


def expect_raise(exc, f, *args):
    try:
        f(*args)
    except exc as e:
        return str(e)
    raise AssertionError(f"{f.__name__}{args} did not raise {exc.__name__}")


def main():
    r, n = mpi.rank(), mpi.size()
    assert ident() == (r, n, mpi.local_rank()) == ident.py_func()
    mine = data(r, 5)
    every = np.stack([data.py_func(q, 5) for q in range(n)])
    ints = np.stack([np.arange(4, dtype=np.int32) * (q + 1) - q for q in range(n)])

    s, m, p, lo, tot = value_forms(float(r) + 0.25, r + 2, mine)
    assert s == sum(q + 0.25 for q in range(n)) and m == n - 1 + 0.25
    assert p == np.prod(np.arange(2, n + 2))
    assert np.array_equal(lo, every.min(axis=0)) and np.allclose(tot, every.sum(axis=0))
    py = value_forms.py_func(float(r) + 0.25, r + 2, mine)
    assert py[:3] == (s, m, p) and np.array_equal(py[3], lo) and np.allclose(py[4], tot)

    for op, f in ((mpi.SUM, np.sum), (mpi.PROD, np.prod), (mpi.MIN, np.min), (mpi.MAX, np.max)):
        out, same, b = buffer_forms(ints[r], op)
        assert same is out or np.shares_memory(same, out)
        want = f(ints, axis=0).astype(np.int32)
        assert np.array_equal(out, want) and np.array_equal(b, want), (op, out, want)
        pout, _, pb = buffer_forms.py_func(ints[r], op)
        assert np.array_equal(pout, want) and np.array_equal(pb, want)

    g, gx, buf = all_gathered(mine, np.int16(r * 3))
    assert np.array_equal(g, every) and np.array_equal(buf, every)
    assert gx.dtype == np.int16 and np.array_equal(gx, np.arange(n) * 3)
    pg, pgx, pbuf = all_gathered.py_func(mine, np.int16(r * 3))
    assert np.array_equal(pg, g) and np.array_equal(pgx, gx)

    for root in range(n):
        red, gat, part = rooted(mine, root)
        assert np.array_equal(part, 10 * r + np.arange(3) + root)
        if r == root:
            assert np.allclose(red, every.sum(axis=0)) and np.array_equal(gat, every)
        else:
            assert not red.any() and not gat.any()
        pred, pgat, ppart = rooted.py_func(mine, root)
        assert np.array_equal(ppart, part) and np.allclose(pred, red) and np.array_equal(pgat, gat)

        a, y = broadcast(mine.copy(), complex(r, -r), root)
        assert np.array_equal(a, every[root]) and y == complex(root, -root)

    got = ring(mine)
    assert np.array_equal(got, every[(r - 1) % n])
    assert barrier_count(3) == 3

    # distributed loops: the serial answer on every rank
    for size in (0, 1, 3, 1001):
        d, ref = dist_sum(size), dist_sum.py_func(size)
        assert d[1:] == ref[1:] and abs(d[0] - ref[0]) <= 1e-9 * abs(ref[0]), (size, d, ref)
        dp, refp = dist_sum_par(size), dist_sum_par.py_func(size)
        assert np.allclose(dp, refp, rtol=1e-12), (size, dp, refp)
    top, seen = dist_threads(64 * n)
    assert seen == 64 * n and top == hpcjit.get_num_threads() - 1, (top, seen, hpcjit.get_num_threads())
    # each rank writes its block only; py_func writes every item on every rank
    assert np.array_equal(dist_fill(37), np.arange(37) * 2.0)
    assert np.array_equal(dist_fill.py_func(37), np.arange(37) * 2.0 * n)

    # run-time errors: the exception types hpcjit.mpi raises from Python
    msg = expect_raise(ValueError, bad_size, np.ones(3), np.ones(4))
    assert "3 elements" in msg and "4" in msg, msg
    expect_raise(ValueError, op_at_runtime, 1.0, 9)
    expect_raise(TypeError, op_at_runtime, 1j, mpi.MAX)
    assert op_at_runtime(r, mpi.MAX) == n - 1
    print(f"rank {r} ok", flush=True)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
