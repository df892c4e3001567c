"""NumPy's NaN-skipping argmax/argmin written as overloads (hpcjit.extending):
np.nanargmax(a) and np.nanargmin(a), the flat index of the largest or
smallest value that is not NaN, as Numba supports them (the first
argument only).  As NumPy: the first such index on ties, ValueError for an
empty array and for an array of NaNs only; integer and bool arrays are
argmax/argmin."""
import numpy as np

from . import errors
from . import types as _types
from .extending import overload


def _check(a, name):
    if isinstance(a, _types.Array):
        dt = a.dtype
    elif isinstance(a, _types.Number):
        dt = a
    else:
        raise errors.TypingError(f"np.{name}() takes an array or a number, not {a}")
    if isinstance(dt, _types.Complex):
        raise errors.TypingError(f"np.{name}() of a complex array is not supported by hpcjit")
    if not isinstance(dt, _types.Number):
        raise errors.TypingError(f"np.{name}() takes an array of numbers, not {a}")


def _nanarg(name, largest):
    """The overload of np.nan<name>: `largest` (a constant of the
    compilation) picks the comparison."""
    empty = f"attempt to get {name[3:]} of an empty sequence"

    def ol(a):
        _check(a, name)

        def impl(a):
            flat = np.asarray(a).ravel()
            if flat.size == 0:
                raise ValueError(empty)
            k = -1
            for i in range(flat.size):
                v = flat[i]
                if v != v:
                    continue
                if k < 0 or (v > flat[k] if largest else v < flat[k]):
                    k = i
            if k < 0:
                raise ValueError("All-NaN slice encountered")
            return k
        return impl
    return ol


overload(np.nanargmax)(_nanarg("nanargmax", True))
overload(np.nanargmin)(_nanarg("nanargmin", False))
