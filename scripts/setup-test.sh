#!/usr/bin/env bash
# Installs everything the tests need on top of scripts/setup.sh (which it runs first:
# the build packages and the geo data): compilers cache, clang and its format/lint
# tools, the test and benchmark libraries, the real clients of the integration tests,
# promtool, shellcheck, the test packages of the project venv, toxiproxy
# (scripts/setup-toxiproxy.sh), the local Kubernetes control plane
# (scripts/setup-kube.sh) and the kind cluster's parts (scripts/setup-kind.sh). Run by
# scripts/test.sh before its builds. Idempotent; cached under
# ${AX_CACHE:-$HOME/.cache/ax}. AX_SETUP_BENCH=1 as for scripts/setup.sh.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=setup-lib.sh
source "$HERE/setup-lib.sh" setup-test
start_all=$SECONDS

# The geo data plus the formats' own JavaScript readers the geo unit tests compare
# the C++ readers with (run with the machine's node; skipped without it).
AX_GEO_REFERENCE_READERS=1 "$HERE/setup.sh"

TEST_APT_PACKAGES=(
  ccache git
  clang libclang-rt-14-dev # the asan preset: clang, its sanitizer and libFuzzer runtimes
  clang-format clang-tidy # check-format, tidy targets
  libgtest-dev libgmock-dev libbenchmark-dev
  libldns-dev # tests: an independent DNS wire parser
  knot-dnsutils unbound # real clients of the integration tests (kdig, resolver); dig: setup.sh
  prometheus # for promtool: alert rules check + unit tests (tests/alerts); no smaller package has it
  haproxy # a proxy discovering backends through SRV (test_haproxy_srv)
  shellcheck # tests/e2e/kind/*.sh (test_kind_e2e_files)
  iproute2 # `ip`: network namespaces and veth paths (tests/e2e/local/test_isp_paths.py)
  nodejs # runs the geo formats' reference readers (geo unit tests: zh_geo_real_data_test)
)
ax_apt_install "${TEST_APT_PACKAGES[@]}"
# Only the binaries are wanted from `prometheus` and `haproxy`: on a systemd machine
# the packages enable and start their servers (Prometheus on :9090); stop those this
# run installed.
for service in prometheus haproxy; do
  if [[ " ${AX_APT_INSTALLED[*]} " == *" $service "* && -d /run/systemd/system ]]; then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo systemctl disable --now "$service.service" >/dev/null 2>&1 || true
  fi
done

# The tests' packages in the project venv (scripts/setup-geo.sh installs the geo
# tools' set into the same venv, with its own stamp). Pinned: append here.
TEST_PY_PACKAGES=(
  pytest==9.2.0 pytest-timeout==2.4.0 dnspython==2.9.2 grpcio==1.85.1 # tests/integration
  prometheus-client==0.26.0 # tests/integration: OpenMetrics parser for /metrics
  jsonschema==4.26.0 PyYAML==6.0.4 # tests/integration: CRD schemas vs manifests (test_crds)
  maxminddb==3.2.0 # tests/integration: the built-in ISP sets from the pinned data (test_isp_sets_table)
)
ax_venv_install test "${TEST_PY_PACKAGES[@]}"

# toxiproxy for the probe fault-injection tests (issue 5): built with Go.
start=$SECONDS
"$HERE/setup-toxiproxy.sh"
ax_log "toxiproxy: $((SECONDS - start)) s"

# Local Kubernetes control plane (issue 6): kube-apiserver, etcd, kubectl, helm built
# with Go.
start=$SECONDS
"$HERE/setup-kube.sh"
ax_log "kube binaries: $((SECONDS - start)) s"

# The kind e2e (issue 17): a container engine, kind, its node image and the Ax images,
# built from Debian and the Go module proxy (no registry needed).
start=$SECONDS
"$HERE/setup-kind.sh"
ax_log "kind: $((SECONDS - start)) s"

ax_log "ok in $((SECONDS - start_all)) s"
