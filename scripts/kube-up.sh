#!/usr/bin/env bash
# Starts the tests' local Kubernetes control plane (tests/integration/kubecp.py: etcd
# + kube-apiserver on 127.0.0.1, admin kubeconfig) for debugging by hand, prints the
# lines to export, and keeps it up until Ctrl-C (or SIGTERM), which stops it.
# Usage: scripts/kube-up.sh [WORKDIR]   (default: a new folder under /tmp, removed
# on exit; a given WORKDIR is kept, with the logs and certs in it).
# Needs scripts/setup-test.sh first (venv, binaries from scripts/setup-kube.sh).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
AX_CACHE="${AX_CACHE:-$HOME/.cache/ax}"
PYTHON="$AX_CACHE/venv/bin/python"
[[ -x "$PYTHON" ]] || {
  echo "kube-up: no venv at $AX_CACHE/venv: run scripts/setup-test.sh" >&2
  exit 1
}

if [[ $# -ge 1 ]]; then
  workdir="$1"
  mkdir -p "$workdir"
else
  workdir="$(mktemp -d /tmp/ax-kube.XXXXXX)"
  trap 'rm -rf "$workdir"' EXIT
fi

# Not exec: the trap above removes the temporary folder after Python stops the
# control plane.
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$REPO/tests/integration" "$PYTHON" - "$workdir" <<'EOF'
import signal
import sys
from pathlib import Path

from axharness import HarnessError
from kubecp import KubeControlPlane


def on_term(*_):
    raise KeyboardInterrupt


signal.signal(signal.SIGTERM, on_term)
cp = KubeControlPlane(Path(sys.argv[1]).resolve())
try:
    cp.start()
except HarnessError as e:
    sys.exit(f"kube-up: {e}")
try:
    print(f"kube-up: kube-apiserver {cp.server} (pid {cp.apiserver.pid}),"
          f" etcd pid {cp.etcd.pid}, CA {cp.ca_file}")
    print(f"export KUBECONFIG={cp.kubeconfig}")
    print("kube-up: Ctrl-C stops it", flush=True)
    signal.pause()
except KeyboardInterrupt:
    pass
finally:
    cp.stop()
    print("kube-up: stopped", flush=True)
EOF
