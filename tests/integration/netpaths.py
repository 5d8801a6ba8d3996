"""Network paths per vantage group, for tests that need "one carrier's path to a node
breaks while every other path is fine" on one machine (issue 14).

Each group gets a network namespace of its own; each (group, node) pair gets its own
veth pair between that namespace and the test's, and the node's health address
(on the test namespace's loopback) is routed from the group's namespace over that pair
only. So `cut(group, node)` (`ip link set <test side> down`: the carrier goes, the route
stays, packets are dropped: a timeout, as a broken path looks to a prober) breaks
exactly one group's view of one node. Each node has a second address routed the same
way, for a toxiproxy placed in one group's namespace in front of the node (`via_proxy`):
it takes over the health address there and forwards to the second one.

Addresses: 10.B.255.N (health) and 10.B.254.N (second) for node N (1-based), the pair
of group g and node n on 10.B.(16g + n).0/30; B and the interface names derive from
the PID, so that two runs side by side do not meet. Needs root and iproute2 (`ip`).
Everything made here is removed by close(), also after a failed setup.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from axharness import HarnessError, stop_process

NSFORWARD = Path(__file__).resolve().parent / "nsforward.py"

NETNS_DIR = "/var/run/netns"


def netns_available() -> str | None:
    """None when this machine can make the topology; otherwise why not."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if not shutil.which("ip"):
        return "iproute2 (`ip`) is not installed: run scripts/setup-test.sh"
    return None


def ip(*args: str, netns: str | None = None) -> None:
    cmd = ["ip", *(["-n", netns] if netns else []), *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise HarnessError(f"{' '.join(cmd)}: {r.stderr.strip()}")


@dataclass(frozen=True)
class VethPath:
    host_if: str  # the test namespace's end: `ip link set <it> down` cuts the path
    host_addr: str
    ns_addr: str


class NetPaths:
    def __init__(self, groups: list[str], nodes: list[str]):
        if why := netns_available():
            raise HarnessError(why)
        pid = os.getpid()
        self.tag = f"{pid % 0x10000:04x}"
        self.b = 100 + pid % 150
        self.groups, self.nodes = list(groups), list(nodes)
        self._netns: list[str] = []
        self._forwarders: list[subprocess.Popen] = []
        self._lo_addrs: list[str] = []
        self.paths: dict[tuple[str, str], VethPath] = {}
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def netns(self, group: str) -> str:
        return f"ax{self.tag}-{group}"

    def netns_path(self, group: str) -> str:
        return f"{NETNS_DIR}/{self.netns(group)}"

    def health_address(self, node: str) -> str:
        return f"10.{self.b}.255.{self.nodes.index(node) + 1}"

    def second_address(self, node: str) -> str:
        return f"10.{self.b}.254.{self.nodes.index(node) + 1}"

    def _build(self) -> None:
        for node in self.nodes:
            for addr in (self.health_address(node), self.second_address(node)):
                ip("addr", "add", f"{addr}/32", "dev", "lo")
                self._lo_addrs.append(addr)
        for g, group in enumerate(self.groups):
            ns = self.netns(group)
            ip("netns", "add", ns)
            self._netns.append(ns)
            ip("link", "set", "lo", "up", netns=ns)
            for n, node in enumerate(self.nodes):
                k = 16 * g + n
                host_if, ns_if = f"axh{self.tag}{k:03d}", f"axn{self.tag}{k:03d}"
                net = f"10.{self.b}.{k}"
                path = VethPath(host_if, f"{net}.1", f"{net}.2")
                ip("link", "add", host_if, "type", "veth", "peer", "name", ns_if,
                   "netns", ns)
                ip("addr", "add", f"{path.host_addr}/30", "dev", host_if)
                ip("link", "set", host_if, "up")
                ip("addr", "add", f"{path.ns_addr}/30", "dev", ns_if, netns=ns)
                ip("link", "set", ns_if, "up", netns=ns)
                for addr in (self.health_address(node), self.second_address(node)):
                    ip("route", "add", f"{addr}/32", "via", path.host_addr, netns=ns)
                self.paths[(group, node)] = path

    def command(self, group: str, argv: list[str]) -> list[str]:
        """argv run inside the group's namespace (`ip netns exec` execs it: the
        process's PID is the command's)."""
        return ["ip", "netns", "exec", self.netns(group), *argv]

    def forward_in(self, group: str, port: int) -> None:
        """127.0.0.1:port inside the group's namespace forwards to 127.0.0.1:port here
        (nsforward.py): the local kube-apiserver at the address its certificate
        names, whatever happens to the group's paths."""
        proc = subprocess.Popen(
            [sys.executable, str(NSFORWARD), "--listen-ns", self.netns_path(group),
             "--listen", f"127.0.0.1:{port}", "--connect", f"127.0.0.1:{port}"],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        self._forwarders.append(proc)
        line = proc.stdout.readline()
        if not line.startswith("listening "):
            raise HarnessError(f"nsforward into {group} did not start (exit {proc.poll()})")

    def cut(self, group: str, node: str) -> None:
        ip("link", "set", self.paths[(group, node)].host_if, "down")

    def restore(self, group: str, node: str) -> None:
        ip("link", "set", self.paths[(group, node)].host_if, "up")

    def via_proxy(self, group: str, node: str) -> None:
        """From now on the group's namespace holds the node's health address itself:
        a proxy listening there on it reaches the node at second_address(node)."""
        ip("addr", "add", f"{self.health_address(node)}/32", "dev", "lo",
           netns=self.netns(group))

    def close(self) -> None:
        """Deleting a namespace deletes its veth ends, and with them the peers."""
        errors = []
        for proc in self._forwarders:
            stop_process(proc)
        self._forwarders = []
        for ns in reversed(self._netns):
            try:
                ip("netns", "del", ns)
            except HarnessError as e:
                errors.append(str(e))
        for addr in self._lo_addrs:
            try:
                ip("addr", "del", f"{addr}/32", "dev", "lo")
            except HarnessError as e:
                errors.append(str(e))
        self._netns, self._lo_addrs = [], []
        if errors:
            raise HarnessError("; ".join(errors))
