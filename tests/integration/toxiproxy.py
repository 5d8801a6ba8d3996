"""toxiproxy for fault-injection tests: a toxiproxy-server process and a client of its
HTTP API (proxies, toxics, partitions).

The server listens on 127.0.0.1 (or a given host, e.g. inside a network namespace made
by netpaths.py: `prefix` runs it there) on a port found free by binding and releasing it; a
toxiproxy-server that loses that race does not exit (it logs the bind error and
idles), so start() checks that the listening socket belongs to its own PID and
retries on another port otherwise. Proxies listen on 127.0.0.1:0 and the API
reports the port the kernel picked. The server is stopped by its PID.

Binary: env AX_TOXIPROXY, else $AX_CACHE/bin/toxiproxy-server (scripts/setup-test.sh
builds it with scripts/setup-toxiproxy.sh).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from axharness import HarnessError, free_port, stop_process
from waiting import wait_for


def toxiproxy_binary() -> Path:
    env = os.environ.get("AX_TOXIPROXY")
    if env:
        path = Path(env)
    else:
        cache = Path(os.environ.get("AX_CACHE", Path.home() / ".cache" / "ax"))
        path = cache / "bin" / "toxiproxy-server"
    if not path.is_file() or not os.access(path, os.X_OK):
        raise HarnessError(
            f"toxiproxy-server not found at {path}: run scripts/setup-test.sh or set AX_TOXIPROXY")
    return path


def _listen_inodes(pid: int, host: str, port: int) -> set[str]:
    """Socket inodes listening on host:port in the network namespace of pid (from
    /proc/PID/net/tcp, which is that namespace's table)."""
    want = f"{socket.inet_aton(host)[::-1].hex().upper()}:{port:04X}"
    inodes = set()
    with open(f"/proc/{pid}/net/tcp") as f:
        next(f)
        for line in f:
            cols = line.split()
            if cols[1] == want and cols[3] == "0A":  # 0A: LISTEN
                inodes.add(cols[9])
    return inodes


def _pid_listens_on(pid: int, host: str, port: int) -> bool:
    try:
        targets = {f"socket:[{i}]" for i in _listen_inodes(pid, host, port)}
    except FileNotFoundError:
        return False
    if not targets:
        return False
    fd_dir = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(fd_dir)
    except FileNotFoundError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"{fd_dir}/{fd}") in targets:
                return True
        except OSError:
            continue
    return False


class Proxy:
    """One proxy of a Toxiproxy server: clients connect to (host, port), toxiproxy
    connects to upstream. Toxics apply per connection, from its first byte on;
    toxicity p makes each new connection (per stream) get the toxic with
    probability p, else pass untouched."""

    def __init__(self, server: "Toxiproxy", data: dict[str, Any]):
        self.server = server
        self.name: str = data["name"]
        self.upstream: str = data["upstream"]
        self.listen: str = data["listen"]
        host, _, port = self.listen.rpartition(":")
        self.host, self.port = host, int(port)

    @property
    def path(self) -> str:
        return f"/proxies/{self.name}"

    def info(self) -> dict[str, Any]:
        return self.server.api("GET", self.path)

    # --- toxics -------------------------------------------------------------------

    def add_toxic(self, type_: str, *, name: str | None = None, stream: str = "downstream",
                  toxicity: float = 1.0, **attributes: Any) -> str:
        """Adds a toxic; returns its name (default "<type>_<stream>", which is also
        toxiproxy's default, so a second toxic of a type on a stream needs a name).
        stream: "downstream" (upstream -> client) or "upstream" (client -> upstream)."""
        body = {"name": name or f"{type_}_{stream}", "type": type_, "stream": stream,
                "toxicity": toxicity, "attributes": attributes}
        return self.server.api("POST", f"{self.path}/toxics", body)["name"]

    def update_toxic(self, name: str, *, toxicity: float | None = None,
                     **attributes: Any) -> None:
        body: dict[str, Any] = {"attributes": attributes}
        if toxicity is not None:
            body["toxicity"] = toxicity
        self.server.api("PATCH", f"{self.path}/toxics/{name}", body)

    def remove_toxic(self, name: str) -> None:
        self.server.api("DELETE", f"{self.path}/toxics/{name}")

    def toxics(self) -> list[dict[str, Any]]:
        return self.server.api("GET", f"{self.path}/toxics")

    def clear_toxics(self) -> None:
        for toxic in self.toxics():
            self.remove_toxic(toxic["name"])

    def latency(self, ms: int, jitter_ms: int = 0, **kw: Any) -> str:
        """Delays every chunk by ms (+- jitter_ms)."""
        return self.add_toxic("latency", latency=ms, jitter=jitter_ms, **kw)

    def timeout(self, ms: int, **kw: Any) -> str:
        """Drops all data; closes the connection after ms (0: never: the peer hangs,
        the deadlocked-application case)."""
        return self.add_toxic("timeout", timeout=ms, **kw)

    def reset_peer(self, ms: int = 0, **kw: Any) -> str:
        """Resets the connection (TCP RST) ms after its first data on the stream."""
        return self.add_toxic("reset_peer", timeout=ms, **kw)

    def limit_data(self, nbytes: int, **kw: Any) -> str:
        """Closes the connection after nbytes have passed on the stream."""
        return self.add_toxic("limit_data", bytes=nbytes, **kw)

    def bandwidth(self, kb_per_s: int, **kw: Any) -> str:
        """Limits the stream to kb_per_s KB/s."""
        return self.add_toxic("bandwidth", rate=kb_per_s, **kw)

    def slicer(self, average_size: int, size_variation: int = 0, delay_us: int = 0,
               **kw: Any) -> str:
        """Cuts the stream into packets of about average_size bytes, delay_us apart."""
        return self.add_toxic("slicer", average_size=average_size,
                              size_variation=size_variation, delay=delay_us, **kw)

    def slow_close(self, ms: int, **kw: Any) -> str:
        """Delays the closing of the connection by ms."""
        return self.add_toxic("slow_close", delay=ms, **kw)

    # --- partition ----------------------------------------------------------------

    def disable(self) -> None:
        """Partition: closes the listener and every open connection, so new
        connections are refused."""
        self.server.api("PATCH", self.path, {"enabled": False})

    def enable(self) -> None:
        """Heals a partition: listens again on the same port."""
        self.server.api("PATCH", self.path, {"enabled": True})

    def delete(self) -> None:
        self.server.api("DELETE", self.path)


class Toxiproxy:
    """A toxiproxy-server process on host (127.0.0.1); use as a context manager or
    call start() and stop(). prefix: what to run it under (`ip netns exec NS`)."""

    def __init__(self, workdir: Path, binary: Path | None = None, host: str = "127.0.0.1",
                 prefix: list[str] | None = None):
        self.workdir = workdir
        self.binary = binary or toxiproxy_binary()
        self.host = host
        self.prefix = prefix or []
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log_path = workdir / "toxiproxy.log"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, attempts: int = 5, timeout: float = 10.0) -> "Toxiproxy":
        self.workdir.mkdir(parents=True, exist_ok=True)
        for _ in range(attempts):
            # Free here; in another namespace almost surely free too, and the check
            # below that the port is the process's own catches the rest.
            self.port = free_port()
            log = open(self.log_path, "wb")
            try:
                self.proc = subprocess.Popen(
                    [*self.prefix, str(self.binary), "-host", self.host,
                     "-port", str(self.port)],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            finally:
                log.close()
            if self._wait_ready(timeout):
                return self
            self.stop()
        raise HarnessError(f"toxiproxy-server did not start:\n{self.logs()}")

    def _wait_ready(self, timeout: float) -> bool:
        """True once our process owns the API port and answers on it; False when it
        exited, lost the port or did not answer in time."""
        class Lost(Exception):
            pass

        def ready() -> bool:
            if self.proc.poll() is not None or "address already in use" in self.logs():
                raise Lost()
            if not _pid_listens_on(self.proc.pid, self.host, self.port):
                return False
            self.api("GET", "/version")
            return True

        try:
            return wait_for("toxiproxy-server's API", ready, timeout, 0.02,
                            retry_on=(HarnessError, OSError))
        except (Lost, AssertionError):
            return False

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        stop_process(self.proc)

    def __enter__(self) -> "Toxiproxy":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """One API call; the decoded JSON reply (None when empty)."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.url + path, data=data, method=method,
            headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                raw = r.read()
        except urllib.error.HTTPError as e:
            raise HarnessError(
                f"toxiproxy {method} {path} -> {e.code}: {e.read().decode(errors='replace')}"
            ) from None
        return json.loads(raw) if raw.strip() else None

    def version(self) -> str:
        return self.api("GET", "/version")["version"]

    def create_proxy(self, name: str, upstream: str, listen: str = "127.0.0.1:0") -> Proxy:
        """A new enabled proxy to upstream ("host:port"); listen defaults to a port
        the kernel picks."""
        return Proxy(self, self.api(
            "POST", "/proxies",
            {"name": name, "upstream": upstream, "listen": listen, "enabled": True}))

    def proxy(self, name: str) -> Proxy:
        return Proxy(self, self.api("GET", f"/proxies/{name}"))

    def proxies(self) -> dict[str, Proxy]:
        return {n: Proxy(self, d) for n, d in self.api("GET", "/proxies").items()}

    def reset(self) -> None:
        """Enables every proxy and removes every toxic."""
        self.api("POST", "/reset")

    def delete_all(self) -> None:
        for p in self.proxies().values():
            p.delete()
