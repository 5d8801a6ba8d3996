#!/usr/bin/env bash
# Probe load of one prober (issue 5): standalone ax-dns probes 500 local HTTP (then
# HTTPS) health endpoints every 2 s; the probe thread's and the process's CPU and the
# connections per node per interval are measured (tests/bench/probe_load/probe_load.py).
# Then the section of docs/benchmarks.md between "<!-- BEGIN probe-load" and
# "<!-- END probe-load -->" is rewritten (render.py).
#
# Raw results: build/release/bench-probe-load/<UTC timestamp>/ (results-*.json, logs).
# Traffic goes to 127.0.0.1 only; ax-dns is started by probe_load.py and stopped by
# its PID.
set -euo pipefail

usage() {
  cat <<'USAGE'
usage: tests/bench/probe_load/run.sh [flags]

  --nodes N        probed nodes [default: 500]
  --interval S     probe interval in seconds [default: 2]
  --seconds S      measured window after a 10 s warm-up [default: 40]
  --quiet-wait S   wait up to S s for other processes to leave the CPUs [default: 300]
  --no-https       measure HTTP only
  --no-doc         do not rewrite docs/benchmarks.md
  --no-build       skip the release build
  -h, --help       this text
USAGE
}

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
DOC=1 BUILD=1 HTTPS=1 PASS=()
while (($#)); do
  case "$1" in
    --nodes | --interval | --seconds | --quiet-wait) PASS+=("$1" "$2"); shift ;;
    --no-https) HTTPS=0 ;;
    --no-doc) DOC=0 ;;
    --no-build) BUILD=0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

if ((BUILD)); then
  (cd "$ROOT" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target ax-dns -j2 >/dev/null)
fi
AX_DNS="$ROOT/build/release/dns-server/ax-dns"
[[ -x "$AX_DNS" ]] || { echo "run.sh: $AX_DNS not built" >&2; exit 1; }

OUT="$ROOT/build/release/bench-probe-load/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
python3 "$HERE/probe_load.py" --ax-dns "$AX_DNS" --out "$OUT" --proto http "${PASS[@]}"
if ((HTTPS)); then
  # The endpoints' certificate: bench.example.test, the checks' Host and SNI.
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=bench.example.test" \
    -addext "subjectAltName=DNS:bench.example.test" \
    -keyout "$OUT/key.pem" -out "$OUT/cert.pem" 2>/dev/null
  python3 "$HERE/probe_load.py" --ax-dns "$AX_DNS" --out "$OUT" --proto https \
    --cert "$OUT/cert.pem" --key "$OUT/key.pem" "${PASS[@]}"
fi
render=(python3 "$HERE/render.py" "$OUT")
((DOC)) && render+=(--doc "$ROOT/docs/benchmarks.md")
"${render[@]}"
echo "run.sh: results in $OUT" >&2
