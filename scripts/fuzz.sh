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
  log=$(mktemp)
  status=0
  "$go" test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$dir" 2>&1 | tee "$log" || status=$?
  # Go's fuzzing coordinator can end a run with "context deadline exceeded"
  # when a worker is still busy as -fuzztime runs out on a loaded machine:
  # no input failed and nothing was saved. A target that runs few inputs a
  # second (FuzzSaveArchive, in a large test binary) meets it now and then,
  # and once in a cold CI run; that one case is run again, up to three times
  # in all. A real failure (a crasher, saved under testdata/fuzz) stops the
  # run.
  attempt=1
  while [ "$status" -ne 0 ] && [ "$attempt" -lt 3 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; do
    attempt=$((attempt + 1))
    echo "fuzz $dir $target: the fuzzing engine timed out with no failing input; running it again ($attempt of 3)"
    status=0
    "$go" test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$dir" 2>&1 | tee "$log" || status=$?
  done
  rm -f "$log"
  [ "$status" -eq 0 ] || exit "$status"
  echo "fuzz $dir $target: $((SECONDS - target_start))s with the build"
  count=$((count + 1))
done <<<"$targets"
echo "fuzzed $count targets for $fuzztime each in $((SECONDS - start))s"
