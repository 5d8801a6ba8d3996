"""SRV records for proxies (issue 19): a real HAProxy (Debian's) discovers its backends
with `server-template` + `resolvers` from a real ax-dns --standalone, and follows
what Ax decides:

- its servers are the nodes of the SRV answer, at the addresses of their targets
  (taken from the additional section), with weights in the ratio of the Nodes'
  weights (ax-dns scales them to 0..65535, HAProxy reads weight / 256 + 1);
- a node whose health endpoint fails leaves the SRV answer and HAProxy stops sending
  it requests (its server goes to maintenance); back healthy, it gets them again;
- a Node weight change (the manifest edited) reaches HAProxy's weights.

The three nodes are HTTP servers on 127.0.0.1, .2 and .3 with one port (an SRV
record names one port per service), each naming itself in a header, so the requests
sent through HAProxy show which node served them. Regions match by CIDR, so no geo
data is needed.
"""

from __future__ import annotations

import json
import socket
import subprocess
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from axharness import HarnessError, free_port, require_tool, stop_process
from healthendpoint import HealthEndpoint, cidr_region, probed_node, probing_ax_dns
from waiting import wait_for

NAME = "api.example.test"
SRV_NAME = f"_http._tcp.{NAME}"
ADDRESSES = {"a": "127.0.0.1", "b": "127.0.0.2", "c": "127.0.0.3"}


def shared_port_endpoints() -> tuple[int, dict[str, HealthEndpoint]]:
    """One HealthEndpoint per node on its own loopback address, all on one port."""
    for _ in range(20):
        port = free_port()
        endpoints: dict[str, HealthEndpoint] = {}
        try:
            for node, address in ADDRESSES.items():
                endpoints[node] = HealthEndpoint(address, port, name=node)
            return port, endpoints
        except OSError:
            for e in endpoints.values():
                e.close()
    raise HarnessError("no port free on 127.0.0.1-3")


def world(port: int, weights: dict[str, int]) -> list[dict]:
    nodes = [probed_node(n, ADDRESSES[n], port, probe_address=ADDRESSES[n],
                         weight=weights[n]) for n in ADDRESSES]
    return [*nodes, cidr_region("local", "127.0.0.0/8", list(ADDRESSES), []),
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain",
             "metadata": {"name": "api"},
             "spec": {"fqdn": NAME, "zone": "example.test", "strategy": "WeightedRandom",
                      "maxAnswers": 1, "ttl": {"steady": 5, "failover": 1},
                      "srv": [{"service": "http", "protocol": "tcp", "port": port}]}}]


class HAProxy:
    """haproxy -db with one frontend on a free loopback port and a server-template of
    4 slots resolving SRV_NAME at ax-dns every 200 ms; its runtime API on a socket in
    workdir. Stopped by PID."""

    def __init__(self, workdir: Path, dns_port: int) -> None:
        self.socket = workdir / "haproxy.sock"
        self.port = free_port()
        self.log = workdir / "haproxy.log"
        config = workdir / "haproxy.cfg"
        config.write_text(f"""
global
  stats socket {self.socket} mode 600 level admin
defaults
  mode http
  timeout connect 1s
  timeout client 5s
  timeout server 5s
resolvers ax
  nameserver ax 127.0.0.1:{dns_port}
  accepted_payload_size 1232
  resolve_retries 2
  timeout resolve 200ms
  timeout retry 200ms
  hold valid 200ms
  hold obsolete 500ms
frontend in
  bind 127.0.0.1:{self.port}
  default_backend api
backend api
  balance roundrobin
  server-template node 4 {SRV_NAME} resolvers ax init-addr none
""")
        check = subprocess.run([require_tool("haproxy"), "-c", "-f", str(config)],
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen([require_tool("haproxy"), "-db", "-f", str(config)],
                                         stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)

    def servers(self) -> dict[str, int]:
        """Address -> weight of the servers HAProxy would send requests to (running,
        not in maintenance), from `show servers state`."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(str(self.socket))
            s.sendall(b"show servers state api\n")
            text = b""
            while chunk := s.recv(65536):
                text += chunk
        lines = text.decode().splitlines()
        header = next(line for line in lines if line.startswith("# be_id")).split()[1:]
        active = {}
        for line in lines:
            fields = line.split()
            if line.startswith("#") or len(fields) < len(header):
                continue  # the format version, the header
            row = dict(zip(header, fields))
            # srv_op_state 2: running. srv_admin_state flags maintenance forced,
            # inherited, by configuration or for want of a resolved address
            # (0x01, 0x02, 0x04, 0x20); 0x40 only says the name came from SRV.
            if row["srv_op_state"] == "2" and not int(row["srv_admin_state"]) & 0x27:
                active[row["srv_addr"]] = int(row["srv_uweight"])
        return active

    def served_by(self, requests: int) -> Counter:
        """Which node answered each of `requests` GETs sent through the frontend."""
        counts: Counter = Counter()
        for _ in range(requests):
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=5) as r:
                counts[r.headers["X-Ax-Node"]] += 1
        return counts

    def stop(self) -> None:
        stop_process(self.proc)

    def context(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def setup(tmp_path: Path):
    port, endpoints = shared_port_endpoints()
    with probing_ax_dns(tmp_path, world(port, {"a": 100, "b": 100, "c": 50}),
                        endpoints) as ax:
        haproxy = HAProxy(tmp_path, ax.port)
        try:
            yield ax, haproxy, endpoints, port
        finally:
            haproxy.stop()


def wait_servers(haproxy: HAProxy, what: str, check) -> dict[str, int]:
    """HAProxy's servers once check() holds for them (its socket may not be there
    yet: OSError means not yet)."""
    return wait_for(what, lambda: (lambda s: s if check(s) else None)(haproxy.servers()),
                    15, retry_on=(OSError,), context=haproxy.context)


def test_haproxy_follows_srv_answers(setup):
    ax, haproxy, endpoints, port = setup
    everyone = set(ADDRESSES.values())

    # Discovered: every node, weights in the ratio 100:100:50 (HAProxy 256, 256, 129).
    servers = wait_servers(haproxy, "HAProxy servers for a, b and c",
                           lambda s: set(s) == everyone)
    a, b, c = (servers[ADDRESSES[n]] for n in "abc")
    assert a == b and abs(c / a - 0.5) < 0.02, servers
    assert set(haproxy.served_by(30)) == {"a", "b", "c"}

    # Failover: b's health endpoint fails; ax-dns takes b out of the SRV answer and
    # HAProxy stops sending it requests.
    endpoints["b"].status = 503
    wait_servers(haproxy, "b gone from HAProxy's servers",
                 lambda s: set(s) == everyone - {ADDRESSES["b"]})
    assert set(haproxy.served_by(30)) == {"a", "c"}

    # Back healthy: b returns.
    endpoints["b"].status = 200
    wait_servers(haproxy, "b back among HAProxy's servers", lambda s: set(s) == everyone)
    assert set(haproxy.served_by(30)) == {"a", "b", "c"}

    # A weight change in the manifest: c 50 -> 200, so c weighs twice a and b.
    manifest = ax.manifest_dir / "world.yaml"
    manifest.write_text("\n---\n".join(
        json.dumps(d) for d in world(port, {"a": 100, "b": 100, "c": 200})))
    servers = wait_servers(
        haproxy, "c weighing twice a in HAProxy",
        lambda s: set(s) == everyone and s[ADDRESSES["c"]] > 1.9 * s[ADDRESSES["a"]])
    assert abs(servers[ADDRESSES["a"]] - servers[ADDRESSES["b"]]) <= 1, servers
    counts = haproxy.served_by(80)
    assert counts["c"] > counts["a"] and counts["c"] > counts["b"], counts
