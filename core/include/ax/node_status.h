// What the system currently believes about each node at run time (health
// verdict, latency, load, reported error rate), the input the snapshot builder
// combines with the declared World. Produced by the health state machine /
// quorum (health.h, quorum.h); plain data here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ax {

enum class Health : uint8_t { kUnknown, kUp, kDown };
const char* HealthName(Health h);
std::optional<Health> ParseHealth(std::string_view name);

// Load a node reports about itself (from its health endpoint's JSON body).
struct NodeLoad {
  double bandwidth_mbps = 0;
  double connections = 0;
};

struct NodeStatus {
  Health health = Health::kUnknown;
  std::optional<double> latency_ms;  // smoothed; absent until measured
  std::optional<NodeLoad> load;      // absent until reported
  int64_t health_changed_at_ms = 0;  // when `health` last changed (0: never)
  // The share of requests the node says failed lately, 0..1 (its health
  // endpoint's JSON body); absent until reported.
  std::optional<double> error_rate;
};

// Node name -> status. A node missing here is Unknown with nothing measured.
using StatusMap = std::map<std::string, NodeStatus>;

}  // namespace ax
