// Internal to core/src: a route and its candidates as JSON, shared by the two
// views that show them (explain.cc, one client's decision; endpoints.cc, the
// table as proxies read it) so a candidate reads the same in both. Per-query
// facts (a trace's strategy keys and held-back nodes, cohort buckets) are
// the callers'.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/decide.h"
#include "ax/ip.h"
#include "ax/snapshot.h"

namespace ax::route_json {

// Lower case, without a trailing dot: how the snapshot spells an FQDN.
std::string NormaliseName(std::string name);

nlohmann::json Addresses(const std::vector<IpAddress>& addresses);

// The domain served under `name` (any case, trailing dot optional), or null.
const SnapshotDomain* FindDomain(const Snapshot& s, std::string_view name);
// The domain and service whose SRV name is `name` (normalised), or nulls.
struct SrvName {
  const SnapshotDomain* domain = nullptr;
  const SrvService* service = nullptr;
};
SrvName FindSrvName(const Snapshot& s, std::string_view name);
// {"error": ...} for a `name` FindDomain did not find.
nlohmann::json NotServed(const Snapshot& s, std::string_view name);

// The client subnet its cohort is keyed on, as text ("10.0.3.0/24").
std::string CohortSubnet(const IpAddress& client);

// What DNS answers for `answer`: the nodes it names, best first, and the
// addresses of `family` (nullopt: any): the nodes', or on the DomainFallback
// step the Domain's fixed ones.
struct AnsweredJson {
  nlohmann::json nodes;
  nlohmann::json addresses;
};
AnsweredJson Answered(const Snapshot& s, const SnapshotDomain& d,
                      const Answer& answer, std::optional<IpFamily> family);

// Each candidate of `route` best first: node, addresses, health and who
// measured it (`group`'s view where it saw the node), weight, score and its
// parts, latency, load, a slow-start ramp at `now_ms`. With a `trace`, also
// the strategy key and whether the ramp held the node back for that client.
nlohmann::json Candidates(const Snapshot& s, const SnapshotDomain& d,
                          const Route& route, const SnapshotVantageGroup* group,
                          const DecisionTrace* trace, int64_t now_ms);

// The route's own facts: source (and via), Rules, hysteresis, the failover
// TTL's end; its Canary (name, node, percent) when one applies.
nlohmann::json RouteFacts(const Snapshot& s, const Route& route);

}  // namespace ax::route_json
