"""NumPy datetime64 / timedelta64 in compiled code, as Numba 0.68 supports
them: scalars and arrays of every unit as arguments and results, indexing,
stores and iteration, arithmetic and comparisons with NumPy's unit rules
(the finer unit; years and months through the calendar for datetimes) and
NaT (arithmetic gives NaT, comparisons are False but !=), the same
element-wise on arrays and through the ufuncs, np.isnat, np.empty/np.zeros
with a datetime dtype; reductions, sorts and searches with NumPy's NaT rules
(NaT wins min/max and sorts last), timedelta sums/means/medians, fills,
slice stores, the shape functions, lists and dict keys of datetimes, and
datetime globals frozen as constants.  Every test frees what it allocates.  Each compiled function is compared with its py_func
on fresh copies of the inputs (conftest.check: NaT compares equal to NaT of
the same unit)."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
TypingError = hpcjit.TypingError

from conftest import check

NUMBA = getattr(hpcjit, "__hpcjit_numba_shim__", False)

# every test frees what it allocates (conftest.balanced: hpcjit's memstats)
pytestmark = pytest.mark.usefixtures("balanced")

D = np.datetime64
T = np.timedelta64
NAT_D = D("NaT", "D")
NAT_S = T("NaT", "s")

DATES = np.array(["2020-01-01", "1969-07-20", "NaT", "2000-02-29", "1900-03-01"], "M8[D]")
HOURS = np.array([1, -5, "NaT", 49, 0], "m8[h]")
UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"]


# ---- types, arguments and results -------------------------------------------

@pytest.mark.parametrize("unit", UNITS)
def test_scalar_roundtrip_every_unit(unit):
    @njit
    def f(a, b):
        return a, b

    check(f, D(3, unit), T(-7, unit))
    check(f, D("NaT", unit), T("NaT", unit))


def test_generic_nat_roundtrip():
    @njit
    def f(a):
        return a

    check(f, D("NaT"))
    check(f, T("NaT"))


@pytest.mark.parametrize("unit", ["D", "s", "ns", "M"])
def test_array_roundtrip_and_copy(unit):
    @njit
    def ident(a):
        return a

    @njit
    def copy(a):
        return a.copy()

    a = np.array([0, 5, "NaT", -3], f"M8[{unit}]")
    check(ident, a)
    check(copy, a)
    check(copy, a.astype(f"m8[{unit}]") if unit != "M" else np.array([1, "NaT"], "m8[M]"))
    check(copy, a.reshape(2, 2).T)


def test_typeof_and_type_names():
    assert str(hpcjit.typeof(D("2020-01-01"))) == "datetime64[D]"
    assert str(hpcjit.typeof(T(3, "ms"))) == "timedelta64[ms]"
    assert str(hpcjit.typeof(D("NaT"))) == "datetime64[]"
    assert str(hpcjit.typeof(DATES)) == "array(datetime64[D], 1d, C)"
    assert str(hpcjit.typeof(HOURS[::2])) == "array(timedelta64[h], 1d, A)"
    assert hpcjit.types.NPDatetime("D") == hpcjit.typeof(D(1, "D"))
    assert hpcjit.types.NPTimedelta("s") != hpcjit.types.NPTimedelta("ms")
    assert str(hpcjit.types.NPDatetime("D")[:]) == "array(datetime64[D], 1d, A)"


@pytest.mark.numba_skip("hpcjit's signature strings")
def test_explicit_signature():
    f = njit("timedelta64[s](datetime64[s], datetime64[s])")(lambda a, b: a - b)
    assert f(D(10, "s"), D(3, "s")) == T(7, "s")
    g = njit(hpcjit.types.NPTimedelta("h")(hpcjit.types.NPTimedelta("h")[:]))(lambda a: a[1])
    assert g(HOURS) == T(-5, "h")


def test_dispatch_by_unit():
    @njit
    def f(a):
        return a

    assert f(D(1, "D")).dtype == np.dtype("M8[D]")
    assert f(D(1, "s")).dtype == np.dtype("M8[s]")
    assert len(f.signatures) == 2


# ---- indexing, stores, slicing, iteration -----------------------------------

def test_index_store_slice_iterate():
    @njit
    def get(a, i):
        return a[i]

    @njit
    def put(a, i, v):
        a[i] = v
        return a

    @njit
    def total(a):
        s = a[0]
        for x in a[1:]:
            if not np.isnat(x):
                s = s + x
        return s

    @njit
    def latest(a):
        best = a[0]
        for i in range(a.shape[0]):
            if a[i] > best:
                best = a[i]
        return best

    for i in range(5):
        check(get, DATES, i)
    check(get, DATES, -1)
    check(put, DATES, 1, D("2024-02-29"))
    check(put, DATES, 0, NAT_D)
    check(put, HOURS, 3, T(2, "h"))
    check(total, HOURS)
    check(latest, DATES)
    check(get, DATES[::2], 1)


@pytest.mark.numba_skip("Numba has no setitem converting a timedelta's unit")
def test_store_converts_unit():
    @njit
    def put(a, v):
        a[0] = v
        return a

    check(put, np.array([1, 2], "m8[ms]"), T(3, "s"))
    check(put, np.array([1, 2], "M8[s]"), D("2020-01-02", "D"))


def test_empty_zeros_with_datetime_dtype():
    @njit
    def zeros(n):
        return np.zeros(n, "M8[D]")

    @njit
    def zeros_td(n):
        return np.zeros((n, 2), np.dtype("m8[s]"))

    @njit
    def empty_shape(n):
        return np.empty(n, "datetime64[ns]").shape

    @njit
    def like(a):
        return np.zeros_like(a), np.empty_like(a).shape

    check(zeros, 3)
    check(zeros_td, 2)
    check(empty_shape, 4)
    check(like, DATES)
    check(like, HOURS.reshape(5, 1))


# ---- arithmetic -------------------------------------------------------------

DT_PAIRS = [
    (D("2020-03-01"), D("2019-12-31T12", "h")),
    (D("2020", "Y"), D("2020-03-01")),
    (D("2021-05", "M"), D("1969-02-03")),
    (D("1969", "Y"), D("1970-01-01T00:00:01", "s")),
    (D("2020-01-01"), NAT_D),
    (D("NaT", "s"), D("2020-01-01")),
    (D(10, "W"), D(3, "D")),
]


@pytest.mark.parametrize("a,b", DT_PAIRS)
def test_datetime_minus_datetime(a, b):
    @njit
    def f(x, y):
        return x - y

    check(f, a, b)


TD_PAIRS = [
    (T(7, "h"), T(1, "D")),
    (T(3, "s"), T(250, "ms")),
    (T(1, "Y"), T(5, "M")),
    (T(2, "W"), T(-3, "D")),
    (T(5, "s"), NAT_S),
    (T("NaT", "m"), T(1, "s")),
    (T(-7, "D"), T(2, "D")),
]


@pytest.mark.parametrize("a,b", TD_PAIRS)
def test_timedelta_add_sub_div(a, b):
    @njit
    def add(x, y):
        return x + y

    @njit
    def sub(x, y):
        return x - y

    @njit
    def div(x, y):
        return x / y

    check(add, a, b)
    check(sub, a, b)
    check(div, a, b)


@pytest.mark.numba_skip("Numba's timedelta // timedelta fails to lower")
@pytest.mark.parametrize("a,b", TD_PAIRS + [(T(7, "D"), T(0, "D")), (T(-7, "s"), T(-2, "s"))])
def test_timedelta_floordiv_timedelta(a, b):
    @njit
    def f(x, y):
        return x // y

    check(f, a, b)


@pytest.mark.parametrize("d,t", [
    (D("2020-01-31"), T(1, "D")),
    (D("2020-01", "M"), T(45, "D")),
    (D("2020", "Y"), T(3, "M")),
    (D("2020", "Y"), T(2, "W")),
    (D("2020-01-01T10", "h"), T(-90, "m")),
    (NAT_D, T(1, "D")),
    (D("2020-01-01"), T("NaT", "h")),
])
def test_datetime_plus_minus_timedelta(d, t):
    @njit
    def add(x, y):
        return x + y

    @njit
    def radd(x, y):
        return y + x

    @njit
    def sub(x, y):
        return x - y

    check(add, d, t)
    check(radd, d, t)
    check(sub, d, t)


@pytest.mark.parametrize("t", [T(7, "D"), T(-7, "h"), NAT_S, T(0, "ms")])
def test_timedelta_times_and_over_numbers(t):
    @njit
    def mul(x, k):
        return x * k

    @njit
    def rmul(x, k):
        return k * x

    @njit
    def div(x, k):
        return x / k

    @njit
    def fdiv(x, k):
        return x // k

    for k in (3, -2, 0):
        check(mul, t, k)
        check(rmul, t, k)
        check(div, t, k)
        check(fdiv, t, k)
    for k in (1.5, -0.25):
        check(mul, t, k)
        check(rmul, t, k)
        check(div, t, k)


def test_timedelta_unary():
    @njit
    def f(x):
        return -x, +x, abs(x)

    for t in (T(3, "s"), T(-4, "D"), NAT_S):
        check(f, t)


# ---- comparisons ------------------------------------------------------------

CMP_PAIRS = [
    (D("2020-01-01"), D("2020-01-01T00", "h")),
    (D("2020-01-01"), D("2020-01", "M")),
    (D("2020", "Y"), D("2019-12-31T23:59:59", "s")),
    (D("2020-01-01"), NAT_D),
    (NAT_D, NAT_D),
    (T(1, "h"), T(60, "m")),
    (T(1, "D"), T(25, "h")),
    (T(13, "M"), T(1, "Y")),
    (T(1, "s"), NAT_S),
]


@pytest.mark.parametrize("a,b", CMP_PAIRS)
def test_comparisons(a, b):
    @njit
    def f(x, y):
        return x == y, x != y, x < y, x <= y, x > y, x >= y

    check(f, a, b)
    check(f, b, a)


def test_chained_comparison():
    @njit
    def f(x, y, z):
        return x < y < z

    check(f, D("2020-01-01"), D("2020-01-02T01", "h"), D("2020-02", "M"))


# ---- arrays -----------------------------------------------------------------

def test_array_expressions():
    @njit
    def shift(a, t):
        return a + t * 2

    @njit
    def cmp(a, b):
        return a >= b

    @njit
    def neg(t):
        return -t

    check(shift, DATES, T(12, "h"))
    check(shift, HOURS, HOURS)
    check(cmp, DATES, D("1970-01-01"))
    check(cmp, HOURS, HOURS[::-1])
    check(neg, HOURS)


@pytest.mark.numba_skip("Numba types datetime - datetime arrays as timedelta64[] and fails; "
                        "its td / td arrays give other NaNs")
def test_array_expressions_mixed_units():
    @njit
    def since(a, b):
        return a - b

    @njit
    def shift(a, t):
        return a + t * 2

    @njit
    def ratio(t, u):
        return t / u

    check(since, DATES, D("2000-01-01"))
    check(since, DATES, DATES[::-1])
    check(shift, DATES, HOURS)
    check(ratio, HOURS, T(30, "m"))
    check(ratio, HOURS, HOURS[::-1])


def test_array_inplace():
    @njit
    def f(a, t):
        a += t
        return a

    check(f, DATES.copy(), T(1, "D"))
    check(f, HOURS.copy(), HOURS[::-1].copy())


def test_ufuncs_same_unit():
    @njit
    def f(t, u):
        return np.equal(t, u), np.negative(t), np.multiply(t, 3), np.less(t, t[::-1])

    check(f, HOURS, T(1, "h"))


@pytest.mark.numba_skip("Numba fails to lower datetime - datetime arrays (timedelta64[])")
def test_ufuncs():
    @njit
    def arith(a, b, t):
        return (np.add(a, t), np.subtract(a, b), np.multiply(t, 3), np.divide(t, 2),
                np.floor_divide(t, 4), np.negative(t), np.absolute(t))

    @njit
    def cmps(a, b):
        return np.equal(a, b), np.not_equal(a, b), np.less(a, b), np.greater_equal(a, b)

    check(arith, DATES, DATES[::-1], HOURS)
    check(cmps, DATES, DATES[::-1])
    check(cmps, HOURS, T(1, "h"))


def test_sign_of_timedeltas():
    @njit
    def f(a, t):
        return np.sign(a), np.sign(t)

    check(f, HOURS, T(-3, "h"))
    check(f, GRID, T("NaT", "s"))


@pytest.mark.numba_skip("Numba fails to lower np.maximum/np.fmax of datetime arrays")
def test_minimum_maximum_fmin_fmax():
    @njit
    def f(a, b):
        return np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.fmin(a, b)

    check(f, DATES, DATES[::-1])
    check(f, HOURS, T(0, "h"))
    check(f, D("2020-01-01"), D("NaT", "s"))


def test_isnat_scalars_and_arrays():
    @njit
    def f(x):
        return np.isnat(x)

    for x in (NAT_D, D("2020-01-01"), NAT_S, T(0, "s"), D("NaT")):
        check(f, x)
    check(f, DATES)
    check(f, HOURS.reshape(5, 1))


def test_isfinite_isinf_isnan():
    @njit
    def f(x):
        return np.isfinite(x), np.isinf(x), np.isnan(x)

    check(f, DATES)
    check(f, HOURS)


# ---- reductions and sorting (NaT as NumPy: it wins min/max, sorts last) ---

NONAT = np.array(["2020-01-01", "1969-07-20", "2000-02-29", "1900-03-01"], "M8[D]")
ALLNAT = np.array(["NaT", "NaT", "NaT"], "M8[s]")
GRID = np.array([[3, "NaT", -1], [7, 2, 2], [0, 5, "NaT"]], "m8[ms]")


@pytest.mark.parametrize("a", [DATES, HOURS, NONAT, HOURS[[0, 1, 3, 4]], ALLNAT, DATES[::-2], GRID,
                               pytest.param(GRID.T, marks=pytest.mark.numba_skip(
                                   "Numba 0.68's argmin of a transposed datetime array is off"))],
                         ids=["dates", "hours", "nonat", "hours-nonat", "allnat", "strided", "grid", "grid-T"])
def test_min_max_argmin_argmax(a):
    @njit
    def methods(a):
        return a.min(), a.max(), a.argmin(), a.argmax()

    @njit
    def functions(a):
        return np.min(a), np.max(a), np.argmin(a), np.argmax(a)

    @njit
    def nan_functions(a):
        return np.nanmin(a), np.nanmax(a)

    check(methods, a)
    check(functions, a)
    with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore", RuntimeWarning)  # all-NaT
        check(nan_functions, a)


@pytest.mark.numba_skip("Numba 0.68 has no axis= for datetime min/max")
def test_min_max_axis():
    @njit
    def f(a):
        return np.min(a, axis=0), np.max(a, axis=1), np.min(a, 1)

    check(f, GRID)
    check(f, GRID.T.copy())
    check(f, np.array([["2020-01-01", "NaT"], ["2020-01-03", "2019-12-31"]], "M8[D]"))


def test_min_max_empty_raises():
    @njit
    def f(a):
        return a.min()

    check(f, DATES[:0])


@pytest.mark.numba_skip("Numba 0.68 sorts with datetime comparisons, so NaT lands anywhere")
@pytest.mark.parametrize("a", [DATES, HOURS, NONAT, ALLNAT, DATES[::-1], GRID, GRID.T,
                               np.array([5, "NaT", 3, "NaT", 3, -2] * 7, "m8[s]")],
                         ids=["dates", "hours", "nonat", "allnat", "strided", "grid", "grid-T", "long"])
def test_sort_argsort_nat_last(a):
    @njit
    def sort(a):
        return np.sort(a)

    @njit
    def sort_method(a):
        b = a.copy()
        b.sort()
        return b

    @njit
    def sort_in_place(a):
        a.sort()

    @njit
    def argsort(a):
        return np.argsort(a, kind="mergesort"), a.argsort(kind="stable")

    @njit
    def argsort_default(a):
        return np.argsort(a), a.argsort()

    check(sort, a)
    check(sort_method, a)
    check(sort_in_place, a.copy())
    check(argsort, a)
    if a.size <= 16:  # NumPy's quicksort orders ties stably only so far
        check(argsort_default, a)


@pytest.mark.numba_skip("Numba 0.68 sorts with datetime comparisons, so NaT lands anywhere")
def test_sort_axes_and_unique():
    @njit
    def f(a):
        return np.sort(a, axis=0), np.sort(a, axis=None), np.argsort(a, axis=0)

    @njit
    def u(a):
        return np.unique(a)

    check(f, GRID)
    check(u, np.array([3, "NaT", 3, -1, "NaT", 0], "m8[h]"))
    check(u, DATES)


SORTED = np.sort(np.array(["2020-01-01", "1969-07-20", "NaT", "2000-02-29", "1900-03-01", "2000-02-29"], "M8[D]"))


@pytest.mark.parametrize("v", [D("2000-02-29"), D("NaT", "D"), D("1800-01-01"), SORTED[::-1].copy()],
                         ids=["equal", "nat", "before", "array"])
def test_searchsorted(v):
    @njit
    def f(a, v):
        return np.searchsorted(a, v), np.searchsorted(a, v, side="right")

    check(f, SORTED, v)


@pytest.mark.numba_skip("Numba 0.68 searches datetimes of the array's unit only, and has no a.searchsorted")
@pytest.mark.parametrize("v", [D("2000-02-29T05", "h"), SORTED.astype("M8[s]")], ids=["scalar", "array"])
def test_searchsorted_mixed_units(v):
    @njit
    def f(a, v):
        return np.searchsorted(a, v), np.searchsorted(a, v, side="right"), a.searchsorted(v)

    check(f, SORTED, v)


# ---- sums of timedeltas (NaT propagates; datetimes do not add) -------------

TD_GRID = np.array([[3, -7, 11], [2, 2, 5], [-1, 0, 4]], "m8[s]")


@pytest.mark.parametrize("a", [HOURS, HOURS[[0, 1, 3, 4]], GRID, TD_GRID, TD_GRID.T, HOURS[:0],
                               np.arange(-500, 1500, 3).astype("m8[ms]")],
                         ids=["nat", "nonat", "grid-nat", "grid", "grid-T", "empty", "long"])
def test_timedelta_sum_mean_cumsum(a):
    @njit
    def f(a):
        return np.sum(a), a.sum(), np.cumsum(a), a.cumsum()

    @njit
    def mean(a):
        return np.mean(a), a.mean()

    check(f, a)
    if a.size:
        check(mean, a)


@pytest.mark.parametrize("a", [HOURS, HOURS[[0, 1, 3, 4]], HOURS[[0, 1, 3]], np.array([1, -4], "m8[h]"),
                               TD_GRID.T], ids=["nat", "even", "odd", "truncated", "grid-T"])
def test_timedelta_median(a):
    @njit
    def f(a):
        return np.median(a)

    check(f, a)


@pytest.mark.numba_skip("Numba 0.68 has no axis= median of timedeltas")
def test_timedelta_median_axis():
    @njit
    def f(a):
        return np.median(a, axis=0), np.median(a, axis=1)

    check(f, TD_GRID)
    check(f, GRID)


@pytest.mark.numba_skip("Numba 0.68 has no axis= sums of timedeltas nor their fused forms")
def test_timedelta_sum_axes_and_fused():
    @njit
    def f(a):
        return np.sum(a, axis=0), np.sum(a, axis=1), np.mean(a, axis=0), np.cumsum(a, axis=1)

    @njit
    def fused(d, e):
        return np.sum(d - e), (d - e).mean()

    check(f, TD_GRID)
    check(f, GRID)
    check(fused, NONAT, NONAT[::-1].copy())
    check(fused, DATES, DATES[::-1].copy())


@pytest.mark.numba_skip("Numba 0.68's parallel sum of timedeltas fails (an int has no astype)")
def test_timedelta_sum_parallel():
    @njit(parallel=True)
    def f(a):
        return np.sum(a)

    a = np.arange(-50000, 150000, 7).astype("m8[us]")
    check(f, a)
    a[12345] = np.timedelta64("NaT")
    check(f, a)


@pytest.mark.numba_skip("hpcjit's message")
def test_datetime_sum_refused():
    @njit
    def f(a):
        return np.sum(a)

    with pytest.raises(TypingError, match="cannot add datetimes"):
        f(DATES)


# ---- shape functions and views (items moved, not computed with) -----------

def _expand(a):
    return np.expand_dims(a, 0)


def _repeat(a):
    return np.repeat(a, 2), a.repeat(3)


def _roll(a):
    return np.roll(a, 1)


def _flip(a):
    return np.flip(a), np.flipud(a)


def _asarray(a):
    return np.asarray(a), np.ascontiguousarray(a[::-1])


def _atleast(a):
    return np.atleast_1d(a), np.atleast_2d(a), np.atleast_3d(a)


def _take(a):
    return np.take(a, np.array([0, 2])), a.take(np.array([1, 0])), np.delete(a, 1)


def _diag(a):
    return np.diag(a)


def _view(a):
    return a.view(np.int64)


def _stack(a):
    return np.concatenate((a, a)), np.vstack((a, a)), np.hstack((a, a)), np.stack((a, a))


@pytest.mark.parametrize("fn", [_expand, _repeat, _roll, _flip, _asarray, _atleast, _take, _diag, _view, _stack])
@pytest.mark.parametrize("a", [DATES, HOURS, DATES.reshape(5, 1)[:, 0]], ids=["dates", "hours", "strided"])
def test_shape_functions_1d(fn, a):
    check(njit(fn), a)


def _two_d(a):
    return (np.swapaxes(a, 0, 1), np.moveaxis(a, 0, 1), np.fliplr(a), np.rot90(a), np.triu(a), np.tril(a),
            np.diag(a), a.view(np.int64), np.ascontiguousarray(a.T))


@pytest.mark.parametrize("a", [GRID, GRID.astype("M8[D]")], ids=["timedelta", "datetime"])
def test_shape_functions_2d(a):
    check(njit(_two_d), a)


@pytest.mark.numba_skip("Numba 0.68 has no datetime np.tile or view from int64")
def test_tile_and_view_back():
    @njit
    def f(a, i):
        return np.tile(a, 2), i.view("M8[D]"), a.view("m8[D]")

    check(f, DATES, np.arange(3))


def test_array_equal():
    @njit
    def f(a, b):
        return np.array_equal(a, b)

    check(f, DATES, DATES)
    check(f, DATES, DATES.copy()[::-1])
    check(f, DATES, DATES[:3])
    check(f, NONAT, NONAT.astype("M8[s]"))
    check(f, HOURS, HOURS.astype("m8[m]"))


@pytest.mark.numba_skip("Numba 0.68 has no equal_nan= for datetime arrays")
def test_array_equal_nan():
    @njit
    def f(a, b):
        return np.array_equal(a, b, equal_nan=True)

    check(f, DATES, DATES)
    check(f, DATES, DATES.astype("M8[s]"))
    check(f, HOURS, HOURS[::-1])


# ---- filling and slice stores ---------------------------------------------

def test_full_full_like_fill():
    @njit
    def f(v, a):
        b = a.copy()
        b.fill(v)
        return np.full(3, v), np.full((2, 2), v), np.full_like(a, v), b

    check(f, D("2020-01-01"), DATES)
    check(f, D("NaT", "D"), DATES)
    check(f, T(4, "s"), np.array([1, 2], "m8[s]"))


@pytest.mark.numba_skip("Numba 0.68 fills and stores datetimes of the array's unit only")
def test_fill_and_stores_convert_to_a_finer_unit():
    @njit
    def f(v, a):
        b = a.copy()
        b.fill(v)
        c = a.copy()
        c[1:3] = v
        d = a.copy()
        d[::2] = a[:3]
        return np.full_like(a, v), b, c

    check(f, D("NaT", "D"), DATES.astype("M8[s]"))
    check(f, D("2020-01-01"), DATES.astype("M8[h]"))
    check(f, T(4, "s"), np.array([1, 2, 3, 4, 5], "m8[ms]"))
    check(f, T("NaT", "s"), HOURS.astype("m8[us]"))


def test_slice_stores():
    @njit
    def scalar(a, v):
        a[1:3] = v
        a[-1:] = a[0]
        return a

    @njit
    def array(a, b):
        a[::2] = b
        return a

    @njit
    def shift(a):
        a[1:] = a[:-1]
        return a

    @njit
    def copyto(a):
        b = np.empty_like(a)
        b[:] = a
        return b

    @njit
    def mask(a, v):
        a[np.isnat(a)] = v
        return a

    check(scalar, DATES.copy(), D("2020-05-05"))
    check(scalar, DATES.copy(), D("NaT", "D"))
    check(array, DATES.copy(), np.array(["1999-01-01", "NaT", "2001-01-01"], "M8[D]"))
    check(array, DATES.copy(), D("2001-01-01"))
    check(shift, DATES)
    check(shift, HOURS)
    check(copyto, GRID)
    check(mask, DATES, D("2000-01-01"))


@pytest.mark.numba_skip("hpcjit's messages")
def test_fill_and_stores_refuse_coarser_units():
    @njit
    def fill(a, v):
        a.fill(v)

    @njit
    def store(a, v):
        a[:] = v

    with pytest.raises(TypingError, match="cannot fill a datetime64.s. array with datetime64.ms."):
        fill(DATES.astype("M8[s]"), D(1, "ms"))
    with pytest.raises(TypingError, match="cannot fill a timedelta64.h. array with int64"):
        fill(HOURS, 3)
    with pytest.raises(TypingError, match="cannot assign"):
        store(DATES, HOURS)


# ---- builtins min() and max() (Python's comparisons: NaT never wins) ------

@pytest.mark.parametrize("a, b, c", [
    (D("2020-01-01"), D("2019-01-01"), D("2021-01-01")),
    (D("NaT", "D"), D("2019-01-01"), D("2021-01-01")),
    (D("2019-01-01"), D("NaT", "D"), D("2021-01-01")),
    (T(3, "h"), T("NaT", "h"), T(-1, "h")),
])
def test_builtin_min_max_of_scalars(a, b, c):
    @njit
    def f(a, b, c):
        return max(a, b), min(a, b), max(a, b, c), min(c, b, a)

    check(f, a, b, c)


@pytest.mark.parametrize("a", [HOURS, HOURS[::-1], np.array(["NaT", 1, -5], "m8[h]"), DATES[::2]])
def test_builtin_min_max_of_an_array(a):
    @njit
    def f(a):
        return max(a), min(a)

    check(f, a)


@pytest.mark.numba_skip("Numba 0.68 has no min/max of datetimes of two units")
def test_builtin_min_max_mixed_units():
    @njit
    def f(a, b):
        return max(a, b), min(a, b)

    hi, lo = f(D("2020-01-01"), D("2020-01-01T05", "h"))
    assert hi == D("2020-01-01T05", "h") and lo == D("2020-01-01")
    hi, lo = f(T(3, "h"), T(2, "m"))
    assert hi == T(3, "h") and lo == T(2, "m")


# ---- lists of datetimes (reflected and typed) and `in` -------------------

def test_typed_list_of_datetimes():
    @njit
    def f(a):
        lst = hpcjit.typed.List()
        for x in a:
            lst.append(x)
        return lst[1], lst[2], len(lst), lst[-1]

    @njit
    def g(a):
        lst = hpcjit.typed.List()
        for x in a:
            lst.append(x)
        return lst

    check(f, DATES)
    check(f, HOURS)
    check(g, NONAT)  # lists compare their items with ==: NaT would differ from itself


def test_reflected_list_methods():
    @njit
    def sort(a):
        lst = [x for x in a]
        lst.sort()
        return lst, sorted(a)

    @njit
    def methods(a):
        lst = list(a)
        lst.append(a[0])
        lst.insert(0, a[2])
        return lst.index(a[2]), lst.count(a[0]), lst.pop(), min(lst), max(lst), a[1] in lst, lst

    @njit
    def remove(a):
        lst = [a[0], a[1]]
        lst.remove(a[0])
        return lst + lst, lst * 2

    @njit
    def nat(a):
        lst = [x for x in a]
        return lst.count(a[2]), a[2] in lst, a[0] in lst

    check(sort, NONAT)
    check(methods, NONAT)
    check(methods, HOURS[[0, 1, 3]])
    check(remove, HOURS)
    check(nat, HOURS)


def test_int_of_a_timedelta_is_its_count():
    @njit
    def f(t):
        return int(t)

    check(f, T(-7, "ns"))  # CPython gives the count for [ns] too
    check(f, T(12345, "ns"))


@pytest.mark.numba_skip("CPython refuses int() of these; hpcjit's message")
def test_int_of_coarse_timedelta_and_datetime():
    @njit
    def f(t):
        return int(t)

    assert f(T(5, "h")) == 5  # Numba's count
    with pytest.raises(TypingError, match="cannot convert datetime64"):
        f(D("1970-01-03"))


def test_dict_keys():
    @njit
    def f(a):
        d = {}
        for i in range(len(a)):
            d[a[i]] = i
        return len(d), d[a[0]], a[1] in d, a[3] in d  # NaT equals no key, as in Python

    check(f, np.array(["2020-01-01", "2021-01-01", "2020-01-01", "1999-01-01"], "M8[D]"))
    check(f, HOURS[[0, 1, 3, 4]])


@pytest.mark.numba_skip("Numba 0.68's dict takes NaT keys for equal")
def test_dict_nat_keys():
    @njit
    def f(a):
        d = {}
        for i in range(len(a)):
            d[a[i]] = i
        return len(d), d[a[0]], a[1] in d, a[3] in d

    check(f, np.array(["2020-01-01", "2021-01-01", "2020-01-01", "NaT", "NaT"], "M8[D]"))
    check(f, HOURS)


def test_in_array():
    @njit
    def f(a, x):
        return x in a, x not in a

    check(f, DATES, DATES[0])
    check(f, DATES, DATES[2])
    check(f, HOURS, T(49, "h"))
    check(f, HOURS, T(2, "h"))


# ---- globals and closure values (frozen when the function compiles) -------

G_DAY = D("2020-01-01")
G_NAT = D("NaT")
G_NAT_S = T("NaT", "s")
G_3H = T(3, "h")
G_NS = T(7, "ns")
G_DATES = np.array(["2020-01-01", "NaT", "2021-06-01"], "M8[D]")
G_GRID = np.array([[1, 2], [3, "NaT"]], "m8[s]")
G_TUP = (G_DAY, G_3H, 5)


def test_global_scalars():
    @njit
    def f(x):
        return G_DAY, G_NAT, G_NAT_S, G_3H, G_NS, x - G_DAY, x + G_3H, x > G_DAY, G_DAY + G_NS

    check(f, D("2021-03-04"))
    check(f, D("NaT", "D"))


def test_global_tuple_and_closure():
    @njit
    def f():
        return G_TUP, G_TUP[0] + G_TUP[1]

    check(f)
    start = D("2019-01-01T00:00")

    @njit
    def since(x):
        return x - start

    check(since, D("2020-01-01"))


@pytest.mark.numba_skip("Numba 0.68 cannot freeze datetime arrays (no buffer format for M8)")
def test_global_arrays_frozen():
    @njit
    def f(i):
        return G_DATES, G_DATES.min(), G_DATES[i], G_GRID[1, 0], np.isnat(G_GRID)

    check(f, 2)


@pytest.mark.numba_skip("hpcjit's message")
def test_global_of_a_multiple_unit_refused():
    two_h = T(3, "2h")

    @njit
    def f():
        return two_h

    with pytest.raises(TypingError, match="timedelta64.2h"):
        f()


# ---- refused uses -----------------------------------------------------------

def test_mixed_units_refused():
    @njit
    def add(a, b):
        return a + b

    @njit
    def cmp(a, b):
        return a < b

    @njit
    def plus(a, b):
        return a + b

    with pytest.raises(TypingError):
        add(T(1, "M"), T(1, "D"))
    with pytest.raises(TypingError):
        cmp(T(1, "Y"), T(1, "h"))
    with pytest.raises(TypingError):
        plus(D("2020-01-01"), T(1, "M"))
    with pytest.raises(TypingError):
        plus(D("2020-01-01"), D("2020-01-01"))


@pytest.mark.numba_skip("hpcjit's messages and located errors")
def test_errors_are_located():
    @njit
    def f(a, b):
        return a + b  # here

    with pytest.raises(TypingError) as ei:
        f(T(1, "M"), T(1, "D"))
    assert "test_datetime.py" in str(ei.value) and "timedelta64[M]" in str(ei.value)

    @njit
    def g(x):
        return np.isnat(x)

    with pytest.raises(TypingError, match="isnat"):
        g(1.5)

    @njit
    def h(a):
        return np.prod(a)

    with pytest.raises(hpcjit.UnsupportedError, match="datetime64"):
        h(HOURS)

    @njit
    def make():
        return np.datetime64("2020-01-01T00:00:00.5")  # here: fractional seconds (Numba builds none)

    with pytest.raises(hpcjit.UnsupportedError, match="datetime64") as ei:
        make()
    assert "test_datetime.py" in str(ei.value)

    @njit
    def ptp(a):
        return np.ptp(a)  # Numba has no datetime ptp either

    with pytest.raises(hpcjit.UnsupportedError, match="datetime64"):
        ptp(HOURS)


# ---- np.diff of datetimes and timedeltas ----

@njit
def dt_diff(d):
    return np.diff(d), np.diff(d, 2), np.diff(d, n=1, axis=0)


@pytest.mark.numba_skip(reason="Numba's np.diff refuses datetime64 (it takes timedelta64)")
def test_diff_datetime():
    check(dt_diff, np.array(["2024-01-01", "2024-02-29", "NaT", "2024-12-31", "2025-03-01"], dtype="datetime64[D]"))
    check(dt_diff, np.array([1, 5, -3, 7], dtype="timedelta64[ms]"))
    check(dt_diff, np.array([["2024-01-01T10", "2024-01-01T12", "2024-01-03T01"],
                             ["2024-01-02T00", "NaT", "2023-12-31T23"]], dtype="datetime64[h]").T)
    with pytest.raises(ValueError, match="n=0"):
        njit(lambda d: np.diff(d, n=0))(np.array(["2024-01-01"], dtype="datetime64[D]"))


# ---- np.timedelta64(n, unit) / np.datetime64(n, unit) made in compiled code ----

@njit
def dt_made(d, n):
    return (d + np.timedelta64(45, "D"), (d - d) / np.timedelta64(1, "D"), np.timedelta64(n, "h"),
            np.datetime64(n, "D"), np.timedelta64(3) * 2, d > np.datetime64(19000, "D"),
            np.timedelta64(True, "ms"))


@pytest.mark.numba_skip(reason="Numba cannot call np.timedelta64/np.datetime64 in compiled code")
def test_made_in_compiled_code():
    for d, n in ((D("2024-01-01"), 7), (D("1969-12-31T10", "h"), -3), (NAT_D, 0)):
        check(dt_made, d, n)
    with pytest.raises(TypingError, match="unit must be a constant"):
        njit(lambda u: np.timedelta64(1, u))("D")
    with pytest.raises(TypingError, match="integer count"):
        njit(lambda: np.timedelta64(1.5, "D"))()


@njit
def dt_astype(a):
    return a.astype(np.int64), a.astype(np.float64), a.astype(np.int32), a.astype(a.dtype)


@pytest.mark.numba_skip(reason="Numba's astype() takes no datetime64/timedelta64 arrays")
def test_astype_to_numbers():
    check(dt_astype, np.array([1, "NaT", 3], dtype="m8[D]"))
    check(dt_astype, np.array([["2024-01-01", "NaT"], ["1969-07-20", "2000-02-29"]], dtype="M8[D]").T)
    with pytest.raises(hpcjit.UnsupportedError, match="astype"):
        njit(lambda a: a.astype(np.dtype("m8[h]")))(np.array([1], dtype="m8[D]"))


@njit
def dt_from_strings(d):
    return (np.datetime64("2020-01-04"), np.datetime64("2020-03"), np.datetime64("1969"),
            np.datetime64("2024-02-29T13:45"), np.datetime64("1965-07-01T00:00:07"), np.datetime64("NaT"),
            np.datetime64("2020-01-04", "h"), d + np.timedelta64(3, "D") == np.datetime64("2020-01-04"),
            np.datetime64("1600-03-01T05"))


@pytest.mark.numba_skip(reason="Numba cannot call np.datetime64 in compiled code")
def test_datetime64_of_a_string_constant():
    check(dt_from_strings, D("2020-01-01"))
    with pytest.raises(hpcjit.UnsupportedError, match="this string"):
        njit(lambda: np.datetime64("2021-02-29"))()  # NumPy: ValueError, found here when compiling
