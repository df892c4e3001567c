"""parallel=True: prange loops outlined onto the thread pool.  Every kernel
is compared with its py_func run by CPython (exactly for integers, to
rounding for floats), swept over thread counts; deterministic mode is
bitwise identical for every thread count."""
import os
import threading

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, prange
from conftest import check, run_python

# int_reductions' product wraps around in int64 as NumPy's scalars do
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

MAX_THREADS = hpcjit.get_num_threads()
THREADS = list(range(1, min(4, MAX_THREADS) + 1))


@pytest.fixture(params=THREADS)
def nthreads(request):
    old = hpcjit.get_num_threads()
    hpcjit.set_num_threads(request.param)
    yield request.param
    hpcjit.set_num_threads(old)


# ---- kernels ----------------------------------------------------------------

@njit(parallel=True)
def fill(a):
    for i in prange(a.shape[0]):
        a[i] = i * 2.0 + 1.0
    return a


@njit(parallel=True)
def psum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@njit(parallel=True)
def int_reductions(a):
    s = 0
    d = 100
    p = 1
    mn = 10 ** 9
    mx = -10 ** 9
    o = 0
    x = 0
    an = -1
    for i in prange(a.shape[0]):
        v = a[i]
        s += v
        d -= v
        p *= (v % 3) + 1
        mn = min(mn, v)
        mx = max(v, mx)
        o |= v
        x ^= v
        an &= v | 1
    return s, d, p % 1000003, mn, mx, o, x, an


@njit(parallel=True)
def float_minmax(a):
    lo = np.inf
    hi = -np.inf
    for i in prange(a.shape[0]):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi


@njit(parallel=True)
def assign_form(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s = s + a[i] * 0.5
    return s


@njit(parallel=True)
def range_forms(n):
    s = 0
    t = 0
    for i in prange(3, n):
        s += i
    for j in prange(n, -7, -3):
        t += j * j
    return s, t


@njit(parallel=True)
def rows(a, out):
    # nested ordinary loop, private accumulator, array write
    for i in prange(a.shape[0]):
        t = 0.0
        for j in range(a.shape[1]):
            if a[i, j] > 0.5:
                continue
            t += a[i, j] * a[i, j]
        out[i] = t
    return out


@njit(parallel=True)
def lastprivate(n):
    last = -1
    for i in prange(n):
        last = i * 3
    return last, i


@njit(parallel=True)
def with_locals(n):
    out = np.zeros(n)
    for i in prange(n):
        tmp = np.ones(4)
        tmp[1] = i
        out[i] = tmp[0] + tmp[1]
    return out


@njit(parallel=True)
def reads_outer(a, k, scale):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i] * scale + k
    return s


@njit(parallel=True)
def inner_prange(a):
    s = 0.0
    for i in prange(a.shape[0]):
        for j in prange(a.shape[1]):
            s += a[i, j]
    return s


@njit(parallel=True)
def bool_reduce(a):
    anyneg = False
    allpos = True
    for i in prange(a.shape[0]):
        anyneg |= a[i] < 0
        allpos &= a[i] > 0
    return anyneg, allpos


@njit(parallel=True)
def empty_loop(n):
    s = 5
    for i in prange(n):
        s += i
    return s


@njit(parallel=True)
def tid_max(n):
    m = 0
    for i in prange(n):
        m = max(m, 0)
    return m


def test_fill(nthreads):
    check(fill, np.zeros(1001))


def test_float_sum(nthreads):
    a = np.random.default_rng(1).random(100003)
    check(psum, a, rtol=1e-9)


@pytest.mark.numba_skip("Numba's parfors refuse these reduction forms")
def test_int_reductions_exact(nthreads):
    for n in (0, 1, 7, 1000, 20001):
        a = np.arange(1, n + 1, dtype=np.int64) * 7 % 1013
        check(int_reductions, a, rtol=0)


def test_float_minmax(nthreads):
    a = np.random.default_rng(2).standard_normal(9999)
    check(float_minmax, a, rtol=0)


def test_assign_reduction(nthreads):
    check(assign_form, np.random.default_rng(3).random(5000), rtol=1e-9)


@pytest.mark.numba_skip("Numba's prange differs on these range forms")
def test_range_forms(nthreads):
    for n in (0, 3, 4, 100, 1001):
        check(range_forms, n, rtol=0)


def test_nested_loop_rows(nthreads):
    a = np.random.default_rng(4).random((103, 17))
    check(rows, a, np.zeros(103))


@pytest.mark.numba_skip("Numba does not keep the last iteration's values of prange variables")
def test_lastprivate(nthreads):
    check(lastprivate, 1000, rtol=0)


@pytest.mark.numba_skip("hpcjit's memstats")
def test_local_arrays_freed(nthreads):
    before = hpcjit.memstats()
    check(with_locals, 257)
    r = with_locals(300)
    del r
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


def test_reads_enclosing_scalars(nthreads):
    check(reads_outer, np.arange(1000.0), 3, 0.25, rtol=1e-12)


def test_inner_prange_is_serial(nthreads):
    check(inner_prange, np.random.default_rng(5).random((40, 30)), rtol=1e-9)


@pytest.mark.numba_skip("Numba's parfors refuse these reduction forms")
def test_bool_reductions(nthreads):
    check(bool_reduce, np.array([1.0, 2.0, 3.0]))
    check(bool_reduce, np.array([1.0, -2.0, 3.0]))


def test_empty_range(nthreads):
    check(empty_loop, 0)
    check(empty_loop, 10)


def test_without_parallel_prange_is_serial():
    @njit
    def serial(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    check(serial, np.arange(100.0))


# ---- schedules ----------------------------------------------------------------

@njit(parallel=True, schedule="dynamic")
def dyn_sum(a):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i]
    return s


@pytest.mark.numba_skip("hpcjit's schedule= option")
def test_dynamic_schedule(nthreads):
    check(dyn_sum, np.random.default_rng(6).random(50000), rtol=1e-9)


@pytest.mark.numba_skip("hpcjit's schedule= option")
def test_chunksize(nthreads):
    old = hpcjit.set_parallel_chunksize(7)
    try:
        assert hpcjit.get_parallel_chunksize() == 7
        check(psum, np.random.default_rng(7).random(3001), rtol=1e-9)
        check(int_reductions, np.arange(500, dtype=np.int64), rtol=0)
    finally:
        hpcjit.set_parallel_chunksize(old)
    assert hpcjit.get_parallel_chunksize() == old
    with pytest.raises(ValueError):
        hpcjit.set_parallel_chunksize(-1)


@pytest.mark.numba_skip("hpcjit's schedule= option")
def test_schedule_option_checked():
    with pytest.raises(ValueError):
        njit(parallel=True, schedule="guided")(lambda x: x)


# ---- exceptions inside prange bodies --------------------------------------------

@njit(parallel=True)
def raises_at(a, k):
    for i in prange(a.shape[0]):
        if i == k:
            raise ValueError("bad element")
        a[i] = 1.0
    return a


@njit(parallel=True, boundscheck=True)
def out_of_bounds(a):
    s = 0.0
    for i in prange(a.shape[0] + 3):
        s += a[i]
    return s


@njit(parallel=True)
def divides(a, b):
    s = 0
    for i in prange(a.shape[0]):
        s += a[i] // b[i]
    return s


@njit(parallel=True)
def raises_with_arrays(n, k):
    out = np.zeros(n)
    for i in prange(n):
        tmp = np.ones(3)
        if i == k:
            raise ValueError("late")
        out[i] = tmp[0]
    return out


@pytest.mark.numba_skip("Numba cannot raise from prange bodies")
def test_value_error_with_message(nthreads):
    for k in (0, 500, 999):
        with pytest.raises(ValueError, match="bad element"):
            raises_at(np.zeros(1000), k)
    check(raises_at, np.zeros(100), 1000)


@pytest.mark.numba_skip("Numba cannot raise from prange bodies")
def test_index_error_boundscheck(nthreads):
    with pytest.raises(IndexError, match="out of bounds"):
        out_of_bounds(np.ones(10))


@pytest.mark.numba_skip("Numba cannot raise from prange bodies")
def test_zero_division(nthreads):
    b = np.ones(1000, dtype=np.int64)
    b[777] = 0
    with pytest.raises(ZeroDivisionError):
        divides(np.arange(1000), b)
    check(divides, np.arange(1000), np.ones(1000, dtype=np.int64) * 3, rtol=0)


@pytest.mark.numba_skip("Numba cannot raise from prange bodies")
def test_exception_releases_arrays(nthreads):
    before = hpcjit.memstats()
    for k in (0, 50, 99):
        with pytest.raises(ValueError, match="late"):
            raises_with_arrays(100, k)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


def test_return_and_break_in_prange_run_serially(nthreads):
    # As in Numba: a prange loop with a second exit is not parallelised
    # (Numba warns "more than one entry to or exit from the loop") and
    # behaves as range.
    @njit(parallel=True)
    def ret(n, stop):
        s = 0
        for i in prange(n):
            if i == stop:
                return s * 1000 + i
            s += i
        return -s

    @njit(parallel=True)
    def brk(a, stop):
        s = 0.0
        for i in prange(a.shape[0]):
            if a[i] > stop:
                break
            s += a[i]
            for j in range(3):  # a break of an inner loop is fine
                if j == 1:
                    break
                a[i] += 1.0
        return s

    for stop in (0, 7, 500, 10 ** 6):
        assert ret(1000, stop) == ret.py_func(1000, stop)
    a = np.arange(2000.0)
    for stop in (-1.0, 3.0, 1500.0, 1e9):
        x, y = a.copy(), a.copy()
        assert brk(x, stop) == brk.py_func(y, stop)
        np.testing.assert_array_equal(x, y)


# ---- thread API -------------------------------------------------------------------

@pytest.mark.numba_skip("hpcjit plan-specific bounds")
def test_thread_api():
    old = hpcjit.get_num_threads()
    assert 1 <= old <= MAX_THREADS
    assert hpcjit.get_thread_id() == 0
    hpcjit.set_num_threads(1)
    assert hpcjit.get_num_threads() == 1
    hpcjit.set_num_threads(MAX_THREADS)
    assert hpcjit.get_num_threads() == MAX_THREADS
    for bad in (0, -1, MAX_THREADS + 1):
        with pytest.raises(ValueError):
            hpcjit.set_num_threads(bad)
    assert hpcjit.get_num_threads() == MAX_THREADS
    hpcjit.set_num_threads(old)


@pytest.mark.numba_skip("hpcjit's pool (Numba's workqueue layer refuses concurrent use)")
def test_python_threads_concurrently():
    a = np.random.default_rng(8).random(20000)
    ia = np.arange(3000, dtype=np.int64)
    exp_f = psum.py_func(a)
    exp_i = int_reductions.py_func(ia)
    errors = []

    def work(k):
        try:
            for _ in range(30):
                assert abs(psum(a) - exp_f) <= 1e-9 * abs(exp_f)
                assert int_reductions(ia) == exp_i
                out = rows(a.reshape(200, 100), np.zeros(200))
                assert np.allclose(out, rows.py_func(a.reshape(200, 100), np.zeros(200)))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


@pytest.mark.numba_skip("hpcjit's pool")
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_fork_in_the_middle():
    code = """
        import os, sys
        import numpy as np
        from hpcjit import njit, prange

        @njit(parallel=True)
        def psum(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i] * 2.0
            return s

        a = np.arange(100000.0)
        exp = psum.py_func(a)
        assert abs(psum(a) - exp) <= 1e-9 * exp     # the pool is running
        pid = os.fork()
        if pid == 0:
            ok = all(abs(psum(a) - exp) <= 1e-9 * exp for _ in range(20))
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
        assert abs(psum(a) - exp) <= 1e-9 * exp
        print("ok")
    """
    r = run_python(code)
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


# ---- deterministic mode ----------------------------------------------------------

@pytest.mark.numba_skip("hpcjit's reproducible mode")
def test_deterministic_bitwise_across_threads():
    code = """
        import numpy as np, hpcjit
        from hpcjit import njit, prange

        @njit(parallel=True, deterministic=True)
        def dsum(a):
            s = 0.5
            p = 1.0
            for i in prange(a.shape[0]):
                s += a[i]
                p *= 1.0 + a[i] * 1e-6
            return s, p

        @njit(parallel=True, deterministic=True, schedule="dynamic")
        def ddyn(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s -= a[i] * a[i]
            return s

        @njit(parallel=True, deterministic=True)
        def dcols(a):
            acc = np.zeros(a.shape[1])
            for i in prange(a.shape[0]):
                acc += a[i]
            return acc

        rng = np.random.default_rng(9)
        m = rng.standard_normal((20000, 3))
        cols = set()
        for t in (1, 2, 3, 4):
            hpcjit.set_num_threads(t)
            cols.add(tuple(dcols(m)))
        assert len(cols) == 1, cols
        assert np.allclose(np.array(cols.pop()), m.sum(0), rtol=1e-9)
        for n in (0, 1, 4095, 4096, 4097, 100003, 1000001):
            a = rng.standard_normal(n)
            seen = set()
            for t in (1, 2, 3, 4):
                hpcjit.set_num_threads(t)
                for chunk in (0, 3):
                    hpcjit.set_parallel_chunksize(chunk)
                    seen.add((dsum(a), ddyn(a)))
            assert len(seen) == 1, (n, seen)
            (s, p), d = seen.pop()
            es, ep = dsum.py_func(a)
            assert abs(s - es) <= 1e-9 * max(1.0, abs(es)), (s, es)
            assert abs(p - ep) <= 1e-9 * abs(ep), (p, ep)
            ed = ddyn.py_func(a)
            assert abs(d - ed) <= 1e-9 * max(1.0, abs(ed)), (d, ed)
        print("ok")
    """
    r = run_python(code, env={"HPCJIT_NUM_THREADS": "4"})
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


@pytest.mark.numba_skip("hpcjit's reproducible mode")
def test_deterministic_from_environment():
    code = """
        import numpy as np, hpcjit
        from hpcjit import njit, prange

        @njit(parallel=True)
        def dsum(a):
            s = 0.0
            for i in prange(a.shape[0]):
                s += a[i]
            return s

        a = np.random.default_rng(10).standard_normal(300001)
        seen = set()
        for t in (1, 2, 3, 4):
            hpcjit.set_num_threads(t)
            seen.add(dsum(a))
        assert len(seen) == 1, seen
        print("ok")
    """
    r = run_python(code, env={"HPCJIT_NUM_THREADS": "4", "HPCJIT_DETERMINISTIC": "1"})
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


@pytest.mark.numba_skip("sweeps hpcjit's plan over 4 threads")
def test_kernels_on_four_threads():
    code = """
        import numpy as np, hpcjit, sys
        sys.path.insert(0, %r)
        import test_parallel as T
        for t in (1, 2, 3, 4):
            hpcjit.set_num_threads(t)
            a = np.arange(1, 20001, dtype=np.int64) * 7 %% 1013
            assert T.int_reductions(a) == T.int_reductions.py_func(a)
            f = np.random.default_rng(t).random(100003)
            assert abs(T.psum(f) - T.psum.py_func(f)) <= 1e-9 * T.psum.py_func(f)
            m = np.random.default_rng(t).random((64, 33))
            assert np.allclose(T.rows(m, np.zeros(64)), T.rows.py_func(m, np.zeros(64)))
            assert T.lastprivate(999) == T.lastprivate.py_func(999)
        print("ok")
    """ % os.path.dirname(os.path.abspath(__file__))
    r = run_python(code, env={"HPCJIT_NUM_THREADS": "4"})
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


# ---- more shapes of loops ----------------------------------------------------------

@njit
def helper(x):
    return x * x + 1.0


@njit(parallel=True)
def calls_and_types(a, c, u):
    s32 = np.float32(0.0)
    z = 0j
    umin = u[0]
    h = 0.0
    for i in prange(a.shape[0]):
        s32 += a[i]
        z += c[i] * 2
        umin = min(umin, u[i])
        h += helper(np.float64(a[i]))
    return s32, z, umin, h


@njit(parallel=True)
def loop_else(n, out):
    for i in prange(n):
        out[i] = i
    else:
        out[0] = -1
    return out


@njit(parallel=True)
def last_array(n):
    tmp = np.zeros(2)
    for i in prange(n):
        tmp = np.zeros(2)
        tmp[0] = i
    return tmp


def test_types_and_calls(nthreads):
    rng = np.random.default_rng(11)
    a = rng.random(3001).astype(np.float32)
    c = rng.random(3001) + 1j * rng.random(3001)
    u = rng.integers(5, 1 << 40, 3001).astype(np.uint64)
    got = calls_and_types(a, c, u)
    exp = calls_and_types.py_func(a, c, u)
    assert abs(got[0] - exp[0]) <= 1e-3 * abs(exp[0])
    assert abs(got[1] - exp[1]) <= 1e-9 * abs(exp[1])
    assert got[2] == exp[2]
    assert abs(got[3] - exp[3]) <= 1e-9 * abs(exp[3])


def test_loop_else(nthreads):
    check(loop_else, 50, np.zeros(50, dtype=np.int64))


@pytest.mark.numba_skip("hpcjit's memstats")
def test_lastprivate_array(nthreads):
    before = hpcjit.memstats()
    check(last_array, 100)
    check(last_array, 0)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@pytest.mark.numba_skip("hpcjit's IR")
def test_outlined_onto_the_pool():
    ir = "\n".join(psum.inspect_llvm().values())
    assert "rt_parallel_for" in ir and ".prange." in ir


@pytest.mark.numba_skip("Numba cannot raise from prange bodies")
def test_exceptions_from_python_threads():
    errors = []

    def work(k):
        try:
            for j in range(20):
                a = np.zeros(2000)
                with pytest.raises(ValueError, match="bad element"):
                    raises_at(a, (k * 97 + j * 13) % 2000)
                out = raises_at(np.zeros(100), 1000)
                assert (out == 1.0).all()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


# ---- whole-array reductions -----------------------------------------------------

@njit(parallel=True)
def colsum(a):
    acc = np.zeros(a.shape[1])
    for i in prange(a.shape[0]):
        acc += a[i]
    return acc


@njit(parallel=True)
def colprod_into(a, acc):
    for i in prange(a.shape[0]):
        acc *= a[i]
    return acc


@njit(parallel=True)
def histogram(x, nb):
    h = np.zeros(nb, dtype=np.int64)
    for i in prange(x.shape[0]):
        one = np.zeros(nb, dtype=np.int64)
        one[int(x[i] * nb)] = 1
        h += one
    return h


@njit(parallel=True)
def grid_sum(a):
    acc = np.zeros((a.shape[1], a.shape[2]))
    t = 0.0
    for i in prange(a.shape[0]):
        acc -= a[i]
        t += a[i, 0, 0]
    return acc, t


def test_array_reductions(nthreads):
    rng = np.random.default_rng(12)
    check(colsum, rng.random((5003, 7)), rtol=1e-9)
    check(colsum, np.zeros((0, 3)))
    check(colprod_into, 1.0 + rng.random((300, 4)) * 1e-3, np.ones(4), rtol=1e-9)
    check(histogram, rng.random(4001), 9, rtol=0)
    check(grid_sum, rng.random((257, 3, 4)), rtol=1e-9)


@pytest.mark.numba_skip("hpcjit's memstats")
def test_array_reductions_free_their_partials(nthreads):
    a = np.random.default_rng(13).random((999, 5))
    colsum(a)
    before = hpcjit.memstats()
    for _ in range(5):
        colsum(a)
        histogram(a[:, 0], 4)
    after = hpcjit.memstats()
    assert after[0] - before[0] == after[1] - before[1]


@pytest.mark.numba_skip("hpcjit's refusal of racy updates")
def test_racy_array_update_refused():
    @njit(parallel=True)
    def f(a):
        acc = np.ones(3)
        for i in prange(a.shape[0]):
            acc += acc * a[i]
        return acc

    with pytest.raises(hpcjit.errors.UnsupportedError, match="acc"):
        f(np.ones(4))


# ---- the chunk size of prange loops from compiled code ---------------------------------

def test_parallel_chunksize_in_compiled_code():
    """get/set_parallel_chunksize and `with parallel_chunksize(n):` inside
    compiled code (Numba's chunksize examples): the size is the calling
    thread's, 0 inside a prange body, and restored when the with block is
    left, by a return too."""
    from hpcjit import get_parallel_chunksize, parallel_chunksize, set_parallel_chunksize

    @njit(parallel=True)
    def manual(n):
        acc = 0
        before = get_parallel_chunksize()
        old = set_parallel_chunksize(8)
        for i in prange(n):
            acc += i + 1000 * get_parallel_chunksize()
        inside = get_parallel_chunksize()
        set_parallel_chunksize(old)
        return acc, before, old, inside, get_parallel_chunksize()

    @njit(parallel=True)
    def with_block(n):
        acc = 0
        with parallel_chunksize(3):
            size = get_parallel_chunksize()
            for i in prange(n):
                acc += i * i
        return acc, size, get_parallel_chunksize()

    saved = set_parallel_chunksize(4)
    try:
        assert manual(12) == (66, 4, 4, 8, 4)
        assert with_block(12) == (506, 3, 4)
    finally:
        set_parallel_chunksize(saved)


@pytest.mark.numba_skip("Numba keeps the with block's chunk size after a return inside it")
def test_parallel_chunksize_restored_by_return():
    from hpcjit import get_parallel_chunksize, parallel_chunksize, set_parallel_chunksize

    @njit(parallel=True)
    def with_return(n):
        acc = 0
        with parallel_chunksize(3):
            for i in prange(n):
                acc += i * i
            if n > 100:
                return acc, get_parallel_chunksize()
        return acc, -1

    saved = set_parallel_chunksize(4)
    try:
        assert with_return(200) == (sum(i * i for i in range(200)), 3)
        assert get_parallel_chunksize() == 4
    finally:
        set_parallel_chunksize(saved)


@pytest.mark.numba_skip("hpcjit's message")
def test_parallel_chunksize_negative_is_a_value_error():
    from hpcjit import set_parallel_chunksize

    @njit
    def bad(k):
        return set_parallel_chunksize(k)

    with pytest.raises(ValueError, match="chunksize"):
        bad(-2)


@njit(parallel=True)
def par_ae_consts(a, b):
    return np.sin((b - a) / 2) ** 2 + 2 * np.sqrt(1 - a) ** 2


def test_parallel_arrayexpr_constants_stay_constants():
    # the outlined loop keeps 2, 1 and ** 2 as constants (x ** 2 is x * x,
    # not a pow call on an exponent loaded from the context)
    rng = np.random.default_rng(3)
    a, b = rng.random(50000), rng.random(50000)
    check(par_ae_consts, a, b)
    ir = "".join(par_ae_consts.inspect_llvm().values())
    assert "pow" not in ir


@njit(parallel=True)
def par_min_max(a):
    return a.min(), a.max(), np.sum(a)


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.complex128])
def test_parallel_min_max_contiguous(dt):
    # the pool's blocks keep the constant stride of a contiguous array
    # (vector loads); strided views take the run-time stride
    n = 5 * 16384 + 37
    a = (np.random.default_rng(3).standard_normal(n) * 100).astype(dt)
    rt = 1e-5 if dt == np.float32 else 1e-9  # the sum's block order
    check(par_min_max, a, rtol=rt)
    check(par_min_max, a[::-1], rtol=rt)
    check(par_min_max, a[::3], rtol=rt)
    check(par_min_max, a.reshape(-1, 1)[:, 0], rtol=rt)
    if dt in (np.float64, np.float32):
        for pos in (0, 16384, n - 1):
            b = a.copy()
            b[pos] = np.nan
            check(par_min_max, b)
    check(par_min_max, a[:0])  # ValueError: zero-size array


@njit(parallel=True)
def _const_ranges(a):
    s = 0.0
    for i in prange(-5, 5):  # negative indices: still wrapped
        s += a[i] * i
    t = 0.0
    for i in prange(a.shape[0] - 1, -1, -2):
        t += a[i] * i
    u = 0.0
    for i in prange(3, a.shape[0], 3):
        u += a[i - 4]
    w = 0.0
    for i in prange(a.shape[0]):  # start 0, step 1: the index is the chunk counter
        w += a[i]
    return s, t, u, w


def test_constant_start_and_step_keep_python_indexing(nthreads):
    a = np.random.default_rng(3).random(100_001)
    assert np.allclose(_const_ranges(a), _const_ranges.py_func(a), rtol=1e-9)
