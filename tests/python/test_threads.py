"""Python threads calling compiled functions and compiling concurrently."""
import threading

import numpy as np

from hpcjit import njit
from conftest import assert_same, make_array


def run_threads(target, n):
    errors = []

    def wrap(k):
        try:
            target(k)
        except BaseException as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


@njit
def dot(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * b[i]
    return s


@njit
def scaled(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k
    return out


def test_many_threads_call_the_same_function():
    a = np.linspace(0, 1, 1000)
    b = np.linspace(1, 2, 1000)
    expect = dot.py_func(a, b)
    dot(a, b)

    def work(k):
        for _ in range(2000):
            assert_same(dot(a, b), expect)
            r = scaled(a, k)
            assert r[-1] == k

    run_threads(work, 8)


def test_threads_compile_the_same_function_concurrently():
    @njit
    def poly(x, y):
        return x * x + 3 * y - 1

    args_by_thread = [(1, 2), (1.5, 2.0), (np.float32(1.5), np.float32(2.0)), (2, 3.5),
                      (np.int32(3), np.int32(4)), (True, 2), (np.uint8(3), np.int16(2)), (7, np.int8(-1))]
    barrier = threading.Barrier(len(args_by_thread))

    def work(k):
        args = args_by_thread[k]
        barrier.wait()
        for _ in range(50):
            got = poly(*args)
            exp = poly.py_func(*args)
            assert float(got) == float(exp), (args, got, exp)

    run_threads(work, len(args_by_thread))
    assert len(poly.signatures) == len(args_by_thread)


def test_threads_compile_different_functions_concurrently():
    barrier = threading.Barrier(6)

    def work(k):
        @njit
        def f(a, m):
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i] * m
            return s

        a = make_array(np.float64, 50 + k)
        barrier.wait()
        for _ in range(20):
            assert_same(f(a, k), f.py_func(a, k))

    run_threads(work, 6)


def test_threads_with_exceptions():
    @njit
    def maybe_raise(x):
        if x % 2:
            raise ValueError("odd")
        return x // 2

    def work(k):
        for i in range(500):
            if (i + k) % 2:
                try:
                    maybe_raise(i + k)
                except ValueError as e:
                    assert str(e) == "odd"
                else:
                    raise AssertionError("no exception")
            else:
                assert maybe_raise(i + k) == (i + k) // 2

    run_threads(work, 6)


def test_threads_allocate_and_return_arrays():
    @njit
    def build(n, v):
        a = np.zeros((n, 2))
        for i in range(n):
            a[i, 0] = v
            a[i, 1] = i
        return a

    def work(k):
        for i in range(300):
            r = build(10 + i % 5, float(k))
            assert r.shape == (10 + i % 5, 2) and (r[:, 0] == k).all()

    run_threads(work, 6)
