#!/usr/bin/env bash
# Demo: builds netscore and prints a score table. The full chain (Prometheus → collector →
# extender) replaces this once the collector and extender land.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
echo "demo: the collector and extender are not built yet; see README.md"
