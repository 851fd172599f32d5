#!/usr/bin/env bash
# Installs the Debian bookworm packages netscore builds, tests and demos with.
# Idempotent: installs only what is missing; non-interactive; root or sudo.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git ca-certificates curl procps
  libboost-dev libcurl4-openssl-dev rapidjson-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  prometheus golang-go
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
