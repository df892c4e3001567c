"""CTest entry of the GPU suite (label gpu): exit 77 (skipped) with the
reason where there is no usable GPU, else run the pytest file given."""
import os
import subprocess
import sys


def main():
    os.environ.pop("HPCJIT_CUDA_SIM", None)
    os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
    from hpcjit import cuda  # a broken build is a failure, not a skip
    try:
        ok = cuda.is_available()
        why = "" if ok else cuda.cudadrv.driver.driver_status()[1] or "no CUDA device"
    except Exception as exc:  # noqa: BLE001 - any failure to reach a GPU is a skip reason
        ok, why = False, "%s: %s" % (type(exc).__name__, exc)
    if not ok:
        print("SKIP: no GPU: %s" % why)
        return 77
    args = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-rs"] + sys.argv[1:]
    return subprocess.call(args)


if __name__ == "__main__":
    sys.exit(main())
