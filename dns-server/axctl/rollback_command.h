// `axctl rollback`: the route table back to a kept version's content, through
// the operator (the annotation gslb.ax.io/rollback-to on the route-table
// ConfigMap, which it obeys until removed: --resume), and the kept versions
// listed (--list). Cluster access is cluster.h's; what a rollback publishes is
// the operator's (plan/src/route_table_plan.cc).
#pragma once

#include "axctl/args.h"

namespace ax {

extern const char kRollbackUsage[];

int RollbackCommand(const Args& args);

}  // namespace ax
