"""NumPy names written as overloads (hpcjit.extending), where the answer
is mostly known at compile time:
- np.iinfo / np.finfo: the limits of the argument's dtype as constants in a
  named tuple (as Numba gives them); the argument is an integer or float
  type (np.int32, a.dtype, a number or an array of that dtype);
- np.dtype("float32") / np.dtype(np.int64): the dtype as a value;
- a.flags: c_contiguous, f_contiguous and contiguous (NumPy's alias of
  c_contiguous), from the shape and strides at run time."""
from collections import namedtuple

import numpy as np

from . import errors
from . import types as _types
from .extending import overload, overload_attribute, overload_method
from .numpy_support import as_dtype
from ._npextra import _exec
from ._nplist import _given

iinfo = namedtuple("iinfo", ("min", "max", "bits", "dtype"))
_FINFO_FIELDS = ("bits", "eps", "epsneg", "iexp", "machep", "max", "maxexp", "min", "minexp", "negep",
                 "nexp", "nmant", "precision", "resolution", "tiny", "smallest_normal",
                 "smallest_subnormal", "dtype")
finfo = namedtuple("finfo", _FINFO_FIELDS)


def _scalar_type(t, what):
    if isinstance(t, _types.DType):
        t = t.dtype
    elif isinstance(t, _types.Array):
        t = t.dtype
    if isinstance(t, _types.Complex):  # finfo(complex) is its parts'
        t = _types.float32 if t == _types.complex64 else _types.float64
    if what == "iinfo" and isinstance(t, _types.Integer) and not isinstance(t, _types.Boolean):
        return t
    if what == "finfo" and isinstance(t, _types.Float):
        return t
    raise errors.TypingError(f"np.{what}() takes an {'integer' if what == 'iinfo' else 'inexact'} type "
                             f"(a dtype, a number or an array), not {t}")


@overload(np.iinfo)
def _ol_iinfo(int_type):
    t = _scalar_type(int_type, "iinfo")
    dt = as_dtype(t)
    info = np.iinfo(dt)
    lo, hi, bits = info.min, info.max, info.bits
    if hi >= 1 << 63:  # uint64's: frozen constants are int64, the conversion wraps it back
        hi -= 1 << 64
    scalar = dt.type

    def impl(int_type):
        return iinfo(scalar(lo), scalar(hi), bits, scalar)
    return impl


@overload(np.finfo)
def _ol_finfo(dtype):
    t = _scalar_type(dtype, "finfo")
    dt = as_dtype(t)
    f = np.finfo(dt)
    scalar = dt.type
    bits, iexp, machep, maxexp, minexp = f.bits, f.iexp, f.machep, f.maxexp, f.minexp
    negep, nexp, nmant, precision = f.negep, f.nexp, f.nmant, f.precision
    eps, epsneg, mx, mn = float(f.eps), float(f.epsneg), float(f.max), float(f.min)
    res, tiny, snorm, ssub = float(f.resolution), float(f.tiny), float(f.smallest_normal), \
        float(f.smallest_subnormal)

    def impl(dtype):
        return finfo(bits, scalar(eps), scalar(epsneg), iexp, machep, scalar(mx), maxexp, scalar(mn), minexp,
                     negep, nexp, nmant, precision, scalar(res), scalar(tiny), scalar(snorm), scalar(ssub),
                     scalar)
    return impl


@overload(np.dtype)
def _ol_dtype(obj):
    if isinstance(obj, _types.DType):
        return lambda obj: obj
    lit = getattr(obj, "literal_value", None)
    if isinstance(lit, str):
        try:
            scalar = np.dtype(lit).type
        except TypeError as e:
            raise errors.TypingError(f"np.dtype({lit!r}): {e}") from None
        if np.dtype(lit).kind in "Mm":  # the class would lose the unit: the dtype object itself
            scalar = np.dtype(lit)
        return lambda obj: scalar
    return None


flags = namedtuple("flags", ("c_contiguous", "f_contiguous", "contiguous"))


@overload_attribute(_types.Array, "flags")
def _ol_flags(a):
    if a.ndim == 0:  # both, as NumPy says (and no shape to index)
        return lambda a: flags(True, True, True)

    def get(a):
        shape = a.shape
        strides = a.strides
        c = True
        f = True
        if a.size > 0:
            expect = a.itemsize
            for i in range(a.ndim - 1, -1, -1):
                if shape[i] != 1:
                    if strides[i] != expect:
                        c = False
                    expect *= shape[i]
            expect = a.itemsize
            for i in range(a.ndim):
                if shape[i] != 1:
                    if strides[i] != expect:
                        f = False
                    expect *= shape[i]
        return flags(c, f, c)
    return get


# ---- x.astype(dtype) of a scalar ---------------------------------------------
# NumPy scalars have .astype (np.float64(2.7).astype(np.int32) is np.int32(2),
# (d1 - d0).astype(np.int64) the count of a timedelta); Numba has it on
# arrays only.  Numbers convert as np.<type>(x) does; a datetime64 or
# timedelta64 gives its count (NaT: the int64 minimum), as an integer or
# float type, or itself for its own type.

@overload_method(_types.Number, "astype")
def _ol_scalar_astype(x, dtype):
    dt = _given(dtype, "astype")
    if dt is None:
        raise errors.TypingError("astype() needs a dtype")
    src = as_dtype(x)
    if dt == src:
        return _exec("def impl(x, dtype):\n    return x\n", {}, "astype")
    if dt.kind in "Mm":
        raise errors.TypingError(f"{x} to {dt}: conversions to datetime64/timedelta64 units "
                                 f"are not supported by hpcjit")
    if dt.kind not in "biufc":
        raise errors.TypingError(f"{x} to {dt}: not a numeric type")
    name = dt.type.__name__
    if src.kind in "Mm":
        if dt.kind in "bc":
            raise errors.TypingError(f"{x} to {dt}: NumPy has no such conversion")
        count = "x" if src.kind == "m" else f"(x - np.datetime64(0, '{np.datetime_data(src)[0]}'))"
        body = f"np.{name}(np.int64({count}))"
    else:
        body = f"np.{name}(x)"
    return _exec(f"def impl(x, dtype):\n    return {body}\n", {}, "astype")
