"""Variables rebound to values of other types (Numba's SSA versions): on a
straight line each assignment starts a new version; only where control
flow merges before a read (after an if, around a loop) must the types
unify, else a located TypingError.  Chained assignment (x = y = v,
a[s] = b[t] = v).  Every function is compared with its py_func."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check


@njit
def reshape_then_reduce(a):
    x = a.reshape(2, 3)
    x = x.sum(axis=0)
    x = x.sum()
    return x


@njit
def rebind_dtype(a):
    x = a                       # float64 array
    y = x.sum()
    x = a.astype(np.float32)    # another dtype
    z = x.sum()
    x = a.reshape(a.size)       # another ndim
    return y, z, x


@njit
def rebind_scalar_kinds(n):
    x = n            # int
    s = x * 2
    x = 0.5 * n      # float
    s += x
    x = (n, 1.5)     # tuple
    return s, x[1]


@njit
def rebind_argument(a, n):
    a = a.reshape(n, -1)       # the argument rebound to another ndim
    a = a[0] + 1.0
    return a


@njit
def branch_no_merge(a, c):
    # x is an array on one path, a number on the other, but never read
    # after the merge: two versions
    if c:
        x = a.sum()
        r = x * 2.0
    else:
        x = a
        r = x.sum()
    return r


@njit
def branch_merge_unifies(n):
    x = 1
    if n > 2:
        x = 2.5          # int and float meet after the if: float64
    return x


@njit
def loop_carried(a, n):
    s = 0
    for i in range(n):
        s = s + a[i]     # int and float around the loop: float64
    t = a.sum()          # a new version after the loop
    t = t > 1.0
    return s, t


@njit
def loop_body_versions(a):
    total = 0.0
    for i in range(a.shape[0]):
        x = a[i]              # a row
        x = x.sum()           # rebound inside the body, read before the next row
        total += x
    return total


@njit
def while_versions(n):
    i = 0
    x = 0.0
    while i < n:
        x = x + i
        i += 1
    x = np.full(3, x)         # after the loop: an array
    return x


@njit
def break_and_continue(a):
    found = -1
    for i in range(a.shape[0]):
        if a[i] < 0:
            continue
        if a[i] > 5:
            found = i
            break
    found = found * 1.5
    return found


@njit
def walrus_versions(a):
    if (m := a[2]) > 1.0:
        r = m * 2
    else:
        r = m
    m = np.zeros(2) + r       # rebound to an array after the merge
    return m


@njit
def chained_names(n):
    x = y = n + 1
    p = q = np.zeros(3)
    q[0] = 7.0               # p and q are the same array
    a, b = c = (n, 2.5)
    return x + y, p, a, b, c


@njit
def chained_slices(data):
    M = data.shape[1]
    corr = np.eye(M)
    for i in range(M - 1):
        corr[i + 1:M, i] = corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
    return corr


@njit
def chained_elements(a):
    a[0] = a[1] = b = 3
    a[2:] = a[:1] = 2.5
    return b


def test_straight_line_rebinding():
    a = np.arange(6.0)
    check(reshape_then_reduce, a)
    check(rebind_dtype, np.arange(6.0).reshape(2, 3), rtol=1e-6)
    check(rebind_scalar_kinds, 3)
    check(rebind_argument, np.arange(6.0), 2)


def test_branches():
    a = np.arange(4.0)
    check(branch_no_merge, a, True)
    check(branch_no_merge, a, False)
    check(branch_merge_unifies, 3)
    r = branch_merge_unifies(1)  # int and float unified to float64 (CPython keeps the int)
    assert isinstance(r, float) and r == branch_merge_unifies.py_func(1)


def test_loops():
    a = np.array([1.5, -2.0, 7.0, 3.0])
    check(loop_carried, a, 3)
    r = loop_carried(a, 0)  # s unified to float64 around the loop
    assert isinstance(r[0], float) and r == loop_carried.py_func(a, 0)
    check(loop_body_versions, np.arange(12.0).reshape(3, 4))
    check(while_versions, 4)
    check(break_and_continue, a)
    check(break_and_continue, -a)


@pytest.mark.numba_skip(reason="Numba 0.68 cannot type a walrus in an if condition")
def test_walrus_versions():
    a = np.array([1.5, -2.0, 7.0, 3.0])
    check(walrus_versions, a)
    check(walrus_versions, a / 100)


def test_chained_assignment():
    check(chained_names, 4)
    d = np.random.default_rng(0).random((5, 4))
    check(chained_slices, d)
    check(chained_elements, np.zeros(4))


@njit
def bad_merge_if(a, c):
    x = a
    if c:
        x = a.sum()
    return x


@njit
def bad_merge_loop(a, n):
    x = a
    for i in range(n):
        x = x.sum(axis=0)     # 2-D, then 1-D around the loop
    return x


@njit
def bad_merge_dtype(a, c):
    if c:
        x = a
    else:
        x = a.astype(np.float32)
    return x


@pytest.mark.parametrize("f, args, what", [
    (bad_merge_if, (np.ones(3), True), "x = a.sum()"),
    (bad_merge_loop, (np.ones((2, 2, 2)), 2), "x = x.sum(axis=0)"),
    (bad_merge_dtype, (np.ones(3), True), "x = a.astype(np.float32)"),
])
def test_merge_that_cannot_unify_is_a_located_error(f, args, what):
    with pytest.raises(hpcjit.TypingError) as ei:
        f(*args)
    msg = str(ei.value)
    assert "nify" in msg  # Numba: "Cannot unify", hpcjit: "cannot unify"
    if not AGAINST_NUMBA:
        assert "test_ssa.py:" in msg and what in msg and "variable 'x'" in msg


@pytest.mark.numba_skip(reason="hpcjit's inspect_types text")
def test_versions_in_inspect_types(capsys):
    reshape_then_reduce(np.arange(6.0))
    reshape_then_reduce.inspect_types()
    out = capsys.readouterr().out
    assert "x: array(float64, 2d, C)" in out
    assert "x.1: array(float64, 1d, C)" in out
    assert "x.2: float64" in out
