#!/usr/bin/env bash
# Failover and recovery time of standalone ax-dns, end to end (issue 5): stop a node's
# health endpoint, time until ax-dns stops answering its address; start it, time until
# the address is back (tests/bench/failover/failover.py does the rounds). Then the
# section of docs/benchmarks.md between "<!-- BEGIN failover" and "<!-- END failover -->"
# is rewritten (render.py).
#
# Raw results: build/release/bench-failover/<UTC timestamp>/ (results.json, ax-dns.log).
# Traffic goes to 127.0.0.1 only; every process is started by failover.py and stopped
# by its PID.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: tests/bench/failover/run.sh [flags]

  --rounds N              kill/restore rounds [default: 10]
  --nodes N               probed nodes, killed in turn [default: 4]
  --interval D            probe interval [default: 1s]
  --failure-threshold N   [default: 3]
  --success-threshold N   [default: 5]
  --poll-ms MS            DNS polling period [default: 20]
  --no-doc                do not rewrite docs/benchmarks.md
  --no-build              skip the release build
  -h, --help              this text
USAGE
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
DOC=1 BUILD=1 PASS=()
while (($#)); do
  case "$1" in
    --rounds | --nodes | --interval | --failure-threshold | --success-threshold | --poll-ms)
      PASS+=("$1" "$2"); shift ;;
    --no-doc) DOC=0 ;;
    --no-build) BUILD=0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

PYTHON="${AX_CACHE:-$HOME/.cache/ax}/venv/bin/python"  # dnspython; scripts/setup-test.sh makes it
[[ -x "$PYTHON" ]] || { echo "run.sh: $PYTHON missing: run scripts/setup-test.sh" >&2; exit 1; }
if ((BUILD)); then
  (cd "$ROOT" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target ax-dns -j2 >/dev/null)
fi
AX_DNS="$ROOT/build/release/dns-server/ax-dns"
[[ -x "$AX_DNS" ]] || { echo "run.sh: $AX_DNS not built" >&2; exit 1; }

OUT="$ROOT/build/release/bench-failover/$(date -u +%Y%m%dT%H%M%SZ)"
rc=0
"$PYTHON" "$HERE/failover.py" --ax-dns "$AX_DNS" --out "$OUT" "${PASS[@]}" || rc=$?
render=("$PYTHON" "$HERE/render.py" "$OUT")
((DOC)) && render+=(--doc "$ROOT/docs/benchmarks.md")
"${render[@]}"
echo "run.sh: results in $OUT" >&2
exit $rc
