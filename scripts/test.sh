#!/usr/bin/env bash
# The README's test command: set up (scripts/setup-test.sh: what scripts/setup.sh
# installs for the quickstart, then everything the tests need besides), build (dev
# preset) and run every test suite, then the sanitizer build (asan preset: clang, ASan +
# UBSan, with the libFuzzer targets) and its suites, the fuzz targets for 20 s each
# (scripts/fuzz.sh), then issue 4's peer benchmark as a smoke run. Each step's time is
# printed (CI has 90 minutes for all of it). AX_TEST_PRESETS overrides the preset list;
# AX_TEST_FUZZ=0 skips fuzzing, AX_TEST_BENCH=0 the benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
step_start=$SECONDS
took() {  # took STEP: how long since the previous step ended
  echo "== $1 took $((SECONDS - step_start)) s (total $SECONDS s)"
  step_start=$SECONDS
}
scripts/setup-test.sh
took "set-up"
jobs=$(nproc)
for preset in ${AX_TEST_PRESETS:-dev asan}; do
  echo "== preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  took "build ($preset)"
  ctest --preset "$preset" -j "$jobs"
  took "tests ($preset)"
done
cmake --build --preset dev --target check-format
took "check-format"
if [[ "${AX_TEST_FUZZ:-1}" != 0 ]]; then
  # Every parser a stranger reaches, fuzzed for a short fixed budget (the corpora
  # already replay as unit tests in both presets).
  echo "== fuzz"
  scripts/fuzz.sh --seconds 20
  took "fuzz"
fi
if [[ "${AX_TEST_BENCH:-1}" != 0 ]]; then
  # Every peer and ax-dns start and answer under load (release build, peers installed
  # by scripts/setup-bench.sh); the figures are not judged here: docs/benchmarks.md
  # holds the full run's.
  echo "== benchmark smoke run"
  tests/bench/peers/run.sh --quick
  took "benchmark smoke run"
fi
