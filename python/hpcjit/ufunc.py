"""@vectorize: NumPy ufuncs from scalar Python functions (Numba's API).

    @vectorize(["float64(float64, float64)", "float32(float32, float32)"])
    def rel_diff(x, y):
        return 2 * (x - y) / (x + y)

With signatures the result is a real `np.ufunc` with one compiled loop per
signature; without, a `DUFunc` that compiles a loop for each new
combination of input types on first use (as Numba's).  Each loop is
compiled by hpcjit as an element loop over NumPy's strided pointers (a
contiguous version is vectorized by LLVM) and wrapped in NumPy's loop
convention by hpcjit._core, so broadcasting, `out=`, `where=`, `dtype=`,
`casting=` and `.reduce` / `.accumulate` / `.outer` / `.at` are NumPy's own.
`target="parallel"` splits each loop call over the pinned thread pool.
As in Numba the kernels (gufuncs' too) use error_model="numpy" (x / 0.0
is inf, no ZeroDivisionError); an exception the function raises itself propagates
from the ufunc call.  From `@njit` code a vectorized function called on numbers
is its scalar kernel; with arrays, a broadcasting loop over the kernel
(vectorize_overload below).
"""
import re

import numpy as np

from . import errors


def _at_def(func, msg):
    """msg located at func's `def` (file:line:col, the line, a caret), the
    compiler's format: a signature or layout that does not fit the function
    is reported where the function is."""
    import linecache
    code = getattr(func, "__code__", None)
    if code is None:
        return msg
    fname, line = code.co_filename, code.co_firstlineno
    for k in range(line, line + 50):  # past the decorators
        text = linecache.getline(fname, k)
        if not text:
            break
        if re.match(r"\s*(async\s+)?def\s", text):
            line = k
            break
    text = linecache.getline(fname, line).rstrip("\n")
    col = len(text) - len(text.lstrip()) + 1
    out = f"{fname}:{line}:{col}: error: {msg}"
    if text:
        out += f"\n    {text}\n    {' ' * (col - 1)}^"
    return out

# typecode (abi.h) <-> NumPy scalar type
_CODE_TYPES = {"?": np.bool_, "b": np.int8, "h": np.int16, "i": np.int32, "l": np.int64,
               "B": np.uint8, "H": np.uint16, "I": np.uint32, "L": np.uint64,
               "f": np.float32, "d": np.float64, "F": np.complex64, "D": np.complex128}
_DTYPE_CODES = {np.dtype(t): c for c, t in _CODE_TYPES.items()}

_IDENTITY = {0: 0, 1: 1, None: -1, "reorderable": -2}

# id(ufunc or DUFunc) -> (object, scalar dispatcher): the kernel @njit code calls
SCALAR_KERNELS = {}


def _typenum(code):
    return np.dtype(_CODE_TYPES[code]).num


def _value_code(x):
    """The typecode of one ufunc input, as Numba types it."""
    if isinstance(x, np.ndarray) or isinstance(x, np.generic):
        dt = x.dtype
    elif isinstance(x, bool):
        return "?"
    elif isinstance(x, int):
        return "l"
    elif isinstance(x, float):
        return "d"
    elif isinstance(x, complex):
        return "D"
    else:
        dt = np.asarray(x).dtype
    code = _DTYPE_CODES.get(dt)
    if code is None:
        raise TypeError(f"ufunc inputs must be numbers or arrays of numbers, not {dt}")
    return code


def _check_target(target):
    if target not in ("cpu", "parallel", "cuda"):
        raise ValueError(f"vectorize(): unknown target {target!r} (cpu, parallel, cuda)")


def _castable(codes, args):
    """Whether inputs of typecodes `codes` cast safely to a loop's `args`."""
    return len(args) == len(codes) and all(
        c in _CODE_TYPES and np.can_cast(_CODE_TYPES[c], _CODE_TYPES[a], "safe")
        for c, a in zip(codes, args))


# a Python number converts to a loop of these kinds (NEP 50's weak scalars)
_WEAK_KINDS = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def _pick_loop(loops, values):
    """The index of the loop (a list of argument typecodes, in signature
    order) that NumPy's ufunc loop selection would pick for these inputs:
    one of exactly the inputs' types first (none when a Python number is
    among them), else the first whose types the arrays and NumPy scalars
    cast to safely, Python numbers taking any loop of their kind; None if
    none does.  (The CUDA ufuncs' selection; the
    CPU ones are real np.ufuncs.)"""
    kinds = []
    for v in values:
        weak = _WEAK_KINDS.get(type(v))
        if weak is None:
            weak = np.dtype(v.dtype if hasattr(v, "dtype") else np.asarray(v).dtype)
        kinds.append(weak)
    if all(isinstance(want, str) for want in kinds):  # Python numbers alone: their default types
        kinds = [np.dtype(_CODE_TYPES[_value_code(v)]) for v in values]
    for k, args in enumerate(loops):
        if len(args) == len(kinds) and all(
                not isinstance(want, str) and np.dtype(_CODE_TYPES[a]) == want
                for want, a in zip(kinds, args)):
            return k
    for k, args in enumerate(loops):
        if len(args) != len(kinds):
            continue
        ok = True
        for want, a in zip(kinds, args):
            dt = np.dtype(_CODE_TYPES[a])
            if isinstance(want, str):
                ok = dt.kind in want
            else:
                ok = np.can_cast(want, dt, "safe")
            if not ok:
                break
        if ok:
            return k
    return None


class _Kernel:
    """The scalar function compiled as ufunc element loops."""

    def __init__(self, func, options, target):
        from . import njit

        self.func = func
        self.target = target
        opts = {k: v for k, v in options.items() if k not in ("nopython", "cache", "forceobj")}
        # as Numba's ufuncs: x / 0.0 is inf, n // 0 is 0 (no exception)
        opts.setdefault("error_model", "numpy")
        self.disp = njit(**opts)(func)
        self.loops = []  # [(argcodes, retcode, address)]

    def compile(self, argcodes, retcode=None):
        from . import _compiler, compiler

        for c in argcodes:
            if c not in _CODE_TYPES:
                raise errors.TypingError(f"vectorize: the arguments of {self.func.__name__} must be "
                                         f"numbers, not {c!r}")
        res = compiler.compile_funcs(self.disp, list(argcodes), retcode, False, False, True)
        ret = res["rettype"]
        if ret not in _CODE_TYPES:
            raise errors.TypingError(f"vectorize: {self.func.__name__} must return a number")
        self.loops.append((tuple(argcodes), ret, res["address"]))
        return ret

    def make(self, identity):
        from . import _core

        if identity not in _IDENTITY:
            raise ValueError(f"vectorize(): identity must be 0, 1, 'reorderable' or None, not {identity!r}")
        loops = [(tuple(_typenum(c) for c in args + (ret,)), addr) for args, ret, addr in self.loops]
        nin = len(self.loops[0][0])
        return _core.make_ufunc(self.func.__name__, self.func.__doc__ or "", nin, _IDENTITY[identity],
                                loops, self.target == "parallel")


def _signature_codes(sig):
    from .dispatcher import _signature_typecodes

    ret, args = _signature_typecodes(sig)
    return ret, tuple(args)


class DUFunc:
    """A ufunc that compiles a loop per new combination of input types
    (vectorize without signatures).  Behaves as an np.ufunc for calls and
    for reduce/accumulate/outer/at; `.ufunc` is the current np.ufunc."""

    def __init__(self, func, identity=None, target="cpu", **options):
        _check_target(target)
        if target == "cuda":
            raise TypeError("vectorize(target='cuda') needs a list of signatures, as in Numba")
        self._kernel = _Kernel(func, options, target)
        self._identity = identity
        self._ufunc = None
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        SCALAR_KERNELS[id(self)] = (self, self._kernel.disp)

    # ---- the current ufunc, grown on demand
    def _ensure(self, codes):
        codes = tuple(codes)
        if self._ufunc is not None and self._castable(codes):
            return self._ufunc
        if not any(args == codes for args, _, _ in self._kernel.loops):
            if self._kernel.loops and len(self._kernel.loops[0][0]) != len(codes):
                raise TypeError(f"{self.__name__}() takes {len(self._kernel.loops[0][0])} arguments, "
                                f"got {len(codes)}")
            self._kernel.compile(codes)
            self._ufunc = self._kernel.make(self._identity)
        return self._ufunc

    def _castable(self, codes):
        """Whether NumPy's loop selection finds a loop of the current ufunc
        for these input types (safe casting): then, as in Numba, no new
        loop is compiled (f(1, 2.0) after f(1.0, 2.0) uses 'dd->d')."""
        return any(_castable(codes, args) for args, _, _ in self._kernel.loops)

    @property
    def ufunc(self):
        return self._ufunc

    @property
    def py_func(self):
        return self._kernel.func

    @property
    def nin(self):
        return self.__wrapped__.__code__.co_argcount

    nout = 1

    @property
    def nargs(self):
        return self.nin + 1

    @property
    def identity(self):
        return None if self._ufunc is None else self._ufunc.identity

    @property
    def ntypes(self):
        return len(self._kernel.loops)

    @property
    def types(self):
        return [] if self._ufunc is None else self._ufunc.types

    def __call__(self, *args, **kwargs):
        if len(args) < self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments, got {len(args)}")
        uf = self._ensure(_value_code(a) for a in args[:self.nin])
        return uf(*args, **kwargs)

    def reduce(self, array, *args, **kwargs):
        c = _value_code(array)
        return self._ensure((c,) * self.nin).reduce(array, *args, **kwargs)

    def accumulate(self, array, *args, **kwargs):
        c = _value_code(array)
        return self._ensure((c,) * self.nin).accumulate(array, *args, **kwargs)

    def reduceat(self, array, indices, *args, **kwargs):
        c = _value_code(array)
        return self._ensure((c,) * self.nin).reduceat(array, indices, *args, **kwargs)

    def outer(self, a, b, **kwargs):
        return self._ensure((_value_code(a), _value_code(b))).outer(a, b, **kwargs)

    def at(self, a, indices, b=None):
        codes = (_value_code(a),) if b is None else (_value_code(a), _value_code(b))
        uf = self._ensure(codes)
        return uf.at(a, indices) if b is None else uf.at(a, indices, b)

    def __repr__(self):
        return f"<hpcjit DUFunc {self.__name__!r}>"


def vectorize(ftylist_or_function=(), identity=None, target="cpu", **options):
    """Numba's @vectorize: @vectorize, @vectorize(), @vectorize(signatures,
    identity=, target="cpu"|"parallel", nopython=, fastmath=, cache=)."""
    if callable(ftylist_or_function) and not isinstance(ftylist_or_function, (str, list, tuple)):
        if target == "cuda":
            raise TypeError("vectorize(target='cuda') needs a list of signatures, as in Numba")
        return DUFunc(ftylist_or_function, identity=identity, target=target, **options)
    sigs = ftylist_or_function
    if isinstance(sigs, str) or not isinstance(sigs, (list, tuple)):
        sigs = [sigs]
    _check_target(target)
    if target == "cuda":
        if not sigs:
            raise TypeError("vectorize(target='cuda') needs a list of signatures, as in Numba")
        from .cuda import vectorizers
        return lambda func: vectorizers.CUDAUFunc(func, sigs, options)
    if target == "parallel" and not sigs:
        raise TypeError("vectorize(target='parallel') needs a list of signatures, as in Numba")

    def wrap(func):
        if not sigs:
            return DUFunc(func, identity=identity, target=target, **options)
        k = _Kernel(func, options, target)
        nin = None
        for sig in sigs:
            ret, args = _signature_codes(sig)
            if nin is not None and len(args) != nin:
                raise TypeError(_at_def(func, f"vectorize(): signature {sig!r} has {len(args)} arguments, "
                                f"the others {nin}"))
            nin = len(args)
            if nin != func.__code__.co_argcount:
                raise TypeError(_at_def(func, f"vectorize(): signature {sig!r} has {nin} arguments, "
                                f"{func.__name__}() takes {func.__code__.co_argcount}"))
            k.compile(args, ret)
        uf = k.make(identity)
        SCALAR_KERNELS[id(uf)] = (uf, k.disp)
        return uf

    return wrap


# ---- @vectorize functions called from compiled code --------------------------
# compiler._classify makes a call of one an overload (hpcjit.extending) whose
# implementation is the function of one element: the kernel on the loop's
# types (the np.ufunc's own type resolution when it has signatures, the
# arguments' element types for a DUFunc), its result converted to the
# loop's output type.  On numbers that is the call; with an array among the
# arguments the resolution is marked elementwise and the compiler makes the
# call a node of the caller's fused array expression (broadcasting as
# NumPy does, on the pool under parallel=True: infer_arrayexpr.c).
_vec_counter = [0]


def vectorize_overload(value):
    """The hpcjit.extending overload of a @vectorize function named in
    compiled code (made at its first use), or None."""
    entry = SCALAR_KERNELS.get(id(value))
    if entry is None or entry[0] is not value:
        return None
    from . import extending
    ov = extending.overloads_of(value)
    if ov is None:
        kernel = entry[1]

        def typing(*args):
            return _vectorize_impl(value, kernel, args)

        extending.overload(value)(typing)
        ov = extending.overloads_of(value)
    return ov


def _element_dtype(t):
    from . import numpy_support
    from . import types as _t
    base = t.dtype if isinstance(t, _t.Array) else _t.unliteral(t) if isinstance(t, _t.Literal) else t
    try:
        return numpy_support.as_dtype(base)
    except Exception:
        return None


def _vectorize_impl(uf, kernel, argtys):
    import linecache
    from . import types as _t
    name = getattr(uf, "__name__", "ufunc")
    nds = [t.ndim if isinstance(t, _t.Array) else 0 for t in argtys]
    dts = [_element_dtype(t) for t in argtys]
    if any(d is None for d in dts):
        raise errors.TypingError(f"{name}(): a vectorized function takes numbers and arrays of numbers, not "
                                 f"{', '.join(str(t) for t in argtys)}")
    npuf = uf
    if not isinstance(uf, np.ufunc):  # a DUFunc: grown as a call from Python would grow it
        if any(d not in _DTYPE_CODES for d in dts):
            raise errors.TypingError(f"{name}(): no loop for arguments of types "
                                     f"{', '.join(str(t) for t in argtys)}")
        try:
            npuf = uf._ensure(tuple(_DTYPE_CODES[d] for d in dts))
        except TypeError as e:
            raise errors.TypingError(f"{name}(): {e}") from None
    try:  # NumPy picks the loop, as for a call from Python
        loop = npuf.resolve_dtypes(tuple(dts) + (None,) * npuf.nout)
    except Exception as e:
        raise errors.TypingError(f"{name}(): no loop for arguments of types "
                                 f"{', '.join(str(t) for t in argtys)} ({e})") from None
    ins, out_dt = list(loop[:len(dts)]), loop[len(dts)]
    a = [f"a{k}" for k in range(len(argtys))]
    ns = {"kernel": kernel, "np": np, "out_t": out_dt.type}
    for k, d in enumerate(ins):
        ns[f"t{k}"] = d.type
    # one element: the loop types NumPy picked, the kernel, the output type;
    # on arrays the compiler makes the call an elementwise node of the
    # caller's array expression (HjStubImpl.elementwise): it broadcasts,
    # fuses with the operations around it and runs on the pool under
    # parallel=True, as np.exp does
    src = [f"def vectorize_call({', '.join(a)}):",
           f"    return out_t(kernel({', '.join(f't{k}({x})' for k, x in enumerate(a))}))"]
    text = "\n".join(src) + "\n"
    _vec_counter[0] += 1
    filename = f"<vectorize {name} {_vec_counter[0]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), ns)
    fn = ns["vectorize_call"]
    if max(nds) > 0:
        fn.__hpcjit_elementwise__ = True  # compiler.py: the resolution is elementwise
    return fn


# ---- @guvectorize -----------------------------------------------------------

def _parse_layout(layout):
    """"(m,n),(n,p)->(m,p)" -> (inputs, outputs) as lists of name tuples.
    A layout without "->" has no outputs (as Numba's parse_signature): the
    kernel writes into an input, QuantEcon's `guvectorize(..., '(n), (k)')`."""
    text = layout.replace(" ", "")
    lhs, _, rhs = text.partition("->")

    def args(part):
        out = []
        i = 0
        while i < len(part):
            if part[i] != "(":
                raise ValueError(f"guvectorize(): bad layout {layout!r}")
            j = part.index(")", i)
            names = tuple(n for n in part[i + 1:j].split(",") if n)
            for n in names:
                if not n.isidentifier():
                    raise ValueError(f"guvectorize(): bad dimension {n!r} in layout {layout!r}")
            out.append(names)
            i = j + 1
            if i < len(part):
                if part[i] != ",":
                    raise ValueError(f"guvectorize(): bad layout {layout!r}")
                i += 1
        return out

    return args(lhs), args(rhs)


# ---- gufuncs called from compiled code ---------------------------------------------
# id(gufunc) -> (gufunc, py_func, ins, outs, options): the gufuncs hpcjit made
# (GUFunc and those with signatures).  compiler._classify turns a call of one
# in compiled code into an overload (hpcjit.extending) whose implementation,
# generated for the arguments' dimensions, loops over the loop dimensions
# and calls the kernel on views, with NumPy's broadcasting rules.
GUFUNCS = {}
_gu_counter = [0]


def gufunc_overload(value):
    """The hpcjit.extending overload of a gufunc named in compiled code (made
    at its first use), or None when value is not one of hpcjit's gufuncs."""
    entry = GUFUNCS.get(id(value))
    if entry is None or entry[0] is not value:
        return None
    from . import extending
    ov = extending.overloads_of(value)
    if ov is None:
        gu, py_func, ins, outs, opts = entry
        state = {}

        def typing(*args):
            from . import njit
            if "kernel" not in state:
                state["kernel"] = njit(**opts)(py_func)
            return _gufunc_impl(py_func.__name__, ins, outs, args, state["kernel"])

        extending.overload(value)(typing)
        ov = extending.overloads_of(value)
    return ov


def _gufunc_impl(name, ins, outs, argtys, kernel):
    """The implementation of a gufunc call for these argument types: the
    source of a function generated for their dimensions."""
    import linecache
    from . import types as _t
    layout = ins + outs
    nin = len(ins)
    if len(argtys) != len(layout):
        raise errors.TypingError(f"{name}(): the gufunc takes {len(layout)} arguments, outputs included "
                                 f"(compiled code passes every output); got {len(argtys)}")
    nds = []
    for k, (t, names) in enumerate(zip(argtys, layout)):
        if isinstance(t, _t.Array):
            nds.append(t.ndim)
        elif k >= nin:
            raise errors.TypingError(f"{name}(): output {k - nin} must be an array, not {t}")
        elif names:
            raise errors.TypingError(f"{name}(): argument {k} has core dimensions {names}: it must be "
                                     f"an array, not {t}")
        else:
            nds.append(0)
    core = [len(n) for n in layout]
    loop = [nd - c for nd, c in zip(nds, core)]
    for k, lo in enumerate(loop):
        if lo < 0:
            raise errors.TypingError(f"{name}(): argument {k} has {nds[k]} dimensions, fewer than its "
                                     f"core dimensions {layout[k]}")
    L = max(loop) if loop else 0
    a = [f"a{k}" for k in range(len(layout))]
    src = [f"def gufunc_call({', '.join(a)}):"]
    bad = "'Loop and array shapes are incompatible'"
    for j in range(L):  # the loop shape: the inputs' loop dimensions broadcast
        src.append(f"    s{j} = 1")
        for k in range(nin):
            d = j - (L - loop[k])
            if d >= 0:
                src += [f"    if {a[k]}.shape[{d}] != 1:",
                        f"        if s{j} != 1 and s{j} != {a[k]}.shape[{d}]:",
                        f"            raise ValueError({bad})",
                        f"        s{j} = {a[k]}.shape[{d}]"]
    for k in range(nin, len(layout)):  # outputs have the loop shape exactly
        if loop[k] != L:
            src.append(f"    raise ValueError({bad})")
            break
        for j in range(L):
            src += [f"    if {a[k]}.shape[{j}] != s{j}:", f"        raise ValueError({bad})"]
    first = {}
    for k, names in enumerate(layout):  # core dimensions of one name agree
        for i, dim in enumerate(names):
            ax = f"{a[k]}.shape[{loop[k] + i}]"
            if dim in first:
                src += [f"    if {ax} != {first[dim]}:",
                        f"        raise ValueError('{name}: core dimension {dim} differs between arguments')"]
            else:
                first[dim] = ax
    ind = "    "
    for j in range(L):
        src.append(f"{ind}for i{j} in range(s{j}):")
        ind += "    "
    call = []
    for k, names in enumerate(layout):
        if loop[k] == 0:
            call.append(a[k])
            continue
        idx = []
        for d in range(loop[k]):
            j = d + (L - loop[k])
            idx.append(f"i{j}" if k >= nin else f"(i{j} if {a[k]}.shape[{d}] != 1 else 0)")
        if k >= nin and not names:  # a "()" output: a 1-element view
            idx[-1] = f"{idx[-1]}:{idx[-1]} + 1"
        call.append(f"{a[k]}[{', '.join(idx)}]")
    src.append(f"{ind}kernel({', '.join(call)})")
    text = "\n".join(src) + "\n"
    _gu_counter[0] += 1
    filename = f"<gufunc {name} {_gu_counter[0]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns = {"kernel": kernel}
    exec(compile(text, filename, "exec"), ns)
    return ns["gufunc_call"]


def _kernel_options(options):
    """The @njit options of a gufunc's kernel: as Numba's (ufuncbuilder.py)
    error_model="numpy", so x / 0.0 is inf and not a ZeroDivisionError
    (numbagg's moving variances divide by a zero weight)."""
    opts = {k: v for k, v in options.items() if k not in ("nopython", "cache", "forceobj")}
    opts.setdefault("error_model", "numpy")
    return opts


class GUFunc:
    """A generalized ufunc that compiles a loop per new combination of
    argument types (guvectorize with a layout and no signatures, as Numba's
    dynamic gufuncs): every argument, outputs included, is given at the
    call, and the kernel's signature is made from their types."""

    def __init__(self, func, layout, identity=None, target="cpu", writable_args=(), **options):
        _check_target(target)
        if target == "cuda":
            raise TypeError("guvectorize(target='cuda') needs a list of signatures, as in Numba")
        self._ins, self._outs = _parse_layout(layout)
        self._layout = layout
        self._func = func
        self._opts = dict(options, identity=identity, target=target, writable_args=writable_args)
        self._loops = {}  # argument typecodes -> np.ufunc
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        GUFUNCS[id(self)] = (self, func, self._ins, self._outs, _kernel_options(options))
        n = len(self._ins) + len(self._outs)
        if func.__code__.co_argcount != n:
            raise TypeError(_at_def(func, f"guvectorize(): layout {layout!r} has {n} arguments, "
                                          f"{func.__name__}() takes {func.__code__.co_argcount}"))

    @property
    def py_func(self):
        return self._func

    @property
    def nin(self):
        return len(self._ins)

    @property
    def nout(self):
        return len(self._outs)

    @property
    def nargs(self):
        return self.nin + self.nout

    @property
    def signature(self):
        return self._layout.replace(" ", "")

    @property
    def ntypes(self):
        return len(self._loops)

    @property
    def types(self):
        return [t for uf in self._loops.values() for t in uf.types]

    def _sig(self, args):
        parts = []
        for k, (a, names) in enumerate(zip(args, self._ins + self._outs)):
            code = _value_code(a)
            name = "boolean" if code == "?" else np.dtype(_CODE_TYPES[code]).name
            if names or k >= self.nin:  # core dimensions, or a "()" output (1 element)
                parts.append(f"{name}[{', '.join(':' * max(1, len(names)))}]")
            else:
                parts.append(name)
        return f"void({', '.join(parts)})"

    def __call__(self, *args, **kwargs):
        if len(args) != self.nargs:
            raise TypeError(f"{self.__name__}(): a dynamic gufunc (guvectorize without signatures) "
                            f"takes all its {self.nargs} arguments, outputs included; got {len(args)}")
        codes = tuple(_value_code(a) for a in args)
        uf = self._loops.get(codes)
        if uf is None:
            uf = guvectorize([self._sig(args)], self._layout, **self._opts)(self._func)
            self._loops[codes] = uf
        return uf(*args, **kwargs)


def guvectorize(ftylist, signature=None, identity=None, target="cpu", writable_args=(), **options):
    """Numba's @guvectorize(signatures, layout, target="cpu"|"parallel"):
    a generalized NumPy ufunc whose kernel takes its inputs and then its
    outputs as arguments (arrays for core dimensions, scalars for "()"
    inputs; a "()" output is a 1-element array) and returns nothing.
    @guvectorize(layout) alone makes a GUFunc (compiled per argument types)."""
    from . import njit

    if signature is None:
        if isinstance(ftylist, str) and "->" in ftylist:
            return lambda func: GUFunc(func, ftylist, identity=identity, target=target,
                                       writable_args=writable_args, **options)
        raise TypeError("guvectorize() needs a layout: guvectorize(signatures, '(n)->(n)')")
    _check_target(target)
    if target == "cuda":
        from .cuda import vectorizers
        sigs = [ftylist] if isinstance(ftylist, str) or not isinstance(ftylist, (list, tuple)) else ftylist
        if not sigs:
            raise TypeError("guvectorize() needs a list of signatures, as in Numba")
        return lambda func: vectorizers.CUDAGUFunc(func, sigs, signature, options)
    sigs = [ftylist] if isinstance(ftylist, str) or not isinstance(ftylist, (list, tuple)) else ftylist
    if not sigs:
        raise TypeError("guvectorize() needs a list of signatures, as in Numba")
    ins, outs = _parse_layout(signature)
    nin, nout = len(ins), len(outs)
    order = []
    for names in ins + outs:
        for n in names:
            if n not in order:
                order.append(n)

    def wrap(func):
        from . import _compiler, compiler, _core

        opts = _kernel_options(options)
        disp = njit(**opts)(func)
        nparams = func.__code__.co_argcount
        if nparams != nin + nout:
            raise TypeError(_at_def(func, f"guvectorize(): layout {signature!r} has {nin + nout} arguments, "
                            f"{func.__name__}() takes {nparams}"))
        loops = []
        argdims = None
        for sig in sigs:
            ret, args = _signature_codes(sig)
            if ret not in (None, "n"):
                raise errors.TypingError(_at_def(func, f"guvectorize(): signature {sig!r} must return void"))
            if len(args) != nin + nout:
                raise TypeError(_at_def(func, f"guvectorize(): signature {sig!r} has {len(args)} arguments, "
                                f"the layout {signature!r} {nin + nout}"))
            dims, nums = [], []
            for k, (code, names) in enumerate(zip(args, ins + outs)):
                is_array = code[:1] in ("a", "r")
                if is_array:
                    nd = int(ord(code[2]) - ord("0"))
                    if names and nd != len(names):
                        raise errors.TypingError(_at_def(func, 
                            f"guvectorize(): argument {k} of {sig!r} has {nd} dimensions, the layout "
                            f"{signature!r} gives it {len(names)}"))
                    if not names and nd != 1:
                        raise errors.TypingError(_at_def(func, 
                            f"guvectorize(): argument {k} of {sig!r} has layout '()': declare it as a "
                            "scalar (input) or a 1-d array (output)"))
                    dims.append(tuple(order.index(n) for n in names) if names else (-1,))
                    nums.append(_typenum(code[1]))
                else:
                    if names:
                        raise errors.TypingError(_at_def(func, 
                            f"guvectorize(): argument {k} of {sig!r} is a scalar, the layout "
                            f"{signature!r} gives it dimensions {names}"))
                    if k >= nin:
                        raise errors.TypingError(_at_def(func, f"guvectorize(): output argument {k} of {sig!r} "
                                                 "must be an array"))
                    if code not in _CODE_TYPES:
                        raise errors.TypingError(_at_def(func, f"guvectorize(): unsupported argument type {code!r}"))
                    dims.append(())
                    nums.append(_typenum(code))
            # views are passed with any layout
            args = [c[:3] + "A" if c[:1] in ("a", "r") else c for c in args]
            res = compiler.compile_funcs(disp, list(args), None, False, False, False)
            loops.append((tuple(nums), res["address"]))
            argdims = dims
        params = func.__code__.co_varnames[:nparams]
        writable = []
        for w in writable_args:
            k = params.index(w) if isinstance(w, str) and w in params else w
            if not isinstance(k, int) or not 0 <= k < nin:
                raise ValueError(_at_def(func, f"guvectorize(): writable_args names {w!r}, which is "
                                               f"not an input of {func.__name__}()"))
            writable.append(k)
        uf = _core.make_gufunc(func.__name__, func.__doc__ or "", signature.replace(" ", ""), nin, nout,
                               argdims, loops, target == "parallel", writable)
        GUFUNCS[id(uf)] = (uf, func, ins, outs, opts)
        return uf

    return wrap


# ---- @cfunc -----------------------------------------------------------------

def _ctype(code):
    import ctypes

    table = {"?": ctypes.c_bool, "b": ctypes.c_int8, "h": ctypes.c_int16, "i": ctypes.c_int32,
             "l": ctypes.c_int64, "B": ctypes.c_uint8, "H": ctypes.c_uint16, "I": ctypes.c_uint32,
             "L": ctypes.c_uint64, "f": ctypes.c_float, "d": ctypes.c_double, "n": None}
    if code and code[0] == "p":  # a C pointer: double * (LowLevelCallable checks it), void *
        return ctypes.c_void_p if code == "pv" else ctypes.POINTER(_ctype(code[1:]))
    if code not in table:
        raise errors.TypingError(f"cfunc: C callbacks take and return real numbers (or void), not {code!r}")
    return table[code]


class CFunc:
    """A compiled C callback (@cfunc(signature)): `.address` of the native
    function, `.ctypes` (a ctypes function of the signature), `.native_name`,
    `.inspect_llvm()`; calling it calls the native function through ctypes.
    An exception inside is written to stderr and the function returns 0, as
    in Numba (a C caller cannot receive it)."""

    def __init__(self, func, sig, options):
        import ctypes

        from . import _compiler, compiler, njit

        opts = {k: v for k, v in options.items() if k not in ("nopython", "cache", "forceobj")}
        self._disp = njit(**opts)(func)
        ret, args = _signature_codes(sig)
        if ret is None:
            raise TypeError(f"cfunc(): signature {sig!r} needs a return type (e.g. 'float64(float64)')")
        if len(args) != func.__code__.co_argcount:
            raise TypeError(_at_def(func, f"cfunc(): signature {sig!r} has {len(args)} arguments, "
                            f"{func.__name__}() takes {func.__code__.co_argcount}"))
        ctys = [_ctype(c) for c in args]
        self._ret, self._args = ret, tuple(args)
        res = compiler.compile_funcs(self._disp, list(args), ret, False, False, False, True)
        self.address = res["address"]
        self.native_name = res["entry_symbol"]
        self._ir = None
        self.ctypes = ctypes.CFUNCTYPE(_ctype(ret), *ctys)(self.address)
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func

    @property
    def py_func(self):
        return self.__wrapped__

    def inspect_llvm(self):
        """The optimised LLVM IR of the callback's module."""
        if self._ir is None:
            from . import _compiler, compiler

            res = compiler.compile_funcs(self._disp, list(self._args), self._ret, True, False, False, True)
            self._ir = res["llvm_ir"]
        return self._ir

    def __call__(self, *args):
        return self.ctypes(*args)

    # a first-class function (Numba's Wrapper Address Protocol): passed to
    # compiled code as a FunctionType value (python/hpcjit/_fntype.py)
    def __wrapper_address__(self):
        return self.address

    def signature(self):
        from . import types as _types
        return _types.Signature(_types.from_typecode(self._ret), [_types.from_typecode(a) for a in self._args])

    def __repr__(self):
        return f"<hpcjit cfunc {self.__name__!r} at {self.address:#x}>"


def cfunc(sig, **options):
    """Numba's @cfunc(signature, **options): compile a C callback."""
    if callable(sig) and not isinstance(sig, str):
        raise TypeError("cfunc() needs a signature: @cfunc('float64(float64)')")
    return lambda func: CFunc(func, sig, options)
