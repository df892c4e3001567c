"""CTest aot.cmake_project: configure and build tests/aot_cmake with
hpcjit_add_module() (cmake/hpcjitAot.cmake), run its C program and import
its Python module with the compiler blocked; both are checked against the
functions run by CPython (py_func)."""
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, here)
import kernels  # noqa: E402  (the source module: py_func)

expect_c = [repr(kernels.geometric.py_func(0.75, 40)), str(kernels.collatz_steps.py_func(27))]
with tempfile.TemporaryDirectory(prefix="hpcjit-aot-cmake-") as build:
    pypath = os.environ.get("PYTHONPATH", "")
    subprocess.run(["cmake", "-S", here, "-B", build,
                    f"-DHPCJIT_AOT_CMAKE={os.path.join(root, 'cmake', 'hpcjitAot.cmake')}",
                    f"-Dhpcjit_PYTHON={sys.executable}", f"-Dhpcjit_PYTHONPATH={pypath}"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([os.path.join(build, "use_kernels")], check=True, capture_output=True,
                         text=True).stdout.split()
    assert [float(out[0]), int(out[1])] == [float(expect_c[0]), int(expect_c[1])], (out, expect_c)
    code = ("import sys; sys.modules['hpcjit._compiler'] = None; import kernels_aot as k; "
            "print(repr(k.geometric(0.75, 40)), k.collatz_steps(27), k.__hpcjit_archs__)")
    r = subprocess.run([sys.executable, "-c", code], cwd=build, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    got = r.stdout.split(None, 2)
    assert got[:2] == expect_c, (got, expect_c)
    assert "'host'" in got[2] and len(eval(got[2])) == 2, got
print("aot.cmake_project: C program and Python module match py_func")
