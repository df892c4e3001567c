import sys, math, heapq, operator, collections
import numpy as np
import numba
from numba import njit, types, typed, prange, literal_unroll
from numba.typed import List, Dict

from _runner import case, run

@case(5)
def heap_ops(n):
    h = [0.0]; h.pop()
    for i in range(n): heapq.heappush(h, float((i * 7) % 5))
    out = []
    while h: out.append(heapq.heappop(h))
    return out

@case([5, 3, 9, 1])
def heapify_nlargest(l):
    heapq.heapify(l)
    return heapq.nsmallest(2, l), heapq.nlargest(2, l)

@case(12, 18)
def math_funcs(a, b):
    return math.gcd(a, b), math.isqrt(a * b), math.comb(a, 3), math.perm(a, 2), math.factorial(6)

@case("a,b,,c")
def str_split_join(s):
    parts = s.split(",")
    return "-".join(parts), len(parts), s.upper(), s.replace(",", ";"), s.find("b"), s.count(",")

@case(3.5, 7)
def fstring(x, n):
    return f"x={x} n={n}"

@case(np.arange(10.0))
def sorted_key(a):
    l = [(a[i] * ((-1) ** i), i) for i in range(len(a))]
    l2 = sorted(l, key=lambda t: t[0])
    return l2[0][1], l2[-1][1], min(l, key=lambda t: abs(t[0]))[1]

@case(np.array([3, 1, 2, 3, 1]))
def unique_counts(a):
    return np.unique(a)

@case(np.array([0.5, 1.5, 2.5, 3.5]))
def digitize_interp(a):
    bins = np.array([0.0, 1.0, 2.0, 3.0])
    return np.digitize(a, bins), np.interp(a, bins, bins * 2.0)

@case(np.array([1, 2, 2, 5]))
def bincount_w(a):
    return np.bincount(a, weights=a * 0.5, minlength=7)

@case(4)
def namedtuple_use(n):
    P = Point(n, 2.0)
    return P.x + P.y, P._replace(x=1) if False else P.x

Point = collections.namedtuple("Point", ["x", "y"])

@case(np.arange(6.0).reshape(2, 3))
def nditer_ndindex(a):
    s = 0.0
    for idx in np.ndindex(a.shape):
        s += a[idx] * idx[0]
    for x in np.nditer(a):
        s += x.item()
    return s

@case(np.arange(5))
def to_fixed(a):
    from numba.np.unsafe.ndarray import to_fixed_tuple
    return to_fixed_tuple(a, 5)

@case(3)
def dict_of_lists(n):
    d = Dict.empty(key_type=types.unicode_type, value_type=types.float64[:])
    for i in range(n):
        d[str(i)] = np.full(2, float(i))
    return d["2"].sum(), len(d)

@case(5)
def typed_list_of_lists(n):
    l = List()
    for i in range(n):
        inner = List()
        for j in range(i):
            inner.append(j)
        l.append(inner)
    return sum([len(x) for x in l])

@case("12", "3.5")
def str_to_num(a, b):
    return int(a) + 1, float(b) * 2, str(42) + "x", a.isdigit(), a.zfill(5), a.rjust(4, "*")

@case(np.random.rand(4, 4) + 4 * np.eye(4))
def linalg_bits(A):
    w, v = np.linalg.eigh(A + A.T)
    q, r = np.linalg.qr(A)
    return np.linalg.solve(A, np.ones(4)).sum(), w.sum(), np.abs(r).sum(), np.linalg.det(A), np.linalg.norm(A, 2)

@case(np.arange(10.0))
def misc_np(a):
    return (np.clip(a, 2, 5).sum(), np.round(a / 3, 2).sum(), np.nan_to_num(np.log(a)).sum(), np.searchsorted(a, 3.5),
            np.argsort(a[::-1], kind="mergesort")[0], np.cumprod(a[1:4])[-1], np.diff(a, 2).sum(), np.roll(a, 3)[0],
            np.where(a > 3)[0][0], np.count_nonzero(a), np.flip(a)[0], np.median(a), np.percentile(a, 30))

@case(np.arange(12.0).reshape(3, 4))
def array_methods(a):
    return (a.T.copy().ravel()[1], a.reshape(-1)[5], a.sum(axis=0)[1], a.argmax(), a.mean(axis=1)[2],
            a.flatten()[3], a.astype(np.int32).dtype == np.int32, a.max(axis=1)[0], np.vstack((a, a)).shape[0],
            np.hstack((a, a)).shape[1], np.concatenate((a, a), axis=1).shape[1], np.stack((a, a)).shape[0])

@case(5)
def set_ops(n):
    s = set()
    for i in range(n): s.add(i % 3)
    t = {1, 5}
    return len(s | t), len(s & t), len(s - t), 5 in t

@case(6)
def dict_comp(n):
    d = {i: i * i for i in range(n) if i % 2 == 0}
    return sum(d.values()), sorted(d.keys())[-1], d.get(7, -1), list(d.items())[0]

@case(np.arange(4.0))
def tuple_unroll(a):
    t = (1, 2.5, "x")
    c = 0.0
    for v in literal_unroll(t):
        c += 1
    return c + a[0]

@case(7)
def gen_func(n):
    def gen(m):
        for i in range(m):
            yield i * 2
    return sum([x for x in gen(n)])

@case(np.arange(5.0))
def objmode_block(a):
    with numba.objmode(y="float64"):
        y = float(np.sum(a))
    return y

@case(np.array(['2020-01-01', '2020-03-01'], dtype='datetime64[D]'))
def datetime_ops(d):
    return (d[1] - d[0]).astype(np.int64), d[0] + np.timedelta64(3, 'D') == np.datetime64('2020-01-04')

@case(np.random.rand(8))
def random_choice(a):
    np.random.seed(1)
    return np.random.choice(a, 3, replace=False).shape[0], np.random.permutation(5).shape[0]

@case(np.arange(6.0))
def enumerate_zip(a):
    s = 0.0
    for i, (x, y) in enumerate(zip(a, a[::-1])):
        s += i * x - y
    return s

@case(3)
def nested_closure(n):
    def add(k):
        return lambda x: x + k
    f = add(n)
    return f(2)

@case(np.arange(5.0))
def list_ops(a):
    l = list(a)
    l.insert(0, -1.0); l.reverse(); l.sort(); l.extend([9.0]); 
    return l.index(2.0), l.count(1.0), l[-1], l.pop(0), l[1:3]

@case("hello world")
def str_iter(s):
    c = 0
    for ch in s:
        if ch in "aeiou": c += 1
    return c, s[::-1], s.startswith("he"), s.strip("hd"), s.title() if False else s.capitalize(), ord(s[0]), chr(104)

@case(10)
def while_else(n):
    i = 0
    while i < n:
        if i == 20: break
        i += 1
    else:
        i = -i
    return i

@case(np.arange(16.0).reshape(4, 4))
def fancy_index(a):
    idx = np.array([0, 2])
    m = a > 5
    b = a.copy(); b[m] = 0.0
    return a[idx].sum(), a[:, idx].sum(), a[m].sum(), b.sum(), a[idx, idx].sum(), a[1:, ::2].sum()

@case(np.arange(3.0))
def complex_math(a):
    z = a + 1j * a
    return np.abs(z).sum(), np.angle(z).sum(), (z * z.conj()).real.sum(), np.exp(z).imag.sum()

@case(5)
def exception_flow(n):
    try:
        if n > 3:
            raise ValueError("big")
        r = 0
    except ValueError:
        r = -1
    finally:
        pass
    return r

@case(np.arange(10))
def int_array_ops(a):
    return (a // 3).sum(), (a % 4).sum(), (a ** 2).sum(), (a << 1).sum(), (a & 3).sum(), np.bitwise_xor(a, 5).sum()

@case(np.ones((3, 3)))
def einsum_dot(a):
    return np.dot(a, a).sum(), (a @ a).sum(), np.outer(a[0], a[1]).sum(), np.kron(a[:2, :2], a[:2, :2]).sum(), np.trace(a)

@case(np.arange(6.0))
def isinstance_use(a):
    x = a[0]
    if isinstance(x, float):
        return 1
    return 0


run()
