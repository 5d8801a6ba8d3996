"""ax_loadgen (tests/bench/tools), the peer benchmark's and the profile-guided build's
load generator, on its stop rules, against a real ax-dns on the quickstart:

- --count N sends exactly N queries, over UDP (from several loopback /24s, with ECS)
  and over pipelined TCP, and every one is answered: a load that is the same on any
  machine (scripts/pgo-build.sh trains on it);
- with --rate, N queries take at least N / rate seconds (it never sends ahead);
- --count and --duration together are refused with a reason;
- several --server (the paired rounds of tests/bench/peers/run.sh): each server is
  sent to in turns of --slice-ms for --duration in all, not at once, with its own
  report and, with --cpu-pid, its process's CPU time; what the turns cannot do (TCP,
  --count) and a --cpu-pid that names no process are refused with a reason.
"""

from __future__ import annotations

import json
import subprocess
import time
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


@pytest.fixture(scope="module")
def noop():
    proc = subprocess.Popen(
        [str(built_binary("AX_NOOP_BIN", "tests/bench/tools/ax_noop_responder")),
         "--listen", "127.0.0.1:0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True)
    try:
        line = proc.stdout.readline()  # "listening on 127.0.0.1:PORT"
        assert line.startswith("listening on "), line
        yield proc, line.split()[-1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_several_servers_take_turns_each_with_its_report(ax, noop):
    noop_proc, noop_address = noop
    started = time.monotonic()
    done = loadgen("--server", f"127.0.0.1:{ax.port}", "--server", noop_address,
                   "--label", "ax", "--label", "noop",
                   "--cpu-pid", str(ax.proc.pid), "--cpu-pid", str(noop_proc.pid),
                   "--qname", "api.example.test", "--ecs-random", "100", "--sources", "8",
                   "--duration", "1", "--slice-ms", "100", "--rate", "3000")
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["slice_ms"] == 100
    reports = {t["label"]: t for t in doc["targets"]}
    assert sorted(reports) == ["ax", "noop"]
    for label, r in reports.items():
        # Paced by its own sending time: --rate over --duration, in 10 turns.
        assert r["turns"] == 10, (label, r)
        assert 0.99 <= r["duration_s"] <= 1.1, (label, r)
        assert 2900 <= r["sent"] <= 3100, (label, r)
        assert (r["received"], r["lost"]) == (r["sent"], 0), (label, r)
        assert r["rcodes"] == {"NOERROR": r["sent"]}, (label, r)
        assert r["server_cpu_s"] > 0 and r["cpu_us_per_query"] > 0, (label, r)
    assert reports["ax"]["server"] == f"127.0.0.1:{ax.port}"
    # In turns, not at once: two seconds of sending, each server's first turn
    # (not counted) and the CPU clocks' settling time on top.
    assert elapsed >= 2.4, elapsed


@pytest.mark.parametrize("args,reason", [
    (["--tcp"], "not with --tcp or --count"),
    (["--count", "10"], "not with --tcp or --count"),
    (["--cpu-pid", "1"], "1 --cpu-pid for 2 --server"),
    (["--label", "a", "--label", "b", "--label", "c"], "3 --label for 2 --server"),
], ids=["tcp", "count", "cpu-pids", "labels"])
def test_turns_refuse_what_they_cannot_measure(args, reason):
    done = loadgen("--server", "127.0.0.1:53", "--server", "127.0.0.1:54", *args)
    assert done.returncode == 2
    assert reason in done.stderr


def test_cpu_pid_of_no_process_is_refused(noop):
    gone = subprocess.Popen(["true"])
    gone.wait()
    done = loadgen("--server", noop[1], "--cpu-pid", str(gone.pid), "--duration", "0.2")
    assert done.returncode == 1
    assert f"no process {gone.pid} (--cpu-pid)" in done.stderr
