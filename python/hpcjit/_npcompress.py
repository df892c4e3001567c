"""np.compress(condition, a, axis=None) and a.compress(condition,
axis=None) as overloads (hpcjit.extending), NumPy's semantics: the items
of `a` (flattened when axis is None) along `axis` where `condition` is
true (any non-zero value); a condition shorter than the axis selects from
its first items, a true entry past the end of the axis is an IndexError at
run time.  The result is a new C-contiguous array."""
import numpy as np

from . import errors
from . import types as _types
from .extending import overload, overload_method, register_jitable


def _absent(t):
    return t is None or isinstance(t, (_types.NoneType, _types.Omitted))


def _check(condition, a, axis):
    if not isinstance(a, _types.Array):
        raise errors.TypingError(f"np.compress() takes an array as `a`, not {a}")
    if isinstance(condition, _types.Array):
        if condition.ndim != 1:
            raise errors.TypingError(f"np.compress(): condition must be a 1-d array, not {condition.ndim}-d")
        dt = condition.dtype
    elif isinstance(condition, (_types.List, _types.UniTuple)):
        dt = condition.dtype
    else:
        raise errors.TypingError(f"np.compress(): condition must be a 1-d array, list or tuple, not {condition}")
    if not isinstance(dt, (_types.Boolean, _types.Integer, _types.Float)):
        raise errors.TypingError(f"np.compress(): condition must hold bools or numbers, not {dt}")
    if not _absent(axis) and not isinstance(axis, _types.Integer):
        raise errors.TypingError(f"np.compress(): axis must be an int or None, not {axis}")
    if not _absent(axis) and a.ndim == 0:
        raise errors.TypingError("np.compress(): axis is out of bounds for array of dimension 0")


@register_jitable
def _positions(condition, n):
    """The positions of the true entries of condition, each checked against
    the axis length n (NumPy's IndexError)."""
    k = 0
    for i in range(len(condition)):
        if condition[i]:
            k += 1
    idx = np.empty(k, np.intp)
    k = 0
    for i in range(len(condition)):
        if condition[i]:
            if i >= n:
                raise IndexError("index out of bounds for the axis of compress()")
            idx[k] = i
            k += 1
    return idx


@register_jitable
def _along(condition, a, axis):
    """compress along an axis: the axis moved first (np.moveaxis checks it:
    AxisError), its selected items copied, moved back, made contiguous."""
    b = np.moveaxis(a, axis, 0)
    idx = _positions(condition, b.shape[0])
    out = np.empty((idx.size,) + b.shape[1:], a.dtype)
    for j in range(idx.size):
        out[j] = b[idx[j]]
    return np.ascontiguousarray(np.moveaxis(out, 0, axis))


def _ol_compress(condition, a, axis=None):
    _check(condition, a, axis)
    if _absent(axis):
        def impl(condition, a, axis=None):
            flat = a.ravel()
            return np.take(flat, _positions(condition, flat.size))
        return impl

    def impl(condition, a, axis=None):  # noqa: F811 - one of the two is returned
        return _along(condition, a, axis)
    return impl


overload(np.compress)(_ol_compress)


@overload_method(_types.Array, "compress")
def _ol_array_compress(a, condition, axis=None):
    _check(condition, a, axis)
    if _absent(axis):
        def impl(a, condition, axis=None):
            return np.compress(condition, a)
        return impl

    def impl(a, condition, axis=None):  # noqa: F811 - one of the two is returned
        return np.compress(condition, a, axis)
    return impl
