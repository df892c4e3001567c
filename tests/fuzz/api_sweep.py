"""Systematic fuzzer for the call surface: every callable the compiler
knows by name (compiler/lib/builtins.def and lib/*/*.def, and the NumPy
functions written as overloads in python/hpcjit/_np*.py) is called with
each of a fixed set of odd argument lists (None where an array belongs,
too many arguments, a tuple, a string, an out-of-range axis...), and each
call is compiled in a worker subprocess as mutate.py's mutants are.  A
finding is the same as there: a worker killed by a signal, a compilation
past --timeout, or an exception other than a located refusal.

    python3 tests/fuzz/api_sweep.py [--workers 2] [--only numpy.cov] [--out DIR] [--json FILE]
Deterministic: the same build gives the same calls in the same order.
"""
import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from mutate import Worker  # noqa: E402

# parameters typed by mutate.py's ARG_TYPES in order:
# a float64[:], x int64, y float64, b float64[:, :], ia int64[:], flag boolean
PARAMS = "a, x, y, b, ia, flag"
ARGS = ("", "None", "None, None", "a, None", "None, a", "b, None, None", "x", "y", "flag", "'s'",
        "(a, a)", "[1.0, 2.0]", "a, x, x, x, x, x", "b, axis=7", "a, axis=None", "a, dtype=None",
        "b[0, 0]", "a[:0]", "ia, ia", "b, b", "a, 's'", "x, None", "(x, x)", "a, out=None",
        "b, x, None", "a, x, None", "x, x, None", "b, x, x, None", "a, y", "b, flag", "b, (x, None)",
        "b, (x, x, x)", "a, ia", "b, -3", "ia, x, y", "a, a, a, a", "y, y", "b, axis=(x, None)",
        "b, keepdims=None", "a, x, axis=None")
# a second set of parameter kinds, with argument lists of their own
PARAMS2 = "c, s, t, f2, a3, u8"
SIG2 = "(complex128, unicode_type, UniTuple(int64, 2), float64[::1, :], float64[:, :, :], uint8[:])"
ARGS2 = ("c", "s", "t", "f2", "a3", "u8", "c, c", "a3, t", "f2, t", "u8, u8", "s, s", "a3, -1",
         "a3, axis=t", "f2, f2", "a3, a3", "u8, c", "t, t", "f2, s", "a3, 1, 2", "u8, t")
RECEIVERS = {"array": ("a", "b", "ia"), "str": ("'ab'",), "list": ("l",), "dict": ("d",),
             "set": ("st",), "Generator": ("rng",)}
SETUP = {"l": "l = [1.0, 2.0]", "d": "d = {1: 2.0}", "st": "st = {1.0, 2.0}",
         "rng": "rng = np.random.default_rng(1)"}


def names():
    found = set()
    lib = os.path.join(ROOT, "compiler", "lib")
    paths = [os.path.join(lib, "builtins.def")]
    for d in sorted(os.listdir(lib)):
        if os.path.isdir(os.path.join(lib, d)):
            paths += [os.path.join(lib, d, f) for f in sorted(os.listdir(os.path.join(lib, d)))
                      if f.endswith(".def")]
    for p in paths:
        with open(p) as fh:
            found.update(re.findall(r'"((?:numpy|math|cmath|builtins|array|str|list|dict|set|random|operator|Generator)'
                                    r'(?:\.[A-Za-z_][A-Za-z0-9_]*)+)"', fh.read()))
    return sorted(found | overload_names())


def overload_names():
    """The NumPy functions hpcjit implements as overloads in Python
    (python/hpcjit/_np*.py: np.pad, np.einsum, np.meshgrid...)."""
    try:
        import hpcjit.compiler  # noqa: F401  (imports the overload modules)
        from hpcjit import extending
    except ImportError:
        return set()
    return {n.split(">", 1)[1] for n, _ in extending.named_overloads() if n.startswith("<overload>numpy.")}


def cases(only):
    n = 0
    for qual in names():
        if only and qual not in only:
            continue
        head, rest = qual.split(".", 1)
        if head in RECEIVERS:
            callees = [f"{r}.{rest}" for r in RECEIVERS[head]]
        elif head == "numpy":
            callees = [f"np.{rest}"]
        elif head == "builtins":
            callees = [rest]
        else:
            callees = [qual]
        if head == "array":
            callees += [f"{r}.{rest}" for r in ("f2", "a3", "u8")]
        for callee in callees:
            setup = SETUP.get(callee.split(".")[0], "")
            recv = callee.split(".")[0]
            for params, sig, arglists in ((PARAMS, None, ARGS), (PARAMS2, SIG2, ARGS2)):
                if recv in ("a", "b", "ia") and sig or recv in ("f2", "a3", "u8") and not sig:
                    continue  # a receiver among the other set's parameters
                for args in arglists:
                    n += 1
                    body = (f"    {setup}\n" if setup else "") + f"    return {callee}({args})\n"
                    job = {"id": n, "name": "f", "src": f"def f({params}):\n{body}", "qual": qual}
                    if sig:
                        job["sig"] = sig
                    yield job


OPERANDS = ("a", "x", "y", "b", "ia", "flag", "None", "'s'", "(x, y)", "[1.0]", "{1: 2.0}", "{1.0}",
            "1j", "a[:0]", "b.T")
BINOPS = ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "@", "<", "==", "in", "is")


def operator_cases(start):
    """Every binary operator on every pair of operand kinds, as a value, as
    an if test (folded when constant) and augmented (where a target is)."""
    n = start
    for op in BINOPS:
        for lhs in OPERANDS:
            for rhs in OPERANDS:
                bodies = [f"    return {lhs} {op} {rhs}\n",
                          f"    if {lhs} {op} {rhs}:\n        return 1\n    return 0\n"]
                if op not in ("<", "==", "in", "is"):
                    bodies.append(f"    t = {lhs}\n    t {op}= {rhs}\n    return t\n")
                for body in bodies:
                    n += 1
                    yield {"id": n, "name": "f", "src": f"def f({PARAMS}):\n{body}", "qual": f"operator {op}"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per compilation")
    ap.add_argument("--only", action="append",
                    help="a qualified name, or 'operators' for the operator table (repeatable)")
    ap.add_argument("--out", default="build/sweep-findings")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    env = dict(os.environ, HPCJIT_CACHE="0")
    todo = list(cases(set(args.only or ())))
    if not args.only or "operators" in args.only:
        todo += list(operator_cases(len(todo)))
    workers = [Worker(env) for _ in range(max(1, args.workers))]
    counts, findings = {}, []
    t0 = time.monotonic()

    def record(kind, job, detail):
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"{kind}-{job['id']}.py")
        with open(path, "w") as fh:
            fh.write(f"# {kind}: {detail}\n# {job['qual']}; parameters typed as in mutate.py\n{job['src']}")
        findings.append({"kind": kind, "qual": job["qual"], "path": path, "detail": detail})
        print(f"api_sweep: {kind}: {job['qual']}: {detail} ({path})", file=sys.stderr)

    import select
    pending = list(reversed(todo))
    for w in workers:
        if pending:
            w.send(pending.pop())
    busy = [w for w in workers if w.job]
    while busy:
        ready, _, _ = select.select([w.p.stdout for w in busy], [], [], 1.0)
        for i, w in enumerate(list(busy)):
            if w.p.stdout in ready:
                line = w.p.stdout.readline()
                if not line:  # died
                    rc = w.p.wait()
                    counts["crash"] = counts.get("crash", 0) + 1
                    record("crash", w.job, f"worker exited with {rc}")
                    workers[workers.index(w)] = w = Worker(env)
                else:
                    res = json.loads(line)
                    counts[res["status"]] = counts.get(res["status"], 0) + 1
                    if res["status"] == "finding":
                        record("finding", w.job, res["detail"])
                w.job = None
            elif time.monotonic() - w.t0 > args.timeout:
                w.kill()
                counts["hang"] = counts.get("hang", 0) + 1
                record("hang", w.job, f"no answer in {args.timeout:.0f} s")
                workers[workers.index(w)] = w = Worker(env)
                w.job = None
            if w.job is None and pending:
                w.send(pending.pop())
        busy = [w for w in workers if w.job]
    for w in workers:
        w.kill()
    took = time.monotonic() - t0
    print(f"api_sweep: {len(todo)} calls and operations ({len(names())} callables, {len(BINOPS)} operators) "
          f"in {took:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"calls": len(todo), "counts": counts, "findings": findings, "seconds": took}, fh,
                      indent=1)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
