// The standalone vantage's ProbeReport, the plan's only health input in
// standalone mode: the in-process engine's node states through probe's
// BuildReport, as ax-probe builds its own. Pure: states and clock are
// arguments; probing and planning live elsewhere.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ax/model.h"
#include "ax/probe_report.h"
#include "engine/engine.h"

namespace ax::dns {

// The nodes of `world` that declare a healthCheck, sorted and unique.
std::vector<std::string> CheckedNodes(const World& world);

// One result per node of `checked_nodes`, from `states` (the engine's
// Snapshot(); empty when not probing). A node without a verdict (not probed
// yet, or probing off: --no-probe, or the prober failed to start) is
// reported Up with no probe behind it (up false, no latency), so the plan
// counts it Up by adminState as standalone always has; the operator, with
// no report for it, would hold it Unknown. Nodes without a healthCheck are
// not in the report: the snapshot builder counts them Up itself.
ProbeReport StandaloneReport(
    const std::vector<std::string>& checked_nodes,
    const std::map<std::string, probe::NodeProbeState>& states,
    const std::string& vantage, int64_t now_ms);

}  // namespace ax::dns
