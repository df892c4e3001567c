"""Start a test program of this directory under mpirun and check its output.
    python3 mpi_driver.py collectives|compile_once|compile_every|cache|raises|raises_run|raises_jit|example_NAME NP
(example_NAME runs examples/mpi_NAME.py, raises_run raises.py, through $HPCJIT_EXE run)
Exits 77 (skip) when mpirun or hpcjit._mpi is missing."""
import os
import shutil
import subprocess
import sys
import time

case, nprocs = sys.argv[1], int(sys.argv[2])
here = os.path.dirname(os.path.abspath(__file__))
mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
if not mpirun:
    print("skip: no mpirun")
    sys.exit(77)
try:
    import hpcjit._mpi  # noqa: F401  (only checks that it was built)
except ImportError as exc:
    print(f"skip: hpcjit built without MPI ({exc})")
    sys.exit(77)

if case == "with_mpi4py":
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        print("skip: mpi4py not installed")
        sys.exit(77)
env = dict(os.environ)
if case == "collectives":
    # importing hpcjit, even hpcjit.mpi, loads no MPI
    subprocess.run([sys.executable, "-c", "import sys, hpcjit, hpcjit.mpi; "
                    "assert 'hpcjit._mpi' not in sys.modules and not hpcjit.mpi.initialized()"],
                   check=True, env=env)
for k in ("HPCJIT_MPI_COMPILE_ONCE", "HPCJIT_DEBUG_COMPILE", "NUMBA_DEBUG_COMPILE"):
    env.pop(k, None)
env["HPCJIT_NUM_THREADS"] = "1"
# these count compilations: no on-disk cache (hpcjit run turns it on otherwise)
env["HPCJIT_CACHE"] = "0"
if case == "cache":
    import tempfile
    env["HPCJIT_CACHE"] = "1"
    env["HPCJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="hpcjit-cache-test-")
    env["HPCJIT_CACHE_WAIT"] = "120"
if case == "compiled":
    # hpcjit.mpi.prange under parallel=True: blocks per rank, then threads
    env["HPCJIT_NUM_THREADS"] = "2"
script = {"compile_every": "compile_once", "raises_run": "raises", "raises_jit": "raises",
          "cache": "cache_ranks"}.get(case, case)
if case == "compile_once":
    env["HPCJIT_MPI_COMPILE_ONCE"] = "1"
    env["HPCJIT_DEBUG_COMPILE"] = "1"
cmd = [mpirun, "-n", str(nprocs), "--bind-to", "none", sys.executable, os.path.join(here, script + ".py")]
if case == "raises_jit":
    cmd.append("jit")
if case == "raises_run":
    # through the launcher: hpcjit run must hand the job's failure back
    env["HPCJIT_PYTHON"] = sys.executable
    cmd = [os.environ["HPCJIT_EXE"], "run", "-n", str(nprocs), "-c", "1", os.path.join(here, "raises.py")]
if case.startswith("example_"):
    # through the launcher, as users start them
    env["HPCJIT_PYTHON"] = sys.executable
    cmd = [os.environ["HPCJIT_EXE"], "run", "-n", str(nprocs), "-c", "1", "--compile-once",
           os.path.join(here, "..", "..", "examples", "mpi_" + case[len("example_"):] + ".py")]
t0 = time.monotonic()
try:
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60 if case.startswith("raises") else 300)
except subprocess.TimeoutExpired as exc:
    print(f"FAIL: {case} -n {nprocs} hung:\n{exc.stdout}\n{exc.stderr}")
    sys.exit(1)
elapsed = time.monotonic() - t0
out, err = p.stdout, p.stderr
print(out)
print(err[-4000:], file=sys.stderr)


def fail(msg):
    print(f"FAIL: {msg} (rc {p.returncode}, {elapsed:.1f} s)")
    sys.exit(1)


if case in ("collectives", "with_mpi4py", "compiled"):
    if p.returncode != 0:
        fail("non-zero exit")
    for r in range(nprocs):
        if f"rank {r} ok" not in out:
            fail(f"rank {r} did not finish")
elif case in ("compile_once", "compile_every"):
    if p.returncode != 0:
        fail("non-zero exit")
    line = [l for l in out.splitlines() if l.startswith("compiled ")]
    if not line:
        fail("no counts")
    w = line[0].split()
    compiled, received, fallbacks, specs, groups = (int(w[i]) for i in (1, 3, 5, 7, 9))
    # dot(x, object()) fails on the root and on every receiver: +1 attempt each
    if case == "compile_once":
        if compiled != specs * groups or received != specs * (nprocs - groups) or fallbacks:
            fail(f"compile once: {line[0]}")
        # two axpy specialisations: received by every non-root rank
        if err.count("received axpy") != 2 * (nprocs - groups) or "rank 0 compiled axpy" not in err:
            fail("HPCJIT_DEBUG_COMPILE lines missing")
    elif compiled != specs * nprocs or received:
        fail(f"compile every rank: {line[0]}")
elif case == "cache":
    # one compile per specialisation over the ranks, +1 for rank 0's own
    # function; then a warm directory (no compile), then every rank compiling
    def counts(proc):
        if proc.returncode != 0:
            fail("non-zero exit")
        line = [l for l in proc.stdout.splitlines() if l.startswith("compiled ")]
        if not line:
            fail("no counts")
        w = line[0].split()
        return int(w[1]), int(w[3]), int(w[5]), float(w[7])
    compiled, hits, specs, cold = counts(p)
    if compiled != specs + 1 or hits != specs * (nprocs - 1):
        fail(f"cache compile once: {out}")
    warm = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    compiled, hits, specs, warm_s = counts(warm)
    if compiled != 0 or hits != specs * nprocs + 1:
        fail(f"warm cache: {warm.stdout}")
    every = subprocess.run(cmd, env=dict(env, HPCJIT_CACHE="0"), capture_output=True, text=True,
                           timeout=300)
    compiled, hits, specs, every_s = counts(every)
    if compiled != specs * nprocs + 1 or hits:
        fail(f"without the cache: {every.stdout}")
    print(f"time to first result, {nprocs} ranks: every rank compiling {every_s:.3f} s, "
          f"empty cache {cold:.3f} s, warm cache {warm_s:.3f} s")
    shutil.rmtree(env["HPCJIT_CACHE_DIR"], ignore_errors=True)
elif case.startswith("example_"):
    if p.returncode != 0 or f"ranks {nprocs}" not in out:
        fail("the example failed")
    if case in ("example_reduce", "example_prange") and "compiles over all ranks 1" not in out:
        fail("compile once through hpcjit run --compile-once")
elif case in ("raises", "raises_run", "raises_jit"):
    if p.returncode == 0:
        fail("the job succeeded although a rank raised")
    if elapsed > 30:
        fail("the job took more than 30 s to end")
    if "[rank 1] Traceback" not in err or "boom from rank 1" not in err:
        fail("no traceback with the rank number")
    if case == "raises_jit" and "[rank 1] ValueError: boom from rank 1 in compiled code" not in err:
        fail("not the exception raised by the compiled code")
print(f"ok: {case} -n {nprocs} ({elapsed:.1f} s)")
