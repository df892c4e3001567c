"""np.gradient(f, *varargs, axis=None, edge_order=1) as an overload
(hpcjit.extending), NumPy's algorithm (numpy/lib/_function_base_impl.py):
second-order central differences inside, first- or second-order one-sided
differences at the edges, along each axis asked for.

- spacing: none (1.0 on every axis), one scalar for every axis, or one
  item per axis, each a scalar or a 1-d array of coordinates (evenly
  spaced coordinates use the scalar formulas, as NumPy does);
- axis: None (every axis), an int or a tuple of ints, negative counted from
  the end (AxisError out of range, ValueError when repeated);
- the result: one array when one axis is asked for, else a tuple of arrays
  (NumPy 2.x returns a tuple; 1.x a list), C-contiguous, of f's dtype
  for float and complex arrays and float64 for integer ones.

The impl is generated for the call's number of spacing arguments (hpcjit
compiles no *args functions): each axis calls _uniform or _coords."""
import numpy as np

from . import errors
from . import types as _types
from .extending import overload, register_jitable


def _absent(t):
    return t is None or isinstance(t, (_types.NoneType, _types.Omitted))


_TOO_SMALL = ("Shape of array too small to calculate a numerical gradient, "
              "at least (edge_order + 1) elements are required.")


@register_jitable
def _check_len(n, edge_order):
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if n < edge_order + 1:
        raise ValueError(_TOO_SMALL)


@register_jitable
def _uniform(f, axis, dx, edge_order):
    """The gradient of f along axis for a constant spacing dx.  As NumPy, a
    zero spacing gives inf/nan (np.divide), except for edge_order=2's
    coefficients, Python float divisions there: ZeroDivisionError."""
    b = np.moveaxis(f, axis, 0)
    _check_len(b.shape[0], edge_order)
    out = np.empty(b.shape, f.dtype)
    out[1:-1] = np.divide(b[2:] - b[:-2], 2.0 * dx)
    if edge_order == 1:
        out[0] = np.divide(b[1] - b[0], dx)
        out[-1] = np.divide(b[-1] - b[-2], dx)
    else:
        a0 = -1.5 / dx
        b0 = 2.0 / dx
        c0 = -0.5 / dx
        out[0] = a0 * b[0] + b0 * b[1] + c0 * b[2]
        a1 = 0.5 / dx
        b1 = -2.0 / dx
        c1 = 1.5 / dx
        out[-1] = a1 * b[-3] + b1 * b[-2] + c1 * b[-1]
    return np.ascontiguousarray(np.moveaxis(out, 0, axis))


@register_jitable
def _coords(f, axis, x, edge_order):
    """The gradient of f along axis at the coordinates x (1-d)."""
    b = np.moveaxis(f, axis, 0)
    n = b.shape[0]
    if x.shape[0] != n:
        raise ValueError("when 1d, distances must match the length of the corresponding dimension")
    _check_len(n, edge_order)
    d = np.diff(x)
    even = True
    for k in range(d.size):
        if d[k] != d[0]:
            even = False
    if even:
        return _uniform(f, axis, d[0], edge_order)
    out = np.empty(b.shape, f.dtype)
    for i in range(1, n - 1):
        dx1 = d[i - 1]
        dx2 = d[i]
        a = np.divide(-dx2, dx1 * (dx1 + dx2))
        bb = np.divide(dx2 - dx1, dx1 * dx2)
        c = np.divide(dx1, dx2 * (dx1 + dx2))
        out[i] = a * b[i - 1] + bb * b[i] + c * b[i + 1]
    if edge_order == 1:
        out[0] = np.divide(b[1] - b[0], d[0])
        out[-1] = np.divide(b[-1] - b[-2], d[-1])
    else:
        dx1 = d[0]
        dx2 = d[1]
        a = np.divide(-(2.0 * dx1 + dx2), dx1 * (dx1 + dx2))
        bb = np.divide(dx1 + dx2, dx1 * dx2)
        c = np.divide(-dx1, dx2 * (dx1 + dx2))
        out[0] = a * b[0] + bb * b[1] + c * b[2]
        dx1 = d[-2]
        dx2 = d[-1]
        a = np.divide(dx2, dx1 * (dx1 + dx2))
        bb = np.divide(-(dx2 + dx1), dx1 * dx2)
        c = np.divide(2.0 * dx2 + dx1, dx2 * (dx1 + dx2))
        out[-1] = a * b[-3] + bb * b[-2] + c * b[-1]
    return np.ascontiguousarray(np.moveaxis(out, 0, axis))


@register_jitable
def _axis_tuple(f, axis):
    """NumPy's normalize_axis_tuple: each in range (np.moveaxis raises the
    AxisError), none repeated."""
    nd = f.ndim
    for i in range(len(axis)):
        if axis[i] < -nd or axis[i] >= nd:
            np.moveaxis(f, axis[i], 0)
        for j in range(i):
            if (axis[i] + nd) % nd == (axis[j] + nd) % nd:
                raise ValueError("repeated axis")


def _spacing_kind(t):
    if isinstance(t, (_types.Integer, _types.Float)) and not isinstance(t, _types.Boolean):
        return "s"
    if isinstance(t, _types.Array):
        if t.ndim != 1:
            raise errors.TypingError("np.gradient(): distances must be either scalars or 1d")
        if not isinstance(t.dtype, (_types.Integer, _types.Float)) or isinstance(t.dtype, _types.Boolean):
            raise errors.TypingError(f"np.gradient(): coordinates must be numbers, not {t.dtype}")
        return "a"
    raise errors.TypingError(f"np.gradient(): a spacing must be a number or a 1-d array, not {t}")


@overload(np.gradient)
def _ol_gradient(f, *varargs, axis=None, edge_order=1):
    if not isinstance(f, _types.Array):
        raise errors.TypingError(f"np.gradient() takes an array, not {f}")
    dt = f.dtype
    if isinstance(dt, _types.Boolean) or not isinstance(dt, (_types.Integer, _types.Float, _types.Complex)):
        raise errors.TypingError(f"np.gradient() of an array of {dt} is not supported by hpcjit "
                                 "(numbers only)")
    nd = f.ndim
    if nd == 0:
        raise errors.TypingError("np.gradient(): the array must have at least one dimension")
    if _absent(axis):
        axes = [str(i) for i in range(nd)]
        check_axes = ""
    elif isinstance(axis, _types.Integer):
        axes = ["axis"]
        check_axes = ""
    elif isinstance(axis, _types.BaseTuple) and all(isinstance(t, _types.Integer) for t in axis):
        if len(axis) == 0:
            raise errors.TypingError("np.gradient(): axis=() asks for no gradient")
        axes = [f"axis[{i}]" for i in range(len(axis))]
        check_axes = "    _axis_tuple(f, axis)\n"
    else:
        raise errors.TypingError(f"np.gradient(): axis must be None, an int or a tuple of ints, not {axis}")
    if not isinstance(edge_order, (int, _types.Integer)) or isinstance(edge_order, bool):
        raise errors.TypingError(f"np.gradient(): edge_order must be an int, not {edge_order}")
    kinds = [_spacing_kind(t) for t in varargs]
    n = len(varargs)
    if n == 0:
        spacing = [("s", "1.0")] * len(axes)
    elif n == 1 and kinds[0] == "s":
        spacing = [("s", "v0")] * len(axes)
    elif n == len(axes):
        spacing = [(k, f"v{i}") for i, k in enumerate(kinds)]
    else:
        raise errors.TypingError(f"np.gradient(): invalid number of arguments ({n} spacings for "
                                 f"{len(axes)} axes)")
    params = "".join(f"v{i}, " for i in range(n))
    conv = "f.astype(np.float64)" if isinstance(dt, _types.Integer) else "f"
    # integer coordinates become float64, float ones keep their dtype (NumPy)
    calls = [f"_uniform(g, {ax}, {v}, edge_order)" if k == "s" else
             f"_coords(g, {ax}, {v}{'.astype(np.float64)' if isinstance(t.dtype, _types.Integer) else ''}, edge_order)"
             for ax, (k, v), t in zip(axes, spacing, varargs if n == len(axes) else [None] * len(axes))]
    result = calls[0] if len(calls) == 1 else "(" + ", ".join(calls) + ",)"
    src = (f"def impl(f, {params}axis=None, edge_order=1):\n"
           f"{check_axes}"
           f"    g = {conv}\n"
           f"    return {result}\n")
    ns = {}
    exec(compile(src, "<hpcjit np.gradient>", "exec"),
         {"np": np, "_uniform": _uniform, "_coords": _coords, "_axis_tuple": _axis_tuple}, ns)
    return ns["impl"]
