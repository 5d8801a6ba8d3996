"""One province served over three carriers, each measured from its own network, on the
local control plane (issue 14): the e2e suite test_isp_paths.py and the ISP-path
failover benchmark (tests/bench/isp_failover) share it.

- Two Nodes, gz-01 (in the province) and bj-01 (far), each with a real HTTP health
  endpoint (probeharness.Backend) behind an address of its own (netpaths.py).
- Three vantage groups, telecom, unicom and mobile, each a network namespace with its
  own veth path to each node; in each, one ax-probe running as a remote vantage
  (`--nodes-api --report-api`, area cn-south, isp = the group) on a TokenRequest token
  of the account the chart declares for it (remoteVantages), under the chart's
  admission policy. Its kubeconfig names 127.0.0.1:<apiserver port>, forwarded into
  the namespace (nsforward.py).
- A toxiproxy in the telecom namespace in front of gz-01 (no toxics until a test adds
  one): the only way to add latency to one group's path here (no netem).
- ax-operator and ax-dns on the API source (chainharness.ApiChain). Regions
  cn-south-<isp> match each carrier's clients by CIDR (so the test does not hinge on the
  geo data's view of a range) and list [gz-01, bj-01]; www answers one address.

Every process is stopped by its PID; the namespaces and addresses are removed."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import yaml

from chainharness import ApiChain
from chart import template
from netpaths import NetPaths
from operatorharness import NS, token_kubeconfig
from probeharness import AxProbe, Backend
from toxiproxy import Toxiproxy

ISPS = ["telecom", "unicom", "mobile"]
NODES = {"gz-01": ("192.0.2.10", "cn-south"), "bj-01": ("198.51.100.20", "cn-north")}
GZ_01, BJ_01 = NODES["gz-01"][0], NODES["bj-01"][0]
AREA = "cn-south"
# Each carrier's clients (ECS subnets inside its Region's CIDR).
CLIENTS = {"telecom": "113.108.1.0/24", "unicom": "58.248.1.0/24", "mobile": "120.196.1.0/24"}
CIDRS = {"telecom": "113.108.0.0/16", "unicom": "58.248.0.0/16", "mobile": "120.196.0.0/16"}
WWW = "www.example.test"
# The health checks: fail 3 at 1 s, back after 2; no flap damping, since a test cuts
# the same path several times in a row.
CHECK = {"protocol": "HTTP", "path": "/healthz", "interval": "1s", "timeout": "500ms",
         "failureThreshold": 3, "successThreshold": 2, "flapDamping": {"enabled": False}}


def vantage(isp: str) -> str:
    return f"gz-{isp}-1"


def group(isp: str) -> str:
    return f"{AREA}-{isp}"


class IspChain(ApiChain):
    def __init__(self, kube, workdir: Path):
        self.net = NetPaths(ISPS, list(NODES))
        self.backends: dict[str, Backend] = {}
        self.toxiproxy: Toxiproxy | None = None
        self.probes: dict[str, AxProbe] = {}
        super().__init__(kube, workdir)  # on failure, stop() undoes the above

    def _start(self, workdir: Path, dns_args: list[str]) -> None:
        super()._start(workdir, dns_args)
        kube = self.kube
        values = workdir / "vantages.yaml"
        values.write_text(yaml.safe_dump({"remoteVantages": [
            {"name": vantage(isp), "area": AREA, "isp": isp} for isp in ISPS]}))
        kube.kubectl("apply", "-f", "-", input=template(
            "-f", str(values), "--show-only", "templates/admission.yaml").stdout)
        self.backends = {n: Backend(host="0.0.0.0") for n in NODES}
        self._start_toxiproxy(workdir)
        port = int(kube.server.rsplit(":", 1)[1])
        for isp in ISPS:
            self.net.forward_in(isp, port)
            config = token_kubeconfig(kube, f"ax-vantage-{vantage(isp)}",
                                      workdir / f"{vantage(isp)}.kubeconfig")
            probe_dir = workdir / vantage(isp)
            probe_dir.mkdir()
            self.probes[isp] = AxProbe(
                None, probe_dir, vantage=vantage(isp), prefix=self.net.command(isp, []),
                extra=["--nodes-api", "--report-api", "--report=", "--kubeconfig",
                       str(config), "--namespace", NS, "--vantage-area", AREA,
                       "--vantage-isp", isp, "--heartbeat", "2s"])
            self.procs.append(self.probes[isp])

    def _start_toxiproxy(self, workdir: Path) -> None:
        """telecom's view of gz-01 goes through a proxy from the start, so that adding
        a toxic later changes nothing but the delay."""
        self.net.via_proxy("telecom", "gz-01")
        self.toxiproxy = Toxiproxy(workdir / "toxiproxy",
                                   host=self.net.paths[("telecom", "gz-01")].ns_addr,
                                   prefix=self.net.command("telecom", [])).start()
        port = self.backends["gz-01"].port
        self.telecom_gz = self.toxiproxy.create_proxy(
            "telecom-gz-01", upstream=f"{self.net.second_address('gz-01')}:{port}",
            listen=f"{self.net.health_address('gz-01')}:{port}")

    def world(self) -> list[dict]:
        """The Nodes, Regions and Domain, as kubectl applies them."""
        docs: list[dict] = []
        for name, (address, area) in NODES.items():
            docs.append(obj("Node", name, {
                "addresses": [address], "area": area,
                "healthCheck": {**CHECK, "address": self.net.health_address(name),
                                "port": self.backends[name].port}}))
        for isp in ISPS:
            docs.append(obj("Region", group(isp), {
                "area": AREA, "isp": isp, "match": {"cidrs": [CIDRS[isp]]},
                "nodes": list(NODES)}))
        docs.append(obj("Region", "global", {
            "area": "global", "isp": "any", "match": {"default": True},
            "nodes": list(NODES)}))
        docs.append(obj("Domain", "www", {
            "fqdn": WWW, "zone": "example.test", "strategy": "RegionPriority",
            "maxAnswers": 1}))
        return docs

    def apply_world(self) -> None:
        self.kube.kubectl("apply", "-n", NS, "-f", "-",
                          input="\n---\n".join(json.dumps(d) for d in self.world()))

    def www(self, isp: str) -> set[str]:
        return self.ask(WWW, CLIENTS[isp])

    def explain(self, isp: str) -> dict:
        client = CLIENTS[isp].split("/")[0]
        status, body = self.dns.http_get(f"/v1/explain?name={WWW}&client={client}")
        assert status == 200, body
        return json.loads(body)

    def stop(self) -> None:
        super().stop()
        if self.toxiproxy:
            self.toxiproxy.stop()
        for b in self.backends.values():
            b.stop()
        self.net.close()


def obj(kind: str, name: str, spec: dict) -> dict:
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": kind,
            "metadata": {"name": name, "namespace": NS}, "spec": spec}


class AnswerWatch:
    """Asks www for each of `isps`' clients every `every` seconds in a thread, until
    stopped; `changes()` lists every answer that differed from `want`."""

    def __init__(self, chain: IspChain, isps: list[str], want: set[str],
                 every: float = 0.05):
        self.chain, self.isps, self.want, self.every = chain, isps, want, every
        self.asked = 0
        self.others: list[tuple[float, str, set[str]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "AnswerWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            for isp in self.isps:
                try:
                    got = self.chain.www(isp)
                except Exception as e:  # a timeout is an answer change too
                    got = {f"error: {e}"}
                self.asked += 1
                if got != self.want:
                    self.others.append((time.time(), isp, got))

    def changes(self) -> list[tuple[float, str, set[str]]]:
        return list(self.others)
