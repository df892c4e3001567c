"""Configuration from the environment: HPCJIT_* names, NUMBA_* as fallbacks.

Read once at import, as Numba does (reload_config() reads again); the
compiler itself reads HPCJIT_OPT and the CPU overrides again when it builds
the target machine.  Under the drop-in (hpcjit.numba) this module is
numba.core.config: it has the attributes of Numba's that programs read,
with Numba's defaults where hpcjit has no such setting (DUMP_*, CUDA...).
"""
import os
import sys


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


def _default_num_threads():
    """The CPUs this process may run on (the pool's default size, as
    topology/plan.c counts it when no variable is set)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _num_threads(default):
    """HPCJIT_NUM_THREADS, NUMBA_NUM_THREADS, OMP_NUM_THREADS (its first
    level), in topology/plan.c's order; the default otherwise."""
    for var in ("HPCJIT_NUM_THREADS", "NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        v = os.environ.get(var, "").split(",")[0].strip()
        if v.isdigit() and int(v) > 0:
            return int(v)
    return default


# Numba's settings that hpcjit accepts and does not act on, with Numba's
# defaults (programs read them; the value follows NUMBA_<name>/HPCJIT_<name>)
_INERT_INT = ("DEBUG", "DEBUGINFO_DEFAULT", "DEVELOPER_MODE", "FULL_TRACEBACKS", "SHOW_HELP",
              "DISABLE_PERFORMANCE_WARNINGS", "DUMP_BYTECODE", "DUMP_CFG", "DUMP_IR",
              "DUMP_SSA", "DUMP_LLVM", "DUMP_FUNC_OPT", "DUMP_OPTIMIZED", "DUMP_ASSEMBLY",
              "DEBUG_ARRAY_OPT", "DEBUG_CACHE", "DEBUG_TYPEINFER", "PARALLEL_DIAGNOSTICS",
              "TRACE", "NRT_STATS", "EXTEND_VARIABLE_LIFETIMES",
              "ENABLE_CUDASIM", "CUDA_DEBUGINFO_DEFAULT", "ALWAYS_WARN_UNINIT_VAR",
              "DISABLE_TYPEINFER_FAIL_CACHE", "ENABLE_SYS_MONITORING")


def reload_config():
    """Read the environment again (Numba's name)."""
    g = globals()
    g["OPT"] = _env_int("OPT", 3)
    # None: not set, functions decide (default off)
    g["BOUNDSCHECK"] = None if _env("BOUNDSCHECK") is None else _env_bool("BOUNDSCHECK")
    g["DEBUG_COMPILE"] = _env_bool("DEBUG_COMPILE")
    g["CPU_NAME"] = _env("CPU_NAME")
    g["CPU_FEATURES"] = _env("CPU_FEATURES")
    g["DISABLE_JIT"] = _env_bool("DISABLE_JIT")
    # read by the loaders themselves (compiler/backend/jit.c, runtime/objload.c)
    g["ENABLE_PROFILING"] = int(_env_bool("ENABLE_PROFILING"))
    # parallel=True reductions bitwise identical for every thread count
    g["DETERMINISTIC"] = _env_bool("DETERMINISTIC")

    # Numba's names for the thread pool: the default is the affinity mask;
    # NUMBA_NUM_THREADS is what the pool starts with (set_num_threads() can
    # lower it per thread, as in Numba)
    g["NUMBA_DEFAULT_NUM_THREADS"] = _default_num_threads()
    g["NUMBA_NUM_THREADS"] = _num_threads(g["NUMBA_DEFAULT_NUM_THREADS"])
    # hpcjit has one threading layer, its pinned pool; the setting is read
    # and ignored (hpcjit.threading_layer() names the pool)
    g["THREADING_LAYER"] = _env("THREADING_LAYER", "default")
    g["THREADING_LAYER_PRIORITY"] = ["tbb", "omp", "workqueue"]
    g["CACHE_DIR"] = _env("CACHE_DIR", "")
    g["COLOR_SCHEME"] = _env("COLOR_SCHEME", "no_color")
    g["DISABLE_CUDA"] = 1  # no CUDA target yet
    for name in _INERT_INT:
        g[name] = _env_int(name, 0)
    g["ENABLE_AVX"] = _env_bool("ENABLE_AVX", True)
    g["DISABLE_INTEL_SVML"] = _env_bool("DISABLE_INTEL_SVML", False)
    g["USING_SVML"] = False
    g["LOOP_VECTORIZE"] = _env_int("LOOP_VECTORIZE", 1)
    g["SLP_VECTORIZE"] = _env_int("SLP_VECTORIZE", 1)


MACHINE_BITS = 64 if sys.maxsize > 2 ** 32 else 32
IS_32BITS = MACHINE_BITS == 32
IS_WIN32 = sys.platform.startswith("win32")
IS_OSX = sys.platform.startswith("darwin")
PYVERSION = sys.version_info[:2]

reload_config()
