#!/usr/bin/env bash
# A loopback Redis Cluster to try the service on (`make fleet CLUSTER=1`) or to poke at by hand:
# six `redis-server --cluster-enabled yes` on free 127.0.0.1 ports, joined by `redis-cli --cluster
# create --cluster-replicas 1` (three masters, one replica each), no persistence. The same shape
# as the tests' cluster (Tests/TestSupport/RedisClusterServers.swift).
#
# Usage:
#   scripts/redis-cluster.sh start DIR   starts the nodes (their folders, logs and pids in DIR),
#                                        waits until every node says cluster_state:ok, and prints
#                                        the nodes' ports, one a line, masters first
#   scripts/redis-cluster.sh stop DIR    kills the nodes started in DIR and removes their folders
#
# Settings (environment):
#   REDIS_CLUSTER_PASSWORD      requirepass and masterauth of every node (default: none)
#   REDIS_CLUSTER_NODE_TIMEOUT  cluster-node-timeout in ms: how long a master may be silent
#                               before its replica takes over (default 2000)
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
die() { printf 'redis-cluster: %s\n' "$*" >&2; exit 1; }
[ $# -eq 2 ] || usage
command=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
PASSWORD=${REDIS_CLUSTER_PASSWORD:-}
NODE_TIMEOUT=${REDIS_CLUSTER_NODE_TIMEOUT:-2000}
REDIS_SERVER=$(command -v redis-server || echo /usr/bin/redis-server)
REDIS_CLI=$(command -v redis-cli || echo /usr/bin/redis-cli)

# True when pid $1 is still the redis-server this script started in folder $2: a pid from an
# old file may by now belong to something else.
is_our_node() {
  [ "$(readlink "/proc/$1/cwd" 2>/dev/null)" = "$2" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = redis-server ]
}

stop_nodes() {
  local folder pid
  for folder in "$DIR"/node-*; do
    [ -d "$folder" ] || continue
    pid=$(cat "$folder/pid" 2>/dev/null || true)
    if [ -n "$pid" ] && is_our_node "$pid" "$folder"; then
      # SIGKILL: nothing is persisted, and it stops a frozen (SIGSTOP) node too.
      kill -KILL "$pid" 2>/dev/null || true
      for _ in $(seq 100); do is_our_node "$pid" "$folder" || break; sleep 0.05; done
    fi
    rm -rf "$folder"
  done
  rm -f "$DIR/ports" "$DIR/create.log"
}

cli() {
  local port=$1; shift
  if [ -n "$PASSWORD" ]; then
    REDISCLI_AUTH=$PASSWORD "$REDIS_CLI" -h 127.0.0.1 -p "$port" "$@"
  else
    "$REDIS_CLI" -h 127.0.0.1 -p "$port" "$@"
  fi
}

# Prints $1 distinct free loopback ports, one a line (one interpreter: each start is slow on a
# loaded host).
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in sockets))
PY
}

# Starts a node on port $1 with its cluster bus on port $2 (the default, the port plus 10,000, may
# be taken or past 65,535), in the background.
launch_node() {
  local port=$1 bus=$2 folder="$DIR/node-$1" auth=()
  [ -z "$PASSWORD" ] || auth=(--requirepass "$PASSWORD" --masterauth "$PASSWORD")
  mkdir -p "$folder"
  # setsid: the node outlives this script and a Ctrl-C in the terminal that started it.
  setsid "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --cluster-enabled yes \
    --cluster-port "$bus" --cluster-node-timeout "$NODE_TIMEOUT" \
    --cluster-config-file "$folder/nodes.conf" --dir "$folder" --save "" --appendonly no \
    --repl-diskless-sync-delay 0 --daemonize no "${auth[@]}" \
    >"$folder/redis.log" 2>&1 </dev/null &
  echo "$!" >"$folder/pid"
}

# Waits until the node on port $1 is ready (true) or has exited (false): it exits when another
# process took one of its ports after they were probed.
node_ready() {
  local folder="$DIR/node-$1" pid
  pid=$(cat "$folder/pid")
  for _ in $(seq 200); do
    grep -q "Ready to accept connections" "$folder/redis.log" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$folder"
  return 1
}

# True when every node says cluster_state:ok and all of them see the same slots and roles.
settled() {
  local port views=() view
  for port in "$@"; do
    cli "$port" CLUSTER INFO 2>/dev/null | grep -q "^cluster_state:ok" || return 1
    # id, role, master and slots of every node, without the fields that change by the second.
    view=$(cli "$port" CLUSTER NODES 2>/dev/null |
      awk '{ sub(/myself,/, "", $3); $2 = ""; $5 = ""; $6 = ""; $7 = ""; $8 = ""; print }' | sort) || return 1
    views+=("$view")
  done
  for view in "${views[@]}"; do [ "$view" = "${views[0]}" ] || return 1; done
}

case "$command" in
  start)
    for pidfile in "$DIR"/node-*/pid; do
      [ -f "$pidfile" ] || continue
      ! is_our_node "$(cat "$pidfile")" "$(dirname "$pidfile")" || die "a cluster already runs in $DIR: $0 stop $DIR first"
    done
    stop_nodes
    # A failed or interrupted start leaves nothing running.
    trap 'status=$?; [ "$status" -eq 0 ] || stop_nodes; exit "$status"' EXIT
    trap 'exit 130' INT TERM HUP
    # Redis has no "pick a free port" (`--port 0` turns TCP off): ports are probed, and a node
    # whose port another process took first is started again on new ones.
    ports=()
    for _ in 1 2 3 4 5; do
      missing=$((6 - ${#ports[@]}))
      [ "$missing" -gt 0 ] || break
      mapfile -t probed < <(free_ports $((2 * missing)))
      started=()
      for ((i = 0; i < missing; i++)); do
        launch_node "${probed[i]}" "${probed[missing + i]}"
        started+=("${probed[i]}")
      done
      for port in "${started[@]}"; do
        if node_ready "$port"; then ports+=("$port"); fi
      done
    done
    [ ${#ports[@]} -eq 6 ] || die "the nodes did not start (logs in $DIR)"
    addresses=()
    for port in "${ports[@]}"; do addresses+=("127.0.0.1:$port"); done
    created=0
    if [ -n "$PASSWORD" ]; then
      REDISCLI_AUTH=$PASSWORD timeout 60 "$REDIS_CLI" --cluster create "${addresses[@]}" \
        --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 && created=1
    else
      timeout 60 "$REDIS_CLI" --cluster create "${addresses[@]}" \
        --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 && created=1
    fi
    [ "$created" = 1 ] || { cat "$DIR/create.log" >&2; die "redis-cli --cluster create failed"; }
    for _ in $(seq 300); do
      settled "${ports[@]}" && break
      sleep 0.1
    done
    settled "${ports[@]}" || die "the nodes did not agree on the slots within 30 s"
    masters=() replicas=()
    for port in "${ports[@]}"; do
      if cli "$port" ROLE | head -1 | grep -q master; then masters+=("$port"); else replicas+=("$port"); fi
    done
    printf '%s\n' "${masters[@]}" "${replicas[@]}" | tee "$DIR/ports"
    echo "redis-cluster: masters ${masters[*]}, replicas ${replicas[*]} on 127.0.0.1 (stop: $0 stop $DIR)" >&2
    ;;
  stop)
    stop_nodes
    ;;
  *)
    usage
    ;;
esac
