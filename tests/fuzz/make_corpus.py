"""Write a seed corpus for the fuzzers: the source of every function
defined in the test suite, the golden files and the benchmarks (each
dedented, one file per function, duplicates dropped).

    python3 tests/fuzz/make_corpus.py OUTDIR
"""
import ast
import hashlib
import os
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = ("tests/python", "tests/compile", "benchmarks", "examples")
MAX_BYTES = 4096


def functions(path):
    try:
        text = open(path, encoding="utf-8").read()
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return
    header = text.splitlines()[0] if text.startswith("# args:") else None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            seg = ast.get_source_segment(text, node, padded=True)
            if not seg:
                continue
            src = textwrap.dedent(seg)
            if header and node.col_offset == 0:
                src = header + "\n" + src
            if len(src.encode()) <= MAX_BYTES:
                yield src


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    seen = set()
    for top in SOURCES:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith(".py"):
                    for src in functions(os.path.join(d, f)):
                        h = hashlib.sha1(src.encode()).hexdigest()[:16]
                        if h not in seen:
                            seen.add(h)
                            with open(os.path.join(out, h + ".py"), "w") as fh:
                                fh.write(src)
    print(f"{len(seen)} functions in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
