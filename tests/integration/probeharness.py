"""Shared pieces of the ax-probe suites: the binary, a counting HTTP health backend
(Python threads, port 0) and one ax-probe process whose stdout reports (one JSON per
line, written at once on a health change) are collected with their arrival times.
Each process is stopped by its PID."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from axharness import HarnessError, built_binary, stop_process
from waiting import wait_for


def ax_probe_binary() -> Path:
    return built_binary("AX_PROBE_BIN", "probe/ax-probe")


def node_manifest(name: str, index: int, port: int, *, interval_ms: int, timeout_ms: int,
                  failure_threshold: int, success_threshold: int,
                  flap_damping: bool = True) -> str:
    """A Node (address 192.0.2.<index + 1>) whose HTTP health check is
    127.0.0.1:port/healthz."""
    damping = "" if flap_damping else "\n    flapDamping: {enabled: false}"
    return f"""apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata:
  name: {name}
spec:
  addresses: ["192.0.2.{index + 1}"]
  area: test
  healthCheck:
    protocol: HTTP
    address: 127.0.0.1
    port: {port}
    path: /healthz
    timeout: {timeout_ms}ms
    interval: {interval_ms}ms
    failureThreshold: {failure_threshold}
    successThreshold: {success_threshold}{damping}
"""


class Backend:
    """A health endpoint answering `status` on host (port 0); records (time, status)
    of every hit."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.status = 200
        self.hits: list[tuple[float, int]] = []
        self.lock = threading.Lock()
        backend = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                with backend.lock:
                    status = backend.status
                    backend.hits.append((time.time(), status))
                body = b'{"bandwidth_mbps": 12.5, "connections": 7}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def set_status(self, status: int) -> float:
        with self.lock:
            self.status = status
            return time.time()

    def hits_since(self, t: float, status: int | None = None) -> list[float]:
        with self.lock:
            return [at for at, s in self.hits if at >= t and (status is None or s == status)]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def rfc3339_seconds(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class AxProbe:
    """One ax-probe process; its stdout reports are collected as (time, document)."""

    def __init__(self, manifests: Path | None, workdir: Path, extra: list[str] | None = None,
                 vantage: str = "it-probe-a", env: dict[str, str] | None = None,
                 prefix: list[str] | None = None):
        """manifests None: no --manifests (`extra` says where the Nodes come from,
        e.g. --nodes-api). prefix: what to run it under (e.g. NetPaths.command's
        `ip netns exec NS`, which execs: the PID stays the probe's)."""
        self.log_path = workdir / "ax-probe.log"
        self.reports: list[tuple[float, dict]] = []
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        source = ["--manifests", str(manifests)] if manifests is not None else []
        cmd = [*(prefix or []), str(ax_probe_binary()), *source, "--vantage", vantage,
               "--http-listen", "127.0.0.1:0", "--reload-debounce", "50ms"] + (extra or [])
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log,
                                         stdin=subprocess.DEVNULL,
                                         env={**os.environ, **(env or {})})
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.http = self._wait_http()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            doc = json.loads(raw)  # a broken line fails the wait below with context
            with self.cond:
                self.reports.append((time.time(), doc))
                self.cond.notify_all()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def _wait_http(self, timeout: float = 20.0) -> str:
        def listening() -> str | None:
            if self.proc.poll() is not None:
                raise HarnessError(f"ax-probe exited with {self.proc.returncode}:\n{self.log()}")
            for raw in self.log().splitlines():
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                if line.get("msg") == "http listening":
                    return line["address"]
            return None

        return wait_for("ax-probe listening", listening, timeout, error=HarnessError,
                        context=self.log)

    def wait_report(self, pred, timeout: float = 15.0, after: int = 0) -> tuple[int, dict]:
        """The first report (index >= after) whose results satisfy pred(results by node)."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(after, len(self.reports)):
                    doc = self.reports[i][1]
                    if pred({r["node"]: r for r in doc["spec"]["results"]}):
                        return i, doc
                left = deadline - time.monotonic()
                if left <= 0:
                    last = self.reports[-1][1] if self.reports else None
                    raise AssertionError(f"no matching report; last: {last}\n{self.log()[-4000:]}")
                self.cond.wait(left)

    def count(self) -> int:
        with self.lock:
            return len(self.reports)

    def get(self, path: str, accept: str | None = None) -> tuple[int, str, str]:
        req = urllib.request.Request(f"http://{self.http}{path}")
        if accept:
            req.add_header("Accept", accept)
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read().decode()

    def stop(self) -> int | None:
        stop_process(self.proc)
        return self.proc.returncode


def write_node_manifests(directory: Path, backends: dict[str, Backend], *, interval_ms: int,
                         timeout_ms: int, failure_threshold: int = 2,
                         success_threshold: int = 2) -> Path:
    """directory/node-<name>.yaml for each backend: a Node (node_manifest) whose HTTP
    health check is that backend. Returns directory (created)."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, (name, b) in enumerate(backends.items()):
        (directory / f"node-{name}.yaml").write_text(node_manifest(
            name, i, b.port, interval_ms=interval_ms, timeout_ms=timeout_ms,
            failure_threshold=failure_threshold, success_threshold=success_threshold))
    return directory
