"""Anycast and unicast together (issue 19), on a real ax-dns --standalone probing real
health endpoints.

Three anycast PoPs are Nodes whose addresses are anycast addresses: pop-a and pop-b
announce 203.0.113.1, pop-c 203.0.113.2; each is probed at its own health endpoint (its
unicast address). Two unicast nodes serve the Regions home (198.51.100.0/24) and away
(192.0.2.0/24). Clients are told apart by ECS, so no geo data is needed.

- Policy Default with unicastRegions [home]: home's clients get their unicast node;
  everyone else (away, unmatched) the PoPs' addresses, each once. A PoP down removes
  its address only where no other PoP announces it; every PoP down, the unicast chain
  answers. Explain names the route source.
- Policy Fallback (the manifest edited): unicast for everyone; with every unicast node
  down the PoPs answer (AnycastFallback) instead of the domain's CNAME.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from axharness import addresses, ask, make_query
from healthendpoint import HealthEndpoint, cidr_region, probed_node, probing_ax_dns
from waiting import wait_for

NAME = "www.example.test"
HOME, AWAY, UNMATCHED = "198.51.100.0/24", "192.0.2.0/24", "10.9.9.0/24"
POPS = {"pop-a": "203.0.113.1", "pop-b": "203.0.113.1", "pop-c": "203.0.113.2"}
UNICAST = {"u-home": "192.0.2.10", "u-away": "192.0.2.20"}
BOTH = {"203.0.113.1", "203.0.113.2"}


def world(endpoints: dict[str, HealthEndpoint], policy: str) -> list[dict]:
    nodes = []
    for name, address in {**UNICAST, **POPS}.items():
        node = probed_node(name, address, endpoints[name].port)
        if name in POPS:
            node["metadata"]["labels"] = {"pop": "anycast"}
        nodes.append(node)
    anycast = {"nodeSelector": {"matchLabels": {"pop": "anycast"}}, "policy": policy}
    if policy == "Default":
        anycast["unicastRegions"] = ["home"]
    return [*nodes,
            cidr_region("home", HOME, ["u-home"], []),
            cidr_region("away", AWAY, ["u-away"], []),
            {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "Domain",
             "metadata": {"name": "www"},
             "spec": {"fqdn": NAME, "zone": "example.test", "maxAnswers": 4,
                      "ttl": {"steady": 5, "failover": 1},
                      "fallback": {"cname": "origin.example.net"},
                      "anycast": anycast}}]


def answer(ax, ecs: str) -> set[str]:
    return addresses(ask(make_query(NAME, "A", ecs=ecs), ax.port, timeout=1.0))


def explain_source(ax, client: str) -> str:
    with urllib.request.urlopen(
            f"http://{ax.api}/v1/explain?name={NAME}&client={client}", timeout=5) as r:
        return json.loads(r.read())["route"]["source"]


def eventually(ax, ecs: str, want: set[str], what: str) -> None:
    wait_for(what, lambda: answer(ax, ecs) == want, 10,
             context=lambda: f"last answer {answer(ax, ecs)}")


@pytest.fixture
def endpoints():
    return {name: HealthEndpoint() for name in {**UNICAST, **POPS}}


def test_default_policy_anycast_outside_the_unicast_regions(tmp_path: Path, endpoints):
    with probing_ax_dns(tmp_path, world(endpoints, "Default"), endpoints) as ax:
        eventually(ax, HOME, {UNICAST["u-home"]}, "home answered unicast")
        for ecs in (AWAY, UNMATCHED):
            eventually(ax, ecs, BOTH, f"{ecs} answered by the PoPs, each address once")
        assert explain_source(ax, "192.0.2.7") == "Anycast"
        assert explain_source(ax, "198.51.100.7") == "Region"
        msg = ask(make_query(NAME, "A", ecs=AWAY), ax.port, timeout=1.0)
        records = [r for rrset in msg.answer for r in rrset]
        assert sorted(r.address for r in records) == sorted(BOTH), records

        # pop-c alone announces .2: down, .2 leaves; pop-a down: .1 stays (pop-b).
        endpoints["pop-c"].status = 503
        eventually(ax, AWAY, {"203.0.113.1"}, "pop-c's address gone")
        endpoints["pop-a"].status = 503
        eventually(ax, AWAY, {"203.0.113.1"}, "pop-b still announcing .1")
        assert answer(ax, HOME) == {UNICAST["u-home"]}
        # Every PoP down: the unicast chain (away's node; unmatched: all healthy).
        endpoints["pop-b"].status = 503
        eventually(ax, AWAY, {UNICAST["u-away"]}, "away back on unicast")
        eventually(ax, UNMATCHED, set(UNICAST.values()), "unmatched on every unicast node")
        assert explain_source(ax, "192.0.2.7") == "Region"
        # A PoP back: anycast again.
        endpoints["pop-c"].status = 200
        eventually(ax, AWAY, {"203.0.113.2"}, "pop-c back")


def test_fallback_policy_anycast_instead_of_the_cname(tmp_path: Path, endpoints):
    with probing_ax_dns(tmp_path, world(endpoints, "Fallback"), endpoints) as ax:
        eventually(ax, AWAY, {UNICAST["u-away"]}, "away answered unicast")
        eventually(ax, HOME, {UNICAST["u-home"]}, "home answered unicast")
        for name in UNICAST:
            endpoints[name].status = 503
        for ecs in (HOME, AWAY):
            eventually(ax, ecs, BOTH, f"{ecs} answered by the PoPs")
        assert explain_source(ax, "192.0.2.7") == "AnycastFallback"
        # No PoP either: the domain's CNAME.
        for name in POPS:
            endpoints[name].status = 503

        def cname() -> bool:
            msg = ask(make_query(NAME, "A", ecs=AWAY), ax.port, timeout=1.0)
            return any(rrset.rdtype == 5 for rrset in msg.answer)  # CNAME
        wait_for("the domain's CNAME", cname, 10)
