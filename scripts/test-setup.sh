#!/usr/bin/env bash
# Installs what the test suite needs and the machine may lack: Debian packages for the
# real peers (listed in scripts/debian-test-packages.txt) and the compiled build.
# Idempotent: a second run installs nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t wanted < <(grep -vE '^\s*(#|$)' scripts/debian-test-packages.txt | awk '{print $1}')
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null; then
    echo "test-setup: need root to install: ${missing[*]}" >&2
    exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  echo "test-setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian starts some daemons on install; the tests run their own instances.
  for svc in nsd ddclient inadyn; do $SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || true; pkill -x "$svc" 2>/dev/null || true; done
fi
