"""The build's real link graph keeps the folders' one-way dependencies, and the
operator and the probe carry no geo database library.

The graph comes from configuring this source tree afresh with --graphviz (the
same CMakeLists.txt the build uses, product targets only); the binaries are
the build's own. The checker is also fed graphs that break each rule, so a
checker that accepts everything fails here.
"""

import os
import subprocess

import pytest

import link_graph

SOURCE = os.environ["AX_SOURCE_DIR"]
CMAKE = os.environ.get("AX_CMAKE", "cmake")


@pytest.fixture(scope="module")
def real_graph(tmp_path_factory):
    build = tmp_path_factory.mktemp("graph")
    dot = build / "ax.dot"
    subprocess.run(
        [CMAKE, "-S", SOURCE, "-B", str(build), "-G", "Ninja", "-DAX_BUILD_TESTS=OFF",
         "-DAX_BUILD_BENCH=OFF", f"--graphviz={dot}"],
        check=True, capture_output=True, text=True)
    edges = link_graph.read_graph(dot.read_text())
    folders = link_graph.read_targets((build / "ax_targets.tsv").read_text())
    return edges, folders


def test_the_real_graph_keeps_every_rule(real_graph):
    edges, folders = real_graph
    assert link_graph.check(edges, folders) == []


def test_the_real_graph_is_read(real_graph):
    edges, folders = real_graph
    # What the layout promises, seen in the parsed graph itself.
    assert folders["ax_core"] == "core" and folders["ax-operator"] == "operator"
    assert ("ax_core", "nlohmann_json::nlohmann_json") in edges
    assert ("ax_contract", "ax_core") in edges
    assert ("ax_dns_server", "ax_plan") in edges
    assert ("ax_operator_reconciler", "ax_plan") in edges
    assert {folders[t] for t in ("ax_runtime", "ax_plan", "ax_loader")} == {
        "runtime", "plan", "loader"}


FOLDERS = {"ax_core": "core", "ax_runtime": "runtime", "ax_kube": "kube",
           "ax_loader": "loader", "ax_contract": "contract", "ax_plan": "plan",
           "ax_probe_sidecar": "probe", "ax_dns_server": "dns-server",
           "ax_operator_reconciler": "operator", "ax_new": "newfolder",
           "ax_core_tests": "tests"}


@pytest.mark.parametrize("edge, says", [
    (("ax_dns_server", "ax_operator_reconciler"), "dns-server/ may link only"),
    (("ax_operator_reconciler", "ax_dns_server"), "operator/ may link only"),
    (("ax_probe_sidecar", "ax_dns_server"), "probe/ may link only"),
    (("ax_probe_sidecar", "ax_plan"), "probe/ may link only"),
    (("ax_core", "ax_runtime"), "core/ may link only nothing"),
    (("ax_core", "PkgConfig::MAXMINDDB"), "core links only nlohmann_json"),
    (("ax_new", "ax_core"), "allowed edges do not list"),
])
def test_each_forbidden_edge_is_reported(edge, says):
    clean = [("ax_plan", "ax_contract"), ("ax_contract", "ax_core"),
             ("ax_core_tests", "ax_dns_server")]
    assert link_graph.check(clean, FOLDERS) == []
    problems = link_graph.check(clean + [edge], FOLDERS)
    assert any(says in p for p in problems), problems


def test_a_cycle_between_folders_is_reported():
    problems = link_graph.check([("ax_runtime", "ax_kube"), ("ax_kube", "ax_runtime")],
                                FOLDERS)
    assert any("cycle: kube -> runtime -> kube" in p or "cycle: runtime -> kube -> runtime" in p
               for p in problems), problems


def _libraries(binary):
    return subprocess.run(["ldd", binary], check=True, capture_output=True,
                          text=True).stdout


@pytest.mark.parametrize("variable", ["AX_OPERATOR_BIN", "AX_PROBE_BIN"])
def test_control_plane_binaries_load_no_geo_library(variable):
    assert "libmaxminddb" not in _libraries(os.environ[variable])


def test_ax_dns_does_load_it():
    # The same check sees the library where it belongs.
    assert "libmaxminddb" in _libraries(os.environ["AX_DNS_BIN"])
