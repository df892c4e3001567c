"""The CUDA simulator (HPCJIT_CUDA_SIM=1): kernels run on the CPU with
block/thread semantics, each checked against a NumPy reference.

The checks run in one subprocess with the variable set before hpcjit.cuda
is imported (cuda_sim_checks.py); each is reported as its own test.  The
compiler's shared kernel suite (cuda_kernels.py), where present, runs in
the simulator too.
"""
import json
import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cuda_sim_checks  # noqa: E402  (only for the names; it does not import in sim mode here)


def _run(script, var="HPCJIT_CUDA_SIM", args=()):
    env = dict(os.environ)
    env.pop("HPCJIT_CUDA_SIM", None)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env[var] = "1"
    r = subprocess.run([sys.executable, str(HERE / script), *args], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results():
    return _run("cuda_sim_checks.py")


@pytest.mark.parametrize("name", list(cuda_sim_checks.CHECKS))
def test_sim(results, name):
    assert results[name] == "ok", results[name]


def test_numba_variable_selects_the_simulator():
    res = _run("cuda_sim_checks.py", var="NUMBA_ENABLE_CUDASIM",
               args=("mode_is_simulator", "axpy_grid1"))
    assert res == {"mode_is_simulator": "ok", "axpy_grid1": "ok"}, res


def test_without_the_variable_cuda_is_not_the_simulator():
    env = dict(os.environ)
    env.pop("HPCJIT_CUDA_SIM", None)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    r = subprocess.run([sys.executable, "-c", "from hpcjit import cuda; print(cuda.SIMULATOR)"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr


SUITE = HERE / "cuda_kernels.py"


@pytest.mark.skipif(not SUITE.exists(), reason="the shared kernel suite (cuda_kernels.py) is "
                    "not in this tree")
def test_shared_kernel_suite_in_the_simulator():
    res = _run("cuda_sim_suite.py")
    bad = {k: v for k, v in res.items() if v != "ok"}
    assert res and not bad, "\n\n".join(f"{k}:\n{v}" for k, v in bad.items())
