#!/usr/bin/env bash
# Runs the decision-core benchmarks (release build, pinned to one core, 5 repetitions)
# and rewrites the "core" section of docs/benchmarks.md with the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/setup.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target ax_core_bench >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
taskset -c 1 build/release/tests/bench/ax_core_bench --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/core.json" \
  --benchmark_out_format=json >/dev/null
python3 tests/bench/render_bench.py "$out/core.json" docs/benchmarks.md core \
  tests/bench/run_core_bench.sh
echo "updated docs/benchmarks.md"
