"""Unbound as a recursive resolver in front of ax-dns, with ECS (its subnetcache module).

    dnspython client --ECS--> Unbound 127.0.0.1:U --ECS--> relay 127.0.0.1:R --> ax-dns

Unbound has a stub-zone for example.test pointing at a counting UDP relay in front of
ax-dns (tests/integration/axharness.py: CountingRelay). The relay passes every packet
through unchanged and records what Unbound asked upstream (name, type, ECS) and the
scope ax-dns answered with, so "Unbound answered from its cache" is measured as "no
new upstream query", independently of Unbound's own counters (also checked, through
unbound-control).

How the client subnet reaches ax-dns: the test client puts an ECS option in its query
to Unbound; with `client-subnet-always-forward: yes` Unbound forwards it (trimmed to
`max-client-subnet-ipv4: 24`). Queries without ECS would make Unbound send its
client's address instead (127.0.0.x/24 here), which is in no geo database, so loopback
source addresses cannot show geo differences: the client ECS option is what we use.

What is proven:
  (a) two client subnets get different nodes through Unbound;
  (b) a repeat from the same /24 is answered from Unbound's cache (no upstream query);
  (c) a different /24 INSIDE the scope ax-dns returned (e.g. /18) is also answered from
      the cache: Unbound caches by the returned scope, not by the source /24;
  (d) a /24 OUTSIDE that scope triggers a new upstream query;
  (e) with the upstream gone, cached subnets are still answered and an uncached
      subnet is not.
"""

from __future__ import annotations

import ipaddress
import time

import dns.exception
import dns.flags
import dns.rcode
import dns.rdatatype
import pytest

from axharness import (
    MANIFESTS, QUICKSTART, AxDns, CountingRelay, HarnessError, Unbound, addresses, ask,
    copy_manifests, ecs_of, make_query, rcode_text)

GD = "113.108.1.0/24"  # Guangdong telecom -> gz-01
BJ = "123.125.114.0/24"  # Beijing unicom -> bj-01
US = "8.8.8.0/24"  # US -> sj-01, sj-02
NAME = "www.example.test"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("unbound")
    ax = relay = unbound = None
    try:
        ax = AxDns(copy_manifests(tmp / "manifests", QUICKSTART, MANIFESTS / "big"),
                   tmp / "ax", listen_v6=False).start()
        relay = CountingRelay(ax.port)
        unbound = Unbound(tmp / "unbound", relay.port).start()
        yield ax, relay, unbound
    except HarnessError as e:
        pytest.fail(str(e))
    finally:
        if unbound:
            print(unbound.logs()[-3000:])
            unbound.stop()
        if relay:
            relay.stop()
        if ax:
            ax.stop()
    ax.check_clean_exit()


def resolve(unbound: Unbound, subnet: str | None, name: str = NAME, rdtype: str = "A"):
    r = ask(make_query(name, rdtype, ecs=subnet), unbound.port, timeout=10)
    return r


def upstream(relay: CountingRelay, subnet: str | None = "any") -> int:
    return relay.count(NAME, "A", subnet)


def test_unbound_has_subnetcache(world):
    _, _, unbound = world
    log = (unbound.workdir / "unbound.log").read_text()
    assert "init module 0: subnetcache" in log, "module-config must load subnetcache first"


def test_subnets_get_different_nodes_and_caching_follows_scope(world):
    ax, relay, unbound = world
    stats0 = unbound.stats()

    # (a) Three client subnets, three different answers, each fetched upstream once
    # with the client's ECS passed on.
    answers, scopes = {}, {}
    for subnet, want in ((GD, {"192.0.2.10"}), (BJ, {"198.51.100.20"}),
                         (US, {"203.0.113.30", "203.0.113.31"})):
        before = upstream(relay, subnet)
        r = resolve(unbound, subnet)
        assert rcode_text(r) == "NOERROR", unbound.logs()
        assert r.flags & dns.flags.RA and not r.flags & dns.flags.AA, "a recursive answer"
        assert addresses(r) == want
        assert 0 < r.answer[0].ttl <= 300
        assert upstream(relay, subnet) == before + 1, relay.snapshot()
        ecs = ecs_of(r)
        assert ecs is not None, "Unbound echoes ECS to a client that sent it"
        seen = [s for s in relay.snapshot() if s.qname == NAME + "." and s.ecs == subnet]
        scopes[subnet] = seen[-1].scope  # what ax-dns answered upstream
        assert 0 < scopes[subnet] <= 24
        assert ecs.scopelen == scopes[subnet], "Unbound passes ax-dns's scope through"
        answers[subnet] = frozenset(addresses(r))
    assert len(set(answers.values())) == 3
    print(f"scopes returned by ax-dns through Unbound: {scopes}")

    # (b) The same subnet again: from Unbound's cache, no upstream query.
    total = upstream(relay)
    for subnet in (GD, BJ, US):
        r = resolve(unbound, subnet)
        assert frozenset(addresses(r)) == answers[subnet]
    assert upstream(relay) == total, "repeats must come from Unbound's cache"

    # (c) A different /24 inside the scope of the GD answer: also from the cache.
    gd_scope = scopes[GD]
    assert gd_scope < 24, f"need a scope wider than /24 to show this, got /{gd_scope}"
    scope_net = ipaddress.ip_network(GD).supernet(new_prefix=gd_scope)
    inside = str(list(scope_net.subnets(new_prefix=24))[-1])  # e.g. 113.108.63.0/24
    assert inside != GD
    r = resolve(unbound, inside)
    assert frozenset(addresses(r)) == answers[GD]
    assert upstream(relay) == total, (
        f"{inside} is inside the cached scope {scope_net}: Unbound must not ask again")
    assert ecs_of(r).scopelen == gd_scope

    # (d) A /24 just outside that scope: a new upstream query with that subnet.
    outside = str(ipaddress.ip_network(
        f"{scope_net.broadcast_address + 1}/24", strict=False))  # e.g. 113.108.64.0/24
    r = resolve(unbound, outside)
    assert rcode_text(r) == "NOERROR" and addresses(r)
    assert upstream(relay, outside) == 1, relay.snapshot()
    assert upstream(relay) == total + 1
    print(f"GD scope {scope_net}: {inside} cached, {outside} asked upstream "
          f"-> {sorted(addresses(r))} scope /{ecs_of(r).scopelen}")

    # Unbound's own counters agree: 8 queries with ECS, 4 answered from the subnet
    # cache (3 repeats + the /24 inside the scope).
    stats = unbound.stats()
    delta = {k: stats.get(k, 0) - stats0.get(k, 0)
             for k in ("num.query.subnet", "num.query.subnet_cache")}
    print(f"unbound stats delta: {delta}")
    assert delta == {"num.query.subnet": 8, "num.query.subnet_cache": 4}, stats


def test_nxdomain_and_txt_through_unbound(world):
    _, _, unbound = world
    r = resolve(unbound, GD, "nope.example.test")
    assert r.rcode() == dns.rcode.NXDOMAIN
    assert r.authority and r.authority[0].rdtype == dns.rdatatype.SOA
    r = resolve(unbound, None, "_grpc_config.api.example.test", "TXT")
    assert r.rcode() == dns.rcode.NOERROR
    assert b"".join(r.answer[0][0].strings).startswith(b"grpc_config=")


def test_cache_survives_upstream_loss_per_scope(world):
    """(e) Upstream gone (the relay stops forwarding): subnets in the cache still get
    their answer; a subnet never seen cannot be answered."""
    ax, relay, unbound = world
    for subnet in (GD, US):
        resolve(unbound, subnet)  # make sure they are cached (TTL 300)
    relay.forwarding = False
    try:
        before = upstream(relay)
        assert addresses(resolve(unbound, GD)) == {"192.0.2.10"}
        assert addresses(resolve(unbound, US)) == {"203.0.113.30", "203.0.113.31"}
        assert upstream(relay) == before
        fresh = "1.0.16.0/24"  # Japan: never queried in this module
        start = time.monotonic()
        try:
            r = ask(make_query(NAME, "A", ecs=fresh), unbound.port, timeout=3)
            assert rcode_text(r) == "SERVFAIL" and not addresses(r)
        except dns.exception.Timeout:
            pass  # Unbound still retrying: no answer either way
        assert upstream(relay, fresh) >= 1, "the uncached subnet had to go upstream"
        print(f"uncached subnet without upstream: gave up after {time.monotonic() - start:.1f}s")
    finally:
        relay.forwarding = True
