"""np.nditer in compiled code, as an overload (hpcjit.extending), as Numba
0.68 has it: `for x in np.nditer(a)` and `for x, y in np.nditer((a, b))`
give 0-d array views of the operands' elements (x[()] reads one, x[()] = v
writes it into the operand), the operands broadcast together (numbers are
0-d operands).  The order is C order, or F order when every operand is an
F-contiguous array of two or more dimensions (NumPy's default order 'K',
memory order, gives the same for C and F arrays and positive strides;
arrays with negative strides or permuted axes go in C order, as Numba).  Zero-sized operands
raise NumPy's ValueError (Numba iterates nothing).  np.nditer(...) is a
generator object: iterated by a for loop, next(), or passed on; its
flags/op_flags/order arguments are not supported."""
import linecache

import numpy as np

from . import errors
from . import types as _types
from .extending import overload, register_jitable


class BuiltinRef:
    """A compiler builtin by qualified name, for the implementations of
    overloads (compiler.py resolves it as the builtin)."""

    def __init__(self, qualname):
        self.qualname = qualname


_nditer_view = BuiltinRef("numpy.$nditer_view")


def _fortran(ops):
    arrs = [t for t in ops if isinstance(t, _types.Array)]
    return bool(arrs) and all(t.layout == "F" and t.ndim > 1 for t in arrs)


@register_jitable
def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@register_jitable
def _check(n):
    if n == 0:
        raise ValueError("Iteration of zero-sized operands is not enabled")


def _gen_one(fortran):
    if fortran:
        @register_jitable
        def gen(a):
            shape = a.shape
            _check(a.size)
            for i in range(a.size):
                yield _nditer_view(a, i, shape, True)
    else:
        @register_jitable
        def gen(a):
            shape = a.shape
            _check(a.size)
            for i in range(a.size):
                yield _nditer_view(a, i, shape, False)
    return gen


_GENS = {}


def _gen_many(n, fortran):
    """A generator over n operands: written out for n (no *args in hpcjit)."""
    key = (n, fortran)
    if key not in _GENS:
        names = [f"a{i}" for i in range(n)]
        src = (f"def gen(ops):\n"
               + "".join(f"    {v} = np.asarray(ops[{i}])\n" for i, v in enumerate(names))
               + f"    shape = np.broadcast_shapes({', '.join(v + '.shape' for v in names)})\n"
               + "    n = _size(shape)\n"
               + "    _check(n)\n"
               + "    for i in range(n):\n"
               + f"        yield ({', '.join(f'_nditer_view({v}, i, shape, {fortran})' for v in names)},)\n")
        ns = {"np": np, "_size": _size, "_check": _check, "_nditer_view": _nditer_view}
        fname = f"<hpcjit nditer of {n}{' F' if fortran else ''}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)  # the compiler reads the source
        exec(compile(src, fname, "exec"), ns)
        _GENS[key] = register_jitable(ns["gen"])
    return _GENS[key]


def _operand(t):
    return (isinstance(t, _types.Array) and isinstance(t.dtype, _types.Number)) or isinstance(t, _types.Number)


@overload(np.nditer)
def _ol_nditer(op):
    if isinstance(op, _types.Array) and isinstance(op.dtype, _types.Number):
        gen = _gen_one(_fortran([op]))
        return lambda op: gen(op)
    if isinstance(op, _types.BaseTuple) and len(op) > 0 and all(_operand(t) for t in op):
        gen = _gen_many(len(op), _fortran(list(op)))
        return lambda op: gen(op)
    raise errors.TypingError(f"nditer() takes an array or a tuple of arrays and numbers, not {op}")
