#!/usr/bin/env python3
"""Real client subnets for the ECS mix: N distinct /24s, each inside a random range of
the ASN CSV that scripts/setup.sh fetches (RouteViews/RIR/DB-IP data), so the geo and
ASN lookups hit many different records. Seeded: the same N and seed give the same list.

  make_subnets.py ASN_IPV4_CSV N SEED > subnets.txt
  make_subnets.py --gdnsd-nets subnets.txt > nets   # gdnsd geoip nets map, 3 DCs
"""
import ipaddress
import random
import sys

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


def main(argv):
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
