"""Shared test machinery for the hpcjit pytest suite.

- HPCJIT_TESTS_AGAINST_NUMBA=1 replaces `hpcjit` by a Numba-backed shim
  (numba_shim.py) to validate the tests themselves; tests marked
  `numba_skip(reason)` are hpcjit-specific or check CPython semantics where
  Numba deviates, and are skipped in that mode.
- check(f, *args) runs the compiled function and its py_func on copies of the
  arguments and compares results, exceptions and mutated arguments.
"""
import math
import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
AGAINST_NUMBA = os.environ.get("HPCJIT_TESTS_AGAINST_NUMBA") == "1"

collect_ignore = []
if AGAINST_NUMBA:
    sys.path.insert(0, HERE)
    import numba_shim

    numba_shim.install()
    # these test hpcjit's internals (the runtime engineer's), not behaviour
    collect_ignore = ["test_env.py", "test_dispatcher_api.py"]


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "numba_skip(reason): hpcjit-specific test, or CPython semantics where "
        "Numba deviates; skipped when HPCJIT_TESTS_AGAINST_NUMBA=1")


def pytest_collection_modifyitems(config, items):
    if not AGAINST_NUMBA:
        return
    for item in items:
        m = item.get_closest_marker("numba_skip")
        if m is not None:
            reason = m.kwargs.get("reason") or (m.args[0] if m.args else "")
            item.add_marker(pytest.mark.skip(reason="numba_skip: " + reason))


def pytest_report_header(config):
    return "hpcjit tests against: " + ("NUMBA (shim)" if AGAINST_NUMBA else "hpcjit")


# ---------------------------------------------------------------------------
# Inputs

DTYPES_INT = [np.int8, np.int16, np.int32, np.int64]
DTYPES_UINT = [np.uint8, np.uint16, np.uint32, np.uint64]
DTYPES_FLOAT = [np.float32, np.float64]
DTYPES_REAL = DTYPES_INT + DTYPES_UINT + DTYPES_FLOAT
DTYPES_ALL = DTYPES_REAL + [np.complex128, np.bool_]
LAYOUTS = ["C", "F", "strided", "reversed"]
SEED = 20240607


def rng(seed=SEED):
    return np.random.default_rng(seed)


def random_values(dtype, shape, gen=None):
    """Random values of `dtype` that stay small enough for sums not to
    overflow in the narrow integer types."""
    gen = gen if gen is not None else rng()
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return gen.integers(0, 2, size=shape).astype(dt)
    if dt.kind == "u":
        return gen.integers(0, 10, size=shape).astype(dt)
    if dt.kind == "i":
        return gen.integers(-10, 10, size=shape).astype(dt)
    if dt.kind == "f":
        return gen.uniform(-10, 10, size=shape).astype(dt)
    if dt.kind == "c":
        return (gen.uniform(-10, 10, size=shape)
                + 1j * gen.uniform(-10, 10, size=shape)).astype(dt)
    raise ValueError(dt)


def make_array(dtype, shape, layout="C", gen=None):
    """An array of `shape` in the given layout: "C", "F", "strided" (every
    other element of a larger array along each axis: not contiguous) or
    "reversed" (negative strides)."""
    if isinstance(shape, int):
        shape = (shape,)
    vals = random_values(dtype, shape, gen)
    if layout == "C":
        return np.ascontiguousarray(vals)
    if layout == "F":
        return np.asfortranarray(vals)
    if layout == "strided":
        big = np.zeros(tuple(2 * n + 1 for n in shape), dtype=vals.dtype)
        view = big[tuple(slice(1, None, 2) for _ in shape)][tuple(slice(0, n) for n in shape)]
        view[...] = vals
        if len(shape) and min(shape) > 1:
            assert not view.flags.c_contiguous and not view.flags.f_contiguous
        return view
    if layout == "reversed":
        big = np.empty(shape, dtype=vals.dtype)
        view = big[tuple(slice(None, None, -1) for _ in shape)]
        view[...] = vals
        return view
    raise ValueError(layout)


def clone(a):
    """A deep copy that keeps the layout (contiguity and strides) of `a`."""
    if isinstance(a, np.ndarray):
        if a.ndim == 0 or a.flags.c_contiguous:
            return np.array(a, order="C", copy=True)
        if a.flags.f_contiguous:
            return np.array(a, order="F", copy=True)
        lo = sum(s * (n - 1) for s, n in zip(a.strides, a.shape) if s < 0)
        hi = sum(s * (n - 1) for s, n in zip(a.strides, a.shape) if s > 0) + a.itemsize
        buf = np.empty(hi - lo, dtype=np.uint8)
        view = np.ndarray(a.shape, a.dtype, buffer=buf, offset=-lo, strides=a.strides)
        view[...] = a
        return view
    if isinstance(a, tuple):
        if hasattr(type(a), "_fields"):  # a named tuple keeps its class
            return type(a)(*(clone(x) for x in a))
        return tuple(clone(x) for x in a)
    if isinstance(a, list):
        return [clone(x) for x in a]
    if isinstance(a, bytearray):
        return bytearray(a)
    return a


# ---------------------------------------------------------------------------
# Comparison

def _kind(x):
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, (int, np.integer)):
        return "int"
    if isinstance(x, (float, np.floating)):
        return "float"
    if isinstance(x, (complex, np.complexfloating)):
        return "complex"
    if isinstance(x, np.ndarray):
        return "array"
    if isinstance(x, tuple):
        return "tuple"
    if x is None:
        return "none"
    return type(x).__name__


def _close(g, e, rtol, atol):
    if math.isnan(e):
        return math.isnan(g)
    if math.isinf(e):
        return g == e
    if e == 0.0 and g == 0.0 and atol == 0.0:
        # IEEE operations are exact about the sign of zero: -0.0 != 0.0 here
        return math.copysign(1.0, g) == math.copysign(1.0, e)
    return math.isclose(g, e, rel_tol=rtol, abs_tol=atol)


def assert_same(got, exp, rtol=1e-12, atol=0.0, path="result"):
    """Compare a compiled result with the CPython one: same kind, same
    dtype and shape for arrays, exact ints and bools, floats to rtol."""
    if isinstance(exp, (np.datetime64, np.timedelta64)):
        # the same type and unit, equal counts (NaT == NaT is False in NumPy)
        assert type(got) is type(exp) and got.dtype == exp.dtype, f"{path}: got {got!r}, expected {exp!r}"
        assert got.astype(np.int64) == exp.astype(np.int64), f"{path}: {got!r} != {exp!r}"
        return
    kg, ke = _kind(got), _kind(exp)
    assert kg == ke, f"{path}: got {type(got).__name__} {got!r}, expected {type(exp).__name__} {exp!r}"
    if ke == "array":
        assert got.dtype == exp.dtype, f"{path}: dtype {got.dtype} != {exp.dtype}"
        assert got.shape == exp.shape, f"{path}: shape {got.shape} != {exp.shape}"
        if exp.dtype.kind in "fc":
            np.testing.assert_allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=path)
        else:
            np.testing.assert_array_equal(got, exp, err_msg=path)
    elif ke == "tuple":
        assert len(got) == len(exp), f"{path}: tuple length {len(got)} != {len(exp)}"
        for i, (g, e) in enumerate(zip(got, exp)):
            assert_same(g, e, rtol, atol, f"{path}[{i}]")
    elif ke in ("bool", "int"):
        assert int(got) == int(exp), f"{path}: {got!r} != {exp!r}"
    elif ke == "float":
        assert _close(float(got), float(exp), rtol, atol), f"{path}: {got!r} != {exp!r}"
    elif ke == "complex":
        g, e = complex(got), complex(exp)
        assert _close(g.real, e.real, rtol, atol) and _close(g.imag, e.imag, rtol, atol), \
            f"{path}: {got!r} != {exp!r}"
    else:
        assert got == exp, f"{path}: {got!r} != {exp!r}"


def _call(fn, args):
    with warnings.catch_warnings():
        # NumPy scalars warn on the overflow that compiled code wraps silently
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            try:
                return fn(*args), None
            except Exception as exc:  # compared below
                return None, exc


def check(f, *args, rtol=1e-12, atol=0.0):
    """Call the compiled `f` and `f.py_func` on copies of `args`; compare the
    results (or that both raise the same exception type) and the argument
    arrays afterwards.  Returns the compiled result (or its exception)."""
    a_jit = clone(args)
    a_py = clone(args)
    got, gexc = _call(f, a_jit)
    exp, eexc = _call(f.py_func, a_py)
    if eexc is not None or gexc is not None:
        if gexc is None:
            raise AssertionError(f"py_func raised {type(eexc).__name__}: {eexc}; "
                                 f"compiled returned {got!r}")
        if eexc is None:
            raise AssertionError(f"compiled raised {type(gexc).__name__}: {gexc}; "
                                 f"py_func returned {exp!r}") from gexc
        assert type(gexc) is type(eexc), \
            f"compiled raised {type(gexc).__name__}: {gexc}; py_func raised {type(eexc).__name__}: {eexc}"
        return gexc
    assert_same(got, exp, rtol, atol)
    for i, (aj, ap) in enumerate(zip(a_jit, a_py)):
        if isinstance(ap, (np.ndarray, bytearray)):
            assert_same(aj, ap, rtol, atol, f"argument {i} after the call")
    return got


def run_python(code, env=None, timeout=300):
    """Run `code` in a fresh interpreter that imports the same hpcjit as this
    session (the Numba shim when testing against Numba).  Returns the
    CompletedProcess."""
    prefix = ""
    full_env = dict(os.environ)
    if AGAINST_NUMBA:
        prefix = f"import sys; sys.path.insert(0, {HERE!r}); import numba_shim; numba_shim.install()\n"
    if env:
        for k, v in env.items():
            full_env[k] = v
            if AGAINST_NUMBA and k.startswith("HPCJIT_"):
                full_env["NUMBA_" + k[len("HPCJIT_"):]] = v
    return subprocess.run([sys.executable, "-c", prefix + textwrap.dedent(code)],
                          env=full_env, capture_output=True, text=True, timeout=timeout)


def assert_located_in(path, exc, marker):
    """The message of exc names path:line:col, the line being the one of
    `path` that ends with the comment `# marker`, and has a caret line."""
    with open(path) as fh:
        lines = fh.read().splitlines()
    want = next((i for i, text in enumerate(lines, 1) if text.rstrip().endswith("# " + marker)), None)
    assert want is not None, f"no line ends with '# {marker}' in {path}"
    msg = str(exc)
    m = re.search(re.escape(os.path.basename(path)) + r":(\d+):(\d+)", msg)
    assert m, f"no file:line:col in message:\n{msg}"
    assert int(m.group(1)) == want, msg
    assert re.search(r"^\s*\^", msg, re.M), f"no caret line:\n{msg}"


@pytest.fixture
def balanced():
    """Every allocation made by the test (arrays, containers, str, instances)
    is freed: hpcjit's memstats balance around it (not under Numba)."""
    if AGAINST_NUMBA:
        yield
        return
    import gc
    import hpcjit
    gc.collect()
    before = hpcjit._core.memstats()
    yield
    gc.collect()
    after = hpcjit._core.memstats()
    assert after[0] - before[0] == after[1] - before[1], (before, after)
