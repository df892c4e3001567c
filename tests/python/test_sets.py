"""Sets of numbers in compiled code (lib/dict): displays, set(), methods,
operators, comparisons, iteration, comprehensions, reflected set
arguments and set returns, compared with CPython through check()."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    before = memstats()
    yield
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


@njit
def build(a, n):
    s = set()
    for x in a:
        s.add(x)
    t = {1, 2, 3}
    u = set(a)
    v = set(range(n))
    w = set([4, 5, 4])
    return len(s), len(t), len(u), len(v), len(w), 2 in t, 7 in t, 7 not in t


@njit
def methods(n):
    s = set(range(n))
    s.discard(0)
    s.discard(100)
    s.remove(1)
    x = s.pop()
    c = s.copy()
    c.add(1000)
    s.update({50, 51})
    s.intersection_update(set(range(2, 60)))
    s.difference_update({50})
    s.symmetric_difference_update({51, 52})
    t = 0
    for y in s:
        t += y
    return x, len(s), len(c), t, 1000 in c, 1000 in s


@njit
def operators(n):
    a = set(range(n))
    b = set(range(n // 2, n + 3))
    u, i, d, x = a | b, a & b, a - b, a ^ b
    a2 = a.copy()
    a2 |= {100}
    a2 &= {1, 2, 100}
    a2 -= {1}
    a2 ^= {7}
    return (len(u), len(i), len(d), len(x), len(a2), 100 in a2, 7 in a2,
            len(a.union(b)), len(a.intersection(b)), len(a.difference(b)), len(a.symmetric_difference(b)))


@njit
def compare(n):
    a = set(range(n))
    b = set(range(n + 1))
    c = set(range(n))
    return (a <= b, a < b, b >= a, b > a, a == c, a != c, a < c, a <= c, b <= a,
            a.issubset(b), b.issuperset(a), a.isdisjoint({-1}), a.isdisjoint(b))


@njit
def floats(a):
    s = set(a)
    t = 0.0
    for x in s:
        t += x
    return len(s), t, 0.5 in s, 1 in s


@njit
def comprehension(n):
    s = {i % 7 for i in range(n)}
    return len(s), 6 in s, sum([x for x in s])


@njit
def tuples(n):
    s = set()
    for i in range(n):
        s.add((i % 3, i % 2))
    return len(s), (2, 1) in s, (3, 0) in s


@njit
def truth():
    s = set()
    r = 0
    if not s:
        r += 1
    s.add(1.5)
    if s:
        r += 10
    return r


a = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
SETS_CASES = [
    (build, (a, 6)),
    pytest.param(methods, (10,), marks=pytest.mark.numba_skip("Numba types a set literal's items as literals: set(int64) and set(Literal[int]) differ")),
    pytest.param(operators, (10,), marks=pytest.mark.numba_skip("Numba types a set literal's items as literals: set(int64) and set(Literal[int]) differ")),
    pytest.param(compare, (5,), marks=pytest.mark.numba_skip("Numba types a set literal's items as literals: set(int64) and set(Literal[int]) differ")),
    (floats, (np.array([0.5, 1.0, 0.5, 2.0]),)),
    pytest.param(comprehension, (20,), marks=pytest.mark.numba_skip("Numba has no set comprehensions")),
    (tuples, (10,)),
    (truth, ()),
]


@pytest.mark.parametrize("f, args", SETS_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_sets(balanced, f, args):
    check(f, *args)

@njit
def remove_missing(k):
    s = {1, 2}
    s.remove(k)
    return len(s)


@njit
def pop_empty():
    s = {1}
    s.pop()
    return s.pop()


@njit
def changed_size(n):
    s = {1, 2}
    for x in s:
        s.add(x + n)
    return len(s)


def test_exceptions(balanced):
    e = check(remove_missing, 5)
    assert isinstance(e, KeyError)
    assert check(remove_missing, 1) == 1
    assert isinstance(check(pop_empty), KeyError)


@pytest.mark.numba_skip("Numba does not detect a set changing size during iteration")
def test_changed_size(balanced):
    assert isinstance(check(changed_size, 10), RuntimeError)


@njit
def ret_set(a):
    return set(a)


@njit
def ret_ops(n):
    return set(range(n)) - {1}


@njit
def add_to(s, x):
    s.add(x)
    s.discard(-1)
    return len(s)


def test_returns(balanced):
    assert ret_set(np.array([3, 1, 3])) == {1, 3}


@pytest.mark.numba_skip("Numba types a set literal's items as literals")
def test_boundary(balanced):
    assert ret_ops(4) == ret_ops.py_func(4)
    s = {1.5, -1.0}
    assert add_to(s, 2.5) == 2
    assert s == {1.5, 2.5}


@njit
def never_known():
    s = set()
    return len(s)


@njit
def mixed():
    s = {1, 2}
    s.add(2.5)
    return len(s)


@njit
def unhashable(a):
    return len({a})


@pytest.mark.numba_skip("hpcjit's messages")
def test_errors():
    from hpcjit.errors import TypingError
    with pytest.raises(TypingError, match="cannot determine the type of variable 's'"):
        never_known()
    with pytest.raises(TypingError, match="cannot use float64 as a key of reflected set"):
        mixed()
    with pytest.raises(TypingError, match="unhashable type"):
        unhashable(np.ones(2))


# ---- set methods with other iterables --------------------------------------------
# CPython's set methods take any iterable (Numba's update a list or tuple);
# the operators still need sets.

@njit
def update_from_list_and_tuple(a):
    s = {1, 2, 3}
    s.update([4, 5])
    s.update((6, 7))
    s.update(a)
    return sorted(s)


@njit
def methods_with_iterables(a):
    s = {1, 2, 3, 4, 5, 6, 7}
    s.difference_update([1])
    s.intersection_update([2, 3, 4, 5, 6, 9])
    s.symmetric_difference_update((2, 20))
    return (sorted(s), sorted(s.union([30])), s.issubset([3, 4, 5, 6, 20, 99]), s.isdisjoint((1, 2)),
            sorted(s.intersection(a)), sorted(s.difference(a)))


def test_update_takes_lists_tuples_and_arrays(balanced):
    check(update_from_list_and_tuple, np.array([10, 11]))


@pytest.mark.numba_skip("Numba's set methods other than update() need sets")
def test_set_methods_take_iterables(balanced):
    check(methods_with_iterables, np.array([4, 5, 40]))


@pytest.mark.numba_skip("hpcjit's message")
def test_set_operator_with_a_list_is_refused():
    @njit
    def bad():
        s = {1}
        s |= [2]
        return len(s)
    with pytest.raises(hpcjit.TypingError, match="needs a set argument"):
        bad()
