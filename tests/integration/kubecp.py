"""A real Kubernetes control plane for tests: etcd and kube-apiserver on
loopback, started the way controller-runtime's envtest does, and kubectl helpers.

etcd keeps its data in a temporary folder without fsync. kube-apiserver serves TLS
on 127.0.0.1 with a generated CA and serving cert (localhost, 127.0.0.1), checks
client certs against a second CA, runs RBAC, and signs service-account tokens with a
generated key (TokenRequest works: `kubectl create token`). Admin access is a client
cert in group system:masters, embedded in `kubeconfig`. Not running: controller
manager (no garbage collection, no default service accounts: the ServiceAccount
admission plugin is off), scheduler, kubelet (pods never run).

stop_apiserver() and start_apiserver() take the API away and bring it back (same
port, same etcd data): an outage as clients see it.

Ports are found free by binding and releasing them; a process that loses that race
exits, and start() retries on other ports. Certs come from the openssl CLI. Both
processes are stopped by PID in stop(), also when start() fails, and get SIGKILL if
the Python process that started them dies first.

Binaries: folder env AX_KUBE_BIN, else $AX_CACHE/bin (kube-apiserver, etcd and a
kubectl of the same version, built by scripts/setup-kube.sh).
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

from axharness import HarnessError, free_port, stop_process
from waiting import wait_for

_PR_SET_PDEATHSIG = 1


def kube_bin_dir() -> Path:
    env = os.environ.get("AX_KUBE_BIN")
    if env:
        return Path(env)
    return Path(os.environ.get("AX_CACHE", Path.home() / ".cache" / "ax")) / "bin"


def _binary(name: str) -> Path:
    path = kube_bin_dir() / name
    if not path.is_file() or not os.access(path, os.X_OK):
        raise HarnessError(
            f"{name} not found at {path}: run scripts/setup.sh (setup-kube.sh) or set "
            "AX_KUBE_BIN")
    return path


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the parent dies (a killed test run
    leaves no control plane behind)."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _openssl(*args: str, cwd: Path) -> None:
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise HarnessError(f"openssl {' '.join(args)} failed:\n{r.stderr}")


def _b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


class _PortTaken(Exception):
    pass


def _port_below_ephemeral_range() -> int:
    """A free port below the kernel's ephemeral range, for kube-apiserver: after
    stop_apiserver() it must come back on the same port, and while it is down no port
    0 bind (free_port() of a parallel suite) or outgoing connection can take this one."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    rng = random.Random()
    for _ in range(100):
        port = rng.randrange(10000, low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise HarnessError(f"no free port in 10000-{low - 1}")


class KubeControlPlane:
    """etcd + kube-apiserver on 127.0.0.1; use as a context manager or call start()
    and stop(). Files (certs, kubeconfig, logs) live in workdir."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.etcd_bin = _binary("etcd")
        self.apiserver_bin = _binary("kube-apiserver")
        self.kubectl_bin = str(_binary("kubectl"))
        self.pki = workdir / "pki"
        self.ca_file = self.pki / "serving-ca.crt"
        self.kubeconfig = workdir / "admin.kubeconfig"
        self.etcd_dir = workdir / "etcd-data"
        self.etcd_log = workdir / "etcd.log"
        self.apiserver_log = workdir / "kube-apiserver.log"
        self.etcd: subprocess.Popen | None = None
        self.apiserver: subprocess.Popen | None = None
        self.port = 0
        self._ssl: ssl.SSLContext | None = None

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in (self.etcd, self.apiserver) if p is not None]

    # --- lifecycle ----------------------------------------------------------------

    def start(self, attempts: int = 3, timeout: float = 120.0) -> "KubeControlPlane":
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._make_pki()
            for _ in range(attempts):
                try:
                    self._start_once(time.monotonic() + timeout)
                    return self
                except _PortTaken:
                    self._stop_processes()
            raise HarnessError(f"control plane: ports taken on {attempts} attempts")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stops kube-apiserver, then etcd, by PID; removes etcd's data."""
        self._stop_processes()
        shutil.rmtree(self.etcd_dir, ignore_errors=True)

    def _stop_processes(self) -> None:
        stop_process(self.apiserver, timeout=30)
        stop_process(self.etcd)

    def __enter__(self) -> "KubeControlPlane":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, cmd: list[str], log_path: Path) -> subprocess.Popen:
        with open(log_path, "wb") as log:
            return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)

    def _start_once(self, deadline: float) -> None:
        shutil.rmtree(self.etcd_dir, ignore_errors=True)
        client, peer = free_port(), free_port()
        while peer == client:
            peer = free_port()
        etcd_url = f"http://127.0.0.1:{client}"
        self.etcd = self._spawn([
            str(self.etcd_bin),
            "--name=ax-test",
            f"--data-dir={self.etcd_dir}",
            f"--listen-client-urls={etcd_url}",
            f"--advertise-client-urls={etcd_url}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=ax-test=http://127.0.0.1:{peer}",
            "--unsafe-no-fsync=true",
            "--log-level=warn",
        ], self.etcd_log)
        self._wait("etcd", self.etcd, self.etcd_log, deadline,
                   lambda: self._http_ok(f"{etcd_url}/health", None))

        self._etcd_url = etcd_url
        self.port = _port_below_ephemeral_range()
        self._start_apiserver(deadline)

    def _start_apiserver(self, deadline: float) -> None:
        pki = self.pki
        self.apiserver = self._spawn([
            str(self.apiserver_bin),
            f"--etcd-servers={self._etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--tls-cert-file={pki / 'serving.crt'}",
            f"--tls-private-key-file={pki / 'serving.key'}",
            f"--client-ca-file={pki / 'client-ca.crt'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki / 'sa.pub'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--allow-privileged=true",
            "--disable-admission-plugins=ServiceAccount",
        ], self.apiserver_log)
        self._write_kubeconfig()
        self._wait("kube-apiserver", self.apiserver, self.apiserver_log, deadline,
                   lambda: self._http_ok(f"{self.server}/readyz", self._context()))
        self._wait("kube-apiserver", self.apiserver, self.apiserver_log, deadline,
                   lambda: self.get("/api/v1/namespaces/default")[0] == 200)

    def stop_apiserver(self) -> None:
        """Stops kube-apiserver only (by PID); etcd and its data stay, so
        start_apiserver() brings back the same cluster on the same port: an API
        outage as clients see it."""
        stop_process(self.apiserver, timeout=30)
        self.apiserver = None

    def start_apiserver(self, timeout: float = 120.0) -> None:
        """Starts kube-apiserver again after stop_apiserver(), on the same port,
        and waits until it is ready; its log is a new file (apiserver_log)."""
        self.apiserver_log = self.workdir / f"kube-apiserver.{time.monotonic_ns()}.log"
        self._start_apiserver(time.monotonic() + timeout)

    def _wait(self, name: str, proc: subprocess.Popen, log: Path, deadline: float,
              ready: Callable[[], bool]) -> None:
        def alive_and_ready() -> bool:
            if proc.poll() is not None:
                text = log.read_text(errors="replace")
                if "address already in use" in text:
                    raise _PortTaken()
                raise HarnessError(f"{name} exited with {proc.returncode}:\n{text[-6000:]}")
            return ready()

        wait_for(f"{name} ready", alive_and_ready, deadline - time.monotonic(), 0.1,
                 error=HarnessError, context=lambda: log.read_text(errors="replace")[-6000:])

    # --- certificates and kubeconfig ------------------------------------------------

    def _make_pki(self) -> None:
        """Serving CA + cert for localhost/127.0.0.1, client CA + admin cert (O =
        system:masters), service-account signing key: ECDSA P-256, valid a week."""
        pki = self.pki
        pki.mkdir(parents=True, exist_ok=True)
        cnf = pki / "req.cnf"  # no default extensions: exactly the -addext ones
        cnf.write_text("[req]\ndistinguished_name = dn\n[dn]\n")
        new_key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for ca in ("serving-ca", "client-ca"):
            _openssl("req", "-x509", "-config", cnf.name, *new_key, "-days", "7",
                     "-keyout", f"{ca}.key", "-out", f"{ca}.crt", "-subj", f"/CN=ax-test-{ca}",
                     "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=pki)
        leaves = [("serving", "serving-ca", "/CN=localhost", "serverAuth",
                   ["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]),
                  ("admin", "client-ca", "/O=system:masters/CN=ax-admin", "clientAuth", [])]
        for name, ca, subj, usage, extra in leaves:
            _openssl("req", "-x509", "-config", cnf.name, *new_key, "-days", "7",
                     "-keyout", f"{name}.key", "-out", f"{name}.crt", "-subj", subj,
                     "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key",
                     "-addext", "keyUsage=critical,digitalSignature",
                     "-addext", f"extendedKeyUsage={usage}", *extra, cwd=pki)
        _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-out", "sa.key", cwd=pki)
        _openssl("pkey", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=pki)

    def _write_kubeconfig(self) -> None:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "ax-test", "cluster": {
                "server": self.server,
                "certificate-authority-data": _b64(self.ca_file)}}],
            "users": [{"name": "ax-admin", "user": {
                "client-certificate-data": _b64(self.pki / "admin.crt"),
                "client-key-data": _b64(self.pki / "admin.key")}}],
            "contexts": [{"name": "ax-test", "context": {
                "cluster": "ax-test", "user": "ax-admin", "namespace": "default"}}],
            "current-context": "ax-test",
        }
        self.kubeconfig.write_text(json.dumps(config, indent=2) + "\n")
        self.kubeconfig.chmod(0o600)

    def _context(self) -> ssl.SSLContext:
        """TLS as the admin: trusts the serving CA, presents the admin cert."""
        if self._ssl is None:
            ctx = ssl.create_default_context(cafile=str(self.ca_file))
            ctx.load_cert_chain(self.pki / "admin.crt", self.pki / "admin.key")
            self._ssl = ctx
        return self._ssl

    # --- API access -------------------------------------------------------------------

    @staticmethod
    def _http_ok(url: str, ctx: ssl.SSLContext | None) -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2, context=ctx) as r:
                return r.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def get(self, path: str) -> tuple[int, Any]:
        """GET path as the admin; (status, decoded JSON), (status, None) on an HTTP
        error, (0, None) when the server cannot be reached."""
        try:
            with urllib.request.urlopen(self.server + path, timeout=10,
                                        context=self._context()) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, None
        except (urllib.error.URLError, OSError):
            return 0, None

    def apply(self, path: str, body: dict, field_manager: str = "ax-test") -> Any:
        """Server-side apply of body at path (an object's URL path) as the admin,
        forced, in one HTTPS request: no kubectl start-up in timed loops. Returns
        the object; raises HarnessError on an HTTP error."""
        req = urllib.request.Request(
            f"{self.server}{path}?fieldManager={field_manager}&force=true",
            data=json.dumps(body).encode(), method="PATCH",
            headers={"Content-Type": "application/apply-patch+yaml"})
        try:
            with urllib.request.urlopen(req, timeout=10, context=self._context()) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise HarnessError(f"apply {path}: {e.code} {e.read()[:2000]!r}") from e

    def token_kubeconfig(self, path: Path, token: str, namespace: str = "default") -> Path:
        """A kubeconfig at path that authenticates with token (e.g. from token()):
        what a workload with that service account gets, minus the pod."""
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "ax-test", "cluster": {
                "server": self.server, "certificate-authority": str(self.ca_file)}}],
            "users": [{"name": "sa", "user": {"token": token}}],
            "contexts": [{"name": "sa", "context": {
                "cluster": "ax-test", "user": "sa", "namespace": namespace}}],
            "current-context": "sa",
        }
        path.write_text(json.dumps(config, indent=2) + "\n")
        path.chmod(0o600)
        return path

    def kubectl(self, *args: str, input: str | None = None, check: bool = True,
                token: str | None = None,
                timeout: float = 60.0) -> subprocess.CompletedProcess:
        """kubectl as the admin, or with token (a bearer token instead of the admin
        cert: no kubeconfig at all, only the server and its CA). check=True raises
        HarnessError on a non-zero exit."""
        env = dict(os.environ, KUBECONFIG=str(self.kubeconfig))
        cmd = [self.kubectl_bin, f"--cache-dir={self.workdir / 'kubectl-cache'}"]
        if token is not None:
            env["KUBECONFIG"] = str(self.workdir / "no-kubeconfig")  # absent: not read
            cmd += [f"--server={self.server}", f"--certificate-authority={self.ca_file}",
                    f"--token={token}"]
        r = subprocess.run([*cmd, *args], input=input, capture_output=True, text=True,
                           env=env, timeout=timeout)
        if check and r.returncode != 0:
            raise HarnessError(
                f"kubectl {' '.join(args)} exited with {r.returncode}:\n{r.stderr}{r.stdout}")
        return r

    def token(self, service_account: str, namespace: str = "default",
              duration: str = "1h", bound_pod: tuple[str, str] | None = None) -> str:
        """A TokenRequest token for the service account (which must exist; no
        controller creates any). duration: "10m" at least, as the API requires.
        bound_pod (name, uid): bound to that Pod, as a pod's projected token is (the
        apiserver then puts the pod's name in the user's extra info)."""
        bound = [] if bound_pod is None else [
            "--bound-object-kind=Pod", f"--bound-object-name={bound_pod[0]}",
            f"--bound-object-uid={bound_pod[1]}"]
        return self.kubectl("create", "token", service_account, "-n", namespace,
                            f"--duration={duration}", *bound).stdout.strip()

    def apply_crds(self, directory: Path, timeout: float = 60.0) -> list[str]:
        """kubectl apply -f directory; waits until each CustomResourceDefinition in it
        is Established and its plural is in discovery for every served version.
        Returns the CRD names."""
        out = json.loads(self.kubectl("apply", "-f", str(directory), "-o", "json").stdout)
        objects = out["items"] if out.get("kind") == "List" else [out]
        crds = [o for o in objects if o.get("kind") == "CustomResourceDefinition"]
        names = [c["metadata"]["name"] for c in crds]
        if names:
            self.kubectl("wait", "--for=condition=Established", f"--timeout={int(timeout)}s",
                         *[f"crd/{n}" for n in names], timeout=timeout + 10)
        deadline = time.monotonic() + timeout
        for crd in crds:
            spec = crd["spec"]
            plural = spec["names"]["plural"]
            for version in (v["name"] for v in spec["versions"] if v.get("served")):
                path = f"/apis/{spec['group']}/{version}"

                def discovered() -> bool:
                    status, body = self.get(path)
                    return status == 200 and plural in {r["name"] for r in body["resources"]}

                wait_for(f"{plural} in discovery at {path}", discovered,
                         deadline - time.monotonic(), 0.1, error=HarnessError)
        return names
