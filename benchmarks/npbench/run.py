#!/usr/bin/env python3
"""NPBench conformance: run NPBench's Numba variants under Numba and under
hpcjit's drop-in, validate each against NumPy with NPBench's own rule.

    python3 benchmarks/npbench/run.py --npbench /path/to/npbench [--preset S]
        [--bench gemm,jacobi_2d] [--variants n,np,npr] [--timeout 300]
        [--repeat 5] [--json out.json] [--only hpcjit]

NPBench (github.com/spcl/npbench) is not part of this repository: give a
checkout.  For each benchmark of its bench_info/ and each variant file
<module>_numba_{n,np,npr}.py, one subprocess per framework
  - numba:  imports the variant with the real Numba;
  - hpcjit: the same, run through `python -m hpcjit.numba` (the drop-in),
each of which initialises the data of the preset with NPBench's
Benchmark.get_data(), runs NPBench's NumPy version (<module>_numpy.py) for
the reference, calls the variant once (compilation included: "first") and
then `--repeat` times on fresh copies of the array arguments (the median is
"time"), and validates the first call's outputs (returned values, then the
benchmark's output_args) with NPBench's utilities.validate() and the
benchmark's rtol/atol/norm_error (np.allclose, else a relative norm error).

Status: ok (validates), mismatch (runs, does not validate), error (an
exception: its first line is kept, and a category for hpcjit's), timeout,
crash (the process died).  The table's last column is Numba's time over
hpcjit's (above 1: hpcjit faster).
"""
import argparse
import glob
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("n", "np", "npr")
MARK = "NPBENCH_RESULT "


# ---- worker: one benchmark variant under one framework ------------------------------

def _load_file(name, path):
    """A module of NPBench's infrastructure by file (its package __init__
    imports every framework and pkg_resources)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _first_line(exc):
    text = str(exc).strip()
    # Numba colours its messages
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {line}".strip()


def _call(impl, info, data, copy):
    args = {a: (copy(data[a]) if a in info["array_args"] else data[a]) for a in info["input_args"]}
    t0 = time.perf_counter()
    out = impl(*[args[a] for a in info["input_args"]])
    dt = time.perf_counter() - t0
    if out is None:
        out = []
    elif isinstance(out, (tuple, list)):
        out = list(out)
    else:
        out = [out]
    out += [args[a] for a in info.get("output_args", [])]
    return out, dt


def worker(opts):
    import contextlib
    import io

    import numpy as np

    res = {"status": "error", "first_line": "", "first_s": None, "time_s": None}
    root = os.path.abspath(opts.npbench)
    sys.path.insert(0, root)
    infra = os.path.join(root, "npbench", "infrastructure")
    Benchmark = _load_file("npbench_benchmark", os.path.join(infra, "benchmark.py")).Benchmark
    util = _load_file("npbench_utilities", os.path.join(infra, "utilities.py"))
    bench = Benchmark(opts.bench)
    info = bench.info
    base = "npbench.benchmarks.{}.{}".format(info["relative_path"].replace("/", "."),
                                             info["module_name"])
    data = bench.get_data(opts.preset)
    ref_impl = getattr(importlib.import_module(base + "_numpy"), info["func_name"])
    ref, _ = _call(ref_impl, info, data, np.copy)
    try:
        mod = importlib.import_module(f"{base}_numba_{opts.variant}")
        impl = getattr(mod, info["func_name"])
        out, res["first_s"] = _call(impl, info, data, np.copy)
    except Exception as exc:  # reported: what hpcjit (or Numba) refused
        res["first_line"] = _first_line(exc)
        res["exception"] = type(exc).__name__
        return res
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        try:
            valid = util.validate(ref, out, opts.framework, rtol=info.get("rtol", 1e-5),
                                  atol=info.get("atol", 1e-8),
                                  norm_error=info.get("norm_error", 1e-5))
        except Exception as exc:  # e.g. shapes that do not broadcast
            valid = False
            print(_first_line(exc))
    if not valid:
        res["status"] = "mismatch"
        res["first_line"] = " ".join(log.getvalue().split())[:200]
        return res
    times = []
    for _ in range(opts.repeat):
        times.append(_call(impl, info, data, np.copy)[1])
    times.sort()
    res["status"] = "ok"
    res["time_s"] = times[len(times) // 2] if times else res["first_s"]
    return res


# ---- categories of hpcjit's failures ------------------------------------------------

# (regex on the message, category): the first match names the category, with
# the regex's groups filled in ({0}, {1}...).  Keep these about the missing
# feature, so that the table says what to build next.
CATEGORIES = [
    (r"module '(npbench\.[\w.]+)' has no attribute '(\w+)'", "NPBench's variant has no {1}()"),
    (r"(numba\.[\w.]+) is not supported by hpcjit yet", "{0} missing (drop-in stand-in)"),
    (r"unknown attribute '(\w+)' of module '(numpy(?:\.\w+)?)'", "{1}.{0} missing"),
    (r"unknown attribute '(\w+)' of (array|\w+)", "{1}.{0} missing"),
    (r"(\w+)\(\) got an unexpected keyword argument '(\w+)'", "{0}({1}=) keyword unsupported"),
    (r"cannot unify array\((\w+), (\d+)d, \w\) and array\((\w+), (\d+)d, \w\) for variable",
     "variable rebound to an array of another {kind}"),
    (r"cannot unify (.*) for variable", "variable rebound to another type"),
    (r"cannot convert array\(.*\) to \w+ for the assignment", "array assigned to a scalar target"),
    (r"\blists?\b|reflected list", "lists unsupported"),
    (r"\bdict\b", "dicts unsupported"),
    (r"unicode|\bstr\b|string", "strings unsupported"),
    (r"object mode|objmode|forceobj", "object mode"),
    (r"keyword argument", "keyword argument unsupported"),
    (r"(np|numpy)\.(\w+)", "numpy.{1} unsupported form"),
    (r"index|slice|subscript", "indexing form unsupported"),
    (r"broadcast|shape", "broadcasting/shape"),
]


def _source_line(line):
    """The source text at the "file:line:col: error:" of a message, or ''."""
    m = re.search(r"(/[^:\s]+\.py):(\d+):\d+: error", line)
    if not m:
        return ""
    try:
        with open(m.group(1)) as f:
            return f.read().splitlines()[int(m.group(2)) - 1].strip()
    except (OSError, IndexError):
        return ""


def category(res, numba_res=None):
    """A short name for why a variant failed on hpcjit; " [Numba fails
    too]" when it fails under Numba as well (outside the goal: every variant
    Numba validates validates on hpcjit)."""
    name = _category(res)
    if numba_res is not None and numba_res["status"] != "ok":
        name += " [Numba fails too]"
    return name


def _category(res):
    if res["status"] in ("timeout", "crash"):
        return res["status"]
    if res["status"] == "mismatch":
        return "result does not validate"
    line = res.get("first_line", "")
    # the message after "file:line:col: error: " when there is one
    m = re.search(r"error: (.*)", line)
    text = m.group(1) if m else line
    for pat, name in CATEGORIES:
        m = re.search(pat, text, re.IGNORECASE)
        if not m:
            continue
        if "{kind}" in name:  # array rebinding: what differs
            dt1, nd1, dt2, nd2 = m.groups()
            return name.format(kind="ndim (x = np.reshape(x, ...))" if nd1 != nd2 else "dtype")
        if name == "array assigned to a scalar target":
            import ast
            try:
                node = ast.parse(_source_line(line)).body[0]
                if isinstance(node, ast.Assign) and len(node.targets) > 1:
                    return "chained assignment a[s] = b[t] = <array>"
            except (SyntaxError, IndexError):
                pass
        return name.format(*m.groups())
    return "other: " + (res.get("exception") or "error")


# ---- driver ---------------------------------------------------------------------------

def run_one(opts, bench, variant, framework):
    cmd = [sys.executable]
    if framework == "hpcjit":
        cmd += ["-m", "hpcjit.numba"]
    cmd += [os.path.abspath(__file__), "--worker", "--npbench", opts.npbench, "--bench", bench,
            "--variant", variant, "--framework", framework, "--preset", opts.preset,
            "--repeat", str(opts.repeat)]
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    # the workers run in the checkout: keep PYTHONPATH=build/python working
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) if p else p
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=opts.timeout, env=env,
                           cwd=opts.npbench)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "first_line": f"no result in {opts.timeout:g} s",
                "first_s": None, "time_s": None}
    wall = time.perf_counter() - t0
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(MARK):
            res = json.loads(line[len(MARK):])
            res["wall_s"] = wall
            return res
    tail = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
    why = tail[-1] if tail else f"exit status {p.returncode}"
    status = "crash" if p.returncode < 0 else "error"
    return {"status": status, "first_line": f"exit {p.returncode}: {why}"[:300],
            "first_s": None, "time_s": None, "wall_s": wall}


def benchmarks(opts):
    """(name, [variants present]) for every benchmark with a Numba variant."""
    out = []
    for path in sorted(glob.glob(os.path.join(opts.npbench, "bench_info", "*.json"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if opts.bench and name not in opts.bench:
            continue
        with open(path) as f:
            info = json.load(f)["benchmark"]
        if opts.preset not in info["parameters"]:
            continue
        folder = os.path.join(opts.npbench, "npbench", "benchmarks", info["relative_path"])
        present = [v for v in opts.variants
                   if os.path.exists(os.path.join(folder, f"{info['module_name']}_numba_{v}.py"))]
        if present:
            out.append((name, present))
    return out


def _fmt_time(t):
    return "" if t is None else f"{t * 1e3:.2f}"


def _cell(res):
    if res is None:
        return ""
    return {"ok": "ok", "mismatch": "MISMATCH", "error": "error", "timeout": "timeout",
            "crash": "crash"}[res["status"]]


def print_table(rows, frameworks, out=sys.stdout, markdown=False):
    hdr = ["benchmark", "var"]
    for fw in frameworks:
        hdr += [f"{fw}", f"{fw} ms", f"{fw} 1st s"]
    if len(frameworks) == 2:
        hdr += ["numba/hpcjit"]
    table = [hdr]
    for r in rows:
        line = [r["benchmark"], r["variant"]]
        for fw in frameworks:
            res = r.get(fw)
            first = res.get("first_s") if res else None
            line += [_cell(res), _fmt_time(res.get("time_s") if res else None),
                     "" if first is None else f"{first:.2f}"]
        if len(frameworks) == 2:
            a, b = r.get("numba"), r.get("hpcjit")
            ratio = ""
            if a and b and a.get("time_s") and b.get("time_s"):
                ratio = f"{a['time_s'] / b['time_s']:.2f}"
            line.append(ratio)
        table.append(line)
    if markdown:  # for README files: a pipe table
        print("| " + " | ".join(hdr) + " |", file=out)
        print("|" + "---|" * len(hdr), file=out)
        for row in table[1:]:
            print("| " + " | ".join(str(c) for c in row) + " |", file=out)
    else:
        widths = [max(len(str(row[i])) for row in table) for i in range(len(hdr))]
        for row in table:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip(), file=out)
    # why each failure failed, and the counts
    for fw in frameworks:
        failed = [r for r in rows if r.get(fw) and r[fw]["status"] != "ok"]
        if not failed:
            continue
        print(f"\n{fw} failures (first line of the error):", file=out)
        for r in failed:
            cat = f"[{r['hpcjit_category']}] " if fw == "hpcjit" else ""
            print(f"  {r['benchmark']}_{r['variant']}: {cat}{r[fw]['first_line']}", file=out)
    print("\nvalidated:", file=out)
    for v in sorted({r["variant"] for r in rows}, key=VARIANTS.index):
        sub = [r for r in rows if r["variant"] == v]
        counts = ", ".join(f"{fw} {sum(1 for r in sub if r.get(fw, {}).get('status') == 'ok')}"
                           for fw in frameworks)
        if len(frameworks) == 2:
            nb_ok = [r for r in sub if r["numba"]["status"] == "ok"]
            both = sum(1 for r in nb_ok if r["hpcjit"]["status"] == "ok")
            counts += f"; of Numba's {len(nb_ok)}, hpcjit {both}"
        print(f"  {v:3s} ({len(sub)} variants): {counts}", file=out)
    if len(frameworks) == 2:
        import math
        ratios = [r["numba"]["time_s"] / r["hpcjit"]["time_s"] for r in rows
                  if r["numba"].get("time_s") and r["hpcjit"].get("time_s")]
        if ratios:
            gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            slower = sum(1 for x in ratios if x < 1)
            print(f"\nnumba/hpcjit time, geometric mean over the {len(ratios)} variants both "
                  f"validate: {gm:.2f} (hpcjit slower on {slower})", file=out)
    if "hpcjit" in frameworks:
        cats = {}
        for r in rows:
            if r.get("hpcjit", {}).get("status", "ok") != "ok":
                cats[r["hpcjit_category"]] = cats.get(r["hpcjit_category"], 0) + 1
        print("\nhpcjit failure categories:", file=out)
        for name, n in sorted(cats.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {n:3d}  {name}", file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--npbench", help="an NPBench checkout (github.com/spcl/npbench)")
    ap.add_argument("--preset", default="S", help="NPBench data preset: S, M, L, paper (default S)")
    ap.add_argument("--bench", type=lambda s: [b for b in s.split(",") if b],
                    help="comma-separated benchmark names (bench_info/NAME.json); default all")
    ap.add_argument("--variants", type=lambda s: [v for v in s.split(",") if v], default=list(VARIANTS),
                    help="comma-separated Numba variants: n, np, npr (default all)")
    ap.add_argument("--only", choices=("numba", "hpcjit"), help="run one framework only")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds for one variant under one framework (default 300)")
    ap.add_argument("--repeat", type=int, default=5, help="timed calls after the first (default 5)")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--table", metavar="JSON",
                    help="print the table of an earlier --json file (runs nothing)")
    ap.add_argument("--update", metavar="JSON", action="append", default=[],
                    help="with --table: rows of a later run (--bench ...) replace the same "
                         "variants' rows (repeatable)")
    ap.add_argument("--markdown", action="store_true", help="with --table: a markdown table")
    # internal: one variant under one framework
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--variant", help=argparse.SUPPRESS)
    ap.add_argument("--framework", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.npbench:
        opts.npbench = os.path.abspath(opts.npbench)
    if opts.table:
        with open(opts.table) as f:
            rows = json.load(f)["rows"]
        for path in opts.update:
            with open(path) as f:
                newer = {(r["benchmark"], r["variant"]): r for r in json.load(f)["rows"]}
            rows = [newer.pop((r["benchmark"], r["variant"]), r) for r in rows] + list(newer.values())
        frameworks = [fw for fw in ("numba", "hpcjit") if any(fw in r for r in rows)]
        for r in rows:  # categories as this version of the script names them
            if r.get("hpcjit") and r["hpcjit"]["status"] != "ok":
                r["hpcjit_category"] = category(r["hpcjit"], r.get("numba"))
        print_table(rows, frameworks, markdown=opts.markdown)
        return 0
    if opts.worker:
        opts.bench = opts.bench[0]
        res = worker(opts)
        sys.stdout.flush()
        print(MARK + json.dumps(res), flush=True)
        return 0
    if not opts.npbench or not os.path.isdir(os.path.join(opts.npbench, "bench_info")):
        ap.error(f"{opts.npbench} is not an NPBench checkout (no bench_info/)")
    bad = [v for v in opts.variants if v not in VARIANTS]
    if bad:
        ap.error(f"unknown variant(s) {bad}: expected n, np, npr")
    frameworks = [opts.only] if opts.only else ["numba", "hpcjit"]
    rows = []
    meta = None
    if opts.json:
        import numpy
        meta = {"preset": opts.preset, "repeat": opts.repeat, "timeout": opts.timeout,
                "numpy": numpy.__version__, "python": sys.version.split()[0]}
        for fw in frameworks:
            mod = "hpcjit" if fw == "hpcjit" else "numba"
            try:
                meta[fw] = importlib.import_module(mod).__version__
            except Exception:  # not installed: the rows say why
                meta[fw] = None
    interrupted = False
    try:
        for name, present in benchmarks(opts):
            for v in present:
                row = {"benchmark": name, "variant": v}
                for fw in frameworks:
                    row[fw] = run_one(opts, name, v, fw)
                if "hpcjit" in row:
                    row["hpcjit_category"] = (category(row["hpcjit"], row.get("numba"))
                                              if row["hpcjit"]["status"] != "ok" else "")
                rows.append(row)
                status = "  ".join(f"{fw} {row[fw]['status']}" for fw in frameworks)
                print(f"{name}_{v}: {status}", file=sys.stderr, flush=True)
                if opts.json:  # after every variant: a long run (preset L) survives a stop
                    write_json(opts.json, meta, rows, partial=True)
    except KeyboardInterrupt:
        interrupted = True
        print(f"interrupted: the table of the {len(rows)} variants run so far", file=sys.stderr)
    print_table(rows, frameworks)
    if opts.json:
        write_json(opts.json, meta, rows, partial=interrupted)
    return 130 if interrupted else 0


def write_json(path, meta, rows, partial):
    """The results so far (meta["partial"]: the run did not finish), written
    to a temporary file first so that a stop never leaves half a file."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": dict(meta, partial=partial), "rows": rows}, f, indent=1)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
