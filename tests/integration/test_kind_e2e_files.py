"""tests/e2e/kind without a Docker engine: the scripts pass bash -n and shellcheck, the
kind config maps one host port to the ax-dns node port over UDP and TCP, the demo
backends stand in for every quickstart health check on its port, the probing is the
chart's sidecars' (no probe of the e2e's own), the Helm values run.sh sets exist in the
chart, and the workflow pins the versions the README names."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from axharness import REPO
from waiting import wait_for

KIND = REPO / "tests" / "e2e" / "kind"
SCRIPTS = sorted(KIND.glob("*.sh"))


def shellcheck(*paths: Path) -> subprocess.CompletedProcess:
    tool = shutil.which("shellcheck")
    if tool is None:
        pytest.fail("shellcheck not installed: run scripts/setup.sh")
    return subprocess.run([tool, "--shell=bash", "--format=gcc", *map(str, paths)],
                          capture_output=True, text=True, check=False)


def test_scripts_pass_bash_n_and_shellcheck():
    assert [p.name for p in SCRIPTS] == ["run.sh"]
    for script in SCRIPTS:
        r = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert script.stat().st_mode & 0o111, f"{script.name} is not executable"
    r = shellcheck(*SCRIPTS)
    assert r.returncode == 0, r.stdout + r.stderr


def test_shellcheck_catches_a_mistake(tmp_path):
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/usr/bin/env bash\nfor f in $(ls *.yaml); do cat $f; done\n")
    r = shellcheck(bad)
    assert r.returncode != 0 and "SC2045" in r.stdout and "SC2086" in r.stdout, r.stdout


def port_mappings() -> list[dict]:
    config = yaml.safe_load((KIND / "kind-config.yaml").read_text())
    assert config["kind"] == "Cluster"
    assert config["apiVersion"] == "kind.x-k8s.io/v1alpha4"
    return [m for node in config["nodes"] for m in node.get("extraPortMappings", [])]


def test_kind_config_maps_dns_over_udp_and_tcp():
    mappings = port_mappings()
    assert {m["protocol"] for m in mappings} == {"UDP", "TCP"}
    # run.sh takes the first hostPort and containerPort: all must agree.
    assert len({m["hostPort"] for m in mappings}) == 1
    assert len({m["containerPort"] for m in mappings}) == 1
    node_port = mappings[0]["containerPort"]
    assert 30000 <= node_port <= 32767, "the chart's dns.service.nodePort must be in range"
    assert all(m.get("listenAddress") == "127.0.0.1" for m in mappings)
    # run.sh's own lines that read the ports.
    lines = [ln for ln in (KIND / "run.sh").read_text().splitlines()
             if ln.startswith(("DNS_PORT=", "NODE_PORT="))]
    assert len(lines) == 2
    script = f"here={KIND}\n" + "\n".join(lines) + '\necho "$DNS_PORT $NODE_PORT"'
    got = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    assert got.stdout.split() == [str(mappings[0]["hostPort"]), str(node_port)]
    run = (KIND / "run.sh").read_text()
    assert 'dns.service.nodePort.udp="$NODE_PORT"' in run
    assert 'dns.service.nodePort.tcp="$NODE_PORT"' in run
    assert "dns.service.type=NodePort" in run


def quickstart_nodes() -> dict[str, dict]:
    docs = yaml.safe_load_all((REPO / "examples" / "quickstart" / "nodes.yaml").read_text())
    return {d["metadata"]["name"]: d["spec"] for d in docs if d and d["kind"] == "Node"}


def demo_objects() -> dict[tuple[str, str], dict]:
    docs = yaml.safe_load_all((KIND / "demo.yaml").read_text())
    return {(d["kind"], d["metadata"]["name"]): d for d in docs if d}


def test_demo_backends_cover_every_quickstart_health_check():
    objects = demo_objects()
    container = objects[("Deployment", "ax-demo-backends")]["spec"]["template"]["spec"][
        "containers"][0]
    backends = {}
    for arg in container["args"]:
        m = re.fullmatch(r"([\w-]+)=(http|https|tcp):(\d+)", str(arg))
        if m:
            backends[m.group(1)] = (m.group(2), int(m.group(3)))
    service_ports = {p["port"] for p in objects[("Service", "ax-demo-backends")]["spec"]["ports"]}
    run = (KIND / "run.sh").read_text()
    nodes = quickstart_nodes()
    assert len(nodes) == 6
    for name, spec in nodes.items():
        check = spec["healthCheck"]
        proto, port = backends[name]
        assert port == check["port"] and port in service_ports, name
        # TCP checks get a TCP backend; HTTPS ones are patched to HTTP by run.sh.
        want = {"TCP": "tcp", "HTTP": "http", "HTTPS": "http"}[check["protocol"]]
        assert proto == want, name
        assert name in run, f"run.sh does not patch or check {name}"
    https = sorted(n for n, s in nodes.items() if s["healthCheck"]["protocol"] == "HTTPS")
    assert https == ["bj-01", "bj-02"] and '"$n" == bj-0*' in run
    assert 18000 in service_ports and "--control" in container["args"]


def test_demo_backends_bind_where_asked(tmp_path):
    """--bind (the pod's 0.0.0.0): the backends and the control port listen there."""
    import socket
    import urllib.request
    ports = []
    for _ in range(3):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        s.close()
    proc = subprocess.Popen(
        ["python3", str(REPO / "scripts" / "demo_backends.py"), "--bind", "127.0.0.2",
         "--control", str(ports[0]), f"a=http:{ports[1]}", f"b=tcp:{ports[2]}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert "demo backends on 127.0.0.2" in proc.stdout.readline()
        body = wait_for("backend a on 127.0.0.2", lambda: urllib.request.urlopen(
            f"http://127.0.0.2:{ports[1]}/healthz", timeout=1).read(), 5, 0.1,
            retry_on=(OSError,))
        assert b'"node": "a"' in body
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", ports[1]), timeout=1)
        urllib.request.urlopen(f"http://127.0.0.2:{ports[0]}/stop/a", timeout=2).read()
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.2", ports[1]), timeout=1)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_charts_sidecars_probe_no_probe_of_the_e2e_own():
    """The Nodes reach the probe through the API (the chart's --nodes-api sidecar): no
    ax-probe workload, account or Node ConfigMap of the e2e's own."""
    kinds = {kind for kind, _ in demo_objects()}
    assert kinds == {"Deployment", "Service"}
    assert set(demo_objects()) == {("Deployment", "ax-demo-backends"),
                                   ("Service", "ax-demo-backends")}
    run = (KIND / "run.sh").read_text()
    assert "AX_PROBE_IMAGE" not in run and "ax-e2e-nodes" not in run
    assert '"$here/demo.yaml" | kc apply -f -' in run
    args = (REPO / "helm" / "ax" / "templates" / "dns.yaml").read_text()
    assert "- --nodes-api" in args


def test_helm_values_run_sh_sets_exist_in_the_chart():
    values_file = REPO / "helm" / "ax" / "values.yaml"
    values = yaml.safe_load(values_file.read_text())
    run = (KIND / "run.sh").read_text()
    keys = set()
    for key in re.findall(r'--set "?([\w.$]+)=', run):
        # run.sh sets the image keys in a loop over the three parts.
        parts = ("operator", "dns", "probe") if key.startswith("$part.") else (None,)
        keys |= {key.replace("$part", p) if p else key for p in parts}
    assert "dns.service.nodePort.udp" in keys and "probe.image.tag" in keys
    for key in sorted(keys):
        node = values
        for part in key.split("."):
            assert isinstance(node, dict) and part in node, f"{key} not in {values_file}"
            node = node[part]
    for part in ("operator", "dns", "probe"):
        assert values[part]["image"]["repository"] == f"ghcr.io/ax-gslb/ax-{part}"


def test_workflow_pins_the_readme_versions():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "kind-e2e.yaml").read_text())
    env = workflow["env"]
    readme = (KIND / "README.md").read_text()
    for tool, var in (("kind", "KIND_VERSION"), ("kubectl", "KUBECTL_VERSION"),
                      ("helm", "HELM_VERSION")):
        m = re.search(rf"^\| {tool} \| (v[\d.]+)", readme, re.MULTILINE)
        assert m and m.group(1) == env[var], f"{tool}: README {m and m.group(1)}, workflow {env[var]}"
    steps = workflow["jobs"]["kind-e2e"]["steps"]
    assert any(s.get("run") == "tests/e2e/kind/run.sh" for s in steps)
    upload = [s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert upload and upload[0]["if"] == "failure()"
    ci = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yaml").read_text())
    assert any(".ci/run" in str(s.get("run", "")) for s in ci["jobs"]["test"]["steps"])
