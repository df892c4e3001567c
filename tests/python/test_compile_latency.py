"""What the first-call latency work must not change: the def's source found
from the code object's positions equals inspect's, known objects keep their
names when modules are scanned lazily, compiling imports no module the user
did not, and first compilations from several threads at once (the JIT is
made beside the first compile) all work.  Every compiled function is
compared with its py_func."""
import inspect
import sys
import textwrap

import numpy as np
import pytest

hpcjit = pytest.importorskip("hpcjit")
if getattr(hpcjit, "__hpcjit_numba_shim__", False):
    pytest.skip("hpcjit internals", allow_module_level=True)

from hpcjit import compiler, njit  # noqa: E402
from conftest import run_python  # noqa: E402

pytestmark = pytest.mark.numba_skip("tests hpcjit's own compile path")


# ---- source retrieval --------------------------------------------------------

def deco(f):
    return f


@deco
@njit
def two_decorators(a,
                   b):
    return a + b


@njit
def ends_with_pass(x):
    y = x
    if y > 0:
        y = y + 1
    else:
        pass
    return y


@njit
def trailing_comments(x):
    s = 0
    for i in range(x):
        s += i
    return s
    # a comment after the last statement

    # and another, after a blank line


@njit
def multiline_tail(x):
    return (x +
            1 +
            2)


@njit
def string_at_column_zero(x):
    s = """first
second line at column 0"""
    return x + len(s)


@njit
def column_zero_continuation(x):
    y = (x +
1)
    return y


def outer():
    @njit
    def nested(x):
        return x * 2
    return nested


NESTED = outer()

LAMBDA = njit(lambda x: x + 1)


@pytest.mark.parametrize("disp", [two_decorators, ends_with_pass, trailing_comments,
                                  multiline_tail, string_at_column_zero,
                                  column_zero_continuation, NESTED],
                         ids=lambda d: d.py_func.__name__)
def test_source_matches_inspect(disp):
    src = compiler._source(disp)
    lines, first = inspect.getsourcelines(disp.py_func)
    want = textwrap.dedent("".join(lines))
    assert src.first_line == first
    # inspect may keep trailing comment lines; the code is the same
    assert src.source.rstrip() == want.rstrip() or want.startswith(src.source.rstrip())
    compile(src.source, "<check>", "exec")


def test_lambda_source_is_a_def_with_the_body_in_place():
    src = compiler._source(LAMBDA)
    lines, first = inspect.getsourcelines(LAMBDA.py_func)
    assert src.first_line == first - 1  # the def goes on the line above
    head, body = src.source.splitlines()[:2]
    assert head == "def _lambda_(x):"
    # the body keeps its column: "return x + 1" ends where the lambda's body does
    assert body.rstrip().endswith("return x + 1") and len(body.rstrip()) == len(lines[0].rstrip()) - 1
    compile(src.source, "<check>", "exec")
    assert LAMBDA(2) == LAMBDA.py_func(2)


@pytest.mark.parametrize("disp,args", [(two_decorators, (1, 2)), (ends_with_pass, (3,)),
                                       (ends_with_pass, (-3,)), (trailing_comments, (5,)),
                                       (multiline_tail, (4,)), (column_zero_continuation, (6,)),
                                       (NESTED, (21,))],
                         ids=lambda v: getattr(getattr(v, "py_func", None), "__name__", ""))
def test_functions_with_odd_source_compile(disp, args):
    assert disp(*args) == disp.py_func(*args)


def test_edited_file_falls_back_to_inspect(tmp_path):
    # linecache holding other text than the code: the check refuses it and
    # inspect decides (here: the same lines), never a wrong def
    r = run_python(f"""
        import linecache, sys
        sys.path.insert(0, {str(tmp_path)!r})
        open({str(tmp_path / 'mod_edit.py')!r}, 'w').write(
            "from hpcjit import njit\\n@njit\\ndef f(x):\\n    return x + 1\\n")
        import mod_edit
        from hpcjit import compiler
        lines = linecache.getlines(mod_edit.__file__)
        # the cached text now ends inside the def: not valid on its own
        linecache.cache[mod_edit.__file__] = (1, None, lines[:3], mod_edit.__file__)
        print(compiler._fast_source_lines(mod_edit.f.py_func))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "None"


# ---- known objects -------------------------------------------------------------

def test_lazy_scan_names_objects_like_the_full_scan():
    import cmath
    import math
    import numpy.random  # noqa: F401
    compiler._known = None
    compiler._scanned.clear()
    full = {k: q for k, (o, q) in compiler._known_objects().items()}
    objs = [o for o, q in compiler._known.values()]
    for order in (objs, objs[::-1]):
        compiler._known = None
        compiler._scanned.clear()
        for o in order:
            got = compiler._known_objects(o).get(id(o))
            assert got is not None and got[1] == full[id(o)], (got, full[id(o)])
    assert full[id(abs)] == "builtins.abs"
    assert full[id(np.abs)] == "numpy.absolute"
    assert full[id(math.sqrt)] == "math.sqrt" and full[id(cmath.sqrt)] == "cmath.sqrt"
    assert full[id(np.float64)] == "numpy.float64"


def test_compiling_imports_no_module_the_user_did_not():
    r = run_python("""
        import sys
        import numpy as np
        from hpcjit import njit
        @njit
        def f(a):
            s = 0.0
            for i in range(a.shape[0]):
                s += np.sqrt(a[i])
            return s
        a = np.arange(4.0)
        assert f(a) == f.py_func(a)
        print(sorted(m for m in ("numpy.random", "cmath") if m in sys.modules))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_module_imported_after_the_first_compile_is_known():
    r = run_python("""
        import sys
        import numpy as np
        from hpcjit import njit, compiler
        @njit
        def first(x):
            return abs(x)
        assert first(-2.0) == first.py_func(-2.0)
        assert "cmath" not in sys.modules
        from cmath import sqrt as csqrt
        @njit
        def later(z):
            return csqrt(z)
        funcs, entry = compiler.gather(later)
        print([e for e in funcs[entry][6] if e[0] == "csqrt"])
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[('csqrt', 'builtin', 'cmath.sqrt')]"


# ---- the JIT made beside the first compilation ---------------------------------

def test_first_compilations_from_many_threads():
    r = run_python(r"""
        import threading
        import numpy as np
        from hpcjit import njit
        funcs = []
        for k in range(6):
            ns = {"np": np}
            exec_src = f"def f{k}(a, b):\n    return a * {k} + b\n"
            # registered with linecache, where the compiler finds sources
            import linecache
            name = f"<thread-src-{k}>"
            linecache.cache[name] = (len(exec_src), None, exec_src.splitlines(True), name)
            exec(compile(exec_src, name, "exec"), ns)
            funcs.append(njit(ns[f"f{k}"]))
        barrier = threading.Barrier(len(funcs))
        results, errors = {}, []
        def run(k, f):
            try:
                barrier.wait()
                results[k] = (f(3.0, 1.5), f.py_func(3.0, 1.5))
            except BaseException as e:
                errors.append(repr(e))
        ts = [threading.Thread(target=run, args=(k, f)) for k, f in enumerate(funcs)]
        for t in ts: t.start()
        for t in ts: t.join()
        assert not errors, errors
        assert all(a == b for a, b in results.values()), results
        print(len(results))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "6"


def test_bad_request_before_the_first_compile_leaves_a_working_jit():
    r = run_python("""
        import numpy as np
        from hpcjit import njit, _compiler
        from hpcjit import compiler
        @njit
        def g(x):
            return x + 1
        funcs, entry = compiler.gather(g)
        try:
            _compiler.compile(funcs, entry, ["Z9"], None, False, False)
        except TypeError as e:
            print("refused")
        assert g(1) == g.py_func(1)
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["refused", "ok"]


# ---- LLVM linked into hpcjit._compiler -------------------------------------------

def test_compiler_module_exports_only_its_init():
    # LLVM's symbols stay inside the module (static link with hidden
    # symbols, or the shared libLLVM): nothing to clash with another LLVM
    import shutil
    from hpcjit import _compiler
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm")
    import subprocess
    out = subprocess.run([nm, "-D", "--defined-only", _compiler.__file__],
                         capture_output=True, text=True).stdout
    linker_made = {"__bss_start", "_edata", "_end", "_init", "_fini"}
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert [n for n in names if n not in linker_made] == ["PyInit__compiler"], names


def test_numba_and_hpcjit_in_one_process():
    pytest.importorskip("numba")
    r = run_python("""
        import numpy as np
        import numba
        from hpcjit import njit
        def body(a):
            s = 0.0
            for x in a:
                s += x * x
            return s
        nb = numba.njit(body)
        a = np.arange(10.0)
        first = nb(a)
        @njit
        def hj(a):
            s = 0.0
            for x in a:
                s += x * x
            return s
        assert hj(a) == hj.py_func(a) == first
        @numba.njit
        def nb2(x):
            return x * 3.0
        assert nb2(2.0) == 6.0
        print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
