"""Shared by the geo tools: a thin wrapper over the PyPI package mmdb-writer (installed
by scripts/setup.sh into ${AX_CACHE:-$HOME/.cache/ax}/venv) and IP range -> CIDR math.
"""

import ipaddress
import sys

try:
    from mmdb_writer import MMDBWriter, MmdbF64, MmdbU32
    from netaddr import IPNetwork, IPSet
except ImportError as e:  # the system python has neither: point at the venv
    sys.exit(f"{e}: run scripts/setup.sh and use ${{AX_CACHE:-$HOME/.cache/ax}}/venv/bin/python")


def range_to_networks(first, last):
    """Inclusive address range -> the minimal list of ipaddress networks covering it."""
    return list(ipaddress.summarize_address_range(first, last))


def to_mmdb_value(value):
    """JSON-ish value -> mmdb-writer value: ints become uint32 (ASNs) and floats doubles,
    so the on-disk types do not depend on magnitudes ("auto" would pick u16 for 4134)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return MmdbU32(value)
    if isinstance(value, float):
        return MmdbF64(value)
    if isinstance(value, dict):
        return {k: to_mmdb_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_mmdb_value(v) for v in value]
    return value


class Writer:
    """Collects networks per record and writes one MMDB. ip_version 6 trees keep IPv4
    under ::/96, where libmaxminddb looks IPv4 addresses up."""

    def __init__(self, database_type, description, ip_version=6):
        self._writer = MMDBWriter(
            ip_version=ip_version,
            database_type=database_type,
            languages=["en"],
            description={"en": description},
            ipv4_compatible=ip_version == 6,
        )
        self._networks = {}  # id(record) -> (record, [IPNetwork])

    @staticmethod
    def asn_record(asn, org):
        return to_mmdb_value(
            {"autonomous_system_number": asn, "autonomous_system_organization": org})

    def insert(self, network, record):
        """network: an ipaddress network; record: a value from to_mmdb_value."""
        entry = self._networks.setdefault(id(record), (record, []))
        entry[1].append(IPNetwork(str(network)))

    def write(self, path):
        # One IPSet per record: far fewer tree walks than one insert per CIDR.
        for record, networks in self._networks.values():
            self._writer.insert_network(IPSet(networks), record)
        self._writer.to_db_file(path)
