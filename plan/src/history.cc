// PlanHistory (history.h): versions come from the ConfigMap names, which the
// codec writes and parses (HistoryConfigMapName), so no document is decoded.
#include "ax/controller/history.h"

#include <algorithm>
#include <set>

#include "ax/controller/object_ref.h"
#include "ax/route_table_configmap.h"

namespace ax::controller {
namespace {

std::set<uint64_t> KeptVersions(const std::vector<nlohmann::json>& history,
                                const std::string& route_table) {
  std::set<uint64_t> versions;
  for (const nlohmann::json& cm : history) {
    if (auto v = ParseHistoryConfigMapName(route_table, RefOf(cm).name)) {
      versions.insert(*v);
    }
  }
  return versions;
}

}  // namespace

HistoryPlan PlanHistory(const std::vector<nlohmann::json>& history,
                        const std::string& route_table, size_t depth,
                        uint64_t in_force_version) {
  HistoryPlan plan;
  std::set<uint64_t> versions = KeptVersions(history, route_table);
  if (in_force_version != 0 && depth > 0 &&
      versions.insert(in_force_version).second) {
    plan.create_in_force = true;
  }
  // Everything but the newest `depth` goes, oldest first.
  size_t excess = versions.size() - std::min(depth, versions.size());
  for (auto it = versions.begin(); excess > 0; ++it, --excess) {
    if (*it == in_force_version && plan.create_in_force) {
      plan.create_in_force = false;  // too old to keep: never created
      continue;
    }
    plan.deletes.push_back(HistoryConfigMapName(route_table, *it));
  }
  return plan;
}

uint64_t HighestHistoryVersion(const std::vector<nlohmann::json>& history,
                               const std::string& route_table) {
  const auto versions = KeptVersions(history, route_table);
  return versions.empty() ? 0 : *versions.rbegin();
}

}  // namespace ax::controller
