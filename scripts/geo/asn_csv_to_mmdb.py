#!/usr/bin/env python3
"""Converts the @ip-location-db/asn CSVs into one MMDB that ax-dns reads as its ASN db.

Input rows: ip_range_start,ip_range_end,autonomous_system_number,autonomous_system_organization
(inclusive ranges, IPv4 and IPv6 files). Output: an IPv6 tree with IPv4 under ::/96 (the
layout libmaxminddb expects for IPv4 lookups in an IPv6 database), records
{autonomous_system_number: u32, autonomous_system_organization: str} as in GeoLite2-ASN.
"""

import argparse
import csv
import ipaddress
import os
import sys

from mmdb_common import Writer, range_to_networks


def read_rows(path):
    """Yields (first, last, asn, org) per CSV row; raises ValueError naming the line."""
    with open(path, newline="", encoding="utf-8") as f:
        for line_no, row in enumerate(csv.reader(f), start=1):
            if not row or row[0].startswith("#") or row[0] == "ip_range_start":
                continue
            try:
                first = ipaddress.ip_address(row[0])
                last = ipaddress.ip_address(row[1])
                asn = int(row[2])
                org = row[3] if len(row) > 3 else ""
            except (IndexError, ValueError) as e:
                raise ValueError(f"{path}:{line_no}: bad row {row!r}: {e}") from e
            if first.version != last.version or first > last or not 0 < asn < 2**32:
                raise ValueError(f"{path}:{line_no}: bad row {row!r}")
            yield first, last, asn, org


def convert(csv_paths, out_path):
    writer = Writer("ax-asn", "ASN data converted from @ip-location-db/asn CSV")
    # One record object per (asn, org): the writer deduplicates equal records, and
    # sharing them keeps memory low across ~500k ranges.
    records = {}
    count = 0
    for path in csv_paths:
        for first, last, asn, org in read_rows(path):
            record = records.setdefault((asn, org), writer.asn_record(asn, org))
            for network in range_to_networks(first, last):
                writer.insert(network, record)
            count += 1
    tmp = out_path + ".tmp"
    writer.write(tmp)
    os.replace(tmp, out_path)  # readers (ax-dns reload) never see a partial file
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="+", help="asn-ipv4.csv, asn-ipv6.csv")
    parser.add_argument("-o", "--output", required=True, help="output .mmdb")
    args = parser.parse_args()
    try:
        rows = convert(args.csv, args.output)
    except (OSError, ValueError) as e:
        print(f"asn_csv_to_mmdb: {e}", file=sys.stderr)
        return 1
    print(f"asn_csv_to_mmdb: {rows} ranges -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
