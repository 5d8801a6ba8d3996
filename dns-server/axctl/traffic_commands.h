// `axctl diff` and `axctl simulate`: where each Region's clients would go,
// before and after, as shares of sampled clients per (Domain, Region).
// diff compares two snapshots (served, next, a kept version, a file);
// simulate rebuilds the served one with what-ifs (what_if.h). Sources are
// traffic_baseline.h's, sampling and the report traffic_shares.h's.
#pragma once

#include "axctl/args.h"

namespace ax {

extern const char kDiffUsage[];
extern const char kSimulateUsage[];

// Exit codes: 0 reported, 1 failed, 2 bad usage.
int DiffCommand(const Args& args);
int SimulateCommand(const Args& args);

}  // namespace ax
