"""Rank scaling of a distributed reduction and a halo-exchange stencil
(rank.py, kernels.py), hpcjit against Numba + mpi4py, strong and weak, plus
compile count and time to first result against the number of ranks.

    PYTHONPATH=build/python python3 benchmarks/mpi/run.py              # 1, 2, 4 ranks x 1, 2 threads
    python3 benchmarks/mpi/run.py --ranks 1,2,4,8 --threads 1,4 --json out.json --png scaling.png
    python3 benchmarks/mpi/run.py --quick --ranks 1,2 --threads 1      # small sizes (the CTest)

Every configuration is a fresh job started with `hpcjit run -n R -c T`
(srun inside a Slurm allocation, mpirun outside), so each one compiles from
scratch.  Implementations: `hpcjit` (hpcjit run --compile-once: one compile
per node architecture, broadcast to the other ranks), `hpcjit-every`
(every rank compiles), `hpcjit-jit` (compile once, and the allreduce and
halo exchange inside the compiled code: kernels_mpi.py), `numba`
(numba.njit + mpi4py: every rank compiles).
Prints a markdown table; --json writes every measurement, --png a plot
(needs matplotlib).  Exits non-zero when a job fails or a result differs
from NumPy's."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
QUICK = ["--n-strong", "200000", "--n-weak", "100000", "--nx-strong", "64", "--nx-weak", "32",
         "--ny", "64", "--steps", "5", "--reps", "2"]


IMPLS = ("hpcjit", "hpcjit-every", "hpcjit-jit", "numba")


def default_impls():
    """All four; hpcjit-jit only with an hpcjit whose compiled code can call
    hpcjit.mpi (it came with hpcjit.mpi.prange)."""
    p = subprocess.run([sys.executable, "-c", "import sys, hpcjit.mpi as m; sys.exit(not hasattr(m, 'prange'))"],
                       capture_output=True)
    return ",".join(i for i in IMPLS if i != "hpcjit-jit" or p.returncode == 0)


def find_hpcjit(given):
    if given:
        return given
    # this checkout's build first: an hpcjit in PATH may be another version
    for cand in (os.environ.get("HPCJIT_EXE"), os.path.join(ROOT, "build", "launcher", "hpcjit"),
                 shutil.which("hpcjit")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise SystemExit("run.py: no hpcjit launcher (put it in PATH or pass --hpcjit)")


def cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run_job(hpcjit, impl, ranks, threads, extra, timeout):
    cmd = [hpcjit, "run", "-n", str(ranks), "-c", str(threads)]
    if impl in ("hpcjit", "hpcjit-jit"):
        cmd.append("--compile-once")
    cmd += ["--", sys.executable, os.path.join(HERE, "rank.py"),
            "--impl", {"hpcjit-every": "hpcjit"}.get(impl, impl)] + extra
    env = dict(os.environ)
    for k in ("HPCJIT_MPI_COMPILE_ONCE", "HPCJIT_DEBUG_COMPILE", "NUMBA_NUM_THREADS"):
        env.pop(k, None)
    env["HPCJIT_CACHE"] = "0"  # time to first result with compilation (hpcjit run caches otherwise)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s: {' '.join(cmd)}"
    elapsed = time.perf_counter() - t0
    # a terminal escape may precede or follow on the same line (Numba's colour reset)
    lines = [l[l.index("RESULT ") + 7:] for l in p.stdout.splitlines() if "RESULT {" in l]
    if p.returncode != 0 or len(lines) != 1:
        return None, f"status {p.returncode}: {' '.join(cmd)}\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}"
    res = json.JSONDecoder().raw_decode(lines[0])[0]
    res.update(impl=impl, job_seconds=elapsed, cpus=cpus(), oversubscribed=ranks * threads > cpus())
    return res, None


# ---- tables ---------------------------------------------------------------------------

def fmt_ms(s):
    return f"{s * 1e3:.1f}" if s < 10 else f"{s * 1e3:.0f}"


def scaling_table(results, impls):
    """Time per kernel and mode for every ranks x threads, with speedup (strong)
    or efficiency (weak) against 1 x 1 of the same implementation."""
    out = []
    for kernel in ("reduce", "stencil"):
        for mode in ("strong", "weak"):
            what = ("speedup" if mode == "strong" else "efficiency")
            head = "| ranks x threads | " + " | ".join(f"{i} ms | {i} {what}" for i in impls) + " |"
            out += [f"**{kernel}, {mode} scaling** ({size_note(results, kernel, mode)})", "", head,
                    "|---|" + "---:|---:|" * len(impls)]
            for rt in configs(results):
                cells = []
                for impl in impls:
                    r = results.get((impl,) + rt)
                    base = results.get((impl, 1, 1))
                    if not r:
                        cells += ["-", "-"]
                        continue
                    t = r[kernel][mode]["time"]
                    if base:
                        b = base[kernel][mode]["time"]
                        ratio = b / t  # strong: speedup; weak: efficiency (same work per rank)
                        cells += [fmt_ms(t), f"{ratio:.2f}x" if mode == "strong" else f"{ratio:.0%}"]
                    else:
                        cells += [fmt_ms(t), "-"]
                mark = " *" if any(results.get((i,) + rt, {}).get("oversubscribed") for i in impls) else ""
                out.append(f"| {rt[0]} x {rt[1]}{mark} | " + " | ".join(cells) + " |")
            out.append("")
    return out


def size_note(results, kernel, mode):
    r = next(iter(results.values()))
    d = r[kernel][mode]
    per = "" if mode == "strong" else " per rank"
    if kernel == "reduce":
        n = d["n"] // (r["ranks"] if mode == "weak" else 1)
        return f"{n:,} doubles{per}"
    nx = d["nx"] // (r["ranks"] if mode == "weak" else 1)
    return f"{nx} x {d['ny']} grid{per}, {d['steps']} sweeps"


def configs(results):
    return sorted({k[1:] for k in results}, key=lambda rt: (rt[0] * rt[1], rt[0]))


def compile_table(results, impls):
    out = ["**compile count and time to first result** (per job; first call = compile + one run, "
           "max over ranks; time to first result also counts importing the JIT and starting MPI)", "",
           "| ranks x threads | " + " | ".join(f"{i} compiles | {i} first call ms | {i} first result ms"
                                              for i in impls) + " |",
           "|---|" + "---:|---:|---:|" * len(impls)]
    for rt in configs(results):
        cells = []
        for impl in impls:
            r = results.get((impl,) + rt)
            if not r:
                cells += ["-", "-", "-"]
                continue
            first = r["reduce"]["first_call"] + r["stencil"]["first_call"]
            cells += [str(r["compiles_total"]), fmt_ms(first), fmt_ms(r["reduce"]["ttfr"])]
        mark = " *" if any(results.get((i,) + rt, {}).get("oversubscribed") for i in impls) else ""
        out.append(f"| {rt[0]} x {rt[1]}{mark} | " + " | ".join(cells) + " |")
    return out


# ---- the plot -------------------------------------------------------------------------

def plot(results, impls, path):
    """Speedup (strong) and efficiency (weak) against ranks, one panel per
    kernel and mode, one line per implementation (colour) and thread count
    (line style); then time to first result and compile count against ranks."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"hpcjit": "tab:red", "hpcjit-every": "tab:orange", "hpcjit-jit": "tab:purple", "numba": "tab:blue"}
    styles = ["o-", "s--", "^:", "d-."]
    ranks = sorted({r for (_, r, _) in results})
    threads = sorted({t for (_, _, t) in results})
    fig, ax = plt.subplots(3, 2, figsize=(11, 12))
    for row, kernel in enumerate(("reduce", "stencil")):
        for col, mode in enumerate(("strong", "weak")):
            a = ax[row][col]
            for impl in impls:
                base = results.get((impl, 1, 1))
                for k, t in enumerate(threads):
                    pts = [(r, results[(impl, r, t)]) for r in ranks if (impl, r, t) in results]
                    if not base or not pts:
                        continue
                    a.plot([r for r, _ in pts], [base[kernel][mode]["time"] / v[kernel][mode]["time"] for _, v in pts],
                           styles[k % len(styles)], color=colors.get(impl), label=f"{impl}, {t} thr/rank")
            if mode == "strong":
                a.plot(ranks, ranks, ":", color="grey", label="ideal, 1 thr/rank")
                a.set_ylabel("speedup over 1 rank x 1 thread")
            else:
                a.axhline(1.0, ls=":", color="grey", label="ideal")
                a.set_ylabel("efficiency: time 1 x 1 / time")
            a.set_xlabel("ranks")
            a.set_xticks(ranks)
            a.set_ylim(bottom=0)
            a.set_title(f"{kernel}, {mode} scaling ({size_note(results, kernel, mode)})", fontsize=9)
            a.legend(fontsize=7)
    t1 = threads[0]
    for col, (key, label) in enumerate((("ttfr", "time to first result (s)"),
                                        ("compiles", "compiles over all ranks"))):
        a = ax[2][col]
        for impl in impls:
            pts = [(r, results[(impl, r, t1)]) for r in ranks if (impl, r, t1) in results]
            a.plot([r for r, _ in pts], [v["reduce"]["ttfr"] if key == "ttfr" else v["compiles_total"] for _, v in pts],
                   "o-", color=colors.get(impl), label=impl)
        a.set_xlabel(f"ranks ({t1} thread{'s' if t1 > 1 else ''} per rank)")
        a.set_xticks(ranks)
        a.set_ylabel(label)
        a.set_ylim(bottom=0)
        a.set_title(label + " vs ranks", fontsize=9)
        a.legend(fontsize=7)
    over = sorted({f"{r}x{t}" for (_, r, t), v in results.items() if v.get("oversubscribed")})
    cpu = next(iter(results.values())).get("cpus", cpus())
    note = f"{cpu} CPUs, oversubscribed: {', '.join(over)}" if over else f"{cpu} CPUs"
    fig.suptitle(f"hpcjit vs Numba + mpi4py under MPI ({note})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=80)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ranks", default="1,2,4", help="rank counts (default 1,2,4)")
    ap.add_argument("--threads", default="1,2", help="threads per rank (default 1,2)")
    ap.add_argument("--impls", help="hpcjit (compile once), hpcjit-every, hpcjit-jit, numba (default: all, "
                                     "hpcjit-jit where hpcjit.mpi works in @njit code)")
    ap.add_argument("--hpcjit", help="the hpcjit launcher (default: $HPCJIT_EXE, this checkout's build/launcher/hpcjit, else hpcjit in PATH)")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test, figures mean nothing)")
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--png", help="write the plot here (matplotlib)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per job (default 600)")
    ap.add_argument("--from-json", metavar="FILE", help="no jobs: print the table and plot of an earlier --json")
    ap.add_argument("rank_args", nargs="*", help="after --: passed to rank.py (e.g. --n-strong 1e8)")
    a = ap.parse_args()

    hpcjit = find_hpcjit(a.hpcjit)
    impls = [i for i in (a.impls or default_impls()).split(",") if i]
    for i in impls:
        if i not in IMPLS:
            ap.error(f"unknown implementation {i!r}")
    ranks = [int(x) for x in a.ranks.split(",")]
    threads = [int(x) for x in a.threads.split(",")]
    extra = (QUICK if a.quick else []) + a.rank_args
    results, errors = {}, []
    if a.from_json:
        with open(a.from_json) as f:
            for res in json.load(f)["results"]:
                results[(res["impl"], res["ranks"], res["threads"])] = res
        impls = [i for i in impls if any(k[0] == i for k in results)]
        ranks = threads = []
    for r in ranks:
        for t in threads:
            for impl in impls:
                res, err = run_job(hpcjit, impl, r, t, extra, a.timeout)
                tag = f"{impl} {r} x {t}"
                if err:
                    errors.append(f"{tag}: {err}")
                    print(f"# {tag}: FAILED", file=sys.stderr, flush=True)
                    continue
                results[(impl, r, t)] = res
                print(f"# {tag}: job {res['job_seconds']:.1f} s, first result {res['reduce']['ttfr']:.2f} s, "
                      f"{res['compiles_total']} compiles", file=sys.stderr, flush=True)
    # strong scaling solves one problem: every configuration's answer must agree
    for kernel, key in (("reduce", "value"), ("stencil", "checksum")):
        vals = [v[kernel]["strong"][key] for v in results.values()]
        if vals and max(vals) - min(vals) > 1e-9 * max(abs(x) for x in vals):
            errors.append(f"{kernel}: strong-scaling answers differ between configurations: {vals}")
    if results:
        cpu = next(iter(results.values())).get("cpus", cpus())
        lines = [f"hpcjit run on {cpu} CPUs; times are the best of the timed runs, max over ranks; "
                 "* = more ranks x threads than CPUs (oversubscribed, not bound)", ""]
        lines += scaling_table(results, impls) + compile_table(results, impls)
        print("\n".join(lines))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"cpus": cpus(), "results": list(results.values()), "errors": errors}, f, indent=1)
    if a.png and results:
        plot(results, impls, a.png)
    for e in errors:
        print("ERROR " + e, file=sys.stderr)
    return 1 if errors or not results else 0


if __name__ == "__main__":
    sys.exit(main())
