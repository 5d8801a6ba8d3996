#!/usr/bin/env bash
# Installs everything Ax needs to build and test on a fresh Debian 12 machine.
# Idempotent: installs only what is missing; safe to run before every build.
# Later issues add their tools here (Go-built control plane, npm geo data, ...),
# cached under ${AX_CACHE:-$HOME/.cache/ax}.
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  clang clang-format clang-tidy
  nlohmann-json3-dev libyaml-cpp-dev libmaxminddb-dev libldns-dev
  prometheus-cpp-dev libcpp-httplib-dev libssl-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
mkdir -p "${AX_CACHE:-$HOME/.cache/ax}"
echo "setup: ok"
