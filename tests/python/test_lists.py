"""Lists in compiled code (lib/list): displays, methods, indexing, slicing,
operators, iteration, comprehensions, reflected list arguments and list
returns, compared with CPython through check()."""
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


# ---- building ----

@njit
def append_loop(n):
    l = []
    for i in range(n):
        l.append(i * 3)
    return l


@njit
def display_mixed():
    return [1, 2.5, 3]


@njit
def list_of_range(n):
    return list(range(n))


@njit
def list_of_array(a):
    return list(a)


@njit
def list_empty_then_extend(n):
    l = list()
    l.extend(range(n))
    l += [7, 8]
    l *= 2
    return l


def test_build(balanced):
    check(append_loop, 10)
    check(append_loop, 0)
    check(display_mixed)
    check(list_of_range, 5)
    check(list_of_array, np.arange(5.0))
    check(list_empty_then_extend, 3)


# ---- methods ----

@njit
def methods(n):
    l = [5, 3, 8, 1]
    l.insert(1, n)
    l.insert(-100, 0)
    l.insert(100, 9)
    a = l.pop()
    b = l.pop(0)
    l.remove(8)
    i = l.index(3)
    c = l.count(3)
    l.reverse()
    m = l.copy()
    m.append(42)
    return l, m, a, b, i, c, len(l), 3 in l, 4 not in l


@njit
def sort_it(l, rev):
    l.sort(reverse=rev)
    return l


@njit
def sorted_of(t):
    return sorted(t), sorted(t, reverse=True)


@njit
def neg(x):
    return -x


@njit
def sort_key(l):
    l.sort(key=neg)
    return l


@njit
def clear_it(l):
    l.clear()
    return len(l)


@njit
def remove_missing(l):
    l.remove(99)


@njit
def index_missing(l):
    return l.index(99)


@njit
def pop_empty():
    l = [1]
    l.pop()
    return l.pop()


def test_methods(balanced):
    check(methods, 4)
    check(sort_it, [3.0, -1.0, 2.5, 0.0], False)
    check(sort_it, [3, -1, 2, 0], True)
    check(sorted_of, (3, 1, 2))
    check(sort_key, [1, 3, 2])
    check(clear_it, [1, 2])
    assert isinstance(check(remove_missing, [1, 2]), ValueError)
    assert isinstance(check(index_missing, [1, 2]), ValueError)
    assert isinstance(check(pop_empty), IndexError)


# ---- indexing, slicing, del ----

@njit
def getitem(l, i):
    return l[i]


@njit
def setitem(l, i, v):
    l[i] = v
    l[0] += 1
    return l


@njit
def slices(l):
    return l[1:3], l[::-1], l[:-1], l[::2], l[5:]


@njit
def slice_store(l):
    l[1:3] = [10, 20, 30]
    return l


@njit
def dels(l):
    del l[0]
    del l[-1]
    del l[1:3]
    return l


def test_indexing(balanced):
    for i in (0, 2, -1, -3, 3, -4):
        check(getitem, [1, 2, 3], i)
    check(setitem, [1, 2, 3], -1, 9)
    assert isinstance(check(setitem, [1, 2, 3], 5, 9), IndexError)
    check(slices, [1, 2, 3, 4, 5])
    check(slice_store, [1, 2, 3, 4])
    check(dels, [0, 1, 2, 3, 4, 5, 6])


# ---- operators ----

@njit
def operators(a, b):
    return a + b, a * 2, 3 * b, a == b, a != b, a < b, a <= b, a > b, a == a


@njit
def truth(n):
    l = [1] * n
    if l:
        return 1
    return 0


def test_operators(balanced):
    check(operators, [1, 2, 3], [1, 2, 4])
    check(operators, [1, 2], [1, 2, 0])
    check(operators, [2.0], [1.0, 5.0])
    check(truth, 0)
    check(truth, 2)


# ---- iteration and reductions ----

@njit
def iterate(l):
    s = 0.0
    for x in l:
        s += x
    for i, x in enumerate(l):
        s += i * x
    return s


@njit
def iterate_reversed(l):
    s = 0.0
    for x in reversed(l):
        s = s * 0.5 + x
    return s


@njit
def reductions(l):
    return min(l), max(l), sum(l), sum(l, 10)


@njit
def empty_min():
    l = [1.0]
    l.pop()
    return min(l)


def test_iteration(balanced):
    check(iterate, [1.0, 2.0, 3.5])
    check(reductions, [3, -1, 7, 2])
    check(reductions, [3.5, -1.0, 7.25])


@pytest.mark.numba_skip("Numba has no reversed() of a list; min([]) raises StopIteration there")
def test_reversed(balanced):
    assert isinstance(check(empty_min), ValueError)
    check(iterate_reversed, [1.0, 2.0, 3.5])


# ---- comprehensions ----

@njit
def comp(n):
    x = 100
    l = [x * x for x in range(n) if x % 2]
    m = [[i + j for j in range(i)] for i in range(n)]
    p = [a * b for a in range(3) for b in range(a)]
    return l, m, p, x


@njit
def comp_over_list(l):
    return [v * 2.0 for v in l if v > 0]


@njit
def comp_in_condition(n):
    k = 0
    while len([i for i in range(k)]) < n:
        k += 1
    return k


def test_comprehensions(balanced):
    check(comp, 6)
    check(comp_over_list, [1.0, -2.0, 3.0])
    check(comp_in_condition, 4)


# ---- lists of arrays and tuples, np.array ----

@njit
def list_of_arrays(n):
    l = [np.zeros(2) + i for i in range(n)]
    s = 0.0
    for a in l:
        s += a.sum()
    l[0][1] = 5.0
    return s, l[0][1], len(l), l


@njit
def list_of_tuples(n):
    l = [(i, i * 0.5) for i in range(n)]
    l.append((7, 1.5))
    l.sort()
    return l, (7, 1.5) in l, l[-1]


def test_nested(balanced):
    got = list_of_arrays(3)
    exp = list_of_arrays.py_func(3)
    assert got[:3] == exp[:3]
    for g, e in zip(got[3], exp[3]):
        np.testing.assert_array_equal(g, e)
    check(list_of_tuples, 4)


@njit
def nested_lists(n):
    l = [[0] * i for i in range(n)]
    l[2].append(9)
    return l, l[2] == [0, 0, 9], [[1, 2], [3]] < [[1, 2], [4]]


def test_nested_lists(balanced):
    check(nested_lists, 4)


# ---- reflection ----

@njit
def mutate(l):
    l.append(l[0] * 2)
    l[0] = -1
    l.sort()


@njit
def mutate_nested(l):
    l[0].append(5)
    l.append([6])


def test_reflection(balanced):
    a = [3, 1, 2]
    b = list(a)
    mutate(a)
    mutate.py_func(b)
    assert a == b
    c = [1.5, 0.5]
    mutate(c)
    assert c == [-1.0, 0.5, 3.0]


@pytest.mark.numba_skip("Numba cannot reflect nested lists")
def test_reflection_nested(balanced):
    n = [[1], [2, 3]]
    mutate_nested(n)
    assert n == [[1, 5], [2, 3], [6]]


# ---- errors ----

def _raises(f, *args, match):
    from hpcjit.errors import TypingError
    with pytest.raises((TypingError, TypeError), match=match):
        f(*args)


@pytest.mark.numba_skip("hpcjit's messages")
def test_errors():
    @njit
    def mixed():
        return [1, (2, 3)]

    @njit
    def never_known():
        l = []
        return len(l)

    @njit
    def widen(n):
        l = [1]
        l.append(2.5)
        return l

    @njit
    def takes(l):
        return len(l)

    _raises(mixed, match="cannot make a list of int64 and UniTuple")
    _raises(never_known, match="cannot determine the type of variable 'l'")
    _raises(widen, 1, match="cannot append float64 to reflected list")
    _raises(takes, [], match="empty list")
    with pytest.raises(TypeError, match="heterogeneous"):
        takes([1, 2.5])


@pytest.mark.numba_skip("hpcjit's type names")
def test_types():
    @njit
    def f(l):
        return l

    f([1, 2])
    assert str(f.signatures[0][0]) == "reflected list(int64)"


def test_augassign_to_an_array_item_is_in_place():
    def f(n):
        lst = [np.zeros(3) for _ in range(n)]
        first = lst[0]
        for i in range(n):
            lst[i] += i
            lst[i] -= np.ones(3)
        return lst, first

    got, want = njit(f)(4), f(4)
    for g, w in zip(got[0], want[0]):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[1], want[1])


def test_returned_lists_of_reference_items_keep_their_counts():
    """Lists (and dict values) of dicts, sets, jitclass instances and tuples
    holding str and arrays, returned to Python: each boxed item gets its own
    reference (a missing one freed the list's and corrupted the heap)."""
    import gc

    from hpcjit import _core
    from hpcjit.experimental import jitclass

    @jitclass
    class Item:
        x: float

        def __init__(self, x):
            self.x = x

    def dicts(n):
        return [{i: float(i)} for i in range(n)]

    def sets(n):
        return [{i, i + 1} for i in range(n)]

    def tuples(n):
        d = {0: ("a", np.zeros(2))}
        for i in range(1, n):
            d[i] = (str(i), np.ones(2) * i)
        return [(str(i), np.arange(i)) for i in range(n)], d

    items = njit(lambda n: [Item(float(i)) for i in range(n)])
    gc.collect()
    before = _core.memstats()
    for _ in range(3):
        for f in (dicts, sets):
            assert njit(f)(4) == f(4)
        got = njit(tuples)(3)
        want = tuples(3)
        assert [(s, list(a)) for s, a in got[0]] == [(s, list(a)) for s, a in want[0]]
        assert {k: (s, list(a)) for k, (s, a) in got[1].items()} == {k: (s, list(a)) for k, (s, a) in want[1].items()}
        assert [it.x for it in items(3)] == [0.0, 1.0, 2.0]
        del got
    gc.collect()
    after = _core.memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


# ---- min/max with key=, sorted by string keys ----

@njit
def minmax_keyed(a):
    lst = [a[i] for i in range(a.size)]
    pairs = [(a[i], i) for i in range(a.size)]
    return (max(lst, key=lambda v: abs(v - 3.0)), min(lst, key=lambda v: abs(v - 3.0)),
            max(pairs, key=lambda p: -p[0]), min(a, key=lambda v: v * v),
            min(range(10), key=lambda v: (v - 4) ** 2), max((3, 1, 2), key=lambda v: -v))


@njit
def minmax_keyed_str(words):
    return (min(words, key=lambda w: len(w)), max(words, key=lambda w: len(w)),
            max(words, key=lambda w: w[::-1]), sorted(words, key=lambda w: w[1:]))


@njit
def max_keyed_empty(n):
    return max([i * 1.5 for i in range(n)], key=lambda v: -v)


@pytest.mark.numba_skip(reason="Numba's min/max take no key=, its sort keys are numbers")
def test_minmax_key(balanced):
    check(minmax_keyed, np.array([4.0, -2.0, 7.0, 1.0, 2.0, 5.0]))  # ties: the first, as CPython
    check(minmax_keyed, np.array([3.0]))
    check(minmax_keyed_str, ["pear", "fig", "banana", "kiwi", "plum", "nut"])
    check(max_keyed_empty, 3)
    e = check(max_keyed_empty, 0)  # ValueError, as CPython
    assert isinstance(e, ValueError)


@njit
def builtin_keys(a):
    lst = [a[i] for i in range(a.size)]
    words = ["pear", "fig", "banana", "kiwi"]
    rows = [[3, 1], [0, 0, 9], [2]]
    w2 = list(words)
    w2.sort(key=len, reverse=True)
    return (sorted(lst, key=abs), sorted(words, key=len), max(words, key=len), min(lst, key=abs),
            sorted(rows, key=sum), max(rows, key=len), w2, sorted([3, 10, 2], key=str),
            sorted(["10", "9", "2"], key=int), abs(-2), len(words))


@pytest.mark.numba_skip(reason="Numba's sort keys are jitted functions only")
def test_builtin_keys(balanced):
    check(builtin_keys, np.array([4.0, -2.0, 7.0, 1.0, -1.5, 2.0]))


# ---- empty containers nothing reads ----
# `tmp = []` left over in a loop: its items are never needed, so it lowers as
# an empty container (Numba refuses these with "imprecise type", but for a
# list before a loop of lambdas, which its closure pass drops).

def unread_empty_containers(n):
    d = {}
    s = set()
    t = 0
    for i in range(n):
        tmp = []
        t += i
    return t


def unread_then_refilled(n):
    x = []
    x = [1.5]
    return x[0] * n


def unread_before_lambdas(n):
    fs = []
    s = 0
    for i in range(n):
        f = lambda y: y + i
        s += f(1)
    return s


@pytest.mark.numba_skip("Numba: imprecise type for an unread {} / set() / []")
@pytest.mark.parametrize("fn", [unread_empty_containers, unread_then_refilled])
def test_unread_empty_containers(fn, balanced):
    check(njit(fn), 7)


def test_unread_empty_list_before_lambdas(balanced):
    check(njit(unread_before_lambdas), 7)


def test_read_empty_list_still_refused():
    def f(n):
        x = []
        return len(x) + n
    with pytest.raises(hpcjit.TypingError):
        njit(f)(1)


# ---- reflected lists of floats and ints: written back item by item ----

def scale_some(l, k):
    for i in range(0, len(l), 3):
        l[i] = l[i] * k
    return len(l)


def grow(l):
    l.append(l[0])
    return len(l)


@pytest.mark.parametrize("items", [
    [0.5 * i for i in range(10)] + [-0.0, float("nan"), float("inf")],
    list(range(-5, 9)) + [2**40, -2**41],
])
def test_reflected_numbers_written_back(items, balanced):
    a, b = list(items), list(items)
    before = list(a)
    assert njit(scale_some)(a, 3) == scale_some(b, 3)
    assert [repr(x) for x in a] == [repr(x) for x in b]
    assert all(type(x) is type(y) for x, y in zip(a, b))
    # hpcjit: an item the call left as it was is still the caller's object
    # (Numba writes a changed list back whole)
    for i, (x, old) in enumerate(zip(a, before)):
        if i % 3 and not AGAINST_NUMBA:
            assert x is old


def test_reflected_numbers_signed_zero_and_growth(balanced):
    a, b = [0.0, 1.0, -0.0], [0.0, 1.0, -0.0]
    njit(scale_some)(a, -1.0)
    scale_some(b, -1.0)
    assert [repr(x) for x in a] == [repr(x) for x in b]  # -0.0: a changed item
    c, d = [1.5, 2.5], [1.5, 2.5]
    assert njit(grow)(c) == grow(d)
    assert c == d


def test_reflected_numbers_mixed_items(balanced):
    # np.float64 items (a float subclass) and an int in a list of floats take
    # the general conversion, as before
    a = [1.5, np.float64(2.5), 3.0]
    b = list(a)
    njit(scale_some)(a, 2.0)
    scale_some(b, 2.0)
    assert a == b
    with pytest.raises((OverflowError, ValueError)):  # hpcjit / Numba
        njit(scale_some)([1, 2**70], 2)
