#!/usr/bin/env bash
# Install dependencies, build, run the hardening checks (fuzzers, ASan/UBSan
# build: scripts/hardening.sh) and every test (C units, front-end golden
# files, pytest).  A line with both results is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# HPCJIT_SHARED_COMPILER: also libhpcjit_compiler.so, and the CTest test
# build.prebuilt_compiler that builds the rest against it without LLVM
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHPCJIT_SHARED_COMPILER=ON > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -n 100 build.log; exit 1; }
set +e
ctest --test-dir build --output-on-failure -j"$(nproc)"
ctest_rc=$?
# hardening (issue 16): fuzzers and the sanitizer build, with their summary
bash scripts/hardening.sh
hard_rc=$?
echo "test.sh: ctest $([ $ctest_rc -eq 0 ] && echo passed || echo FAILED), hardening $([ $hard_rc -eq 0 ] && echo passed || echo FAILED)"
[ $ctest_rc -eq 0 ] && [ $hard_rc -eq 0 ]
