// Candidate scoring: turns a node's health, load and latency plus its place in
// the region's priority list into factors in (0, 1] (ScoreParts) per strategy.
// Load over capacity is a penalty, never a veto; which factors count depends on
// the strategy. Eligibility (who may be a candidate at all) is decided here
// too.
#pragma once

#include <cstdint>
#include <optional>

#include "ax/model.h"
#include "ax/node_status.h"
#include "ax/snapshot.h"

namespace ax {

// Utilisation above this is penalised; below it a node counts as unloaded.
inline constexpr double kLoadKnee = 0.8;
// Floor so that even a badly overloaded node keeps a sliver of share: never a
// veto.
inline constexpr double kMinFactor = 0.02;

// max(load / capacity) over the capacities the node declares; -1 when nothing
// is known.
double Utilisation(const Capacity& capacity,
                   const std::optional<NodeLoad>& load);

// 1 up to kLoadKnee, then 1 / (1 + 4 (u - knee)): 0.56 at 100%, 0.26 at 150%,
// never 0.
double LoadFactor(double utilisation);

// What eligibility and scoring read of a node: as the global quorum sees it
// (FactsOf), or with the health and latency of one vantage group.
struct NodeFacts {
  AdminState admin_state = AdminState::kActive;
  Health health = Health::kUnknown;
  double latency_ms = -1;   // -1: not measured
  double utilisation = -1;  // -1: unknown
  int64_t up_since_ms = 0;  // SnapshotNode::up_since_ms, as seen here
};
NodeFacts FactsOf(const SnapshotNode& node);
// Node index `node` of `s` as the clients of regions measured by `group` are
// answered with it (SeenByGroup; null group: the global view).
NodeFacts FactsSeenBy(const Snapshot& s, uint32_t node,
                      const SnapshotVantageGroup* group);

// Whether a node may be answered at all: Active, and Up (or Unknown when
// allowed). Drained, disabled and down nodes leave; overloaded ones stay.
bool Eligible(const NodeFacts& node, bool answer_unknown);

// Context a route gives each candidate's score: the best and worst measured
// latency among the route's candidates (-1 when none is measured).
struct RouteLatency {
  double best_ms = -1;
  double worst_ms = -1;
};
RouteLatency MeasureRouteLatency(const std::vector<NodeFacts>& nodes,
                                 const std::vector<uint32_t>& members);

// Score parts of `node` at `position` in the region's priority order under
// `strategy`.
ScoreParts ComputeScore(Strategy strategy, const NodeFacts& node,
                        size_t position, const RouteLatency& route_latency);

}  // namespace ax
