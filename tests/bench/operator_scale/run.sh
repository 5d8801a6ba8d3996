#!/usr/bin/env bash
# ax-operator at scale (1,000 Nodes x 200 Regions x 50 Domains) on a local control
# plane: time to the first route-table ConfigMap, its size, edit latency, RSS; rewrites
# the "Operator at scale" section of docs/benchmarks.md. Extra flags go to run.py.
set -euo pipefail
cd "$(dirname "$0")/../../.."
scripts/setup-test.sh >/dev/null
cmake --preset release >/dev/null
cmake --build --preset release --target ax-operator >/dev/null
AX_OPERATOR_BIN=build/release/operator/ax-operator \
  "${AX_CACHE:-$HOME/.cache/ax}/venv/bin/python" tests/bench/operator_scale/run.py \
  --update-docs "$@"
