#!/usr/bin/env bash
# Runs one Google Benchmark suite (release build, pinned to one core, 5 repetitions)
# and rewrites its section of docs/benchmarks.md with the medians:
#   tests/bench/run_micro_bench.sh core   # the decision core (ax_core_bench, ~1 min)
#   tests/bench/run_micro_bench.sh plan   # ComputePlan at scale (ax_plan_bench)
set -euo pipefail
cd "$(dirname "$0")/../.."
suite="${1:?usage: $0 core|plan}"
case "$suite" in
  core | plan) ;;
  *) echo "unknown suite '$suite' (core or plan)" >&2; exit 2 ;;
esac
scripts/setup-test.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target "ax_${suite}_bench" >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
taskset -c 1 "build/release/tests/bench/ax_${suite}_bench" --benchmark_repetitions=5 \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/$suite.json" \
  --benchmark_out_format=json >/dev/null
python3 tests/bench/render_bench.py "$out/$suite.json" docs/benchmarks.md "$suite" \
  "tests/bench/run_micro_bench.sh $suite"
echo "updated docs/benchmarks.md"
