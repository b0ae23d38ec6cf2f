#!/usr/bin/env bash
# Installs what building and testing need from Debian's archive, only when it is missing.
# Usage: scripts/install-deps.sh [extra-debian-package ...]
set -euo pipefail

packages=()
pkg-config --exists libuv 2>/dev/null || packages+=(libuv1-dev pkg-config)
pkg-config --exists zlib 2>/dev/null || packages+=(zlib1g-dev pkg-config)
pkg-config --exists libdeflate 2>/dev/null || packages+=(libdeflate-dev pkg-config)
pkg-config --exists libisal 2>/dev/null || packages+=(libisal-dev pkg-config)
for extra in "$@"; do
  dpkg-query -W -f='${Status}' "$extra" 2>/dev/null | grep -q "install ok installed" || packages+=("$extra")
done
[ ${#packages[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "installing: ${packages[*]}" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
