"""np.array(lst) and np.asarray(lst) of a list (reflected or typed.List),
written as overloads (hpcjit.extending): the builtin np.array of
lib/np takes numbers, nested tuples and arrays, and hands a list to these
(compiler/lib/np/infer_np.c).

Also a tuple holding arrays or lists (a list display of arrays is typed
as a tuple).  The list's items may be numbers (a 1-d array), or tuples, lists or
arrays of one shape (one more dimension: np.array of each item, checked
against the first's shape at run time, NumPy's ValueError otherwise).
The dtype is NumPy's for the items (their promotion), or the `dtype`
argument.  An empty list of numbers gives shape (0,); an empty list of
nested items gives zeros in every dimension (NumPy gives (0,), but the
number of dimensions is part of the type here)."""
import numpy as np

from . import errors
from . import types as _types
from .extending import overload
from .numpy_support import as_dtype

_RAGGED = ("setting an array element with a sequence. The requested array has an inhomogeneous "
           "shape after 1 dimensions.")


def _items(t, fname):
    """(NumPy dtype, number of dimensions) of the array made from values of
    type t."""
    if isinstance(t, _types.Literal):
        t = _types.unliteral(t)
    if isinstance(t, _types.Number):  # Boolean included
        return as_dtype(t), 0
    if isinstance(t, _types.Array):
        return as_dtype(t.dtype), t.ndim
    if isinstance(t, _types.BaseTuple):
        if len(t) == 0:
            return np.dtype(np.float64), 1
        got = [_items(e, fname) for e in t]
        if len({nd for _, nd in got}) != 1:
            raise errors.TypingError(f"{fname}() of a ragged nested sequence ({t})")
        return np.result_type(*[dt for dt, _ in got]), got[0][1] + 1
    if isinstance(t, (_types.List, _types.ListType)):
        dt, nd = _items(t.dtype, fname)
        return dt, nd + 1
    raise errors.TypingError(f"{fname}() needs numbers, or lists, tuples or arrays of numbers, not {t}")


def _given(dtype, fname):
    """The dtype argument as a NumPy dtype, None when left out."""
    if dtype is None or isinstance(dtype, (_types.NoneType, _types.Omitted)):
        return None
    if isinstance(dtype, _types.DType):
        return as_dtype(dtype.dtype)
    lit = getattr(dtype, "literal_value", None)
    if isinstance(lit, str):
        try:
            return np.dtype(lit)
        except TypeError:
            pass
    raise errors.TypingError(f"{fname}(): dtype must be a NumPy number type or its name, not {dtype}")


def _make(obj, dtype, fname):
    if isinstance(obj, _types.BaseTuple):  # of arrays or lists (the builtin takes the others)
        return _from_tuple(obj, dtype, fname)
    if not isinstance(obj, (_types.List, _types.ListType)):
        return None
    item_dt, nd = _items(obj.dtype, fname)
    want = _given(dtype, fname)
    if want is not None and item_dt.kind == "c" and want.kind != "c":
        raise errors.TypingError(f"{fname}(): cannot convert {item_dt} to {want}")
    scalar = (want or item_dt).type
    if nd == 0:
        def impl(obj, dtype=None):
            n = len(obj)
            out = np.empty(n, scalar)
            for i in range(n):
                out[i] = obj[i]
            return out
        return impl
    zeros = (0,) * (nd + 1)

    def impl(obj, dtype=None):  # noqa: F811 - one of the two is returned
        n = len(obj)
        if n == 0:
            return np.empty(zeros, scalar)
        first = np.asarray(obj[0])
        out = np.empty((n,) + first.shape, scalar)
        for i in range(n):
            row = np.asarray(obj[i])
            if row.shape != first.shape:
                raise ValueError(_RAGGED)
            out[i] = row
        return out
    return impl


def _from_tuple(obj, dtype, fname):
    item_dt, nd = _items(obj, fname)
    want = _given(dtype, fname)
    if want is not None and item_dt.kind == "c" and want.kind != "c":
        raise errors.TypingError(f"{fname}(): cannot convert {item_dt} to {want}")
    scalar = (want or item_dt).type

    from . import literal_unroll  # noqa: F401 - named by the implementation

    def impl(obj, dtype=None):
        first = np.asarray(obj[0])
        out = np.empty((len(obj),) + first.shape, scalar)
        i = 0
        for x in literal_unroll(obj):  # no variable for np.asarray(x): its type changes
            if np.asarray(x).shape != first.shape:
                raise ValueError(_RAGGED)
            out[i] = np.asarray(x)
            i += 1
        return out
    return impl


@overload(np.array)
def _ol_array(obj, dtype=None):
    return _make(obj, dtype, "np.array")


@overload(np.asarray)
def _ol_asarray(obj, dtype=None):
    return _make(obj, dtype, "np.asarray")
