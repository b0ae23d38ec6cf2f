#!/usr/bin/env bash
# Makes DIR a Python venv holding the pins of REQUIREMENTS; pip runs only when the pins changed
# since the last install (a copy of them is kept as DIR/.pinned-requirements). Installs Debian's
# python3-venv when the venv module is missing.
# Usage: scripts/python-venv.sh DIR REQUIREMENTS
set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 DIR REQUIREMENTS" >&2; exit 2; }
dir=$1
requirements=$2
if [ ! -x "$dir/bin/python" ]; then
  python3 -m venv "$dir" 2>/dev/null || {
    rm -rf "$dir"
    "$(dirname "$0")/install-deps.sh" python3-venv
    python3 -m venv "$dir"
  }
fi
if ! cmp -s "$requirements" "$dir/.pinned-requirements"; then
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$dir/.pinned-requirements"
fi
