#!/usr/bin/env bash
# `make test` (so `.ci/run`): every check, in order, each step's time printed as it ends and all of
# them again at the end (also after a failure), so a slow step shows in any CI log:
#   1. scripts/docs-check.py, then scripts/check-inlinable.py (no @inlinable other modules cannot
#      inline) and scripts/check-imports.py (no import Package.swift does not declare)
#   2. the Python tools, in the background: scripts/python-check.sh (it makes .venv-lint), then
#      the venvs of the contract, openapi-core and deploy checks (scripts/python-venv.sh). pip
#      waits on the network and the disk more than on the CPU, so it runs while the compiler
#      does; its output is kept and shown once it is waited for, right after the build, and a
#      failure there fails the run before any test
#   3. swift build --build-tests -Xswiftc -warnings-as-errors
#   4. scripts/swift-test.sh
#   5. scripts/contract-test.sh, on the Dockerfile's release build (--static-swift-stdlib)
#   6. Tests/Budgets/budgets.py: heap allocations per answer for healthz, hot, hot-gzip, miss and
#      a shared-cache hit on the same build, against Tests/Budgets/allocations.json
#   7. scripts/prometheus-check.sh, on the same build
#   8. scripts/fuzz.sh, FUZZ_SECONDS (10) per target
# Debian packages are installed before the background job starts: two apt-get runs at once would
# fight over dpkg's lock.
#
# Usage: scripts/test.sh [swift build flags...]    Environment: SWIFT (swift), FUZZ_SECONDS (10).
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT=${SWIFT:-swift}
export SWIFT
started=$(date +%s)
step_name=""
step_started=$started
timings=()

# Ends the step running (its time goes to `timings`) and starts the next one, if named.
step() {
  local now
  now=$(date +%s)
  if [ -n "$step_name" ]; then
    timings+=("$(printf '%5ss  %s' "$((now - step_started))" "$step_name")")
    printf '== test: %s done in %ss\n' "$step_name" "$((now - step_started))"
  fi
  step_name=${1:-}
  step_started=$now
  [ -z "$step_name" ] || printf '\n== test: %s (at %ss)\n' "$step_name" "$((now - started))"
}

tools_pid=""
tools_log=$(mktemp "${TMPDIR:-/tmp}/test-python-tools.XXXXXX")
finish() {
  local status=$?
  trap - EXIT INT TERM
  # The background job runs in a session of its own (setsid): stop its whole process group,
  # pip included, when the run ends before it was waited for.
  if [ -n "$tools_pid" ] && kill -0 "$tools_pid" 2>/dev/null; then
    kill -TERM -- "-$tools_pid" 2>/dev/null || true
    wait "$tools_pid" 2>/dev/null || true
  fi
  rm -f "$tools_log"
  if [ -n "$step_name" ]; then
    [ "$status" -eq 0 ] || step_name="$step_name (FAILED)"
    step
  fi
  printf '\n== test: step times (total %ss)\n' "$(($(date +%s) - started))"
  printf '%s\n' "${timings[@]}"
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step "docs-check, check-inlinable, check-imports"
python3 scripts/docs-check.py
python3 scripts/check-inlinable.py
python3 scripts/check-imports.py

step "Debian packages"
scripts/install-deps.sh libcap2-bin redis-server gcc libc6-dev
python3 -c 'import ensurepip' 2>/dev/null || scripts/install-deps.sh python3-venv

step "build --build-tests -warnings-as-errors (Python tools in the background)"
setsid bash -c '
  set -euo pipefail
  scripts/python-check.sh
  scripts/python-venv.sh .venv scripts/contract/requirements.txt
  scripts/python-venv.sh .venv-openapi-core scripts/contract/core-requirements.txt
  scripts/python-venv.sh .venv-deploy scripts/deploy/requirements.txt
  echo "python tools: ready after $(($(date +%s) - $0))s"
' "$(date +%s)" >"$tools_log" 2>&1 &
tools_pid=$!
"$SWIFT" build --build-tests -Xswiftc -warnings-as-errors "$@"

step "python-check and Python tools (waiting for the background job)"
tools_status=0
wait "$tools_pid" || tools_status=$?
tools_pid=""
cat "$tools_log"
[ "$tools_status" -eq 0 ] || { echo "test: the Python tools failed (exit $tools_status), see above" >&2; exit 1; }

step "swift-test"
scripts/swift-test.sh "$@"

# The release build under test is the Dockerfile's (--static-swift-stdlib): what ships is what the
# live checks run, and one release build serves them all instead of two.
export BUILD_DIR=.build/static-contract RELEASE_FLAGS=--static-swift-stdlib

step "contract-test"
scripts/contract-test.sh

step "allocation budgets"
python3 Tests/Budgets/budgets.py --build "$BUILD_DIR/release"

step "prometheus-check"
scripts/prometheus-check.sh

step "fuzz (${FUZZ_SECONDS:-10}s per target)"
FUZZ_SECONDS=${FUZZ_SECONDS:-10} scripts/fuzz.sh

step
