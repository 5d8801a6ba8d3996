"""The local Kubernetes control plane harness (kubecp.py) against itself: the
apiserver is the pinned release, RBAC is on and judges real service-account tokens,
CRDs reach discovery, and stop() leaves no process behind."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from axharness import MANIFESTS, HarnessError
from kubecp import KubeControlPlane
from waiting import wait_for

NAMESPACE = "ax-it"


@pytest.fixture(scope="module")
def namespace(kube: KubeControlPlane) -> str:
    kube.kubectl("create", "namespace", NAMESPACE)
    return NAMESPACE


def test_server_reports_pinned_release(kube: KubeControlPlane):
    both = json.loads(kube.kubectl("version", "-o", "json").stdout)
    version = both["serverVersion"]
    assert version["gitVersion"].startswith("v1.36."), version
    # kubectl of the same release: no version-skew warning territory.
    assert both["clientVersion"]["gitVersion"] == version["gitVersion"], both
    assert (version["major"], version["minor"]) == ("1", "36")
    status, body = kube.get("/version")
    assert status == 200 and body["gitVersion"] == version["gitVersion"]


def test_admin_kubeconfig_is_self_contained(kube: KubeControlPlane):
    config = json.loads(kube.kubeconfig.read_text())
    assert config["clusters"][0]["cluster"]["server"] == kube.server
    assert kube.server.startswith("https://127.0.0.1:")
    user = config["users"][0]["user"]
    assert {"client-certificate-data", "client-key-data"} <= user.keys()
    whoami = json.loads(kube.kubectl("auth", "whoami", "-o", "json").stdout)
    assert "system:masters" in whoami["status"]["userInfo"]["groups"]


def test_namespace_can_be_created(kube: KubeControlPlane, namespace: str):
    got = json.loads(kube.kubectl("get", "namespace", namespace, "-o", "json").stdout)
    assert got["status"]["phase"] == "Active"
    names = kube.kubectl("get", "namespaces", "-o", "name").stdout.split()
    assert {f"namespace/{namespace}", "namespace/default", "namespace/kube-system"} <= set(names)


def test_rbac_judges_service_account_tokens(kube: KubeControlPlane, namespace: str):
    kube.kubectl("create", "serviceaccount", "writer", "-n", namespace)
    token = kube.token("writer", namespace, "10m")
    user = f"system:serviceaccount:{namespace}:writer"

    # Authenticated: the apiserver knows who the token belongs to ...
    whoami = json.loads(kube.kubectl("auth", "whoami", "-o", "json", token=token).stdout)
    assert whoami["status"]["userInfo"]["username"] == user
    # ... unlike a token it did not sign.
    bogus = kube.kubectl("get", "secrets", "-n", namespace, token=token[:-4] + "AAAA",
                         check=False)
    assert bogus.returncode != 0 and "Unauthorized" in bogus.stderr, bogus.stderr

    # Forbidden until a Role grants it.
    create = ("create", "secret", "generic", "s1", "-n", namespace, "--from-literal=k=v")
    denied = kube.kubectl(*create, token=token, check=False)
    assert denied.returncode != 0
    assert f'User "{user}" cannot create resource "secrets"' in denied.stderr, denied.stderr

    kube.kubectl("create", "role", "secret-writer", "-n", namespace,
                 "--verb=create", "--resource=secrets")
    kube.kubectl("create", "rolebinding", "writer-secrets", "-n", namespace,
                 "--role=secret-writer", f"--serviceaccount={namespace}:writer")
    # RBAC's cache follows the new objects within moments.
    def create_as_writer():
        return kube.kubectl(*create, token=token, check=False)

    wait_for("RBAC to let the writer create secrets",
             lambda: create_as_writer().returncode == 0, 10, 0.2,
             context=lambda: create_as_writer().stderr)
    kube.kubectl("get", "secret", "s1", "-n", namespace)
    # The Role gives create only.
    listing = kube.kubectl("get", "secrets", "-n", namespace, token=token, check=False)
    assert listing.returncode != 0
    assert f'User "{user}" cannot list resource "secrets"' in listing.stderr, listing.stderr


def test_applied_crd_appears_in_discovery(kube: KubeControlPlane, namespace: str):
    assert kube.apply_crds(MANIFESTS / "kube-crd") == ["widgets.test.ax.io"]
    resources = kube.kubectl("api-resources", "--api-group=test.ax.io", "-o", "name")
    assert resources.stdout.split() == ["widgets.test.ax.io"]
    kube.kubectl("apply", "-n", namespace, "-f", "-", input=json.dumps({
        "apiVersion": "test.ax.io/v1alpha1", "kind": "Widget",
        "metadata": {"name": "w1"}, "spec": {"size": 3}}))
    got = json.loads(kube.kubectl("get", "widget", "w1", "-n", namespace, "-o", "json").stdout)
    assert got["spec"] == {"size": 3}
    # Applying again is a no-op that still waits for discovery.
    assert kube.apply_crds(MANIFESTS / "kube-crd") == ["widgets.test.ax.io"]


def test_token_requires_an_existing_service_account(kube: KubeControlPlane):
    with pytest.raises(HarnessError, match="not found"):
        kube.token("nobody", "default")


def test_stop_leaves_no_process(tmp_path, kube: KubeControlPlane):
    # A second control plane beside the module's: separate ports and files.
    cp = KubeControlPlane(tmp_path / "kube").start()
    try:
        assert cp.port != kube.port
        pids = cp.pids
        assert len(pids) == 2
        assert all(os.path.exists(f"/proc/{pid}") for pid in pids)
        cp.kubectl("get", "namespace", "default")
    finally:
        cp.stop()
    assert not [pid for pid in pids if os.path.exists(f"/proc/{pid}")]
    assert not cp.etcd_dir.exists()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", cp.port), timeout=2).close()
    # The module's control plane is untouched.
    kube.kubectl("get", "namespace", "default")


def test_failed_start_stops_etcd(tmp_path):
    cp = KubeControlPlane(tmp_path / "kube")
    cp.apiserver_bin = Path("/bin/false")  # exits at once: start() must clean up
    with pytest.raises(HarnessError, match="kube-apiserver exited with 1"):
        cp.start()
    assert cp.etcd is not None and not os.path.exists(f"/proc/{cp.etcd.pid}")
    assert not cp.etcd_dir.exists()
