#!/usr/bin/env python3
"""Tiny local health endpoints for the quickstart nodes, so that standalone ax-dns
probes something real and a failover can be watched.

Each NAME=PROTO:PORT backend listens on 127.0.0.1 only (--bind ADDR: elsewhere, e.g.
0.0.0.0 in the kind e2e's pod):
  http / https  GET /healthz -> 200 with a small JSON load report
                (bandwidth_mbps, connections), like a real edge node's health page
  tcp           accepts and closes
A control endpoint (--control PORT) stops and restarts backends by name:
  curl 127.0.0.1:18000/stop/gz-01    # its port refuses connections from now on
  curl 127.0.0.1:18000/start/gz-01
  curl 127.0.0.1:18000/              # which are running
Runs until SIGTERM/SIGINT. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import ssl
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class HealthHandler(BaseHTTPRequestHandler):
    server_version = "ax-demo-backend"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path.split("?")[0] != "/healthz":
            self._reply(404, {"error": "not found"})
            return
        name = self.server.node_name  # type: ignore[attr-defined]
        # A steady, per-node made-up load: ax-dns parses it into the node's load.
        seed = zlib.crc32(name.encode())
        self._reply(200, {"status": "ok", "node": name,
                          "bandwidth_mbps": 500 + seed % 2000,
                          "connections": 1000 + seed % 20000})

    def _reply(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:  # quiet: probes come every second
        pass


class TcpBackend:
    """Accepts and closes: all a TCP check looks at."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_server((host, port), reuse_port=False)
        self.sock.settimeout(0.2)
        self.running = True

    def serve_forever(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
                conn.close()
            except socket.timeout:
                continue
            except OSError:
                return

    def shutdown(self) -> None:
        self.running = False

    def server_close(self) -> None:
        self.sock.close()


class Backend:
    def __init__(self, name: str, proto: str, host: str, port: int,
                 tls: ssl.SSLContext | None):
        self.name, self.proto, self.host, self.port, self.tls = name, proto, host, port, tls
        self.server = None
        self.thread = None

    def start(self) -> None:
        if self.server is not None:
            return
        if self.proto == "tcp":
            server = TcpBackend(self.host, self.port)
        else:
            server = ThreadingHTTPServer((self.host, self.port), HealthHandler)
            server.daemon_threads = True
            server.node_name = self.name
            if self.proto == "https":
                server.socket = self.tls.wrap_socket(server.socket, server_side=True)
        self.server = server
        self.thread = threading.Thread(target=server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.server is None:
            return
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=2)
        self.server = None


def control_handler(backends: dict[str, Backend]):
    class Control(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            parts = [p for p in self.path.split("/") if p]
            if len(parts) == 2 and parts[0] in ("stop", "start") and parts[1] in backends:
                b = backends[parts[1]]
                b.stop() if parts[0] == "stop" else b.start()
                status, body = 200, {parts[1]: "running" if b.server else "stopped"}
            elif not parts:
                status, body = 200, {n: ("running" if b.server else "stopped")
                                     for n, b in backends.items()}
            else:
                status, body = 404, {"error": "use /stop/NAME, /start/NAME or /",
                                     "names": sorted(backends)}
            data = (json.dumps(body) + "\n").encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:
            pass

    return Control


def parse_backend(text: str) -> tuple[str, str, int]:
    name, _, where = text.partition("=")
    proto, _, port = where.partition(":")
    if not name or proto not in ("http", "https", "tcp") or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=http|https|tcp:PORT, got {text!r}")
    return name, proto, int(port)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("backends", nargs="+", type=parse_backend, metavar="NAME=PROTO:PORT")
    ap.add_argument("--control", type=int, required=True, help="control port")
    ap.add_argument("--cert", help="PEM certificate for https backends")
    ap.add_argument("--key", help="PEM key for https backends")
    ap.add_argument("--bind", default="127.0.0.1", help="address to listen on")
    args = ap.parse_args()

    tls = None
    if any(proto == "https" for _, proto, _ in args.backends):
        if not (args.cert and args.key):
            ap.error("https backends need --cert and --key")
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    backends = {name: Backend(name, proto, args.bind, port, tls)
                for name, proto, port in args.backends}
    for b in backends.values():
        b.start()
    control = ThreadingHTTPServer((args.bind, args.control), control_handler(backends))
    control.daemon_threads = True
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    threading.Thread(target=control.serve_forever, daemon=True).start()
    print(f"demo backends on {args.bind}: {', '.join(f'{n}={b.proto}:{b.port}' for n, b in backends.items())}; "
          f"control on {args.bind}:{args.control}", flush=True)
    stop.wait()
    control.shutdown()
    for b in backends.values():
        b.stop()


if __name__ == "__main__":
    main()
