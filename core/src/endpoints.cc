// DomainEndpoints and ClientEndpoints (endpoints.h): the snapshot's routes as
// JSON through route_json.h, as explain shows them.
#include "ax/endpoints.h"

#include "ax/decide.h"
#include "ax/rfc3339.h"
#include "ax/rng.h"
#include "ax/srv.h"
#include "route_json.h"

namespace ax {
namespace {

using nlohmann::json;

json Header(const Snapshot& s, const SnapshotDomain& d) {
  json srv = json::array();
  for (const SrvService& service : d.srv) {
    srv.push_back(
        {{"name", SrvOwnerName(service, d.fqdn)}, {"port", service.port}});
  }
  return {{"snapshot",
           {{"version", s.version},
            {"contentHash", s.content_hash},
            {"generatedAt", FormatRfc3339Seconds(s.generated_at_ms)}}},
          {"domain",
           {{"name", d.name},
            {"fqdn", d.fqdn},
            {"strategy", StrategyName(d.strategy)},
            {"maxAnswers", d.max_answers},
            {"ttl",
             {{"steady", d.ttl.steady},
              {"failover", d.ttl.failover},
              {"canary", d.ttl.canary}}},
            {"srv", std::move(srv)}}}};
}

// Region index `r` (kNoIndex: clients no Region matches) of domain `d`.
json RegionEntry(const Snapshot& s, const SnapshotDomain& d, uint32_t r,
                 int64_t now_ms) {
  // A domain has a route per region, then one for unmatched clients.
  const uint32_t slot =
      r == kNoIndex ? static_cast<uint32_t>(d.routes.size() - 1) : r;
  const Route& route = s.routes[d.routes[slot]];
  const SnapshotVantageGroup* group =
      r == kNoIndex ? nullptr : GroupOf(s, s.regions[r]);
  json entry = route_json::RouteFacts(s, route);
  entry["region"] = r == kNoIndex ? json(nullptr) : json(s.regions[r].name);
  entry["endpoints"] =
      route_json::Candidates(s, d, route, group, nullptr, now_ms);
  if (group) entry["vantageGroup"] = group->name;
  if (route.spill_route != kNoIndex && route.spill_share > 0) {
    entry["spill"] = {{"share", route.spill_share},
                      {"to", s.routes[route.spill_route].via}};
  }
  if (route.source == RouteSource::kDomainFallback) {
    if (!d.fallback.cname.empty()) entry["cname"] = d.fallback.cname;
    entry["addresses"] = route_json::Addresses(d.fallback.addresses);
  }
  return entry;
}

}  // namespace

json DomainEndpoints(const Snapshot& s, const std::string& fqdn,
                     const std::optional<std::string>& region, int64_t now_ms) {
  const SnapshotDomain* d = route_json::FindDomain(s, fqdn);
  if (!d) return route_json::NotServed(s, fqdn);
  json out = Header(s, *d);
  json regions = json::array();
  for (uint32_t r = 0; r < s.regions.size(); ++r) {
    if (!region || *region == s.regions[r].name) {
      regions.push_back(RegionEntry(s, *d, r, now_ms));
    }
  }
  if (!region || region->empty()) {
    regions.push_back(RegionEntry(s, *d, kNoIndex, now_ms));
  }
  if (regions.empty()) {
    return {{"error", "no Region '" + *region + "' in snapshot version " +
                          std::to_string(s.version)}};
  }
  out["regions"] = std::move(regions);
  return out;
}

json ClientEndpoints(const Snapshot& s, const Classifier& classifier,
                     const std::string& fqdn, const EndpointsClient& client,
                     int64_t now_ms) {
  const SnapshotDomain* d = route_json::FindDomain(s, fqdn);
  if (!d) return route_json::NotServed(s, fqdn);
  const Classification cls = classifier.Classify(client.address, client.geo);
  json out = Header(s, *d);
  out["regions"] = json::array({RegionEntry(s, *d, cls.region, now_ms)});
  Rng rng(0);
  const Answer answer = Decide(s, *d, cls.region,
                               {ClientCohort(client.address),
                                client.geo.has_location, client.geo.location},
                               client.family, now_ms, rng);
  route_json::AnsweredJson answered =
      route_json::Answered(s, *d, answer, client.family);
  out["client"] = {{"address", FormatIp(client.address)},
                   {"cohortSubnet", route_json::CohortSubnet(client.address)},
                   {"region", out["regions"][0]["region"]}};
  out["answer"] = {{"nodes", std::move(answered.nodes)},
                   {"addresses", std::move(answered.addresses)},
                   {"source", RouteSourceName(s.routes[answer.route].source)},
                   {"canary", answer.canary},
                   {"spilled", answer.spilled},
                   {"ttl", answer.ttl},
                   {"ttlReason", TtlReasonName(answer.ttl_reason)}};
  return out;
}

}  // namespace ax
