"""Seeded draws in compiled code against the interpreter's.

For every np.random function and random-module function that hpcjit
compiles, a function seeds (np.random.seed / random.seed) and draws 8
values (a size=8 array where the function takes size=, and 8 scalar draws in a
loop); the same function run by CPython (py_func, i.e. NumPy's global
RandomState / CPython's random) gives the reference.  Prints one line per
function: "bit" when the compiled draws equal the interpreter's bit for bit,
"close" when they agree to 1e-12 relative, "DIFF" otherwise.

    python3 benchmarks/random/parity.py            # Numba
    PYTHONPATH=build/python python3 benchmarks/random/parity.py --hpcjit
    PYTHONPATH=build/python python3 benchmarks/random/parity.py --hpcjit --vs-numba

With --vs-numba the reference is the same function compiled by Numba
instead of py_func: "bit" there means hpcjit reproduces Numba's draws.
With --numba-seeding the interpreter's random.seed(n) is replaced by the
state np.random.seed(n) makes (init_genrand(n), which is what Numba's
random.seed(n) does; CPython's runs init_by_array): it shows which random
module functions then draw CPython's numbers.
"""
import argparse
import sys

import numpy as np

NP_CALLS = [
    ("rand", "np.random.rand()", "np.random.rand(8)"),
    ("randn", "np.random.randn()", "np.random.randn(8)"),
    ("random", "np.random.random()", "np.random.random(8)"),
    ("random_sample", "np.random.random_sample()", "np.random.random_sample(8)"),
    ("ranf", "np.random.ranf()", "np.random.ranf(8)"),
    ("sample", "np.random.sample()", "np.random.sample(8)"),
    ("randint", "np.random.randint(0, 1000)", "np.random.randint(-5, 1000, 8)"),
    ("randint_wide", "np.random.randint(0, 2**40)", "np.random.randint(-2**40, 2**40, 8)"),
    ("uniform", "np.random.uniform(1.0, 3.0)", "np.random.uniform(1.0, 3.0, 8)"),
    ("normal", "np.random.normal(1.0, 2.0)", "np.random.normal(1.0, 2.0, 8)"),
    ("standard_normal", "np.random.standard_normal()", "np.random.standard_normal(8)"),
    ("exponential", "np.random.exponential(2.0)", "np.random.exponential(2.0, 8)"),
    ("standard_exponential", "np.random.standard_exponential()", "np.random.standard_exponential(8)"),
    ("gamma_small", "np.random.gamma(0.5, 2.0)", "np.random.gamma(0.5, 2.0, 8)"),
    ("gamma", "np.random.gamma(3.0, 2.0)", "np.random.gamma(3.0, 2.0, 8)"),
    ("standard_gamma", "np.random.standard_gamma(3.0)", "np.random.standard_gamma(3.0, 8)"),
    ("beta", "np.random.beta(2.0, 3.0)", "np.random.beta(2.0, 3.0, 8)"),
    ("beta_small", "np.random.beta(0.5, 0.5)", "np.random.beta(0.5, 0.5, 8)"),
    ("chisquare", "np.random.chisquare(3.0)", "np.random.chisquare(3.0, 8)"),
    ("f", "np.random.f(3.0, 5.0)", "np.random.f(3.0, 5.0, 8)"),
    ("noncentral_chisquare", "np.random.noncentral_chisquare(3.0, 2.0)",
     "np.random.noncentral_chisquare(3.0, 2.0, 8)"),
    ("noncentral_f", "np.random.noncentral_f(3.0, 5.0, 2.0)", "np.random.noncentral_f(3.0, 5.0, 2.0, 8)"),
    ("standard_cauchy", "np.random.standard_cauchy()", "np.random.standard_cauchy(8)"),
    ("standard_t", "np.random.standard_t(3.0)", "np.random.standard_t(3.0, 8)"),
    ("vonmises", "np.random.vonmises(0.5, 2.0)", "np.random.vonmises(0.5, 2.0, 8)"),
    ("pareto", "np.random.pareto(3.0)", "np.random.pareto(3.0, 8)"),
    ("weibull", "np.random.weibull(2.0)", "np.random.weibull(2.0, 8)"),
    ("power", "np.random.power(2.0)", "np.random.power(2.0, 8)"),
    ("laplace", "np.random.laplace(1.0, 2.0)", "np.random.laplace(1.0, 2.0, 8)"),
    ("gumbel", "np.random.gumbel(1.0, 2.0)", "np.random.gumbel(1.0, 2.0, 8)"),
    ("logistic", "np.random.logistic(1.0, 2.0)", "np.random.logistic(1.0, 2.0, 8)"),
    ("lognormal", "np.random.lognormal(1.0, 0.5)", "np.random.lognormal(1.0, 0.5, 8)"),
    ("rayleigh", "np.random.rayleigh(2.0)", "np.random.rayleigh(2.0, 8)"),
    ("wald", "np.random.wald(1.0, 2.0)", "np.random.wald(1.0, 2.0, 8)"),
    ("triangular", "np.random.triangular(0.0, 1.0, 3.0)", "np.random.triangular(0.0, 1.0, 3.0, 8)"),
    ("binomial_small", "np.random.binomial(10, 0.3)", "np.random.binomial(10, 0.3, 8)"),
    ("binomial_large", "np.random.binomial(1000, 0.3)", "np.random.binomial(1000, 0.3, 8)"),
    ("binomial_hi_p", "np.random.binomial(1000, 0.8)", "np.random.binomial(1000, 0.8, 8)"),
    ("negative_binomial", "np.random.negative_binomial(5, 0.3)", "np.random.negative_binomial(5, 0.3, 8)"),
    ("poisson_small", "np.random.poisson(3.0)", "np.random.poisson(3.0, 8)"),
    ("poisson_large", "np.random.poisson(50.0)", "np.random.poisson(50.0, 8)"),
    ("geometric", "np.random.geometric(0.3)", "np.random.geometric(0.3, 8)"),
    ("zipf", "np.random.zipf(2.5)", "np.random.zipf(2.5, 8)"),
    ("logseries", "np.random.logseries(0.7)", "np.random.logseries(0.7, 8)"),
    ("hypergeometric", "np.random.hypergeometric(10, 20, 8)", "np.random.hypergeometric(10, 20, 8, 8)"),
    ("hypergeometric_large", "np.random.hypergeometric(100, 200, 50)",
     "np.random.hypergeometric(100, 200, 50, 8)"),
    ("choice", "np.random.choice(100)", "np.random.choice(100, 8)"),
    ("choice_noreplace", None, "np.random.choice(100, 8, replace=False)"),
    ("choice_array", None, "np.random.choice(np.arange(100.0), 8)"),
    ("permutation", None, "np.random.permutation(8)"),
    ("shuffle", None, "_shuffled_np()"),
    ("dirichlet", None, "np.random.dirichlet(np.array([1.0, 2.0, 3.0]), 3).ravel()"),
    ("multinomial", None, "np.random.multinomial(20, np.array([0.2, 0.3, 0.5]), 3).ravel().astype(np.float64)"),
]

PY_CALLS = [
    ("random", "random.random()"),
    ("uniform", "random.uniform(1.0, 3.0)"),
    ("triangular", "random.triangular(0.0, 3.0, 1.0)"),
    ("gauss", "random.gauss(1.0, 2.0)"),
    ("normalvariate", "random.normalvariate(1.0, 2.0)"),
    ("lognormvariate", "random.lognormvariate(1.0, 0.5)"),
    ("expovariate", "random.expovariate(2.0)"),
    ("gammavariate_small", "random.gammavariate(0.5, 2.0)"),
    ("gammavariate_one", "random.gammavariate(1.0, 2.0)"),
    ("gammavariate", "random.gammavariate(3.0, 2.0)"),
    ("betavariate", "random.betavariate(2.0, 3.0)"),
    ("vonmisesvariate", "random.vonmisesvariate(0.5, 2.0)"),
    ("paretovariate", "random.paretovariate(3.0)"),
    ("weibullvariate", "random.weibullvariate(1.0, 2.0)"),
    ("getrandbits", "random.getrandbits(20)"),
    ("getrandbits64", "random.getrandbits(64)"),
    ("randrange", "random.randrange(1000)"),
    ("randrange3", "random.randrange(-50, 1000, 7)"),
    ("randint", "random.randint(-50, 1000)"),
    ("randint_wide", "random.randint(0, 2**40)"),
    ("shuffle", None),
]

TEMPLATE_NP_SCALAR = """
def f(seed):
    np.random.seed(seed)
    out = np.empty(8)
    for i in range(8):
        out[i] = {call}
    return out
"""
TEMPLATE_NP_ARRAY = """
def f(seed):
    np.random.seed(seed)
    return {call}
"""
TEMPLATE_PY = """
def f(seed):
    random.seed(seed)
    out = np.empty(8)
    for i in range(8):
        out[i] = {call}
    return out
"""
TEMPLATE_PY_SHUFFLE = """
def f(seed):
    random.seed(seed)
    a = np.arange(20.0)
    random.shuffle(a)
    return a
"""
TEMPLATE_NP_SHUFFLE = """
def f(seed):
    np.random.seed(seed)
    a = np.arange(20.0)
    np.random.shuffle(a)
    return a
"""


def compare(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return "DIFF"
    if np.array_equal(a, b, equal_nan=True):
        return "bit"
    if np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True):
        return "close"
    return "DIFF"


class _NumbaSeeded:
    """The random module, but seed(n) sets the MT19937 words of
    init_genrand(n) (NumPy's RandomState.seed(n), Numba's random.seed(n))."""

    def __getattr__(self, name):
        import random
        return getattr(random, name)

    def seed(self, n):
        import random
        key = np.random.RandomState(n).get_state()[1]
        random.setstate((3, tuple(int(x) for x in key) + (624,), None))


NUMBA_SEEDING = False


def run(jit, src, seeds, ref_jit=None):
    import random  # noqa: F401 (used by the generated source)
    ns = {"np": np, "random": random}
    exec(src, ns)
    cf = jit(ns["f"])
    ref = ref_jit(ns["f"]) if ref_jit else ns["f"]
    if NUMBA_SEEDING and not ref_jit:
        ns_ref = {"np": np, "random": _NumbaSeeded()}
        exec(src, ns_ref)
        ref = ns_ref["f"]
    res = []
    for s in seeds:
        try:
            got = cf(s)
        except Exception as e:  # noqa: BLE001 (the table reports what failed to compile)
            return "ERROR " + type(e).__name__ + ": " + str(e).splitlines()[0][:60]
        try:
            want = ref(s)
        except Exception as e:  # noqa: BLE001 (Numba lacks the function)
            return "REF ERROR " + type(e).__name__

        res.append(compare(got, want))
    for r in ("DIFF", "close"):
        if r in res:
            return r
    return "bit"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hpcjit", action="store_true", help="test hpcjit instead of Numba")
    ap.add_argument("--vs-numba", action="store_true", help="compare with Numba's draws, not the interpreter's")
    ap.add_argument("--numba-seeding", action="store_true",
                    help="the interpreter's random.seed(n) as Numba's (init_genrand)")
    ap.add_argument("--seeds", default="0,1,12345,4294967295")
    args = ap.parse_args()
    if args.hpcjit:
        import hpcjit
        jit, who = hpcjit.njit, "hpcjit"
    else:
        import numba
        jit, who = numba.njit, "numba " + numba.__version__
    ref = None
    if args.vs_numba:
        import numba
        ref, who = numba.njit, who + " vs numba " + numba.__version__
    global NUMBA_SEEDING
    NUMBA_SEEDING = args.numba_seeding
    if NUMBA_SEEDING:
        who += ", random.seed in the interpreter as Numba's"
    seeds = [int(s) for s in args.seeds.split(",")]
    print(f"# {who}, numpy {np.__version__}, python {sys.version.split()[0]}, seeds {seeds}")
    print(f"{'function':34s} {'scalar loop':12s} {'size=8 / array':12s}")
    for name, scal, arr in NP_CALLS:
        a = run(jit, TEMPLATE_NP_SCALAR.format(call=scal), seeds, ref) if scal else "-"
        if name == "shuffle":
            b = run(jit, TEMPLATE_NP_SHUFFLE, seeds, ref)
        else:
            b = run(jit, TEMPLATE_NP_ARRAY.format(call=arr), seeds, ref)
        print(f"np.random.{name:24s} {a:12s} {b:12s}")
    for name, call in PY_CALLS:
        if name == "shuffle":
            a = run(jit, TEMPLATE_PY_SHUFFLE, seeds, ref)
        else:
            a = run(jit, TEMPLATE_PY.format(call=call), seeds, ref)
        print(f"random.{name:27s} {a:12s}")


if __name__ == "__main__":
    main()
