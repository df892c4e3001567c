import sys, math, heapq
import numpy as np
import numba
from numba import njit, types, typed
from collections import namedtuple

from _runner import case, run

@case(np.array([[0.0, 0.0], [0.1, 0.2], [5.0, 5.0], [5.1, 4.9], [0.2, 0.1]]), 2)
def kmeans(X, k):
    cent = X[:k].copy()
    lab = np.zeros(X.shape[0], dtype=np.int64)
    for it in range(10):
        for i in range(X.shape[0]):
            best, bd = 0, np.inf
            for c in range(k):
                d = ((X[i] - cent[c]) ** 2).sum()
                if d < bd:
                    bd, best = d, c
            lab[i] = best
        for c in range(k):
            m = lab == c
            if m.any():
                cent[c] = X[m].mean(axis=0)
    return lab, cent

@case(6)
def bfs(n):
    adj = [[1, 2], [3], [3, 4], [5], [5], [0]]
    dist = [-1] * n
    dist[0] = 0
    q = [0]
    head = 0
    while head < len(q):
        u = q[head]; head += 1
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist

@case("kitten", "sitting")
def levenshtein(a, b):
    m, n = len(a), len(b)
    d = np.zeros((m + 1, n + 1), dtype=np.int64)
    for i in range(m + 1): d[i, 0] = i
    for j in range(n + 1): d[0, j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[m, n]

@case("the cat and the hat and the bat")
def word_count(s):
    counts = {}
    for w in s.split(" "):
        counts[w] = counts.get(w, 0) + 1
    best = ""
    bc = 0
    for w, c in counts.items():
        if c > bc:
            best, bc = w, c
    return best, bc, len(counts)

@case(np.array([5.0, 3.0, 8.0, 1.0, 9.0, 2.0]))
def quicksort_rec(a):
    b = a.copy()
    _qs(b, 0, len(b) - 1)
    return b

@njit
def _qs(a, lo, hi):
    if lo < hi:
        p = a[hi]; i = lo
        for j in range(lo, hi):
            if a[j] < p:
                a[i], a[j] = a[j], a[i]; i += 1
        a[i], a[hi] = a[hi], a[i]
        _qs(a, lo, i - 1); _qs(a, i + 1, hi)

@case(5)
def dijkstra(n):
    edges = [(0, 1, 4.0), (0, 2, 1.0), (2, 1, 2.0), (1, 3, 1.0), (2, 3, 5.0), (3, 4, 3.0)]
    adj = [[(0, 0.0)] for _ in range(n)]
    for a in adj: a.pop()
    for u, v, w in edges:
        adj[u].append((v, w))
    dist = np.full(n, np.inf)
    dist[0] = 0.0
    h = [(0.0, 0)]
    while h:
        d, u = heapq.heappop(h)
        if d > dist[u]: continue
        for v, w in adj[u]:
            if d + w < dist[v]:
                dist[v] = d + w
                heapq.heappush(h, (d + w, v))
    return dist

@case(8)
def union_find(n):
    parent = np.arange(n)
    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for a, b in ((0, 1), (2, 3), (1, 3), (5, 6)):
        ra, rb = find(a), find(b)
        if ra != rb: parent[ra] = rb
    return len(set([find(i) for i in range(n)]))

@case(0.0, 1.0, 100)
def rk4(t0, y0, n):
    h = 0.01
    t, y = t0, y0
    for _ in range(n):
        k1 = _f(t, y); k2 = _f(t + h / 2, y + h * k1 / 2); k3 = _f(t + h / 2, y + h * k2 / 2); k4 = _f(t + h, y + h * k3)
        y += h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        t += h
    return t, y

@njit
def _f(t, y):
    return -2.0 * y + math.sin(t)

Stats = namedtuple("Stats", ["mean", "std", "n"])
@case(np.arange(10.0))
def namedtuple_return(a):
    return Stats(a.mean(), a.std(), a.size)

@case(np.arange(20.0).reshape(4, 5))
def mat_loops(A):
    B = np.zeros((A.shape[1], A.shape[1]))
    for i in range(A.shape[0]):
        B += np.outer(A[i], A[i])
    v = np.ones(A.shape[1])
    for _ in range(3):
        v = B @ v
        v /= np.linalg.norm(v)
    return v

@case(1000)
def monte_carlo_pi(n):
    np.random.seed(42)
    c = 0
    for i in range(n):
        x, y = np.random.random(), np.random.random()
        if x * x + y * y < 1.0: c += 1
    return 4.0 * c / n > 2.0

@case(np.arange(12).reshape(3, 4))
def transpose_tuple_ret(a):
    r, c = a.shape
    out = np.empty((c, r), dtype=a.dtype)
    for i in range(r):
        for j in range(c):
            out[j, i] = a[i, j]
    return out, (r, c)

@case(np.array([1, 3, 2, 3, 1, 1]))
def dict_hist(a):
    d = typed.Dict.empty(types.int64, types.int64)
    for v in a:
        d[v] = d.get(v, 0) + 1
    keys = np.array(sorted(d.keys()))
    return keys, np.array([d[k] for k in keys])

@case(30)
def collatz_lists(n):
    out = []
    for i in range(1, n):
        x, c = i, 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            c += 1
        out.append((i, c))
    out.sort(key=lambda t: -t[1])
    return out[0]

@case(np.linspace(0, 1, 11))
def trapz_simpson(x):
    y = x ** 2
    s = 0.0
    for i in range(len(x) - 1):
        s += 0.5 * (y[i] + y[i + 1]) * (x[i + 1] - x[i])
    return s

@case("A man a plan a canal Panama")
def palindrome(s):
    t = "".join([c.lower() for c in s if c != " "])
    return t == t[::-1], t[:5]


run()
