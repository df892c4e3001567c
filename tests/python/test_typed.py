"""hpcjit.typed.List and hpcjit.typed.Dict (Numba's typed containers):
made in Python or in compiled code, passed both ways by reference (the
compiled code and Python share one native container), compared with the
same functions run by CPython (py_func), with memstats balance."""
import gc

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, typed, types
from conftest import AGAINST_NUMBA

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed."""
    if memstats is None:
        yield
        return
    gc.collect()
    before = memstats()
    yield
    gc.collect()
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


def plain(x):
    """A typed container (and what it holds) as plain Python lists/dicts."""
    if isinstance(x, typed.Dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, typed.List):
        return [plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, tuple):
        return tuple(plain(v) for v in x)
    return x


def both(f, make):
    """Run f on fresh arguments from make() compiled and by CPython; the
    results and the (mutated) arguments must agree."""
    args_c, args_p = make(), make()
    got, exp = f(*args_c), f.py_func(*args_p)
    assert plain(got) == plain(exp), (got, exp)
    assert [plain(a) for a in args_c] == [plain(a) for a in args_p]
    return got


# ---- typed.List -----------------------------------------------------------

@njit
def list_sum_append(lst):
    s = 0
    for x in lst:
        s += x
    lst.append(s)
    lst[0] = -lst[0]
    return s, len(lst), lst[-1]


@njit
def list_make(n):
    lst = typed.List()
    for i in range(n):
        lst.append(i * 0.5)
    lst.insert(0, 9.0)
    lst.pop()
    return lst


@njit
def list_empty(n):
    lst = typed.List.empty_list(types.int64)
    for i in range(n):
        lst.append(i * i)
    return lst


@njit
def list_from_iterable(a):
    lst = typed.List(a)
    lst.extend(a)
    return lst


@njit
def list_ops(lst):
    lst.append(5)
    lst.insert(1, 7)
    x = lst.pop(0)
    lst.reverse()
    c = lst.count(5)
    i = lst.index(7)
    lst.remove(7)
    return x, c, i, 5 in lst, len(lst)


@njit
def list_of_arrays(lst):
    t = 0.0
    for a in lst:
        t += a.sum()
    lst.append(np.ones(2))
    return t


@njit
def list_of_tuples(n):
    lst = typed.List()
    for i in range(n):
        lst.append((i, i * 1.5))
    return lst


def test_list_python_api(balanced):
    lst = typed.List()
    assert len(lst) == 0 and str(lst) == "[]"
    lst.append(1)
    lst.extend([2, 3, 4])
    lst.insert(0, 10)
    assert list(lst) == [10, 1, 2, 3, 4]
    assert lst[0] == 10 and lst[-1] == 4 and len(lst) == 5
    lst[1] = 11
    assert lst.pop() == 4 and lst.pop(0) == 10
    assert list(lst) == [11, 2, 3]
    assert list(lst[1:]) == [2, 3] and 3 in lst and 5 not in lst
    assert str(lst) == "[11, 2, 3]"
    assert repr(lst) == "ListType[int64]([11, 2, 3])"
    assert lst == typed.List([11, 2, 3]) and lst != typed.List([11, 2])
    with pytest.raises(IndexError):
        lst[3]
    del lst[0]
    assert list(lst) == [2, 3]
    assert [x * 2 for x in lst] == [4, 6]
    e = typed.List.empty_list(types.float64)
    e.append(1)
    assert list(e) == [1.0] and isinstance(e[0], float)


def test_list_python_type_errors():
    lst = typed.List([1, 2])
    with pytest.raises((TypeError, hpcjit.TypingError)):
        lst.append("a")
    with pytest.raises((TypeError, hpcjit.TypingError)):
        lst.append(1.5)  # a float into an int64 list
    assert list(lst) == [1, 2]


def test_list_shared_with_compiled_code(balanced):
    got = both(list_sum_append, lambda: (typed.List([1, 2, 3]),))
    assert got == (6, 4, 6)
    lst = typed.List([4, 5])
    list_sum_append(lst)
    assert list(lst) == [-4, 5, 9]  # the caller's own list changed, nothing copied back


def test_list_made_in_compiled_code(balanced):
    r = both(list_make, lambda: (5,))
    assert isinstance(r, typed.List) and list(r) == [9.0, 0.0, 0.5, 1.0, 1.5]
    r.append(2.0)  # a returned typed.List is a typed.List
    assert list_sum_append(r)[0] == 14.0
    r = both(list_empty, lambda: (4,))
    assert list(r) == [0, 1, 4, 9]


def test_list_from_iterable(balanced):
    both(list_from_iterable, lambda: (np.arange(4.0),))


def test_list_methods(balanced):
    both(list_ops, lambda: (typed.List([1, 2, 3]),))


def test_list_of_arrays(balanced):
    a = np.arange(3.0)
    both(list_of_arrays, lambda: (typed.List([a, a * 2]),))
    lst = typed.List([a])
    list_of_arrays(lst)
    a[0] = 100.0  # the item shares the ndarray's data, as in Numba
    assert lst[0][0] == 100.0 and len(lst) == 2


def test_list_of_tuples(balanced):
    r = both(list_of_tuples, lambda: (3,))
    assert r[2] == (2, 3.0)


@njit
def keep_arg_array(lst, a):
    lst.append(a)


@pytest.mark.numba_skip("hpcjit: memstats of a borrowed array adopted by the list")
def test_list_keeps_argument_array(balanced):
    lst = typed.List.empty_list(types.float64[::1])
    keep_arg_array(lst, np.arange(3.0))  # the array's only reference is the list's now
    gc.collect()
    assert lst[0].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.numba_skip("hpcjit's typecodes")
def test_list_typeof_and_signature():
    lst = typed.List([1.5])
    assert hpcjit.typeof(lst) == types.ListType(types.float64)
    assert str(hpcjit.typeof(lst)) == "ListType[float64]"

    @njit(types.float64(types.ListType(types.float64)))
    def first(l):
        return l[0]
    assert first(lst) == 1.5


def test_empty_untyped_list_argument_is_refused():
    with pytest.raises((TypeError, ValueError, hpcjit.TypingError)):
        list_sum_append(typed.List())


# ---- typed.Dict -----------------------------------------------------------

@njit
def dict_fill(d, n):
    for i in range(n):
        d[i] = i * 0.5
    t = 0.0
    for k, v in d.items():
        t += k * v
    return t, len(d), 3 in d


@njit
def dict_make(n):
    d = typed.Dict.empty(key_type=types.int64, value_type=types.float64)
    for i in range(n):
        d[i * 2] = i + 0.25
    del d[0]
    return d


@njit
def dict_untyped(n):
    d = typed.Dict()
    for i in range(n):
        d[i] = i * i
    return d


@njit
def dict_methods(d):
    a = d.get(1, -1.0)
    b = d.pop(2)
    c = d.setdefault(7, 3.5)
    s = 0.0
    for v in d.values():
        s += v
    for k in d.keys():
        s += k
    d.update({100: 1.0})
    return a, b, c, s, len(d)


tuple_key = types.UniTuple(types.int64, 2)


@njit
def dict_tuple_keys_global(n):
    d = typed.Dict.empty(tuple_key, types.float64)
    for i in range(n):
        d[(i, i + 1)] = i * 1.5
    return d


float_array = types.float64[:]


@njit
def dict_of_arrays(n):
    d = typed.Dict.empty(types.int64, float_array)
    for i in range(n):
        d[i] = np.full(i + 1, 1.0 * i)
    return d


def test_dict_python_api(balanced):
    d = typed.Dict.empty(types.int64, types.float64)
    d[1] = 2.0
    d[3] = 4
    assert len(d) == 2 and d[3] == 4.0 and isinstance(d[3], float)
    assert 1 in d and 2 not in d
    assert list(d.keys()) == [1, 3] and list(d.values()) == [2.0, 4.0]
    assert list(d.items()) == [(1, 2.0), (3, 4.0)]
    assert d.get(5) is None and d.get(5, 1.0) == 1.0
    assert d.pop(1) == 2.0 and d.setdefault(9, 0.5) == 0.5
    d.update({10: 1.0})
    assert dict(d) == {3: 4.0, 9: 0.5, 10: 1.0}
    del d[9]
    with pytest.raises(KeyError):
        d[9]
    with pytest.raises(KeyError):
        del d[9]
    c = d.copy()
    c[3] = 0.0
    assert d[3] == 4.0 and c[3] == 0.0 and len(c) == 2
    assert str(d) == "{3: 4.0, 10: 1.0}"
    e = typed.Dict()
    e[1] = 2
    assert dict(e) == {1: 2} and d != e


def test_dict_shared_with_compiled_code(balanced):
    both(dict_fill, lambda: (typed.Dict.empty(types.int64, types.float64), 5))
    d = typed.Dict.empty(types.int64, types.float64)
    dict_fill(d, 3)
    assert dict(d) == {0: 0.0, 1: 0.5, 2: 1.0}


def test_dict_made_in_compiled_code(balanced):
    r = both(dict_make, lambda: (4,))
    assert isinstance(r, typed.Dict) and dict(r) == {2: 1.25, 4: 2.25, 6: 3.25}
    r[8] = 0.5
    assert dict_fill(r, 0)[1] == 4
    both(dict_untyped, lambda: (4,))


def test_dict_methods(balanced):
    def make():
        d = typed.Dict.empty(types.int64, types.float64)
        for i in range(5):
            d[i] = i * 2.0
        return (d,)
    both(dict_methods, make)


def test_dict_tuple_keys(balanced):
    r = both(dict_tuple_keys_global, lambda: (3,))
    assert r[(1, 2)] == 1.5 and (5, 6) not in r
    r[(7, 8)] = 1.0  # a tuple key from Python into a dict compiled code made
    assert r[(7, 8)] == 1.0 and len(r) == 4


def test_dict_of_arrays(balanced):
    r = both(dict_of_arrays, lambda: (3,))
    assert r[2].tolist() == [2.0, 2.0, 2.0]


@pytest.mark.numba_skip("hpcjit's typecodes")
def test_dict_typeof():
    d = typed.Dict.empty(types.int64, types.float64)
    assert hpcjit.typeof(d) == types.DictType(types.int64, types.float64)

    @njit(types.float64(types.DictType(types.int64, types.float64)))
    def get1(d):
        return d[1]
    d[1] = 2.5
    assert get1(d) == 2.5


def test_dict_wrong_key_type_in_compiled_code():
    @njit
    def put(d):
        d[1.5] = 1.0
    with pytest.raises(hpcjit.TypingError):
        put(typed.Dict.empty(types.int64, types.float64))


DROPIN = '''
import numpy as np
from numba import njit, typed, types
from numba.typed import List, Dict

@njit
def build(n):
    d = Dict.empty(key_type=types.int64, value_type=types.float64)
    l = List()
    for i in range(n):
        d[i] = i * 0.5
        l.append(i)
    return d, l

@njit
def total(d, l):
    t = 0.0
    for k in l:
        t += d[k]
    return t

d, l = build(4)
assert isinstance(d, Dict) and isinstance(l, typed.List), (type(d), type(l))
l.append(3)
print(total(d, l), dict(d), list(l))
'''


@pytest.mark.numba_skip("runs a Numba program on hpcjit's drop-in")
def test_typed_under_dropin():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "hpcjit.numba", "-c", DROPIN], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0] == "4.5 {0: 0.0, 1: 0.5, 2: 1.0, 3: 1.5} [0, 1, 2, 3, 3]"


arr_t = types.float64[::1]
inner_t = types.ListType(arr_t)


@njit
def nested_put(outer, a):
    outer[0].append(a)
    fresh = typed.List.empty_list(arr_t)
    fresh.append(a * 2.0)
    outer.append(fresh)
    return len(outer)


@pytest.mark.numba_skip("hpcjit: memstats of borrowed arrays adopted by nested lists")
def test_nested_typed_lists_keep_argument_arrays(balanced):
    outer = typed.List.empty_list(inner_t)
    outer.append(typed.List.empty_list(arr_t))
    assert nested_put(outer, np.arange(3.0)) == 2  # the argument array dies after the call
    gc.collect()
    assert [plain(x) for x in outer] == [[[0.0, 1.0, 2.0]], [[0.0, 2.0, 4.0]]]


def test_nested_typed_lists(balanced):
    def make():
        outer = typed.List.empty_list(inner_t)
        outer.append(typed.List.empty_list(arr_t))
        return outer, np.arange(3.0)
    both(nested_put, make)


@njit
def dict_array_values(d, a):
    d[2] = a
    return d[1].sum()


def test_dict_of_arrays_from_python(balanced):
    def make():
        d = typed.Dict()
        d[1] = np.ones(2)
        return d, np.zeros(3)
    both(dict_array_values, make)


def test_empty_typed_list_argument_message():
    with pytest.raises((TypeError, ValueError, hpcjit.TypingError)) as info:
        list_sum_append(typed.List())
    if not AGAINST_NUMBA:
        assert "empty typed.List" in str(info.value)


@njit
def str_containers(words):
    lst = typed.List()
    d = typed.Dict.empty(types.unicode_type, types.int64)
    for w in words:
        lst.append(w + "!")
        d[w] = d.get(w, 0) + 1
    return lst, d


def test_str_items_made_in_compiled_code(balanced):
    lst, d = both(str_containers, lambda: (["a", "bb", "a"],))
    assert isinstance(lst, typed.List) and list(lst) == ["a!", "bb!", "a!"]
    lst.append("c")
    d["zz"] = 7
    assert "c" in lst and d["a"] == 2 and d["zz"] == 7 and "q" not in d
    del d["zz"]
    assert dict(d) == {"a": 2, "bb": 1}


def test_str_of_items_is_numba_s():
    # Numba prints items with str(): keys and str items unquoted, arrays as NumPy's str
    d = typed.Dict()
    d["a"] = np.arange(3.0)
    d["b"] = np.arange(2.0)
    assert str(d) == "{a: [0. 1. 2.], b: [0. 1.]}"
    assert repr(d) == "DictType[unicode_type,array(float64, 1d, C)]<iv=None>({a: [0. 1. 2.], b: [0. 1.]})"
    nested = typed.List([typed.List([1, 2])])
    assert str(nested) == "[[1, 2]]"
    assert repr(nested) == "ListType[ListType[int64]]([[1, 2]])"
    assert str(typed.List(["x", "y"])) == "[x, y]"


# ---- array types spelled inside compiled code ------------------------------------
# types.float64[:] written in the function (not a global): the same array
# type the expression gives in Python, C/F/A layout from '::1'.

@njit
def containers_of_array_types(n):
    d = typed.Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
    d["a"] = np.arange(n * 1.0)
    rows = typed.List.empty_list(types.int64[:, ::1])
    rows.append(np.arange(4 * n).reshape(2, 2 * n))
    cols = typed.List.empty_list(types.float64[::1, :])
    cols.append(np.asfortranarray(np.ones((n, 2))))
    anyl = typed.List.empty_list(types.float32[:, :])
    anyl.append(np.zeros((2, 3), dtype=np.float32)[:, ::2])
    return d["a"].sum(), rows[0].sum(), cols[0].sum(), anyl[0].shape[1], len(d) + len(rows)


def test_array_types_spelled_in_compiled_code(balanced):
    assert containers_of_array_types(3) == containers_of_array_types.py_func(3)


@pytest.mark.numba_skip("hpcjit's message")
@pytest.mark.parametrize("spelling, message", [
    ("types.float64[1:]", "can only index a type with ':' or '::1'"),
    ("types.float64[:, ::1, :]", "'::1' must be on the first or the last axis"),
    ("types.float64[::1, ::1]", "'::1' may be given on one axis only"),
])
def test_bad_array_type_spelling_is_located(spelling, message):
    ns = {"njit": njit, "typed": typed, "types": types}
    exec(f"def bad():\n    return len(typed.List.empty_list({spelling}))\n", ns)
    with pytest.raises(hpcjit.errors.TypingError, match=message):
        njit(ns["bad"])()


# ---- List(list) / extend(list or tuple): one loop in C ----

def test_list_from_python_sequences():
    TL = typed.List
    floats = [0.5 * i for i in range(1000)] + [float("nan"), -0.0]
    l = TL(floats)
    assert len(l) == len(floats)
    assert [repr(x) for x in l] == [repr(x) for x in floats]
    l.extend((1.0, 2.0))
    assert list(l)[-2:] == [1.0, 2.0] and type(list(l)[-1]) is float
    ints = TL(list(range(-3, 5)))
    ints.extend([])
    ints.extend([5, 6])
    assert list(ints) == list(range(-3, 7))
    arrs = TL([np.arange(3.0), np.ones(3)])
    assert [a.sum() for a in arrs] == [3.0, 3.0]


@pytest.mark.numba_skip("Numba's typed List extends in compiled code: no generators")
def test_list_extend_keeps_what_came_before_an_error():
    TL = typed.List

    def gen():
        yield 1.5
        yield 2.5
        raise RuntimeError("stop")

    l = TL([0.5])
    with pytest.raises(RuntimeError):
        l.extend(gen())
    assert list(l) == [0.5, 1.5, 2.5]  # as Python's list.extend
    with pytest.raises(TypeError):
        l.extend([3.5, "x"])
    assert list(l) == [0.5, 1.5, 2.5, 3.5]
