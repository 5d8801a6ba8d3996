"""ax-operator processes and the route-table ConfigMap, for the tests that run the
operator against the real control plane (kubecp.py): a kubeconfig holding a real
service-account token (the RBAC of deploy/rbac applies, not the admin's), the operator
started with it and stopped by PID, its /metrics parsed, the ConfigMap decoded (text or
gzip) and API writes timed from Python."""

from __future__ import annotations

import base64
import datetime
import gzip
import json
import os
import re
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

from axharness import (REPO, HarnessError, built_binary, free_port, metric_samples,
                       stop_process)
from waiting import wait_for

NS = "ax-system"
RBAC_DIR = REPO / "deploy" / "rbac"


def rfc3339(t: datetime.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


# When the reports' verdicts last changed: fixed, as a sidecar's heartbeat keeps it.
CHANGED_AT = rfc3339(datetime.datetime.now(datetime.timezone.utc))


def probe_report(vantage: str, nodes: set[str], up: set[str]) -> dict:
    """A sidecar's report seeing `up` Up and the rest of `nodes` Down, now."""
    stamp = rfc3339(datetime.datetime.now(datetime.timezone.utc))
    results = []
    for node in sorted(nodes):
        ok = node in up
        results.append({
            "node": node, "health": "Up" if ok else "Down", "up": ok,
            "latencyMs": 10.0 if ok else None, "phases": {},
            "consecutiveFailures": 0 if ok else 3, "consecutiveSuccesses": 10 if ok else 0,
            "transitions": 1, "healthChangedAt": CHANGED_AT})
        if not ok:
            del results[-1]["latencyMs"]
            results[-1]["error"] = "timeout"
    return {"apiVersion": "gslb.ax.io/v1alpha1", "kind": "ProbeReport",
            "metadata": {"name": vantage, "namespace": NS},
            "spec": {"vantage": vantage, "observedAt": stamp, "results": results}}


def operator_binary() -> Path:
    return built_binary("AX_OPERATOR_BIN", "operator/ax-operator")


def token_kubeconfig(kube, service_account: str, path: Path,
                     bound_pod: tuple[str, str] | None = None) -> Path:
    """A kubeconfig for SA's TokenRequest token in NS (bound to the Pod (name, uid)
    when given): no client cert, RBAC decides."""
    token = kube.token(service_account, NS, "2h", bound_pod)
    config = {
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "test", "cluster": {
            "server": kube.server,
            "certificate-authority-data": base64.b64encode(kube.ca_file.read_bytes()).decode()}}],
        "users": [{"name": service_account, "user": {"token": token}}],
        "contexts": [{"name": "test", "context": {
            "cluster": "test", "user": service_account, "namespace": NS}}],
        "current-context": "test",
    }
    path.write_text(json.dumps(config))
    path.chmod(0o600)
    return path


class _PortTaken(Exception):
    """The operator exited because its HTTP port was taken after free_port()."""


class AxOperator:
    """One ax-operator replica on loopback; stop() is SIGTERM by PID, kill() SIGKILL."""

    def __init__(self, kubeconfig: Path, workdir: Path, identity: str, *extra: str):
        self.identity = identity
        self.log_path = workdir / f"ax-operator-{identity}.log"
        self._args = [str(operator_binary()), f"--kubeconfig={kubeconfig}",
                      f"--namespace={NS}", f"--identity={identity}", "--log-level=debug",
                      *extra]
        self._pick_port()
        self.proc: subprocess.Popen | None = None

    def _pick_port(self) -> None:
        self.port = free_port()
        self.cmd = [*self._args, f"--http-listen=127.0.0.1:{self.port}"]

    def start(self, timeout: float = 30.0, attempts: int = 3) -> "AxOperator":
        """Starts the operator and waits for /readyz. free_port() only says the port
        was free a moment ago: when another process takes it first, the operator
        exits saying it cannot bind, and it starts again on a new port."""
        for _ in range(attempts):
            self._log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL)
            try:
                wait_for(f"{self.identity} /readyz", self._ready, timeout, 0.1,
                         error=HarnessError, context=self._log_tail)
                return self
            except _PortTaken:
                self._pick_port()
        raise HarnessError(f"ax-operator: its port was taken on {attempts} attempts:\n"
                           f"{self._log_tail()}")

    def _log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            with open(self.log_path, "rb") as log:
                log.seek(self._log_start)
                this_run = log.read().decode(errors="replace")
            if f"http: cannot bind 127.0.0.1:{self.port}" in this_run:
                raise _PortTaken()
            raise HarnessError(f"ax-operator exited with {self.proc.returncode}:\n"
                               f"{this_run[-4000:]}")
        return self.http_get("/readyz")[0] == 200

    def http_get(self, path: str, accept: str | None = None) -> tuple[int, str]:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}")
        if accept:
            req.add_header("Accept", accept)
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except (urllib.error.URLError, OSError):
            return 0, ""

    def metrics(self) -> dict[tuple[str, tuple], float]:
        """{(sample name, sorted label pairs): value} from /metrics (0.0.4 text)."""
        status, text = self.http_get("/metrics")
        return metric_samples(text) if status == 200 else {}

    def metric(self, name: str, **labels: str) -> float | None:
        return self.metrics().get((name, tuple(sorted(labels.items()))))

    def is_leader(self) -> bool:
        return self.metric("ax_operator_leader", pod=self.identity) == 1

    def log_lines(self) -> list[dict]:
        lines = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                pass
        return lines

    def kill(self) -> None:
        """SIGKILL by PID: no lease release, the successor waits for expiry."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> int | None:
        stop_process(self.proc, timeout=20)
        return self.proc.returncode if self.proc else None


def route_table(kube, name: str = "ax-route-table") -> tuple[int, dict] | None:
    """(version annotation, decoded snapshot document) of the ConfigMap, or None."""
    status, cm = kube.get(f"/api/v1/namespaces/{NS}/configmaps/{name}")
    if status != 200:
        return None
    version = int(cm["metadata"]["annotations"]["gslb.ax.io/snapshot-version"])
    if "snapshot.json" in cm.get("data", {}):
        doc = json.loads(cm["data"]["snapshot.json"])
    else:
        doc = json.loads(gzip.decompress(
            base64.b64decode(cm["binaryData"]["snapshot.json.gz"])))
    return version, doc


def route_table_version(kube) -> int:
    table = route_table(kube)
    return table[0] if table else 0


def _write(kube, method: str, path: str, body: dict, content_type: str) -> dict:
    """One write as the admin, straight from Python, so the time it returns is when
    the API stored the change (no kubectl start-up); the object written."""
    req = urllib.request.Request(kube.server + path, method=method,
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": content_type})
    with urllib.request.urlopen(req, timeout=30, context=kube._context()) as r:
        return json.loads(r.read())


def merge_patch(kube, path: str, patch: dict) -> dict:
    """PATCH application/merge-patch+json."""
    return _write(kube, "PATCH", path, patch, "application/merge-patch+json")


def put_status(kube, path: str, obj: dict) -> dict:
    """PUT the object's status subresource, as the operator writes statuses."""
    return _write(kube, "PUT", path + "/status", obj, "application/json")


def gslb_path(plural: str, name: str) -> str:
    return f"/apis/gslb.ax.io/v1alpha1/namespaces/{NS}/{plural}/{name}"


def runbook_metrics() -> dict[str, tuple[str, set[str]]]:
    """The runbook's operator table: metric -> (type, label names)."""
    out = {}
    for line in (REPO / "docs" / "runbook.md").read_text().splitlines():
        m = re.match(r"\| `(ax_operator_\w+)` \| (\w+) \|([^|]*)\|", line)
        if m:
            names = re.sub(r"\(.*?\)", "", m.group(3))  # drop the listed values
            labels = {x.strip() for x in names.split(",") if x.strip()}
            out[m.group(1)] = (m.group(2), labels)
    return out
