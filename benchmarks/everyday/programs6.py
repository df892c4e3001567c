"""Everyday programs, part 6: NumPy functions the other files leave out,
@overload / @register_jitable helpers, literal_unroll, Optional returns,
exceptions with messages, globals and the small Python idioms (generator
sums, key functions, nested helpers, for/else)."""
import sys, math
import numpy as np
import numba
from numba import njit, types, typed, literal_unroll
from numba.extending import overload, register_jitable

from _runner import case, run

@case(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.25, 0.5, 0.25]))
def smooth_signal(a, k):
    full = np.convolve(a, k)
    corr = np.correlate(a, k)
    same = np.convolve(a, k)[1:-1]
    return full, corr, same

@case(np.array([1.0, 4.0, 9.0, 16.0, 25.0]))
def diff_orders(a):
    return np.diff(a), np.diff(a, n=2), np.diff(a, 3), np.ediff1d(a)

@case(np.array([1.0, 2.0, 3.0]), np.array([2.0, -1.0, 0.5]))
def poly_horner(x, c):
    out = np.zeros_like(x)
    for i in range(x.size):
        acc = 0.0
        for coef in c:
            acc = acc * x[i] + coef
        out[i] = acc
    V = np.vander(x, 3)
    Vi = np.vander(x, 4, increasing=True)
    return out, V @ c, Vi

@case(np.array([1.23456, -2.71828, 3.14159, 0.5, 1.5, 2.5]))
def rounding(a):
    return (np.round(a, 2), np.round(a), np.around(a, 1), round(a[0], 3),
            round(2.5), round(3.5), np.floor(a), np.ceil(a), np.trunc(a), np.rint(a))

@case(np.array([3, 1, 2, 3, 1, 3, 2, 1]))
def stable_sorts(a):
    idx = np.argsort(a, kind="mergesort")
    s = np.sort(a)[::-1]
    ranks = np.empty_like(idx)
    ranks[idx] = np.arange(a.size)
    return idx, s, ranks, np.partition(a, 3)[3]

@case(np.array([0, 2, 0, 5, 7, 0]))
def where_nonzero(a):
    nz = np.nonzero(a)[0]
    (w,) = np.where(a > 1)
    cnt = np.count_nonzero(a)
    b = np.where(a > 0, a, -1)
    return nz, w, cnt, b, np.argwhere(a == 0).ravel()

@case(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0 + 1e-9, 3.0]))
def comparisons(a, b):
    return (np.array_equal(a, b), np.allclose(a, b), np.isclose(a, b, rtol=0.0, atol=1e-12),
            np.array_equal(a, a.copy()), (a == b).all(), np.any(a > 2.5))

@case(np.array([[4.0, 1.0], [2.0, 3.0]]))
def linalg_eig(A):
    w = np.linalg.eigvals(A)
    wh = np.linalg.eigvalsh(A + A.T)
    n2 = np.linalg.norm(A, 2)
    nf = np.linalg.norm(A)
    n1 = np.linalg.norm(A[0], 1)
    ninf = np.linalg.norm(A[:, 1], np.inf)
    return np.sort(w.real), wh, n2, nf, n1, ninf, np.vdot(A[0], A[1]), np.inner(A[0], A[1])

@case(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.0]))
def geometry(u, v):
    c = np.cross(u, v)
    k = np.kron(u[:2], v[1:])
    ang = math.acos(np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v)))
    return c, k, ang, np.outer(u, v).trace(), math.hypot(3.0, 4.0), math.copysign(2.0, -0.0)

@case(np.array([0.0, 0.5, 1.0, 1.5, 2.0]))
def integrate(x):
    y = x ** 2
    return np.trapezoid(y, x), np.trapezoid(y, dx=0.5), np.cumsum(y)[-1], np.cumprod(x + 1.0)[-1]

@case(np.array([1, 2, 2, 3, 3, 3, 7]), np.array([2, 3, 5, 7]))
def set_like(a, b):
    return (np.unique(a), np.intersect1d(a, b), np.union1d(a, b), np.setdiff1d(a, b),
            np.isin(a, b))

@case(np.array([0.1, 0.4, 0.35, 0.8, 0.9, 0.05]))
def histogram_stats(a):
    h, edges = np.histogram(a, bins=4, range=(0.0, 1.0))
    return (h, edges, np.ptp(a), np.average(a, weights=np.arange(1.0, 7.0)),
            np.quantile(a, 0.5), np.nanpercentile(a, 25.0), np.std(a), np.cov(a, a[::-1]))

def clamp01(x):
    return np.minimum(np.maximum(x, 0.0), 1.0)

@overload(clamp01)
def _clamp01_ol(x):
    if isinstance(x, types.Float):
        return lambda x: min(max(x, 0.0), 1.0)
    if isinstance(x, types.Array):
        def impl(x):
            out = np.empty_like(x)
            for i in range(x.size):
                out[i] = min(max(x[i], 0.0), 1.0)
            return out
        return impl

@register_jitable
def sq_dist(a, b):
    s = 0.0
    for i in range(a.size):
        s += (a[i] - b[i]) ** 2
    return s

@case(np.array([-0.5, 0.25, 1.5]))
def overload_helpers(a):
    c = clamp01(a)
    return c, clamp01(2.0), sq_dist(a, c), np.clip(a, 0.0, 1.0)

@case(3)
def unroll_hetero(n):
    items = (1, 2.5, "abc", (4, 5), np.arange(3))
    tot = 0.0
    names = 0
    for it in literal_unroll(items):
        if isinstance(it, str):
            names += len(it)
        elif isinstance(it, tuple):
            tot += it[0] + it[1]
        elif isinstance(it, np.ndarray):
            tot += it.sum()
        else:
            tot += it * n
    return tot, names

def _find(a, x):
    for i in range(a.size):
        if a[i] == x:
            return i
    return None

@case(np.array([5, 3, 9, 1]))
def optional_returns(a):
    r1 = _find_j(a, 9)
    r2 = _find_j(a, 4)
    miss = 0
    got = -1
    if r1 is not None:
        got = r1
    if r2 is None:
        miss += 1
    return got, miss

_find_j = njit(_find)

@case(np.array([3.0, -1.0, 4.0]))
def exceptions_msgs(a):
    caught = 0
    for x in a:
        try:
            if x < 0:
                raise ValueError("negative value")
            if x > 3.5:
                raise IndexError("too big")
        except ValueError:
            caught += 1
        except IndexError:
            caught += 10
    try:
        v = a[5]
    except IndexError:
        caught += 100
    return caught

@case(10)
def recursion_memo(n):
    return _fib(n), _ackermann(2, 3), _gcd_rec(1071, 462), _power_set_count(4)

@njit
def _fib(n):
    if n < 2:
        return n
    return _fib(n - 1) + _fib(n - 2)

@njit
def _ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return _ackermann(m - 1, 1)
    return _ackermann(m - 1, _ackermann(m, n - 1))

@njit
def _gcd_rec(a, b):
    return a if b == 0 else _gcd_rec(b, a % b)

@njit
def _power_set_count(k):
    if k == 0:
        return 1
    return 2 * _power_set_count(k - 1)

@case(30)
def loops_else(n):
    primes = []
    for c in range(2, n):
        for p in primes:
            if c % p == 0:
                break
        else:
            primes.append(c)
    i = 0
    found = -1
    while i < n:
        if i * i > 50:
            found = i
            break
        i += 1
    else:
        found = -2
    return primes, found

WEIGHTS = (0.5, 0.3, 0.2)
TABLE = np.array([[1.0, 2.0], [3.0, 4.0]])
NAMES = ("alpha", "beta", "gamma")

@case(2)
def global_consts(k):
    s = 0.0
    for i, w in enumerate(WEIGHTS):
        s += w * (i + k)
    return s, TABLE.sum() * k, TABLE[1, 0], NAMES[k], len(NAMES[0])

@case(np.array([3.0, 1.0, 2.0]), np.array([10, 20, 30]), np.array([True, False, True]))
def zip_enumerate(a, b, m):
    acc = 0.0
    picks = []
    for i, (x, y, keep) in enumerate(zip(a, b, m)):
        if keep:
            acc += x * y + i
            picks.append(i)
    pairs = list(zip(range(3), a))
    return acc, picks, pairs[1]

@case(np.array([4.0, -2.0, 7.0, 1.0]))
def key_functions(a):
    lst = [a[i] for i in range(a.size)]
    by_abs = sorted(lst, key=abs)
    far = max(lst, key=lambda v: abs(v - 3.0))
    near = min(lst, key=lambda v: abs(v - 3.0))
    words = ["pear", "fig", "banana", "kiwi"]
    return by_abs, far, near, sorted(words, key=len), sorted(words, reverse=True)

@case(np.arange(10))
def generator_sums(a):
    s1 = sum(x * x for x in a if x % 2 == 0)
    s2 = sum([x for x in range(10) if x > 6])
    ok = all(x >= 0 for x in a)
    anyb = any(x > 8 for x in a)
    cnt = sum(1 for x in a if x % 3 == 0)
    return s1, s2, ok, anyb, cnt

@case(np.array([1.0, 2.0, 3.0, 4.0]))
def nested_helpers(a):
    scale = 2.0

    def f(x):
        return x * scale + 1.0

    def g(x, y):
        return f(x) - f(y)

    out = np.empty(a.size - 1)
    for i in range(a.size - 1):
        out[i] = g(a[i + 1], a[i])
    return out, f(10.0)

@case(np.arange(12.0).reshape(3, 4))
def axis_ops(a):
    return (np.roll(a, 1, axis=0)[0], np.roll(a, -2), np.cumsum(a, axis=1)[:, -1],
            a.argmax(axis=1), np.flip(a, axis=1)[0], np.fliplr(a)[1], np.rot90(a)[0])

if __name__ == "__main__":
    run()
