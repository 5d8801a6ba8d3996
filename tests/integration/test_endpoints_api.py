"""The route table for proxies (issue 19): GET /v1/endpoints on a real ax-dns
--standalone, read as a sidecar would, over plain HTTP on loopback:

- a Domain's Regions with their ranked endpoints, weights and health, and the
  snapshot version; one client's Region and the answer DNS gives it (asked over DNS
  with the same ECS subnet);
- the watch: a long poll (wait=VERSION) returns within 1 s of each new route table
  (measured against the moment ax-dns logged serving it), versions seen only go up,
  none is missed while changes are spaced, and a burst ends on the last one;
- the cap: with 8 watches held (ax_dns_endpoint_watches says so), a ninth is told
  at once to come back (503, Retry-After: 1, counted), the rest of the API still
  answers, and the 8 all return on the next version.

Regions match by CIDR, so classification needs no geo data; nodes are not probed.
"""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from axharness import AxDns, addresses, ask, make_query
from healthendpoint import cidr_region
from waiting import wait_for

NAME = "www.example.test"


def world(weight_a: int) -> str:
    docs = [{"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": "a"},
             "spec": {"addresses": ["192.0.2.1"], "isp": "any", "weight": weight_a}},
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node", "metadata": {"name": "b"},
             "spec": {"addresses": ["192.0.2.2"], "isp": "any"}},
            cidr_region("r", "10.0.0.0/8", ["a", "b"], []),
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain",
             "metadata": {"name": "www"},
             "spec": {"fqdn": NAME, "zone": "example.test", "strategy": "RegionPriority",
                      "maxAnswers": 1}}]
    return "\n---\n".join(json.dumps(d) for d in docs)


@pytest.fixture
def ax(tmp_path: Path):
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    (manifests / "world.yaml").write_text(world(100))
    server = AxDns(manifests, tmp_path / "run", geo_args=[]).start()
    yield server
    server.check_clean_exit()


def get(ax: AxDns, query: str, timeout: float = 5) -> tuple[int, dict, dict]:
    """(status, JSON body, headers) of GET /v1/endpoints?query."""
    try:
        with urllib.request.urlopen(f"http://{ax.api}/v1/endpoints?{query}",
                                    timeout=timeout) as r:
            return r.status, json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), dict(e.headers)


def metric(ax: AxDns, name: str) -> float:
    """One unlabelled sample of ax-dns's /metrics."""
    with urllib.request.urlopen(f"http://{ax.http}/metrics", timeout=5) as r:
        text = r.read().decode()
    return float(re.search(rf"^{name} (\S+)$", text, re.MULTILINE).group(1))


def served_at(ax: AxDns) -> dict[int, float]:
    """version -> when ax-dns logged serving it (unix seconds)."""
    return {line["version"]: line["ts"] / 1000 for line in ax.log_lines()
            if line.get("msg") == "snapshot loaded"}


def test_a_domains_regions_and_one_clients_answer(ax):
    status, view, _ = get(ax, f"name={NAME}")
    assert status == 200, view
    assert view["domain"]["strategy"] == "RegionPriority"
    assert [r["region"] for r in view["regions"]] == ["r", None]
    r = view["regions"][0]
    assert [(e["node"], e["addresses"], e["weight"], e["health"]) for e in r["endpoints"]] == [
        ("a", ["192.0.2.1"], 100, "Up"), ("b", ["192.0.2.2"], 100, "Up")], r
    status, served, _ = get(ax, f"name={NAME}&region=r")
    assert status == 200 and served["regions"] == [r]
    status, body, _ = get(ax, f"name={NAME}&region=west")
    assert status == 404 and "no Region 'west'" in body["error"]

    # Each client's answer is the one DNS gives the same ECS subnet (a strategy
    # without a random draw: with one, `answer` is one draw).
    for i in range(20):
        subnet = f"10.9.{i}.0/24"
        status, mine, _ = get(ax, f"name={NAME}&ecs={subnet}")
        assert status == 200, mine
        assert mine["client"]["region"] == "r"
        dns_answer = addresses(ask(make_query(NAME, "A", ecs=subnet), ax.port))
        assert set(mine["answer"]["addresses"]) == dns_answer, (subnet, mine["answer"])


def test_the_watch_returns_each_new_version_within_a_second(ax):
    _, view, _ = get(ax, f"name={NAME}")
    first = view["snapshot"]["version"]
    seen: list[tuple[int, float, int]] = []  # (version, returned at, weight of a)
    stop = threading.Event()

    def watch():
        version = first
        while not stop.is_set():
            status, body, _ = get(ax, f"name={NAME}&region=r&wait={version}&timeout=2s",
                                  timeout=10)
            assert status == 200, body
            if body["snapshot"]["version"] != version:
                version = body["snapshot"]["version"]
                seen.append((version, time.time(),
                             body["regions"][0]["endpoints"][0]["weight"]))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    manifest = ax.manifest_dir / "world.yaml"
    try:
        # Spaced changes: each one a version of its own, each seen.
        for n, weight in enumerate((110, 120, 130, 140, 150), start=1):
            manifest.write_text(world(weight))
            wait_for(f"version {n} seen", lambda: len(seen) >= n, 10)
        spaced = len(seen)
        # A burst: whatever it coalesces into, the watcher ends on the last.
        for weight in range(200, 260, 10):
            manifest.write_text(world(weight))
            time.sleep(0.05)
        wait_for("the burst's last weight seen", lambda: seen and seen[-1][2] == 250, 10)
    finally:
        stop.set()
        watcher.join(timeout=15)
    assert not watcher.is_alive()
    versions = [v for v, _, _ in seen]
    assert versions == sorted(set(versions)), versions  # only up, never twice
    assert [w for _, _, w in seen[:spaced]] == [110, 120, 130, 140, 150]
    logged = served_at(ax)
    served_after_first = sorted(v for v in logged if v > first)
    assert versions[:spaced] == served_after_first[:spaced]  # none missed
    assert versions[-1] == max(logged)
    delays = [returned - logged[v] for v, returned, _ in seen]
    print(f"\nwatch delays after the swap: max {max(delays) * 1000:.0f} ms over "
          f"{len(delays)} versions")
    assert max(delays) < 1.0, delays


def test_past_eight_watches_a_ninth_is_told_to_come_back(ax):
    _, view, _ = get(ax, f"name={NAME}")
    version = view["snapshot"]["version"]
    replies: list[tuple[int, dict]] = []

    def hold():
        status, body, _ = get(ax, f"name={NAME}&wait={version}&timeout=30s", timeout=40)
        replies.append((status, body))

    holders = [threading.Thread(target=hold, daemon=True) for _ in range(8)]
    for t in holders:
        t.start()
    wait_for("8 watches held", lambda: metric(ax, "ax_dns_endpoint_watches") == 8, 10)

    started = time.monotonic()
    status, body, headers = get(ax, f"name={NAME}&wait={version}&timeout=5s")
    assert status == 503 and "too many watches" in body["error"], body
    assert headers.get("Retry-After") == "1"
    assert time.monotonic() - started < 1.0  # told at once, not held
    assert metric(ax, "ax_dns_endpoint_watches_refused_total") == 1
    # The watches hold 8 of the API's threads; the rest still answer.
    status, _, _ = get(ax, f"name={NAME}&region=r")
    assert status == 200
    assert replies == []

    (ax.manifest_dir / "world.yaml").write_text(world(170))
    for t in holders:
        t.join(timeout=10)
    assert len(replies) == 8
    assert all(s == 200 and b["snapshot"]["version"] > version for s, b in replies), replies
    assert metric(ax, "ax_dns_endpoint_watches") == 0

