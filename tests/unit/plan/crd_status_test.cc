// Every status the plan writes fits its CRD's status schema (crds/*.yaml):
// a busy small cluster (votes of every kind, an invalid object per kind, an
// expired Rule, a canary, a refused snapshot) run through several plans.
#include <gtest/gtest.h>

#include <map>

#include "ax/rfc3339.h"
#include "crd_status_schema.h"
#include "fake_cluster.h"

namespace ax::controller {
namespace {

using ::ax::testing::CrdStatusSchema;
using ::ax::testing::FakeCluster;
using ::ax::testing::kT0;
using ::ax::testing::NodeResult;
using ::ax::testing::ReportObject;
using nlohmann::json;

FakeCluster BusyCluster() {
  FakeCluster c = testing::SmallCluster();
  ObservedState& o = c.state;
  o.nodes.push_back(testing::NodeObject("broken", "999.0.0.1"));
  o.nodes.push_back(
      testing::NodeObject("drained", "192.0.2.7", {{"adminState", "Drain"}}));
  o.nodes.push_back(testing::NodeObject("unprobed", "192.0.2.8"));
  o.nodes.back()["spec"].erase("healthCheck");
  o.regions.push_back(testing::RegionObject("west", {"broken"}));
  o.domains.push_back(testing::DomainObject("bad", {{"zone", "other.test"}}));
  o.domains.push_back(testing::DomainObject(
      "api", {{"fallback", {{"cname", "origin.example.test"}}}}));
  o.rules.push_back(testing::RuleObject("old", "www", "Exclude", "gz-01",
                                        FormatRfc3339Seconds(kT0 - 1000)));
  o.rules.push_back(testing::RuleObject("pin", "www", "Pin", "gz-02"));
  o.rules.push_back(testing::RuleObject("bad-rule", "www", "Pin", "nope"));
  o.canaries.push_back(testing::Object(
      "Canary", "new",
      {{"domain", "www"},
       {"node", "bj-01"},
       {"steps", {{{"percent", 5}, {"pause", 60}}, {{"percent", 100}}}}}));
  o.canaries.push_back(testing::Object(
      "Canary", "bad-canary",
      {{"domain", "nope"}, {"node", "bj-01"}, {"steps", {{{"percent", 5}}}}}));
  o.isp_sets.push_back(testing::Object("IspSet", "telecom",
                                       {{"asns", {64512}}, {"names", {"CT"}}}));
  o.isp_sets.push_back(testing::Object("IspSet", "bad-isp", {{"asns", {0}}}));
  o.geo_overrides.push_back(
      testing::Object("GeoOverride", "gd",
                      {{"cidrs", {"120.230.0.0/16"}}, {"region", "south"}}));
  o.geo_overrides.push_back(
      testing::Object("GeoOverride", "bad-override",
                      {{"cidrs", {"10.0.0.0/8"}}, {"region", "nowhere"}}));
  auto report = [](const std::string& vantage, int64_t at, Health h) {
    return ReportObject(vantage, at,
                        {NodeResult("bj-01", h, 5, kT0 - 600'000),
                         NodeResult("gz-01", h, 7, kT0 - 600'000),
                         NodeResult("gz-02", Health::kDown, 9, kT0 - 9000)});
  };
  o.probe_reports = {report("vantage-a", kT0 - 1000, Health::kUp),
                     report("vantage-b", kT0 - 1000, Health::kUp),
                     report("vantage-c", kT0 - 1000, Health::kDown),
                     report("vantage-d", kT0 - 90'000, Health::kUp)};
  json broken_report = o.probe_reports[0];
  broken_report["metadata"]["name"] = "garbled";
  broken_report["spec"]["results"][0]["health"] = "Sideways";
  o.probe_reports.push_back(broken_report);
  return c;
}

TEST(CrdStatus, EveryStatusWrittenFitsItsSchema) {
  std::map<std::string, CrdStatusSchema> schemas;
  for (const char* kind : {"Domain", "Region", "Node", "Rule", "Canary",
                           "IspSet", "GeoOverride", "ProbeReport"}) {
    std::string file = kind;
    for (char& ch : file) ch = static_cast<char>(std::tolower(ch));
    schemas.emplace(kind, CrdStatusSchema(std::string(AX_SOURCE_DIR) +
                                          "/crds/" + file + ".yaml"));
  }
  // The checker itself catches what the apiserver would prune or refuse.
  const json bad_condition = {{"type", "Ready"},
                              {"status", "True"},
                              {"lastTransitionTime", "yesterday"},
                              {"reason", "Two words"},
                              {"message", ""}};
  EXPECT_EQ(schemas.at("Node").Check({{"health", "Sideways"},
                                      {"latencyMs", -1},
                                      {"extra", 1},
                                      {"conditions", {bad_condition}}}),
            (std::vector<std::string>{
                "status.conditions[0].lastTransitionTime: not a date-time: "
                "yesterday",
                "status.conditions[0].reason: \"Two words\" does not match "
                "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
                "status: undeclared field extra",
                "status.health: \"Sideways\" not in enum",
                "status.latencyMs: below minimum"}));

  FakeCluster c = BusyCluster();
  std::map<std::string, int> checked;
  auto check = [&](const Plan& plan) {
    for (const StatusUpdate& u : plan.status_updates) {
      EXPECT_EQ(schemas.at(u.object.kind).Check(u.status),
                std::vector<std::string>{})
          << u.object.KindName() << ": " << u.status.dump();
      ++checked[u.object.kind];
    }
  };
  check(c.Step(kT0));
  c.state.options.max_config_map_bytes = 600;  // refuse the next snapshot
  c.EditSpec("Node", "gz-02", {{"weight", 7}});
  check(c.Step(kT0 + 61'000));
  for (const auto& [kind, schema] : schemas) {
    EXPECT_GT(checked[kind], 0) << kind << " never written";
  }
}

}  // namespace
}  // namespace ax::controller
