#!/usr/bin/env python3
"""The CPU scripts of numba/numba-examples under Numba and under hpcjit's
drop-in, compared.

    python3 benchmarks/numba_examples/run.py --examples /path/to/numba-examples
        [--filter SUBSTR] [--timeout 180] [--json out.json]

The examples repository is not part of this one: give a checkout (a work
tree of github.com/numba/numba-examples; its legacy/ and examples/ folders
are read at run time).  Each script runs as it is, in its own folder, once
with `python SCRIPT` (the real Numba) and once with `python -m hpcjit.numba
SCRIPT` (so that `import numba` is hpcjit), with MPLBACKEND=Agg.  Scripts
for the GPU, Dask, MPI, pycc, CFFI and the ParallelAccelerator variants
that need an input image are left out (SKIP below).

Status per framework: ok (exit 0), error (an exception; the last line of
stderr is kept), timeout.  match: "yes" when both are ok and their outputs
are the same once numbers are masked (timings), "output" when both are ok
and the outputs differ, "-" when Numba does not run the script.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

SKIP = re.compile(r"cuda|gpu|dask|mpi|pycc|cffi|/tests/|__init__|notebooks|objects\.py|curand")
NUMBER = re.compile(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?")


def run(cmd, cwd, timeout, env):
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "out": "", "err": ""}
    last = (r.stderr.strip().splitlines() or [""])[-1][:200]
    return {"status": "ok" if r.returncode == 0 else "error", "out": r.stdout, "err": last}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", required=True, help="a checkout of github.com/numba/numba-examples")
    ap.add_argument("--filter", help="only scripts whose path contains this")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per script and framework")
    ap.add_argument("--json", help="write the rows to this file")
    opts = ap.parse_args(argv)
    root = os.path.abspath(opts.examples)
    files = sorted(glob.glob(os.path.join(root, "legacy", "**", "*.py"), recursive=True)
                   + glob.glob(os.path.join(root, "examples", "**", "*.py"), recursive=True))
    if not files:
        ap.error(f"no scripts under {root}/legacy or {root}/examples")
    env = dict(os.environ, MPLBACKEND="Agg")
    rows = []
    for f in files:
        rel = os.path.relpath(f, root)
        if SKIP.search("/" + rel) or (opts.filter and opts.filter not in rel):
            continue
        cwd = os.path.dirname(f)
        nb = run([sys.executable, f], cwd, opts.timeout, env)
        hj = run([sys.executable, "-m", "hpcjit.numba", f], cwd, opts.timeout, env)
        if nb["status"] != "ok":
            match = "-"
        elif hj["status"] != "ok":
            match = "no"
        else:
            match = "yes" if NUMBER.sub("#", nb["out"]) == NUMBER.sub("#", hj["out"]) else "output"
        row = {"script": rel, "numba": nb["status"], "hpcjit": hj["status"], "match": match,
               "numba_error": nb["err"] if nb["status"] == "error" else "",
               "hpcjit_error": hj["err"] if hj["status"] == "error" else ""}
        rows.append(row)
        note = row["hpcjit_error"] or row["numba_error"]
        print(f"{rel:60s} numba {nb['status']:8s} hpcjit {hj['status']:8s} match {match:6s} {note[:90]}",
              flush=True)
    ran = [r for r in rows if r["numba"] == "ok"]
    both = [r for r in ran if r["hpcjit"] == "ok"]
    same = [r for r in both if r["match"] == "yes"]
    extra = [r for r in rows if r["numba"] != "ok" and r["hpcjit"] == "ok"]
    print(f"\n{len(rows)} scripts: Numba runs {len(ran)}; hpcjit runs {len(both)} of those "
          f"({len(same)} with the same output, numbers masked) and {len(extra)} that Numba does not")
    if opts.json:
        with open(opts.json, "w") as fh:
            json.dump({"rows": rows, "numba_ok": len(ran), "both_ok": len(both), "same": len(same),
                       "hpcjit_only": len(extra)}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
