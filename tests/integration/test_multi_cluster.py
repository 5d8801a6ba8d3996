"""One control plane, a member cluster: two real kube-apiservers (kubecp.py), the
operator publishing to the member through a toxiproxy link, and ax-dns plus ax-probe
in each cluster reading their own apiserver.

The control plane holds a copy of examples/quickstart whose health checks point at
demo backends on loopback. The member's kubeconfig (a token of the publisher
account of the member's RBAC, the server through toxiproxy) sits in a labelled
Secret beside the operator. The member's ax-probe reads the Nodes from the
probe-targets ConfigMap the operator writes there and applies its ProbeReport in the
member; it is the only vantage, so its votes alone decide health. Shown:
- the route table reaches both clusters at the same version, both ax-dns answer the
  same; the member's copy carries the control plane's confirmation, which ax-dns
  reports as an age; the operator counts the member up;
- a backend the member's probe sees failing takes its node out of both clusters'
  answers (the member's vantage counts in the control plane's quorum) and back;
- the link cut (toxiproxy disabled): the member keeps answering with its last version
  while the control plane moves on, its confirmation ages, the operator reports the
  member unreachable; reconnected, the new version reaches it;
- credentials the member refuses (an account without rights) and a Secret without a
  usable kubeconfig are reported once (log, Event on the Secret, a blocked metric)
  and not retried; the Secret rotated to good credentials, without restarting the
  operator, the member is published to (a second namespace, the Secret's
  `namespace` key).
"""

from __future__ import annotations

import base64
import json
import time

import pytest

from axharness import REPO, AxDns, addresses, ask, make_query, running
from demobackends import probed_quickstart
from kubecp import KubeControlPlane
from operatorharness import (
    AxOperator, gslb_path, merge_patch, runbook_metrics, token_kubeconfig)
from probeharness import AxProbe
from waiting import wait_for

NS = "ax-system"
OTHER_NS = "ax-other"
TABLE = "ax-route-table"
SELECTOR = "gslb.ax.io/member-cluster=true"
CRDS = REPO / "crds"
RBAC = REPO / "deploy" / "rbac"
MEMBER_RBAC = RBAC / "member"
# The publisher account of ax-system may also hold the copies of a second namespace of
# the member (what a second control plane's Secret would name with its `namespace`).
OTHER_NS_RBAC = f"""
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: ax-member-publisher, namespace: {OTHER_NS}}}
rules:
  - {{apiGroups: [""], resources: [configmaps], verbs: [create, get, update, patch]}}
  - {{apiGroups: [gslb.ax.io], resources: [probereports], verbs: [get, list]}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: ax-member-publisher, namespace: {OTHER_NS}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: ax-member-publisher}}
subjects: [{{kind: ServiceAccount, name: ax-member-publisher, namespace: {NS}}}]
"""
# Guangdong, China Telecom: the quickstart answers gz-01 and gz-02.
ECS = "113.108.1.0/24"
GZ_01 = "192.0.2.10"


def secret_path(name: str) -> str:
    return f"/api/v1/namespaces/{NS}/secrets/{name}"


def inline_kubeconfig(cluster: KubeControlPlane, token: str, server: str) -> str:
    """A kubeconfig with everything inline, as a Secret must carry it."""
    return json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "member",
        "clusters": [{"name": "member", "cluster": {
            "server": server,
            "certificate-authority-data":
                base64.b64encode(cluster.ca_file.read_bytes()).decode()}}],
        "users": [{"name": "publisher", "user": {"token": token}}],
        "contexts": [{"name": "member", "context": {"cluster": "member",
                                                    "user": "publisher"}}]})


def member_secret(name: str, kubeconfig: str, namespace: str | None = None) -> dict:
    data = {"kubeconfig": base64.b64encode(kubeconfig.encode()).decode()}
    if namespace:
        data["namespace"] = base64.b64encode(namespace.encode()).decode()
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": name, "namespace": NS,
                         "labels": {"gslb.ax.io/member-cluster": "true"}},
            "data": data}


def table_version(cluster: KubeControlPlane, ns: str = NS) -> int:
    status, cm = cluster.get(f"/api/v1/namespaces/{ns}/configmaps/{TABLE}")
    if status != 200:
        return 0
    return int(cm["metadata"]["annotations"]["gslb.ax.io/snapshot-version"])


def answer(ax: AxDns) -> set[str]:
    return addresses(ask(make_query("www.example.test", "A", ecs=ECS), ax.port,
                         timeout=1.0))


class World:
    """Both clusters and every process; stop() by PID in reverse order."""

    def __init__(self, control: KubeControlPlane, workdir, toxiproxy):
        self.control = control
        self.workdir = workdir
        self.stack = []
        self.member = self._keep(KubeControlPlane(workdir / "member").start())
        self.quickstart = probed_quickstart(workdir / "quickstart")
        self.stack.append(self.quickstart.demo)
        for cluster in (control, self.member):
            cluster.apply_crds(CRDS)
            cluster.kubectl("create", "namespace", NS)
        control.kubectl("apply", "-f", str(RBAC))
        control.kubectl("apply", "-f", str(MEMBER_RBAC / "ax-operator-members.yaml"))
        self.member.kubectl("apply", "-f", str(RBAC / "ax-dns.yaml"))
        self.member.kubectl("apply", "-f", str(MEMBER_RBAC / "ax-member.yaml"))
        self.member.kubectl("create", "serviceaccount", "ax-nobody", "-n", NS)
        # The link from the control plane to the member's apiserver.
        self.link = toxiproxy.create_proxy("member-apiserver",
                                           f"127.0.0.1:{self.member.port}")
        self.link_server = f"https://{self.link.info()['listen']}"
        publisher = self.member.token("ax-member-publisher", NS, "2h")
        control.apply(secret_path("member-b"), member_secret(
            "member-b", inline_kubeconfig(self.member, publisher, self.link_server)))
        control.kubectl("apply", "-n", NS, "-f", str(self.quickstart.manifests))
        self.operator = self._keep(AxOperator(
            token_kubeconfig(control, "ax-operator", workdir / "operator.kubeconfig"),
            workdir, "op-a", "--leader-elect=false", f"--members={SELECTOR}",
            "--member-sync=500ms", "--member-heartbeat=1s").start())
        self.dns = {name: self._keep(self._ax_dns(name, cluster))
                    for name, cluster in (("control", control), ("member", self.member))}
        probe_dir = workdir / "probe"
        probe_dir.mkdir()
        self.probe = self._keep(AxProbe(None, probe_dir, vantage="member-b-probe", extra=[
            "--nodes-api", "--nodes-configmap", f"{TABLE}-nodes", "--report-api",
            "--kubeconfig", str(self.member.token_kubeconfig(
                probe_dir / "probe.kubeconfig", self.member.token("ax-dns", NS), NS)),
            "--namespace", NS, "--heartbeat", "1s",
            "--probe-ca", str(self.quickstart.cert)]))

    def _keep(self, thing):
        self.stack.append(thing)
        return thing

    def _ax_dns(self, name: str, cluster: KubeControlPlane) -> AxDns:
        d = self.workdir / f"ax-dns-{name}"
        d.mkdir()
        kubeconfig = cluster.token_kubeconfig(d / "kubeconfig",
                                              cluster.token("ax-dns", NS), NS)
        return AxDns(None, d, listen_v6=False, identity=f"ax-dns-{name}", source_args=[
            "--snapshot-configmap", f"{NS}/{TABLE}", "--kubeconfig", str(kubeconfig)],
        ).start(ready=False)

    def stop(self) -> None:
        for thing in reversed(self.stack):
            thing.stop()


@pytest.fixture(scope="module")
def world(kube, toxiproxy_server, tmp_path_factory):
    with running(lambda: World(kube, tmp_path_factory.mktemp("multi"),
                               toxiproxy_server)) as w:
        yield w


def synced(world: World) -> int | None:
    """The version both clusters hold, once they hold the same one."""
    v = table_version(world.control)
    return v if v and table_version(world.member) == v else None


def in_step(world: World) -> int | None:
    """The version both tables hold and both ax-dns serve, once they agree."""
    v = synced(world)
    return v if v and all(ax.metric("ax_dns_snapshot_version") == v
                          for ax in world.dns.values()) else None


def test_both_clusters_serve_the_same_version(world):
    # The first versions follow the member's probe finding the nodes Up.
    for name, ax in world.dns.items():
        wait_for(f"{name} answers gz-01", lambda ax=ax: GZ_01 in answer(ax), 60)
    version = wait_for("both clusters at one version", lambda: in_step(world), 30)
    answers = {name: answer(ax) for name, ax in world.dns.items()}
    assert answers["control"] == answers["member"], answers
    # The member's copy is confirmed at every heartbeat; the control plane's own
    # table carries no confirmation.
    _, copy = world.member.get(f"/api/v1/namespaces/{NS}/configmaps/{TABLE}")
    assert "gslb.ax.io/confirmed-at" in copy["metadata"]["annotations"]
    age = wait_for("a confirmation age", lambda: world.dns["member"].metric(
        "ax_dns_snapshot_confirmed_age_seconds"), 10)
    assert 0 <= age < 5, age
    assert world.dns["control"].metric("ax_dns_snapshot_confirmed_age_seconds") is None
    op = world.operator
    assert wait_for("member-b up", lambda: op.metric("ax_operator_member_up",
                                                     member="member-b") == 1, 10)
    # Every member series of the runbook's table, by member.
    documented = [name for name in runbook_metrics() if name.startswith("ax_operator_member_")]
    assert len(documented) == 6
    for name in documented:
        assert op.metric(name, member="member-b") is not None, name
    assert op.metric("ax_operator_member_route_table_version",
                     member="member-b") == version


def test_the_members_probe_is_a_vantage(world):
    op = world.operator
    wait_for("the member's report listed", lambda: op.metric(
        "ax_operator_member_probe_reports", member="member-b") == 1, 20)
    # The control plane holds no ProbeReport: the vantage's report is the member's,
    # and its status is not written from here.
    assert world.control.get(
        f"/apis/gslb.ax.io/v1alpha1/namespaces/{NS}/probereports")[1]["items"] == []
    _, reports = world.member.get(f"/apis/gslb.ax.io/v1alpha1/namespaces/{NS}/probereports")
    assert [r["spec"]["vantage"] for r in reports["items"]] == ["member-b-probe"]
    assert "status" not in reports["items"][0]
    world.quickstart.demo.stop_node("gz-01")
    try:
        for name, ax in world.dns.items():
            wait_for(f"{name} stops answering gz-01",
                     lambda ax=ax: (a := answer(ax)) and GZ_01 not in a, 40)
    finally:
        world.quickstart.demo.start_node("gz-01")
    for name, ax in world.dns.items():
        wait_for(f"{name} answers gz-01 again", lambda ax=ax: GZ_01 in answer(ax), 60)


def test_a_cut_off_member_keeps_serving_then_catches_up(world):
    op, member_dns = world.operator, world.dns["member"]
    before = wait_for("in step", lambda: in_step(world), 30)
    world.link.disable()
    try:
        wait_for("member-b unreachable", lambda: op.metric(
            "ax_operator_member_up", member="member-b") == 0, 15)
        merge_patch(world.control, gslb_path("nodes", "gz-01"),
                    {"spec": {"adminState": "Disabled"}})
        wait_for("the control plane moves on", lambda: table_version(world.control)
                 > before, 15)
        wait_for("control stops answering gz-01",
                 lambda: GZ_01 not in answer(world.dns["control"]), 15)
        # The member: same version, still gz-01, its confirmation ageing.
        time.sleep(3)
        assert table_version(world.member) == before
        assert member_dns.metric("ax_dns_snapshot_version") == before
        assert GZ_01 in answer(member_dns)
        assert member_dns.metric("ax_dns_snapshot_confirmed_age_seconds") >= 3
    finally:
        world.link.enable()
    after = wait_for("the member catches up", lambda: synced(world), 60)
    assert after > before
    wait_for("member stops answering gz-01", lambda: GZ_01 not in answer(member_dns), 15)
    assert member_dns.metric("ax_dns_snapshot_confirmed_age_seconds") < 5
    merge_patch(world.control, gslb_path("nodes", "gz-01"),
                {"spec": {"adminState": "Active"}})
    wait_for("gz-01 back in both", lambda: all(
        GZ_01 in answer(ax) for ax in world.dns.values()), 30)


def blocked_logs(op: AxOperator, member: str) -> list[dict]:
    return [line for line in op.log_lines()
            if line.get("msg") == "member cluster blocked" and line.get("member") == member]


def events_about(cluster: KubeControlPlane, name: str) -> list[dict]:
    _, events = cluster.get(f"/api/v1/namespaces/{NS}/events")
    return [e for e in events["items"] if e["involvedObject"]["name"] == name]


def test_refused_credentials_are_reported_once_then_rotated(world):
    op, control, member = world.operator, world.control, world.member
    member.kubectl("create", "namespace", OTHER_NS)
    member.kubectl("apply", "-f", "-", input=OTHER_NS_RBAC)
    nobody = member.token("ax-nobody", NS, "2h")
    control.apply(secret_path("member-c"), member_secret(
        "member-c", inline_kubeconfig(member, nobody, member.server), OTHER_NS))
    control.apply(secret_path("member-x"), member_secret("member-x", "not: [a kubeconfig"))
    for name in ("member-c", "member-x"):
        wait_for(f"{name} blocked", lambda name=name: op.metric(
            "ax_operator_member_blocked", member=name) == 1, 15)
    time.sleep(3)  # several sync periods: no retry
    assert op.metric("ax_operator_member_sync_failures_total", member="member-c") == 1
    assert len(blocked_logs(op, "member-c")) == 1
    assert len(blocked_logs(op, "member-x")) == 1
    assert "forbidden" in blocked_logs(op, "member-c")[0]["error"]
    reasons = {e["reason"] for e in events_about(control, "member-c")}
    assert reasons == {"MemberForbidden"}, reasons
    assert {e["reason"] for e in events_about(control, "member-x")} == {
        "MemberConfigInvalid"}
    assert table_version(member, OTHER_NS) == 0
    # Rotated to the publisher's token: a new link, no restart.
    publisher = member.token("ax-member-publisher", NS, "2h")
    control.apply(secret_path("member-c"), member_secret(
        "member-c", inline_kubeconfig(member, publisher, member.server), OTHER_NS))
    wait_for("member-c up", lambda: op.metric("ax_operator_member_up",
                                              member="member-c") == 1, 15)
    assert op.metric("ax_operator_member_blocked", member="member-c") == 0
    wait_for("member-c holds the table", lambda: table_version(member, OTHER_NS)
             == table_version(control), 15)
    control.kubectl("delete", "secret", "member-x", "-n", NS)
    wait_for("member-x gone from the metrics", lambda: op.metric(
        "ax_operator_member_blocked", member="member-x") is None, 15)
