"""Benchmark kernels.  run.py executes this file once per backend with the
name `jit` bound to hpcjit.njit, numba.njit or the identity (CPython), so
that calls between kernels (fib, calls_in_loop) resolve to the same
backend.  Plain numeric Python, no fastmath."""
import math

import numpy as np


@jit
def sum_reduce(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@jit
def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@jit
def jacobi2d(u, steps):
    # 5-point stencil, allocating the next grid every step
    m, n = u.shape
    for _ in range(steps):
        v = u.copy()
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        u = v
    return u


@jit
def blur_f_order(a):
    # 3x3 box blur over a Fortran-ordered array (column-major traversal)
    m, n = a.shape
    out = np.zeros_like(a)
    for j in range(1, n - 1):
        for i in range(1, m - 1):
            s = 0.0
            for dj in range(-1, 2):
                for di in range(-1, 2):
                    s += a[i + di, j + dj]
            out[i, j] = s / 9.0
    return out


@jit
def pairwise(X):
    m, k = X.shape
    D = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            d = 0.0
            for t in range(k):
                diff = X[i, t] - X[j, t]
                d += diff * diff
            D[i, j] = np.sqrt(d)
    return D


@jit
def matmul(A, B):
    m, k = A.shape
    n = B.shape[1]
    C = np.zeros((m, n))
    for i in range(m):
        for t in range(k):
            a = A[i, t]
            for j in range(n):
                C[i, j] += a * B[t, j]
    return C


@jit
def collatz_max(n):
    best = 0
    arg = 0
    for start in range(1, n):
        x = start
        steps = 0
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            steps += 1
        if steps > best:
            best = steps
            arg = start
    return arg, best


@jit
def sieve(n):
    flags = np.ones(n + 1, np.uint8)
    flags[0] = 0
    flags[1] = 0
    i = 2
    while i * i <= n:
        if flags[i]:
            for j in range(i * i, n + 1, i):
                flags[j] = 0
        i += 1
    count = 0
    for i in range(n + 1):
        if flags[i]:
            count += 1
    return count


@jit
def int_hash(n):
    # Python floor division / modulo semantics on signed ints
    h = 0
    for i in range(-n, n):
        h = (h * 31 + i // 7 - i % 13) % 1000003
    return h


@jit
def math_heavy(a):
    s = 0.0
    for i in range(a.shape[0]):
        x = a[i]
        s += math.sin(x) * math.exp(-x * x) + math.sqrt(x + 1.0) - math.log1p(x) + math.atan2(x, 2.0)
    return s


@jit
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


@jit
def smoothstep(x):
    t = min(max(x, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@jit
def calls_in_loop(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += smoothstep(a[i])
    return s


@jit
def mandelbrot(w, h, maxit):
    count = 0
    for py in range(h):
        for px in range(w):
            c = complex(-2.0 + 3.0 * px / w, -1.5 + 3.0 * py / h)
            z = 0j
            k = 0
            while k < maxit and abs(z) <= 2.0:
                z = z * z + c
                k += 1
            count += k
    return count


@jit
def cumsum_strided(a):
    # a non-contiguous view: every other element
    out = np.empty(a.shape[0])
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s
    return out


@jit
def call2_scalars(a, b):
    return a + b


@jit
def call2_arrays(a, b):
    return a[0] + b[0]


# --- kernel classes of issue 15 (code no one tuned for) ---

@jit
def conv2d(img, k):
    # 2-D convolution, kernel size known only at run time, four nested loops
    m, n = img.shape
    p, q = k.shape
    out = np.zeros((m - p + 1, n - q + 1))
    for i in range(m - p + 1):
        for j in range(n - q + 1):
            s = 0.0
            for a in range(p):
                for b in range(q):
                    s += img[i + a, j + b] * k[a, b]
            out[i, j] = s
    return out


@jit
def six_reductions(a):
    # six whole-array reductions of one array returned as a tuple
    return a.sum(), a.mean(), a.max(), a.min(), a.argmax(), a.std()


@jit
def saxpy_f32(alpha, x, y):
    # float32 scalar and arrays into a new float32 array
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = alpha * x[i] + y[i]
    return out


@jit
def floordiv_mod(n):
    # Python // and % with negative operands
    h = 0
    for i in range(-n, n):
        h += i // 3 + i % 5 + (-i) // 4 + i % -3
    return h


@jit
def jacobi_swap(a, steps):
    # Jacobi sweeps, the two grids swapped by tuple assignment
    u = a.copy()
    v = a.copy()
    m, n = a.shape
    for _ in range(steps):
        for i in range(1, m - 1):
            for j in range(1, n - 1):
                v[i, j] = 0.2 * (u[i, j] + u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1])
        u, v = v, u
    return u


@jit
def row_min_update(path):
    # Floyd-Warshall's row form (NPBench's Numba variant): each row store
    # reads its own row and row k, which is the destination itself when i == k
    n = path.shape[0]
    for k in range(n):
        for i in range(n):
            path[i, :] = np.minimum(path[i, :], path[i, k] + path[k, :])
    return path


@jit
def mask_mean(data, radius, nbins):
    # azimuthal integration's naive form: a sparse boolean mask per bin,
    # the selected items' mean
    rmax = radius.max()
    res = np.zeros(nbins)
    for i in range(nbins):
        r1 = rmax * i / nbins
        r2 = rmax * (i + 1) / nbins
        mask = np.logical_and(r1 <= radius, radius < r2)
        res[i] = data[mask].mean()
    return res


@pjit
def prange_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@pjit
def prange_rows(a):
    m, n = a.shape
    out = np.empty(m)
    for i in prange(m):
        s = 0.0
        for j in range(n):
            s += a[i, j]
        out[i] = s
    return out


def _array_chain(price, strike, t):
    # consecutive array statements whose temporaries nothing reads later
    # (the shape of Black-Scholes without its erf); Numba fuses them under
    # parallel=True only
    logterm = np.log(price / strike)
    den = 0.3 * np.sqrt(t)
    d1 = (0.065 * t + logterm) / den
    d2 = d1 - den
    fv = strike * np.exp(-0.02 * t)
    call = price * d1 - fv * d2
    return call - fv + price


array_chain = jit(_array_chain)
array_chain_par = pjit(_array_chain)
