#!/usr/bin/env bash
# The whole test suite: installs missing packages; runs the concurrency tests (shared-memory
# stress and crash, the multi-threaded extender server) under ThreadSanitizer; runs every test
# under AddressSanitizer + UndefinedBehaviorSanitizer; then builds the default preset and runs
# every ctest label (unit, integration, stress, conformance) but the whole simulator seeds (sim:
# `ctest --preset default -L sim`). Ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc)
# Most tests wait on child processes, Prometheus and sockets rather than compute; the ones that
# load every core are RUN_SERIAL and still run alone.
test_jobs=$((jobs * 2))

echo "== ThreadSanitizer: score table stress and crash, extender server"
cmake --preset tsan -DNETSCORE_WERROR="$werror" >/dev/null
cmake --build --preset tsan -j "$jobs" --target concurrency_tests
ctest --preset tsan -L concurrency -j "$test_jobs"

echo "== AddressSanitizer + UndefinedBehaviorSanitizer: every test"
cmake --preset asan -DNETSCORE_WERROR="$werror" >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -LE sim -j "$test_jobs"

echo "== Default preset: every test"
cmake --preset default -DNETSCORE_WERROR="$werror" >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -LE sim -j "$test_jobs"
