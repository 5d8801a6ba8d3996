#!/usr/bin/env python3
"""CR change -> new DNS answer, through the whole chain on a local control plane: the
chain of tests/integration/chainharness.py (ax-operator, ax-dns --snapshot-configmap,
its ax-probe sidecar, the quickstart applied), then N edits cycling through a Node
(bj-01 adminState), a Rule (www-exclude-gz-02's node) and a Canary (api-sj-02's
steps), each written by one merge PATCH straight from Python. For every edit:

  write     the PATCH sent -> the route-table ConfigMap's new version seen by a watch
            (the API, the operator's debounce and pass, its ConfigMap write)
  answer    that watch event -> the first UDP answer (dnspython, the edit's ECS
            client, asked every ~1 ms) that reflects the edit
  of which  "snapshot loaded" in ax-dns's log (its watch, decode, load) -> answer

  api_latency.py --out DIR [--doc FILE] [--edits N] [--compare AX_DNS] [--no-doc]

Binaries from AX_DNS_BIN, AX_OPERATOR_BIN, AX_PROBE_BIN (run.sh sets release builds);
--compare runs the same edits again with another ax-dns (e.g. main's) for a before/after.
Writes DIR/results.json, prints the markdown section (render.py) and, with --doc,
rewrites it in that file. Everything listens on loopback; every process is stopped by
its PID.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[1] / "integration"))

from axbench import git_version, machine, replace_section  # noqa: E402
from chainharness import (BJ, BJ_01, GZ, GZ_01, GZ_02, SJ_02, US_SUBNETS,  # noqa: E402
                          Chain)
from kubecp import KubeControlPlane  # noqa: E402
from operatorharness import NS, gslb_path, merge_patch, wait_for  # noqa: E402
from render import BEGIN, END, render  # noqa: E402

CM = "ax-route-table"
# The quickstart's Canary steps (examples/quickstart/canaries.yaml).
QUICKSTART_STEPS = [{"percent": 5, "pause": "10m"}, {"percent": 20, "pause": "10m"},
                    {"percent": 50, "pause": "30m"}, {"percent": 100}]


class ConfigMapWatch(threading.Thread):
    """A watch on the route-table ConfigMap as the admin: when each snapshot version
    arrived (wall clock). A daemon thread; it ends with the process."""

    def __init__(self, kube):
        super().__init__(daemon=True)
        self.kube = kube
        self.arrived: dict[int, float] = {}
        self.cond = threading.Condition()
        _, listed = kube.get(f"/api/v1/namespaces/{NS}/configmaps?"
                             f"fieldSelector=metadata.name%3D{CM}")
        self.resource_version = listed["metadata"]["resourceVersion"]
        for item in listed["items"]:
            self._record(item, time.time())

    def _record(self, cm: dict, at: float) -> None:
        version = int(cm["metadata"]["annotations"]["gslb.ax.io/snapshot-version"])
        with self.cond:
            self.arrived.setdefault(version, at)
            self.cond.notify_all()

    def run(self) -> None:
        url = (f"{self.kube.server}/api/v1/namespaces/{NS}/configmaps?watch=1"
               f"&fieldSelector=metadata.name%3D{CM}&timeoutSeconds=3600"
               f"&resourceVersion={self.resource_version}")
        with urllib.request.urlopen(url, timeout=3600, context=self.kube._context()) as r:
            for line in r:
                at = time.time()
                event = json.loads(line)
                if event["type"] in ("ADDED", "MODIFIED"):
                    self._record(event["object"], at)

    def latest(self) -> int:
        with self.cond:
            return max(self.arrived, default=0)

    def reflecting(self, before: int, answered: float) -> tuple[int, float]:
        """The version an answer at `answered` came from, and when it arrived: the
        newest above `before` that arrived by then (ax-dns serves a version ~1 ms
        after it arrives). Not simply the first above `before`: the operator also
        publishes by itself (a failover TTL window running out), and such a version
        can land between the write and the edit's own."""
        with self.cond:
            if not self.cond.wait_for(lambda: max(self.arrived, default=0) > before, 10):
                raise TimeoutError(f"no ConfigMap version above {before}")
            v = max((x for x, at in self.arrived.items() if x > before and at <= answered),
                    default=min(x for x in self.arrived if x > before))
            return v, self.arrived[v]


def edits(us_outside: str):
    """(what, object path, merge patch, name, ECS client, reflected(answer)) in a
    cycle: each edit undoes the one two before, so every edit changes the answer."""
    node, rule, canary = (gslb_path("nodes", "bj-01"), gslb_path("rules", "www-exclude-gz-02"),
                          gslb_path("canaries", "api-sj-02"))
    return [
        ("Node bj-01 Disabled", node, {"spec": {"adminState": "Disabled"}}, "www", BJ,
         lambda a: bool(a) and BJ_01 not in a),
        ("Rule excludes gz-01", rule, {"spec": {"node": "gz-01"}}, "www", GZ,
         lambda a: a == {GZ_02}),
        ("Canary one step of 100%", canary, {"spec": {"steps": [{"percent": 100}]}}, "api",
         us_outside, lambda a: SJ_02 in a),
        ("Node bj-01 Active", node, {"spec": {"adminState": "Active"}}, "www", BJ,
         lambda a: a == {BJ_01}),
        ("Rule excludes gz-02", rule, {"spec": {"node": "gz-02"}}, "www", GZ,
         lambda a: a == {GZ_01}),
        ("Canary back to its 5% step", canary, {"spec": {"steps": QUICKSTART_STEPS}}, "api",
         us_outside, lambda a: SJ_02 not in a),
    ]


def loaded_at(chain: Chain, version: int) -> float | None:
    """When ax-dns logged loading `version` (wall clock, ms resolution)."""
    for line in chain.dns.log_lines():
        if line.get("msg") == "snapshot loaded" and line.get("version") == version:
            return line["ts"] / 1000
    return None


def stats(values: list[float]) -> dict:
    ms = sorted(v * 1000 for v in values)
    p90 = ms[min(len(ms) - 1, round(0.9 * (len(ms) - 1)))]
    return {"n": len(ms), "min": round(ms[0], 1), "median": round(statistics.median(ms), 1),
            "p90": round(p90, 1), "max": round(ms[-1], 1)}


def measure(ax_dns: str, n_edits: int, workdir: Path) -> dict:
    os.environ["AX_DNS_BIN"] = ax_dns
    with KubeControlPlane(workdir / "kube") as kube:
        chain = Chain(kube, workdir / "chain", dns_args=("--log-level", "debug"))
        try:
            chain.apply_quickstart()
            wait_for("every Node Up", lambda: set(chain.node_health().values()) == {"Up"},
                     60, 0.2)
            wait_for("the quickstart answered", lambda: chain.www(BJ) == {BJ_01}, 30)
            # A US client outside the canary's 5% cohort (the cohort is stable).
            us_outside = wait_for("a US client outside the canary", lambda: next(
                (s for s in US_SUBNETS if SJ_02 not in chain.ask("api.example.test", s)),
                None), 10)
            watch = ConfigMapWatch(kube)
            watch.start()
            time.sleep(2)  # statuses of the first passes written; a quiet operator
            cycle = edits(us_outside)
            rows = []
            for i in range(n_edits):
                what, path, patch, name, ecs, reflected = cycle[i % len(cycle)]
                before = watch.latest()
                sent = time.time()
                merge_patch(kube, path, patch)
                stored = time.time()
                while not reflected(chain.ask(f"{name}.example.test", ecs)):
                    if time.time() - sent > 30:
                        raise TimeoutError(f"{what}: no reflecting answer in 30 s")
                    time.sleep(0.001)
                answered = time.time()
                version, cm_at = watch.reflecting(before, answered)
                loaded = loaded_at(chain, version)
                rows.append({"edit": what, "version": version,
                             "write_s": round(stored - sent, 4),
                             "total_s": round(answered - sent, 4),
                             "to_configmap_s": round(cm_at - sent, 4),
                             "configmap_to_answer_s": round(answered - cm_at, 4),
                             "loaded_to_answer_s": (round(answered - loaded, 4)
                                                    if loaded else None)})
                time.sleep(1.0)  # the pass's statuses and Events settle
            geo = [line for line in chain.dns.log_lines()
                   if line.get("msg") in ("geo regions compiled", "geo regions reused")]
        finally:
            chain.stop()
    return {
        "ax_dns": ax_dns,
        "edits": rows,
        "total_ms": stats([r["total_s"] for r in rows]),
        "to_configmap_ms": stats([r["to_configmap_s"] for r in rows]),
        "configmap_to_answer_ms": stats([r["configmap_to_answer_s"] for r in rows]),
        "loaded_to_answer_ms": stats([r["loaded_to_answer_s"] for r in rows
                                      if r["loaded_to_answer_s"] is not None]),
        "geo_compiles": [g["ms"] for g in geo if g["msg"] == "geo regions compiled"],
        "geo_reuses": sum(1 for g in geo if g["msg"] == "geo regions reused"),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--edits", type=int, default=24)
    p.add_argument("--compare", help="another ax-dns binary, measured the same way")
    p.add_argument("--doc", type=Path, help="rewrite the section in this file")
    p.add_argument("--no-doc", action="store_true", help="do not rewrite --doc")
    p.add_argument("--no-build", action="store_true", help="(run.sh: skip the build)")
    a = p.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    runs = []
    with tempfile.TemporaryDirectory(prefix="ax-api-latency-") as tmp:
        for i, binary in enumerate([os.environ["AX_DNS_BIN"]] + (
                [a.compare] if a.compare else [])):
            runs.append(measure(binary, a.edits, Path(tmp) / f"run{i}"))
            print(json.dumps({k: v for k, v in runs[-1].items() if k != "edits"}),
                  file=sys.stderr)
    result = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "ax": git_version(), "machine": machine(),
              "command": " ".join(["tests/bench/api_latency/run.sh"] + [
                  f"--edits {a.edits}"] * (a.edits != 24) + [
                  f"--compare {a.compare}"] * bool(a.compare)),
              "runs": runs}
    (a.out / "results.json").write_text(json.dumps(result, indent=2) + "\n")
    section = render(result)
    print(section)
    if a.doc and not a.no_doc:
        replace_section(a.doc, BEGIN, END, section)
        print(f"api_latency.py: wrote {a.doc}", file=sys.stderr)
    print(f"api_latency.py: results in {a.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
