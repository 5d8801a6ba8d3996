// `axctl drain NODE` / `axctl undrain NODE`: a Node's adminState set in the
// cluster (a JSON merge patch of its spec, as `kubectl patch --type merge`
// would), with how long it lasts (--for: adminStateExpiresAt, after which the
// operator answers the node again) and why (--reason: adminStateReason), and
// optionally waiting for the Drained condition. Cluster access is cluster.h's.
#pragma once

#include "axctl/args.h"

namespace ax {

extern const char kAdminUsage[];

// `drain` true for drain, false for undrain; the exit code.
int AdminStateCommand(const Args& args, bool drain);

}  // namespace ax
