"""The drop-in as users run it: `python -m hpcjit.numba SCRIPT` and
`HPCJIT_AS_NUMBA=1 python SCRIPT` (through hpcjit-as-numba.pth in a site
directory), on a script written for Numba, checked against its py_func."""
import os
import site
import subprocess
import sys
import textwrap

import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit's drop-in for Numba", allow_module_level=True)

pytestmark = pytest.mark.numba_skip("runs Numba programs on hpcjit's drop-in")

# hpcjit/ lives in this folder (build/python, or site-packages)
PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(hpcjit.__file__)))

SCRIPT = '''
import sys
import numpy as np
import numba
from numba import njit, jit, prange
from numba.core import types
from numba.core.errors import TypingError
import numba.typed
from numba.np.numpy_support import from_dtype

assert numba.__hpcjit__, "not hpcjit"

@njit(parallel=True, fastmath=False)
def row_norms(X):
    out = np.empty(X.shape[0])
    for i in prange(X.shape[0]):
        s = 0.0
        for j in range(X.shape[1]):
            s += X[i, j] * X[i, j]
        out[i] = np.sqrt(s)
    return out

@jit(nopython=True, cache=True)
def axpy(a, x, y):
    return a * x + y

@njit(types.float64(types.float64[::1], types.int64))
def head_sum(a, n):
    s = 0.0
    for i in range(n):
        s += a[i]
    return s

@numba.njit
def uses_module_prange(a):
    t = 0
    for i in numba.prange(a.shape[0]):
        t += a[i]
    return t

X = np.random.default_rng(1).random((50, 7))
assert np.allclose(row_norms(X), row_norms.py_func(X))
x = np.arange(5.0)
assert np.allclose(axpy(2.0, x, x), axpy.py_func(2.0, x, x))
assert head_sum(x, 3) == head_sum.py_func(x, 3) == 3.0
assert uses_module_prange(np.arange(10)) == 45
assert from_dtype(np.float32) is types.float32
assert str(types.float32[:, ::1]) == "array(float32, 2d, C)"
try:
    @njit
    def bad(x):
        return x + "a"
    bad(1)
except TypingError as e:
    print("typing error caught")
print("ok", numba.__version__, sys.argv[1:])
'''

UNSUPPORTED = '''
from numba import njit, gdb

gdb()
'''


def _env(**extra):
    env = dict(os.environ)
    env.pop("HPCJIT_AS_NUMBA", None)
    env["PYTHONPATH"] = os.pathsep.join([PKG_PARENT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(extra)
    return env


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def _run(args, env, cwd):
    return subprocess.run([sys.executable] + args, env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_module_form(tmp_path):
    script = _write(tmp_path, "prog.py", SCRIPT)
    r = _run(["-m", "hpcjit.numba", script, "a", "--b"], _env(), tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "typing error caught" in r.stdout
    assert "ok 0.68.0+hpcjit." in r.stdout and "['a', '--b']" in r.stdout


def test_module_form_c_and_m(tmp_path):
    _write(tmp_path, "progmod.py", SCRIPT)
    r = _run(["-m", "hpcjit.numba", "-m", "progmod", "x"], _env(), tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "['x']" in r.stdout
    code = "import numba, numpy as np\n@numba.njit\ndef f(a):\n    return a.sum()\nprint(f(np.arange(4)), numba.__hpcjit__)\n"
    r = _run(["-m", "hpcjit.numba", "-c", code], _env(), tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["6", "True"]


def test_help_and_version(tmp_path):
    r = _run(["-m", "hpcjit.numba", "--help"], _env(), tmp_path)
    assert r.returncode == 0 and "usage: python -m hpcjit.numba SCRIPT" in r.stdout
    assert "HPCJIT_AS_NUMBA=1" in r.stdout
    r = _run(["-m", "hpcjit.numba"], _env(), tmp_path)
    assert r.returncode == 2 and "usage:" in r.stderr
    r = _run(["-m", "hpcjit.numba", "--version"], _env(), tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("hpcjit ")


def test_unsupported_feature_names_itself(tmp_path):
    script = _write(tmp_path, "vec.py", UNSUPPORTED)
    r = _run(["-m", "hpcjit.numba", script], _env(), tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == "hpcjit.errors.UnsupportedError: numba.gdb is not supported by hpcjit yet"
    # the traceback points at the use in the script
    assert 'vec.py", line 4' in r.stderr


def _site_dir(tmp_path):
    """A user site directory (PYTHONUSERBASE) holding what `pip install .`
    puts in site-packages: hpcjit (here: a path to it) and the .pth."""
    if not site.ENABLE_USER_SITE:
        pytest.skip("user site directories are disabled (virtual environment or -s)")
    base = tmp_path / "userbase"
    env = _env(PYTHONUSERBASE=str(base))
    env.pop("PYTHONPATH")
    sp = subprocess.run([sys.executable, "-c", "import site; print(site.getusersitepackages())"],
                        env=env, capture_output=True, text=True, check=True).stdout.strip()
    os.makedirs(sp)
    pth = os.path.join(PKG_PARENT, "hpcjit-as-numba.pth")
    hook = os.path.join(PKG_PARENT, "_hpcjit_numba_hook.py")
    if not os.path.exists(pth) or not os.path.exists(hook):
        pytest.skip(f"no hpcjit-as-numba.pth beside {PKG_PARENT}")
    # "00-": site.py reads .pth files in name order; the path line first
    with open(os.path.join(sp, "00-hpcjit-path.pth"), "w") as f:
        f.write(PKG_PARENT + "\n")
    with open(pth) as src, open(os.path.join(sp, "hpcjit-as-numba.pth"), "w") as dst:
        dst.write(src.read())
    return env


def test_env_var_form(tmp_path):
    env = _site_dir(tmp_path)
    script = _write(tmp_path, "prog.py", SCRIPT)
    r = _run([script, "z"], dict(env, HPCJIT_AS_NUMBA="1"), tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok 0.68.0+hpcjit." in r.stdout and "['z']" in r.stdout


def test_env_var_off_and_lazy(tmp_path):
    env = _site_dir(tmp_path)
    probe = ("import sys; import numba as nb; "
             "print(getattr(nb, '__hpcjit__', False))")
    lazy = "import sys; print('hpcjit' in sys.modules, 'numpy' in sys.modules)"
    for value, expect in (("0", "False"), ("", "False"), ("1", "True")):
        e = dict(env, HPCJIT_AS_NUMBA=value)
        r = _run(["-c", lazy], e, tmp_path)
        # the hook imports nothing until numba is imported
        assert r.returncode == 0 and r.stdout.split() == ["False", "False"], r.stderr
        if value != "1":
            try:
                import numba  # noqa: F401
            except ImportError:
                continue  # no real numba to fall back to
        r = _run(["-c", probe], e, tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == expect, (value, r.stdout, r.stderr)


def test_child_processes_inherit(tmp_path):
    """python -m hpcjit.numba sets HPCJIT_AS_NUMBA=1 for the processes it
    starts (multiprocessing, srun/mpirun children are python too)."""
    env = _site_dir(tmp_path)
    env["PYTHONPATH"] = PKG_PARENT
    script = _write(tmp_path, "parent.py", """
        import os, subprocess, sys
        print(os.environ.get("HPCJIT_AS_NUMBA"))
        out = subprocess.run([sys.executable, "-c", "import numba; print(numba.__hpcjit__)"],
                             capture_output=True, text=True)
        print(out.stdout.strip(), out.stderr.strip())
    """)
    r = _run(["-m", "hpcjit.numba", script], env, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[:2] == ["1", "True"]


IMPORT_PATHS = '''
import numpy as np
from numba import njit
from numba.np.unsafe.ndarray import to_fixed_tuple
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.np.extensions import cross2d
from numba.misc.special import literal_unroll, prange
from numba.core.types.misc import NoneType
from numba.core.types.containers import UniTuple
from numba.core.types.npytypes import Array
from numba.core.types.scalars import Float, Integer
from numba.core.types.abstract import Type
from numba.core.typing.templates import signature, AbstractTemplate
from numba.core.target_extension import cpu_target
from numba.core import types

assert UniTuple is types.UniTuple and Float is types.Float and Array is types.Array
assert signature(types.int64, types.int64) == types.int64(types.int64)

@njit
def f(a):
    t = tuple_setitem(to_fixed_tuple(a, 3), 1, 9.5)
    return t, cross2d(a[:2], a[1:])
print(f(np.array([1.0, 2.0, 4.0])))
AbstractTemplate()
'''


def test_numba_module_paths(tmp_path):
    """Numba's internal module paths that libraries import from resolve:
    the unsafe tuple helpers, np.extensions, misc.special, the modules of the
    type classes; the typing templates import and name themselves when used."""
    script = _write(tmp_path, "paths.py", IMPORT_PATHS)
    r = _run(["-m", "hpcjit.numba", script], _env(), tmp_path)
    assert r.stdout.strip() == "((1.0, 9.5, 4.0), 0.0)", r.stdout + r.stderr  # 1*4 - 2*2
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("hpcjit.errors.UnsupportedError: numba.core.typing.templates."
                           "AbstractTemplate is not supported by hpcjit yet"), last
