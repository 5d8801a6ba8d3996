#!/usr/bin/env python3
"""Real client subnets for the ECS mix: N distinct /24s, each inside a random range of
the ASN CSV that scripts/setup.sh fetches (RouteViews/RIR/DB-IP data), so the geo and
ASN lookups hit many different records. Seeded: the same N and seed give the same list.

  make_subnets.py ASN_IPV4_CSV N SEED > subnets.txt
  make_subnets.py --gdnsd-nets subnets.txt > nets   # gdnsd geoip nets map, 3 DCs
  ax_region_nets ... | make_subnets.py --gdnsd-region-nets - regions.yaml > nets
      # every "PREFIX REGION" line to the Region's datacenters in fallback order
"""
import ipaddress
import random
import sys

import yaml

# The quickstart's regions, so the mix has clients of every region (the rest is mostly
# the default Region plus US clients).
PINNED = ["113.108.1.0/24", "123.125.114.0/24", "8.8.8.0/24"]


def subnets(csv_path, count, seed):
    rng = random.Random(seed)
    ranges = []
    with open(csv_path) as f:
        for line in f:
            start, end = line.split(",", 2)[:2]
            ranges.append((int(ipaddress.IPv4Address(start)), int(ipaddress.IPv4Address(end))))
    out = list(PINNED)
    seen = set(out)
    while len(out) < count:
        start, end = rng.choice(ranges)
        net = (start + rng.randrange(end - start + 1)) & ~0xFF
        text = f"{ipaddress.IPv4Address(net)}/24"
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def gdnsd_nets(path):
    """A vscf hash: each subnet to one of three datacenters (deterministic)."""
    dcs = ["gz", "bj", "sj"]
    lines = []
    with open(path) as f:
        for i, line in enumerate(x.strip() for x in f if x.strip()):
            lines.append(f"{line} => [{dcs[i % 3]}]")
    return "\n".join(lines) + "\n"


def region_datacenters(regions_path):
    """Region name ("-": none matched, so the default Region) -> the datacenters
    (node name prefixes, gz-01 -> gz) of its nodes, then of its fallbackRegions'."""
    with open(regions_path) as f:
        specs = {d["metadata"]["name"]: d["spec"] for d in yaml.safe_load_all(f) if d}

    def own(name):
        return [n.split("-")[0] for n in specs[name].get("nodes", [])]

    out = {}
    for name, spec in specs.items():
        dcs = own(name)
        for fallback in spec.get("fallbackRegions", []):
            dcs += own(fallback)
        out[name] = list(dict.fromkeys(dcs))
        if spec.get("match", {}).get("default"):
            out["-"] = out[name]
    return out


# IPv6 space gdnsd maps onto IPv4 itself and refuses in nets (v4-compatible and
# -mapped, NAT64, Teredo, 6to4); prefixes touching it are left out (the mix is IPv4).
GDNSD_V4_LIKE = [ipaddress.ip_network(n) for n in
                 ("::/96", "::ffff:0:0/96", "64:ff9b::/96", "2001::/32", "2002::/16")]


def gdnsd_region_nets(lines, regions_path):
    dcs = region_datacenters(regions_path)
    out = []
    for line in lines:
        prefix, region = line.split()
        if ":" in prefix:
            net = ipaddress.ip_network(prefix)
            if any(net.overlaps(v4) for v4 in GDNSD_V4_LIKE):
                continue
        out.append(f"{prefix} => [{', '.join(dcs[region])}]")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) == 4 and argv[1] == "--gdnsd-region-nets":
        with (sys.stdin if argv[2] == "-" else open(argv[2])) as f:
            sys.stdout.write(gdnsd_region_nets(f, argv[3]))
        return 0
    if len(argv) == 3 and argv[1] == "--gdnsd-nets":
        sys.stdout.write(gdnsd_nets(argv[2]))
        return 0
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    print("\n".join(subnets(argv[1], int(argv[2]), int(argv[3]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
