"""hpcjit.cuda: CUDA kernels written in Python (numba.cuda's API).

    from hpcjit import cuda

    @cuda.jit
    def axpy(r, a, x, y):
        i = cuda.grid(1)
        if i < r.size:
            r[i] = a * x[i] + y[i]

    axpy[blocks, threads](d_r, 2.0, d_x, d_y)

Kernels compile to PTX (hpcjit.cuda.compiler) and launch through the CUDA
Driver API; libcuda.so.1 is loaded at the first use of a GPU, never at
import, so CPU-only programs need no driver.  With HPCJIT_CUDA_SIM=1 (or
NUMBA_ENABLE_CUDASIM=1) set before the import, this module is a simulator
that runs kernels on the CPU (hpcjit.cuda.simulator).  docs/CUDA.md has
the design.
"""
import os as _os

from .cudadrv.error import CudaDriverError, CudaSupportError  # noqa: F401


def _optional(modname):
    """Import a sibling module that another part of the tree provides; None
    when it is absent from this build."""
    import importlib
    try:
        return importlib.import_module(__name__ + "." + modname)
    except ModuleNotFoundError as exc:
        if exc.name != __name__ + "." + modname:
            raise
        return None


if _optional("device_api") is not None:
    from .device_api import *  # noqa: F401,F403
if _optional("compiler") is not None:
    from .compiler import compile_ptx, compile_kernel, DeviceFunction  # noqa: F401


def _sim_requested():
    for var in ("HPCJIT_CUDA_SIM", "NUMBA_ENABLE_CUDASIM"):
        v = _os.environ.get(var, "")
        if v and v != "0":
            return True
    return False


SIMULATOR = _sim_requested()

if SIMULATOR:
    from .simulator import *  # noqa: F401,F403
    from .simulator import jit, declare_device  # noqa: F401
    from .cudadrv.driver import CudaAPIError  # noqa: F401  (simulated IPC raises it)
else:
    from .api import *  # noqa: F401,F403
    from .cudadrv.driver import CudaAPIError  # noqa: F401
    from .dispatcher import Kernel

    def jit(func_or_sig=None, device=False, inline=False, link=None, debug=None, opt=True,
            lineinfo=False, cache=False, **kws):
        """@cuda.jit: a kernel, lazily specialised per argument types, or
        compiled for the given signature(s) (a string such as
        "void(float32[:], int32)", a list of them, or hpcjit type calls);
        device=True makes a device function callable from kernels."""
        options = dict(kws)
        if debug:
            options["debug"] = True
        if not opt:
            options["opt"] = False
        if lineinfo:
            options["lineinfo"] = True
        if link:
            from ..errors import UnsupportedError
            raise UnsupportedError("cuda.jit(link=...): linking external code is not supported "
                                   "by hpcjit yet")

        def make(f, sigs):
            if device:
                df = _optional("compiler")
                if df is None:
                    from ..errors import UnsupportedError
                    raise UnsupportedError("hpcjit.cuda: the CUDA compiler is not part of this build")
                return df.DeviceFunction(f, **options)
            return Kernel(f, sigs, **options)

        if func_or_sig is None:
            return lambda f: make(f, None)
        if isinstance(func_or_sig, (str, list, tuple)) or not callable(func_or_sig) or \
                type(func_or_sig).__name__ == "Signature":
            sigs = func_or_sig if isinstance(func_or_sig, list) else [func_or_sig]
            return lambda f: make(f, None if device else sigs)
        return make(func_or_sig, None)

    def declare_device(name, sig, link=None):
        from ..errors import UnsupportedError
        raise UnsupportedError("cuda.declare_device: external device functions are not supported "
                               "by hpcjit yet")


def is_supported_version():
    return True
