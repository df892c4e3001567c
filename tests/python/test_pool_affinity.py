"""The thread pool leaves the rest of the process alone: importing the
compiler and running jitted code start no thread, a parallel loop starts
the pool's workers only, and neither changes the CPUs the process, the
calling thread or threads made before (NumPy's BLAS threads) may run on
(the pool pins only its own workers, and HPCJIT_PROC_BIND=false none).
Each case runs in a fresh interpreter: the pool is per process."""
import json
import os

import pytest

from conftest import run_python

CODE = r"""
import glob, json, os, threading
import numpy as np
np.linalg.solve(np.eye(300) * 2.0, np.ones(300))  # BLAS threads, if any, exist from here

def masks():
    out = {}
    for d in glob.glob("/proc/self/task/*"):
        try:
            status = open(d + "/status").read()
        except OSError:
            continue
        out[os.path.basename(d)] = status.split("Cpus_allowed_list:")[1].split()[0]
    return out

res = {"proc0": sorted(os.sched_getaffinity(0)), "main": str(threading.get_native_id()), "before": masks()}
from hpcjit import njit, prange
res["after_import"] = masks()

@njit
def total(x):
    return x.sum()

@njit(parallel=True)
def ptotal(x):
    s = 0.0
    for i in prange(x.shape[0]):
        s += x[i]
    return s

x = np.arange(10000.0)
res["serial_ok"] = bool(total(x) == total.py_func(x))
res["after_njit"] = masks()
res["parallel_ok"] = bool(ptotal(x) == ptotal.py_func(x))
res["after_prange"] = masks()
res["proc1"] = sorted(os.sched_getaffinity(0))
print("RESULT " + json.dumps(res))
"""


def _run(env):
    r = run_python(CODE, env=env)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")


@needs_proc
@pytest.mark.parametrize("bind", [None, "false", "close"])
def test_pool_leaves_other_threads_affinity_alone(bind):
    env = {"HPCJIT_NUM_THREADS": "2"}
    if bind:
        env["HPCJIT_PROC_BIND"] = bind
    res = _run(env)
    before = res["before"]
    assert res["serial_ok"] and res["parallel_ok"]
    # the process's mask, the caller's and the earlier threads' are unchanged
    assert res["proc1"] == res["proc0"]
    after = res["after_prange"]
    for tid, cpus in before.items():
        assert after.get(tid) == cpus, (tid, cpus, after.get(tid))
    assert after[res["main"]] == before[res["main"]]
    if bind == "false":  # unpinned workers may run anywhere the process may
        for tid in set(after) - set(before):
            assert after[tid] == before[res["main"]], (tid, after[tid])


@needs_proc
@pytest.mark.numba_skip(reason="Numba starts a thread when it compiles the first function")
def test_no_thread_before_the_first_parallel_loop():
    res = _run({"HPCJIT_NUM_THREADS": "2"})
    assert res["serial_ok"] and res["parallel_ok"]
    assert res["after_import"] == res["before"]
    assert res["after_njit"] == res["before"]
    # the pool's worker (2 threads: the caller and one worker), when the process may use 2 CPUs
    if len(res["proc0"]) >= 2:
        assert len(res["after_prange"]) == len(res["before"]) + 1
