"""ax-operator at scale against a real control plane (kubecp.py): 1,000 Nodes, 200
Regions, 50 Domains and two vantages' ProbeReports (1,000 results each) generated here
and applied with kubectl, then the operator (its own service-account token, deploy/rbac)
started on that world; then the same again with vantage groups (issue 14: by default 6
groups of 3 placed vantages more, each group's area and isp those of one Region, each
seeing a different set of nodes Down). Measures the time from its start to the first published
route-table ConfigMap and to the last Node status, the ConfigMap's size, one Node
edit's CR-to-ConfigMap latency, and the operator's RSS. Then what one write costs the
apiserver with the CRDs as shipped (atomic lists) and with the two lists each writer
writes whole made map lists instead: server-side apply of one 1,000-result report, a
Node status PUT with 20 vantages. Prints JSON and, with --update-docs, rewrites the
"Operator at scale" section of docs/benchmarks.md."""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO / "tests" / "integration"))
sys.path.insert(0, str(REPO / "tests" / "bench"))

from axbench import replace_section  # noqa: E402
from crdschema import CRDS_DIR  # noqa: E402
from kubecp import KubeControlPlane  # noqa: E402
from operatorharness import (  # noqa: E402
    NS, RBAC_DIR, AxOperator, gslb_path, merge_patch, put_status, route_table,
    route_table_version, token_kubeconfig, wait_for)

API = "gslb.ax.io/v1alpha1"


def world(nodes: int, regions: int, domains: int, per_region: int) -> list[dict]:
    """The same shape as tests/support/large_world.h, as API objects."""
    out = []
    for i in range(nodes):
        out.append({"apiVersion": API, "kind": "Node",
                    "metadata": {"name": f"node-{i}", "namespace": NS,
                                 "labels": {"tier": "edge" if i % 2 else "core"}},
                    "spec": {"addresses": [f"10.{i >> 8}.{i & 255}.1",
                                           f"2001:db8:0:{i:x}::1"],
                             "area": f"area-{i % 50}", "isp": f"isp-{i % 4}",
                             "weight": 50 + i % 100,
                             "capacity": {"bandwidthMbps": 1000, "connections": 10000},
                             "healthCheck": {"protocol": "TCP", "port": 443}}})
    for r in range(regions):
        match = {"default": True} if r == 0 else {
            "asns": [64512 + r], "cidrs": [f"100.{r}.0.0/16"]}
        out.append({"apiVersion": API, "kind": "Region",
                    "metadata": {"name": f"region-{r}", "namespace": NS},
                    "spec": {"area": f"area-{r // 4}", "isp": f"isp-{r % 4}", "match": match,
                             "nodes": [f"node-{(r * per_region + k) % nodes}"
                                       for k in range(per_region)],
                             "fallbackRegions": [f"region-{(r + 1) % regions}"]}})
    for d in range(domains):
        spec = {"fqdn": f"domain-{d}.example.test", "zone": "example.test",
                "strategy": "WeightedRandom" if d % 2 else "RegionPriority",
                "maxAnswers": 2}
        if d % 5 == 0:
            spec["nodeSelector"] = {"matchLabels": {"tier": "edge"}}
        out.append({"apiVersion": API, "kind": "Domain",
                    "metadata": {"name": f"domain-{d}", "namespace": NS}, "spec": spec})
    return out


def placements(vantages: int, groups: int, per_group: int = 3) -> list[tuple[str, dict]]:
    """(name, spec fields) of each vantage: `vantages` unplaced ones, then per group g
    `per_group` placed in area-g, isp-(g % 4), the place of world()'s region 4g + g % 4."""
    out = [(f"vantage-{v}", {}) for v in range(vantages)]
    for g in range(groups):
        out += [(f"group-{g}-{k}", {"area": f"area-{g}", "isp": f"isp-{g % 4}"})
                for k in range(per_group)]
    return out


def now_stamp() -> str:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


class Heartbeat(threading.Thread):
    """Re-stamps and re-applies every report each `every` seconds, as running probes'
    heartbeats keep theirs fresh (the quorum ignores reports older than 30 s: without
    this, every vote would turn Stale during the run and rewrite every Node status)."""

    def __init__(self, kube, reports: list[dict], every: float = 10.0):
        super().__init__(daemon=True)
        self.kube, self.reports, self.every = kube, reports, every
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.every):
            for report in self.reports:
                report["spec"]["observedAt"] = now_stamp()
                self.kube.apply(gslb_path("probereports", report["metadata"]["name"]),
                                report, field_manager="ax-probe")


def reports(nodes: int, vantages: int, groups: int) -> list[dict]:
    stamp = now_stamp()
    out = []
    for name, place in placements(vantages, groups):
        # A group sees its own nodes Down besides the ones every vantage does.
        own = int(name.split("-")[1]) if place else -1
        results = []
        for i in range(nodes):
            up = i % 17 != 5 and i % 23 != own
            r = {"node": f"node-{i}", "health": "Up" if up else "Down", "up": up,
                 "phases": {}, "consecutiveFailures": 0 if up else 3,
                 "consecutiveSuccesses": 10 if up else 0, "transitions": 1,
                 "healthChangedAt": stamp}
            if up:
                r["latencyMs"] = 5.0 + i % 40
            results.append(r)
        out.append({"apiVersion": API, "kind": "ProbeReport",
                    "metadata": {"name": name, "namespace": NS},
                    "spec": {"vantage": name, "observedAt": stamp, "results": results,
                             **place}})
    return out


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def apply(kube, objects: list[dict], workdir: Path, name: str) -> float:
    path = workdir / f"{name}.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    t0 = time.monotonic()
    kube.kubectl("apply", "--server-side", "-f", str(path), timeout=600)
    return time.monotonic() - t0


def last_node_status(kube, nodes: int):
    status, body = kube.get(f"/apis/gslb.ax.io/v1alpha1/namespaces/{NS}/nodes")
    if status != 200:
        return False
    return sum(1 for n in body["items"] if n.get("status", {}).get("health")) == nodes


def run(nodes: int, regions: int, domains: int, vantages: int, groups: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ax-operator-scale-") as tmp:
        work = Path(tmp)
        with KubeControlPlane(work / "kube") as kube:
            kube.apply_crds(CRDS_DIR)
            kube.kubectl("create", "namespace", NS)
            kube.kubectl("apply", "-f", str(RBAC_DIR))
            apply_s = apply(kube, world(nodes, regions, domains, 5), work, "world")
            probe_reports = reports(nodes, vantages, groups)
            apply(kube, probe_reports, work, "reports")
            heartbeat = Heartbeat(kube, probe_reports)
            kubeconfig = token_kubeconfig(kube, "ax-operator", work / "op.kubeconfig")
            op = AxOperator(kubeconfig, work, "op-scale", "--log-level=info")
            t0 = time.monotonic()
            op.start(timeout=120)
            heartbeat.start()
            try:
                wait_for("the first ConfigMap", lambda: route_table(kube), 120, 0.02)
                first_s = time.monotonic() - t0
                wait_for("every Node status", lambda: last_node_status(kube, nodes), 300, 0.5)
                statuses_s = time.monotonic() - t0
                _, cm = kube.get(f"/api/v1/namespaces/{NS}/configmaps/ax-route-table")
                stored = sum(len(v) for v in cm.get("data", {}).values()) + sum(
                    len(v) * 3 // 4 for v in cm.get("binaryData", {}).values())
                edits = []
                for i in range(5):
                    before = route_table_version(kube)
                    merge_patch(kube, gslb_path("nodes", f"node-{i * 7}"),
                                {"spec": {"adminState": "Disabled"}})
                    e0 = time.monotonic()
                    # Generous: at the vantage-group scale one pass can take 20 s.
                    wait_for("a new version", lambda: route_table_version(kube) > before,
                             90, 0.01)
                    edits.append(time.monotonic() - e0)
                    time.sleep(0.5)
                time.sleep(2)
                result = {
                    "nodes": nodes, "regions": regions, "domains": domains,
                    "vantages": vantages, "vantage_groups": groups,
                    "group_vantages": {
                        g: op.metric("ax_operator_vantage_group_vantages",
                                     group=f"area-{g}-isp-{g % 4}")
                        for g in range(groups)},
                    "kubectl_apply_s": round(apply_s, 1),
                    "first_configmap_s": round(first_s, 2),
                    "all_node_statuses_s": round(statuses_s, 2),
                    "snapshot_bytes": int(
                        cm["metadata"]["annotations"]["gslb.ax.io/snapshot-bytes"]),
                    "configmap_stored_bytes": stored,
                    "gzipped": "binaryData" in cm,
                    "edit_to_configmap_ms": sorted(round(e * 1000) for e in edits),
                    "edit_to_configmap_median_ms": round(statistics.median(edits) * 1000),
                    "rss_mib": round(rss_mib(op.proc.pid), 1),
                    "reconcile_seconds_sum": op.metric(
                        "ax_operator_reconcile_duration_seconds_sum"),
                    "reconciles": op.metric("ax_operator_reconcile_duration_seconds_count"),
                    "status_backlog": op.metric("ax_operator_status_backlog"),
                }
            except Exception:
                # What the operator was doing, before the temp dir goes.
                sys.stderr.write(op.log_path.read_text(errors="replace")[-6000:])
                raise
            finally:
                heartbeat.stop.set()
                heartbeat.join()
                op.stop()
    return result


# The two lists one writer always writes whole, as map lists (what they were before).
MAP_LISTS = {
    "probereport.yaml": ("x-kubernetes-list-type: atomic\n",
                         "x-kubernetes-list-type: map\n"
                         "                  x-kubernetes-list-map-keys: [node]\n"),
    "node.yaml": ("x-kubernetes-list-type: atomic\n",
                  "x-kubernetes-list-type: map\n"
                  "                  x-kubernetes-list-map-keys: [vantage]\n"),
}


def crds_with_map_lists(into: Path) -> Path:
    shutil.copytree(CRDS_DIR, into)
    for name, (atomic, as_map) in MAP_LISTS.items():
        path = into / name
        text = path.read_text()
        assert text.count(atomic) == 1, f"{name}: expected one atomic list"
        path.write_text(text.replace(atomic, as_map))
    return into


def median_ms(times: list[float]) -> float:
    return round(statistics.median(times) * 1000, 1)


def write_cost(crds: Path, nodes: int, vantages: int, rounds: int = 12) -> dict:
    """Apiserver time and stored size of one report apply and one Node status PUT."""
    with tempfile.TemporaryDirectory(prefix="ax-write-cost-") as tmp:
        with KubeControlPlane(Path(tmp) / "kube") as kube:
            kube.apply_crds(crds)
            kube.kubectl("create", "namespace", NS)
            probe_reports = reports(nodes, 4, 0)
            applies, report = [], {}
            for i in range(rounds + 2):  # the first two create and warm up
                r = probe_reports[i % len(probe_reports)]
                r["spec"]["observedAt"] = now_stamp()
                t0 = time.monotonic()
                report = kube.apply(gslb_path("probereports", r["metadata"]["name"]), r,
                                    field_manager="ax-probe")
                if i >= 2:
                    applies.append(time.monotonic() - t0)
            node = world(1, 1, 1, 1)[0]
            path = gslb_path("nodes", node["metadata"]["name"])
            current = kube.apply(path, node)
            puts = []
            for i in range(rounds + 2):
                current["status"] = {"health": "Up", "latencyMs": 5.0, "vantages": [
                    {"vantage": f"vantage-{v}", "health": "Up",
                     "vote": "Counted" if (i + v) % 2 else "Stale",
                     "observedAt": now_stamp(), "latencyMs": 5.0 + v}
                    for v in range(vantages)]}
                t0 = time.monotonic()
                current = put_status(kube, path, current)
                if i >= 2:
                    puts.append(time.monotonic() - t0)
    return {"report_apply_ms": median_ms(applies),
            "report_bytes": len(json.dumps(report)),
            "report_managed_fields_bytes": len(json.dumps(
                report["metadata"].get("managedFields", []))),
            "node_status_put_ms": median_ms(puts),
            "node_bytes": len(json.dumps(current))}


def write_costs(nodes: int, vantages: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ax-crds-") as tmp:
        return {"atomic": write_cost(CRDS_DIR, nodes, vantages),
                "map": write_cost(crds_with_map_lists(Path(tmp) / "crds"), nodes,
                                  vantages)}


def render_costs(costs: dict, nodes: int, vantages: int) -> str:
    a, m = costs["atomic"], costs["map"]
    return f"""What one write costs the apiserver, by list type (median of 12, same run; the
shipped CRDs keep `ProbeReport spec.results` and `Node status.vantages` atomic, as each
has one writer that always writes it whole):

| Write | atomic lists (shipped) | map lists keyed by node / vantage |
|---|---:|---:|
| server-side apply of one {nodes:,}-result ProbeReport | {a['report_apply_ms']} ms | {m['report_apply_ms']} ms |
| that report as stored (of it managedFields) | {a['report_bytes']:,} bytes ({a['report_managed_fields_bytes']:,}) | {m['report_bytes']:,} bytes ({m['report_managed_fields_bytes']:,}) |
| `PUT .../status` of a Node with {vantages} vantages | {a['node_status_put_ms']} ms | {m['node_status_put_ms']} ms |
| that Node as stored | {a['node_bytes']:,} bytes | {m['node_bytes']:,} bytes |

"""


def render(runs: list[dict], command: str, costs: str = "") -> str:
    """One column per run: the unplaced vantages alone, then with vantage groups."""
    r = runs[0]

    def cells(fmt) -> str:
        return " | ".join(fmt(x) for x in runs)

    heads = cells(lambda x: f"{x['vantages']} vantages" + (
        f" + {x['vantage_groups']} groups of 3" if x["vantage_groups"] else ""))
    grouped = [x for x in runs if x["vantage_groups"]]
    groups_line = "".join(
        f"In the run with {x['vantage_groups']} groups, the groups counted "
        f"{sorted(set(int(v) for v in x['group_vantages'].values()))} fresh vantages at "
        "the end (`ax_operator_vantage_group_vantages`; 3 when every heartbeat lands "
        "within the 30 s a report stays fresh: this one script re-applies the reports "
        "one after another). Each Node's status carries one vote per vantage, so a "
        "vantage turning Stale or coming back rewrites ~1,000 statuses; those writes "
        "give way to a newer plan after 1 s when something changed meanwhile (the next "
        "pass goes on where the last stopped), so an edit waits for at most that second "
        "plus one plan, not for the whole round of writes.\n\n"
        for x in grouped)
    return f"""## Operator at scale (`tests/bench/operator_scale/run.sh`)

`{command}` (~10 min; release build, a local etcd + kube-apiserver each run, objects
applied with `kubectl apply --server-side`):
{r['nodes']:,} Nodes, {r['regions']} Regions, {r['domains']} Domains and ProbeReports of
{r['nodes']:,} results, then `ax-operator` started on them with its own
service-account token (deploy/rbac); every report is re-applied with a new observedAt
every 10 s, as running probes' heartbeats do. The second run adds vantage groups (issue 14):
placed vantages whose area and isp are those of one Region each, every group seeing a
different set of nodes Down.

| Measure | {heads} |
|---|{"---:|" * len(runs)}
| operator start -> first route-table ConfigMap | {cells(lambda x: f"{x['first_configmap_s']} s")} |
| operator start -> every Node has a status | {cells(lambda x: f"{x['all_node_statuses_s']} s")} |
| snapshot document | {cells(lambda x: f"{x['snapshot_bytes']:,} bytes")} |
| ConfigMap as stored (limit 1,048,576) | {cells(lambda x: f"{x['configmap_stored_bytes']:,} bytes" + (" gzip" if x['gzipped'] else ""))} |
| Node edit -> new ConfigMap version, median of 5 | {cells(lambda x: f"{x['edit_to_configmap_median_ms']} ms ({x['edit_to_configmap_ms']})")} |
| operator RSS afterwards | {cells(lambda x: f"{x['rss_mib']} MiB")} |
| statuses left for the next pass at the end (`ax_operator_status_backlog`) | {cells(lambda x: f"{x['status_backlog']:.0f}")} |
| reconcile passes / total seconds (mean) | {cells(lambda x: f"{x['reconciles']:.0f} / {x['reconcile_seconds_sum']:.2f} ({x['reconcile_seconds_sum'] / max(1, x['reconciles']):.1f} s)")} |

{groups_line}{costs}The first ConfigMap comes before any status: the plan writes it first. Writing the first
statuses (one `PUT .../status` per object, ~1,250 objects) takes the seconds after it.
Edits at this size wait for the pass in progress (each Disabled node rewrites its own
status and its Regions'), so their latency is one to two passes, not the quickstart's
~130 ms.
"""


BEGIN = "<!-- BEGIN operator-scale (tests/bench/operator_scale/run.sh) -->"
END = "<!-- END operator-scale -->"


def update_docs(section: str) -> None:
    # Between its own markers, as every bench section: replacing up to the next
    # heading once ate the next section's BEGIN marker.
    replace_section(REPO / "docs" / "benchmarks.md", BEGIN, END,
                    f"{BEGIN}\n{section}{END}\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--regions", type=int, default=200)
    p.add_argument("--domains", type=int, default=50)
    p.add_argument("--vantages", type=int, default=2)
    p.add_argument("--vantage-groups", type=int, default=6,
                   help="the second run's groups of 3 placed vantages (0: one run only)")
    p.add_argument("--update-docs", action="store_true")
    a = p.parse_args()
    runs = [run(a.nodes, a.regions, a.domains, a.vantages, g)
            for g in sorted({0, a.vantage_groups})]
    vantages = a.vantages + 3 * a.vantage_groups
    costs = write_costs(a.nodes, vantages)
    print(json.dumps({"runs": runs, "write_costs": costs}, indent=2))
    for r in runs:
        assert r["configmap_stored_bytes"] < 1024 * 1024
    if a.update_docs:
        update_docs(render(runs, "tests/bench/operator_scale/run.sh",
                           render_costs(costs, a.nodes, vantages)))
        print("updated docs/benchmarks.md")


if __name__ == "__main__":
    main()
