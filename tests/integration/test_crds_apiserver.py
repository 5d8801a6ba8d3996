"""The CRDs of crds/ in a real kube-apiserver (kubecp.py, fixture `kube`): the
apiserver accepts them (structural schemas, CEL rules compile within the cost budget),
every sample manifest passes a server-side dry run, each case of
crd_cases/invalid.yaml is rejected with its message (schema and CEL layers alike),
defaults come out as in the C++ model, status is written through its subresource, and
kubectl prints the printer columns. Cluster-free checks: test_crds.py."""

from __future__ import annotations

import json

import pytest

from crdschema import CASES_DIR, CRDS_DIR, example_files, invalid_cases, load_crds

NS = "ax-crds"


@pytest.fixture(scope="module")
def cluster(kube):
    """The control plane with crds/ applied and a namespace for the test objects."""
    names = kube.apply_crds(CRDS_DIR)
    assert sorted(names) == sorted(c["metadata"]["name"] for c in load_crds().values())
    kube.kubectl("create", "namespace", NS)
    return kube


def dry_run(kube, *args: str, input: str | None = None):
    return kube.kubectl("apply", "--dry-run=server", "-n", NS, *args, input=input,
                        check=False)


EXAMPLE_DIRS = sorted({f.parent for f in example_files()})


@pytest.mark.parametrize("directory", EXAMPLE_DIRS, ids=[d.name for d in EXAMPLE_DIRS])
def test_example_dir_passes_server_dry_run(cluster, directory):
    r = dry_run(cluster, "-f", str(directory))
    assert r.returncode == 0, r.stderr


CASES = invalid_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_invalid_case_rejected(cluster, case):
    r = dry_run(cluster, "-f", "-", input=json.dumps(case["object"]))
    assert r.returncode != 0, f"accepted: {r.stdout}"
    assert case["apiserver"] in r.stderr, r.stderr
    assert case["field"] in r.stderr, r.stderr


def test_defaults_filled_in(cluster):
    objects = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain", "metadata": {"name": "bare"},
         "spec": {"fqdn": "bare.example.test", "zone": "example.test"}},
        {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": "bare"},
         "spec": {"addresses": ["192.0.2.1"], "healthCheck": {"port": 80}}},
    ]}
    r = dry_run(cluster, "-o", "json", "-f", "-", input=json.dumps(objects))
    assert r.returncode == 0, r.stderr
    domain, node = (o["spec"] for o in json.loads(r.stdout)["items"])
    # The C++ defaults (core/include/ax/model.h); test_crds.py ties the CRDs to them.
    assert domain == {"fqdn": "bare.example.test", "zone": "example.test",
                      "strategy": "RegionPriority", "maxAnswers": 2, "hysteresisPercent": 15,
                      "slowStartSeconds": 0, "answerUnknown": False,
                      "ttl": {"steady": 300, "failover": 60, "canary": 120}}
    assert node == {"addresses": ["192.0.2.1"], "weight": 100, "adminState": "Active",
                    "healthCheck": {"port": 80, "protocol": "TCP", "path": "/",
                                    "expectStatus": [200], "timeout": "2s",
                                    "interval": "5s", "failureThreshold": 3,
                                    "successThreshold": 5,
                                    "flapDamping": {"enabled": True, "halfLife": "15m",
                                                    "maxSuppress": "1h"}}}


NODE_STATUS = {
    "observedGeneration": 1, "health": "Up", "latencyMs": 12.5, "loadPercent": 40,
    "healthChangedAt": "2026-11-30T04:50:01Z",
    "load": {"bandwidthMbps": 1000, "connections": 20000},
    "vantages": [{"vantage": "ax-dns-0", "health": "Up", "vote": "Counted", "latencyMs": 12.5,
                  "observedAt": "2026-11-30T04:53:35.123Z"}],
    "conditions": [{"type": "Ready", "status": "True", "reason": "QuorumUp",
                    "message": "1/1 vantages up", "lastTransitionTime": "2026-11-30T04:50:01Z",
                    "observedGeneration": 1}],
}


@pytest.fixture(scope="module")
def applied(cluster):
    """crd_cases/valid applied for real, with a status written on Node edge-full."""
    cluster.kubectl("apply", "-n", NS, "-f", str(CASES_DIR / "valid"))
    cluster.kubectl("patch", "nodes.gslb.ax.io", "edge-full", "-n", NS, "--subresource=status",
                    "--type=merge", "-p", json.dumps({"status": NODE_STATUS}))
    return cluster


def test_status_subresource_validates(applied):
    got = json.loads(applied.kubectl("get", "axnode", "edge-full", "-n", NS, "-o",
                                     "json").stdout)
    assert got["status"] == NODE_STATUS
    r = applied.kubectl("patch", "axnode", "edge-full", "-n", NS, "--subresource=status",
                        "--type=merge", "-p", '{"status": {"health": "Sideways"}}',
                        check=False)
    assert r.returncode != 0 and 'Unsupported value: "Sideways"' in r.stderr, r.stderr


def test_get_axnode_prints_columns(applied):
    lines = applied.kubectl("get", "axnode", "-n", NS).stdout.splitlines()
    assert lines[0].split() == ["NAME", "AREA", "ISP", "HEALTH", "LATENCY", "LOAD", "AGE"]
    row = next(line.split() for line in lines[1:] if line.startswith("edge-full "))
    assert row[:6] == ["edge-full", "eu-central", "any", "Up", "12.5", "40"]


def test_category_lists_every_kind(applied):
    out = applied.kubectl("get", "gslb", "-n", NS, "-o", "name").stdout.split()
    kinds = {name.split("/")[0] for name in out}
    assert kinds == {f"{c['spec']['names']['singular']}.gslb.ax.io"
                     for c in load_crds().values()}


# --- MeasurementReports at their bounds ----------------------------------------------


def measurement_report(name: str, prefixes: int, nodes: int) -> dict:
    """A report of prefixes x nodes histograms of 12 buckets, as a shipper writes them."""
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "MeasurementReport",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"source": "bounds test", "from": "2026-12-01T00:00:00.000Z",
                     "to": "2026-12-01T00:59:59.000Z",
                     "prefixes": [{"prefix": f"10.{i // 256}.{i % 256}.0/24",
                                   "nodes": [{"node": f"edge-{j:03d}", "first": 120,
                                              "counts": [13, 250, 1024, 77, 5, 0, 0, 3,
                                                         18, 420, 9, 1]}
                                             for j in range(nodes)]}
                                  for i in range(prefixes)]}}


def test_largest_measurement_report_is_stored(cluster):
    """8000 histograms, the most one report may hold: within the CEL cost budget at
    runtime and within etcd's request limit, written by server-side apply (a client-side
    apply would copy it into an annotation, limited to 256 KiB)."""
    report = measurement_report("bounds-8000", 8000, 1)
    r = cluster.kubectl("apply", "--server-side", "--field-manager=shipper", "-f", "-",
                        input=json.dumps(report), check=False)
    assert r.returncode == 0, r.stderr
    got = json.loads(cluster.kubectl("get", "axmr", "bounds-8000", "-n", NS, "-o",
                                     "json").stdout)
    assert len(got["spec"]["prefixes"]) == 8000
    wide = measurement_report("bounds-80x100", 80, 100)
    assert dry_run(cluster, "--server-side", "-f", "-",
                   input=json.dumps(wide)).returncode == 0
    cluster.kubectl("delete", "axmr", "bounds-8000", "-n", NS)


@pytest.mark.parametrize("prefixes,nodes,error", [
    (8001, 1, "must have at most 8000 items"),
    (81, 100, "more than 8000 node histograms"),
    (1, 101, "must have at most 100 items"),
])
def test_measurement_report_past_its_bounds_rejected(cluster, prefixes, nodes, error):
    report = measurement_report("bounds-over", prefixes, nodes)
    r = dry_run(cluster, "--server-side", "-f", "-", input=json.dumps(report))
    assert r.returncode != 0 and error in r.stderr, r.stderr[-2000:]


def test_get_axmr_prints_columns(applied):
    lines = applied.kubectl("get", "axmr", "-n", NS).stdout.splitlines()
    assert lines[0].split() == ["NAME", "SOURCE", "FROM", "TO", "AGE"]
    assert lines[1].startswith("gz-01-20261201t00 ") and "gz-01 access log" in lines[1]
