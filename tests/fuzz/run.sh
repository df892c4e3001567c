#!/usr/bin/env bash
# Build the libFuzzer target (clang-19, ASan + UBSan + coverage) in
# build-fuzz/ and run it for a time budget on a seed corpus made from the
# test suite's functions.
#
#   tests/fuzz/run.sh [SECONDS] [--json FILE]
#
# Findings (crash, sanitizer report, leak, hang > 10 s, internal compiler
# error) are written to build-fuzz/findings/; the exit status is nonzero
# when there is one.  Prints the executions done; --json writes them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
secs=${1:-120}
json=""
if [ "${2:-}" = "--json" ]; then json=${3:?--json FILE}; fi
if [ "$secs" = "-h" ] || [ "$secs" = "--help" ]; then sed -n 2,11p "$0"; exit 0; fi
bdir=${HPCJIT_FUZZ_BUILD:-$root/build-fuzz}
cc=${CC_FUZZ:-clang-19}
command -v "$cc" >/dev/null || { echo "run.sh: $cc not found (apt-get install clang-19 libclang-rt-19-dev)"; exit 77; }
cmake -S "$root" -B "$bdir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHPCJIT_FUZZ=ON -DHPCJIT_SANITIZE=ON -DHPCJIT_LLVM_STATIC=OFF >/dev/null
cmake --build "$bdir" -j"$(nproc)" --target fuzz_compile >/dev/null
corpus="$bdir/corpus"
mkdir -p "$corpus" "$bdir/findings"
python3 "$here/make_corpus.py" "$corpus" >/dev/null
cp -n "$here"/regressions/* "$corpus"/ 2>/dev/null || true
log="$bdir/fuzz.log"
set +e
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$bdir/tests/fuzz/fuzz_compile" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$bdir/findings/" "$corpus" >"$log" 2>&1
rc=$?
set -e
execs=$(grep -E "^stat::number_of_executed_units" "$log" | awk '{print $2}' | tail -1)
cov=$(grep -oE "cov: [0-9]+" "$log" | tail -1 | awk '{print $2}')
nfind=$(find "$bdir/findings" -type f | wc -l)
echo "fuzz_compile: ${execs:-0} executions in ${secs} s, coverage ${cov:-?} edges, ${nfind} finding(s) (rc $rc)"
if [ -n "$json" ]; then
  printf '{"executions": %s, "seconds": %s, "coverage": %s, "findings": %s, "rc": %s}\n' \
    "${execs:-0}" "$secs" "${cov:-0}" "$nfind" "$rc" > "$json"
fi
if [ "$rc" -ne 0 ] || [ "$nfind" -ne 0 ]; then
  tail -n 40 "$log"
  # the kind and the input of each finding last, so that a CI log that keeps
  # only its tail still says what to reproduce (fuzz_replay FILE)
  grep -E "^(==[0-9]+==ERROR|SUMMARY|fuzz_compile: internal error)|ERROR: libFuzzer" "$log" | head -n 6
  for f in $(find "$bdir/findings" -type f | head -n 3); do
    echo "fuzz finding $(basename "$f") ($(wc -c <"$f") bytes), base64:"
    base64 -w 100 "$f" | head -n 40
  done
  exit 1
fi
