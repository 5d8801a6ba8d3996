#!/usr/bin/env bash
# CR change -> new DNS answer through the whole chain (issue 6), on a local control plane:
# ax-operator, ax-dns --snapshot-configmap and its ax-probe sidecar (release builds) on
# the quickstart; N edits of a Node, a Rule and a Canary, each timed from its API write
# to the ConfigMap's new version and to the first UDP answer reflecting it. Then the
# section of docs/benchmarks.md between "<!-- BEGIN api-latency" and
# "<!-- END api-latency -->" is rewritten. Flags (--edits N, --compare AX_DNS, --no-doc,
# --no-build) are api_latency.py's; --help lists them.
#
# Raw results: build/release/bench-api-latency/<UTC timestamp>/results.json. Traffic
# goes to 127.0.0.1 only; every process is started by api_latency.py (through
# tests/integration/chainharness.py) and stopped by its PID.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PYTHON="${AX_CACHE:-$HOME/.cache/ax}/venv/bin/python"  # dnspython; scripts/setup-test.sh makes it
[[ -x "$PYTHON" ]] || { echo "run.sh: $PYTHON missing: run scripts/setup-test.sh" >&2; exit 1; }
if [[ " $* " != *" --no-build "* && " $* " != *" --help "* ]]; then
  (cd "$ROOT" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target ax-dns ax-operator ax-probe -j2 >/dev/null)
fi
BIN="$ROOT/build/release"
export AX_DNS_BIN="$BIN/dns-server/ax-dns" AX_OPERATOR_BIN="$BIN/operator/ax-operator"
export AX_PROBE_BIN="$BIN/probe/ax-probe"
exec "$PYTHON" "$ROOT/tests/bench/api_latency/api_latency.py" \
  --out "$BIN/bench-api-latency/$(date -u +%Y%m%dT%H%M%SZ)" \
  --doc "$ROOT/docs/benchmarks.md" "$@"
