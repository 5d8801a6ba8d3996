#!/usr/bin/env bash
# The shipped build: the release preset with profile-guided optimisation (GCC,
# AX_PGO in the top-level CMakeLists.txt). The quickstart, the images
# (docker/Dockerfile) and the peer benchmark build their binaries with it, so what
# is measured is what ships. Three steps:
#   1. build/pgo-generate: instrumented ax-dns and axctl, and the load generator;
#   2. training: that axctl compiles a synthetic geo database (a country, carrier
#      and province for every public /16, drawn from a fixed hash, so nearly every
#      client is classified as with real data, without needing it); that ax-dns,
#      standalone on examples/quickstart with the shipped defaults (RRL on,
#      decision log at its default sampling), answers the peer benchmark's kind of
#      load: UDP from 64 loopback /24s with 5000 ECS subnets, as fast as it can and
#      at 100k queries/s, AAAA, then pipelined TCP, each a fixed number of queries
#      (not a duration: the profile's counts do not depend on the machine's speed);
#      its profile goes to build/pgo-profile when it exits;
#   3. the release preset with AX_PGO=use in DIR (default build/release-pgo),
#      without the test targets (the benchmark tools build there too, without a
#      profile), every object rebuilt against the new profile.
# Steps 1-3 are skipped when DIR was built from the same sources and arguments
# (a hash of what the build reads, in DIR/ax-pgo-inputs): then only TARGETS not
# yet built are. Needs the build packages of scripts/setup.sh, nothing else.
#   scripts/pgo-build.sh [--build-dir DIR] [--targets "ax-dns axctl ..."]
#                        [-- CMAKE_CONFIGURE_ARGS...]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/build/release-pgo"
TARGETS="ax-dns"
while (($#)); do
  case "$1" in
    --build-dir) OUT="$(realpath -m "$2")"; shift ;;
    --targets) TARGETS="$2"; shift ;;
    --) shift; break ;;
    -h | --help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pgo-build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
configure=(-DAX_BUILD_TESTS=OFF -DAX_BUILD_BENCH=OFF -DAX_BUILD_BENCH_TOOLS=ON "$@")
GEN="$ROOT/build/pgo-generate"
PROFILE="$ROOT/build/pgo-profile"
say() { echo "$(date +%H:%M:%S) pgo-build.sh: $*" >&2; }

# What the build reads (docker/Dockerfile copies the same), the compiler and the
# arguments: equal hashes build equal binaries.
inputs_hash() {
  (
    cd "$ROOT"
    find CMakeLists.txt CMakePresets.json core runtime kube loader contract plan \
      signals probe dns-server operator tests/bench/tools examples/quickstart \
      scripts/pgo-build.sh -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    c++ --version
    echo "${configure[*]}"
  ) | sha256sum | cut -d' ' -f1
}
hash="$(inputs_hash)"
if [[ "$(cat "$OUT/ax-pgo-inputs" 2>/dev/null)" == "$hash" && -d "$PROFILE" ]]; then
  say "$OUT was built from these sources with their profile: building $TARGETS"
  # shellcheck disable=SC2086
  cmake --build "$OUT" --target $TARGETS -j"$(nproc)" >/dev/null
  exit 0
fi

say "1/3 instrumented build in $GEN"
rm -rf "$PROFILE" "$OUT/ax-pgo-inputs"
cmake --preset release -B "$GEN" -DAX_PGO=generate -DAX_PGO_DIR="$PROFILE" \
  "${configure[@]}" >/dev/null
cmake --build "$GEN" --target ax-dns axctl ax_loadgen -j"$(nproc)" >/dev/null

say "2/3 training"
work="$(mktemp -d)"
server=""
cleanup() {
  [[ -n "$server" ]] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# Every public /16 gets a country from a fixed hash; in CN, one of the
# quickstart's provinces or another, and a carrier's ASN (4134 telecom, 4837
# unicom, 9808 mobile), so each of its Regions and the default one see traffic.
awk 'BEGIN {
  print "network,country,subdivision,asn"
  split("US DE JP GB FR BR IN KR RU AU CA NL", other, " ")
  split("4134 4837 9808", carrier, " ")
  split("GD BJ SH ZJ", province, " ")
  for (a = 1; a < 224; a++) {
    if (a == 10 || a == 127) continue
    for (b = 0; b < 256; b++) {
      if ((a == 172 && b >= 16 && b < 32) || (a == 192 && b == 168)) continue
      h = (a * 2654435761 + b * 40503) % 1000003
      if (h % 10 < 3) {
        print a "." b ".0.0/16,CN,CN-" province[1 + int(h / 10) % 4] "," carrier[1 + int(h / 40) % 3]
      } else if (h % 10 < 5) {
        print a "." b ".0.0/16,US,," (7018 + h % 3)
      } else {
        print a "." b ".0.0/16," other[1 + int(h / 10) % 12] ",," (3000 + h % 500)
      }
    }
  }
}' >"$work/geo.csv"
"$GEN/dns-server/axctl" geodb build "$work/geo.csv" -o "$work/geo.mmdb" --ip-version 4 \
  >/dev/null
port=$((20000 + RANDOM % 20000))
"$GEN/dns-server/ax-dns" --standalone "$ROOT/examples/quickstart" \
  --listen "127.0.0.1:$port" --http-listen "127.0.0.1:$((port + 1))" --api-listen "" \
  --geo-db "$work/geo.mmdb" --no-probe --log-level warn --workers 1 --tcp-threads 1 \
  --decision-log "$work/decisions.jsonl" >"$work/ax-dns.log" 2>&1 &
server=$!
load() {
  "$GEN/tests/bench/tools/ax_loadgen" --server "127.0.0.1:$port" --sources 64 \
    --ecs-random 5000 --qname api.example.test --qname www.example.test "$@" \
    >"$work/load.json" 2>&1
  grep -q '"received": [1-9]' "$work/load.json"
}
# Readiness: one query a try, so that the tries add next to nothing to the profile.
for _ in $(seq 1 150); do
  load --count 1 --timeout 200 && break
  kill -0 "$server" 2>/dev/null || { cat "$work/ax-dns.log" >&2; exit 1; }
  sleep 0.2
done
for mix in "--count 1000000" "--count 300000 --rate 100000 --inflight 20000" \
  "--count 300000 --qtype AAAA" "--count 300000 --tcp"; do
  # shellcheck disable=SC2086
  load $mix || { cat "$work/load.json" "$work/ax-dns.log" >&2; exit 1; }
done
kill -TERM "$server"
wait "$server" || { say "ax-dns did not exit cleanly"; exit 1; }
server=""
[[ -n "$(find "$PROFILE" -name '*.gcda' -print -quit 2>/dev/null)" ]] ||
  { say "no profile written to $PROFILE"; exit 1; }

say "3/3 release build with the profile in $OUT"
cmake --preset release -B "$OUT" -DAX_PGO=use -DAX_PGO_DIR="$PROFILE" "${configure[@]}" \
  >/dev/null
# The objects depend on the profile, which CMake does not track.
cmake --build "$OUT" --target clean >/dev/null
# shellcheck disable=SC2086
cmake --build "$OUT" --target $TARGETS -j"$(nproc)" >/dev/null
echo "$hash" >"$OUT/ax-pgo-inputs"
say "done: $TARGETS in $OUT"
