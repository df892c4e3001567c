"""Smaller language points of issue 11 that Numba 0.68 runs: tuple
concatenation, min()/max() of a 1-D array.  Compared with CPython
(py_func), with memstats balance where arrays are held."""
import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check

njit = hpcjit.njit


@njit
def concat(a, t):
    u = (1, 2) + (3.5,)
    v = t + (a,) + ()
    return u, v[2].sum(), len(v), u + t, () + t


def test_tuple_concatenation():
    before = None if AGAINST_NUMBA else hpcjit._core.memstats()
    check(concat, np.ones(3), (1, 2.0))
    check(concat, np.arange(2.0), (-4, 0.5))
    if before is not None:
        after = hpcjit._core.memstats()
        assert after[0] - before[0] == after[1] - before[1]


@njit
def array_min_max(a, b):
    return max(a), min(a), max(b), min(b), max(a[1:]) + min(b[::2])


def test_min_max_of_an_array():
    check(array_min_max, np.array([3.0, -1.0, 2.0]), np.array([4, 9, 1]))
    check(array_min_max, np.array([0.5, 0.25]), np.array([-3, 7, 7, 2], dtype=np.int32))


@njit
def empty_max(a):
    return max(a)


@pytest.mark.numba_skip("Numba raises StopIteration where CPython raises ValueError")
def test_min_max_of_an_empty_array():
    check(empty_max, np.zeros(0))


# ---- tuple slices with constant bounds ---------------------------------------------

def test_tuple_slices():
    def f(A, t):
        return (A.shape[:2], t[1:], t[::-1], t[-2:], t[5:], np.empty(A.shape[1:]).shape, t[::2],
                t[-10:2], t[3:0:-1])

    A, t = np.zeros((3, 4, 5)), (1, 2.5, 3, 4)
    assert njit(f)(A, t) == f(A, t)


@pytest.mark.numba_skip("hpcjit's message")
def test_tuple_slice_bounds_must_be_constant():
    @njit
    def f(t, k):
        return t[:k]

    with pytest.raises(hpcjit.errors.UnsupportedError, match="constant bounds"):
        f((1, 2, 3), 2)


# ---- any/all, heapq, generator expressions as the argument of a consumer ----------------

@pytest.mark.numba_skip("Numba has no any()/all() builtins")
def test_any_all_over_iterables():
    def f(a, n):
        return (any(a > 0.9), all(a >= 0), any((0, 0)), all((1, 2)), any([x > 5 for x in range(n)]),
                all(range(1, n)), any({0, n}), all("ab"))

    a = np.random.default_rng(1).random(7)
    for n in (0, 3, 9):
        assert njit(f)(a, n) == f(a, n)


def test_heapq_on_lists():
    import heapq
    from heapq import heappop, heappush

    def f(a):
        h = [a[0]]
        for x in a[1:]:
            heapq.heappush(h, x)
        out = [heappop(h) for _ in range(3)]
        heappush(h, -1.0)
        lst = list(a)
        heapq.heapify(lst)
        r = heapq.heapreplace(lst, 0.5)
        p = heapq.heappushpop(lst, 0.25)
        return out, h[0], heapq.nsmallest(2, list(a)), heapq.nlargest(3, list(a)), lst, r, p

    rng = np.random.default_rng(2)
    for _ in range(3):
        a = rng.random(9)
        assert njit(f)(a) == f(a)


@pytest.mark.numba_skip("Numba refuses a generator expression that reads the enclosing function's variables")
def test_generator_expression_arguments():
    def f(a, k):
        return (sum(x * k for x in a), min(x for x in a if x > 0.2), max(i * 2 for i in range(5)),
                sorted(-x for x in a)[0], list(x + 1 for x in range(3)), len(set(int(x * 3) for x in a)),
                sum(1 for _ in a), ", ".join(str(i * i) for i in range(7) if i % 2))

    a = np.random.default_rng(3).random(8)
    assert njit(f)(a, 2.0) == f(a, 2.0)


@pytest.mark.numba_skip("Numba has no any()/all() builtins")
def test_generator_expressions_in_any_all():
    def f(a):
        return any(x > 0.9 for x in a), all(x >= 0 for x in a), any(x > 2 for x in a)

    a = np.random.default_rng(4).random(8)
    assert njit(f)(a) == f(a)


@pytest.mark.numba_skip("hpcjit's message")
def test_generator_expression_elsewhere_is_located():
    @njit
    def f(a):
        g = (x for x in a)
        return g

    with pytest.raises(hpcjit.errors.UnsupportedError, match="generator expressions"):
        f(np.ones(3))


# ---- tuple * n of a constant n ----

@njit
def tuple_repeat(t, u):
    v = t * 2
    w = 3 * (1.5, 2)
    return v, len(v), t * 0, w, u * 1, t * -1, (t * 3)[4]


@pytest.mark.numba_skip(reason="Numba has no tuple * int")
def test_tuple_repeat():
    check(tuple_repeat, (1, 2), (3.0,))
    check(tuple_repeat, (1, 2, 3), ("a", 2))
    with pytest.raises(hpcjit.UnsupportedError, match="integer constant"):
        njit(lambda t, n: t * n)((1, 2), 2)
