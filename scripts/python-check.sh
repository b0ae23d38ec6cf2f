#!/usr/bin/env bash
# Static check of every Python script the repository tracks (bench/, scripts/, Fuzz/, ...):
# pyflakes finds undefined names, unused imports and the like without running anything, so a
# script that only runs by hand (make bench, make soak) cannot break unnoticed. Installs pyflakes
# into .venv-lint (the pins of scripts/contract/lint-requirements.txt) when missing.
# Usage: scripts/python-check.sh        (run by `make test`)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/python-venv.sh .venv-lint scripts/contract/lint-requirements.txt

# Tracked files when this is a git checkout (so untracked scratch files do not count), else every
# .py outside the build and venv folders; plus any tracked file whose first line runs Python.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.py')
  while IFS= read -r path; do
    [[ $path == *.py ]] && continue
    if [ -f "$path" ] && head -n 1 "$path" | grep -q '^#!.*python'; then files+=("$path"); fi
  done < <(git ls-files)
else
  mapfile -t files < <(find . -name '*.py' -not -path './.build/*' -not -path './.venv*' -not -path '*/__pycache__/*' | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "python-check: no Python scripts found" >&2; exit 1; }

.venv-lint/bin/python -m pyflakes "${files[@]}"
echo "python-check: pyflakes found nothing in ${#files[@]} scripts"
