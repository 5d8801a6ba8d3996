#!/usr/bin/env python3
"""Renders tests/bench/probe_load/probe_load.py's results-{http,https}.json as markdown.

  render.py RESULTS_DIR [--doc docs/benchmarks.md]

Prints the section; with --doc, replaces the text between "<!-- BEGIN probe-load" and
"<!-- END probe-load -->" in that file (appending it when the markers are missing).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from axbench import replace_section  # noqa: E402

BEGIN = "<!-- BEGIN probe-load (tests/bench/probe_load/run.sh) -->"
END = "<!-- END probe-load -->"
TARGET_PCT = 10.0  # issue 5: 500 nodes every 2 s under 10% of a core


def gaps(g):
    return "—" if not g else f"{g['min']:.3f} / {g['median']:.3f} / {g['max']:.3f} s"


def caution(results):
    """On 2 cores, others' load slows the prober's own work too: say so."""
    busy = max(r["others_cores"] for r in results)
    if busy < 0.2:
        return []
    return [f"**Caution:** other processes used up to {busy:.2f} cores of the 2 during the "
            f"measurement (no quiet moment came within the wait): CPU time read under such "
            f"contention varies from run to run; rerun on a quiet machine to confirm.", ""]


def check_name(r):
    if not r["tls_key"]:
        return r["proto"].upper()
    resumed = 100 * r["tls_resumed"] / r["tls_handshakes"] if r["tls_handshakes"] else 0
    return f"{r['proto'].upper()} ({r['tls_key']}; {resumed:.1f}% of handshakes resumed)"


def tls_text(results):
    """What the HTTPS row's handshakes were, from the endpoints' count."""
    https = next((r for r in results if r["tls_key"]), None)
    if not https:
        return ""
    full = https["tls_handshakes"] - https["tls_resumed"]
    return (f" HTTPS probes resume the node's last TLS session (the endpoints counted "
            f"{https['tls_resumed']} resumed and {full} full handshakes in the window). A "
            f"node's full handshake, the one that verifies its certificate, comes on its "
            f"first probe (in the warm-up here), after any failed probe, and at least every "
            f"5 minutes (the engine's default `tls_session_max_age_ms`): for "
            f"{https['nodes']} nodes those renewals add {https['nodes'] / 300:.1f} full "
            f"handshakes a second, which this window does not include.")


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def render(out: Path) -> str:
    results = [json.loads(p.read_text()) for proto in ("http", "https")
               if (p := out / f"results-{proto}.json").exists()]
    first, m = results[0], results[0]["machine"]
    lines = [
        BEGIN, "## Probe load of one prober (`tests/bench/probe_load/run.sh`)", "",
        f"Issue 5: standalone `ax-dns` (release, ax {first['ax']}) probes {first['nodes']} "
        f"nodes every {first['interval_s']:g} s (timeout {first['timeout']}, jitter up to 10% "
        f"per period) on loopback: one Python asyncio loop listens on one port per node, "
        f"notes every connection it accepts (before any TLS handshake) and answers "
        f"`GET /healthz` with 200. After {first['warmup_s']:g} s of warm-up and a wait "
        f"for other processes to leave the CPUs, CPU is read from `/proc` (utime+stime) over "
        f"{first['seconds']:.0f} s, for the probe thread (`ax-probe`) and for the whole "
        f"process (UDP/TCP/HTTP threads idle, a snapshot rebuild every 10 s). Rerun: "
        f"`tests/bench/probe_load/run.sh` (~2 min; `--no-https` for HTTP only).", "",
        f"Machine: {m['cpus']} CPUs ({m['cpu_model']}), kernel {m['kernel']}; run "
        f"{first['date']}: `{first['command']}`.", "",
        *caution(results),
        "| Check | probes/s | probe thread CPU | whole ax-dns CPU | connections per node per "
        "interval (min / mean / max) | most in one interval, any node | gap between a node's "
        "probes (min / median / max) | "
        "verdicts Down | RSS | others' CPU meanwhile |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        c = r["conns_per_node_per_interval"]
        lines.append(
            f"| {check_name(r)} | {r['probes_per_s']:.0f} | {r['probe_thread_cpu_pct']:.1f}% "
            f"| {r['process_cpu_pct']:.1f}% | {c['min']:.2f} / {c['mean']:.2f} / {c['max']:.2f} "
            f"| {r['most_conns_in_one_interval']} "
            f"| {gaps(r['gap_s'])} "
            f"| {r['verdicts']['down']} | {r['rss_mib']:.0f} MiB "
            f"| {max(0.0, r['others_cores']):.2f} cores |")
    lines += ["", "Targets (issue 5: 500 nodes probed every 2 s by one prober):", "",
              "| Target | Measured | Result |", "|---|---|---|"]
    for r in results:
        proto = r["proto"].upper()
        lines.append(
            f"| {proto}: under {TARGET_PCT:g}% of a core | probe thread "
            f"{r['probe_thread_cpu_pct']:.1f}%, whole process {r['process_cpu_pct']:.1f}% "
            f"| {verdict(r['probe_thread_cpu_pct'] < TARGET_PCT)} (process: "
            f"{'PASS' if r['process_cpu_pct'] < TARGET_PCT else 'FAIL'}) |")
        lines.append(
            f"| {proto}: at most one connection per node per interval | at most "
            f"{r['most_conns_in_one_interval']} in any {r['interval_s']:g} s window of any "
            f"node (windows {r['window_slack_s'] * 1000:.0f} ms shorter: the accept times' "
            f"noise); {r['nodes_never_probed']} nodes not probed in the window "
            f"| {verdict(r['most_conns_in_one_interval'] <= 1 and r['nodes_never_probed'] == 0)} |")
    lines += ["", "Under 1 connection per node per interval is the jitter: each period is the "
              "interval stretched by up to 10%, so a node is probed every ~2.1 s. Each probe is "
              "one connection (`Connection: close`)." + tls_text(results), END]
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--doc"):
        print(__doc__, file=sys.stderr)
        return 2
    section = render(Path(argv[1]))
    print(section)
    if len(argv) == 4:
        replace_section(Path(argv[3]), BEGIN, END, section)
        print(f"render.py: wrote {argv[3]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
