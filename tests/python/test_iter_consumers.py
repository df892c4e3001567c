"""list(), dict(), set(), sorted(), sum(), min() and max() of the
iterables a for loop takes but that are not containers: zip(),
enumerate(), map() and filter() calls, dicts, sets and dict views; and
dict() of (key, value) pairs.  Each compiled function is compared with
CPython through check(), with memstats balance (str items hold
references)."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, check

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats




def numba_lacks(*values, why):
    return pytest.param(*values, marks=pytest.mark.numba_skip(why))


def as_plain(x):
    """A returned typed.Dict (or Numba's) as a plain dict."""
    return dict(x) if hasattr(x, "items") and not isinstance(x, dict) else x


# ---- zip, enumerate, map, filter as values of a consumer ----

@njit
def dict_of_zip(a, b):
    d = dict(zip(a, b))
    return len(d), d[a[1]]


@njit
def list_of_zip(a, b):
    z = list(zip(a, b))
    return len(z), z[2][0], z[2][1]


@njit
def list_of_enumerate(a):
    e = list(enumerate(a))
    return e[3][0], e[3][1], len(e)


@njit
def list_of_map(n):
    return list(map(lambda x: x * 2, range(n)))


@njit
def list_of_filter(n):
    return list(filter(lambda x: x % 3 == 0, range(n)))


@njit
def sorted_zip(a, b):
    return sorted(zip(b, a))[0][1]


@njit
def set_of_map(n):
    return len(set(map(lambda x: x % 4, range(n))))


@njit
def sum_max_map(a):
    return sum(map(abs, a)), max(map(lambda x: x * x, a)), min(filter(lambda x: x > 0, a))


@njit
def dict_of_enumerate(a):
    d = dict(enumerate(a))
    return d[2]


@njit
def map_of_two(a, b):
    return list(map(lambda x, y: x * y, a, b))


@pytest.mark.parametrize("f, args", [
    (dict_of_zip, (np.arange(5), np.arange(5) * 0.5)),
    (list_of_zip, (np.arange(5), np.arange(5.0))),
    (list_of_enumerate, (np.arange(6.0),)),
    (list_of_map, (7,)),
    (list_of_filter, (10,)),
    (sorted_zip, (np.arange(5), np.array([3.0, 1.0, 4.0, 1.5, 5.0]))),
    (set_of_map, (11,)),
    numba_lacks(sum_max_map, (np.array([-3.0, 1.0, 2.5, -0.5]),), why="Numba's sum/max/min take no map()"),
    (dict_of_enumerate, (np.arange(4.0),)),
    (map_of_two, (np.arange(4.0), np.arange(4.0) + 1)),
])
def test_iterator_calls_consumed(balanced, f, args):
    check(f, *args)


# ---- dicts, sets and views as iterables ----

@njit
def dict_views(n):
    d = {i: i * i for i in range(n)}
    return (list(d), sorted(d, reverse=True), list(d.keys()), sorted(d.values()), list(d.items()),
            sum(d.values()), max(d), min(d.values()), sum(d), sorted(set(d.values())))


@njit
def set_consumers(n):
    s = {i % 5 for i in range(n)}
    return sorted(s), sum(s), max(s), min(s), len(list(s))


@njit
def str_items(n):
    d = {str(i): str(i + 1) for i in range(n)}
    total = 0
    for k, v in d.items():  # the pair owns its str key: freed once
        total += len(k) + len(v)
    keys = sorted(d)
    vals = list(d.values())
    pairs = list(d.items())
    s = set(d.keys())
    return total, keys[-1], vals[0], pairs[1][0], len(s), max(d), min(d.values())


@pytest.mark.parametrize("f, n", [
    numba_lacks(dict_views, 6, why="Numba's sorted/sum/max take no dict views"),
    numba_lacks(dict_views, 0, why="Numba's sorted/sum/max take no dict views"),
    numba_lacks(set_consumers, 12, why="Numba's sorted/sum/max take no sets"),
    (str_items, 12)])
def test_containers_as_iterables(balanced, f, n):
    if n == 0 and f is dict_views:
        check(f, 0)  # max() of an empty dict: ValueError in both
    else:
        check(f, n)


# ---- dict(pairs) ----

@njit
def dict_of_pairs(n):
    pairs = [(i, 0.5 * i) for i in range(n)]
    d = dict(pairs)
    t = dict(((1, 2), (3, 4)))
    e = dict(d.items())
    return len(d), d[n - 1], t[3], len(e)


@njit
def dict_of_str_pairs(n):
    pairs = [(str(i), i) for i in range(n)]
    d = dict(pairs)
    return d["3"], len(d)


@njit
def dict_of_later_pairs(n):
    pairs = []
    for i in range(n):
        pairs.append((i, str(i)))
    return dict(pairs)


def test_dict_of_pairs(balanced):
    check(dict_of_pairs, 6)
    check(dict_of_str_pairs, 7)
    got = dict_of_later_pairs(4)
    assert as_plain(got) == dict_of_later_pairs.py_func(4)


@njit
def set_of_str_list(n):
    words = [str(i % 7) for i in range(n)]
    return len(set(words))


def test_set_of_a_list_of_str_releases_its_reads(balanced):
    # each str read from the list was a new reference that set() kept
    for _ in range(3):
        check(set_of_str_list, 50)


def test_dict_of_non_pairs_is_located():
    @njit
    def f(n):
        return dict([1, 2, 3])

    with pytest.raises(hpcjit.TypingError if not AGAINST_NUMBA else Exception) as ei:
        f(1)
    if not AGAINST_NUMBA:
        assert "(key, value) pairs" in str(ei.value)
        assert "test_iter_consumers.py" in str(ei.value)


@njit
def tuple_then_raise(n):
    # list(range(n)) is made before max() of the empty list raises
    return (list(range(n)), str(n), max([x for x in range(n)]))


@pytest.mark.numba_skip("Numba's max() of an empty list raises StopIteration, not ValueError")
def test_tuple_elements_released_when_a_later_one_raises(balanced):
    for _ in range(3):
        assert isinstance(check(tuple_then_raise, 0), ValueError)
    check(tuple_then_raise, 3)


@njit
def min_max_of_tuples(n):
    t = (3, n, 2)
    return min(t), max((1.5, 2.5, -1.0)), max(t)


def test_min_max_of_a_tuple(balanced):
    check(min_max_of_tuples, 5)
    check(min_max_of_tuples, -5)


# ---- reversed() as a value; str.join of a generator ----

@njit
def reversed_values(s, l, a):
    g = reversed(l)
    first = next(g)
    return (" ".join(reversed(s.split())), list(reversed(l)), sum(reversed(range(5))), "".join(reversed(s)),
            first, list(g), max(reversed(l)), sorted(reversed((3, 1, 2))), list(reversed(a)))


@njit
def join_generators(s):
    return (" ".join(w.upper() for w in s.split()), ",".join(str(i) for i in range(4)),
            "-".join(w for w in s.split() if len(w) > 1), "".join(c for c in ""))


@pytest.mark.numba_skip(reason="Numba has no reversed()")
def test_reversed_as_value():
    check(reversed_values, "a bb ccc", [1, 2, 3], np.arange(3.0))
    check(reversed_values, "x", [5], np.zeros(0))


@pytest.mark.numba_skip(reason="Numba's str.join takes no generator")
def test_join_generator():
    check(join_generators, "a bb ccc")
    check(join_generators, "")
