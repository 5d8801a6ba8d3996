"""The local end-to-end suites (tests/e2e/local/) reuse the real-client harness of
tests/integration/ (axharness, kubecp, operatorharness, probeharness) and its `kube`
fixture (one etcd + kube-apiserver per test module)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

INTEGRATION = Path(__file__).resolve().parents[2] / "integration"
sys.path.insert(0, str(INTEGRATION))

_spec = importlib.util.spec_from_file_location("ax_integration_conftest",
                                               INTEGRATION / "conftest.py")
_integration = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_integration)

kube = _integration.kube  # noqa: F401 - a fixture, registered by its name here
