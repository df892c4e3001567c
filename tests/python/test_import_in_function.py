"""Import statements inside compiled functions: `import X`, `import X as Y`,
`import a.b`, `from X import a, b as c` bind their names as globals of the
function (compiler.py _import_bindings, compiler/infer/infer.c
check_import), for the modules the compiler resolves as globals (math,
cmath, numpy and its submodules, operator, hpcjit).  Checked against
CPython with check(); a module hpcjit cannot import is a located error
naming it."""
import numpy as np
import pytest

import hpcjit
from hpcjit import njit
from conftest import AGAINST_NUMBA, assert_located_in, check

NS = pytest.mark.numba_skip
# Numba 0.68 refuses every import statement in compiled code (IMPORT_NAME)
pytestmark = NS("Numba 0.68 refuses import statements in compiled code")
HERE = __file__
UnsupportedError = None if AGAINST_NUMBA else hpcjit.errors.UnsupportedError


@njit
def imp_math(x):
    import math
    return math.sqrt(x) + math.floor(x) + math.comb(6, 2)


@njit
def imp_numpy_as(n):
    import numpy as npx
    a = npx.arange(n) * 2.0
    return npx.sum(a), a


@njit
def imp_from_math(x):
    from math import sqrt, pi as PI, exp
    return sqrt(x) * PI + exp(-x)


@njit
def imp_dotted(a):
    import numpy.linalg
    return numpy.linalg.norm(a)


@njit
def imp_dotted_as(a):
    import numpy.linalg as la
    return la.norm(a), la.det(a.reshape(2, 2))


@njit
def imp_from_numpy(a):
    from numpy import sum as npsum, linalg, cumsum
    return npsum(a), linalg.norm(a), cumsum(a)


@njit
def imp_cmath(z):
    import cmath
    return cmath.sqrt(z), cmath.exp(z)


@njit
def imp_operator(a, b):
    import operator
    from operator import mul
    return operator.add(a, b), mul(a, b)


@njit
def imp_random_seeded(seed):
    import numpy.random as rnd
    rnd.seed(seed)
    return rnd.random()


@njit
def imp_in_branch(x):
    if x > 0:
        import math
        return math.log(x)
    return 0.0


@njit
def imp_shadows_global(x):
    import math as np  # the local binding wins over the module's global np
    return np.sqrt(x)


@njit
def imp_in_loop(n):
    s = 0.0
    for i in range(n):
        from math import sqrt
        s += sqrt(i)
    return s


@njit
def imp_in_inner_def(x):
    def g(y):
        import math
        return math.sqrt(y)
    return g(x)


@njit(parallel=True)
def imp_with_prange(a):
    import numpy as npp
    s = 0.0
    for i in hpcjit.prange(a.shape[0]):
        s += npp.sqrt(a[i])
    return s


@njit
def imp_in_comprehension(a):
    import numpy as np2
    return [np2.sqrt(v) for v in a]


def test_import_in_inner_def_prange_comprehension():
    check(imp_in_inner_def, 4.0)
    check(imp_with_prange, np.arange(10.0))
    check(imp_in_comprehension, np.arange(3.0))


@pytest.mark.parametrize("x", [0.5, 2.0, 9.0])
def test_import_math(x):
    check(imp_math, x)
    check(imp_from_math, x)
    check(imp_in_branch, x)
    check(imp_in_branch, -x)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_import_numpy_as(n):
    check(imp_numpy_as, n)
    check(imp_in_loop, n)


@pytest.mark.parametrize("a", [np.arange(4.0), np.array([1.0, -2.0, 3.5, 4.0])])
def test_import_dotted(a):
    check(imp_dotted, a)
    check(imp_dotted_as, a)
    check(imp_from_numpy, a)


@pytest.mark.parametrize("z", [1 + 2j, -3.0 + 0.5j])
def test_import_cmath(z):
    check(imp_cmath, z)


@pytest.mark.parametrize("a,b", [(2, 3), (1.5, -4.0)])
def test_import_operator(a, b):
    check(imp_operator, a, b)


def test_import_numpy_random():
    # the generator is the compiled code's, seeded by it: the same seed gives the same draw twice
    assert imp_random_seeded(3) == imp_random_seeded(3)
    assert 0.0 <= imp_random_seeded(5) < 1.0


def test_import_shadows_global():
    check(imp_shadows_global, 16.0)


# ---- refusals ----

@njit
def imp_unknown(x):
    import hpcjit_no_such_module  # unknown-module
    return x


@njit
def imp_missing_name(x):
    from math import no_such_function  # missing-name
    return x


def test_import_unknown_module():
    with pytest.raises(UnsupportedError, match="module 'hpcjit_no_such_module'") as ei:
        imp_unknown(1)
    assert_located_in(HERE, ei.value, "unknown-module")


def test_import_missing_name():
    with pytest.raises(UnsupportedError, match="'no_such_function' from module 'math'") as ei:
        imp_missing_name(1)
    assert_located_in(HERE, ei.value, "missing-name")


SRC_NO_TEXT = '''
def f(x):
    import math
    from math import sqrt as s, pi
    import numpy.linalg as la
    import numpy.linalg
    a = numpy.ones(3) * x
    return math.floor(x) + s(x) + pi + la.norm(a) + numpy.linalg.norm(a)
'''


def test_import_without_source():
    # no source text (exec of a string): the statements come back from the bytecode (bytecode.py)
    ns = {}
    exec(compile(SRC_NO_TEXT, "<no source>", "exec"), ns)
    f = njit(ns["f"])
    check(f, 4.0)
    check(f, 2.5)
