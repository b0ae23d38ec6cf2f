#!/usr/bin/env bash
# The alert rules, the dashboard and the documented PromQL, checked with Prometheus itself; run by
# `make test` (after scripts/contract-test.sh, whose release build it reuses), or alone:
#   a) promtool check config deploy/prometheus/prometheus.yml (and the rule files it names)
#   b) promtool test rules deploy/prometheus/alerts.test.yml
#   c) every alert's runbook annotation names a section of docs/operations.md
#   d) a real Prometheus (Debian's, 127.0.0.1, a port it picks, scraping every second, rules
#      evaluated every second, storage in a scratch folder) scrapes two replicas of the release
#      build in fleet mode (a redis-server and the catalog-stub, all on free loopback ports) while
#      scripts/prometheus/promcheck.py sends traffic with a short upstream fault; then every
#      expression of deploy/grafana/product-details.json, deploy/prometheus/alerts.yml and the
#      ```promql blocks of README.md and docs/*.md, read from the files now, is evaluated through
#      /api/v1/query during the fault and after it: each must return data, or be listed with its
#      reason in scripts/prometheus/expected-empty.yml and return none.
# Everything started is stopped on exit, by pid. Installs what is missing: Debian's prometheus and
# redis-server through scripts/install-deps.sh, and .venv-deploy (PyYAML) with the pins of
# scripts/deploy/requirements.txt.
#
# Settings (environment):
#   BUILD_DIR      SwiftPM scratch path of the release build under test (.build)
#   RELEASE_FLAGS  more `swift build -c release` flags (none) beyond scripts/release-flags
#   SWIFT          the swift driver (swift)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv-deploy
SWIFT=${SWIFT:-swift}
BUILD_DIR=${BUILD_DIR:-.build}
read -r -a RELEASE_FLAGS_LIST <<<"$(cat scripts/release-flags) ${RELEASE_FLAGS:-}"
TOOLS="$ROOT/scripts/contract/tools.py"
CHECK="$ROOT/scripts/prometheus/promcheck.py"
TOKEN="prometheus-check-$RANDOM$RANDOM"
started=$(date +%s)

step() { printf '== prometheus-check: %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }
die() { printf 'prometheus-check: FAILED: %s\n' "$*" >&2; exit 1; }

scripts/install-deps.sh prometheus redis-server
scripts/python-venv.sh "$VENV" scripts/deploy/requirements.txt
command -v promtool >/dev/null || die "promtool not found after installing prometheus"

step "a) promtool check config deploy/prometheus/prometheus.yml"
promtool check config deploy/prometheus/prometheus.yml

step "b) promtool test rules deploy/prometheus/alerts.test.yml"
promtool test rules deploy/prometheus/alerts.test.yml

step "c) runbook sections"
"$VENV/bin/python" scripts/prometheus/promcheck.py runbooks deploy/prometheus/alerts.yml docs/operations.md

# ---------------------------------------------------------------------------------------------
step "d) release build ($BUILD_DIR)"
"$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --product product-details
"$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --product catalog-stub
BIN=$("$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --show-bin-path)
PY="$VENV/bin/python"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prometheus-check.XXXXXX")
# Stops what this script starts (the pids it adds to `pids`) on exit, and removes WORK.
source scripts/started-processes.sh

start() { # name, then the command
  local name=$1; shift
  "$@" >"$WORK/$name.log" 2>&1 &
  pids+=($!)
}

step "d) redis-server, catalog-stub, two replicas in fleet mode, Prometheus"
REDIS_PORT=$("$PY" "$TOOLS" free-port)
start redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK"
start stub env HOST=127.0.0.1 PORT=0 "$BIN/catalog-stub"
STUB="http://127.0.0.1:$("$PY" "$TOOLS" port "$WORK/stub.log" 20)"
# The breakers reopen for a trial call after 1 s instead of 5, so that the fault heals within the
# check. Replica b allows one load at a time, so that concurrent misses on it are refused.
for replica in a b; do
  limit=10000; [ "$replica" = b ] && limit=1
  start "replica-$replica" env HOST=127.0.0.1 PORT=0 GLIBC_TUNABLES=glibc.malloc.tcache_count=128 \
    UPSTREAM_URL="$STUB" REDIS_URL="redis://127.0.0.1:$REDIS_PORT" ADMIN_TOKEN="$TOKEN" \
    UPSTREAM_BREAKER_OPEN_MS=1000 MAX_INFLIGHT_LOADS="$limit" "$BIN/product-details"
done
A_PORT=$("$PY" "$TOOLS" port "$WORK/replica-a.log" 20)
B_PORT=$("$PY" "$TOOLS" port "$WORK/replica-b.log" 20)
"$PY" "$TOOLS" wait-ready "http://127.0.0.1:$A_PORT/readyz" 20
"$PY" "$TOOLS" wait-ready "http://127.0.0.1:$B_PORT/readyz" 20

cat >"$WORK/prometheus.yml" <<CONFIG
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $ROOT/deploy/prometheus/alerts.yml
scrape_configs:
  - job_name: product-details
    static_configs:
      - targets: ["127.0.0.1:$A_PORT", "127.0.0.1:$B_PORT"]
CONFIG
start prometheus prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address=127.0.0.1:0
PROM="http://127.0.0.1:$("$PY" "$CHECK" prom-port "$WORK/prometheus.log" 20)"
echo "redis 127.0.0.1:$REDIS_PORT, stub $STUB, replicas :$A_PORT :$B_PORT, Prometheus $PROM"

step "d) traffic with a fault; every dashboard, alert and docs expression through $PROM/api/v1/query"
"$PY" "$CHECK" live "$PROM" "$STUB" "http://127.0.0.1:$A_PORT" "http://127.0.0.1:$B_PORT" "$TOKEN" "$ROOT" \
  scripts/prometheus/expected-empty.yml

echo "prometheus-check: every check passed ($(($(date +%s) - started))s)"
