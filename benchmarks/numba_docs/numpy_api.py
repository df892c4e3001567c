#!/usr/bin/env python3
"""Probe Numba's documented NumPy API on Numba and on hpcjit.

    python3 benchmarks/numba_docs/numpy_api.py --numba-src /path/to/numba-checkout
        [--json out.json] [--markdown]

Reads docs/source/reference/numpysupported.rst of a Numba checkout (at run
time) for the names it lists: functions (`numpy.X`, `numpy.linalg.X`,
`numpy.random.X`), array methods and attributes (`numpy.ndarray.X`) and
the ufuncs of its tables.  Each name is probed in one subprocess per
framework: a small function calling it is compiled and run on each of a
few argument sets (float and int vectors, a 3x3 matrix, scalars) until one
works.  A name counts as supported when some argument set runs; the
reference is Numba on the same argument sets (a name Numba runs on none of
them is "not probed": the generic arguments do not fit it).  The results
are what docs/NUMPY.md lists.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.abspath(__file__)
MARK = "NUMPY_API_RESULT "


def collect(rst_path):
    text = open(rst_path, encoding="utf-8").read()
    names = []
    section = ""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.match(r"^[-=~'^]{4,}$", lines[i + 1]) and line.strip():
            section = line.strip().strip("`")
        for m in re.finditer(r":(func|meth|attr|class):`~?([\w.]+)`", line):
            name = m.group(2)
            if name.startswith("numpy.") and name not in [n for n, _ in names]:
                names.append((name, section))
        # ufunc tables: " name   Yes   Yes"
        m = re.match(r"^ (\w+)\s+(Yes|No)\s+(Yes|No)\s*$", line)
        if m and f"numpy.{m.group(1)}" not in [n for n, _ in names]:
            names.append((f"numpy.{m.group(1)}", "ufunc " + section))
    return names


def _arg_sets(np):
    v = np.array([0.5, 1.5, 2.5, 0.25])
    vi = np.array([3, 1, 2, 5])
    m = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
    vb = np.array([True, False, True, True])
    return [(v,), (m,), (vi,), (2.5,), (3,), (v, v), (m, m), (vi, vi), (v, 2), (v, 2.0), (m, 1),
            (vi, 2), (2.5, 1.5), (3, 2), (), (vb,), (v, v, v), (3, 4, 5), (v, vi), (m, v), (m, vi),
            ((v, v),), (v, 4), (np.sort(v), v)]


def _probe_one(name, njit, np):
    parts = name.split(".")
    if parts[1] == "ndarray":
        attr = parts[2]
        if attr == "__contains__":
            bodies = ["return x in a"]
            argsets = [(np.array([0.5, 1.5]), 1.5)]
            params = "a, x"
        else:
            bodies = [f"return a.{attr}", f"return a.{attr}()", f"return a.{attr}(b)"]
            argsets = None
            params = None
    else:
        bodies = [f"return {'.'.join(['np'] + parts[1:])}(*args)"]
        argsets = None
        params = None
    last = "no argument set fits"
    for body in bodies:
        if params is None:
            if body.endswith("(b)"):
                p = "a, b"
            elif body.startswith("return a."):
                p = "a"
            else:
                p = "*args"
        else:
            p = params
        sets = argsets or _arg_sets(np)
        for args in sets:
            if p == "a" and len(args) != 1:
                continue
            if p == "a, b" and len(args) != 2:
                continue
            if p == "a, b" and body.endswith("(b)") and not isinstance(args[0], np.ndarray):
                continue
            if p == "a" and not isinstance(args[0], np.ndarray):
                continue
            ns = {"np": np}
            b = body
            if p == "*args":  # explicit parameters (hpcjit has no *args)
                p2 = ", ".join(f"a{i}" for i in range(len(args)))
                b = body.replace("*args", p2)
                src = f"def probe({p2}):\n    {b}\n"
            else:
                src = f"def probe({p}):\n    {body}\n"
            exec(compile(src, f"<probe {name}>", "exec"), ns)
            try:
                if p == "*args":
                    f = njit(ns["probe"])
                    f(*args)
                else:
                    f = njit(ns["probe"])
                    f(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
                shown = ", ".join(type(a).__name__ if not isinstance(a, np.ndarray)
                                  else f"{a.dtype}[{a.ndim}d]" for a in args)
                return "ok", f"{b.replace('return ', '')} on ({shown})"
            except Exception as e:  # noqa: BLE001 - any failure: try the next
                last = f"{type(e).__name__}: " + re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip().split("\n")[0][:160]
    return "no", last


def worker(names):
    import warnings
    warnings.simplefilter("ignore")
    import numpy as np
    from numba import njit
    out = {}
    for name in names:
        if not hasattr(np, name.split(".")[1]) and name.split(".")[1] != "ndarray":
            out[name] = ("no", "not in this NumPy")
            continue
        out[name] = _probe_one(name, njit, np)
    sys.stdout.write(MARK + json.dumps(out) + "\n")


def run(framework, names, timeout):
    cmd = [sys.executable] + (["-m", "hpcjit.numba"] if framework == "hpcjit" else [])
    cmd += [HERE, "--worker", json.dumps(names)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    for line in p.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise RuntimeError(f"{framework} worker failed: {p.stderr[-2000:]}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--numba-src")
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true", help="print markdown lists")
    ap.add_argument("--timeout", type=int, default=3000)
    ap.add_argument("--no-numba", action="store_true", help="do not probe Numba (its list is the reference)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0
    rst = os.path.join(args.numba_src, "docs", "source", "reference", "numpysupported.rst")
    items = collect(rst)
    names = [n for n, _ in items]
    rh = run("hpcjit", names, args.timeout)
    # --no-numba: Numba's documentation is the reference (every name counts
    # as run by Numba); much faster, since Numba compiles each probe slowly
    rn = {n: ("ok", "documented") for n in names} if args.no_numba else run("numba", names, args.timeout)
    rows = [{"name": n, "section": s, "numba": rn[n], "hpcjit": rh[n]} for n, s in items]
    probed = [r for r in rows if r["numba"][0] == "ok"]
    both = [r for r in probed if r["hpcjit"][0] == "ok"]
    for r in rows:
        print(f"{r['name']:<34} {r['numba'][0]:<3} {r['hpcjit'][0]:<3} "
              f"{'' if r['hpcjit'][0] == 'ok' else r['hpcjit'][1][:90]}")
    print(f"\n{len(rows)} names; Numba runs {len(probed)} on the probe's arguments; "
          f"hpcjit runs {len(both)} of those")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        print(markdown(rows))
    return 0


def markdown(rows):
    """The per-section lists of docs/NUMPY.md."""
    out = []
    sections = []
    for r in rows:
        if r["section"] not in sections:
            sections.append(r["section"])
    for sec in sections:
        sel = [r for r in rows if r["section"] == sec]
        ok = [r for r in sel if r["hpcjit"][0] == "ok"]
        missing = [r for r in sel if r["hpcjit"][0] != "ok" and r["numba"][0] == "ok"]
        unprobed = [r for r in sel if r["hpcjit"][0] != "ok" and r["numba"][0] != "ok"]
        out.append(f"### {sec}\n")
        short = lambda n: n.replace("numpy.ndarray.", "a.").replace("numpy.", "np.")  # noqa: E731
        if ok:
            out.append("Supported: " + ", ".join(f"`{short(r['name'])}`" for r in ok) + ".\n")
        if missing:
            out.append("Not supported (Numba runs the probe): " +
                       ", ".join(f"`{short(r['name'])}`" for r in missing) + ".\n")
        if unprobed:
            out.append("Not probed (the generic arguments fit neither): " +
                       ", ".join(f"`{short(r['name'])}`" for r in unprobed) + ".\n")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
