#!/usr/bin/env python3
"""Probe load of one prober (issue 5): standalone ax-dns probing many nodes.

  probe_load.py --ax-dns BIN --out DIR [--proto http|https] [--nodes 500]
                [--interval 2s] [--warmup 10] [--seconds 40] [--cert PEM --key PEM]

One asyncio loop in this process listens on NODES loopback ports (port 0 each), one
per node, answers GET /healthz with 200 and closes, and notes the time of every
accepted connection per port. ax-dns --standalone probes those nodes every INTERVAL.
After --warmup s (the cold start and the first verdicts), it measures for --seconds s:
  - CPU of the probe thread (named ax-probe) and of the whole ax-dns process, from
    utime+stime in /proc, as % of one core;
  - connections per node per interval: each port's accepts per interval over the
    window, and the most accepts any node took within any one interval (must be 1);
  - HTTPS: how many of the window's TLS handshakes resumed a session, as the
    endpoints saw them (not what ax-dns says about itself).
Writes DIR/results-PROTO.json; render.py turns it into markdown.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import resource
import shutil
import socket
import ssl
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from axbench import (  # noqa: E402
    AxDns, cpu_ticks, git_version, machine, machine_busy_ticks, write_manifests)

WINDOW_SLACK_S = 0.02
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\n"
            b"Connection: close\r\n\r\n{\"status\":\"ok\"}")


class Health(asyncio.Protocol):
    """One probe's connection: reads the request head, answers 200, closes. Over
    TLS (made after the handshake) it notes whether the handshake resumed."""

    def __init__(self, handshakes: list[tuple[float, bool]]):
        self.handshakes = handshakes

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport, self.head = transport, b""
        if (tls := transport.get_extra_info("ssl_object")) is not None:
            self.handshakes.append((time.monotonic(), tls.session_reused))

    def data_received(self, data: bytes) -> None:
        self.head += data
        if b"\r\n\r\n" in self.head:
            self.transport.write(RESPONSE)
            self.transport.close()


class Endpoints:
    """NODES health endpoints on one asyncio loop in a background thread. Accepts are
    taken (and timed) here, before any TLS handshake, so a slow handshake does not
    blur when the prober connected."""

    def __init__(self, count: int, tls: ssl.SSLContext | None):
        self.tls = tls
        self.accepts: dict[int, list[float]] = {}
        self.handshakes: list[tuple[float, bool]] = []  # (when, resumed)
        self.listeners: list[socket.socket] = []
        for _ in range(count):
            sock = socket.create_server(("127.0.0.1", 0), backlog=64)
            sock.setblocking(False)
            self.listeners.append(sock)
            self.accepts[sock.getsockname()[1]] = []
        self.ports = list(self.accepts)
        self.loop = asyncio.new_event_loop()
        for sock in self.listeners:
            self.loop.add_reader(sock.fileno(), self._accept, sock)
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def _accept(self, listener: socket.socket) -> None:
        times = self.accepts[listener.getsockname()[1]]
        while True:
            try:
                conn, _ = listener.accept()
            except BlockingIOError:
                return
            times.append(time.monotonic())
            conn.setblocking(False)
            self.loop.create_task(self._serve(conn))

    async def _serve(self, conn: socket.socket) -> None:
        try:
            await self.loop.connect_accepted_socket(lambda: Health(self.handshakes), conn,
                                                    ssl=self.tls)
        except (OSError, ssl.SSLError):
            conn.close()

    def stop(self) -> None:
        def close() -> None:
            for sock in self.listeners:
                self.loop.remove_reader(sock.fileno())
                sock.close()
            self.loop.stop()
        self.loop.call_soon_threadsafe(close)
        self.thread.join(10)


def others_cores(ax_pid: int, seconds: float) -> float:
    """Cores used over `seconds` by anything but ax-dns and this process."""
    hz = os.sysconf("SC_CLK_TCK")
    before = machine_busy_ticks(), cpu_ticks(ax_pid), cpu_ticks(os.getpid())
    time.sleep(seconds)
    after = machine_busy_ticks(), cpu_ticks(ax_pid), cpu_ticks(os.getpid())
    return ((after[0] - before[0]) - (after[1] - before[1]) - (after[2] - before[2])) / hz / seconds


def wait_quiet(ax_pid: int, limit_s: float) -> None:
    """Waits up to limit_s for other processes to leave the CPUs (under 0.2 core):
    on 2 cores, someone else's build slows the prober's own work too."""
    deadline = time.monotonic() + limit_s
    while (busy := others_cores(ax_pid, 1.0)) >= 0.2:
        if time.monotonic() > deadline:
            print(f"probe_load.py: others still use {busy:.2f} cores; measuring anyway",
                  file=sys.stderr)
            return


def most_in_any_window(times: list[float], width: float) -> int:
    """The most timestamps inside any half-open window [t, t + width)."""
    return max((bisect.bisect_left(times, t + width) - i for i, t in enumerate(times)),
               default=0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ax-dns", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--proto", choices=("http", "https"), default="http")
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--interval", type=float, default=2.0, help="seconds")
    ap.add_argument("--timeout", default="1s", help="probe timeout")
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--quiet-wait", type=float, default=300.0,
                    help="seconds to wait for an otherwise idle machine")
    ap.add_argument("--cert", type=Path, help="https: PEM certificate for bench.example.test")
    ap.add_argument("--key", type=Path)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    # Listeners, their connections and the server's own descriptors.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.nodes + 256)), hard))

    tls, extra = None, []
    if args.proto == "https":
        if not (args.cert and args.key):
            ap.error("--proto https needs --cert and --key")
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
        extra = ["--probe-ca", str(args.cert)]

    endpoints = Endpoints(args.nodes, tls)
    work = Path(tempfile.mkdtemp(prefix="ax-probe-load."))
    write_manifests(work / "manifests", endpoints.ports, proto=args.proto.upper(),
                    interval=f"{args.interval:g}s", timeout=args.timeout,
                    failure_threshold=3, success_threshold=5, max_answers=2)
    hz = os.sysconf("SC_CLK_TCK")
    ax = None
    try:
        ax = AxDns(args.ax_dns, work / "manifests", work, *extra)
        time.sleep(args.warmup)
        if not ax.health_changes():
            raise RuntimeError(f"no node was probed:\n{ax.log_path.read_text()[-3000:]}")
        wait_quiet(ax.proc.pid, args.quiet_wait)
        proc0, thread0, t0 = cpu_ticks(ax.proc.pid), cpu_ticks(ax.proc.pid, "ax-probe"), \
            time.monotonic()
        busy0, own0 = machine_busy_ticks(), cpu_ticks(os.getpid())
        time.sleep(args.seconds)
        proc1, thread1, t1 = cpu_ticks(ax.proc.pid), cpu_ticks(ax.proc.pid, "ax-probe"), \
            time.monotonic()
        busy1, own1 = machine_busy_ticks(), cpu_ticks(os.getpid())
        changes = ax.health_changes()
        with open(f"/proc/{ax.proc.pid}/status") as f:
            rss_kib = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    finally:
        if ax:
            ax.stop()
            (args.out / f"ax-dns-{args.proto}.log").write_text(
                ax.log_path.read_text(errors="replace"))
        endpoints.stop()
        shutil.rmtree(work, ignore_errors=True)

    elapsed = t1 - t0
    in_window = {p: [t for t in ts if t0 <= t < t1] for p, ts in endpoints.accepts.items()}
    # From each node's own first and last accept in the window: counting accepts in
    # the window would depend on where it cuts the nodes' phases (they all started
    # within the same 200 ms).
    per_node = [(len(ts) - 1) * args.interval / (ts[-1] - ts[0])
                for ts in in_window.values() if len(ts) > 1]
    gaps = [b - a for ts in in_window.values() for a, b in zip(ts, ts[1:])]
    handshakes = [resumed for t, resumed in endpoints.handshakes if t0 <= t < t1]
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(), "ax": git_version(), "proto": args.proto,
        "command": (f"tests/bench/probe_load/run.sh --nodes {args.nodes} "
                    f"--interval {args.interval:g} --seconds {args.seconds:g}"),
        "nodes": args.nodes, "interval_s": args.interval, "timeout": args.timeout,
        "warmup_s": args.warmup, "seconds": elapsed,
        "probe_thread_cpu_pct": 100 * (thread1 - thread0) / hz / elapsed,
        "process_cpu_pct": 100 * (proc1 - proc0) / hz / elapsed,
        # Everything else on the machine meanwhile (other users' builds and benchmarks
        # compete for the same 2 cores), in cores.
        "others_cores": ((busy1 - busy0) - (proc1 - proc0) - (own1 - own0)) / hz / elapsed,
        "accepts": sum(len(ts) for ts in in_window.values()),
        "probes_per_s": sum(per_node) / args.interval,
        "conns_per_node_per_interval": {"min": min(per_node), "mean": statistics.mean(per_node),
                                        "max": max(per_node)},
        # Accept times carry a few ms of event-loop noise (the schedule's own gaps are
        # never shorter than the interval): windows are that much shorter.
        "window_slack_s": WINDOW_SLACK_S,
        "most_conns_in_one_interval": max(
            most_in_any_window(ts, args.interval - WINDOW_SLACK_S) for ts in in_window.values()),
        "gap_s": {"min": min(gaps), "median": statistics.median(gaps),
                  "max": max(gaps)} if gaps else None,
        "nodes_never_probed": sum(1 for ts in in_window.values() if not ts),
        "verdicts": {"up": sum(1 for c in changes if c["to"] == "Up"),
                     "down": sum(1 for c in changes if c["to"] == "Down")},
        "rss_mib": rss_kib / 1024,
        "tls_key": "RSA 2048, self-signed" if tls else None,
        "tls_handshakes": len(handshakes),
        "tls_resumed": sum(handshakes),
    }
    (args.out / f"results-{args.proto}.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
