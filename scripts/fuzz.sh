#!/usr/bin/env bash
# Fuzzes every libFuzzer target for a while (not part of the default test run).
#   bash scripts/fuzz.sh [seconds-per-target, default 600] [target ...]
# Crashes are saved as tests/fuzz/<target>_corpus/crash-* so the default run replays them once
# fixed. MERGE=1 also merges new coverage-raising inputs into the checked-in corpus (then prune
# before committing: the corpora stay small).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
extra=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || extra+=("$p")
done
if [ ${#extra[@]} -gt 0 ]; then
  sudo_cmd=(); [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${extra[@]}" >/dev/null
fi

seconds=${1:-600}
shift || true
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(find build/fuzz/tests/fuzz -maxdepth 1 -type f -executable -name '*_fuzz' -printf '%f\n' | sort)
fi

for t in "${targets[@]}"; do
  corpus=tests/fuzz/${t}_corpus
  work=$(mktemp -d)
  cp -r "$corpus"/. "$work"/
  echo "== $t for ${seconds}s"
  set +e
  "build/fuzz/tests/fuzz/$t" "$work" -max_total_time="$seconds" -artifact_prefix="$corpus/" \
      -print_final_stats=1 -close_fd_mask=3 2>&1 | grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY|==[0-9]+==ERROR)'
  status=${PIPESTATUS[0]}
  set -e
  if [ "${MERGE:-0}" = 1 ]; then "build/fuzz/tests/fuzz/$t" -merge=1 "$corpus" "$work" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  [ "$status" -eq 0 ] || { echo "$t: FINDING (exit $status), reproducer in $corpus/"; exit 1; }
done
