"""Shared by the table generators: Debian's iso-codes package (ISO 3166 entries as JSON,
their Simplified Chinese names as gettext catalogs), its version, and the curated
CODE,NAME alias files. Standard library only.
"""

import collections
import gettext
import json
import subprocess

ISO_JSON = "/usr/share/iso-codes/json/iso_{}.json"
ZH_CN_MO = "/usr/share/locale/zh_CN/LC_MESSAGES/iso_{}.mo"


def version():
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "iso-codes"],
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def entries(standard, path=None):
    """The entries of ISO standard "3166-1" or "3166-2" (dicts with code/alpha_2, name...)."""
    with open(path or ISO_JSON.format(standard), encoding="utf-8") as f:
        return json.load(f)[standard]


def zh_cn(standard, path=None):
    """English name -> Simplified Chinese name, as iso-codes translates it."""
    with open(path or ZH_CN_MO.format(standard), "rb") as f:
        catalog = gettext.GNUTranslations(f)._catalog  # pylint: disable=protected-access
    return {k: v for k, v in catalog.items() if k and isinstance(k, str) and v}


def unambiguous(rows, top_level=lambda code: True):
    """(code, name) rows -> the same rows with "" for a name that several codes of one
    country share (case-insensitively), unless exactly one of them is top-level
    (top_level(code)): the table could not tell them apart."""
    by_key = collections.defaultdict(list)
    for code, name in rows:
        by_key[(code.split("-")[0], name.lower())].append(code)
    out = []
    for code, name in rows:
        same = by_key[(code.split("-")[0], name.lower())]
        top = [c for c in same if top_level(c)] or same
        out.append((code, name if len(set(top)) == 1 and top[0] == code else ""))
    return out


def alias_rows(path):
    """CODE,NAME rows of a curated alias file ('#' comments and blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                code, name = line.split(",", 1)
                yield code, name
