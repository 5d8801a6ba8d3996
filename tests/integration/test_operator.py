"""ax-operator against a real kube-apiserver (kubecp.py): the CRDs and deploy/rbac
applied, the operator running with its own service account's token (least privilege:
what it needs works, a Secret create is denied), examples/quickstart applied with
kubectl -> the route-table ConfigMap with its domains and nodes, statuses and Events;
the ConfigMaps and the Lease owned by the account (--owner; this control plane has no
garbage collector, the kind e2e sees them deleted), an owner it cannot read stopping it;
Node and Rule edits -> a new version, CR change to ConfigMap timed over 10 edits; two
replicas: one leader, the other takes over after the leader is SIGKILLed, versions keep
rising; the apiserver stopped for a few seconds and started again -> the operator
recovers."""

from __future__ import annotations

import json
import statistics
import subprocess
import time

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as openmetrics_families)
from prometheus_client.parser import text_string_to_metric_families

from axharness import QUICKSTART
from crdschema import CRDS_DIR
from operatorharness import (
    NS, RBAC_DIR, AxOperator, gslb_path, merge_patch, probe_report, route_table,
    route_table_version, runbook_metrics, token_kubeconfig)
from waiting import wait_for

# Short lease timings keep the failover test quick; the defaults (15 s / 10 s / 2 s)
# scale the same way.
LEASE = ["--lease-duration=4s", "--renew-deadline=3s", "--retry-period=1s"]
LEASE_S, RETRY_S = 4.0, 1.0
# The account whose token the operator runs on owns what it creates, as in the chart.
OWNER = "--owner=ServiceAccount/ax-operator"
QUICKSTART_NODES = {"gz-01", "gz-02", "bj-01", "bj-02", "sj-01", "sj-02"}


@pytest.fixture(scope="module")
def cluster(kube):
    kube.apply_crds(CRDS_DIR)
    kube.kubectl("create", "namespace", NS)
    kube.kubectl("apply", "-f", str(RBAC_DIR))
    return kube


@pytest.fixture(scope="module")
def kubeconfig(cluster, tmp_path_factory):
    return token_kubeconfig(cluster, "ax-operator",
                            tmp_path_factory.mktemp("operator") / "ax-operator.kubeconfig")


@pytest.fixture(scope="module")
def leader(cluster, kubeconfig, tmp_path_factory):
    """The first replica: it leads from the start."""
    op = AxOperator(kubeconfig, tmp_path_factory.mktemp("op-a"), "op-a", OWNER,
                    *LEASE).start()
    yield op
    op.stop()


def test_least_privilege(cluster, kubeconfig, leader):
    token = json.loads(kubeconfig.read_text())["users"][0]["user"]["token"]
    denied = cluster.kubectl("create", "secret", "generic", "stolen", "-n", NS,
                             "--from-literal=a=b", token=token, check=False)
    assert denied.returncode != 0 and "forbidden" in denied.stderr, denied.stderr
    spec_write = cluster.kubectl("create", "configmap", "x", "-n", "default",
                                 token=token, check=False)
    assert spec_write.returncode != 0 and "forbidden" in spec_write.stderr
    # What it needs, it has.
    for verb, resource, *extra in [
            ("list", "nodes.gslb.ax.io"), ("update", "nodes.gslb.ax.io", "--subresource=status"),
            ("create", "configmaps"), ("delete", "configmaps"), ("create", "events"),
            ("update", "leases.coordination.k8s.io/ax-operator"),
            ("update", "configmaps/ax-route-table"), ("get", "serviceaccounts/ax-operator")]:
        r = cluster.kubectl("auth", "can-i", verb, resource, *extra, "-n", NS, token=token,
                            check=False)
        assert r.stdout.strip() == "yes", (verb, resource, r.stdout, r.stderr)
    r = cluster.kubectl("auth", "can-i", "update", "nodes.gslb.ax.io", "-n", NS,
                        token=token, check=False)
    assert r.stdout.strip() == "no", "the operator must not write specs"
    # Named writes: another Lease or ConfigMap is not updated; no other account read.
    for verb, resource in (("update", "leases.coordination.k8s.io/other"),
                           ("update", "configmaps/other"), ("get", "serviceaccounts/other")):
        r = cluster.kubectl("auth", "can-i", verb, resource, "-n", NS, token=token,
                            check=False)
        assert r.stdout.strip() == "no", resource


def test_quickstart_published(cluster, leader):
    cluster.kubectl("apply", "-n", NS, "-f", str(QUICKSTART))

    def whole_quickstart():
        table = route_table(cluster)
        if not table:
            return None
        fqdns = {d["fqdn"] for d in table[1]["domains"]}
        nodes = {n["name"] for n in table[1]["nodes"]}
        return table if (fqdns == {"www.example.test", "api.example.test"}
                         and nodes == QUICKSTART_NODES) else None

    version, doc = wait_for("the quickstart in the route table", whole_quickstart, 10)
    assert version >= 1
    history = cluster.kubectl("get", "configmap", "-n", NS, "-l",
                              "gslb.ax.io/route-table-role=history", "-o", "name").stdout
    assert f"configmap/ax-route-table-v{version}" in history.split()
    print(f"\nfirst version {version}: {len(doc['nodes'])} nodes, "
          f"{len(doc['domains'])} domains, {len(doc['routes'])} routes")


def test_objects_it_creates_are_owned_by_the_account(cluster, leader):
    """The route table, its kept versions and the Lease name the ServiceAccount, by uid,
    as their one owner: deleting it (helm uninstall) deletes them."""
    account = json.loads(cluster.kubectl("get", "serviceaccount", "ax-operator", "-n", NS,
                                         "-o", "json").stdout)
    owners = [{"apiVersion": "v1", "kind": "ServiceAccount", "name": "ax-operator",
               "uid": account["metadata"]["uid"]}]
    wait_for("the route table", lambda: route_table(cluster), 10)
    cms = json.loads(cluster.kubectl("get", "configmap", "-n", NS, "-l",
                                     "gslb.ax.io/route-table=ax-route-table",
                                     "-o", "json").stdout)["items"]
    names = {cm["metadata"]["name"] for cm in cms}
    assert "ax-route-table" in names and any(n.startswith("ax-route-table-v") for n in names)
    for cm in cms:
        assert cm["metadata"].get("ownerReferences") == owners, cm["metadata"]
    assert wait_for("op-a leads", leader.is_leader, 10)
    lease = json.loads(cluster.kubectl("get", "lease", "ax-operator", "-n", NS,
                                       "-o", "json").stdout)
    assert lease["metadata"].get("ownerReferences") == owners, lease["metadata"]


@pytest.mark.parametrize("as_admin, answer", [(False, "403 Forbidden"),
                                               (True, "404 NotFound")])
def test_an_owner_it_cannot_read_stops_it(cluster, kubeconfig, tmp_path, as_admin, answer):
    """A misnamed owner (forbidden to the account's Role, missing for the admin) stops
    the operator at start, before it writes anything, with the flag and the object
    named."""
    op = AxOperator(cluster.kubeconfig if as_admin else kubeconfig, tmp_path, "op-x",
                    "--owner=ServiceAccount/nobody", *LEASE)
    r = subprocess.run(op.cmd, capture_output=True, text=True, timeout=30)
    assert r.returncode == 1, r.stdout + r.stderr
    errors = [json.loads(line) for line in r.stderr.splitlines()
              if '"ax-operator failed to start"' in line]
    assert len(errors) == 1, r.stderr
    assert errors[0]["error"].startswith(
        f"--owner=ServiceAccount/nobody: cannot read it in namespace {NS}: {answer}"), errors
    assert "ax-operator starting" not in r.stderr, r.stderr


def test_statuses_and_events(cluster, leader):
    cluster.kubectl("apply", "-f", "-",
                    input=json.dumps(probe_report("vantage-a", QUICKSTART_NODES,
                                                  QUICKSTART_NODES - {"sj-02"})))

    expected = {n: "Down" if n == "sj-02" else "Up" for n in QUICKSTART_NODES}

    def nodes_decided():
        # Every Node's status: they are written one by one (those with an Event
        # first), so two of them say little about the rest.
        items = json.loads(cluster.kubectl("get", "axnode", "-n", NS, "-o", "json").stdout)
        health = {n["metadata"]["name"]: n.get("status", {}).get("health") for n in items["items"]}
        return health if health == expected else None

    health = wait_for("Node statuses from the ProbeReport", nodes_decided, 10, 0.2)
    assert {n for n, h in health.items() if h == "Up"} == QUICKSTART_NODES - {"sj-02"}
    table = cluster.kubectl("get", "axnode", "-n", NS).stdout
    print("\n" + table)
    assert "HEALTH" in table and "Down" in table and "Up" in table
    doms = json.loads(cluster.kubectl("get", "axdom", "-n", NS, "-o", "json").stdout)
    for d in doms["items"]:
        conditions = {c["type"]: c for c in d["status"]["conditions"]}
        assert conditions["Published"]["reason"] == "InRouteTable", d["status"]
    report = json.loads(cluster.kubectl("get", "axpr", "vantage-a", "-n", NS,
                                        "-o", "json").stdout)
    assert report["status"]["stale"] is False
    events = cluster.kubectl("get", "events", "-n", NS, "-o", "json").stdout
    reasons = {e["reason"] for e in json.loads(events)["items"]}
    assert {"SnapshotPublished", "NodeDown"} <= reasons, reasons
    _, doc = route_table(cluster)
    assert {n["name"]: n["health"] for n in doc["nodes"]}["sj-02"] == "Down"
    # The leader's metrics agree (updated right after the pass's writes).
    wait_for("ax_operator_nodes", lambda: leader.metric("ax_operator_nodes", health="Down") == 1,
             2)
    assert leader.metric("ax_operator_nodes", health="Up") == 5
    assert leader.metric("ax_operator_vantage_cut_off", vantage="vantage-a") == 0
    assert leader.metric("ax_operator_snapshot_version") == route_table_version(cluster)


def test_metrics_match_the_runbook(cluster, leader):
    """Exactly the runbook's names, types and labels, in both exposition formats; the
    member clusters' series need --members (test_multi_cluster.py checks them)."""
    expected = {name: m for name, m in runbook_metrics().items()
                if not name.startswith("ax_operator_member_")}
    assert len(expected) == 20
    for accept, parse in [(None, text_string_to_metric_families),
                          ("application/openmetrics-text; version=1.0.0",
                           openmetrics_families)]:
        status, text = leader.http_get("/metrics", accept)
        assert status == 200
        seen = {}
        for family in parse(text):
            labels = set()
            for sample in family.samples:
                labels |= set(sample.labels) - {"le"}
            name = family.name + ("_total" if family.type == "counter" else "")
            seen[name] = (family.type, labels)
        assert set(seen) == set(expected), text
        for name, (kind, labels) in seen.items():
            # Families with no samples here: the vantage groups' (no placed vantages),
            # node load (no quickstart endpoint reports load), Rule expiries (no
            # quickstart Rule expires).
            assert kind == expected[name][0], name
            assert labels == expected[name][1] or (not labels and name in {
                "ax_operator_vantage_group_vantages", "ax_operator_vantage_group_node_down",
                "ax_operator_node_load_percent",
                "ax_operator_rule_expires_timestamp_seconds"}), (name, labels)


def edits():
    """Alternating Node and Rule edits that each change the route table."""
    for i in range(10):
        if i % 2 == 0:
            state = "Disabled" if i % 4 == 0 else "Active"
            yield f"Node bj-01 adminState {state}", gslb_path("nodes", "bj-01"), {
                "spec": {"adminState": state}}
        else:
            node = "gz-01" if i % 4 == 1 else "gz-02"
            yield f"Rule www-exclude-gz-02 node {node}", gslb_path(
                "rules", "www-exclude-gz-02"), {"spec": {"node": node}}


def test_change_to_configmap_latency(cluster, leader):
    latencies = []
    for what, path, patch in edits():
        before = route_table_version(cluster)
        merge_patch(cluster, path, patch)
        t0 = time.monotonic()
        wait_for(f"a new version after {what}",
                 lambda: route_table_version(cluster) > before, 5, 0.01)
        latencies.append(time.monotonic() - t0)
        time.sleep(0.3)  # on purpose: edits apart, so each latency is one edit's own
    ms = sorted(round(x * 1000) for x in latencies)
    print(f"\nCR change -> ConfigMap over {len(ms)} edits: min {ms[0]} ms, "
          f"median {statistics.median(ms):.0f} ms, max {ms[-1]} ms ({ms})")
    assert statistics.median(latencies) < 1.0


def test_no_version_per_heartbeat(cluster, leader):
    """A sidecar's heartbeat (same verdicts, latency jitter) publishes nothing new."""
    def heartbeat(latency: float) -> None:
        report = probe_report("vantage-a", QUICKSTART_NODES,
                              QUICKSTART_NODES - {"sj-02"})
        for r in report["spec"]["results"]:
            if r["up"]:
                r["latencyMs"] = latency
        cluster.kubectl("apply", "-f", "-", input=json.dumps(report))

    def settled_version(quiet: float = 2.0) -> int:
        """The version once it has held still for `quiet` seconds: whatever the last
        report publishes (maybe nothing, so there is no event to wait on) is out."""
        seen = {"version": route_table_version(cluster), "since": time.monotonic()}

        def still() -> bool:
            now = route_table_version(cluster)
            if now != seen["version"]:
                seen.update(version=now, since=time.monotonic())
            return time.monotonic() - seen["since"] >= quiet

        wait_for("the route table to hold still", still, 30, 0.1)
        return seen["version"]

    heartbeat(10.0)  # fresh again after the edits above
    before = settled_version()
    for latency in (10.3, 9.8, 10.6, 10.1):
        heartbeat(latency)
        time.sleep(0.5)  # on purpose: heartbeats apart, each given time to publish
    assert settled_version() == before
    heartbeat(25.0)  # 2.5x slower: a material change
    wait_for("a version for a material latency change",
             lambda: route_table_version(cluster) > before, 5)


def test_two_replicas_failover(cluster, kubeconfig, leader, tmp_path_factory):
    follower = AxOperator(kubeconfig, tmp_path_factory.mktemp("op-b"), "op-b",
                          *LEASE).start()
    try:
        # On purpose: two retry periods in which the follower must not take the lease.
        time.sleep(2 * RETRY_S)
        assert leader.is_leader() and not follower.is_leader()
        assert follower.metric("ax_operator_leader", pod="op-b") == 0
        # Leader-only series: absent on the follower.
        assert follower.metric("ax_operator_snapshot_version") is None
        before = route_table_version(cluster)
        writes_before = follower.log_path.read_text().count("snapshot published")
        merge_patch(cluster, gslb_path("nodes", "bj-02"), {"spec": {"weight": 40}})
        wait_for("the leader publishing", lambda: route_table_version(cluster) > before, 5)
        assert follower.log_path.read_text().count("snapshot published") == writes_before

        leader.kill()
        killed = time.monotonic()
        wait_for("op-b taking over", follower.is_leader, LEASE_S + 3 * RETRY_S + 2, 0.1)
        takeover = time.monotonic() - killed
        print(f"\ntakeover after SIGKILL of the leader: {takeover:.1f} s "
              f"(lease {LEASE_S:.0f} s, retry {RETRY_S:.0f} s)")
        assert takeover < LEASE_S + 2 * RETRY_S + 1
        lease = json.loads(cluster.kubectl("get", "lease", "ax-operator", "-n", NS,
                                           "-o", "json").stdout)
        assert lease["spec"]["holderIdentity"] == "op-b"
        before = route_table_version(cluster)
        merge_patch(cluster, gslb_path("nodes", "bj-02"), {"spec": {"weight": 60}})
        wait_for("op-b publishing", lambda: route_table_version(cluster) > before, 5)
        wait_for("op-b's version metric", lambda: follower.metric(
            "ax_operator_snapshot_version") == route_table_version(cluster), 2)
    finally:
        follower.stop()


def test_apiserver_restart(cluster, kubeconfig, tmp_path_factory):
    op = AxOperator(kubeconfig, tmp_path_factory.mktemp("op-c"), "op-c", *LEASE).start()
    try:
        wait_for("op-c leading", op.is_leader, LEASE_S + 3 * RETRY_S + 2, 0.1)
        cluster.stop_apiserver()
        time.sleep(3)  # on purpose: the outage's length
        # Ready as the harness waits for it (a loaded machine takes its time; a
        # failure shows the new log's tail), then serving the custom resources
        # again (they come after core).
        cluster.start_apiserver()
        wait_for("the apiserver back",
                 lambda: cluster.get(gslb_path("nodes", "bj-02"))[0] == 200, 60, 0.2)
        before = route_table_version(cluster)
        merge_patch(cluster, gslb_path("nodes", "bj-02"), {"spec": {"weight": 70}})
        t0 = time.monotonic()
        wait_for("a version after the restart",
                 lambda: route_table_version(cluster) > before, 40, 0.1)
        print(f"\nafter an apiserver restart: published {time.monotonic() - t0:.1f} s "
              "after the first edit")
        assert op.is_leader()
        restarts = op.metric("ax_operator_watch_restarts_total", resource="nodes")
        assert restarts and restarts >= 1
    finally:
        assert op.stop() == 0
