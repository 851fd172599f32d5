#!/usr/bin/env bash
# The whole test suite: installs missing packages, runs the shared-memory stress tests under
# ThreadSanitizer, then builds the default preset and runs every ctest label (unit, integration,
# stress, conformance). Ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc)

echo "== ThreadSanitizer: score table stress and crash tests"
cmake --preset tsan -DNETSCORE_WERROR="$werror" >/dev/null
cmake --build --preset tsan -j "$jobs" --target score_table_stress_test score_table_crash_test
ctest --preset tsan -L stress

echo "== Default preset: every test"
cmake --preset default -DNETSCORE_WERROR="$werror" >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"
