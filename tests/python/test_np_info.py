"""np.iinfo / np.finfo in compiled code (hpcjit/_npinfo.py): every limit
Numba gives, for dtypes, scalars and arrays, against NumPy via py_func."""
import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
from conftest import check  # noqa: E402

njit = hpcjit.njit
SHIM = getattr(hpcjit, "__hpcjit_numba_shim__", False)
if SHIM:
    from numba.core import errors
else:
    from hpcjit import errors
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float32, np.float64]


@njit
def int_limits(a):
    i = np.iinfo(a.dtype)
    return i.min, i.max, i.bits


@njit
def int_limits_of_scalar(x):
    return np.iinfo(x).max, np.iinfo(x).min


@njit
def fixed_limits():
    return (np.iinfo(np.int32).max, np.iinfo(np.uint64).max, np.iinfo(np.int8).min, np.iinfo(np.uint8).bits,
            np.finfo(np.float32).eps, np.finfo(np.float64).max, np.finfo(np.float64).tiny)


@njit
def float_limits(a):
    f = np.finfo(a.dtype)
    return (f.bits, f.eps, f.epsneg, f.max, f.min, f.tiny, f.resolution, f.precision, f.nmant, f.nexp,
            f.machep, f.negep, f.minexp, f.maxexp, f.iexp)


@njit
def float_limits_numpy2(a):  # NumPy's names Numba does not give
    f = np.finfo(a.dtype)
    return f.smallest_normal, f.smallest_subnormal


@njit
def clamp_to(a, x):
    lim = np.iinfo(a.dtype)
    return min(max(x, lim.min), lim.max)


@pytest.mark.parametrize("dt", INTS)
def test_iinfo(dt):
    check(int_limits, np.zeros(3, dt))
    check(int_limits_of_scalar, dt(5))
    if dt != np.uint64:  # int64 with uint64 is a float (Numba's rule), Python keeps ints
        check(clamp_to, np.zeros(2, dt), 10**6)
        check(clamp_to, np.zeros(2, dt), -10**6)


@pytest.mark.parametrize("dt", FLOATS)
def test_finfo(dt):
    check(float_limits, np.zeros(3, dt))
    if not SHIM:
        check(float_limits_numpy2, np.zeros(3, dt))


def test_fixed():
    check(fixed_limits)


def test_wrong_kind_is_a_typing_error():
    bad = njit(lambda a: np.iinfo(a.dtype).max)
    with pytest.raises(errors.TypingError):
        bad(np.zeros(2))


@njit
def contiguity(a):
    fl = a.flags
    return fl.c_contiguous, fl.f_contiguous, fl.contiguous


def test_flags():
    base = np.arange(24.0).reshape(2, 3, 4)
    arrays = [base, base.T, base[:, ::2], base[:, :1, :], base[..., 0], np.ones(5)[::2],
              np.ones((1, 5))[:, ::2], np.asfortranarray(base), np.ones(())]
    if not SHIM:  # Numba says an empty C array is not F-contiguous; NumPy (and hpcjit) that it is
        arrays.append(np.ones((0, 3)))
    for a in arrays:
        check(contiguity, a)


@njit
def dtypes(n):
    return np.dtype("float32"), np.dtype(np.int64), np.zeros(n, np.dtype("int16")).dtype


def test_dtype_values():
    check(dtypes, 3)


@njit
def contains(a, x):
    return x in a, x not in a, (x + 1) in a[::2], x in a.T


def test_in_array():
    a = np.arange(10.0).reshape(2, 5)
    for x in (3, 3.5, 9, -1, 0):
        check(contains, a, x)
    check(contains, np.arange(7, dtype=np.int32), 2.0)
    check(contains, np.array([np.nan, 1.0]), np.nan)
    check(contains, np.zeros((0, 3)), 0)


@pytest.mark.skipif(SHIM, reason="hpcjit's compile cache")
def test_dtype_attribute_does_not_pull_in_the_np_dtype_overload(tmp_path, monkeypatch):
    # `a.dtype` names "dtype" as np.dtype does: only np.dtype makes the code
    # use the overload
    monkeypatch.setenv("HPCJIT_CACHE_DIR", str(tmp_path))

    def zeros_like_sum(a):
        return np.zeros(3, a.dtype).sum() + a.sum()

    f = njit(cache=True)(zeros_like_sum)
    check(f, np.ones(4))
    assert f._infos[0]["cache"] in ("miss", "hit")


# ---- x.astype(dtype) of a scalar (NumPy scalars have it; Numba only arrays) ----

def scalar_astype(a):
    x = a[0]
    return (x.astype(np.int32), x.astype("f4"), x.astype(np.dtype("int8")),
            x.astype(np.float64), x.astype(np.bool_), x.astype(float), x.astype(int))


def timedelta_astype(d):
    td = d[1] - d[0]
    return td.astype(np.int64), td.astype(np.float64), td.astype(np.int32), d[0].astype(np.int64)


def nat_astype(d):
    return d[2].astype(np.int64), (d[2] - d[0]).astype(np.int64)


@pytest.mark.numba_skip("Numba: unknown attribute 'astype' of a scalar")
@pytest.mark.parametrize("a", [np.array([2.7, -1.5]), np.array([-3, 4], dtype=np.int16),
                               np.array([250], dtype=np.uint8)])
def test_scalar_astype(a):
    check(njit(scalar_astype), a)


@pytest.mark.numba_skip("Numba: unknown attribute 'astype' of a scalar")
@pytest.mark.parametrize("unit", ["D", "s", "ms"])
def test_datetime_scalar_astype(unit):
    d = np.array(["2020-01-01", "2020-03-01", "NaT"], dtype=f"datetime64[{unit}]")
    check(njit(timedelta_astype), d)
    check(njit(nat_astype), d)


@pytest.mark.numba_skip("hpcjit's message")
def test_scalar_astype_refusals():
    def to_unit(d):
        return (d[1] - d[0]).astype("m8[s]")

    def to_str(a):
        return a[0].astype("U3")

    d = np.array(["2020-01-01", "2020-03-01"], dtype="datetime64[D]")
    with pytest.raises(errors.TypingError, match="units are not supported"):
        njit(to_unit)(d)
    with pytest.raises(errors.TypingError, match="not a numeric type"):
        njit(to_str)(np.ones(2))
