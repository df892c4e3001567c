"""Run under mpirun: every collective of hpcjit.mpi, from Python and with
data made by @njit functions, against NumPy's answers computed locally from
what every rank holds.  Prints 'rank R ok'."""
import numpy as np

import hpcjit
from hpcjit import mpi


@hpcjit.njit
def make(r, n):
    a = np.empty(n)
    for i in range(n):
        a[i] = (r + 1) * 0.5 + i * (r - 1.5)
    return a


@hpcjit.njit
def partial(a, r, nr):
    s = 0.0
    for i in range(r, a.shape[0], nr):
        s += a[i]
    return s


def data(r, n=5):
    return make(r, n)


def main():
    r, n = mpi.rank(), mpi.size()
    assert n == int(__import__("os").environ.get("OMPI_COMM_WORLD_SIZE", n))
    assert mpi.env_identity()[0] == r and mpi.env_identity()[2] == n
    assert 0 <= mpi.local_rank() < mpi.local_size() <= n
    mine = data(r)
    assert np.array_equal(mine, make.py_func(r, 5))
    every = np.stack([make.py_func(q, 5) for q in range(n)])
    ints = np.stack([np.arange(4, dtype=np.int32) * (q + 1) - q for q in range(n)])

    # allreduce: value form (numbers and arrays) and buffer form, in place too
    assert mpi.allreduce(r + 1) == n * (n + 1) // 2
    assert isinstance(mpi.allreduce(r + 1), int)
    assert mpi.allreduce(float(r), mpi.MAX) == float(n - 1)
    assert mpi.allreduce(np.int64(r + 2), mpi.PROD) == np.prod(np.arange(2, n + 2))
    assert isinstance(mpi.allreduce(np.float32(r), mpi.MIN), np.float32)
    for op, f in ((mpi.SUM, np.sum), (mpi.PROD, np.prod), (mpi.MIN, np.min), (mpi.MAX, np.max)):
        assert np.allclose(mpi.allreduce(mine, op), f(every, axis=0)), op
        out = np.empty_like(mine)
        assert mpi.allreduce(mine, out, op) is out and np.allclose(out, f(every, axis=0))
        x = ints[r].copy()
        mpi.allreduce(x, x, op)  # in place
        assert np.array_equal(x, f(ints, axis=0)), (op, x)
    c = mpi.allreduce(np.array([1 + 2j * r]))
    assert np.allclose(c, [n + 2j * sum(range(n))])
    # compiled partial sums reduce to the serial answer
    big = np.arange(1000.0)
    total = mpi.allreduce(partial(big, r, n))
    assert total == partial.py_func(big, 0, 1) == big.sum()

    # reduce to each root, both forms
    for root in range(n):
        got = mpi.reduce(mine, mpi.SUM, root)
        if r == root:
            assert np.allclose(got, every.sum(axis=0))
        else:
            assert got is None
        recv = np.zeros(5) if r == root else None
        mpi.reduce(mine, recv, mpi.MAX, root)
        if r == root:
            assert np.array_equal(recv, every.max(axis=0))
    assert mpi.reduce(r, mpi.SUM, 0) == (sum(range(n)) if r == 0 else None)

    # bcast: value form (new array / number / object), buffer form in place
    for root in range(n):
        got = mpi.bcast(mine if r == root else None, root)
        assert np.array_equal(got, every[root])
        buf = mine.copy() if r == root else np.zeros(5)
        assert mpi.bcast(buf, root) is buf and np.array_equal(buf, every[root])
    assert mpi.bcast(42 if r == 0 else None) == 42
    assert mpi.bcast(np.float32(2.5) if r == 0 else None) == np.float32(2.5)
    assert mpi.bcast({"k": [1, 2]} if r == 0 else None) == {"k": [1, 2]}

    # gather / allgather / scatter
    g = mpi.gather(mine, root=n - 1)
    if r == n - 1:
        assert np.array_equal(g, every)
    else:
        assert g is None
    assert np.array_equal(mpi.allgather(mine), every)
    assert np.array_equal(mpi.allgather(r * 3), np.arange(n) * 3)
    recv = np.empty((n, 4), np.int32)
    mpi.allgather(ints[r], recv)
    assert np.array_equal(recv, ints)
    sc = mpi.scatter(every if r == 0 else None)
    assert np.array_equal(sc, every[r])
    assert mpi.scatter(np.arange(n) * 7 if r == 1 % n else None, root=1 % n) == r * 7
    part = np.empty(4, np.int32)
    mpi.scatter(ints if r == 0 else None, part, 0)
    assert np.array_equal(part, ints[r])

    # send / recv around a ring, into a new array and into a buffer
    if n > 1:
        right, left = (r + 1) % n, (r - 1) % n
        if r % 2 == 0:
            mpi.send(mine, right, tag=7)
            got = mpi.recv(source=left, tag=7)
        else:
            got = mpi.recv(source=left, tag=7)
            mpi.send(mine, right, tag=7)
        assert np.array_equal(got, every[left])
        if r == 0:
            mpi.send(3.5, 1)
            buf = np.zeros(4, np.int32)
            mpi.recv(buf, source=1)
            assert np.array_equal(buf, ints[1])
        elif r == 1:
            assert mpi.recv(source=0) == 3.5
            mpi.send(ints[1], 0)

    # errors are Python exceptions, and the ranks stay in step
    try:
        mpi.allreduce(np.array([1j]), mpi.MAX)
    except TypeError:
        pass
    else:
        raise AssertionError("MAX of complex accepted")
    try:
        mpi.allreduce(mine, np.zeros(3), mpi.SUM)
    except ValueError:
        pass
    else:
        raise AssertionError("mismatched buffers accepted")
    mpi.barrier()
    print(f"rank {r} ok", flush=True)


main()
