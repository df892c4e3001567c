"""Generators (a jitted function containing `yield`) consumed by for loops
in compiled code (inlined) and as generator objects (next(), loops, passed
and returned, lazy iterators from Python); map() and filter() in compiled
loops; enumerate/zip/reversed over every kind of iterable.  Compared with
CPython (py_func)."""
import gc

import numpy as np
import pytest

import hpcjit
from conftest import AGAINST_NUMBA, check, run_python

njit = hpcjit.njit
memstats = None if AGAINST_NUMBA else hpcjit._core.memstats


@pytest.fixture
def balanced():
    """Every allocation made by the test is freed (the garbage of earlier
    tests, such as py_func's tracebacks holding generator objects, is
    collected first)."""
    if memstats is None:
        yield
        return
    gc.collect()
    before = memstats()
    yield
    after = memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)


@njit
def squares(n):
    for i in range(n):
        yield i * i


@njit
def scaled(a, k=2.0):
    j = 0
    for x in a:
        if x < 0:
            return  # ends the iteration
        yield x * k + j
        j += 1
    yield -1.0


@njit
def pairs(n):
    i = 0
    while i < n:
        yield i, i * 0.5
        i += 1


@njit
def rows(a):
    for i in range(a.shape[0]):
        yield a[i] * 2.0


@njit
def chained(n):
    for v in squares(n):  # a generator consuming another
        if v % 2 == 0:
            yield v + 1


@njit
def empty_gen(n):
    if n > 100:
        yield n


@njit
def total(n):
    s = 0
    for v in squares(n):
        s += v
    return s


@njit
def control(n, stop):
    s = 0
    for v in squares(n):
        if v == 4:
            continue
        if v > stop:
            break
        s += v
    else:
        s = -s
    return s


@njit
def with_return(a):
    s = 0.0
    c = 0
    for v in scaled(a):
        s += v
        c += 1
    else:
        c += 100
    return s, c


@njit
def keywords(a):
    s = 0.0
    for v in scaled(a, k=0.5):
        s += v
    for v in scaled(k=3.0, a=a):
        s += v
    return s


@njit
def unpack(n):
    s = 0.0
    for i, h in pairs(n):
        s += i * h
    return s


@njit
def over_rows(a):
    s = 0.0
    for r in rows(a):
        s += r.sum()
    return s


@njit
def rows_break(a):
    s = 0.0
    for r in rows(a):
        if r[0] > 4:
            break
        s += r.sum()
    return s


@njit
def nested_gens(n):
    s = 0
    for v in chained(n):
        for w in squares(v % 5):
            s += w
    return s


@njit
def none_yielded(n):
    c = 0
    for v in empty_gen(n):
        c += v
    return c


@njit
def in_comprehension(n):
    return [v * 2 for v in squares(n) if v > 3]


@njit
def listed(n):
    return list(squares(n))


@njit
def reductions(n):
    return sum(squares(n)), max(squares(n)), min(scaled(np.arange(3.0))), \
        sorted(squares(n), reverse=True), len(set(squares(n)))


def test_list_of_generator():
    for n in (1, 5):
        check(listed, n)


@pytest.mark.numba_skip("Numba's sum/min/max/sorted/set take no generator")
def test_consumed_by_builtins():
    for n in (1, 5):
        check(reductions, n)


def test_consumed_by_loops():
    for n in (0, 1, 5, 10):
        check(total, n)
        check(nested_gens, n)
    for stop in (0, 10, 30, 1000):
        check(control, 7, stop)
    check(with_return, np.array([1.0, 2.0, 3.0]))
    check(with_return, np.array([1.0, -2.0, 3.0]))
    check(keywords, np.array([0.5, 1.5]))
    check(unpack, 6)
    check(none_yielded, 3)
    check(none_yielded, 300)
    check(in_comprehension, 6)


def test_arrays_released(balanced):
    a = np.arange(12.0).reshape(4, 3)
    check(over_rows, a)
    check(rows_break, a)
    for _ in range(3):
        over_rows(a)
        rows_break(a)


def test_called_from_python(balanced):
    it = squares(5)
    assert next(it) == 0
    assert list(it) == [1, 4, 9, 16]
    assert list(squares(0)) == []
    a = np.array([1.0, 2.0, -1.0, 5.0])
    assert list(scaled(a)) == list(scaled.py_func(a))
    assert list(scaled(a, k=3.0)) == list(scaled.py_func(a, k=3.0))
    assert list(pairs(3)) == list(pairs.py_func(3))
    assert list(chained(6)) == list(chained.py_func(6))
    got = list(rows(np.ones((2, 2))))
    assert len(got) == 2 and all((r == 2.0).all() for r in got)


@njit
def evens(n):
    for i in range(0, n, 2):
        yield i


@njit
def consume(g, n):
    s = 0
    for v in g(n):
        s += v
    return s


@njit
def consume_both(n):
    return consume(squares, n) * 100 + consume(evens, n)


def test_generator_function_as_argument():
    check(consume_both, 7)
    assert consume(squares, 4) == consume.py_func(squares, 4) == 14


@njit
def gen_send(n):
    for i in range(n):
        x = yield i
        n += x


@njit
def use_send(n):
    s = 0
    for v in gen_send(n):
        s += v
    return s


@njit
def yield_in_try(n):
    for i in range(n):
        try:
            yield i
        except ValueError:
            pass


@njit
def use_yield_in_try(n):
    s = 0
    for v in yield_in_try(n):
        s += v
    return s


@njit
def recursive_gen(n):
    if n > 0:
        for v in recursive_gen(n - 1):
            yield v
    yield n


@njit
def use_recursive_gen(n):
    s = 0
    for v in recursive_gen(n):
        s += v
    return s


@njit
def lengthed(n):
    return len(squares(n))


@pytest.mark.numba_skip("Numba refuses yield inside try and recursive generators")
def test_loops_over_generator_objects():
    """A generator the consuming loop cannot inline (a yield inside try, a
    call of itself) is iterated as a generator object."""
    for n in (0, 1, 4):
        check(use_yield_in_try, n)
        check(use_recursive_gen, n)
    assert list(recursive_gen(3)) == list(recursive_gen.py_func(3))


@njit
def send_obj(n):
    g = gen_send(n)
    return next(g)


@njit
def yield_in_finally(n):
    try:
        yield n
    finally:
        n += 1


@njit
def use_yield_in_finally(n):
    return next(yield_in_finally(n))


@njit
def delegating(n):
    yield from squares(n)


@njit
def use_delegating(n):
    return next(delegating(n))


@pytest.mark.numba_skip("hpcjit's limits and messages")
def test_unsupported_forms():
    with pytest.raises(hpcjit.TypingError, match=r"len\(\) of generator\(int64\)") as ei:
        lengthed(3)
    assert "len(squares(n))" in str(ei.value)
    with pytest.raises(hpcjit.UnsupportedError, match="yield"):
        use_send(3)
    with pytest.raises(hpcjit.UnsupportedError, match=r"send\(\)") as ei:
        send_obj(3)
    assert "test_generators.py" in str(ei.value) and "x = yield i" in str(ei.value)
    with pytest.raises(hpcjit.UnsupportedError, match="'finally' clause") as ei:
        use_yield_in_finally(3)
    assert "yield n" in str(ei.value) and "^" in str(ei.value)
    with pytest.raises(hpcjit.UnsupportedError, match="'yield from'") as ei:
        use_delegating(3)
    assert "test_generators.py" in str(ei.value)
    with pytest.raises(hpcjit.TypingError, match=r"cannot add float64 and Tuple\(int64, float64\)"):
        sum_of(pairs(2))  # a generator object of another item type from Python


@njit
def checked(a):
    for x in a:
        if x < 0:
            raise ValueError("negative value")
        yield np.sqrt(x)


@njit
def catches(a):
    s = 0.0
    try:
        for v in checked(a):
            s += v
    except ValueError:
        s = -1.0
    return s


@njit
def raises_in_body(a):
    s = 0.0
    for v in rows(a):
        if v[0] > 2:
            raise IndexError("row")
        s += v.sum()
    return s


@pytest.mark.numba_skip("Numba cannot type the except clause around this generator loop")
def test_exception_caught_around_loop():
    check(catches, np.array([1.0, 4.0]))
    check(catches, np.array([1.0, -4.0]))


def test_exceptions_propagate():
    check(raises_in_body, np.arange(6.0).reshape(3, 2))
    check(raises_in_body, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="negative"):
        list(checked(np.array([-1.0])))


def test_exceptions_release_arrays(balanced):
    """The compiled calls alone (py_func's traceback would keep the
    iterator's arrays alive until the garbage collector runs)."""
    a = np.arange(6.0).reshape(3, 2)
    for _ in range(2):
        with pytest.raises(IndexError):
            raises_in_body(a)
        assert raises_in_body(np.zeros((2, 2))) == 0.0
        if not AGAINST_NUMBA:
            assert catches(np.array([1.0, -4.0])) == -1.0


@njit
def inner_generator(n, k):
    def g(m):
        for i in range(m):
            yield i + k

    s = 0
    for v in g(n):
        s += v
    return s + len([v for v in g(2)])


@pytest.mark.numba_skip("Numba refuses yield in a closure")
def test_inner_generator_function():
    check(inner_generator, 5, 10)


@njit(parallel=True)
def in_prange(n):
    out = np.zeros(n)
    for i in hpcjit.prange(n):
        s = 0.0
        for v in squares(i):
            if v > 50:
                break
            s += v
        out[i] = s
    return out


def test_inside_prange():
    check(in_prange, 13)


# ---- generator objects -------------------------------------------------------
# A generator function called anywhere but as a for loop's iterable makes a
# generator object (an LLVM coroutine): next(), for loops, passed to and
# returned from jitted functions, returned to Python as a lazy iterator.


@njit
def call_outside_loop(n):
    g = squares(n)
    s = 0
    for v in g:
        s += v
    return s


@njit
def next_then_loop(n):
    g = squares(n)
    a = next(g)
    b = next(g)
    s = 0
    for v in g:  # resumes where next() left it
        s += v
    return a, b, s


@njit
def next_default(n):
    g = squares(n)
    s = 0
    while True:
        v = next(g, -1)
        if v < 0:
            break
        s += v
    return s, next(g, 2.5)


@njit
def stop_iteration(n):
    g = squares(n)
    c = 0
    try:
        while True:
            c += next(g)
    except StopIteration:
        c = -c
    return c


@njit
def next_past_end(n):
    g = squares(n)
    for v in g:
        pass
    return next(g)


@njit
def sum_of(g):
    s = 0.0
    for v in g:
        s += v
    return s


@njit
def passed_along(n):
    return sum_of(chained(n)) + sum_of(squares(n))


@njit
def make_gen(n):
    return squares(n)


@njit
def two_gens(n):
    g = squares(n)
    h = squares(n + 2)
    s = 0
    for v in g:
        s += v * next(h)  # interleaved: each keeps its own state
    return s


@njit
def abandoned(a):
    g = rows(a)
    r = next(g)
    return r.sum()  # g is destroyed while suspended


@njit
def held_rows(a):
    b = a + 1.0
    for i in range(b.shape[0]):
        yield b[i], b[i].sum()


@njit
def consume_held(a):
    s = 0.0
    for r, t in held_rows(a * 2.0):  # the argument is a temporary array
        s += r[0] * t
    g = held_rows(a)
    r, t = next(g)
    return s + t


@njit
def raising_gen(a):
    g = checked(a)
    s = 0.0
    for v in g:
        s += v
    return s


@njit
def listed_object(n):
    g = squares(n)
    first = next(g)
    rest = list(g)
    rest.extend(squares(2))
    arrs = list(rows(np.ones((2, 2)) * n))
    return first, rest, len(arrs), arrs[1].sum()


@njit
def gen_in_tuple(a):
    return held_rows(a), a.shape[0]


@njit
def gens_in_list(a):
    return [held_rows(a), held_rows(a * 2.0)]


@njit
def zipped_gens(n):
    s = 0
    g = squares(n)
    for i, v in enumerate(g):
        s += i * v
    for i, v in enumerate(squares(n), 5):
        s += i * v
    h = squares(n)
    for v, w in zip(range(3), h):  # stops at the range: h resumed 3 times
        s += w * v
    rest = 0
    for v in h:
        rest += 1
    k = squares(n)
    for v, w in zip(k, range(3)):  # k resumed once more, as Python's zip does
        s += w * v
    for v in k:
        rest += 10
    return s, rest


@njit
def zipped_rows(a):
    s = 0.0
    for (i, r), x in zip(enumerate(rows(a)), a[:, 0]):
        s += i * r.sum() + x
    else:
        s += 1000.0
    return s, [v for v in zip(squares(4), squares(3))]


@njit
def doubled(g):
    for v in g:
        yield 2 * v


@njit
def gen_of_gens(n):
    return list(doubled(doubled(squares(n))))


@njit
def second_of(gen, n):
    g = gen(n)
    next(g)
    return next(g)


@njit
def picked(c, n):
    f = squares if c else evens
    s = 0
    for v in f(n):  # a call through a function variable: an object
        s += v
    g = squares(n) if c else evens(n + 1)  # one type: generator(int64)
    return s, [v for v in g]


@njit
def reduced_objects(n):
    g = squares(n)
    h = squares(n)
    next(h)
    return max(g), min(h), len(set(squares(n)))


@njit
def summed_objects(n):
    g = squares(n)
    return sum(g), sum(squares(n), 0.5)


@njit
def gens_of_squares(n):
    for i in range(n):
        yield squares(i)  # a generator yielding generator objects


@njit
def flattened(n):
    out = []
    for g in gens_of_squares(n):
        for v in g:
            out.append(v)
    return out


@njit
def counter(start):
    i = start
    while True:
        yield i
        i += 1


def test_enumerate_zip_over_generators(balanced):
    for n in (0, 2, 6):
        check(zipped_gens, n)
    check(zipped_rows, np.arange(6.0).reshape(3, 2))


def test_generator_objects_in_compiled_code():
    for n in (2, 5):
        check(second_of, squares, n)  # a generator function passed as an argument
        check(second_of, evens, n + 2)
    for n in (0, 1, 5):
        check(call_outside_loop, n)
        check(two_gens, n)
    for n in (2, 5):
        check(next_then_loop, n)
        check(listed_object, n)
        check(reduced_objects, n)
    check(next_then_loop, 1)  # StopIteration from the second next()


@pytest.mark.numba_skip("Numba types a generator by its function: two functions' generators do not unify")
def test_generators_of_several_functions():
    for n in (2, 5):
        check(picked, True, n)
        check(picked, False, n)


@pytest.mark.numba_skip("Numba's sum() takes no generator; its min() of an empty one raises StopIteration")
def test_reductions_of_generator_objects():
    for n in (0, 1, 5):
        check(summed_objects, n)
    check(reduced_objects, 1)  # min() of an exhausted generator: ValueError


@pytest.mark.numba_skip("Numba 0.68 has no next(g, default)")
def test_next_default():
    for n in (0, 1, 5):
        check(next_default, n)


@pytest.mark.numba_skip("Numba cannot catch StopIteration from next()")
def test_stop_iteration():
    for n in (0, 3):
        check(stop_iteration, n)
        check(next_past_end, n)


def test_generator_object_raises():
    check(raising_gen, np.array([1.0, 4.0]))
    check(raising_gen, np.array([1.0, -4.0]))


def test_generator_objects_hold_arrays(balanced):
    """Checked against py_func, then the compiled calls alone (py_func's
    traceback keeps its generators alive until the garbage collector runs)."""
    a = np.arange(6.0).reshape(3, 2)
    check(abandoned, a)
    check(consume_held, a)
    for _ in range(3):
        abandoned(a)
        consume_held(a)
        with pytest.raises(ValueError):
            raising_gen(np.array([-1.0]))


def test_generators_of_generators(balanced):
    for n in (0, 4):
        check(flattened, n)
    assert [list(g) for g in gens_of_squares(4)] == [[], [0], [0, 1], [0, 1, 4]]


def test_returned_to_python(balanced):
    g = make_gen(4)
    assert iter(g) is g
    assert list(g) == [0, 1, 4, 9]
    assert list(g) == []


def test_returned_inside_tuple(balanced):
    g, n = gen_in_tuple(np.arange(6.0).reshape(3, 2))  # the argument dies with the call
    junk = np.full((3, 2), -1.0)  # noqa: F841 (may reuse its memory)
    assert n == 3 and [t for r, t in g] == [3.0, 7.0, 11.0]


def test_returned_inside_list(balanced):
    gs = gens_in_list(np.arange(4.0).reshape(2, 2))
    assert [[t for r, t in g] for g in gs] == [[3.0, 7.0], [4.0, 12.0]]


@pytest.mark.numba_skip("Numba's generator corrupts the heap when resumed after it raised")
def test_exhausted_after_raising(balanced):
    g = checked(np.array([4.0, -1.0, 9.0]))
    assert next(g) == 2.0
    with pytest.raises(ValueError, match="negative"):
        next(g)
    with pytest.raises(StopIteration):  # as CPython: a generator that raised is finished
        next(g)
    assert list(g) == []


@pytest.mark.numba_skip("Numba cannot pass a generator object from Python to compiled code")
def test_passed_back_from_python(balanced):
    for n in (0, 1, 5):  # py_func passes the objects of the compiled calls
        check(passed_along, n)
    for n in (0, 4):
        check(gen_of_gens, n)  # a generator object as a generator's argument
    assert sum_of(make_gen(5)) == 30.0
    g = squares(4)
    assert next(g) == 0
    assert sum_of(g) == 14.0  # resumes where Python left it


def test_lazy_from_python(balanced):
    c = counter(10)  # endless: nothing runs before next()
    assert [next(c) for _ in range(3)] == [10, 11, 12]
    del c
    g = checked(np.array([4.0, -1.0]))  # raises only when resumed
    assert next(g) == 2.0
    with pytest.raises(ValueError, match="negative"):
        next(g)
    a = np.arange(4.0).reshape(4, 1)
    g = held_rows(a)
    del a  # the argument stays alive with the generator
    r, t = next(g)
    assert list(r) == [1.0] and t == 1.0
    assert len(list(g)) == 3
    for x in squares(3):
        assert x in (0, 1, 4)


OPT_PROGRAM = """
import numpy as np
import hpcjit

@hpcjit.njit
def rows(a):
    b = a * 2.0
    for i in range(b.shape[0]):
        yield b[i].sum()

@hpcjit.njit
def use(a):
    g = rows(a)
    first = next(g)
    s = 0.0
    for v in g:
        s += v
    return first, s

a = np.arange(6.0).reshape(3, 2)
assert use(a) == use.py_func(a) == (2.0, 28.0), use(a)
assert list(rows(a)) == [2.0, 10.0, 18.0]
print("ok")
"""


@pytest.mark.parametrize("level", ["0", "1", "2"])
def test_every_optimisation_level(level):
    """The coroutine passes (coro-early, coro-split, coro-cleanup) run in
    every pipeline codegen.c builds: an unsplit coroutine cannot be
    compiled."""
    r = run_python(OPT_PROGRAM, env={"HPCJIT_OPT": level})
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr


# ---- map and filter ---------------------------------------------------------

@njit
def sq(x):
    return x * x


@njit
def pos(x):
    return x > 0


@njit
def add3(x, y, z):
    return x + y * z


@njit
def map_filter(a):
    s = 0.0
    for x in map(sq, a):
        s += x
    for x in filter(pos, a):
        s += 10 * x
    for x in filter(None, a):
        s += 100 * x
    for x in map(sq, filter(pos, a)):
        s += 1000 * x
    return s


@njit
def map_many(a, b):
    s = 0.0
    for v in map(add3, a, b, range(10)):
        s += v
    return s


@njit
def map_lambda(a):
    f = lambda v: v + 1  # noqa: E731
    s = 0.0
    for x in map(f, a):
        s += x
    return s


@njit
def map_comprehension(n):
    return [x for x in map(sq, range(n)) if x % 3 != 0]


@njit
def map_list_tuple(n):
    lst = [1, -2, 3]
    s = 0
    for x in map(sq, lst):
        s += x
    for x in filter(pos, (4, -5, 6)):
        s += x
    for x in map(sq, range(n)):
        s += x
    return s


def test_map_filter():
    a = np.array([1.0, -2.0, 0.0, 3.0])
    check(map_filter, a)
    check(map_many, a, np.array([2.0, 3.0, 4.0]))
    check(map_lambda, a)
    check(map_comprehension, 10)
    check(map_list_tuple, 4)


# ---- enumerate, zip, reversed over every iterable ---------------------------

@njit
def enum_zip(a, n):
    lst = [10, 20, 30, 40]
    t = (1.5, 2.5, 3.5)
    s = 0.0
    for i, x in enumerate(a):
        s += i * x
    for i, x in enumerate(range(n), 3):
        s += i * x
    for i, x in enumerate(lst):
        s += i + x
    for i, x in enumerate(t):
        s += i * x
    for x, y, z, w in zip(a, range(n), lst, t):
        s += x * y + z * w
    for (i, x), y in zip(enumerate(lst), a):
        s += i * x * y
    return s


@njit
def rev(a, n):
    lst = [10, 20, 30, 40]
    t = (1.5, 2.5, 3.5)
    s = 0.0
    k = 1
    for x in reversed(a):
        s += x * k
        k += 1
    for x in reversed(range(n)):
        s += x * k
        k += 1
    for x in reversed(lst):
        s += x * k
        k += 1
    for x in reversed(t):
        s += x * k
        k += 1
    for i, x in enumerate(reversed(lst)):
        s += i * x
    for x, y in zip(reversed(a), reversed(t)):
        s += x * y
    return s


def test_enumerate_zip():
    for n in (0, 2, 6):
        check(enum_zip, np.array([1.0, 2.0, 3.0, 4.0, 5.0]), n)


@pytest.mark.numba_skip("Numba 0.68 has no reversed() in compiled code")
def test_reversed():
    for n in (0, 2, 6):
        check(rev, np.array([1.0, 2.0, 3.0, 4.0, 5.0]), n)


@njit
def map_in_zip(a):
    s = 0.0
    for x, y in zip(map(sq, a), a):
        s += x * y
    for i, x in enumerate(map(sq, a)):
        s += i * x
    for i, x in enumerate(map(add3, a, a, a), 2):
        s += i * x
    for t in zip(a, map(add3, a, range(5), a), map(sq, a)):
        s += t[0] + t[1] * t[2]
    return s


def test_map_inside_zip_enumerate():
    check(map_in_zip, np.array([1.0, -2.0, 0.5]))


@njit
def filter_in_zip(a):
    s = 0.0
    for x, y in zip(filter(pos, a), a):
        s += x * y
    return s


def test_filter_inside_zip():  # a filter generator object (_pylib.py filter_), as Numba
    check(filter_in_zip, np.array([1.0, -2.0, 0.5, 3.0]))
