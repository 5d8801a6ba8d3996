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
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics)
from prometheus_client.parser import text_string_to_metric_families as parse_prometheus

from axharness import REPO, HarnessError, stop_process

FAILURE_THRESHOLD = 3
SUCCESS_THRESHOLD = 4
NODES = ("n1", "n2", "n3")
VANTAGE = "it-probe-a"


def ax_probe_binary() -> Path:
    """AX_PROBE_BIN (set by ctest), else the dev preset's build."""
    env = os.environ.get("AX_PROBE_BIN")
    path = Path(env) if env else REPO / "build" / "dev" / "probe" / "ax-probe"
    if not path.is_file() or not os.access(path, os.X_OK):
        raise HarnessError(f"ax-probe binary not found at {path}: build it or set AX_PROBE_BIN")
    return path


class Backend:
    """A health endpoint answering `status`; records (time, status) of every hit."""

    def __init__(self) -> None:
        self.status = 200
        self.hits: list[tuple[float, int]] = []
        self.lock = threading.Lock()
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                with backend.lock:
                    status = backend.status
                    backend.hits.append((time.time(), status))
                body = b'{"bandwidth_mbps": 12.5, "connections": 7}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def set_status(self, status: int) -> float:
        with self.lock:
            self.status = status
            return time.time()

    def hits_since(self, t: float, status: int | None = None) -> list[float]:
        with self.lock:
            return [at for at, s in self.hits if at >= t and (status is None or s == status)]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def node_manifest(name: str, port: int) -> str:
    return f"""apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata:
  name: {name}
spec:
  addresses: ["192.0.2.{NODES.index(name) + 1}"]
  area: test
  healthCheck:
    protocol: HTTP
    address: 127.0.0.1
    port: {port}
    path: /healthz
    timeout: 200ms
    interval: 200ms
    failureThreshold: {FAILURE_THRESHOLD}
    successThreshold: {SUCCESS_THRESHOLD}
"""


def rfc3339_seconds(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class AxProbe:
    """One ax-probe process; its stdout reports are collected as (time, document)."""

    def __init__(self, manifests: Path, workdir: Path, extra: list[str] | None = None):
        self.log_path = workdir / "ax-probe.log"
        self.reports: list[tuple[float, dict]] = []
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        cmd = [str(ax_probe_binary()), "--manifests", str(manifests), "--vantage", VANTAGE,
               "--http-listen", "127.0.0.1:0", "--reload-debounce", "50ms"] + (extra or [])
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log,
                                         stdin=subprocess.DEVNULL)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.http = self._wait_http()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            doc = json.loads(raw)  # a broken line fails the wait below with context
            with self.cond:
                self.reports.append((time.time(), doc))
                self.cond.notify_all()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def _wait_http(self, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError(f"ax-probe exited with {self.proc.returncode}:\n{self.log()}")
            for raw in self.log().splitlines():
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                if line.get("msg") == "http listening":
                    return line["address"]
            time.sleep(0.05)
        raise HarnessError(f"ax-probe did not listen in time:\n{self.log()}")

    def wait_report(self, pred, timeout: float = 15.0, after: int = 0) -> tuple[int, dict]:
        """The first report (index >= after) whose results satisfy pred(results by node)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(after, len(self.reports)):
                    doc = self.reports[i][1]
                    if pred({r["node"]: r for r in doc["spec"]["results"]}):
                        return i, doc
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.reports[-1][1] if self.reports else None
                    raise AssertionError(f"no matching report; last: {last}\n{self.log()[-4000:]}")
                self.cond.wait(left)

    def count(self) -> int:
        with self.lock:
            return len(self.reports)

    def get(self, path: str, accept: str | None = None) -> tuple[int, str, str]:
        req = urllib.request.Request(f"http://{self.http}{path}")
        if accept:
            req.add_header("Accept", accept)
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    def stop(self) -> int | None:
        stop_process(self.proc)
        return self.proc.returncode


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
        (d / f"node-{name}.yaml").write_text(node_manifest(name, b.port))
    return d


@pytest.fixture
def probe(tmp_path, manifests):
    p = AxProbe(manifests, tmp_path)
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
    # Two rounds at least, so every node has phase samples.
    time.sleep(0.5)
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
    _, _, text = probe.get("/metrics")
    assert 'node="n3"' not in text
    # Probing of n3 stops: at most one probe already under way when it went.
    time.sleep(1.0)
    assert len(backends["n3"].hits_since(gone_at)) <= 1
    assert len(backends["n1"].hits_since(gone_at)) >= 3


def test_report_file_is_replaced_and_heartbeat_rewrites_it(tmp_path, manifests):
    report = tmp_path / "report.json"
    p = AxProbe(manifests, tmp_path, ["--report", str(report), "--heartbeat", "300ms"])
    try:
        deadline = time.monotonic() + 15
        seen = []
        while time.monotonic() < deadline and len(set(seen)) < 4:
            if report.exists():
                doc = json.loads(report.read_text())  # never half a document
                seen.append(doc["spec"]["observedAt"])
            time.sleep(0.05)
        # Health settles at once; the later rewrites are heartbeats.
        assert len(set(seen)) >= 4, seen
        results = {r["node"]: r for r in json.loads(report.read_text())["spec"]["results"]}
        assert all(r["health"] == "Up" for r in results.values())
        assert [f.name for f in tmp_path.iterdir() if ".tmp." in f.name] == []
        assert p.count() == 0  # nothing on stdout
    finally:
        rc = p.stop()
    assert rc == 0, p.log()[-4000:]
