"""hpcjit gpu-bind and hpcjit run --gpus-per-rank: each rank's
CUDA_VISIBLE_DEVICES from its node-local rank, Slurm's --gpus-per-task,
option errors.  The devices are given through CUDA_VISIBLE_DEVICES, so no
GPU is needed; the program run is a real shell.
    python3 gpu_bind.py HPCJIT"""
import json
import os
import subprocess
import sys

HPCJIT = os.path.abspath(sys.argv[1])
SHOW = 'echo "$CUDA_VISIBLE_DEVICES|${CUDA_DEVICE_ORDER-unset}|$HPCJIT_NUM_THREADS"'


def env_with(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SRUN_", "HPCJIT_", "OMPI_", "PMI_", "MPI_LOCALRANKID", "CUDA_"))}
    env.update(extra)
    return env


def bind(args, check=True, **extra):
    p = subprocess.run([HPCJIT, "gpu-bind"] + args, env=env_with(**extra), capture_output=True, text=True,
                       timeout=60)
    if check and p.returncode != 0:
        raise AssertionError(f"gpu-bind {args}: rc {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def shown(args, **extra):
    return bind(args + ["--", "sh", "-c", SHOW], **extra).stdout.strip().split("|")


def test_local_rank_choice():
    # G consecutive devices per local rank, from each launcher's variable
    assert shown(["-g", "2"], SLURM_LOCALID="1", CUDA_VISIBLE_DEVICES="4,5,6,7")[:2] == ["6,7", "PCI_BUS_ID"]
    assert shown(["-g", "1"], OMPI_COMM_WORLD_LOCAL_RANK="2", CUDA_VISIBLE_DEVICES="4,5,6,7")[0] == "6"
    assert shown(["-g", "1"], MPI_LOCALRANKID="3", CUDA_VISIBLE_DEVICES="4, 5,6,7")[0] == "7"
    # SLURM_LOCALID first
    assert shown(["-g", "1"], SLURM_LOCALID="0", OMPI_COMM_WORLD_LOCAL_RANK="3",
                 CUDA_VISIBLE_DEVICES="0,1,2,3")[0] == "0"
    # no launcher: local rank 0
    assert shown(["-g", "2"], CUDA_VISIBLE_DEVICES="2,3,0,1")[0] == "2,3"
    # more ranks than devices: round-robin, with a note under display
    p = bind(["-g", "1", "--", "sh", "-c", SHOW], SLURM_LOCALID="3", CUDA_VISIBLE_DEVICES="0,1",
             HPCJIT_DISPLAY_AFFINITY="1")
    assert p.stdout.split("|")[0] == "1", p.stdout
    assert "local rank 3 (SLURM_LOCALID): CUDA_VISIBLE_DEVICES=1 of 2" in p.stderr, p.stderr
    assert "shares its GPU" in p.stderr, p.stderr
    # UUIDs are devices too
    assert shown(["-g", "1"], SLURM_LOCALID="1", CUDA_VISIBLE_DEVICES="GPU-aa,GPU-bb")[0] == "GPU-bb"
    # the user's device order is kept
    assert shown(["-g", "1"], CUDA_VISIBLE_DEVICES="0", CUDA_DEVICE_ORDER="FASTEST_FIRST")[1] == "FASTEST_FIRST"


def test_gpus_per_task_and_defaults():
    # Slurm's --gpus-per-task: each task already has its own devices
    assert shown([], SLURM_GPUS_PER_TASK="2", SLURM_LOCALID="3", CUDA_VISIBLE_DEVICES="0,1")[0] == "0,1"
    assert shown([], SLURM_GPUS_PER_TASK="h100:1", SLURM_LOCALID="1", CUDA_VISIBLE_DEVICES="5")[0] == "5"
    # G from HPCJIT_GPUS_PER_RANK (what hpcjit run exports), else 1
    assert shown([], HPCJIT_GPUS_PER_RANK="2", SLURM_LOCALID="1", CUDA_VISIBLE_DEVICES="0,1,2,3")[0] == "2,3"
    assert shown([], SLURM_LOCALID="2", CUDA_VISIBLE_DEVICES="0,1,2,3")[0] == "2"


def test_nothing_visible():
    # CUDA_VISIBLE_DEVICES='' means no device: left as it is, with a warning
    p = bind(["-g", "1", "--", "sh", "-c", SHOW], CUDA_VISIBLE_DEVICES="")
    assert p.stdout.strip().split("|")[:2] == ["", "unset"], p.stdout
    assert "warning: local rank 0: no GPU visible (CUDA_VISIBLE_DEVICES='')" in p.stderr, p.stderr


def test_errors():
    for args, msg in ((["-g", "0", "true"], "-g needs an integer >= 1, got '0'"),
                      (["-g", "x", "true"], "got 'x'"),
                      (["-g"], "-g needs a value"),
                      (["--bogus", "true"], "unknown option '--bogus'"),
                      ([], "no program given")):
        p = bind(args, check=False)
        assert p.returncode == 2 and msg in p.stderr, (args, p.returncode, p.stderr)
    p = bind(["-g", "1", "--", "/nonexistent/prog"], check=False, CUDA_VISIBLE_DEVICES="0")
    assert p.returncode == 127 and "cannot run '/nonexistent/prog'" in p.stderr, (p.returncode, p.stderr)
    assert "usage: hpcjit gpu-bind" in bind(["--help"]).stdout
    out = subprocess.run([HPCJIT, "help", "gpu-bind"], capture_output=True, text=True).stdout
    assert "usage: hpcjit gpu-bind" in out, out


def run(args, **extra):
    p = subprocess.run([HPCJIT, "run"] + args, env=env_with(**extra), capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"run {args}: rc {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def test_run_one_rank():
    # one rank outside Slurm: chosen in hpcjit run itself
    js = json.loads(run(["--dry-run", "--json", "-c", "1", "--gpus-per-rank", "2", "prog"],
                        SLURM_LOCALID="1", CUDA_VISIBLE_DEVICES="4,5,6,7").stdout)
    assert js["launcher"] == "direct" and js["argv"] == ["prog"], js
    assert js["env"]["CUDA_VISIBLE_DEVICES"] == "6,7" and js["env"]["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID", js
    g = js["gpu"]
    assert (g["local_rank"], g["local_rank_from"], g["visible"], g["devices"]) == (1, "SLURM_LOCALID", 4, "6,7"), g
    text = run(["--dry-run", "-c", "1", "--gpus-per-rank", "1", "prog"], CUDA_VISIBLE_DEVICES="3,2").stdout
    assert "# GPUs: local rank 0 (default): CUDA_VISIBLE_DEVICES=3 of 2 (CUDA_VISIBLE_DEVICES)" in text, text
    assert "export CUDA_VISIBLE_DEVICES=3" in text, text
    # and for real
    out = run(["-c", "1", "--gpus-per-rank", "1", "--", "sh", "-c", SHOW], SLURM_LOCALID="1",
              CUDA_VISIBLE_DEVICES="3,2").stdout.strip()
    assert out == "2|PCI_BUS_ID|1", out
    # without --gpus-per-rank nothing changes
    js = json.loads(run(["--dry-run", "--json", "prog"], CUDA_VISIBLE_DEVICES="4,5").stdout)
    assert js["gpu"] is None and "CUDA_VISIBLE_DEVICES" not in js["env"], js


def test_run_srun_and_mpirun_wrap_ranks():
    self_exe = os.path.realpath(HPCJIT)
    slurm = dict(SLURM_JOB_ID="7", SLURM_NTASKS="4", SLURM_CPUS_PER_TASK="2", SLURM_JOB_NUM_NODES="2")
    js = json.loads(run(["--dry-run", "--json", "--gpus-per-rank", "1", "prog", "a"], **slurm).stdout)
    assert js["argv"][-7:] == [self_exe, "gpu-bind", "-g", "1", "--", "prog", "a"], js["argv"]
    assert "--gpus-per-node=2" in js["argv"] and js["gpu"] is None, js
    # inside an allocation made with --gpus-per-task: srun inherits it, G defaults to it
    js = json.loads(run(["--dry-run", "--json", "prog"], SLURM_GPUS_PER_TASK="2", **slurm).stdout)
    assert js["argv"][-6:] == [self_exe, "gpu-bind", "-g", "2", "--", "prog"], js["argv"]
    assert not any(a.startswith("--gpus-per-node") for a in js["argv"]), js["argv"]
    assert js["gpus_per_rank"] == 2, js
    # mpirun: every rank goes through gpu-bind (a .py goes after it)
    js = json.loads(run(["--dry-run", "--json", "-n", "2", "-c", "1", "--gpus-per-rank", "1", "x.py"],
                        HPCJIT_MPIEXEC="mpirun").stdout)
    assert js["argv"][-7:] == [self_exe, "gpu-bind", "-g", "1", "--", "python3", "x.py"], js["argv"]


if __name__ == "__main__":
    for name, f in list(globals().items()):
        if name.startswith("test_") and callable(f):
            f()
            print("ok:", name)
