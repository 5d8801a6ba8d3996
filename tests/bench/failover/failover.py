#!/usr/bin/env python3
"""Failover and recovery time of standalone ax-dns, end to end (issue 5).

  failover.py --ax-dns BIN --out DIR [--rounds 10] [--nodes 4] [--interval 1s]
              [--failure-threshold 3] [--success-threshold 5] [--poll-ms 20]

NODES HTTP health endpoints (scripts/demo_backends.py, its control port stops and
starts them) back as many nodes of one Domain that answers all of them. Each round
takes one node (in turn), waits a random part of an interval (so the stop falls at a
different phase of the probe schedule each time), stops its endpoint (its port refuses
connections) and asks ax-dns every --poll-ms until the node's address leaves the
answer: the failover time. Then, again at a random phase, it starts the endpoint and
polls until the address is back: the recovery time. ax-dns's "node health changed" log line splits
each into the verdict (probes) and the answer (rebuild + serve).

Writes DIR/results.json; tests/bench/failover/render.py turns it into markdown.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import dns.exception
import dns.message
import dns.query

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from axbench import REPO, AxDns, free_port, git_version, machine, write_manifests  # noqa: E402

QNAME = "bench.example.test"


def seconds(text: str) -> float:
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text.rstrip("s"))


class Backends:
    """scripts/demo_backends.py serving every node's /healthz over HTTP."""

    def __init__(self, ports: list[int], names: list[str], workdir: Path):
        self.control_port = free_port()
        self.log = workdir / "backends.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(REPO / "scripts" / "demo_backends.py"),
                 "--control", str(self.control_port),
                 *(f"{n}=http:{p}" for n, p in zip(names, ports))],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while True:
            try:
                if all(s == "running" for s in self.control("/").values()):
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"demo backends did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def control(self, path: str) -> dict:
        url = f"http://127.0.0.1:{self.control_port}{path}"
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.loads(r.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def answer(port: int) -> set[str] | None:
    """The A addresses ax-dns answers now; None when the query was lost."""
    try:
        reply = dns.query.udp(dns.message.make_query(QNAME, "A"), "127.0.0.1",
                              port=port, timeout=0.5)
    except dns.exception.Timeout:
        return None
    return {r.address for rrset in reply.answer for r in rrset}


def poll_until(port: int, want, poll_s: float, timeout_s: float) -> tuple[float | None, int]:
    """Seconds until want(answer) holds (None: not within timeout_s), queries sent."""
    start = time.monotonic()
    queries = 0
    while time.monotonic() - start < timeout_s:
        got = answer(port)
        queries += 1
        if got is not None and want(got):
            return time.monotonic() - start, queries
        time.sleep(poll_s)
    return None, queries


def change_after(ax: AxDns, node: str, to: str, wall_ms: float) -> float | None:
    """Seconds from wall_ms to the logged verdict change of node to `to`."""
    for line in ax.health_changes():
        if line["node"] == node and line["to"] == to and line["ts"] >= wall_ms:
            return (line["ts"] - wall_ms) / 1000
    return None


def summary(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values),
            "n": len(values)} if values else {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ax-dns", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--interval", default="1s")
    ap.add_argument("--timeout", default="500ms", help="probe timeout")
    ap.add_argument("--failure-threshold", type=int, default=3)
    ap.add_argument("--success-threshold", type=int, default=5)
    ap.add_argument("--poll-ms", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    interval_s = seconds(args.interval)
    poll_s = args.poll_ms / 1000
    # Far beyond any healthy outcome: a round that takes this long failed.
    give_up_s = interval_s * (args.failure_threshold + args.success_threshold) * 3 + 10

    work = Path(tempfile.mkdtemp(prefix="ax-failover."))
    ports = [free_port() for _ in range(args.nodes)]
    nodes = write_manifests(work / "manifests", ports, interval=args.interval,
                            timeout=args.timeout, failure_threshold=args.failure_threshold,
                            success_threshold=args.success_threshold, max_answers=args.nodes,
                            # Each node is stopped every few rounds: damping would
                            # hold it Down at its third stop, and this measures the
                            # thresholds' detection time.
                            flap_damping=False)
    backends = Backends(ports, [n for n, _ in nodes], work)
    ax = None
    rounds, changes = [], []
    try:
        ax = AxDns(args.ax_dns, work / "manifests", work)
        # Unprobed nodes count Up too: wait for every node's first verdict (Up), so
        # the first round starts from probed health like the others.
        deadline = time.monotonic() + 30
        while len({c["node"] for c in ax.health_changes() if c["to"] == "Up"}) < len(nodes):
            if time.monotonic() > deadline:
                raise RuntimeError(f"not every node probed Up:\n{ax.log_path.read_text()}")
            time.sleep(0.05)
        every = {a for _, a in nodes}
        took, _ = poll_until(ax.port, lambda got: got == every, poll_s, 30)
        if took is None:
            raise RuntimeError(f"ax-dns never answered every node:\n{ax.log_path.read_text()}")
        for r in range(args.rounds):
            node, address = nodes[r % len(nodes)]
            time.sleep(rng.uniform(0, interval_s))
            # Timed from the reply: demo_backends.py answers once the listener is
            # closed (its shutdown waits up to half a second for the serving loop).
            backends.control(f"/stop/{node}")
            wall_ms = time.time() * 1000
            failover, fq = poll_until(ax.port, lambda got: address not in got, poll_s, give_up_s)
            failover_verdict = change_after(ax, node, "Down", wall_ms)
            # The Down verdict came just after a probe: start at a random phase too,
            # or the first good probe would always be a whole period away.
            time.sleep(rng.uniform(0, interval_s))
            backends.control(f"/start/{node}")
            wall_ms = time.time() * 1000
            recovery, rq = poll_until(ax.port, lambda got: address in got, poll_s, give_up_s)
            recovery_verdict = change_after(ax, node, "Up", wall_ms)
            row = {"round": r + 1, "node": node, "failover_s": failover,
                   "failover_verdict_s": failover_verdict, "recovery_s": recovery,
                   "recovery_verdict_s": recovery_verdict, "queries": fq + rq}
            rounds.append(row)
            print(json.dumps(row), flush=True)
            if recovery is None:
                break  # the node is not back: later rounds would measure nonsense
    finally:
        if ax:
            ax.stop()
            changes = ax.health_changes()
            (args.out / "ax-dns.log").write_text(ax.log_path.read_text(errors="replace"))
        backends.stop()
        shutil.rmtree(work, ignore_errors=True)

    done = [r for r in rounds if r["failover_s"] is not None]
    back = [r for r in rounds if r["recovery_s"] is not None]
    flaps = sum(1 for line in changes if line["from"] != "Unknown")
    result = {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(), "ax": git_version(),
        "command": (f"tests/bench/failover/run.sh --rounds {args.rounds} --nodes {args.nodes} "
                    f"--interval {args.interval} --failure-threshold {args.failure_threshold} "
                    f"--success-threshold {args.success_threshold} --poll-ms {args.poll_ms:g}"),
        "settings": {"rounds": args.rounds, "nodes": args.nodes, "interval": args.interval,
                     "timeout": args.timeout, "failure_threshold": args.failure_threshold,
                     "success_threshold": args.success_threshold, "poll_ms": args.poll_ms,
                     "jitter": "interval x (1 + U[0, 0.1)) per period",
                     "kill": "listener closed, connections refused"},
        "rounds": rounds,
        "failover_s": summary([r["failover_s"] for r in done]),
        "failover_verdict_s": summary([r["failover_verdict_s"] for r in done
                                       if r["failover_verdict_s"] is not None]),
        "recovery_s": summary([r["recovery_s"] for r in back]),
        "recovery_verdict_s": summary([r["recovery_verdict_s"] for r in back
                                       if r["recovery_verdict_s"] is not None]),
        "incomplete_rounds": len(rounds) - len(back) + (args.rounds - len(rounds)),
        # Up<->Down changes logged; exactly two per round when nothing flaps.
        "state_changes": flaps,
    }
    (args.out / "results.json").write_text(json.dumps(result, indent=1))
    return 0 if len(back) == args.rounds else 1


if __name__ == "__main__":
    sys.exit(main())
