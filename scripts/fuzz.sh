#!/usr/bin/env bash
# Builds the libFuzzer targets (in the asan preset: clang, ASan + UBSan, the libraries
# with coverage feedback) and fuzzes each for --seconds S (default 20) from a copy of
# its committed corpus, tests/fuzz/corpus/<name>/ (the committed corpus only changes by
# hand). A crash fails the run; its input is kept in build/asan/crashes/<name>/ to be
# added to the corpus as a regression test.
#   scripts/fuzz.sh [--seconds S] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20
if [[ "${1:-}" == --seconds ]]; then
  seconds="$2"
  shift 2
fi
all=(query tcp_framing snapshot watch_stream probe_response manifest http_requests)
targets=("${@:-${all[@]}}")
cmake --preset asan >/dev/null
# Only the fuzz targets and what they link (after the asan preset's build, nothing).
binaries=()
for name in "${targets[@]}"; do binaries+=("ax_${name}_fuzz"); done
cmake --build --preset asan -j "$(nproc)" --target "${binaries[@]}"
work="$(mktemp -d /tmp/ax-fuzz.XXXXXX)"
trap 'rm -rf "$work"' EXIT
status=0
for name in "${targets[@]}"; do
  corpus="$work/$name"
  crashes="build/asan/crashes/$name"
  mkdir -p "$corpus" "$crashes"
  cp tests/fuzz/corpus/"$name"/* "$corpus"/
  dict=()
  [[ "$name" == query ]] && dict=(-dict=tests/fuzz/dns.dict)
  echo "== fuzz $name for ${seconds}s"
  if ! build/asan/tests/fuzz/ax_"$name"_fuzz "${dict[@]}" -max_total_time="$seconds" \
      -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$crashes/" "$corpus" >"$work/$name.log" 2>&1; then
    status=1
    tail -40 "$work/$name.log"
    echo "== fuzz $name FAILED: the input is in $crashes/"
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$work/$name.log" |
    sed "s/^/$name /" || true
done
exit "$status"
