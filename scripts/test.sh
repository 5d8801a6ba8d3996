#!/usr/bin/env bash
# The README's test command: set up, build (dev preset) and run every test suite, then
# the sanitizer build (asan preset). AX_TEST_PRESETS overrides the preset list.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
jobs=$(nproc)
for preset in ${AX_TEST_PRESETS:-dev asan}; do
  echo "== preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
cmake --build --preset dev --target check-format
