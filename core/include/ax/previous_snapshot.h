// Name-based lookups into the previous snapshot, for what the builder carries
// over between versions (hysteresis incumbents, failover windows, when nodes
// turned Up). Indices may shift between versions; names do not.
#pragma once

#include <cstdint>
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

  // A node's health and Up-since time as the previous table had them:
  // globally, or as vantage group `group` saw it (Up or Down; nullopt when
  // that group did not see it, or the table did not have the node).
  struct UpState {
    Health health = Health::kUnknown;
    int64_t up_since_ms = 0;
  };
  std::optional<UpState> NodeUpState(const std::string& node) const;
  std::optional<UpState> GroupUpState(const std::string& group,
                                      const std::string& node) const;

  // When a node that is `health` now has been Up since, given what the
  // previous table said of it (`before`; nullopt: it did not have the node):
  // 0 when not Up or without any previous table (a first table ramps nobody),
  // carried over while it stays Up, `now_ms` when it has just turned Up or
  // joined.
  int64_t UpSince(Health health, const std::optional<UpState>& before,
                  int64_t now_ms) const;

 private:
  const Snapshot* prev_;
  std::unordered_map<std::string, size_t> domains_;
  std::unordered_map<std::string, size_t> regions_;
  std::unordered_map<std::string, Health> health_;
  // Region name -> node name -> the health its vantage group saw (groups
  // with vantages, nodes they saw Up or Down).
  std::unordered_map<std::string, std::unordered_map<std::string, Health>>
      seen_by_region_;
  std::unordered_map<std::string, UpState> up_;
  // Group name -> node name -> what the group saw (Up or Down).
  std::unordered_map<std::string, std::unordered_map<std::string, UpState>>
      group_up_;
};

}  // namespace ax
