"""Numba's "unsafe" helpers that libraries import (Numba's intrinsics of the
same names, here overloads written in Python):
- numba.np.unsafe.ndarray.to_fixed_tuple(array, length): the first `length`
  items of a 1-d array as a tuple, `length` a compile-time constant (used to
  turn an array of sizes into a shape);
- numba.cpython.unsafe.tuple.tuple_setitem(tup, idx, val): a copy of a
  homogeneous tuple with item `idx` (a run-time integer) replaced by `val`
  cast to the tuple's item type (used to build index tuples in N-d loops).

Numba checks no bounds in either (its docstrings: undefined behaviour); here
a short array or an index outside the tuple raises IndexError instead."""
from . import errors
from . import types as _types
from ._npextra import _exec
from .extending import overload

_NP_NAMES = {"bool": "bool_"}


def to_fixed_tuple(array, length):
    """In the interpreter: the tuple of the array's first `length` items."""
    return tuple(array[i] for i in range(length))


@overload(to_fixed_tuple, prefer_literal=True)
def _ol_to_fixed_tuple(array, length):
    if not isinstance(array, _types.Array) or array.ndim != 1:
        raise errors.TypingError(f"not supported on {array} (a 1-d array only)")
    n = getattr(length, "literal_value", None)
    if not isinstance(n, int) or isinstance(n, bool):
        raise errors.TypingError(f"length must be a constant int, not {length}")
    if n < 0:
        raise errors.TypingError(f"length must not be negative, not {n}")
    items = "".join(f"array[{i}], " for i in range(n))
    src = (f"def impl(array, length):\n"
           f"    if array.shape[0] < {n}:\n"
           f"        raise IndexError('to_fixed_tuple(): the array has fewer than {n} items')\n"
           f"    return ({items})\n")
    return _exec(src, {}, "to_fixed_tuple")


def tuple_setitem(tup, idx, val):
    """In the interpreter: tup[:idx] + (val,) + tup[idx + 1:]."""
    return tup[:idx] + (val,) + tup[idx + 1:]


@overload(tuple_setitem)
def _ol_tuple_setitem(tup, idx, val):
    if not isinstance(tup, _types.UniTuple):
        raise errors.TypingError(f"takes a tuple of one item type, not {tup}")
    if not isinstance(idx, _types.Integer):
        raise errors.TypingError(f"the index must be an integer, not {idx}")
    n = tup.count
    dt = tup.dtype
    cast = f"np.{_NP_NAMES.get(str(dt), str(dt))}(val)" if isinstance(dt, _types.Number) else "val"
    items = "".join(f"v if idx == {i} else tup[{i}], " for i in range(n))
    src = (f"def impl(tup, idx, val):\n"
           f"    if idx < 0 or idx >= {n}:\n"
           f"        raise IndexError('tuple_setitem(): index out of range')\n"
           f"    v = {cast}\n"
           f"    return ({items})\n")
    return _exec(src, {}, "tuple_setitem")
