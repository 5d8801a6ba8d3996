#!/usr/bin/env bash
# Opt-in setup for the peer benchmark (tests/bench/peers/run.sh): the Debian peers,
# dnsperf, and the libraries the release preset's benchmark targets build against
# (they live beside the tests: gtest, Google Benchmark, ldns). Not needed to build or test Ax; run by the bench script, or by
# `AX_SETUP_BENCH=1 scripts/setup.sh`. Idempotent.
#
# The packages' maintainer scripts would start knotd, nsd, gdnsd and pdns_server on
# port 53. Machines with systemd get them disabled and stopped by unit; without
# systemd, a policy-rc.d that refuses every start is put in place for the install
# (unless one is already there) and any daemon that still came up is stopped by the
# PID in its pidfile. Nothing else is touched.
set -euo pipefail

BENCH_PACKAGES=(knot nsd gdnsd pdns-server pdns-backend-bind dnsperf dnsutils
  libgtest-dev libgmock-dev libbenchmark-dev libldns-dev)
DAEMONS=(knot nsd gdnsd pdns)

missing=()
for pkg in "${BENCH_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
((${#missing[@]})) || { echo "setup-bench: ok (peers installed)"; exit 0; }

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
POLICY=/usr/sbin/policy-rc.d
ours_policy=0
if [[ ! -e "$POLICY" ]]; then
  printf '#!/bin/sh\n# setup-bench.sh: no daemon starts during the install\nexit 101\n' |
    $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod 755 "$POLICY"
  ours_policy=1
fi
cleanup() { ((ours_policy)) && $SUDO rm -f "$POLICY"; return 0; }
trap cleanup EXIT

echo "setup-bench: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null

# Whatever started anyway: disable it and stop it by its own pidfile.
for d in "${DAEMONS[@]}"; do
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
    $SUDO systemctl disable --now "$d" >/dev/null 2>&1 || true
  elif command -v update-rc.d >/dev/null; then
    $SUDO update-rc.d "$d" disable >/dev/null 2>&1 || true
  fi
  for pidfile in "/run/$d/$d.pid" "/run/$d.pid" "/run/$d/nsd.pid" "/run/pdns/pdns.pid"; do
    [[ -s "$pidfile" ]] || continue
    pid="$(cat "$pidfile")"
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
      echo "setup-bench: stopping $d (pid $pid from $pidfile) started by its package"
      $SUDO kill -TERM "$pid" || true
    fi
  done
done
echo "setup-bench: ok"
