"""The chart's ProbeReport admission policy on a real kube-apiserver (issue 14): one
agent cannot speak for another vantage, nor move itself into another network group.

The chart is rendered with two remote vantages (helm template), its CRDs, the policy,
its parameters and the agents' accounts applied to the local control plane. With a
TokenRequest token of each account:
- agent A writes its own report, placed as declared: allowed; the real ax-probe binary
  does the same from outside the cluster with a kubeconfig (--nodes-api --report-api);
- agent A writing vantage B's report, or its own under another name, area, isp or with
  an extra label: denied by the apiserver, with the policy's message (creates, which
  RBAC cannot limit by name; a patch of another report RBAC denies already);
- the sidecar account with a token bound to its pod writes that pod's report only; an
  unbound token of the same account is denied.
"""

from __future__ import annotations

import json
import time

import pytest
import yaml

from chart import NAMESPACE, REPO, by_kind_name, documents, template
from operatorharness import token_kubeconfig
from probeharness import AxProbe
from waiting import wait_for

VANTAGES = [{"name": "gz-unicom-1", "area": "cn-south", "isp": "unicom",
             "labels": {"site": "gz-idc"}},
            {"name": "bj-telecom-1", "area": "cn-north", "isp": "telecom"}]
NODE = {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
        "metadata": {"name": "gz-01", "namespace": NAMESPACE},
        "spec": {"addresses": ["127.0.0.1"], "area": "cn-south", "isp": "telecom",
                 "healthCheck": {"protocol": "TCP", "port": 1, "interval": "1s",
                                 "timeout": "500ms"}}}


@pytest.fixture(scope="module")
def cluster(kube, tmp_path_factory):
    kube.apply_crds(REPO / "crds")
    kube.kubectl("create", "namespace", NAMESPACE)
    values = tmp_path_factory.mktemp("values") / "vantages.yaml"
    values.write_text(yaml.safe_dump({"remoteVantages": VANTAGES}))
    rendered = template("-f", str(values), "--show-only", "templates/admission.yaml",
                        "--show-only", "templates/rbac-dns.yaml").stdout
    kube.kubectl("apply", "-f", "-", input=rendered)
    kube.kubectl("apply", "-f", "-", input=json.dumps(NODE))
    return rendered


def report(vantage: str, name: str | None = None, **spec) -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "ProbeReport",
            "metadata": {"name": name or vantage, "namespace": NAMESPACE},
            "spec": {"vantage": vantage, "observedAt": "2026-12-01T00:00:00.000Z",
                     "results": [], **spec}}


def apply_as(kube, token: str, obj: dict):
    """Server-side apply, as ax-probe writes (RBAC: patch of the agent's own report)."""
    return kube.kubectl("apply", "--server-side", "--field-manager=ax-probe", "-f", "-",
                        token=token, input=json.dumps(obj), check=False)


def create_as(kube, token: str, obj: dict):
    """A create, which RBAC cannot limit by name: only the policy stands in the way."""
    return kube.kubectl("create", "-f", "-", token=token, input=json.dumps(obj),
                        check=False)


def write_as(kube, token: str, obj: dict, own_name: str):
    return (apply_as if obj["metadata"]["name"] == own_name else create_as)(kube, token, obj)


def wait_policy_active(kube, token: str) -> None:
    """The policy takes effect shortly after it is created (the apiserver compiles it):
    until a forged create is denied by it."""
    def denied():
        r = create_as(kube, token, report("forged-" + str(time.monotonic_ns())))
        return r.returncode != 0 and "ValidatingAdmissionPolicy" in r.stderr
    wait_for("the admission policy in force", denied, 30, 0.3)


@pytest.fixture(scope="module")
def agent_a(kube, cluster):
    token = kube.token("ax-vantage-gz-unicom-1", NAMESPACE, "1h")
    wait_policy_active(kube, token)
    return token


def test_the_chart_declares_each_remote_vantage(cluster):
    docs = by_kind_name(documents(cluster))
    params = docs[("ConfigMap", "ax-vantages")]["data"]
    assert params["vantage.gz-unicom-1.area"] == "cn-south"
    assert params["vantage.gz-unicom-1.labels"] == "site=gz-idc"
    assert params["vantage.bj-telecom-1.isp"] == "telecom"
    role = docs[("Role", "ax-vantage-gz-unicom-1")]
    assert {"resources": ["probereports"], "resourceNames": ["gz-unicom-1"],
            "apiGroups": ["gslb.ax.io"], "verbs": ["get", "patch"]} in role["rules"]
    assert docs[("ServiceAccount", "ax-vantage-bj-telecom-1")]


def test_an_agent_writes_its_own_report(kube, agent_a):
    own = report("gz-unicom-1", area="cn-south", isp="unicom", labels={"site": "gz-idc"})
    r = apply_as(kube, agent_a, own)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("case,obj,message", [
    ("another vantage's report",
     report("bj-telecom-1", area="cn-north", isp="telecom"),
     "this account writes only the ProbeReport of vantage gz-unicom-1"),
    ("its vantage under another name",
     report("gz-unicom-1", name="gz-unicom-2", area="cn-south", isp="unicom",
            labels={"site": "gz-idc"}),
     "this account writes only the ProbeReport of vantage gz-unicom-1"),
    ("another isp", report("gz-unicom-1", area="cn-south", isp="telecom",
                           labels={"site": "gz-idc"}),
     'vantage gz-unicom-1 is placed in area "cn-south", isp "unicom"'),
    ("no place", report("gz-unicom-1", labels={"site": "gz-idc"}),
     'vantage gz-unicom-1 is placed in area "cn-south", isp "unicom"'),
    ("an extra label", report("gz-unicom-1", area="cn-south", isp="unicom",
                              labels={"site": "gz-idc", "tier": "edge"}),
     "vantage gz-unicom-1 carries exactly the labels [site=gz-idc]"),
])
def test_an_agent_cannot_speak_for_another_vantage(kube, agent_a, case, obj, message):
    r = write_as(kube, agent_a, obj, "gz-unicom-1")
    assert r.returncode != 0, case
    assert message in r.stderr, (case, r.stderr)


def test_the_sidecar_writes_only_its_pods_report(kube, cluster, tmp_path):
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "ax-dns-abc12", "namespace": NAMESPACE},
           "spec": {"serviceAccountName": "ax-dns",
                    "containers": [{"name": "ax-dns", "image": "ax-dns:never-runs"}]}}
    uid = json.loads(kube.kubectl("apply", "-f", "-", "-o", "json",
                                  input=json.dumps(pod)).stdout)["metadata"]["uid"]
    bound = kube.token("ax-dns", NAMESPACE, "1h", ("ax-dns-abc12", uid))
    wait_policy_active(kube, bound)
    r = apply_as(kube, bound, report("ax-dns-abc12"))
    assert r.returncode == 0, r.stderr
    r = create_as(kube, bound, report("ax-dns-other"))
    assert r.returncode != 0
    assert "this account writes only the ProbeReport of vantage ax-dns-abc12" in r.stderr
    unbound = kube.token("ax-dns", NAMESPACE, "1h")
    r = apply_as(kube, unbound, report("ax-dns-abc12"))
    assert r.returncode != 0
    assert "only with a token bound to its pod" in r.stderr, r.stderr


def test_ax_probe_runs_outside_the_cluster_on_its_kubeconfig(kube, agent_a, tmp_path):
    """The real agent: Nodes read through the API, its report written there, placed
    by its flags (and so admitted)."""
    config = token_kubeconfig(kube, "ax-vantage-bj-telecom-1", tmp_path / "agent.kubeconfig")
    probe = AxProbe(None, tmp_path, vantage="bj-telecom-1", extra=[
        "--nodes-api", "--report-api", "--report=", "--kubeconfig", str(config),
        "--namespace", NAMESPACE, "--vantage-area", "cn-north", "--vantage-isp",
        "telecom", "--heartbeat", "1s"])
    try:
        def written():
            r = kube.kubectl("get", "axpr", "bj-telecom-1", "-n", NAMESPACE, "-o", "json",
                             check=False)
            return json.loads(r.stdout) if r.returncode == 0 else None
        obj = wait_for("the agent's ProbeReport", written, 30, 0.3)
        assert obj["spec"]["area"] == "cn-north" and obj["spec"]["isp"] == "telecom"
        assert [n["node"] for n in obj["spec"]["results"]] == ["gz-01"]
        assert "denied" not in probe.log()
    finally:
        assert probe.stop() == 0, probe.log()[-4000:]
