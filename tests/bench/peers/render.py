#!/usr/bin/env python3
"""Renders the results of tests/bench/peers/run.sh as markdown.

  render.py RESULTS_DIR [--doc docs/benchmarks.md]

Prints the section; with --doc, replaces the text between "<!-- BEGIN peers" and
"<!-- END peers -->" in that file (appending the section when the markers are
missing). tests/bench/peers/findings.md, when present, is included at the end (the
hand-written reading of a run: profile and suggestions).
"""
import glob
import json
import os
import re
import statistics
import sys

BEGIN = "<!-- BEGIN peers (tests/bench/peers/run.sh) -->"
END = "<!-- END peers -->"
HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def kqps(v):
    return "—" if v is None else (f"{v / 1000:.0f}k" if v >= 10000 else f"{v / 1000:.1f}k")


def ratio(v):
    return "—" if v is None else f"{v:.2f}"


def collect(out, servers):
    """Per server: per-run dicts of ours/dnsperf/cpu results."""
    runs = sorted(glob.glob(os.path.join(out, "run*")), key=lambda p: int(p.rsplit("run", 1)[1]))
    table = {s: [] for s in servers}
    for run_dir in runs:
        run = int(run_dir.rsplit("run", 1)[1])
        for s in servers:
            row = {"run": run}
            for kind in ("ours", "dnsperf", "cpu"):
                row[kind] = load(os.path.join(run_dir, f"{s}.{kind}.json"))
            table[s].append(row)
    return table


def run_ratio(table, a, b, kind, run):
    """qps of a / qps of b in the same run."""
    ra = next((r for r in table.get(a, []) if r["run"] == run), None)
    rb = next((r for r in table.get(b, []) if r["run"] == run), None)
    if not ra or not rb or not ra[kind] or not rb[kind] or not rb[kind]["qps"]:
        return None
    return ra[kind]["qps"] / rb[kind]["qps"]


def median_ratio(table, a, b, kind):
    runs = sorted({r["run"] for r in table.get(a, [])})
    return median([run_ratio(table, a, b, kind, run) for run in runs])


def qps_of(row, kind):
    return row[kind]["qps"] if row.get(kind) else None


def render(out):
    meta = load(os.path.join(out, "meta.json")) or {}
    servers = meta.get("servers", [])
    titles = meta.get("titles", {})
    table = collect(out, servers)
    lines = [BEGIN, "## DNS servers side by side (`tests/bench/peers/run.sh`)", "",
             "Issue 4: `ax-dns` against the peers from Debian packages and a no-op UDP responder "
             "(`tests/bench/tools/noop_responder.cc`, the machine's limit), on the quickstart's "
             "zone, each server on one core, measured with dnsperf and with our batched "
             "generator (`tests/bench/tools/loadgen.cc`, sendmmsg/recvmmsg, 500 in flight). "
             "Peer configurations: `tests/bench/peers/servers.sh` and `zones/`; RRL is off "
             "everywhere. Rerun: `tests/bench/peers/run.sh` (~30 min; `--quick` for a smoke "
             "test), profile: `tests/bench/peers/profile.sh`.", ""]
    v = meta.get("versions", {})
    lines.append(
        f"Machine: {meta.get('cpus')} CPUs ({meta.get('cpu_model')} @ {meta.get('mhz')} MHz), "
        f"kernel {meta.get('kernel')}; run {meta.get('date')}: `{meta.get('command')}`. "
        f"{meta.get('runs')} alternating runs of {meta.get('duration_s')} s per generator; "
        f"servers pinned to CPU 1, generators to CPU 0, all on 127.0.0.1; "
        f"`net.core.rmem_default` 4 MiB during the run (restored after); "
        f"ECS mix: {meta.get('subnets')} real /24s (dnsperf: one fixed /24). "
        f"Versions: ax-dns {v.get('ax')} (release), knot {v.get('knot')}, nsd {v.get('nsd')}, "
        f"gdnsd {v.get('gdnsd')}, PowerDNS {v.get('pdns')}, dnsperf {v.get('dnsperf')}.")
    if meta.get("idle_note"):
        lines.append(f"\n**Caution:** {meta['idle_note']}.")
    lines += ["", "Medians over the runs; ratios are against the no-op responder measured in the same run.",
              "", "| Server | ratio, ax_loadgen | ratio, dnsperf | qps, ax_loadgen | qps, dnsperf "
              "| server CPU per query (offered rate) | p50 / p99 latency at that rate |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for s in servers:
        rows = table[s]
        cpu = median([r["cpu"]["cpu_us_per_query"] for r in rows if r["cpu"]])
        rate = median([r["cpu"]["rate_target"] for r in rows if r["cpu"]])
        p50 = median([r["cpu"]["latency_us"]["p50"] for r in rows if r["cpu"]])
        p99 = median([r["cpu"]["latency_us"]["p99"] for r in rows if r["cpu"]])
        lines.append(
            f"| {titles.get(s, s)} | {ratio(median_ratio(table, s, 'noop', 'ours'))} "
            f"| {ratio(median_ratio(table, s, 'noop', 'dnsperf'))} "
            f"| {kqps(median([qps_of(r, 'ours') for r in rows]))} "
            f"| {kqps(median([qps_of(r, 'dnsperf') for r in rows]))} "
            f"| {'—' if cpu is None else f'{cpu:.2f} µs'} ({kqps(rate)}) "
            f"| {'—' if p50 is None else f'{p50:.0f} / {p99:.0f} µs'} |")
    lines += targets(out, table, servers)
    lines += ["", "<details><summary>Raw results, every run</summary>", "",
              "| Run | Server | ax_loadgen qps | sent / lost | dnsperf qps | dnsperf lost "
              "| offered | CPU µs/query | lost at offered | others' CPU (cores) |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in servers:
        for r in table[s]:
            o, d, c = r["ours"], r["dnsperf"], r["cpu"]
            lines.append(
                f"| {r['run']} | {s} | {o['qps']:.0f} | {o['sent']} / {o['lost']} "
                if o else f"| {r['run']} | {s} | — | — ")
            lines[-1] += (f"| {d['qps']:.0f} | {d['lost']} " if d else "| — | — ")
            lines[-1] += (f"| {c['rate_target']:.0f} | {c['cpu_us_per_query']:.2f} | {c['lost']} "
                          if c else "| — | — | — ")
            noise = [x.get("noise_cores") for x in (o, d, c) if x and "noise_cores" in x]
            lines[-1] += f"| {max(noise):.2f} |" if noise else "| — |"
    lines += ["", "</details>"]
    findings = os.path.join(HERE, "findings.md")
    if os.path.exists(findings):
        with open(findings) as f:
            lines += ["", f.read().rstrip()]
    lines.append(END)
    return "\n".join(lines) + "\n"


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def targets(out, table, servers):
    if "ax-geo" not in servers:
        return []
    lines = ["", "Targets of issue 4 (per core, geo classification + ECS + weighted pick on every "
             "query, i.e. `ax-dns: api`; judged on ax_loadgen, the generator that does not "
             "saturate first; differences under ~15% are within this machine's noise):", "",
             "| Target | Measured | Result |", "|---|---|---|"]
    if "gdnsd-geoip" in servers:
        r = median_ratio(table, "ax-geo", "gdnsd-geoip", "ours")
        rd = median_ratio(table, "ax-geo", "gdnsd-geoip", "dnsperf")
        note = " (within noise)" if r is not None and 0.85 <= r < 1 else ""
        lines.append(f"| ≥ gdnsd-with-geoip's rate (both classify against the same "
                     f"whole-Internet region map) | ax-dns / gdnsd-geoip = {ratio(r)} "
                     f"(dnsperf: {ratio(rd)}) | {verdict(r is not None and r >= 1)}{note} |")
    if "gdnsd-nets5k" in servers:
        r = median_ratio(table, "ax-geo", "gdnsd-nets5k", "ours")
        lines.append(f"| (reference, not the target: gdnsd whose nets map holds only the "
                     f"mix's 5000 /24s, no other address known) | ax-dns / gdnsd-nets5k = "
                     f"{ratio(r)} | — |")
    if "noop" in servers:
        r = median_ratio(table, "ax-geo", "noop", "ours")
        rd = median_ratio(table, "ax-geo", "noop", "dnsperf")
        lines.append(f"| ≥ 90% of the no-op responder | {ratio(r)} of it (dnsperf: {ratio(rd)}) "
                     f"| {verdict(r is not None and r >= 0.9)} |")
    if "ax-rrl" in servers:
        r = median_ratio(table, "ax-rrl", "ax-geo", "ours")
        lines.append(f"| default RRL on keeps ≥ 90% of RRL off (issue 15; the ECS mix, "
                     f"not dnsperf's one repeated question, which RRL limits) | ax-rrl / "
                     f"ax-geo = {ratio(r)} | {verdict(r is not None and r >= 0.9)} |")
    if "pdns-lua" in servers:
        r = median_ratio(table, "ax-geo", "pdns-lua", "ours")
        lines.append(f"| ≥ 50× PowerDNS LUA | {'—' if r is None else f'{r:.0f}×'} "
                     f"| {verdict(r is not None and r >= 50)} |")
    loss = load(os.path.join(out, "ax-geo.loss80.json"))
    if loss:
        ok = loss["lost"] == 0 and loss["sent_qps"] >= 0.97 * loss["rate_target"]
        lines.append(
            f"| no loss at 80% of peak | {loss['sent']} queries at {kqps(loss['sent_qps'])} qps "
            f"(target {kqps(loss['rate_target'])}) for {loss['duration_s']:.0f} s: "
            f"{loss['lost']} lost, p99 {loss['latency_us']['p99']} µs | {verdict(ok)} |")
    mem = load(os.path.join(out, "ax-geo.mem.json"))
    mem_random = load(os.path.join(out, "ax-geo.mem-random.json"))
    if mem:
        def mib(kib):
            return f"{kib / 1024:.1f} MiB"

        def describe(m):
            files = ", ".join(f"{os.path.basename(k)} {mib(v)}"
                              for k, v in m["mapped_files_rss_kib"].items() if k.endswith(".mmdb"))
            return (f"VmRSS {mib(m['VmRSS_kib'])} = anonymous {mib(m['RssAnon_kib'])} + "
                    f"file-backed {mib(m['RssFile_kib'])} ({files or 'no .mmdb pages'})")
        text = f"after the runs' mix: {describe(mem)}"
        ok = mem["VmRSS_kib"] < 100 * 1024
        result = verdict(ok)
        if mem_random:
            text += f"; after {mem_random_desc(out)}: {describe(mem_random)}"
            ok_random = mem_random["VmRSS_kib"] < 100 * 1024
            if ok and not ok_random:
                result += " (RSS incl. mapped pages); FAIL after random lookups"
            elif ok_random and mem_random["RssAnon_kib"] < 100 * 1024:
                result += " (also after random lookups)"
        lines.append(f"| memory < 100 MiB, real dbip city database loaded | {text} | {result} |")
    return lines


def mem_random_desc(out):
    r = load(os.path.join(out, "ax-geo.random.json"))
    if not r:
        return "random lookups"
    return f"{r['received']:,} queries from random public /24s"


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--doc"):
        print(__doc__, file=sys.stderr)
        return 2
    section = render(argv[1])
    print(section)
    if len(argv) == 4:
        doc = argv[3]
        with open(doc) as f:
            text = f.read()
        pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END) + "\n?", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: section, text)
        else:
            text = text.rstrip("\n") + "\n\n" + section
        with open(doc, "w") as f:
            f.write(text)
        print(f"render.py: wrote {doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
