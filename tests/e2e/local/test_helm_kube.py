"""The Helm chart on the real local control plane (kubecp.py: etcd + kube-apiserver, no
kubelet, so pods never run): `helm install` creates the CRDs and every object; each
values set's golden rendering passes `kubectl apply --dry-run=server` (the Prometheus
Operator kinds through minimal stand-in CRDs, monitoring-crds.yaml) with the apiserver's
Pod Security admission warning on the "restricted" profile. Then the three binaries run
as local processes with TokenRequest tokens of the service accounts THE CHART created,
so only the chart's RBAC authorises them: ax-operator with the chart's own Deployment
args, ax-dns with the chart's rendered config file (listen/HTTP addresses and geo files
overridden for loopback), ax-probe with the sidecar's flags (--nodes-api --report-api:
the Nodes it probes come from the API, nothing is mounted) as the ax-dns pod's account;
examples/quickstart applied with kubectl, its Nodes' checks pointed at local backends;
dig with ECS sees the geo answers and, after one node's health endpoint fails, the
failover. The accounts cannot do more than they need: a Secret create, a Node spec
write, reading Regions or Domains and another ConfigMap are denied. Last, the README's
kubectl walkthrough runs as written against the release."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

import pytest

from axharness import QUICKSTART, REPO, AxDns, running
from chart import CHART, GOLDEN, HERE, NAMESPACE, RELEASE, helm, values_sets
from operatorharness import AxOperator, route_table, token_kubeconfig
from probeharness import AxProbe, Backend
from waiting import wait_for

QUICKSTART_NODES = ["gz-01", "gz-02", "bj-01", "bj-02", "sj-01", "sj-02"]
# ECS subnet -> the quickstart's answer for www.example.test with every node Up (as in
# tests/integration/test_dig_kdig.py).
GEO_ANSWERS = {
    "113.108.1.0/24": {"192.0.2.10"},  # Guangdong telecom -> gz-01
    "123.125.114.0/24": {"198.51.100.20"},  # Beijing unicom -> bj-01
    "8.8.8.0/24": {"203.0.113.30", "203.0.113.31"},  # US -> sj-01, sj-02
}
# The ax-dns pod the harness stands in for: created as an object (it never runs), so
# that the sidecar's token is bound to it as a projected one is, and the chart's
# admission policy sees the pod's name (the vantage) in it. POD_UID is filled in then.
POD = {"POD_NAME": "ax-dns-5f7c9-local", "POD_UID": ""}


def helm_env(kube) -> dict:
    home = kube.workdir / "helm-home"
    return {"KUBECONFIG": str(kube.kubeconfig), "HELM_CACHE_HOME": str(home / "cache"),
            "HELM_CONFIG_HOME": str(home / "config"), "HELM_DATA_HOME": str(home / "data")}


@pytest.fixture(scope="module")
def installed(kube):
    """helm install of the chart's defaults as release ax in ax-system; the NOTES."""
    r = helm("install", RELEASE, str(CHART), "-n", NAMESPACE, "--create-namespace",
             env=helm_env(kube), timeout=300)
    return r.stdout


def test_helm_install_creates_the_crds_and_objects(kube, installed):
    crds = json.loads(kube.kubectl("get", "crd", "-o", "json").stdout)["items"]
    ours = {c["metadata"]["name"] for c in crds if c["spec"]["group"] == "gslb.ax.io"}
    assert ours == {f"{p}.gslb.ax.io" for p in
                    ("domains", "regions", "nodes", "rules", "canaries", "ispsets",
                     "geooverrides", "probereports", "measurementreports")}
    for c in crds:
        if c["spec"]["group"] == "gslb.ax.io":
            status = {x["type"]: x["status"] for x in c["status"]["conditions"]}
            assert status["Established"] == "True", c["metadata"]["name"]
    objects = kube.kubectl("get", "deploy,svc,sa,role,rolebinding,pdb,configmap", "-n",
                           NAMESPACE, "-o", "name").stdout.split()
    for name in ("deployment.apps/ax-operator", "deployment.apps/ax-dns", "service/ax-dns",
                 "service/ax-dns-metrics", "service/ax-operator-metrics",
                 "serviceaccount/ax-operator", "serviceaccount/ax-dns",
                 "role.rbac.authorization.k8s.io/ax-dns-route-table",
                 "role.rbac.authorization.k8s.io/ax-probe",
                 "poddisruptionbudget.policy/ax-operator", "configmap/ax-dns-config",
                 "configmap/ax-dashboard", "configmap/ax-vantages"):
        assert name in objects, (name, objects)
    policies = kube.kubectl("get", "validatingadmissionpolicy,"
                            "validatingadmissionpolicybinding", "-o", "name").stdout.split()
    assert sorted(policies) == [
        f"validatingadmissionpolicy{kind}.admissionregistration.k8s.io/{name}"
        for kind in ("", "binding")
        for name in ("ax-operator-writes", "ax-probereport-vantage")], policies
    status = helm("status", RELEASE, "-n", NAMESPACE, "-o", "json", env=helm_env(kube))
    assert json.loads(status.stdout)["info"]["status"] == "deployed"
    # NOTES: how to query with ECS and how to ask for the explanation.
    notes = installed.split("NOTES:", 1)[1]
    assert "dig @ax-dns.ax-system.svc www.example.test +subnet=113.108.1.0/24" in notes
    assert "axctl explain www.example.test --client" in notes and "/v1/explain?name=" in notes
    assert "kubectl apply --server-side -f" in notes


@pytest.fixture(scope="module")
def monitoring_crds(kube, installed):
    return kube.apply_crds(HERE / "monitoring-crds.yaml")


# Pod Security Admission's "restricted" profile, checked by the apiserver itself (warn
# mode: workloads are admitted with a warning per violation). Only a hostPath geo volume
# (a choice of the daemonset-nodeport set) leaves it.
PSA_WARNINGS = {"daemonset-nodeport": ['restricted volume types (volume "geo" uses '
                                       'restricted volume type "hostPath")']}


@pytest.mark.parametrize("values_set", values_sets())
def test_every_values_set_passes_server_dry_run(kube, installed, monitoring_crds, values_set):
    kube.kubectl("label", "--overwrite", "namespace", NAMESPACE,
                 "pod-security.kubernetes.io/warn=restricted")
    r = kube.kubectl("apply", "--dry-run=server", "-f", str(GOLDEN / f"{values_set}.yaml"),
                     check=False)
    assert r.returncode == 0, r.stderr + r.stdout
    warnings = [line for line in r.stderr.splitlines() if "PodSecurity" in line]
    expected = PSA_WARNINGS.get(values_set, [])
    assert len(warnings) == len(expected), r.stderr
    for warning, violation in zip(warnings, expected):
        assert 'would violate PodSecurity "restricted:latest"' in warning
        assert warning.endswith(violation), warning
    applied = [line for line in r.stdout.splitlines() if "(server dry run)" in line]
    documents = (GOLDEN / f"{values_set}.yaml").read_text().count("\nkind: ")
    assert len(applied) == documents, r.stdout


# --- the binaries on the chart's accounts -----------------------------------------


def container_args(kube, deployment: str, container: str) -> list[str]:
    d = json.loads(kube.kubectl("get", "deployment", deployment, "-n", NAMESPACE, "-o",
                                "json").stdout)
    (c,) = [c for c in d["spec"]["template"]["spec"]["containers"] if c["name"] == container]
    return c["args"]


def create_dns_pod(kube) -> str:
    """The stand-in ax-dns Pod object (restricted-compliant); returns its uid."""
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": POD["POD_NAME"], "namespace": NAMESPACE},
           "spec": {"serviceAccountName": "ax-dns",
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 65532,
                                        "seccompProfile": {"type": "RuntimeDefault"}},
                    "containers": [{"name": "ax-dns", "image": "ax-dns:never-runs",
                                    "securityContext": {
                                        "allowPrivilegeEscalation": False,
                                        "capabilities": {"drop": ["ALL"]}}}]}}
    out = kube.kubectl("apply", "-f", "-", "-o", "json", input=json.dumps(pod)).stdout
    return json.loads(out)["metadata"]["uid"]


@pytest.fixture(scope="module")
def tokens(kube, installed, tmp_path_factory):
    """Kubeconfigs with TokenRequest tokens of the chart's two service accounts; the
    ax-dns one bound to the stand-in pod."""
    tmp = tmp_path_factory.mktemp("tokens")
    POD["POD_UID"] = create_dns_pod(kube)
    return {"ax-operator": token_kubeconfig(kube, "ax-operator", tmp / "ax-operator.kubeconfig"),
            "ax-dns": token_kubeconfig(kube, "ax-dns", tmp / "ax-dns.kubeconfig",
                                       (POD["POD_NAME"], POD["POD_UID"]))}


@pytest.fixture(scope="module")
def operator(kube, tokens, tmp_path_factory):
    """ax-operator with the chart Deployment's own flags (only the HTTP address moved to
    loopback), authenticated as the chart's ax-operator account."""
    args = [a for a in container_args(kube, "ax-operator", "ax-operator")
            if not a.startswith(("--http-listen=", "--log-level="))]
    assert "--leader-elect=true" in args and "--lease-name=ax-operator" in args
    op = AxOperator(tokens["ax-operator"], tmp_path_factory.mktemp("operator"), "op-local",
                    *args).start()
    yield op
    assert op.stop() == 0, op.log_path.read_text()[-4000:]


@pytest.fixture(scope="module")
def quickstart(kube, operator):
    kube.kubectl("apply", "-n", NAMESPACE, "-f", str(QUICKSTART))

    def published():
        table = route_table(kube)
        return table if table and {n["name"] for n in table[1]["nodes"]} == set(
            QUICKSTART_NODES) else None

    return wait_for("the quickstart in the route table", published, 20, 0.2)


@pytest.fixture(scope="module")
def backends():
    started = {name: Backend() for name in QUICKSTART_NODES}
    yield started
    for b in started.values():
        b.stop()


def point_checks_at(kube, backends) -> None:
    """Each quickstart Node's healthCheck -> its local backend (plain HTTP on loopback,
    fast), as an operator would edit the Nodes: the probe reads them from the API."""
    for name, backend in backends.items():
        check = {"protocol": "HTTP", "address": "127.0.0.1", "port": backend.port,
                 "path": "/healthz", "timeout": "300ms", "interval": "300ms",
                 "failureThreshold": 2, "successThreshold": 2,
                 "host": None, "expectStatus": None, "bodyMatch": None}
        kube.kubectl("patch", "axnode", name, "-n", NAMESPACE, "--type=merge", "-p",
                     json.dumps({"spec": {"healthCheck": check}}))


@pytest.fixture(scope="module")
def probe(kube, tokens, quickstart, backends, tmp_path_factory):
    """ax-probe with the chart sidecar's flags as the chart's ax-dns account (the sidecar
    shares the pod's): the Nodes come from the API (--nodes-api), nothing is mounted.
    The harness sets what the pod would (vantage = POD_NAME, HTTP on loopback). Local
    health endpoints stand in for the quickstart's six nodes."""
    tmp = tmp_path_factory.mktemp("probe")
    point_checks_at(kube, backends)
    args = [a for a in container_args(kube, "ax-dns", "ax-probe")
            if not a.startswith(("--vantage=", "--http-listen="))]
    assert "--nodes-api" in args and "--report-api" in args and "--report=" in args
    assert not any(a.startswith("--manifests") for a in args)
    p = AxProbe(None, tmp, vantage=POD["POD_NAME"], env=POD,
                extra=[*args, "--kubeconfig", str(tokens["ax-dns"])])
    yield p
    assert p.stop() == 0, p.log()[-4000:]


@pytest.fixture(scope="module")
def dns(kube, tokens, quickstart, tmp_path_factory):
    """ax-dns with the chart's config file (from the installed ConfigMap) as the chart's
    ax-dns account; the harness moves --listen/--http-listen to loopback and adds the
    real geo databases (flags win over the file)."""
    tmp = tmp_path_factory.mktemp("dns")
    cm = json.loads(kube.kubectl("get", "configmap", "ax-dns-config", "-n", NAMESPACE,
                                 "-o", "json").stdout)
    config = tmp / "ax-dns.yaml"
    config.write_text(cm["data"]["ax-dns.yaml"])
    assert "snapshot-configmap: ax-system/ax-route-table" in config.read_text()
    args = container_args(kube, "ax-dns", "ax-dns")
    assert args == ["--config=/etc/ax/dns/ax-dns.yaml"]
    source = ["--config", str(config), "--kubeconfig", str(tokens["ax-dns"])]
    with running(lambda: AxDns(None, tmp / "run", listen_v6=False,
                               source_args=source).start()) as server:
        yield server
    server.check_clean_exit()


def dig(port: int, *args: str) -> list[str]:
    r = subprocess.run(["dig", "@127.0.0.1", "-p", str(port), "+short", "+time=2",
                        "+tries=2", *args], capture_output=True, text=True, timeout=20)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout.split()


def node_health(kube) -> dict[str, str | None]:
    items = json.loads(kube.kubectl("get", "axnode", "-n", NAMESPACE, "-o", "json").stdout)
    return {n["metadata"]["name"]: n.get("status", {}).get("health") for n in items["items"]}


def test_probe_reports_as_the_chart_account(kube, operator, probe):
    def report():
        r = kube.kubectl("get", "axpr", "-n", NAMESPACE, "-o", "json", check=False)
        items = json.loads(r.stdout)["items"] if r.returncode == 0 else []
        for item in items:
            results = {x["node"]: x["health"] for x in item["spec"]["results"]}
            if results == {n: "Up" for n in QUICKSTART_NODES}:
                return item
        return None

    item = wait_for("ax-probe's ProbeReport with every node Up", report, 30, 0.3)
    assert item["spec"]["vantage"] == POD["POD_NAME"]
    status, _, metrics = probe.get("/metrics")
    assert status == 200 and "\nax_probe_nodes_source_connected 1" in metrics
    (owner,) = item["metadata"]["ownerReferences"]
    assert (owner["kind"], owner["name"], owner["uid"]) == ("Pod", POD["POD_NAME"],
                                                            POD["POD_UID"])
    wait_for("Node statuses Up from the report",
             lambda: set(node_health(kube).values()) == {"Up"}, 30, 0.3)


def test_dig_gets_the_geo_answers(dns, probe, operator):
    wait_for("every node Up in the table ax-dns serves",
             lambda: dig(dns.port, "www.example.test", "+subnet=113.108.1.0/24")
             == ["192.0.2.10"], 20, 0.3)
    for subnet, expected in GEO_ANSWERS.items():
        assert set(dig(dns.port, "www.example.test", f"+subnet={subnet}")) == expected, subnet
        assert set(dig(dns.port, "+tcp", "www.example.test", f"+subnet={subnet}")) == expected
    assert dns.metric("ax_dns_snapshot_source_connected") == 1
    status, body = dns.http_get("/v1/explain?name=www.example.test&client=9.9.9.9"
                                "&ecs=113.108.1.0/24")
    assert status == 200 and json.loads(body)["addresses"] == ["192.0.2.10"]


def test_failover_through_the_chart_accounts(kube, dns, probe, backends):
    """gz-01's health endpoint fails -> ax-probe reports Down -> the operator publishes ->
    ax-dns answers the Guangdong client from elsewhere: every hop authorised by the
    chart's RBAC only."""
    backends["gz-01"].set_status(500)
    start = time.monotonic()
    wait_for("gz-01 Down in its Node status", lambda: node_health(kube)["gz-01"] == "Down",
             30, 0.2)
    answer = wait_for("gz-01 out of the Guangdong answer", lambda: (
        lambda a: a if a and "192.0.2.10" not in a else None)(
        dig(dns.port, "www.example.test", "+subnet=113.108.1.0/24")), 20, 0.2)
    print(f"\nfailover after {time.monotonic() - start:.1f} s: 113.108.1.0/24 -> {answer}")
    assert answer == ["198.51.100.20"]  # bj-01, the fallback region's node
    backends["gz-01"].set_status(200)
    wait_for("gz-01 back", lambda: dig(dns.port, "www.example.test",
                                       "+subnet=113.108.1.0/24") == ["192.0.2.10"], 30, 0.3)


@pytest.mark.parametrize("account, args", [
    ("ax-dns", ["create", "secret", "generic", "stolen", "--from-literal=a=b"]),
    ("ax-dns", ["patch", "axnode", "gz-01", "--type=merge", "-p",
                '{"spec":{"adminState":"Disabled"}}']),
    ("ax-dns", ["get", "configmap", "ax-dns-config"]),
    ("ax-dns", ["get", "axreg"]),
    ("ax-dns", ["get", "axdom"]),
    ("ax-dns", ["create", "configmap", "x"]),
    ("ax-operator", ["create", "secret", "generic", "stolen", "--from-literal=a=b"]),
    ("ax-operator", ["patch", "axnode", "gz-01", "--type=merge", "-p",
                     '{"spec":{"adminState":"Disabled"}}']),
    ("ax-operator", ["get", "pods"]),
    # RBAC names the one ConfigMap it replaces and its Lease.
    ("ax-operator", ["label", "configmap", "ax-vantages", "x=y"]),
    ("ax-operator", ["annotate", "lease", "other", "x=y"]),
    ("ax-operator", ["get", "serviceaccount", "ax-dns"]),
])
def test_chart_accounts_are_denied_what_they_do_not_need(kube, tokens, quickstart, account,
                                                         args):
    token = json.loads(tokens[account].read_text())["users"][0]["user"]["token"]
    r = kube.kubectl(*args, "-n", NAMESPACE, token=token, check=False)
    assert r.returncode != 0 and "forbidden" in r.stderr.lower(), r.stdout + r.stderr
    assert f"system:serviceaccount:{NAMESPACE}:{account}" in r.stderr


@pytest.mark.parametrize("account, verb, resource, extra", [
    ("ax-dns", "watch", "configmaps/ax-route-table", []),
    ("ax-dns", "list", "nodes.gslb.ax.io", []),
    ("ax-dns", "watch", "nodes.gslb.ax.io", []),
    ("ax-dns", "patch", "probereports.gslb.ax.io", []),
    ("ax-operator", "update", "nodes.gslb.ax.io", ["--subresource=status"]),
    ("ax-operator", "delete", "configmaps", []),
    ("ax-operator", "update", "leases.coordination.k8s.io/ax-operator", []),
    ("ax-operator", "update", "configmaps/ax-route-table", []),
    ("ax-operator", "get", "serviceaccounts/ax-operator", []),  # its --owner
])
def test_chart_accounts_may_do_what_they_need(kube, tokens, account, verb, resource, extra):
    token = json.loads(tokens[account].read_text())["users"][0]["user"]["token"]
    r = kube.kubectl("auth", "can-i", verb, resource, *extra, "-n", NAMESPACE, token=token,
                     check=False)
    assert r.stdout.strip() == "yes", (account, verb, resource, r.stdout, r.stderr)
    other = kube.kubectl("auth", "can-i", verb, resource, *extra, "-n", "default",
                         token=token, check=False)
    assert other.stdout.strip() == "no", "nothing outside the release namespace"


def test_operator_leads_through_the_charts_lease(kube, operator, quickstart):
    lease = json.loads(kube.kubectl("get", "lease", "ax-operator", "-n", NAMESPACE, "-o",
                                    "json").stdout)
    assert lease["spec"]["holderIdentity"] == "op-local"
    assert operator.is_leader()
    # The chart's --owner: its account owns what it created, so uninstall takes it along
    # (this control plane has no garbage collector to see that happen).
    uid = json.loads(kube.kubectl("get", "serviceaccount", "ax-operator", "-n", NAMESPACE,
                                  "-o", "json").stdout)["metadata"]["uid"]
    owners = [{"apiVersion": "v1", "kind": "ServiceAccount", "name": "ax-operator",
               "uid": uid}]
    table = json.loads(kube.kubectl("get", "configmap", "ax-route-table", "-n", NAMESPACE,
                                    "-o", "json").stdout)
    assert lease["metadata"].get("ownerReferences") == owners
    assert table["metadata"].get("ownerReferences") == owners


def test_readme_kubectl_walkthrough(kube, operator, quickstart):
    """The README's "Declare regions and canaries with kubectl" commands, as written
    (a watch without -w), against the installed release; its Region names Nodes that do
    not exist, which the operator reports as the README says (InvalidSpec)."""
    readme = (REPO / "README.md").read_text()
    part = readme[readme.index("## Declare regions and canaries with kubectl"):]
    part = part[:part.index("\n## ", 1)]
    script = "\n".join(re.findall(r"```sh\n(.*?)```", part, re.S))
    assert script.count("kubectl") >= 10
    script = script.replace("get axcanary -w", "get axcanary")
    r = subprocess.run(
        ["bash", "-c", f'set -euo pipefail; kubectl() {{ "{kube.kubectl_bin}" "$@"; }}\n'
                       f"{script}"],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "KUBECONFIG": str(kube.kubeconfig)})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "www-gz-03" in r.stdout and "AREA" in r.stdout

    def invalid_region():
        region = json.loads(kube.kubectl("get", "axreg", "cn-east-mobile", "-n", NAMESPACE,
                                         "-o", "json").stdout)
        ready = {c["type"]: c for c in region.get("status", {}).get("conditions", [])}
        return ready.get("Ready", {}).get("reason") == "InvalidSpec"

    wait_for("cn-east-mobile reported InvalidSpec", invalid_region, 20, 0.3)

    def proposed_override():
        override = json.loads(kube.kubectl("get", "axgeo", "gd-mobile-egress", "-n",
                                           NAMESPACE, "-o", "json").stdout)
        return override.get("status", {}).get("phase") == "Proposed"

    wait_for("the GeoOverride reported Proposed", proposed_override, 20, 0.3)
    kube.kubectl("delete", "axgeo", "gd-mobile-egress", "-n", NAMESPACE)
    kube.kubectl("delete", "axreg", "cn-east-mobile", "-n", NAMESPACE)
    kube.kubectl("patch", "axnode", "gz-02", "-n", NAMESPACE, "--type=merge", "-p",
                 '{"spec":{"adminState":"Active"}}')
