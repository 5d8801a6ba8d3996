// Enum <-> manifest name tables for the model. One table per enum serves both
// directions.
#include <array>
#include <string_view>
#include <utility>

#include "ax/model.h"

namespace ax {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, const char*>, N>;

constexpr NameTable<Strategy, 7> kStrategies{{
    {Strategy::kRegionPriority, "RegionPriority"},
    {Strategy::kWeightedRandom, "WeightedRandom"},
    {Strategy::kLeastConnections, "LeastConnections"},
    {Strategy::kConsistentHash, "ConsistentHash"},
    {Strategy::kLatency, "Latency"},
    {Strategy::kGeoClosest, "GeoClosest"},
    {Strategy::kFailover, "Failover"},
}};
constexpr NameTable<AdminState, 3> kAdminStates{{
    {AdminState::kActive, "Active"},
    {AdminState::kDrain, "Drain"},
    {AdminState::kDisabled, "Disabled"},
}};
constexpr NameTable<ProbeProtocol, 3> kProtocols{{
    {ProbeProtocol::kTcp, "TCP"},
    {ProbeProtocol::kHttp, "HTTP"},
    {ProbeProtocol::kHttps, "HTTPS"},
}};
constexpr NameTable<RuleAction, 3> kRuleActions{{
    {RuleAction::kPin, "Pin"},
    {RuleAction::kExclude, "Exclude"},
    {RuleAction::kWeight, "Weight"},
}};

template <typename E, size_t N>
const char* NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

template <typename E, size_t N>
std::optional<E> ValueOf(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table) {
    if (name == n) return v;
  }
  return std::nullopt;
}

}  // namespace

const char* StrategyName(Strategy s) { return NameOf(kStrategies, s); }
std::optional<Strategy> ParseStrategy(std::string_view n) {
  return ValueOf(kStrategies, n);
}
const char* AdminStateName(AdminState s) { return NameOf(kAdminStates, s); }
std::optional<AdminState> ParseAdminState(std::string_view n) {
  return ValueOf(kAdminStates, n);
}
const char* ProbeProtocolName(ProbeProtocol p) { return NameOf(kProtocols, p); }
std::optional<ProbeProtocol> ParseProbeProtocol(std::string_view n) {
  return ValueOf(kProtocols, n);
}
const char* RuleActionName(RuleAction a) { return NameOf(kRuleActions, a); }
std::optional<RuleAction> ParseRuleAction(std::string_view n) {
  return ValueOf(kRuleActions, n);
}

}  // namespace ax
