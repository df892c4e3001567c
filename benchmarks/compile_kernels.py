"""Kernels for the compile-time benchmark (compile_time.py), beside those of
kernels.py: the issue 15 classes whose first calls were slowest (a time-step
loop over a 2-D stencil, trapezoid rules, strided views) and more kernels
of the kind people write.  compile_time.py executes this file with `jit`
bound to hpcjit.njit or numba.njit.  ARGS gives each kernel (these and
kernels.py's) small arguments: the first call is timed, so the run itself
must cost next to nothing."""
import math

import numpy as np


@jit
def add(a, b):
    return a + b


# --- issue 15's slow first calls ---

@jit
def heat2d(u, steps, c):
    # explicit heat equation: time steps over a 5-point stencil
    m, n = u.shape
    un = u.copy()
    for _ in range(steps):
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                un[i, j] = u[i, j] + c * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]
                                          - 4.0 * u[i, j])
        u, un = un, u
    return u


@jit
def bump(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


@jit
def trapezoid(a, b, n):
    # trapezoid rule of a jitted integrand
    h = (b - a) / n
    s = 0.5 * (bump(a) + bump(b))
    for i in range(1, n):
        s += bump(a + i * h)
    return s * h


@jit
def trapz_samples(x, y):
    # trapezoid rule over sampled points
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 0.5 * (x[i + 1] - x[i]) * (y[i + 1] + y[i])
    return s


@jit
def strided_1d(a):
    # even and odd elements as views
    ev = a[::2]
    od = a[1::2]
    n = min(ev.shape[0], od.shape[0])
    s = 0.0
    for i in range(n):
        s += ev[i] * od[i]
    return s


@jit
def strided_2d(a):
    # a strided 2-D view and a transposed one
    b = a[::2, ::3]
    t = a.T
    s = 0.0
    for i in range(b.shape[0]):
        for j in range(b.shape[1]):
            s += b[i, j]
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            s += t[i, j] * (i - j)
    return s


# --- more kernels of the kind people write ---

@jit
def histogram(a, nbins, lo, hi):
    counts = np.zeros(nbins, dtype=np.int64)
    scale = nbins / (hi - lo)
    for x in a:
        k = int((x - lo) * scale)
        if 0 <= k < nbins:
            counts[k] += 1
    return counts


@jit
def softmax_rows(x):
    m, n = x.shape
    out = np.empty_like(x)
    for i in range(m):
        mx = x[i, 0]
        for j in range(1, n):
            mx = max(mx, x[i, j])
        s = 0.0
        for j in range(n):
            e = math.exp(x[i, j] - mx)
            out[i, j] = e
            s += e
        for j in range(n):
            out[i, j] /= s
    return out


@jit
def standardize_cols(x):
    out = np.empty_like(x)
    for j in range(x.shape[1]):
        col = x[:, j]
        mu = col.mean()
        sd = col.std()
        out[:, j] = (col - mu) / sd
    return out


@jit
def insertion_sort(a):
    b = a.copy()
    for i in range(1, b.shape[0]):
        key = b[i]
        j = i - 1
        while j >= 0 and b[j] > key:
            b[j + 1] = b[j]
            j -= 1
        b[j + 1] = key
    return b


@jit
def nbody_step(pos, vel, mass, dt):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + 1e-9
                inv = mass[j] / (r2 * math.sqrt(r2))
                acc[i, 0] += dx * inv
                acc[i, 1] += dy * inv
                acc[i, 2] += dz * inv
    for i in range(n):
        for k in range(3):
            vel[i, k] += dt * acc[i, k]
            pos[i, k] += dt * vel[i, k]
    return pos


@jit
def lu_inplace(a):
    # Doolittle LU without pivoting, triple loop
    n = a.shape[0]
    lu = a.copy()
    for k in range(n):
        for i in range(k + 1, n):
            lu[i, k] /= lu[k, k]
            f = lu[i, k]
            for j in range(k + 1, n):
                lu[i, j] -= f * lu[k, j]
    return lu


@jit
def floyd_warshall(d):
    n = d.shape[0]
    dist = d.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                alt = dist[i, k] + dist[k, j]
                if alt < dist[i, j]:
                    dist[i, j] = alt
    return dist


@jit
def levenshtein(s, t):
    m, n = s.shape[0], t.shape[0]
    d = np.zeros((m + 1, n + 1), dtype=np.int64)
    for i in range(m + 1):
        d[i, 0] = i
    for j in range(n + 1):
        d[0, j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[m, n]


@jit
def black_scholes(s, k, t, r, v):
    n = s.shape[0]
    call = np.empty(n)
    for i in range(n):
        sq = v * math.sqrt(t[i])
        d1 = (math.log(s[i] / k[i]) + (r + 0.5 * v * v) * t[i]) / sq
        d2 = d1 - sq
        n1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
        n2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
        call[i] = s[i] * n1 - k[i] * math.exp(-r * t[i]) * n2
    return call


@jit
def horner(coef, x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        acc = 0.0
        for c in coef:
            acc = acc * x[i] + c
        out[i] = acc
    return out


@jit
def monte_carlo_pi(n):
    hits = 0
    for _ in range(n):
        x = np.random.random()
        y = np.random.random()
        if x * x + y * y <= 1.0:
            hits += 1
    return 4.0 * hits / n


@jit
def kmeans_assign(pts, cent):
    n, d = pts.shape
    k = cent.shape[0]
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = np.inf
        arg = 0
        for c in range(k):
            dist = 0.0
            for t in range(d):
                diff = pts[i, t] - cent[c, t]
                dist += diff * diff
            if dist < best:
                best = dist
                arg = c
        labels[i] = arg
    return labels


@jit
def array_expr(a, b, c):
    # whole-array expressions and ufuncs
    return np.sum(a * b + np.sin(c) * 2.0 - np.sqrt(np.abs(a)))


@jit
def cubic(x):
    return x * x * x - 2.0 * x - 5.0


@jit
def bisect_root(lo, hi, tol):
    flo = cubic(lo)
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        fm = cubic(mid)
        if (fm < 0.0) == (flo < 0.0):
            lo = mid
            flo = fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


@jit
def logistic_map(r, x0, n):
    x = x0
    for _ in range(n):
        x = r * x * (1.0 - x)
    return x


@jit
def moving_average(a, w):
    n = a.shape[0]
    out = np.empty(n - w + 1)
    s = 0.0
    for i in range(w):
        s += a[i]
    out[0] = s / w
    for i in range(w, n):
        s += a[i] - a[i - w]
        out[i - w + 1] = s / w
    return out


@jit
def gcd_sum(n):
    total = 0
    for a in range(1, n):
        x, y = a, n
        while y:
            x, y = y, x % y
        total += x
    return total


def _rng():
    return np.random.default_rng(7)


def _args():
    r = _rng()
    v = r.uniform(0.5, 1.5, 64)
    w = r.uniform(0.5, 1.5, 64)
    m = r.uniform(0.0, 1.0, (12, 10))
    sq = r.uniform(1.0, 2.0, (8, 8)) + 8 * np.eye(8)
    return {
        # kernels.py
        "sum_reduce": (v,),
        "dot": (v, w),
        "jacobi2d": (m, 2),
        "blur_f_order": (np.asfortranarray(m),),
        "pairwise": (m,),
        "matmul": (m, m.T.copy()),
        "collatz_max": (30,),
        "sieve": (100,),
        "int_hash": (50,),
        "math_heavy": (v,),
        "fib": (10,),
        "calls_in_loop": (v,),
        "mandelbrot": (8, 6, 20),
        "cumsum_strided": (np.arange(40.0)[::2],),
        "conv2d": (m, sq[:3, :3].copy()),
        "six_reductions": (v,),
        "saxpy_f32": (np.float32(2.0), v.astype(np.float32), w.astype(np.float32)),
        "floordiv_mod": (40,),
        "jacobi_swap": (m, 2),
        "prange_sum": (v,),
        "prange_rows": (m,),
        "array_chain": (v * 100, w * 100, v),
        "array_chain_par": (v * 100, w * 100, v),
        # this file
        "add": (1.0, 2.0),
        "heat2d": (m, 3, 0.1),
        "trapezoid": (0.0, 2.0, 100),
        "trapz_samples": (np.linspace(0.0, 1.0, 64), v),
        "strided_1d": (v,),
        "strided_2d": (m,),
        "histogram": (v, 8, 0.5, 1.5),
        "softmax_rows": (m,),
        "standardize_cols": (m,),
        "insertion_sort": (v,),
        "nbody_step": (r.uniform(0, 1, (16, 3)), np.zeros((16, 3)), r.uniform(1, 2, 16), 0.01),
        "lu_inplace": (sq,),
        "floyd_warshall": (sq,),
        "levenshtein": (np.array([1, 2, 3, 4, 5]), np.array([1, 3, 3, 5])),
        "black_scholes": (v * 100, w * 100, v, 0.02, 0.3),
        "horner": (np.array([1.0, -2.0, 0.5, 3.0]), v),
        "monte_carlo_pi": (100,),
        "kmeans_assign": (m, m[:3].copy()),
        "array_expr": (v, w, v),
        "bisect_root": (1.0, 3.0, 1e-9),
        "logistic_map": (3.7, 0.5, 100),
        "moving_average": (v, 5),
        "gcd_sum": (60,),
    }


ARGS = _args()
