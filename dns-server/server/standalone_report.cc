// StandaloneReport (standalone_report.h): BuildReport, then every verdict
// still Unknown turned Up.
#include "server/standalone_report.h"

#include <algorithm>

#include "report/report_builder.h"

namespace ax::dns {

std::vector<std::string> CheckedNodes(const World& world) {
  std::vector<std::string> nodes;
  for (const Node& n : world.nodes) {
    if (n.health_check) nodes.push_back(n.meta.name);
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

ProbeReport StandaloneReport(
    const std::vector<std::string>& checked_nodes,
    const std::map<std::string, probe::NodeProbeState>& states,
    const std::string& vantage, int64_t now_ms) {
  ProbeReport report =
      probe::BuildReport(checked_nodes, states, vantage, now_ms);
  for (ProbeNodeReport& r : report.results) {
    if (r.health == Health::kUnknown) r.health = Health::kUp;
  }
  return report;
}

}  // namespace ax::dns
