#!/usr/bin/env bash
# Runs modellint for action.yml and hands the results to GitHub: the table
# in the log, annotations, the step summary, SARIF and JUnit files, and the
# step outputs. The step ends with modellint's exit code: 0 clean, 1
# findings at or above fail-on, 2 usage or runtime error.
#
# Every input comes from the environment (action.yml maps inputs there), so
# no input is ever parsed as shell code. MODELLINT_PATH and MODELLINT_ARGS
# are split at whitespace, without quotes or globbing.
set -euo pipefail

read -r -d '' -a paths <<<"${MODELLINT_PATH:-.}" || true
read -r -d '' -a extra <<<"${MODELLINT_ARGS:-}" || true
[ "${#paths[@]}" -gt 0 ] || paths=(.)

work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/modellint.XXXXXX")
trap 'rm -rf "$work"' EXIT

args=(--format table --format "json=$work/report.json")
[ -n "${MODELLINT_CONFIG:-}" ] && args+=(--config "$MODELLINT_CONFIG")
[ -n "${MODELLINT_FAIL_ON:-}" ] && args+=(--fail-on "$MODELLINT_FAIL_ON")
[ -n "${MODELLINT_SARIF_FILE:-}" ] && args+=(--format "sarif=$MODELLINT_SARIF_FILE")
[ -n "${MODELLINT_JUNIT_FILE:-}" ] && args+=(--format "junit=$MODELLINT_JUNIT_FILE")
if [ "${MODELLINT_ANNOTATIONS:-true}" = true ]; then
  args+=(--format "github=$work/annotations.txt")
  # On a pull request, only the files it changes are annotated: the
  # diff from the base commit the event names, when the checkout has it
  # (fetch-depth: 0 gives it; the default of 1 does not). --relative
  # names them as the reports do, from the working directory.
  scope="every file: not a pull request"
  base=""
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request | pull_request_target)
      scope="every file: the event gives no base commit"
      if [ -f "${GITHUB_EVENT_PATH:-}" ] && command -v jq >/dev/null; then
        base=$(jq -r '.pull_request.base.sha // empty' "$GITHUB_EVENT_PATH" 2>/dev/null || true)
      fi
      ;;
  esac
  if [ -n "$base" ]; then
    if ! [[ $base =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
      scope="every file: the event's base commit is not a commit ID"
    elif git cat-file -e "$base^{commit}" 2>/dev/null &&
      git -c core.quotePath=false diff -z --name-only --relative --no-renames "$base" HEAD -- 2>/dev/null |
      tr '\0' '\n' >"$work/changed.txt"; then
      scope="the files the pull request changes"
      args+=(--annotate-files "$work/changed.txt")
    else
      scope="every file: the base commit $base is not in the checkout (actions/checkout with fetch-depth: 0 fetches it)"
    fi
  fi
  echo "modellint: annotating findings in $scope"
fi
[ "${MODELLINT_SUMMARY:-true}" = true ] && args+=(--format "markdown=$work/summary.md")

status=0
modellint "${args[@]}" ${extra[@]+"${extra[@]}"} -- "${paths[@]}" || status=$?

if [ -f "$work/annotations.txt" ]; then
  cat "$work/annotations.txt"
fi
if [ -f "$work/summary.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$work/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi

# Unsuppressed findings of every severity, from the JSON report's summary.
findings=0
if [ -f "$work/report.json" ]; then
  findings=$(awk '
    /^  "summary": \{/ { inside = 1; next }
    inside && /^  \}/ { exit }
    inside && $1 ~ /^"(error|warning|info)":$/ { gsub(/[^0-9]/, "", $2); total += $2 }
    END { print total + 0 }' "$work/report.json")
fi

sarif_file=""
if [ -n "${MODELLINT_SARIF_FILE:-}" ] && [ -f "$MODELLINT_SARIF_FILE" ]; then
  # Absolute, so that a later step finds it whatever its working directory.
  sarif_file=$(cd "$(dirname "$MODELLINT_SARIF_FILE")" && pwd)/$(basename "$MODELLINT_SARIF_FILE")
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  # A path is written in the multi-line form: a newline in it cannot
  # start another output.
  delimiter="modellint_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  {
    echo "exit-code=$status"
    echo "findings=$findings"
    echo "sarif-file<<$delimiter"
    echo "$sarif_file"
    echo "$delimiter"
  } >>"$GITHUB_OUTPUT"
fi
exit "$status"
