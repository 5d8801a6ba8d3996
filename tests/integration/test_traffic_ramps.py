"""Traffic that ramps instead of jumping (issue 18), on a real ax-dns --standalone that
probes real HTTP health endpoints (served here, one per node, on free loopback ports):

- slow start: a node whose endpoint fails and recovers comes back to a share of client
  subnets that follows the Domain's slowStartSeconds ramp, sampled over hundreds of ECS
  /24s at several moments of the window;
- spill-over: nodes whose health JSON reports load past the knee send the share of
  their region's clients that (u - 0.8) / u predicts to the fallback region, counted in
  ax_dns_spillover_answers_total and explained by /v1/explain.

Regions match by CIDR, so classification needs no geo data. Shares are compared with
what the snapshot's own ramp start (read back through /v1/explain) predicts at the
moment of each sample, within binomial sampling error.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from axharness import AxDns, addresses, ask, make_query
from healthendpoint import HealthEndpoint, cidr_region, probed_node, probing_ax_dns
from waiting import wait_for

NAME = "www.ramp.test"
A, B, C = "192.0.2.1", "192.0.2.2", "192.0.2.3"
SLOW_START_S = 24
SAMPLES = 600  # distinct client /24s per sample


@pytest.fixture
def world(tmp_path: Path):
    """(ax-dns, endpoints by node): region r (a, b; 10/8) falls back to f (c; 172.16/12);
    www answers one address, WeightedRandom, with a slow start."""
    endpoints = {n: HealthEndpoint() for n in ("a", "b", "c")}
    docs = [probed_node("a", A, endpoints["a"].port),
            probed_node("b", B, endpoints["b"].port),
            probed_node("c", C, endpoints["c"].port),
            cidr_region("r", "10.0.0.0/8", ["a", "b"], ["f"]),
            cidr_region("f", "172.16.0.0/12", ["c"], []),
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain",
             "metadata": {"name": "www"},
             "spec": {"fqdn": NAME, "zone": "ramp.test", "strategy": "WeightedRandom",
                      "maxAnswers": 1, "slowStartSeconds": SLOW_START_S}}]
    with probing_ax_dns(tmp_path, docs, endpoints) as ax:
        yield ax, endpoints


def client_subnet(i: int) -> str:
    return f"10.{i // 256}.{i % 256}.0/24"


def shares(ax: AxDns, count: int = SAMPLES) -> dict[str, float]:
    """The share of `count` distinct region-r client subnets answered with each address."""
    seen: dict[str, int] = {}
    for i in range(count):
        for address in addresses(ask(make_query(NAME, "A", ecs=client_subnet(i)), ax.port)):
            seen[address] = seen.get(address, 0) + 1
    return {a: n / count for a, n in seen.items()}


def explain(ax: AxDns, ecs: str = "10.0.0.0/24") -> dict:
    status, body = ax.http_get(f"/v1/explain?name={NAME}&client=127.0.0.1&ecs={ecs}")
    assert status == 200, body
    return json.loads(body)


def tolerance(p: float, n: int = SAMPLES) -> float:
    """Four binomial standard deviations, plus the ramp moving while we sample."""
    return 4 * math.sqrt(max(p * (1 - p), 0.01) / n) + 0.03


def ramp_start_ms(ax: AxDns) -> int | None:
    for c in explain(ax)["candidates"]:
        if c["node"] == "b" and "slowStart" in c:
            return c["slowStart"]["upSinceMs"]
    return None


def test_recovered_node_ramps_over_the_slow_start_window(world):
    ax, endpoints = world
    wait_for("both nodes of r answered",
             lambda: set(shares(ax, 100)) == {A, B}, timeout=20)
    endpoints["b"].status = 503
    wait_for("b out of the answers", lambda: B not in shares(ax, 50), timeout=20)
    endpoints["b"].status = 200
    wait_for("b ramping", lambda: ramp_start_ms(ax) is not None, timeout=20)
    start = ramp_start_ms(ax) / 1000
    observed = []
    for target in (0.25, 0.5, 0.75):
        time.sleep(max(0.0, start + target * SLOW_START_S - time.time()))
        before = time.time()
        got = shares(ax).get(B, 0.0)
        middle = (before + time.time()) / 2
        # Half of the answers once ramped (two equal nodes), the ramp's share of that.
        expected = 0.5 * min(1.0, (middle - start) / SLOW_START_S)
        observed.append((round(middle - start, 1), got, round(expected, 3)))
        assert abs(got - expected) <= tolerance(expected), observed
    time.sleep(max(0.0, start + SLOW_START_S - time.time()))
    assert abs(shares(ax).get(B, 0.0) - 0.5) <= tolerance(0.5)
    assert ramp_start_ms(ax) is None  # explain no longer shows a ramp


def test_overloaded_region_spills_in_proportion_to_the_overload(world):
    ax, endpoints = world
    wait_for("both nodes of r answered",
             lambda: set(shares(ax, 100)) == {A, B}, timeout=20)
    for connections, spill in ((1000, 0.2), (1250, 0.36), (500, 0.0)):
        for n in ("a", "b"):
            endpoints[n].connections = connections
        wait_for(f"spill share {spill}",
                 lambda: explain(ax)["route"].get("spill", {}).get("share", 0.0) == spill,
                 timeout=20)
        got = shares(ax).get(C, 0.0)
        assert abs(got - spill) <= tolerance(spill), (connections, got, spill)
    spilled = ax.metric("ax_dns_spillover_answers_total", domain="www", region="r")
    assert spilled and spilled > 0.2 * SAMPLES, spilled
    endpoints["a"].connections = endpoints["b"].connections = 1000
    wait_for("spilling again",
             lambda: explain(ax)["route"].get("spill", {}).get("share") == 0.2,
             timeout=20)
    spilled_client = next(client_subnet(i) for i in range(SAMPLES)
                          if addresses(ask(make_query(NAME, "A", ecs=client_subnet(i)),
                                           ax.port)) == {C})
    why = explain(ax, spilled_client)
    assert why["route"]["source"] == "FallbackRegion" and why["route"]["via"] == "f"
    assert why["route"]["spill"]["spilled"] is True, why["route"]
    assert "(spill-over)" in why["summary"]
    assert why["ttlReason"] == "spill"
