#!/usr/bin/env bash
# Install dependencies and hpcjit itself (pip install .), then run the main
# job: the example from the README and the benchmark table against Numba
# and CPython.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
PY=${PYTHON:-python3}
$PY -m pip install -q --disable-pip-version-check . 2>&1 | grep -v "Running pip as the 'root' user" || true
cd /tmp  # import the installed package, not the source tree
$PY "$OLDPWD/examples/pairwise.py"
$PY "$OLDPWD/benchmarks/run.py" "$@"
