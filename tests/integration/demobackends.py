"""The quickstart's health endpoints for tests: a copy of examples/quickstart whose
healthChecks probe free loopback ports instead of the fixed 18001-18006, served by
scripts/demo_backends.py (HTTP, HTTPS with a self-signed certificate made here, TCP)
and stopped/started per node through its control port. Shared by the suites and
benchmarks that probe the quickstart's nodes for real (standalone ax-dns, or ax-probe
beside the operator); the process is stopped by its PID."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from axharness import (QUICKSTART, REPO, HarnessError, copy_manifests, free_port,
                       require_tool, stop_process)
from waiting import wait_for

WWW = "www.example.test"  # the HTTPS checks' Host, so the certificate's name
# The health-check defaults of the core (core/include/ax/health.h) when a Node omits them.
DEFAULT_FAILURE_THRESHOLD, DEFAULT_SUCCESS_THRESHOLD = 3, 5


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

        def all_running() -> bool:
            if self.proc.poll() is not None:  # a port taken meanwhile: the caller retries
                raise HarnessError(f"demo_backends.py exited:\n{self.log.read_text()}")
            states = control(self.control_port, "/")
            return all(states.get(b.node) == "running" for b in backends)

        try:
            wait_for("demo_backends.py running every backend", all_running, 15,
                     retry_on=(OSError,), error=HarnessError, context=self.log.read_text)
        except HarnessError:
            self.stop()
            raise

    def stop_node(self, node: str) -> None:
        assert control(self.control_port, f"/stop/{node}") == {node: "stopped"}

    def start_node(self, node: str) -> None:
        assert control(self.control_port, f"/start/{node}") == {node: "running"}

    def stop(self) -> None:
        stop_process(self.proc)


@dataclass
class ProbedQuickstart:
    manifests: Path  # the copy, health checks on `backends`' ports
    backends: dict[str, Backend]  # by node
    demo: DemoBackends
    cert: Path  # the HTTPS endpoints' certificate: --probe-ca


def probed_quickstart(workdir: Path, attempts: int = 3) -> ProbedQuickstart:
    """A copy of the quickstart under workdir with its endpoints running; retried on
    new ports when one was taken before demo_backends.py bound it. The caller stops
    .demo."""
    workdir.mkdir(parents=True, exist_ok=True)
    cert, key = self_signed_cert(workdir)
    last = None
    for attempt in range(attempts):
        manifests = copy_manifests(workdir / f"manifests{attempt}", QUICKSTART)
        backends = rewrite_health_ports(manifests / "nodes.yaml")
        try:
            demo = DemoBackends(backends, cert, key, workdir)
        except HarnessError as e:
            last = e
            continue
        return ProbedQuickstart(manifests, {b.node: b for b in backends}, demo, cert)
    raise HarnessError(f"quickstart health endpoints: {last}")
