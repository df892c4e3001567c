"""numba.np.unsafe.ndarray.to_fixed_tuple: the first `length` items of a 1-d
array as a tuple, `length` a compile-time constant (Numba's intrinsic of the
same name; libraries use it to turn an array of sizes into a shape).

Numba reads past the end when the array is shorter (its docstring: no bound
checking); here a short array raises IndexError instead."""
from . import errors
from . import types as _types
from ._npextra import _exec
from .extending import overload


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
