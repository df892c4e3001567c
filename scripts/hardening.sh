#!/usr/bin/env bash
# Hardening checks (issue 16), run by scripts/test.sh after the main tests:
#  1. libFuzzer over the front end (tests/fuzz/run.sh, clang-19, ASan+UBSan)
#  2. the Python-level mutant fuzzer (tests/fuzz/mutate.py) on the build/
#     package, then the call-surface sweep (tests/fuzz/api_sweep.py: every
#     callable the compiler knows, called with a fixed set of odd arguments)
#  3. an ASan+UBSan build (build-asan/) running the C unit tests, the golden
#     files, the fuzz regressions and the pytest files that exercise the
#     runtime most, with the sanitizer runtime preloaded into Python
#  4. the container-heavy pytest files with HPCJIT_DEBUG_MEMORY=1 (every
#     reference count update checked against the allocation table)
# Budgets (seconds) from HPCJIT_FUZZ_SECONDS (default 180) and
# HPCJIT_MUTATE_SECONDS (default 120); HPCJIT_HARDENING=0 skips it all.
# Writes build/hardening.json (executions, mutants, findings).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${HPCJIT_HARDENING:-1}" = "0" ] && { echo "hardening: skipped (HPCJIT_HARDENING=0)"; exit 0; }
fuzz_s=${HPCJIT_FUZZ_SECONDS:-180}
mut_s=${HPCJIT_MUTATE_SECONDS:-120}
mkdir -p build
rc=0

echo "== hardening 1/4: libFuzzer, ${fuzz_s} s"
tests/fuzz/run.sh "$fuzz_s" --json build/fuzz.json || rc=1

echo "== hardening 2/4: mutant fuzzer, ${mut_s} s"
PYTHONPATH=build/python python3 tests/fuzz/mutate.py --seconds "$mut_s" --workers "$(nproc)" \
  --out build/fuzz-findings --json build/mutate.json || rc=1
echo "== hardening 2/4: call-surface sweep"
PYTHONPATH=build/python python3 tests/fuzz/api_sweep.py --workers "$(nproc)" \
  --out build/sweep-findings --json build/sweep.json || rc=1

echo "== hardening 3/4: ASan + UBSan build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPCJIT_SANITIZE=ON > build-asan.log 2>&1 \
  && cmake --build build-asan -j"$(nproc)" >> build-asan.log 2>&1 || { tail -n 50 build-asan.log; exit 1; }
# hwloc's plugins leak in libraries they unload (tests/lsan.supp): the
# tests that discover the topology run with the slow unwinder, whose leak
# stacks are complete enough for the suppression; the rest with the fast
# one (the slow one makes LLVM-heavy tests time out).  The launcher's run
# tests start uninstrumented Pythons (the pytest step below covers Python).
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
topo_tests="topo|gpu_bind"
ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L "unit|golden|fuzz" -R "$topo_tests" \
    -E "launcher[.]run_" || rc=1
ASAN_OPTIONS=detect_leaks=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L "unit|golden|fuzz" \
    -E "launcher[.]run_|$topo_tests" || rc=1
asan=$(gcc -print-file-name=libasan.so)
ubsan=$(gcc -print-file-name=libubsan.so)
# CPython itself is not instrumented and keeps memory until exit: leaks off
LD_PRELOAD="$asan $ubsan" ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 PYTHONPATH=build-asan/python HPCJIT_TEST_BUILD=1 \
  python3 -m pytest -q -p no:cacheprovider tests/python/test_memory.py tests/python/test_lists.py \
    tests/python/test_dicts.py tests/python/test_sets.py tests/python/test_exceptions.py \
    tests/python/test_try.py tests/python/test_parallel.py tests/python/test_str_runtime.py \
    tests/python/test_signals.py tests/python/test_np_creation.py tests/python/test_records.py \
    tests/python/test_typed_set.py tests/python/test_literally.py tests/python/test_lowlevel_extending.py \
    tests/python/test_np_array_list.py tests/python/test_np_buffers.py tests/python/test_axis_fusion.py \
    tests/python/test_stmt_fusion.py \
    tests/python/test_np_search.py::test_histogram_blocks tests/python/test_np_search.py::test_histogram_nan_in_range_scan \
    -k "not rss_flat" || rc=1  # RSS grows with ASan's quarantine

echo "== hardening 4/4: allocation-owner debug mode over the container tests"
# every count update checked against the allocation table (runtime/memdebug.c):
# a double free or use after free is reported on stderr and fails this step
md_log=build/memdebug.log
HPCJIT_DEBUG_MEMORY=1 PYTHONPATH=build/python HPCJIT_TEST_BUILD=1 \
  python3 -m pytest -q -p no:cacheprovider tests/python/test_lists.py tests/python/test_dicts.py \
    tests/python/test_sets.py tests/python/test_exceptions.py tests/python/test_try.py \
    tests/python/test_str_runtime.py tests/python/test_jitclass.py tests/python/test_typed.py \
    tests/python/test_strings.py tests/python/test_generators.py tests/python/test_closures.py \
    tests/python/test_jitclass_dunder.py tests/python/test_try_finally_jumps.py tests/python/test_memdebug.py \
    tests/python/test_typed_set.py tests/python/test_records.py tests/python/test_stmt_fusion.py \
    -k "not rss_flat" 2> "$md_log" | tail -n 3 || rc=1
if grep -q "double free\|use after free" "$md_log" || ! grep -q " 0 bad count updates" "$md_log"; then
  grep "hpcjit-memdebug" "$md_log" | head -n 20
  echo "hardening: memory debug mode found bad count updates"; rc=1
else
  grep "hpcjit-memdebug: [0-9]* allocations" "$md_log" | tail -n 1
fi

python3 - <<'PY'
import json, os
out = {}
for k in ("fuzz", "mutate", "sweep"):
    p = f"build/{k}.json"
    if os.path.exists(p):
        out[k] = json.load(open(p))
json.dump(out, open("build/hardening.json", "w"), indent=1)
f, m, w = out.get("fuzz", {}), out.get("mutate", {}), out.get("sweep", {})
print(f"hardening: libFuzzer {f.get('executions', 0)} executions, {f.get('findings', '?')} finding(s); "
      f"mutants {m.get('mutants', 0)} ({m.get('compiled', 0)} compiled), "
      f"{len(m.get('findings', []))} finding(s); "
      f"sweep {w.get('calls', 0)} calls, {len(w.get('findings', []))} finding(s)")
# each finding in full (libFuzzer's: its error line and its input in base64),
# so that a CI log that keeps only its tail still names what to reproduce
# (the files stay under build-fuzz/findings and build/fuzz-findings)
if f.get("findings"):
    import base64, glob, re
    log = open("build-fuzz/fuzz.log", errors="replace").read() if os.path.exists("build-fuzz/fuzz.log") else ""
    for ln in re.findall(r"^(?:==\d+==ERROR.*|SUMMARY.*|fuzz_compile: internal error.*|.*ERROR: libFuzzer.*)$", log, re.M)[:4]:
        print("hardening: libFuzzer", ln.strip())
    for path in sorted(glob.glob("build-fuzz/findings/*"))[:3]:
        data = open(path, "rb").read()
        print(f"hardening: libFuzzer input {os.path.basename(path)} ({len(data)} bytes; "
              f"tests/fuzz/run.sh builds build-fuzz/tests/fuzz/fuzz_compile to replay it), base64:")
        b = base64.b64encode(data).decode()
        print("\n".join("  " + b[i:i + 100] for i in range(0, min(len(b), 4000), 100)))
for fd in (m.get("findings", []) + w.get("findings", []))[:5]:
    print(f"hardening: {'sweep' if 'qual' in fd else 'mutant'} {fd['kind']}: {fd['detail']}")
    try:
        print("".join("  | " + ln for ln in open(fd["path"]).readlines()[2:40]))
    except OSError:
        pass
PY
exit $rc
