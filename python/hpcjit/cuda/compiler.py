"""The compiler half of hpcjit.cuda: Python functions -> PTX text.

compile_kernel() is what the kernel dispatcher calls (per argument
typecodes); compile_ptx() is numba.cuda.compile_ptx; DeviceFunction is what
cuda.jit(device=True) returns.  Everything here works without a GPU: the
compiler needs LLVM (NVPTX) and, for math functions, libdevice.10.bc
(HPCJIT_LIBDEVICE, CUDA_HOME, CUDA_PATH or /usr/local/cuda).  See
docs/CUDA.md for the kernel parameter ABI and the __hpcjit_error layout."""
import os

from .. import errors
from .. import types as _types

# __hpcjit_error.kind -> exception class name (compiler/lower/lower_device.c; ORDER)
ERROR_KINDS = ("", "Exception", "IndexError", "ZeroDivisionError", "AssertionError", "ValueError",
               "TypeError", "RuntimeError", "KeyError", "OverflowError", "ArithmeticError",
               "NotImplementedError", "LookupError")
# byte offsets of its fields, and its size
ERROR_LAYOUT = {"status": 0, "kind": 4, "line": 8, "col": 12, "thread": 16, "block": 28, "index": 40,
                "dim": 48}
ERROR_SIZE = 56

# compile_ptx(cc=None): Numba-CUDA's default PTX target
DEFAULT_PTX_CC = (7, 5)

_OPTIONS = ("fastmath",)


# the grid barrier's word, defined by kernels that sync their grid
GRID_BARRIER = "__hpcjit_grid_barrier"


class KernelCode:
    """PTX for one specialisation of a kernel or device function."""
    __slots__ = ("ptx", "entry", "llvm_ir", "signature", "argtypes", "rettype", "debug", "cc")

    def __init__(self, ptx, entry, llvm_ir, signature, argtypes, rettype, debug, cc):
        self.ptx = ptx
        self.entry = entry  # the .entry symbol (or the device function's)
        self.llvm_ir = llvm_ir
        self.signature = signature
        self.argtypes = argtypes  # the typecodes
        self.rettype = rettype  # typecode of the return type ("n" for kernels)
        self.debug = debug  # the PTX defines __hpcjit_error
        self.cc = cc

    @property
    def cooperative(self):
        """The kernel syncs its grid (cuda.cg.this_grid().sync()): it must be
        launched cooperatively (compiler/lib/cuda/lower_cuda.c)."""
        return GRID_BARRIER in self.ptx

    def __repr__(self):
        return f"<KernelCode {self.entry} {self.signature} sm_{self.cc[0]}{self.cc[1]}>"


class _Func:
    """The dispatcher-like view of a plain function that hpcjit.compiler's
    gatherer takes (py_func, targetoptions, a __dict__ for its caches)."""

    def __init__(self, py_func, targetoptions):
        self.py_func = py_func
        self.targetoptions = targetoptions


class DeviceFunction:
    """What cuda.jit(device=True) returns: callable from kernels (compiled
    with them into one module) and from Python (runs py_func)."""

    def __init__(self, py_func, **targetoptions):
        self.py_func = py_func
        self.targetoptions = {k: v for k, v in targetoptions.items() if k in _OPTIONS}
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    def __call__(self, *args, **kwargs):
        return self.py_func(*args, **kwargs)

    def compile_ptx(self, sig, **kwargs):
        return compile_ptx(self.py_func, sig, device=True, **kwargs)

    def __repr__(self):
        return f"<hpcjit.cuda device function {self.__qualname__}>"


def _libdevice():
    return os.environ.get("HPCJIT_LIBDEVICE") or None


def cuda_archs(value=None):
    """The compute capabilities of HPCJIT_CUDA_ARCHS (else NUMBA_CUDA_ARCHS),
    sorted: "80,90", "sm_80 sm_90", "8.0;9.0" and "compute_86" all work.
    None when unset or empty; ValueError naming the bad item."""
    if value is None:
        value = os.environ.get("HPCJIT_CUDA_ARCHS") or os.environ.get("NUMBA_CUDA_ARCHS") or ""
    out = set()
    for item in value.replace(";", ",").replace(" ", ",").split(","):
        item = item.strip().lower()
        if not item:
            continue
        digits = item.split("_", 1)[1] if "_" in item else item
        try:
            if "." in digits:
                major, minor = (int(x) for x in digits.split("."))
            else:
                major, minor = divmod(int(digits.rstrip("a")), 10)
        except ValueError:
            raise ValueError(f"HPCJIT_CUDA_ARCHS: {item!r} is not a compute capability "
                             f"(write 80, sm_80 or 8.0)") from None
        if major < 5:
            raise ValueError(f"HPCJIT_CUDA_ARCHS: compute capability {major}.{minor} is not supported "
                             f"(hpcjit.cuda needs 5.0 or newer)")
        out.add((major, minor))
    return sorted(out) or None


def pick_arch(device_cc, archs):
    """The target for a device of compute capability device_cc (None: no
    device) given the HPCJIT_CUDA_ARCHS list: the newest listed one the
    device runs (PTX for an older architecture is compiled up by the
    driver), the newest listed without a device, the device's own without
    a list.  An error names the list when none fits."""
    if not archs:
        return device_cc or (9, 0)
    if device_cc is None:
        return archs[-1]
    fit = [a for a in archs if a <= tuple(device_cc)]
    if not fit:
        from .cudadrv.error import CudaSupportError
        names = ", ".join(f"sm_{a}{b}" for a, b in archs)
        raise CudaSupportError(f"HPCJIT_CUDA_ARCHS lists {names}: none runs on this device "
                               f"(sm_{device_cc[0]}{device_cc[1]})")
    return fit[-1]


def _cc(cc):
    try:
        major, minor = (int(x) for x in cc)
    except (TypeError, ValueError):
        raise TypeError(f"cc must be a (major, minor) pair, not {cc!r}") from None
    return major, minor


def compile_kernel(pyfunc, argtypecodes, *, device=False, cc=(9, 0), fastmath=False, lineinfo=False,
                   debug=False, max_registers=None, opt=True, max_threads=None, min_blocks=None,
                   rettype=None):
    """Compile pyfunc (a function, a DeviceFunction or anything with
    py_func) for the argument typecodes to PTX; returns a KernelCode.
    Raises hpcjit.errors.TypingError / UnsupportedError at file:line:col."""
    from .. import compiler as _hc
    from .. import _compiler, extending
    py_func = getattr(pyfunc, "py_func", pyfunc)
    opts = dict(getattr(pyfunc, "targetoptions", {}) or {})
    if fastmath:
        opts["fastmath"] = True
    disp = pyfunc if isinstance(pyfunc, (DeviceFunction, _Func)) else _Func(py_func, opts)
    if isinstance(disp, DeviceFunction) and fastmath:
        disp = _Func(py_func, opts)
    argtypecodes = list(argtypecodes)
    cc = _cc(cc)
    for _ in range(_hc._MAX_RESOLUTIONS):
        g = _hc._Gather()
        entry = g.add_entry(disp, argtypecodes)
        try:
            res = _compiler.compile_cuda(
                g.funcs, entry, argtypecodes, rettype, device=bool(device), cc=cc, fastmath=bool(fastmath),
                debug=bool(debug), lineinfo=bool(lineinfo), max_registers=int(max_registers or 0),
                max_threads=int(max_threads or 0), min_blocks=int(min_blocks or 0), opt=bool(opt),
                libdevice=_libdevice(), want_ir=True)
            break
        except errors.HpcjitError as e:
            need = getattr(e, "need_overload", None)
            if need is None:
                if g.decompiled:
                    _hc._note_decompiled(e, g.decompiled)
                raise
            idx, key = need.split("\t", 1)
            ov = g.stubs.get(int(idx))
            if ov is None or key in ov.impls:
                raise
            extending.resolve_need(ov, key)
    else:
        raise errors.TypingError(f"{py_func.__qualname__}: too many overload resolutions")
    return KernelCode(res["ptx"], res["entry_symbol"], res["llvm_ir"], res["signature"], tuple(argtypecodes),
                      res["rettype"], bool(res["debug"]), cc)


def _sig_typecodes(sig):
    """(return typecode or None, [argument typecodes]) of a signature: a
    string ("void(float32[:], int32)"), a tuple of types, or a Signature."""
    from .. import _compiler
    if isinstance(sig, str):
        ret, args = _compiler.parse_signature(sig)
        return ret, list(args)
    if isinstance(sig, (tuple, list)):
        return None, [_typecode(t) for t in sig]
    args = getattr(sig, "args", None)
    if args is not None:
        rt = getattr(sig, "return_type", None)
        return (_typecode(rt) if rt is not None else None), [_typecode(t) for t in args]
    raise TypeError(f"compile_ptx(): bad signature {sig!r}")


def _typecode(t):
    code = getattr(t, "typecode", None)
    if code is None:
        raise TypeError(f"compile_ptx(): {t!r} is not a type hpcjit.cuda can compile for")
    return code


def compile_ptx(pyfunc, sig, device=False, fastmath=False, cc=None, opt=True, lineinfo=False,
                debug=False, max_registers=None):
    """numba.cuda.compile_ptx: (PTX text, return type).  No GPU needed.
    Without cc: the newest of HPCJIT_CUDA_ARCHS, else DEFAULT_PTX_CC."""
    ret, args = _sig_typecodes(sig)
    if not device and ret is not None and ret not in ("n", "v"):
        rt = _types.from_typecode(ret)
        if rt is not None and getattr(rt, "name", "") not in ("none", "void"):
            raise errors.TypingError(f"a CUDA kernel must return None (void), not {rt}")
    if cc is None:
        archs = cuda_archs()
        cc = archs[-1] if archs else DEFAULT_PTX_CC
    code = compile_kernel(pyfunc, args, device=device, cc=cc, fastmath=fastmath,
                          lineinfo=lineinfo, debug=debug, max_registers=max_registers, opt=opt,
                          rettype=ret if device else None)
    return code.ptx, _types.from_typecode(code.rettype)
