"""The objects CUDA kernels name (`cuda.threadIdx.x`, `cuda.shared.array`,
`cuda.atomic.add`, ...).  The compiler recognises each by its qualified name
(`_hpcjit_qualname_`, compiler/lib/cuda/cuda.def), as the CPU path
recognises NumPy's functions; called from Python outside a kernel they raise
(the simulator, HPCJIT_CUDA_SIM=1, gives them their meaning there)."""

__all__ = ["threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize", "grid", "gridsize",
           "shared", "local", "const", "atomic", "syncthreads", "syncthreads_count", "syncthreads_and",
           "syncthreads_or", "threadfence", "threadfence_block", "threadfence_system", "syncwarp",
           "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync",
           "eq_sync", "ballot_sync", "activemask", "lanemask_lt", "popc", "brev", "clz", "ffs", "fma",
           "cbrt", "cg", "fp16"]


class DeviceObject:
    """Base of every device_api object: its qualified name for the compiler."""
    __slots__ = ("_hpcjit_qualname_",)

    def __init__(self, qualname):
        self._hpcjit_qualname_ = qualname

    def __repr__(self):
        return f"<hpcjit.cuda device object {self._hpcjit_qualname_[len('hpcjit.'):]}>"


class Namespace(DeviceObject):
    """threadIdx, blockIdx, shared, atomic...: attributes are other device objects."""
    __slots__ = ("_members",)

    def __init__(self, qualname, members):
        super().__init__(qualname)
        self._members = {}
        for name in members:
            q = f"{qualname}.{name}"
            self._members[name] = Register(q) if name in ("x", "y", "z") else Intrinsic(q)

    def __getattr__(self, name):
        members = object.__getattribute__(self, "_members")
        if name in members:
            return members[name]
        raise AttributeError(f"{self._hpcjit_qualname_} has no attribute {name!r}")


def _outside(qualname):
    return RuntimeError(f"{qualname[len('hpcjit.'):]} can only be used inside a CUDA kernel or device "
                        f"function (or under the simulator, HPCJIT_CUDA_SIM=1)")


class Register(DeviceObject):
    """A special register read as a value in kernels (threadIdx.x, warpsize)."""
    __slots__ = ()


class Intrinsic(DeviceObject):
    """A function of kernels (syncthreads, atomic.add...)."""
    __slots__ = ()

    def __call__(self, *args, **kwargs):
        raise _outside(self._hpcjit_qualname_)


def _ns(name, members):
    return Namespace("hpcjit.cuda." + name, members)


threadIdx = _ns("threadIdx", "xyz")
blockIdx = _ns("blockIdx", "xyz")
blockDim = _ns("blockDim", "xyz")
gridDim = _ns("gridDim", "xyz")
laneid = Register("hpcjit.cuda.laneid")
warpsize = Register("hpcjit.cuda.warpsize")
shared = _ns("shared", ["array"])
local = _ns("local", ["array"])
const = _ns("const", ["array_like"])
atomic = _ns("atomic", ["add", "sub", "and_", "or_", "xor", "exch", "inc", "dec", "max", "min",
                        "nanmax", "nanmin", "cas", "compare_and_swap"])
# cooperative groups: `g = cuda.cg.this_grid(); g.sync()` (a kernel that
# syncs its grid is launched cooperatively: all blocks resident at once)
cg = _ns("cg", ["this_grid"])
# cuda.fp16: float16 intrinsics (numba.cuda.fp16)
FP16_NAMES = ["hadd", "hsub", "hmul", "hdiv", "hmax", "hmin", "hfma", "hneg", "habs", "hsin", "hcos",
              "hlog", "hlog10", "hlog2", "hexp", "hexp10", "hexp2", "hfloor", "hceil", "hsqrt", "hrsqrt",
              "hrcp", "hrint", "htrunc", "heq", "hne", "hgt", "hge", "hlt", "hle"]
fp16 = _ns("fp16", FP16_NAMES)

_FUNCS = ["grid", "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or",
          "threadfence", "threadfence_block", "threadfence_system", "syncwarp", "shfl_sync",
          "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "eq_sync",
          "ballot_sync", "activemask", "lanemask_lt", "popc", "brev", "clz", "ffs", "fma", "cbrt"]
for _name in _FUNCS:
    globals()[_name] = Intrinsic("hpcjit.cuda." + _name)
del _name
