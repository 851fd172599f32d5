#!/usr/bin/env bash
# Soak (not part of the test run): a real Prometheus with synthetic traffic, the real
# netscore-collector (refresh every 1s) and netscore-extender, N keep-alive client threads
# posting /prioritize and /filter for MINUTES while Prometheus is restarted twice.
# Prints one soak_interval line per 30 s and a report; exits non-zero when an acceptance check fails.
#
#   bash scripts/soak.sh [MINUTES (default 10)] [netscore_soak flags, e.g. --clients 4 --nodes 50]
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
[ $# -gt 0 ] && shift
case "$minutes" in
  ''|*[!0-9.]*) echo "soak: MINUTES must be a number, got '$minutes'" >&2; exit 2 ;;
esac

cmake --preset default >/dev/null
cmake --build --preset default --target netscore_soak netscore-collector netscore-extender
exec build/default/bench/soak/netscore_soak --minutes "$minutes" "$@"
