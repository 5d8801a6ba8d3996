"""The quickstart stays alive with probing on (issue 5): ax-dns --standalone on a copy
of examples/quickstart probes the nodes' demo health endpoints (scripts/demo_backends.py:
HTTP, HTTPS with a self-signed certificate made here, TCP) and answers by geo while they
are up; stopping gz-01's endpoint takes its address out of the answers within
failureThreshold intervals, /v1/explain and axctl explain --server say why, and starting
it again brings it back only after successThreshold intervals.

The shipped manifests probe the fixed ports 18001-18006; the copy probes free loopback
ports instead, so the test runs beside a quickstart or another test run.
"""

from __future__ import annotations

import json
import re
import subprocess
import time

import pytest

from axharness import AxDns, HarnessError, addresses, ask, ax_dns_binary, make_query
from demobackends import WWW, probed_quickstart
from waiting import wait_for

GZ_CLIENT = "113.108.1.0/24"  # Guangzhou, China Telecom: region cn-south-telecom
GZ_01 = "192.0.2.10"
BJ_01 = "198.51.100.20"  # cn-north-unicom, the telecom region's fallback
# The scheduler stretches each period by up to 10% (probe/engine/scheduler.h).
JITTER = 1.1
MARGIN_S = 2.0  # query polling, the rebuild, a loaded test machine


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    """(ax-dns probing, demo backends, backends by node) on a copy of the quickstart."""
    tmp = tmp_path_factory.mktemp("quickstart-failover")
    try:
        q = probed_quickstart(tmp)
    except HarnessError as e:
        pytest.fail(str(e))
    ax = AxDns(q.manifests, tmp / "run", probe=True, extra_args=["--probe-ca", str(q.cert)])
    try:
        ax.start()
    except HarnessError as e:
        q.demo.stop()
        pytest.fail(str(e))
    try:
        yield ax, q.demo, q.backends
    finally:
        ax.stop()
        q.demo.stop()
    ax.check_clean_exit()


def health_changes(ax: AxDns, node: str | None = None) -> list[dict]:
    return [line for line in ax.log_lines()
            if line.get("msg") == "node health changed" and node in (None, line["node"])]


def www_addresses(ax: AxDns, ecs: str) -> set[str]:
    return addresses(ask(make_query(WWW, "A", ecs=ecs), ax.port))


def explain(ax: AxDns) -> dict:
    status, body = ax.http_get(f"/v1/explain?name={WWW}&client=9.9.9.9&ecs={GZ_CLIENT}")
    assert status == 200, body
    return json.loads(body)


def test_every_node_probed_up_and_answers_by_geo(quickstart):
    ax, _, backends = quickstart
    # HTTP, HTTPS (verified against --probe-ca) and TCP checks all pass: each node's
    # first verdict is Up (a failing check would log Down first).
    wait_for("a first verdict for every node",
             lambda: {c["node"] for c in health_changes(ax)} == set(backends), timeout=10)
    firsts = {c["node"]: c for c in reversed(health_changes(ax))}
    assert {n: (c["from"], c["to"]) for n, c in firsts.items()} == \
        {n: ("Unknown", "Up") for n in backends}, firsts

    assert www_addresses(ax, GZ_CLIENT) == {GZ_01}  # gz-02 is excluded by a Rule
    assert www_addresses(ax, "123.125.114.0/24") == {BJ_01}  # Beijing, China Unicom
    assert www_addresses(ax, "8.8.8.0/24") == {"203.0.113.30", "203.0.113.31"}  # US
    assert explain(ax)["nodesDown"] == []


def test_stopped_node_fails_over_and_comes_back(quickstart):
    ax, demo, backends = quickstart
    gz = backends["gz-01"]
    assert www_addresses(ax, GZ_CLIENT) == {GZ_01}

    # Down after failureThreshold failed probes: the first one comes within an
    # interval of the stop, the others one (jittered) interval apart each.
    demo.stop_node("gz-01")
    bound = gz.interval_s * gz.failure_threshold * JITTER + MARGIN_S
    start = time.monotonic()
    wait_for("gz-01 leaves the answers", lambda: GZ_01 not in www_addresses(ax, GZ_CLIENT),
             timeout=bound)
    took = time.monotonic() - start
    print(f"\nfailover: gz-01 left the answers {took:.2f} s after its endpoint stopped "
          f"(interval {gz.interval_s:g} s, failureThreshold {gz.failure_threshold})")
    assert took >= (gz.failure_threshold - 1) * gz.interval_s, "down before the threshold"
    assert www_addresses(ax, GZ_CLIENT) == {BJ_01}  # the region's fallback region

    down = health_changes(ax, "gz-01")[-1]
    assert (down["from"], down["to"]) == ("Up", "Down"), down
    assert "refused" in down["error"], down
    e = explain(ax)
    assert e["nodesDown"] == ["gz-01"]
    assert (e["route"]["source"], e["route"]["via"]) == ("FallbackRegion", "cn-north-unicom"), e
    assert e["pick"] == ["bj-01"] and e["ttlReason"] == "failover", e
    assert 'down: ["gz-01"]' in e["summary"], e["summary"]
    axctl = ax_dns_binary().parent / "axctl"
    text = subprocess.run(
        [str(axctl), "explain", WWW, "--client", "113.108.1.1", "--server", f"http://{ax.api}"],
        check=True, capture_output=True, text=True, timeout=10).stdout
    print(text)
    assert re.search(r"route\s+FallbackRegion via region cn-north-unicom", text), text
    assert re.search(r'down\s+\["gz-01"\]', text), text

    # Up again only after successThreshold good probes in a row.
    demo.start_node("gz-01")
    bound = gz.interval_s * gz.success_threshold * JITTER + MARGIN_S
    start = time.monotonic()
    wait_for("gz-01 returns to the answers", lambda: GZ_01 in www_addresses(ax, GZ_CLIENT),
             timeout=bound)
    took = time.monotonic() - start
    print(f"recovery: gz-01 was back {took:.2f} s after its endpoint started "
          f"(successThreshold {gz.success_threshold})")
    assert took >= (gz.success_threshold - 1) * gz.interval_s, "up before the threshold"
    up = health_changes(ax, "gz-01")[-1]
    assert (up["from"], up["to"]) == ("Down", "Up"), up
    assert explain(ax)["nodesDown"] == []
    # One way down, one way up: no flapping while it was stopped or starting.
    assert [(c["from"], c["to"]) for c in health_changes(ax, "gz-01")] == \
        [("Unknown", "Up"), ("Up", "Down"), ("Down", "Up")]
