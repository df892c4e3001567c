"""Control flow: loops with break/continue/else, range steps, iteration over
arrays and tuples, tuple packing/unpacking, augmented assignment, returns."""
import numpy as np
import pytest

from hpcjit import njit
from conftest import check, make_array, DTYPES_REAL, LAYOUTS


@njit
def while_loop(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        if i > 50:
            break
        s += i
    return s, i


@njit
def while_else(n, stop):
    i = 0
    found = -1
    while i < n:
        if i == stop:
            found = i
            break
        i += 1
    else:
        found = -2
    return found, i


@njit
def for_else(n, stop):
    r = 0
    for i in range(n):
        if i == stop:
            r = 100 + i
            break
        r += i
    else:
        r = -r
    return r


@njit
def for_continue(n):
    s = 0
    for i in range(n):
        if i % 2:
            continue
        s += i * i
    return s


@njit
def nested_break(n):
    count = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 3 == 0:
                continue
            count += 1
        else:
            count += 1000
    return count


@pytest.mark.parametrize("n", [0, 1, 5, 10, 100])
def test_while(n):
    check(while_loop, n)


@pytest.mark.parametrize("n,stop", [(10, 3), (10, 20), (0, 0), (5, 4)])
def test_loop_else(n, stop):
    check(while_else, n, stop)
    check(for_else, n, stop)


@pytest.mark.parametrize("n", [0, 1, 7, 30])
def test_continue_and_nested_break(n):
    check(for_continue, n)
    check(nested_break, n)


@njit
def range1(n):
    s = 0
    for i in range(n):
        s = s * 3 + i
    return s


@njit
def range3(start, stop, step):
    s = 0
    c = 0
    last = 12345
    for i in range(start, stop, step):
        s += i
        c += 1
        last = i
    return s, c, last


@njit
def range_len(start, stop, step):
    return len(range(start, stop, step))


@pytest.mark.parametrize("n", [-3, 0, 1, 9])
def test_range_one_arg(n):
    check(range1, n)


@pytest.mark.parametrize("start,stop,step", [
    (0, 10, 1), (0, 10, 3), (10, 0, -1), (10, 0, -3), (10, -10, -7), (-5, 5, 2),
    (5, 5, 1), (5, 5, -1), (0, 10, -1), (10, 0, 1), (3, 4, 100), (-1, -20, -4),
])
def test_range_steps(start, stop, step):
    check(range3, start, stop, step)
    check(range_len, start, stop, step)


@njit
def range2(a, b):
    s = 0
    for i in range(a, b):
        s += i
    return s


def test_range_two_args():
    check(range2, -4, 6)
    check(range2, 6, -4)


@njit
def loop_var_after_loop(n):
    i = -1
    for i in range(n):
        pass
    return i


def test_loop_variable_survives():
    check(loop_var_after_loop, 5)
    check(loop_var_after_loop, 0)


# ---- iteration over arrays and tuples --------------------------------------

@njit
def iter_1d(a):
    s = 0.0
    for x in a:
        s += float(x)
    return s


@njit
def iter_nd_rows(a):
    # iterating an N-D array yields its sub-arrays along the first axis
    s = 0.0
    k = 0
    for row in a:
        k += 1
        s += float(row[0]) * k
    return s, k


@njit
def iter_3d(a):
    s = 0.0
    for plane in a:
        for row in plane:
            for x in row:
                s = s * 0.5 + float(x)
    return s


@njit
def count_true(a):
    c = 0
    for x in a:
        if x:
            c += 1
    return c


@pytest.mark.parametrize("dtype", DTYPES_REAL)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_iterate_1d(dtype, layout):
    check(iter_1d, make_array(dtype, 17, layout))
    check(iter_1d, make_array(dtype, 0, "C"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_iterate_1d_bool(layout):
    check(count_true, make_array(np.bool_, 17, layout))


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_iterate_nd(dtype, layout):
    check(iter_nd_rows, make_array(dtype, (5, 3), layout))
    check(iter_3d, make_array(dtype, (3, 4, 2), layout), rtol=1e-10)


@njit
def iter_tuple(n):
    t = (1, 2, 3, n)
    s = 0
    for x in t:
        s = s * 10 + x
    return s


@njit
def iter_tuple_arg(t):
    s = 0.0
    for x in t:
        s += x
    return s


def test_iterate_homogeneous_tuple():
    check(iter_tuple, 7)
    check(iter_tuple_arg, (1.5, 2.5, -3.0))


# ---- tuples ---------------------------------------------------------------

@njit
def swap(a, b):
    a, b = b, a
    return a, b


@njit
def rotate(a, b, c):
    a, b, c = b, c, a
    return a, b, c


@njit
def pack_unpack(x):
    t = x, x * 2, x * 3.5
    p, q, r = t
    (u, v), w = (p, q), r
    return w, v, u, t[0], t[-1], len(t)


@njit
def fib_pairs(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@njit
def tuple_arg(t):
    x, y = t
    return y, x, t[0] + t[1]


@njit
def nested_tuple():
    t = ((1, 2.0), (3, True))
    return t[1][0], t[0][1], t


@njit
def tuple_compare(a, b):
    return (a, b) == (b, a), (a, 1) != (a, 2)


def test_tuples():
    check(swap, 1, 2)
    check(swap, 1.5, -2.5)
    check(rotate, 1, 2, 3)
    check(pack_unpack, 3)
    check(pack_unpack, -1)
    for n in [0, 1, 2, 10, 50]:
        check(fib_pairs, n)
    check(tuple_arg, (3, 4))
    check(tuple_arg, (3.5, -1.0))
    check(nested_tuple)
    check(tuple_compare, 1, 1)
    check(tuple_compare, 1, 2)


# ---- augmented assignment ---------------------------------------------------

@njit
def augmented_int(x, y):
    x += y
    x -= 3
    x *= y
    x //= 2
    x %= 1000
    x **= 2
    x <<= 2
    x >>= 1
    x &= 0xFFFF
    x |= 5
    x ^= 3
    return x


@njit
def augmented_float(x, y):
    x += y
    x -= 0.5
    x *= y
    x /= 3.0
    x //= 0.25
    x %= 7.5
    x **= 2
    return x


@njit
def augmented_array(a, k):
    a[0] += k
    a[1] -= k
    a[2] *= k
    a[-1] //= 2
    i = 3
    a[i] += a[i - 1]
    return a[0]


@pytest.mark.parametrize("x,y", [(10, 3), (-7, 2), (123, -5)])
def test_augmented_int(x, y):
    check(augmented_int, x, y)


@pytest.mark.parametrize("x,y", [(10.0, 3.0), (-7.5, 2.0), (1.25, -5.0)])
def test_augmented_float(x, y):
    check(augmented_float, x, y)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32])
def test_augmented_array(dtype):
    check(augmented_array, make_array(dtype, 6), 3)


# ---- early returns ----------------------------------------------------------

@njit
def early_return(a, x):
    for i in range(a.shape[0]):
        if a[i] == x:
            return i
    return -1


@njit
def return_in_while(n):
    i = 0
    while True:
        if i * i >= n:
            return i
        i += 1


@njit
def nested_early(n):
    for i in range(n):
        for j in range(n):
            if i * j == 12:
                return i, j
    return -1, -1


@njit
def no_return_value(a):
    a[0] = 1.0


@njit
def bare_return(a, flag):
    if flag:
        return
    a[0] = 2.0


def test_early_returns():
    a = np.arange(10, dtype=np.int64) * 3
    for x in [0, 9, 27, 28, -3]:
        check(early_return, a, x)
    for n in [0, 1, 15, 16, 1000]:
        check(return_in_while, n)
    for n in [3, 5, 10]:
        check(nested_early, n)


def test_none_returns():
    a = np.zeros(3)
    check(no_return_value, a)
    check(bare_return, a, True)
    check(bare_return, a, False)
    assert no_return_value(a) is None


# ---- if / elif / else, pass, nested functions of control --------------------

@njit
def classify(x):
    if x < -10:
        r = 0
    elif x < 0:
        r = 1
    elif x == 0:
        r = 2
    elif x < 10:
        r = 3
    else:
        r = 4
    if not r:
        pass
    return r


@pytest.mark.parametrize("x", [-20, -5, 0, 5, 20, -0.5, 9.99])
def test_if_elif(x):
    check(classify, x)


@njit
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_collatz():
    for n in [1, 2, 3, 7, 27, 97, 871]:
        check(collatz_steps, n)


@pytest.mark.parametrize("start,stop,step", [
    (2 ** 63 - 10, 2 ** 63 - 1, 3), (-2 ** 63, -2 ** 63 + 5, 2), (2 ** 63 - 1, 2 ** 63 - 8, -3),
])
def test_range_near_int64_limits(start, stop, step):
    check(range_last, start, stop, step)
    check(range_len, start, stop, step)


@pytest.mark.numba_skip(reason="Numba's range length overflows for spans wider than int64 (gives 0)")
@pytest.mark.parametrize("start,stop,step", [
    (-2 ** 63, 2 ** 63 - 1, 2 ** 62), (2 ** 63 - 1, -2 ** 63, -2 ** 61), (-2 ** 62, 2 ** 63 - 1, 2 ** 62),
])
def test_range_spanning_int64(start, stop, step):
    check(range_len, start, stop, step)
    check(range3_count, start, stop, step)


@njit
def range_last(start, stop, step):
    c = 0
    last = 0
    for i in range(start, stop, step):
        c += 1
        last = i
    return c, last


@njit
def range3_count(start, stop, step):
    c = 0
    for i in range(start, stop, step):
        c += 1
    return c


@njit
def hetero_tuple(t):
    a, b, c = t
    return c, b, a, t[1] * 2


def test_heterogeneous_tuples():
    check(hetero_tuple, (1, 2.5, True))
    check(hetero_tuple, (np.int32(3), 1 + 2j, 7))


@njit
def pick(a, b, flag):
    # a C array and a strided one unify to layout A
    x = a if flag else b
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * (i + 1)
    return s


def test_mixed_layouts_unify():
    a = np.arange(5.0)
    b = np.arange(10.0)[::2] * 3
    check(pick, a, b, True)
    check(pick, a, b, False)


@njit
def bool_arith(a, b):
    return a + b, a * 3, -a, a - b


def test_bool_arithmetic_gives_ints():
    for a in (True, False):
        for b in (True, False):
            check(bool_arith, a, b)


@njit
def nd_loops(a):
    s = 0.0
    for idx in np.ndindex(a.shape):
        s += a[idx] * (idx[0] + 1)
    u = 0.0
    for idx2, v in np.ndenumerate(a):
        u += v * (idx2[-1] + 2)
    w = 0.0
    k = 0
    for v in a.flat:
        w += v * k
        k += 1
    return s, u, w


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float32])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 0)])
def test_ndindex_ndenumerate_flat(dtype, layout, shape):
    check(nd_loops, make_array(dtype, shape, layout), rtol=1e-6)


@njit
def ndindex_forms(n, m):
    c = 0
    for i, j in np.ndindex(n, m):
        c += i * 10 + j
    for e in np.ndindex(()):
        c += 100
    for t in np.ndindex((n,)):
        c += t[0]
    return c


@pytest.mark.parametrize("n,m", [(3, 2), (0, 4), (2, 0), (-1, 2)])
def test_ndindex_forms_and_negative_dims(n, m):
    check(ndindex_forms, n, m)


@njit
def ellipsis_body(x):
    """A docstring, then `...` statements (a body left to fill in)."""
    ...
    if x > 0:
        ...
    return x * 2


def test_ellipsis_statement_is_a_no_op():
    check(ellipsis_body, 3)
    check(ellipsis_body, -1.5)
