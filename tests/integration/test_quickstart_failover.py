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
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from axharness import (
    QUICKSTART, REPO, AxDns, HarnessError, addresses, ask, ax_dns_binary, copy_manifests,
    free_port, make_query, require_tool, stop_process)

WWW = "www.example.test"
GZ_CLIENT = "113.108.1.0/24"  # Guangzhou, China Telecom: region cn-south-telecom
GZ_01 = "192.0.2.10"
BJ_01 = "198.51.100.20"  # cn-north-unicom, the telecom region's fallback
# The health-check defaults of the core (core/include/ax/health.h) when a Node omits them.
DEFAULT_FAILURE_THRESHOLD, DEFAULT_SUCCESS_THRESHOLD = 3, 5
# The scheduler stretches each period by up to 10% (probe/engine/scheduler.h).
JITTER = 1.1
MARGIN_S = 2.0  # query polling, the rebuild, a loaded test machine


@dataclass
class Backend:
    node: str
    proto: str  # http, https, tcp: what demo_backends.py serves
    port: int
    interval_s: float
    failure_threshold: int
    success_threshold: int


def seconds(text: str) -> float:
    value, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s)", text).groups()
    return float(value) / (1000 if unit == "ms" else 1)


def rewrite_health_ports(nodes_yaml: Path) -> list[Backend]:
    """Points every healthCheck port of nodes_yaml at a free loopback port and
    returns what demo_backends.py must serve there."""
    backends, docs = [], []
    for doc in nodes_yaml.read_text().split("\n---\n"):
        check = re.search(r"\n    protocol: (HTTPS|HTTP|TCP)\n", doc)
        if check:
            port = free_port()
            doc = re.sub(r"\n    port: \d+\n", f"\n    port: {port}\n", doc)
            fall = re.search(r"\n    failureThreshold: (\d+)", doc)
            rise = re.search(r"\n    successThreshold: (\d+)", doc)
            backends.append(Backend(
                node=re.search(r"\n  name: (\S+)", doc).group(1),
                proto=check.group(1).lower(), port=port,
                interval_s=seconds(re.search(r"\n    interval: (\S+)", doc).group(1)),
                failure_threshold=int(fall.group(1)) if fall else DEFAULT_FAILURE_THRESHOLD,
                success_threshold=int(rise.group(1)) if rise else DEFAULT_SUCCESS_THRESHOLD))
        docs.append(doc)
    nodes_yaml.write_text("\n---\n".join(docs))
    return backends


def self_signed_cert(directory: Path) -> tuple[Path, Path]:
    """A certificate for www.example.test, the HTTPS checks' Host (as quickstart.sh)."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [require_tool("openssl"), "req", "-x509", "-newkey", "rsa:2048", "-nodes",
         "-days", "2", "-subj", f"/CN={WWW}", "-addext", f"subjectAltName=DNS:{WWW}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True)
    return cert, key


def control(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return json.loads(r.read())


class DemoBackends:
    """scripts/demo_backends.py on the rewritten ports, with its control port."""

    def __init__(self, backends: list[Backend], cert: Path, key: Path, workdir: Path):
        self.control_port = free_port()
        self.log = workdir / "demo-backends.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(REPO / "scripts" / "demo_backends.py"),
                 "--control", str(self.control_port), "--cert", str(cert), "--key", str(key),
                 *(f"{b.node}={b.proto}:{b.port}" for b in backends)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:  # a port taken meanwhile: the caller retries
                raise HarnessError(f"demo_backends.py exited:\n{self.log.read_text()}")
            try:
                states = control(self.control_port, "/")
                if all(states.get(b.node) == "running" for b in backends):
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise HarnessError(f"demo_backends.py did not come up:\n{self.log.read_text()}")

    def stop_node(self, node: str) -> None:
        assert control(self.control_port, f"/stop/{node}") == {node: "stopped"}

    def start_node(self, node: str) -> None:
        assert control(self.control_port, f"/start/{node}") == {node: "running"}

    def stop(self) -> None:
        stop_process(self.proc)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    """(ax-dns probing, demo backends, backends by node) on a copy of the quickstart."""
    tmp = tmp_path_factory.mktemp("quickstart-failover")
    cert, key = self_signed_cert(tmp)
    demo = None
    for attempt in range(3):  # a free port can be taken before the backends bind it
        manifests = copy_manifests(tmp / f"manifests{attempt}", QUICKSTART)
        backends = rewrite_health_ports(manifests / "nodes.yaml")
        try:
            demo = DemoBackends(backends, cert, key, tmp)
            break
        except HarnessError as e:
            last = e
    if demo is None:
        pytest.fail(str(last))
    ax = AxDns(manifests, tmp / "run", probe=True, extra_args=["--probe-ca", str(cert)])
    try:
        ax.start()
    except HarnessError as e:
        demo.stop()
        pytest.fail(str(e))
    try:
        yield ax, demo, {b.node: b for b in backends}
    finally:
        ax.stop()
        demo.stop()
    ax.check_clean_exit()


def health_changes(ax: AxDns, node: str | None = None) -> list[dict]:
    return [line for line in ax.log_lines()
            if line.get("msg") == "node health changed" and node in (None, line["node"])]


def www_addresses(ax: AxDns, ecs: str) -> set[str]:
    return addresses(ask(make_query(WWW, "A", ecs=ecs), ax.port))


def wait_for(what: str, check, timeout: float, interval: float = 0.05) -> float:
    """Polls check() until it is true; returns the seconds it took."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"{what}: not within {timeout:.1f} s")
        time.sleep(interval)
    return time.monotonic() - start


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
    took = wait_for("gz-01 leaves the answers", lambda: GZ_01 not in www_addresses(ax, GZ_CLIENT),
                    timeout=bound)
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
        [str(axctl), "explain", WWW, "--client", "113.108.1.1", "--server", f"http://{ax.http}"],
        check=True, capture_output=True, text=True, timeout=10).stdout
    print(text)
    assert re.search(r"route\s+FallbackRegion via region cn-north-unicom", text), text
    assert re.search(r'down\s+\["gz-01"\]', text), text

    # Up again only after successThreshold good probes in a row.
    demo.start_node("gz-01")
    bound = gz.interval_s * gz.success_threshold * JITTER + MARGIN_S
    took = wait_for("gz-01 returns to the answers", lambda: GZ_01 in www_addresses(ax, GZ_CLIENT),
                    timeout=bound)
    print(f"recovery: gz-01 was back {took:.2f} s after its endpoint started "
          f"(successThreshold {gz.success_threshold})")
    assert took >= (gz.success_threshold - 1) * gz.interval_s, "up before the threshold"
    up = health_changes(ax, "gz-01")[-1]
    assert (up["from"], up["to"]) == ("Down", "Up"), up
    assert explain(ax)["nodesDown"] == []
    # One way down, one way up: no flapping while it was stopped or starting.
    assert [(c["from"], c["to"]) for c in health_changes(ax, "gz-01")] == \
        [("Unknown", "Up"), ("Up", "Down"), ("Down", "Up")]
