"""Canaries judged by Prometheus without Kubernetes (issue 18): a real ax-dns
--standalone reads the Canaries' spec.analysis.metrics from a real Prometheus (Debian's
package) scraping a real exporter whose per-node 5xx ratio the test sets, the same
reader ax-operator runs (signals/):

- a canary whose 5xx ratio rises from 0.1% to 2% (max 0.5%) mid-step is rolled back
  within its analysis interval of the breach showing in Prometheus: phase Failed, a
  CanaryFailed event naming the value and the limit, and no client of its region
  answered with its node;
- a canary at 0.1% promotes through its steps to Succeeded and 100%, each step held
  until a reading taken during it, the answers following.

Regions match by CIDR, so classification needs no geo data; the nodes have no health
checks (they count Up), so Prometheus is the only signal.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from axharness import AxDns, addresses, ask, make_query
from healthendpoint import cidr_region
from promharness import Exporter, Prometheus, assert_breach_message, five_xx_canary
from waiting import wait_for

NAME = "www.canary.test"
ADDRESS = {"a": "192.0.2.1", "b": "192.0.2.2", "c": "192.0.2.3"}
INTERVAL_S = 5  # spec.analysis.interval
FOR_S = 10      # the breach window (spec.analysis.metrics[].for)
PAUSE_S = 6


@pytest.fixture(scope="module")
def prometheus(tmp_path_factory):
    """(Prometheus, the exporter's 5xx ratio per node): every node at 0.1%."""
    exporter = Exporter({n: 0.001 for n in ADDRESS})
    try:
        prom = Prometheus(tmp_path_factory.mktemp("prometheus"), f"127.0.0.1:{exporter.port}")
        try:
            # A first value of every node's ratio: the rate needs two scrapes.
            wait_for("every ratio in Prometheus", lambda: all(
                prom.value(f'sum(rate(http_requests_total{{node="{n}"}}[10s]))')
                for n in ADDRESS), 30, 0.5)
            yield prom, exporter.ratios
        finally:
            prom.stop()
    finally:
        exporter.stop()


def start_ax_dns(workdir: Path, canary: dict) -> AxDns:
    """ax-dns --standalone over nodes a, b, c in region r (10/8) for www (one answer,
    WeightedRandom) and `canary`."""
    docs = [*({"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
               "metadata": {"name": n},
               "spec": {"addresses": [a], "isp": "any"}} for n, a in ADDRESS.items()),
            cidr_region("r", "10.0.0.0/8", list(ADDRESS), []),
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain",
             "metadata": {"name": "www"},
             "spec": {"fqdn": NAME, "zone": "canary.test", "strategy": "WeightedRandom",
                      "maxAnswers": 1}},
            canary]
    manifests = workdir / "manifests"
    manifests.mkdir()
    (manifests / "world.yaml").write_text("\n---\n".join(json.dumps(d) for d in docs))
    return AxDns(manifests, workdir / "run", geo_args=[]).start()


@pytest.fixture
def ax_dns(tmp_path: Path):
    """Starts ax-dns with a canary (call it with one); stops it after the test and
    checks that it exited cleanly."""
    started = []

    def start(canary: dict) -> AxDns:
        started.append(start_ax_dns(tmp_path, canary))
        return started[0]

    yield start
    for ax in started:
        ax.stop()
        ax.check_clean_exit()


def phase(ax: AxDns, canary: str) -> str | None:
    for p in ("Pending", "Progressing", "Paused", "Succeeded", "Failed"):
        if ax.metric("ax_dns_standalone_canary_phase", canary=canary, phase=p) == 1:
            return p
    return None


def percent(ax: AxDns, canary: str) -> float | None:
    return ax.metric("ax_dns_standalone_canary_percent", canary=canary)


def answered(ax: AxDns, node: str, count: int = 200) -> float:
    """The share of `count` distinct region-r client subnets answered with `node`."""
    hits = sum(ADDRESS[node] in addresses(
        ask(make_query(NAME, "A", ecs=f"10.{i // 256}.{i % 256}.0/24"), ax.port))
        for i in range(count))
    return hits / count


def events(ax: AxDns, canary: str) -> list[dict]:
    return [line for line in ax.log_lines()
            if line.get("msg") == "event" and line.get("object") == f"Canary/{canary}"]


def test_a_canary_over_its_5xx_threshold_is_rolled_back(prometheus, ax_dns):
    prom, ratios = prometheus
    ax = ax_dns(five_xx_canary("www-b", "www", "b", prom.url, ["r"],
                               [{"percent": 50, "pause": "10m"}, {"percent": 100}],
                               INTERVAL_S, FOR_S))
    wait_for("the first step", lambda: percent(ax, "www-b") == 50, 20)
    time.sleep(INTERVAL_S)  # read healthy at least once: the analysis runs
    assert phase(ax, "www-b") == "Progressing"
    assert 0.3 <= answered(ax, "b") <= 0.7  # half of r's clients, within sampling error
    ratios["b"] = 0.02  # the new build starts failing requests
    try:
        wait_for("Prometheus showing the breach",
                 lambda: prom.breach_shown("b", ["a", "c"], FOR_S), FOR_S + 30, 0.2)
        shown = time.monotonic()
        wait_for("the rollout failed", lambda: phase(ax, "www-b") == "Failed",
                 INTERVAL_S + 20, 0.2)
        took = time.monotonic() - shown
    finally:
        ratios["b"] = 0.001
    print(f"\nbreach visible in Prometheus -> Canary Failed in {took:.1f} s "
          f"(analysis interval {INTERVAL_S} s)")
    # The next reading after the breach shows, then one plan.
    assert took <= INTERVAL_S + 3
    assert percent(ax, "www-b") == 0
    failed = [e for e in events(ax, "www-b") if e["reason"] == "CanaryFailed"]
    assert failed, events(ax, "www-b")
    assert_breach_message(failed[0]["message"], "b", FOR_S)
    # The rolled-back node answers nobody in its region.
    assert answered(ax, "b") == 0


def test_a_canary_under_its_threshold_promotes(prometheus, ax_dns):
    prom, _ = prometheus
    ax = ax_dns(five_xx_canary("www-c", "www", "c", prom.url, ["r"],
                               [{"percent": 30, "pause": f"{PAUSE_S}s"}, {"percent": 100}],
                               INTERVAL_S, FOR_S))
    seen = set()

    def done():
        seen.add((phase(ax, "www-c"), percent(ax, "www-c")))
        return ("Succeeded", 100) in seen

    wait_for("the rollout succeeded", done, PAUSE_S + 2 * INTERVAL_S + 20, 0.2)
    assert ("Progressing", 30) in seen, seen
    reasons = [e["reason"] for e in events(ax, "www-c")]
    assert "CanarySucceeded" in reasons and "CanaryFailed" not in reasons, reasons
    # At 100% every client of the canary's region gets its node.
    wait_for("c answers all of r", lambda: answered(ax, "c") == 1.0, 10)
