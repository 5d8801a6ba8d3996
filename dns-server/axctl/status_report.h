// What `axctl status` says, from what it read: the served route table (its
// version, age, a rollback holding it, node health as each vantage group sees
// it), each ax-dns replica's served version (its probe sidecar's ProbeReport
// spec.served), Nodes, Rules and Canaries with their time left. One JSON
// model (-o json|yaml prints it) and its text rendering; pure (now_ms is an
// argument), reading the cluster is status_command.cc's.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ax/snapshot.h"

namespace ax {

struct StatusInputs {
  std::string route_table;                     // the ConfigMap's name
  const nlohmann::json* config_map = nullptr;  // null: not found
  const Snapshot* served = nullptr;            // its decoded document, if any
  std::string served_error;                    // why it did not decode
  std::vector<nlohmann::json> reports;         // ProbeReports
  std::vector<nlohmann::json> nodes;
  std::vector<nlohmann::json> rules;
  std::vector<nlohmann::json> canaries;
  int64_t now_ms = 0;
};

nlohmann::json StatusModel(const StatusInputs& in);

// The model as text: a line on the route table, then a table per part.
std::string StatusText(const nlohmann::json& model);

// "45s", "12m", "3h", "2d" (rounded down); negative as "0s".
std::string ShortDuration(int64_t ms);

}  // namespace ax
