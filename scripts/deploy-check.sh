#!/usr/bin/env bash
# Offline checks of the deployment files; nothing is deployed or started (there is no Docker
# engine and no cluster here). Run by scripts/contract-test.sh (so by `make test`), or alone:
#   a) docker-compose -f compose.yaml [-f compose.cluster.yaml] config -q
#   b) promtool check config deploy/prometheus/prometheus.yml
#   c) nginx -t on a copy of deploy/nginx/fleet.conf rendered with loopback addresses for the
#      replicas and its pid and temp files in a scratch folder (works as root and as any user)
#   d) kubernetes-validate --strict deploy/kubernetes/*.yaml, against the newest Kubernetes it
#      knows and against KUBERNETES_OLDEST (1.29)
#   e) scripts/deploy/check_manifests.py: probes, the shutdown arithmetic, what ties compose.yaml,
#      the nginx upstream and the Prometheus targets together, the Dockerfile's COPY sources
#      against .dockerignore; then that broken copies fail it
# Installs what is missing: Debian's docker-compose, prometheus and nginx-light through
# scripts/install-deps.sh, and .venv-deploy with the pins of scripts/deploy/requirements.txt.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv-deploy
REQUIREMENTS=$ROOT/scripts/deploy/requirements.txt
KUBERNETES_OLDEST=${KUBERNETES_OLDEST:-1.29.0}

step() { printf '== deploy-check: %s\n' "$*"; }
die() { printf 'deploy-check: FAILED: %s\n' "$*" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/deploy-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

scripts/install-deps.sh docker-compose prometheus nginx-light
scripts/python-venv.sh "$VENV" "$REQUIREMENTS"
# Debian puts nginx in /usr/sbin, which is not on an ordinary user's PATH.
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || die "nginx not found after installing nginx-light"

step "a) docker-compose config -q: compose.yaml, and with compose.cluster.yaml over it"
docker-compose -f compose.yaml config -q
docker-compose -f compose.yaml -f compose.cluster.yaml config -q

step "b) promtool check config deploy/prometheus/prometheus.yml"
promtool check config deploy/prometheus/prometheus.yml >"$WORK/promtool.out" 2>&1 || { cat "$WORK/promtool.out"; die "promtool check config"; }

step "c) nginx -t on deploy/nginx/fleet.conf, replicas on loopback"
# nginx -t resolves the upstream names but connects to nothing: any loopback port will do.
python3 scripts/deploy/render_nginx.py deploy/nginx/fleet.conf "$WORK/nginx.conf" --prefix "$WORK" \
  --upstream product-details-1=127.0.0.1:18081 \
  --upstream product-details-2=127.0.0.1:18082 \
  --upstream product-details-3=127.0.0.1:18083
"$NGINX" -t -q -p "$WORK" -e stderr -c "$WORK/nginx.conf" 2>"$WORK/nginx.out" || { cat "$WORK/nginx.out"; die "nginx -t"; }

step "d) kubernetes-validate --strict deploy/kubernetes (newest and $KUBERNETES_OLDEST)"
"$VENV/bin/kubernetes-validate" --strict --quiet deploy/kubernetes/*.yaml
"$VENV/bin/kubernetes-validate" --strict --quiet -k "$KUBERNETES_OLDEST" deploy/kubernetes/*.yaml

step "e) scripts/deploy/check_manifests.py --self-test"
"$VENV/bin/python" scripts/deploy/check_manifests.py "$ROOT" --self-test

echo "deploy-check: every check passed"
