// `axctl geodb lookup IP...`: what every loaded geo source says about an
// address, and what the resolver makes of them by the field precedence — to
// see which database to trust where they disagree.
#pragma once

#include "axctl/args.h"

namespace ax {

inline constexpr char kGeodbUsage[] =
    "  axctl geodb lookup IP... [--json] [--geo-db FILE ...] [--asn-db FILE "
    "...]\n"
    "        [--ipdb FILE ...] [--ip2region FILE ...] [--geo-schema "
    "geoip2|dbip]\n"
    "        [--geo-field FIELD=PATH ...] [--geo-precedence GROUP=KIND,...]\n"
    "        [--geo-cities]\n";

// Returns the process exit code: 0 looked up, 1 failed, 2 bad usage.
int GeodbCommand(const Args& args);

}  // namespace ax
