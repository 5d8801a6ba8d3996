// Cross-object validation: a valid World passes untouched, and each single
// mistake made to it is reported once, on the right object and field.
#include "ax/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

namespace ax {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// Two nodes, two regions (r1 is the default; r2 matches on the built-in ISP
// set telecom), one domain, one rule, one canary, one IspSet.
World BaseWorld() {
  const json objects = json::parse(R"([
    {"kind": "Node", "metadata": {"name": "n1", "labels": {"app": "web"}},
     "spec": {"addresses": ["192.0.2.1"], "location": {"lat": 10, "lon": 20},
              "healthCheck": {"protocol": "HTTP", "port": 80}}},
    {"kind": "Node", "metadata": {"name": "n2", "labels": {"app": "web"}},
     "spec": {"addresses": ["192.0.2.2", "2001:db8::2"]}},
    {"kind": "Region", "metadata": {"name": "r1"},
     "spec": {"nodes": ["n1", "n2"], "match": {"default": true}}},
    {"kind": "Region", "metadata": {"name": "r2"},
     "spec": {"nodes": ["n2"], "isp": "telecom",
              "match": {"countries": ["US"], "isps": ["telecom"]},
              "fallbackRegions": ["r1"]}},
    {"kind": "Domain", "metadata": {"name": "d1"},
     "spec": {"fqdn": "www.example.test", "zone": "example.test",
              "nodeSelector": {"matchLabels": {"app": "web"}}}},
    {"kind": "Rule", "metadata": {"name": "rule1"},
     "spec": {"domain": "d1", "action": "Exclude", "node": "n1", "match": {"region": "r2"}}},
    {"kind": "Canary", "metadata": {"name": "c1"},
     "spec": {"domain": "d1", "node": "n2", "regions": ["r2"],
              "steps": [{"percent": 5}, {"percent": 50}]}},
    {"kind": "IspSet", "metadata": {"name": "idc"},
     "spec": {"asns": [64512], "names": ["IDC"]}}
  ])");
  World world;
  std::vector<ManifestError> errors;
  for (size_t i = 0; i < objects.size(); ++i) {
    json object = objects[i];
    object["apiVersion"] = "gslb.ax.io/v1alpha1";
    ParseManifestObject(object, "base.yaml#" + std::to_string(i + 1), world,
                        errors);
  }
  EXPECT_TRUE(errors.empty()) << errors[0].ToString();
  return world;
}

TEST(ValidateTest, BaseWorldIsValid) {
  std::vector<ManifestError> errors = Validate(BaseWorld());
  EXPECT_TRUE(errors.empty()) << errors[0].ToString();
}

TEST(ValidateTest, FqdnEqualToZoneAndEmptySelectorAreFine) {
  World w = BaseWorld();
  w.domains[0].fqdn = "example.test";
  w.domains[0].node_selector.clear();
  EXPECT_TRUE(Validate(w).empty());
}

struct Case {
  const char* label;
  std::function<void(World&)> mutate;
  const char* object;
  const char* field;
  const char* message_part;
};

class ValidateErrorTest : public ::testing::TestWithParam<Case> {};

TEST_P(ValidateErrorTest, ReportsExactlyOnePreciseError) {
  const Case& c = GetParam();
  World w = BaseWorld();
  c.mutate(w);
  std::vector<ManifestError> errors = Validate(w);
  ASSERT_EQ(errors.size(), 1u)
      << (errors.empty() ? "none" : errors[1].ToString());
  EXPECT_EQ(errors[0].object, c.object);
  EXPECT_EQ(errors[0].field, c.field);
  EXPECT_THAT(errors[0].message, HasSubstr(c.message_part));
  EXPECT_THAT(errors[0].source, HasSubstr("base.yaml#"));
}

// Shorthands for the objects of BaseWorld().
Domain& D(World& w) { return w.domains[0]; }
Node& N1(World& w) { return w.nodes[0]; }
Region& R1(World& w) { return w.regions[0]; }
Region& R2(World& w) { return w.regions[1]; }
Rule& Ru(World& w) { return w.rules[0]; }
Canary& C(World& w) { return w.canaries[0]; }
IspSet& S(World& w) { return w.isp_sets[0]; }

INSTANTIATE_TEST_SUITE_P(
    Mistakes, ValidateErrorTest,
    ::testing::Values(
        Case{"DuplicateNodeName", [](World& w) { w.nodes.push_back(N1(w)); },
             "Node/n1", "metadata.name",
             "duplicate Node name, first defined at base.yaml#1"},
        Case{"RegionUndefinedNode",
             [](World& w) { R1(w).nodes.push_back("ghost"); }, "Region/r1",
             "spec.nodes[2]", "Node \"ghost\" is not defined"},
        Case{"RegionNodeTwice", [](World& w) { R1(w).nodes.push_back("n1"); },
             "Region/r1", "spec.nodes[2]", "listed twice"},
        Case{"RegionWithoutNodesOrFallback",
             [](World& w) {
               R2(w).nodes.clear();
               R2(w).fallback_regions.clear();
             },
             "Region/r2", "spec.nodes", "needs nodes or fallbackRegions"},
        Case{"UndefinedFallbackRegion",
             [](World& w) {
               R2(w).fallback_regions = {"r1", "nowhere"};
             },
             "Region/r2", "spec.fallbackRegions[1]",
             "Region \"nowhere\" is not defined"},
        Case{"FallbackToItself",
             [](World& w) { R2(w).fallback_regions = {"r2"}; }, "Region/r2",
             "spec.fallbackRegions[0]", "cannot fall back to itself"},
        Case{"SecondDefaultRegion",
             [](World& w) { R2(w).match.catch_all = true; }, "Region/r2",
             "spec.match.default", "Region/r1 already is"},
        Case{"RuleUndefinedDomain", [](World& w) { Ru(w).domain = "nope"; },
             "Rule/rule1", "spec.domain", "Domain \"nope\" is not defined"},
        Case{"RuleUndefinedNode", [](World& w) { Ru(w).node = "n9"; },
             "Rule/rule1", "spec.node", "Node \"n9\" is not defined"},
        Case{"RuleUndefinedRegion", [](World& w) { Ru(w).region = "mars"; },
             "Rule/rule1", "spec.match.region",
             "Region \"mars\" is not defined"},
        Case{"PinWithoutNode",
             [](World& w) {
               Ru(w).action = RuleAction::kPin;
               Ru(w).node.clear();
             },
             "Rule/rule1", "spec.node", "is required for action Pin"},
        Case{"WeightWithoutWeight",
             [](World& w) { Ru(w).action = RuleAction::kWeight; }, "Rule/rule1",
             "spec.weight", "at least 1"},
        Case{"WeightOnExclude", [](World& w) { Ru(w).weight = 5; },
             "Rule/rule1", "spec.weight", "only applies to action Weight"},
        Case{"CanaryUndefinedDomain", [](World& w) { C(w).domain = "nope"; },
             "Canary/c1", "spec.domain", "Domain \"nope\" is not defined"},
        Case{"CanaryUndefinedNode", [](World& w) { C(w).node = "n9"; },
             "Canary/c1", "spec.node", "is not defined"},
        Case{"CanaryUndefinedRegion",
             [](World& w) { C(w).regions.push_back("mars"); }, "Canary/c1",
             "spec.regions[1]", "Region \"mars\" is not defined"},
        Case{"CanaryWithoutSteps", [](World& w) { C(w).steps.clear(); },
             "Canary/c1", "spec.steps", "at least one step"},
        Case{"CanaryPercentAbove100",
             [](World& w) { C(w).steps[1].percent = 150; }, "Canary/c1",
             "spec.steps[1].percent", "must be 0..100, got 150"},
        Case{"CanaryPercentDecreasing",
             [](World& w) { C(w).steps[0].percent = 60; }, "Canary/c1",
             "spec.steps[1].percent", "must not decrease, 50 follows 60"},
        Case{"CanaryStatusPercent", [](World& w) { C(w).status_percent = -1; },
             "Canary/c1", "status.percent", "must be 0..100"},
        Case{"FqdnOutsideZone", [](World& w) { D(w).fqdn = "www.other.test"; },
             "Domain/d1", "spec.fqdn", "is not inside zone \"example.test\""},
        Case{"FqdnSuffixIsNotZone",
             [](World& w) { D(w).fqdn = "wwwexample.test"; }, "Domain/d1",
             "spec.fqdn", "not inside zone"},
        Case{"DuplicateFqdn",
             [](World& w) {
               w.domains.push_back(D(w));
               w.domains.back().meta.name = "d2";
             },
             "Domain/d2", "spec.fqdn", "also served by Domain/d1"},
        Case{"SrvServiceTwice",
             [](World& w) {
               D(w).srv = {{"http", "tcp", 80}, {"http", "udp", 80},
                           {"http", "tcp", 8080}};
             },
             "Domain/d1", "spec.srv[2]",
             "_http._tcp is listed twice (spec.srv[0])"},
        Case{"SrvTargetIsAnotherDomain",
             [](World& w) {
               D(w).srv = {{"http", "tcp", 80}};
               w.domains.push_back(D(w));
               w.domains.back().meta.name = "d2";
               w.domains.back().fqdn = "n2.www.example.test";
               w.domains.back().srv.clear();
             },
             "Domain/d1", "spec.srv",
             "SRV target \"n2.www.example.test\" of Node \"n2\" is "
             "Domain/d2's fqdn"},
        Case{"SrvTargetTooLong",
             [](World& w) {
               D(w).srv = {{"h", "tcp", 80}};
               N1(w).meta.name = std::string(12, 'n');
               R1(w).nodes[0] = N1(w).meta.name;
               Ru(w).node = N1(w).meta.name;
               D(w).fqdn = std::string(60, 'a') + "." + std::string(60, 'b') +
                           "." + std::string(60, 'c') + "." +
                           std::string(46, 'd') + ".example.test";
             },
             "Domain/d1", "spec.srv", "of Node \"nnnnnnnnnnnn\" is longer"},
        Case{"SrvNameTooLong",
             [](World& w) {
               D(w).srv = {{"http", "tcp", 80}};
               D(w).fqdn = std::string(60, 'a') + "." + std::string(60, 'b') +
                           "." + std::string(60, 'c') + "." +
                           std::string(50, 'd') + ".example.test";
             },
             "Domain/d1", "spec.srv[0]", "SRV name \"_http._tcp.aaaa"},
        Case{"MaxAnswersZero", [](World& w) { D(w).max_answers = 0; },
             "Domain/d1", "spec.maxAnswers", "must be 1..16"},
        Case{"MaxAnswersTooMany", [](World& w) { D(w).max_answers = 17; },
             "Domain/d1", "spec.maxAnswers", "got 17"},
        Case{"HysteresisAbove100",
             [](World& w) { D(w).hysteresis_percent = 101; }, "Domain/d1",
             "spec.hysteresisPercent", "must be 0..100"},
        Case{"TtlZero", [](World& w) { D(w).ttl.failover = 0; }, "Domain/d1",
             "spec.ttl.failover", "at least 1 second"},
        Case{"FallbackCnameAndAddresses",
             [](World& w) {
               D(w).fallback.cname = "origin.example.test";
               D(w).fallback.addresses = {*ParseIp("192.0.2.9")};
             },
             "Domain/d1", "spec.fallback", "not both"},
        Case{"SelectorMatchesNothing",
             [](World& w) { D(w).node_selector["app"] = "db"; }, "Domain/d1",
             "spec.nodeSelector.matchLabels", "selects no Node"},
        Case{"NodeWithoutAddress", [](World& w) { N1(w).addresses.clear(); },
             "Node/n1", "spec.addresses", "at least one address"},
        Case{"NodeWeightZero", [](World& w) { N1(w).weight = 0; }, "Node/n1",
             "spec.weight", "Drain or Disabled"},
        Case{"LatitudeOutOfRange", [](World& w) { N1(w).location->lat = 91; },
             "Node/n1", "spec.location.lat", "must be -90..90, got 91"},
        Case{"LongitudeOutOfRange",
             [](World& w) { N1(w).location->lon = -180.5; }, "Node/n1",
             "spec.location.lon", "got -180.5"},
        Case{"NegativeCapacity",
             [](World& w) { N1(w).capacity.connections = -1; }, "Node/n1",
             "spec.capacity.connections", "negative"},
        Case{"HealthCheckWithoutPort",
             [](World& w) { N1(w).health_check->port = 0; }, "Node/n1",
             "spec.healthCheck.port", "is required"},
        Case{"FailureThresholdZero",
             [](World& w) { N1(w).health_check->failure_threshold = 0; },
             "Node/n1", "spec.healthCheck.failureThreshold", "at least 1"},
        Case{"SuccessThresholdZero",
             [](World& w) { N1(w).health_check->success_threshold = 0; },
             "Node/n1", "spec.healthCheck.successThreshold", "at least 1"},
        Case{"TimeoutLongerThanInterval",
             [](World& w) { N1(w).health_check->timeout_ms = 6000; }, "Node/n1",
             "spec.healthCheck.timeout",
             "must not exceed the interval (5000ms)"},
        Case{"FlapDampingHalfLifeZero",
             [](World& w) {
               N1(w).health_check->flap_damping.half_life_ms = 0;
             },
             "Node/n1", "spec.healthCheck.flapDamping.halfLife",
             "longer than 0"},
        Case{"RegionIspNotASet", [](World& w) { R2(w).isp = "telcom"; },
             "Region/r2", "spec.isp",
             "no ISP set named \"telcom\" (known: cernet, idc, mobile, "
             "telecom, unicom;"},
        Case{"RegionMatchesUnknownSet",
             [](World& w) { R2(w).match.isps.push_back("cn2"); }, "Region/r2",
             "spec.match.isps[1]", "no ISP set named \"cn2\""},
        Case{"NodeIspNotASet", [](World& w) { N1(w).isp = "ct"; }, "Node/n1",
             "spec.isp", "no ISP set named \"ct\""},
        Case{"RuleIspNotASet", [](World& w) { Ru(w).isp = "uni"; },
             "Rule/rule1", "spec.match.isp", "no ISP set named \"uni\""},
        Case{"IspSetNamedAny", [](World& w) { S(w).meta.name = "any"; },
             "IspSet/any", "metadata.name", "means every ISP"},
        Case{"IspSetEmpty",
             [](World& w) {
               S(w).asns.clear();
               S(w).names.clear();
             },
             "IspSet/idc", "spec", "needs asns or names"},
        Case{"IspSetAsnZero", [](World& w) { S(w).asns.push_back(0); },
             "IspSet/idc", "spec.asns[1]", "RFC 7607"},
        Case{"IspSetEmptyName", [](World& w) { S(w).names.push_back(""); },
             "IspSet/idc", "spec.names[1]", "must not be empty"},
        Case{"IspSetReplacesNoBuiltin",
             [](World& w) { S(w).replace_builtin = true; }, "IspSet/idc",
             "spec.replaceBuiltin",
             "no built-in set \"idc\" to replace (built-in: cernet, mobile, "
             "telecom, unicom)"},
        Case{"DuplicateIspSet",
             [](World& w) { w.isp_sets.push_back(S(w)); }, "IspSet/idc",
             "metadata.name", "duplicate IspSet name"},
        Case{"FlapDampingMaxSuppressBelowHalfLife",
             [](World& w) {
               N1(w).health_check->flap_damping.max_suppress_ms = 60'000;
             },
             "Node/n1", "spec.healthCheck.flapDamping.maxSuppress",
             "must be at least the half-life (900000ms), got 60000ms"}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(ValidateTest, ReportsEveryMistakeNotJustTheFirst) {
  World w = BaseWorld();
  N1(w).weight = 0;
  D(w).max_answers = 0;
  C(w).node = "ghost";
  EXPECT_EQ(Validate(w).size(), 3u);
}

}  // namespace
}  // namespace ax
