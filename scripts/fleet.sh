#!/usr/bin/env bash
# `make fleet`: a local fleet on loopback to try, with no Docker. Starts redis-server, one
# catalog-stub, three product-details replicas sharing both (REDIS_URL, UPSTREAM_URL) and nginx
# with deploy/nginx/fleet.conf in front of them, each on a free 127.0.0.1 port; prints the URLs
# and commands to try; on Ctrl-C (or when any of them exits) stops them all and removes its
# scratch folder. Installs redis-server and nginx-light when missing (scripts/install-deps.sh).
#
# Settings (environment):
#   ADMIN_TOKEN     bearer token for the DELETE /cache routes (default: a random one, printed)
#   FLEET_SECONDS   stop after that many seconds instead of waiting for Ctrl-C (0 = wait)
#   FLEET_CHECK     1: instead of waiting, check the fleet through nginx (scripts/deploy/
#                   fleet_check.py), stop it and exit with the check's status (scripts/contract-test.sh)
#   FLEET_LB        1 (default) runs the nginx load balancer; 0 leaves it out
#   FLEET_CLUSTER   1 (`make fleet CLUSTER=1`): a loopback Redis Cluster (scripts/redis-cluster.sh:
#                   six nodes, three masters with a replica each) instead of one redis-server;
#                   REDIS_URL names the first master
#   BUILD_DIR       SwiftPM scratch path of the release build (.build)
#   RELEASE_FLAGS   more `swift build -c release` flags (none) beyond scripts/release-flags
#   SWIFT           the swift driver (swift)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SWIFT=${SWIFT:-swift}
BUILD_DIR=${BUILD_DIR:-.build}
read -r -a RELEASE_FLAGS_LIST <<<"$(cat scripts/release-flags) ${RELEASE_FLAGS:-}"
FLEET_SECONDS=${FLEET_SECONDS:-0}
FLEET_LB=${FLEET_LB:-1}
FLEET_CHECK=${FLEET_CHECK:-0}
FLEET_CLUSTER=${FLEET_CLUSTER:-0}
[ "$FLEET_CHECK" = 0 ] || FLEET_LB=1
ADMIN_TOKEN=${ADMIN_TOKEN:-fleet-$RANDOM$RANDOM}
TOOLS="$ROOT/scripts/contract/tools.py"

die() { printf 'fleet: %s\n' "$*" >&2; exit 1; }

if [ "$FLEET_LB" = 1 ]; then scripts/install-deps.sh redis-server nginx-light; else scripts/install-deps.sh redis-server; fi
"$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --product product-details
"$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --product catalog-stub
BIN=$("$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --show-bin-path)
REDIS_SERVER=$(command -v redis-server || echo /usr/bin/redis-server)
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fleet.XXXXXX")
names=()
pids=()
cluster_ports=()
cleanup() {
  local status=$?
  # A second Ctrl-C does not cut the stop short (each process gets at most 15 s).
  trap '' INT TERM HUP
  # Stop only what this script started, by pid, the front first: SIGTERM (graceful: the
  # replicas drain), then SIGKILL for anything still there after 15 s.
  local i pid
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  # After the replicas: they may still write to it while they drain.
  [ "$FLEET_CLUSTER" != 1 ] || scripts/redis-cluster.sh stop "$WORK/cluster" || true
  if [ "$status" -ne 0 ] && [ "$status" -ne 130 ] && [ "$status" -ne 129 ]; then
    for log in "$WORK"/*.log; do
      [ -f "$log" ] || continue
      echo "--- last lines of $(basename "$log")" >&2
      tail -n 10 "$log" >&2
    done
  fi
  rm -rf "$WORK"
  [ ${#pids[@]} -eq 0 ] || echo "fleet: stopped" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'exit 129' HUP  # the terminal closed

# name, then the command. Each runs in a session of its own (setsid), so a Ctrl-C in the terminal
# reaches this script alone and the stop order above holds.
start() {
  local name=$1; shift
  setsid "$@" >"$WORK/$name.log" 2>&1 </dev/null &
  names+=("$name")
  pids+=($!)
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Redis has no "pick a free port" (`--port 0` turns TCP off): probe one, and try again should
# another process take it first. No persistence, its working folder in the scratch folder.
# A cluster's nodes are not watched below: one killed to try a failover does not end the fleet.
REDIS_PORT=
if [ "$FLEET_CLUSTER" = 1 ]; then
  mapfile -t cluster_ports < <(scripts/redis-cluster.sh start "$WORK/cluster")
  [ ${#cluster_ports[@]} -eq 6 ] || die "the Redis Cluster did not start"
  REDIS_PORT=${cluster_ports[0]}
fi
for _ in 1 2 3 4 5; do
  [ -z "$REDIS_PORT" ] || break
  port=$(free_port)
  mkdir -p "$WORK/redis"
  start redis "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
    --dir "$WORK/redis" --maxmemory 96mb --maxmemory-policy allkeys-lru
  for _ in $(seq 50); do
    if grep -q "Ready to accept connections" "$WORK/redis.log"; then REDIS_PORT=$port; break; fi
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$REDIS_PORT" ] && break
  kill -KILL "${pids[-1]}" 2>/dev/null || true
  wait "${pids[-1]}" 2>/dev/null || true
  unset 'pids[-1]' 'names[-1]'
done
[ -n "$REDIS_PORT" ] || die "redis-server did not start (see $WORK/redis.log)"

# catalog-stub and the replicas take a port from the kernel (PORT=0) and log it in their JSON
# `listening` line on stdout.
start catalog-stub env HOST=127.0.0.1 PORT=0 "$BIN/catalog-stub"
STUB_PORT=$(python3 "$TOOLS" port "$WORK/catalog-stub.log" 20)
replica_ports=()
for n in 1 2 3; do
  start "product-details-$n" env HOST=127.0.0.1 PORT=0 \
    UPSTREAM_URL="http://127.0.0.1:$STUB_PORT" REDIS_URL="redis://127.0.0.1:$REDIS_PORT" \
    ADMIN_TOKEN="$ADMIN_TOKEN" GLIBC_TUNABLES=glibc.malloc.tcache_count=128 "$BIN/product-details"
done
for n in 1 2 3; do
  port=$(python3 "$TOOLS" port "$WORK/product-details-$n.log" 30)
  python3 "$TOOLS" wait-ready "http://127.0.0.1:$port/readyz" 30
  replica_ports+=("$port")
done

LB=
if [ "$FLEET_LB" = 1 ]; then
  # The same file as compose.yaml's load balancer, rendered with the replicas' loopback ports.
  mkdir -p "$WORK/nginx"
  LB_PORT=$(free_port)
  python3 scripts/deploy/render_nginx.py deploy/nginx/fleet.conf "$WORK/nginx/nginx.conf" --prefix "$WORK/nginx" \
    --listen "127.0.0.1:$LB_PORT" \
    --upstream "product-details-1=127.0.0.1:${replica_ports[0]}" \
    --upstream "product-details-2=127.0.0.1:${replica_ports[1]}" \
    --upstream "product-details-3=127.0.0.1:${replica_ports[2]}"
  start nginx "$NGINX" -p "$WORK/nginx" -e stderr -c "$WORK/nginx/nginx.conf" -g "daemon off;"
  LB="http://127.0.0.1:$LB_PORT"
  python3 "$TOOLS" wait-ready "$LB/lb-healthz" 20
fi

R1="http://127.0.0.1:${replica_ports[0]}"
R2="http://127.0.0.1:${replica_ports[1]}"
cat <<EOF

Local fleet on loopback (logs in $WORK, removed on exit):
  redis-server     redis://127.0.0.1:$REDIS_PORT  (no persistence${cluster_ports:+; a cluster node: masters ${cluster_ports[*]:0:3}, replicas ${cluster_ports[*]:3:3}})
  catalog-stub     http://127.0.0.1:$STUB_PORT
  product-details  $R1
  product-details  $R2
  product-details  http://127.0.0.1:${replica_ports[2]}
${LB:+  nginx            $LB  (deploy/nginx/fleet.conf, round robin over the three)
}
Try:
  curl -i $R1/products/p1
  curl -i $R2/products/p1        # Cache-Status: from the shared cache, not the upstream
  curl -i -X DELETE -H 'Authorization: Bearer $ADMIN_TOKEN' $R1/cache/products/p1
                                  # 204, X-Invalidation-Receivers: 3 (the whole fleet forgets)
${LB:+  curl -i $LB/products/p2
}  curl -s $R1/metrics | grep -i redis
EOF
if [ "$FLEET_CHECK" = 1 ]; then
  python3 scripts/deploy/fleet_check.py "$WORK" "$ADMIN_TOKEN" "$LB" \
    "$R1" "$R2" "http://127.0.0.1:${replica_ports[2]}"
  exit 0
elif [ "$FLEET_SECONDS" -gt 0 ]; then
  echo "Stopping in $FLEET_SECONDS s (FLEET_SECONDS), or on Ctrl-C."
else
  echo "Ctrl-C stops everything."
fi

# Wait; stop when any process exits by itself (its log's last lines are shown).
waited=0
while :; do
  for i in "${!pids[@]}"; do
    kill -0 "${pids[i]}" 2>/dev/null || die "${names[i]} exited"
  done
  if [ "$FLEET_SECONDS" -gt 0 ] && [ "$waited" -ge "$FLEET_SECONDS" ]; then exit 0; fi
  sleep 1
  waited=$((waited + 1))
done
