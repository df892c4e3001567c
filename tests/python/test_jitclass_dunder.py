"""jitclass property setters and dunder methods (Numba 0.68's set: len,
items, binary operators with their reflected and in-place forms,
comparisons, `in`, unary operators, truth, abs/int/float/str), used from
compiled code and from Python.  Each compiled function runs on jitclass
instances and its py_func on instances of the plain class; results and
the instances' fields afterwards are compared."""
import gc

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


class Vec:
    def __init__(self, x, n):
        self.x = x
        self.n = n

    @property
    def val(self):
        return self.x

    @val.setter
    def val(self, v):
        self.x = v * 2.0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.x * i

    def __setitem__(self, i, v):
        self.x = v + i

    def __contains__(self, v):
        return 0 <= v < self.n

    def __add__(self, o):
        return self.x + o.x

    def __sub__(self, k):
        return self.x - k

    def __rsub__(self, k):
        return k - self.x

    def __mul__(self, k):
        return self.x * k

    def __truediv__(self, k):
        return self.x / k

    def __pow__(self, k):
        return self.x ** k

    def __iadd__(self, k):
        self.x += k
        return self

    def __eq__(self, o):
        return self.x == o.x

    def __lt__(self, o):
        return self.x < o.x

    def __le__(self, o):
        return self.x <= o.x

    def __neg__(self):
        return -self.x

    def __abs__(self):
        return abs(self.x)

    def __float__(self):
        return self.x

    def __int__(self):
        return self.n

    def __bool__(self):
        return self.n > 0

    def __hash__(self):
        return self.n * 31 + 7

    def __str__(self):
        return "Vec" + str(self.n)


VecJ = jitclass([("x", types.float64), ("n", types.int64)])(Vec)


class Sized:  # truth from __len__ alone
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


SizedJ = jitclass([("n", types.int64)])(Sized)


@njit
def setter(a, v):
    a.val = v
    a.val += 1.0
    return a.val, a.x


@njit
def items(a, i):
    r = a[i] + len(a)
    a[i] = 0.5
    a[2] += 1.0
    return r, a.x


@njit
def operators(a, b, k):
    return a + b, a - k, a * k, a / k, a ** 2, -a, abs(a), float(a), int(a)


@njit
def reflected(a, k):
    return k - a


@njit
def comparisons(a, b):
    return a == b, a < b, b < a, a <= b, 1 in a, 7 in a, 7 not in a


@njit
def swapped_comparisons(a, b):  # Python's fallbacks: not __eq__, the other's __lt__/__le__
    return a != b, a > b, a >= b


@njit
def truth(a, s):
    r = 0
    if a:
        r += 1
    if not s:
        r += 10
    while s:
        r += 100
        break
    return r, bool(a)


@njit
def hash_str(a):
    return hash(a), str(a)


def test_hash_and_str(balanced):
    same(hash_str, (1.0, 3))


@njit
def inplace(a, k):
    a += k
    a += k
    return a.x


def fresh(cls, args):
    return [cls(*a) if isinstance(a, tuple) else a for a in args]


def same(f, *args):
    """f on jitclass instances (tuples of constructor arguments in args
    become instances) and f.py_func on plain ones: same result and the
    same fields afterwards."""
    ja, pa = fresh(VecJ, args), fresh(Vec, args)
    got, exp = f(*ja), f.py_func(*pa)
    assert got == exp, (got, exp)
    for j, p in zip(ja, pa):
        if isinstance(p, Vec):
            assert (j.x, j.n) == (p.x, p.n)
    return got


def test_property_setter(balanced):
    same(setter, (1.0, 3), 5.0)
    v = VecJ(1.0, 2)
    v.val = 4.0  # the setter from Python
    assert v.x == 8.0 and v.val == 8.0


def test_items_and_len(balanced):
    same(items, (1.5, 3), 2)
    same(items, (-2.0, 0), 4)


def test_binary_and_unary_operators(balanced):
    same(operators, (1.5, 3), (2.0, 1), 4.0)
    same(operators, (-3.0, 2), (0.5, 7), -2.0)


def test_comparisons_and_contains(balanced):
    for f in (comparisons, swapped_comparisons):
        if f is swapped_comparisons and AGAINST_NUMBA:
            continue  # Numba 0.68 recurses without end typing these
        same(f, (1.0, 3), (2.0, 8))
        same(f, (2.0, 8), (2.0, 3))
        same(f, (3.0, 0), (1.0, 1))


@pytest.mark.numba_skip("Numba 0.68 has no reflected operators with a number on the left")
def test_reflected(balanced):
    same(reflected, (1.5, 3), 4.0)


def test_truth(balanced):
    for n, m in ((3, 0), (0, 2)):
        ja, js = VecJ(1.0, n), SizedJ(m)
        assert truth(ja, js) == truth.py_func(Vec(1.0, n), Sized(m))


def test_inplace(balanced):
    same(inplace, (1.0, 3), 2.5)


def test_from_python(balanced):
    a, b = VecJ(1.5, 3), VecJ(2.0, 4)
    pa, pb = Vec(1.5, 3), Vec(2.0, 4)
    assert len(a) == len(pa) and a[2] == pa[2] and (2 in a) == (2 in pa)
    assert a + b == pa + pb and (a < b) == (pa < pb) and (a == b) == (pa == pb)
    assert -a == -pa and abs(a) == abs(pa) and float(a) == float(pa) and int(a) == int(pa)
    a[1] = 3.0
    pa[1] = 3.0
    assert a.x == pa.x


@njit
def no_method(a):
    return a * a.n, a % 2


@njit
def not_iterable(a):
    s = 0.0
    for v in a:
        s += v
    return s


@pytest.mark.numba_skip("hpcjit's messages")
def test_missing_methods_are_located():
    with pytest.raises(hpcjit.TypingError, match="no __mod__ method") as ei:
        no_method(VecJ(1.0, 2))
    assert "test_jitclass_dunder.py" in str(ei.value) and "a % 2" in str(ei.value)
    with pytest.raises(hpcjit.TypingError, match="iterate"):
        not_iterable(VecJ(1.0, 2))
    with pytest.raises(hpcjit.UnsupportedError, match="__iter__"):
        @jitclass([("n", types.int64)])
        class It:
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return self


class Holder:
    def __init__(self, v, w):
        self.inner = v
        self.other = w

    def total(self):
        return self.inner + self.other + len(self.inner)


def test_instances_as_fields(balanced):
    HolderJ = jitclass([("inner", VecJ.class_type.instance_type),
                        ("other", VecJ.class_type.instance_type)])(Holder)

    @njit
    def use(h):
        h.inner.x = 10.0
        h.inner[1] = 2.0
        return h.total(), h.inner.x

    h = HolderJ(VecJ(1.0, 3), VecJ(2.0, 1))
    p = Holder(Vec(1.0, 3), Vec(2.0, 1))
    assert use(h) == use.py_func(p)
    assert h.inner.x == p.inner.x


@njit
def in_containers(a, b):
    lst = [a, b]
    d = {1: a, 2: b}
    s = 0.0
    for v in lst:
        s += v * 2.0
    return s + d[2].x + len(d[1]) + (lst[0] + lst[1])


def test_instances_in_containers(balanced):
    same(in_containers, (1.0, 3), (2.5, 4))
    tl = typed.List.empty_list(VecJ.class_type.instance_type)
    tl.append(VecJ(1.0, 2))
    assert len(tl) == 1 and tl[0].x == 1.0
