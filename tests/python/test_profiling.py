"""HPCJIT_ENABLE_PROFILING=1 (NUMBA_ENABLE_PROFILING as in Numba): each
loaded object's functions are appended to /tmp/perf-PID.map, so `perf
report` names compiled code.  The map is checked against the addresses the
process itself knows (a cfunc's address lies inside its mapped function),
and the compiled functions still agree with CPython."""
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.numba_skip("hpcjit's perf map (Numba's uses LLVM's perf listener)")

CHILD = textwrap.dedent("""
    import os
    import numpy as np
    import hpcjit

    @hpcjit.njit(cache=bool(os.environ.get("HPCJIT_CACHE_DIR")))
    def scaled_sum(a, k):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * k
        return s

    @hpcjit.cfunc("float64(float64)")
    def halve(x):
        return x / 2

    a = np.arange(10.0)
    assert scaled_sum(a, 3.0) == scaled_sum.py_func(a, 3.0)
    assert halve.ctypes(5.0) == halve.py_func(5.0)
    import hpcjit.cache
    print(os.getpid(), halve.address, hpcjit.cache.stats["hits"])
""")


def run_child(env_extra):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_ENABLE_PROFILING")}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    pid, addr, hits = (int(v) for v in out.stdout.split())
    path = f"/tmp/perf-{pid}.map"
    try:
        with open(path) as fh:
            rows = [line.split() for line in fh]
    except FileNotFoundError:
        rows = None
    finally:
        if os.path.exists(path):
            os.unlink(path)
    return rows, addr, hits


@pytest.mark.parametrize("var", ["HPCJIT_ENABLE_PROFILING", "NUMBA_ENABLE_PROFILING"])
def test_perf_map_names_compiled_code(var):
    rows, addr, _ = run_child({var: "1"})
    assert rows, "no perf map written"
    spans = [(int(start, 16), int(size, 16), name) for start, size, name in rows]
    assert any("scaled_sum" in name for _, _, name in spans), spans
    inside = [name for start, size, name in spans if start <= addr < start + size]
    assert inside and "halve" in inside[0], (hex(addr), spans)
    assert all(size > 0 for _, size, _ in spans)


def test_no_map_by_default():
    rows, _, _ = run_child({})
    assert rows is None
    rows, _, _ = run_child({"HPCJIT_ENABLE_PROFILING": "0", "NUMBA_ENABLE_PROFILING": "1"})
    assert rows is None


def test_perf_map_of_cached_code(tmp_path):
    """A function loaded from the disk cache (the runtime's own ELF loader)
    is named too."""
    cache = {"HPCJIT_CACHE_DIR": str(tmp_path), "HPCJIT_ENABLE_PROFILING": "1"}
    run_child(cache)  # compiles and writes the cache
    rows, _, hits = run_child(cache)
    assert hits >= 1
    assert rows and any("scaled_sum" in name for _, _, name in rows), rows
