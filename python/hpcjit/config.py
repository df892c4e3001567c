"""Configuration from the environment: HPCJIT_* names, NUMBA_* as fallbacks.

Read once at import, as Numba does; the compiler itself reads HPCJIT_OPT and
the CPU overrides again when it builds the target machine."""
import os


def _env(name, default=None):
    v = os.environ.get("HPCJIT_" + name)
    if v is None:
        v = os.environ.get("NUMBA_" + name)
    return default if v is None or v == "" else v


def _env_bool(name, default=False):
    v = _env(name)
    if v is None:
        return default
    return v.strip().lower() not in ("0", "false", "no", "off")


def _env_int(name, default):
    v = _env(name)
    try:
        return default if v is None else int(v)
    except ValueError:
        return default


OPT = _env_int("OPT", 3)
# None: not set, functions decide (default off)
BOUNDSCHECK = None if _env("BOUNDSCHECK") is None else _env_bool("BOUNDSCHECK")
DEBUG_COMPILE = _env_bool("DEBUG_COMPILE")
CPU_NAME = _env("CPU_NAME")
CPU_FEATURES = _env("CPU_FEATURES")
DISABLE_JIT = _env_bool("DISABLE_JIT")
# parallel=True reductions bitwise identical for every thread count
DETERMINISTIC = _env_bool("DETERMINISTIC")
