"""Consecutive array statements computed in one loop nest (infer_fuse.c,
lower_arrayexpr.c lower_fused): the same values as statement by statement
(bit for bit against the unfused build of the same function), the arrays
nothing reads later never allocated, broadcasting and other shapes falling
back to one statement at a time, exceptions and references as before."""
import math
import os

import numpy as np
import pytest

import hpcjit
from hpcjit import njit, vectorize
from conftest import AGAINST_NUMBA, balanced, check  # noqa: F401


@vectorize(["float64(float64)"])
def cndf(x):
    return 0.5 + 0.5 * math.erf(x / math.sqrt(2.0))


@vectorize(["float64(float64)"])
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


def black_scholes(price, strike, rate, vol, t):
    logterm = np.log(price / strike)
    powterm = 0.5 * vol * vol
    den = vol * np.sqrt(t)
    d1 = ((rate + powterm) * t + logterm) / den
    d2 = d1 - den
    nd1 = cndf(d1)
    nd2 = cndf(d2)
    fv = strike * np.exp(-rate * t)
    call = price * nd1 - fv * nd2
    put = call - fv + price
    return put


def kept_after(a, b):
    s = a * b
    t = s + 1.0          # read after the group
    u = np.sqrt(t) - a
    total = 0.0
    for i in range(t.shape[0]):
        total += t[i]
    return u, total


def returns_two(a, b):
    x = a + b
    y = x * x
    z = y - a
    return x, z


def reassigned(a, b, n):
    c = b * 0.5
    for _ in range(n):
        t = a + c        # c from the previous iteration
        c = t * 0.25
    return c


def rebinds_argument(a, b):
    a = a * 2.0
    b = a + b
    return a, b


def ints(a, b):
    c = a * 3 + b
    d = c // 4 - a % 3
    e = d ^ (c << 1)
    return e


def ints_arrays(a, b):
    c = a * b + a
    d = c // b - a % b
    e = d ^ c
    return e


def compares(a, b):
    m = a < b
    n = m | (a > 0.5)
    return n


def complexes(z, w):
    p = z * w
    q = p + np.conj(z)
    return q * 2.0


def f32(a, b):
    c = a * np.float32(1.5)
    d = c + b
    return d / np.float32(3.0)


def with_views(a):
    b = a[1:-1] + a[2:]
    c = b * a[:-2]
    return c


def stencil_like(u):
    lap = u[1:-1, 2:] + u[1:-1, :-2] + u[2:, 1:-1] + u[:-2, 1:-1]
    new = 0.25 * lap
    return new - u[1:-1, 1:-1]


def raising(a):
    b = a - 1.0
    c = checked_sqrt(b)
    return c + b


def raising_in_try(a):
    b = a + 1.0
    try:
        c = a - 1.0
        d = checked_sqrt(c)
        e = d * 2.0
    except ValueError:
        return b
    return e


def between_reduction(a, b):
    c = a + b
    s = c.sum()          # not elementwise: ends the group
    d = c * s
    e = d + 1.0
    return e


def leaf_reads_temp(a):
    b = a * 2.0
    c = b[::-1] + a      # a view of an earlier target: not fused
    d = c * 3.0
    return d


FUNCS = [black_scholes, kept_after, returns_two, rebinds_argument, with_views, raising]


def _both(fn, args, parallel=False):
    """The function compiled (for args) with and without statement fusion.
    Both without libmvec's vector math: its results differ from libm's in
    the last bits, and which elements fall to a loop's scalar remainder
    depends on the loop's shape, which fusion changes (test_vector_math.py)."""
    old = os.environ.get("HPCJIT_NO_STMT_FUSION")
    old_vm = os.environ.get("HPCJIT_DISABLE_VECTOR_MATH")
    os.environ["HPCJIT_DISABLE_VECTOR_MATH"] = "1"
    try:
        os.environ["HPCJIT_NO_STMT_FUSION"] = "1"
        plain = njit(parallel=parallel)(fn)
        plain(*args)  # compiles now, while the switch is set
        os.environ["HPCJIT_NO_STMT_FUSION"] = "0"
        fused = njit(parallel=parallel)(fn)
        fused(*args)
    finally:
        if old is None:
            os.environ.pop("HPCJIT_NO_STMT_FUSION", None)
        else:
            os.environ["HPCJIT_NO_STMT_FUSION"] = old
        if old_vm is None:
            os.environ.pop("HPCJIT_DISABLE_VECTOR_MATH", None)
        else:
            os.environ["HPCJIT_DISABLE_VECTOR_MATH"] = old_vm
    return fused, plain


def _same(got, exp):
    if isinstance(exp, tuple):
        assert isinstance(got, tuple) and len(got) == len(exp)
        for g, e in zip(got, exp):
            _same(g, e)
    elif isinstance(exp, np.ndarray):
        assert got.dtype == exp.dtype and got.shape == exp.shape
        np.testing.assert_array_equal(got, exp)
    else:
        assert got == exp


def _bs_args(n, rng):
    return (rng.uniform(10, 50, n), rng.uniform(10, 50, n), 0.02, 0.3, rng.uniform(0.1, 2.0, n))


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 40000])
def test_black_scholes(balanced, parallel, n):
    rng = np.random.default_rng(n)
    args = _bs_args(n, rng)
    f = njit(parallel=parallel)(black_scholes)
    # atol: put = call - S + K e^{-rT} cancels prices of 10-50 down to
    # near 0, where the few ulps of vector exp/log are relatively large
    check(f, *args, rtol=1e-12, atol=1e-12)


@pytest.mark.numba_skip("compares hpcjit with and without its own fusion")
@pytest.mark.parametrize("parallel", [False, True])
def test_bit_identical_to_unfused(balanced, parallel):
    rng = np.random.default_rng(3)
    fused, plain = _both(black_scholes, _bs_args(3, rng), parallel)
    for n in (5, 40000):
        args = _bs_args(n, rng)
        _same(fused(*args), plain(*args))


@pytest.mark.numba_skip("counts hpcjit's own allocations")
def test_temporaries_not_allocated(balanced):
    rng = np.random.default_rng(4)
    args = _bs_args(2000, rng)
    fused, plain = _both(black_scholes, args)

    def allocs(f):
        before = hpcjit.memstats()[0]
        f(*args)
        return hpcjit.memstats()[0] - before

    # unfused: one array per statement; fused: only `put` (returned)
    assert allocs(plain) >= 9
    assert allocs(fused) == 1


def returns_expression(price, strike, t):
    # the returned expression joins the group: fv and call are elements only
    logterm = np.log(price / strike)
    den = 0.3 * np.sqrt(t)
    d1 = (0.065 * t + logterm) / den
    d2 = d1 - den
    fv = strike * np.exp(-0.02 * t)
    call = price * d1 - fv * d2
    return call - fv + price


def returns_expression_kept(a, b):
    c = a * 2.0
    d = c + b
    if a.size > 3:
        return d * c - b  # c, d read after the group: kept
    return c - d


@pytest.mark.numba_skip("counts hpcjit's own allocations")
@pytest.mark.parametrize("parallel", [False, True])
def test_returned_expression_fused(balanced, parallel):
    rng = np.random.default_rng(21)
    n = 40000
    args = (rng.uniform(50, 150, n), rng.uniform(50, 150, n), rng.uniform(0.5, 2.0, n))
    fused, plain = _both(returns_expression, args, parallel)
    before = hpcjit.memstats()[0]
    got = fused(*args)
    assert hpcjit.memstats()[0] - before == 1  # the result alone
    _same(got, plain(*args))
    _same(fused(args[0], args[1], args[2][:1]), plain(args[0], args[1], args[2][:1]))  # broadcasting
    for m in (0, 1, 7):
        check(fused, *(a[:m] for a in args))
    with pytest.raises(ValueError):
        fused(args[0], args[1][:5], args[2])


@pytest.mark.numba_skip("compares hpcjit with and without its own fusion")
@pytest.mark.parametrize("parallel", [False, True])
def test_returned_expression_kept_bitwise(balanced, parallel):
    rng = np.random.default_rng(22)
    for n in (2, 300, 40000):
        args = (rng.uniform(0.1, 2.0, n), rng.uniform(0.1, 2.0, n))
        fused, plain = _both(returns_expression_kept, args, parallel)
        _same(fused(*args), plain(*args))
        check(fused, *args)


@pytest.mark.parametrize("fn", [kept_after, returns_two, rebinds_argument])
@pytest.mark.parametrize("shape", [(0,), (1,), (17,), (5000,)])
def test_kept_targets(balanced, fn, shape):
    rng = np.random.default_rng(5)
    a = rng.uniform(0.1, 2.0, shape)
    b = rng.uniform(0.1, 2.0, shape)
    check(njit(fn), a, b)


@pytest.mark.numba_skip("compares hpcjit with and without its own fusion")
@pytest.mark.parametrize("fn", [kept_after, returns_two, rebinds_argument, between_reduction, leaf_reads_temp])
def test_kept_targets_bitwise(balanced, fn):
    rng = np.random.default_rng(6)
    a = rng.uniform(0.1, 2.0, 300)
    b = rng.uniform(0.1, 2.0, 300)
    args = (a,) if fn is leaf_reads_temp else (a, b)
    fused, plain = _both(fn, args)
    _same(fused(*args), plain(*args))


def test_loop_carried(balanced):
    rng = np.random.default_rng(7)
    a = rng.uniform(size=100)
    b = rng.uniform(size=100)
    f = njit(reassigned)
    for n in (0, 1, 5):
        check(f, a, b, n)


def test_broadcasting_falls_back(balanced):
    rng = np.random.default_rng(8)
    f = njit(returns_two)
    check(f, rng.uniform(size=6), rng.uniform(size=1))   # same rank, other shapes
    check(f, rng.uniform(size=(4, 6)), rng.uniform(size=6))  # other ranks
    check(f, rng.uniform(size=(4, 1)), rng.uniform(size=(1, 6)))
    check(f, rng.uniform(size=5), rng.uniform(size=4))  # ValueError from the first statement


@pytest.mark.parametrize("parallel", [False, True])
def test_layouts(balanced, parallel):
    rng = np.random.default_rng(9)
    f = njit(parallel=parallel)(returns_two)
    a = rng.uniform(size=(300, 200))
    b = np.asfortranarray(rng.uniform(size=(300, 200)))
    check(f, a, b)                       # C and F: the nest
    check(f, b, b)                       # both F
    check(f, a[::2, ::3], a[1::2, 1::3])  # strided views
    check(f, a.T, b.T)
    c = rng.uniform(size=(6, 7, 8))
    check(f, c, c[::-1])                 # 3-D, a negative stride


@pytest.mark.parametrize("parallel", [False, True])
def test_views_and_stencil(balanced, parallel):
    rng = np.random.default_rng(10)
    check(njit(parallel=parallel)(with_views), rng.uniform(size=1000))
    check(njit(parallel=parallel)(stencil_like), rng.uniform(size=(60, 70)))
    check(njit(parallel=parallel)(stencil_like), rng.uniform(size=(2, 2)))


def test_ints(balanced):
    rng = np.random.default_rng(11)
    a = rng.integers(-50, 50, 100)
    b = rng.integers(-50, 50, 100)
    check(njit(ints), a, b)


# with Python int scalars NumPy 2 keeps int8 where Numba (and hpcjit) widen
# to int64 (docs/TYPED_AST.md): arrays only here
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint16])
def test_small_ints(balanced, dtype):
    rng = np.random.default_rng(11)
    a = rng.integers(0, 50, 100).astype(dtype)
    b = rng.integers(1, 50, 100).astype(dtype)
    check(njit(ints_arrays), a, b)


def test_bool_and_complex_and_float32(balanced):
    rng = np.random.default_rng(12)
    a = rng.uniform(size=50)
    b = rng.uniform(size=50)
    check(njit(compares), a, b)
    z = rng.uniform(size=40) + 1j * rng.uniform(size=40)
    w = (rng.uniform(size=40) + 1j * rng.uniform(size=40)).astype(np.complex64)
    check(njit(complexes), z, w)
    x = rng.uniform(size=33).astype(np.float32)
    y = rng.uniform(size=33).astype(np.float32)
    got = check(njit(f32), x, y)
    assert got.dtype == np.float32


@pytest.mark.numba_skip("Numba's @vectorize loops drop the kernel's exception")
@pytest.mark.parametrize("parallel", [False, True])
def test_exception_from_kernel(balanced, parallel):
    f = njit(parallel=parallel)(raising)
    check(f, np.linspace(1.0, 5.0, 50000))
    bad = np.linspace(1.0, 5.0, 50000)
    bad[40000] = 0.5
    with pytest.raises(ValueError, match="negative input"):
        f(bad)
    check(f, bad)


@pytest.mark.numba_skip("Numba's @vectorize loops drop the kernel's exception")
def test_exception_in_try(balanced):
    f = njit(raising_in_try)
    check(f, np.linspace(1.0, 5.0, 100))
    check(f, np.linspace(0.0, 5.0, 100))


def test_not_elementwise_between(balanced):
    rng = np.random.default_rng(13)
    check(njit(between_reduction), rng.uniform(size=64), rng.uniform(size=64))
    check(njit(leaf_reads_temp), rng.uniform(size=64))


@pytest.mark.numba_skip("inspects hpcjit's IR")
def test_one_nest_in_ir():
    rng = np.random.default_rng(14)
    args = _bs_args(10, rng)
    fused, plain = _both(black_scholes, args)
    ir_f = fused.inspect_llvm()
    ir_f = "\n".join(ir_f.values()) if isinstance(ir_f, dict) else ir_f
    assert "fused.plain" in ir_f  # the shape test and the statements one by one behind it
    # every kept array reads every leaf: one nest for every shape, nothing
    # one by one
    args = (rng.uniform(1, 2, 10), rng.uniform(1, 2, 10), rng.uniform(1, 2, 10))
    fused, plain = _both(returns_expression, args)
    ir_f = fused.inspect_llvm()
    ir_f = "\n".join(ir_f.values()) if isinstance(ir_f, dict) else ir_f
    assert "fused.plain" not in ir_f and "rt_raise_broadcast" in ir_f


# more traps: a temporary read at the top of the next iteration, a name
# assigned twice in one group, a hoisted scalar reading an argument the
# group rebinds later, a closure reading a temporary, integer division by
# zero, leaves that are views of one another, mixed dtypes between
# statements, 3-D C/F/strided/0-size leaves


def loop_top_read(a, n):
    acc = a * 0.0
    y = a + 0.0
    for i in range(n):
        acc = acc + y        # y of the previous iteration
        y = a + i
        z = y * 2.0          # noqa: F841
    return acc


def assigned_twice(a, b):
    x = a + b
    x = x * 2.0
    w = x - a
    return x, w


def hoist_then_rebind(a, b):
    c = a + b
    s = a.size * 2           # scalar, hoisted in front of the group
    a = c * 3.0
    d = a + s
    return d, a


def closure_reads_temp(a, b):
    t = a * b
    u = t + 1.0
    g = lambda: t.sum()  # noqa: E731
    return u, g()


def int_div_zero(a, b):
    c = a // b
    d = c + a % b
    return d


def views_of_each_other(a):
    b = a[::2] + a[1::2]
    c = b * a[::2]
    return c


def mixed_dtypes(a):
    b = a * 2
    c = b / 3
    d = c > 1.0
    e = d + b
    return e


def three_d(a, b):
    c = a * b
    d = np.exp(c) - a
    return d * 2.0


def _traps():
    rng = np.random.default_rng(15)
    a = rng.uniform(size=500)
    b = rng.uniform(size=500)
    ia = rng.integers(-20, 20, 500)
    ib = rng.integers(-5, 5, 500)
    c3 = rng.uniform(size=(4, 5, 6))
    return [
        (loop_top_read, (a, 4)), (loop_top_read, (a, 0)), (assigned_twice, (a, b)),
        (hoist_then_rebind, (a, b)), (closure_reads_temp, (a, b)), (int_div_zero, (ia, ib)),
        (views_of_each_other, (a,)), (mixed_dtypes, (ia,)),
        (three_d, (c3, np.asfortranarray(rng.uniform(size=(4, 5, 6))))),
        (three_d, (rng.uniform(size=(8, 5, 6))[::2], rng.uniform(size=(4, 5, 12))[:, :, ::2])),
        (three_d, (np.zeros((0, 3, 2)), np.zeros((0, 3, 2)))),
    ]


@pytest.mark.numba_skip("compares hpcjit with and without its own fusion")
@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("case", range(11))
def test_more_traps_bitwise(balanced, parallel, case):
    fn, args = _traps()[case]
    fused, plain = _both(fn, args, parallel)
    _same(fused(*args), plain(*args))
    if fn is not int_div_zero:  # NumPy warns and gives 0 where hpcjit follows Numba
        with np.errstate(all="ignore"):
            exp = fn(*args)
        got = fused(*args)
        for g, e in zip(got if isinstance(got, tuple) else (got,), exp if isinstance(exp, tuple) else (exp,)):
            np.testing.assert_allclose(g, e, rtol=1e-12)


# broadcasting inside a group: when every kept statement reads every array
# leaf (returns_expression, returns_two), the fused nest runs for any shapes
# (stride 0 on broadcast axes); a kept statement that reads fewer leaves
# (partial_kept's c) keeps the statements one by one behind the shape test


def partial_kept(a, b):
    c = a * 2.0          # kept, reads a alone: its own shape
    d = np.sqrt(c) + b
    return c, d


def _bcast_cases(rng):
    u = rng.uniform(0.5, 2.0, 40000)
    m = rng.uniform(0.5, 2.0, (300, 200))
    return [
        (u, u[:1], u),                                  # one leaf of one item
        (u[:1], u[:1], u),
        (u[::2], u[:1], u[1::2]),                       # strided and broadcast
        (m[:, :1], m[:1, :], m),                        # (300, 1) (1, 200) (300, 200): 60000 items
        (m[:1, :], m[:, :1], m[:1, :1]),
        (m[:, :1], m[:1, :], m[:1, :1]),                # the result (300, 200), no leaf of that shape
        (np.asfortranarray(m), m[:1, :], m[:, :1]),
        (u[:0], u[:1], u[:1]),                          # 0 items
        (m[:0, :1], m[:1, :], m[:1, :1]),
        (u[:7], u[:1], u[:7]),
    ]


@pytest.mark.parametrize("parallel", [False, True])
def test_broadcasting_in_group(balanced, parallel):
    rng = np.random.default_rng(31)
    f = njit(parallel=parallel)(returns_expression)
    g = njit(parallel=parallel)(returns_two)
    for args in _bcast_cases(rng):
        check(f, *args)
        check(g, args[0], args[1])
        check(g, args[1], args[2])


@pytest.mark.numba_skip("compares hpcjit with and without its own fusion")
@pytest.mark.parametrize("parallel", [False, True])
def test_broadcasting_in_group_bitwise(balanced, parallel):
    rng = np.random.default_rng(32)
    cases = _bcast_cases(rng)
    fused, plain = _both(returns_expression, cases[0], parallel)
    kfused, kplain = _both(partial_kept, cases[0][:2], parallel)
    for args in cases:
        _same(fused(*args), plain(*args))
        _same(kfused(args[0], args[1]), kplain(args[0], args[1]))
        _same(kfused(args[1], args[2]), kplain(args[1], args[2]))


@pytest.mark.numba_skip("compares hpcjit's messages with and without its own fusion")
@pytest.mark.parametrize("parallel", [False, True])
def test_broadcasting_error_in_group(balanced, parallel):
    # the ValueError (and its text) of the first statement that does not
    # broadcast, as statement by statement
    rng = np.random.default_rng(33)
    u = rng.uniform(0.5, 2.0, 10)
    m = rng.uniform(0.5, 2.0, (4, 6))
    fused, plain = _both(returns_expression, (u, u, u), parallel)
    kfused, kplain = _both(partial_kept, (u, u), parallel)
    for f, p, args in [(fused, plain, (u[:5], u[:5], u[:4])),     # d1 = (0.065 * t + logterm) / den
                       (fused, plain, (u[:5], u[:4], u[:5])),     # logterm
                       (fused, plain, (u[:3], u[:1], u[:2])),
                       (fused, plain, (m, m[:, :1], m[:3])),
                       (fused, plain, (m[:1], m[:, :5], m)),
                       (kfused, kplain, (u[:5], u[:4]))]:
        with pytest.raises(ValueError) as ef:
            f(*args)
        with pytest.raises(ValueError) as ep:
            p(*args)
        assert str(ef.value) == str(ep.value)
        assert "could not be broadcast" in str(ef.value)
        check(f, *args)
