// axctl simulate's what-ifs on a served snapshot: recover what it was built
// from (each node's health, latency and load; each vantage group's view of the
// nodes), change that (a node Down or Up everywhere or as one vantage group
// sees it, a node's load) and the declared objects (manifests that replace
// their namesakes or join), then rebuild with the planner the operator runs
// (build_snapshot.h). Pure: the clock is an argument; reading sources and
// sampling answers live elsewhere.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/model.h"
#include "ax/node_status.h"
#include "ax/quorum.h"
#include "ax/snapshot.h"

namespace ax {

struct WhatIf {
  struct HealthOverride {
    std::string node;
    std::string group;  // a vantage group's name; "": every vantage
    Health health = Health::kDown;
  };
  std::vector<HealthOverride> health;
  std::map<std::string, double> load_percent;  // node -> load over capacity
  World objects;  // replace the objects of the same kind and name, or join
};

// "NODE" or "NODE@GROUP" (--down, --up); nullopt with `error` set.
std::optional<WhatIf::HealthOverride> ParseHealthOverride(std::string_view text,
                                                          Health health,
                                                          std::string& error);
// "NODE=PERCENT" (--load): the node's load over its capacity, 0..1000.
bool ParseLoadOverride(std::string_view text, WhatIf& what_if,
                       std::string& error);

// What the builder read when it made `served`, as far as the snapshot keeps
// it: node health, latency and utilisation (load is utilisation times the
// node's declared capacity in `world`), each group's vantage count and view.
struct BuildInputs {
  StatusMap status;
  GroupQuorums groups;
};
BuildInputs InputsOfSnapshot(const Snapshot& served, const World& world);

// Applies `what_if` to `world` and `inputs`. Returns what could not be
// applied (an unknown node or group, a load on a node without capacity, a
// cross-object error after the manifests joined); empty when all was.
std::vector<std::string> ApplyWhatIf(const WhatIf& what_if, World& world,
                                     BuildInputs& inputs);

// The snapshot the planner builds from `world` and `inputs` at `now_ms`, with
// `served` as the previous one (hysteresis, ramps and failover TTLs carry on).
Snapshot Rebuild(const World& world, const BuildInputs& inputs,
                 const Snapshot& served, int64_t now_ms);

}  // namespace ax
