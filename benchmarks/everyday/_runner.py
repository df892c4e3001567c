"""What programs1..4.py share: the `case` decorator that lists a function
with its arguments, and the loop that runs each one with njit (Numba's, or
hpcjit's under `python -m hpcjit.numba`) and compares it with CPython's
result (ok / DIFF / FAIL)."""
import sys

import numpy as np

CASES = []


def case(*args):
    """@case(args...): run the function on these arguments."""
    def deco(f):
        CASES.append((f.__name__, f, args))
        return f
    return deco


def _same(x, y):
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        return len(x) == len(y) and all(_same(p, q) for p, q in zip(x, y))
    try:
        return (np.allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), equal_nan=True)
                and np.shape(x) == np.shape(y))
    except Exception:
        return repr(x) == repr(y)


def run(label=None):
    from numba import njit
    label = label or (sys.argv[1] if len(sys.argv) > 1 else "")
    ok = 0
    for name, f, args in CASES:
        def fresh():
            return [a.copy() if isinstance(a, (np.ndarray, list)) else a for a in args]
        try:
            want = f(*fresh())
        except Exception as e:
            want = ("pyerr", type(e).__name__, str(e)[:80])
        try:
            got = njit(f)(*fresh())
        except Exception as e:
            first = str(e).splitlines()[0][:200] if str(e) else ""
            print(f"{name:22s} FAIL {type(e).__name__}: {first}")
            continue
        same = _same(got, want)
        print(f"{name:22s} {'ok' if same else 'DIFF'}" + ("" if same else f"  got {got!r:.200} want {want!r:.200}"))
        ok += same
    print(label, ok, "of", len(CASES))
