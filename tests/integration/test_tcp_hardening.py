"""ax-dns's TCP edge against clients that hold resources (issue 15), on the real binary:

- 50 clients pipeline queries for AX_TCP_SOAK_S seconds (60 by default; a longer
  soak, e.g. AX_TCP_SOAK_S=1800, is the same test run by hand) and never
  read an answer: ax-dns's RSS stays within SOAK_RSS_MIB of what it was before, each
  is closed by the server (its query budget spent, or idle once stopped from sending:
  what it is sent does not count) and connects again, and a client that reads is
  answered throughout;
- 2,000 connections from one source (127.0.0.2) do not lock out another (127.0.0.3):
  with the defaults the source holds its 100 and the rest are refused; with no
  per-source limit the newcomer evicts the connection idle longest.
"""

from __future__ import annotations

import os
import resource
import select
import socket
import statistics
import struct
import time

import dns.exception
import dns.message
import dns.query
import pytest

from axharness import QUICKSTART, AxDns, copy_manifests
from waiting import wait_for

# A sanitizer build runs the same clients, shorter, and judges behaviour only: its
# allocator's quarantine and redzones are not the server's memory.
SANITIZED = bool(os.environ.get("AX_SANITIZED"))
SOAK_S = float(os.environ.get("AX_TCP_SOAK_S", "30" if SANITIZED else "60"))
NON_READERS = 50
# What 50 non-reading pipeliners may add to ax-dns's RSS: each connection holds at
# most 16 KiB of unsent answers (plus the one that crossed it) and one message of
# input; the rest is the kernel's socket buffers, outside the process.
SOAK_RSS_MIB = 24


def raise_fd_limit(n: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(n, hard), hard))


def rss_mib(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def framed(qid: int, name: str = "www.example.test") -> bytes:
    q = dns.message.make_query(name, "A")
    q.id = qid
    wire = q.to_wire()
    return struct.pack("!H", len(wire)) + wire


def answered_over_tcp(ax: AxDns, source: str = "127.0.0.1") -> bool:
    q = dns.message.make_query("www.example.test", "A")
    try:
        r = dns.query.tcp(q, "127.0.0.1", port=ax.port, timeout=2, source=source)
    except (OSError, dns.exception.DNSException):
        return False
    return r.rcode() == 0 and bool(r.answer)


def start_ax(tmp_path, *extra: str) -> AxDns:
    raise_fd_limit(8192)  # inherited by ax-dns
    return AxDns(copy_manifests(tmp_path / "manifests", QUICKSTART), tmp_path / "run",
                 listen_v6=False, extra_args=list(extra)).start()


class NonReader:
    """Pipelines queries as fast as the socket takes them and never reads; when the
    server closes it, it connects again."""

    def __init__(self, port: int):
        self.port = port
        self.sock: socket.socket | None = None
        self.closed = 0
        self.burst = b"".join(framed(i) for i in range(200))

    def connect(self) -> None:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window
        s.connect(("127.0.0.1", self.port))
        s.setblocking(False)
        self.sock = s

    def step(self) -> None:
        if self.sock is None:
            self.connect()
        try:
            self.sock.send(self.burst)
        except BlockingIOError:
            pass  # the server stopped reading it: it waits
        except OSError:
            self.sock.close()  # closed by the server (idle): again
            self.sock = None
            self.closed += 1
            return
        # A close shows as readable EOF or a reset, without reading any answer
        # bytes (peek).
        if select.select([self.sock], [], [], 0)[0]:
            try:
                if self.sock.recv(1, socket.MSG_PEEK) == b"":
                    raise ConnectionResetError
            except BlockingIOError:
                pass
            except OSError:
                self.sock.close()
                self.sock = None
                self.closed += 1

    def close(self) -> None:
        if self.sock:
            self.sock.close()


@pytest.mark.timeout(SOAK_S + 120)
def test_non_reading_pipeliners_leave_rss_bounded(tmp_path):
    ax = start_ax(tmp_path)
    try:
        for _ in range(20):  # warm up the TCP path before the baseline
            assert answered_over_tcp(ax)
        baseline = rss_mib(ax.proc.pid)
        clients = [NonReader(ax.port) for _ in range(NON_READERS)]
        samples, reads_ok, reads = [], 0, 0
        deadline = time.monotonic() + SOAK_S
        next_check = time.monotonic()
        while time.monotonic() < deadline:
            for c in clients:
                c.step()
            if time.monotonic() >= next_check:
                samples.append(rss_mib(ax.proc.pid))
                reads += 1
                reads_ok += answered_over_tcp(ax)
                next_check = time.monotonic() + 1.0
            time.sleep(0.01)
        reconnects = sum(c.closed for c in clients)
        closed = {reason: ax.metric("ax_dns_tcp_connections_closed_total", reason=reason)
                  for reason in ("idle", "budget", "buffered")}
        buffered = ax.metric("ax_dns_tcp_buffered_bytes")
        for c in clients:
            c.close()
        peak = max(samples)
        print(f"\n{NON_READERS} non-readers for {SOAK_S:.0f} s: RSS baseline {baseline:.1f} "
              f"MiB, median {statistics.median(samples):.1f}, peak {peak:.1f} MiB; "
              f"{reconnects} reconnects after the server closed them ({closed}); buffered "
              f"{buffered / 1024:.0f} KiB at the end; a reading client answered "
              f"{reads_ok}/{reads}")
        if not SANITIZED:
            assert peak - baseline < SOAK_RSS_MIB, (baseline, peak)
        assert reads_ok == reads
        # None is kept open by what it is sent: each is closed once it has had its
        # 10,000 answers (the kernel's buffers take most of them), or as idle once
        # it has been stopped from sending.
        if SOAK_S >= 40 and not SANITIZED:
            assert closed["idle"] + closed["budget"] >= NON_READERS, closed
        assert buffered <= NON_READERS * (16 + 64 + 66) * 1024  # ours, not the allocator's
    finally:
        ax.stop()


def hold_connections(port: int, source: str, n: int) -> list[socket.socket]:
    """n connections from `source`, each sent one query (so the server has heard
    from it) and left open."""
    socks = []
    for i in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind((source, 0))
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(framed(i % 65536))
        except OSError:
            s.close()
            continue
        socks.append(s)
    return socks


def open_count(ax) -> float:
    return ax.metric("ax_dns_tcp_connections_open")


@pytest.mark.parametrize("per_source", ["default", "off"])
def test_one_source_does_not_lock_out_another(tmp_path, per_source):
    extra = [] if per_source == "default" else ["--tcp-max-connections-per-source", "0"]
    ax = start_ax(tmp_path, *extra)
    hog = []
    try:
        hog = hold_connections(ax.port, "127.0.0.2", 2000)
        if per_source == "default":
            wait_for("2,000 connections seen", lambda: ax.metric(
                "ax_dns_tcp_connections_total", result="rejected_source") == 1900, 30)
            assert open_count(ax) == 100
        else:
            # The 1,000 limit reached, then each newcomer evicted the idlest.
            wait_for("the limit reached", lambda: ax.metric(
                "ax_dns_tcp_connections_closed_total", reason="evicted") == 1000, 30)
            assert open_count(ax) == 1000
        start = time.monotonic()
        assert answered_over_tcp(ax, source="127.0.0.3")
        print(f"\n{per_source}: another source answered in "
              f"{(time.monotonic() - start) * 1000:.1f} ms with the hog's connections open")
    finally:
        for s in hog:
            s.close()
        ax.stop()
