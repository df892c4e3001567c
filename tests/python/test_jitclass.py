"""hpcjit.experimental.jitclass (Numba's numba.experimental.jitclass):
classes with a spec list or annotations, __init__, methods, properties and
static methods; instances made in Python or in compiled code, passed both
ways by reference, used from Python; compared with the same code run by
CPython on the plain class, with memstats balance."""
import gc

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, typed, types
from conftest import AGAINST_NUMBA

if AGAINST_NUMBA:
    from numba.experimental import jitclass
else:
    from hpcjit.experimental import jitclass

memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    if memstats is None:
        yield
        return
    gc.collect()
    before = memstats()
    yield
    gc.collect()
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


class Buf:
    def __init__(self, n, fill=0.0):
        self.n = n
        self.data = np.full(n, fill)
        self.hits = 0

    def add(self, i, v):
        self.data[i] += v
        self.hits += 1
        return self.hits

    def scaled(self, k):
        return self.data * k

    @property
    def total(self):
        return self.data.sum()

    @staticmethod
    def twice(x):
        return 2 * x


BufJ = jitclass([("n", types.int64), ("data", types.float64[:]), ("hits", types.int64)])(Buf)


class Point:
    x: types.float64
    y: types.float64

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y

    def moved(self, dx):
        return PointJ(self.x + dx, self.y)


PointJ = jitclass(Point)


@njit
def use_buf(b, k):
    b.add(0, k)
    b.add(1, k)
    b.n = b.n + 1
    return b.total + b.n + b.hits


@njit
def make_buf(n):
    b = BufJ(n, 1.5)
    b.add(n - 1, 10.0)
    return b


@njit
def array_method(b):
    return b.scaled(2.0), b.add(0, 1.0)


@njit
def static_methods(b):
    return BufJ.twice(b.n), b.twice(3)


@njit
def points(n):
    s = 0.0
    p = PointJ(0.0, 1.0)
    for i in range(n):
        p = p.moved(1.0)
        s += p.norm2()
    return s, p


def test_python_side(balanced):
    b = BufJ(3)
    assert b.n == 3 and b.data.tolist() == [0.0, 0.0, 0.0] and b.hits == 0
    assert b.add(1, 2.5) == 1
    assert b.total == 2.5 and b.data[1] == 2.5
    b.n = 7
    assert b.n == 7
    b.data = np.ones(2)
    assert b.total == 2.0
    assert isinstance(b, BufJ) and not isinstance(Buf(1), BufJ)
    assert BufJ.twice(4) == 8 and b.twice(1.5) == 3.0
    del b


def test_passed_by_reference(balanced):
    b, ref = BufJ(3), Buf(3)
    got = use_buf(b, 2.0)
    exp = use_buf.py_func(ref, 2.0)
    assert got == exp
    assert b.n == ref.n and b.hits == ref.hits and b.data.tolist() == ref.data.tolist()


def test_made_in_compiled_code(balanced):
    b = make_buf(4)
    assert isinstance(b, BufJ)
    assert b.data.tolist() == [1.5, 1.5, 1.5, 11.5] and b.hits == 1
    assert use_buf(b, 1.0) == use_buf.py_func(make_buf.py_func(4), 1.0)


def test_array_results(balanced):
    got = array_method(BufJ(2, 1.0))
    exp = array_method.py_func(Buf(2, 1.0))
    assert got[0].tolist() == exp[0].tolist() and got[1] == exp[1]


@pytest.mark.numba_skip("Numba 0.68 does not type static methods in compiled code")
def test_static_methods_in_compiled_code(balanced):
    assert static_methods(BufJ(2)) == static_methods.py_func(Buf(2)) == (4, 6)


def test_annotations_and_instances_of_other_classes(balanced):
    s, p = points(3)
    assert s == 1.0 + 1.0 + 4.0 + 1.0 + 9.0 + 1.0
    assert isinstance(p, PointJ) and (p.x, p.y) == (3.0, 1.0)
    assert PointJ(3.0, 4.0).norm2() == 25.0


class Node:
    def __init__(self, value):
        self.value = value
        self.items = typed.List.empty_list(types.float64)

    def push(self, v):
        self.items.append(v + self.value)
        return len(self.items)


NodeJ = jitclass([("value", types.float64), ("items", types.ListType(types.float64))])(Node)


@njit
def fill_node(nd, n):
    for i in range(n):
        nd.push(i * 1.0)
    return nd.items


def test_typed_container_field(balanced):
    nd = NodeJ(0.5)
    items = fill_node(nd, 3)
    assert list(items) == [0.5, 1.5, 2.5] and list(nd.items) == [0.5, 1.5, 2.5]
    nd.push(1.0)
    assert len(items) == 4  # the same native list


@njit
def keep_array(b, a):
    b.data = a


@pytest.mark.numba_skip("hpcjit: memstats of a borrowed array adopted by an instance")
def test_argument_array_stored_in_a_field(balanced):
    b = BufJ(1)
    keep_array(b, np.arange(3.0))  # the instance holds the array's only reference afterwards
    gc.collect()
    assert b.data.tolist() == [0.0, 1.0, 2.0]


@pytest.mark.numba_skip("hpcjit's error text")
def test_errors_are_located():
    @njit
    def bad(b):
        return b.nothing

    @njit
    def bad_store(b):
        b.total = 1.0

    with pytest.raises(hpcjit.TypingError, match="has no attribute 'nothing'"):
        bad(BufJ(1))
    with pytest.raises(hpcjit.UnsupportedError, match="property 'total'"):
        bad_store(BufJ(1))


DROPIN = '''
import numpy as np
from numba import njit, float64, int64
from numba.experimental import jitclass

spec = [("value", int64), ("array", float64[:])]

@jitclass(spec)
class Bag(object):
    def __init__(self, value):
        self.value = value
        self.array = np.zeros(value, dtype=np.float32).astype(np.float64)

    @property
    def size(self):
        return self.array.size

    def increment(self, val):
        for i in range(self.size):
            self.array[i] += val
        return self.array

@njit
def work(b):
    b.increment(3.0)
    return b.array.sum()

b = Bag(4)
print(work(b), b.size, b.value, type(b).__name__)
'''


@pytest.mark.numba_skip("runs a Numba program on hpcjit's drop-in")
def test_jitclass_under_dropin():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "hpcjit.numba", "-c", DROPIN], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0] == "12.0 4 4 Bag"


def test_instances_in_a_typed_list(balanced):
    @njit
    def total(lst):
        s = 0.0
        for p in lst:
            s += p.norm2()
        return s
    lst = typed.List([PointJ(1.0, 2.0), PointJ(0.0, 3.0)])
    assert total(lst) == 14.0
    assert lst[1].y == 3.0


def test_fields_from_typing_annotations():
    """typing.List[float], Tuple[int, float], Dict[str, int] annotations
    (Numba's type-hints example): typed containers and tuples."""
    from typing import Dict, List, Tuple

    from hpcjit import typed

    @jitclass
    class Counter:
        value: int

        def __init__(self):
            self.value = 0

        def get(self) -> int:
            ret = self.value
            self.value += 1
            return ret

    @jitclass
    class Loop:
        counter: Counter
        items: List[float]
        pair: Tuple[int, float]
        names: Dict[str, int]

        def __init__(self, items: List[float]):
            self.items = items
            self.counter = Counter()
            self.pair = (1, 2.5)
            self.names = typed.Dict.empty(hpcjit.types.unicode_type, hpcjit.types.int64)
            self.names["a"] = 3

        def get(self) -> float:
            return self.items[self.counter.get() % len(self.items)]

    items = typed.List([3.14, 2.718, 0.123, -4.0])
    it = Loop(items)
    got = [it.get() for _ in range(6)]
    assert got == [items[i % 4] for i in range(6)]
    assert it.counter.value == 6 and it.pair == (1, 2.5) and it.names["a"] == 3


class Pair:
    def __init__(self, a, n):
        self.t = (a.copy(), n)
        self.u = (a + 1.0, (a * 2.0, a.copy()))

    def total(self):
        return self.t[0].sum() + self.t[1] + self.u[0].sum() + self.u[1][0].sum() + self.u[1][1].sum()


PairJ = jitclass([("t", types.Tuple((types.float64[:], types.int64))),
                  ("u", types.Tuple((types.float64[:], types.UniTuple(types.float64[:], 2))))])(Pair)


@njit
def pair_total(a, n):
    p = PairJ(a, n)
    return p.total()


@njit
def pair_make(a):
    return PairJ(a, 2)


def test_tuple_fields_holding_arrays_are_released(balanced):
    # the arrays inside tuple fields die with the instance (they leaked)
    a = np.arange(4.0)
    for _ in range(3):
        assert pair_total(a, 3) == pair_total.py_func(a, 3)
    p = pair_make(a)
    assert p.total() == Pair(a, 2).total()
    assert p.t[0].tolist() == a.tolist()
    del p
    for _ in range(3):
        q = PairJ(a, 5)
        assert q.total() == Pair(a, 5).total()
        del q
