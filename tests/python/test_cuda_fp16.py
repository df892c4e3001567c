"""float16 in CUDA kernels (numba-cuda's): the half instructions in the PTX
(assembled by ptxas), the typing of mixed operands and of math functions,
cuda.fp16's intrinsics, the float16 kernels of the shared suite run by the
simulator against NumPy's float16, the launch packing of float16
parameters, and the CPU's located refusal (Numba 0.68:
NotImplementedError: float16)."""
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import cuda_kernels as K  # noqa: E402
from test_cuda_driver import fake, run  # noqa: E402,F401  (the stand-in libcuda and its runner)
from test_cuda_ptx import PTXAS, assemble, needs_ptxas  # noqa: E402,F401

from hpcjit import cuda, errors, njit, types  # noqa: E402
from hpcjit.cuda import compile_kernel, compile_ptx  # noqa: E402

HALF_CASES = [c for c in K.CASES if c.name.startswith("fp16_")]
HERE = os.path.dirname(os.path.abspath(__file__))


def _case(name):
    return next(c for c in HALF_CASES if c.name == name)


def _ptx(name, cc=(8, 0)):
    c = _case(name)
    return compile_kernel(c.kernel, K.typecodes(c.make(np.random.default_rng(0))), cc=cc).ptx


def test_suite_has_the_float16_kernels():
    assert {c.name for c in HALF_CASES} >= {"fp16_arith", "fp16_mixed", "fp16_math", "fp16_intrinsics",
                                            "fp16_transcendental", "fp16_shared_local"}
    assert all(c.cc_min >= (5, 3) for c in HALF_CASES)


@needs_ptxas
@pytest.mark.parametrize("case", HALF_CASES, ids=lambda c: c.name)
def test_half_kernels_assemble_for_sm_75(case, tmp_path):
    # test_cuda_ptx.py assembles the whole suite for sm_80/sm_90; float16 also at the default cc
    args = case.make(np.random.default_rng(0))
    assemble(compile_kernel(case.kernel, K.typecodes(args), cc=(7, 5)).ptx, "sm_75", tmp_path)


def test_arithmetic_is_half_instructions():
    ptx = _ptx("fp16_arith")
    for ins in ("mul.rn.f16", "add.rn.f16", "sub.rn.f16", "setp.ge.f16", "setp.eq.f16"):
        assert ins in ptx, ins
    assert re.search(r"setp\.(lt|geu)\.f16", ptx)  # a < b, or its inverse on the other branch
    assert re.search(r"ld\.global\.(b|u)16", ptx) and re.search(r"st\.global\.(b|u)16", ptx)
    # the float16 scalar parameter: two bytes (docs/CUDA.md)
    assert re.search(r"\.param \.align 2 \.b8 \w+\[2\]", ptx)


def test_intrinsics_are_half_instructions():
    ptx = _ptx("fp16_intrinsics")
    for ins in ("add.rn.f16", "sub.rn.f16", "mul.rn.f16", "fma.rn.f16", "max.f16", "min.f16", "neg.f16",
                "cvt.rmi.f16.f16", "cvt.rpi.f16.f16", "cvt.rni.f16.f16", "cvt.rzi.f16.f16"):
        assert ins in ptx, ins
    # hne is ordered (false on NaN), unlike the != operator (setp.neu)
    assert "setp.ne.f16" in ptx and "setp.neu.f16" not in ptx
    tr = _ptx("fp16_transcendental")
    assert "cvt.f32.f16" in tr and "cvt.rn.f16.f32" in tr  # libdevice's float functions, rounded


def test_print_passes_float16_as_double():
    def k(a):
        print(a[0], a[1])  # vprintf's %f reads doubles
    ptx = compile_kernel(k, ["ae1C"]).ptx
    assert ptx.count("cvt.f64.f16") == 2 and ptx.count("st.local.f64") == 2, ptx


def _rettype(f, *argtys):
    return str(compile_ptx(f, tuple(argtys), device=True)[1])


def test_mixed_operands_follow_numpy_promotion():
    def add(a, b):
        return a + b

    def cmp(a, b):
        return a < b
    h = types.float16
    want = {types.float16: "float16", types.int8: "float16", types.uint8: "float16",
            types.boolean: "float16", types.int16: "float32", types.int32: "float64",
            types.int64: "float64", types.float32: "float32", types.float64: "float64"}
    for other, res in want.items():
        assert _rettype(add, h, other) == res, other
        assert _rettype(add, other, h) == res, other
        assert np.result_type(np.float16, np.dtype(str(other) if other != types.boolean else "?")).name == res
    assert _rettype(cmp, h, h) == "bool"

    def lit(a):
        return a * 2, a * 2.0, -a, a / a

    assert _rettype(lit, h) == "Tuple(float64, float64, float16, float16)"  # literals are int64/float64


def test_math_function_types():
    import math

    def f(x):
        return math.sin(x), math.sqrt(x), math.floor(x), math.tanh(x), abs(x), math.isnan(x)

    def g(x):
        return cuda.fp16.hadd(x, 1), cuda.fp16.heq(x, x), cuda.fp16.hexp10(x)
    assert _rettype(f, types.float16) == "Tuple(float16, float16, float16, float32, float16, bool)"
    assert _rettype(g, types.float16) == "Tuple(float16, bool, float16)"
    assert _rettype(g, types.float32) == "Tuple(float16, bool, float16)"  # operands converted


def _h_add(a, b):
    return a + b


def _h_mul_lt(a, b):
    return a * b < b


def _h_sin(a):
    return math.sin(a)


def _h_tanh(a):
    return math.tanh(a)


NUMBA_SIGS = [(_h_add, "(float16, float16)"), (_h_add, "(float16, int8)"), (_h_add, "(float16, int16)"),
              (_h_add, "(float16, int64)"), (_h_add, "(float16, float32)"), (_h_add, "(float16, float64)"),
              (_h_mul_lt, "(float16, float16)"), (_h_sin, "(float16,)"), (_h_tanh, "(float16,)")]


@pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                    reason="numba-cuda is not installed (its compile_ptx also needs libNVVM)")
@pytest.mark.parametrize("f,sig", NUMBA_SIGS, ids=lambda v: getattr(v, "__name__", v))
def test_return_types_match_numba_cuda(f, sig):
    from numba import cuda as ncuda
    try:
        _, nrt = ncuda.compile_ptx(f, sig, device=True)
    except Exception as e:  # no libNVVM on this machine
        pytest.skip(f"numba.cuda.compile_ptx: {type(e).__name__}: {e}")
    _, rt = compile_ptx(f, sig, device=True)
    assert str(rt) == str(nrt)


def test_dropin_numba_cuda_fp16(tmp_path):
    script = tmp_path / "k.py"
    script.write_text("import numpy as np\nfrom numba import cuda, float16\n"
                      "def k(out, a, b):\n"
                      "    out[0] = cuda.fp16.hfma(a, b, a) + np.float16(1)\n"
                      "ptx, rt = cuda.compile_ptx(k, 'void(f2[:], f2, f2)', cc=(8, 0))\n"
                      "print(rt, 'fma.rn.f16' in ptx, float16)\n")
    r = subprocess.run([sys.executable, "-m", "hpcjit.numba", str(script)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["none", "True", "float16"]


def test_located_errors():
    def atomic(a):
        cuda.atomic.add(a, 0, a[1])

    def bad_operand(a):
        a[0] = cuda.fp16.hadd(a[0], 1j)
    for f, cls, msg in ((atomic, errors.TypingError, "arrays of float16 are not supported"),
                        (bad_operand, errors.TypingError, "needs float16 operands, not complex128")):
        with pytest.raises(cls) as ei:
            compile_kernel(f, ["ae1C"])
        s = str(ei.value)
        assert msg in s and "test_cuda_fp16.py:" in s and "^" in s, s


def test_cpu_refuses_float16_with_a_located_error():
    @njit
    def reads(a):
        return a[0] * 2

    @njit
    def converts(x):
        return np.float16(x) + 1

    @njit
    def ignores(a):
        return 1
    for f, arg in ((reads, np.ones(3, np.float16)), (converts, 1.5), (ignores, np.ones(3, np.float16)),
                   (reads, np.float16(2))):
        with pytest.raises(errors.UnsupportedError) as ei:
            f(arg)
        s = str(ei.value)
        assert "float16 is supported only in CUDA kernels" in s and "test_cuda_fp16.py:" in s, s
    assert reads.py_func(np.ones(3, np.float16)) == 2  # the Python function itself works


def test_float16_rounding_matters_for_the_references():
    # the simulator check below can fail: the suite's references round every
    # step in float16, which differs from computing in float64 and rounding once
    c = _case("fp16_arith")
    a = c.make(np.random.default_rng(0))
    ref16 = c.reference(a)[0]
    x, y, s = (np.asarray(v, np.float64) for v in a[:3])
    ref64 = np.where(x < y, (x * y + s) - (-x / y), x - y).astype(np.float16)
    assert (ref16 != ref64).any()


def test_simulator_runs_float16_kernels_in_float16():
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    env["HPCJIT_CUDA_SIM"] = "1"
    r = subprocess.run([sys.executable, os.path.join(HERE, "cuda_sim_suite.py"), "fp16_*"], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(res) == {c.name for c in HALF_CASES}
    bad = {k: v for k, v in res.items() if v != "ok"}
    assert not bad, "\n\n".join(f"{k}:\n{v}" for k, v in bad.items())


def test_simulator_fp16_module_and_device_attribute():
    code = """
import numpy as np
from hpcjit import cuda
assert cuda.SIMULATOR and cuda.is_float16_supported() and cuda.get_current_device().supports_float16
out = np.zeros(4, np.float16)
@cuda.jit
def k(out, a, b):
    out[0] = cuda.fp16.hadd(a, b)
    out[1] = cuda.fp16.hmax(np.float16(np.nan), b)
    out[2] = cuda.fp16.hne(np.float16(np.nan), b)
    out[3] = a * b
k[1, 1](out, np.float16(0.1), np.float16(0.2))
h = np.float16
assert out[0] == h(0.1) + h(0.2) and out[1] == h(0.2) and out[2] == 0 and out[3] == h(0.1) * h(0.2), out
print("ok")
"""
    env = dict(os.environ)
    env["HPCJIT_CUDA_SIM"] = "1"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_launch_packs_float16(fake):
    run("""
        d = cuda.to_device(np.arange(6, dtype=np.float16))
        assert d._hj_tc == "ae1C" and d.copy_to_host().dtype == np.float16
        assert cuda.gpus[0].supports_float16 and cuda.is_float16_supported()
        spec = _core._cuda_spec(0, ("ae1C", "e", "e", "l"), False)
        slots = _core._cuda_pack(spec, (d, 1.1, np.float16(2.5), 3))
        ptr = d.device_ctypes_pointer.value
        assert slots == [struct.pack("<Q", ptr), struct.pack("<q", 6), struct.pack("<q", 2),
                         np.float16(1.1).tobytes(), np.float16(2.5).tobytes(), struct.pack("<q", 3)], slots
        # a launch: np.float16 scalars and Python floats for an f2 parameter (explicit signature)
        def kern(out, s):
            out[0] = s
        k = cuda.jit("void(f2[:], f2)")(kern)
        for v in (0.1, np.float16(-2.5), 3):
            k[1, 1](d, v)
            rec = last_launch()
            assert bytes.fromhex(rec[-1]) == np.float16(v).tobytes(), (v, rec)
        k2 = cuda.jit(kern)
        k2[1, 1](d, np.float16(7.5))
        assert list(k2.overloads) == [("ae1C", "e")] and bytes.fromhex(last_launch()[-1]) == np.float16(7.5).tobytes()
        fn, debug, nslots, nbytes, tcs = _core._cuda_spec_info(spec)
        assert nbytes == 8 * 3 + 2 + 2 + 4 + 8, nbytes   # 2-byte slots, the int64 8-aligned
        # the C conversion double -> half rounds as NumPy's np.float16(x): ties to even,
        # subnormals, overflow to inf, NaN and infinities
        one = _core._cuda_spec(0, ("e",), False)
        rng = np.random.default_rng(5)
        h = np.arange(0, 0x7c01, dtype=np.uint16).view(np.float16).astype(np.float64)
        mids = (h[:-1] + h[1:]) / 2                           # exact halfway points
        vals = np.concatenate([h, mids, np.nextafter(mids, 0), np.nextafter(mids, 1e9),
                               rng.standard_normal(2000) * 10.0 ** rng.integers(-9, 6, 2000),
                               [65519.99, 65520.0, 1e6, 2.0 ** -25, 2.0 ** -25 * 1.0001, 1e-300,
                                float("inf"), -0.0]])
        vals = np.concatenate([vals, -vals])
        for v in vals.tolist():
            got = _core._cuda_pack(one, (v,))[0]
            assert got == np.float16(v).tobytes(), (v, got, np.float16(v).tobytes())
        nan = np.frombuffer(_core._cuda_pack(one, (float("nan"),))[0], np.float16)[0]
        assert np.isnan(nan)
        print("ok")
    """, fake)
