"""hpcjit.cuda's driver layer without a GPU: a missing driver is a clear
CudaSupportError (and never loaded at import), and everything else runs
against tests/gpu/fake_libcuda.c, a stand-in libcuda.so.1 whose device
memory is host memory and whose launches record their parameter bytes.

Each check runs in a subprocess: the driver is loaded once per process.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FAKE_SRC = ROOT / "tests" / "gpu" / "fake_libcuda.c"


def _fake_lib(tmp_path_factory, env, name, src):
    path = os.environ.get(env)
    if path and os.path.exists(path):
        return path
    import hpcjit
    built = pathlib.Path(hpcjit.__file__).resolve().parents[2] / "tests" / "gpu" / name
    if built.exists() and built.stat().st_mtime >= src.stat().st_mtime:
        return str(built)
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler to build %s" % src.name)
    out = tmp_path_factory.mktemp("fakelib") / name
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out), str(src)], check=True)
    return str(out)


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    return _fake_lib(tmp_path_factory, "HPCJIT_FAKE_CUDA", "libhpcjit_fakecuda.so", FAKE_SRC)


@pytest.fixture(scope="module")
def fake_nccl(tmp_path_factory):
    return _fake_lib(tmp_path_factory, "HPCJIT_FAKE_NCCL", "libhpcjit_fakenccl.so",
                     ROOT / "tests" / "gpu" / "fake_libnccl.c")


def run(code, driver, pre="", **env):
    e = dict(os.environ)
    e.pop("HPCJIT_CUDA_SIM", None)
    e.pop("NUMBA_ENABLE_CUDASIM", None)
    e.pop("NUMBA_CUDA_DRIVER", None)
    e["HPCJIT_CUDA_DRIVER"] = driver
    e.update(env)
    prelude = textwrap.dedent("""
        import ctypes, os, struct, sys, warnings
        import numpy as np
        from hpcjit import cuda, _core
        FAKE = os.environ.get("HPCJIT_CUDA_DRIVER")
        def lib():
            return ctypes.CDLL(FAKE)
        def last_launch():
            buf = ctypes.create_string_buffer(65536)
            lib().fakecuda_last_launch(buf, len(buf))
            return buf.value.decode().split()
    """)
    import tempfile
    # a file, not -c: debug kernels' messages quote their source lines
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(prelude + pre + textwrap.dedent(code))
    try:
        r = subprocess.run([sys.executable, f.name], env=e, capture_output=True, text=True,
                           timeout=120)
    finally:
        os.unlink(f.name)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r.stdout


# ---- no driver -------------------------------------------------------------------

def test_import_and_cpu_work_without_driver():
    out = run("""
        import hpcjit
        @hpcjit.njit
        def f(x):
            return x * 2
        assert f(21) == f.py_func(21) == 42
        assert cuda.is_available() is False
        maps = open("/proc/self/maps").read()
        assert "libcuda" not in maps and "nonexistent" not in maps
        print("ok")
    """, "/nonexistent/libcuda.so.1")
    assert out.strip() == "ok"


def test_support_error_names_the_library():
    out = run("""
        from hpcjit.cuda.cudadrv.error import CudaSupportError
        for call in (cuda.get_current_device, lambda: cuda.to_device(np.ones(3)),
                     lambda: cuda.device_array(4), cuda.synchronize, cuda.stream,
                     lambda: cuda.gpus[0]):
            try:
                call()
            except CudaSupportError as exc:
                assert isinstance(exc, ImportError)
                assert "/nonexistent/libcuda.so.1" in str(exc), str(exc)
                assert "cannot be found or loaded" in str(exc), str(exc)
            else:
                raise AssertionError("no CudaSupportError")
        print(cuda.detect())
    """, "/nonexistent/libcuda.so.1")
    assert "CUDA driver not available" in out and out.strip().endswith("False")


def test_failed_allocations_leave_nothing_to_free():
    """A device allocation that fails before it has memory (no driver) is
    dropped quietly: its __del__ once read an unset slot ("Exception ignored
    in DeviceMemory.__del__"), twice per failed to_device."""
    out = run("""
        import gc, sys
        seen = []
        sys.unraisablehook = lambda u: seen.append(repr(u.exc_value))
        for _ in range(3):
            try:
                cuda.to_device(np.ones(3))
            except ImportError:
                pass
        gc.collect()
        print(seen)
    """, "/nonexistent/libcuda.so.1")
    assert out.strip() == "[]"


def test_numba_cuda_driver_variable_is_honoured():
    out = run("""
        try:
            cuda.get_current_device()
        except cuda.CudaSupportError as exc:
            print(exc)
    """, "", NUMBA_CUDA_DRIVER="/elsewhere/libcuda-numba.so")
    assert "/elsewhere/libcuda-numba.so" in out


def test_no_device(fake):
    out = run("""
        assert not cuda.is_available()
        try:
            cuda.device_array(3)
        except cuda.CudaSupportError as exc:
            print(exc)
    """, fake, FAKECUDA_NO_DEVICE="1")
    assert "CUDA_ERROR_NO_DEVICE" in out and "no CUDA-capable device" in out


def test_driver_loaded_at_first_use_only(fake):
    run("""
        name = os.path.basename(FAKE)
        assert name not in open("/proc/self/maps").read()
        assert cuda.is_available()
        assert name in open("/proc/self/maps").read()
    """, fake)


# ---- devices, memory, streams, events -----------------------------------------------

def test_device_properties(fake):
    run("""
        dev = cuda.get_current_device()
        assert dev.name == b"hpcjit fake GPU" and dev.compute_capability == (9, 0)
        assert dev.WARP_SIZE == 32 and dev.MULTIPROCESSOR_COUNT == 4
        assert len(cuda.gpus) == 1 and cuda.gpus[0].id == 0
        with cuda.gpus[0]:
            assert cuda.get_current_device().id == 0
        assert cuda.select_device(0).id == 0
        free, total = cuda.current_context().get_memory_info()
        assert 0 < free <= total
        cuda.close()
        assert cuda.get_current_device().id == 0   # usable again after close
    """, fake)


def test_device_array_round_trips(fake):
    run("""
        a = np.arange(24, dtype=np.float32).reshape(4, 6)
        d = cuda.to_device(a)
        assert (d.shape, d.strides, d.dtype, d.size, d.ndim) == (a.shape, a.strides, a.dtype, a.size, a.ndim)
        assert d._hj_tc == "af2C"
        np.testing.assert_array_equal(d.copy_to_host(), a)
        out = np.zeros_like(a)
        assert d.copy_to_host(out) is out
        np.testing.assert_array_equal(out, a)
        for idx in [(slice(1, 3),), (slice(None), slice(None, None, 2)), (1,), (slice(None, None, -1), 2),
                    (Ellipsis, 3), (None, 1)]:
            v = d[idx]
            np.testing.assert_array_equal(v.copy_to_host(), a[idx])
            assert v.shape == a[idx].shape
        assert d[2, 3] == a[2, 3] and d[-1, -1] == a[-1, -1]
        try:
            d[4, 0]
        except IndexError:
            pass
        else:
            raise AssertionError("no IndexError")
        assert d[:, ::2]._hj_tc == "af2A" and d.T._hj_tc == "af2F"
        b = a.copy()
        d[1:3, ::2] = -1.0
        b[1:3, ::2] = -1.0
        np.testing.assert_array_equal(d.copy_to_host(), b)
        d[0] = np.arange(6, dtype=np.float32) * 10
        b[0] = np.arange(6) * 10
        np.testing.assert_array_equal(d.copy_to_host(), b)
        np.testing.assert_array_equal(d.T.copy_to_host(), b.T)
        np.testing.assert_array_equal(d.reshape(3, 8).copy_to_host(), b.reshape(3, 8))
        np.testing.assert_array_equal(d.ravel().copy_to_host(), b.ravel())
        f = np.asfortranarray(b)
        df = cuda.to_device(f)
        assert df._hj_tc == "af2F" and cuda.device_array_like(f).strides == f.strides
        np.testing.assert_array_equal(df.copy_to_host(), f)
        e = cuda.device_array((0, 3))
        assert e.copy_to_host().shape == (0, 3)
        z = cuda.device_array(5, dtype=np.int64)
        z.copy_to_device(np.arange(5))
        np.testing.assert_array_equal(z.copy_to_host(), np.arange(5))
        w = cuda.device_array_like(z)
        w.copy_to_device(z)
        np.testing.assert_array_equal(w.copy_to_host(), np.arange(5))
    """, fake)


def test_cuda_array_interface_both_ways(fake):
    run("""
        a = np.arange(10, dtype=np.int32)
        d = cuda.to_device(a)
        cai = d.__cuda_array_interface__
        assert cai["version"] == 3 and cai["shape"] == (10,) and cai["typestr"] == "<i4"
        assert cai["strides"] is None and cai["data"][0] == d.device_ctypes_pointer.value
        class Foreign:
            def __init__(self, desc):
                self.__cuda_array_interface__ = desc
        v = d[::3]
        f = Foreign(v.__cuda_array_interface__)
        assert cuda.is_cuda_array(f) and not cuda.is_cuda_array(a)
        g = cuda.as_cuda_array(f)
        assert g.shape == (4,) and g.strides == (12,)
        np.testing.assert_array_equal(g.copy_to_host(), a[::3])
        try:
            cuda.as_cuda_array(a)
        except TypeError:
            pass
        else:
            raise AssertionError("as_cuda_array accepted a host array")
    """, fake)


def test_pinned_mapped_managed_and_deferred_frees(fake):
    run("""
        p = cuda.pinned_array((3, 2), np.float64)
        p[...] = 5
        d = cuda.to_device(p)
        np.testing.assert_array_equal(d.copy_to_host(), p)
        m = cuda.mapped_array(8, np.int32)
        m[:] = np.arange(8)
        from hpcjit.cuda.cudadrv.devicearray import device_view_of_host
        mv = device_view_of_host(m[2:])
        assert mv is not None and mv.shape == (6,)
        np.testing.assert_array_equal(mv.copy_to_host(), np.arange(2, 8))
        g = cuda.managed_array((2, 2))
        g[...] = 3
        assert device_view_of_host(g) is not None and g.sum() == 12
        with cuda.pinned(p):
            pass
        cuda.synchronize()
        base = lib().fakecuda_live_allocs()
        arrs = [cuda.device_array(100) for _ in range(25)]
        assert lib().fakecuda_live_allocs() == base + 25
        del arrs
        count, nbytes = _core._cuda_pending_frees()
        assert count < 10, count      # flushed in batches of 10
        assert lib().fakecuda_live_allocs() == base + count
        cuda.synchronize()
        assert _core._cuda_pending_frees() == (0, 0)
        assert lib().fakecuda_live_allocs() == base
    """, fake)


def test_streams_and_events(fake):
    run("""
        s = cuda.stream()
        assert s.handle not in (0, 1, 2)
        assert cuda.default_stream().handle == 0
        assert cuda.legacy_default_stream().handle == 1
        assert cuda.per_thread_default_stream().handle == 2
        assert cuda.external_stream(0x1234).handle == 0x1234
        a = cuda.pinned_array(1000)
        a[:] = np.arange(1000)
        with s.auto_synchronize():
            d = cuda.to_device(a, stream=s)
            out = d.copy_to_host(stream=s)
        np.testing.assert_array_equal(out, a)
        e0, e1 = cuda.event(), cuda.event()
        e0.record(s)
        e1.record(s)
        e1.synchronize()
        t = cuda.event_elapsed_time(e0, e1)
        assert t >= 0 and e0.elapsed_time(e1) >= 0
        assert s.query() and e1.query()
        s.synchronize()
        nt = cuda.event(timing=False)
        nt.record()
        try:
            cuda.event_elapsed_time(nt, e1)
        except cuda.CudaAPIError as exc:
            assert "CUDA_ERROR_INVALID_HANDLE" in str(exc)
        else:
            raise AssertionError("no CudaAPIError")
    """, fake)


def test_ptx_error_carries_the_jit_log(fake):
    out = run("""
        from hpcjit.cuda.cudadrv.driver import CudaAPIError
        from hpcjit.cuda.cudadrv.error import CudaDriverError
        cuda.current_context()
        try:
            _core._cuda_module_load(".version 8.0\\nINVALID")
        except CudaAPIError as exc:
            assert isinstance(exc, CudaDriverError) and exc.code == 218
            print(exc)
        m = _core._cuda_module_load(".entry k(\\n.param .u64 p\\n)\\n{}")
        try:
            _core._cuda_module_function(m, "nope")
        except CudaAPIError as exc:
            print(exc)
    """, fake)
    assert "cuModuleLoadDataEx(): CUDA_ERROR_INVALID_PTX" in out
    assert "fake parse error near 'INVALID'" in out
    assert "no kernel named 'nope'" in out


# ---- packing plans ------------------------------------------------------------------

def test_packing_plan_bytes(fake):
    run("""
        d = cuda.to_device(np.zeros((3, 5), np.float64))
        v = d[::2, 1:]
        spec = _core._cuda_spec(0, ("ad2C", "i", "f", "D", "?", "(ld)", "b", "ad2A", "L"), False)
        slots = _core._cuda_pack(spec, (d, -7, 1.5, 2 - 3j, True, (9, 0.25), -2, v, 2**64 - 1))
        ptr = d.device_ctypes_pointer.value
        want = [struct.pack("<Q", ptr), struct.pack("<q", 3), struct.pack("<q", 5),
                struct.pack("<q", 40), struct.pack("<q", 8),
                struct.pack("<i", -7), struct.pack("<f", 1.5),
                struct.pack("<d", 2.0), struct.pack("<d", -3.0), b"\\x01",
                struct.pack("<q", 9), struct.pack("<d", 0.25), struct.pack("<b", -2),
                struct.pack("<Q", ptr + 8), struct.pack("<q", 2), struct.pack("<q", 4),
                struct.pack("<q", 80), struct.pack("<q", 8),
                struct.pack("<Q", 2**64 - 1)]
        assert slots == want, (slots, want)
        fn, debug, nslots, nbytes, tcs = _core._cuda_spec_info(spec)
        assert nslots == len(want) and tcs == "ad2Cif D?(ld)bad2AL".replace(" ", "")
        # natural alignment: the u8 then the int64 of the tuple starts 8-aligned
        assert nbytes == 8 * 5 + 4 + 4 + 16 + 1 + 7 + 8 + 8 + 1 + 7 + 40 + 8
        # ints convert to a float parameter, floats are refused by int ones
        f = _core._cuda_spec(0, ("d", "l"), False)
        assert _core._cuda_pack(f, (3, np.int16(4))) == [struct.pack("<d", 3.0), struct.pack("<q", 4)]
        for bad in [(1.0, 2.5), (1.0,), (d, 1)]:
            try:
                _core._cuda_pack(f, bad)
            except TypeError:
                pass
            else:
                raise AssertionError(bad)
        for tcs in [("x",), ("ad",), ("(l",)]:
            try:
                _core._cuda_spec(0, tcs, False)
            except TypeError:
                pass
            else:
                raise AssertionError(tcs)
        try:
            _core._cuda_spec(0, ("ad9C",) * 40, False)
        except ValueError as exc:
            assert "exceed" in str(exc)
        else:
            raise AssertionError("no ValueError for too many parameters")
    """, fake)


# ---- kernels through the dispatcher, with hand-written PTX ----------------------------

KERNEL_PRELUDE = """
from hpcjit.cuda import dispatcher as D

class Code:
    def __init__(self, argtcs, debug=False):
        params = []
        for t in argtcs:
            if t[0] in "ar":
                params += [".param .u64"] * (1 + 2 * int(t[2]))
            elif t in ("f", "i", "I"):
                params.append(".param .f32" if t == "f" else ".param .u32")
            elif t in ("b", "B", "?"):
                params.append(".param .u8")
            else:
                params.append(".param .u64")
        self.entry = "k_" + "".join(c if c.isalnum() else "_" for c in "".join(argtcs))
        self.ptx = (".visible .entry %s(\\n%s\\n)\\n{ ret; }\\n" % (
            self.entry, ",\\n".join("%s p%d" % (p, i) for i, p in enumerate(params))))
        if debug:
            self.ptx += ".global .align 8 .b8 __hpcjit_error[56];\\n"
        self.debug = debug
        self.llvm_ir = "; fake IR for " + self.entry
        self.signature = "(%s)" % ", ".join(argtcs)

compiled = []
def fake_compile(self, argtcs, cc=None):
    compiled.append(tuple(argtcs))
    return Code(argtcs, self.targetoptions.get("debug", False))
D.Kernel._compile_code = fake_compile

def kernel(a, b, c):
    pass
"""


def test_launch_packs_and_specialises(fake):
    run("""
        k = cuda.jit(kernel)
        x = cuda.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = cuda.device_array(4, dtype=np.int64)
        k[(2, 3), (32, 2, 1)](x, y, 5)
        rec = last_launch()
        assert rec[0] == "k_af2Cal1Cl" and rec[1] == "2,3,1" and rec[2] == "32,2,1", rec
        assert rec[3] == "0" and rec[4] == "0" and rec[5] == "0" and rec[6] == "9", rec
        vals = [int.from_bytes(bytes.fromhex(h), "little", signed=True) for h in rec[7:]]
        assert vals == [x.device_ctypes_pointer.value, 2, 3, 12, 4,
                        y.device_ctypes_pointer.value, 4, 8, 5], vals
        assert compiled == [("af2C", "al1C", "l")]
        # the second launch takes the C fast path: no Python slow path
        slow = D.Kernel._launch_slow
        D.Kernel._launch_slow = lambda *a: (_ for _ in ()).throw(AssertionError("slow path"))
        s = cuda.stream()
        k[4, 64, s, 128](x, y, 6)
        rec = last_launch()
        assert rec[3] == "128" and int(rec[4]) == s.handle and rec[-1] == "0600000000000000", rec
        D.Kernel._launch_slow = slow
        # new types: a new specialisation; a view is an 'A' array
        k[np.int64(1), (np.int32(1),)](x[:, ::2], y, 1.5)   # NumPy integers configure too
        assert compiled[-1] == ("af2A", "al1C", "d")
        assert len(k.signatures) == 2 and len(k.definitions) == 2
        assert set(k.inspect_ptx().values()) == {ov.code.ptx for ov in k.overloads.values()}
        assert "k_af2Aal1Cd" in k.inspect_llvm(("af2A", "al1C", "d"))
        assert lib().fakecuda_launch_count() == 3
        try:
            k(x, y, 1)
        except ValueError as exc:
            assert "launch configuration" in str(exc)
        else:
            raise AssertionError("launch without a configuration")
        for bad in [(1,), (1, 2, 3, 4, 5), ((1, 2, 3, 4), 1), (1, "x")]:
            try:
                k[bad]
            except ValueError:
                pass
            else:
                raise AssertionError(bad)
        try:
            k[0, 1](x, y, 1)
        except cuda.CudaAPIError as exc:
            assert "cuLaunchKernel(): CUDA_ERROR_INVALID_VALUE" in str(exc)
        else:
            raise AssertionError("grid 0 launched")
    """, fake, pre=KERNEL_PRELUDE)


def test_host_arrays_are_copied_in_and_back_with_one_warning(fake):
    run("""
        from hpcjit.errors import NumbaPerformanceWarning
        k = cuda.jit(kernel)
        a = np.arange(5.0)
        b = np.zeros(3, np.int32)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            k[1, 8](a, b, 2)
            k[1, 8](a, b, 2)
        perf = [x for x in w if issubclass(x.category, NumbaPerformanceWarning)]
        assert len(perf) == 1, [str(x.message) for x in w]
        rec = last_launch()
        # the kernel saw device copies, not the host buffers
        dptr = int.from_bytes(bytes.fromhex(rec[7]), "little")
        assert dptr != a.ctypes.data
        np.testing.assert_array_equal(a, np.arange(5.0))
        # mapped arrays are passed by their device pointer, not copied
        m = cuda.mapped_array(4)
        k[1, 8](m, b, 3)
        rec = last_launch()
        assert int.from_bytes(bytes.fromhex(rec[7]), "little") == m.ctypes.data
        # objects with __cuda_array_interface__ pass straight through
        d = cuda.to_device(np.ones(7))
        class Foreign:
            __cuda_array_interface__ = d.__cuda_array_interface__
        k[1, 8](Foreign(), b, 4)
        rec = last_launch()
        assert int.from_bytes(bytes.fromhex(rec[7]), "little") == d.device_ctypes_pointer.value
    """, fake, pre=KERNEL_PRELUDE)


def test_explicit_signatures_and_forall(fake):
    run("""
        from hpcjit.errors import TypingError
        def kern2(a, s):
            pass
        k = cuda.jit("void(float64[:], float32)")(kern2)
        assert compiled == [("ad1A", "f")]
        d = cuda.to_device(np.zeros(10))
        k[1, 32](d, 3)          # int -> float32, C array -> A parameter
        rec = last_launch()
        assert rec[-1] == struct.pack("<f", 3.0).hex(), rec
        try:
            k[1, 32](cuda.to_device(np.zeros(3, np.int32)), 1.0)
        except TypingError as exc:
            assert "No matching definition" in str(exc)
        else:
            raise AssertionError("no TypingError")
        k.forall(1000)(d, 2.5)
        rec = last_launch()
        assert rec[1] == "4,1,1" and rec[2] == "256,1,1", rec   # occupancy's 256 threads
        k.forall(10, tpb=4)(d, 2.5)
        assert last_launch()[1] == "3,1,1"
        try:
            cuda.jit("int32(float64[:])")(kern2)
        except TypeError as exc:
            assert "void" in str(exc)
        else:
            raise AssertionError("non-void kernel accepted")
    """, fake, pre=KERNEL_PRELUDE)


def test_debug_kernel_raises_the_recorded_exception(fake):
    run("""
        def kern3(a):
            a[10] = 1
        k = cuda.jit(debug=True)(kern3)
        d = cuda.to_device(np.zeros(4))
        k[1, 4](d)                      # no error recorded: nothing raised
        ov = next(iter(k.overloads.values()))
        assert ov.error_ptr and ov.error_size == 56
        import inspect
        line = inspect.getsourcelines(kern3)[1] + 1
        rec = struct.pack("<IIii3I3Iqq", 1, 2, line, 9, 3, 0, 0, 1, 0, 0, 10, 4)
        lib().fakecuda_set_error(ctypes.c_uint64(ov.error_ptr), rec, len(rec))
        try:
            k[2, 4](d)
        except IndexError as exc:
            msg = str(exc)
            assert "tid=[3, 0, 0] ctaid=[1, 0, 0]" in msg, msg
            assert "index 10 is out of bounds for axis with size 4" in msg, msg
            assert "a[10] = 1" in msg and "^" in msg, msg
        else:
            raise AssertionError("no IndexError")
        k[1, 4](d)                      # the record was cleared
    """, fake, pre=KERNEL_PRELUDE)


def test_launch_host_overhead(fake):
    """Host time per launch through the C fast path (the fake driver's
    launch costs nothing, so this is hpcjit's own overhead)."""
    out = run("""
        import time
        results = {}
        for n in (0, 1, 3, 8):
            src = "def kn(%s):\\n    pass\\n" % ", ".join("a%d" % i for i in range(n))
            ns = {}
            exec(src, ns)
            k = cuda.jit(ns["kn"])
            arrs = [cuda.device_array(16) for _ in range(n)]
            launch = k[64, 128]
            launch(*arrs)
            best = 1e9
            for rep in range(5):
                t0 = time.perf_counter()
                for _ in range(2000):
                    launch(*arrs)
                best = min(best, (time.perf_counter() - t0) / 2000)
            results[n] = best * 1e6
        print(" ".join("%d:%.2f" % kv for kv in results.items()))
        assert all(v < 25 for v in results.values()), results
    """, fake, pre=KERNEL_PRELUDE)
    print("launch host overhead (us per launch, fake driver):", out.strip())


# ---- the compiler's PTX against the packing plans (the ABI contract) ----------------

SUITE = pathlib.Path(__file__).resolve().parent / "cuda_kernels.py"


@pytest.mark.skipif(not SUITE.exists(), reason="the shared kernel suite (cuda_kernels.py) is "
                    "not in this tree")
def test_suite_kernels_parameters_match_the_ptx(fake):
    """Every kernel of the shared suite compiled to real PTX, loaded by the
    fake driver (which reads each .entry's .param list) and launched: the
    slots the launch packs are exactly the PTX parameters, and each array
    passes its data pointer, shape and strides."""
    out = run("""
        sys.path.insert(0, %r)
        import cuda_kernels as K
        bad = []
        for case in K.CASES:
            try:
                args = case.make(np.random.default_rng(0))
                dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
                k = cuda.jit(case.kernel)
                k[case.grid, case.block, 0, case.shared](*dev)
                rec = last_launch()
                nparams = int(rec[6])
                ov = next(iter(k.overloads.values()))
                nslots = _core._cuda_spec_info(ov.capsule)[2]
                slots = [bytes.fromhex(h) for h in rec[7:]]
                want = _core._cuda_pack(ov.capsule, tuple(dev))
                assert nparams == nslots == len(want), (nparams, nslots, len(want))
                assert slots == want, (slots, want)
                i = 0
                for a in dev:
                    if isinstance(a, cuda.DeviceNDArray):
                        assert int.from_bytes(slots[i], "little") == a.device_ctypes_pointer.value
                        i += 1 + 2 * a.ndim
                    elif isinstance(a, complex):
                        i += 2
                    elif isinstance(a, tuple):
                        i += len(a)
                    else:
                        i += 1
                assert i == nslots
            except Exception as exc:
                bad.append("%%s: %%s: %%s" %% (case.name, type(exc).__name__, exc))
        print(len(K.CASES), "kernels")
        assert not bad, "\\n".join(bad)
    """ % str(SUITE.parent), fake)
    assert "kernels" in out


# ---- NCCL through hpcjit.mpi (one rank, fake NCCL over the fake driver) ----------------

def test_mpi_collectives_of_device_arrays_use_nccl(fake, fake_nccl):
    from hpcjit import mpi
    if not mpi.available():
        pytest.skip("hpcjit was built without MPI")
    run("""
        from hpcjit import mpi
        nl = ctypes.CDLL(os.environ["HPCJIT_NCCL_LIBRARY"])
        x = cuda.to_device(np.arange(8, dtype=np.float32))
        r = cuda.device_array(8, np.float32)
        assert mpi.allreduce(x, r, mpi.SUM) is r
        np.testing.assert_array_equal(r.copy_to_host(), np.arange(8))
        v = mpi.allreduce(x, mpi.MAX)
        np.testing.assert_array_equal(v.copy_to_host(), np.arange(8))
        assert nl.fakenccl_calls(0) == 2 and nl.fakenccl_comms() == 1   # one communicator
        out = mpi.reduce(x, mpi.SUM, 0)
        np.testing.assert_array_equal(out.copy_to_host(), np.arange(8))
        b = cuda.to_device(np.ones(3))
        assert mpi.bcast(b, 0) is b and nl.fakenccl_calls(2) == 1
        g = mpi.allgather(x)
        assert g.shape == (1, 8)
        np.testing.assert_array_equal(g.copy_to_host()[0], np.arange(8))
        rs = mpi.reduce_scatter(x, mpi.SUM)
        assert rs.shape == (8,) and nl.fakenccl_calls(4) == 1
        # host arrays keep the MPI path: NCCL counts do not move
        h = mpi.allreduce(np.arange(4.0), mpi.SUM)
        np.testing.assert_array_equal(h, np.arange(4.0))
        np.testing.assert_array_equal(mpi.reduce_scatter(np.arange(6.0)), np.arange(6.0))
        assert nl.fakenccl_calls(0) == 2
        # a foreign device array (CAI) goes over NCCL too
        class Foreign:
            __cuda_array_interface__ = x.__cuda_array_interface__
        mpi.allreduce(Foreign(), r, mpi.SUM)
        assert nl.fakenccl_calls(0) == 3
        try:
            mpi.allreduce(x, cuda.device_array(3, np.float32), mpi.SUM)
        except ValueError as exc:
            assert "differ" in str(exc)
        else:
            raise AssertionError("mismatched arrays accepted")
        try:
            mpi.allreduce(x, r, 99)
        except ValueError:
            pass
        else:
            raise AssertionError("bad op accepted")
        from hpcjit.cuda import nccl
        nccl.destroy_all()
        assert nl.fakenccl_comms() == 0
    """, fake, HPCJIT_NCCL_LIBRARY=fake_nccl)


def test_missing_nccl_is_a_support_error(fake):
    from hpcjit import mpi
    if not mpi.available():
        pytest.skip("hpcjit was built without MPI")
    out = run("""
        from hpcjit import mpi
        try:
            mpi.allreduce(cuda.to_device(np.ones(2)), mpi.SUM)
        except cuda.CudaSupportError as exc:
            print(exc)
    """, fake, HPCJIT_NCCL_LIBRARY="/nonexistent/libnccl.so.2")
    assert "NCCL cannot be loaded" in out and "/nonexistent/libnccl.so.2" in out


def test_grid_sync_kernels_launch_cooperatively(fake):
    """A kernel that calls cuda.cg.this_grid().sync() defines the grid
    barrier and is launched with cuLaunchCooperativeKernel, on the slow and
    the fast path; other kernels with cuLaunchKernel."""
    run("""
        @cuda.jit
        def syncs(a):
            i = cuda.grid(1)
            a[i] = 1.0
            cuda.cg.this_grid().sync()
            a[i] += a[a.size - 1 - i]

        @cuda.jit
        def plain(a):
            a[cuda.grid(1)] = 2.0

        a = cuda.device_array(128)
        for _ in range(2):  # the Python path, then the C fast path
            syncs[4, 32](a)
            assert last_launch()[5] == "1", last_launch()
            plain[4, 32](a)
            assert last_launch()[5] == "0", last_launch()
        assert lib().fakecuda_launch_count() == 4
        sm = cuda.get_current_device().MULTIPROCESSOR_COUNT
        assert syncs.max_cooperative_grid_blocks(32) == (2048 // 32) * sm
        assert syncs.max_cooperative_grid_blocks((16, 4)) == (2048 // 64) * sm
    """, fake)


def test_cuda_archs_choose_the_kernel_target(fake):
    """The fake device is sm_90: HPCJIT_CUDA_ARCHS=75,86 compiles kernels
    for sm_86 (the newest the device runs); a list with nothing at or below
    the device is a CudaSupportError naming it."""
    run("""
        @cuda.jit
        def k(a):
            a[cuda.grid(1)] = 1.0
        a = cuda.device_array(32)
        k[1, 32](a)
        (ptx,) = k.inspect_ptx().values()
        assert ".target sm_86" in ptx, ptx[:300]
        import os
        os.environ["HPCJIT_CUDA_ARCHS"] = "sm_100"
        @cuda.jit
        def k2(a):
            a[cuda.grid(1)] = 2.0
        try:
            k2[1, 32](a)
        except cuda.CudaSupportError as exc:
            assert "sm_100: none runs on this device (sm_90)" in str(exc), exc
        else:
            raise AssertionError("launched with no fitting architecture")
    """, fake, HPCJIT_CUDA_ARCHS="75,86")
