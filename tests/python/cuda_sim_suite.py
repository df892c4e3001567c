"""The shared kernel suite (cuda_kernels.py) in the CUDA simulator.  Run as
a script with HPCJIT_CUDA_SIM=1 (test_cuda_sim.py does): prints one JSON
object {case name: "ok" or the failure}."""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hpcjit import cuda  # noqa: E402
import cuda_kernels as K  # noqa: E402


def compare(case, args, pristine):
    want = case.reference(pristine)
    for idx, ref in zip(case.outputs, want):
        got = args[idx]
        if case.rtol:
            np.testing.assert_allclose(got, ref, rtol=case.rtol, atol=case.rtol,
                                       err_msg=f"{case.name}: output {idx}")
        else:
            np.testing.assert_array_equal(got, ref, err_msg=f"{case.name}: output {idx}")


def run_case(case):
    args = case.make(np.random.default_rng(0))
    pristine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    # device arrays for the arrays, as a GPU program would pass them
    dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    cuda.jit(case.kernel)[case.grid, case.block, 0, case.shared](*dev)
    out = [d.copy_to_host() if isinstance(a, np.ndarray) else a for a, d in zip(args, dev)]
    compare(case, out, pristine)


def run_debug(f):
    a = np.arange(64, dtype=np.float64) - (1 if f.__name__ == "debug_raise" else 0)
    try:
        cuda.jit(debug=True)(f)[1, 64](a)
    except (IndexError, ValueError) as exc:
        assert "tid=[" in str(exc), str(exc)
        return
    raise AssertionError(f"{f.__name__}: no exception")


def main():
    assert cuda.SIMULATOR
    results = {}
    only = sys.argv[1:]  # case names, or name prefixes ending in '*' (all cases when none)
    for case in K.CASES:
        if only and not any(case.name == o or (o.endswith("*") and case.name.startswith(o[:-1]))
                            for o in only):
            continue
        try:
            run_case(case)
            results[case.name] = "ok"
        except BaseException:  # noqa: BLE001 - every failure is reported
            results[case.name] = traceback.format_exc()
    for f in [] if only else getattr(K, "DEBUG_KERNELS", []):
        try:
            run_debug(f)
            results[f.__name__] = "ok"
        except BaseException:  # noqa: BLE001
            results[f.__name__] = traceback.format_exc()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
