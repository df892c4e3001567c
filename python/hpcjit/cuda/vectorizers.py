"""@vectorize(..., target="cuda") and @guvectorize(..., target="cuda"):
numba-cuda's device ufuncs, built on hpcjit.cuda's kernels.

The element function becomes a device function (cuda.jit(device=True)),
so other kernels can call it too.  A call picks the loop from the
inputs' types as the CPU @vectorize does (hpcjit.ufunc._pick_loop), and
launches a kernel generated here as Python source and compiled by
cuda.jit like any other: a grid-stride loop over the flattened broadcast
output (one thread per element; per loop index for a gufunc), each flat
index unravelled over the output's shape, an input axis of extent 1
read at 0 (NumPy broadcasting without stride-0 views).  One kernel is
made per (number of dimensions, which arguments are scalars) and
specialised by cuda.jit per argument types.  Host arrays are copied to
the device and the result comes back as a host array; device arrays in,
a device array out.  Without a GPU the first transfer raises the CUDA
target's own "no device" error; under HPCJIT_CUDA_SIM=1 the same kernels
run on the simulator.
"""
import linecache

import numpy as np

from .. import cuda
from .. import errors
from .. import ufunc as _uf

# threads per block of the generated kernels; the grid is capped and the
# kernels stride over the rest
_TPB = 128
_MAX_BLOCKS = 4096

# Numba options that mean nothing on the device
_IGNORED = ("nopython", "cache", "forceobj", "identity", "writable_args")

if cuda.SIMULATOR:
    _Base = object
else:
    from .compiler import DeviceFunction as _Base

_counter = [0]


def _is_device(x):
    return cuda.is_cuda_array(x) and not isinstance(x, np.ndarray)


def _is_scalar(x):
    return isinstance(x, (bool, int, float, complex, np.generic))


def _arrays(args):
    """Lists and other array-likes as NumPy arrays; numbers, NumPy and
    device arrays as they are."""
    return tuple(x if _is_scalar(x) or _is_device(x) or isinstance(x, np.ndarray) or x is None
                 else np.asarray(x) for x in args)


def _in_sim_kernel():
    """Called on numbers from inside a simulated kernel: the element function."""
    if not cuda.SIMULATOR:
        return False
    from .simulator import kernel as _k
    return getattr(_k._tls, "thread", None) is not None


def _exec(src, name, ns):
    text = "\n".join(src) + "\n"
    _counter[0] += 1
    filename = f"<cuda {name} {_counter[0]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), ns)
    return ns[name]


def _unravel(src, ind, flat, shape_of, ndim):
    """Lines that split `flat` into j0..j{ndim-1} over shape_of(axis)."""
    if ndim == 1:
        src.append(f"{ind}j0 = {flat}")
        return
    src.append(f"{ind}r = {flat}")
    for ax in range(ndim - 1, 0, -1):
        src += [f"{ind}j{ax} = r % {shape_of(ax)}", f"{ind}r = r // {shape_of(ax)}"]
    src.append(f"{ind}j0 = r")


def _index(a, nd, ndim):
    """a's broadcast index at j0.. (its axes are the last nd of ndim)."""
    return ", ".join(f"(j{d + ndim - nd} if {a}.shape[{d}] != 1 else 0)" for d in range(nd))


def _launch_config(n):
    blocks = min(max(1, (n + _TPB - 1) // _TPB), _MAX_BLOCKS)
    return blocks, _TPB


def _as_array(x, stream):
    """(device array, was it on the host) for an array argument."""
    if _is_device(x):
        return x, False
    a = np.ascontiguousarray(x)
    return cuda.to_device(a, stream=stream), True


def _finish(out_dev, out, host, stream):
    """The result: out (host or device) when given, else a host array if
    every array argument was on the host, else the device array."""
    if out is not None and not _is_device(out):
        out_dev.copy_to_host(out, stream=stream)
        if stream:
            stream.synchronize()
        return out
    if out is not None:
        return out
    if host:
        r = out_dev.copy_to_host(stream=stream)
        if stream:
            stream.synchronize()
        return r
    return out_dev


def _out_device(out, shape, dtype, stream, what):
    if out is None:
        return cuda.device_array(shape, dtype=dtype, stream=stream)
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{what}: out has shape {tuple(out.shape)}, the result {tuple(shape)}")
    if _is_device(out):
        return out
    return cuda.to_device(np.ascontiguousarray(out), stream=stream)


class CUDAUFunc(_Base):
    """What @vectorize(signatures, target="cuda") returns: called with
    arrays, a ufunc run on the device; called from a kernel, the device
    function of one element."""

    def __init__(self, func, sigs, options):
        options = {k: v for k, v in options.items() if k not in _IGNORED}
        device = cuda.jit(device=True, **options)(func)
        if not cuda.SIMULATOR:
            super().__init__(func, **options)
        self.py_func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self._device = device
        self._loops = []  # [(argument typecodes, return typecode)]
        nargs = func.__code__.co_argcount
        for sig in sigs:
            ret, args = _uf._signature_codes(sig)
            if len(args) != nargs:
                raise TypeError(_uf._at_def(func, f"vectorize(): signature {sig!r} has {len(args)} "
                                            f"arguments, {func.__name__}() takes {nargs}"))
            for c in args + (ret,):
                if c not in _uf._CODE_TYPES:
                    raise errors.TypingError(_uf._at_def(func, f"vectorize(target='cuda'): signature "
                                                         f"{sig!r}: the arguments and the result must "
                                                         "be numbers"))
            self._loops.append((args, ret))
        self._kernels = {}  # (loop, ndim, input dimensions) -> cuda.jit kernel

    @property
    def nin(self):
        return len(self._loops[0][0])

    nout = 1

    @property
    def types(self):
        return ["".join(a) + "->" + r for a, r in self._loops]

    def _kernel(self, loop, ndim, nds):
        """The kernel of loop `loop` for an ndim-dimensional output and
        inputs of nds dimensions (-1: a scalar)."""
        key = (loop, ndim, nds)
        k = self._kernels.get(key)
        if k is None:
            nin = len(nds)
            a = [f"a{i}" for i in range(nin)]
            # the loop's types are the kernel's globals: the element function
            # is called on them whatever the arrays hold
            ns = {"cuda": cuda, "f": self._device}
            for i, c in enumerate(self._loops[loop][0]):
                ns[f"t{i}"] = _uf._CODE_TYPES[c]
            src = [f"def __vectorize({', '.join(a)}, out):",
                   "    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):"]
            _unravel(src, "        ", "i", lambda ax: f"out.shape[{ax}]", ndim)
            elems = [f"t{i}({x})" if nd < 0 else f"t{i}({x}[{_index(x, nd, ndim)}])"
                     for i, (x, nd) in enumerate(zip(a, nds))]
            src.append(f"        out[{', '.join(f'j{d}' for d in range(ndim))}] = "
                       f"f({', '.join(elems)})")
            k = cuda.jit(_exec(src, "__vectorize", ns))
            self._kernels[key] = k
        return k

    def __call__(self, *args, out=None, stream=0):
        if _in_sim_kernel() and all(_is_scalar(x) for x in args):
            return self.py_func(*args)
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments, got {len(args)}")
        args = _arrays(args)
        k = _uf._pick_loop([a for a, _ in self._loops], args)
        if k is None:
            raise TypeError(f"ufunc '{self.__name__}' not supported for the input types, and the inputs "
                            "could not be safely coerced to any supported types according to the "
                            "casting rule ''safe''")
        argcodes, ret = self._loops[k]
        shape = np.broadcast_shapes(*(() if _is_scalar(x) else tuple(x.shape) for x in args))
        ndim = max(1, len(shape))
        kshape = shape if shape else (1,)
        types = [_uf._CODE_TYPES[c] for c in argcodes]
        host = not any(_is_device(x) for x in args)
        dev_args, nds = [], []
        for x, t in zip(args, types):
            if _is_scalar(x) or (isinstance(x, np.ndarray) and x.ndim == 0):
                dev_args.append(t(x[()] if isinstance(x, np.ndarray) else x))
                nds.append(-1)
            else:
                if x.ndim == 0:  # a 0-d device array: a 1-element vector
                    x = x.reshape((1,))
                dev_args.append(_as_array(x, stream)[0])
                nds.append(x.ndim)
        out_dev = _out_device(out, shape, np.dtype(_uf._CODE_TYPES[ret]), stream, self.__name__)
        kout = out_dev.reshape((1,)) if not shape else out_dev
        n = int(np.prod(kshape))
        if n:
            blocks, tpb = _launch_config(n)
            self._kernel(k, ndim, tuple(nds))[blocks, tpb, stream](*dev_args, kout)
        res = _finish(out_dev, out, host, stream)
        if not shape and out is None and host:
            return res[()]
        return res

    def inspect_ptx(self, ndim=1, cc=None):
        """{loop types: PTX} of the kernel for ndim-dimensional arrays
        (no GPU needed)."""
        from .compiler import compile_ptx
        if cuda.SIMULATOR:
            raise cuda.CudaSupportError("the simulator produces no PTX (inspect_ptx)")
        res = {}
        for i, (args, ret) in enumerate(self._loops):
            k = self._kernel(i, ndim, (ndim,) * len(args))
            sig = tuple(_types_of([f"a{c}{ndim}C" for c in args + (ret,)]))
            res["".join(args) + "->" + ret] = compile_ptx(k.py_func, sig, cc=cc)[0]
        return res

    def __repr__(self):
        return f"<hpcjit CUDA ufunc {self.__name__!r}>"


def _types_of(codes):
    from .. import types as _t
    return [_t.from_typecode(c) for c in codes]



class CUDAGUFunc:
    """What @guvectorize(signatures, layout, target="cuda") returns: one
    thread per loop index, the function (a device function) handling the
    core dimensions of its arguments' views."""

    def __init__(self, func, sigs, layout, options):
        options = {k: v for k, v in options.items() if k not in _IGNORED}
        self._ins, self._outs = _uf._parse_layout(layout)
        self._layout = layout
        n = len(self._ins) + len(self._outs)
        if func.__code__.co_argcount != n:
            raise TypeError(_uf._at_def(func, f"guvectorize(): layout {layout!r} has {n} arguments, "
                                        f"{func.__name__}() takes {func.__code__.co_argcount}"))
        self.py_func = func
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func
        self._device = cuda.jit(device=True, **options)(func)
        self._loops = []  # [argument typecodes: "f" or "af1A"...]
        for sig in sigs:
            ret, args = _uf._signature_codes(sig)
            if ret not in (None, "n"):
                raise errors.TypingError(_uf._at_def(func, f"guvectorize(): signature {sig!r} must return void"))
            if len(args) != n:
                raise TypeError(_uf._at_def(func, f"guvectorize(): signature {sig!r} has {len(args)} "
                                            f"arguments, the layout {layout!r} {n}"))
            for k, (code, names) in enumerate(zip(args, self._ins + self._outs)):
                is_array = code[:1] in ("a", "r")
                nd = int(code[2]) if is_array else 0
                if not is_array and code not in _uf._CODE_TYPES:
                    raise errors.TypingError(_uf._at_def(func, f"guvectorize(): unsupported argument "
                                                         f"type {code!r}"))
                if k >= len(self._ins) and not is_array:
                    raise errors.TypingError(_uf._at_def(func, f"guvectorize(): output argument {k} of "
                                                         f"{sig!r} must be an array"))
                want = max(1, len(names)) if k >= len(self._ins) else len(names)
                if nd != want:
                    raise errors.TypingError(_uf._at_def(func, f"guvectorize(): argument {k} of {sig!r} has "
                                                         f"{nd} dimensions, the layout {layout!r} gives it "
                                                         f"{len(names)}"))
            self._loops.append(tuple(args))
        self._kernels = {}  # (loop, loop dimensions, argument dimensions) -> cuda.jit kernel

    @property
    def nin(self):
        return len(self._ins)

    @property
    def nout(self):
        return len(self._outs)

    @property
    def signature(self):
        return self._layout.replace(" ", "")

    def _elem(self, code):
        return code[1] if code[:1] in ("a", "r") else code

    def _kernel(self, loop, nloop, nds):
        """The kernel of `loop` for nloop loop dimensions; nds: each
        argument's number of dimensions (-1: a scalar)."""
        key = (loop, nloop, nds)
        k = self._kernels.get(key)
        if k is None:
            layout = self._ins + self._outs
            nin = len(self._ins)
            a = [f"a{i}" for i in range(len(layout))]
            first = nin  # the first output has the loop shape
            src = [f"def __gufunc({', '.join(a)}):",
                   "    n = 1"]
            src += [f"    n *= {a[first]}.shape[{d}]" for d in range(nloop)]
            src.append("    for i in range(cuda.grid(1), n, cuda.gridsize(1)):")
            if nloop:
                _unravel(src, "        ", "i", lambda ax: f"{a[first]}.shape[{ax}]", nloop)
            call = []
            for i, (x, names, nd) in enumerate(zip(a, layout, nds)):
                lo = nd - (len(names) if i < nin else max(1, len(names)))
                if nd < 0 or lo <= 0:
                    call.append(x)
                elif i >= nin:
                    call.append(f"{x}[{', '.join(f'j{d}' for d in range(lo))}]")
                else:
                    call.append(f"{x}[{_index(x, lo, nloop)}]")
            src.append(f"        f({', '.join(call)})")
            k = cuda.jit(_exec(src, "__gufunc", {"cuda": cuda, "f": self._device}))
            self._kernels[key] = k
        return k

    def __call__(self, *args, out=None, stream=0):
        nin, nout = self.nin, self.nout
        layout = self._ins + self._outs
        if out is not None:
            if len(args) != nin:
                raise TypeError(f"{self.__name__}(): out= with {len(args)} positional arguments; it "
                                f"takes {nin} inputs")
            args = args + (tuple(out) if isinstance(out, (tuple, list)) else (out,))
        if len(args) not in (nin, nin + nout):
            raise TypeError(f"{self.__name__}() takes {nin} inputs (and optionally its {nout} outputs), "
                            f"got {len(args)} arguments")
        args = _arrays(args)
        ins = args[:nin]
        outs = list(args[nin:]) or [None] * nout
        loop = _uf._pick_loop([tuple(self._elem(c) for c in codes[:nin]) for codes in self._loops], ins)
        if loop is None:
            raise TypeError(f"ufunc '{self.__name__}' not supported for the input types, and the inputs "
                            "could not be safely coerced to any supported types according to the "
                            "casting rule ''safe''")
        codes = self._loops[loop]
        types = [_uf._CODE_TYPES[self._elem(c)] for c in codes]
        # the loop shape and the core sizes, from the inputs
        sizes, loop_shapes = {}, []
        for i, (x, names) in enumerate(zip(ins, self._ins)):
            shape = () if _is_scalar(x) else tuple(x.shape)
            if len(shape) < len(names):
                raise ValueError(f"{self.__name__}: input {i} has {len(shape)} dimensions, fewer than "
                                 f"its core dimensions {names}")
            core = shape[len(shape) - len(names):]
            for name, s in zip(names, core):
                if sizes.setdefault(name, s) != s:
                    raise ValueError(f"{self.__name__}: core dimension {name} differs between arguments "
                                     f"({sizes[name]} and {s})")
            loop_shapes.append(shape[:len(shape) - len(names)])
        lshape = np.broadcast_shapes(*loop_shapes)
        host = not any(_is_device(x) for x in args)
        dev_args, nds = [], []
        for i, (x, t, names) in enumerate(zip(ins, types, self._ins)):
            if _is_scalar(x) or (isinstance(x, np.ndarray) and x.ndim == 0):
                dev_args.append(t(x[()] if isinstance(x, np.ndarray) else x))
                nds.append(-1)
                continue
            if _is_device(x):
                if np.dtype(x.dtype) != np.dtype(t):
                    raise TypeError(f"{self.__name__}: device array argument {i} holds {x.dtype}, the "
                                    f"loop takes {np.dtype(t)} (device arrays are not converted)")
                dev = x
            else:
                dev = cuda.to_device(np.ascontiguousarray(x, dtype=t), stream=stream)
            dev_args.append(dev)
            nds.append(len(x.shape))
        dev_outs = []
        for j, (o, names) in enumerate(zip(outs, self._outs)):
            t = np.dtype(types[nin + j])
            if any(n not in sizes for n in names):
                if o is None:
                    raise ValueError(f"{self.__name__}: output {j} has core dimensions {names} that no "
                                     "input gives: pass it (out=)")
                for name, s in zip(names, tuple(o.shape)[len(o.shape) - len(names):]):
                    sizes.setdefault(name, s)
            shape = tuple(lshape) + (tuple(sizes[n] for n in names) if names else ())
            dev_outs.append(_out_device(o, shape, t, stream, self.__name__))
        kouts = []
        for d, names in zip(dev_outs, self._outs):
            kouts.append(d if names else d.reshape(tuple(lshape) + (1,)))
        nloop = len(lshape)
        if nloop == 0:  # one call: the outputs as seen by the function
            kouts = [d if names else d.reshape((1,)) for d, names in zip(dev_outs, self._outs)]
        nds += [len(d.shape) for d in kouts]
        n = int(np.prod(lshape)) if nloop else 1
        if n:
            blocks, tpb = _launch_config(n)
            self._kernel(loop, nloop, tuple(nds))[blocks, tpb, stream](*dev_args, *kouts)
        given = args[nin:]
        res = []
        for j, d in enumerate(dev_outs):
            o = given[j] if given else None
            res.append(_finish(d, o, host, stream))
        return res[0] if nout == 1 else tuple(res)

    def inspect_ptx(self, nloop=1, cc=None):
        """{signature: PTX} of the kernel for nloop loop dimensions (array
        arguments throughout; no GPU needed)."""
        from .compiler import compile_ptx
        if cuda.SIMULATOR:
            raise cuda.CudaSupportError("the simulator produces no PTX (inspect_ptx)")
        res = {}
        layout = self._ins + self._outs
        for i, codes in enumerate(self._loops):
            tcs = []
            for k, (c, names) in enumerate(zip(codes, layout)):
                core = max(1, len(names)) if k >= self.nin else len(names)
                tcs.append(f"a{self._elem(c)}{nloop + core}C")
            k = self._kernel(i, nloop, tuple(int(c[2]) for c in tcs))
            res[", ".join(codes)] = compile_ptx(k.py_func, tuple(_types_of(tcs)), cc=cc)[0]
        return res

    def __repr__(self):
        return f"<hpcjit CUDA gufunc {self.__name__!r}>"
