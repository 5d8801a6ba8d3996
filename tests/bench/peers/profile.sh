#!/usr/bin/env bash
# Where a saturated server's core goes: perf samples (cpu-clock: this VM exposes no
# hardware counters) of all of CPU 1 — the server, its syscalls and the softirq work
# done there — while ax_loadgen (CPU 0, 500 in flight, from 64 loopback /24s)
# saturates it, or offers --rate QPS (then idle time shows as the kernel's idle
# loop, and two servers compare by their samples at the same rate). Profiles ax-dns
# on the geo + ECS + WeightedRandom name and, for reference, the no-op responder.
#
#   tests/bench/peers/profile.sh [--seconds S] [--servers ax-geo,noop] [--rate QPS]
#                                [--quiet-wait S]
#
# Output: build/release-pgo/bench-peers/profile-<UTC stamp>/NAME.{data,top.txt,dso.txt}.
# Build and peers: run tests/bench/peers/run.sh once first (it sets both up).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
SECONDS_=10 LIST="ax-geo,noop" SERVER_CPU=1 GEN_CPU=0 QUIET_WAIT=600 RATE=0
while (($#)); do
  case "$1" in
    --seconds) SECONDS_="$2"; shift ;;
    --servers) LIST="$2"; shift ;;
    --quiet-wait) QUIET_WAIT="$2"; shift ;;
    --rate) RATE="$2"; shift ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "profile.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
# shellcheck source=lib.sh
source "$HERE/lib.sh"
# shellcheck source=servers.sh
source "$HERE/servers.sh"
command -v perf >/dev/null || die "perf not found (Debian: linux-perf)"
AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
GEO_DIR="${AX_GEO_DIR:-$AX_CACHE/geo}"
BUILD_DIR="$ROOT/build/release-pgo"
AX_DNS="$BUILD_DIR/dns-server/ax-dns"
TOOLS="$BUILD_DIR/tests/bench/tools"
ZONES="$HERE/zones"
PROC="$HERE/proc.py"
OUT="$BUILD_DIR/bench-peers/profile-$(date -u +%Y%m%dT%H%M%SZ)"
WORK="$(mktemp -d /tmp/ax-profile.XXXXXX)"
mkdir -p "$OUT"
LG=""
cleanup() {
  local rc=$?
  [[ -n "$LG" ]] && kill "$LG" 2>/dev/null && wait "$LG" 2>/dev/null
  stop_server
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
SUBNETS="$WORK/subnets.txt"
python3 "$HERE/make_subnets.py" "$GEO_DIR/asn-csv/asn-ipv4.csv" 5000 1 >"$SUBNETS"

IFS=, read -r -a NAMES <<<"$LIST"
for name in "${NAMES[@]}"; do
  start_server "$name" || die "$name did not start"
  wait_quiet
  mix=(--qname "$QNAME")
  ((USE_ECS)) && mix+=(--ecs-file "$SUBNETS")
  taskset -c "$GEN_CPU" "$TOOLS/ax_loadgen" --server "127.0.0.1:$PORT" "${mix[@]}" \
    --sources 64 --rate "$RATE" --duration $((SECONDS_ + 2)) \
    --output "$OUT/$name.load.json" &
  LG=$!
  sleep 1
  perf record -q -e cpu-clock -F 4999 -g -C "$SERVER_CPU" -o "$OUT/$name.data" \
    -- sleep "$SECONDS_" 2>/dev/null
  wait "$LG" || true
  LG=""
  stop_server
  # (|| true: head closes the pipe early, which pipefail would report)
  perf report -i "$OUT/$name.data" --no-children --sort dso --stdio -g none 2>/dev/null |
    grep -v -e '^#' -e '^$' | head -15 >"$OUT/$name.dso.txt" || true
  perf report -i "$OUT/$name.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null |
    grep -v -e '^#' -e '^$' | cut -c1-160 | head -60 >"$OUT/$name.top.txt" || true
  echo "=== $name: $(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["qps"]))' "$OUT/$name.load.json") qps while sampled; CPU $SERVER_CPU by DSO:"
  cat "$OUT/$name.dso.txt"
  echo "--- top symbols:"
  head -40 "$OUT/$name.top.txt"
done
log "profiles in $OUT"
