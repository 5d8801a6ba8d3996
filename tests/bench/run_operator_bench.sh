#!/usr/bin/env bash
# Runs the operator plan benchmarks (release build, pinned to one core, 5 repetitions)
# and rewrites the "operator" section of docs/benchmarks.md with the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/setup.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target ax_operator_plan_bench >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
taskset -c 1 build/release/tests/bench/ax_operator_plan_bench --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/operator.json" \
  --benchmark_out_format=json >/dev/null
python3 tests/bench/render_bench.py "$out/operator.json" docs/benchmarks.md operator \
  tests/bench/run_operator_bench.sh
echo "updated docs/benchmarks.md"
