"""Fixtures shared by the real-client suites: a running ax-dns on the quickstart
manifests (plus a pool domain whose A answer needs TCP), a toxiproxy-server for
fault injection, and a local Kubernetes control plane; each stopped by PID
afterwards."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from axharness import (  # noqa: E402
    MANIFESTS, QUICKSTART, AxDns, HarnessError, copy_manifests, ipv6_loopback_available)
from kubecp import KubeControlPlane  # noqa: E402
from toxiproxy import Toxiproxy  # noqa: E402


def start_ax_dns(tmp: Path, *manifest_dirs: Path) -> AxDns:
    manifests = copy_manifests(tmp / "manifests", *manifest_dirs)
    try:
        return AxDns(manifests, tmp / "run", listen_v6=ipv6_loopback_available()).start()
    except HarnessError as e:
        pytest.fail(str(e))


@pytest.fixture(scope="module")
def ax_quickstart(tmp_path_factory):
    """ax-dns --standalone on a copy of examples/quickstart + manifests/big."""
    ax = start_ax_dns(tmp_path_factory.mktemp("ax-quickstart"), QUICKSTART, MANIFESTS / "big")
    try:
        yield ax
    finally:
        ax.stop()
    ax.check_clean_exit()  # exit 0; a sanitizer build fails here on a leak


@pytest.fixture(scope="module")
def toxiproxy_server(tmp_path_factory):
    """One toxiproxy-server per test module; `toxiproxy` below gives it to each test."""
    try:
        server = Toxiproxy(tmp_path_factory.mktemp("toxiproxy")).start()
    except HarnessError as e:
        pytest.fail(str(e))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def toxiproxy(toxiproxy_server):
    """The module's toxiproxy-server, with no proxies left over from earlier tests."""
    yield toxiproxy_server
    toxiproxy_server.delete_all()


@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    """One etcd + kube-apiserver (kubecp.py) per test module; admin access through
    kube.kubectl() or the kube.kubeconfig file."""
    try:
        control_plane = KubeControlPlane(tmp_path_factory.mktemp("kube")).start()
    except HarnessError as e:
        pytest.fail(str(e))
    try:
        yield control_plane
    finally:
        control_plane.stop()
