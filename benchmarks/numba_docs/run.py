#!/usr/bin/env python3
"""Numba's documentation examples under Numba and under hpcjit's drop-in.

    python3 benchmarks/numba_docs/run.py --numba-src /path/to/numba-checkout
        [--only doc_examples|rst] [--filter SUBSTR] [--timeout 300]
        [--json out.json] [-v]

Numba's repository is not part of this one: give a checkout (a work tree
of github.com/numba/numba; only numba/tests/doc_examples/ and docs/source/
are read, at run time).  Two kinds of example:

  doc_examples  each test method of numba/tests/doc_examples/test_*.py
                (the code the documentation shows through literalinclude,
                with the test's own assertions after it);
  rst           each literal block or ``code-block:: python`` of
                docs/source/user/*.rst and docs/source/reference/*.rst that
                decorates a function (@jit, @njit, @vectorize, ...), run as
                a script after a fixed prelude (PRELUDE below: the imports
                the documentation leaves out).  Many such blocks are
                fragments or show an error on purpose: only those Numba runs
                count.

Each example runs in its own subprocess per framework: "numba" imports the
real Numba, "hpcjit" runs the same worker through `python -m hpcjit.numba`
so that `import numba` is hpcjit.  `numba.tests.support` (TestCase,
captured_stdout, ...) is replaced in both by a small stand-in defined here,
so the test modules import without Numba's test suite.

Status: ok (ran; a test's assertions passed), fail (an assertion failed),
error (an exception: its first line is kept), skip (the test skipped
itself), timeout, crash (the process died).  match: "yes" when both are ok
and the captured output is the same once numbers that look like timings
(floats printed with 4+ decimals, numbers followed by ms/s) are masked, "output"
when both are ok but the output differs, "-" when Numba does not run it.
"""
import argparse
import contextlib
import glob
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import textwrap
import time
import traceback
import types as pytypes
import unittest

HERE = os.path.abspath(__file__)
MARK = "NUMBA_DOCS_RESULT "

# what the documentation's fragments assume is imported
PRELUDE = (
    "import math\n"
    "import numpy as np\n"
    "import numba\n"
    "from numba import (jit, njit, prange, vectorize, guvectorize, cfunc,\n"
    "                   stencil, types, typeof, objmode, literal_unroll)\n"
)

DECORATED = re.compile(r"^\s*@(numba\.)?(n?jit|vectorize|guvectorize|cfunc|stencil)\b", re.M)


# ---- collecting the examples ---------------------------------------------------------

def _rst_blocks(text):
    """(line, code) of each literal block (`::`) and python code-block."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        is_literal = s.endswith("::") and not s.startswith("..")
        is_code = re.match(r"\s*\.\. code-block::\s*(python|python3|py)?\s*$", line)
        if not (is_literal or is_code):
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        j = i + 1
        # options of the directive (":linenos:")
        while j < len(lines) and lines[j].strip().startswith(":") and is_code:
            j += 1
        body = []
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append(lines[j])
            j += 1
        code = textwrap.dedent("\n".join(body)).strip("\n")
        if code.strip():
            out.append((i + 1, code))
        i = max(j, i + 1)
    return out


def collect(src):
    cases = []
    for path in sorted(glob.glob(os.path.join(src, "numba", "tests", "doc_examples", "test_*.py"))):
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"^    def (test_\w+)\(self", text, re.M):
            rel = os.path.relpath(path, src)
            cases.append({"kind": "doc_examples", "file": path,
                          "name": f"{os.path.basename(path)[:-3]}.{m.group(1)}",
                          "test": m.group(1)})
    for sub in ("user", "reference"):
        for path in sorted(glob.glob(os.path.join(src, "docs", "source", sub, "*.rst"))):
            text = open(path, encoding="utf-8").read()
            for line, code in _rst_blocks(text):
                if not DECORATED.search(code) or ">>>" in code or "cuda" in code:
                    continue
                cases.append({"kind": "rst", "file": path,
                              "name": f"{sub}/{os.path.basename(path)}:{line}",
                              "line": line})
    return cases


# ---- worker: one example under one framework -----------------------------------------

_captured = []   # text of every captured_stdout block, in order


def _support_module():
    """Stand-in for numba.tests.support: what the doc examples use of it."""
    import numpy as np
    mod = pytypes.ModuleType("numba.tests.support")

    class TestCase(unittest.TestCase):
        def assertPreciseEqual(self, first, second, msg=None, **kw):
            np.testing.assert_array_equal(np.asarray(first), np.asarray(second), err_msg=msg or "")

    @contextlib.contextmanager
    def captured_stdout():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                yield buf
            finally:
                _captured.append(buf.getvalue())

    @contextlib.contextmanager
    def override_config(name, value):
        import numba
        old = getattr(numba.config, name, None)
        setattr(numba.config, name, value)
        try:
            yield
        finally:
            setattr(numba.config, name, old)

    def _identity(obj):
        return obj

    try:
        import scipy  # noqa: F401
        have_scipy = True
    except ImportError:
        have_scipy = False
    mod.TestCase = TestCase
    mod.captured_stdout = captured_stdout
    mod.override_config = override_config
    mod.skip_parfors_unsupported = _identity
    mod.skip_unless_scipy = _identity if have_scipy else unittest.skip("needs SciPy")
    mod.tag = lambda *a: _identity
    return mod


def _first_line(exc):
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {line}".strip()


def _run_test(case):
    name = "numba_doc_" + os.path.basename(case["file"])[:-3]
    spec = importlib.util.spec_from_file_location(name, case["file"])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    for obj in vars(mod).values():
        if isinstance(obj, type) and issubclass(obj, unittest.TestCase) and hasattr(obj, case["test"]):
            result = unittest.TestResult()
            obj(case["test"]).run(result)
            if result.skipped:
                return "skip", result.skipped[0][1]
            for kind, items in (("error", result.errors), ("fail", result.failures)):
                if items:
                    tb = items[0][1].strip().splitlines()
                    # the exception's line: the last line that starts a "Name: msg"
                    last = next((t for t in reversed(tb) if re.match(r"^[\w.]+(Error|Exception|Warning)\b", t)),
                                tb[-1])
                    return kind, re.sub(r"\x1b\[[0-9;]*m", "", last)
            return "ok", ""
    return "error", f"no test {case['test']}"


def _run_rst(case):
    text = open(case["file"], encoding="utf-8").read()
    code = dict(_rst_blocks(text))[case["line"]]
    buf = io.StringIO()
    ns = {"__name__": "__main__"}
    # the block's own line numbers in tracebacks and hpcjit's diagnostics
    src = PRELUDE + "\n" * max(0, case["line"] - PRELUDE.count("\n")) + code + "\n"
    fname = case["file"]
    import linecache
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(src, fname, "exec"), ns)
    except BaseException as exc:  # SystemExit too: a fragment may call sys.exit
        _captured.append(buf.getvalue())
        return "error", _first_line(exc)
    _captured.append(buf.getvalue())
    return "ok", ""


def worker(case):
    import numpy  # noqa: F401
    import numba
    support = _support_module()
    tests = pytypes.ModuleType("numba.tests")
    tests.__path__ = []
    tests.support = support
    sys.modules["numba.tests"] = tests
    sys.modules["numba.tests.support"] = support
    # matplotlib would open windows in some examples
    sys.modules.setdefault("matplotlib", None)
    t0 = time.perf_counter()
    try:
        status, detail = (_run_test if case["kind"] == "doc_examples" else _run_rst)(case)
    except BaseException as exc:
        status, detail = "error", _first_line(exc)
        traceback.print_exc(file=sys.stderr)
    out = {"status": status, "detail": detail, "output": "".join(_captured),
           "time": time.perf_counter() - t0,
           "framework": "hpcjit" if getattr(numba, "__hpcjit__", False) else "numba"}
    sys.stdout.flush()
    sys.__stdout__.write(MARK + json.dumps(out) + "\n")
    sys.__stdout__.flush()


# ---- driver --------------------------------------------------------------------------

def run_one(case, framework, timeout):
    cmd = [sys.executable]
    if framework == "hpcjit":
        cmd += ["-m", "hpcjit.numba"]
    cmd += [HERE, "--worker", json.dumps(case)]
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "detail": f"over {timeout} s", "output": ""}
    for line in p.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    tail = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
    return {"status": "crash", "detail": f"exit {p.returncode}: {tail}", "output": ""}


_TIMING = re.compile(r"\d+\.\d{4,}(e-?\d+)?|\s*\b\d+(\.\d+)?\s*(ms|us|s|seconds)\b")


def same_output(a, b):
    return _TIMING.sub("#", a) == _TIMING.sub("#", b)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--numba-src", help="a checkout of github.com/numba/numba")
    ap.add_argument("--only", choices=("doc_examples", "rst"))
    ap.add_argument("--filter", default="", help="run only examples whose name contains this")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("-v", action="store_true", help="print each example's details")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0
    if not args.numba_src:
        ap.error("--numba-src is required")
    cases = [c for c in collect(os.path.abspath(args.numba_src))
             if (not args.only or c["kind"] == args.only) and args.filter in c["name"]]
    rows = []
    w = max([len(c["name"]) for c in cases] + [7])
    print(f"{'example':<{w}}  {'numba':<7}  {'hpcjit':<7}  match  hpcjit detail")
    for case in cases:
        rn = run_one(case, "numba", args.timeout)
        rh = run_one(case, "hpcjit", args.timeout) if rn["status"] == "ok" else \
            {"status": "-", "detail": "", "output": ""}
        if rn["status"] != "ok":
            match = "-"
        elif rh["status"] != "ok":
            match = "no"
        else:
            match = "yes" if same_output(rn["output"], rh["output"]) else "output"
        row = {"example": case["name"], "kind": case["kind"], "numba": rn, "hpcjit": rh, "match": match}
        rows.append(row)
        detail = rh["detail"] if rh["status"] not in ("ok", "-") else ""
        if match == "-" and args.v:
            detail = "numba: " + rn["detail"]
        print(f"{case['name']:<{w}}  {rn['status']:<7}  {rh['status']:<7}  {match:<5}  {detail[:110]}",
              flush=True)
        if args.v and match == "output":
            print("  numba :", rn["output"][:400].replace("\n", "\n          "))
            print("  hpcjit:", rh["output"][:400].replace("\n", "\n          "))
    print()
    for kind in ("doc_examples", "rst"):
        sel = [r for r in rows if r["kind"] == kind]
        if not sel:
            continue
        n_ok = sum(r["numba"]["status"] == "ok" for r in sel)
        h_ok = sum(r["hpcjit"]["status"] == "ok" for r in sel)
        same = sum(r["match"] == "yes" for r in sel)
        print(f"{kind}: {len(sel)} examples; Numba runs {n_ok}; hpcjit runs {h_ok} of those, "
              f"{same} with the same output")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
