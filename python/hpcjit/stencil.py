"""@stencil: Numba's stencil kernels with relative indexing.

    @stencil
    def blur(a):
        return (a[-1, 0] + a[1, 0] + a[0, -1] + a[0, 1]) / 4

    out = blur(img)          # interior points computed, the border is cval

The kernel is rewritten (Python AST) into a loop nest over the interior
points, `a[i, j]` in the kernel becoming `a[i0 + i, i1 + j]`, and that
function is compiled by hpcjit like any @njit function; one loop nest is
compiled per combination of argument types.  Options as Numba's:
neighborhood=((lo, hi), ...) (needed when an index is not a constant),
cval= (the border value, default 0), standard_indexing=("name", ...)
(arguments indexed as usual), func_or_mode="constant" (the only mode, as in
Numba), and out= at the call (its border is left as it is).
"""
import ast
import inspect
import itertools
import linecache

import numpy as np

from . import _srctext, errors

_counter = itertools.count()


def _const_int(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _const_int(node.operand)
        return None if v is None else -v
    return None


def _index_elts(sub):
    return list(sub.slice.elts) if isinstance(sub.slice, ast.Tuple) else [sub.slice]


class _Rewrite(ast.NodeTransformer):
    """a[x, y] -> a[__i0 + x, __i1 + y] for the relatively indexed
    arguments; `return e` -> `__out[__i0, ...] = e; continue` (loop form)
    or left alone (point form)."""

    def __init__(self, rel, ndim, loop_form):
        self.rel, self.ndim, self.loop_form = rel, ndim, loop_form

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in self.rel:
            elts = _index_elts(node)
            new = [ast.BinOp(ast.Name(f"__i{d}", ast.Load()), ast.Add(), e) for d, e in enumerate(elts)]
            node.slice = ast.Tuple(new, ast.Load()) if len(new) > 1 else new[0]
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        if not self.loop_form:
            return node
        idx = [ast.Name(f"__i{d}", ast.Load()) for d in range(self.ndim)]
        target = ast.Subscript(ast.Name("__out", ast.Load()),
                               ast.Tuple(idx, ast.Load()) if self.ndim > 1 else idx[0], ast.Store())
        return [ast.Assign([target], node.value or ast.Constant(None)), ast.Continue()]


class StencilFunc:
    """A stencil kernel; call it with arrays (and out=) as in Numba."""

    def __init__(self, func, neighborhood=None, cval=0, standard_indexing=(), func_or_mode="constant",
                 **options):
        if func_or_mode != "constant":
            raise errors.UnsupportedError(f"stencil(func_or_mode={func_or_mode!r}): only 'constant'")
        self.py_func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self.cval = cval
        self.options = {k: v for k, v in options.items() if k not in ("nopython", "cache")}
        try:
            src = _srctext.dedent(inspect.getsource(func))[0]
        except (OSError, TypeError) as exc:
            raise errors.UnsupportedError(f"stencil {func.__name__}: its source is not available ({exc})")
        tree = ast.parse(src)
        fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
        fdef.decorator_list = []
        self._fdef = fdef
        self.params = [a.arg for a in fdef.args.args]
        self.standard = set(standard_indexing)
        unknown = self.standard - set(self.params)
        if unknown:
            raise ValueError(f"stencil {func.__name__}: standard_indexing names {sorted(unknown)} "
                             "are not arguments")
        # relatively indexed: the arguments the kernel subscripts (others,
        # scalars such as a coefficient, pass through as they are)
        indexed = {n.value.id for n in ast.walk(fdef) if isinstance(n, ast.Subscript)
                   and isinstance(n.value, ast.Name)}
        self.rel = [p for p in self.params if p not in self.standard and p in indexed]
        if not self.rel:
            raise ValueError(f"stencil {func.__name__}: no relatively indexed argument")
        self.neighborhood = self._neighborhood(neighborhood)
        self.ndim = len(self.neighborhood)
        self._runners = {}
        self._calls = {}
        self._dtypes = {}  # argument typecodes -> the output's dtype
        from . import extending  # called from @njit code: an overload giving _call_impl
        ov = extending._Overload("function", self.__name__, self)
        ov.templates.append((self._typing, {}, False, None))
        ov.caller_parallel = True  # from parallel=True code: the nest on the pool
        extending._BY_ID[id(self)] = (self, ov)

    def _neighborhood(self, given):
        lo, hi, nd, fixed = [], [], None, True
        for node in ast.walk(self._fdef):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.rel:
                elts = _index_elts(node)
                if nd is None:
                    nd = len(elts)
                    lo, hi = [0] * nd, [0] * nd
                elif len(elts) != nd:
                    raise errors.TypingError(f"stencil {self.__name__}: indices of {len(elts)} and {nd} "
                                             "dimensions")
                for d, e in enumerate(elts):
                    v = _const_int(e)
                    if v is None:
                        fixed = False
                        continue
                    lo[d], hi[d] = min(lo[d], v), max(hi[d], v)
        if given is not None:
            given = tuple(tuple(int(x) for x in p) for p in given)
            if nd is not None and len(given) != nd:
                raise ValueError(f"stencil {self.__name__}: neighborhood has {len(given)} dimensions, the "
                                 f"kernel indexes {nd}")
            return given
        if nd is None:
            raise errors.TypingError(f"stencil {self.__name__}: the kernel never indexes "
                                     f"{', '.join(self.rel)}")
        if not fixed:
            raise errors.TypingError(f"stencil {self.__name__}: an index is not a constant: give "
                                     "neighborhood=((lo, hi), ...)")
        return tuple(zip(lo, hi))

    def _make(self, kind):
        """The loop nest over the interior points (kind "loop"), its
        parallel form (kind "ploop", below) or one point (kind "point") as
        an @njit function of the kernel's arguments."""
        from . import njit, prange

        fdef = ast.parse(ast.unparse(self._fdef)).body[0]  # a fresh copy
        body = _Rewrite(set(self.rel), self.ndim, kind in ("loop", "ploop")).visit(fdef).body
        n = next(_counter)
        name = f"__hpcjit_stencil_{self.__name__}_{kind}_{n}"
        first = self.rel[0]
        if kind == "loop":
            stmt = body
            for d in reversed(range(self.ndim)):
                lo, hi = self.neighborhood[d]
                start = max(-lo, 0)
                stop = ast.parse(f"{first}.shape[{d}] - {max(hi, 0)}", mode="eval").body
                stmt = [ast.For(ast.Name(f"__i{d}", ast.Store()),
                                ast.Call(ast.Name("range", ast.Load()), [ast.Constant(start), stop], []),
                                stmt, [])]
            body = stmt + [ast.Return(ast.Name("__out", ast.Load()))]
            args = self.params + ["__out"]
        elif kind == "ploop":
            body = self._parallel_nest(body, first)
            args = self.params + ["__out", "__fill", "__cv"]
        else:
            args = self.params + [f"__i{d}" for d in range(self.ndim)]
        new = ast.FunctionDef(name, ast.arguments([], [ast.arg(a) for a in args], None, [], [], None, []),
                              body, [], None, None)
        mod = ast.fix_missing_locations(ast.Module([new], []))
        src = ast.unparse(mod) + "\n"
        filename = f"<hpcjit-stencil {self.__name__} {n}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns = dict(self.py_func.__globals__)
        if self.py_func.__closure__:
            for var, cell in zip(self.py_func.__code__.co_freevars, self.py_func.__closure__):
                ns[var] = cell.cell_contents
        ns["__hpcjit_prange"] = prange
        exec(compile(src, filename, "exec"), ns)
        if kind == "ploop":  # the interior points' outer axis split over the pool's threads
            return njit(**{**self.options, "parallel": True})(ns[name])
        return njit(**self.options)(ns[name])

    def _parallel_nest(self, body, first):
        """The nest of a call from a parallel=True function (Numba makes it a
        parfor): a prange over the whole first axis, compiled with
        parallel=True; with __fill (the output was allocated, not given)
        each thread also writes the border of its rows with __cv, the cval
        in the output's dtype, so that no serial pass fills the array
        first.  Interior points are computed by the same kernel code as in
        the serial nest."""
        stmt = body
        for d in reversed(range(1, self.ndim)):
            lo, hi = self.neighborhood[d]
            start, h = max(-lo, 0), max(hi, 0)
            loop = ast.For(ast.Name(f"__i{d}", ast.Store()),
                           ast.parse(f"range({start}, {first}.shape[{d}] - {h})", mode="eval").body, stmt, [])
            idx = ", ".join(f"__i{k}" for k in range(d))
            fill = []
            if start:
                fill.append(f"    __out[{idx}, :{start}] = __cv")
            if h:
                fill.append(f"    __out[{idx}, max({first}.shape[{d}] - {h}, 0):] = __cv")
            stmt = (ast.parse("if __fill:\n" + "\n".join(fill)).body if fill else []) + [loop]
        lo, hi = self.neighborhood[0]
        start, h = max(-lo, 0), max(hi, 0)
        border = ast.parse(f"if __i0 < {start} or __i0 >= {first}.shape[0] - {h}:\n"
                           f"    if __fill:\n        __out[__i0] = __cv\n    continue\n").body
        outer = ast.For(ast.Name("__i0", ast.Store()),
                        ast.parse(f"__hpcjit_prange({first}.shape[0])", mode="eval").body, border + stmt, [])
        return [outer, ast.Return(ast.Name("__out", ast.Load()))]

    def _runner(self, kind):
        r = self._runners.get(kind)
        if r is None:
            r = self._runners[kind] = self._make(kind)
        return r

    def __call__(self, *args, out=None):
        if len(args) != len(self.params):
            raise TypeError(f"{self.__name__}() takes {len(self.params)} arguments, got {len(args)}")
        named = dict(zip(self.params, args))
        a0 = np.asarray(named[self.rel[0]])
        if a0.ndim != self.ndim:
            raise errors.TypingError(f"stencil {self.__name__}: the kernel indexes {self.ndim} dimensions, "
                                     f"the argument has {a0.ndim}")
        for p in self.rel[1:]:
            if np.shape(named[p]) != a0.shape:
                raise ValueError(f"stencil {self.__name__}: relatively indexed arrays must have the same "
                                 f"shape ({p}: {np.shape(named[p])}, {self.rel[0]}: {a0.shape})")
        if out is None:
            from .types import typeof
            dtype = self._out_dtype(tuple(typeof(a) for a in args))
            out = np.full(a0.shape, self.cval, dtype=dtype)
        elif np.shape(out) != a0.shape:
            raise ValueError(f"stencil {self.__name__}: out has shape {np.shape(out)}, the input {a0.shape}")
        return self._runner("loop")(*args, out)

    def _typing(self, *args, **kws):
        """The overload's typing function: the implementation of a call from
        compiled code for these argument types (hpcjit.types)."""
        from . import types as _t
        if set(kws) - {"out"}:
            raise errors.TypingError(f"stencil {self.__name__}: unexpected keyword "
                                     f"{sorted(set(kws) - {'out'})[0]!r}")
        if len(args) != len(self.params):
            raise errors.TypingError(f"stencil {self.__name__} takes {len(self.params)} arguments, "
                                     f"got {len(args)}")
        for p, t in zip(self.params, args):
            if p in self.rel and not isinstance(t, _t.Array):
                raise errors.TypingError(f"stencil {self.__name__}: argument {p!r} is relatively indexed "
                                         f"and must be an array, not {t}")
        first = args[self.params.index(self.rel[0])]
        if first.ndim != self.ndim:
            raise errors.TypingError(f"stencil {self.__name__}: the kernel indexes {self.ndim} dimensions, "
                                     f"the argument has {first.ndim}")
        out_t = kws.get("out")
        has_out = out_t is not None and not isinstance(out_t, (_t.NoneType, _t.Omitted))
        from . import extending  # called from a parallel=True function: the nest on the pool
        return self._call_impl(None if has_out else self._out_dtype(args), extending.caller_is_parallel())

    def _out_dtype(self, argtypes):
        """The output's dtype for arguments of these types: what the kernel
        returns (as Numba; also when no point is inside the border)."""
        from . import compiler, numpy_support
        codes = tuple(t.typecode for t in argtypes) + ("l",) * self.ndim
        if any(c is None for c in codes):
            raise errors.TypingError(f"stencil {self.__name__}: arguments of types {argtypes} are not "
                                     f"supported")
        dt = self._dtypes.get(codes)
        if dt is None:
            res = compiler._compile(self._runner("point"), codes, None, False, False)
            dt = self._dtypes[codes] = numpy_support.as_dtype(compiler.code_type(res["rettype"]))
        return dt

    def _call_impl(self, dtype, parallel=False):
        """`kernel(a, b, out=None)` in compiled code: the output (cval at the
        border, `dtype`) made when not given, then the loop nest (from a
        parallel=True function, as Numba's stencil parfor: its outer loop a
        prange over the interior points)."""
        key = (None if dtype is None else dtype.str, parallel)
        impl = self._calls.get(key)
        if impl is not None:
            return impl
        params = ", ".join(self.params)
        first = self.rel[0]
        checks = "".join(f"    if {p}.shape != {first}.shape:\n"
                         f"        raise ValueError('stencil {self.__name__}: relatively indexed arrays must "
                         f"have the same shape')\n" for p in self.rel[1:])
        src = (f"def __hpcjit_stencil_{self.__name__}_call({params}, out=None):\n{checks}"
               f"    if out is None:\n")
        if parallel:  # the border written by the nest's threads (_parallel_nest)
            src += (f"        return __loop({params}, __np.empty({first}.shape, __dtype), True, __cv)\n"
                    f"    elif out.shape != {first}.shape:\n"
                    f"        raise ValueError('stencil {self.__name__}: out must have the shape of the input')\n"
                    f"    return __loop({params}, out, False, __cv)\n")
        else:
            src += (f"        out = __np.full({first}.shape, __cval, __dtype)\n"
                    f"    elif out.shape != {first}.shape:\n"
                    f"        raise ValueError('stencil {self.__name__}: out must have the shape of the input')\n"
                    f"    return __loop({params}, out)\n")
        filename = f"<hpcjit-stencil {self.__name__} call {next(_counter)}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        cv = 0 if dtype is None else np.full((), self.cval, dtype)[()]  # as np.full converts it
        ns = {"__np": np, "__cval": self.cval, "__dtype": None if dtype is None else dtype.type, "__cv": cv,
              "__loop": self._runner("ploop" if parallel else "loop")}
        exec(compile(src, filename, "exec"), ns)
        impl = self._calls[key] = ns[f"__hpcjit_stencil_{self.__name__}_call"]
        return impl

    def __repr__(self):
        return f"<hpcjit stencil {self.__name__!r} neighborhood={self.neighborhood}>"


def stencil(func_or_mode="constant", **options):
    """Numba's @stencil / @stencil(neighborhood=..., cval=...,
    standard_indexing=...)."""
    if callable(func_or_mode):
        return StencilFunc(func_or_mode, **options)
    return lambda func: StencilFunc(func, func_or_mode=func_or_mode, **options)
