"""ax-probe against real HTTP backends on loopback (Python threads, port 0).

Each test starts three backends and one ax-probe over a manifests directory with one
Node per backend (healthCheck.address 127.0.0.1, interval and timeout 200ms, fail 3 / rise 4),
reading the reports ax-probe writes to stdout (one JSON per line, written at once on a
health change). Backends count their hits with timestamps, so "Down after exactly
failureThreshold probes" is checked against what the backend saw, not what ax-probe
says about itself. Every process is stopped by its PID.
"""

from __future__ import annotations

import json
import time

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics)
from prometheus_client.parser import text_string_to_metric_families as parse_prometheus

from probeharness import AxProbe, Backend, node_manifest, rfc3339_seconds
from waiting import wait_for

FAILURE_THRESHOLD = 3
SUCCESS_THRESHOLD = 4
NODES = ("n1", "n2", "n3")
VANTAGE = "it-probe-a"


@pytest.fixture
def backends():
    started = {name: Backend() for name in NODES}
    yield started
    for b in started.values():
        b.stop()


@pytest.fixture
def manifests(tmp_path, backends):
    d = tmp_path / "manifests"
    d.mkdir()
    for name, b in backends.items():
        (d / f"node-{name}.yaml").write_text(node_manifest(
            name, NODES.index(name), b.port, interval_ms=200, timeout_ms=200,
            failure_threshold=FAILURE_THRESHOLD, success_threshold=SUCCESS_THRESHOLD))
    return d


@pytest.fixture
def probe(tmp_path, manifests):
    p = AxProbe(manifests, tmp_path, vantage=VANTAGE)
    yield p
    rc = p.stop()
    assert rc == 0, f"ax-probe exited with {rc} after SIGTERM:\n{p.log()[-4000:]}"


def all_up(results: dict) -> bool:
    return set(results) == set(NODES) and all(r["health"] == "Up" for r in results.values())


def test_report_names_every_node_up_with_phases(probe):
    _, doc = probe.wait_report(all_up)
    assert doc["apiVersion"] == "gslb.ax.io/v1alpha1"
    assert doc["kind"] == "ProbeReport"
    assert doc["metadata"]["name"] == VANTAGE
    assert doc["spec"]["vantage"] == VANTAGE
    assert abs(rfc3339_seconds(doc["spec"]["observedAt"]) - time.time()) < 30
    assert [r["node"] for r in doc["spec"]["results"]] == sorted(NODES)
    for r in doc["spec"]["results"]:
        assert r["up"] is True
        phases = r["phases"]
        assert set(phases) == {"connectMs", "firstByteMs", "totalMs"}, r
        assert 0 <= phases["connectMs"] <= phases["firstByteMs"] <= phases["totalMs"] < 1000
        assert r["latencyMs"] >= 0
        assert r["load"] == {"bandwidthMbps": 12.5, "connections": 7}
        assert "error" not in r
        assert r["consecutiveSuccesses"] >= 1
        assert r["transitions"] == 0
        assert "healthChangedAt" in r
    status, _, body = probe.get("/readyz")
    assert status == 200, body
    assert probe.get("/healthz")[0] == 200


def test_down_after_exactly_failure_threshold_and_back_after_success_threshold(
        probe, backends):
    probe.wait_report(all_up)
    n2 = backends["n2"]
    failing_since = n2.set_status(500)
    i, doc = probe.wait_report(lambda r: r["n2"]["health"] == "Down")
    n2_report = {r["node"]: r for r in doc["spec"]["results"]}["n2"]
    observed = rfc3339_seconds(doc["spec"]["observedAt"])
    failed = n2.hits_since(failing_since, 500)
    # Written at once on the change: after the third failing hit, before a fourth.
    assert len(failed) >= FAILURE_THRESHOLD
    assert failed[FAILURE_THRESHOLD - 1] <= observed + 0.01, (failed, observed)
    if len(failed) > FAILURE_THRESHOLD:
        assert observed < failed[FAILURE_THRESHOLD], (failed, observed)
    assert n2_report["consecutiveFailures"] == FAILURE_THRESHOLD
    assert n2_report["up"] is False
    assert n2_report["error"] == "status"
    assert n2_report["errorDetail"] == "unexpected status 500"
    assert n2_report["transitions"] == 1
    # The others were not disturbed.
    assert all(r["health"] == "Up" for r in doc["spec"]["results"] if r["node"] != "n2")

    recovering_since = n2.set_status(200)
    _, doc = probe.wait_report(lambda r: r["n2"]["health"] == "Up", after=i)
    n2_report = {r["node"]: r for r in doc["spec"]["results"]}["n2"]
    observed = rfc3339_seconds(doc["spec"]["observedAt"])
    good = n2.hits_since(recovering_since, 200)
    assert len(good) >= SUCCESS_THRESHOLD
    assert good[SUCCESS_THRESHOLD - 1] <= observed + 0.01, (good, observed)
    if len(good) > SUCCESS_THRESHOLD:
        assert observed < good[SUCCESS_THRESHOLD], (good, observed)
    assert n2_report["consecutiveSuccesses"] == SUCCESS_THRESHOLD
    assert n2_report["transitions"] == 2
    assert "error" not in n2_report

    # The failures are counted by reason in the metrics.
    _, _, text = probe.get("/metrics")
    errors = {tuple(sorted(s.labels.items())): s.value
              for f in parse_prometheus(text) if f.name == "ax_probe_errors"
              for s in f.samples}
    assert errors[(("node", "n2"), ("reason", "status"))] >= FAILURE_THRESHOLD


def test_metrics_parse_as_openmetrics_with_labels(probe, backends):
    probe.wait_report(all_up)
    # Two rounds at least, so every node has phase samples: a backend's second hit
    # from now comes after its first probe from now has ended.
    now = time.time()
    wait_for("two more probes of every node",
             lambda: all(len(b.hits_since(now)) >= 2 for b in backends.values()), 5)
    status, ctype, text = probe.get("/metrics", "application/openmetrics-text; version=1.0.0")
    assert status == 200
    assert ctype.startswith("application/openmetrics-text")
    assert text.endswith("# EOF\n")
    families = {f.name: f for f in parse_openmetrics(text)}
    assert families["ax_probe_up"].type == "gauge"
    up = {s.labels["node"]: s for s in families["ax_probe_up"].samples}
    assert set(up) == set(NODES)
    for s in up.values():
        assert s.labels == {"node": s.labels["node"], "vantage": VANTAGE}
        assert s.value == 1
    health = {s.labels["node"]: s.value for s in families["ax_node_health_state"].samples}
    assert health == {n: 1 for n in NODES}

    duration = families["ax_probe_duration_seconds"]
    assert duration.type == "histogram"
    assert duration.unit == "seconds"
    phases = {(s.labels["node"], s.labels["phase"])
              for s in duration.samples if s.name.endswith("_count")}
    for node in NODES:
        for phase in ("connect", "first_byte", "transfer", "total"):
            assert (node, phase) in phases
    buckets = sorted({float(s.labels["le"]) for s in duration.samples
                      if s.name.endswith("_bucket")})
    assert buckets[0] == 0.001 and buckets[-2] == 10 and buckets[-1] == float("inf")

    # No probe failed: the errors family carries no samples and the parser may
    # leave it out; when present it is a counter.
    if "ax_probe_errors" in families:
        assert families["ax_probe_errors"].type == "counter"
    changes = {s.labels["node"]: s.value for s in families["ax_probe_state_changes"].samples
               if s.name.endswith("_total")}
    assert changes == {n: 1 for n in NODES}  # Unknown -> Up only
    connections = [s for s in families["ax_probe_connections"].samples
                   if s.name.endswith("_total")]
    assert connections[0].value >= 2 * len(NODES)
    for name, family in families.items():
        assert name.startswith(("ax_probe_", "ax_node_")), name
        if family.type == "counter":
            assert all(s.name.endswith(("_total", "_created")) for s in family.samples)

    # The same numbers in Prometheus text for a plain scrape.
    status, ctype, text = probe.get("/metrics")
    assert ctype.startswith("text/plain; version=0.0.4")
    names = {f.name for f in parse_prometheus(text)}
    assert {"ax_probe_up", "ax_probe_duration_seconds", "ax_node_health_state"} <= names


def test_deleted_node_disappears(probe, manifests, backends):
    i, _ = probe.wait_report(all_up)
    (manifests / "node-n3.yaml").unlink()
    _, doc = probe.wait_report(lambda r: "n3" not in r, after=i + 1, timeout=10)
    assert [r["node"] for r in doc["spec"]["results"]] == ["n1", "n2"]
    gone_at = time.time()
    # The report follows the new node set at once; the engine drops n3's state (what
    # /metrics reads) on its own thread's next turn, a moment later.
    wait_for("n3 gone from /metrics", lambda: 'node="n3"' not in probe.get("/metrics")[2],
             2.0)
    # Probing of n3 stops: at most one probe already under way when it went. On
    # purpose: a second (five intervals) in which n3 must see no more probes.
    time.sleep(1.0)
    assert len(backends["n3"].hits_since(gone_at)) <= 1
    assert len(backends["n1"].hits_since(gone_at)) >= 3


def test_report_file_is_replaced_and_heartbeat_rewrites_it(tmp_path, manifests):
    report = tmp_path / "report.json"
    p = AxProbe(manifests, tmp_path, ["--report", str(report), "--heartbeat", "300ms"],
                vantage=VANTAGE)
    try:
        seen = set()

        def four_rewrites() -> bool:
            if report.exists():
                doc = json.loads(report.read_text())  # never half a document
                seen.add(doc["spec"]["observedAt"])
            return len(seen) >= 4

        # Health settles at once; the later rewrites are heartbeats.
        wait_for("four distinct report files", four_rewrites, 15,
                 context=lambda: f"observedAt seen: {sorted(seen)}")
        results = {r["node"]: r for r in json.loads(report.read_text())["spec"]["results"]}
        assert all(r["health"] == "Up" for r in results.values())
        assert [f.name for f in tmp_path.iterdir() if ".tmp." in f.name] == []
        assert p.count() == 0  # nothing on stdout
    finally:
        rc = p.stop()
    assert rc == 0, p.log()[-4000:]
