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
    MANIFESTS, QUICKSTART, AxDns, copy_manifests, ipv6_loopback_available, running)
from kubecp import KubeControlPlane  # noqa: E402
from toxiproxy import Toxiproxy  # noqa: E402


@pytest.fixture(scope="module")
def ax_quickstart(tmp_path_factory):
    """ax-dns --standalone on a copy of examples/quickstart + manifests/big."""
    tmp = tmp_path_factory.mktemp("ax-quickstart")
    manifests = copy_manifests(tmp / "manifests", QUICKSTART, MANIFESTS / "big")
    with running(lambda: AxDns(manifests, tmp / "run",
                               listen_v6=ipv6_loopback_available()).start()) as ax:
        yield ax
    ax.check_clean_exit()  # exit 0; a sanitizer build fails here on a leak


@pytest.fixture(scope="module")
def toxiproxy_server(tmp_path_factory):
    """One toxiproxy-server per test module; `toxiproxy` below gives it to each test."""
    with running(lambda: Toxiproxy(tmp_path_factory.mktemp("toxiproxy")).start()) as server:
        yield server


@pytest.fixture
def toxiproxy(toxiproxy_server):
    """The module's toxiproxy-server, with no proxies left over from earlier tests."""
    yield toxiproxy_server
    toxiproxy_server.delete_all()


@pytest.fixture(scope="module")
def kube(tmp_path_factory):
    """One etcd + kube-apiserver (kubecp.py) per test module; admin access through
    kube.kubectl() or the kube.kubeconfig file."""
    with running(lambda: KubeControlPlane(tmp_path_factory.mktemp("kube")).start()) as cp:
        yield cp
