// Explain: assembles the decision chain from Classify + Decide (with a
// DecisionTrace). Only formatting lives here; every decision is made by the
// data-plane functions.
#include "ax/explain.h"

#include <algorithm>

#include "ax/decide.h"
#include "ax/isp_sets.h"
#include "ax/rfc3339.h"
#include "ax/srv.h"
#include "route_json.h"

namespace ax {
namespace {

// The records an SRV answer holds for `answer` (answer.cc writes the same):
// the nodes as targets with priority and weight, or the fallback's target.
nlohmann::json SrvRecords(const Snapshot& s, const SnapshotDomain& d,
                          const SrvService& service, const Answer& answer) {
  nlohmann::json out = nlohmann::json::array();
  if (answer.source == RouteSource::kDomainFallback) {
    out.push_back(
        {{"target", d.fallback.cname.empty() ? d.fqdn : d.fallback.cname},
         {"priority", 0},
         {"weight", 0},
         {"port", service.port}});
  }
  const SrvTargets targets = SrvTargetsOf(s, d, answer);
  for (uint32_t i = 0; i < targets.count; ++i) {
    const SrvTarget& t = targets.targets[i];
    out.push_back({{"target", SrvTargetName(s.nodes[t.node].name, d.fqdn)},
                   {"node", s.nodes[t.node].name},
                   {"priority", t.priority},
                   {"weight", t.weight},
                   {"port", service.port}});
  }
  return out;
}

const char* StepName(Classification::Step step) {
  switch (step) {
    case Classification::Step::kOverride:
      return "override";
    case Classification::Step::kCidr:
      return "cidr";
    case Classification::Step::kGeo:
      return "geo";
    case Classification::Step::kCatchAll:
      return "catch-all";
    case Classification::Step::kNone:
      return "none";
  }
  return "?";
}

// "gz-01: Down from cn-south-unicom vantages (0 up, 2 down), Up globally".
std::string GroupLine(const SnapshotNode& n, const SnapshotVantageGroup& g,
                      const GroupNodeView& v) {
  return n.name + ": " + HealthName(v.health) + " from " + g.name +
         " vantages (" + std::to_string(v.up_votes) + " up, " +
         std::to_string(v.down_votes) + " down), " + HealthName(n.health) +
         " globally";
}

// A GeoOverride that placed the client: what it says, its evidence, and where
// the database alone would have put the client.
nlohmann::json OverrideJson(const Snapshot& s, const Classifier& classifier,
                            const Classification& cls, const GeoInfo& geo) {
  const SnapshotGeoOverride& o = s.geo_overrides[cls.geo_override];
  nlohmann::json out = {{"name", o.name}, {"reason", o.reason}};
  if (o.expires_at_ms != 0) {
    out["expiresAt"] = FormatRfc3339Seconds(o.expires_at_ms);
  }
  const Classifier::GeoMatch db = classifier.MatchGeo(geo);
  out["databaseRegion"] = db.region != kNoIndex
                              ? nlohmann::json(s.regions[db.region].name)
                              : nlohmann::json(nullptr);
  if (o.has_evidence) out["evidence"] = GeoOverrideEvidenceJson(o.evidence);
  return out;
}

}  // namespace

nlohmann::json GeoOverrideEvidenceJson(const GeoOverrideEvidence& e) {
  return {{"samples", e.samples},
          {"bestNode", e.best_node},
          {"bestMs", e.best_ms},
          {"databaseRegion", e.db_region},
          {"databaseNode", e.db_node},
          {"databaseMs", e.db_ms},
          {"from", FormatRfc3339Seconds(e.from * 1000)},
          {"to", FormatRfc3339Seconds(e.to * 1000)}};
}

nlohmann::json Explain(const Snapshot& s, const Classifier& classifier,
                       const ExplainRequest& req) {
  const std::string name = route_json::NormaliseName(req.name);
  const route_json::SrvName srv =
      req.srv ? route_json::FindSrvName(s, name) : route_json::SrvName{};
  const SnapshotDomain* domain =
      req.srv ? srv.domain : route_json::FindDomain(s, name);
  if (!domain && req.srv) {
    return {{"error", "'" + name +
                          "' is no Domain's SRV name (spec.srv) in snapshot "
                          "version " +
                          std::to_string(s.version)}};
  }
  if (!domain) return route_json::NotServed(s, name);
  const Classification cls = classifier.Classify(req.client, req.geo);
  ClientContext client{ClientCohort(req.client), req.geo.has_location,
                       req.geo.location};
  Rng rng(req.seed);
  DecisionTrace trace;
  const Answer answer = req.srv ? DecideSrv(s, *domain, cls.region, client,
                                            req.now_ms, rng, &trace)
                                : Decide(s, *domain, cls.region, client,
                                         req.family, req.now_ms, rng, &trace);
  const Route& route = s.routes[answer.route];
  const SnapshotVantageGroup* group =
      cls.region != kNoIndex ? GroupOf(s, s.regions[cls.region]) : nullptr;

  nlohmann::json out;
  out["query"] = {{"name", name},
                  {"client", FormatIp(req.client)},
                  {"cohortSubnet", route_json::CohortSubnet(req.client)}};
  out["snapshot"] = {{"version", s.version}, {"contentHash", s.content_hash}};
  nlohmann::json geo = {{"country", req.geo.country},
                        {"subdivision", req.geo.subdivision},
                        {"asn", req.geo.asn}};
  if (!req.geo.city.empty()) geo["city"] = req.geo.city;
  if (!req.geo.isp.empty()) geo["isp"] = req.geo.isp;
  if (req.geo.has_location)
    geo["location"] = {req.geo.location.lat, req.geo.location.lon};
  out["geo"] = std::move(geo);
  nlohmann::json c = {{"step", StepName(cls.step)},
                      {"detail", Describe(cls, s, req.geo)},
                      {"ecsScope", cls.scope_prefix_length}};
  if (cls.region != kNoIndex) {
    const SnapshotRegion& r = s.regions[cls.region];
    c["region"] = r.name;
    c["area"] = r.area;
    c["isp"] = r.isp;
    if (cls.step == Classification::Step::kOverride) {
      c["override"] = OverrideJson(s, classifier, cls, req.geo);
    }
    if (cls.step == Classification::Step::kGeo) {
      // Which ISP set (and by which of its entries) put the client here.
      if (const auto isp = MatchIsp(r.match, s.isp_sets, req.geo);
          isp && isp->set) {
        c["ispSet"] = {{"name", isp->set->name},
                       {"matchedBy", isp->by_name ? "name" : "asn"}};
      }
    }
  }
  out["classification"] = std::move(c);
  out["domain"] = {{"name", domain->name},
                   {"fqdn", domain->fqdn},
                   {"strategy", StrategyName(domain->strategy)},
                   {"maxAnswers", domain->max_answers}};
  nlohmann::json r = route_json::RouteFacts(s, route);
  if (trace.spill_considered) {
    // The region is past its load knee: a share of its clients is answered
    // from its next fallback region (the route above, when this one is).
    const Route& spilling = s.routes[domain->routes[std::min<size_t>(
        cls.region, domain->routes.size() - 1)]];
    r["spill"] = {{"share", spilling.spill_share},
                  {"to", s.routes[spilling.spill_route].via},
                  {"cohortBucket", trace.spill_bucket},
                  {"spilled", answer.spilled}};
  }
  if (route.canary != kNoIndex) {
    r["canary"]["cohortBucket"] = trace.canary_bucket;
    r["canary"]["inCohort"] = answer.canary;
  }
  out["route"] = std::move(r);
  if (group) {
    // Where the client's own network sees a node otherwise than the
    // global quorum: the reason its answer differs from other regions'.
    nlohmann::json differs = nlohmann::json::array();
    for (uint32_t n = 0; n < s.nodes.size(); ++n) {
      const GroupNodeView* seen = SeenByGroup(group, n);
      if (seen && seen->health != s.nodes[n].health) {
        differs.push_back(GroupLine(s.nodes[n], *group, *seen));
      }
    }
    out["vantageGroup"] = {{"name", group->name},
                           {"vantages", group->vantages},
                           {"usingGlobal", group->vantages == 0},
                           {"differsFromGlobal", std::move(differs)}};
  }
  out["candidates"] =
      route_json::Candidates(s, *domain, route, group, &trace, req.now_ms);

  if (route.source == RouteSource::kDomainFallback &&
      !domain->fallback.cname.empty()) {
    out["cname"] = domain->fallback.cname;
  }
  route_json::AnsweredJson answered = route_json::Answered(
      s, *domain, answer, req.srv ? std::nullopt : req.family);
  out["pick"] = std::move(answered.nodes);
  out["addresses"] = std::move(answered.addresses);
  if (srv.service) {
    out["srv"] = SrvRecords(s, *domain, *srv.service, answer);
  }
  out["ttl"] = answer.ttl;
  out["ttlReason"] = TtlReasonName(answer.ttl_reason);
  // Down nodes have left the route, so the candidates cannot show them:
  // listing them says why a route fell back without reading the snapshot.
  // Down as this client's vantage group sees them, where it sees them.
  nlohmann::json down = nlohmann::json::array();
  for (uint32_t n = 0; n < s.nodes.size(); ++n) {
    const GroupNodeView* seen = SeenByGroup(group, n);
    if ((seen ? seen->health : s.nodes[n].health) == Health::kDown) {
      down.push_back(s.nodes[n].name);
    }
  }
  std::string summary = FormatIp(req.client) + " -> " +
                        Describe(cls, s, req.geo) + " -> " +
                        RouteSourceName(route.source);
  if (!route.via.empty()) summary += " via " + route.via;
  if (answer.spilled) summary += " (spill-over)";
  if (answer.canary) summary += " -> canary " + s.nodes[answer.nodes[0]].name;
  summary += " -> [" + out["pick"].dump() + "] TTL " +
             std::to_string(answer.ttl) + " (" +
             TtlReasonName(answer.ttl_reason) + ")";
  if (!down.empty()) summary += "; down: " + down.dump();
  out["nodesDown"] = std::move(down);
  out["summary"] = summary;
  return out;
}

}  // namespace ax
