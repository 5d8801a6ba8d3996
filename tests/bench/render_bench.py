"""Renders Google Benchmark JSON (medians) as one section of docs/benchmarks.md.

Usage: render_bench.py RESULT.json DOC.md SECTION SCRIPT
Replaces the text between the "BEGIN SECTION (SCRIPT)" and "END SECTION" markers; the
rest of the file is kept. Counters named in COUNTERS are shown as notes.
"""
import json
import sys

COUNTERS = ("routes", "bytes", "payload_bytes", "status_updates")


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def main(result_path, doc_path, section, script):
    begin = f"<!-- BEGIN {section} ({script}) -->"
    end = f"<!-- END {section} -->"
    data = json.load(open(result_path))
    ctx = data["context"]
    rows = []
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        unit = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        name = b["run_name"]
        if b.get("label"):
            name += f" ({b['label']})"
        extra = ", ".join(f"{k}={int(b[k])}" for k in COUNTERS if k in b)
        rows.append(f"| `{name}` | {fmt_time(b['real_time'] * unit)} | {extra} |")
    text = "\n".join([
        begin,
        f"Machine: {ctx['num_cpus']} CPUs @ {ctx['mhz_per_cpu']} MHz; `release` preset; "
        f"run {ctx['date']}, pinned to CPU 1, median of 5 repetitions.",
        "",
        "| Benchmark | Median time | Notes |",
        "|---|---:|---|",
        *rows,
        end,
    ])
    doc = open(doc_path).read()
    if begin in doc:
        start, stop = doc.index(begin), doc.index(end) + len(end)
        doc = doc[:start] + text + doc[stop:]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    open(doc_path, "w").write(doc)


if __name__ == "__main__":
    main(*sys.argv[1:5])
