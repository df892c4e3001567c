"""Consecutive array statements in one loop (N_FUSED) beside Numba 0.68.

    PYTHONPATH=build/python python3 benchmarks/stmt_fusion.py [--n 10000000] [--repeat 5]

Times a Black-Scholes chain (five input arrays, two @vectorize calls of
erf, fastmath, written here) under hpcjit with statement fusion and without
(HPCJIT_NO_STMT_FUSION=1, compiled in the same process), serial and
parallel=True, and under Numba in a subprocess of its own; then the pool's
gain on a libm-bound loop (`exp(a) * 2 + 1` as an array expression and as a
prange loop) to tell the pool apart from the machine.  Best of --repeat
calls, wall time, ms."""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np


SRC = '''
def bs(price, strike, rate, vol, t):
    logterm = np.log(price / strike)
    powterm = 0.5 * vol * vol
    den = vol * np.sqrt(t)
    d1 = ((rate + powterm) * t + logterm) / den
    d2 = d1 - den
    nd1 = cndf(d1)
    nd2 = cndf(d2)
    fv = strike * np.exp(-rate * t)
    call = price * nd1 - fv * nd2
    return call - fv + price
'''


def inputs(n):
    k = 40 + (np.arange(n) + 1.0) / n
    return (np.full(n, 42.0), k, np.full(n, 0.5), np.full(n, 0.2), np.full(n, 0.5))


def best(f, args, repeat):
    b = float("inf")
    for _ in range(repeat):
        time.sleep(0.02)  # the other pool's workers go quiet
        t0 = time.perf_counter()
        f(*args)
        b = min(b, time.perf_counter() - t0)
    return b * 1e3


def compile_chain(mod, parallel, fused):
    """The chain compiled by mod (hpcjit or numba), with statement fusion
    on or off (hpcjit reads the switch when it compiles: the first call)."""
    ns = {"np": np}

    @mod.vectorize(nopython=True)
    def cndf(x):
        return 0.5 + 0.5 * math.erf((math.sqrt(2.0) / 2.0) * x)

    ns["cndf"] = cndf
    exec(SRC, ns)
    os.environ["HPCJIT_NO_STMT_FUSION"] = "0" if fused else "1"
    f = mod.njit(parallel=parallel, fastmath=True)(ns["bs"])
    f(*inputs(4))
    os.environ.pop("HPCJIT_NO_STMT_FUSION", None)
    return f


def run(modname, n, repeat, variants):
    mod = __import__(modname)
    args = inputs(n)
    fs = {name: compile_chain(mod, par, fused) for name, (par, fused) in variants.items()}
    times = {name: float("inf") for name in fs}
    for _ in range(repeat):  # interleaved: load moves all alike
        for name, f in fs.items():
            times[name] = min(times[name], best(f, args, 1))
    return times


def scaling(n, repeat):
    import hpcjit

    def ae(a):
        return np.exp(a) * 2.0 + 1.0

    def loop(a):
        out = np.empty_like(a)
        for i in hpcjit.prange(a.shape[0]):
            out[i] = math.exp(a[i]) * 2.0 + 1.0
        return out

    a = np.random.default_rng(0).uniform(size=n)
    fs = {"array expression, serial": hpcjit.njit(ae), "array expression, pool": hpcjit.njit(parallel=True)(ae),
          "loop, serial": hpcjit.njit(loop), "prange loop, pool": hpcjit.njit(parallel=True)(loop)}
    for f in fs.values():
        f(a)
    times = {k: float("inf") for k in fs}
    for _ in range(repeat):
        for k, f in fs.items():
            times[k] = min(times[k], best(f, (a,), 1))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worker", choices=("numba",), help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        print(json.dumps(run("numba", opts.n, opts.repeat,
                             {"numba serial": (False, True), "numba parallel": (True, True)})))
        return 0
    hj = run("hpcjit", opts.n, opts.repeat,
             {"hpcjit serial, unfused": (False, False), "hpcjit serial, fused": (False, True),
              "hpcjit parallel, unfused": (True, False), "hpcjit parallel, fused": (True, True)})
    env = {k: v for k, v in os.environ.items() if not k.startswith("HPCJIT_")}
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "numba", "--n", str(opts.n),
                        "--repeat", str(opts.repeat)], capture_output=True, text=True, env=env)
    nb = json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else {}
    print(f"Black-Scholes chain, {opts.n} float64, fastmath, best of {opts.repeat} (ms):")
    for name, t in list(hj.items()) + list(nb.items()):
        print(f"  {name:28s} {t:10.1f}")
    if r.returncode != 0:
        print("  numba: " + (r.stderr.strip().splitlines() or ["failed"])[-1])
    print(f"\nthe pool's gain on exp(a) * 2 + 1, {opts.n // 10} float64 (ms):")
    for name, t in scaling(opts.n // 10, max(opts.repeat, 10)).items():
        print(f"  {name:28s} {t:10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
