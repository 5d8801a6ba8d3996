"""Canaries judged by the error rate nodes report in their health JSON (issue 18), on a
real ax-dns --standalone whose probes read real HTTP health endpoints (served here, one
per node, on free loopback ports), no Kubernetes and no Prometheus:

- a canary node reporting {"errorRate": 0.002} beside a baseline at 0.001 (limits: max
  0.005, maxOverBaseline 0.003) promotes through its steps to Succeeded and 100%, the
  answers following;
- one whose reported rate rises to 2% mid-step is rolled back within a few probe
  intervals (the moved rate plans again at once): phase Failed, share 0;
- a rolled-back canary node answers no client of its regions.

Regions match by CIDR, so classification needs no geo data.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from axharness import AxDns, addresses, ask, make_query
from healthendpoint import HealthEndpoint, cidr_region, probed_node, probing_ax_dns
from waiting import wait_for

NAME = "www.canary.test"
A, B = "192.0.2.1", "192.0.2.2"
STEP_PAUSE_S = 6
CANARY = "b-rollout"


@pytest.fixture
def world(tmp_path: Path):
    """(ax-dns, endpoints by node): region r (a, b; 10/8), www answers one address;
    Canary b-rollout puts b in at 50% for STEP_PAUSE_S, then 100%, judged by the error
    rate the nodes report."""
    endpoints = {n: HealthEndpoint() for n in ("a", "b")}
    endpoints["a"].error_rate = 0.001
    docs = [probed_node("a", A, endpoints["a"].port),
            probed_node("b", B, endpoints["b"].port),
            cidr_region("r", "10.0.0.0/8", ["a", "b"], []),
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain",
             "metadata": {"name": "www"},
             "spec": {"fqdn": NAME, "zone": "canary.test", "strategy": "WeightedRandom",
                      "maxAnswers": 1}},
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Canary",
             "metadata": {"name": CANARY},
             "spec": {"domain": "www", "node": "b", "regions": ["r"],
                      "steps": [{"percent": 50, "pause": f"{STEP_PAUSE_S}s"},
                                {"percent": 100}],
                      "analysis": {"errorRate": {"max": 0.005,
                                                 "maxOverBaseline": 0.003}}}}]
    # Started by each test, once b reports the rate it starts with.
    with probing_ax_dns(tmp_path, docs, endpoints, start=False) as ax:
        yield ax, endpoints


def phase(ax: AxDns) -> str | None:
    for p in ("Pending", "Progressing", "Paused", "Succeeded", "Failed"):
        if ax.metric("ax_dns_standalone_canary_phase", canary=CANARY, phase=p) == 1:
            return p
    return None


def percent(ax: AxDns) -> float | None:
    return ax.metric("ax_dns_standalone_canary_percent", canary=CANARY)


def answered_b(ax: AxDns, count: int = 200) -> float:
    """The share of `count` distinct region-r client subnets answered with b."""
    hits = sum(B in addresses(ask(make_query(NAME, "A", ecs=f"10.{i // 256}.{i % 256}.0/24"),
                                  ax.port))
               for i in range(count))
    return hits / count


def start_at_first_step(world, b_error_rate: float) -> tuple:
    """Starts ax-dns with b reporting `b_error_rate`; returns once the rollout is at
    its first step (50%)."""
    ax, endpoints = world
    endpoints["b"].error_rate = b_error_rate
    ax.start()
    wait_for("the rollout at its first step",
             lambda: phase(ax) == "Progressing" and percent(ax) == 50, timeout=20)
    return ax, endpoints


def test_a_canary_under_its_error_rate_limits_promotes(world):
    # The first step starts after this moment (ax-dns plans it once it runs), so the
    # rollout must still be at 50% until this moment plus the pause. Timing from when
    # the test first saw 50% instead would count a slow start against the pause.
    before_start = time.monotonic()
    ax, _ = start_at_first_step(world, 0.002)
    share = answered_b(ax)
    assert 0.3 <= share <= 0.7, share  # half of r's clients, within sampling error
    still_holding = before_start + STEP_PAUSE_S - 0.5
    assert time.monotonic() < still_holding, "ax-dns started too slowly to see the hold"
    time.sleep(max(0.0, still_holding - time.monotonic()))
    assert (phase(ax), percent(ax)) == ("Progressing", 50)  # it holds for its pause
    wait_for("promoted", lambda: phase(ax) == "Succeeded", timeout=STEP_PAUSE_S + 15)
    assert percent(ax) == 100
    # At 100% every client of the canary's region gets its node.
    wait_for("b answers all of r", lambda: answered_b(ax) == 1.0, timeout=10)


def test_a_canary_whose_reported_error_rate_rises_is_rolled_back(world):
    ax, endpoints = start_at_first_step(world, 0.001)
    assert answered_b(ax) > 0.3
    endpoints["b"].error_rate = 0.02
    breached = time.monotonic()
    wait_for("rolled back", lambda: phase(ax) == "Failed", timeout=10)
    took = time.monotonic() - breached
    # A probe every 300 ms reads it, the moved rate plans again at once (not at the
    # 10 s rebuild), and the plan judges it.
    assert took < 3, took
    assert percent(ax) == 0


def test_a_rolled_back_canary_node_is_not_answered(world):
    # A 0% canary stays in the table, holding its node out of its Regions' members:
    # left out, the node would be answered as a plain member (half of r's clients).
    ax, endpoints = world
    endpoints["b"].error_rate = 0.02
    ax.start()
    wait_for("rolled back", lambda: phase(ax) == "Failed", timeout=20)
    assert answered_b(ax) == 0
