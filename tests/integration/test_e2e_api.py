"""The whole chain on a real control plane (kubecp.py, fixture `kube`), issue 6: kubectl ->
ax-operator -> route-table ConfigMap -> ax-dns --snapshot-configmap -> DNS answers, and
backend -> ax-probe --report-api -> ProbeReport -> ax-operator -> ... -> answers.

The chain (chainharness.py): the CRDs and deploy/rbac applied; ax-operator on the
ax-operator account's token; ax-dns and its ax-probe sidecar sharing the ax-dns
account's token, their Pod a real object, so the ProbeReport's ownerReference names a
real uid; the manifests a copy of examples/quickstart whose health checks probe
scripts/demo_backends.py on free loopback ports. Clients are dnspython (and dig once)
with ECS subnets of three areas: Guangdong/China Telecom, Beijing/China Unicom, the US.

The tests run in file order on one chain: the quickstart applied -> answers by area;
a Node, a Rule and a Canary edited with kubectl -> answers change; a backend stopped ->
its node leaves the answers; the apiserver stopped for 30 s -> ax-dns answers from the
last snapshot throughout; back -> a health change made during the outage and a new edit
both reach the answers (probe, operator and ax-dns all recovered). Time bounds are
generous: they check behaviour, not speed (tests/bench/api_latency measures that).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import time
from collections import Counter

import dns.rdatatype
import pytest

from axharness import HarnessError, ask, built_binary, make_query
from chainharness import (BJ, BJ_01, GZ, GZ_01, GZ_02, POD, QUICKSTART_WWW, SJ_02, US,
                          US_SUBNETS, Chain)
from operatorharness import NS, route_table
from waiting import wait_for

OUTAGE_S = 30.0
CHANGE_S = 10.0  # a kubectl edit -> the answers (typically well under 1 s)
# After an outage each informer reconnects on its own backoff, which at its cap waits
# 24-36 s (kube/include/ax/kube/backoff.h): the operator's Rule watch may come back a
# full cap after the ProbeReport watch did.
RECONNECT_S = 36.0


@pytest.fixture(scope="module")
def chain(kube, tmp_path_factory):
    try:
        c = Chain(kube, tmp_path_factory.mktemp("e2e"))
    except HarnessError as e:
        pytest.fail(str(e))
    yield c
    c.stop()
    for proc, name in ((c.operator.proc, "ax-operator"), (c.dns.proc, "ax-dns"),
                       (c.probe.proc, "ax-probe")):
        assert proc.returncode == 0, f"{name} exited with {proc.returncode}"


def test_quickstart_answers_by_area(chain):
    kube = chain.kube
    applied = chain.apply_quickstart()
    assert "node.gslb.ax.io/gz-01 created" in applied, applied
    wait_for("the route-table ConfigMap", lambda: route_table(kube), 20)
    # Every node probed Up by the sidecar, decided Up by the operator.
    wait_for("every Node Up", lambda: set(chain.node_health().values()) == {"Up"}, 30, 0.2)
    for ecs, want in QUICKSTART_WWW.items():
        chain.wait_www(ecs, want, CHANGE_S, "the quickstart")
    assert chain.dns.http_get("/readyz")[0] == 200
    # A real resolver tool sees the same.
    dig = subprocess.run([shutil.which("dig"), "@127.0.0.1", "-p", str(chain.dns.port),
                          "www.example.test", f"+subnet={BJ}", "+short"],
                         capture_output=True, text=True, timeout=10, check=True)
    assert dig.stdout.split() == [BJ_01], dig.stdout
    report = json.loads(kube.kubectl("get", "probereport", POD, "-n", NS,
                                     "-o", "json").stdout)
    assert report["metadata"]["ownerReferences"][0]["uid"] == chain.pod_uid
    assert {r["node"] for r in report["spec"]["results"]} == {
        "gz-01", "gz-02", "bj-01", "bj-02", "sj-01", "sj-02"}


def test_node_edit(chain):
    chain.edit("axnode", "bj-01", {"spec": {"adminState": "Disabled"}})
    wait_for("bj-01 out of the answers", lambda: BJ_01 not in chain.www(BJ), CHANGE_S, 0.02)
    # bj-02 drains: Beijing borrows from its fallback region, cn-south-telecom, both
    # nodes (the Rule excluding gz-02 there is for telecom clients).
    assert chain.www(BJ) == {GZ_01, GZ_02}
    chain.edit("axnode", "bj-01", {"spec": {"adminState": "Active"}})
    chain.wait_www(BJ, {BJ_01}, CHANGE_S, "bj-01 Active again")


def test_rule_edit(chain):
    chain.edit("axrule", "www-exclude-gz-02", {"spec": {"node": "gz-01"}})
    chain.wait_www(GZ, {GZ_02}, CHANGE_S, "the Rule excluding gz-01 instead")
    chain.edit("axrule", "www-exclude-gz-02", {"spec": {"node": "gz-02"}})
    chain.wait_www(GZ, {GZ_01}, CHANGE_S, "the Rule excluding gz-02 again")


def api_with_sj_02(chain) -> list[str]:
    """The US subnets whose api answer includes the canary node sj-02."""
    return [s for s in US_SUBNETS if SJ_02 in chain.ask("api.example.test", s)]


def test_canary_edit(chain):
    # The quickstart's canary holds its first step, 5%: few US subnets get sj-02.
    canary = json.loads(chain.kube.kubectl("get", "canary", "api-sj-02", "-n", NS,
                                           "-o", "json").stdout)
    assert (canary["status"]["phase"], canary["status"]["percent"]) == ("Progressing", 5)
    before = api_with_sj_02(chain)
    assert len(before) < len(US_SUBNETS), before
    # One step of 100%: every US client's api answer leads with sj-02.
    chain.edit("canary", "api-sj-02", {"spec": {"steps": [{"percent": 100}]}})
    wait_for("the canary at 100%", lambda: api_with_sj_02(chain) == US_SUBNETS, CHANGE_S, 0.02)
    status = json.loads(chain.kube.kubectl("get", "canary", "api-sj-02", "-n", NS,
                                           "-o", "json").stdout)["status"]
    assert (status["phase"], status["percent"]) == ("Succeeded", 100), status
    # Not in the canary's regions: Beijing's api answer is unchanged.
    assert SJ_02 not in chain.ask("api.example.test", BJ)


def axctl_json(chain, *args: str) -> dict:
    axctl = built_binary("AX_AXCTL_BIN", "dns-server/axctl")
    r = subprocess.run([str(axctl), *args, "--kubeconfig", str(chain.kube.kubeconfig),
                        "-n", NS, "-o", "json"], capture_output=True, text=True,
                       timeout=60, check=True)
    return json.loads(r.stdout)


# Clients whose answers `axctl simulate` predicts: one per quickstart area, and one
# (London) that only the default Region "global" claims.
SAMPLED = (GZ, BJ, US, "81.2.69.0/24")
SHARE_QUERIES = 300


def node_by_address(chain) -> dict[str, str]:
    items = json.loads(chain.kube.kubectl("get", "axnode", "-n", NS, "-o", "json").stdout)
    return {a: n["metadata"]["name"] for n in items["items"] for a in n["spec"]["addresses"]}


def served_shares(chain, fqdn: str, ecs: str, by_address: dict[str, str]) -> dict[str, float]:
    """Share of SHARE_QUERIES answers that each node's address leads (the address a
    client uses first), by node name."""
    lead = Counter()
    for _ in range(SHARE_QUERIES):
        reply = ask(make_query(fqdn, "A", ecs=ecs), chain.dns.port, timeout=2.0)
        a = next((r.address for rrset in reply.answer if rrset.rdtype == dns.rdatatype.A
                  for r in rrset), None)
        lead[by_address.get(a, a or "(none)")] += 1
    return {n: c / SHARE_QUERIES for n, c in lead.items()}


def region_of(chain, fqdn: str, ecs: str) -> str:
    status, body = chain.dns.http_get(f"/v1/explain?name={fqdn}&client=192.0.2.1&ecs={ecs}")
    assert status == 200, body
    return json.loads(body)["classification"].get("region", "(unclassified)")


def assert_predicted(chain, model: dict, side: str) -> None:
    """Every sampled (Domain, Region): the shares ax-dns serves now are the model's
    `side` shares within sampling error (4 standard deviations of SHARE_QUERIES
    answers, plus 2 points for the model's own estimate)."""
    domains = {"www.example.test": "www", "api.example.test": "api"}
    by_address = node_by_address(chain)
    for fqdn, domain in domains.items():
        for ecs in SAMPLED:
            region = region_of(chain, fqdn, ecs)
            row = next(r for r in model["regions"]
                       if r["domain"] == domain and r["region"] == region)
            want = {n: v[side] for n, v in row["nodes"].items()}
            got = served_shares(chain, fqdn, ecs, by_address)
            for node in set(want) | set(got):
                p, q = want.get(node, 0.0), got.get(node, 0.0)
                bound = 4 * math.sqrt(p * (1 - p) / SHARE_QUERIES) + 0.02
                assert abs(p - q) <= bound, (
                    f"{domain} {region} ({ecs}) {side}: {node} served {q:.3f}, "
                    f"predicted {p:.3f} (+-{bound:.3f}); predicted {want}, served {got}")


def test_backend_down_leaves_the_answers(chain):
    """backend -> ax-probe -> ProbeReport -> ax-operator -> ConfigMap -> ax-dns; and
    `axctl simulate --down gz-01`, run before, predicted the shares served after."""
    gz = chain.quickstart.backends["gz-01"]
    model = axctl_json(chain, "simulate", "--down", "gz-01", "--clients", "4000")
    assert model["whatIf"] == ["gz-01 Down"]
    changed = {(r["domain"], r["region"]) for r in model["regions"] if r["changed"]}
    assert {("www", "cn-south-telecom"), ("api", "cn-south-telecom")} <= changed, changed
    assert ("www", "us-west") not in changed
    assert_predicted(chain, model, "before")  # the served table, replayed
    chain.quickstart.demo.stop_node("gz-01")
    # failureThreshold probes of a jittered interval, then one pass of each part.
    took = chain.wait_www(GZ, {BJ_01}, gz.interval_s * gz.failure_threshold * 1.1 + CHANGE_S,
                          "gz-01 down: the region's fallback cn-north-unicom")
    print(f"\ngz-01's endpoint stopped -> out of the DNS answers in {took:.1f} s "
          f"(interval {gz.interval_s:g} s, failureThreshold {gz.failure_threshold})")
    report = json.loads(chain.kube.kubectl("get", "probereport", POD, "-n", NS,
                                           "-o", "json").stdout)
    assert {r["node"]: r["health"] for r in report["spec"]["results"]}["gz-01"] == "Down"
    assert chain.node_health()["gz-01"] == "Down"
    assert chain.www(US) == QUICKSTART_WWW[US]  # the others untouched
    assert_predicted(chain, model, "after")


def test_axctl_status_shows_each_replica(chain):
    """ax-dns -> its sidecar's ProbeReport (spec.served) -> axctl status."""
    axctl = built_binary("AX_AXCTL_BIN", "dns-server/axctl")

    def status() -> dict:
        r = subprocess.run([str(axctl), "status", "--kubeconfig", str(chain.kube.kubeconfig),
                            "-n", NS, "-o", "json"], capture_output=True, text=True,
                           timeout=60, check=True)
        return json.loads(r.stdout)

    def caught_up():
        s = status()
        mine = [r for r in s["replicas"] if r["vantage"] == POD]
        return s if mine and mine[0].get("servedVersion") == s["routeTable"][
            "version"] else None

    s = wait_for("the sidecar's report naming the served version", caught_up, 30)
    replica = next(r for r in s["replicas"] if r["vantage"] == POD)
    assert replica["behind"] is False and replica["reportedSecondsAgo"] <= 10
    assert next(n for n in s["nodes"] if n["name"] == "gz-01")["health"] == "Down"
    text = subprocess.run([str(axctl), "status", "--kubeconfig", str(chain.kube.kubeconfig),
                           "-n", NS], capture_output=True, text=True, timeout=60,
                          check=True).stdout
    # The table may move on between the two calls (a canary stepping): the text
    # shows this version or a later one, and the replica serving one in between.
    version = s["routeTable"]["version"]
    m = re.match(r"route table ax-route-table: version (\d+)", text)
    assert m and int(m[1]) >= version, text
    served = [int(line.split()[1]) for line in text.splitlines()
              if line.split()[:1] == [POD]]
    assert served and version <= served[0] <= int(m[1]), text


def probe_api_errors(chain) -> float:
    status, _, body = chain.probe.get("/metrics")
    assert status == 200
    for line in body.splitlines():
        if line.startswith("ax_probe_report_writes_total{") and \
                'destination="api"' in line and 'result="error"' in line:
            return float(line.split()[-1])
    return 0.0


@pytest.mark.timeout(420)  # an apiserver start-up on a busy machine, lease re-election
def test_apiserver_outage(chain):
    """30 s without the API: ax-dns answers from its last snapshot throughout. Back:
    gz-01's endpoint, started during the outage, and a new edit reach the answers."""
    areas = [GZ, BJ, US]
    before = {ecs: chain.www(ecs) for ecs in areas}
    assert before[GZ] == {BJ_01}  # gz-01 still down
    errors = probe_api_errors(chain)

    chain.kube.stop_apiserver()
    down_at = time.monotonic()
    queries = 0
    restarted = False
    while time.monotonic() - down_at < OUTAGE_S:
        for ecs in areas:
            assert chain.www(ecs) == before[ecs], f"{time.monotonic() - down_at:.1f} s in"
            queries += 1
        if not restarted and time.monotonic() - down_at > 5:
            chain.quickstart.demo.start_node("gz-01")  # Up while nobody can say so
            restarted = True
        time.sleep(0.2)  # on purpose: query rounds spread over the whole outage
    assert chain.dns.metric("ax_dns_snapshot_source_connected") == 0
    assert chain.dns.http_get("/readyz")[0] == 200
    assert probe_api_errors(chain) > errors, "the sidecar's writes failed meanwhile"
    print(f"\napiserver down {OUTAGE_S:g} s: {queries} queries, every answer the last "
          "snapshot's")

    chain.kube.start_apiserver()
    back_at = time.monotonic()
    # The sidecar's next write carries gz-01 Up; the operator, leading again,
    # publishes it; ax-dns relists.
    took = chain.wait_www(GZ, {GZ_01}, 90, "gz-01 Up after the outage")
    print(f"gz-01 back in the answers {took:.1f} s after the apiserver was")
    chain.edit("axrule", "www-exclude-gz-02", {"spec": {"node": "gz-01"}})
    took = chain.wait_www(GZ, {GZ_02}, RECONNECT_S + CHANGE_S, "an edit after the outage")
    print(f"an edit after the outage answered in {took:.2f} s "
          f"({time.monotonic() - back_at:.1f} s after the apiserver was back)")
    assert chain.dns.metric("ax_dns_snapshot_source_connected") == 1
    assert chain.operator.is_leader()
