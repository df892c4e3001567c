"""The MPI benchmark driver at small sizes (a smoke test, timings unused):
every job's results are checked against NumPy by rank.py, the strong-scaling
answers must agree between configurations, and the compile counts must be
one per kernel with compile-once and one per kernel and rank otherwise.
    python3 bench_quick.py BENCHMARKS/mpi/run.py HPCJIT
Exits 77 (skip) without mpirun or hpcjit._mpi."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

run_py, hpcjit_exe = sys.argv[1], sys.argv[2]
if not shutil.which("mpirun"):
    print("skip: no mpirun")
    sys.exit(77)
try:
    import hpcjit._mpi  # noqa: F401
except ImportError as exc:
    print(f"skip: hpcjit built without MPI ({exc})")
    sys.exit(77)
impls = ["hpcjit", "hpcjit-every"]
import hpcjit.mpi  # noqa: E402
if hasattr(hpcjit.mpi, "prange"):  # hpcjit.mpi in @njit code: the halos compiled too
    impls.append("hpcjit-jit")
if importlib.util.find_spec("numba") and importlib.util.find_spec("mpi4py"):
    impls.append("numba")
else:
    print("numba or mpi4py missing: hpcjit only")
plot = importlib.util.find_spec("matplotlib") is not None

with tempfile.TemporaryDirectory() as d:
    js, png = os.path.join(d, "out.json"), os.path.join(d, "out.png")
    cmd = [sys.executable, run_py, "--quick", "--ranks", "1,2", "--threads", "1", "--impls", ",".join(impls),
           "--hpcjit", hpcjit_exe, "--json", js] + (["--png", png] if plot else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=380)
    print(p.stdout)
    print(p.stderr[-5000:], file=sys.stderr)
    assert p.returncode == 0, f"run.py: status {p.returncode}"
    with open(js) as f:
        data = json.load(f)
    assert not data["errors"], data["errors"]
    got = {(r["impl"], r["ranks"], r["threads"]): r for r in data["results"]}
    assert set(got) == {(i, r, 1) for i in impls for r in (1, 2)}, sorted(got)
    for (impl, ranks, _), r in got.items():
        # two kernels (local_sum, jacobi_rows), one specialisation each
        once = impl in ("hpcjit", "hpcjit-jit")
        want = 2 if once else 2 * ranks
        assert r["compiles_total"] == want, (impl, ranks, r["compiles_total"])
        assert r["reduce"]["compiles"] + r["stencil"]["compiles"] == want, r
        assert r["compile_once"] == (once and ranks > 1), r
    assert "**stencil, weak scaling**" in p.stdout and "| 2 x 1" in p.stdout, p.stdout
    if plot:
        with open(png, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
print("ok: benchmarks/mpi/run.py --quick")
