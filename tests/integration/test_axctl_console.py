"""axctl as the operator's console against a real kube-apiserver (kubecp.py), and as
the kubectl plugin `kubectl ax` found through kubectl's plugin lookup (issue 18). The
verbs run with the token of a ServiceAccount bound only to the chart's console Role
(deploy/rbac/ax-console.yaml), which must be enough for each and no more:

- `drain NODE --for D --reason R` sets the Node's adminState, adminStateExpiresAt
  (now + D, to the second) and adminStateReason; `undrain` sets Active and removes
  both; text, `-o json` and `-o yaml` output; a missing node, a bad --for and
  drain-only flags on undrain are refused with the reason.
- `drain --wait` returns once ax-operator (running as its own ServiceAccount) says
  Drained: the published table no longer names the node and its TTL has passed; the
  Node's Ready condition says until when and why.
- `pin`/`exclude`/`weight` write a Rule that expires (--for required), named from what
  it does, applied as axctl so running it again moves the same Rule's expiry; with
  --manifests DIR the Rule is a file there, and ax-dns --standalone on that folder then
  answers the pinned node to the clients it matches.
- `canary pause|resume|promote|abort NAME --wait` against ax-operator: each request
  is an annotation the operator obeys, and --wait returns once the Canary's status
  shows it (Paused with pausedAt; Progressing again; the next step's share, then the
  last; Failed with reason Aborted and the share back to 0 in the served table); each
  is an Event and the phase a metric; a promotion of a finished rollout, an unknown
  request and a missing Canary are refused with the reason.
- `status` shows the paused Canary with the time its step has left, and the vantage
  and node health the operator works from.
- `rollback --list` shows the kept versions with the served one marked; `rollback
  --wait` (no --to: the newest kept content unlike the served) returns once the
  operator serves that content under a new version, and holds it while the world
  changes; `rollback --resume` publishes the world again; a version that is not kept
  is refused.
- `kubectl ax --help`, `kubectl ax drain` and `kubectl ax explain` run axctl through a
  `kubectl-ax` on PATH, and its usage speaks of `kubectl ax`.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from axharness import (QUICKSTART, REPO, AxDns, addresses, ask, built_binary,
                       copy_manifests, make_query, running)
from waiting import wait_for
from kubecp import kube_bin_dir
from operatorharness import (NS, RBAC_DIR, AxOperator, probe_report, route_table,
                              token_kubeconfig)

CRDS_DIR = REPO / "crds"
TTL_S = 3
WORLD = [
    {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain", "metadata": {"name": "www"},
     "spec": {"fqdn": "www.example.test", "zone": "example.test",
              "strategy": "RegionPriority", "maxAnswers": 2,
              "ttl": {"steady": TTL_S, "failover": TTL_S, "canary": TTL_S}}},
    {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Region", "metadata": {"name": "all"},
     "spec": {"isp": "any", "match": {"default": True}, "nodes": ["a", "b"]}},
    {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": "a"},
     "spec": {"addresses": ["192.0.2.1"], "isp": "any"}},
    {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": "b"},
     "spec": {"addresses": ["192.0.2.2"], "isp": "any"}},
]


def axctl_path() -> Path:
    return built_binary("AX_AXCTL_BIN", "dns-server/axctl")


@pytest.fixture(scope="module")
def cluster(kube, tmp_path_factory):
    kube.apply_crds(CRDS_DIR)
    kube.kubectl("create", "namespace", NS)
    kube.kubectl("apply", "-f", str(RBAC_DIR))
    kube.kubectl("apply", "-n", NS, "-f", "-",
                 input=json.dumps({"apiVersion": "v1", "kind": "List", "items": WORLD}))
    # The verbs run as someone bound to the chart's console Role and nothing else.
    kube.kubectl("create", "serviceaccount", "sre-oncall", "-n", NS)
    kube.kubectl("create", "rolebinding", "ax-console", "-n", NS, "--role", "ax-console",
                 f"--serviceaccount={NS}:sre-oncall")
    kube.console_kubeconfig = token_kubeconfig(
        kube, "sre-oncall", tmp_path_factory.mktemp("console") / "sre.kubeconfig")
    return kube


@pytest.fixture(scope="module")
def operator(cluster, tmp_path_factory):
    """ax-operator as its own ServiceAccount, for the tests that need its plans."""
    workdir = tmp_path_factory.mktemp("operator")
    kubeconfig = token_kubeconfig(cluster, "ax-operator", workdir / "op.kubeconfig")
    op = AxOperator(kubeconfig, workdir, "op-console",
                    "--owner=ServiceAccount/ax-operator").start()
    yield op
    op.stop()


def axctl(cluster, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(axctl_path()), *args, "--kubeconfig",
                           str(cluster.console_kubeconfig), "-n", NS],
                          capture_output=True, text=True, timeout=180, check=False)


def node_spec(cluster, name: str) -> dict:
    return json.loads(cluster.kubectl("get", "axnode", name, "-n", NS, "-o",
                                      "json").stdout)["spec"]


def condition(node: dict, kind: str) -> dict:
    return next(c for c in node["status"]["conditions"] if c["type"] == kind)


def test_drain_for_a_while_with_a_reason(cluster):
    before = datetime.datetime.now(datetime.timezone.utc)
    r = axctl(cluster, "drain", "a", "--for", "2h", "--reason", "INC-1234 disk swap")
    assert r.returncode == 0, r.stderr
    spec = node_spec(cluster, "a")
    assert spec["adminState"] == "Drain"
    assert spec["adminStateReason"] == "INC-1234 disk swap"
    until = datetime.datetime.fromisoformat(spec["adminStateExpiresAt"].replace("Z", "+00:00"))
    after = datetime.datetime.now(datetime.timezone.utc)
    two_hours = datetime.timedelta(hours=2)
    assert before + two_hours - datetime.timedelta(seconds=1) <= until
    assert until <= after + two_hours + datetime.timedelta(seconds=1)
    assert r.stdout == (f"node/a: adminState Drain until {spec['adminStateExpiresAt']} "
                        "(INC-1234 disk swap)\n")

    r = axctl(cluster, "undrain", "a", "-o", "json")
    assert r.returncode == 0, r.stderr
    printed = json.loads(r.stdout)
    assert printed["metadata"]["name"] == "a"
    assert printed["spec"]["adminState"] == "Active"
    spec = node_spec(cluster, "a")
    assert spec["adminState"] == "Active"
    assert "adminStateExpiresAt" not in spec and "adminStateReason" not in spec


def test_yaml_output_is_the_object(cluster):
    r = axctl(cluster, "drain", "b", "--output=yaml")
    assert r.returncode == 0, r.stderr
    printed = yaml.safe_load(r.stdout)
    assert printed["kind"] == "Node" and printed["spec"]["adminState"] == "Drain"
    assert "adminStateExpiresAt" not in printed["spec"]  # no --for: until undrained
    assert axctl(cluster, "undrain", "b").stdout == "node/b: adminState Active\n"


@pytest.mark.parametrize("args, code, said", [
    (["drain", "nosuch"], 1, f"drain: node nosuch in namespace {NS}: "),
    (["drain", "a", "--for", "10x"], 2, "drain: --for: bad duration \"10x\""),
    (["drain", "a", "--for", "0s"], 2, "drain: --for: at least 1s"),
    (["undrain", "a", "--reason", "x"], 2, "undrain: --for, --reason and --wait are drain's"),
    (["drain", "a", "-o", "table"], 2, "drain: -o/--output is json, yaml or text, not \"table\""),
    (["drain"], 2, "usage:"),
])
def test_refused_with_the_reason(cluster, args, code, said):
    r = axctl(cluster, *args)
    assert r.returncode == code, r.stderr
    assert said in r.stderr
    assert node_spec(cluster, "a")["adminState"] == "Active"  # nothing written


def test_drain_wait_returns_once_drained(cluster, operator):
    try:
        r = axctl(cluster, "drain", "a", "--for", "1h", "--reason", "kernel update",
                  "--wait", "--timeout", "60s")
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.endswith("node/a: drained\n")
        node = json.loads(cluster.kubectl("get", "axnode", "a", "-n", NS, "-o",
                                          "json").stdout)
        drained = condition(node, "Drained")
        assert drained["status"] == "True", drained
        left = datetime.datetime.fromisoformat(
            node["status"]["leftAnswersAt"].replace("Z", "+00:00"))
        done = datetime.datetime.fromisoformat(
            drained["lastTransitionTime"].replace("Z", "+00:00"))
        # lastTransitionTime is to the second (truncated), leftAnswersAt to the ms.
        assert done >= (left + datetime.timedelta(seconds=TTL_S)).replace(microsecond=0)
        ready = condition(node, "Ready")
        assert ready["reason"] == "Draining"
        assert ready["message"] == (f"adminState Drain until "
                                    f"{node['spec']['adminStateExpiresAt']} "
                                    "(kernel update): left out of answers")
    finally:
        axctl(cluster, "undrain", "a")


CANARY = {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Canary",
          "metadata": {"name": "new-b"},
          "spec": {"domain": "www", "node": "b",
                   "steps": [{"percent": 10, "pause": "1h"}, {"percent": 50, "pause": "1h"},
                             {"percent": 100}]}}


def canary_object(cluster) -> dict:
    return json.loads(cluster.kubectl("get", "axcanary", "new-b", "-n", NS, "-o",
                                      "json").stdout)


def served_canary_percent(cluster) -> float:
    """new-b's share in the served table (0 when it is not there)."""
    canaries = route_table(cluster)[1].get("canaries", [])
    return next((c["percent"] for c in canaries if c["name"] == "new-b"), 0)


def table_at_rest(cluster) -> tuple[int, dict] | None:
    """The served table once no Canary holds a node and no ProbeReport gives a node its
    latency (the world as WORLD declares it), else None."""
    table = route_table(cluster)
    if table and not table[1].get("canaries") and all(
            n["latencyMs"] == -1 for n in table[1]["nodes"]):
        return table
    return None


def test_canary_requests(cluster, operator):
    nodes = {"a", "b"}
    cluster.kubectl("apply", "-f", "-",
                    input=json.dumps(probe_report("console-vantage", nodes, nodes)))
    cluster.kubectl("apply", "-n", NS, "-f", "-", input=json.dumps(CANARY))
    try:
        wait_for("the canary's first step", lambda: canary_object(cluster).get(
            "status", {}).get("phase") == "Progressing", 30)
        r = axctl(cluster, "canary", "pause", "new-b", "--wait", "--timeout", "30s")
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.startswith("canary/new-b: pause asked (annotation "
                                   "gslb.ax.io/canary-paused=true)\n"), r.stdout
        assert ("canary/new-b: Paused: step 1/3: 10% of clients on Node b, paused by the "
                "annotation gslb.ax.io/canary-paused with ") in r.stdout
        status = canary_object(cluster)["status"]
        assert status["phase"] == "Paused" and "pausedAt" in status
        assert served_canary_percent(cluster) == 10
        r = axctl(cluster, "status")
        assert r.returncode == 0, r.stderr
        row = next(line.split() for line in r.stdout.splitlines()
                   if line.startswith("new-b "))
        assert row[:6] == ["new-b", "www", "b", "Paused", "1/3", "10"], r.stdout
        assert " ".join(row[6:]).startswith("held, "), r.stdout
        # ... and why, in the plan's words under the table.
        assert "\nnew-b: step 1/3: 10% of clients on Node b, paused by the annotation" in (
            r.stdout), r.stdout
        model = json.loads(axctl(cluster, "status", "-o", "json").stdout)
        assert [r["vantage"] for r in model["replicas"]] == ["console-vantage"]
        assert {n["name"]: n["health"] for n in model["nodes"]} == {"a": "Up", "b": "Up"}

        r = axctl(cluster, "canary", "resume", "new-b", "--wait", "--timeout", "30s")
        assert r.returncode == 0, r.stdout + r.stderr
        assert "(annotation gslb.ax.io/canary-paused removed)" in r.stdout
        status = canary_object(cluster)["status"]
        assert status["phase"] == "Progressing" and "pausedAt" not in status

        r = axctl(cluster, "canary", "promote", "new-b", "--wait", "--timeout", "30s",
                  "-o", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        printed = json.loads(r.stdout)
        generation = printed["metadata"]["generation"]
        assert printed["metadata"]["annotations"]["gslb.ax.io/canary-promote"] == (
            f"{generation}/2")
        assert (printed["status"]["step"], printed["status"]["percent"]) == (1, 50)
        assert served_canary_percent(cluster) == 50

        r = axctl(cluster, "canary", "promote", "new-b", "--full", "--wait")
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.endswith("canary/new-b: Succeeded: last step reached: 100% of "
                                 "clients on Node b, held until the Canary is deleted\n"
                                 ), r.stdout
        r = axctl(cluster, "canary", "promote", "new-b")
        assert r.returncode == 1
        assert "canary promote: the rollout is Succeeded: there is no step" in r.stderr

        r = axctl(cluster, "canary", "abort", "new-b", "--wait", "--timeout", "30s")
        assert r.returncode == 0, r.stdout + r.stderr
        canary = canary_object(cluster)
        assert canary["metadata"]["annotations"]["gslb.ax.io/canary-abort"] == str(generation)
        assert canary["status"]["phase"] == "Failed"
        assert condition(canary, "Ready")["reason"] == "Aborted"
        assert served_canary_percent(cluster) == 0

        events = json.loads(cluster.kubectl(
            "get", "events", "-n", NS, "--field-selector",
            "involvedObject.kind=Canary,involvedObject.name=new-b", "-o", "json").stdout)
        reasons = {e["reason"] for e in events["items"]}
        assert {"CanaryStep", "CanaryPaused", "CanaryResumed", "CanaryPromoted",
                "CanaryAborted"} <= reasons, reasons
        wait_for("the phase metric", lambda: operator.metric(
            "ax_operator_canary_phase", canary="new-b", phase="Failed") == 1, 10)
        assert operator.metric("ax_operator_canary_percent", canary="new-b") == 0
    finally:
        cluster.kubectl("delete", "axcanary", "new-b", "-n", NS)
        cluster.kubectl("delete", "probereport", "console-vantage", "-n", NS)
        # The next tests count versions from here: both deletions must be published
        # first (each is a version of its own, and under load they land seconds apart).
        wait_for("the table at rest", lambda: table_at_rest(cluster), 30)


@pytest.mark.parametrize("args, code, said", [
    (["canary", "stop", "new-b"], 2, "usage:"),
    (["canary", "pause", "new-b", "--full"], 2, "usage:"),
    (["canary", "pause", "nosuch"], 1, f"canary pause: canary nosuch in namespace {NS}: "),
])
def test_canary_refusals(cluster, args, code, said):
    r = axctl(cluster, *args)
    assert r.returncode == code, r.stderr
    assert said in r.stderr


def kept_versions(cluster) -> list[dict]:
    r = axctl(cluster, "rollback", "--list", "-o", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_rollback_and_resume(cluster, operator):
    def served() -> tuple[int, str]:
        version, doc = route_table(cluster)
        return version, doc["contentHash"]

    wait_for("the table at rest", lambda: table_at_rest(cluster), 30)
    cluster.kubectl("patch", "axdom", "www", "-n", NS, "--type", "merge", "-p",
                    json.dumps({"spec": {"maxAnswers": 1}}))
    changed = wait_for("the change published",
                       lambda: (t := route_table(cluster))[1]["domains"][0]["maxAnswers"] == 1
                       and (t[0], t[1]["contentHash"]), 30)
    kept = kept_versions(cluster)
    assert [k["serving"] for k in kept][-1] is True
    r = axctl(cluster, "rollback", "--list")
    assert r.stdout.splitlines()[0].split() == ["VERSION", "CREATED", "CONTENT-HASH"]
    assert r.stdout.splitlines()[1].endswith(f"{changed[1]}  (served)"), r.stdout

    target = next(k for k in reversed(kept) if k["contentHash"] != changed[1])
    try:
        r = axctl(cluster, "rollback", "--wait", "--timeout", "30s")
        assert r.returncode == 0, r.stdout + r.stderr
        version, content = served()
        assert content == target["contentHash"] and version > changed[0]
        assert r.stdout.endswith(f"configmap/ax-route-table: the content of version "
                                 f"{target['version']} is served as version {version}\n")
        # Held while the world changes (to a content no version had).
        cluster.kubectl("patch", "axdom", "www", "-n", NS, "--type", "merge", "-p",
                        json.dumps({"spec": {"maxAnswers": 2, "ttl": {"steady": 4}}}))
        time.sleep(2)
        assert served() == (version, content)
    finally:
        r = axctl(cluster, "rollback", "--resume")
    assert r.returncode == 0, r.stderr
    assert "annotation gslb.ax.io/rollback-to removed" in r.stdout
    resumed = wait_for("publishing again",
                       lambda: served()[0] > version and served(), 30)
    assert resumed[1] not in {content, changed[1]}

    r = axctl(cluster, "rollback", "--to", "9999")
    assert r.returncode == 1
    assert ("rollback: version 9999 is not kept (ConfigMap ax-route-table-v9999 not "
            "found)") in r.stderr


def test_diff_and_simulate(cluster, operator, tmp_path):
    # A Canary deleted by an earlier test (even at 0% it holds its node out of the
    # answers) must be gone from the table this diff starts from.
    before = wait_for("the table at rest", lambda: table_at_rest(cluster), 30)[0]
    cluster.kubectl("patch", "axdom", "www", "-n", NS, "--type", "merge", "-p",
                    json.dumps({"spec": {"maxAnswers": 1}}))
    try:
        wait_for("the change published", lambda: route_table(cluster)[0] > before, 30)
        r = axctl(cluster, "diff", "--from", f"v{before}", "--to", "served", "-o", "json")
        assert r.returncode == 0, r.stderr
        (region,) = json.loads(r.stdout)["regions"]
        # Every client loses its second address; which node leads stays.
        assert (region["region"], region["changed"], region["answersChanged"]) == (
            "all", True, 1.0)
        assert all(v["before"] == v["after"] for v in region["nodes"].values()), region
        r = axctl(cluster, "diff")  # served -> next: the operator is up to date
        assert r.returncode == 0, r.stderr
        assert r.stdout.splitlines()[-1].startswith("0 of 1 (domain, region) pairs changed")
    finally:
        cluster.kubectl("patch", "axdom", "www", "-n", NS, "--type", "merge", "-p",
                        json.dumps({"spec": {"maxAnswers": 2}}))

    disabled = tmp_path / "a-disabled.yaml"
    node_a = next(o for o in WORLD if o["metadata"]["name"] == "a")
    disabled.write_text(yaml.safe_dump(
        {**node_a, "spec": {**node_a["spec"], "adminState": "Disabled"}}))
    r = axctl(cluster, "simulate", "--with", str(disabled))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("simulate: served (v"), r.stdout
    assert r.stdout.splitlines()[0].endswith(f"what if: {disabled} applied"), r.stdout
    r = axctl(cluster, "simulate", "--with", str(disabled), "-o", "json")
    (region,) = json.loads(r.stdout)["regions"]
    assert region["nodes"]["b"]["after"] == 1.0 and region["nodes"]["a"]["after"] == 0.0
    r = axctl(cluster, "simulate", "--down", "a")
    assert r.returncode == 1
    assert "simulate: Node a has no healthCheck: its health follows adminState" in r.stderr
    r = axctl(cluster, "simulate", "--load", "a")
    assert r.returncode == 2 and "want NODE=PERCENT" in r.stderr


def test_simulate_and_diff_standalone():
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(axctl_path()), *args, "--manifests", str(QUICKSTART)],
                              capture_output=True, text=True, timeout=60, check=False)

    r = run("simulate", "--down", "gz-01", "-o", "json")
    assert r.returncode == 0, r.stderr
    model = json.loads(r.stdout)
    www = next(x for x in model["regions"]
               if (x["domain"], x["region"]) == ("www", "cn-south-telecom"))
    assert www["nodes"]["gz-01"] == {"before": 1.0, "after": 0.0}
    assert www["nodes"]["bj-01"] == {"before": 0.0, "after": 1.0}
    assert www["steps"]["FallbackRegion cn-north-unicom"]["after"] == 1.0
    assert not next(x for x in model["regions"]
                    if (x["domain"], x["region"]) == ("www", "us-west"))["changed"]
    r = run("diff")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "diff: served (v1) -> next (v2)",
        "0 of 8 (domain, region) pairs changed; 2000 sampled clients each (shares within "
        "+-2.2 points, 95%)"]
    r = run("diff", "--from", "v3")
    assert r.returncode == 1
    assert "kept versions live in a cluster (not with --manifests)" in r.stderr


def test_the_console_role_is_enough_and_no_more(cluster):
    token = json.loads(cluster.console_kubeconfig.read_text())["users"][0]["user"]["token"]

    def can(*args: str) -> str:
        return cluster.kubectl("auth", "can-i", *args, "-n", NS, token=token,
                               check=False).stdout.strip()

    for denied in (("update", "nodes.gslb.ax.io", "--subresource=status"),
                   ("delete", "nodes.gslb.ax.io"), ("get", "secrets"),
                   ("patch", "configmaps/ax-dns-config"), ("create", "configmaps"),
                   ("patch", "canaries.gslb.ax.io", "--subresource=status")):
        assert can(*denied) == "no", denied


def test_kubectl_plugin(cluster, tmp_path):
    plugin_dir = tmp_path / "bin"
    plugin_dir.mkdir()
    (plugin_dir / "kubectl-ax").symlink_to(axctl_path())
    env = {**os.environ, "KUBECONFIG": str(cluster.kubeconfig),
           "PATH": f"{plugin_dir}:{kube_bin_dir()}:{os.environ['PATH']}"}

    def kubectl_ax(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["kubectl", "ax", *args], env=env, capture_output=True,
                              text=True, timeout=120, check=False)

    listed = subprocess.run(["kubectl", "plugin", "list"], env=env, capture_output=True,
                            text=True, timeout=60, check=False)
    assert str(plugin_dir / "kubectl-ax") in listed.stdout, listed.stdout + listed.stderr

    r = kubectl_ax("--help")
    assert r.returncode == 0 and "  kubectl ax drain NODE" in r.stdout, r.stdout
    assert "axctl" not in r.stdout
    r = kubectl_ax("drain", "--help")
    assert r.returncode == 0, r.stderr
    assert "example:\n  kubectl ax drain gz-01 --for 2h --reason INC-1234\n" in r.stdout

    r = kubectl_ax("drain", "b", "-n", NS, "--reason", "via kubectl")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "node/b: adminState Drain (via kubectl)\n"
    assert node_spec(cluster, "b")["adminStateReason"] == "via kubectl"
    assert kubectl_ax("undrain", "b", "-n", NS).returncode == 0

    r = kubectl_ax("explain", "www.example.test", "--client", "113.108.1.1",
                   "--manifests", str(QUICKSTART), "--country", "CN",
                   "--subdivision", "CN-GD", "--asn", "4134")
    assert r.returncode == 0, r.stderr
    assert "gz-01" in r.stdout


def rfc3339_in(seconds: float) -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)


def parse_time(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_pin_writes_an_expiring_rule(cluster):
    r = axctl(cluster, "pin", "b", "--domain", "www", "--isp", "telecom", "--for", "30m",
              "--reason", "INC-77 carrier path")
    assert r.returncode == 0, r.stderr
    name = "pin-b-www-telecom"
    rule = json.loads(cluster.kubectl("get", "axrule", name, "-n", NS, "-o",
                                      "json").stdout)
    spec = rule["spec"]
    assert {k: spec[k] for k in ("domain", "action", "node", "reason")} == {
        "domain": "www", "action": "Pin", "node": "b", "reason": "INC-77 carrier path"}
    assert spec["match"] == {"isp": "telecom"}
    first = parse_time(spec["expiresAt"])
    assert abs((first - rfc3339_in(1800)).total_seconds()) < 5
    assert rule["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "axctl"
    assert r.stdout == (f"rule/{name} applied\n  Pin b for Domain www, ISP telecom "
                        f"until {spec['expiresAt']}\n")

    # Again, longer: the same Rule, its expiry moved.
    r = axctl(cluster, "pin", "b", "--domain", "www", "--isp", "telecom", "--for", "2h",
              "-o", "json")
    assert r.returncode == 0, r.stderr
    again = json.loads(r.stdout)
    assert again["metadata"]["name"] == name
    assert parse_time(again["spec"]["expiresAt"]) - first >= datetime.timedelta(minutes=89)
    names = cluster.kubectl("get", "axrule", "-n", NS, "-o", "name").stdout.split()
    assert names == [f"rule.gslb.ax.io/{name}"]

    r = axctl(cluster, "weight", "a", "10", "--domain", "www", "--region", "all",
              "--for", "1h", "--name", "canary-weight")
    assert r.returncode == 0, r.stderr
    spec = json.loads(cluster.kubectl("get", "axrule", "canary-weight", "-n", NS, "-o",
                                      "json").stdout)["spec"]
    assert (spec["action"], spec["weight"], spec["match"]) == ("Weight", 10, {"region": "all"})
    cluster.kubectl("delete", "axrule", name, "canary-weight", "-n", NS)


@pytest.mark.parametrize("args, said", [
    (["pin", "b", "--domain", "www"], "pin: --for is required (a Rule here always expires)"),
    (["exclude", "b", "--domain", "www", "--for", "soon"], "exclude: --for: bad duration"),
    (["weight", "b", "0", "--domain", "www", "--for", "1h"], "weight: W: "),
    (["weight", "b", "--domain", "www", "--for", "1h"], "usage:"),
    (["pin", "b", "--for", "1h"], "usage:"),
])
def test_rule_refusals(cluster, args, said):
    r = axctl(cluster, *args)
    assert r.returncode == 2, r.stderr
    assert said in r.stderr
    assert cluster.kubectl("get", "axrule", "-n", NS, "-o", "name").stdout == ""


def test_pin_in_standalone_mode(tmp_path):
    manifests = copy_manifests(tmp_path / "manifests", QUICKSTART)
    guangdong_telecom = make_query("www.example.test", ecs="113.108.1.0/24")
    with running(lambda: AxDns(manifests, tmp_path / "run", listen_v6=False).start()) as ax:
        assert addresses(ask(guangdong_telecom, ax.port)) == {"192.0.2.10"}  # gz-01
        r = subprocess.run([str(axctl_path()), "pin", "bj-01", "--domain", "www",
                            "--region", "cn-south-telecom", "--for", "10m",
                            "--manifests", str(manifests)],
                           capture_output=True, text=True, timeout=60, check=False)
        assert r.returncode == 0, r.stderr
        written = manifests / "axctl-rule-pin-bj-01-www-cn-south-telecom.yaml"
        assert r.stdout.startswith(f"rule/pin-bj-01-www-cn-south-telecom written to {written}\n")
        rule = yaml.safe_load(written.read_text())
        assert rule["spec"]["action"] == "Pin" and rule["spec"]["node"] == "bj-01"
        wait_for("the pin answered", lambda: addresses(
            ask(guangdong_telecom, ax.port)) == {"198.51.100.20"}, 30)
        # Other regions' clients are left alone: Beijing unicom still gets bj-01,
        # Americans sj-01.
        us = make_query("www.example.test", ecs="8.8.8.0/24")
        assert "203.0.113.30" in addresses(ask(us, ax.port))
