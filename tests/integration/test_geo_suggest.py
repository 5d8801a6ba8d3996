"""Corrections from measurement (issue 16), with ax-dns on the real dbip + ASN data:

- a measurement log (JSON lines, plus one node's nginx access log) in which one
  prefix's clients are always fastest on a node of another Region yields exactly that
  GeoOverride proposal from `axctl geo suggest`; the prefixes around it (served well
  where the database puts them, or faster elsewhere by less than the margins) yield none;
- the proposal, approved and dropped into the standalone directory of a running ax-dns,
  changes that prefix's answers over DNS with ECS (scoped to the /24, RFC 7871 §7.2.1)
  and no other client's; the explanation names the override and its evidence;
- the same logs shipped as MeasurementReports (`axctl geo report`, hourly windows)
  yield the same proposal (`axctl geo suggest --reports`);
- a bad log line is refused with its file and line, a bad report by file and field.
"""

from __future__ import annotations

import datetime
import json
import random
import subprocess
import textwrap
import time

import yaml

from axharness import (AxDns, addresses, ask, built_binary, dbip_geo_args, ecs_of, make_query,
                       running, write_one_node_regions)

# One node per Region, its address naming the Region in answers.
REGIONS = {
    "bj-unicom": ("203.0.113.4", {"subdivisions": ["CN-BJ"], "isps": ["unicom"]}),
    "gd-telecom": ("203.0.113.2", {"subdivisions": ["CN-GD"], "isps": ["telecom"]}),
    "rest": ("203.0.113.9", {"default": True}),
}
MOVED = "123.112.0.0/24"  # Beijing Unicom by dbip + ASN (AS4808); measured faster in GD
# Clients whose answers must not change: the moved prefix's neighbours, both
# carriers' resolvers, and a client of the catch-all.
UNMOVED = ["123.112.1.0/24", "123.112.2.0/24", "123.112.3.0/24", "123.113.0.0/24",
           "202.106.0.0/24", "202.96.128.0/24", "113.108.1.0/24", "8.8.8.0/24"]
START = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)


DOMAIN = textwrap.dedent("""\
    apiVersion: gslb.ax.io/v1alpha1
    kind: Domain
    metadata: {name: api}
    spec:
      fqdn: api.example.test
      zone: example.test
      strategy: RegionPriority
      maxAnswers: 1
    """)


def samples(rng: random.Random, prefix24: str, node: str, ms: float, n: int):
    """n timings from clients of prefix24 (a.b.c) to node over one day, +-20%."""
    for _ in range(n):
        at = START + datetime.timedelta(seconds=rng.randrange(86400))
        yield (f"{prefix24}.{rng.randrange(1, 255)}", node, ms * rng.uniform(0.8, 1.2), at)


def write_logs(directory) -> tuple:
    rng = random.Random(16)
    rows = [
        # The moved prefix: three times faster on the GD node, in every window.
        *samples(rng, "123.112.0", "gd-telecom-node", 20, 150),
        *samples(rng, "123.112.0", "bj-unicom-node", 60, 200),
        # Served well where the database puts it.
        *samples(rng, "123.112.1", "gd-telecom-node", 60, 200),
        *samples(rng, "123.112.1", "bj-unicom-node", 20, 200),
        # Faster elsewhere by 10 ms: under the margin.
        *samples(rng, "123.112.2", "gd-telecom-node", 50, 200),
        *samples(rng, "123.112.2", "bj-unicom-node", 60, 200),
        # Faster elsewhere, but only 10 samples say so.
        *samples(rng, "123.112.3", "gd-telecom-node", 20, 10),
        *samples(rng, "123.112.3", "bj-unicom-node", 60, 200),
    ]
    jsonl = directory / "measurements.jsonl"
    with jsonl.open("w") as f:
        for client, node, ms, at in rows:
            f.write(json.dumps({"client": client, "node": node, "ttfbMs": round(ms, 2),
                                "time": at.strftime("%Y-%m-%dT%H:%M:%SZ")}) + "\n")
    # More of the GD node's timings for the moved prefix, from its nginx access log.
    access = directory / "gd-access.log"
    with access.open("w") as f:
        for client, _, ms, at in samples(rng, "123.112.0", "gd-telecom-node", 20, 50):
            stamp = at.astimezone(datetime.timezone(datetime.timedelta(hours=8)))
            f.write(f'{client} - - [{stamp.strftime("%d/%b/%Y:%H:%M:%S %z")}] '
                    f'"GET /v1/items HTTP/1.1" 200 512 "-" "app/1.0" {ms / 1000:.3f}\n')
    return jsonl, access


def axctl(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run([str(built_binary("AX_AXCTL_BIN", "dns-server/axctl")), *args],
                       capture_output=True, text=True, check=False, timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def suggest(manifests, *log_args: str, check: bool = True) -> subprocess.CompletedProcess:
    return axctl("geo", "suggest", str(manifests), *log_args, *dbip_geo_args(),
                 "--now", "2026-12-02T00:00:00Z", check=check)


def ship(directory, jsonl, access) -> list[dict]:
    """The logs as their shippers would send them: `axctl geo report` per source, in
    hourly windows, into directory/<source>.yaml; returns every report."""
    directory.mkdir(exist_ok=True)
    reports = []
    for name, flags in (("central", ["--measurements", str(jsonl)]),
                        ("gd-telecom-node", ["--access-log", f"gd-telecom-node={access}"])):
        r = axctl("geo", "report", "--name", name, "--source", f"{name} log", *flags)
        (directory / f"{name}.yaml").write_text(r.stdout)
        reports += [d for d in yaml.safe_load_all(r.stdout) if d]
    return reports


def write_world(tmp_path):
    """tmp_path/manifests with the Domain and the one-node Regions; returns it."""
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    write_one_node_regions(manifests, DOMAIN, REGIONS)
    return manifests


def answer(server: AxDns, subnet: str) -> tuple[str, int]:
    reply = ask(make_query("api.example.test", ecs=subnet), server.port)
    by_address = {address: name for name, (address, _) in REGIONS.items()}
    return by_address.get(next(iter(addresses(reply)), ""), "?"), ecs_of(reply).scopelen


def test_suggest_then_apply_moves_only_that_prefix(tmp_path):
    manifests = write_world(tmp_path)
    jsonl, access = write_logs(tmp_path)

    r = suggest(manifests, "--measurements", str(jsonl),
                "--access-log", f"gd-telecom-node={access}")
    proposals = [d for d in yaml.safe_load_all(r.stdout) if d]
    assert len(proposals) == 1, r.stdout + r.stderr
    [proposal] = proposals
    assert proposal["kind"] == "GeoOverride"
    assert proposal["metadata"]["name"] == "geo-123-112-0-0-24"
    spec = proposal["spec"]
    assert (spec["cidrs"], spec["region"], spec["approved"]) == (
        [MOVED], "gd-telecom", False)
    assert spec["expiresAt"] == "2026-12-16T00:00:00Z"
    evidence = spec["evidence"]
    assert evidence["samples"] == 400  # 350 JSON lines + 50 access-log lines
    assert (evidence["bestNode"], evidence["databaseRegion"], evidence["databaseNode"]) == (
        "gd-telecom-node", "bj-unicom", "bj-unicom-node")
    assert 18 <= evidence["bestMs"] <= 22 and 54 <= evidence["databaseMs"] <= 66
    # The report says why the others got none.
    report = r.stderr
    assert "123.112.1.0/24  400 samples  agrees" in report, report
    assert "123.112.2.0/24  400 samples  small-margin" in report, report
    assert "123.112.3.0/24  210 samples  agrees" in report, report

    server = AxDns(manifest_dir=manifests, workdir=tmp_path / "ax-dns")
    with running(server.start):
        before = {s: answer(server, s) for s in [MOVED, *UNMOVED]}
        assert before[MOVED][0] == "bj-unicom", before

        # Reviewed and approved: into the directory ax-dns serves from.
        spec["approved"] = True
        (manifests / "overrides.yaml").write_text(yaml.safe_dump(proposal))
        deadline = time.monotonic() + 15
        while answer(server, MOVED)[0] != "gd-telecom" and time.monotonic() < deadline:
            time.sleep(0.2)
        after = {s: answer(server, s) for s in [MOVED, *UNMOVED]}
        assert after[MOVED] == ("gd-telecom", 24)
        for subnet in UNMOVED:
            assert after[subnet][0] == before[subnet][0], subnet
        # The neighbour's answer used to hold for a wide block around it; now
        # no longer than its /24, which excludes the override's.
        assert before["123.112.1.0/24"][1] < 24
        assert after["123.112.1.0/24"][1] == 24

        status, body = server.http_get(
            "/v1/explain?name=api.example.test&client=192.0.2.1&ecs=123.112.0.0/24")
        assert status == 200
        classification = json.loads(body)["classification"]
        assert classification["step"] == "override"
        override = classification["override"]
        assert override["name"] == "geo-123-112-0-0-24"
        assert override["databaseRegion"] == "bj-unicom"
        assert override["evidence"]["bestNode"] == "gd-telecom-node"
    server.check_clean_exit()


def test_shipped_reports_yield_the_same_proposal(tmp_path):
    manifests = write_world(tmp_path)
    jsonl, access = write_logs(tmp_path)
    raw = suggest(manifests, "--measurements", str(jsonl),
                  "--access-log", f"gd-telecom-node={access}")

    reports = ship(tmp_path / "reports", jsonl, access)
    # A day of samples in hourly windows, named by the hour: 24 of the central log,
    # one per hour the access log's 50 lines fall in.
    names = [r["metadata"]["name"] for r in reports]
    assert len(set(names)) == len(names)
    assert sum(n.startswith("central-") for n in names) == 24, names
    assert 10 < sum(n.startswith("gd-telecom-node-") for n in names) <= 24, names
    first = reports[0]
    assert first["kind"] == "MeasurementReport"
    assert first["metadata"]["name"] == "central-20261201t0000"
    assert (first["spec"]["from"], first["spec"]["to"]) == (
        "2026-12-01T00:00:00.000Z", "2026-12-01T00:59:59.000Z")
    shipped = suggest(manifests, "--reports", str(tmp_path / "reports"))
    [proposal] = [d for d in yaml.safe_load_all(shipped.stdout) if d]
    [expected] = [d for d in yaml.safe_load_all(raw.stdout) if d]
    # The same histograms, so the same medians and reason; the evidence's time span
    # is the reports' windows (whole hours) rather than the first and last sample.
    assert proposal["spec"]["evidence"].pop("to") == "2026-12-01T23:59:59Z"
    assert expected["spec"]["evidence"].pop("to") != "2026-12-01T23:59:59Z"
    assert proposal["spec"]["evidence"].pop("from") == "2026-12-01T00:00:00Z"
    expected["spec"]["evidence"].pop("from")
    assert proposal == expected
    assert proposal["metadata"]["name"] == "geo-123-112-0-0-24"
    assert "4 of 4 time windows" in proposal["spec"]["reason"]
    assert f"1 proposals from 0 samples and {len(reports)} reports of 4 prefixes" in (
        shipped.stderr)

    # A report that is not one is refused by file and field.
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "r.yaml").write_text(
        (tmp_path / "reports" / "central.yaml").read_text().replace(
            'prefix: "123.112.0.0/24"', 'prefix: "123.112.0.9/24"', 1))
    r = suggest(manifests, "--reports", str(bad), check=False)
    assert r.returncode == 1
    assert "MeasurementReport/central-20261201t0000: spec.prefixes[0].prefix" in r.stderr, (
        r.stderr)


def test_suggest_refuses_a_bad_line_by_file_and_line(tmp_path):
    manifests = write_world(tmp_path)
    log = tmp_path / "m.jsonl"
    log.write_text(
        '{"client": "123.112.0.1", "node": "gd-telecom-node", "ttfbMs": 20, "time": 1}\n'
        "\n"
        '{"client": "123.112.0.1", "node": "gd-telecom-node", "ttfbMs": -3, "time": 1}\n'
        '{"client": "not-an-ip", "node": "gd-telecom-node", "ttfbMs": 3, "time": 1}\n')
    r = suggest(manifests, "--measurements", str(log), check=False)
    assert r.returncode == 1
    assert f"{log}:3: ttfbMs: must be a number of ms >= 0" in r.stderr, r.stderr
    assert f"{log}:4: client: must be an IP address" in r.stderr, r.stderr
    assert "2 bad lines" in r.stderr
    r = suggest(manifests, "--measurements", str(log), "--skip-bad-lines")
    assert "0 proposals from 1 samples and 0 reports of 1 prefixes" in r.stderr
