"""The whole Ax chain on one local control plane (kubecp.py). ApiChain: the CRDs and
deploy/rbac applied, ax-operator on the ax-operator account's token, one ax-dns on the
API source; the caller adds probes (test_isp_paths.py puts one per vantage group in a
network namespace). Chain, for the end-to-end suite (test_e2e_api.py) and the API
latency benchmark (tests/bench/api_latency): that, as one ax-dns
"pod": ax-dns --snapshot-configmap and its ax-probe --report-api sidecar (reporting what
that ax-dns serves, --served-from) sharing the
ax-dns account's token, as containers of a pod do. The pod is a real Pod object (never
run: no kubelet), so the ProbeReport's ownerReference names a real uid. The sidecar
probes a copy of examples/quickstart whose health checks point at
scripts/demo_backends.py on free loopback ports (demobackends.py); that copy is what
the caller applies. Every process is stopped by its PID."""

from __future__ import annotations

import json
import time
from pathlib import Path

from axharness import AxDns, addresses, ask, make_query
from crdschema import CRDS_DIR
from demobackends import probed_quickstart
from operatorharness import NS, RBAC_DIR, AxOperator, token_kubeconfig
from probeharness import AxProbe
from waiting import wait_for

# Short lease timings, as in test_operator.py: after the outage the operator leads
# again within seconds.
LEASE = ["--lease-duration=4s", "--renew-deadline=3s", "--retry-period=1s"]
POD = "ax-dns-e2e-0"

# Clients by ECS subnet and what the quickstart answers them for www (gz-02 is
# excluded for telecom by a Rule, bj-02 drains).
GZ, BJ, US = "113.108.1.0/24", "123.125.114.0/24", "8.8.8.0/24"
GZ_01, GZ_02, BJ_01 = "192.0.2.10", "192.0.2.11", "198.51.100.20"
SJ_01, SJ_02 = "203.0.113.30", "203.0.113.31"
QUICKSTART_WWW = {GZ: {GZ_01}, BJ: {BJ_01}, US: {SJ_01, SJ_02}}
# US clients, in the region of the quickstart's Canary (us-west): a client's place in
# or out of the canary's share is stable (its subnet's cohort).
US_SUBNETS = [f"{a}.0.0/16" for a in ("8.8", "4.2", "12.0", "24.0", "64.1", "96.0")]


class ApiChain:
    """ax-operator, then one ax-dns on the API source (--snapshot-configmap), on a fresh
    cluster with the CRDs, the namespace and deploy/rbac applied; nothing else yet.
    stop() stops every process in `procs`, last started first."""

    def __init__(self, kube, workdir: Path, dns_args: tuple[str, ...] = ()):
        self.kube = kube
        self.procs: list = []
        try:
            self._start(workdir, list(dns_args))
        except BaseException:
            self.stop()
            raise

    def _start(self, workdir: Path, dns_args: list[str]) -> None:
        kube = self.kube
        kube.apply_crds(CRDS_DIR)
        kube.kubectl("create", "namespace", NS)
        kube.kubectl("apply", "-f", str(RBAC_DIR))
        op_config = token_kubeconfig(kube, "ax-operator", workdir / "ax-operator.kubeconfig")
        self.dns_config = token_kubeconfig(kube, "ax-dns", workdir / "ax-dns.kubeconfig")
        self.operator = AxOperator(op_config, workdir, "op-e2e", *LEASE).start()
        self.procs.append(self.operator)
        self.dns = AxDns(None, workdir / "ax-dns", listen_v6=False, extra_args=dns_args,
                         source_args=["--snapshot-configmap", f"{NS}/ax-route-table",
                                      "--kubeconfig", str(self.dns_config)])
        # Not ready until the operator publishes a route table.
        self.dns.start(ready=False)
        self.procs.append(self.dns)

    def stop(self) -> None:
        for p in reversed(self.procs):
            p.stop()

    def ask(self, name: str, ecs: str) -> set[str]:
        return addresses(ask(make_query(name, "A", ecs=ecs), self.dns.port, timeout=2.0))

    def wait_answer(self, name: str, ecs: str, want: set[str], timeout: float,
                    what: str) -> float:
        """Seconds until `name` answers `ecs` exactly `want`."""
        start = time.monotonic()
        wait_for(f"{what}: {name} for {ecs} == {sorted(want)}",
                 lambda: self.ask(name, ecs) == want, timeout, 0.02)
        return time.monotonic() - start

    def edit(self, kind: str, name: str, patch: dict) -> None:
        """kubectl patch --type merge, as an operator of Ax would edit an object."""
        self.kube.kubectl("patch", kind, name, "-n", NS, "--type", "merge",
                          "-p", json.dumps(patch))

    def node_health(self) -> dict[str, str]:
        items = json.loads(self.kube.kubectl("get", "axnode", "-n", NS, "-o", "json").stdout)
        return {n["metadata"]["name"]: n.get("status", {}).get("health")
                for n in items["items"]}


class Chain(ApiChain):
    """The ApiChain plus the ax-dns pod's ax-probe sidecar, probing the quickstart copy
    (on the ax-dns account's token, as containers of a pod share it)."""

    def __init__(self, kube, workdir: Path, dns_args: tuple[str, ...] = ()):
        self.quickstart = probed_quickstart(workdir / "quickstart")
        super().__init__(kube, workdir, dns_args)  # on failure, stop() stops the demo

    def _start(self, workdir: Path, dns_args: list[str]) -> None:
        super()._start(workdir, dns_args)
        pod = json.loads(self.kube.kubectl("create", "-f", "-", "-o", "json", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": POD, "namespace": NS},
            "spec": {"serviceAccountName": "ax-dns",
                     "containers": [{"name": "ax-dns", "image": "ax-dns:e2e"},
                                    {"name": "ax-probe", "image": "ax-probe:e2e"}]}})).stdout)
        self.pod_uid = pod["metadata"]["uid"]
        probe_dir = workdir / "ax-probe"
        probe_dir.mkdir()
        self.probe = AxProbe(self.quickstart.manifests, probe_dir, vantage=POD,
                             env={"POD_NAME": POD, "POD_UID": self.pod_uid}, extra=[
                                 "--report-api", "--kubeconfig", str(self.dns_config),
                                 "--namespace", NS, "--heartbeat", "2s",
                                 "--served-from", self.dns.api,
                                 "--probe-ca", str(self.quickstart.cert)])
        self.procs.append(self.probe)

    def apply_quickstart(self) -> str:
        """kubectl apply -f of the quickstart copy the sidecar probes; its output."""
        return self.kube.kubectl("apply", "-n", NS, "-f",
                                 str(self.quickstart.manifests)).stdout

    def stop(self) -> None:
        super().stop()
        self.quickstart.demo.stop()

    def www(self, ecs: str) -> set[str]:
        return self.ask("www.example.test", ecs)

    def wait_www(self, ecs: str, want: set[str], timeout: float, what: str) -> float:
        """Seconds until www answers `ecs` exactly `want`."""
        return self.wait_answer("www.example.test", ecs, want, timeout, what)
