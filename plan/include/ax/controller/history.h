// Which kept route-table versions (ConfigMaps <name>-v<version>) to create and
// delete so that the newest `depth` published versions remain, the one in
// force among them. Encoding the ConfigMaps is route_table_configmap.h's;
// deciding what is in force is route_table_plan.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ax::controller {

struct HistoryPlan {
  bool create_in_force = false;      // the version in force has no copy yet
  std::vector<std::string> deletes;  // ConfigMap names, oldest first
};

// `history`: the listed ConfigMaps (names not of the form <route_table>-v<N>
// are ignored). `in_force_version` 0 means nothing is in force.
HistoryPlan PlanHistory(const std::vector<nlohmann::json>& history,
                        const std::string& route_table, size_t depth,
                        uint64_t in_force_version);

// The highest version among the history ConfigMaps' names (0 when none).
uint64_t HighestHistoryVersion(const std::vector<nlohmann::json>& history,
                               const std::string& route_table);

}  // namespace ax::controller
