// Name-based lookups into the previous snapshot, for what the builder carries
// over between versions (hysteresis incumbents, failover windows). Indices may
// shift between versions; names do not.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "ax/snapshot.h"

namespace ax {

class PreviousSnapshot {
 public:
  explicit PreviousSnapshot(const Snapshot* prev);

  // The route (domain name, region name) had; region "" is the unclassified
  // slot.
  const Route* FindRoute(const std::string& domain,
                         const std::string& region) const;
  const std::string& NodeName(uint32_t index) const {
    return prev_->nodes[index].name;
  }
  // The health a node had for `region`'s clients (as its vantage group saw
  // it, else globally; region "" is the unclassified slot), or nullopt when
  // the node did not exist.
  std::optional<Health> HealthSeenFor(const std::string& region,
                                      const std::string& node) const;

 private:
  const Snapshot* prev_;
  std::unordered_map<std::string, size_t> domains_;
  std::unordered_map<std::string, size_t> regions_;
  std::unordered_map<std::string, Health> health_;
  // Region name -> node name -> the health its vantage group saw (groups
  // with vantages, nodes they saw Up or Down).
  std::unordered_map<std::string, std::unordered_map<std::string, Health>>
      seen_by_region_;
};

}  // namespace ax
