// `axctl canary pause|resume|promote|abort NAME`: people's requests to a
// running Canary, written as its annotations (canary_control.h says what
// each means to the operator), optionally waiting until its status shows
// them. Cluster access is cluster.h's.
#pragma once

#include "axctl/args.h"

namespace ax {

extern const char kCanaryUsage[];

// args.positional: the request, then the Canary's name. The exit code.
int CanaryCommand(const Args& args);

}  // namespace ax
