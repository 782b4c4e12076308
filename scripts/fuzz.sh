#!/usr/bin/env bash
# Runs every fuzz target (each `func FuzzX` in a _test.go file) for FUZZTIME
# each. A crasher stops the run; go test has then saved it under the
# package's testdata/fuzz/FuzzX, where it stays as a regression seed.
#
# Environment: FUZZTIME (per target, default 20s), GO.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-20s}
go=${GO:-go}

# Targets are found in the sources: `go test -list` would compile every
# package first.
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file" | sed "s|^|$(dirname "$file") |"
done)

start=$SECONDS
count=0
while read -r dir target; do
  echo "fuzz $dir $target"
  target_start=$SECONDS
  "$go" test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$dir"
  echo "fuzz $dir $target: $((SECONDS - target_start))s with the build"
  count=$((count + 1))
done <<<"$targets"
echo "fuzzed $count targets for $fuzztime each in $((SECONDS - start))s"
