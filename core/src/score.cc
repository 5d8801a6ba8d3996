// Scoring factors. The constants are product decisions; tests in score_test.cc
// and strategy tests pin their effect.
#include "ax/score.h"

#include <algorithm>
#include <cmath>

namespace ax {
namespace {

// Health factor of an Unknown node that is allowed to answer: it ranks behind
// proven nodes.
constexpr double kUnknownHealthFactor = 0.5;
// Region-priority: each step down the declared order costs this much (1, .8,
// .67, .57...).
constexpr double kPriorityStep = 0.25;
// Latency offsets (ms) so that 1 ms vs 2 ms is not a 2x difference.
constexpr double kLatencyOffsetMs = 10;
constexpr double kCorrectionOffsetMs = 20;

double LatencyRatio(double latency_ms, const RouteLatency& route,
                    double offset) {
  if (route.best_ms < 0)
    return 1;  // nothing measured: latency cannot discriminate
  // Unmeasured nodes are assumed as slow as the slowest measured one:
  // conservative.
  const double lat = latency_ms < 0 ? route.worst_ms : latency_ms;
  return std::clamp((route.best_ms + offset) / (lat + offset), kMinFactor, 1.0);
}

}  // namespace

double Utilisation(const Capacity& capacity,
                   const std::optional<NodeLoad>& load) {
  if (!load) return -1;
  double u = -1;
  if (capacity.bandwidth_mbps > 0)
    u = std::max(u, load->bandwidth_mbps / capacity.bandwidth_mbps);
  if (capacity.connections > 0)
    u = std::max(u, load->connections / capacity.connections);
  return u;
}

double LoadFactor(double utilisation) {
  if (utilisation <= kLoadKnee) return 1;
  return std::max(kMinFactor, 1 / (1 + 4 * (utilisation - kLoadKnee)));
}

NodeFacts FactsOf(const SnapshotNode& node) {
  return {node.admin_state, node.health, node.latency_ms, node.utilisation,
          node.up_since_ms};
}

NodeFacts FactsSeenBy(const Snapshot& s, uint32_t node,
                      const SnapshotVantageGroup* group) {
  NodeFacts facts = FactsOf(s.nodes[node]);
  if (const GroupNodeView* seen = SeenByGroup(group, node)) {
    facts.health = seen->health;
    facts.latency_ms = seen->latency_ms;
    facts.up_since_ms = seen->up_since_ms;
  }
  return facts;
}

bool Eligible(const NodeFacts& node, bool answer_unknown) {
  if (node.admin_state != AdminState::kActive) return false;
  return node.health == Health::kUp ||
         (answer_unknown && node.health == Health::kUnknown);
}

RouteLatency MeasureRouteLatency(const std::vector<NodeFacts>& nodes,
                                 const std::vector<uint32_t>& members) {
  RouteLatency r;
  for (uint32_t i : members) {
    const double lat = nodes[i].latency_ms;
    if (lat < 0) continue;
    r.best_ms = r.best_ms < 0 ? lat : std::min(r.best_ms, lat);
    r.worst_ms = std::max(r.worst_ms, lat);
  }
  return r;
}

ScoreParts ComputeScore(Strategy strategy, const NodeFacts& node,
                        size_t position, const RouteLatency& route_latency) {
  ScoreParts p;
  p.health = node.health == Health::kUp ? 1.0 : kUnknownHealthFactor;
  if (strategy == Strategy::kFailover) {
    // Ordered failover: declared order only, so that nothing but health moves
    // traffic.
    p.priority = 1 / (1 + static_cast<double>(position));
    return p;
  }
  p.load = LoadFactor(node.utilisation);
  switch (strategy) {
    case Strategy::kRegionPriority:
      // Priority leads; latency corrects it (square root: a 3x slower first
      // choice loses to the second, a 1.5x slower one does not).
      p.priority = 1 / (1 + kPriorityStep * static_cast<double>(position));
      p.latency = std::sqrt(
          LatencyRatio(node.latency_ms, route_latency, kCorrectionOffsetMs));
      break;
    case Strategy::kLatency:
      p.latency =
          LatencyRatio(node.latency_ms, route_latency, kLatencyOffsetMs);
      break;
    case Strategy::kLeastConnections:
      // Rank by utilisation itself, not just the penalty past the knee.
      p.load = std::max(kMinFactor, 1 / (1 + std::max(0.0, node.utilisation)));
      break;
    default:
      // Weighted, hashing and geo strategies use health x load as a weight
      // multiplier.
      break;
  }
  return p;
}

}  // namespace ax
