#!/usr/bin/env bash
# Stops the product-details and catalog-stub processes that tests started and whose test process
# is gone. A test stops the service it runs (Tests/AppTests/ServiceProcess) when it ends; a
# crashed test process, or one killed at a time-out, never does, and its services would run on
# with PID 1 as their parent. Only orphans running this checkout's debug build are stopped (the
# tests run the binaries beside the test bundle), so a `make run` or `make fleet` (release
# builds) is left alone.
#
# Usage: scripts/reap-test-services.sh [scratch path (.build)]      Prints one line when it
# stopped anything.
set -uo pipefail
cd "$(dirname "$0")/.."

build=$(readlink -f "${1:-.build}")
stopped=0
for pid in $(pgrep -x product-details || true) $(pgrep -x catalog-stub || true); do
  executable=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
  [[ "$executable" == "$build"/*/debug/* ]] || continue
  parent=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null) || continue
  [ "$parent" = 1 ] || continue
  kill -KILL "$pid" 2>/dev/null && stopped=$((stopped + 1))
done
if [ "$stopped" -gt 0 ]; then
  echo "reap-test-services: stopped $stopped service process(es) left by test processes that are gone"
fi
exit 0
