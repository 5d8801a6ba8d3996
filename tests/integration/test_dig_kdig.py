"""dig (BIND 9) and kdig (Knot) against a running ax-dns: the real tools accept our
answers (exit 0, status, flags aa, sections, ECS echo, TC and their TCP retry).

dig's text output and kdig's JSON (+json, RFC 8427 style) are parsed into one shape,
so every case runs with both tools. Exact protocol assertions live in
test_dnspython.py; here the point is that the tools people debug with agree.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field

import pytest

from axharness import require_tool

TOOLS = ["dig", "kdig"]


@dataclass
class Reply:
    status: str
    flags: set[str]
    answer: list[tuple[str, int, str, str, str]] = field(default_factory=list)
    authority: list[tuple[str, int, str, str, str]] = field(default_factory=list)
    ecs: tuple[str, int, int] | None = None  # address, source, scope
    edns_version: int | None = None
    transport: str | None = None  # "UDP"/"TCP" when the tool says
    retried_over_tcp: bool = False
    raw: str = ""

    def rdata(self, rdtype: str) -> set[str]:
        return {r[4] for r in self.answer if r[3] == rdtype}


RR_LINE = re.compile(r"^(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(.*)$")


def parse_dig(text: str) -> Reply:
    status = re.search(r"status: (\w+)", text).group(1)
    flags = set(re.search(r";; flags: ([a-z ]*);", text).group(1).split())
    reply = Reply(status, flags, raw=text)
    m = re.search(r"; CLIENT-SUBNET: (\S+)/(\d+)/(\d+)", text)
    if m:
        reply.ecs = (m.group(1), int(m.group(2)), int(m.group(3)))
    m = re.search(r"; EDNS: version: (\d+)", text)
    if m:
        reply.edns_version = int(m.group(1))
    m = re.search(r";; SERVER: .*\((UDP|TCP)\)", text)
    reply.transport = m.group(1) if m else None
    reply.retried_over_tcp = "Truncated, retrying in TCP mode" in text
    section = None
    for line in text.splitlines():
        if line.startswith(";; ANSWER SECTION:"):
            section = reply.answer
        elif line.startswith(";; AUTHORITY SECTION:"):
            section = reply.authority
        elif not line.strip() or line.startswith(";"):
            section = None if not line.strip() else section
        elif section is not None:
            m = RR_LINE.match(line)
            name, ttl, cls, rtype, data = m.groups()
            section.append((name, int(ttl), cls, rtype, data.strip()))
    return reply


KDIG_FLAGS = ["QR", "AA", "TC", "RD", "RA", "AD", "CD"]
RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP",
          5: "REFUSED", 16: "BADVERS"}


def parse_ecs_option(rdata_hex: str) -> tuple[str, int, int] | None:
    """Walks the OPT RDATA (code, length, value)* for option 8 (ECS)."""
    data = bytes.fromhex(rdata_hex)
    while len(data) >= 4:
        code, length = int.from_bytes(data[:2], "big"), int.from_bytes(data[2:4], "big")
        value, data = data[4:4 + length], data[4 + length:]
        if code == 8:
            family, src, scope = int.from_bytes(value[:2], "big"), value[2], value[3]
            addr = value[4:]
            if family == 1:
                addr = addr.ljust(4, b"\0")
                text = ".".join(str(b) for b in addr)
            else:
                import ipaddress
                text = str(ipaddress.IPv6Address(addr.ljust(16, b"\0")))
            return text, src, scope
    return None


def kdig_rr(rr: dict) -> tuple[str, int, str, str, str]:
    rtype = rr["TYPEname"]
    data = rr.get(f"rdata{rtype}")
    if data is None:
        data = rr.get("RDATAHEX", "")
    return rr["NAME"], rr["TTL"], rr.get("CLASSname", str(rr["CLASS"])), rtype, data


def parse_kdig_json(text: str, stderr: str) -> Reply:
    doc = json.loads(text)
    status = RCODES.get(doc["RCODE"], str(doc["RCODE"]))
    flags = {f.lower() for f in KDIG_FLAGS if doc.get(f)}
    reply = Reply(status, flags, raw=text)
    reply.answer = [kdig_rr(rr) for rr in doc.get("answerRRs", [])]
    reply.authority = [kdig_rr(rr) for rr in doc.get("authorityRRs", [])]
    for rr in doc.get("additionalRRs", []):
        if rr["TYPE"] == 41:
            reply.edns_version = (rr["TTL"] >> 16) & 0xFF
            # kdig reports the extended RCODE only through the OPT TTL's top byte.
            ext = rr["TTL"] >> 24
            if ext:
                status_code = (ext << 4) | doc["RCODE"]
                reply.status = RCODES.get(status_code, str(status_code))
            reply.ecs = parse_ecs_option(rr.get("RDATAHEX", ""))
    reply.retried_over_tcp = "retrying over TCP" in stderr or "retrying over TCP" in text
    return reply


def run(tool: str, port: int, *args: str, host: str = "127.0.0.1") -> Reply:
    exe = require_tool(tool)
    cmd = [exe, f"@{host}", "-p", str(port), "+time=3", "+tries=1", *args]
    if tool == "kdig":
        cmd = [exe, f"@{host}", "-p", str(port), "+time=3", "+retry=0", "+json", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, f"{cmd}: exit {res.returncode}\n{res.stdout}\n{res.stderr}"
    if tool == "dig":
        return parse_dig(res.stdout + res.stderr)
    # kdig prints its warnings (e.g. the TCP retry) as text around the JSON document.
    start = res.stdout.index("{")
    end = res.stdout.rindex("}") + 1
    return parse_kdig_json(res.stdout[start:end], res.stdout[:start] + res.stdout[end:] + res.stderr)


def run_text(tool: str, port: int, *args: str) -> str:
    """Plain text output, for what kdig's JSON leaves out (the transport)."""
    cmd = [require_tool(tool), "@127.0.0.1", "-p", str(port), *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert res.returncode == 0, res.stderr
    return res.stdout + res.stderr


CLIENTS = {
    "113.108.1.0/24": {"192.0.2.10"},  # Guangdong telecom -> gz-01
    "123.125.114.0/24": {"198.51.100.20"},  # Beijing unicom -> bj-01
    "8.8.8.0/24": {"203.0.113.30", "203.0.113.31"},  # US -> sj-01, sj-02
}


@pytest.fixture(params=TOOLS)
def tool(request):
    require_tool(request.param)
    return request.param


@pytest.mark.parametrize("subnet", list(CLIENTS))
def test_subnet_picks_nodes_and_echoes_ecs(ax_quickstart, tool, subnet):
    r = run(tool, ax_quickstart.port, f"+subnet={subnet}", "www.example.test", "A")
    assert r.status == "NOERROR"
    assert {"qr", "aa"} <= r.flags
    assert r.rdata("A") == CLIENTS[subnet]
    assert {a[1] for a in r.answer} == {300}
    addr, _, plen = subnet.partition("/")
    assert r.ecs is not None and r.ecs[:2] == (addr, int(plen))
    assert 0 < r.ecs[2] <= 24
    print(f"{tool} +subnet={subnet}: {sorted(r.rdata('A'))} scope /{r.ecs[2]}")


def test_three_subnets_differ(ax_quickstart, tool):
    got = [frozenset(run(tool, ax_quickstart.port, f"+subnet={s}", "www.example.test",
                         "A").rdata("A")) for s in CLIENTS]
    assert len(set(got)) == 3


def test_aaaa(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "+subnet=8.8.8.0/24", "www.example.test", "AAAA")
    assert r.status == "NOERROR" and "aa" in r.flags
    assert r.rdata("AAAA") == {"2001:db8:30::30"}


def test_soa_and_ns(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "example.test", "SOA")
    assert r.status == "NOERROR" and "aa" in r.flags
    [soa] = r.answer
    assert soa[3] == "SOA" and soa[4].split()[:2] == ["ns1.example.test.",
                                                      "hostmaster.example.test."]
    r = run(tool, ax_quickstart.port, "example.test", "NS")
    assert r.status == "NOERROR" and "aa" in r.flags
    assert "ns1.example.test." in r.rdata("NS")


def test_grpc_config_txt(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "_grpc_config.api.example.test", "TXT")
    assert r.status == "NOERROR" and "aa" in r.flags
    [txt] = r.rdata("TXT")
    assert txt.startswith('"grpc_config=[{') and "round_robin" in txt


def test_nxdomain_with_soa(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "nope.example.test", "A")
    assert r.status == "NXDOMAIN" and "aa" in r.flags
    assert r.answer == []
    assert [(a[0], a[1], a[3]) for a in r.authority] == [("example.test.", 60, "SOA")]


def test_nodata_with_soa(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "www.example.test", "TXT")
    assert r.status == "NOERROR" and "aa" in r.flags
    assert r.answer == []
    assert [(a[0], a[1], a[3]) for a in r.authority] == [("example.test.", 60, "SOA")]


def test_refused_outside_zone(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "www.example.com", "A")
    assert r.status == "REFUSED"
    assert "aa" not in r.flags and r.answer == []


def test_tcp(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "+tcp", "+subnet=123.125.114.0/24",
            "www.example.test", "A")
    assert r.status == "NOERROR" and "aa" in r.flags
    assert r.rdata("A") == {"198.51.100.20"}
    assert r.ecs is not None and r.ecs[:2] == ("123.125.114.0", 24)
    if tool == "dig":
        assert r.transport == "TCP"


def test_truncation_and_tcp_retry(ax_quickstart, tool):
    want = {f"192.0.2.{100 + i}" for i in range(40)}
    # Without the retry the UDP answer is TC with no records...
    r = run(tool, ax_quickstart.port, "+bufsize=512", "+ignore", "big.example.test", "A")
    assert r.status == "NOERROR" and "tc" in r.flags and r.answer == []
    # ...and by default the tool retries over TCP and gets all 40.
    r = run(tool, ax_quickstart.port, "+bufsize=512", "big.example.test", "A")
    assert r.status == "NOERROR" and "tc" not in r.flags
    assert r.rdata("A") == want
    assert r.retried_over_tcp
    if tool == "dig":
        assert r.transport == "TCP"
    else:
        text = run_text("kdig", ax_quickstart.port, "+bufsize=512", "big.example.test", "A")
        assert "(TCP)" in text and "truncated reply" in text


def test_chaos_id_server(ax_quickstart, tool):
    r = run(tool, ax_quickstart.port, "CH", "TXT", "id.server")
    assert r.status == "NOERROR"
    assert r.rdata("TXT") == {f'"{ax_quickstart.identity}"'}


def test_edns_version_1_badvers(ax_quickstart, tool):
    args = ["+edns=1", "+noednsneg"] if tool == "dig" else ["+edns=1"]
    r = run(tool, ax_quickstart.port, *args, "www.example.test", "A")
    assert r.status == "BADVERS"
    assert r.edns_version == 0


@pytest.mark.parametrize("opcode", ["status", "notify", "update", "15"])
def test_notimp_echoes_no_query_flags(ax_quickstart, opcode):
    """RD and CD belong to QUERY (RFC 6895 §2): a NOTIMP answer to another opcode
    carries neither, while a QUERY's answer echoes both (dig only: kdig cannot set
    an opcode)."""
    r = run("dig", ax_quickstart.port, f"+opcode={opcode}", "+rec", "+cdflag",
            "www.example.test", "A")
    assert r.status == "NOTIMP"
    assert r.flags == {"qr"}, r.raw
    q = run("dig", ax_quickstart.port, "+rec", "+cdflag", "www.example.test", "A")
    assert {"rd", "cd"} <= q.flags, q.raw


def test_over_ipv6(ax_quickstart, tool):
    if not ax_quickstart.port6:
        pytest.skip("no IPv6 loopback here")
    r = run(tool, ax_quickstart.port6, "+subnet=113.108.1.0/24", "www.example.test", "A",
            host="::1")
    assert r.status == "NOERROR" and "aa" in r.flags
    assert r.rdata("A") == {"192.0.2.10"}
