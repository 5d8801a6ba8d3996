"""axctl geo suggest --cluster against a real kube-apiserver (kubecp.py, fixture `kube`),
with the real dbip + ASN data, as the geo-suggest CronJob runs it: the ServiceAccount
of deploy/rbac/ax-geo-suggest.yaml, the world of test_geo_suggest.py in ax-system, and
the shippers' MeasurementReports (`axctl geo report | kubectl apply --server-side`).

- Without --apply it prints the one proposal and writes nothing.
- With --apply the proposal becomes a GeoOverride (approved: false, labelled as the
  suggester's), a report older than the days kept is deleted, a hand-written
  GeoOverride is left alone, and a second run changes nothing.
- Approved by a reviewer, the override is in force: the prefix now agrees, and the
  suggester never reverts the approval.
- Unapproved again, once the measurements say the database was right, the proposal is
  deleted.
"""

from __future__ import annotations

import json
import random

import pytest
import yaml

from axharness import REPO, dbip_geo_args, write_one_node_regions
from test_geo_suggest import DOMAIN, REGIONS, axctl, samples, ship, write_logs

NS = "ax-system"
RBAC = REPO / "deploy" / "rbac" / "ax-geo-suggest.yaml"
NOW = "2026-12-02T00:00:00Z"
PROPOSAL = "geo-123-112-0-0-24"
LABEL = "gslb.ax.io/proposed-by"

HAND_WRITTEN = {
    "apiVersion": "gslb.ax.io/v1alpha1", "kind": "GeoOverride",
    "metadata": {"name": "hand-moved", "namespace": NS},
    "spec": {"cidrs": ["8.8.8.0/24"], "region": "rest", "approved": False,
             "reason": "a reviewer's own, pending"},
}


@pytest.fixture(scope="module")
def cluster(kube, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("geo-suggest-cluster")
    kube.kubectl("create", "namespace", NS)
    kube.apply_crds(REPO / "crds")
    kube.kubectl("apply", "-f", str(RBAC))
    world = tmp / "world"
    world.mkdir()
    write_one_node_regions(world, DOMAIN, REGIONS)
    kube.kubectl("apply", "-n", NS, "-f", str(world))
    kube.kubectl("apply", "-f", "-", input=json.dumps(HAND_WRITTEN))
    token = kube.token("ax-geo-suggest", NS)
    return kube, kube.token_kubeconfig(tmp / "geo-suggest.kubeconfig", token, NS), tmp


def run_suggest(kubeconfig, *extra: str):
    return axctl("geo", "suggest", "--cluster", "--kubeconfig", str(kubeconfig),
                 *dbip_geo_args(), "--now", NOW, *extra)


def apply_reports(kube, directory) -> None:
    for path in sorted(directory.glob("*.yaml")):
        kube.kubectl("apply", "--server-side", "-n", NS, "-f", str(path))


def listed(kube, plural: str) -> dict[str, dict]:
    out = kube.kubectl("get", plural, "-n", NS, "-o", "json").stdout
    return {o["metadata"]["name"]: o for o in json.loads(out)["items"]}


def test_proposal_lifecycle_in_the_cluster(cluster):
    kube, kubeconfig, tmp = cluster
    jsonl, access = write_logs(tmp)
    shipped = ship(tmp / "reports", jsonl, access)
    apply_reports(kube, tmp / "reports")
    # A month-old report: past the 7 days kept.
    old_log = tmp / "old.jsonl"
    old_log.write_text(json.dumps({"client": "123.112.0.1", "node": "gd-telecom-node",
                                   "ttfbMs": 20, "time": "2026-11-01T10:00:00Z"}) + "\n")
    old = axctl("geo", "report", "--name", "old", "--measurements", str(old_log)).stdout
    kube.kubectl("apply", "--server-side", "-n", NS, "-f", "-", input=old)
    assert "old-20261101t1000" in listed(kube, "measurementreports")

    # A dry run prints the proposal and writes nothing.
    r = run_suggest(kubeconfig)
    [printed] = [d for d in yaml.safe_load_all(r.stdout) if d]
    assert printed["metadata"]["name"] == PROPOSAL
    assert set(listed(kube, "geooverrides")) == {"hand-moved"}
    assert f"from {len(shipped)} reports of 4 prefixes in {NS}" in r.stderr, r.stderr

    # Applied: the proposal, labelled and unapproved; the old report gone.
    r = run_suggest(kubeconfig, "--apply")
    assert f"applied GeoOverride/{PROPOSAL}" in r.stderr, r.stderr
    overrides = listed(kube, "geooverrides")
    assert set(overrides) == {"hand-moved", PROPOSAL}
    proposal = overrides[PROPOSAL]
    assert proposal["metadata"]["labels"][LABEL] == "axctl-geo-suggest"
    spec = proposal["spec"]
    assert (spec["cidrs"], spec["region"], spec["approved"]) == (
        ["123.112.0.0/24"], "gd-telecom", False)
    assert spec["evidence"]["bestNode"] == "gd-telecom-node"
    assert overrides["hand-moved"]["spec"] == HAND_WRITTEN["spec"]
    reports = listed(kube, "measurementreports")
    assert "old-20261101t1000" not in reports
    assert len(reports) == len(shipped)

    # Again: the same object, nothing else.
    run_suggest(kubeconfig, "--apply")
    again = listed(kube, "geooverrides")
    assert set(again) == {"hand-moved", PROPOSAL}
    assert again[PROPOSAL]["spec"] == spec

    # A reviewer approves: in force, the prefix now agrees, the approval stays.
    kube.kubectl("patch", "geooverride", PROPOSAL, "-n", NS, "--type=merge",
                 "-p", '{"spec": {"approved": true}}')
    r = run_suggest(kubeconfig, "--apply")
    assert "123.112.0.0/24  400 samples  agrees" in r.stderr, r.stderr
    assert listed(kube, "geooverrides")[PROPOSAL]["spec"]["approved"] is True

    # Unapproved again, and new measurements say the database was right: deleted.
    kube.kubectl("patch", "geooverride", PROPOSAL, "-n", NS, "--type=merge",
                 "-p", '{"spec": {"approved": false}}')
    kube.kubectl("delete", "measurementreports", "-n", NS, "--all")
    rng = random.Random(17)
    fixed = tmp / "fixed.jsonl"
    with fixed.open("w") as f:
        for node, ms in (("gd-telecom-node", 60), ("bj-unicom-node", 20)):
            for client, _, value, at in samples(rng, "123.112.0", node, ms, 200):
                f.write(json.dumps({"client": client, "node": node, "ttfbMs": round(value, 2),
                                    "time": at.strftime("%Y-%m-%dT%H:%M:%SZ")}) + "\n")
    fixed_reports = axctl("geo", "report", "--name", "fixed", "--measurements",
                          str(fixed)).stdout
    kube.kubectl("apply", "--server-side", "-n", NS, "-f", "-", input=fixed_reports)
    r = run_suggest(kubeconfig, "--apply")
    assert f"deleted GeoOverride/{PROPOSAL} (no longer proposed)" in r.stderr, r.stderr
    assert set(listed(kube, "geooverrides")) == {"hand-moved"}
