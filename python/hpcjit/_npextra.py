"""NumPy functions written as overloads (hpcjit.extending), with NumPy 2's
results (dtypes, tuples, run-time errors):
- np.unique(ar, return_index, return_inverse, return_counts): the whole
  array flattened (axis=None); index, inverse and counts are intp, NaNs
  collapse to one (equal_nan=True).  The builtin np.unique of lib/search
  hands a call with more than `ar` to this one (infer_search.c);
- np.count_nonzero(a, axis=int): intp counts along one axis (the builtin
  takes the whole-array form and hands an axis here);
- np.meshgrid(x1[, x2[, x3]], indexing='xy'|'ij', sparse=, copy=): a tuple
  of arrays (NumPy 2), always new arrays (copy=False gives copies too);
- np.pad(a, pad_width, mode='constant'|'edge'|'reflect'|'symmetric'|'wrap',
  constant_values=number): an int, (before, after), ((b, a),) or one
  (b, a) pair per axis;
- np.lexsort(keys): a tuple of 1-d arrays or a 2-d array (rows), the last
  key primary, stable;
- np.put(a, ind, v) and a.put(ind, v): mode='raise', v repeated;
- np.heaviside(x1, x2) and np.divmod(x1, x2): numbers or broadcasting
  arrays, NumPy's loop dtypes; divmod is (floor_divide, remainder);
- np.polyfit(x, y, deg[, rcond]): NumPy's scaled Vandermonde least squares
  through np.linalg.lstsq; full=True, w=, cov= are refused;
- np.polyval(p, x)."""
import linecache

import numpy as np

from . import errors
from . import types as _types
from .extending import overload, overload_method, register_jitable
from .numpy_support import as_dtype


def _absent(t):
    return t is None or isinstance(t, (_types.NoneType, _types.Omitted))


def _const(t, fname, name, kinds, default):
    """The constant value of an option (a literal of one of `kinds`)."""
    if _absent(t):
        return default
    if isinstance(t, kinds) and not isinstance(t, _types.Type):  # the default, as in the signature
        return t
    lit = getattr(t, "literal_value", None)
    if isinstance(lit, kinds):
        return lit
    raise errors.TypingError(f"np.{fname}(): {name}= must be a constant, not {t}")


def _bool(t, fname, name, default=False):
    return bool(_const(t, fname, name, (bool, int), default))


def _numeric_array(t, fname, name="a"):
    if not (isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number)):
        raise errors.TypingError(f"np.{fname}() takes an array of numbers as {name}, not {t}")


def _is_number(t):
    return isinstance(_types.unliteral(t) if isinstance(t, _types.Literal) else t, _types.Number)


def _dtype_of(t):
    if isinstance(t, _types.Array):
        return as_dtype(t.dtype)
    return as_dtype(_types.unliteral(t) if isinstance(t, _types.Literal) else t)


_counter = [0]


def _exec(src, ns, name):
    """A generated implementation (written out per arity: no *args in
    hpcjit); the compiler reads its source from linecache."""
    _counter[0] += 1
    fname = f"<hpcjit {name} {_counter[0]}>"
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    ns.setdefault("np", np)
    exec(compile(src, fname, "exec"), ns)
    return ns["impl"]


# ---- np.unique with return_index / return_inverse / return_counts -----------

@register_jitable
def _unique_parts(ar):
    """(sorted unique values, index of first occurrence, inverse, counts)."""
    flat = ar.ravel()
    n = flat.size
    perm = np.argsort(flat)  # a stable merge sort: the first of a run is its first occurrence
    srt = flat[perm]
    start = np.empty(n, np.bool_)
    nu = 0
    for i in range(n):
        s = i == 0 or srt[i] != srt[i - 1]
        if s and i > 0 and srt[i] != srt[i] and srt[i - 1] != srt[i - 1]:
            s = False  # NaNs are one value (equal_nan=True)
        start[i] = s
        if s:
            nu += 1
    uniq = np.empty(nu, flat.dtype)
    index = np.empty(nu, np.intp)
    counts = np.zeros(nu, np.intp)
    inverse = np.empty(n, np.intp)
    k = -1
    for i in range(n):
        if start[i]:
            k += 1
            uniq[k] = srt[i]
            index[k] = perm[i]
        counts[k] += 1
        inverse[perm[i]] = k
    return uniq, index, inverse, counts


@overload(np.unique)
def _ol_unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    _numeric_array(ar, "unique", "ar")
    if isinstance(ar.dtype, _types.Complex):
        raise errors.TypingError("np.unique(return_index/return_inverse/return_counts) of complex values "
                                 "is not supported by hpcjit")
    if not _absent(axis):
        raise errors.TypingError("np.unique(axis=...) is not supported by hpcjit (axis=None only)")
    ri = _bool(return_index, "unique", "return_index")
    rv = _bool(return_inverse, "unique", "return_inverse")
    rc = _bool(return_counts, "unique", "return_counts")
    if not (ri or rv or rc):
        def impl(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
            return np.unique(ar)
        return impl
    outs = ["p[0]"] + [f"p[{k}]" for k, on in ((1, ri), (2, rv), (3, rc)) if on]
    inv_shape = rv and ar.ndim > 1  # NumPy 2: the inverse has ar's shape
    if inv_shape:
        outs[outs.index("p[2]")] = "p[2].reshape(ar.shape)"
    src = ("def impl(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):\n"
           "    p = _unique_parts(ar)\n"
           f"    return ({', '.join(outs)},)\n")
    return _exec(src, {"_unique_parts": _unique_parts}, "unique")


# ---- np.count_nonzero(a, axis=) ---------------------------------------------

@overload(np.count_nonzero)
def _ol_count_nonzero(a, axis=None, keepdims=False):
    _numeric_array(a, "count_nonzero")
    if _bool(keepdims, "count_nonzero", "keepdims"):
        raise errors.TypingError("np.count_nonzero(keepdims=True) is not supported by hpcjit")
    if _absent(axis):
        def impl(a, axis=None, keepdims=False):
            return np.count_nonzero(a)
        return impl
    if not isinstance(_types.unliteral(axis) if isinstance(axis, _types.Literal) else axis, _types.Integer):
        raise errors.TypingError(f"np.count_nonzero(): axis must be an integer (a tuple of axes is not "
                                 f"supported by hpcjit), not {axis}")

    # a bad axis: np.sum of `a` raises NumPy's AxisError, before any temporary
    # (one alive on an exception's way out is not freed)
    if a.ndim == 1:  # one count (np.sum of a 1-d array along its axis is a number)
        def impl(a, axis=None, keepdims=False):
            if axis < -1 or axis > 0:
                np.sum(a, axis=axis)
            return np.intp(np.count_nonzero(a))
        return impl

    def impl(a, axis=None, keepdims=False):
        if axis < -a.ndim or axis >= a.ndim:
            np.sum(a, axis=axis)
        return np.sum(a != 0, axis=axis).astype(np.intp)
    return impl


# ---- np.meshgrid ------------------------------------------------------------

@overload(np.meshgrid)
def _ol_meshgrid(x1, x2=None, x3=None, indexing="xy", sparse=False, copy=True):
    xs = [t for t in (x1, x2, x3) if not _absent(t)]
    if len(xs) != (1 if _absent(x2) else 2 if _absent(x3) else 3):
        raise errors.TypingError("np.meshgrid() takes its arrays as the leading arguments")
    for t in xs:
        _numeric_array(t, "meshgrid", "each coordinate")
    ind = _const(indexing, "meshgrid", "indexing", (str,), "xy")
    if ind not in ("xy", "ij"):
        raise errors.NumbaValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    sp = _bool(sparse, "meshgrid", "sparse")
    _bool(copy, "meshgrid", "copy", True)  # always new arrays
    n = len(xs)
    axes = list(range(n))
    if ind == "xy" and n > 1:
        axes[0], axes[1] = 1, 0  # axis of the output each input runs along
    names = [f"x{k + 1}" for k in range(n)]
    lines = [f"def impl({', '.join(names)}, indexing='xy', sparse=False, copy=True):"]
    lines += [f"    r{k} = np.ravel({v})" for k, v in enumerate(names)]
    size = [None] * n
    for k in range(n):
        size[axes[k]] = f"r{k}.size"
    shape = "(" + ", ".join(size) + ",)"
    outs = []
    for k in range(n):
        if sp:
            sh = ["1"] * n
            sh[axes[k]] = f"r{k}.size"
            lines.append(f"    o{k} = r{k}.copy().reshape(({', '.join(sh)},))")
        else:
            lines.append(f"    o{k} = np.empty({shape}, r{k}.dtype)")
        outs.append(f"o{k}")
    if not sp:
        idx = [f"i{d}" for d in range(n)]
        ind_ = "    "
        for d in range(n):
            lines.append(f"{ind_}for i{d} in range({size[d]}):")
            ind_ += "    "
        for k in range(n):
            lines.append(f"{ind_}o{k}[{', '.join(idx)}] = r{k}[i{axes[k]}]")
    lines.append(f"    return ({', '.join(outs)},)")
    return _exec("\n".join(lines) + "\n", {}, "meshgrid")


# ---- np.pad -----------------------------------------------------------------

_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


@register_jitable
def _pad_src(i, n, b, mode):
    """The source index of padded position i along an axis of length n with
    b before; -1 for a constant."""
    j = i - b
    if 0 <= j < n:
        return j
    if mode == 0:
        return -1
    if mode == 1:
        return 0 if j < 0 else n - 1
    if mode == 2:
        if n == 1:
            return 0
        p = 2 * n - 2
        j = j % p
        return j if j < n else p - j
    if mode == 3:
        p = 2 * n
        j = j % p
        return j if j < n else p - 1 - j
    return j % n


@register_jitable
def _pad_check(before, after, shape, mode):
    for d in range(len(shape)):
        if before[d] < 0 or after[d] < 0:
            raise ValueError("index can't contain negative values")
        if mode != 0 and shape[d] == 0 and (before[d] > 0 or after[d] > 0):
            raise ValueError("can't extend empty axis using modes other than 'constant' or 'empty'")


def _pad_widths(pw, nd):
    """Source text of the (before, after) lists of widths per axis for a
    pad_width of type pw."""
    def is_int(t):
        return isinstance(_types.unliteral(t) if isinstance(t, _types.Literal) else t, _types.Integer)
    if is_int(pw):
        return [f"pad_width"] * nd, [f"pad_width"] * nd
    if isinstance(pw, _types.BaseTuple) and len(pw) > 0:
        if all(is_int(t) for t in pw):
            if len(pw) == 1:
                return ["pad_width[0]"] * nd, ["pad_width[0]"] * nd
            if len(pw) == 2:
                return ["pad_width[0]"] * nd, ["pad_width[1]"] * nd
        elif all(isinstance(t, _types.BaseTuple) and all(is_int(e) for e in t) for t in pw):
            ls = {len(t) for t in pw}
            if len(pw) in (1, nd) and ls <= {1, 2}:
                b, a = [], []
                for d in range(nd):
                    k = 0 if len(pw) == 1 else d
                    b.append(f"pad_width[{k}][0]")
                    a.append(f"pad_width[{k}][{len(pw[k]) - 1}]")
                return b, a
    raise errors.TypingError(f"np.pad(): pad_width must be an int, (before, after), ((before, after),) or "
                             f"one (before, after) pair of ints per axis ({nd}), not {pw}")


@overload(np.pad)
def _ol_pad(array, pad_width, mode="constant", constant_values=0):
    _numeric_array(array, "pad", "array")
    m = _const(mode, "pad", "mode", (str,), "constant")
    if m not in _PAD_MODES:
        raise errors.TypingError(f"np.pad(mode='{m}') is not supported by hpcjit (constant, edge, reflect, "
                                 f"symmetric, wrap)")
    if not _absent(constant_values) and not isinstance(constant_values, (int, float)):
        if m != "constant":
            raise errors.TypingError(f"np.pad(): constant_values= is only for mode='constant'")
        if not _is_number(constant_values):
            raise errors.TypingError(f"np.pad(): constant_values must be a number (per-axis values are not "
                                     f"supported by hpcjit), not {constant_values}")
    nd = array.ndim
    if nd == 0:
        raise errors.TypingError("np.pad() of a 0-d array is not supported by hpcjit")
    before, after = _pad_widths(pad_width, nd)
    code = _PAD_MODES.index(m)
    lines = ["def impl(array, pad_width, mode='constant', constant_values=0):",
             f"    before = ({', '.join(before)},)",
             f"    after = ({', '.join(after)},)",
             f"    shape = array.shape",
             f"    _pad_check(before, after, shape, {code})",
             f"    out = np.empty(({', '.join(f'shape[{d}] + before[{d}] + after[{d}]' for d in range(nd))},), "
             f"array.dtype)"]
    if code == 0:
        lines.append("    out[...] = constant_values")
    ind = "    "
    for d in range(nd):
        lines.append(f"{ind}for i{d} in range(out.shape[{d}]):")
        ind += "    "
        lines.append(f"{ind}s{d} = _pad_src(i{d}, shape[{d}], before[{d}], {code})")
        if code == 0:
            lines.append(f"{ind}if s{d} < 0:")
            lines.append(f"{ind}    continue")
    lines.append(f"{ind}out[{', '.join(f'i{d}' for d in range(nd))}] = array[{', '.join(f's{d}' for d in range(nd))}]")
    lines.append("    return out")
    return _exec("\n".join(lines) + "\n", {"_pad_src": _pad_src, "_pad_check": _pad_check}, "pad")


# ---- np.lexsort -------------------------------------------------------------

@register_jitable
def _lex_step(idx, key):
    if key.size != idx.size:
        raise ValueError("all keys need to be the same shape")
    k = key[idx]
    return idx[np.argsort(k)]  # a stable merge sort


@overload(np.lexsort)
def _ol_lexsort(keys, axis=-1):
    if not _absent(axis) and not isinstance(axis, int):
        raise errors.TypingError("np.lexsort(axis=...) is not supported by hpcjit")
    if isinstance(keys, _types.Array):
        if keys.ndim != 2 or not isinstance(keys.dtype, _types.Number) or isinstance(keys.dtype, _types.Complex):
            raise errors.TypingError(f"np.lexsort() takes a tuple of 1-d arrays or a 2-d array of real numbers, "
                                     f"not {keys}")

        def impl(keys, axis=-1):
            if keys.shape[0] == 0:
                raise TypeError("need sequence of keys with len > 0 in lexsort")
            idx = np.argsort(keys[0])  # the least significant key first, then stable sorts
            for r in range(1, keys.shape[0]):
                idx = _lex_step(idx, keys[r])
            return idx
        return impl
    if not (isinstance(keys, _types.BaseTuple) and len(keys) > 0 and
            all(isinstance(t, _types.Array) and t.ndim == 1 and isinstance(t.dtype, _types.Number) and
                not isinstance(t.dtype, _types.Complex) for t in keys)):
        raise errors.TypingError(f"np.lexsort() takes a tuple of 1-d arrays or a 2-d array of real numbers, "
                                 f"not {keys}")
    n = len(keys)
    lines = ["def impl(keys, axis=-1):", "    idx = np.argsort(keys[0])"]  # least significant first
    lines += [f"    idx = _lex_step(idx, keys[{k}])" for k in range(1, n)]
    lines.append("    return idx")
    return _exec("\n".join(lines) + "\n", {"_lex_step": _lex_step}, "lexsort")


# ---- np.put / a.put ---------------------------------------------------------

@register_jitable
def _put_index(i, n):
    if i < -n or i >= n:
        raise IndexError("index out of range for array")
    return i + n if i < 0 else i


def _put_impl(a, ind, v, mode, fname):
    if not (isinstance(a, _types.Array) and isinstance(a.dtype, _types.Number)):
        raise errors.TypingError(f"{fname}() takes an array of numbers, not {a}")
    if getattr(a, "readonly", False) or not getattr(a, "mutable", True):
        raise errors.TypingError(f"{fname}() of a read-only array")
    if _const(mode, fname, "mode", (str,), "raise") != "raise":
        raise errors.TypingError(f"{fname}(mode=...) is not supported by hpcjit (mode='raise' only)")
    int_ind = isinstance(_types.unliteral(ind) if isinstance(ind, _types.Literal) else ind, _types.Integer)
    if not int_ind and not (isinstance(ind, _types.Array) and isinstance(ind.dtype, _types.Integer)):
        raise errors.TypingError(f"{fname}(): indices must be an integer or an array of integers, not {ind}")
    if not _is_number(v) and not (isinstance(v, _types.Array) and isinstance(v.dtype, _types.Number)):
        raise errors.TypingError(f"{fname}(): values must be a number or an array of numbers, not {v}")
    if isinstance(a.dtype, _types.Integer) or isinstance(a.dtype, _types.Boolean):
        src = _dtype_of(v)
        if src.kind == "c" and as_dtype(a.dtype).kind != "c":
            raise errors.TypingError(f"{fname}(): cannot cast complex values to {a.dtype}")
    ind_e = "np.asarray(ind).ravel()" if not int_ind else "np.array([ind])"
    v_e = "np.asarray(v).ravel()" if isinstance(v, _types.Array) else "np.array([v])"
    src = (f"def impl(a, ind, v, mode='raise'):\n"
           f"    ix = {ind_e}\n"
           f"    vs = {v_e}\n"
           f"    n = a.size\n"
           f"    nv = vs.size\n"
           f"    if nv == 0:\n"
           f"        return\n"
           f"    for k in range(ix.size):\n"
           f"        a.flat[_put_index(ix[k], n)] = vs[k % nv]\n")
    return _exec(src, {"_put_index": _put_index}, fname)


@overload(np.put)
def _ol_put(a, ind, v, mode="raise"):
    return _put_impl(a, ind, v, mode, "np.put")


@overload_method(_types.Array, "put")
def _ol_array_put(a, ind, v, mode="raise"):
    return _put_impl(a, ind, v, mode, "put")


# ---- np.heaviside, np.divmod ------------------------------------------------

def _ufunc_operands(fname, x1, x2):
    for t in (x1, x2):
        if not (_is_number(t) or (isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number))):
            raise errors.TypingError(f"np.{fname}() takes numbers and arrays of numbers, not {t}")


@register_jitable
def _heaviside1(x, h):
    if x != x:
        return x
    if x < 0:
        return 0.0
    if x > 0:
        return 1.0
    return h


@overload(np.heaviside)
def _ol_heaviside(x1, x2):
    _ufunc_operands("heaviside", x1, x2)
    try:
        ot = np.heaviside.resolve_dtypes((_dtype_of(x1), _dtype_of(x2), None))[2]
    except Exception as e:
        raise errors.TypingError(f"np.heaviside(): no loop for {x1}, {x2} ({e})") from None
    if ot not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise errors.TypingError(f"np.heaviside() computing in {ot} is not supported by hpcjit")
    ns = {"_h": _heaviside1, "out_t": ot.type}
    arrays = [isinstance(t, _types.Array) for t in (x1, x2)]
    if not any(arrays):
        src = "def impl(x1, x2):\n    return _h(out_t(x1), out_t(x2))\n"
    else:
        # the operands broadcast together, then one loop over the result
        src = ("def impl(x1, x2):\n"
               "    a1 = np.asarray(x1)\n"
               "    a2 = np.asarray(x2)\n"
               "    shape = np.broadcast_shapes(a1.shape, a2.shape)\n"
               "    b1 = np.broadcast_to(a1, shape)\n"
               "    b2 = np.broadcast_to(a2, shape)\n"
               "    out = np.empty(shape, out_t)\n"
               "    for idx in np.ndindex(shape):\n"
               "        out[idx] = _h(out_t(b1[idx]), out_t(b2[idx]))\n"
               "    return out\n")
    return _exec(src, ns, "heaviside")


@overload(np.divmod)
def _ol_divmod(x1, x2):
    _ufunc_operands("divmod", x1, x2)
    if isinstance(_dtype_of(x1).type(0) + _dtype_of(x2).type(0), np.complexfloating):
        raise errors.TypingError("np.divmod() of complex values: NumPy has no loop for them")

    def impl(x1, x2):
        return np.floor_divide(x1, x2), np.remainder(x1, x2)
    return impl


# ---- np.polyfit, np.polyval -------------------------------------------------

@register_jitable
def _polyfit(x, y, deg, rcond):
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    order = deg + 1
    m = x.shape[0]
    lhs = np.empty((m, order), np.float64)
    for i in range(m):
        p = 1.0
        for j in range(order - 1, -1, -1):
            lhs[i, j] = p
            p *= x[i]
    scale = np.sqrt((lhs * lhs).sum(axis=0))
    for i in range(m):
        for j in range(order):
            lhs[i, j] /= scale[j]
    c = np.linalg.lstsq(lhs, y.astype(np.float64), rcond)[0]
    return c, scale


@overload(np.polyfit)
def _ol_polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    for name, t in (("x", x), ("y", y)):
        if not (isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number)):
            raise errors.TypingError(f"np.polyfit() takes arrays of numbers, not {t} as {name}")
        if isinstance(t.dtype, _types.Complex):
            raise errors.TypingError("np.polyfit() of complex values is not supported by hpcjit")
    if _bool(full, "polyfit", "full"):
        raise errors.TypingError("np.polyfit(full=True) is not supported by hpcjit (full=False only)")
    if not _absent(w):
        raise errors.TypingError("np.polyfit(w=...) is not supported by hpcjit (w=None only)")
    if not (isinstance(cov, bool) and not cov) and not _absent(cov):
        if getattr(cov, "literal_value", True) is not False:
            raise errors.TypingError("np.polyfit(cov=...) is not supported by hpcjit (cov=False only)")
    if x.ndim != 1:
        raise errors.TypingError("np.polyfit(): expected 1D vector for x")
    if y.ndim not in (1, 2):
        raise errors.TypingError("np.polyfit(): expected 1D or 2D array for y")
    if not isinstance(_types.unliteral(deg) if isinstance(deg, _types.Literal) else deg, _types.Integer):
        raise errors.TypingError(f"np.polyfit(): deg must be an integer, not {deg}")
    rc = "x.shape[0] * 2.220446049250313e-16" if _absent(rcond) else "rcond"
    if y.ndim == 1:
        tail = "    return c / scale\n"
    else:
        tail = "    return (c.T / scale).T.copy()\n"
    src = ("def impl(x, y, deg, rcond=None, full=False, w=None, cov=False):\n"
           f"    c, scale = _polyfit(x, y, deg, {rc})\n" + tail)
    return _exec(src, {"_polyfit": _polyfit}, "polyfit")


@overload(np.polyval)
def _ol_polyval(p, x):
    if not (isinstance(p, _types.Array) and p.ndim == 1 and isinstance(p.dtype, _types.Number)):
        raise errors.TypingError(f"np.polyval() takes a 1-d array of coefficients, not {p}")
    if not (_is_number(x) or (isinstance(x, _types.Array) and isinstance(x.dtype, _types.Number))):
        raise errors.TypingError(f"np.polyval() takes a number or an array of numbers as x, not {x}")
    if isinstance(p.dtype, _types.Boolean) or _dtype_of(x) == np.dtype(np.bool_):
        raise errors.TypingError("np.polyval() of bool values is not supported by hpcjit")
    dt = np.result_type(_dtype_of(x), as_dtype(p.dtype))
    ns = {"out_t": dt.type}
    if isinstance(x, _types.Array):
        src = ("def impl(p, x):\n"
               "    y = np.zeros(x.shape, out_t)\n"
               "    for k in range(p.size):\n"
               "        y = y * x + p[k]\n"
               "    return y\n")
    else:
        src = ("def impl(p, x):\n"
               "    y = out_t(0)\n"
               "    for k in range(p.size):\n"
               "        y = out_t(y * x + p[k])\n"
               "    return y\n")
    return _exec(src, ns, "polyval")
