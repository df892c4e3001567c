import sys, math
import numpy as np
import numba
from numba import njit, types, typed
from numba.experimental import jitclass

from _runner import case, run

spec = [("n", types.int64), ("data", types.float64[:])]
@jitclass(spec)
class Buf:
    def __init__(self, n):
        self.n = n
        self.data = np.zeros(n)
    def push(self, i, v):
        self.data[i % self.n] += v
    @property
    def total(self):
        return self.data.sum()
    @staticmethod
    def make(k):
        return k * 2

@case(4)
def jitclass_use(n):
    b = Buf(n)
    for i in range(10):
        b.push(i, 1.0)
    return b.total, b.n, Buf.make(3) if False else 6, b.data[1]

@case(5)
def typed_list_methods(n):
    l = typed.List()
    for i in range(n):
        l.append(n - i)
    l.sort()
    l.extend([10, 11])
    l.insert(0, -1)
    x = l.pop()
    l.reverse()
    return len(l), l[0], l.index(3), x, l.count(10), 4 in l

@case(5)
def dict_methods(n):
    d = {}
    for i in range(n):
        d.setdefault(i % 3, 0)
        d[i % 3] += i
    e = {7: 1}
    d.update(e)
    v = d.pop(7)
    s = 0
    for k, w in d.items():
        s += k * w
    return s, v, len(d), d.get(9, 100), list(d.keys()), list(d.values())

@case(5)
def set_methods(n):
    s = set([1, 2, 3])
    s.update([4, 5])
    s.discard(1)
    t = s.copy()
    t.remove(2)
    return len(s), len(t), s.issuperset(t), s.isdisjoint({9}), sorted(s.symmetric_difference({3, 9}))

@case(np.zeros(3, dtype=np.dtype([("x", np.float64), ("y", np.int32)])))
def records(r):
    for i in range(r.shape[0]):
        r[i].x = i * 1.5
        r["y"][i] = i
    return r["x"].sum(), r[2].y, r[1]["x"]

@case(3)
def literals_and_info(n):
    a = np.array([[1, 2], [3, 4]])
    b = np.asarray((1.0, 2.0, 3.0))
    return (a.sum(), b.dtype == np.float64, a.size, a.itemsize, a.nbytes, a.strides, a.ndim,
            np.iinfo(np.int32).max, np.finfo(np.float64).eps, np.finfo(np.float32).max, np.zeros(n, dtype=np.bool_).sum())

@case(10)
def control_misc(n):
    i = 0
    while True:
        i += 1
        if i > n: break
    for j in range(3):
        if j == 5: break
    else:
        i += 100
    assert i > 0, "positive"
    return i

CONST = (1.0, 2.0, 3.0)
ARR = np.arange(4.0)
@case(2)
def globals_use(k):
    return CONST[k] + ARR[k] + len(CONST) + ARR.sum()

@case(np.array([1.0, np.nan, np.inf]))
def nan_inf(a):
    return (math.isnan(a[1]), np.isnan(a).sum(), a[2] == np.inf, np.nanmax(a[:2]), np.nansum(a[:2]), np.nanmean(a[:2]),
            math.isinf(a[2]), np.float64(np.inf) > 1e308, np.nan != np.nan, np.nanargmax(np.array([1.0, np.nan, 3.0])))

@case(3)
def generator_fn(n):
    def countdown(m):
        while m > 0:
            yield m
            m -= 1
    return [x for x in countdown(n)], sum(countdown(n))

@case(np.arange(6.0))
def list_of_arrays(a):
    parts = [a[i:i + 2] for i in range(0, 6, 2)]
    tot = 0.0
    for p in parts:
        tot += p.sum()
    return tot, len(parts), np.concatenate(parts).shape if False else 0

@case(np.arange(9.0).reshape(3, 3))
def out_args(a):
    out = np.empty_like(a)
    np.add(a, 1.0, out)
    np.multiply(a, a, out=out)
    res = np.empty(3)
    np.sum(a, axis=0)
    return out.sum(), np.maximum(a, 4.0).sum(), np.minimum.reduce(a[0]) if False else 0, np.floor_divide(a, 2).sum()

@case(6)
def str_building(n):
    s = ""
    for i in range(n):
        s += str(i)
    parts = []
    for i in range(3):
        parts.append("p" + str(i))
    return s, ",".join(parts), len(s), s[2:4], s * 2, str(3.5), str(True), hex(255) if False else "", repr("x") if False else 0

@case(np.arange(10))
def int_stuff(a):
    return (a.sum() // 3, -7 // 2, -7 % 3, 7 // -2, 2 ** 10, 2 ** -1, abs(-5), int(3.9), int(-3.9), (a > 4).sum(), np.int32(7) // np.int32(2),
            max(a), min(3, 4), 10 / 4, 7.5 // 2, (-7.5) % 2)

@case(3)
def exc_types(n):
    c = 0
    for i in range(n):
        try:
            if i == 0:
                raise KeyError(i)
            elif i == 1:
                raise IndexError("x")
            else:
                raise ZeroDivisionError
        except (KeyError, IndexError):
            c += 1
        except Exception:
            c += 10
    return c


run()
