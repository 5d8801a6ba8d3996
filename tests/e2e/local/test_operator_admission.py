"""The operator's write limits on a real kube-apiserver (issue 15): ax-operator's account
writes only the ConfigMaps of its route table (the current one and the kept versions
<table>-v<N>) and its leader-election Lease, whatever RBAC alone would allow.

The chart's operator RBAC (rbac-operator.yaml) and its admission policy
(admission-operator.yaml) are rendered with helm template and applied to the local
control plane. With a TokenRequest token of the account:
- its own names are allowed: create/update/delete of the table and of a kept version,
  create/update of its Lease;
- another name is denied by the policy (a create, or a delete RBAC cannot name), with
  the policy's message naming the allowed ones, or by RBAC (an update of another
  ConfigMap or Lease);
- the real ax-operator on that account publishes the quickstart with leader election
  and keeps one version (--history=1): it creates and deletes kept versions through the
  policy, and nothing it writes is denied; with the chart's --owner it reads its account
  (the Role's one named get) and names it the owner of the ConfigMaps and the Lease.
"""

from __future__ import annotations

import json
import time

import pytest

from axharness import QUICKSTART
from chart import NAMESPACE, REPO, template
from operatorharness import (
    AxOperator, gslb_path, merge_patch, route_table_version, token_kubeconfig)
from waiting import wait_for

ACCOUNT = "ax-operator"
TABLE = "ax-route-table"
POLICY_SAYS = "ax-operator writes only the ConfigMaps of route table ax-route-table"
LEASE_SAYS = "ax-operator writes only its leader-election Lease ax-operator"
HISTORY_SELECTOR = "gslb.ax.io/route-table=ax-route-table,gslb.ax.io/route-table-role=history"


@pytest.fixture(scope="module")
def cluster(kube):
    kube.apply_crds(REPO / "crds")
    kube.kubectl("create", "namespace", NAMESPACE)
    rendered = template("--show-only", "templates/admission-operator.yaml",
                        "--show-only", "templates/rbac-operator.yaml").stdout
    kube.kubectl("apply", "-f", "-", input=rendered)
    # Objects of someone else in the same namespace.
    kube.kubectl("create", "configmap", "someone-elses", "-n", NAMESPACE)
    kube.kubectl("apply", "-f", "-", input=json.dumps(lease("someone-elses")))
    return kube


@pytest.fixture(scope="module")
def token(cluster):
    token = cluster.token(ACCOUNT, NAMESPACE, "1h")

    def denied():
        r = cluster.kubectl("create", "configmap", f"forged-{time.monotonic_ns()}",
                            "-n", NAMESPACE, token=token, check=False)
        return r.returncode != 0 and "ValidatingAdmissionPolicy" in r.stderr
    wait_for("the operator's admission policy in force", denied, 30, 0.3)
    return token


def config_map(name: str, value: str = "1") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": NAMESPACE}, "data": {"v": value}}


def lease(name: str) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"holderIdentity": "someone", "leaseDurationSeconds": 15}}


def as_operator(kube, token: str, *args: str, obj: dict | None = None):
    return kube.kubectl(*args, "-n", NAMESPACE, token=token, check=False,
                        input=json.dumps(obj) if obj else None)


def test_its_own_objects_are_written(cluster, token):
    for args, obj in [
            (("create", "-f", "-"), config_map(TABLE)),
            (("replace", "-f", "-"), config_map(TABLE, "2")),
            (("create", "-f", "-"), config_map(TABLE + "-v12")),
            (("delete", "configmap", TABLE + "-v12"), None),
            (("create", "-f", "-"), lease("ax-operator")),
            (("replace", "-f", "-"), lease("ax-operator")),
            (("delete", "configmap", TABLE), None)]:
        r = as_operator(cluster, token, *args, obj=obj)
        assert r.returncode == 0, (args, r.stderr)
    # Cleared for the real operator below.
    cluster.kubectl("delete", "lease", "ax-operator", "-n", NAMESPACE)


@pytest.mark.parametrize("case,args,obj,message", [
    ("another ConfigMap", ("create", "-f", "-"), config_map("routes"), POLICY_SAYS),
    ("a version that is not a number", ("create", "-f", "-"),
     config_map(TABLE + "-vx"), POLICY_SAYS),
    ("a version with a tail", ("create", "-f", "-"),
     config_map(TABLE + "-v1-x"), POLICY_SAYS),
    ("no version", ("create", "-f", "-"), config_map(TABLE + "-v"), POLICY_SAYS),
    ("a prefix of another table", ("create", "-f", "-"),
     config_map(TABLE + "2-v1"), POLICY_SAYS),
    ("someone else's ConfigMap deleted", ("delete", "configmap", "someone-elses"), None,
     POLICY_SAYS + " (ax-route-table, ax-route-table-v<version>), not someone-elses"),
    ("another Lease", ("create", "-f", "-"), lease("other-leader"), LEASE_SAYS),
    ("someone else's ConfigMap updated", ("replace", "-f", "-"),
     config_map("someone-elses", "x"), 'cannot update resource "configmaps"'),
    ("someone else's Lease updated", ("replace", "-f", "-"), lease("someone-elses"),
     'cannot update resource "leases"'),
    ("a patch (it only replaces its table)", ("patch", "configmap", "someone-elses",
                                              "-p", '{"data":{"v":"3"}}'), None,
     'cannot patch resource "configmaps"'),
])
def test_other_names_are_denied(cluster, token, case, args, obj, message):
    r = as_operator(cluster, token, *args, obj=obj)
    assert r.returncode != 0, case
    assert message in r.stderr, (case, r.stderr)


def test_the_real_operator_keeps_within_its_names(cluster, token, tmp_path):
    config = token_kubeconfig(cluster, ACCOUNT, tmp_path / "ax-operator.kubeconfig")
    op = AxOperator(config, tmp_path, "op-a", "--leader-elect=true", "--history=1",
                    f"--owner=ServiceAccount/{ACCOUNT}",
                    "--lease-duration=4s", "--renew-deadline=3s", "--retry-period=1s")
    op.start()
    try:
        cluster.kubectl("apply", "-n", NAMESPACE, "-f", str(QUICKSTART))
        wait_for("the quickstart published", lambda: route_table_version(cluster) >= 1, 30)
        assert wait_for("op-a leads", op.is_leader, 15)
        first = route_table_version(cluster)
        for weight in (10, 20, 30):
            merge_patch(cluster, gslb_path("nodes", "gz-01"), {"spec": {"weight": weight}})
            version = route_table_version(cluster)
            wait_for(f"a version after weight {weight}",
                     lambda: route_table_version(cluster) > version, 30)

        def one_kept_version():
            r = cluster.kubectl("get", "configmaps", "-n", NAMESPACE, "-l",
                                HISTORY_SELECTOR, "-o", "name")
            names = r.stdout.split()
            return names if len(names) == 1 else None
        def only_the_current_kept():
            # The kept copy of a new version is created just after the table itself:
            # wait for the pair to agree rather than catch the moment in between.
            names = one_kept_version()
            current = f"configmap/{TABLE}-v{route_table_version(cluster)}"
            return names if names == [current] else None
        # Older kept versions were deleted: through the policy, as the account.
        (kept,) = wait_for("only the current version kept", only_the_current_kept, 30)
        assert route_table_version(cluster) >= first + 3
        lease_now = json.loads(cluster.kubectl("get", "lease", "ax-operator", "-n",
                                               NAMESPACE, "-o", "json").stdout)
        assert lease_now["spec"]["holderIdentity"] == "op-a"
        uid = json.loads(cluster.kubectl("get", "serviceaccount", ACCOUNT, "-n", NAMESPACE,
                                         "-o", "json").stdout)["metadata"]["uid"]
        owners = [{"apiVersion": "v1", "kind": "ServiceAccount", "name": ACCOUNT,
                   "uid": uid}]
        assert lease_now["metadata"].get("ownerReferences") == owners
        table = json.loads(cluster.kubectl("get", "configmap", TABLE, "-n", NAMESPACE,
                                           "-o", "json").stdout)
        assert table["metadata"].get("ownerReferences") == owners
        # The operator may publish again meanwhile and replace the kept version seen
        # above: read the kept copies through one list rather than get one by name.
        listed = json.loads(cluster.kubectl("get", "configmaps", "-n", NAMESPACE, "-l",
                                            HISTORY_SELECTOR, "-o", "json").stdout)
        assert listed["items"], kept
        for cm in listed["items"]:
            assert cm["metadata"].get("ownerReferences") == owners, cm["metadata"]["name"]
        log = op.log_path.read_text()
        assert "denied" not in log and "forbidden" not in log, log[-4000:]
    finally:
        assert op.stop() == 0, op.log_path.read_text()[-4000:]
