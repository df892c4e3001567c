"""numba.np.numpy_support's conversions between NumPy dtypes and types."""
import numpy as np

from . import errors, types

__all__ = ["from_dtype", "as_dtype", "numpy_version"]

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
    if isinstance(nbtype, (types.NPDatetime, types.NPTimedelta)):
        kind = "M8" if isinstance(nbtype, types.NPDatetime) else "m8"
        return np.dtype(f"{kind}[{nbtype.unit}]" if nbtype.unit else kind)
    if isinstance(nbtype, types.Boolean):
        return np.dtype(np.bool_)
    if isinstance(nbtype, types.Number):
        return np.dtype(nbtype.name)
    raise errors.NumbaNotImplementedError(f"{nbtype!r} cannot be represented as a NumPy dtype")
