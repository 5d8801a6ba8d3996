// `axctl explain NAME --client IP ...`: asks a running ax-dns (--server URL) or
// replays the decision locally from a snapshot file or manifests, with geo from
// real databases (geo_flags.h) or given by hand.
#pragma once

#include "axctl/args.h"

namespace ax {

inline constexpr char kExplainUsage[] =
    "  axctl explain NAME --client IP [--ecs PREFIX/LEN] [--aaaa | --srv] "
    "[--json]\n"
    "        (--srv: NAME is _SERVICE._PROTO.FQDN of a Domain's spec.srv)\n"
    "        (--server URL\n"
    "         | (--snapshot FILE | --manifests PATH)\n"
    "           [--geo-db FILE ... [--asn-db FILE ...] [--ipdb FILE ...]\n"
    "            [--ip2region FILE ...] [--geo-schema geoip2|dbip]\n"
    "            [--geo-field FIELD=PATH ...] [--geo-precedence "
    "GROUP=KIND,...] [--geo-cities]\n"
    "            | --country CC --subdivision XX-YY --asn N --lat F --lon "
    "F])\n";

// Returns the process exit code: 0 explained, 1 failed, 2 bad usage.
int ExplainCommand(const Args& args);

}  // namespace ax
