"""@cuda.jit kernels: specialised lazily per argument types (or for explicit
signatures), compiled by hpcjit.cuda.compiler to PTX, loaded and launched
through the driver layer.

A launch `k[grid, block, stream, shmem](*args)` goes to hpcjit._core's
_cuda_launch: the key of the arguments' typecodes picks a specialisation
from self._specs and its precomputed packing plan; only a miss (first
call, host arrays, foreign arrays, explicit-signature conversions) comes
back to _launch_slow here.
"""
import struct

import numpy as np

from .. import _core
from .. import types as _types
from ..errors import TypingError
from .cudadrv import devicearray, driver

_OPTIONS = ("device", "debug", "opt", "lineinfo", "fastmath", "max_registers", "link", "cache",
            "inline", "lto", "launch_bounds", "forceinline")


def _compiler():
    try:
        from . import compiler
    except ModuleNotFoundError as exc:
        if exc.name != __package__ + ".compiler":
            raise
        from ..errors import UnsupportedError
        raise UnsupportedError("hpcjit.cuda: the CUDA kernel compiler is not part of this build "
                               "(hpcjit/cuda/compiler.py missing)") from None
    return compiler


def _typecodes_of_signature(sig):
    from ..dispatcher import _signature_typecodes
    ret, args = _signature_typecodes(sig)
    if ret not in (None, "n"):
        raise TypeError("CUDA kernel must have void return type, got a signature returning %s"
                        % _types.from_typecode(ret))
    return tuple(args)


def _arg_typecode(value):
    if isinstance(value, devicearray.DeviceNDArray):
        return value._hj_tc
    t = _types.typeof(value)
    if t is None or t.typecode is None:
        raise TypingError("cannot determine the hpcjit type of a kernel argument of type %s"
                          % type(value).__name__)
    return t.typecode


class _Overload:
    """One compiled specialisation: code, module, function, packing plan."""

    def __init__(self, code, argtcs, module, function, capsule, error_ptr, error_size):
        self.code = code
        self.argtypes = argtcs
        self.module = module
        self.function = function
        self.capsule = capsule
        self.error_ptr = error_ptr
        self.error_size = error_size

    def __del__(self):
        if getattr(self, "module", None):
            try:
                _core._cuda_module_unload(self.module)
            except Exception:  # noqa: BLE001
                pass
            self.module = None


class _Launcher:
    """kernel[grid, block, stream, shmem]: callable with the arguments."""
    __slots__ = ("kernel", "griddim", "blockdim", "stream", "sharedmem")

    def __init__(self, kernel, griddim, blockdim, stream, sharedmem):
        self.kernel = kernel
        self.griddim = griddim
        self.blockdim = blockdim
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        k = self.kernel
        r = _core._cuda_launch(k._specs, self.griddim, self.blockdim, self.stream, self.sharedmem,
                               *args)
        if r is not None:
            k._after_fast(r, self, args)


def _check_config(config):
    if not isinstance(config, tuple):
        config = (config,)
    if len(config) not in (2, 3, 4):
        raise ValueError("must specify at least the griddim and blockdim (kernel[griddim, blockdim] "
                         "or kernel[griddim, blockdim, stream, sharedmem])")
    griddim, blockdim = config[0], config[1]
    stream = config[2] if len(config) > 2 else 0
    sharedmem = config[3] if len(config) > 3 else 0
    for d, what in ((griddim, "griddim"), (blockdim, "blockdim")):
        dims = d if isinstance(d, (tuple, list)) else (d,)
        if not 1 <= len(dims) <= 3 or not all(isinstance(x, (int, np.integer)) for x in dims):
            raise ValueError("%s must be an int or a tuple of 1 to 3 ints, got %r" % (what, d))
    if stream is None:
        stream = 0
    return griddim, blockdim, stream, sharedmem


class Kernel:
    """What @cuda.jit returns for a kernel (numba.cuda's CUDADispatcher)."""

    def __init__(self, py_func, sigs=None, **options):
        for k in options:
            if k not in _OPTIONS:
                raise TypeError("cuda.jit() got an unexpected option %r" % k)
        self.py_func = py_func
        self.__name__ = getattr(py_func, "__name__", "kernel")
        self.__qualname__ = getattr(py_func, "__qualname__", self.__name__)
        self.__doc__ = getattr(py_func, "__doc__", None)
        self.__wrapped__ = py_func
        self.targetoptions = dict(options)
        self._specs = {}      # argument key -> capsule (the C launch path's table)
        self.overloads = {}   # tuple of parameter typecodes -> _Overload
        self._locked = False
        self._explicit = []
        if sigs:
            for sig in sigs:
                self.compile(sig)
            self._locked = True

    # ---- compilation ----
    def _cc(self):
        """The target: the device's compute capability, or the newest of
        HPCJIT_CUDA_ARCHS the device runs (compiler.pick_arch)."""
        try:
            dev = driver.get_device().compute_capability
        except driver.CudaSupportError:
            dev = None
        c = _compiler()
        return c.pick_arch(dev, c.cuda_archs())

    def _compile_code(self, argtcs, cc=None):
        o = self.targetoptions
        extra = {}
        lb = o.get("launch_bounds")
        if lb is not None:
            lb = (lb,) if isinstance(lb, int) else tuple(lb)
            extra["max_threads"] = int(lb[0])
            if len(lb) > 1:
                extra["min_blocks"] = int(lb[1])
        return _compiler().compile_kernel(
            self.py_func, list(argtcs), device=False, cc=cc or self._cc(),
            fastmath=o.get("fastmath", False), lineinfo=o.get("lineinfo", False),
            debug=o.get("debug", False), max_registers=o.get("max_registers"),
            opt=o.get("opt", True), **extra)

    def compile(self, sig):
        """Compile for a signature (string, hpcjit Signature or tuple of
        types) and return its overload."""
        if isinstance(sig, (tuple, list)) and all(isinstance(t, str) and len(t) > 0 for t in sig) \
                and not isinstance(sig, str):
            argtcs = tuple(sig)
        else:
            argtcs = _typecodes_of_signature(sig)
        return self._compile_tcs(argtcs)

    def _compile_tcs(self, argtcs):
        argtcs = tuple(argtcs)
        ov = self.overloads.get(argtcs)
        if ov is not None:
            return ov
        code = self._compile_code(argtcs)
        driver.current_context()
        module = _core._cuda_module_load(code.ptx)
        try:
            fn = _core._cuda_module_function(module, code.entry)
            err_ptr, err_size = 0, 0
            if getattr(code, "debug", False):
                err_ptr, err_size = _core._cuda_module_global(module, ERROR_GLOBAL)
                _core._cuda_memset(err_ptr, 0, err_size, 0, False)
            cap = _core._cuda_spec(fn, argtcs, bool(err_ptr), bool(getattr(code, "cooperative", False)))
        except BaseException:
            _core._cuda_module_unload(module)
            raise
        ov = _Overload(code, argtcs, module, fn, cap, err_ptr, err_size)
        self.overloads[argtcs] = ov
        self._specs["".join(argtcs)] = cap
        return ov

    # ---- launching ----
    def __getitem__(self, config):
        # the common spelling first (ints are checked again in C at launch)
        if type(config) is tuple and len(config) == 2 and type(config[0]) is int \
                and type(config[1]) is int:
            return _Launcher(self, config[0], config[1], 0, 0)
        griddim, blockdim, stream, sharedmem = _check_config(config)
        return _Launcher(self, griddim, blockdim, stream, sharedmem)

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        return self[griddim, blockdim, stream, sharedmem]

    def __call__(self, *args, **kwargs):
        raise ValueError("kernel launch configuration was not specified. Use the syntax:\n\n"
                         "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)\n\n"
                         "See https://numba.readthedocs.io/en/stable/cuda/kernels.html"
                         "#kernel-invocation for help.")

    def forall(self, ntasks, tpb=0, stream=0, sharedmem=0):
        """A launcher of ntasks threads in 1-D, block size from the occupancy API."""
        if ntasks < 0:
            raise ValueError("Can't create ForAll with negative task count: %s" % ntasks)
        return _ForAll(self, ntasks, tpb, stream, sharedmem)

    def _after_fast(self, r, launcher, args):
        if r is NotImplemented:
            self._launch_slow(launcher, args)
        else:
            self._check_error(self._overload_of(r), launcher.stream)

    def _overload_of(self, cap):
        for ov in self.overloads.values():
            if ov.capsule is cap:
                return ov
        raise RuntimeError("hpcjit.cuda: unknown specialisation")

    def _select(self, argtcs, args):
        """The overload to launch for these argument typecodes."""
        ov = self.overloads.get(argtcs)
        if ov is not None:
            return ov
        if not self._locked:
            return self._compile_tcs(argtcs)
        # explicit signatures: the first one the arguments convert to
        for tcs, ov in self.overloads.items():
            if len(tcs) == len(argtcs) and all(_convertible(a, p) for a, p in zip(argtcs, tcs)):
                return ov
        names = ", ".join(str(_types.from_typecode(t)) for t in argtcs)
        raise TypingError("No matching definition for argument type(s) %s" % names)

    def _launch_slow(self, launcher, args):
        stream = launcher.stream
        converted, copies = [], []
        for a in args:
            if isinstance(a, devicearray.DeviceNDArray) or _is_scalar(a) or isinstance(a, tuple):
                converted.append(a)
                continue
            dev, copied = devicearray.auto_device(a, stream=stream)
            if copied:
                devicearray.warn_host_array(self)
                copies.append((a, dev))
            converted.append(dev)
        argtcs = tuple(_arg_typecode(a) for a in converted)
        ov = self._select(argtcs, converted)
        if not copies and all(isinstance(a, devicearray.DeviceNDArray) or _is_scalar(a)
                              for a in args):
            # the C path launches these argument types directly next time
            self._specs.setdefault("".join(argtcs), ov.capsule)
        _core._cuda_launch_spec(ov.capsule, launcher.griddim, launcher.blockdim, stream,
                                launcher.sharedmem, bool(self.targetoptions.get("cooperative")),
                                *converted)
        for host, dev in copies:
            if isinstance(host, np.ndarray) and host.flags.writeable:
                dev.copy_to_host(host, stream=stream)
        if copies and stream:
            driver._core._cuda_stream_synchronize(driver._stream_handle(stream))
        if ov.error_ptr:
            self._check_error(ov, stream)

    def _check_error(self, ov, stream):
        """After a debug kernel: raise what it recorded in __hpcjit_error."""
        if not ov.error_ptr:
            return
        _core._cuda_stream_synchronize(driver._stream_handle(stream))
        buf = np.zeros(ov.error_size, np.uint8)
        _core._cuda_copy(1, buf.ctypes.data, ov.error_ptr, ov.error_size, 0, False)
        exc = decode_error(bytes(buf), self.py_func)
        if exc is not None:
            _core._cuda_memset(ov.error_ptr, 0, ov.error_size, 0, False)
            raise exc

    # ---- inspection (Numba's names) ----
    @property
    def signatures(self):
        return [tuple(_types.from_typecode(t) for t in tcs) for tcs in self.overloads]

    @property
    def definitions(self):
        return {tuple(_types.from_typecode(t) for t in tcs): ov for tcs, ov in self.overloads.items()}

    @property
    def specializations(self):
        return self.definitions

    def _pick(self, signature, what):
        if signature is None:
            return None
        if isinstance(signature, tuple) and all(isinstance(t, str) for t in signature):
            tcs = signature
        elif isinstance(signature, tuple):
            tcs = tuple(t.typecode for t in signature)
        else:
            tcs = _typecodes_of_signature(signature)
        ov = self.overloads.get(tuple(tcs))
        if ov is None:
            raise KeyError("no %s for signature %r (compiled: %s)" % (what, signature,
                                                                      self.signatures))
        return ov

    def inspect_ptx(self, signature=None):
        ov = self._pick(signature, "PTX")
        if ov is not None:
            return ov.code.ptx
        return {sig: ov.code.ptx for sig, ov in self.definitions.items()}

    def inspect_asm(self, signature=None):
        return self.inspect_ptx(signature)

    def inspect_llvm(self, signature=None):
        ov = self._pick(signature, "LLVM IR")
        if ov is not None:
            return ov.code.llvm_ir
        return {sig: ov.code.llvm_ir for sig, ov in self.definitions.items()}

    def inspect_types(self, file=None):
        import sys
        out = file or sys.stdout
        for sig, ov in self.definitions.items():
            print("%s %s" % (self.__qualname__, getattr(ov.code, "signature", sig)), file=out)

    def _func_attr(self, signature, attr):
        ov = self._pick(signature, "function") if signature is not None else \
            next(iter(self.overloads.values()), None)
        if ov is None:
            raise ValueError("the kernel is not compiled yet")
        return _core._cuda_func_attribute(ov.function, attr)

    def get_regs_per_thread(self, signature=None):
        return self._func_attr(signature, driver.FUNC_NUM_REGS)

    def get_shared_mem_per_block(self, signature=None):
        return self._func_attr(signature, driver.FUNC_SHARED_SIZE_BYTES)

    def get_local_mem_per_thread(self, signature=None):
        return self._func_attr(signature, driver.FUNC_LOCAL_SIZE_BYTES)

    def get_const_mem_size(self, signature=None):
        return self._func_attr(signature, driver.FUNC_CONST_SIZE_BYTES)

    def get_max_threads_per_block(self, signature=None):
        return self._func_attr(signature, driver.FUNC_MAX_THREADS_PER_BLOCK)

    def max_cooperative_grid_blocks(self, blockdim, dynsmemsize=0, signature=None):
        """The most blocks of `blockdim` threads a cooperative launch of the
        kernel (one that syncs its grid) can have on the current device:
        blocks resident per multiprocessor times the multiprocessors."""
        ov = self._pick(signature, "function") if signature is not None else \
            next(iter(self.overloads.values()), None)
        if ov is None:
            raise ValueError("the kernel is not compiled yet (call it, or give signatures to cuda.jit)")
        nthreads = 1
        for d in (blockdim if isinstance(blockdim, tuple) else (blockdim,)):
            nthreads *= int(d)
        per_sm = _core._cuda_occupancy_active_blocks(ov.function, nthreads, int(dynsmemsize))
        return per_sm * driver.get_device().MULTIPROCESSOR_COUNT

    def __repr__(self):
        return "<hpcjit.cuda kernel %s>" % self.__qualname__


class _ForAll:
    def __init__(self, kernel, ntasks, tpb, stream, sharedmem):
        self.kernel = kernel
        self.ntasks = ntasks
        self.tpb = tpb
        self.stream = stream
        self.sharedmem = sharedmem

    def __call__(self, *args):
        if self.ntasks == 0:
            return
        tpb = self.tpb
        if not tpb:
            converted = []
            for a in args:
                if isinstance(a, devicearray.DeviceNDArray) or _is_scalar(a):
                    converted.append(a)
                else:
                    converted.append(devicearray.auto_device(a, copy=False)[0])
            ov = self.kernel._select(tuple(_arg_typecode(a) for a in converted), converted)
            _, tpb = _core._cuda_occupancy_block_size(ov.function, self.sharedmem, 1024)
            tpb = max(1, tpb)
        blocks = (self.ntasks + tpb - 1) // tpb
        self.kernel[blocks, tpb, self.stream, self.sharedmem](*args)


def _is_scalar(a):
    return isinstance(a, (bool, int, float, complex, np.generic))


_INT_ORDER = "?bBhHiIlL"


def _convertible(arg, param):
    """Can an argument of typecode `arg` be passed to a parameter `param`
    (explicit signatures, as Numba's implicit conversions)?"""
    if arg == param:
        return True
    if arg[0] in "ar" and param[0] in "ar":
        return (arg[1:3] == param[1:3] and (param[3] == "A" or arg[3] == param[3])
                and not (arg[0] == "r" and param[0] == "a"))
    if len(arg) == 1 and len(param) == 1:
        if arg in _INT_ORDER and param in _INT_ORDER + "efdFD":
            return True
        if arg in "efd" and param in "efdFD":
            return True
        if arg in "FD" and param in "FD":
            return True
    return False


# ---- debug-mode errors (docs/CUDA.md, "The __hpcjit_error word") ------------------------

ERROR_GLOBAL = "__hpcjit_error"

# The record (compiler/lower/lower_device.c, docs/CUDA.md), little-endian:
#   u32 status (0: none), u32 kind, i32 line, i32 col, u32 thread[3],
#   u32 block[3], i64 index, i64 dim        (56 bytes)
# kind indexes this list (ORDER: lower_device.c's exc_kinds)
ERROR_KINDS = ("", "Exception", "IndexError", "ZeroDivisionError", "AssertionError", "ValueError",
               "TypeError", "RuntimeError", "KeyError", "OverflowError", "ArithmeticError",
               "NotImplementedError", "LookupError")


def decode_error(raw, py_func):
    """The exception a debug kernel recorded in its error record, or None."""
    import builtins
    if len(raw) < 16:
        return None
    status, kind, line, col = struct.unpack_from("<IIii", raw, 0)
    if status == 0:
        return None
    name = ERROR_KINDS[kind] if 0 < kind < len(ERROR_KINDS) else "Exception"
    cls = getattr(builtins, name, Exception)
    who = ""
    if len(raw) >= 40:
        tid = struct.unpack_from("<3I", raw, 16)
        ctaid = struct.unpack_from("<3I", raw, 28)
        who = "tid=%s ctaid=%s: " % (list(tid), list(ctaid))
    if cls is IndexError:
        msg = "index is out of bounds"
        if len(raw) >= 56:
            index, dim = struct.unpack_from("<qq", raw, 40)
            if dim:
                msg = "index %d is out of bounds for axis with size %d" % (index, dim)
    elif cls is ZeroDivisionError:
        msg = "division by zero"
    else:
        msg = "%s raised in CUDA kernel" % name
    return cls(who + msg + _source_line(py_func, line, col))


def _source_line(py_func, line, col):
    import inspect
    if not line:
        return ""
    try:
        fname = inspect.getsourcefile(py_func) or "<kernel>"
        lines, _ = inspect.findsource(py_func)
        text = lines[line - 1].rstrip("\n") if 0 < line <= len(lines) else ""
    except (OSError, TypeError):
        fname, text = "<kernel>", ""
    caret = (" " * max(col - 1, 0) + "^") if text else ""
    return "\n%s:%d:%d:\n%s\n%s" % (fname, line, col, text, caret) if text else \
        " (%s:%d:%d)" % (fname, line, col)
