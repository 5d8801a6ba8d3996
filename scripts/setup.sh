#!/usr/bin/env bash
# Installs what scripts/quickstart.sh needs on a fresh Debian 12 machine: the build
# toolchain and libraries of the ax-dns/axctl release build (`release` preset with
# AX_BUILD_TESTS=OFF AX_BUILD_BENCH=OFF, as docker/Dockerfile builds), the tools the
# quickstart runs (dig, curl, openssl, python3), and the real geo data
# (scripts/setup-geo.sh). Everything the tests need besides is scripts/setup-test.sh's.
# Idempotent: installs only what is missing; safe to run before every build. Fetched
# data and the venv are cached under ${AX_CACHE:-$HOME/.cache/ax}.
#   --no-geo          skip the geo data (scripts/quickstart.sh fetches it in the
#                     background while it builds)
#   AX_SETUP_BENCH=1  also the Debian peers and dnsperf of the peer benchmark
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=setup-lib.sh
source "$HERE/setup-lib.sh" setup
geo=1
case "${1:-}" in
"") ;;
--no-geo) geo=0 ;;
*)
  echo "usage: $0 [--no-geo]" >&2
  exit 2
  ;;
esac
start_all=$SECONDS

# The ax-dns/axctl release build's packages are exactly docker/Dockerfile's build
# stage (tests/integration/test_images.py checks this list against it, and names the
# rest in SETUP_NOT_FOR_BUILD).
APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  nlohmann-json3-dev libyaml-cpp-dev libmaxminddb-dev
  prometheus-cpp-dev libcpp-httplib-dev libssl-dev zlib1g-dev
  python3 python3-venv # scripts/geo (ASN conversion), scripts/demo_backends.py
  curl openssl ca-certificates # the geo data (fetch, sha512), /readyz, the demo's certificate
  dnsutils     # dig
)
ax_apt_install "${APT_PACKAGES[@]}"
mkdir -p "$AX_CACHE"

if ((geo)); then "$HERE/setup-geo.sh"; fi

# Opt-in: the Debian peers and dnsperf of the peer benchmark (tests/bench/peers/run.sh
# runs this itself); the tests do not need them.
if [[ "${AX_SETUP_BENCH:-0}" == 1 ]]; then
  "$HERE/setup-bench.sh"
fi
ax_log "ok in $((SECONDS - start_all)) s"
