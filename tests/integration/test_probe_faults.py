"""ax-probe under real network faults: toxiproxy (built by scripts/setup-test.sh) sits between
the prober and each Python health backend, and its toxics inject added latency, a
hung connection, a reset peer, a partition and random failures.

Thresholds are fail 3 / rise 5 (the defaults). At the report written when a node's
verdict changes, its streak must equal the threshold exactly and the change must come
about that many intervals after the fault began or ended: the prober neither trips on
fewer failures nor waits for more. Under a toxic that breaks 30% of connections at
random, flap damping (RFC 2439 style) must bound the state changes, while the same
node without damping keeps flapping.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families as parse_prometheus

from probeharness import AxProbe, Backend, node_manifest
from toxiproxy import Proxy

FAILURE_THRESHOLD = 3
SUCCESS_THRESHOLD = 5
INTERVAL_S = 0.2
TIMEOUT_MS = 150
# Scheduling (10% interval jitter), a loaded CI machine and the report pipe.
SLACK_S = 1.0


@dataclass
class Rig:
    probe: AxProbe
    backends: dict[str, Backend]
    proxies: dict[str, Proxy]

    def result(self, doc: dict, node: str) -> dict:
        return {r["node"]: r for r in doc["spec"]["results"]}[node]

    def metric(self, name: str) -> dict[str, float]:
        """Samples of one family by node label, from the probe's /metrics."""
        _, _, text = self.probe.get("/metrics")
        return {s.labels["node"]: s.value for f in parse_prometheus(text)
                for s in f.samples if s.name == name}


@pytest.fixture
def make_rig(tmp_path: Path, toxiproxy):
    """Starts, per node (name -> flap damping on?), a backend, a proxy in front of
    it and one ax-probe over them all; stops them afterwards."""
    started: list[Rig] = []

    def make(nodes: dict[str, bool], interval_ms: int, timeout_ms: int) -> Rig:
        manifests = tmp_path / "manifests"
        manifests.mkdir()
        backends, proxies = {}, {}
        for i, (name, damping) in enumerate(nodes.items()):
            backends[name] = Backend()
            proxies[name] = toxiproxy.create_proxy(
                name, upstream=f"127.0.0.1:{backends[name].port}")
            (manifests / f"node-{name}.yaml").write_text(node_manifest(
                name, i, proxies[name].port, interval_ms=interval_ms, timeout_ms=timeout_ms,
                failure_threshold=FAILURE_THRESHOLD, success_threshold=SUCCESS_THRESHOLD,
                flap_damping=damping))
        rig = Rig(AxProbe(manifests, tmp_path), backends, proxies)
        started.append(rig)
        return rig

    yield make
    for rig in started:
        rc = rig.probe.stop()
        for b in rig.backends.values():
            b.stop()
        assert rc == 0, f"ax-probe exited with {rc}:\n{rig.probe.log()[-4000:]}"


@dataclass
class Fault:
    name: str
    inject: Callable[[Proxy], None]
    heal: Callable[[Proxy], None]
    reason: str  # the probe error the fault must produce


FAULTS = [
    # Every response 4x later than the probe's timeout allows.
    Fault("latency", lambda p: p.latency(4 * TIMEOUT_MS), Proxy.clear_toxics, "timeout"),
    # The connection opens, but the request goes nowhere and nothing comes back
    # or closes: a deadlocked backend. (On the downstream side alone the
    # backend's close would still get through, a different failure.)
    Fault("timeout", lambda p: p.timeout(0, stream="upstream"), Proxy.clear_toxics,
          "timeout"),
    # The response is answered with a TCP RST.
    Fault("reset_peer", lambda p: p.reset_peer(0), Proxy.clear_toxics, "connect"),
    # The proxy stops listening: connections are refused.
    Fault("partition", Proxy.disable, Proxy.enable, "refused"),
]


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_down_after_exactly_fail_threshold_and_up_after_rise_threshold(make_rig, fault):
    rig = make_rig({"victim": True, "bystander": True}, int(INTERVAL_S * 1000), TIMEOUT_MS)
    up = lambda r: r["victim"]["health"] == "Up"  # noqa: E731
    i, _ = rig.probe.wait_report(lambda r: up(r) and r["bystander"]["health"] == "Up")

    fault_at = time.monotonic()
    fault.inject(rig.proxies["victim"])
    i, doc = rig.probe.wait_report(lambda r: r["victim"]["health"] == "Down", after=i)
    down_after = time.monotonic() - fault_at
    victim = rig.result(doc, "victim")
    assert victim["consecutiveFailures"] == FAILURE_THRESHOLD, victim
    assert victim["error"] == fault.reason, victim
    assert victim["transitions"] == 1, victim
    # Three failed probes: the first may start right after the fault, each
    # later one an interval (+ up to 10% jitter) after the previous start, and
    # a timed-out probe ends at its deadline.
    earliest = (FAILURE_THRESHOLD - 1) * INTERVAL_S
    latest = FAILURE_THRESHOLD * INTERVAL_S * 1.1 + TIMEOUT_MS / 1000 + SLACK_S
    assert earliest <= down_after <= latest, (down_after, victim)
    assert rig.result(doc, "bystander")["health"] == "Up"

    heal_at = time.monotonic()
    fault.heal(rig.proxies["victim"])
    _, doc = rig.probe.wait_report(up, after=i)
    up_after = time.monotonic() - heal_at
    victim = rig.result(doc, "victim")
    assert victim["consecutiveSuccesses"] == SUCCESS_THRESHOLD, victim
    assert victim["transitions"] == 2, victim
    assert "suppressed" not in victim, victim  # one outage is not a flap
    earliest = (SUCCESS_THRESHOLD - 1) * INTERVAL_S
    latest = (SUCCESS_THRESHOLD + 1) * INTERVAL_S * 1.1 + TIMEOUT_MS / 1000 + SLACK_S
    assert earliest <= up_after <= latest, (up_after, victim)

    errors = rig.metric("ax_probe_errors_total")
    assert errors["victim"] >= FAILURE_THRESHOLD
    assert "bystander" not in errors


def test_random_failures_do_not_flap_with_damping(make_rig):
    """30% of connections reset at random, ~400 probes per node: thresholds alone
    (fail 3 / rise 5) flap every ~70 probes; damping holds the node Down at the
    third flap at the latest (penalty 1000 per flap, suppress at 2000, 15 min
    half-life), so it changes state at most five times."""
    interval_ms = 50
    rig = make_rig({"damped": True, "bare": False}, interval_ms, interval_ms)
    rig.probe.wait_report(lambda r: all(n["health"] != "Unknown" for n in r.values())
                          and len(r) == 2)
    start_hits = {n: len(b.hits_since(0)) for n, b in rig.backends.items()}
    start_errors = rig.metric("ax_probe_errors_total")
    for proxy in rig.proxies.values():
        proxy.reset_peer(0, toxicity=0.3)
    time.sleep(20)  # on purpose: the window of random resets the counts below cover

    changes = rig.metric("ax_probe_state_changes_total")  # the first verdict included
    suppressed = rig.metric("ax_probe_flap_suppressed")
    errors = rig.metric("ax_probe_errors_total")
    for node, backend in rig.backends.items():
        probes = len(backend.hits_since(0)) - start_hits[node]
        failed = errors.get(node, 0) - start_errors.get(node, 0)
        # The toxic works: roughly 30% of ~400 probes fail.
        assert probes >= 200, (node, probes)
        assert 0.2 <= failed / probes <= 0.45, (node, failed, probes)
    # Without damping the thresholds alone flap: ~12 changes are expected, and
    # fewer than 4 has a probability well under 0.1%.
    assert changes["bare"] - 1 >= 4, changes
    assert suppressed["bare"] == 0
    # With damping: Down, Up, Down, Up, Down at most, then held Down.
    assert changes["damped"] - 1 <= 5, changes
    _, doc = rig.probe.wait_report(lambda r: True, after=rig.probe.count() - 1)
    damped = rig.result(doc, "damped")
    if changes["damped"] - 1 == 5:
        assert damped["health"] == "Down" and damped.get("suppressed") is True, damped
        assert suppressed["damped"] == 1
    assert damped["transitions"] == changes["damped"] - 1, damped
