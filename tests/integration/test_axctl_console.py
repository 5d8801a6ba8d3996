"""axctl as the operator's console against a real kube-apiserver (kubecp.py), and as
the kubectl plugin `kubectl ax` found through kubectl's plugin lookup (issue 18):

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
- `kubectl ax --help`, `kubectl ax drain` and `kubectl ax explain` run axctl through a
  `kubectl-ax` on PATH, and its usage speaks of `kubectl ax`.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from axharness import (QUICKSTART, REPO, AxDns, addresses, ask, built_binary,
                       copy_manifests, make_query, running)
from waiting import wait_for
from kubecp import kube_bin_dir
from operatorharness import NS, RBAC_DIR, AxOperator, token_kubeconfig

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
def cluster(kube):
    kube.apply_crds(CRDS_DIR)
    kube.kubectl("create", "namespace", NS)
    kube.kubectl("apply", "-f", str(RBAC_DIR))
    kube.kubectl("apply", "-n", NS, "-f", "-",
                 input=json.dumps({"apiVersion": "v1", "kind": "List", "items": WORLD}))
    return kube


def axctl(cluster, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(axctl_path()), *args, "--kubeconfig",
                           str(cluster.kubeconfig), "-n", NS],
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


def test_drain_wait_returns_once_drained(cluster, tmp_path):
    kubeconfig = token_kubeconfig(cluster, "ax-operator", tmp_path / "op.kubeconfig")
    op = AxOperator(kubeconfig, tmp_path, "op-console",
                    "--owner=ServiceAccount/ax-operator").start()
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
        op.stop()
        axctl(cluster, "undrain", "a")


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
