"""The Prometheus alert rules (issue 7): helm/ax/files/prometheus-rules.yaml through the
real promtool (`check rules`, and `test rules` on the unit tests in tests/alerts/), plus
what promtool cannot know: every alert has `for`, a severity, a summary, a description
and a runbook_url whose anchor is a section of docs/runbook.md; every alert is tested
firing and not firing; every metric name and label an expression uses is one the
metric tables of the component READMEs (dns-server/, probe/) or the runbook's table of the metrics the
operator exports (issue 6) declare, with a listed value where the table lists them;
the runbook's overview table agrees with the rules. promtool comes from Debian's
`prometheus` package (scripts/setup-test.sh); env AX_PROMTOOL overrides the one on PATH."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "helm/ax/files/prometheus-rules.yaml"
TESTS_DIR = REPO / "tests/alerts"
RUNBOOK = REPO / "docs/runbook.md"
README = REPO / "README.md"
# The components whose READMEs hold the metric tables.
METRIC_READMES = [REPO / "dns-server/README.md", REPO / "probe/README.md"]
RUNBOOK_PREFIX = "docs/runbook.md#"
SEVERITIES = {"critical", "warning", "info"}
OPERATOR_GROUP = "ax-operator"
OPERATOR_TABLE_HEADING = "## Metrics the operator exports (issue 6)"
# Labels the scrape adds (Prometheus' job/instance; the Kubernetes service discovery's
# namespace/pod), which rules may group by without a metric declaring them.
TARGET_LABELS = {"namespace", "pod", "instance", "job"}
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def promtool() -> str:
    path = os.environ.get("AX_PROMTOOL") or shutil.which("promtool")
    if not path:
        pytest.fail("promtool not found: scripts/setup-test.sh installs Debian's prometheus "
                    "package, which provides /usr/bin/promtool")
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([promtool(), *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120)


# --- what the files say ------------------------------------------------------------

def load_groups() -> list[dict]:
    return yaml.safe_load(RULES.read_text())["groups"]


GROUPS = load_groups()
ALERTS = [(g["name"], r) for g in GROUPS for r in g["rules"] if "alert" in r]
ALERT_NAMES = [r["alert"] for _, r in ALERTS]
TEST_FILES = sorted(TESTS_DIR.glob("*.test.yaml"))


def table_cells(line: str) -> list[str]:
    """The cells of one Markdown table row (a `\\|` inside a cell is not a border)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def parse_labels(cell: str) -> dict[str, set[str] | None]:
    """`node, phase (connect, tls)` -> {node: None, phase: {connect, tls}}: a label and
    the values the table lists for it (None: any value)."""
    labels: dict[str, set[str] | None] = {}
    for m in re.finditer(r"([a-z_][a-z0-9_]*)\s*(?:\(([^)]*)\))?", cell):
        values = m.group(2)
        labels[m.group(1)] = ({v.strip() for v in values.split(",")} if values else None)
    return labels


def metric_tables(text: str) -> dict[str, dict]:
    """Every table row whose first cell names `ax_...` metrics: name -> type, labels."""
    metrics: dict[str, dict] = {}
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        cells = table_cells(line)
        if len(cells) < 3:
            continue
        names = re.findall(r"`(ax_[a-z0-9_]+)`", cells[0])
        if not names or not cells[0].startswith("`"):
            continue
        for name in names:
            metrics[name] = {"type": cells[1], "labels": parse_labels(cells[2])}
    return metrics


def section(text: str, heading: str) -> str:
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end != -1 else len(text)]


README_METRICS = {name: spec for readme in METRIC_READMES
                  for name, spec in metric_tables(readme.read_text()).items()}
RUNBOOK_TEXT = RUNBOOK.read_text()
OPERATOR_METRICS = metric_tables(section(RUNBOOK_TEXT, OPERATOR_TABLE_HEADING))
KNOWN_METRICS = {**README_METRICS, **OPERATOR_METRICS}


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to -."""
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


RUNBOOK_ANCHORS = {github_anchor(m.group(1))
                   for m in re.finditer(r"^#{1,6} (.+)$", RUNBOOK_TEXT, re.M)}


def base_metric(name: str) -> str | None:
    """The declared metric a series name belongs to (histogram series by suffix)."""
    if name in KNOWN_METRICS:
        return name
    for suffix in HISTOGRAM_SUFFIXES:
        base = name.removesuffix(suffix)
        if base != name and "histogram" in KNOWN_METRICS.get(base, {}).get("type", ""):
            return base
    return None


def expr_metric_names(expr: str) -> set[str]:
    unquoted = re.sub(r'"[^"]*"', '""', expr)
    return set(re.findall(r"\bax_[a-z0-9_]*[a-z0-9]\b", unquoted))


# --- promtool ------------------------------------------------------------------------

def test_promtool_check_rules():
    r = run("check", "rules", str(RULES))
    assert r.returncode == 0, r.stdout + r.stderr
    rules = sum(len(g["rules"]) for g in GROUPS)
    assert f"SUCCESS: {rules} rules found" in r.stdout, r.stdout


def test_promtool_test_rules():
    assert TEST_FILES, f"no *.test.yaml in {TESTS_DIR}"
    r = run("test", "rules", *map(str, TEST_FILES))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("SUCCESS") == len(TEST_FILES), r.stdout


def test_unit_tests_load_the_rules_file():
    for f in TEST_FILES:
        doc = yaml.safe_load(f.read_text())
        assert [(f.parent / p).resolve() for p in doc["rule_files"]] == [RULES], f


def test_every_alert_fires_and_stays_quiet_in_the_unit_tests():
    fired, quiet = set(), set()
    for f in TEST_FILES:
        for case in yaml.safe_load(f.read_text())["tests"]:
            for t in case.get("alert_rule_test", []):
                (fired if t.get("exp_alerts") else quiet).add(t["alertname"])
    assert set(ALERT_NAMES) - fired == set(), "alerts never tested firing"
    assert set(ALERT_NAMES) - quiet == set(), "alerts never tested not firing"
    assert (fired | quiet) - set(ALERT_NAMES) == set(), "tests of alerts that do not exist"


# --- every alert ---------------------------------------------------------------------

def test_alert_names_are_unique():
    assert len(ALERT_NAMES) == len(set(ALERT_NAMES))


@pytest.mark.parametrize("group,rule", ALERTS, ids=ALERT_NAMES)
def test_alert_has_for_severity_and_annotations(group, rule):
    assert re.fullmatch(r"\d+[smh]", str(rule.get("for", ""))), "for: missing"
    assert rule.get("labels", {}).get("severity") in SEVERITIES
    annotations = rule.get("annotations", {})
    for key in ("summary", "description", "runbook_url"):
        assert str(annotations.get(key, "")).strip(), f"annotation {key} missing"


@pytest.mark.parametrize("group,rule", ALERTS, ids=ALERT_NAMES)
def test_runbook_url_is_a_runbook_section(group, rule):
    url = rule["annotations"]["runbook_url"]
    assert url == RUNBOOK_PREFIX + rule["alert"].lower()
    assert url.removeprefix(RUNBOOK_PREFIX) in RUNBOOK_ANCHORS, f"no heading for {url}"


@pytest.mark.parametrize("group,rule", ALERTS, ids=ALERT_NAMES)
def test_expr_uses_declared_metrics_and_labels(group, rule):
    expr = rule["expr"]
    names = expr_metric_names(expr)
    assert names, "no ax_ metric in expr"
    unknown = {n for n in names if base_metric(n) is None}
    assert not unknown, f"not in the README's or the runbook's metric tables: {unknown}"

    declared: dict[str, set[str] | None] = {}
    for name in names:
        declared.update(KNOWN_METRICS[base_metric(name)]["labels"])
        if name.endswith("_bucket"):
            declared["le"] = None
    for m in re.finditer(r"\b(ax_[a-z0-9_]+)\s*\{([^}]*)\}", expr):
        metric_labels = dict(KNOWN_METRICS[base_metric(m.group(1))]["labels"])
        for label, op, value in re.findall(r'(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"', m.group(2)):
            assert label in metric_labels, f"{m.group(1)} has no label {label}"
            allowed = metric_labels[label]
            if allowed is not None:
                values = value.split("|") if op in ("=~", "!~") else [value]
                assert set(values) <= allowed, f"{label}={value}: table lists {allowed}"
    for m in re.finditer(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)",
                         expr):
        for label in filter(None, (x.strip() for x in m.group(2).split(","))):
            assert label in declared or label in TARGET_LABELS, \
                f"{m.group(1)} ({label}): no metric of this expr has that label"


def test_operator_metrics_only_in_the_operator_group():
    """Deployments without an operator drop one group: ax-operator."""
    for group, rule in ALERTS:
        names = expr_metric_names(rule["expr"])
        uses_operator = any(n.startswith("ax_operator_") for n in names)
        assert uses_operator == (group == OPERATOR_GROUP), rule["alert"]


# --- the runbook ---------------------------------------------------------------------

def test_operator_metrics_table_is_the_issue_6_14_18_and_19_list():
    assert {n: (m["type"], set(m["labels"])) for n, m in OPERATOR_METRICS.items()} == {
        "ax_operator_leader": ("gauge", {"pod"}),
        "ax_operator_reconcile_duration_seconds": ("histogram", set()),
        "ax_operator_reconcile_errors_total": ("counter", {"stage"}),
        "ax_operator_snapshot_version": ("gauge", set()),
        "ax_operator_snapshot_bytes": ("gauge", set()),
        "ax_operator_snapshot_published_timestamp_seconds": ("gauge", set()),
        "ax_operator_watch_restarts_total": ("counter", {"resource"}),
        "ax_operator_nodes": ("gauge", {"health"}),
        "ax_operator_region_healthy_nodes": ("gauge", {"region"}),
        "ax_operator_vantage_cut_off": ("gauge", {"vantage"}),
        "ax_operator_canary_rollbacks_total": ("counter", {"canary"}),
        # issue 18: where each Canary is
        "ax_operator_canary_percent": ("gauge", {"canary"}),
        "ax_operator_canary_phase": ("gauge", {"canary", "phase"}),
        "ax_operator_node_load_percent": ("gauge", {"node"}),
        "ax_operator_rule_active": ("gauge", {"rule", "domain", "action", "node"}),
        "ax_operator_rule_expires_timestamp_seconds": (
            "gauge", {"rule", "domain", "action", "node"}),
        # issue 14: vantage groups, reports from the future
        "ax_operator_vantage_group_vantages": ("gauge", {"group"}),
        "ax_operator_vantage_group_node_down": ("gauge", {"group", "node", "global"}),
        "ax_operator_probe_reports_future": ("gauge", set()),
        "ax_operator_status_backlog": ("gauge", set()),
        # issue 19: member clusters
        "ax_operator_member_up": ("gauge", {"member"}),
        "ax_operator_member_blocked": ("gauge", {"member"}),
        "ax_operator_member_route_table_version": ("gauge", {"member"}),
        "ax_operator_member_confirmed_timestamp_seconds": ("gauge", {"member"}),
        "ax_operator_member_probe_reports": ("gauge", {"member"}),
        "ax_operator_member_sync_failures_total": ("counter", {"member"}),
    }


def test_readme_metric_tables_parsed():
    """Guards the parser: the tables the rules rely on were found."""
    for name in ("ax_dns_queries_total", "ax_dns_snapshot_age_seconds",
                 "ax_dns_udp_kernel_drops_total", "ax_probe_duration_seconds",
                 "ax_node_health_state", "ax_probe_flap_suppressed"):
        assert name in README_METRICS, name
    assert README_METRICS["ax_probe_duration_seconds"]["labels"]["phase"] == {
        "connect", "tls", "first_byte", "transfer", "total"}


def test_runbook_sections_are_the_alerts():
    alerts_part = RUNBOOK_TEXT[RUNBOOK_TEXT.index("\n## Alerts\n"):]
    sections = re.findall(r"^### (\S+)$", alerts_part, re.M)
    assert sections == ALERT_NAMES, "one ### section per alert, in the rules' order"


def test_runbook_overview_table_matches_the_rules():
    rows = {}
    for line in section(RUNBOOK_TEXT, "## Alerts at a glance").splitlines():
        m = re.match(r"\| \[(\w+)\]\(#(\w+)\) \|", line)
        if m:
            cells = table_cells(line)
            assert m.group(2) == m.group(1).lower()
            rows[m.group(1)] = (cells[1], cells[3])
    assert rows == {r["alert"]: (r["labels"]["severity"], r["for"]) for _, r in ALERTS}


def test_runbook_and_readme_alerts_name_only_real_metrics():
    texts = {"docs/runbook.md": RUNBOOK_TEXT,
             "README.md ## Alerts": section(README.read_text(), "## Alerts")}
    for where, text in texts.items():
        for name in set(re.findall(r"\bax_[a-z0-9_]*[a-z0-9]\b", text)):
            assert base_metric(name), f"{where}: {name} is no declared metric"


# --- a real Prometheus loads the file --------------------------------------------------

def test_prometheus_server_loads_and_evaluates_the_rules(tmp_path):
    """The README's way without the chart: rule_files in prometheus.yml. Every rule
    evaluates without error; with nothing scraped, the two absent() alerts go pending."""
    import json
    import urllib.request

    from axharness import HarnessError, free_port, stop_process
    from waiting import wait_for

    server = shutil.which("prometheus")
    if not server:
        pytest.fail("prometheus not found: scripts/setup-test.sh installs Debian's prometheus")
    config = tmp_path / "prometheus.yml"
    config.write_text(yaml.safe_dump({"global": {"evaluation_interval": "1s"},
                                      "rule_files": [str(RULES)]}))

    def get(port: int, path: str) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return json.load(r)

    class Exited(Exception):
        pass

    def evaluated_groups() -> list | None:
        """The rule groups once every rule was evaluated (refused while starting)."""
        if proc.poll() is not None:
            raise Exited()
        groups = get(port, "/api/v1/rules")["data"]["groups"]
        rules = [r for g in groups for r in g["rules"]]
        if rules and all(not r.get("lastEvaluation", "0001").startswith("0001")
                         for r in rules):  # 0001-01-01: not evaluated yet
            return groups
        return None

    for _ in range(3):  # a port found free may be taken before Prometheus binds it
        port = free_port()
        log = open(tmp_path / "prometheus.log", "w")
        proc = subprocess.Popen(
            [server, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
             f"--web.listen-address=127.0.0.1:{port}"],
            stdout=log, stderr=subprocess.STDOUT)
        try:
            try:
                groups = wait_for(
                    "Prometheus evaluating every rule", evaluated_groups, 60, 0.5,
                    retry_on=(OSError,),
                    context=lambda: (tmp_path / "prometheus.log").read_text()[-3000:])
            except Exited:
                continue  # e.g. the port was taken: try another
            rules = [r for g in groups for r in g["rules"]]
            assert sorted(g["name"] for g in groups) == sorted(g["name"] for g in GROUPS)
            assert sorted(r["name"] for r in rules) == sorted(ALERT_NAMES)
            bad = {r["name"]: r.get("lastError") for r in rules if r["health"] != "ok"}
            assert not bad, bad
            pending = {a["labels"]["alertname"]: a["state"]
                       for a in get(port, "/api/v1/alerts")["data"]["alerts"]}
            assert pending == {"AxDnsMetricsAbsent": "pending",
                               "AxOperatorMetricsAbsent": "pending"}
            return
        finally:
            stop_process(proc)
            log.close()
    raise HarnessError("prometheus did not start: " +
                       (tmp_path / "prometheus.log").read_text()[-3000:])
