"""dnspython against a running ax-dns: the authoritative matrix with exact assertions
(rcode, flags, TTLs, sections, ECS echo and scope), over UDP, TCP and IPv6.

Served world: examples/quickstart (+ manifests/big). Client subnets, classified by the
real dbip + ASN data that scripts/setup.sh fetches:
  113.108.1.0/24    Guangdong, China Telecom (AS4134) -> cn-south-telecom -> gz-01
  123.125.114.0/24  Beijing, China Unicom (AS4808)    -> cn-north-unicom  -> bj-01
  8.8.8.0/24        US                                -> us-west          -> sj-01, sj-02
(gz-02 is excluded for www by a Rule until 2030; bj-02 is draining.)
"""

from __future__ import annotations

import ipaddress
import socket
import struct

import dns.edns
import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import pytest

from axharness import (QUICKSTART, AxDns, addresses, ask, ask_raw, running,
                       copy_manifests, ecs_of, make_query, rcode_text)

GZ = {"192.0.2.10", "192.0.2.11"}
BJ = {"198.51.100.20", "198.51.100.21"}
SJ = {"203.0.113.30", "203.0.113.31"}

CLIENTS = {
    # subnet: (expected www A answer, the nodes it must come from, expected AAAA)
    "113.108.1.0/24": ({"192.0.2.10"}, GZ, {"2001:db8:10::10"}),
    "123.125.114.0/24": ({"198.51.100.20"}, BJ, {"2001:db8:20::20"}),
    "8.8.8.0/24": (SJ, SJ, {"2001:db8:30::30"}),
}

SOA_TEXT = "ns1.example.test. hostmaster.example.test."


def check_authoritative(r: dns.message.Message, rcode: str = "NOERROR") -> None:
    assert rcode_text(r) == rcode
    assert r.flags & dns.flags.QR
    assert r.flags & dns.flags.AA, "authoritative answers carry AA"
    assert not r.flags & dns.flags.RA, "an authoritative-only server offers no recursion"
    assert not r.flags & dns.flags.TC


def check_negative(r: dns.message.Message, rcode: str) -> None:
    check_authoritative(r, rcode)
    assert r.answer == []
    assert len(r.authority) == 1
    soa = r.authority[0]
    assert soa.rdtype == dns.rdatatype.SOA
    assert soa.name.to_text() == "example.test."
    # RFC 2308 §3: negative TTL = min(SOA TTL, SOA MINIMUM).
    assert soa.ttl == min(3600, soa[0].minimum) == 60
    assert soa[0].to_text().startswith(SOA_TEXT)


# --- GSLB answers and ECS ---------------------------------------------------------


@pytest.mark.parametrize("subnet", list(CLIENTS))
@pytest.mark.parametrize("tcp", [False, True], ids=["udp", "tcp"])
def test_www_a_by_client_subnet(ax_quickstart, subnet, tcp):
    want, _, _ = CLIENTS[subnet]
    r = ask(make_query("www.example.test", "A", ecs=subnet), ax_quickstart.port, tcp=tcp)
    check_authoritative(r)
    assert addresses(r) == want
    assert [rr.ttl for rr in r.answer] == [300]  # Domain www: ttl.steady
    assert r.edns == 0 and r.payload == 1232
    ecs = ecs_of(r)
    addr, _, plen = subnet.partition("/")
    assert ecs is not None, "RFC 7871 §7.2.1: the ECS option is echoed"
    assert (ecs.family, ecs.address, ecs.srclen) == (1, addr, int(plen))
    assert 0 < ecs.scopelen <= 24, "the answer depends on the subnet, at most the /24 sent"


@pytest.mark.parametrize("subnet", list(CLIENTS))
def test_www_aaaa_by_client_subnet(ax_quickstart, subnet):
    _, _, want6 = CLIENTS[subnet]
    r = ask(make_query("www.example.test", "AAAA", ecs=subnet), ax_quickstart.port)
    check_authoritative(r)
    assert addresses(r, "AAAA") == want6
    assert r.answer[0].ttl == 300


def test_three_subnets_three_different_answers(ax_quickstart):
    seen = {s: frozenset(addresses(ask(make_query("www.example.test", "A", ecs=s),
                                       ax_quickstart.port))) for s in CLIENTS}
    assert len(set(seen.values())) == 3, seen
    for s, got in seen.items():
        assert got <= CLIENTS[s][1]


def test_scope_is_honest(ax_quickstart):
    """The scope says "same answer for the whole /scope": another /24 inside it gets
    the same answer. (It claims nothing outside.)"""
    for subnet in CLIENTS:
        r = ask(make_query("www.example.test", "A", ecs=subnet), ax_quickstart.port)
        scope = ecs_of(r).scopelen
        net = ipaddress.ip_network(subnet).supernet(new_prefix=scope)
        subnets24 = list(net.subnets(new_prefix=24)) if scope < 24 else [net]
        for other in {subnets24[0], subnets24[len(subnets24) // 2], subnets24[-1]}:
            r2 = ask(make_query("www.example.test", "A", ecs=str(other)), ax_quickstart.port)
            assert addresses(r2) == addresses(r), (subnet, scope, other)
            print(f"{subnet}: scope /{scope}; {other} -> {sorted(addresses(r2))}")


def test_ecs_source_longer_than_cap_is_echoed_unchanged(ax_quickstart):
    r = ask(make_query("www.example.test", "A", ecs="113.108.1.77/32"), ax_quickstart.port)
    check_authoritative(r)
    assert addresses(r) == {"192.0.2.10"}
    ecs = ecs_of(r)
    assert (ecs.address, ecs.srclen) == ("113.108.1.77", 32)
    assert 0 < ecs.scopelen <= 24, "only the /24 was used (cap), so the scope is at most 24"


def test_ecs_source_zero_gets_scope_zero(ax_quickstart):
    r = ask(make_query("www.example.test", "A", ecs="0.0.0.0/0"), ax_quickstart.port)
    check_authoritative(r)
    ecs = ecs_of(r)
    assert (ecs.family, ecs.srclen, ecs.scopelen) == (1, 0, 0)


@pytest.mark.parametrize("subnet,want", [
    ("2408:8000::/32", {"2001:db8:20::20"}),  # China Unicom
    ("2001:4860:4860::/56", {"2001:db8:30::30"}),  # US
])
def test_ipv6_ecs(ax_quickstart, subnet, want):
    r = ask(make_query("www.example.test", "AAAA", ecs=subnet), ax_quickstart.port)
    check_authoritative(r)
    assert addresses(r, "AAAA") == want
    ecs = ecs_of(r)
    assert (ecs.family, ecs.srclen) == (2, int(subnet.split("/")[1]))
    assert 0 < ecs.scopelen <= ecs.srclen


def test_no_edns_no_opt(ax_quickstart):
    r = ask(make_query("www.example.test", "A", edns=None), ax_quickstart.port)
    check_authoritative(r)
    assert r.edns == -1 and not r.options
    assert addresses(r)  # classified by the source address (127.0.0.1: the default Region)


def test_over_ipv6_transport(ax_quickstart):
    if not ax_quickstart.port6:
        pytest.skip("no IPv6 loopback here")
    for tcp in (False, True):
        r = ask(make_query("www.example.test", "A", ecs="123.125.114.0/24"),
                ax_quickstart.port6, host="::1", tcp=tcp)
        check_authoritative(r)
        assert addresses(r) == {"198.51.100.20"}


# --- Zone data, negative answers, out-of-zone ------------------------------------------


def test_soa_at_apex(ax_quickstart):
    r = ask(make_query("example.test", "SOA"), ax_quickstart.port)
    check_authoritative(r)
    [soa] = r.answer
    assert soa.ttl == 3600
    assert soa[0].to_text().startswith(SOA_TEXT)
    assert soa[0].minimum == 60


def test_ns_at_apex(ax_quickstart):
    r = ask(make_query("example.test", "NS"), ax_quickstart.port)
    check_authoritative(r)
    [ns] = r.answer
    assert ns.ttl == 3600
    assert "ns1.example.test." in {x.target.to_text() for x in ns}


NS1 = "192.0.2.53"


@pytest.fixture(scope="module")
def ax_quickstart_ns(tmp_path_factory):
    """ax-dns --standalone on examples/quickstart, ns1.example.test given an address."""
    tmp = tmp_path_factory.mktemp("ax-quickstart-ns")
    with running(lambda: AxDns(
            copy_manifests(tmp / "manifests", QUICKSTART), tmp / "run", listen_v6=False,
            extra_args=["--zone", f"example.test=ns1.example.test@{NS1}"]).start()) as ax:
        yield ax
    ax.check_clean_exit()


def test_ns_target_resolvable_with_glue(ax_quickstart_ns):
    """A resolver following example.test NS ns1.example.test can reach ns1: glue in the
    NS answer's additional section (RFC 9471) and ns1's A record, authoritative."""
    r = ask(make_query("example.test", "NS"), ax_quickstart_ns.port)
    check_authoritative(r)
    [ns] = r.answer
    assert [x.target.to_text() for x in ns] == ["ns1.example.test."]
    [glue] = r.additional
    assert glue.name.to_text() == "ns1.example.test." and glue.rdtype == dns.rdatatype.A
    assert {x.address for x in glue} == {NS1} and glue.ttl == 3600
    r = ask(make_query("ns1.example.test", "A"), ax_quickstart_ns.port)
    check_authoritative(r)
    assert addresses(r) == {NS1} and r.answer[0].ttl == 3600
    check_negative(ask(make_query("ns1.example.test", "AAAA"), ax_quickstart_ns.port),
                   "NOERROR")


def test_grpc_config_txt(ax_quickstart):
    r = ask(make_query("_grpc_config.api.example.test", "TXT"), ax_quickstart.port)
    check_authoritative(r)
    [txt] = r.answer
    assert txt.ttl == 60  # Domain api: ttl.steady
    value = b"".join(txt[0].strings).decode()
    assert value == 'grpc_config=[{"serviceConfig":{"loadBalancingConfig":[{"round_robin":{}}]}}]'


@pytest.mark.parametrize("name", ["nope.example.test", "x.www.example.test",
                                  "_grpc_config.www.example.test"])
def test_nxdomain(ax_quickstart, name):
    check_negative(ask(make_query(name, "A"), ax_quickstart.port), "NXDOMAIN")


@pytest.mark.parametrize("name,rdtype", [("www.example.test", "TXT"), ("example.test", "A"),
                                         ("_grpc_config.api.example.test", "A"),
                                         ("www.example.test", "MX")])
def test_nodata(ax_quickstart, name, rdtype):
    check_negative(ask(make_query(name, rdtype), ax_quickstart.port), "NOERROR")


def test_nxdomain_echoes_ecs(ax_quickstart):
    r = ask(make_query("nope.example.test", "A", ecs="8.8.8.0/24"), ax_quickstart.port)
    check_negative(r, "NXDOMAIN")
    ecs = ecs_of(r)
    assert ecs is not None and (ecs.address, ecs.srclen) == ("8.8.8.0", 24)


@pytest.mark.parametrize("name", ["www.example.com", "example", "test", "."])
def test_refused_outside_zone(ax_quickstart, name):
    r = ask(make_query(name, "A"), ax_quickstart.port)
    assert rcode_text(r) == "REFUSED"
    assert not r.flags & dns.flags.AA
    assert r.answer == [] and r.authority == []


# --- Protocol details -------------------------------------------------------------


def test_case_preserved(ax_quickstart):
    r = ask(make_query("wWw.ExAmPlE.tEsT", "A", ecs="8.8.8.0/24"), ax_quickstart.port)
    check_authoritative(r)
    assert r.question[0].name.to_text() == "wWw.ExAmPlE.tEsT."
    assert r.answer[0].name.to_text() == "wWw.ExAmPlE.tEsT."
    assert addresses(r) == SJ


def test_id_and_rd_echoed(ax_quickstart):
    for rd in (True, False):
        q = make_query("www.example.test", "A", rd=rd)
        r = ask(q, ax_quickstart.port)
        assert r.id == q.id
        assert bool(r.flags & dns.flags.RD) == rd


def test_any_is_minimal(ax_quickstart):
    """RFC 8482: ANY gets one RRset (or a synthesised HINFO), not everything."""
    r = ask(make_query("www.example.test", "ANY", ecs="8.8.8.0/24"), ax_quickstart.port)
    check_authoritative(r)
    assert len(r.answer) == 1
    assert r.answer[0].rdtype in (dns.rdatatype.A, dns.rdatatype.AAAA, dns.rdatatype.HINFO)


def test_edns_version_1_is_badvers(ax_quickstart):
    r = ask(make_query("www.example.test", "A", edns=1), ax_quickstart.port)
    assert r.rcode() == dns.rcode.BADVERS
    assert r.edns == 0, "RFC 6891 §6.1.3: the reply's OPT carries our version, 0"
    assert r.answer == []


def test_unknown_opcode_notimp(ax_quickstart):
    q = make_query("www.example.test", "A")
    q.set_opcode(dns.opcode.STATUS)
    assert rcode_text(ask(q, ax_quickstart.port)) == "NOTIMP"


MALFORMED_ECS = {
    "family 3": b"\x00\x03\x18\x00\x71\x6c\x01",
    "v4 source 33": b"\x00\x01\x21\x00\x71\x6c\x01\x05\x00",
    "bits past the prefix": b"\x00\x01\x14\x00\x71\x6c\x01",  # /20 with .1 in byte 3
    "address longer than the prefix": b"\x00\x01\x10\x00\x71\x6c\x01",  # /16, 3 bytes
    "scope in a query": b"\x00\x01\x18\x10\x71\x6c\x01",
    "truncated option": b"\x00\x01\x18",
}


@pytest.mark.parametrize("rdata", MALFORMED_ECS.values(), ids=MALFORMED_ECS.keys())
def test_malformed_ecs_formerr(ax_quickstart, rdata):
    q = make_query("www.example.test", "A", options=[dns.edns.GenericOption(8, rdata)])
    r = ask(q, ax_quickstart.port)
    assert rcode_text(r) == "FORMERR"
    assert r.answer == []


def test_garbage_does_not_kill_the_server(ax_quickstart):
    for junk in (b"", b"\x00", b"\x12\x34" + b"\xff" * 10, bytes(range(256)) * 3):
        reply = ask_raw(junk, ax_quickstart.port, timeout=0.5)
        if reply is not None and len(reply) >= 4:
            assert reply[2] & 0x80, "anything sent back is a response"
    check_authoritative(ask(make_query("www.example.test", "A"), ax_quickstart.port))


def test_chaos_identity(ax_quickstart):
    for name in ("id.server", "hostname.bind"):
        r = ask(make_query(name, "TXT", rdclass="CH"), ax_quickstart.port)
        assert rcode_text(r) == "NOERROR"
        [txt] = r.answer
        assert txt.rdclass == dns.rdataclass.CH
        assert b"".join(txt[0].strings).decode() == ax_quickstart.identity


# --- Truncation --------------------------------------------------------------------


def test_large_answer_truncated_over_udp_512(ax_quickstart):
    r = ask(make_query("big.example.test", "A", payload=512), ax_quickstart.port)
    assert rcode_text(r) == "NOERROR"
    assert r.flags & dns.flags.TC
    assert r.answer == [], "RFC 2181 §9: no partial RRset"
    assert r.edns == 0, "the OPT record survives truncation"


def test_large_answer_truncated_without_edns(ax_quickstart):
    r = ask(make_query("big.example.test", "A", edns=None), ax_quickstart.port)
    assert r.flags & dns.flags.TC and r.answer == []


def test_large_answer_fits_1232_and_tcp(ax_quickstart):
    want = {f"192.0.2.{100 + i}" for i in range(40)}
    r = ask(make_query("big.example.test", "A", payload=1232), ax_quickstart.port)
    check_authoritative(r)
    assert addresses(r) == want
    r = ask(make_query("big.example.test", "A", payload=512), ax_quickstart.port, tcp=True)
    check_authoritative(r)
    assert addresses(r) == want


def test_udp_answer_never_exceeds_advertised_size(ax_quickstart):
    q = make_query("big.example.test", "A", payload=4096)
    wire = ask_raw(q.to_wire(), ax_quickstart.port)
    assert wire is not None and len(wire) <= 1232, "our --edns-udp-size caps UDP answers"


def test_tcp_pipelined_queries(ax_quickstart):
    """RFC 7766 §6.2.1.1: several queries on one connection, each answered."""
    queries = [make_query("www.example.test", "A", ecs="8.8.8.0/24"),
               make_query("www.example.test", "A", ecs="113.108.1.0/24"),
               make_query("nope.example.test", "A")]
    with socket.create_connection(("127.0.0.1", ax_quickstart.port), timeout=5) as s:
        s.sendall(b"".join(struct.pack(">H", len(w)) + w
                           for w in (q.to_wire() for q in queries)))
        buf, replies = b"", {}
        while len(replies) < len(queries):
            chunk = s.recv(65535)
            assert chunk, "connection closed early"
            buf += chunk
            while len(buf) >= 2 and len(buf) >= 2 + struct.unpack(">H", buf[:2])[0]:
                n = struct.unpack(">H", buf[:2])[0]
                m = dns.message.from_wire(buf[2:2 + n])
                replies[m.id] = m
                buf = buf[2 + n:]
    assert addresses(replies[queries[0].id]) == SJ
    assert addresses(replies[queries[1].id]) == {"192.0.2.10"}
    assert rcode_text(replies[queries[2].id]) == "NXDOMAIN"


@pytest.mark.parametrize("qdcount", [0, 2])
def test_qdcount_not_one_formerr(ax_quickstart, qdcount):
    """RFC 9619: a QUERY with QDCOUNT other than 1 is malformed."""
    wire = bytearray(make_query("www.example.test", "A", edns=None).to_wire())
    question = bytes(wire[12:])
    wire[4:6] = struct.pack(">H", qdcount)
    wire = bytes(wire[:12]) + question * qdcount
    reply = ask_raw(wire, ax_quickstart.port)
    assert reply is not None and reply[2] & 0x80
    assert reply[3] & 0x0F == dns.rcode.FORMERR
