"""np.polynomial.polynomial in compiled code, as overloads (hpcjit.extending):
- Polynomial(coef[, domain[, window]]): a Polynomial value, which crosses
  the boundary (arguments, results) as a named tuple of its coef, domain
  and window arrays (python/core/namedtuple.c, _nt_register_struct) and
  is made again by Polynomial(coef, domain, window); p.coef, p.domain,
  p.window are its fields.  The arrays are float64 (complex128 for complex
  coefficients), as NumPy makes them (Numba types the default domain and
  window as int64);
- the functions Numba 0.68 compiles: polyadd, polysub, polymul, polydiv,
  polyval(x, c) and polyint(c, m), on 1-d coefficient arrays or numbers,
  NumPy's algorithms (numpy/polynomial/polynomial.py, polyutils.py:
  trimmed series of the inputs' common type)."""
import numpy as np
from numpy.polynomial import polynomial as _P
from numpy.polynomial.polynomial import Polynomial

from . import _core
from . import errors
from . import types as _types
from .extending import overload, register_jitable
from .numpy_support import as_dtype

_core._nt_register_struct(Polynomial, ("coef", "domain", "window"))


class StructMaker:
    """A value compiled code calls to make an instance of a class registered
    with _nt_register_struct from its fields, without its constructor's
    overload (compiler.py resolves it to the named tuple constructor)."""

    def __init__(self, cls):
        self.cls = cls


_make_polynomial = StructMaker(Polynomial)


def _absent(t):
    return t is None or isinstance(t, (_types.NoneType, _types.Omitted))


def _coef_dtype(t):
    """NumPy's Polynomial coefficients: complex stays complex128, the rest float64."""
    return np.complex128 if isinstance(t.dtype, _types.Complex) else np.float64


@overload(Polynomial)
def _ol_polynomial(coef, domain=None, window=None):
    if not isinstance(coef, _types.Array) or not isinstance(coef.dtype, _types.Number):
        raise errors.TypingError(f"Polynomial() takes an array of coefficients, not {coef}")
    if coef.ndim != 1:
        raise errors.NumbaValueError("Coefficient array is not 1-d")
    if isinstance(coef.dtype, _types.Boolean):
        raise errors.TypingError("Polynomial(): Coefficient arrays have no common type (bool, as NumPy says)")
    for name, t in (("domain", domain), ("window", window)):
        if not _absent(t) and not (isinstance(t, _types.Array) and t.ndim == 1 and
                                   isinstance(t.dtype, _types.Number) and
                                   not isinstance(t.dtype, _types.Complex)):
            raise errors.TypingError(f"Polynomial() {name} must be a 1-d array of two real numbers, not {t}")
    cdt = _coef_dtype(coef)
    if _absent(domain) and _absent(window):
        def impl(coef, domain=None, window=None):
            return _make_polynomial(coef.astype(cdt), np.array([-1.0, 1.0]), np.array([-1.0, 1.0]))
        return impl
    if _absent(window):
        def impl(coef, domain=None, window=None):
            return _make_polynomial(coef.astype(cdt), _domain(domain), np.array([-1.0, 1.0]))
        return impl
    if _absent(domain):
        def impl(coef, domain=None, window=None):
            return _make_polynomial(coef.astype(cdt), np.array([-1.0, 1.0]), _window(window))
        return impl

    def impl(coef, domain=None, window=None):
        return _make_polynomial(coef.astype(cdt), _domain(domain), _window(window))
    return impl


@register_jitable
def _domain(d):
    if len(d) != 2:
        raise ValueError("Domain has wrong number of elements.")
    return d.astype(np.float64)


@register_jitable
def _window(w):
    if len(w) != 2:
        raise ValueError("Window has wrong number of elements.")
    return w.astype(np.float64)


# ---- np.polynomial.polynomial functions ---------------------------------------

def _series_dtype(fname, *ts):
    """The common type of the coefficient series (np.common_type: ints and
    bools become float64); a TypingError for what is not a number or a 1-d
    array of numbers."""
    dts = []
    for t in ts:
        if isinstance(getattr(t, "dtype", t), _types.Boolean):
            raise errors.TypingError(f"{fname}(): Coefficient arrays have no common type (bool, as NumPy says)")
        if isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number):
            if t.ndim != 1:
                raise errors.TypingError(f"{fname}(): Coefficient array is not 1-d ({t})")
            dts.append(as_dtype(t.dtype))
        elif isinstance(t, _types.Number):
            dts.append(as_dtype(t))
        else:
            raise errors.TypingError(f"{fname}() takes 1-d arrays of coefficients or numbers, not {t}")
    return np.common_type(*[np.empty(0, d) for d in dts])


@register_jitable
def _trimseq(seq):
    if len(seq) == 0 or seq[-1] != 0:
        return seq[:]
    i = len(seq) - 1
    while i > 0 and seq[i] == 0:
        i -= 1
    return seq[:i + 1]


@register_jitable
def _check_nonempty(a):
    if a.size == 0:
        raise ValueError("Coefficient array is empty")


@register_jitable
def _trimmed_pair(a, b):
    """Both series checked non-empty, trailing zeros trimmed (NumPy's
    pu.as_series and trimseq for two coefficient arrays)."""
    _check_nonempty(a)
    _check_nonempty(b)
    return _trimseq(a), _trimseq(b)


@overload(_P.polyadd)
def _ol_polyadd(c1, c2):
    dt = _series_dtype("polyadd", c1, c2)

    def impl(c1, c2):
        a = np.atleast_1d(c1).astype(dt)
        b = np.atleast_1d(c2).astype(dt)
        a, b = _trimmed_pair(a, b)
        if len(a) > len(b):
            a[:len(b)] += b
            return _trimseq(a)
        b[:len(a)] += a
        return _trimseq(b)
    return impl


@overload(_P.polysub)
def _ol_polysub(c1, c2):
    dt = _series_dtype("polysub", c1, c2)

    def impl(c1, c2):
        a = np.atleast_1d(c1).astype(dt)
        b = np.atleast_1d(c2).astype(dt)
        a, b = _trimmed_pair(a, b)
        if len(a) > len(b):
            a[:len(b)] -= b
            return _trimseq(a)
        b = -b
        b[:len(a)] += a
        return _trimseq(b)
    return impl


@overload(_P.polymul)
def _ol_polymul(c1, c2):
    dt = _series_dtype("polymul", c1, c2)

    def impl(c1, c2):
        a = np.atleast_1d(c1).astype(dt)
        b = np.atleast_1d(c2).astype(dt)
        a, b = _trimmed_pair(a, b)
        return _trimseq(np.convolve(a, b))
    return impl


@overload(_P.polydiv)
def _ol_polydiv(c1, c2):
    dt = _series_dtype("polydiv", c1, c2)

    def impl(c1, c2):
        a = np.atleast_1d(c1).astype(dt)
        b = np.atleast_1d(c2).astype(dt)
        a, b = _trimmed_pair(a, b)
        a = a.copy()
        if b[-1] == 0:
            raise ZeroDivisionError()
        lc1 = len(a)
        lc2 = len(b)
        if lc1 < lc2:
            return a[:1] * 0, a[:]
        if lc2 == 1:
            return a / b[-1], a[:1] * 0
        scl = b[-1]
        b2 = b[:-1] / scl
        i = lc1 - lc2
        j = lc1 - 1
        while i >= 0:
            a[i:j] -= b2 * a[j]
            i -= 1
            j -= 1
        return a[j + 1:] / scl, _trimseq(a[:j + 1])
    return impl


@overload(_P.polyval)
def _ol_polyval(x, c, tensor=True):
    cdt = _series_dtype("polyval", c)
    if not (isinstance(x, _types.Number) or (isinstance(x, _types.Array) and isinstance(x.dtype, _types.Number))):
        raise errors.TypingError(f"polyval() takes a number or an array of numbers as x, not {x}")

    def impl(x, c, tensor=True):
        cc = np.atleast_1d(c).astype(cdt)
        if len(cc) == 0:  # NumPy's c[-1]
            raise IndexError("index -1 is out of bounds for axis 0 with size 0")
        c0 = cc[-1] + x * 0
        for i in range(2, len(cc) + 1):
            c0 = cc[-i] + c0 * x
        return c0
    return impl


@overload(_P.polyint)
def _ol_polyint(c, m=1):
    dt = _series_dtype("polyint", c)
    if not _absent(m) and not isinstance(m, (int, _types.Integer)):
        raise errors.TypingError(f"polyint(): the order of integration m must be an integer, not {m}")

    def impl(c, m=1):
        if m < 0:
            raise ValueError("The order of integration must be non-negative")
        cc = np.atleast_1d(c).astype(dt)
        if m > 0 and len(cc) == 0:  # NumPy's c[0]
            raise IndexError("index 0 is out of bounds for axis 0 with size 0")
        for _ in range(m):
            n = len(cc)
            if n == 1 and cc[0] == 0:
                continue
            tmp = np.empty(n + 1, dt)
            tmp[0] = cc[0] * 0
            tmp[1] = cc[0]
            for j in range(1, n):
                tmp[j + 1] = cc[j] / (j + 1)
            v = tmp[n]  # polyval(0, tmp), as NumPy subtracts it (lbnd = 0)
            for j in range(n - 1, -1, -1):
                v = tmp[j] + v * 0
            tmp[0] -= v
            cc = tmp
        return cc
    return impl
