"""Python-level fuzzer: mutate the test suite's functions (token and line
edits) and compile each mutant with hpcjit in worker subprocesses.

A finding is a worker that dies by a signal (crash), a compilation that
takes longer than --timeout seconds (hang), or an exception other than the
answers to bad code: TypingError, UnsupportedError, HpcjitSyntaxError
(hpcjit.errors), and TypeError/ValueError/KeyError raised before
compilation by the signature checks.  LoweringError and InternalError (a
compiler bug: the lowering refused what inference accepted, or LLVM's
verifier refused the module) are findings too.  Each finding's mutant is
written to --out and reported.

    python3 tests/fuzz/mutate.py --seconds 120 [--workers 2] [--seed 1]
                                 [--out DIR] [--json FILE]
Mutants are compiled, never run.
"""
import argparse
import json
import os
import random
import re
import select
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

ARG_TYPES = ("float64[:]", "int64", "float64", "float64[:, :]", "int64[:]", "boolean")
EXPECTED = ("TypingError", "UnsupportedError", "HpcjitSyntaxError", "NumbaError")
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+\.\d*(?:e[-+]?\d+)?|\d+|\*\*|//|<<|>>|<=|>=|==|!=|"
                   r"[-+*/%@&|^~<>()\[\]{},:.=]")
NUMBERS = ("0", "1", "-1", "2", "0.5", "1e308", "-0.0", "9223372036854775807", "3", "255")
OPS = ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "@", "<", ">", "==", "!=")
WORDS = ("None", "True", "False", "n", "i", "a", "x", "range", "len", "np", "math", "prange",
         "np.zeros", "np.empty", "np.arange", "a.shape", "a.T", "abs", "min", "max", "sum", "tuple",
         "list", "dict", "set", "str", "int", "float", "enumerate", "zip", "lambda", "yield",
         "return", "break", "continue", "pass", "global", "not", "and", "or", "in", "is")
STMTS = ("return a", "return", "x = x", "for i in range(3):\n    pass", "while False:\n    pass",
         "raise ValueError('x')", "assert a", "del a", "a[0] = 1", "a, b = b, a", "break",
         "continue", "x = [i for i in range(3)]", "x = {}", "x = (1, 2.0, a)", "if a:\n    return 1")


def mutate(src, rng):
    lines = src.split("\n")
    body = [i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith(("def ", "@"))]
    kind = rng.randrange(8)
    if kind == 0 and body:  # delete a line
        del lines[rng.choice(body)]
    elif kind == 1 and body:  # duplicate a line
        i = rng.choice(body)
        lines.insert(i, lines[i])
    elif kind == 2 and len(body) > 1:  # swap two lines
        i, j = rng.sample(body, 2)
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3 and body:  # insert a statement at a line's indentation
        i = rng.choice(body)
        ind = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        lines.insert(i, "\n".join(ind + s for s in rng.choice(STMTS).split("\n")))
    elif kind == 4 and body:  # change a line's indentation
        i = rng.choice(body)
        lines[i] = (" " * 4 * rng.randrange(4)) + lines[i].lstrip()
    else:  # token edits
        text = "\n".join(lines)
        toks = list(TOKEN.finditer(text))
        if not toks:
            return text
        for _ in range(rng.randint(1, 3)):
            toks = list(TOKEN.finditer(text))
            if not toks:
                break
            m = rng.choice(toks)
            t = m.group()
            if t[0].isdigit():
                new = rng.choice(NUMBERS)
            elif t in OPS:
                new = rng.choice(OPS)
            elif t[0].isalpha() or t[0] == "_":
                names = [x.group() for x in toks if x.group()[0].isalpha()]
                new = rng.choice(names + list(WORDS))
            else:
                new = rng.choice(("", "(", ")", "[", "]", ",", ":", ".", t + t))
            text = text[:m.start()] + new + text[m.end():]
        return text
    return "\n".join(lines)


# ---- the worker: compile mutants read from stdin, one JSON line each ----------------------

def worker():
    import linecache
    import math  # noqa: F401 - names the mutants use
    import warnings

    import numpy as np  # noqa: F401
    import hpcjit
    from hpcjit import errors

    warnings.simplefilter("ignore")
    # answers on a private copy of stdout; whatever else prints (a mutant's
    # print at definition time, a library) goes to stderr
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import cmath
    import operator
    import random
    base = {"np": np, "numpy": np, "math": math, "cmath": cmath, "random": random,
            "operator": operator, "hpcjit": hpcjit, "njit": hpcjit.njit,
            "jit": hpcjit.jit, "prange": hpcjit.prange}
    for line in sys.stdin:
        job = json.loads(line)
        src, name, n = job["src"], job["name"], job["id"]
        fname = f"<mutant {n}>"
        linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
        ns = dict(base)
        try:
            code = compile(src, fname, "exec")
            exec(code, ns)
            fn = ns[name]
            if not callable(fn) or not hasattr(fn, "__code__"):
                raise TypeError("not a function")
        except BaseException:  # CPython refuses it: nothing for hpcjit to see
            print(json.dumps({"id": n, "status": "skip"}), file=out, flush=True)
            linecache.cache.pop(fname, None)
            continue
        co = fn.__code__
        nargs = co.co_argcount
        sig = job.get("sig") or "(" + ", ".join(ARG_TYPES[i % len(ARG_TYPES)] for i in range(nargs)) + ")"
        status, detail = "ok", ""
        try:
            hpcjit.njit(sig)(fn)
        except errors.HpcjitError as e:
            cls = type(e).__name__
            status = "expected" if isinstance(e, (errors.TypingError, errors.UnsupportedError,
                                                  errors.HpcjitSyntaxError)) else "finding"
            detail = f"{cls}: {str(e)[:300]}"
        except (TypeError, ValueError, KeyError, NotImplementedError, RecursionError) as e:
            status, detail = "other", f"{type(e).__name__}: {str(e)[:300]}"
        except Exception as e:  # noqa: BLE001
            status, detail = "finding", f"{type(e).__name__}: {str(e)[:300]}"
        linecache.cache.pop(fname, None)
        print(json.dumps({"id": n, "status": status, "detail": detail}), file=out, flush=True)


class Worker:
    def __init__(self, env):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env, bufsize=1)
        self.job = None
        self.t0 = 0.0

    def send(self, job):
        self.job = job
        self.t0 = time.monotonic()
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()

    def kill(self):
        try:
            self.p.kill()
            self.p.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass  # a starved machine: the process goes when the kernel gets to it


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per compilation")
    ap.add_argument("--out", default="build/fuzz-findings")
    ap.add_argument("--json")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker()
        return 0
    from make_corpus import ROOT, SOURCES, functions
    seeds = []
    for top in SOURCES:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(".py"):
                    for src in functions(os.path.join(d, f)):
                        m = re.search(r"^def\s+([A-Za-z_]\w*)", src, re.M)
                        if m and "pytest" not in src and "subprocess" not in src:
                            seeds.append((src.replace("# args:", "#"), m.group(1)))
    rng = random.Random(args.seed)
    env = dict(os.environ, HPCJIT_CACHE="0")
    workers = [Worker(env) for _ in range(max(1, args.workers))]
    counts = {"ok": 0, "expected": 0, "other": 0, "skip": 0, "finding": 0, "crash": 0, "hang": 0}
    findings = []
    n = 0
    deadline = time.monotonic() + args.seconds

    def record(kind, job, detail):
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"{kind}-{job['id']}.py")
        with open(path, "w") as fh:
            fh.write(f"# {kind}: {detail}\n# signature from ARG_TYPES by parameter count\n{job['src']}\n")
        findings.append({"kind": kind, "detail": detail, "path": path})
        print(f"mutate.py: {kind}: {detail} ({path})", file=sys.stderr)

    def feed(w):
        nonlocal n
        src, name = seeds[rng.randrange(len(seeds))]
        for _ in range(rng.randint(1, 3)):
            src = mutate(src, rng)
        n += 1
        w.send({"id": n, "src": src, "name": name})

    for w in workers:
        feed(w)
    while workers:
        now = time.monotonic()
        for w in list(workers):
            if now - w.t0 > args.timeout:
                counts["hang"] += 1
                record("hang", w.job, f"no answer in {args.timeout:g} s")
                w.kill()
                nw = Worker(env)
                workers[workers.index(w)] = nw
                if now < deadline:
                    feed(nw)
                else:
                    nw.kill()
                    workers.remove(nw)
        if not workers:
            break
        ready, _, _ = select.select([w.p.stdout for w in workers], [], [], 0.5)
        for w in list(workers):
            if w.p.stdout not in ready:
                continue
            line = w.p.stdout.readline()
            if not line:  # died
                rc = w.p.wait()
                counts["crash"] += 1
                record("crash", w.job, f"worker exited with {rc}")
                nw = Worker(env)
                workers[workers.index(w)] = nw
                if time.monotonic() < deadline:
                    feed(nw)
                else:
                    nw.kill()
                    workers.remove(nw)
                continue
            try:
                res = json.loads(line)
            except ValueError:
                continue  # not an answer: the next line is
            counts[res["status"]] += 1
            if res["status"] == "finding":
                record("finding", w.job, res["detail"])
            if time.monotonic() < deadline:
                feed(w)
            else:
                w.kill()
                workers.remove(w)
    compiled = counts["ok"] + counts["expected"] + counts["other"] + counts["finding"]
    summary = {"mutants": n, "compiled": compiled, "seconds": args.seconds, "seeds": len(seeds),
               "counts": counts, "findings": findings}
    print(f"mutate.py: {n} mutants ({compiled} reached hpcjit: {counts['ok']} compiled, "
          f"{counts['expected']} located errors, {counts['other']} signature errors; "
          f"{counts['skip']} refused by CPython) in {args.seconds:g} s from {len(seeds)} seeds; "
          f"{len(findings)} finding(s)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
