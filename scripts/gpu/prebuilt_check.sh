#!/usr/bin/env bash
# Build hpcjit against a prebuilt libhpcjit_compiler.so with LLVM out of
# sight and without MPI, as on a machine that has neither (the GPU node:
# scripts/gpu/), and run a few pytest files against that build.
#
#   scripts/gpu/prebuilt_check.sh LIB BUILD_DIR [PYTEST_FILE...]
#
# LIB: a libhpcjit_compiler.so from -DHPCJIT_SHARED_COMPILER=ON (with its
# libhpcjit_compiler.info beside it).  As root with unshare(1), the
# configure and the build run in a mount namespace where LLVM's folders
# (/usr/lib/llvm-*, /usr/include/llvm*) are empty; everywhere, no binary
# built may need libLLVM.  PYTHON picks the interpreter (default python3);
# JOBS the build's parallelism (default: nproc).
set -uo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 LIB BUILD_DIR [PYTEST_FILE...]" >&2
  exit 2
fi
cd "$(dirname "$0")/../.."
lib=$(realpath "$1")
bdir=$2
shift 2
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(tests/python/test_scalars.py tests/python/test_calls.py tests/python/test_errors.py)
fi
py=$(command -v "${PYTHON:-python3}")
jobs=${JOBS:-$(nproc)}
[ -f "$lib" ] || { echo "prebuilt_check: no library $lib" >&2; exit 2; }

build() {
  rm -f "$bdir"/python/hpcjit/_mpi.*so # from an earlier configure with MPI
  cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_PREBUILT_COMPILER="$lib" \
        -DHPCJIT_MPI=OFF -DPython_EXECUTABLE="$py" &&
  cmake --build "$bdir" -j"$jobs"
}
hidden=""
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  # every LLVM folder there is, replaced by an empty one in this namespace
  dirs=$(ls -d /usr/lib/llvm-* /usr/include/llvm-* 2>/dev/null | sort -u | tr '\n' ' ')
  export -f build
  export bdir lib py jobs
  unshare -m bash -c "for d in $dirs; do mount -t tmpfs none \$d || exit 1; done
                      command -v llvm-config-19 >/dev/null && [ -x \"\$(readlink -f \$(command -v llvm-config-19))\" ] && { echo 'LLVM still visible'; exit 1; }
                      build" || { echo "prebuilt_check: build FAILED"; exit 1; }
  hidden=" (LLVM hidden: $dirs)"
else
  build || { echo "prebuilt_check: build FAILED"; exit 1; }
fi
# nothing built may load libLLVM (the compiler's LLVM is inside the library)
bad=0
while IFS= read -r f; do
  if readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*libLLVM'; then
    echo "prebuilt_check: $f needs libLLVM"; bad=1
  fi
done < <(find "$bdir" -type f \( -name '*.so' -o -perm -u+x \) -not -path '*/CMakeFiles/*')
[ $bad = 0 ] || exit 1
echo "prebuilt_check: built $bdir against $lib$hidden"
# without _mpi: hpcjit.mpi says so, CPU code is unaffected
# (-c, not stdin: a function needs its source, and CPython 3.12's bytecode
# cannot stand in for it)
PYTHONPATH="$bdir/python" "$py" -c '
import hpcjit
from hpcjit import mpi
assert not mpi.available()
try:
    mpi.rank()
except ImportError as exc:
    assert "hpcjit was built without MPI" in str(exc), exc
else:
    raise AssertionError("hpcjit.mpi.rank() worked without hpcjit._mpi")
@hpcjit.njit
def f(x):
    return x * 2 + 1
assert f(20) == f.py_func(20) == 41
print("prebuilt_check: without MPI: hpcjit.mpi raises ImportError, compiled code runs")
' || exit 1
PYTHONPATH="$bdir/python" HPCJIT_TEST_BUILD=1 "$py" -m pytest -q -p no:cacheprovider "${tests[@]}"
