#!/usr/bin/env bash
# Prepare a device check on the GPU node (run here, where LLVM 19 is).
#
#   bash scripts/gpu/prepare.sh
#
# The GPU node has no LLVM and another Python: it gets this working tree
# plus .gpu-carry/ (git-ignored), which holds the compiler as one stripped
# shared library with LLVM inside (libhpcjit_compiler.so, built here with
# -DHPCJIT_SHARED_COMPILER=ON, Release) and libhpcjit_compiler.info (the
# hash of the compiler sources it was built from: the node's configure
# refuses a library built from other sources, so run this after the last
# merge).  There, `bash scripts/gpu/device_check.sh` builds the rest.
#
# The copy may hold 64 MiB in all (tree and carried paths): the total is
# measured and printed; over the limit this fails.  Build folder:
# build-gpu-compiler/ (HPCJIT_GPU_PREP_BUILD), parallelism JOBS (nproc).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
bdir=${HPCJIT_GPU_PREP_BUILD:-build-gpu-compiler}
carry=.gpu-carry
limit=$((64 * 1024 * 1024))

t0=$(date +%s)
mkdir -p "$bdir"
log=$bdir/prepare.log
cmake -S . -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DHPCJIT_SHARED_COMPILER=ON \
      -DHPCJIT_BUILD_TESTS=OFF -DHPCJIT_MPI=OFF > "$log" 2>&1 ||
  { tail -n 40 "$log"; echo "prepare: configure FAILED (log: $log)"; exit 1; }
cmake --build "$bdir" --target hpcjit_compiler_shared -j"${JOBS:-$(nproc)}" >> "$log" 2>&1 ||
  { tail -n 40 "$log"; echo "prepare: build FAILED (log: $log)"; exit 1; }
lib=$bdir/compiler/libhpcjit_compiler.so

rm -rf "$carry"
mkdir -p "$carry"
cp "$lib" "$carry/libhpcjit_compiler.so"
strip --strip-all "$carry/libhpcjit_compiler.so" 2>/dev/null || true
# the identity of the sources as they are now (not as at the last link)
llvm=$(grep '^llvm_' "$bdir/compiler/libhpcjit_compiler.info" || true)
cmake -DSRC="$root" -DOUT="$carry/libhpcjit_compiler.info" -P cmake/compiler_hash.cmake
printf '%s\n' "$llvm" "git=$(git rev-parse --short HEAD 2>/dev/null || echo none)$(git diff --quiet HEAD 2>/dev/null || echo +dirty)" \
  "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)" >> "$carry/libhpcjit_compiler.info"

# what the library asks of the node: no LLVM, no Python, only hj_* exported
needed=$(readelf -d "$carry/libhpcjit_compiler.so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in
  *LLVM* | *python*) echo "prepare: the library needs $needed"; exit 1 ;;
esac
exports=$(nm -D --defined-only "$carry/libhpcjit_compiler.so" | awk '{print $3}')
others=$(printf '%s\n' "$exports" | grep -v '^hj_' | grep -v '^$' || true)
if [ -n "$others" ]; then
  echo "prepare: the library exports more than hj_*: $others"
  exit 1
fi
glibc=$(objdump -T "$carry/libhpcjit_compiler.so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)

# the size of what the device machine receives: tracked and untracked,
# not ignored, files of the working tree, and the carried folder
tree=$(git ls-files -z -co --exclude-standard | xargs -0 -r stat -c %s -- 2>/dev/null |
       awk '{s += $1} END {print s + 0}')
carried=$(du -sb "$carry" | cut -f1)
total=$((tree + carried))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }

echo "prepare: $carry/libhpcjit_compiler.so: $(mib "$(stat -c %s "$carry/libhpcjit_compiler.so")"), exports $(printf '%s\n' "$exports" | grep -c '^hj_') hj_* functions"
echo "prepare:   needs $needed(newest glibc symbol: $glibc)"
sed 's/^/prepare:   /' "$carry/libhpcjit_compiler.info"
echo "prepare: working tree $(mib "$tree") + $carry $(mib "$carried") = $(mib "$total") (limit 64 MiB)"
echo "prepare: done in $(($(date +%s) - t0)) s"
if [ "$total" -gt "$limit" ]; then
  echo "prepare: FAILED: over the 64 MiB the device machine receives"
  exit 1
fi
echo
echo "Device check (one call):"
echo "  carry:   [\"$carry\"]"
echo "  command: bash scripts/gpu/device_check.sh"
echo "  timeout: 540 s (the script ends by itself within HPCJIT_GPU_CHECK_BUDGET, 450 s by default)"
