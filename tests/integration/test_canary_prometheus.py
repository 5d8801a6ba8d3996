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
import time

import pytest

from axharness import REPO
from operatorharness import NS, RBAC_DIR, AxOperator, route_table, token_kubeconfig
from promharness import Exporter, Prometheus, assert_breach_message, five_xx_canary
from waiting import wait_for

INTERVAL_S = 5    # spec.analysis.interval
FOR_S = 10        # the breach window (spec.analysis.metrics[].for)
# Requests that fail, per node: gz-02's rises to 2% during its rollout.
ERROR_RATIO = {"gz-01": 0.001, "gz-02": 0.001, "gz-03": 0.001}


def node(name: str) -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": name},
            "spec": {"addresses": [f"192.0.2.{10 + int(name[-1])}"], "isp": "any"}}


def domain(name: str) -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain", "metadata": {"name": name},
            "spec": {"fqdn": f"{name}.example.test", "zone": "example.test",
                     "strategy": "WeightedRandom", "maxAnswers": 2}}


def canary(name: str, dom: str, node_name: str, prometheus: str, pause: str = "5s") -> dict:
    return five_xx_canary(name, dom, node_name, prometheus, ["south"],
                          [{"percent": 10, "pause": pause}, {"percent": 50, "pause": pause},
                           {"percent": 100}], INTERVAL_S, FOR_S)


@pytest.fixture(scope="module")
def world(kube, tmp_path_factory):
    workdir = tmp_path_factory.mktemp("canary-prometheus")
    exporter = Exporter(ERROR_RATIO)
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

    wait_for("Prometheus showing the breach",
             lambda: prom.breach_shown("gz-02", ["gz-01", "gz-03"], FOR_S),
             FOR_S + 30, 0.2)
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
    assert_breach_message(ready["message"], "gz-02", FOR_S)
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
