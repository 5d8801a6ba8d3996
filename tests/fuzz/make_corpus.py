#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets other than the query path
(tests/fuzz/corpus/<target>/; make_query_corpus.py writes corpus/query/): valid inputs
of each parser and the malformed ones it must refuse, one file each. Standard library
only. The snapshot seed is the quickstart's snapshot document, read from a file made
with `axctl snapshot examples/quickstart`. Crashers found by fuzzing are added to the
directories by hand (named crash-*), never regenerated.

  tests/fuzz/make_corpus.py tests/fuzz/corpus QUICKSTART_SNAPSHOT_JSON
"""

import gzip
import json
import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def frames(*messages):
    return b"".join(struct.pack("!H", len(m)) + m for m in messages)


def tcp_framing():
    query = bytes.fromhex("beef01000001000000000000037777770765786d706c6504746573740000010001")
    return {
        "one": frames(query),
        "pipelined": frames(query, query, query),
        "zero-length": frames(b"", query),
        "partial-tail": frames(query) + b"\x00\x40abc",
        "length-only": b"\x00",
        "largest": frames(b"\xab" * 65535),
        "two-large": frames(b"\x01" * 40000, b"\x02" * 30000),
        "many-small": frames(*[bytes([i]) * (i % 7) for i in range(200)]),
        "empty": b"",
        "prefix-says-more": b"\xff\xff" + query,
    }


def snapshot(doc_path):
    text = Path(doc_path).read_bytes()
    doc = json.loads(text)
    tampered = dict(doc, contentHash="fnv1a64:0000000000000000")
    return {
        "quickstart": text,
        "truncated": text[: len(text) // 2],
        "tampered-hash": json.dumps(tampered).encode(),
        "no-nodes": json.dumps({k: v for k, v in doc.items() if k != "nodes"}).encode(),
        "deep": b'{"x":' + b"[" * 40 + b"]" * 40 + b"}",
        "number-overflow": text.replace(b'"version":', b'"version":1e999,"v":', 1),
        "invalid-utf8": text.replace(b"www", b"w\xff\xfe", 1),
        "gzipped": gzip.compress(text, mtime=0),
        "not-an-object": b"[1,2,3]",
        "empty": b"",
        "big-array": b'{"nodes":[' + b",".join([b"0"] * 5000) + b"]}",
    }


def watch_stream():
    added = json.dumps({"type": "ADDED", "object": {
        "apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
        "metadata": {"name": "gz-01", "resourceVersion": "12"},
        "spec": {"addresses": ["192.0.2.10"]}}}).encode()
    bookmark = json.dumps({"type": "BOOKMARK", "object": {
        "kind": "Node", "metadata": {"resourceVersion": "99"}}}).encode()
    gone = json.dumps({"type": "ERROR", "object": {
        "kind": "Status", "code": 410, "reason": "Expired"}}).encode()
    return {
        "added": added + b"\n",
        "three": added + b"\n" + added.replace(b"ADDED", b"MODIFIED") + b"\n" +
                 added.replace(b"ADDED", b"DELETED") + b"\n",
        "bookmark": bookmark + b"\n",
        "gone": gone + b"\n",
        "crlf": added + b"\r\n\r\n" + bookmark + b"\r\n",
        "no-final-newline": added + b"\n" + bookmark,
        "broken-json": b'{"type":"ADDED","object":{\n',
        "unknown-type": b'{"type":"PATCHED","object":{}}\n',
        "not-an-object": b"[1]\n\"x\"\n42\n",
        "long-line": b'{"type":"ADDED","object":{"x":"' + b"a" * 5000 + b'"}}\n',
        "empty-lines": b"\n\n\n" + added + b"\n\n",
    }


def probe_response():
    return {
        "ok-length": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                   b"2\r\nok\r\n3;ext=1\r\nyes\r\n0\r\nX-Trailer: 1\r\n\r\n",
        "interim": b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
        "close-delimited": b"HTTP/1.0 503 Service Unavailable\r\n\r\ndown for now",
        "http10": b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
        "bad-status": b"HTTP/1.1 2x0 OK\r\n\r\n",
        "not-http": b"SSH-2.0-OpenSSH_9.2\r\n",
        "huge-chunk": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n",
        "big-body": b"HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n" + b"x" * 10000,
        "many-headers": b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 3000 + b"\r\n",
        "folded-header": b"HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\nContent-Length: 1\r\n\r\n!",
        "empty": b"",
    }


def manifest():
    seeds = {f"quickstart-{p.stem}": p.read_bytes()
             for p in sorted((REPO / "examples" / "quickstart").glob("*.yaml"))}
    bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 5):
        bomb += f"a{i}: &a{i} [" + ", ".join(f"*a{i - 1}" for _ in range(10)) + "]\n"
    seeds.update({
        "alias-bomb": bomb.encode(),
        "deep": b"[" * 80 + b"]" * 80 + b"\n",
        "duplicate-keys": b"apiVersion: gslb.ax.io/v1alpha1\nkind: Node\nkind: Node\n"
                          b"metadata: {name: a}\nspec: {addresses: [192.0.2.1]}\n",
        "list": b"apiVersion: v1\nkind: List\nitems:\n- apiVersion: gslb.ax.io/v1alpha1\n"
                b"  kind: Region\n  metadata: {name: r}\n  spec: {match: {countries: [CN]}}\n",
        "tabs": b"kind:\tNode\n\tmetadata: x\n",
        "anchors-in-keys": b"? &k a\n: *k\n*k : 1\n",
        "tags": b"!!binary a: !!int x\n--- !foo\n...\n",
        "empty": b"",
    })
    return seeds


def http_requests():
    return {
        "explain": b"www.example.test\n/\nname=www.example.test\nclient=198.51.100.7\n",
        "explain-ecs": b"www.example.test\n/x?y=1\nname=www.example.test\nclient=198.51.100.7\n"
                       b"ecs=113.108.1.0/24\nqtype=AAAA\nseed=7\n",
        "explain-bad-client": b"www.example.test\n/\nname=www.example.test\nclient=300.1.1.1\n",
        "explain-unknown": b"x.example.test\n/\nname=nope.example.test\nclient=192.0.2.1\n",
        "explain-missing": b"www.example.test\n/\n",
        "redirect-absolute": b"www.example.test\nhttps://www.example.test/a?b\n",
        "redirect-at": b"www.example.test\n@evil.example\n",
        "redirect-utf8": b"www.example.test\n/\xff\xfe?\xc0\n",
        "host-port": b"www.example.test:8080\n/path\n",
        "host-case": b"WWW.Example.Test.\n/\n",
        "params-odd": b"\n\n=\n==\nname\nname=\nqtype=TXT\nseed=-1\n",
    }


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    out = Path(argv[1])
    corpora = {
        "tcp_framing": tcp_framing(),
        "snapshot": snapshot(argv[2]),
        "watch_stream": watch_stream(),
        "probe_response": probe_response(),
        "manifest": manifest(),
        "http_requests": http_requests(),
    }
    for target, seeds in corpora.items():
        d = out / target
        d.mkdir(parents=True, exist_ok=True)
        for name, data in seeds.items():
            (d / f"seed-{name}").write_bytes(data)
        print(f"{target}: {len(seeds)} seeds", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
