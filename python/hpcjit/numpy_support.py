"""numba.np.numpy_support's conversions between NumPy dtypes and types."""
import numpy as np

from . import errors, types

__all__ = ["from_dtype", "as_dtype", "numpy_version", "carray", "farray"]

# (major, minor) of the NumPy in use, as numba.np.numpy_support.numpy_version
numpy_version = tuple(int(x) for x in np.__version__.split(".")[:2])


def from_dtype(dtype):
    """The type of a NumPy dtype (or scalar class): from_dtype(np.float32)
    is types.float32.  NumbaNotImplementedError for a dtype without one."""
    if isinstance(dtype, type) and issubclass(dtype, np.generic):
        dtype = np.dtype(dtype)
    elif not isinstance(dtype, np.dtype):
        try:
            dtype = np.dtype(dtype)
        except TypeError:
            raise errors.NumbaNotImplementedError(f"{dtype!r} is not a NumPy dtype") from None
    if dtype.kind == "M":
        return types.NPDatetime(np.datetime_data(dtype)[0] if dtype.name != "datetime64" else "")
    if dtype.kind == "m":
        return types.NPTimedelta(np.datetime_data(dtype)[0] if dtype.name != "timedelta64" else "")
    if dtype == np.float16:
        return types.float16
    t = types._dtype_type(dtype)
    if t is None:
        raise errors.NumbaNotImplementedError(f"dtype {dtype} has no hpcjit type")
    return t


def as_dtype(nbtype):
    """The NumPy dtype of a scalar type: as_dtype(types.int32) is
    np.dtype('int32')."""
    if isinstance(nbtype, types.DType):
        nbtype = nbtype.dtype
    if isinstance(nbtype, types.Record):
        return nbtype.dtype
    if isinstance(nbtype, (types.NPDatetime, types.NPTimedelta)):
        kind = "M8" if isinstance(nbtype, types.NPDatetime) else "m8"
        return np.dtype(f"{kind}[{nbtype.unit}]" if nbtype.unit else kind)
    if isinstance(nbtype, types.Boolean):
        return np.dtype(np.bool_)
    if isinstance(nbtype, types.Number):
        return np.dtype(nbtype.name)
    raise errors.NumbaNotImplementedError(f"{nbtype!r} cannot be represented as a NumPy dtype")


def _ptr_array(ptr, shape, dtype, order, fname):
    import ctypes
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(d) for d in shape)
    ptr_dt = None
    if isinstance(ptr, ctypes._Pointer):
        ptr_dt = np.dtype(ptr._type_)
        addr = ctypes.cast(ptr, ctypes.c_void_p).value
    elif isinstance(ptr, ctypes.c_void_p):
        addr = ptr.value
    elif isinstance(ptr, (int, np.integer)):
        addr = int(ptr)
    else:
        raise TypeError(f"{fname}() needs a ctypes pointer or an address, not {type(ptr).__name__}")
    if dtype is not None:
        dt = np.dtype(dtype)
        if ptr_dt is not None and dt != ptr_dt:
            raise TypeError(f"{fname}(): the dtype {dt} does not match the pointer's {ptr_dt}")
    elif ptr_dt is None:
        raise TypeError(f"{fname}() of a void pointer needs a dtype")
    else:
        dt = ptr_dt
    n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    buf = (ctypes.c_char * max(n, 1)).from_address(addr)
    return np.frombuffer(buf, dtype=dt, count=n // dt.itemsize).reshape(shape, order=order)


def carray(ptr, shape, dtype=None):
    """Numba's carray: an array (C order) over the memory a pointer points
    to.  In compiled code the pointer is a cfunc's CPointer/voidptr
    argument; from Python a ctypes pointer or an integer address."""
    return _ptr_array(ptr, shape, dtype, "C", "carray")


def farray(ptr, shape, dtype=None):
    """carray in Fortran order."""
    return _ptr_array(ptr, shape, dtype, "F", "farray")
