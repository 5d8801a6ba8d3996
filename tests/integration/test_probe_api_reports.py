"""ax-probe --report-api and --nodes-api against a real kube-apiserver (kubecp.py,
fixture `kube`) with the CRDs of crds/ applied.

ax-probe probes Python HTTP backends on loopback and applies its ProbeReport as the
ServiceAccount ax-dns of deploy/rbac/ax-dns.yaml (read Nodes, create/patch
probereports; the sidecar shares the ax-dns pod's account). The report must appear in
the API having passed the CRD's server-side validation, follow a backend's health
change, and carry an ownerReference to the pod named by POD_NAME/POD_UID. A token
without rights is refused, counted and logged while probing and the stdout reports go
on. With --nodes-api and no manifests, the Nodes come from the API: Node objects
created, edited and deleted with kubectl are followed by the report, a Node that fails
Ax's checks is left out by name while the others are probed, and an account that may
not read Nodes gets no node set (and says why).
"""

from __future__ import annotations

import json
import time

import pytest

from axharness import REPO
from probeharness import AxProbe, Backend, node_manifest, write_node_manifests
from waiting import wait_for

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
    def matching() -> dict | None:
        report = api_report(cluster, name)
        if report and pred({r["node"]: r for r in report["spec"]["results"]}):
            return report
        return None

    return wait_for(f"a matching ProbeReport {name}", matching, timeout, 0.2,
                    context=lambda: f"last: {api_report(cluster, name)}")


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
        # Heartbeats (1 s) keep the object fresh without a change: rewritten, and
        # the write counted, within 2.5 s.
        wait_for("a heartbeat rewriting pod-a", lambda: (
            api_report(cluster, "pod-a")["spec"]["observedAt"] != observed
            and metric_value(probe, "ax_probe_report_writes_total",
                             'destination="api",result="ok"') >= 3), 2.5, 0.1)
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


def apply_node(cluster, name: str, index: int, backend: Backend,
               check_extra: str = "") -> None:
    """node_manifest through kubectl; `check_extra` is appended to its healthCheck."""
    manifest = node_manifest(name, index, backend.port, interval_ms=200, timeout_ms=200,
                             failure_threshold=2, success_threshold=2)
    assert manifest.endswith("successThreshold: 2\n")
    cluster.kubectl("apply", "-n", NS, "-f", "-",
                    input=manifest + (f"    {check_extra}\n" if check_extra else ""))


def start_api_probe(cluster, tmp_path, account: str, vantage: str) -> AxProbe:
    kubeconfig = cluster.token_kubeconfig(tmp_path / f"{account}.kubeconfig",
                                          cluster.token(account, NS), NS)
    return AxProbe(None, tmp_path, vantage=vantage, env=POD, extra=[
        "--nodes-api", "--report-api", "--kubeconfig", str(kubeconfig),
        "--heartbeat", "1s"])


def gauge(probe: AxProbe, name: str) -> float | None:
    status, _, body = probe.get("/metrics")
    assert status == 200
    for line in body.splitlines():
        if line.startswith(f"{name} "):
            return float(line.split()[-1])
    return None


def test_nodes_from_the_api_follow_kubectl(cluster, tmp_path):
    """No --manifests: the probed set is the namespace's Node objects, as the chart's
    sidecar runs (ax-dns's account)."""
    backends = {name: Backend() for name in ("a1", "a2", "a3", "failing")}
    backends["failing"].set_status(500)
    probe = None
    try:
        apply_node(cluster, "api-n1", 0, backends["a1"])
        apply_node(cluster, "api-n2", 1, backends["a2"])
        probe = start_api_probe(cluster, tmp_path, "ax-dns", "pod-api")
        wait_api_report(cluster, "pod-api", lambda rs: set(rs) == {"api-n1", "api-n2"}
                        and all(r["health"] == "Up" for r in rs.values()))
        assert gauge(probe, "ax_probe_nodes_source_connected") == 1
        assert gauge(probe, "ax_probe_nodes_source_rejected") == 0

        # Created: probed and reported.
        apply_node(cluster, "api-n3", 2, backends["a3"])
        wait_api_report(cluster, "pod-api", lambda rs: rs.get("api-n3", {}).get(
            "health") == "Up")
        # Edited: api-n1's check now hits a failing endpoint; its health follows.
        started = time.monotonic()
        apply_node(cluster, "api-n1", 0, backends["failing"])
        wait_api_report(cluster, "pod-api", lambda rs: rs["api-n1"]["health"] == "Down")
        print(f"\napi-n1 Down in the report {time.monotonic() - started:.2f} s after "
              "kubectl apply moved its check (watch, 50 ms debounce, threshold 2 x 200 ms)")
        # Deleted: gone from the report.
        cluster.kubectl("delete", "axnode", "api-n2", "-n", NS)
        wait_api_report(cluster, "pod-api", lambda rs: set(rs) == {"api-n1", "api-n3"})

        # Valid for the CRD (its expectStatus schema does not reach into a list), not
        # for Ax: left out by name, the others still probed.
        apply_node(cluster, "api-bad", 3, backends["a3"], check_extra="expectStatus: [999]")
        wait_for("api-bad rejected", lambda: gauge(probe, "ax_probe_nodes_source_rejected") == 1,
                 10, 0.1, context=lambda: probe.log()[-3000:])
        rejected = [json.loads(line) for line in probe.log().splitlines()
                    if "Node rejected" in line]
        assert rejected[0]["object"] == "Node/api-bad", rejected
        assert rejected[0]["field"].startswith("spec.healthCheck.expectStatus"), rejected
        assert "999" in rejected[0]["error"], rejected
        # The next write after the rejection (a heartbeat) still leaves api-bad out.
        observed = api_report(cluster, "pod-api")["spec"]["observedAt"]

        def rewritten() -> dict | None:
            report = api_report(cluster, "pod-api")
            return report if report["spec"]["observedAt"] != observed else None

        later = wait_for("a heartbeat after the rejection", rewritten, 10, 0.1)
        assert {r["node"] for r in later["spec"]["results"]} == {"api-n1", "api-n3"}, later
    finally:
        rc = probe.stop() if probe else 0
        cluster.kubectl("delete", "axnode", "--all", "-n", NS, check=False)
        for b in backends.values():
            b.stop()
    assert rc == 0, probe.log()[-4000:]


def test_nodes_api_without_read_rights_says_so(cluster, tmp_path):
    probe = start_api_probe(cluster, tmp_path, "ax-nobody", "pod-c")
    try:
        wait_for("the node source's log line", lambda: any(
            "node source cannot reach the Kubernetes API" in line
            for line in probe.log().splitlines()), 10, 0.1, context=lambda: probe.log()[-3000:])
        assert "403" in probe.log()
        assert gauge(probe, "ax_probe_nodes_source_connected") == 0
        assert gauge(probe, "ax_probe_nodes_source_errors_total") >= 1
        status, _, body = probe.get("/readyz")
        assert status == 503 and "node set" in body
        assert probe.count() == 0  # no node set, no report
    finally:
        rc = probe.stop()
    assert rc == 0, probe.log()[-4000:]
