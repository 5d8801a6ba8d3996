// `axctl query NAME`: one DNS query to an authoritative server and its answer,
// for operators and the Helm chart's test hook (the ax-dns image has axctl but
// no dig). The messages are dns_query.h's; this file owns flags and sockets.
#pragma once

#include "axctl/args.h"

namespace ax {

inline constexpr char kQueryUsage[] =
    "  axctl query NAME [--type A|AAAA|TXT|CNAME|SOA|NS] [--server "
    "HOST[:PORT]]\n"
    "        [--subnet CIDR] [--tcp] [--timeout SECONDS] [--expect ADDR ...] "
    "[--json]\n";

// Returns the process exit code: 0 NOERROR (and, with --expect, one of the
// expected addresses answered), 1 any other answer or a network error, 2 bad
// usage.
int QueryCommand(const Args& args);

}  // namespace ax
