// Enum <-> manifest name tables for the model. One table per enum serves both
// directions.
#include <array>
#include <string_view>
#include <utility>

#include "ax/enum_names.h"
#include "ax/model.h"

namespace ax {
namespace {

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
constexpr NameTable<AnycastPolicy, 2> kAnycastPolicies{{
    {AnycastPolicy::kDefault, "Default"},
    {AnycastPolicy::kFallback, "Fallback"},
}};

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
const char* AnycastPolicyName(AnycastPolicy p) {
  return NameOf(kAnycastPolicies, p);
}
std::optional<AnycastPolicy> ParseAnycastPolicy(std::string_view n) {
  return ValueOf(kAnycastPolicies, n);
}

}  // namespace ax
