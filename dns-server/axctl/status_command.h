// `axctl status`: one look at a namespace's GSLB (status_report.h says
// what), read from the cluster (cluster.h).
#pragma once

#include "axctl/args.h"

namespace ax {

extern const char kStatusUsage[];

int StatusCommand(const Args& args);

}  // namespace ax
