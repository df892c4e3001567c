"""np.average(a, axis=None, weights=None, returned=False) as an overload
(hpcjit.extending), the whole-array form: the mean, or with weights the
sum of a*w over the sum of w (weights of a's shape).  As NumPy: float64
for integer and bool arrays, ZeroDivisionError when the weights sum to
zero; `returned=True` gives (average, sum of weights).  An axis is refused
with a message (Numba 0.68 has no axis either)."""
import numpy as np

from . import errors
from . import types as _types
from .extending import overload, register_jitable


def _absent(t):
    return t is None or isinstance(t, (_types.NoneType, _types.Omitted))


def _returned(t):
    """The constant value of `returned` (False when left out)."""
    if _absent(t):
        return False
    if isinstance(t, bool):  # the default, as it stands in the signature
        return t
    lit = getattr(t, "literal_value", None)
    if isinstance(lit, bool):
        return lit
    raise errors.TypingError(f"np.average(): returned= must be a constant True or False")


@register_jitable
def _weighted(a, weights):
    """(sum of a*w / sum of w, sum of w) over the whole arrays."""
    if a.shape != weights.shape:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    wf = weights.ravel()
    scl = wf.sum() + 0.0
    if scl == 0.0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return (a.ravel() * wf).sum() / scl, scl


@overload(np.average)
def _ol_average(a, axis=None, weights=None, returned=False):
    if not isinstance(a, _types.Array):
        raise errors.TypingError(f"np.average() takes an array, not {a}")
    if not _absent(axis):
        raise errors.TypingError("np.average(axis=...) is not supported by hpcjit (the whole array only)")
    ret = _returned(returned)
    if _absent(weights):
        if ret:
            def impl(a, axis=None, weights=None, returned=False):
                return np.mean(a), float(a.size)
        else:
            def impl(a, axis=None, weights=None, returned=False):
                return np.mean(a)
        return impl
    if not isinstance(weights, _types.Array):
        raise errors.TypingError(f"np.average(): weights must be an array, not {weights}")

    if ret:
        def impl(a, axis=None, weights=None, returned=False):
            return _weighted(a, weights)
    else:
        def impl(a, axis=None, weights=None, returned=False):
            return _weighted(a, weights)[0]
    return impl
