#!/usr/bin/env python3
"""A TCP forwarder between two network namespaces, for tests that put processes in
namespaces of their own (netpaths.py): it listens in one namespace and connects in
another, so that an ax-probe inside a vantage's namespace reaches the local
kube-apiserver at the very address its certificate names (127.0.0.1), without a route
between the namespaces that a cut could take away.

  nsforward.py --listen HOST:PORT [--listen-ns PATH] --connect HOST:PORT [--connect-ns PATH]

PATH is a namespace file (/var/run/netns/NAME, /proc/PID/ns/net); absent: the
namespace the forwarder was started in. PORT 0 on --listen: the kernel picks; the
address is printed as the first line of stdout ("listening HOST:PORT"). Each accepted
connection gets one connection upstream and two pump threads; the process ends on
SIGTERM (its owner stops it by PID).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import socket
import sys
import threading

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def enter(path: str | None) -> None:
    """Moves the calling thread into the network namespace of `path`. Sockets keep the
    namespace they were made in, and threads started later inherit this one."""
    if not path:
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns({path}): {os.strerror(err)}")
    finally:
        os.close(fd)


def host_port(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def pump(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        # The other direction may still carry the reply: half-close, then let the
        # other pump end both.
        for s, how in ((dst, socket.SHUT_WR), (src, socket.SHUT_RD)):
            try:
                s.shutdown(how)
            except OSError:
                pass


def serve(listener: socket.socket, upstream: tuple[str, int]) -> None:
    while True:
        client, _ = listener.accept()
        try:
            remote = socket.create_connection(upstream, timeout=5)
        except OSError:
            client.close()
            continue
        remote.settimeout(None)
        for a, b in ((client, remote), (remote, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--listen", required=True)
    p.add_argument("--listen-ns")
    p.add_argument("--connect", required=True)
    p.add_argument("--connect-ns")
    args = p.parse_args()
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    enter(args.listen_ns)
    listener = socket.create_server(host_port(args.listen), reuse_port=False)
    # Back home first, so that a --connect-ns relative to it means what it says.
    if _libc.setns(home, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns back to the starting namespace")
    os.close(home)
    enter(args.connect_ns)
    host, port = listener.getsockname()[:2]
    print(f"listening {host}:{port}", flush=True)
    serve(listener, host_port(args.connect))
    return 0


if __name__ == "__main__":
    sys.exit(main())
