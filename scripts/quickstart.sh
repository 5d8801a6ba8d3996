#!/usr/bin/env bash
# The README's run command. Until ax-dns lands (issue 3) it shows the decision core on
# examples/quickstart/: validate the manifests, build the route-table snapshot, and
# explain the answer for a few typical clients.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target axctl >/dev/null
axctl=build/release/dns-server/axctl
dir=examples/quickstart
$axctl validate "$dir"
echo "snapshot: $($axctl snapshot "$dir" | wc -c) bytes"
explain() { echo; echo "\$ axctl explain $*"; $axctl explain "$@" --manifests "$dir"; }
explain www.example.test --client 113.108.1.1 --country CN --subdivision CN-GD --asn 4134
explain www.example.test --client 123.125.1.1 --country CN --subdivision CN-BJ --asn 4837
explain api.example.test --client 8.8.8.8 --country US --subdivision US-CA --asn 15169
explain www.example.test --client 203.0.113.77
