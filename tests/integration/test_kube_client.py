"""The Kubernetes client (kube/, ax_kube) against a real kube-apiserver (kubecp.py,
fixture `kube`). The cases are C++ (tests/integration/kube_client/, binary ax_kube_it,
env AX_KUBE_IT_BIN, set by ctest); each runs as its own process against one control
plane with crds/ applied, a namespace, and a service account whose Role grants
ConfigMaps and nothing else, mounted as in a pod (token, ca.crt, namespace) for the
in-cluster path, with KUBERNETES_SERVICE_HOST/PORT pointing at the test apiserver.
After some cases kubectl checks what the client wrote, as a user would see it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from axharness import REPO
from crdschema import CRDS_DIR
from kubecp import KubeControlPlane

NS = "ax-kube-it"
SA = "ax-kube-it"


def it_binary() -> Path:
    env = os.environ.get("AX_KUBE_IT_BIN")
    return Path(env) if env else REPO / "build" / "dev" / "tests" / "ax_kube_it"


def gtest_cases() -> list[str]:
    """Suite.Case names from the binary; one placeholder that fails when it is
    missing, so the reason shows up as a test failure rather than a collection
    error."""
    binary = it_binary()
    if not os.access(binary, os.X_OK):
        return [f"missing:{binary}"]
    out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True,
                         check=True).stdout
    cases, suite = [], ""
    for line in out.splitlines():
        if not line.startswith(" "):
            suite = line.strip()
        else:
            cases.append(suite + line.split("#")[0].strip())
    return cases


@pytest.fixture(scope="module")
def cluster(kube: KubeControlPlane, tmp_path_factory) -> tuple[KubeControlPlane, dict]:
    kube.apply_crds(CRDS_DIR)
    kube.kubectl("create", "namespace", NS)
    kube.kubectl("create", "serviceaccount", SA, "-n", NS)
    kube.kubectl("create", "role", "configmaps", "-n", NS, "--resource=configmaps",
                 "--verb=get,list,watch,create,update,patch,delete")
    kube.kubectl("create", "rolebinding", "configmaps", "-n", NS, "--role=configmaps",
                 f"--serviceaccount={NS}:{SA}")
    mount = tmp_path_factory.mktemp("serviceaccount")
    (mount / "token").write_text(kube.token(SA, NS, "1h"))
    shutil.copy(kube.ca_file, mount / "ca.crt")
    (mount / "namespace").write_text(NS)
    env = dict(os.environ,
               KUBECONFIG=str(kube.kubeconfig),
               AX_IT_NAMESPACE=NS,
               AX_IT_SA_DIR=str(mount),
               AX_IT_PKI=str(kube.pki),
               KUBERNETES_SERVICE_HOST="127.0.0.1",
               KUBERNETES_SERVICE_PORT=str(kube.port))
    return kube, env


def kubectl_json(kube: KubeControlPlane, *args: str):
    return json.loads(kube.kubectl(*args, "-n", NS, "-o", "json").stdout)


def check_events(kube: KubeControlPlane) -> None:
    """kubectl describe lists the Event under the ConfigMap, with its count."""
    out = kube.kubectl("describe", "configmap", "evented", "-n", NS).stdout
    line = next((l for l in out.splitlines() if "AxItProbe" in l), None)
    assert line is not None, out
    assert "Warning" in line and "seen once" in line and "x2" in line, line


def check_apply(kube: KubeControlPlane) -> None:
    """The forced apply moved .spec.vantage to probe-west; both managers stay."""
    report = kubectl_json(kube, "get", "probereport", "ssa", "--show-managed-fields")
    assert report["spec"]["vantage"] == "west"
    managers = {(f["manager"], f.get("subresource", "")) for f in
                report["metadata"]["managedFields"]}
    assert {("probe-east", ""), ("probe-west", ""), ("ax-operator", "status")} <= managers
    owned_by_west = next(f for f in report["metadata"]["managedFields"]
                         if f["manager"] == "probe-west")
    assert "f:vantage" in json.dumps(owned_by_west["fieldsV1"])


def check_lease(kube: KubeControlPlane) -> None:
    """The taken-over Lease as kubectl reads it: one transition at least."""
    lease = kubectl_json(kube, "get", "lease", "silent")
    assert lease["spec"]["holderIdentity"] in ("elector-a", "elector-b")
    assert lease["spec"]["leaseTransitions"] >= 1


CHECKS = {
    "RestIt.EventsAreCreatedAndRepeatsCounted": check_events,
    "RestIt.ServerSideApplyMergesManagersAndForceTakesOver": check_apply,
    "LeaderElectionIt.ExactlyOneLeadsAndTheOtherTakesOverAfterTheLease": check_lease,
}


@pytest.mark.parametrize("case", gtest_cases())
def test_case(cluster, case: str):
    assert not case.startswith("missing:"), (
        f"ax_kube_it not built at {case[8:]}: build the dev preset or set AX_KUBE_IT_BIN")
    kube, env = cluster
    r = subprocess.run([str(it_binary()), f"--gtest_filter={case}"], env=env,
                       capture_output=True, text=True, timeout=170)
    assert r.returncode == 0, f"{r.stdout[-12000:]}\n{r.stderr[-4000:]}"
    assert "[  PASSED  ] 1 test" in r.stdout, r.stdout[-4000:]
    if case in CHECKS:
        CHECKS[case](kube)
