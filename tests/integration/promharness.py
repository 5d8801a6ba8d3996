"""A real Prometheus (Debian's package) scraping a real exporter, for the suites that
judge Canaries by PromQL: the exporter serves http_requests_total{node, code} growing
REQUESTS_PER_S per node with a 5xx share a test sets per node; Prometheus scrapes it
every second. `five_xx_canary` is a Canary judged by the 5xx ratio, `breach_shown` says
when Prometheus itself shows its limit crossed for the whole window (the moment the
analysis can see it)."""

from __future__ import annotations

import json
import re
import subprocess
import threading
import urllib.parse
import urllib.request
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, start_http_server

from axharness import free_port, stop_process
from waiting import wait_for

REQUESTS_PER_S = 200
MAX = 0.005                # five_xx_canary's limits
MAX_OVER_BASELINE = 0.002
RATE_WINDOW = "10s"
RATIO = ('sum(rate(http_requests_total{node="{{node}}",code=~"5.."}[%s])) / '
         'sum(rate(http_requests_total{node="{{node}}"}[%s]))' % (RATE_WINDOW, RATE_WINDOW))


def five_xx_canary(name: str, domain: str, node: str, prometheus: str, regions: list[str],
                   steps: list[dict], interval_s: int, for_s: int) -> dict:
    """A Canary of `node` judged by its 5xx ratio (RATIO) in `prometheus`: rolled back
    above 0.5%, or above the baseline's by more than 0.2 points, throughout `for_s`."""
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Canary", "metadata": {"name": name},
            "spec": {"domain": domain, "node": node, "regions": regions, "steps": steps,
                     "analysis": {"interval": f"{interval_s}s", "metrics": [{
                         "name": "http-5xx", "prometheus": prometheus, "query": RATIO,
                         "max": MAX, "maxOverBaseline": MAX_OVER_BASELINE,
                         "for": f"{for_s}s"}]}}}


def assert_breach_message(message: str, node: str, for_s: int) -> None:
    """`message` (a failed rollout's Ready condition) names `node`'s value throughout
    the window and the limit it crossed, and the value does cross it."""
    m = re.match(rf"metric http-5xx of Node {node} is ([0-9.e-]+) throughout the last "
                 rf"{for_s}s, (above spec.analysis.metrics\[http-5xx\].max {MAX}|the "
                 rf"baseline's ([0-9.e-]+): more than spec.analysis.metrics\[http-5xx\]."
                 rf"maxOverBaseline {MAX_OVER_BASELINE} above);", message)
    assert m, message
    value, baseline = float(m[1]), float(m[3] or 0)
    assert value > MAX or value - baseline > MAX_OVER_BASELINE, message


def ratio_query(node: str) -> str:
    """RATIO for one node, as the analysis fills in {{node}}."""
    return RATIO.replace("{{node}}", node)


class Exporter:
    """http_requests_total{node, code} growing REQUESTS_PER_S per node of `ratios`,
    that node's share of them code 500, served at /metrics; change `ratios[node]` to
    make a node fail more."""

    def __init__(self, ratios: dict[str, float]):
        self.ratios = ratios
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
            for node, ratio in list(self.ratios.items()):
                n = REQUESTS_PER_S / 10
                self.requests.labels(node, "500").inc(n * ratio)
                self.requests.labels(node, "200").inc(n * (1 - ratio))

    def stop(self):
        self.stopping.set()
        self.server.shutdown()
        self.ticker.join()


class Prometheus:
    """Debian's prometheus on a free loopback port, scraping `target` every second."""

    def __init__(self, workdir: Path, target: str):
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
        try:
            wait_for("prometheus ready", self._ready, 60, 0.2,
                     context=lambda: self.log.read_text()[-3000:])
        except Exception:
            self.stop()
            raise

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

    def breach_shown(self, node: str, baseline: list[str], for_s: int) -> bool:
        """Either of five_xx_canary's limits crossed throughout the last `for_s`, as
        Prometheus shows it now: `node`'s lowest over the window above MAX, or above
        the baseline nodes' mean of their highest by more than MAX_OVER_BASELINE."""
        def window(fn: str, n: str) -> float:
            return self.value(f"{fn}(({ratio_query(n)})[{for_s}s:1s])") or 0

        low = window("min_over_time", node)
        base = sum(window("max_over_time", n) for n in baseline) / len(baseline)
        return low > MAX or low - base > MAX_OVER_BASELINE

    def stop(self):
        stop_process(self.proc)
