"""Issue 11, Python language breadth.

1. Inner functions (and ordinary jitted functions) that fill an empty
   list, dict or set of their caller: the caller learns the items from
   the callee's body (infer_call.c refine_args).
2. zip(), enumerate(), map() and filter() objects bound to a name and
   consumed once later (infer_iterbind.c).

Every compiled function is compared with CPython through check(), with
memstats balance; what stays unsupported is a located error."""
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats




def assert_located(exc, marker):
    assert_located_in(os.path.abspath(__file__), exc, marker)


# ---- 1. closures filling an empty container of the enclosing function ----

@njit
def closure_list(n):
    acc = []

    def add(x):
        acc.append(x)

    for i in range(n):
        add(i)
    return acc


@njit
def closure_list_len_sum(n):
    acc = []

    def add(x):
        acc.append(x * 0.5)

    for i in range(n):
        add(i)
    return len(acc), sum(acc)


@njit
def closure_dict(n):
    d = {}

    def put(k):
        d[k] = k * 0.5

    for i in range(n):
        put(i)
    return len(d), d[1]


@njit
def closure_set(n):
    s = set()

    def add(x):
        s.add(x % 3)

    for i in range(n):
        add(i)
    return len(s), sorted(s)


@njit
def closure_lambda(n):
    acc = []
    add = lambda x: acc.append(x * x)  # noqa: E731
    for i in range(n):
        add(i)
    return acc, sum(acc)


@njit
def closure_two_containers(a):
    seen = []
    pairs = {}

    def note(i, v):
        seen.append((i, v))
        pairs[i] = (v, v * 2.0)

    for i in range(a.shape[0]):
        note(i, a[i])
    return seen, len(pairs), pairs[0]


@njit
def closure_siblings(n):
    acc = []

    def push(x):
        acc.append(x)

    def push_twice(x):
        push(x)
        push(x * 10)

    for i in range(n):
        push_twice(i)
    return acc


@njit
def closure_reads_and_fills(n):
    acc = []

    def add_if_new(x):
        if x not in acc:
            acc.append(x)
        return len(acc)

    last = 0
    for i in range(n):
        last = add_if_new(i % 4)
    return last, acc


@njit
def alias_fills(n):
    acc = []
    b = acc  # the same list: what fills b fills acc
    for i in range(n):
        b.append(i * 2)
    return acc, b


@njit
def alias_merged(n):
    acc = []
    if n > 2:
        b = acc  # b may be acc: both hold one item type
    else:
        b = [1.5]
    b.append(2.0)
    return acc, b


@njit
def alias_closure(n):
    acc = []
    view = acc

    def add(x):
        view.append(x)

    for i in range(n):
        add(float(i))
    return acc


@pytest.mark.parametrize("f, arg", [
    (alias_fills, 4), (alias_closure, 3),
    pytest.param(alias_merged, 1, marks=pytest.mark.numba_skip("Numba: list(undefined) from a merge")),
    pytest.param(alias_merged, 3, marks=pytest.mark.numba_skip("Numba: list(undefined) from a merge")), (closure_list, 5), (closure_list, 0), (closure_list_len_sum, 6), (closure_dict, 4),
    (closure_set, 10), (closure_set, 0), (closure_lambda, 5), (closure_two_containers, np.linspace(0, 1, 4)),
    (closure_siblings, 3), (closure_reads_and_fills, 9),
])
def test_closure_fills_empty_container(balanced, f, arg):
    check(f, arg)


# ---- ordinary jitted functions given an empty container (Numba cannot:
# the callee is typed for the argument types, reflected list(undefined)) ----

@njit
def append_to(acc, x):
    acc.append(x)


@njit
def append_all(acc, n):
    for i in range(n):
        append_to(acc, i * 1.5)


@njit
def append_down(acc, n):
    if n > 0:
        append_down(acc, n - 1)  # recursion before the first append
        acc.append(n)


@njit
def store_key(d, k):
    d[k] = (k, -k)
    return d


@njit
def counting_gen(acc, n):
    for i in range(n):
        acc.append(i)
        yield i


@njit
def fill_via_function(n):
    acc = []
    for i in range(n):
        append_to(acc, i)
    return acc


@njit
def fill_two_levels(n):
    acc = []
    append_all(acc, n)
    return acc


@njit
def fill_recursive(n):
    acc = []
    append_down(acc, n)
    return acc


@njit
def fill_display_argument(n):
    d = store_key({}, n)  # an empty display passed as it is
    return len(d), d[n]


@njit
def fill_inlined_generator(n):
    acc = []
    t = 0
    for v in counting_gen(acc, n):  # the generator's body inlined into the loop
        t += v
    return t, acc


@njit
def fill_generator_object(n):
    acc = []
    g = counting_gen(acc, n)
    t = 0
    for v in g:
        t += v
    return t, acc


# the expected values in plain Python: py_func would give the dispatchers an
# empty list, whose items no compiler can know
@pytest.mark.numba_skip("Numba types a callee for the caller's list(undefined)")
def test_function_fills_empty_container(balanced):
    assert fill_via_function(4) == [0, 1, 2, 3]
    assert fill_two_levels(3) == [0.0, 1.5, 3.0]
    assert fill_recursive(4) == [1, 2, 3, 4]
    assert fill_display_argument(3) == (1, (3, -3))
    assert fill_inlined_generator(4) == (6, [0, 1, 2, 3])
    assert fill_generator_object(3) == (3, [0, 1, 2])


# ---- a container whose items are known nowhere: the located error of today ----

@njit
def never_filled(n):
    acc = []  # E:never

    def size():
        return len(acc)

    return size() + n


@njit
def length_of(c):
    return len(c)


@njit
def display_never_filled(n):
    return length_of([]) + n  # E:display


@pytest.mark.numba_skip("hpcjit's messages")
def test_items_known_nowhere_is_located():
    with pytest.raises(hpcjit.TypingError, match="cannot determine the type of variable 'acc'") as ei:
        never_filled(1)
    assert_located(ei.value, "E:never")
    with pytest.raises(hpcjit.TypingError, match="argument 'c' of length_of") as ei:
        display_never_filled(1)
    assert_located(ei.value, "E:display")


# ---- 2. zip(), enumerate(), map() and filter() bound to a name ----

def double(v):
    return v * 2


double_j = njit(double)


@njit
def zip_loop(a, b):
    z = zip(a, b)
    s = 0.0
    for x, y in z:
        s += x * y
    return s


@njit
def zip_list(a, b):
    z = zip(a, b)
    return list(z)


@njit
def zip_sorted_dict(a, b):
    z = zip(b, a)
    w = zip(a, b)
    d = dict(w)
    return sorted(z), sorted(d.items())


@njit
def map_sum(a):
    m = map(double_j, a)
    return sum(m)


@njit
def map_lambda_list(a):
    m = map(lambda v: v + 1.0, a)
    return list(m)


@njit
def enumerate_bound(a):
    e = enumerate(a, 1)
    out = 0.0
    for i, v in e:
        out += i * v
    return out


@njit
def filter_comprehension(n):
    f = filter(lambda v: v % 3 == 0, range(n))
    return [x * x for x in f]


@njit
def nested_iterators(a, b):
    z = zip(map(double_j, a), enumerate(b))
    return [x + i * y for x, (i, y) in z]


@njit
def arguments_at_binding(a, b):
    z = zip(a[1:], b + 1.0)  # evaluated here, as in Python
    a = a * 0.0
    b = b * 0.0
    return list(z), a.sum() + b.sum()


@njit
def bound_per_iteration(a, n):
    t = 0.0
    for k in range(n):
        z = zip(a, a[::-1])
        if k % 2 == 0:
            t += sum([x * y for x, y in z])
    return t


@njit
def bound_and_unused(a):
    m = map(double_j, a)  # noqa: F841
    return a.sum()


@njit
def min_max_of_bound(a, b):
    z = zip(a, b)
    e = enumerate(b)
    return min(z), max(e)


@pytest.mark.parametrize("f, args", [
    (zip_loop, (np.arange(5.0), np.arange(5.0) * 2)),
    (zip_list, (np.arange(4.0), np.arange(4))),
    (zip_list, (np.arange(0.0), np.arange(0))),
    (zip_sorted_dict, (np.array([3, 1, 2]), np.array([0.5, 2.5, 1.5]))),
    pytest.param(map_sum, (np.arange(6.0),), marks=pytest.mark.numba_skip("Numba has no sum() of a map")),
    (map_lambda_list, (np.arange(3.0),)),
    (enumerate_bound, (np.arange(4.0),)),
    (filter_comprehension, (10,)),
    (nested_iterators, (np.arange(3.0), np.arange(3.0) + 1)),
    (arguments_at_binding, (np.arange(4.0), np.arange(4.0))),
    (bound_per_iteration, (np.arange(3.0), 4)),
    (bound_and_unused, (np.arange(3.0),)),
    (min_max_of_bound, (np.array([2.0, 1.0, 3.0]), np.array([1.0, 5.0, 2.0]))),
])
def test_iterator_bound_to_name(balanced, f, args):
    check(f, *args)


# ---- zip and enumerate objects the one use cannot take: generator objects ----

@njit
def zip_used_twice(a, b):
    z = zip(a, b)
    first = list(z)
    return first, list(z)  # the second is empty, as in Python


@njit
def zip_consumed_in_loop(a, b):
    z = zip(a, b)
    s = 0
    for i in range(2):
        s += len(list(z))
    return s


@njit
def zip_operand_rebound(a, b):
    z = enumerate(a)
    a = b
    return list(z)


@njit
def takes_anything(x):
    return 1


@njit
def zip_passed_to_function(a, b):
    z = zip(a, b)
    return takes_anything(z)


@pytest.mark.parametrize("f", [zip_used_twice, zip_consumed_in_loop, zip_operand_rebound])
def test_zip_enumerate_objects_as_values(balanced, f):
    check(f, np.arange(3.0), np.arange(3.0) + 1)


@pytest.mark.numba_skip("py_func would pass a Python zip object to a compiled function")
def test_zip_object_passed_to_a_function(balanced):
    assert zip_passed_to_function(np.arange(3.0), np.arange(3.0)) == 1


# ---- map and filter objects the one use cannot take: generator objects too ----

@njit
def used_twice(a, b):
    z = map(double_j, a)
    first = list(z)
    return first, list(z)  # the second is empty, as in Python


@njit
def consumed_in_loop(a, b):
    z = map(double_j, a)
    s = 0
    for i in range(2):
        s += len(list(z))
    return s


@njit
def operand_rebound(a, b):
    z = map(double_j, a)
    a = b
    return list(z)


@njit
def next_then_loop(a, b):
    f = filter(None, a)
    first = next(f)
    s = 0.0
    for v in f:
        s += v
    return first, s


@njit
def map_of_two_next(a, b):
    m = map(lambda x, y: x * y, a, b)
    return next(m), next(m), list(m)


@njit
def add4(a, b, c, d):
    return a + b + c + d


@njit
def map_of_four(a, b):
    m = map(add4, a, b, a, b)
    return next(m), list(m)


@njit
def filter_in_zip(a, b):
    s = 0.0
    for x, y in zip(map(double_j, a), filter(None, b)):
        s += x * y
    return s


@njit
def bound_filter_and_map_zipped(a, b):
    m = map(double_j, a)
    f = filter(None, b)
    return list(zip(m, f))


@njit
def filter_then_enumerate(a, b):
    f = filter(None, b)
    return list(enumerate(f))


@njit
def next_in_while(a, b):
    m = map(double_j, a)
    i = 0
    r = 0.0
    while i < 2:
        r += next(m)
        i += 1
    return r


@pytest.mark.parametrize("f", [used_twice, consumed_in_loop, operand_rebound, next_then_loop, map_of_two_next,
                               map_of_four, filter_in_zip, bound_filter_and_map_zipped, filter_then_enumerate,
                               next_in_while])
def test_map_filter_objects_as_values(balanced, f):
    check(f, np.arange(4.0), np.arange(4.0) - 1)


@njit
def passed_to_function(a, b):
    z = filter(None, a)
    return takes_anything(z)


@njit
def returned(a):
    m = map(double_j, a)
    return m


@pytest.mark.numba_skip("py_func would pass a Python filter object to a compiled function; Numba cannot "
                        "return a map object")
def test_map_filter_objects_passed_and_returned(balanced):
    assert passed_to_function(np.arange(3.0), np.arange(3.0)) == 1
    assert list(returned(np.arange(3.0))) == [0.0, 2.0, 4.0]


# ---- what stays unsupported: located errors ----

@njit
def map_over_int(a, b):
    m = map(double_j, 5)  # U:map-int
    return next(m)


@njit
def filter_over_int(a, b):
    return list(filter(None, 5))  # U:filter-int


@pytest.mark.parametrize("f, marker", [(map_over_int, "U:map-int"), (filter_over_int, "U:filter-int")])
def test_iterator_objects_bad_uses_are_located(f, marker):
    with pytest.raises(hpcjit.TypingError) as ei:
        f(np.arange(3.0), np.arange(3.0))
    if not AGAINST_NUMBA:  # hpcjit's located message; Numba raises the same class
        assert "cannot iterate over int64" in str(ei.value)
        assert_located(ei.value, marker)


# ---- 3. closures over heap values passed as values (a key=, a function
# given to another @njit function): the environment holds references to
# the lists, arrays and strings it captured, released with it ----

@njit
def cl_apply(f, xs):
    out = []
    for x in xs:
        out.append(f(x))
    return out


@njit
def cl_key_list(idx, table):
    return sorted(idx, key=lambda i: table[i])


@njit
def cl_key_array(idx, w):
    best = max(idx, key=lambda i: w[i] * w[i])
    return best, sorted(idx, key=lambda i: -w[i])


@njit
def cl_key_str(words, prefix):
    return sorted(words, key=lambda s: (not s.startswith(prefix), len(s), s))


@njit
def cl_pass_heap(xs, w, name):
    scale = [2.0, 3.0]

    def f(x):
        return x * scale[0] + w[0] + len(name)
    r = cl_apply(f, xs)
    scale = [10.0]  # the next closure holds the new list
    return r, cl_apply(f, xs), cl_apply(lambda x: name + str(x), [1, 2])


@njit
def cl_pass_in_loop(xs, n):
    acc = []
    for i in range(n):
        row = [float(i)] * 3
        acc.append(sum(cl_apply(lambda x: x + row[0], xs)))
    return acc


@njit
def cl_raises(idx, table):
    return sorted(idx, key=lambda i: table[i])  # an index out of range raises with the env held


class _Called:
    """f, with py_func as its Python reference."""

    def __init__(self, f, py_func):
        self.f, self.py_func = f, py_func

    def __call__(self, *args):
        return self.f(*args)


@pytest.mark.numba_skip("Numba refuses closures over the enclosing function's variables as values")
def test_closures_over_heap_values(balanced):
    import types
    table = [3.0, -1.0, 2.0, 7.0]
    check(cl_key_list, [0, 1, 2, 3], table)
    check(cl_key_array, [0, 1, 2, 3], np.array(table))
    check(cl_key_str, ["xb", "a", "xa", "abc", "x"], "x")
    check(cl_raises, [0, 9], table)

    for f, args in ((cl_pass_heap, ([1.0, 2.0], np.array([0.5]), "ab")), (cl_pass_in_loop, ([1.0, 2.0], 4))):
        pf = f.py_func  # CPython cannot pass a function to a compiled one: the reference calls cl_apply's
        py = types.FunctionType(pf.__code__, dict(pf.__globals__, cl_apply=cl_apply.py_func), pf.__name__)
        check(_Called(f, py), *args)


@njit
def cl_factory_heap(xs, w, tag):
    def make_counter():
        n = 0

        def inc(x):
            nonlocal n  # a one-item list in the environment
            n += 1
            return x * n
        return inc

    def make_tagger(t):
        seen = [t]

        def f(x):
            return seen[0] + str(int(x * w[0]))
        return f
    c = make_counter()
    first = cl_apply(c, xs)
    return first, cl_apply(c, xs), cl_apply(make_tagger(tag), xs), make_tagger(tag + "!")(1.0)


@pytest.mark.numba_skip("Numba refuses nonlocal in closures and closures as values")
def test_factory_products_over_heap_values(balanced):
    import types
    pf = cl_factory_heap.py_func
    py = types.FunctionType(pf.__code__, dict(pf.__globals__, cl_apply=cl_apply.py_func), pf.__name__)
    check(_Called(cl_factory_heap, py), [1.0, 2.0, 3.0], np.array([2.0]), "ab")
