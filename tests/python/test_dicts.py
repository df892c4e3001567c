"""Dicts in compiled code (lib/dict): displays, stores, methods, views,
iteration, comprehensions, dict arguments and returns, compared with
CPython through check(), with memstats balance."""
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


def as_dict(x):
    """A returned dict (Numba returns a typed.Dict) as a plain dict."""
    return {k: as_dict(v) for k, v in dict(x).items()} if hasattr(x, "items") else x


def check_ret(f, *args):
    got, exp = f(*args), f.py_func(*args)
    assert as_dict(got) == as_dict(exp), (got, exp)


# ---- building and reading ----

@njit
def counts(a):
    d = {}
    for x in a:
        d[x] = d.get(x, 0) + 1
    s = 0
    for k in d:
        s += k * d[k]
    return s, len(d)


@njit
def histogram(a, nbins):
    d = dict()
    for x in a:
        b = int(x * nbins)
        if b in d:
            d[b] += 1
        else:
            d[b] = 1
    out = np.zeros(nbins, np.int64)
    for k, v in d.items():
        out[k] = v
    return out


@njit
def display_mixed():
    d = {1: 2.0, 3: 4}
    d[5] = 6.5
    t = 0.0
    for k, v in d.items():
        t += k * v
    for v in d.values():
        t += v
    for k in d.keys():
        t += k
    return t, len(d), 3 in d, 4 in d, 4 not in d


@njit
def tuple_keys(n):
    d = {}
    for i in range(n):
        d[(i, i % 3)] = i * 0.5
    s = 0.0
    for k, v in d.items():
        s += k[0] * v + k[1]
    return s, d[(2, 2)], (1, 1) in d, (1, 2) in d


@njit
def float_keys(a):
    d = {}
    for x in a:
        d[x] = d.get(x, 0.0) + x
    return len(d), d[a[0]], 1 in d


@njit
def truth(n):
    d = {}
    r = 0
    if not d:
        r += 1
    d[n] = n
    if d:
        r += 10
    return r


a = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
BUILD_AND_READ_CASES = [
    pytest.param(counts, (a,), marks=pytest.mark.numba_skip("Numba cannot type d.get() on an empty dict")),
    (histogram, (np.random.default_rng(0).random(1000), 10)),
    (display_mixed, ()),
    (tuple_keys, (10,)),
    pytest.param(float_keys, (np.array([0.5, 1.0, 0.5, 2.0]),),
                 marks=pytest.mark.numba_skip("Numba cannot type d.get() on an empty dict")),
    (truth, (3,)),
]


@pytest.mark.parametrize("f, args", BUILD_AND_READ_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_build_and_read(balanced, f, args):
    check(f, *args)

# ---- methods ----

@njit
def methods(n):
    d = {}
    for i in range(n):
        d[i] = i * i
    a = d.get(2, -1) + d.get(100, -1)
    b = d.setdefault(3, 7) + d.setdefault(50, 7)
    c = d.pop(1) + d.pop(1000, -5)
    del d[0]
    k, v = d.popitem()
    e = d.copy()
    e[2] = 99
    f = dict(d)
    d.update({70: 1, 2: 3})
    return a, b, c, k, v, len(d), d[2], e[2], f[2], len(e), d == f, d != f, e == e.copy()


@njit
def get_none(k):
    d = {1: 2.5}
    x = d.get(k)
    if x is None:
        return -1.0
    return x


@njit
def clear_then_len():
    d = {1: 1, 2: 2}
    d.clear()
    d[3] = 4
    return len(d), d[3]


METHODS_CASES = [
    pytest.param(methods, (10,), marks=pytest.mark.numba_skip("Numba has no dict(d)")),
    (get_none, (1,)),
    (get_none, (2,)),
    (clear_then_len, ()),
]


@pytest.mark.parametrize("f, args", METHODS_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_methods(balanced, f, args):
    check(f, *args)

# ---- exceptions ----

@njit
def missing(k):
    d = {1: 2, 3: 4}
    return d[k]


@njit
def missing_tuple():
    d = {(1, 2): 3}
    return d[(2, 1)]


@njit
def pop_missing(k):
    d = {1: 2}
    return d.pop(k)


@njit
def del_missing(k):
    d = {1: 2}
    del d[k]
    return len(d)


@njit
def popitem_empty():
    d = {1: 2}
    d.popitem()
    return d.popitem()


@njit
def changed_size(n):
    d = {0: 0, 1: 1}
    for k in d:
        d[k + n] = k
    return len(d)


@njit
def leak_on_raise(n):
    d = {}
    for i in range(n):
        d[i] = np.ones(3)
    return d[n]


def test_exceptions(balanced):
    e = check(missing, 5)
    assert isinstance(e, KeyError) and e.args == (5,)
    assert check(missing, 3) == 4
    e = check(missing_tuple)
    assert isinstance(e, KeyError) and e.args == ((2, 1),)
    assert isinstance(check(pop_missing, 2), KeyError)
    assert isinstance(check(popitem_empty), KeyError)
    assert isinstance(check(leak_on_raise, 4), KeyError)


@pytest.mark.numba_skip("Numba does not detect a dict changing size during iteration")
def test_changed_size(balanced):
    assert isinstance(check(changed_size, 10), RuntimeError)


@pytest.mark.numba_skip("Numba raises AssertionError for del of a missing key")
def test_del_missing(balanced):
    assert isinstance(check(del_missing, 2), KeyError)
    assert check(del_missing, 1) == 0


# ---- comprehensions, nested values ----

@njit
def comprehension(n):
    d = {i: i * i for i in range(n) if i % 2}
    e = {k: v + 0.5 for k, v in d.items()}
    return len(d), d[3], e[5], sum([v for v in d.values()])


@njit
def dict_of_arrays(n):
    d = {}
    for i in range(n):
        d[i] = np.arange(i)
    s = 0
    for k in d:
        s += d[k].sum()
    return s


@njit
def dict_of_lists(words):
    d = {}
    for w in words:
        if w % 3 not in d:
            d[w % 3] = [w]
        else:
            d[w % 3].append(w)
    return len(d[0]), len(d[1]), d[2][-1]


COMPREHENSION_AND_NESTED_CASES = [
    (comprehension, (9,)),
    (dict_of_arrays, (5,)),
    (dict_of_lists, ([3, 4, 5, 6, 7, 9, 11])),
]


@pytest.mark.parametrize("f, args", COMPREHENSION_AND_NESTED_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_comprehension_and_nested(balanced, f, args):
    check(f, *args)

# ---- augmented assignment ----

@njit
def augitem(n):
    d = {0: 0, 1: 0}
    for i in range(n):
        d[i % 2] += i
    d[0] *= 2
    d[1] -= 3
    return d[0], d[1]


AUGITEM_CASES = [
    (augitem, (10,)),
]


@pytest.mark.parametrize("f, args", AUGITEM_CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_augitem(balanced, f, args):
    check(f, *args)

# ---- across the boundary ----

@njit
def ret_dict(n):
    d = {}
    for i in range(n):
        d[i] = i * 0.5
    return d


@njit
def ret_tuple_keys(n):
    return {(i, -i): i for i in range(n)}


@njit
def takes_dict(d):
    s = 0.0
    for k, v in d.items():
        s += k * v
    return s


def test_returns(balanced):
    check_ret(ret_dict, 5)
    check_ret(ret_tuple_keys, 4)


@pytest.mark.numba_skip("Numba takes no plain dict argument (only a typed.Dict)")
def test_dict_argument(balanced):
    assert check(takes_dict, {1: 2.0, 3: 4.0}) == 14.0


@njit
def update_arg(d, k):
    d[k] = d.get(k, 0) + 1
    return len(d)


@pytest.mark.numba_skip("Numba does not reflect a plain dict argument (it wants a typed.Dict)")
def test_reflected_dict(balanced):
    d = {1: 5, 2: 7}
    assert update_arg(d, 3) == 3
    assert d == {1: 5, 2: 7, 3: 1}
    assert update_arg(d, 1) == 3
    assert d[1] == 6


# ---- errors ----

@njit
def never_known():
    d = {}
    return len(d)


@njit
def unhashable(a):
    d = {}
    d[a] = 1
    return len(d)


@njit
def mixed_keys():
    d = {}
    d[1] = 1
    d[2.5] = 2
    return len(d)


@njit
def widen_value():
    d = {1: 1}
    d[2] = 2.5
    return len(d)


@pytest.mark.numba_skip("hpcjit's messages")
def test_errors():
    from hpcjit.errors import TypingError
    with pytest.raises(TypingError, match="cannot determine the type of variable 'd'"):
        never_known()
    with pytest.raises(TypingError, match="unhashable type"):
        unhashable(np.ones(2))
    with pytest.raises(TypingError, match="cannot use float64 as a key"):
        mixed_keys()
    with pytest.raises(TypingError, match="cannot store float64 into DictType"):
        widen_value()


def test_augassign_to_an_array_value_is_in_place():
    """d[k] += v with array values (Numba's typed-dict example): the array
    the dict holds changes in place, as its __iadd__ does in Python."""
    from hpcjit import typed, types

    def move(d):
        d["posx"] += d["velx"]
        d["posx"] *= 2.0
        d["velx"] -= 1

    def make():
        d = typed.Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
        d["posx"] = np.array([1.0, 0.5, 2.0])
        d["velx"] = np.array([0.5, 0.0, 0.7])
        return d

    d, want = make(), make()
    alias = d["posx"]
    njit(move)(d)
    move(want)
    for k in ("posx", "velx"):
        np.testing.assert_array_equal(d[k], want[k])
    np.testing.assert_array_equal(alias, want["posx"])  # the same array, updated


# ---- items holding lists: ordered as Python orders tuples and lists ----

@njit
def sorted_list_values():
    d = {}
    d[2] = [1, 2]
    d[1] = [3]
    d[3] = [0]
    return sorted(d.items()), sorted(d.items(), reverse=True), list(d.items())


@njit
def tuples_holding_lists():
    l = [(1, [2, 3]), (1, [2]), (0, [5]), (1, [2, 3])]
    return sorted(l), l.count((1, [2, 3])), (1, [2]) in l, l.index((1, [2])), max(l), min(l)


@njit
def nested_tuples_holding_lists():
    l = [((1, [2, 3]), 1.0), ((1, [2]), 2.0), ((0, [9]), 0.5)]
    l.sort()
    return l


@pytest.mark.numba_skip("Numba 0.68 refuses reflected lists as dict values (typed.List values only)")
def test_sorted_items_with_list_values(balanced):
    check_ret(sorted_list_values)
    check_ret(tuples_holding_lists)
    check_ret(nested_tuples_holding_lists)


@njit
def sorted_typed_items(d):
    s = 0
    for k, v in sorted(d.items()):
        s = s * 10 + k + v[0]
    return s


def test_sorted_items_with_typed_list_values(balanced):
    from hpcjit import typed, types
    if AGAINST_NUMBA:
        from numba import typed, types  # noqa: F811
    d = typed.Dict.empty(types.int64, types.ListType(types.int64))
    for k in (3, 1, 2):
        v = typed.List.empty_list(types.int64)
        v.append(k * 10)
        d[k] = v
    assert sorted_typed_items(d) == sorted_typed_items.py_func(d) == 1353
    del d, v



@njit
def chained_dict_of_lists(n):
    d = {"b": [2]}
    d.setdefault("a", [1]).append(n)
    d.setdefault("b", [5]).extend([n, n])
    d.get("b", [0]).insert(0, -n)
    return d


@njit
def chained_dict_of_sets(n):
    sets = {"x": {2}}
    sets.setdefault("y", {3}).add(n)
    return sets


@njit
def chained_list_of_lists(n):
    lists = [[1], [2, 3]]
    lists.pop().append(n)
    lists[0].append(n)
    return lists


NO_LIST_VALUES = pytest.mark.numba_skip("Numba refuses lists and sets as values of a dict display")


@pytest.mark.parametrize("f", [pytest.param(chained_dict_of_lists, marks=NO_LIST_VALUES),
                               pytest.param(chained_dict_of_sets, marks=NO_LIST_VALUES),
                               chained_list_of_lists])
@pytest.mark.parametrize("n", [0, 3])
def test_method_of_a_method_result(f, n, balanced):
    """A mutating method called on what another method returned: the inner
    call was typed twice and took its receiver twice ("setdefault() takes at
    most 2 arguments (3 given)")."""
    check_ret(f, n)


@njit
def empty_dict_of_empty_lists(n):
    d = {}
    d.setdefault("a", []).append(n)
    return d.get("b", [0])


@pytest.mark.numba_skip("hpcjit's message")
def test_untyped_empty_dict_is_named():
    """A dict whose items are never known is named in the error; it was
    reported as "the return type of recursive function" (it is not recursive)."""
    with pytest.raises(hpcjit.TypingError) as ei:
        empty_dict_of_empty_lists(1)
    text = str(ei.value)
    assert "cannot determine the type of variable 'd'" in text and "recursive" not in text, text
