#!/usr/bin/env python3
"""Writes the tiny MMDBs the geo unit tests read, from a JSON description:

  {"NAME.mmdb": {"database_type": "GeoIP2-City", "ip_version": 6,
                 "records": [{"networks": ["1.0.0.0/24", "2001:db8::/48"],
                              "data": {"country": {"iso_code": "CN"}}}]}}

ip_version 6 trees hold IPv4 networks under ::/96. In "data", integers are written
as uint32 and floats as doubles; {"$f32": 1.5} writes a float and {"$u16": 7} a
uint16, the other types real databases use (dbip stores coordinates as floats).
"""

import argparse
import ipaddress
import json
import os
import sys

from mmdb_common import Writer, to_mmdb_value
from mmdb_writer import MmdbF32, MmdbU16

TYPED = {"$f32": MmdbF32, "$u16": MmdbU16}


def convert(value):
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in TYPED:
            tag, inner = next(iter(value.items()))
            return TYPED[tag](inner)
        return {k: convert(v) for k, v in value.items()}
    if isinstance(value, list):
        return [convert(v) for v in value]
    return to_mmdb_value(value)


def write_database(path, spec):
    writer = Writer(spec["database_type"], f"ax test database {os.path.basename(path)}",
                    ip_version=spec.get("ip_version", 6))
    for record in spec["records"]:
        data = convert(record["data"])
        for network in record["networks"]:
            writer.insert(ipaddress.ip_network(network), data)
    tmp = path + ".tmp"
    writer.write(tmp)
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("description", help="JSON file, see above")
    parser.add_argument("outdir")
    args = parser.parse_args()
    with open(args.description, encoding="utf-8") as f:
        databases = json.load(f)
    os.makedirs(args.outdir, exist_ok=True)
    for name, spec in databases.items():
        write_database(os.path.join(args.outdir, name), spec)
    print(f"make_test_mmdb: {len(databases)} databases -> {args.outdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
