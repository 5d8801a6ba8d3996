#!/usr/bin/env python3
"""Writes the seed corpus of the query fuzz target (tests/fuzz/corpus/query/): one
file per kind of query the responder treats differently, valid and malformed, as raw
DNS messages. Standard library only. Rerun after changing the seeds; crashers found
by fuzzing are added to the directory by hand (named crash-*), never regenerated.

  tests/fuzz/make_query_corpus.py tests/fuzz/corpus/query
"""

import ipaddress
import os
import struct
import sys

A, NS, CNAME, SOA, TXT, AAAA, SRV, OPT, AXFR, ANY = 1, 2, 5, 6, 16, 28, 33, 41, 252, 255
IN, CH = 1, 3
RD = 0x0100


def name(text):
    out = b""
    for label in text.split(".") if text else []:
        out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def ecs(address, source, scope=0, family=None, raw=None):
    ip = ipaddress.ip_address(address)
    fam = family if family is not None else (1 if ip.version == 4 else 2)
    addr = raw if raw is not None else ip.packed[: (source + 7) // 8]
    data = struct.pack("!HBB", fam, source, scope) + addr
    return struct.pack("!HH", 8, len(data)) + data


def opt(udp=1232, version=0, do=False, options=b"", owner=b"\0"):
    return owner + struct.pack("!HHBBHH", OPT, udp, 0, version, 0x8000 if do else 0,
                               len(options)) + options


def query(qname="www.example.test", qtype=A, qclass=IN, flags=RD, qid=0xBEEF,
          additional=(), qdcount=1, extra=b""):
    header = struct.pack("!HHHHHH", qid, flags, qdcount, 0, 0, len(additional))
    body = b"".join(name(qname) + struct.pack("!HH", qtype, qclass)
                    for _ in range(min(qdcount, 2)))
    return header + body + b"".join(additional) + extra


SEEDS = {
    "a_www": query(),
    "aaaa_www": query(qtype=AAAA),
    "a_mixed_case": query("WwW.ExAmPlE.tEsT"),
    "a_big_udp": query("big.example.test"),
    "a_big_edns": query("big.example.test", additional=[opt(udp=4096)]),
    "a_fixed": query("fixed.example.test", qtype=AAAA),
    "a_origin_cname": query("origin.example.test"),
    "txt_origin_cname": query("origin.example.test", qtype=TXT),
    "a_hash": query("hash.example.test", additional=[opt(options=ecs("10.1.2.0", 24))]),
    "a_canary": query("canary.example.test", additional=[opt(options=ecs("10.9.0.0", 16))]),
    "a_flat": query("flat.example.test"),
    "a_deep": query("x.deep.example.test"),
    "ent_deep": query("deep.example.test"),
    "nxdomain": query("nope.example.test"),
    "soa_apex": query("example.test", qtype=SOA),
    "ns_apex": query("example.test", qtype=NS),
    "any_www": query(qtype=ANY),
    "any_apex": query("example.test", qtype=ANY),
    "txt_grpc": query("_grpc_config.api.example.test", qtype=TXT),
    "txt_grpc_tcp_sized": query("_grpc_config.api.example.test", qtype=TXT, extra=b"\0"),
    "srv_www": query("_http._tcp.www.example.test", qtype=SRV,
                     additional=[opt(options=ecs("203.0.113.0", 24))]),
    "srv_hash": query("_http._tcp.hash.example.test", qtype=SRV),
    "srv_fixed": query("_http._tcp.fixed.example.test", qtype=SRV),
    "a_srv_target": query("e1.www.example.test"),
    "axfr": query("example.test", qtype=AXFR),
    "refused": query("www.example.org"),
    "chaos_id_server": query("id.server", qtype=TXT, qclass=CH),
    "chaos_hostname_bind": query("hostname.bind", qtype=TXT, qclass=CH),
    "chaos_version_bind": query("version.bind", qtype=TXT, qclass=CH),
    "notify_opcode": query("example.test", qtype=SOA, flags=4 << 11),
    "qdcount_0": query(qdcount=0),
    "qdcount_2": query(qdcount=2),
    "qr_set": query(flags=0x8000),
    "edns_do": query(additional=[opt(do=True)]),
    "edns_badvers": query(additional=[opt(version=1)]),
    "edns_two_opts": query(additional=[opt(), opt()]),
    "edns_opt_not_root": query(additional=[opt(owner=name("a"))]),
    "ecs_v4_24": query(additional=[opt(options=ecs("203.0.113.0", 24))]),
    "ecs_v4_32": query(additional=[opt(options=ecs("203.0.113.77", 32))]),
    "ecs_v6_56": query(qtype=AAAA, additional=[opt(options=ecs("2001:db8:1::", 56))]),
    "ecs_source_0": query(additional=[opt(options=ecs("0.0.0.0", 0, family=0))]),
    "ecs_bad_family": query(additional=[opt(options=ecs("10.0.0.0", 8, family=3))]),
    "ecs_prefix_too_long": query(additional=[opt(options=ecs("10.0.0.0", 33, raw=b"\n\0\0\0\0"))]),
    "ecs_trailing_bits": query(additional=[opt(options=ecs("10.0.0.0", 23, raw=b"\n\0\1"))]),
    "ecs_scope_set": query(additional=[opt(options=ecs("10.0.0.0", 24, scope=24))]),
    "ecs_short_address": query(additional=[opt(options=ecs("10.0.0.0", 24, raw=b"\n"))]),
    "pointer_into_header": query()[:12] + b"\xc0\x04" + struct.pack("!HH", A, IN),
    "pointer_loop": bytes.fromhex("beef01000001000000000000") + b"\x01a\xc0\x0c" + struct.pack("!HH", A, IN),
    "label_type_01": bytes.fromhex("beef01000001000000000000") + b"\x41\0" + struct.pack("!HH", A, IN),
    "truncated_question": query()[:20],
    "header_only": query()[:12],
    "short": b"\xbe\xef\x01",
    "long_name": query(".".join(["a" * 63] * 3) + ".example.test"),
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "corpus", "query")
    os.makedirs(out_dir, exist_ok=True)
    for seed_name, packet in SEEDS.items():
        with open(os.path.join(out_dir, seed_name), "wb") as f:
            f.write(packet)
    print(f"wrote {len(SEEDS)} seeds to {out_dir}")


if __name__ == "__main__":
    main()
