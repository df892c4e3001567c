#!/usr/bin/env bash
# Install dependencies, build, and run every test (C units, front-end golden
# files, pytest).  The CTest summary is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j"$(nproc)" >> build.log 2>&1 || { tail -n 100 build.log; exit 1; }
ctest --test-dir build --output-on-failure -j"$(nproc)"
