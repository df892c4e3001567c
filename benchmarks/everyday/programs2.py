import sys, math
import numpy as np
import numba
from numba import njit, prange, types

from _runner import case, run

A = np.arange(12.0).reshape(3, 4) + 1.0

@case(A)
def reductions_axis(a):
    return (np.sum(a, axis=0), np.max(a, axis=1), a.std(), np.var(a), np.argmin(a, axis=0), a.min(axis=0),
            np.prod(a, axis=1), np.cumsum(a, axis=1)[:, -1], np.mean(a, axis=0), np.any(a > 11, axis=1), np.all(a > 0))

@case(A)
def creation(a):
    return (np.full_like(a, 2.0).sum(), np.zeros_like(a, dtype=np.int64).dtype == np.int64, np.linspace(0, 1, 5),
            np.arange(0, 1, 0.25), np.eye(3, k=1).sum(), np.identity(2), np.tri(3).sum(), np.triu(a).sum(),
            np.tril(a, -1).sum(), np.empty((2, 2), dtype=np.float32).shape, np.ones(3, dtype="f8").sum())

@case(A)
def shapes(a):
    return (np.expand_dims(a, 0).shape, np.squeeze(a[None, :, :]).shape, np.atleast_2d(a[0]).shape,
            np.swapaxes(a, 0, 1).shape, np.moveaxis(a[None], 0, 2).shape, a[..., 0].sum(), a[None, :].shape,
            np.repeat(a[0], 2).shape, np.tile(a[0], 2).shape, np.ascontiguousarray(a.T).flags.c_contiguous,
            np.asfortranarray(a).flags.f_contiguous, a.transpose(1, 0).shape, np.ravel(a)[3])

@case(A)
def take_ops(a):
    idx = np.array([2, 0])
    return (np.take(a, idx).sum(), np.take_along_axis(a, np.argsort(a, axis=1), axis=1)[0, 0], np.nonzero(a > 6)[0].sum(),
            np.argwhere(a > 10).shape, np.flatnonzero(a > 5)[0], np.extract(a > 5, a).sum(), np.compress([True, False, True], a, axis=0).shape)

@case(np.random.rand(4, 4) + 4 * np.eye(4))
def linalg2(a):
    u, s, vt = np.linalg.svd(a)
    x, res, rk, sv = np.linalg.lstsq(a, np.ones(4))
    return (np.linalg.inv(a).sum(), np.linalg.pinv(a).sum(), s.sum(), x.sum(), np.linalg.cholesky(a @ a.T).sum(),
            np.linalg.matrix_rank(a), np.linalg.cond(a), np.linalg.slogdet(a)[1], np.linalg.matrix_power(a, 3).sum())

@case(np.arange(5.0))
def signal(a):
    return (np.convolve(a, np.ones(3)).sum(), np.correlate(a, np.ones(2)).sum(), np.cross(a[:3], a[2:]),
            np.trapezoid(a) if hasattr(np, "trapezoid") else 0.0, np.diff(a).sum(), np.gradient(a).sum(), np.ediff1d(a).sum())

@case(np.array([3.7, -1.2, 2.5]))
def builtins_misc(a):
    l = [x * 2 for x in a]
    return (sum(x > 0 for x in a), any(x < -1 for x in a), all([x > -5 for x in a]), max(l), min(a[0], a[1], a[2]),
            round(a[0], 1), round(a[2]), divmod(7, 3), pow(3, 4, 5), abs(-a[1]), int(a[0]), math.floor(a[1]), bool(a[0]))

@case((1, 2), (3.0,))
def tuple_ops(t, u):
    v = t + t
    return v, len(v), t * 2, v[1:3], (t[0],) + u, max(t), 2 in t, t == (1, 2), v.index(2) if False else 0

@case(10)
def inline_recursion(n):
    return fact(n) + even(n)

@njit
def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)

@njit
def even(n):
    if n == 0: return 1
    return odd(n - 1)

@njit
def odd(n):
    if n == 0: return 0
    return even(n - 1)

@case(np.ones((100, 3)))
def prange_array_reduce(a):
    acc = np.zeros(3)
    for i in prange(a.shape[0]):
        acc += a[i]
    return acc

@case(A.copy())
def bool_mask_assign(a):
    a[a > 6] = 0.0
    b = a.copy()
    b[b == 0] += 1.0
    m = np.isnan(a)
    return a.sum(), b.sum(), m.any(), np.isclose(a, 0.0).sum(), np.allclose(a, a), np.isfinite(a).all(), np.isinf(a).sum()

@case(2.7, 3)
def scalar_casts(x, n):
    return (np.int64(x), np.float32(x), np.uint8(n + 254), np.int32(n) * np.int32(2), np.float64(n) / 2,
            np.bool_(n), type(np.float32(x) * 2.0) is float if False else 1, np.round(x), np.sign(-x), np.abs(np.int8(-3)))

@case(np.arange(27.0).reshape(3, 3, 3))
def three_d(a):
    return a[1].sum(), a[:, 1, :].sum(), a[..., 2].sum(), a.sum(axis=(0, 2)) if False else a.sum(axis=2).sum(), a[::-1, 1, ::2].sum(), a.reshape(9, 3)[4, 1]

@case(5)
def random_sizes(n):
    np.random.seed(0)
    a = np.random.normal(0.0, 1.0, size=(n, 2))
    b = np.random.randint(0, 10, size=n)
    c = np.random.uniform(-1, 1, n)
    return a.shape, b.shape, c.shape, np.random.random((2, 3)).shape, np.random.rand(2, 2).shape

@case("Hello World  ")
def str_more(s):
    return (s.split(), s.lower(), s.isalpha(), s.strip().center(15, "*"), s.rstrip(), s.lstrip("H"), s.partition(" ") if False else 0,
            s.endswith("  "), s.rfind("o"), s.isspace(), s.istitle(), s.swapcase() if False else 0, s[1:5] * 2, "x" < "y")

@case(np.arange(6.0))
def sort_search(a):
    b = a[::-1].copy()
    b.sort()
    return (np.sort(a)[::-1][0], b[0], np.argsort(-a)[0], np.searchsorted(a, [1.5, 3.5], side="right"), np.unique(np.array([2, 1, 2])),
            np.partition(a, 2)[2], np.argpartition(a, 2)[:2].sum() if False else 0, np.max(np.abs(a - 3)))

@case(np.arange(6.0).reshape(2, 3))
def stack_split(a):
    p = np.split(np.arange(6.0), 3)
    q = np.array_split(np.arange(7.0), 3)
    return (np.column_stack((a[0], a[1])).shape, np.dstack((a, a)).shape, len(p), q[0].shape, np.hsplit(a, 3)[1].sum(),
            np.append(a, [1.0]).shape, np.insert(np.arange(3.0), 1, 9.0)[1] if False else 0, np.delete(np.arange(4), 1).sum())


run()
