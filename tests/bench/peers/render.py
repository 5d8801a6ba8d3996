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
            for kind in ("ours", "dnsperf", "cpu", "tcp", "tcp-cpu", "scaling"):
                row[kind] = load(os.path.join(run_dir, f"{s}.{kind}.json"))
            table[s].append(row)
    return table


def run_ratio(table, a, b, kind, run):
    """qps of a / qps of b in the same run; kind "X_vs_Y" compares a's X with b's Y."""
    ka, kb = kind.split("_vs_") if "_vs_" in kind else (kind, kind)
    ra = next((r for r in table.get(a, []) if r["run"] == run), None)
    rb = next((r for r in table.get(b, []) if r["run"] == run), None)
    if not ra or not rb or not ra[ka] or not rb[kb] or not rb[kb]["qps"]:
        return None
    return ra[ka]["qps"] / rb[kb]["qps"]


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
             "generator (`tests/bench/tools/loadgen.cc`, sendmmsg/recvmmsg, 500 in flight, "
             "from many loopback /24s as resolvers send). Peer configurations: "
             "`tests/bench/peers/servers.sh` and `zones/`; ax-dns as shipped (RRL, decision "
             "log and metrics on), the peers with RRL off. Rerun: `tests/bench/peers/run.sh` (~55 min; `--quick` for a smoke "
             "test), profile: `tests/bench/peers/profile.sh`.", ""]
    v = meta.get("versions", {})
    lines.append(
        f"Machine: {meta.get('cpus')} CPUs ({meta.get('cpu_model')} @ {meta.get('mhz')} MHz), "
        f"kernel {meta.get('kernel')}; run {meta.get('date')}: `{meta.get('command')}`. "
        f"{meta.get('runs')} alternating runs of {meta.get('duration_s')} s per generator; "
        f"servers pinned to CPU 1, generators to CPU 0, all on 127.0.0.1; "
        f"`net.core.rmem_default` 4 MiB during the run (restored after); "
        f"ECS mix: {meta.get('subnets')} real /24s from {meta.get('sources', 1)} source "
        f"addresses, 127.0.i.1 (dnsperf: one fixed /24 from 127.0.0.1). "
        f"Versions: ax-dns {v.get('ax')} (release, profile-guided: scripts/pgo-build.sh), "
        f"knot {v.get('knot')}, nsd {v.get('nsd')}, "
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
    lines += tcp_section(meta, table, servers, titles)
    lines += scaling_section(table, servers, titles)
    pairs = collect_pairs(out)
    lines += paired_section(meta, pairs, titles)
    lines += targets(out, table, servers, pairs, bool(meta.get("slice_ms")))
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


def cpu_cell(rows, kind):
    """Median server CPU per query and the offered rate of the CPU step `kind`."""
    cpu = median([r[kind]["cpu_us_per_query"] for r in rows if r[kind]])
    rate = median([r[kind]["rate_target"] for r in rows if r[kind]])
    return f"{'—' if cpu is None else f'{cpu:.2f} µs'} ({kqps(rate)})"


def tcp_section(meta, table, servers, titles):
    measured = [s for s in servers if any(r["tcp"] for r in table[s])]
    if not measured:
        return []
    lines = ["", f"Over TCP (issue 20): {meta.get('tcp_connections')} connections from as many "
             f"source addresses, {meta.get('tcp_pipeline')} queries outstanding on each "
             "(RFC 7766 pipelining), the same mix; one TCP thread each (`tcp-workers`, "
             "`tcp_threads`; nsd serves TCP in its one server process). ax-dns reads "
             "10000 queries on a connection (`--tcp-max-queries`, shipped), answers them and "
             "the pipelined ones read with them, and closes: the generator reopens it and "
             "counts what was still outstanding as lost.", "",
             "| Server | qps over TCP | ratio to ax-geo | server CPU per query (offered rate) "
             "| p50 / p99 latency at that rate | reconnects / lost per run |",
             "|---|---:|---:|---:|---:|---:|"]
    for s in measured:
        rows = table[s]
        p50 = median([r["tcp-cpu"]["latency_us"]["p50"] for r in rows if r["tcp-cpu"]])
        p99 = median([r["tcp-cpu"]["latency_us"]["p99"] for r in rows if r["tcp-cpu"]])
        churn = ", ".join(f"{r['tcp']['reconnects']:.0f} / {r['tcp']['lost']}"
                          for r in rows if r["tcp"])
        lines.append(
            f"| {titles.get(s, s)} | {kqps(median([qps_of(r, 'tcp') for r in rows]))} "
            f"| {ratio(median_ratio(table, s, 'ax-geo', 'tcp'))} | {cpu_cell(rows, 'tcp-cpu')} "
            f"| {'—' if p50 is None else f'{p50:.0f} / {p99:.0f} µs'} | {churn} |")
    return lines


def scaling_section(table, servers, titles):
    measured = [s for s in servers if any(r["scaling"] for r in table[s])]
    if not measured:
        return []
    lines = ["", "Both CPUs (issue 20): each server with its default threading (ax-dns: one "
             "UDP worker per core, `--workers 0`; gdnsd: its udp_threads default; knotd: a "
             "UDP worker per core), unpinned, and the generator pinned to CPU 0: it shares "
             "a core with the server, so the second core is worth less than a core. Compare "
             "the ratios, not the rates with the one-core table.", "",
             "| Server | one thread, own core | default threading, shared cores | ratio |",
             "|---|---:|---:|---:|"]
    for s in measured:
        rows = table[s]
        one = median([qps_of(r, "ours") for r in rows])
        both = median([qps_of(r, "scaling") for r in rows])
        lines.append(f"| {titles.get(s, s)} | {kqps(one)} | {kqps(both)} "
                     f"| {ratio(median_ratio(table, s, s, 'scaling_vs_ours'))} |")
    return lines


def collect_pairs(out):
    """Per paired round: {server: {"ours": ..., "cpu": ...}} (run.sh --pairs)."""
    rounds = sorted(glob.glob(os.path.join(out, "pairs", "round*")),
                    key=lambda p: int(p.rsplit("round", 1)[1]))
    result = []
    for d in rounds:
        names = {os.path.basename(f).split(".")[0] for f in glob.glob(os.path.join(d, "*.json"))}
        result.append({n: {k: load(os.path.join(d, f"{n}.{k}.json")) for k in ("ours", "cpu")}
                       for n in names})
    return result


def paired(pairs, a, b):
    """Per round in which both were measured: (a's qps / b's, a's CPU µs/q, b's)."""
    out = []
    for r in pairs:
        ra, rb = r.get(a), r.get(b)
        if not ra or not rb or not ra["ours"] or not rb["ours"] or not ra["cpu"] or not rb["cpu"]:
            continue
        out.append((ra["ours"]["qps"] / rb["ours"]["qps"], ra["cpu"]["cpu_us_per_query"],
                    rb["cpu"]["cpu_us_per_query"]))
    return out


# What ax-geo must reach against each peer of the paired rounds (issue 20).
PAIRED_BARS = {"gdnsd-geoip": 1.0, "noop": 0.92, "ax-norrl": 0.95}


def paired_section(meta, pairs, titles):
    # ax-geo-b (run.sh --ax-dns-b): another build of ax-dns, an A/B without a target.
    peers = [p for p in ("gdnsd-geoip", "noop", "ax-norrl", "ax-geo-b")
             if paired(pairs, "ax-geo", p)]
    if not peers:
        return []
    rate = kqps(meta.get("cpu_rate"))
    if meta.get("slice_ms"):
        how = (f"measured interleaved: in each of {len(pairs)} rounds one ax_loadgen sends to "
               f"each in turn for {meta['slice_ms']} ms until each has had "
               f"{meta.get('pair_seconds')} s, at saturation and then at {rate} qps offered (CPU "
               "per query from each server's process clock over the whole round), the order "
               "alternating by round: the host's speed, which moves by ±10 % from one second "
               "to the next on a shared VM, falls on all of them alike.")
    else:  # results of run.sh before the interleaved rounds
        how = (f"measured back to back, seconds apart, in alternating order, {len(pairs)} rounds "
               f"of {meta.get('pair_seconds')} s at saturation and at {rate} qps offered: the "
               "host's drift between minutes, larger than these gaps, cancels within a round.")
    lines = ["", "Paired rounds (issue 20): ax-geo and its close peers started together and "
             + how, "",
             "| ax-geo against | qps ratio, median (lowest-highest) | rounds at or above the target "
             "| CPU per query, ax-geo vs peer (medians) | rounds with ax-geo's CPU at most the peer's |",
             "|---|---:|---:|---:|---:|"]
    for p in peers:
        rows = paired(pairs, "ax-geo", p)
        qs = [q for q, _, _ in rows]
        bar = PAIRED_BARS.get(p)
        at_bar = f"{sum(q >= bar for q in qs)} of {len(qs)} (≥ {bar:.2f})" if bar else "—"
        lines.append(
            f"| {titles.get(p, p)} | {ratio(median(qs))} ({ratio(min(qs))}-{ratio(max(qs))}) "
            f"| {at_bar} "
            f"| {median([a for _, a, _ in rows]):.2f} vs {median([b for _, _, b in rows]):.2f} µs "
            f"| {sum(a <= b for _, a, b in rows)} of {len(rows)} |")
    aa = [q for q, _, _ in paired(pairs, "noop", "noop-b")]
    if aa:
        lines += ["", f"The rounds' own resolution (A/A): two identical no-op responders in the "
                  f"same rounds read {median(aa):.3f} of each other by the median "
                  f"({min(aa):.3f}-{max(aa):.3f} by round)."]
    return lines


def verdict(ok):
    return "**PASS**" if ok else "**FAIL**"


def sequential(ok, judged_by_pairs):
    """A sequential row's result: its verdict, or a reference when interleaved paired
    rounds measured the same target (a server's sequential runs are minutes apart, and
    the host's drift between minutes is wider than the few per cent judged)."""
    if not judged_by_pairs:
        return verdict(ok)
    return f"reference ({'met' if ok else 'not met'}; the paired row judges)"


def paired_median_row(by_peer, peer, target):
    """The target row judged by the median of ax-geo / peer over the paired rounds."""
    rows = by_peer[peer]
    if not rows:
        return []
    r = median([q for q, _, _ in rows])
    return [f"| paired: {target} | ax-geo / {peer} = {ratio(r)}, median of {len(rows)} rounds "
            f"| {verdict(r >= PAIRED_BARS[peer])} |"]


def run_ratios(table, a, b, kind):
    runs = sorted({r["run"] for r in table.get(a, [])})
    return [run_ratio(table, a, b, kind, run) for run in runs]


def cpu_of(table, server):
    return median([r["cpu"]["cpu_us_per_query"] for r in table.get(server, []) if r["cpu"]])


def targets(out, table, servers, pairs, interleaved):
    if "ax-geo" not in servers:
        return []
    intro = ("Targets (issues 4 and 20; per core, geo classification + ECS + weighted pick on "
             "every query, i.e. `ax-dns: api` as shipped: RRL, decision log and metrics on; "
             "judged on ax_loadgen, the generator that does not saturate first)")
    if interleaved and pairs:
        intro += (". Where the interleaved paired rounds measured a target they judge it, and "
                  "the sequential row stays as a reference: a server's sequential runs are "
                  "minutes apart, and the host drifts more between minutes than the gaps judged")
        noop = [qps_of(r, "ours") for r in table.get("noop", []) if r.get("ours")]
        if len(noop) > 1:
            intro += f" (the no-op responder {kqps(min(noop))}-{kqps(max(noop))} by run here)"
    lines = ["", intro + ":", "", "| Target | Measured | Result |", "|---|---|---|"]
    by_peer = {p: paired(pairs, "ax-geo", p) for p in PAIRED_BARS}
    judged = {p: interleaved and bool(rows) for p, rows in by_peer.items()}
    if table.get("gdnsd-geoip"):  # run in the sequential rounds
        each = run_ratios(table, "ax-geo", "gdnsd-geoip", "ours")
        rd = median_ratio(table, "ax-geo", "gdnsd-geoip", "dnsperf")
        ok = bool(each) and all(x is not None and x >= 1 for x in each)
        lines.append(f"| ≥ gdnsd-with-geoip's rate in every round (both classify against the "
                     f"same whole-Internet region map) | ax-dns / gdnsd-geoip = "
                     f"{', '.join(ratio(x) for x in each)} by run (dnsperf median: {ratio(rd)}) "
                     f"| {sequential(ok, judged['gdnsd-geoip'])} |")
        ours, theirs = cpu_of(table, "ax-geo"), cpu_of(table, "gdnsd-geoip")
        if ours is not None and theirs is not None:
            lines.append(f"| CPU per query at a fixed offered rate ≤ gdnsd-geoip's | "
                         f"{ours:.2f} µs vs {theirs:.2f} µs "
                         f"| {sequential(ours <= theirs, judged['gdnsd-geoip'])} |")
    rows = by_peer["gdnsd-geoip"]
    if rows:
        lines.append(f"| paired: ≥ gdnsd-geoip in every round | {len(rows)} rounds: ratios "
                     f"{', '.join(ratio(q) for q, _, _ in rows)} "
                     f"| {verdict(all(q >= 1 for q, _, _ in rows))} |")
        ours, theirs = median([a for _, a, _ in rows]), median([b for _, _, b in rows])
        lines.append(f"| paired: CPU per query ≤ gdnsd-geoip's | {ours:.2f} µs vs {theirs:.2f} µs "
                     f"(lower or equal in {sum(a <= b for _, a, b in rows)} of {len(rows)} rounds) "
                     f"| {verdict(ours <= theirs)} |")
    if table.get("gdnsd-nets5k"):
        r = median_ratio(table, "ax-geo", "gdnsd-nets5k", "ours")
        lines.append(f"| (reference, not the target: gdnsd whose nets map holds only the "
                     f"mix's 5000 /24s, no other address known) | ax-dns / gdnsd-nets5k = "
                     f"{ratio(r)} | — |")
    if table.get("noop"):
        r = median_ratio(table, "ax-geo", "noop", "ours")
        rd = median_ratio(table, "ax-geo", "noop", "dnsperf")
        result = sequential(r is not None and r >= PAIRED_BARS["noop"], judged["noop"])
        lines.append(f"| ≥ 92% of the no-op responder | {ratio(r)} of it (dnsperf: {ratio(rd)}) "
                     f"| {result} |")
    lines += paired_median_row(by_peer, "noop", "≥ 92% of the no-op responder")
    if table.get("ax-norrl"):
        r = median_ratio(table, "ax-geo", "ax-norrl", "ours")
        result = sequential(r is not None and r >= PAIRED_BARS["ax-norrl"], judged["ax-norrl"])
        lines.append(f"| the shipped defaults limit none of the resolvers' load (RRL, decision "
                     f"log and metrics on vs RRL and log off) | ax-geo / ax-norrl = {ratio(r)} "
                     f"| {result} |")
    lines += paired_median_row(by_peer, "ax-norrl",
                               "the shipped defaults limit none of the resolvers' load")
    tcp_peers = [p for p in ("knot", "nsd", "gdnsd") if any(r["tcp"] for r in table.get(p, []))]
    if tcp_peers and any(r["tcp"] for r in table["ax-geo"]):
        each = {p: run_ratios(table, "ax-geo", p, "tcp") for p in tcp_peers}
        ok = all(x is not None and x > 1 for xs in each.values() for x in xs)
        text = "; ".join(f"/ {p} = {', '.join(ratio(x) for x in xs)}" for p, xs in each.items())
        ours = median([r["tcp-cpu"]["cpu_us_per_query"] for r in table["ax-geo"] if r["tcp-cpu"]])
        theirs = {p: median([r["tcp-cpu"]["cpu_us_per_query"] for r in table[p] if r["tcp-cpu"]])
                  for p in tcp_peers}
        cpu_ok = ours is not None and all(v is not None and ours <= v for v in theirs.values())
        lines.append(f"| TCP: ahead of {', '.join(tcp_peers)} in every round, CPU per query at most "
                     f"theirs (ax-dns with geo + ECS, the peers a static zone) | ax-geo {text} by run; CPU per query "
                     f"{'—' if ours is None else f'{ours:.2f}'} µs vs "
                     f"{', '.join(f'{p} ' + ('—' if v is None else f'{v:.2f}') for p, v in theirs.items())}"
                     f" µs | {verdict(ok and cpu_ok)} |")
    if table.get("pdns-lua"):
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
