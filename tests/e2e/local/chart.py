"""The Helm chart helm/ax as the e2e suites see it: helm lint/template/show through the
helm binary that scripts/setup-kube.sh builds, the committed values sets (values/) and
their golden renderings (golden/), and the renderings deploy/rbac/ is made of.

AX_UPDATE_GOLDEN=1 rewrites golden/*.yaml, deploy/rbac/*.yaml and deploy/admission/*.yaml from the chart instead
of comparing (then review the diff)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from axharness import REPO, HarnessError
from kubecp import kube_bin_dir

CHART = REPO / "helm" / "ax"
HERE = Path(__file__).resolve().parent
VALUES = HERE / "values"
GOLDEN = HERE / "golden"
RBAC_DIR = REPO / "deploy" / "rbac"
RELEASE, NAMESPACE = "ax", "ax-system"
# Kubernetes version helm renders for (the local control plane's, setup-kube.sh).
KUBE_VERSION = "1.36.3"
# deploy/rbac/<file> is exactly this template rendered for release ax in ax-system.
RBAC_TEMPLATES = {"ax-dns.yaml": "templates/rbac-dns.yaml",
                  "ax-operator.yaml": "templates/rbac-operator.yaml",
                  "ax-geo-suggest.yaml": "templates/rbac-geo-suggest.yaml",
                  "ax-console.yaml": "templates/rbac-console.yaml"}
# Values a deploy/ rendering needs beyond the defaults (the geo-suggest CronJob is off
# by default, and its RBAC with it).
RENDER_ARGS = {"ax-geo-suggest.yaml": ["--set", "geoSuggest.enabled=true"],
               "ax-member.yaml": ["--set", "multiCluster.role=member"],
               "ax-operator-members.yaml": [
                   "--set", "multiCluster.memberSecretSelector=gslb.ax.io/member-cluster=true"]}
# deploy/rbac/member/<file>: the multi-cluster RBAC (docs/multi-cluster.md), apart so
# that the single-cluster suites' `kubectl apply -f deploy/rbac` does not apply it.
MEMBER_RBAC_DIR = REPO / "deploy" / "rbac" / "member"
MEMBER_RBAC_TEMPLATES = {"ax-member.yaml": "templates/rbac-member.yaml",
                         "ax-operator-members.yaml": "templates/rbac-operator-members.yaml"}
# deploy/admission/<file>: the same for the admission policies (apart from deploy/rbac/,
# which the kube suites apply without them).
ADMISSION_DIR = REPO / "deploy" / "admission"
ADMISSION_TEMPLATES = {"ax-probereport-vantage.yaml": "templates/admission.yaml",
                       "ax-operator-writes.yaml": "templates/admission-operator.yaml"}


def updating() -> bool:
    return os.environ.get("AX_UPDATE_GOLDEN") == "1"


def helm_bin() -> str:
    path = kube_bin_dir() / "helm"
    if not path.is_file():
        raise HarnessError(f"helm not found at {path}: run scripts/setup.sh (setup-kube.sh)")
    return str(path)


def helm(*args: str, check: bool = True, env: dict | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess:
    """helm ARGS; helm's "found symbolic link" notice about crds/ goes to stderr."""
    r = subprocess.run([helm_bin(), *args], capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})))
    if check and r.returncode != 0:
        raise HarnessError(f"helm {' '.join(args)} exited with {r.returncode}:\n"
                           f"{r.stderr}{r.stdout}")
    return r


def values_sets() -> list[str]:
    return sorted(p.stem for p in VALUES.glob("*.yaml"))


def template(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return helm("template", RELEASE, str(CHART), "-n", NAMESPACE,
                f"--kube-version={KUBE_VERSION}", *args, check=check)


def render(values_set: str) -> str:
    return template("-f", str(VALUES / f"{values_set}.yaml")).stdout


def documents(text: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(text) if d]


def by_kind_name(docs: list[dict]) -> dict[tuple[str, str], dict]:
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def pod_specs(docs: list[dict]) -> list[tuple[str, dict]]:
    """(Kind/name, pod spec) of every workload, CronJobs' job template included."""
    specs = []
    for d in docs:
        where = f"{d['kind']}/{d['metadata']['name']}"
        if d["kind"] in ("Deployment", "DaemonSet", "StatefulSet"):
            specs.append((where, d["spec"]["template"]["spec"]))
        elif d["kind"] == "CronJob":
            specs.append((where, d["spec"]["jobTemplate"]["spec"]["template"]["spec"]))
    return specs


def check_or_update(path: Path, rendered: str) -> None:
    """Compares a committed rendering with the chart's; AX_UPDATE_GOLDEN=1 rewrites it."""
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(rendered)
        return
    assert path.is_file(), f"{path} missing: run with AX_UPDATE_GOLDEN=1"
    expected = path.read_text()
    assert rendered == expected, (
        f"{path.relative_to(REPO)} differs from the chart's rendering; if the chart change "
        "is intended, rerun with AX_UPDATE_GOLDEN=1 and review the diff")
