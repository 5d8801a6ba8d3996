"""Renders Google Benchmark JSON (medians) as the core section of docs/benchmarks.md.

Replaces the text between the BEGIN/END core markers; the rest of the file is kept.
"""
import json
import sys

BEGIN = "<!-- BEGIN core (tests/bench/run_core_bench.sh) -->"
END = "<!-- END core -->"


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.1f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def main(result_path, doc_path):
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
        extra = ", ".join(f"{k}={int(b[k])}" for k in ("routes", "bytes") if k in b)
        rows.append(f"| `{name}` | {fmt_time(b['real_time'] * unit)} | {extra} |")
    section = "\n".join([
        BEGIN,
        f"Machine: {ctx['num_cpus']} CPUs @ {ctx['mhz_per_cpu']} MHz; `release` preset; "
        f"run {ctx['date']}, pinned to CPU 1, median of 5 repetitions.",
        "",
        "| Benchmark | Median time | Notes |",
        "|---|---:|---|",
        *rows,
        END,
    ])
    doc = open(doc_path).read()
    start, end = doc.index(BEGIN), doc.index(END) + len(END)
    open(doc_path, "w").write(doc[:start] + section + doc[end:])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
