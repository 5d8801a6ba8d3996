"""The operating surface of a running ax-dns with the real dbip + ASN data: /metrics
read by real parsers (prometheus_client's OpenMetrics and text parsers, and promtool
when Debian's prometheus package is installed), counters that move with real queries,
/v1/explain for rule, canary and ECS cases, the HTTP 302 redirector behind a trusted
proxy (X-Forwarded-For), and the decision log's lines.

Served world: examples/quickstart. Client subnets (see test_dnspython.py):
  113.108.1.0/24  -> cn-south-telecom -> gz-01 (no redirectURL; www excludes gz-02)
  8.8.8.0/24      -> us-west          -> sj-01 (redirectURL https://sj-01...), sj-02
"""

from __future__ import annotations

import json
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics)
from prometheus_client.parser import text_string_to_metric_families as parse_text

from axharness import (
    QUICKSTART, AxDns, HarnessError, addresses, ask, copy_manifests, make_query)
from waiting import wait_for

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
SOUTH, US = "113.108.1.0/24", "8.8.8.0/24"


@pytest.fixture(scope="module")
def ax(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ax-ops")
    decisions = tmp / "decisions.jsonl"
    server = AxDns(copy_manifests(tmp / "manifests", QUICKSTART), tmp / "run",
                   listen_v6=False,
                   extra_args=["--redirect-listen", "127.0.0.1:0", "--redirect-trust-xff",
                               "--decision-log", str(decisions),
                               "--decision-log-sample", "1"])
    try:
        server.start()
    except HarnessError as e:
        pytest.fail(str(e))
    server.decisions = decisions
    try:
        server.redirect = server.wait_for_log("redirect listening")["address"]
        yield server
    finally:
        server.stop()
    server.check_clean_exit()


def scrape(ax, accept: str | None = None) -> tuple[str, str]:
    req = urllib.request.Request(f"http://{ax.http}/metrics",
                                 headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.headers["Content-Type"], r.read().decode()


def samples(families) -> dict[tuple, float]:
    """(sample name, sorted labels) -> value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for f in families for s in f.samples}


def openmetrics_samples(ax) -> dict[tuple, float]:
    ctype, text = scrape(ax, "application/openmetrics-text;version=1.0.0,"
                             "text/plain;version=0.0.4;q=0.5")
    assert ctype == OPENMETRICS
    return samples(parse_openmetrics(text))


def get(url: str, headers: dict | None = None, method: str = "GET"):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None
    opener = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(url, headers=headers or {}, method=method)
    try:
        with opener.open(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_openmetrics_parses_with_prometheus_client(ax):
    ctype, text = scrape(ax, "application/openmetrics-text")
    assert ctype == OPENMETRICS
    assert text.endswith("# EOF\n")
    families = {f.name: f for f in parse_openmetrics(text)}
    assert families["ax_dns_queries"].type == "counter"
    assert families["ax_dns_request_duration_seconds"].type == "histogram"
    assert families["ax_dns_request_duration_seconds"].unit == "seconds"
    assert families["ax_dns_snapshot_age_seconds"].unit == "seconds"
    assert families["ax_dns_geo_database_age_seconds"].type == "gauge"
    for name, family in families.items():
        assert name.startswith("ax_dns_"), name
        assert name == name.lower(), name
        if family.type == "counter":
            assert all(s.name.endswith("_total") for s in family.samples), name


def test_prometheus_text_parses(ax):
    ctype, text = scrape(ax)
    assert ctype == "text/plain; version=0.0.4; charset=utf-8"
    names = {f.name for f in parse_text(text)}
    # The 0.0.4 parser names counter families without _total too.
    assert {"ax_dns_queries", "ax_dns_answers", "ax_dns_snapshot_version"} <= names


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool not installed")
def test_promtool_checks_metrics(ax):
    _, text = scrape(ax)
    r = subprocess.run(["promtool", "check", "metrics"], input=text, text=True,
                       capture_output=True, timeout=30)
    assert r.returncode == 0, r.stdout + r.stderr


def test_counters_move_with_real_queries(ax):
    answers = ("ax_dns_answers_total", (("domain", "www"), ("region", "cn-south-telecom"),
                                        ("source", "Region")))
    gz01 = ("ax_dns_node_answers_total", (("domain", "www"), ("node", "gz-01")))
    udp_a = ("ax_dns_queries_total", (("protocol", "udp"), ("qtype", "A"),
                                      ("rcode", "NOERROR")))
    tcp_a = ("ax_dns_queries_total", (("protocol", "tcp"), ("qtype", "A"),
                                      ("rcode", "NOERROR")))
    ecs = ("ax_dns_ecs_queries_total", (("protocol", "udp"),))
    before = openmetrics_samples(ax)
    for _ in range(4):
        assert addresses(ask(make_query("www.example.test", ecs=SOUTH), ax.port)) \
            == {"192.0.2.10"}
    ask(make_query("www.example.test", ecs=SOUTH), ax.port, tcp=True)
    after = openmetrics_samples(ax)
    assert after[answers] - before.get(answers, 0) == 5
    assert after[gz01] - before.get(gz01, 0) == 5
    assert after[udp_a] - before.get(udp_a, 0) == 4
    assert after[tcp_a] - before.get(tcp_a, 0) == 1
    assert after[ecs] - before.get(ecs, 0) == 4
    assert after[("ax_dns_geo_lookup_failures_total", ())] == 0
    assert after[("ax_dns_snapshot_version", ())] >= 1
    assert after[("ax_dns_request_duration_seconds_count", ())] >= 1


def explain(ax, query: str) -> dict:
    status, body = ax.http_get(f"/v1/explain?{query}")
    assert status == 200, body
    return json.loads(body)


def test_explain_ecs_and_rule(ax):
    doc = explain(ax, f"name=www.example.test&client=127.0.0.1&ecs=113.108.1.77/32")
    assert doc["geo"]["country"] == "CN"
    assert doc["geo"]["subdivision"] == "CN-GD"
    assert doc["geo"]["asn"] == 4134
    assert doc["ecs"] == {"subnet": "113.108.1.77/32", "sourcePrefix": 32,
                          "usedPrefix": 24, "used": True}
    assert doc["query"]["client"] == "113.108.1.0"
    assert doc["classification"]["region"] == "cn-south-telecom"
    assert doc["route"]["rules"] == ["www-exclude-gz-02"]
    assert doc["pick"] == ["gz-01"]
    # The DNS answer for the same subnet agrees with the explanation.
    assert addresses(ask(make_query("www.example.test", ecs=SOUTH), ax.port)) \
        == set(doc["addresses"])


def test_explain_canary_and_fallback_region(ax):
    doc = explain(ax, f"name=api.example.test&client=127.0.0.1&ecs={US}")
    assert doc["classification"]["region"] == "us-west"
    assert doc["route"]["canary"]["name"] == "api-sj-02"
    assert doc["route"]["canary"]["percent"] == 5
    assert isinstance(doc["route"]["canary"]["inCohort"], bool)
    # Loopback is in no database: the catch-all region borrows us-west.
    doc = explain(ax, "name=www.example.test&client=127.0.0.1")
    assert doc["classification"]["region"] == "global"
    assert doc["route"]["source"] == "FallbackRegion"
    assert doc["route"]["via"] == "us-west"


def test_explain_errors(ax):
    assert ax.http_get("/v1/explain?name=www.example.test")[0] == 400
    assert ax.http_get("/v1/explain?name=nope.example.test&client=1.2.3.4")[0] == 404


def test_redirector_behind_a_trusted_proxy(ax):
    base = f"http://{ax.redirect}"
    status, headers, _ = get(f"{base}/app/index.html?lang=en",
                             {"Host": "www.example.test", "X-Forwarded-For": "8.8.8.8"})
    assert status == 302
    assert headers["Location"] == "https://sj-01.edge.example.test/app/index.html?lang=en"
    assert headers["Cache-Control"] == "no-store"
    status, headers, body = get(f"{base}/x", {"Host": "www.example.test",
                                              "X-Forwarded-For": "8.8.8.8"}, "HEAD")
    assert (status, body) == (302, b"")
    # Guangdong telecom gets gz-01, which has no redirectURL.
    status, _, body = get(f"{base}/", {"Host": "www.example.test",
                                       "X-Forwarded-For": "113.108.1.1"})
    assert status == 503
    assert json.loads(body)["error"] == "none of the chosen nodes (gz-01) has a redirectURL"
    status, _, _ = get(f"{base}/", {"Host": "elsewhere.test"})
    assert status == 404


def test_decision_log_lines(ax):
    ask(make_query("www.example.test", ecs=SOUTH), ax.port)

    def south_decision() -> dict | None:
        text = ax.decisions.read_text() if ax.decisions.exists() else ""
        lines = [json.loads(line) for line in text.splitlines()]
        return next((line for line in lines if line.get("ecs") == SOUTH), None)

    line = wait_for(f"a decision line for {SOUTH}", south_decision, 5, 0.1)
    assert line["msg"] == "decision"
    assert line["client"] == "127.0.0.1"
    assert line["qname"] == "www.example.test"
    assert line["qtype"] == "A"
    assert (line["region"], line["area"], line["isp"]) == \
        ("cn-south-telecom", "cn-south", "telecom")
    assert line["source"] == "Region"
    assert [c["node"] for c in line["candidates"]] == ["gz-01"]
    assert all(isinstance(c["weight"], (int, float)) for c in line["candidates"])
    assert line["chosen"] == ["gz-01"]
    assert (line["ttl"], line["ttlReason"]) == (300, "steady")
    assert "www-exclude-gz-02" in line["reason"]
