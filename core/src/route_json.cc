// Routes and candidates as JSON (route_json.h).
#include "route_json.h"

#include <algorithm>
#include <cctype>

#include "ax/node_status.h"
#include "ax/rfc3339.h"
#include "ax/srv.h"

namespace ax::route_json {
namespace {

bool WasHeldBack(const DecisionTrace& trace, uint32_t node) {
  const auto end = trace.held_back.begin() + trace.held_back_count;
  return std::find(trace.held_back.begin(), end, node) != end;
}

}  // namespace

std::string NormaliseName(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (!name.empty() && name.back() == '.') name.pop_back();
  return name;
}

nlohmann::json Addresses(const std::vector<IpAddress>& addresses) {
  nlohmann::json out = nlohmann::json::array();
  for (const IpAddress& a : addresses) out.push_back(FormatIp(a));
  return out;
}

const SnapshotDomain* FindDomain(const Snapshot& s, std::string_view name) {
  const std::string fqdn = NormaliseName(std::string(name));
  auto it =
      std::find_if(s.domains.begin(), s.domains.end(),
                   [&](const SnapshotDomain& d) { return d.fqdn == fqdn; });
  return it == s.domains.end() ? nullptr : &*it;
}

SrvName FindSrvName(const Snapshot& s, std::string_view name) {
  const std::string owner = NormaliseName(std::string(name));
  for (const SnapshotDomain& d : s.domains) {
    for (const SrvService& service : d.srv) {
      if (SrvOwnerName(service, d.fqdn) == owner) return {&d, &service};
    }
  }
  return {};
}

nlohmann::json NotServed(const Snapshot& s, std::string_view name) {
  return {{"error", "'" + NormaliseName(std::string(name)) +
                        "' is not a served domain in snapshot version " +
                        std::to_string(s.version)}};
}

std::string CohortSubnet(const IpAddress& client) {
  const int bits = CohortPrefixLength(client.family);
  return FormatPrefix({Mask(client, bits), bits});
}

AnsweredJson Answered(const Snapshot& s, const SnapshotDomain& d,
                      const Answer& answer, std::optional<IpFamily> family) {
  AnsweredJson out{nlohmann::json::array(), nlohmann::json::array()};
  const auto add = [&](const IpAddress& a) {
    if (!family || a.family == *family) out.addresses.push_back(FormatIp(a));
  };
  for (uint32_t i = 0; i < answer.count; ++i) {
    const SnapshotNode& n = s.nodes[answer.nodes[i]];
    out.nodes.push_back(n.name);
    for (const IpAddress& a : n.addresses) add(a);
  }
  if (s.routes[answer.route].source == RouteSource::kDomainFallback) {
    for (const IpAddress& a : d.fallback.addresses) add(a);
  }
  return out;
}

nlohmann::json Candidates(const Snapshot& s, const SnapshotDomain& d,
                          const Route& route, const SnapshotVantageGroup* group,
                          const DecisionTrace* trace, int64_t now_ms) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < route.candidates.size(); ++i) {
    const Candidate& c = route.candidates[i];
    const SnapshotNode& n = s.nodes[c.node];
    const GroupNodeView* seen = SeenByGroup(group, c.node);
    const Health health = seen ? seen->health : n.health;
    const double latency_ms = seen ? seen->latency_ms : n.latency_ms;
    nlohmann::json j = {
        {"node", n.name},
        {"addresses", Addresses(n.addresses)},
        {"health", HealthName(health)},
        {"measuredBy", seen ? group->name : "global"},
        {"weight", c.weight},
        {"score", c.score.Total()},
        {"parts",
         {{"health", c.score.health},
          {"load", c.score.load},
          {"latency", c.score.latency},
          {"priority", c.score.priority}}},
    };
    if (seen) {
      j["globalHealth"] = HealthName(n.health);
      j["votes"] = {{"up", seen->up_votes}, {"down", seen->down_votes}};
    }
    if (latency_ms >= 0) j["latencyMs"] = latency_ms;
    if (n.utilisation >= 0) j["utilisation"] = n.utilisation;
    if (trace && i < trace->keys_count) j["strategyKey"] = trace->keys[i];
    if (const double share = RampShare(c, d.slow_start_ms, now_ms); share < 1) {
      // Slow start: the node just turned Up and takes a growing share of
      // client subnets; a given client's may not be in it yet.
      j["slowStart"] = {{"upSince", FormatRfc3339Seconds(c.ramp_start_ms)},
                        {"upSinceMs", c.ramp_start_ms},
                        {"share", share}};
      if (trace) j["slowStart"]["heldBack"] = WasHeldBack(*trace, c.node);
    }
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json RouteFacts(const Snapshot& s, const Route& route) {
  nlohmann::json r = {{"source", RouteSourceName(route.source)},
                      {"rules", route.rules},
                      {"hysteresisHeld", route.hysteresis_held}};
  if (!route.via.empty()) r["via"] = route.via;
  if (route.failover_until_ms > 0) {
    r["failoverUntilMs"] = route.failover_until_ms;
  }
  if (route.canary != kNoIndex) {
    const SnapshotCanary& can = s.canaries[route.canary];
    r["canary"] = {{"name", can.name},
                   {"node", s.nodes[can.node].name},
                   {"percent", can.percent}};
  }
  return r;
}

}  // namespace ax::route_json
