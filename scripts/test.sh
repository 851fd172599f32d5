#!/usr/bin/env bash
# The whole test suite: installs missing packages, builds the default preset, runs every ctest
# label (unit, integration, stress, conformance). Ends with ctest's summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
jobs=$(nproc)

cmake --preset default -DNETSCORE_WERROR="$werror" >/dev/null
cmake --build --preset default -j "$jobs"
ctest --preset default -j "$jobs"
