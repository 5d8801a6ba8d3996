// The vantage's ProbeReport from the engine's per-node state, and the parts of
// it that decide when it is written (health per node) and when the prober is
// ready (every node has a verdict). Pure: states and clock are arguments.
// Shared by ax-probe and standalone ax-dns; writing the report and its
// timing are ax-probe's (sidecar/report_output.h, report_schedule.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ax/probe_report.h"
#include "engine/engine.h"

namespace ax::probe {

// One result per node in `nodes` (the targets set now, sorted, unique), from
// `states` where the engine has one: a node the engine has not applied yet
// is Unknown, and a node the engine still holds but `nodes` lacks (just
// deleted) is left out, so a deleted Node leaves the report at once.
ProbeReport BuildReport(const std::vector<std::string>& nodes,
                        const std::map<std::string, NodeProbeState>& states,
                        const std::string& vantage, int64_t now_ms);

// Node -> verdict: a report whose key differs from the last written one is
// written at once (a verdict changed, or a node came or went).
using HealthKey = std::map<std::string, Health>;
HealthKey HealthKeyOf(const ProbeReport& report);

// True when every node in `nodes` has a verdict (Up or Down): the first full
// round is done. Vacuously true for no nodes.
bool FirstRoundDone(const std::vector<std::string>& nodes,
                    const std::map<std::string, NodeProbeState>& states);

}  // namespace ax::probe
