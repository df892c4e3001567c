"""hpcjit run: --dry-run under a synthetic Slurm environment and without one,
option errors, exit status; with a real mpirun when one is installed.
    python3 launcher_run.py HPCJIT [real]"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HPCJIT = os.path.abspath(sys.argv[1])
REAL = len(sys.argv) > 2 and sys.argv[2] == "real"


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "SRUN_", "HPCJIT_", "OMPI_COMM_WORLD", "PMI_"))}
    env.update(extra)
    return env


def run(args, env, check=True):
    p = subprocess.run([HPCJIT, "run"] + args, env=env, capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"hpcjit run {args}: rc {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def dry(args, env):
    text = run(["--dry-run"] + args, env).stdout
    js = json.loads(run(["--dry-run", "--json"] + args, env).stdout)
    return text, js


def test_slurm():
    env = clean_env(SLURM_JOB_ID="1234", SLURM_NTASKS="4", SLURM_CPUS_PER_TASK="2", USER="alice",
                    SLURM_TMPDIR="/lscratch/job", TMPDIR="/tmp/other", SLURM_JOB_NUM_NODES="2")
    text, js = dry(["--gpus-per-rank", "1", "prog", "a b"], env)
    assert js["launcher"] == "srun", js
    # each rank chooses its GPU through hpcjit gpu-bind (launcher/tests/gpu_bind.py)
    wrap = [os.path.realpath(HPCJIT), "gpu-bind", "-g", "1", "--"]
    assert js["argv"] == ["srun", "-n", "4", "-c", "2", "--cpu-bind=cores", "--kill-on-bad-exit=1",
                          "--gpus-per-node=2"] + wrap + ["prog", "a b"], js["argv"]
    assert js["env"] == {"HPCJIT_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "SRUN_CPUS_PER_TASK": "2",
                         "HPCJIT_CACHE_DIR": "/lscratch/job/hpcjit-alice-1234", "HPCJIT_CACHE": "1",
                         "HPCJIT_GPUS_PER_RANK": "1"}, js["env"]
    assert ("srun -n 4 -c 2 --cpu-bind=cores --kill-on-bad-exit=1 --gpus-per-node=2 %s gpu-bind -g 1 -- prog 'a b'"
            % os.path.realpath(HPCJIT)) in text, text
    assert "export SRUN_CPUS_PER_TASK=2" in text, text
    # explicit options win; TMPDIR when SLURM_TMPDIR is unset; --bind none
    del env["SLURM_TMPDIR"]
    _, js = dry(["-n", "2", "-c", "3", "--bind", "none", "prog"], env)
    assert js["argv"][:7] == ["srun", "-n", "2", "-c", "3", "--cpu-bind=none", "--kill-on-bad-exit=1"], js
    assert js["env"]["HPCJIT_CACHE_DIR"] == "/tmp/other/hpcjit-alice-1234", js
    assert js["env"]["SRUN_CPUS_PER_TASK"] == "3", js
    # inside Slurm even one rank goes through srun (binding, accounting)
    _, js = dry(["-n1", "--cache-dir=/x", "prog"], env)
    assert js["argv"][:3] == ["srun", "-n", "1"] and js["env"]["HPCJIT_CACHE_DIR"] == "/x", js
    del env["TMPDIR"]
    _, js = dry(["prog"], env)
    assert js["env"]["HPCJIT_CACHE_DIR"] == "/tmp/hpcjit-alice-1234", js


def test_mpirun():
    env = clean_env(HPCJIT_MPIEXEC="mpirun")
    text, js = dry(["-n", "2", "-c", "1", "--compile-once", "--", "script.py", "-x"], env)
    assert js["launcher"] == "mpirun", js
    argv = js["argv"]
    assert argv[:3] == ["mpirun", "-n", "2"], argv
    assert argv[-3:] == ["python3", "script.py", "-x"], argv   # a .py that is not executable
    if js["oversubscribed"]:  # one CPU here
        assert "--oversubscribe" in argv and argv[argv.index("--bind-to") + 1] == "none", argv
    else:
        assert argv[3:7] == ["--map-by", "slot:PE=1", "--bind-to", "core"], argv
    for var in ("HPCJIT_NUM_THREADS", "OMP_NUM_THREADS", "HPCJIT_MPI_COMPILE_ONCE"):
        i = argv.index(var)
        assert argv[i - 1] == "-x", argv
    assert "HPCJIT_CACHE_DIR" not in js["env"], js  # outside jobs: unchanged
    assert js["env"]["HPCJIT_MPI_COMPILE_ONCE"] == "1"
    assert text.startswith("# hpcjit run: mpirun, 2 ranks x 1 thread"), text
    # --gpus-per-rank outside Slurm: exported to every rank, nothing for mpirun
    _, js = dry(["-n", "3", "-c", "1", "--gpus-per-rank", "2", "prog"], env)
    assert js["gpus_per_rank"] == 2 and js["env"]["HPCJIT_GPUS_PER_RANK"] == "2", js
    assert js["argv"][js["argv"].index("HPCJIT_GPUS_PER_RANK") - 1] == "-x", js
    # many threads: oversubscribed, not bound
    _, js = dry(["-n", "2", "-c", "4096", "prog"], env)
    assert js["oversubscribed"] and "--oversubscribe" in js["argv"], js
    _, js = dry(["-n", "2", "-c", "1", "--bind", "none", "prog"], env)
    assert js["argv"][3:5] == ["--bind-to", "none"], js
    # one rank, no Slurm: the program itself
    _, js = dry(["-n", "1", "-c", "2", "prog", "x"], env)
    assert js["launcher"] == "direct" and js["argv"] == ["prog", "x"], js
    assert js["env"] == {"HPCJIT_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "HPCJIT_CACHE": "1"}, js
    # the cache: on by default, --no-cache turns it off, the user's HPCJIT_CACHE wins
    _, js = dry(["-n", "1", "--no-cache", "prog"], env)
    assert js["env"]["HPCJIT_CACHE"] == "0", js
    _, js = dry(["-n", "1", "prog"], dict(env, HPCJIT_CACHE="0"))
    assert "HPCJIT_CACHE" not in js["env"], js


def test_errors_and_status():
    env = clean_env()
    for bad in (["-n", "0", "p"], ["--bind", "sockets", "p"], ["--frob", "p"], [], ["-c"], ["--json", "p"]):
        p = run(bad, env, check=False)
        assert p.returncode == 2 and p.stderr.startswith("hpcjit run:"), (bad, p.returncode, p.stderr)
    h = subprocess.run([HPCJIT, "run", "--help"], capture_output=True, text=True)
    for opt in ("-n,", "--ranks", "-c,", "--threads", "--gpus-per-rank", "--bind", "--cache-dir", "--compile-once",
                "--no-cache", "HPCJIT_CACHE", "--dry-run", "--json", "--help", "HPCJIT_PYTHON", "HPCJIT_MPIEXEC", "HPCJIT_CACHE_DIR",
                "srun", "mpirun", "SRUN_CPUS_PER_TASK", "--kill-on-bad-exit=1"):
        assert opt in h.stdout, opt
    assert run(["-n", "1", "sh", "-c", "exit 7"], env, check=False).returncode == 7
    p = run(["-c", "3", "sh", "-c", 'echo "$HPCJIT_NUM_THREADS $OMP_NUM_THREADS"'], env)
    assert p.stdout == "3 3\n", p.stdout
    assert run(["no-such-program-hpcjit"], env, check=False).returncode == 127
    # hpcjit cache: forwarded to python -m hpcjit.cache
    build_py = os.path.join(os.path.dirname(os.path.dirname(HPCJIT)), "python")  # build/python
    py_env = dict(env, HPCJIT_PYTHON=sys.executable,
                  PYTHONPATH=os.pathsep.join(p for p in (build_py, env.get("PYTHONPATH")) if p))
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([HPCJIT, "cache", "--dir", d, "info", "--json"], env=py_env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0 and json.loads(p.stdout)["dir"] == d, p.stderr
    p = subprocess.run([HPCJIT, "cache", "info"], env=dict(env, HPCJIT_PYTHON="no-such-python-hpcjit"),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 127 and "hpcjit cache: cannot run" in p.stderr, p.stderr


def test_real_mpirun():
    if not shutil.which("mpirun"):
        print("skip real run: no mpirun")
        return
    env = clean_env()
    # two ranks on their own cores, each sees its thread count; rank 1 fails
    p = run(["-n", "2", "-c", "1", "--", sys.executable, "-c",
             # one write(2) per line: the ranks' output is merged by mpirun,
             # and print()'s pieces could interleave with the other rank's
             "import os, sys; r = int(os.environ['OMPI_COMM_WORLD_RANK']); "
             "os.write(1, f\"rank {r} of {os.environ['OMPI_COMM_WORLD_SIZE']} threads "
             "{os.environ['HPCJIT_NUM_THREADS']} cpus {sorted(os.sched_getaffinity(0))}\\n\".encode()); "
             "sys.exit(5 if r == 1 else 0)"], env, check=False)
    print(p.stdout, p.stderr[-500:])
    assert p.returncode == 5, p.returncode
    lines = sorted(l for l in p.stdout.splitlines() if l.startswith("rank"))
    assert [l.split()[:6] for l in lines] == [["rank", "0", "of", "2", "threads", "1"],
                                              ["rank", "1", "of", "2", "threads", "1"]], lines
    if (os.cpu_count() or 1) >= 2 and len(os.sched_getaffinity(0)) >= 2:
        cpus = [l.split("cpus", 1)[1] for l in lines]
        assert cpus[0] != cpus[1], cpus  # never the same core
    p = run(["-n", "2", "-c", "1", sys.executable, "-c", "print('ok')"], env)
    assert p.stdout.count("ok") == 2
    # a rank killed by a signal: the job's status is 128 + N
    p = run(["-n", "2", "-c", "1", sys.executable, "-c",
             "import os, signal; os.environ['OMPI_COMM_WORLD_RANK'] == '1' and os.kill(os.getpid(), signal.SIGKILL)"],
            env, check=False)
    assert p.returncode == 128 + signal.SIGKILL, p.returncode
    # --gpus-per-rank reaches every rank (outside Slurm: exported with -x), and
    # each rank gets its own devices by local rank (hpcjit gpu-bind)
    p = run(["-n", "2", "-c", "1", "--gpus-per-rank", "2", sys.executable, "-c",
             "import os; os.write(1, ('gpus %s %s %s\\n' % (os.environ['HPCJIT_GPUS_PER_RANK'], "
             "os.environ['OMPI_COMM_WORLD_LOCAL_RANK'], os.environ['CUDA_VISIBLE_DEVICES'])).encode())"],
            dict(env, CUDA_VISIBLE_DEVICES="4,5,6,7"))
    assert sorted(l for l in p.stdout.splitlines() if l.startswith("gpus")) == ["gpus 2 0 4,5", "gpus 2 1 6,7"], \
        p.stdout
    # SIGUSR1, SIGUSR2 and SIGINT (sent, not typed) sent to the launcher reach the program's
    # handlers, with mpirun and with one rank (exec'ed directly)
    for ranks, sig in (("2", signal.SIGUSR1), ("2", signal.SIGUSR2), ("2", signal.SIGINT), ("1", signal.SIGUSR1)):
        with tempfile.TemporaryDirectory() as d:
            prog = ("import os, signal, sys, time\n"
                    "r = os.environ.get('OMPI_COMM_WORLD_RANK', '0')\n"
                    "def h(s, f):\n"
                    "    with open(os.path.join(sys.argv[1], 'got' + r), 'w') as f:\n"
                    "        f.write(str(s))\n"
                    "    sys.exit(3)\n"
                    f"signal.signal({int(sig)}, h)\n"
                    "open(os.path.join(sys.argv[1], 'ready' + r), 'w').close()\n"
                    "time.sleep(60)\n")
            proc = subprocess.Popen([HPCJIT, "run", "-n", ranks, "-c", "1", sys.executable, "-c", prog, d],
                                    env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t0 = time.monotonic()
            while len([f for f in os.listdir(d) if f.startswith("ready")]) < int(ranks) \
                    and time.monotonic() - t0 < 60:
                time.sleep(0.1)
            proc.send_signal(sig)
            t0 = time.monotonic()
            proc.wait(timeout=30)
            got = {}
            for f in os.listdir(d):
                if f.startswith("got"):
                    with open(os.path.join(d, f)) as fh:
                        got[f] = fh.read()
            if sig == signal.SIGINT and ranks != "1":
                # Open MPI's mpirun ends the job on SIGINT (SIGTERM to the ranks)
                assert proc.returncode != 0 and time.monotonic() - t0 < 30, proc.returncode
                continue
            assert proc.returncode == 3, (ranks, sig, proc.returncode, got)
            assert got == {f"got{r}": str(int(sig)) for r in range(int(ranks))}, (sig, got)
    # SIGTERM to the launcher reaches the job: it ends within seconds
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen([HPCJIT, "run", "-n", "2", "-c", "1", "sleep", "60"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d)
        time.sleep(3)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
        assert rc != 0 and time.monotonic() - t0 < 30, rc


test_slurm()
test_mpirun()
test_errors_and_status()
if REAL:
    test_real_mpirun()
print("ok")
