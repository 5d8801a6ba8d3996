#!/usr/bin/env python3
"""/proc helpers for run.sh: CPU ticks and memory of a server's process tree.

  proc.py ticks PID         utime+stime (clock ticks) of PID and its descendants
  proc.py mem PID           JSON: VmRSS/VmHWM/RssAnon/RssFile/RssShmem (KiB) and the
                            resident KiB of each mapped file (e.g. the .mmdb files)
  proc.py affinity PID      "tid:cpus" of every thread of PID and its descendants
  proc.py busy SECONDS      CPU time used on the whole machine over SECONDS, in cores
  proc.py snap SERVERS SHELL a snapshot (JSON) for "foreign": machine busy ticks, kernel
                            threads' ticks, the server trees', the shell's waited children
                            (SERVERS: PID[,PID...], the servers measured together; 0: none)
  proc.py foreign SNAPFILE SERVERS SHELL
                            cores used since the snapshot by anything but the servers,
                            the shell's children (the load generator) and kernel threads
  proc.py hz                clock ticks per second
"""
import json
import os
import sys
import time


def stat_fields(pid):
    """Fields after the command name of /proc/PID/stat (index 0 = state)."""
    with open(f"/proc/{pid}/stat") as f:
        data = f.read()
    return data[data.rindex(")") + 2:].split()


def descendants(root):
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(stat_fields(entry)[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def ticks(root):
    total = 0
    for pid in descendants(root):
        try:
            f = stat_fields(pid)
        except OSError:
            continue
        total += int(f[11]) + int(f[12])  # utime, stime
    return total


def mem(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "VmSize"):
                out[key + "_kib"] = int(value.split()[0])
    files = {}
    current = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if not head:
                continue
            if "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
                current = head[5] if len(head) >= 6 and head[5].startswith("/") else None
            elif head[0] == "Rss:" and current:
                files[current] = files.get(current, 0) + int(head[1])
    out["mapped_files_rss_kib"] = {
        k: v for k, v in sorted(files.items(), key=lambda kv: -kv[1]) if v >= 64}
    return out


def affinity(root):
    rows = []
    for pid in descendants(root):
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    for line in f:
                        if line.startswith("Cpus_allowed_list:"):
                            rows.append(f"{tid}:{line.split()[1]}")
            except OSError:
                pass
    return " ".join(rows)


def machine_busy_ticks():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields[:8]) - idle


def kthread_ticks():
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            f = stat_fields(entry)
        except OSError:
            continue
        if entry == "2" or f[1] == "2":  # kthreadd and its children
            total += int(f[11]) + int(f[12])
    return total


def server_ticks(servers):
    total = 0
    for pid in servers:
        try:
            total += ticks(pid) if pid > 0 else 0
        except OSError:
            pass
    return total


def snapshot(servers, shell):
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    sf = stat_fields(shell)
    return {"t": time.monotonic(), "busy": fields[0] + fields[1] + fields[2],
            "kthreads": kthread_ticks(), "server": server_ticks(servers),
            "children": int(sf[13]) + int(sf[14])}  # cutime, cstime


def foreign(before, servers, shell):
    after = snapshot(servers, shell)
    used = (after["busy"] - before["busy"]) - (after["kthreads"] - before["kthreads"]) \
        - (after["server"] - before["server"]) - (after["children"] - before["children"])
    seconds = max(1e-3, after["t"] - before["t"])
    return max(0.0, used / os.sysconf("SC_CLK_TCK") / seconds)


def pids(text):
    return [int(p) for p in text.split(",") if p]


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    if cmd == "ticks":
        print(ticks(int(argv[2])))
    elif cmd == "mem":
        print(json.dumps(mem(int(argv[2]))))
    elif cmd == "affinity":
        print(affinity(int(argv[2])))
    elif cmd == "busy":
        seconds = float(argv[2])
        before = machine_busy_ticks()
        time.sleep(seconds)
        used = machine_busy_ticks() - before
        print(f"{used / os.sysconf('SC_CLK_TCK') / seconds:.3f}")
    elif cmd == "snap":
        print(json.dumps(snapshot(pids(argv[2]), int(argv[3]))))
    elif cmd == "foreign":
        with open(argv[2]) as f:
            before = json.load(f)
        print(f"{foreign(before, pids(argv[3]), int(argv[4])):.3f}")
    elif cmd == "hz":
        print(os.sysconf("SC_CLK_TCK"))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
