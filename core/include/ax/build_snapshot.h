// The planner: declared World + believed node status (+ the previous snapshot,
// for hysteresis and failover TTLs) -> a new route-table Snapshot. Pure:
// `now_ms` and the version come in as options. Assumes a World that passed
// validate.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ax/model.h"
#include "ax/node_status.h"
#include "ax/quorum.h"
#include "ax/snapshot.h"

namespace ax {

struct BuildOptions {
  int64_t now_ms = 0;
  uint64_t version = 1;  // raised to previous->version + 1 if not above it
  // After a health-driven change of a route's candidates, answers carry the
  // failover TTL for this long so that resolvers re-ask soon while things
  // settle.
  int64_t failover_window_ms = 300'000;
};

// The health the builder gives `node`: its verdict in `status`, or Up when no
// health check probes it (it is then as healthy as its adminState says);
// Unknown before its first verdict.
Health NodeHealthOf(const Node& node, const StatusMap& status);

// Builds the snapshot. `status` is the global quorum's verdict per node;
// `groups` each vantage group's quorum (DecideGroupQuorums): a region whose
// group has fresh, trusted vantages plans its routes (fallbacks included)
// with the health and latency that group measured, node by node where it
// measured one. `previous` may be null (first build). Deterministic: the same
// inputs give the same snapshot (objects are ordered by name, not by input
// order).
Snapshot BuildSnapshot(const World& world, const StatusMap& status,
                       const Snapshot* previous, const BuildOptions& options,
                       const GroupQuorums& groups = {});

}  // namespace ax
