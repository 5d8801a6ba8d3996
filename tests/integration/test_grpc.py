"""A real gRPC client (grpcio, C-core, c-ares resolver) resolving through ax-dns.

    channel target  dns://127.0.0.1:R/api.example.test:P
    R: a counting relay in front of ax-dns (shows which DNS queries gRPC made)
    api.example.test -> 127.0.0.2, 127.0.0.3, 127.0.0.4 (manifests/grpc), each running
    a tiny gRPC server started here on the same port P (generic handlers, no .proto).
    _grpc_config.api.example.test TXT -> round_robin + a 300 ms timeout on Echo/Slow.

Shown: with TXT lookups enabled (channel arg grpc.service_config_disable_resolution=0;
C-core's c-ares resolver defaults to *not* asking for TXT), the client asks for the
TXT record, applies the service config (Slow fails with DEADLINE_EXCEEDED although the
caller set no deadline) and round_robin spreads calls over all three addresses. With
the default (no TXT), the same target gives pick_first: every call on one backend and
no deadline.
"""

from __future__ import annotations

import os

# Must precede the grpc import: the c-ares resolver is the one that honours the
# authority (our DNS server) in a dns:// target.
os.environ["GRPC_DNS_RESOLVER"] = "ares"

import collections  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import grpc  # noqa: E402
import pytest  # noqa: E402

from axharness import (  # noqa: E402
    MANIFESTS, AxDns, CountingRelay, HarnessError, addresses, ask, copy_manifests,
    make_query)
from waiting import wait_for  # noqa: E402

BACKENDS = {"127.0.0.2": "be-1", "127.0.0.3": "be-2", "127.0.0.4": "be-3"}
SERVICE = "ax.test.Echo"
CALLS = 30


class Backends:
    """Three gRPC servers, one per loopback address, on one shared port."""

    def __init__(self):
        self.counts = collections.Counter()
        self.lock = threading.Lock()
        self.servers: list[grpc.Server] = []
        self.port = 0

    def _handler(self, name: str):
        def who(request: bytes, context) -> bytes:
            with self.lock:
                self.counts[name] += 1
            return name.encode()

        def slow(request: bytes, context) -> bytes:
            time.sleep(1.0)  # on purpose: the slow backend the 300 ms deadline cuts off
            return b"late"

        return grpc.method_handlers_generic_handler(SERVICE, {
            "Who": grpc.unary_unary_rpc_method_handler(who),
            "Slow": grpc.unary_unary_rpc_method_handler(slow),
        })

    def _bind(self, addr: str, port: int, name: str) -> int:
        server = grpc.server(ThreadPoolExecutor(max_workers=4),
                             handlers=[self._handler(name)],
                             options=[("grpc.so_reuseport", 0)])
        try:
            bound = server.add_insecure_port(f"{addr}:{port}")
        except RuntimeError:
            bound = 0
        if not bound:
            server.stop(None)
            return 0
        server.start()
        self.servers.append(server)
        return bound

    def start(self, attempts: int = 10) -> "Backends":
        addrs = list(BACKENDS)
        for _ in range(attempts):
            # The first binds port 0; the others must get the same port.
            port = self._bind(addrs[0], 0, BACKENDS[addrs[0]])
            if port and all(self._bind(a, port, BACKENDS[a]) for a in addrs[1:]):
                self.port = port
                return self
            self.stop()
        raise HarnessError("could not bind the three gRPC backends on one port")

    def reset(self) -> None:
        with self.lock:
            self.counts.clear()

    def stop(self) -> None:
        for s in self.servers:
            s.stop(None).wait(5)
        self.servers = []


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("grpc")
    ax = relay = backends = None
    try:
        ax = AxDns(copy_manifests(tmp / "manifests", MANIFESTS / "grpc"), tmp / "ax",
                   listen_v6=False).start()
        relay = CountingRelay(ax.port)
        backends = Backends().start()
        yield ax, relay, backends
    except HarnessError as e:
        pytest.fail(str(e))
    finally:
        if backends:
            backends.stop()
        if relay:
            relay.stop()
        if ax:
            ax.stop()
    ax.check_clean_exit()


def target(relay: CountingRelay, backends: Backends) -> str:
    return f"dns://127.0.0.1:{relay.port}/api.example.test:{backends.port}"


def call_many(channel: grpc.Channel, n: int) -> list[str]:
    who = channel.unary_unary(f"/{SERVICE}/Who")
    return [who(b"hi", timeout=5).decode() for _ in range(n)]


def test_dns_answer_has_all_three(world):
    ax, _, _ = world
    r = ask(make_query("api.example.test", "A"), ax.port)
    assert addresses(r) == set(BACKENDS)
    r = ask(make_query("_grpc_config.api.example.test", "TXT"), ax.port)
    txt = b"".join(r.answer[0][0].strings).decode()
    assert txt.startswith('grpc_config=[{"serviceConfig":')
    assert '"round_robin"' in txt and '"timeout":"0.300s"' in txt


def test_service_config_from_txt_round_robin(world):
    ax, relay, backends = world
    txt_before = relay.count("_grpc_config.api.example.test", "TXT")
    a_before = relay.count("api.example.test", "A")
    options = [("grpc.service_config_disable_resolution", 0)]
    with grpc.insecure_channel(target(relay, backends), options=options) as channel:
        grpc.channel_ready_future(channel).result(timeout=15)
        # round_robin starts with the subchannels ready first; wait (bounded) until
        # every backend has answered once before counting.
        def every_backend_answered() -> bool:
            call_many(channel, 3)
            return len(backends.counts) == 3

        wait_for("every backend answering once", every_backend_answered, 10, 0,
                 context=lambda: f"answered: {dict(backends.counts)}")
        backends.reset()
        got = collections.Counter(call_many(channel, CALLS))
        print(f"round_robin (config from TXT): {dict(got)}")
        assert set(got) == set(BACKENDS.values()), got
        assert min(got.values()) >= CALLS // 3 - 1, got  # a strict rotation: 10/10/10

        # The methodConfig of the same TXT record applies: Slow gets a 300 ms
        # deadline though the caller set none.
        slow = channel.unary_unary(f"/{SERVICE}/Slow")
        start = time.monotonic()
        with pytest.raises(grpc.RpcError) as err:
            slow(b"x")
        took = time.monotonic() - start
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert took < 0.9, f"the 300 ms timeout from the service config, took {took:.2f}s"
    assert relay.count("_grpc_config.api.example.test", "TXT") > txt_before, (
        "gRPC asked ax-dns for the TXT service config")
    assert relay.count("api.example.test", "A") > a_before


def test_without_txt_pick_first_uses_one_backend(world):
    """The control: C-core's default (no TXT lookup) -> no service config -> pick_first
    sends every call to one address, and Slow runs to completion."""
    ax, relay, backends = world
    txt_before = relay.count("_grpc_config.api.example.test", "TXT")
    with grpc.insecure_channel(target(relay, backends)) as channel:
        grpc.channel_ready_future(channel).result(timeout=15)
        backends.reset()
        got = collections.Counter(call_many(channel, CALLS))
        print(f"pick_first (no service config): {dict(got)}")
        assert len(got) == 1 and sum(got.values()) == CALLS, got
        assert channel.unary_unary(f"/{SERVICE}/Slow")(b"x", timeout=5) == b"late"
    assert relay.count("_grpc_config.api.example.test", "TXT") == txt_before
