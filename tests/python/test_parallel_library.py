"""parallel=True beyond prange: fused array expressions and whole-array
reductions run on the pool (from 2 * 16384 items), and the pool's thread API
is callable in jitted code.  Every kernel is compared with its py_func run
by CPython / NumPy, swept over 1..4 threads; the reductions are bitwise
identical for every thread count."""
import math
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, prange, vectorize
from conftest import check, run_python

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_THREADS = hpcjit.get_num_threads()
THREADS = list(range(1, min(4, MAX_THREADS) + 1))
# around the pool threshold (2 * 16384 items), odd sizes, one large
SIZES = (0, 1, 7, 32767, 32768, 32769, 100003, 1000001)


@pytest.fixture(params=THREADS)
def nthreads(request):
    old = hpcjit.get_num_threads()
    hpcjit.set_num_threads(request.param)
    yield request.param
    hpcjit.set_num_threads(old)


# ---- kernels ------------------------------------------------------------------

@njit(parallel=True)
def expr(a, b):
    return a * b + 2.0 * a - b / 3.0


@njit(parallel=True)
def expr_ufunc(a, b):
    return np.sqrt(np.abs(a)) + np.maximum(a, b) - np.exp(-b * b)


@njit(parallel=True)
def expr_int(a, b):
    return (a * 3 + b) % 1013 - (a ^ b) + (a > b)


@njit(parallel=True)
def expr_2d(a, row):
    # a 2-D C array, a broadcast row and a transposed (strided) operand
    return a + row - a.T.T * 0.5


@njit(parallel=True)
def expr_strided(a):
    return a[::2] * 3.0 + a[1::2]


@njit(parallel=True)
def expr_transposed(m):
    return m.T * 2.0 + 1.0


def _chain(price, strike, t):
    # consecutive array statements: one fused group, each statement also
    # lowered alone behind the group's shape test (broadcasting)
    logterm = np.log(price / strike)
    den = 0.3 * np.sqrt(t)
    d1 = (0.065 * t + logterm) / den
    d2 = d1 - den
    fv = strike * np.exp(-0.02 * t)
    call = price * d1 - fv * d2
    return call - fv + price


chain = njit(parallel=True)(_chain)


@vectorize(["float64(float64)"])
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


@njit(parallel=True)
def chain_raising(a):
    # the kernel raises inside the pool body (or the same body run on the
    # calling thread for small sizes)
    b = a * 2.0 - 1.0
    c = checked_sqrt(b) + b
    return c * 0.5 + b


@njit(parallel=True)
def chain_rows_in_prange(m):
    # a parallel=True function with array statements called from a prange
    # body: its library loops run on the body's thread
    out = np.empty(m.shape[0])
    for i in prange(m.shape[0]):
        out[i] = np.sum(chain(m[i], m[i] + 1.0, m[i] * 0.5 + 0.25))
    return out


@njit(parallel=True)
def inplace(a, b):
    a += b * 2.0
    a[1:] -= b[:-1]
    return a


@njit(parallel=True)
def stencil(a):
    # operands overlap the destination: computed through a temporary
    a[1:-1] = a[:-2] + a[2:]
    return a


@njit(parallel=True)
def reductions(a, b):
    return (np.sum(a * b), np.prod(1.0 + a[:2000] * 1e-3), np.min(a - b), np.max(a + b), np.mean(a * 2.0),
            np.any(a > b + 0.99), np.all(a >= 0.0), a.sum(), np.var(a), np.std(b))


@njit(parallel=True)
def int_reductions(a):
    return (np.sum(a * a), np.prod(a % 3 + 1), a.min(), a.max(), a.mean(), np.any(a == 7), np.all(a != -5000),
            np.sum(a > 0))


@njit(parallel=True)
def reduce_2d(m):
    return np.sum(m * m), m.max(), np.sum(m.T), np.mean(m, axis=None)


@njit(parallel=True)
def complex_sum(z):
    return np.sum(z * 2.0), np.mean(z)


@njit(parallel=True, deterministic=True)
def det_reductions(a, b):
    return np.sum(a * b), np.mean(a), np.min(a - b)


@njit(parallel=True)
def in_prange(m):
    # library loops inside a prange body run serially on the body's thread
    out = np.empty(m.shape[0])
    for i in prange(m.shape[0]):
        out[i] = np.sum(m[i] * 2.0) + np.max(m[i] + 1.0)
    return out


@njit(parallel=True)
def thread_ids(n):
    ids = np.empty(n, np.int64)
    counts = np.empty(n, np.int64)
    for i in prange(n):
        ids[i] = hpcjit.get_thread_id()
        counts[i] = hpcjit.get_num_threads()
    return ids, counts, hpcjit.get_thread_id(), hpcjit.get_num_threads()


@njit
def set_threads_jit(n):
    old = hpcjit.get_num_threads()
    hpcjit.set_num_threads(n)
    now = hpcjit.get_num_threads()
    hpcjit.set_num_threads(old)
    return old, now


def _pair(n, seed=0):
    rng = np.random.default_rng(seed + n)
    return rng.random(n), rng.random(n)


# ---- array expressions --------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_array_expressions(nthreads, n):
    a, b = _pair(n)
    check(expr, a, b, rtol=0.0)
    check(expr_ufunc, a, b, rtol=1e-15, atol=1e-15)  # exp: an ulp from NumPy's
    ia, ib = (a * 1000).astype(np.int64), (b * 1000).astype(np.int64)
    check(expr_int, ia, ib, rtol=0.0)
    check(expr_strided, a, rtol=0.0)
    if n:
        check(inplace, a, b, rtol=0.0)
        check(stencil, a, rtol=0.0)


@pytest.mark.parametrize("shape", [(3, 5), (200, 300), (40000, 2), (2, 40000), (700, 1)])
def test_array_expressions_2d(nthreads, shape):
    rng = np.random.default_rng(shape[0])
    m = rng.random(shape)
    check(expr_2d, m, rng.random(shape[1]), rtol=0.0)
    check(expr_transposed, m, rtol=0.0)
    check(expr_transposed, np.asfortranarray(m), rtol=0.0)
    check(expr_transposed, m[::-1, ::2], rtol=0.0)


@pytest.mark.parametrize("n", SIZES)
def test_array_statements(nthreads, n):
    rng = np.random.default_rng(n)
    p, k, t = rng.uniform(50, 150, n), rng.uniform(50, 150, n), rng.uniform(0.5, 2.0, n)
    check(chain, p, k, t, rtol=1e-14)
    check(chain, p[::-1], k, t, rtol=1e-14)  # a strided operand: the nest
    check(chain, p[:, None][:, ::-1].ravel(), k, t, rtol=1e-14)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (3, 5), (40000, 2), (2, 40000), (300, 400)])
def test_array_statements_2d(nthreads, shape):
    rng = np.random.default_rng(shape[0] + shape[1])
    m = rng.uniform(50, 150, shape)
    check(chain, m, m[::-1], np.abs(m.T.T) * 0.01 + 0.5, rtol=1e-14)
    check(chain, np.asfortranarray(m), m, m * 0.01 + 0.5, rtol=1e-14)
    row = rng.uniform(0.5, 2.0, shape[1])
    check(chain, m, m + 1.0, row, rtol=1e-14)  # broadcasting: statement by statement


@pytest.mark.numba_skip("Numba's @vectorize loops drop the kernel's exception")
@pytest.mark.parametrize("n", [1, 7, 32767, 32768, 100003])
def test_array_statement_raises(nthreads, n):
    a = np.linspace(1.0, 5.0, n)
    check(chain_raising, a)
    before = hpcjit.memstats()
    for at in sorted({0, n // 2, n - 1}):
        bad = a.copy()
        bad[at] = 0.1
        with pytest.raises(ValueError, match="negative input"):
            chain_raising(bad)
        check(chain_raising, bad)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@pytest.mark.parametrize("shape", [(3, 7), (4, 40000)])
def test_array_statements_called_in_prange(nthreads, shape):
    m = np.random.default_rng(9).uniform(1.0, 2.0, shape)
    check(chain_rows_in_prange, m, rtol=1e-12)


@pytest.mark.numba_skip("inspects hpcjit's LLVM IR")
def test_array_statement_one_body():
    # a parallel array statement is emitted once, as the pool body (its
    # flat loop and its strided nest behind a test of the context's flag);
    # small sizes run it on the calling thread
    p = np.ones(10)
    expr(p, p)
    x = expr.inspect_llvm()
    x = x if isinstance(x, str) else "\n".join(x.values())
    assert x.count("rt_parallel_for_grain(") == 1 + x.count("declare i32 @rt_parallel_for_grain(")


def test_array_expression_shape_error_is_raised(nthreads):
    a, b = _pair(100000)
    before = hpcjit.memstats()
    for _ in range(3):
        check(expr, a, b[:-1])  # both raise ValueError
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@pytest.mark.numba_skip("inspects hpcjit's LLVM IR")
def test_array_expression_outlined_only_with_parallel():
    serial = njit(expr.py_func)
    a, b = _pair(10)
    serial(a, b), expr(a, b)

    def ir(f):
        x = f.inspect_llvm()
        return x if isinstance(x, str) else "\n".join(x.values())

    assert "rt_parallel_for_grain" in ir(expr)
    assert "rt_parallel_for_grain" not in ir(serial)


# ---- whole-array reductions ---------------------------------------------------------------

@pytest.mark.parametrize("n", [s for s in SIZES if s > 0])
def test_reductions(nthreads, n):
    a, b = _pair(n)
    check(reductions, a, b, rtol=1e-9)
    ia = (a * 20000 - 10000).astype(np.int64)
    check(int_reductions, ia, rtol=0.0)
    check(complex_sum, a + 1j * b, rtol=1e-9)


def test_reductions_empty_and_nan(nthreads):
    a = np.random.default_rng(3).random(70001)
    a[50000] = np.nan
    check(reductions, a, a.copy(), rtol=1e-9)
    check(int_reductions, np.zeros(0, np.int64), rtol=0.0)  # min of nothing: ValueError


@pytest.mark.parametrize("shape", [(3, 5), (300, 400), (7, 100001)])
def test_reductions_2d(nthreads, shape):
    m = np.random.default_rng(shape[1]).standard_normal(shape)
    check(reduce_2d, m, rtol=1e-9)
    check(reduce_2d, np.asfortranarray(m), rtol=1e-9)


def test_reductions_inside_prange(nthreads):
    m = np.random.default_rng(5).random((8, 40000))
    check(in_prange, m, rtol=1e-12)


@pytest.mark.numba_skip("bitwise reproducibility is hpcjit's")
@pytest.mark.parametrize("kernel", ["reductions", "det_reductions"])
def test_reductions_bitwise_across_threads(kernel):
    f = globals()[kernel]
    old = hpcjit.get_num_threads()
    try:
        for n in (40000, 100003, 1000001, 20000001):
            a, b = _pair(n, 7)
            seen = set()
            for t in THREADS:
                hpcjit.set_num_threads(t)
                seen.add(f(a, b))
            assert len(seen) == 1, (n, seen)
    finally:
        hpcjit.set_num_threads(old)


def test_no_leaks(nthreads):
    a, b = _pair(100003)
    m = np.random.default_rng(1).random((300, 400))
    before = hpcjit.memstats()
    for _ in range(3):
        expr(a, b), expr_ufunc(a, b), reductions(a, b), reduce_2d(m), inplace(a.copy(), b), stencil(a.copy())
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@pytest.mark.numba_skip("sweeps hpcjit's plan over 4 threads")
def test_library_loops_on_four_threads():
    code = """
        import numpy as np, hpcjit, sys
        sys.path.insert(0, %r)
        import test_parallel_library as T
        seen = {}
        for t in (1, 2, 3, 4):
            hpcjit.set_num_threads(t)
            for n in (7, 40000, 1000001):
                a, b = T._pair(n, 11)
                for f in (T.expr, T.expr_int):
                    args = (a, b) if f is T.expr else ((a * 99).astype(np.int64), (b * 99).astype(np.int64))
                    assert np.array_equal(f(*args), f.py_func(*args))
                r = T.reductions(a, b)
                np.testing.assert_allclose(r, T.reductions.py_func(a, b), rtol=1e-9)
                assert seen.setdefault(n, r) == r, (n, t, r, seen[n])
            ids, counts, tid, nt = T.thread_ids(1000)
            assert set(ids.tolist()) == set(range(t)), (t, set(ids.tolist()))
            assert (counts == t).all() and tid == 0 and nt == t
        print("ok")
    """ % HERE
    r = run_python(code, env={"HPCJIT_NUM_THREADS": "4"})
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


# ---- the thread API in jitted code -------------------------------------------------------

def test_thread_api_in_jit(nthreads):
    ids, counts, tid, nt = thread_ids(1000)
    assert tid == 0 and nt == nthreads
    assert (counts == nthreads).all()
    # static schedule: contiguous shares in thread order, every thread used
    assert (np.diff(ids) >= 0).all()
    assert set(ids.tolist()) == set(range(nthreads))
    assert thread_ids.py_func(5)[2:] == (0, nthreads)  # the same functions in CPython


@pytest.mark.numba_skip("hpcjit's message")
def test_set_num_threads_in_jit():
    old = hpcjit.get_num_threads()
    assert set_threads_jit(1) == (old, 1)
    assert hpcjit.get_num_threads() == old
    for bad in (0, MAX_THREADS + 1):
        with pytest.raises(ValueError, match="between 1 and"):
            set_threads_jit(bad)
    hpcjit.set_num_threads(old)


@pytest.mark.numba_skip("hpcjit's diagnostics")
def test_thread_api_typing_errors():
    @njit
    def bad_arg():
        hpcjit.set_num_threads(1.5)

    @njit
    def bad_count():
        return hpcjit.get_thread_id(1)

    with pytest.raises(hpcjit.TypingError, match=r"test_parallel_library\.py:\d+:\d+.*integer"):
        bad_arg()
    with pytest.raises(hpcjit.TypingError, match="takes 0 arguments"):
        bad_count()


@pytest.mark.numba_skip("numba is the shim itself")
def test_numba_spellings_in_jit():
    numba = pytest.importorskip("numba")

    @njit(parallel=True)
    def f(n):
        ids = np.zeros(n, np.int64)
        for i in prange(n):
            ids[i] = numba.get_thread_id() * 100 + numba.get_num_threads()
        return ids

    got = f(10)
    nt = hpcjit.get_num_threads()
    assert set((got % 100).tolist()) == {nt}
    assert set((got // 100).tolist()) <= set(range(nt))
