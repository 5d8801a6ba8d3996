"""ax_loadgen (tests/bench/tools), the peer benchmark's and the profile-guided build's
load generator, on its stop rules, against a real ax-dns on the quickstart:

- --count N sends exactly N queries, over UDP (from several loopback /24s, with ECS)
  and over pipelined TCP, and every one is answered: a load that is the same on any
  machine (scripts/pgo-build.sh trains on it);
- with --rate, N queries take at least N / rate seconds (it never sends ahead);
- --count and --duration together are refused with a reason.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from axharness import QUICKSTART, AxDns, built_binary, copy_manifests


@pytest.fixture(scope="module")
def ax(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ax-loadgen")
    server = AxDns(copy_manifests(tmp / "manifests", QUICKSTART), tmp / "run",
                   listen_v6=False).start()
    yield server
    server.stop()


def loadgen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(built_binary("AX_LOADGEN_BIN", "tests/bench/tools/ax_loadgen")), *args],
        capture_output=True, text=True, timeout=120)


def report(ax: AxDns, *args: str) -> dict:
    done = loadgen("--server", f"127.0.0.1:{ax.port}", "--qname", "api.example.test",
                   "--ecs-random", "100", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("transport", [
    ["--sources", "8"],
    ["--tcp", "--connections", "4", "--pipeline", "8"],
], ids=["udp", "tcp"])
def test_count_sends_exactly_that_many_queries(ax, transport):
    r = report(ax, "--count", "5000", *transport)
    assert (r["sent"], r["received"], r["lost"]) == (5000, 5000, 0), r
    assert r["rcodes"] == {"NOERROR": 5000}, r


def test_count_at_a_rate_takes_at_least_count_over_rate(ax):
    r = report(ax, "--count", "2000", "--rate", "4000")
    assert (r["sent"], r["received"]) == (2000, 2000), r
    assert r["duration_s"] >= 0.49, r  # the last query is due at 0.5 s


def test_count_with_duration_is_refused():
    done = loadgen("--server", "127.0.0.1:53", "--count", "10", "--duration", "1")
    assert done.returncode == 2
    assert "--count and --duration exclude each other" in done.stderr
