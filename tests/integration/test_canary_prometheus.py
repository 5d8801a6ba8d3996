"""Canaries judged by Prometheus (issue 18): a real Prometheus (Debian's package)
scrapes a real exporter (prometheus_client, in this process) whose per-node request
counters grow at a 5xx ratio the test sets, and ax-operator on a real kube-apiserver
reads the Canaries' spec.analysis.metrics from it:

- a canary whose 5xx ratio rises from 0.1% to 2% (max 0.5%) during a step is rolled
  back within its analysis interval of the breach showing in Prometheus: phase Failed
  with the value in its Ready message, a CanaryFailed Event, the share back to 0 in
  the published table;
- a canary at 0.1% (under max, and under the baseline's 0.1% + maxOverBaseline)
  promotes through its steps to Succeeded and 100%, only after a reading taken
  during its step.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import pytest
from prometheus_client import CollectorRegistry, Counter, start_http_server

from axharness import free_port, stop_process
from operatorharness import NS, RBAC_DIR, AxOperator, route_table, token_kubeconfig
from axharness import REPO
from waiting import wait_for

INTERVAL_S = 5    # spec.analysis.interval
FOR_S = 10        # the breach window (spec.analysis.metrics[].for)
RATE_WINDOW = "10s"
REQUESTS_PER_S = 200
RATIO = ('sum(rate(http_requests_total{node="{{node}}",code=~"5.."}[%s])) / '
         'sum(rate(http_requests_total{node="{{node}}"}[%s]))' % (RATE_WINDOW, RATE_WINDOW))
# Requests that fail, per node: gz-02's rises to 2% during its rollout.
ERROR_RATIO = {"gz-01": 0.001, "gz-02": 0.001, "gz-03": 0.001}


class Exporter:
    """http_requests_total{node, code} growing REQUESTS_PER_S per node, ERROR_RATIO of
    them code 500, served at /metrics for Prometheus to scrape."""

    def __init__(self):
        self.registry = CollectorRegistry()
        self.requests = Counter("http_requests", "Requests served", ["node", "code"],
                                registry=self.registry)
        self.port = free_port()
        self.server, self.thread = start_http_server(self.port, addr="127.0.0.1",
                                                     registry=self.registry)
        self.stopping = threading.Event()
        self.ticker = threading.Thread(target=self._tick, daemon=True)
        self.ticker.start()

    def _tick(self):
        while not self.stopping.wait(0.1):
            for node, ratio in ERROR_RATIO.items():
                n = REQUESTS_PER_S / 10
                self.requests.labels(node, "500").inc(n * ratio)
                self.requests.labels(node, "200").inc(n * (1 - ratio))

    def stop(self):
        self.stopping.set()
        self.server.shutdown()


class Prometheus:
    """Debian's prometheus on a free loopback port, scraping `target` every second."""

    def __init__(self, workdir, target: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = workdir / "prometheus.yml"
        config.write_text(json.dumps({
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "scrape_configs": [{"job_name": "backends",
                                "static_configs": [{"targets": [target]}]}]}))
        self.log = workdir / "prometheus.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["prometheus", f"--config.file={config}",
                 f"--storage.tsdb.path={workdir / 'tsdb'}",
                 f"--web.listen-address=127.0.0.1:{self.port}"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for("prometheus ready", self._ready, 60, 0.2,
                 context=lambda: self.log.read_text()[-3000:])

    def _ready(self) -> bool:
        assert self.proc.poll() is None, self.log.read_text()[-3000:]
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def value(self, promql: str) -> float | None:
        q = urllib.parse.urlencode({"query": promql})
        with urllib.request.urlopen(f"{self.url}/api/v1/query?{q}", timeout=5) as r:
            result = json.loads(r.read())["data"]["result"]
        return float(result[0]["value"][1]) if result else None

    def stop(self):
        stop_process(self.proc)


def node(name: str) -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": name},
            "spec": {"addresses": [f"192.0.2.{10 + int(name[-1])}"], "isp": "any"}}


def domain(name: str) -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain", "metadata": {"name": name},
            "spec": {"fqdn": f"{name}.example.test", "zone": "example.test",
                     "strategy": "WeightedRandom", "maxAnswers": 2}}


def canary(name: str, dom: str, node_name: str, prometheus: str, pause: str = "5s") -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Canary", "metadata": {"name": name},
            "spec": {"domain": dom, "node": node_name, "regions": ["south"],
                     "steps": [{"percent": 10, "pause": pause}, {"percent": 50, "pause": pause},
                               {"percent": 100}],
                     "analysis": {"interval": f"{INTERVAL_S}s", "metrics": [{
                         "name": "http-5xx", "prometheus": prometheus, "query": RATIO,
                         "max": 0.005, "maxOverBaseline": 0.002, "for": f"{FOR_S}s"}]}}}


@pytest.fixture(scope="module")
def world(kube, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("canary-prometheus")
    exporter = Exporter()
    prom = None
    op = None
    try:
        prom = Prometheus(workdir, f"127.0.0.1:{exporter.port}")
        kube.apply_crds(REPO / "crds")
        kube.kubectl("create", "namespace", NS)
        kube.kubectl("apply", "-f", str(RBAC_DIR))
        objects = [node("gz-01"), node("gz-02"), node("gz-03"), domain("www"), domain("api"),
                   {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Region",
                    "metadata": {"name": "south"},
                    "spec": {"isp": "any", "match": {"default": True},
                             "nodes": ["gz-01", "gz-02", "gz-03"]}}]
        kube.kubectl("apply", "-n", NS, "-f", "-",
                     input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
        kubeconfig = token_kubeconfig(kube, "ax-operator", workdir / "op.kubeconfig")
        op = AxOperator(kubeconfig, workdir, "op-canary").start()
        wait_for("a published table", lambda: route_table(kube), 30)
        yield kube, prom
    finally:
        if op:
            op.stop()
        if prom:
            prom.stop()
        exporter.stop()


def canary_status(kube, name: str) -> dict:
    return json.loads(kube.kubectl("get", "canary", name, "-n", NS, "-o", "json").stdout
                      ).get("status", {})


def served_percent(kube, name: str) -> float:
    _, doc = route_table(kube)
    return next((c["percent"] for c in doc.get("canaries", []) if c["name"] == name), 0.0)


def events(kube, name: str) -> list[str]:
    items = json.loads(kube.kubectl("get", "events", "-n", NS, "-o", "json").stdout)["items"]
    return [e["reason"] for e in items if e["involvedObject"]["name"] == name]


def test_a_canary_over_its_5xx_threshold_is_rolled_back(world):
    kube, prom = world
    kube.kubectl("apply", "-n", NS, "-f", "-", input=json.dumps(
        canary("www-gz-02", "www", "gz-02", prom.url, pause="10m")))
    wait_for("the first step", lambda: served_percent(kube, "www-gz-02") == 10, 20)
    time.sleep(INTERVAL_S)  # read healthy at least once: the analysis runs
    assert canary_status(kube, "www-gz-02")["phase"] == "Progressing"
    ERROR_RATIO["gz-02"] = 0.02  # the new build starts failing requests

    def window(fn: str, node_name: str) -> float:
        return prom.value(f"{fn}(({RATIO.replace('{{node}}', node_name)})[{FOR_S}s:1s])") or 0

    def breached() -> bool:
        """Either limit crossed, as Prometheus shows it now: gz-02's lowest over the
        window above max, or above the baseline's (gz-01, gz-03) highest by more than
        maxOverBaseline."""
        low = window("min_over_time", "gz-02")
        baseline = (window("max_over_time", "gz-01") + window("max_over_time", "gz-03")) / 2
        return low > 0.005 or low - baseline > 0.002

    wait_for("Prometheus showing the breach", breached, FOR_S + 30, 0.2)
    shown = time.monotonic()
    wait_for("the rollout failed", lambda: canary_status(kube, "www-gz-02").get(
        "phase") == "Failed", INTERVAL_S + 20, 0.2)
    took = time.monotonic() - shown
    print(f"\nbreach visible in Prometheus -> Canary Failed in {took:.1f} s "
          f"(analysis interval {INTERVAL_S} s)")
    # The next reading after the breach shows, then one plan (3 s: the reading's own
    # subquery steps, the status write, a loaded machine).
    assert took <= INTERVAL_S + 3
    status = canary_status(kube, "www-gz-02")
    assert status["percent"] == 0
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert ready["reason"] == "AnalysisFailed"
    m = re.match(rf"metric http-5xx of Node gz-02 is ([0-9.e-]+) throughout the last "
                 rf"{FOR_S}s, (above spec.analysis.metrics\[http-5xx\].max 0.005|the "
                 rf"baseline's ([0-9.e-]+): more than spec.analysis.metrics\[http-5xx\]."
                 rf"maxOverBaseline 0.002 above);", ready["message"])
    assert m, ready["message"]
    value, baseline = float(m[1]), float(m[3] or 0)
    assert value > 0.005 or value - baseline > 0.002, ready["message"]
    wait_for("the share back to 0 in the table",
             lambda: served_percent(kube, "www-gz-02") == 0, 10)
    assert "CanaryFailed" in events(kube, "www-gz-02")


def test_a_canary_under_its_threshold_promotes(world):
    kube, prom = world
    kube.kubectl("apply", "-n", NS, "-f", "-",
                 input=json.dumps(canary("api-gz-03", "api", "gz-03", prom.url)))
    seen = set()

    def done():
        s = canary_status(kube, "api-gz-03")
        seen.add((s.get("phase"), s.get("percent")))
        return s.get("phase") == "Succeeded"

    # Two 5 s pauses, each step waiting for a reading taken after it began.
    wait_for("the rollout succeeded", done, 3 * INTERVAL_S + 30, 0.2)
    assert ("Progressing", 10) in seen and ("Progressing", 50) in seen, seen
    assert served_percent(kube, "api-gz-03") == 100
    reasons = events(kube, "api-gz-03")
    assert "CanarySucceeded" in reasons and "CanaryFailed" not in reasons, reasons
