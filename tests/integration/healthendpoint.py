"""A node's health endpoint for the standalone scenarios: GET /healthz on a free
loopback port answers `status` with the JSON body a node reports about itself, its
load (`connections`) and, when set, its `errorRate`; a test changes them as it goes.
Given a name, it also stands for the node's service: every reply carries the name in
X-Ax-Node, so a test behind a proxy sees which node served it. With the Node and
Region builders and a real ax-dns --standalone probing them."""

from __future__ import annotations

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from axharness import AxDns


class HealthEndpoint:
    """GET /healthz -> `status` with {"connections": ...[, "errorRate": ...]}, on
    host:port (port 0: a free one)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, name: str = "") -> None:
        self.status = 200
        self.connections = 100
        self.error_rate: float | None = None
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                report = {"connections": endpoint.connections}
                if endpoint.error_rate is not None:
                    report["errorRate"] = endpoint.error_rate
                body = json.dumps(report).encode()
                self.send_response(endpoint.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                if name:
                    self.send_header("X-Ax-Node", name)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def probed_node(name: str, address: str, port: int, probe_address: str = "127.0.0.1",
                weight: int = 100) -> dict:
    """A Node probed over HTTP at probe_address:`port` every 300 ms, one probe
    deciding."""
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
            "metadata": {"name": name},
            "spec": {"addresses": [address], "isp": "any", "weight": weight,
                     "capacity": {"connections": 1000},
                     "healthCheck": {
                         "protocol": "HTTP", "address": probe_address, "port": port,
                         "path": "/healthz", "interval": "300ms", "timeout": "250ms",
                         "failureThreshold": 1, "successThreshold": 1,
                         "flapDamping": {"enabled": False}}}}


def cidr_region(name: str, cidr: str, nodes: list[str], fallback: list[str]) -> dict:
    """A Region matching clients by one CIDR (no geo data needed)."""
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Region",
            "metadata": {"name": name},
            "spec": {"isp": "any", "match": {"cidrs": [cidr]}, "nodes": nodes,
                     "fallbackRegions": fallback}}


@contextlib.contextmanager
def probing_ax_dns(workdir: Path, docs: list[dict], endpoints: dict[str, HealthEndpoint],
                   start: bool = True):
    """A real ax-dns --standalone serving `docs` (written as one manifest) and probing
    `endpoints` (started unless `start` is False); stops both after it and checks that
    ax-dns exited cleanly."""
    manifests = workdir / "manifests"
    manifests.mkdir()
    (manifests / "world.yaml").write_text("\n---\n".join(json.dumps(d) for d in docs))
    ax = AxDns(manifests, workdir / "run", probe=True, geo_args=[])
    try:
        if start:
            ax.start()
        yield ax
    finally:
        ax.stop()
        for e in endpoints.values():
            e.close()
    ax.check_clean_exit()
