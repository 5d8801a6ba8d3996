"""The markdown section of docs/benchmarks.md for api_latency.py's results (one dict,
as results.json holds it), between "<!-- BEGIN api-latency" and
"<!-- END api-latency -->"."""

BEGIN = "<!-- BEGIN api-latency (tests/bench/api_latency/run.sh) -->"
END = "<!-- END api-latency -->"
TARGET_MS = 1000.0  # issue 6: a CR change answers in DNS within a second (median)


def row(title: str, s: dict) -> str:
    return f"| {title} | {s['median']:.0f} | {s['p90']:.0f} | {s['max']:.0f} | {s['n']} |"


def run_table(run: dict) -> list[str]:
    compiles = run["geo_compiles"]
    return [
        "| ms | median | p90 | max | edits |", "|---|---:|---:|---:|---:|",
        row("API write → first answer reflecting it", run["total_ms"]),
        row("of which: write → new ConfigMap version (API, operator)",
            run["to_configmap_ms"]),
        row("of which: ConfigMap → answer (ax-dns watch, decode, load)",
            run["configmap_to_answer_ms"]),
        row("of that: ax-dns \"snapshot loaded\" → answer", run["loaded_to_answer_ms"]),
        "",
        f"Geo region maps (ax-dns's log): compiled {len(compiles)} times "
        f"({', '.join(f'{ms:.0f}' for ms in compiles)} ms), reused {run['geo_reuses']} "
        "times.",
    ]


def render(r: dict) -> str:
    m = r["machine"]
    ours = r["runs"][0]
    lines = [
        BEGIN, "## Kubernetes API → DNS answer (`tests/bench/api_latency/run.sh`)", "",
        "Issue 6, the whole chain on a local etcd + kube-apiserver "
        "(`tests/integration/chainharness.py`, as `test_e2e_api.py` runs it): `ax-operator`, "
        "`ax-dns --snapshot-configmap` and its `ax-probe --report-api` sidecar (release "
        f"builds, ax {r['ax']}) on the quickstart, every node probed Up. Each edit is one "
        "merge PATCH from Python, cycling through a Node (bj-01 Disabled/Active), a Rule "
        "(www-exclude-gz-02's node) and a Canary (api-sj-02: one 100% step / the "
        "quickstart's steps), 1 s apart; the time runs from sending the PATCH to the first "
        "UDP answer (asked every ~1 ms with the edit's ECS client) that reflects it. A watch "
        "on the route-table ConfigMap splits it; \"snapshot loaded\" is ax-dns's own log "
        "line. Most of write → ConfigMap is the operator's `--debounce` (100 ms: it waits "
        "that long for more changes before planning). Rerun: "
        "`tests/bench/api_latency/run.sh` (~2 min; `--edits N`, `--compare AX_DNS` to "
        "measure another ax-dns the same way).", "",
        f"Machine: {m['cpus']} CPUs ({m['cpu_model']}), kernel {m['kernel']}; run "
        f"{r['date']}: `{r['command']}`.", "",
    ]
    lines += run_table(ours)
    med = ours["total_ms"]["median"]
    lines += ["", f"Target (median under {TARGET_MS:.0f} ms): {med:.0f} ms, "
              f"**{'PASS' if med < TARGET_MS else 'FAIL'}**."]
    for other in r["runs"][1:]:
        lines += ["", f"The same edits with `{other['ax_dns']}`:", ""] + run_table(other)
    lines += ["", "<details><summary>Every edit (this build)</summary>", "",
              "| Edit | version | write → ConfigMap | ConfigMap → answer | total |",
              "|---|---:|---:|---:|---:|"]
    for e in ours["edits"]:
        lines.append(f"| {e['edit']} | {e['version']} | {e['to_configmap_s'] * 1000:.0f} ms "
                     f"| {e['configmap_to_answer_s'] * 1000:.0f} ms "
                     f"| {e['total_s'] * 1000:.0f} ms |")
    lines += ["", "</details>", END]
    return "\n".join(lines) + "\n"

