"""ax-dns --snapshot-configmap against a real kube-apiserver (kubecp.py, fixture `kube`).

The route-table ConfigMap ax-system/ax-route-table is built the way the operator's
codec writes it (data["snapshot.json"] from `axctl snapshot` on a copy of
examples/quickstart whose gz-01 address varies per version, plus the version and
content-hash annotations) and written by server-side apply in one HTTPS request.
ax-dns authenticates with a ServiceAccount token bound by deploy/rbac/ax-dns.yaml
(get/list/watch on that one ConfigMap) and is asked with dnspython, ECS
113.108.1.0/24 (Guangdong, China Telecom -> gz-01). The tests run in file order on
one ax-dns: first load, update latency, corrupt ConfigMaps, an apiserver outage
with a watch that comes back too old (410) to resume. Refused publishes over the
snapshot limits (a gzip bomb, too many values, too deep, too many nodes) keep the last
good snapshot and add less than a stated bound to ax-dns's peak memory.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import statistics
import subprocess
import time
import zlib
from pathlib import Path

import pytest

from axharness import (
    QUICKSTART, REPO, AxDns, addresses, ask, built_binary, copy_manifests, make_query,
    running)
from waiting import wait_for

NS = "ax-system"
NAME = "ax-route-table"
CM_PATH = f"/api/v1/namespaces/{NS}/configmaps/{NAME}"
RBAC = REPO / "deploy" / "rbac" / "ax-dns.yaml"
ECS = "113.108.1.0/24"


class RouteTable:
    """Builds snapshot documents with axctl and publishes them as the route-table
    ConfigMap, each under the next version."""

    def __init__(self, kube, workdir):
        self.kube = kube
        self.workdir = workdir
        self.axctl = built_binary("AX_AXCTL_BIN", "dns-server/axctl")
        self.version = 0
        self.docs: dict[int, dict] = {}

    def document(self, octet: int) -> dict:
        """The quickstart's snapshot with gz-01 at 192.0.2.<octet>."""
        if octet not in self.docs:
            d = copy_manifests(self.workdir / f"manifests-{octet}", QUICKSTART)
            nodes = d / "nodes.yaml"
            nodes.write_text(nodes.read_text().replace(
                'addresses: ["192.0.2.10",', f'addresses: ["192.0.2.{octet}",'))
            out = subprocess.run([str(self.axctl), "snapshot", str(d)],
                                 capture_output=True, text=True, check=True)
            self.docs[octet] = json.loads(out.stdout)
        return self.docs[octet]

    def config_map(self, *, data=None, binary_data=None, annotations=None) -> dict:
        cm = {"apiVersion": "v1", "kind": "ConfigMap",
              "metadata": {"name": NAME, "namespace": NS,
                           "labels": {"app.kubernetes.io/part-of": "ax",
                                      "gslb.ax.io/route-table": NAME,
                                      "gslb.ax.io/route-table-role": "current"},
                           "annotations": annotations or {}}}
        if data is not None:
            cm["data"] = data
        if binary_data is not None:
            cm["binaryData"] = binary_data
        return cm

    def publish(self, octet: int) -> int:
        """Applies the next version with gz-01 at 192.0.2.<octet>; returns it."""
        self.version += 1
        # The version is a stamp outside the content hash: set it, keep the hash.
        doc = dict(self.document(octet), version=self.version)
        self.kube.apply(CM_PATH, self.config_map(
            data={"snapshot.json": json.dumps(doc, separators=(",", ":"))},
            annotations={"gslb.ax.io/snapshot-version": str(self.version),
                         "gslb.ax.io/content-hash": doc["contentHash"]}))
        return self.version

    def publish_broken(self, **payload) -> None:
        self.version += 1
        self.kube.apply(CM_PATH, self.config_map(
            annotations={"gslb.ax.io/snapshot-version": str(self.version)}, **payload))


@pytest.fixture(scope="module")
def cluster(kube):
    kube.kubectl("create", "namespace", NS)
    kube.kubectl("apply", "-f", str(RBAC))
    kube.kubectl("create", "serviceaccount", "ax-nobody", "-n", NS)
    return kube


@pytest.fixture(scope="module")
def table(cluster, tmp_path_factory):
    t = RouteTable(cluster, tmp_path_factory.mktemp("route-table"))
    t.publish(10)
    return t


@pytest.fixture(scope="module")
def ax(cluster, table, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ax-dns-api")
    token = cluster.token("ax-dns", NS)
    kubeconfig = cluster.token_kubeconfig(tmp / "ax-dns.kubeconfig", token, NS)
    source = ["--snapshot-configmap", f"{NS}/{NAME}", "--kubeconfig", str(kubeconfig)]
    with running(lambda: AxDns(None, tmp / "run", listen_v6=False,
                               source_args=source).start()) as server:
        yield server
    server.check_clean_exit()


def answer(ax) -> set[str]:
    return addresses(ask(make_query("www.example.test", "A", ecs=ECS), ax.port,
                         timeout=1.0))


def test_rbac_is_least_privilege(cluster, table):
    token = cluster.token("ax-dns", NS)
    allowed = cluster.kubectl("get", "configmap", NAME, "-n", NS, "-o", "name",
                              token=token)
    assert allowed.stdout.strip() == f"configmap/{NAME}"
    for args in (("get", "configmaps", "-n", NS),          # every ConfigMap
                 ("get", "configmap", "other", "-n", NS),  # another one
                 ("get", "secrets", "-n", NS),
                 ("get", "configmaps", "-n", "default")):
        denied = cluster.kubectl(*args, token=token, check=False)
        assert denied.returncode != 0 and "Forbidden" in denied.stderr, (args, denied)


def test_serves_the_configmap(ax, table):
    assert answer(ax) == {"192.0.2.10"}
    status, body = ax.http_get("/v1/snapshot")
    assert status == 200
    snap = json.loads(body)
    assert snap["version"] == table.version
    assert ax.metric("ax_dns_snapshot_source_connected") == 1
    assert ax.metric("ax_dns_snapshot_load_errors_total") == 0


def test_update_to_answer_latency(ax, table):
    latencies = []
    for i in range(10):
        octet = 100 + i
        start = time.monotonic()
        table.publish(octet)
        wait_for(f"192.0.2.{octet}", lambda: answer(ax) == {f"192.0.2.{octet}"}, 10,
                 interval=0.002)
        latencies.append(time.monotonic() - start)
    ms = sorted(round(x * 1000, 1) for x in latencies)
    print(f"\nConfigMap apply -> new answer over {len(ms)} updates: min {ms[0]} ms, "
          f"median {statistics.median(ms)} ms, max {ms[-1]} ms")
    assert statistics.median(latencies) < 1.0, ms
    assert ax.metric("ax_dns_snapshot_version") == table.version


def test_corrupt_configmap_keeps_the_last_good_snapshot(ax, table):
    before = answer(ax)
    served = ax.metric("ax_dns_snapshot_version")
    errors = ax.metric("ax_dns_snapshot_load_errors_total")

    table.publish_broken(binary_data={
        "snapshot.json.gz": base64.b64encode(b"not gzip at all").decode()})
    wait_for("the bad gzip to be refused",
             lambda: ax.metric("ax_dns_snapshot_load_errors_total") == errors + 1, 10)
    table.publish_broken(data={"snapshot.json": '{"formatVersion":1, garbage'})
    wait_for("the garbage to be refused",
             lambda: ax.metric("ax_dns_snapshot_load_errors_total") == errors + 2, 10)

    assert answer(ax) == before
    assert ax.metric("ax_dns_snapshot_version") == served
    assert ax.http_get("/readyz")[0] == 200
    refused = [line["error"] for line in ax.log_lines()
               if line.get("msg") == "route-table ConfigMap unusable, keeping the last "
                                     "good snapshot"]
    assert any("BadGzip" in e for e in refused), refused
    assert any("BadSnapshot" in e and "malformed JSON" in e for e in refused), refused

    table.publish(42)  # a good one after the bad ones is taken
    wait_for("the repaired ConfigMap", lambda: answer(ax) == {"192.0.2.42"}, 10)


def gzip_stream(*parts: tuple[bytes, int]) -> bytes:
    """gzip of each (chunk, times) repeated, compressed as it goes: a document far
    larger than the test ever holds."""
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + 15)
    out = [z.compress(chunk) for chunk, times in parts for _ in range(times)]
    return b"".join(out) + z.flush()


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


# What one refused publish may add to ax-dns's peak memory (docs/security.md).
REFUSED_PEAK_MIB = 96


def test_oversized_snapshots_and_bombs_are_refused_within_a_memory_bound(ax, table):
    """Each limit of core/include/ax/snapshot_limits.h on the real binary: refused with
    the limit named, the last good snapshot served, and ax-dns's peak RSS (VmHWM,
    reset first through clear_refs) rising by less than REFUSED_PEAK_MIB."""
    table.publish(43)
    wait_for("version 43", lambda: answer(ax) == {"192.0.2.43"}, 10)
    served = ax.metric("ax_dns_snapshot_version")
    good = table.document(43)
    mib = 1 << 20
    bombs = {
        # 900 MiB of spaces in ~0.9 MB of gzip: inflating stops at the document limit.
        "gzip bomb": (gzip_stream((b" " * mib, 900)),
                      "does not fit in 16777216 bytes once inflated"),
        # Just under the byte limit and cheap to gzip: values stop the parser.
        "values": (gzip_stream((b'{"x":[0', 1), (b",0" * 4096, 1950), (b"]}", 1)),
                   "more than 2097152 values"),
        "depth": (gzip_stream((b"[" * mib, 8)), "nesting deeper than 32"),
        "nodes": (gzip.compress(json.dumps(
                      dict(good, nodes=good["nodes"] * 1700)).encode()),
                  "nodes: 10200 entries, over the limit of 10000"),
    }
    pid = ax.proc.pid
    errors = ax.metric("ax_dns_snapshot_load_errors_total")
    peaks = {}
    for case, (gz, reason) in bombs.items():
        assert len(gz) < 1_000_000, (case, len(gz))  # fits a ConfigMap
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM
        before = peak_rss_mib(pid)
        table.publish_broken(binary_data={"snapshot.json.gz": base64.b64encode(gz).decode()})
        errors += 1
        wait_for(f"the {case} refused",
                 lambda: ax.metric("ax_dns_snapshot_load_errors_total") == errors, 20)
        peaks[case] = round(peak_rss_mib(pid) - before, 1)
        refused = [line["error"] for line in ax.log_lines()
                   if line.get("msg") == "route-table ConfigMap unusable, keeping the last "
                                         "good snapshot"]
        assert reason in refused[-1], (case, refused[-1])
        assert answer(ax) == {"192.0.2.43"}, case
        assert ax.metric("ax_dns_snapshot_version") == served
    print(f"\npeak RSS added by each refused publish (MiB): {peaks}")
    # Not judged in a sanitizer build: redzones and quarantine are not ax-dns's memory.
    if not os.environ.get("AX_SANITIZED"):
        assert max(peaks.values()) < REFUSED_PEAK_MIB, peaks
    table.publish(44)
    wait_for("a good one after", lambda: answer(ax) == {"192.0.2.44"}, 10)


@pytest.mark.timeout(360)  # two apiserver start-ups on a busy machine
def test_apiserver_outage_then_a_too_old_watch(cluster, ax, table):
    # Writes ax-dns's watch does not select move the cluster's resourceVersion past
    # the one that watch holds, so after the restart its resume is too old (410
    # Gone) and it must list again to see the update made meanwhile.
    for i in range(5):
        cluster.apply(f"/api/v1/namespaces/{NS}/configmaps/filler-{i}",
                      {"apiVersion": "v1", "kind": "ConfigMap",
                       "metadata": {"name": f"filler-{i}", "namespace": NS},
                       "data": {"i": str(i)}})
    before = answer(ax)
    relists = ax.metric("ax_dns_snapshot_source_relists_total")

    cluster.stop_apiserver()
    down_at = time.monotonic()
    wait_for("ax-dns to notice the outage",
             lambda: ax.metric("ax_dns_snapshot_source_connected") == 0, 30)
    for _ in range(20):  # still answering, still ready
        assert answer(ax) == before
        time.sleep(0.1)  # on purpose: 2 s of the outage, answered throughout
    assert ax.http_get("/readyz")[0] == 200
    failures = ax.metric("ax_dns_snapshot_source_errors_total")
    assert failures >= 1

    cluster.start_apiserver()
    up_at = time.monotonic()
    table.publish(77)
    wait_for("the update after the outage", lambda: answer(ax) == {"192.0.2.77"}, 90)
    caught_up = time.monotonic()
    wait_for("the connected gauge",
             lambda: ax.metric("ax_dns_snapshot_source_connected") == 1, 10)
    print(f"\noutage {up_at - down_at:.1f} s (apiserver restart included); update "
          f"served {caught_up - up_at:.1f} s after the apiserver was back; "
          f"{ax.metric('ax_dns_snapshot_source_errors_total'):.0f} failed "
          f"lists/watches, relists {relists:.0f} -> "
          f"{ax.metric('ax_dns_snapshot_source_relists_total'):.0f}")
    assert ax.metric("ax_dns_snapshot_source_relists_total") > relists, \
        "the watch resumed instead of expiring: no 410 was forced"
    messages = [line.get("msg", "") for line in ax.log_lines()]
    assert any("cannot reach the Kubernetes API" in m for m in messages)
    assert any("watch expired" in m for m in messages)
    assert messages.count("snapshot source reaches the Kubernetes API") >= 2
