#!/usr/bin/env bash
# Formats the C++ sources with the repository's .clang-format and the Go sources with gofmt.
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  change nothing; list the files that differ and exit 1 (CI's check)
# clang-format is Debian bookworm's (14): another major version may format differently.
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# Tracked files when this is a git checkout (build trees and fetched copies stay out); every
# source under the project's own directories otherwise.
list() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- "$@"
  else
    local names=()
    for pattern in "$@"; do names+=(-o -name "$pattern"); done
    find common collector extender bench tests -type f \( "${names[@]:1}" \) | sort
  fi
}
mapfile -t cpp < <(list '*.cpp' '*.h')
mapfile -t go < <(list '*.go')

if ! $check; then
  clang-format -i "${cpp[@]}"
  gofmt -w "${go[@]}"
  exit 0
fi

status=0
if ! report=$(clang-format --dry-run --Werror "${cpp[@]}" 2>&1); then
  grep -o '^[^:]*:[0-9]*:[0-9]*: error' <<<"$report" | cut -d: -f1 | sort -u | sed 's/^/not formatted: /' >&2
  status=1
fi
unformatted_go=$(gofmt -l "${go[@]}")
if [ -n "$unformatted_go" ]; then
  printf 'not formatted: %s\n' $unformatted_go >&2
  status=1
fi
[ $status -eq 0 ] || echo "run scripts/format.sh to fix" >&2
exit $status
