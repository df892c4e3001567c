"""numba.np.extensions: cross2d(a, b), the z component of the cross product
of 2-vectors along the last axis (NumPy 2 deprecated np.cross of 2-vectors;
Numba offers this instead): a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
broadcast as np.cross broadcasts, a number for two 1-d vectors."""
import numpy as np

from . import errors
from . import types as _types
from .extending import overload

_MSG = "Incompatible dimensions for 2D cross product\n(dimension must be 2 for both inputs)"


def cross2d(a, b):
    """In the interpreter: NumPy's computation of the same."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape[-1] != 2 or b.shape[-1] != 2:
        raise ValueError(_MSG)
    return np.multiply(a[..., 0], b[..., 1]) - np.multiply(a[..., 1], b[..., 0])


@overload(cross2d)
def _ol_cross2d(a, b):
    for t in (a, b):
        if not (isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number)):
            raise errors.TypingError(f"cross2d() takes arrays of numbers, not {t}")
    if a.ndim == 1 and b.ndim == 1:
        def impl(a, b):
            if a.shape[-1] != 2 or b.shape[-1] != 2:
                raise ValueError(_MSG)
            return a[0] * b[1] - a[1] * b[0]
        return impl

    def impl_nd(a, b):
        if a.shape[-1] != 2 or b.shape[-1] != 2:
            raise ValueError(_MSG)
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return impl_nd
