#!/usr/bin/env bash
# One carrier's path cut -> that carrier's clients answered elsewhere, through the whole
# chain (issue 14): tests/e2e/local/test_isp_paths.py run on release builds with more
# cuts (AX_ISP_CUTS, default 9), its timings kept in results.json, then the section of
# docs/benchmarks.md between "<!-- BEGIN isp-failover" and "<!-- END isp-failover -->"
# rewritten (render.py). --no-build uses the release binaries as they are; --no-doc only
# prints the section.
#
# Raw results: build/release/bench-isp-failover/<UTC timestamp>/results.json. Needs root
# and iproute2 (network namespaces); traffic stays on loopback and the veth pairs the
# test makes; every process is stopped by its PID and the namespaces are deleted.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
CACHE="${AX_CACHE:-$HOME/.cache/ax}"
PYTHON="$CACHE/venv/bin/python"  # pytest, dnspython; scripts/setup-test.sh makes it
[[ -x "$PYTHON" ]] || { echo "run.sh: $PYTHON missing: run scripts/setup-test.sh" >&2; exit 1; }
build=1 doc=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --no-doc) doc=0 ;;
    *) echo "run.sh: unknown argument $arg (--no-build, --no-doc)" >&2; exit 2 ;;
  esac
done
if ((build)); then
  (cd "$ROOT" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target ax-dns ax-operator ax-probe -j2 >/dev/null)
fi
# The version the binaries are built from, before anything can change the tree.
AX_VERSION="$(cd "$ROOT/tests/bench" && "$PYTHON" -c 'from axbench import git_version; print(git_version())')"
BIN="$ROOT/build/release"
OUT="$BIN/bench-isp-failover/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
AX_DNS_BIN="$BIN/dns-server/ax-dns" AX_OPERATOR_BIN="$BIN/operator/ax-operator" \
  AX_PROBE_BIN="$BIN/probe/ax-probe" AX_KUBE_BIN="$CACHE/bin" AX_GEO_DIR="$CACHE/geo" \
  AX_ISP_CUTS="${AX_ISP_CUTS:-9}" AX_ISP_RESULTS="$OUT/results.json" \
  PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m pytest -c "$ROOT/tests/integration/pytest.ini" \
  --rootdir="$ROOT/tests/e2e/local" "$ROOT/tests/e2e/local/test_isp_paths.py" -q
args=("$OUT/results.json" --ax "$AX_VERSION")
((doc)) && args+=(--doc "$ROOT/docs/benchmarks.md")
exec "$PYTHON" "$ROOT/tests/bench/isp_failover/render.py" "${args[@]}"
