#!/usr/bin/env bash
# Contract and deployability checks, run by `make test` after the Swift tests:
#   a) openapi.yaml is valid OpenAPI 3.1, and no inline enum takes a component schema's name
#   b) the running service (release build, real catalog-stub upstream, loopback, ephemeral ports)
#      passes schemathesis with every check, plus scripted upstream faults (scripts/contract/),
#      and openapi-core validates the same answers again (a second, independent validator);
#      schemathesis runs with `Accept-Encoding: gzip` and again (fewer cases) with identity only,
#      and every gzip answer is inflated with Python's gzip and compared with the identity bytes
#   c) /metrics passes `promtool check metrics` and prometheus_client's parser
#   d) hadolint Dockerfile
#   e) the deployment files, offline (scripts/deploy-check.sh: compose.yaml, the nginx load
#      balancer, Prometheus, deploy/kubernetes/)
#   f) the binaries built the Dockerfile's way need only libraries the runtime image has (ldd)
#   g) fleet mode: two replicas sharing a redis-server pass schemathesis too, plus the fleet cases
#      (shared Cache-Status, X-Invalidation-Receivers, DELETE 503 once Redis is gone)
#   h) `make fleet` works: scripts/fleet.sh with FLEET_CHECK=1 (Redis, three replicas, nginx)
# Installs what it needs when missing: a .venv with pinned PyPI tools, Debian's prometheus (for
# promtool) and docker-compose through scripts/install-deps.sh.
#
# Settings (environment):
#   BUILD_DIR               SwiftPM scratch path of the release build under test (.build)
#   RELEASE_FLAGS           more `swift build -c release` flags for it (none) beyond
#                           scripts/release-flags (every release build's). With
#                           --static-swift-stdlib (as `make test` runs it) the build under test is
#                           the Dockerfile's, and f) checks it: one release build instead of two
#   STATIC_BUILD_DIR        scratch path of the Dockerfile-style static build ($BUILD_DIR/static-contract)
#   CONTRACT_MAX_EXAMPLES   schemathesis test cases per operation and phase (100)
#   CONTRACT_SEED           schemathesis seed, fixed so that runs repeat (20261202)
#   CONTRACT_FLEET_EXAMPLES schemathesis test cases per operation against the fleet replica (25)
#   SWIFT                   the swift driver (swift)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SWIFT=${SWIFT:-swift}
BUILD_DIR=${BUILD_DIR:-.build}
STATIC_BUILD_DIR=${STATIC_BUILD_DIR:-$BUILD_DIR/static-contract}
read -r -a RELEASE_FLAGS_LIST <<<"$(cat scripts/release-flags) ${RELEASE_FLAGS:-}"
ONE_BUILD=0
if [[ " ${RELEASE_FLAGS:-} " == *" --static-swift-stdlib "* ]]; then
  ONE_BUILD=1
  STATIC_BUILD_DIR=$BUILD_DIR
fi
MAX_EXAMPLES=${CONTRACT_MAX_EXAMPLES:-100}
SEED=${CONTRACT_SEED:-20261202}
FLEET_EXAMPLES=${CONTRACT_FLEET_EXAMPLES:-25}
VENV=$ROOT/.venv
REQUIREMENTS=$ROOT/scripts/contract/requirements.txt
# openapi-core 0.23 needs openapi-spec-validator < 0.9: an environment of its own.
CORE_VENV=$ROOT/.venv-openapi-core
CORE_REQUIREMENTS=$ROOT/scripts/contract/core-requirements.txt
ADMIN_TOKEN_FOR_TEST="contract-$RANDOM$RANDOM"
started=$(date +%s)

step() { printf '\n== contract: %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }
die() { printf 'contract: FAILED: %s\n' "$*" >&2; exit 1; }

# schemathesis with every check against URL, MAX examples per operation: NAME.out and NAME.har
# in $WORK. Run from the scratch directory: schemathesis and hypothesis keep state there.
# schemathesis_run URL EXAMPLES NAME [ACCEPT_ENCODING]: requests' own default is gzip, deflate.
schemathesis_run() {
  local url=$1 examples=$2 name=$3 encoding=${4:-gzip} status
  set +e
  (cd "$WORK" && "$VENV/bin/schemathesis" run "$ROOT/openapi.yaml" \
    --url "$url" --checks all --header "Authorization: Bearer $ADMIN_TOKEN_FOR_TEST" --header "Accept-Encoding: $encoding" \
    --max-examples "$examples" --seed "$SEED" --generation-database none \
    --output-sanitize false --report har --report-har-path "$WORK/$name.har" \
    --request-timeout 10 --no-color) >"$WORK/$name.out" 2>&1
  status=$?
  set -e
  if [ "$status" -ne 0 ]; then
    cat "$WORK/$name.out"
    die "schemathesis against $url failed (exit $status): contract violations or a usage error, see above"
  fi
}

# Runs a Python script of cases (NAME.out in $WORK), shows its output on standard error, dies
# when it fails, and prints its summary line (the one starting with LABEL:).
scripted_cases() {
  local name=$1 label=$2 status
  shift 2
  set +e
  "$PY" "$@" >"$WORK/$name.out" 2>&1
  status=$?
  set -e
  cat "$WORK/$name.out" >&2
  [ "$status" -eq 0 ] || die "$label failed"
  grep -E "^$label:" "$WORK/$name.out" | tail -n1
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/contract-test.XXXXXX")
# Stops what this script starts (the pids it adds to `pids`) on exit, and removes WORK.
source scripts/started-processes.sh

# ---------------------------------------------------------------------------------------------
step "tools"
scripts/install-deps.sh prometheus docker-compose redis-server
scripts/python-venv.sh "$VENV" "$REQUIREMENTS"
scripts/python-venv.sh "$CORE_VENV" "$CORE_REQUIREMENTS"
PY="$VENV/bin/python"
TOOLS="$ROOT/scripts/contract/tools.py"
command -v promtool >/dev/null || die "promtool not found after installing prometheus"
command -v docker-compose >/dev/null || die "docker-compose not found after installing it"

# ---------------------------------------------------------------------------------------------
step "a) openapi-spec-validator openapi.yaml"
"$VENV/bin/openapi-spec-validator" openapi.yaml
"$PY" "$TOOLS" schema-names openapi.yaml

# ---------------------------------------------------------------------------------------------
if [ "$ONE_BUILD" = 1 ]; then
  step "b) release build: $BUILD_DIR, the Dockerfile's (--static-swift-stdlib), checked in f) too"
else
  step "b) release builds: $BUILD_DIR, and the Dockerfile's ($STATIC_BUILD_DIR, for f) beside it"
  # The static build cannot reuse the other one's objects (SwiftPM puts -static-stdlib on every
  # compile command, so one scratch path for both would rebuild everything at each switch), but a
  # release build leaves part of a second core idle (long single-threaded frontend stretches), so
  # side by side the two finish sooner than one after the other. It is waited for here, before
  # any service starts, so that no compiler competes with the live checks.
  setsid bash -c '
    set -euo pipefail
    read -r -a flags <scripts/release-flags
    "$0" build -c release --static-swift-stdlib "${flags[@]}" --scratch-path "$1" --product product-details
    "$0" build -c release --static-swift-stdlib "${flags[@]}" --scratch-path "$1" --product catalog-stub
  ' "$SWIFT" "$STATIC_BUILD_DIR" >"$WORK/static-build.out" 2>&1 &
  groups+=($!)
fi
"$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --product product-details
"$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --product catalog-stub
BIN=$("$SWIFT" build -c release "${RELEASE_FLAGS_LIST[@]}" --scratch-path "$BUILD_DIR" --show-bin-path)
if [ "$ONE_BUILD" = 0 ]; then
  step "b) waiting for the Dockerfile's build ($STATIC_BUILD_DIR)"
  STATIC_STATUS=0
  wait "${groups[-1]}" || STATIC_STATUS=$?
  cat "$WORK/static-build.out"
  [ "$STATIC_STATUS" -eq 0 ] || die "the Dockerfile's build (swift build -c release --static-swift-stdlib) failed, see above"
fi

step "b) the live service"

start() { # name, then env assignments; the binary is the last argument
  local name=$1; shift
  env "$@" >"$WORK/$name.log" 2>&1 &
  pids+=($!)
}
start stub HOST=127.0.0.1 PORT=0 "$BIN/catalog-stub"
STUB_PORT=$("$PY" "$TOOLS" port "$WORK/stub.log" 20)
STUB="http://127.0.0.1:$STUB_PORT"
# GLIBC_TUNABLES as the Dockerfile sets it (Sources/App/AllocatorTuning.swift).
TUNABLES=GLIBC_TUNABLES=glibc.malloc.tcache_count=128
# The scripted fault cases follow one another on the same services, each expecting its own fault's
# answer: with the upstream breakers on, the faults before would open the products breaker and
# every case after would be its 503. The breakers' answers are proven by the Swift suites
# (UpstreamBreakerTests, GrayFailureRouteTests) and bench/gray.py.
BREAKERS_OFF=(UPSTREAM_BREAKER_FAILURES=1000 UPSTREAM_BREAKER_MIN_CALLS=1000000)
# The longest request line allowed: `ids` is an array of any strings, and 100 long generated ones
# would meet the HTTP layer's 414 (tested by the Swift tests) instead of the route under test.
start service HOST=127.0.0.1 PORT=0 "$TUNABLES" "${BREAKERS_OFF[@]}" UPSTREAM_URL="$STUB" ADMIN_TOKEN="$ADMIN_TOKEN_FOR_TEST" \
  MAX_REQUEST_LINE_BYTES=1048576 "$BIN/product-details"
# A second service, for answers the first must not give: admin routes off (403), load shedding
# (503 with MAX_INFLIGHT_LOADS=1) and request shedding (503 with MAX_INFLIGHT_REQUESTS=2). Its
# upstream time-outs are long, so a request held by a hanging upstream stays while the fault
# cases look at what the service refuses meanwhile.
start service-limited HOST=127.0.0.1 PORT=0 "$TUNABLES" "${BREAKERS_OFF[@]}" UPSTREAM_URL="$STUB" MAX_INFLIGHT_LOADS=1 MAX_INFLIGHT_REQUESTS=2 \
  UPSTREAM_TIMEOUT_MS=6000 REQUEST_DEADLINE_MS=6000 RETRY_ATTEMPTS=1 "$BIN/product-details"
PORT_MAIN=$("$PY" "$TOOLS" port "$WORK/service.log" 20)
PORT_LIMITED=$("$PY" "$TOOLS" port "$WORK/service-limited.log" 20)
BASE="http://127.0.0.1:$PORT_MAIN"
LIMITED="http://127.0.0.1:$PORT_LIMITED"
"$PY" "$TOOLS" wait-ready "$BASE/readyz" 20
"$PY" "$TOOLS" wait-ready "$LIMITED/readyz" 20
echo "catalog-stub $STUB, product-details $BASE, limited $LIMITED"

step "b) schemathesis --checks all (max $MAX_EXAMPLES examples per operation, seed $SEED)"
# Run from the scratch directory: schemathesis and hypothesis keep state in the working directory.
schemathesis_run "$BASE" "$MAX_EXAMPLES" schemathesis
grep -E "^ *(Operations:|Scenarios:|[0-9]+ generated|.*No issues found)" "$WORK/schemathesis.out" | sed 's/^ */  /'
ST_CASES=$(grep -oE "[0-9]+ generated" "$WORK/schemathesis.out" | tail -n1)
step "b) schemathesis with Accept-Encoding: identity (max $FLEET_EXAMPLES examples per operation)"
schemathesis_run "$BASE" "$FLEET_EXAMPLES" schemathesis-identity identity
ST_IDENTITY_CASES=$(grep -oE "[0-9]+ generated" "$WORK/schemathesis-identity.out" | tail -n1)

step "b) gzip: every gzip answer inflates to the identity bytes"
GZIP_OUT=$("$PY" "$TOOLS" gzip-check "$BASE" 2>&1) || { echo "$GZIP_OUT"; die "gzip answers"; }
echo "$GZIP_OUT"

step "b) scripted upstream faults, checked against openapi.yaml"
FAULTS=$(scripted_cases faults "fault cases" "$ROOT/scripts/contract/fault_cases.py" "$ROOT/openapi.yaml" "$BASE" "$STUB" \
  "$ADMIN_TOKEN_FOR_TEST" "$LIMITED" "$WORK/faults.jsonl")

step "b) openapi-core validates the same answers (schemathesis' and the fault cases')"
CORE_OUT=$("$CORE_VENV/bin/python" "$ROOT/scripts/contract/core_validate.py" "$ROOT/openapi.yaml" "$BASE" \
  "$WORK/schemathesis.har" "$WORK/faults.jsonl" 2>&1) || { echo "$CORE_OUT"; die "openapi-core response validation"; }
echo "$CORE_OUT"
: >"$WORK/none.jsonl"
CORE_IDENTITY_OUT=$("$CORE_VENV/bin/python" "$ROOT/scripts/contract/core_validate.py" "$ROOT/openapi.yaml" "$BASE" \
  "$WORK/schemathesis-identity.har" "$WORK/none.jsonl" 2>&1) || { echo "$CORE_IDENTITY_OUT"; die "openapi-core response validation (identity)"; }
echo "identity: $CORE_IDENTITY_OUT"

# ---------------------------------------------------------------------------------------------
step "c) /metrics: promtool check metrics, prometheus_client parser"
"$PY" "$TOOLS" traffic "$BASE"
"$PY" "$TOOLS" scrape "$BASE/metrics" "$WORK/metrics.txt"
PROMTOOL_OUT=$(promtool check metrics <"$WORK/metrics.txt" 2>&1) || { echo "$PROMTOOL_OUT"; die "promtool check metrics"; }
echo "promtool: ${PROMTOOL_OUT:-no problems}"
"$PY" "$TOOLS" parse-metrics "$WORK/metrics.txt"

# ---------------------------------------------------------------------------------------------
step "g) fleet mode: two replicas on one redis-server"
REDIS_PORT=$("$PY" "$TOOLS" free-port)
start redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK"
REDIS_PID=${pids[-1]}
for replica in fleet-a fleet-b; do
  start "$replica" HOST=127.0.0.1 PORT=0 "$TUNABLES" "${BREAKERS_OFF[@]}" UPSTREAM_URL="$STUB" ADMIN_TOKEN="$ADMIN_TOKEN_FOR_TEST" \
    REDIS_URL="redis://127.0.0.1:$REDIS_PORT" MAX_REQUEST_LINE_BYTES=1048576 "$BIN/product-details"
done
FLEET_A="http://127.0.0.1:$("$PY" "$TOOLS" port "$WORK/fleet-a.log" 20)"
FLEET_B="http://127.0.0.1:$("$PY" "$TOOLS" port "$WORK/fleet-b.log" 20)"
"$PY" "$TOOLS" wait-ready "$FLEET_A/readyz" 20
"$PY" "$TOOLS" wait-ready "$FLEET_B/readyz" 20
echo "redis 127.0.0.1:$REDIS_PORT, replicas $FLEET_A $FLEET_B"
schemathesis_run "$FLEET_A" "$FLEET_EXAMPLES" fleet
FLEET_CASES=$(grep -oE "[0-9]+ generated" "$WORK/fleet.out" | tail -n1)
"$PY" "$TOOLS" scrape "$FLEET_A/metrics" "$WORK/fleet-metrics.txt"
FLEET_PROMTOOL=$(promtool check metrics <"$WORK/fleet-metrics.txt" 2>&1) || { echo "$FLEET_PROMTOOL"; die "promtool check metrics (fleet)"; }
FLEET_SUMMARY=$(scripted_cases fleet-cases "fleet cases" "$ROOT/scripts/contract/fleet_cases.py" "$ROOT/openapi.yaml" \
  "$FLEET_A" "$FLEET_B" "$ADMIN_TOKEN_FOR_TEST" "$REDIS_PID" "$WORK/fleet.jsonl")
FLEET_CORE=$("$CORE_VENV/bin/python" "$ROOT/scripts/contract/core_validate.py" "$ROOT/openapi.yaml" "$FLEET_A" \
  "$WORK/fleet.har" "$WORK/fleet.jsonl" 2>&1) || { echo "$FLEET_CORE"; die "openapi-core response validation (fleet)"; }
echo "$FLEET_CORE"

# ---------------------------------------------------------------------------------------------
step "d) hadolint Dockerfile"
HADOLINT_OUT=$("$VENV/bin/hadolint" --no-color Dockerfile 2>&1) || { echo "$HADOLINT_OUT"; die "hadolint Dockerfile"; }
echo "hadolint: ${HADOLINT_OUT:-no findings}"

# ---------------------------------------------------------------------------------------------
step "e) the deployment files: scripts/deploy-check.sh"
scripts/deploy-check.sh

# ---------------------------------------------------------------------------------------------
step "f) the Dockerfile's build ($STATIC_BUILD_DIR, built in b) needs only what debian:bookworm-slim + libuv1 + libdeflate0 has"
STATIC_BIN=$("$SWIFT" build -c release --static-swift-stdlib --scratch-path "$STATIC_BUILD_DIR" --show-bin-path)
LDD_OUT=$("$PY" "$TOOLS" ldd-check "$STATIC_BIN/product-details" "$STATIC_BIN/catalog-stub")
echo "$LDD_OUT"

# ---------------------------------------------------------------------------------------------
step "h) the local fleet through nginx: FLEET_CHECK=1 scripts/fleet.sh"
FLEET_OUT=$(FLEET_CHECK=1 BUILD_DIR="$BUILD_DIR" RELEASE_FLAGS="${RELEASE_FLAGS:-}" SWIFT="$SWIFT" scripts/fleet.sh 2>&1) || { echo "$FLEET_OUT"; die "the local fleet"; }
FLEET=$(grep -E "^fleet check:" <<<"$FLEET_OUT")
echo "$FLEET"

# ---------------------------------------------------------------------------------------------
printf '\n== contract summary (%ss)\n' "$(($(date +%s) - started))"
echo "  openapi-spec-validator: OK"
echo "  schemathesis --checks all: ${ST_CASES:-?} test cases with gzip accepted, ${ST_IDENTITY_CASES:-?} with identity, 0 failures"
echo "  ${GZIP_OUT}"
echo "  ${FAULTS}"
echo "  ${CORE_OUT}; identity: ${CORE_IDENTITY_OUT}"
echo "  promtool check metrics: ${PROMTOOL_OUT:-no problems}"
echo "  hadolint: ${HADOLINT_OUT:-no findings}"
echo "  deploy-check (compose, nginx -t, promtool, kubernetes-validate --strict, manifests): OK"
echo "$LDD_OUT" | sed 's/^/  /'
echo "  fleet mode: schemathesis ${FLEET_CASES:-?} test cases, ${FLEET_SUMMARY}, promtool ${FLEET_PROMTOOL:-no problems}"
echo "  fleet mode: ${FLEET_CORE}"
echo "  ${FLEET}"
echo "contract: every check passed"
