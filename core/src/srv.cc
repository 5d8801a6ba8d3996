// SRV priority and weight from the pick (srv.h).
#include "ax/srv.h"

#include <algorithm>
#include <cmath>

namespace ax {
namespace {

constexpr double kMaxSrvWeight = 65535;

// The node's weight in the route, or a negative number when it is not a
// member (the canary node).
double WeightIn(const Route& route, uint32_t node) {
  for (const Candidate& c : route.candidates) {
    if (c.node == node) return c.weight;
  }
  return -1;
}

}  // namespace

std::string SrvOwnerName(const SrvService& service, std::string_view fqdn) {
  return "_" + service.service + "._" + service.protocol + "." +
         std::string(fqdn);
}

std::string SrvTargetName(std::string_view node, std::string_view fqdn) {
  return std::string(node) + "." + std::string(fqdn);
}

bool SpreadsByWeight(Strategy strategy) {
  return strategy == Strategy::kWeightedRandom ||
         strategy == Strategy::kConsistentHash;
}

Answer DecideSrv(const Snapshot& s, const SnapshotDomain& d, uint32_t region,
                 const ClientContext& client, int64_t now_ms, Rng& rng,
                 DecisionTrace* trace) {
  const uint32_t limit =
      SpreadsByWeight(d.strategy) ? kMaxAnswers : d.max_answers;
  return DecideUpTo(limit, s, d, region, client, std::nullopt, now_ms, rng,
                    trace);
}

SrvTargets SrvTargetsOf(const Snapshot& s, const SnapshotDomain& d,
                        const Answer& answer) {
  SrvTargets out;
  if (answer.source == RouteSource::kDomainFallback) return out;
  const Route& route = s.routes[answer.route];
  std::array<double, kMaxAnswers> weights{};
  double largest = 0;
  for (uint32_t i = 0; i < answer.count; ++i) {
    weights[i] = WeightIn(route, answer.nodes[i]);
    largest = std::max(largest, weights[i]);
  }
  const bool spread = SpreadsByWeight(d.strategy);
  for (uint32_t i = 0; i < answer.count; ++i) {
    const double w = weights[i] < 0 ? largest : weights[i];
    SrvTarget& t = out.targets[out.count++];
    t.node = answer.nodes[i];
    t.priority = static_cast<uint16_t>(spread ? 0 : i);
    t.weight = w <= 0 || largest <= 0
                   ? 0
                   : static_cast<uint16_t>(std::max(
                         1.0, std::round(kMaxSrvWeight * w / largest)));
  }
  return out;
}

}  // namespace ax
