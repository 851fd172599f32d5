#!/usr/bin/env bash
# The netscore demo: a real Prometheus (Debian package) on 127.0.0.1 backfilled with synthetic
# traffic for a few dozen nodes (receive and transmit counters, link speeds of 1 and 10 Gb/s, one
# virtual device reporting -1, one node without a speed) → netscore-collector → shared-memory
# table → netscore-extender. Prints what `netscore-collector --check` finds, the table and a
# prioritize answer, then serves until Ctrl-C and stops what it started.
#
#   bash scripts/demo.sh [--prometheus URL] [--interface IFACE] [--nodes N] [--once]
#                        [--build-dir DIR]
#
#   --prometheus URL   use an existing Prometheus instead of the synthetic one
#   --interface IFACE  device label to score (default eth0, the synthetic data's)
#   --nodes N          synthetic nodes (default 40)
#   --once             print, then stop everything and exit (no waiting for Ctrl-C)
#   --build-dir DIR    use binaries already built in DIR; skips package install and build
set -euo pipefail
cd "$(dirname "$0")/.."

prometheus_url="" interface=eth0 nodes=40 once=0 build_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prometheus) prometheus_url=$2; shift 2 ;;
    --interface) interface=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --once) once=1; shift ;;
    --build-dir) build_dir=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "demo: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

if [ -z "$build_dir" ]; then
  bash scripts/install-deps.sh
  cmake --preset default >/dev/null
  cmake --build --preset default --target netscore-collector netscore-extender netscore-synth netscore-prometheus
  build_dir=build/default
fi

work=$(mktemp -d)
shm="netscore-demo-$$"
pids=()
cleanup() {
  trap - EXIT INT TERM
  # Only children still running: the PID of one that has exited and been reaped may already
  # belong to another process (a test running next to the demo), which must not get the signal.
  local running
  running=$(jobs -pr)
  for pid in "${pids[@]}"; do
    if grep -qx "$pid" <<<"$running"; then kill -TERM "$pid" 2>/dev/null || true; fi
  done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -f "/dev/shm/$shm"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits (bounded) until FILE has a line matching PATTERN; prints the first match.
wait_for_line() {
  local file=$1 pattern=$2 seconds=$3 line
  for _ in $(seq $((seconds * 10))); do
    line=$(grep -m1 -oE "$pattern" "$file" 2>/dev/null || true)
    [ -n "$line" ] && { echo "$line"; return 0; }
    sleep 0.1
  done
  echo "demo: timed out waiting for '$pattern' in $file:" >&2
  tail -5 "$file" >&2
  return 1
}

if [ -z "$prometheus_url" ]; then
  echo "== synthetic traffic for $nodes nodes, backfilled into a real Prometheus"
  "$build_dir/tests/support/netscore-synth" --nodes "$nodes" --links --out "$work/traffic.om"
  "$build_dir/tests/support/netscore-prometheus" --openmetrics "$work/traffic.om" --print-url \
      >"$work/prometheus.out" 2>"$work/prometheus.log" &
  pids+=($!)
  prometheus_url=$(wait_for_line "$work/prometheus.out" '^http://[0-9.:]+' 120)
fi
echo "   Prometheus: $prometheus_url"

echo
echo "== netscore-collector --check"
if ! env NETSCORE_PROMETHEUS_URL="$prometheus_url" NETSCORE_INTERFACE="$interface" \
    "$build_dir/collector/netscore-collector" --check >"$work/check.out" 2>"$work/check.log"; then
  cat "$work/check.out" >&2
  echo "demo: netscore-collector --check finds no node to score" >&2
  exit 1
fi
# The summary after the per-node lines: basis, link speeds, busiest links.
sed -n '/^scoring:/,$p' "$work/check.out"

env NETSCORE_PROMETHEUS_URL="$prometheus_url" NETSCORE_INTERFACE="$interface" \
  NETSCORE_REFRESH_INTERVAL=5s NETSCORE_SHM_NAME="$shm" "$build_dir/collector/netscore-collector" \
  2>"$work/collector.log" &
pids+=($!)
NETSCORE_LISTEN=127.0.0.1:0 NETSCORE_SHM_NAME="$shm" "$build_dir/extender/netscore-extender" \
  2>"$work/extender.log" &
pids+=($!)
address=$(wait_for_line "$work/extender.log" '127\.0\.0\.1:[0-9]+' 30)
base="http://$address"

ready=0
for _ in $(seq 600); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ]; then ready=1; break; fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "demo: the extender did not become ready: $(curl -s "$base/readyz")" >&2
  tail -5 "$work/collector.log" >&2
  exit 1
fi

echo
echo "== $base/table?format=text"
curl -s "$base/table?format=text"

names=$(curl -s "$base/table" | python3 -c 'import json,sys; n=[r["name"] for r in json.load(sys.stdin)["nodes"]]; print(json.dumps(n[:3]+n[-3:]))')
body="{\"Pod\":{\"metadata\":{\"name\":\"demo\",\"namespace\":\"default\"}},\"Nodes\":null,\"NodeNames\":$names}"
echo
echo "== POST $base/prioritize  NodeNames=$names"
curl -s -H 'Content-Type: application/json' -d "$body" "$base/prioritize"
echo
echo
echo "== $base/explain?pod=default/demo&format=text"
curl -s "$base/explain?pod=default/demo&format=text"

if [ "$once" = 1 ]; then exit 0; fi
cat <<EOT

netscore is running. Try:
  curl -s '$base/table?format=text'
  $base/table                (in a browser: the HTML view)
  curl -s '$base/explain?pod=default/demo&format=text'
  curl -s  $base/metrics
  curl -s  $base/readyz
  curl -s -H 'Content-Type: application/json' -d '$body' $base/prioritize
Logs: $work/{collector,extender}.log      Ctrl-C stops everything.
EOT
wait "${pids[@]}"
