#!/usr/bin/env bash
# The alert rules, checked by Prometheus's own tools; run by `make test`, or alone:
#   a) promtool check config deploy/prometheus/prometheus.yml (and the rule files it names)
#   b) promtool test rules deploy/prometheus/alerts.test.yml
#   c) every alert's runbook annotation names a section of docs/operations.md
# Installs what is missing: Debian's prometheus (promtool) through scripts/install-deps.sh, and
# .venv-deploy (PyYAML) with the pins of scripts/deploy/requirements.txt.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=$ROOT/.venv-deploy
started=$(date +%s)

step() { printf '== prometheus-check: %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }
die() { printf 'prometheus-check: FAILED: %s\n' "$*" >&2; exit 1; }

scripts/install-deps.sh prometheus
scripts/python-venv.sh "$VENV" scripts/deploy/requirements.txt
command -v promtool >/dev/null || die "promtool not found after installing prometheus"

step "a) promtool check config deploy/prometheus/prometheus.yml"
promtool check config deploy/prometheus/prometheus.yml

step "b) promtool test rules deploy/prometheus/alerts.test.yml"
promtool test rules deploy/prometheus/alerts.test.yml

step "c) runbook sections"
"$VENV/bin/python" scripts/prometheus/promcheck.py runbooks deploy/prometheus/alerts.yml docs/operations.md

echo "prometheus-check: every check passed ($(($(date +%s) - started))s)"
