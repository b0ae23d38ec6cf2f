#!/usr/bin/env bash
# Stops the redis-servers that tests started and whose test process is gone, and removes their
# folders. A test stops its server when its harness goes away; a crashed test process, or one
# killed at a time-out, never does, and its servers would run on with PID 1 as their parent.
# Each server's folder is `pd-redis-<test process id>-<random>` (Tests/TestSupport/RedisServer;
# the six nodes of a Tests/TestSupport/RedisClusterServers share one), so a server whose test
# process still runs (another suite at the same time) is left alone.
#
# Usage: scripts/reap-test-redis.sh      Prints one line when it stopped anything.
set -uo pipefail

temporary=${TMPDIR:-/tmp}
temporary=${temporary%/}
stopped=0
for pid in $(pgrep -x redis-server || true); do
  # Its working directory: redis-server changes to its --dir, and rewrites its command line.
  folder=$(readlink "/proc/$pid/cwd" 2>/dev/null) || continue
  [[ "$folder" == "$temporary"/pd-redis-* ]] || continue
  owner=${folder#"$temporary"/pd-redis-}
  owner=${owner%%-*}
  [[ "$owner" =~ ^[0-9]+$ ]] || continue
  if ! kill -0 "$owner" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null && stopped=$((stopped + 1))
  fi
done
removed=0
for folder in "$temporary"/pd-redis-*-*; do
  [ -d "$folder" ] || continue
  owner=${folder#"$temporary"/pd-redis-}
  owner=${owner%%-*}
  if [[ "$owner" =~ ^[0-9]+$ ]] && ! kill -0 "$owner" 2>/dev/null; then
    rm -rf "$folder" && removed=$((removed + 1))
  fi
done
if [ "$stopped" -gt 0 ] || [ "$removed" -gt 0 ]; then
  echo "reap-test-redis: stopped $stopped redis-server(s) and removed $removed folder(s) left by test processes that are gone"
fi
exit 0
