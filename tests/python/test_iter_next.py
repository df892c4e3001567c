"""iter(x) and next(it) in compiled code (Numba 0.68's iterators): iter()
of lists, homogeneous tuples, arrays, ranges, str, dicts and their views,
sets, zip and enumerate objects; zip()/enumerate() objects used as values;
next() until StopIteration, a for loop finishing an iterator.  hpcjit's
iterators are generator objects (python/hpcjit/_pylib.py iter_).  Each
compiled function is compared with its py_func through check(), with
memstats balance; bad uses are located errors."""
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check


def first_two(x):
    it = iter(x)
    a = next(it)
    b = next(it)
    return a, b


first_two_j = njit(first_two)


@pytest.mark.parametrize("arg", [
    [1, 2, 3],
    [1.5, -2.0],
    (4, 5, 6),
    np.arange(5),
    np.arange(6.0).reshape(3, 2),
    "abc",
])
def test_first_two(arg, balanced):
    got = check(first_two_j, arg)
    if isinstance(arg, np.ndarray) and arg.ndim == 2:
        assert got[0].tolist() == [0.0, 1.0]


@njit
def of_range(n):
    it = iter(range(2, n))
    return next(it) + 10 * next(it)


@njit
def of_dict():
    d = {3: 30, 1: 10, 2: 20}
    k = iter(d)
    ks = iter(d.keys())
    vs = iter(d.values())
    its = iter(d.items())
    return next(k), next(k), next(ks), next(vs), next(vs), next(its)


@njit
def of_set():
    it = iter({7})
    return next(it)


@njit
def of_zip(a, b):
    it = zip(a, b)
    x = next(it)
    y = next(it)
    return x, y


@njit
def of_iter_zip(a, b):
    it = iter(zip(a, b))
    return next(it)


@njit
def of_enumerate(a):
    it = enumerate(a)
    e = iter(enumerate(a, 5))
    return next(it), next(it), next(e)


@njit
def iter_of_iter(a):
    it = iter(iter(a))
    next(it)
    return next(iter(it))  # the same iterator: its second item


def test_ranges_dicts_sets(balanced):
    check(of_range, 6)
    check(of_dict)
    check(of_set)


def test_zip_and_enumerate_objects(balanced):
    a, b = np.arange(4), np.arange(4.0) * 0.5
    check(of_zip, a, b)
    check(of_zip, [1, 2, 3], "xyz")
    check(of_iter_zip, a, b)
    check(of_enumerate, np.arange(3.0))
    check(iter_of_iter, [4, 5, 6])


@njit
def loop_finishes(a):
    it = iter(a)
    head = next(it)
    rest = 0
    for x in it:  # resumes after head
        rest += x
    return head, rest


@njit
def comprehension_finishes(a):
    it = iter(a)
    next(it)
    return [x * 2 for x in it]


@njit
def for_over_iter(a):
    s = 0.0
    for x in iter(a):
        s += x
    return s


@njit
def interleaved(a):
    it1 = iter(a)
    it2 = iter(a)
    next(it2)
    return next(it1), next(it2), next(it1)


def test_iterators_resume(balanced):
    check(loop_finishes, [1, 2, 3, 4])
    check(loop_finishes, np.arange(5.0))
    check(comprehension_finishes, [1, 2, 3])
    check(for_over_iter, np.arange(4.0))
    check(interleaved, (1, 2, 3))


@njit
def past_the_end(a):
    it = iter(a)
    next(it)
    next(it)
    return next(it)


def test_stop_iteration(balanced):
    with pytest.raises(StopIteration):
        past_the_end([1, 2])
    check(past_the_end, [1, 2])
    check(past_the_end, np.arange(2))
    assert past_the_end([1, 2, 3]) == 3


@njit
def caught(a):
    it = iter(a)
    n = 0
    try:
        while True:
            next(it)
            n += 1
    except StopIteration:
        return n


@njit
def with_default(a):
    it = iter(a)
    return next(it, -1), next(it, -1), next(it, -2)


@njit
def returned(a):
    return iter(a)


@pytest.mark.numba_skip("Numba 0.68 has no next(it, default), no `except StopIteration`, and cannot "
                        "return an iterator")
def test_hpcjit_extensions(balanced):
    check(caught, [1, 2, 3])
    check(with_default, [1])
    check(with_default, np.arange(3))
    assert list(returned([1, 2])) == [1, 2]


@njit
def iter_of_int(n):
    return iter(n)  # iter-int


@njit
def iter_of_mixed(t):
    return next(iter(t))  # iter-mixed


@njit
def next_of_list(a):
    return next(a)  # next-list


@njit
def iter_two_args(a):
    return iter(a, 0)  # iter-two


@njit
def zip_of_int(a, n):
    it = zip(a, n)  # zip-int
    return next(it)


@njit
def enumerate_float_start(a):
    it = enumerate(a, 1.5)  # enum-start
    return next(it)


@njit
def next_of_none():
    return next(None)  # next-none


@pytest.mark.numba_skip("hpcjit's located messages; Numba refuses these too")
@pytest.mark.parametrize("fn,args,words,marker", [
    (iter_of_int, (3,), "cannot iterate over int64", "iter-int"),
    (iter_of_mixed, ((1, 2.0),), "heterogeneous", "iter-mixed"),
    (next_of_list, ([1],), "is not an iterator", "next-list"),
    (iter_two_args, ([1],), "iter()", "iter-two"),
    (zip_of_int, ([1], 2), "cannot iterate over int64", "zip-int"),
    (enumerate_float_start, ([1],), "start must be an integer", "enum-start"),
    (next_of_none, (), "is not an iterator", "next-none"),
])
def test_bad_uses_are_located(fn, args, words, marker):
    with pytest.raises(hpcjit.errors.TypingError) as ei:
        fn(*args)
    assert words in str(ei.value)
    assert_located_in(os.path.abspath(__file__), ei.value, marker)
