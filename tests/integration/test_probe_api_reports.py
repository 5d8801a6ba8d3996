"""ax-probe --report-api against a real kube-apiserver (kubecp.py, fixture `kube`) with
the CRDs of crds/ applied.

ax-probe probes two Python HTTP backends on loopback and applies its ProbeReport as
the ServiceAccount ax-dns of deploy/rbac/ax-dns.yaml (create/patch on probereports
only; the sidecar shares the ax-dns pod's account). The report must appear in the API
having passed the CRD's server-side validation, follow a backend's health change, and
carry an ownerReference to the pod named by POD_NAME/POD_UID. A token without rights
is refused, counted and logged while probing and the stdout reports go on.
"""

from __future__ import annotations

import json
import time

import pytest

from axharness import REPO
from probeharness import AxProbe, Backend, write_node_manifests

NS = "ax-system"
RBAC = REPO / "deploy" / "rbac" / "ax-dns.yaml"
NODES = ("n1", "n2")
POD = {"POD_NAME": "ax-dns-7d9f-abcde", "POD_UID": "0b1c2d3e-0000-4000-8000-000000000001"}


@pytest.fixture(scope="module")
def cluster(kube):
    kube.apply_crds(REPO / "crds")
    kube.kubectl("create", "namespace", NS)
    kube.kubectl("apply", "-f", str(RBAC))
    kube.kubectl("create", "serviceaccount", "ax-nobody", "-n", NS)
    return kube


@pytest.fixture
def backends():
    started = {name: Backend() for name in NODES}
    yield started
    for b in started.values():
        b.stop()


@pytest.fixture
def manifests(tmp_path, backends):
    return write_node_manifests(tmp_path / "manifests", backends, interval_ms=200,
                                timeout_ms=200)


def start_probe(cluster, tmp_path, manifests, account: str, vantage: str,
                env: dict | None = None) -> AxProbe:
    kubeconfig = cluster.token_kubeconfig(tmp_path / f"{account}.kubeconfig",
                                          cluster.token(account, NS), NS)
    return AxProbe(manifests, tmp_path, vantage=vantage, env=env, extra=[
        "--report-api", "--kubeconfig", str(kubeconfig), "--heartbeat", "1s"])


def api_report(cluster, name: str) -> dict | None:
    r = cluster.kubectl("get", "probereports", "-n", NS, "-o", "json",
                        "--show-managed-fields")
    items = {i["metadata"]["name"]: i for i in json.loads(r.stdout)["items"]}
    return items.get(name)


def wait_api_report(cluster, name: str, pred, timeout: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = api_report(cluster, name)
        if last and pred({r["node"]: r for r in last["spec"]["results"]}):
            return last
        time.sleep(0.2)
    raise AssertionError(f"no matching ProbeReport {name}; last: {last}")


def metric_value(probe: AxProbe, name: str, labels: str) -> float:
    status, _, body = probe.get("/metrics")
    assert status == 200
    for line in body.splitlines():
        if line.startswith(f"{name}{{") and labels in line:
            return float(line.split()[-1])
    return 0.0


def test_report_through_the_api_follows_health_and_is_owned_by_the_pod(
        cluster, tmp_path, manifests, backends):
    probe = start_probe(cluster, tmp_path, manifests, "ax-dns", "Pod-A", env=POD)
    try:
        up = wait_api_report(cluster, "pod-a", lambda rs: set(rs) == set(NODES) and all(
            r["health"] == "Up" for r in rs.values()))
        assert up["spec"]["vantage"] == "Pod-A"
        assert up["metadata"]["ownerReferences"] == [
            {"apiVersion": "v1", "kind": "Pod", "name": POD["POD_NAME"],
             "uid": POD["POD_UID"]}]
        managers = {m["manager"] for m in up["metadata"]["managedFields"]}
        assert managers == {"ax-probe"}, managers
        # The object the apiserver stored passes its schema again (server dry run).
        dry = cluster.kubectl("apply", "--dry-run=server", "-f", "-",
                              input=json.dumps({k: up[k] for k in
                                                ("apiVersion", "kind", "spec")} |
                                               {"metadata": {"name": "pod-a-check",
                                                             "namespace": NS}}))
        assert "created (server dry run)" in dry.stdout

        changed_at = backends["n2"].set_status(500)
        down = wait_api_report(cluster, "pod-a",
                               lambda rs: rs["n2"]["health"] == "Down")
        assert down["spec"]["results"][0]["health"] == "Up"  # n1
        print(f"\nn2 Down in the API {time.time() - changed_at:.2f} s after its "
              "backend turned 500 (failureThreshold 2 x 200 ms, then one apply)")
        observed = down["spec"]["observedAt"]
        # Heartbeats (1 s) keep the object fresh without a change.
        time.sleep(2.5)
        assert api_report(cluster, "pod-a")["spec"]["observedAt"] != observed
        assert metric_value(probe, "ax_probe_report_writes_total",
                            'destination="api",result="ok"') >= 3
        assert metric_value(probe, "ax_probe_report_writes_total",
                            'destination="api",result="error"') == 0
    finally:
        rc = probe.stop()
    assert rc == 0, probe.log()[-4000:]


def test_refused_writes_do_not_stop_probing(cluster, tmp_path, manifests, backends):
    probe = start_probe(cluster, tmp_path, manifests, "ax-nobody", "pod-b")
    try:
        # The stdout reports go on (every heartbeat) and follow health.
        probe.wait_report(lambda rs: set(rs) == set(NODES) and all(
            r["health"] == "Up" for r in rs.values()))
        backends["n1"].set_status(503)
        probe.wait_report(lambda rs: rs["n1"]["health"] == "Down", after=probe.count())
        assert metric_value(probe, "ax_probe_report_writes_total",
                            'destination="api",result="error"') >= 2
        assert metric_value(probe, "ax_probe_report_writes_total",
                            'destination="output",result="ok"') >= 2
        refused = [json.loads(line) for line in probe.log().splitlines()
                   if "report API write failed" in line]
        assert refused and "403" in refused[0]["error"], probe.log()[-3000:]
        assert api_report(cluster, "pod-b") is None
    finally:
        rc = probe.stop()
    assert rc == 0, probe.log()[-4000:]
