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
  # Debian starts daemons (nsd, ddclient, inadyn, ...) on install; the tests run their own
  # instances. A policy-rc.d that says "no" (exit 101) keeps the install from starting any,
  # so nothing needs stopping afterwards and no process of anyone else's is touched.
  policy=/usr/sbin/policy-rc.d
  placed=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && placed=1
  fi
  trap 'if [ -n "$placed" ]; then $SUDO rm -f "$policy"; fi' EXIT
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Where systemd runs, the units stay disabled at boot too (this changes no running process).
  for svc in nsd ddclient inadyn; do $SUDO systemctl disable "$svc" >/dev/null 2>&1 || true; done
fi
