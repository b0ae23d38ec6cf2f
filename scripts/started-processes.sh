# Sourced (not run) by scripts that start services for a check (scripts/contract-test.sh,
# scripts/prometheus-check.sh), once WORK is their scratch folder: every pid they add to `pids`
# is stopped on exit, by pid (SIGTERM, then SIGKILL after 5 s), never by name; on failure the
# last lines of each $WORK/*.log are shown; then WORK is removed. A job started with `setsid`
# (a build: swift build's children would outlive a kill of the shell that runs it) goes in
# `groups` instead: its whole process group is stopped the same way.
# shellcheck shell=bash
pids=()
groups=()
cleanup() {
  local status=$?
  for pgid in "${groups[@]}"; do
    kill -0 "$pgid" 2>/dev/null || continue
    kill -TERM -- "-$pgid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pgid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
    wait "$pgid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$status" -ne 0 ]; then
    for log in "$WORK"/*.log; do
      [ -f "$log" ] || continue
      echo "--- last lines of $(basename "$log")" >&2
      tail -n 15 "$log" >&2
    done
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
