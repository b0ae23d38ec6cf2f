#!/usr/bin/env bash
# Runs the built test suite (`swift test --skip-build`) so that a failure can be diagnosed from
# the end of a CI log, which is often all that is kept:
# - a crash report names the crashed thread's frames only (no register dump, no image list),
#   so the "Fatal error" line and the frames that led to it stay near the end;
# - on failure, a summary follows: the issues recorded, and the tests that started but never
#   finished (after a crash, the ones that were running).
# The whole output is also kept in $SWIFT_TEST_LOG (.build/swift-test.log).
#
# First, scripts/check-clockless-tests.sh: the unit level neither sleeps nor reads the wall clock.
# Last, scripts/reap-test-redis.sh and scripts/reap-test-services.sh: no redis-server, service or
# stub a test started outlives the run.
#
# Usage: scripts/swift-test.sh [swift test arguments...]
# Environment: SWIFT (swift), SWIFT_TEST_TIMEOUT (1200 s for the whole run).
set -uo pipefail
cd "$(dirname "$0")/.."

scripts/check-clockless-tests.sh || exit 1

swift=${SWIFT:-swift}
log=${SWIFT_TEST_LOG:-.build/swift-test.log}
mkdir -p "$(dirname "$log")"
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,threads=crashed,registers=none,images=none,limit=48}

# A hung test must end the run, not hold CI until its own limit: SWIFT_TEST_TIMEOUT seconds in all
# (the suite takes about 2 minutes on a loaded host), then TERM, and KILL 30 s later.
timeout --kill-after=30 "${SWIFT_TEST_TIMEOUT:-1200}" "$swift" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
  echo "==== swift test ran past SWIFT_TEST_TIMEOUT (${SWIFT_TEST_TIMEOUT:-1200} s) and was stopped ===="
fi
scripts/reap-test-redis.sh
scripts/reap-test-services.sh
if [ "$status" -ne 0 ]; then
  echo
  echo "==== swift test failed (exit $status); full output in $log ===="
  echo "-- issues recorded:"
  grep -a "recorded an issue\|Fatal error\|Program crashed" "$log" | cut -c1-400 | head -40
  echo "-- tests started but not finished:"
  python3 - "$log" <<'PY'
import re, sys
started, ended = [], set()
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.search(r"Test (.+?) started\.", line)
    if m:
        if m.group(1) != "run" and not m.group(1).startswith("case "):  # a case ends with its test
            started.append(m.group(1))
        continue
    m = re.search(r"Test (.+?)(?: with \d+ test cases?)? (passed|failed|skipped)", line)
    if m:
        ended.add(m.group(1))
left = [name for name in started if name not in ended]
print("\n".join(left) if left else "(none)")
PY
fi
exit "$status"
