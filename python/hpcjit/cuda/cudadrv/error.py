"""Errors of the CUDA driver layer, at Numba's paths
(numba.cuda.cudadrv.error)."""


class CudaDriverError(Exception):
    pass


class CudaRuntimeError(Exception):
    pass


class CudaSupportError(ImportError):
    """No CUDA driver, or no device: the message says which."""


class NvvmError(Exception):
    def __str__(self):
        return "\n".join(map(str, self.args))


class NvvmSupportError(ImportError):
    pass
