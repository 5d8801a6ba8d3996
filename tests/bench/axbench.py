"""Shared by the probing benchmarks (failover/, probe_load/): manifests for N probed
nodes, one ax-dns --standalone process on loopback ports the kernel picks (stopped by
its PID), its JSON log, /proc CPU time, and rewriting one section of
docs/benchmarks.md between its markers."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the caller binds it soon after)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_manifests(directory: Path, ports: list[int], *, proto: str = "HTTP",
                    interval: str, timeout: str, failure_threshold: int,
                    success_threshold: int, max_answers: int,
                    flap_damping: bool = True) -> list[tuple[str, str]]:
    """Nodes n000.. with health checks on 127.0.0.1:ports[i], all in one catch-all
    Region, and one Domain bench.example.test answering up to max_answers of them.
    Returns (node, address) pairs; addresses are 10.x.y.z, one per node."""
    damping = "" if flap_damping else "\n    flapDamping: {enabled: false}"
    directory.mkdir(parents=True, exist_ok=True)
    nodes, docs = [], []
    for i, port in enumerate(ports):
        host = i + 1  # 10.0.0.1, ...
        name, address = f"n{i:03d}", f"10.{host >> 16 & 255}.{host >> 8 & 255}.{host & 255}"
        nodes.append((name, address))
        docs.append(f"""apiVersion: gslb.ax.io/v1alpha1
kind: Node
metadata:
  name: {name}
  labels: {{service: bench}}
spec:
  addresses: ["{address}"]
  area: bench
  isp: any
  healthCheck:
    protocol: {proto}
    address: 127.0.0.1
    port: {port}
    path: /healthz
    host: bench.example.test
    expectStatus: 200
    timeout: {timeout}
    interval: {interval}
    failureThreshold: {failure_threshold}
    successThreshold: {success_threshold}{damping}
""")
    (directory / "nodes.yaml").write_text("---\n".join(docs))
    (directory / "world.yaml").write_text(f"""apiVersion: gslb.ax.io/v1alpha1
kind: Region
metadata:
  name: everyone
spec:
  area: bench
  isp: any
  match:
    default: true
  nodes: [{", ".join(n for n, _ in nodes)}]
---
apiVersion: gslb.ax.io/v1alpha1
kind: Domain
metadata:
  name: bench
spec:
  fqdn: bench.example.test
  zone: example.test
  strategy: RegionPriority
  nodeSelector:
    matchLabels: {{service: bench}}
  maxAnswers: {max_answers}
  ttl: {{steady: 300, failover: 60, canary: 120}}
  fallback:
    cname: origin.example.test
""")
    return nodes


class AxDns:
    """ax-dns --standalone DIR on 127.0.0.1 port 0 (no geo data: every client lands
    in the catch-all Region), its log in workdir."""

    def __init__(self, binary: Path, manifests: Path, workdir: Path, *extra: str):
        self.log_path = workdir / "ax-dns.log"
        self.cmd = [str(binary), "--standalone", str(manifests),
                    "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0",
                    "--no-rrl", "--workers", "1", "--identity", "bench", *extra]
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL)
        self.port = 0
        deadline = time.monotonic() + 30
        while not self.port:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"ax-dns did not start:\n{self.log_path.read_text()}")
            for line in self.log_lines():
                if line.get("msg") == "udp listening":
                    self.port = int(line["addresses"][0].rpartition(":")[2])
            time.sleep(0.05)

    def log_lines(self) -> list[dict]:
        lines = []
        for raw in self.log_path.read_text(errors="replace").splitlines():
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                pass
        return lines

    def health_changes(self) -> list[dict]:
        return [line for line in self.log_lines() if line.get("msg") == "node health changed"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def cpu_ticks(pid: int, thread_name: str | None = None) -> int:
    """utime+stime of the process, or of its threads named thread_name."""
    def ticks(stat_path: str) -> int:
        with open(stat_path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime

    if thread_name is None:
        return ticks(f"/proc/{pid}/stat")
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            if f.read().strip() == thread_name:
                total += ticks(f"/proc/{pid}/task/{tid}/stat")
    return total


def machine_busy_ticks() -> int:
    """CPU ticks the whole machine spent busy (all but idle and iowait)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return sum(fields) - fields[3] - fields[4]


def machine() -> dict:
    model = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
    return {"cpus": os.cpu_count(), "cpu_model": model.group(1) if model else "?",
            "kernel": os.uname().release}


def git_version() -> str:
    rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "diff", "--quiet", "HEAD", "--",
                            "core", "probe", "dns-server"]).returncode != 0
    return rev + ("+dirty" if dirty else "")


def replace_section(doc: Path, begin: str, end: str, section: str) -> None:
    """Replaces the text from the line starting with begin through end in doc
    (appends the section when the markers are missing)."""
    text = doc.read_text()
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end) + "\n?", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: section, text)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    doc.write_text(text)
