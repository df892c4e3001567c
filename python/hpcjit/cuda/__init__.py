from .device_api import *  # noqa: F401,F403
from .compiler import compile_ptx, compile_kernel, DeviceFunction  # noqa: F401
