// Test support for the plan: gslb.ax.io objects (api_objects.h) converted
// from a large_world.h World,
// ProbeReports from a status map, and ApplyPlan, the API's side of a plan.
// Shared by the operator tests and the plan benchmark, so both feed the
// planner the same shape of input.
#pragma once

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_objects.h"
#include "ax/controller/plan.h"
#include "ax/model.h"
#include "ax/node_status.h"
#include "ax/probe_report.h"

namespace ax::testing {

using nlohmann::json;

inline ProbeNodeReport NodeResult(const std::string& node, Health health,
                                  double latency_ms, int64_t changed_at_ms) {
  ProbeNodeReport r;
  r.node = node;
  r.health = health;
  r.up = health == Health::kUp;
  if (r.up) r.latency_ms = latency_ms;
  r.load = NodeLoad{.bandwidth_mbps = 100, .connections = 1000};
  r.consecutive_successes = r.up ? 10 : 0;
  r.consecutive_failures = r.up ? 0 : 3;
  r.health_changed_at_ms = changed_at_ms;
  return r;
}

inline json ReportObject(const std::string& vantage, int64_t observed_at_ms,
                         std::vector<ProbeNodeReport> results) {
  ProbeReport report;
  report.name = ProbeReportName(vantage);
  report.namespace_name = "gslb";
  report.vantage = vantage;
  report.observed_at_ms = observed_at_ms;
  std::sort(results.begin(), results.end(),
            [](const auto& a, const auto& b) { return a.node < b.node; });
  report.results = std::move(results);
  json object = ProbeReportToJson(report);
  object["metadata"]["generation"] = 1;
  object["metadata"]["resourceVersion"] = "1";
  return object;
}

// ---- a large_world.h World as API objects ----

inline controller::ObservedState ObservedFromWorld(const World& w) {
  controller::ObservedState o;
  for (const Node& n : w.nodes) {
    json addresses = json::array();
    for (const IpAddress& a : n.addresses) addresses.push_back(FormatIp(a));
    json spec = {{"addresses", addresses},
                 {"weight", n.weight},
                 {"capacity",
                  {{"bandwidthMbps", n.capacity.bandwidth_mbps},
                   {"connections", n.capacity.connections}}},
                 {"healthCheck", {{"protocol", "TCP"}, {"port", 80}}}};
    if (n.location) {
      spec["location"] = {{"lat", n.location->lat}, {"lon", n.location->lon}};
    }
    json object = Object("Node", n.meta.name, std::move(spec));
    object["metadata"]["labels"] = n.meta.labels;
    o.nodes.push_back(std::move(object));
  }
  for (const Region& r : w.regions) {
    json cidrs = json::array();
    for (const IpPrefix& p : r.match.cidrs) cidrs.push_back(FormatPrefix(p));
    o.regions.push_back(Object("Region", r.meta.name,
                               {{"area", r.area},
                                {"isp", r.isp},
                                {"match",
                                 {{"subdivisions", r.match.subdivisions},
                                  {"asns", r.match.asns},
                                  {"isps", r.match.isps},
                                  {"cidrs", cidrs}}},
                                {"nodes", r.nodes},
                                {"fallbackRegions", r.fallback_regions}}));
  }
  for (const IspSet& s : w.isp_sets) {
    o.isp_sets.push_back(
        Object("IspSet", s.meta.name, {{"asns", s.asns}, {"names", s.names}}));
  }
  for (const Domain& d : w.domains) {
    json spec = {{"fqdn", d.fqdn},
                 {"zone", d.zone},
                 {"strategy", StrategyName(d.strategy)},
                 {"maxAnswers", d.max_answers}};
    if (!d.node_selector.empty()) {
      spec["nodeSelector"] = {{"matchLabels", d.node_selector}};
    }
    o.domains.push_back(Object("Domain", d.meta.name, std::move(spec)));
  }
  for (const Rule& r : w.rules) {
    o.rules.push_back(
        RuleObject(r.meta.name, r.domain, RuleActionName(r.action), r.node));
  }
  for (const Canary& c : w.canaries) {
    json steps = json::array();
    for (const CanaryStep& s : c.steps) {
      steps.push_back({{"percent", s.percent}, {"pause", s.pause_seconds}});
    }
    o.canaries.push_back(
        Object("Canary", c.meta.name,
               {{"domain", c.domain}, {"node", c.node}, {"steps", steps}}));
  }
  return o;
}

// One ProbeReport per vantage, every vantage seeing `status`.
inline std::vector<json> ReportsFromStatus(const StatusMap& status,
                                           int vantages,
                                           int64_t observed_at_ms) {
  std::vector<json> out;
  for (int v = 0; v < vantages; ++v) {
    std::vector<ProbeNodeReport> results;
    for (const auto& [node, s] : status) {
      ProbeNodeReport r = NodeResult(node, s.health, s.latency_ms.value_or(1),
                                     observed_at_ms - 600'000);
      r.load = s.load;
      results.push_back(std::move(r));
    }
    out.push_back(ReportObject("vantage-" + std::to_string(v), observed_at_ms,
                               std::move(results)));
  }
  return out;
}

// ---- the API's side of a plan ----

// The object of `kind` named `name` in `state`, or nullptr.
inline json* FindObject(controller::ObservedState& state,
                        const std::string& kind, const std::string& name) {
  for (std::vector<json>* list :
       {&state.domains, &state.regions, &state.nodes, &state.rules,
        &state.canaries, &state.isp_sets, &state.geo_overrides,
        &state.probe_reports}) {
    for (json& object : *list) {
      if (object["kind"] == kind && object["metadata"]["name"] == name) {
        return &object;
      }
    }
  }
  return nullptr;
}

// Writes `plan` into `state` as the API would: the ConfigMap and every
// updated object get a new resourceVersion (counted by `revision`), history
// ConfigMaps come and go, statuses change through their merge patches.
inline void ApplyPlan(const controller::Plan& plan,
                      controller::ObservedState& state, int64_t& revision) {
  if (plan.route_table) {
    state.route_table = *plan.route_table;
    (*state.route_table)["metadata"]["resourceVersion"] =
        std::to_string(++revision);
  }
  for (const std::string& name : plan.history_deletes) {
    std::erase_if(state.history, [&](const json& cm) {
      return cm["metadata"]["name"] == name;
    });
  }
  state.history.insert(state.history.end(), plan.history_creates.begin(),
                       plan.history_creates.end());
  for (const controller::StatusUpdate& u : plan.status_updates) {
    if (json* object = FindObject(state, u.object.kind, u.object.name)) {
      object->merge_patch(u.merge_patch);
      (*object)["metadata"]["resourceVersion"] = std::to_string(++revision);
    }
  }
}

}  // namespace ax::testing
