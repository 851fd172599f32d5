#!/usr/bin/env bash
# Installs the Debian bookworm packages netscore builds, tests and demos with.
# Idempotent: installs only what is missing; non-interactive; root or sudo.
set -euo pipefail

# What the binaries need to compile; the Dockerfile's builder stage installs exactly this list
# (tests/deploy/check_dockerfile.py compares them).
build_packages=(
  g++ cmake ninja-build pkg-config
  libboost-dev libcurl4-openssl-dev rapidjson-dev libspdlog-dev
)
# Tests, benchmarks, the demo and the manifest checks.
test_packages=(
  git ca-certificates curl procps
  libgtest-dev libgmock-dev libbenchmark-dev
  # the benchmarks' command lines (bench/flags)
  libboost-program-options-dev
  prometheus golang-go python3 python3-yaml chromium
  openssl apache2-utils victoria-metrics clang-format
  # etcd for netscore-closed-loop-realtime --kube-bin (a real control plane)
  etcd-server
)
packages=("${build_packages[@]}" "${test_packages[@]}")

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
