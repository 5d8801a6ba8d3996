// Manifest JSON -> model: values, defaults and normalisation land where the
// model says, and every kind of mistake is reported with object, field path and
// a useful message.
#include "ax/model_parse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ax {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct Parsed {
  World world;
  std::vector<ManifestError> errors;
  bool appended = false;
};

Parsed Parse(const json& object, std::string_view source = "test.yaml#1") {
  Parsed p;
  p.appended = ParseManifestObject(object, source, p.world, p.errors);
  return p;
}

// A manifest of `kind` named "x" with the given spec.
json Manifest(std::string_view kind, json spec) {
  return {{"apiVersion", "gslb.ax.io/v1alpha1"},
          {"kind", kind},
          {"metadata", {{"name", "x"}}},
          {"spec", std::move(spec)}};
}

TEST(ModelParseTest, NodeWithEveryField) {
  Parsed p = Parse(json::parse(R"({
    "apiVersion": "gslb.ax.io/v1alpha1", "kind": "Node",
    "metadata": {"name": "gz-01", "namespace": "gslb", "generation": 7,
                 "labels": {"tier": "edge"}, "uid": "ignored", "annotations": {"a": "b"}},
    "spec": {
      "addresses": ["192.0.2.10", "2001:db8::10"], "area": "cn-south", "isp": "telecom",
      "location": {"lat": 23.1, "lon": 113.2}, "weight": 50,
      "capacity": {"bandwidthMbps": 1000, "connections": 5000},
      "healthCheck": {"protocol": "HTTPS", "port": 443, "path": "/healthz",
                      "host": "www.example.test", "expectStatus": [200, 204],
                      "bodyMatch": "ok", "timeout": "1500ms", "interval": 10,
                      "failureThreshold": 2, "successThreshold": 4,
                      "flapDamping": {"enabled": false, "halfLife": "5m",
                                      "maxSuppress": "20m"},
                      "tokenSecretRef": "probe-token"},
      "redirectURL": "https://gz-01.example.test", "adminState": "Drain",
      "adminStateExpiresAt": "2026-12-03T16:00:00Z",
      "adminStateReason": "INC-1234"},
    "status": {"health": "Up"}})"));
  ASSERT_TRUE(p.appended);
  ASSERT_TRUE(p.errors.empty()) << p.errors[0].ToString();
  ASSERT_EQ(p.world.nodes.size(), 1u);
  const Node& n = p.world.nodes[0];
  EXPECT_EQ(n.meta.name, "gz-01");
  EXPECT_EQ(n.meta.namespace_name, "gslb");
  EXPECT_EQ(n.meta.generation, 7);
  EXPECT_EQ(n.meta.labels.at("tier"), "edge");
  EXPECT_EQ(n.meta.source, "test.yaml#1");
  ASSERT_EQ(n.addresses.size(), 2u);
  EXPECT_EQ(FormatIp(n.addresses[1]), "2001:db8::10");
  EXPECT_EQ(n.area, "cn-south");
  EXPECT_EQ(n.isp, "telecom");
  ASSERT_TRUE(n.location);
  EXPECT_DOUBLE_EQ(n.location->lon, 113.2);
  EXPECT_EQ(n.weight, 50u);
  EXPECT_DOUBLE_EQ(n.capacity.connections, 5000);
  ASSERT_TRUE(n.health_check);
  const HealthCheck& hc = *n.health_check;
  EXPECT_EQ(hc.protocol, ProbeProtocol::kHttps);
  EXPECT_EQ(hc.port, 443);
  EXPECT_EQ(n.admin_state, AdminState::kDrain);
  EXPECT_EQ(n.admin_state_expires_at, 1796313600);  // 2026-12-03T16:00:00Z
  EXPECT_EQ(n.admin_state_reason, "INC-1234");
  // The drain lapses at adminStateExpiresAt, inclusive.
  EXPECT_EQ(n.AdminStateAt(1796313599'000), AdminState::kDrain);
  EXPECT_EQ(n.AdminStateAt(1796313600'000), AdminState::kActive);
  EXPECT_EQ(hc.path, "/healthz");
  EXPECT_EQ(hc.expect_status, (std::vector<int>{200, 204}));
  EXPECT_FALSE(hc.flap_damping.enabled);
  EXPECT_EQ(hc.flap_damping.half_life_ms, 5u * 60 * 1000);
  EXPECT_EQ(hc.flap_damping.max_suppress_ms, 20u * 60 * 1000);
  EXPECT_EQ(hc.timeout_ms, 1500u);
  EXPECT_EQ(hc.interval_ms, 10000u);
  EXPECT_EQ(hc.failure_threshold, 2u);
  EXPECT_EQ(hc.success_threshold, 4u);
  EXPECT_EQ(hc.token_secret_ref, "probe-token");
  EXPECT_EQ(n.redirect_url, "https://gz-01.example.test");
  EXPECT_EQ(n.admin_state, AdminState::kDrain);
}

TEST(ModelParseTest, AbsentFieldsKeepModelDefaults) {
  Parsed p = Parse(Manifest(
      "Domain", {{"fqdn", "www.example.test"}, {"zone", "example.test"}}));
  ASSERT_TRUE(p.appended);
  const Domain& d = p.world.domains[0];
  const Domain defaults;
  EXPECT_EQ(d.strategy, defaults.strategy);
  EXPECT_EQ(d.max_answers, defaults.max_answers);
  EXPECT_EQ(d.ttl.steady, 300u);
  EXPECT_EQ(d.ttl.failover, 60u);
  EXPECT_EQ(d.ttl.canary, 120u);
  EXPECT_EQ(d.hysteresis_percent, 15u);
  EXPECT_TRUE(d.fallback.empty());
  EXPECT_TRUE(d.node_selector.empty());

  Parsed node = Parse(Manifest(
      "Node", {{"addresses", {"192.0.2.1"}}, {"healthCheck", {{"port", 80}}}}));
  ASSERT_TRUE(node.appended);
  const Node& n = node.world.nodes[0];
  EXPECT_EQ(n.weight, 100u);
  EXPECT_EQ(n.admin_state, AdminState::kActive);
  EXPECT_FALSE(n.location);
  const HealthCheck& hc = *n.health_check;
  EXPECT_EQ(hc.protocol, ProbeProtocol::kTcp);
  EXPECT_EQ(hc.path, "/");
  EXPECT_EQ(hc.expect_status, std::vector<int>{200});
  EXPECT_EQ(hc.timeout_ms, 2000u);
  EXPECT_EQ(hc.interval_ms, 5000u);
  EXPECT_EQ(hc.failure_threshold, 3u);
  EXPECT_EQ(hc.success_threshold, 5u);

  Parsed no_check = Parse(Manifest("Node", {{"addresses", {"192.0.2.1"}}}));
  EXPECT_FALSE(no_check.world.nodes[0].health_check);
}

TEST(ModelParseTest, NormalisesNamesAndCodes) {
  Parsed d = Parse(
      Manifest("Domain", {{"fqdn", "WWW.Example.TEST."},
                          {"zone", "example.test."},
                          {"fallback", {{"cname", "Origin.Example.Test."}}}}));
  ASSERT_TRUE(d.appended);
  EXPECT_EQ(d.world.domains[0].fqdn, "www.example.test");
  EXPECT_EQ(d.world.domains[0].zone, "example.test");
  EXPECT_EQ(d.world.domains[0].fallback.cname, "origin.example.test");

  Parsed r = Parse(Manifest(
      "Region",
      {{"match",
        {{"countries", {"us", "Cn"}},
         {"subdivisions", {"cn-gd"}},
         {"cities", {"cn-gd/Shenzhen", "us/Ashburn", "CN-GD/\u6df1\u5733"}},
         {"asns", {4134}},
         {"cidrs", {"10.0.0.0/8", "2001:db8::/32"}},
         {"default", true}}},
       {"nodes", {"a", "b"}},
       {"fallbackRegions", {"c"}}}));
  ASSERT_TRUE(r.appended);
  const Region& region = r.world.regions[0];
  EXPECT_EQ(region.match.countries, (std::vector<std::string>{"US", "CN"}));
  EXPECT_EQ(region.match.subdivisions, std::vector<std::string>{"CN-GD"});
  // The qualifier upper-cased, the name as written.
  EXPECT_EQ(region.match.cities,
            (std::vector<std::string>{"CN-GD/Shenzhen", "US/Ashburn",
                                      "CN-GD/\u6df1\u5733"}));
  EXPECT_EQ(region.match.asns, std::vector<uint32_t>{4134});
  ASSERT_EQ(region.match.cidrs.size(), 2u);
  EXPECT_EQ(FormatPrefix(region.match.cidrs[1]), "2001:db8::/32");
  EXPECT_TRUE(region.match.catch_all);
  EXPECT_EQ(region.nodes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(region.fallback_regions, std::vector<std::string>{"c"});
  EXPECT_FALSE(region.vantage_selector);  // the area and isp's vantages

  Parsed v = Parse(Manifest(
      "Region", {{"nodes", {"a"}},
                 {"vantageSelector", {{"matchLabels", {{"isp", "unicom"}}}}}}));
  ASSERT_TRUE(v.appended);
  EXPECT_EQ(v.world.regions[0].vantage_selector,
            (LabelSelector{.match_labels = {{"isp", "unicom"}}}));

  Parsed e = Parse(Manifest(
      "Region", {{"nodes", {"a"}},
                 {"vantageSelector",
                  {{"matchExpressions",
                    {{{"key", "isp"},
                      {"operator", "In"},
                      {"values", {"unicom", "mobile"}}},
                     {{"key", "canary"}, {"operator", "DoesNotExist"}}}}}}}));
  ASSERT_TRUE(e.appended);
  EXPECT_EQ(
      e.world.regions[0].vantage_selector,
      (LabelSelector{.match_expressions = {
                         {"isp", SelectorOperator::kIn, {"unicom", "mobile"}},
                         {"canary", SelectorOperator::kDoesNotExist, {}}}}));
}

TEST(ModelParseTest, GrpcServiceConfigFromObjectOrStringIsStoredCompact) {
  const std::string expected =
      R"({"loadBalancingConfig":[{"round_robin":{}}]})";
  json base = {{"fqdn", "api.example.test"}, {"zone", "example.test"}};
  json as_object = base;
  as_object["grpcServiceConfig"] = json::parse(expected);
  json as_string = base;
  as_string["grpcServiceConfig"] =
      R"({ "loadBalancingConfig": [ {"round_robin": {}} ] })";
  for (const json& spec : {as_object, as_string}) {
    Parsed p = Parse(Manifest("Domain", spec));
    ASSERT_TRUE(p.appended) << p.errors[0].ToString();
    EXPECT_EQ(p.world.domains[0].grpc_service_config, expected);
  }
}

TEST(ModelParseTest, SrvServicesKeepTheirOrderAndFoldTheServiceCase) {
  Parsed p = Parse(Manifest(
      "Domain",
      {{"fqdn", "api.example.test"},
       {"zone", "example.test"},
       {"srv",
        {{{"service", "HTTP"}, {"protocol", "tcp"}, {"port", 8080}},
         {{"service", "sip"}, {"protocol", "udp"}, {"port", 5060}}}}}));
  ASSERT_TRUE(p.appended) << p.errors[0].ToString();
  EXPECT_EQ(
      p.world.domains[0].srv,
      (std::vector<SrvService>{{"http", "tcp", 8080}, {"sip", "udp", 5060}}));
}

struct DurationCase {
  json value;
  uint32_t ms;
};

class DurationTest : public ::testing::TestWithParam<DurationCase> {};

TEST_P(DurationTest, HealthCheckTimeout) {
  Parsed p = Parse(Manifest(
      "Node", {{"healthCheck", {{"port", 1}, {"timeout", GetParam().value}}}}));
  ASSERT_TRUE(p.appended) << p.errors[0].ToString();
  EXPECT_EQ(p.world.nodes[0].health_check->timeout_ms, GetParam().ms);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, DurationTest,
    ::testing::Values(DurationCase{"2s", 2000}, DurationCase{"500ms", 500},
                      DurationCase{"1m", 60000}, DurationCase{"1m30s", 90000},
                      DurationCase{"1h", 3600000}, DurationCase{3, 3000}));

TEST(ModelParseTest, RuleExpiryAndCanaryStatus) {
  Parsed rule = Parse(
      Manifest("Rule", {{"domain", "www"},
                        {"match", {{"region", "us-west"}, {"isp", "any"}}},
                        {"action", "Weight"},
                        {"node", "sj-01"},
                        {"weight", 10},
                        {"expiresAt", "2026-12-01T08:00:00+08:00"},
                        {"reason", "load test"}}));
  ASSERT_TRUE(rule.appended) << rule.errors[0].ToString();
  const Rule& r = rule.world.rules[0];
  EXPECT_EQ(r.action, RuleAction::kWeight);
  EXPECT_EQ(r.region, "us-west");
  EXPECT_EQ(r.weight, 10u);
  EXPECT_EQ(r.expires_at, 1796083200);  // 2026-12-01T00:00:00Z
  EXPECT_EQ(r.reason, "load test");

  json canary = Manifest(
      "Canary",
      {{"domain", "api"},
       {"node", "sj-02"},
       {"regions", {"us-west"}},
       {"steps", {{{"percent", 5}, {"pause", "10m"}}, {{"percent", 100}}}},
       {"analysis", {{"maxFailures", 3}, {"maxLatency", "250ms"}}}});
  canary["status"] = {
      {"phase", "Progressing"}, {"percent", 20}, {"observedGeneration", 2}};
  Parsed c = Parse(canary);
  ASSERT_TRUE(c.appended) << c.errors[0].ToString();
  const Canary& k = c.world.canaries[0];
  ASSERT_EQ(k.steps.size(), 2u);
  EXPECT_EQ(k.steps[0].pause_seconds, 600u);
  EXPECT_DOUBLE_EQ(k.steps[1].percent, 100);
  EXPECT_EQ(k.analysis.max_failures, 3u);
  EXPECT_DOUBLE_EQ(k.analysis.max_latency_ms, 250);
  EXPECT_EQ(k.status_phase, "Progressing");
  EXPECT_DOUBLE_EQ(k.EffectivePercent(), 20);
}

TEST(ModelParseTest, IspSetAndRegionMatchingOnIt) {
  Parsed set = Parse(Manifest("IspSet", {{"asns", {4134, 4809}},
                                         {"names", {"\u7535\u4fe1"}},
                                         {"replaceBuiltin", true}}));
  ASSERT_TRUE(set.appended) << set.errors[0].ToString();
  const IspSet& s = set.world.isp_sets[0];
  EXPECT_EQ(s.meta.name, "x");
  EXPECT_EQ(s.asns, (std::vector<uint32_t>{4134, 4809}));
  EXPECT_EQ(s.names, (std::vector<std::string>{"\u7535\u4fe1"}));
  EXPECT_TRUE(s.replace_builtin);

  Parsed region = Parse(Manifest(
      "Region",
      {{"isp", "telecom"},
       {"match", {{"subdivisions", {"cn-gd"}}, {"isps", {"telecom", "cn2"}}}},
       {"nodes", {"gz-01"}}}));
  ASSERT_TRUE(region.appended) << region.errors[0].ToString();
  EXPECT_EQ(region.world.regions[0].match.isps,
            (std::vector<std::string>{"telecom", "cn2"}));
}

struct ErrorCase {
  const char* label;
  json manifest;
  const char* object;
  const char* field;
  const char* message_part;
};

class ParseErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParseErrorTest, ReportsExactlyOnePreciseError) {
  const ErrorCase& c = GetParam();
  Parsed p = Parse(c.manifest, "dir/file.yaml:3#2");
  EXPECT_FALSE(p.appended);
  EXPECT_TRUE(p.world.nodes.empty() && p.world.domains.empty() &&
              p.world.regions.empty());
  ASSERT_EQ(p.errors.size(), 1u)
      << (p.errors.empty() ? "" : p.errors[1].ToString());
  const ManifestError& e = p.errors[0];
  EXPECT_EQ(e.source, "dir/file.yaml:3#2");
  EXPECT_EQ(e.object, c.object);
  EXPECT_EQ(e.field, c.field);
  EXPECT_THAT(e.message, HasSubstr(c.message_part));
}

json WithMeta(json m, const char* key, json value) {
  m[key] = std::move(value);
  return m;
}

INSTANTIATE_TEST_SUITE_P(
    Mistakes, ParseErrorTest,
    ::testing::Values(
        ErrorCase{"UnknownKind", Manifest("Nod", json::object()), "Nod/x",
                  "kind", "unknown kind \"Nod\""},
        ErrorCase{"WrongApiVersion",
                  WithMeta(Manifest("Node", {{"addresses", {"192.0.2.1"}}}),
                           "apiVersion", "gslb.ax.io/v1"),
                  "Node/x", "apiVersion", "must be gslb.ax.io/v1alpha1"},
        ErrorCase{"MissingName",
                  WithMeta(Manifest("Node", json::object()), "metadata",
                           json::object()),
                  "Node", "metadata.name", "is required"},
        ErrorCase{"BadName",
                  WithMeta(Manifest("Node", json::object()), "metadata",
                           {{"name", "Gz_01"}}),
                  "Node/Gz_01", "metadata.name", "a-z"},
        ErrorCase{"MissingKind",
                  json{{"apiVersion", "gslb.ax.io/v1alpha1"},
                       {"metadata", {{"name", "x"}}}},
                  "x", "kind", "is required"},
        ErrorCase{"NotAMap", json::array(), "", "", "must be a map"},
        ErrorCase{
            "UnknownTopLevelField",
            WithMeta(Manifest("Node", json::object()), "specs", json::object()),
            "Node/x", "specs", "unknown field"},
        ErrorCase{"UnknownSpecField",
                  Manifest("Node", {{"adress", {"192.0.2.1"}}}), "Node/x",
                  "spec.adress", "unknown field"},
        ErrorCase{"UnknownNestedField",
                  Manifest("Node", {{"healthCheck",
                                     {{"port", 80}, {"intervall", "5s"}}}}),
                  "Node/x", "spec.healthCheck.intervall", "unknown field"},
        ErrorCase{
            "SelectorExpressionsUnsupported",
            Manifest("Domain",
                     {{"fqdn", "a.b"},
                      {"zone", "b"},
                      {"nodeSelector", {{"matchExpressions", json::array()}}}}),
            "Domain/x", "spec.nodeSelector.matchExpressions", "unknown field"},
        ErrorCase{"VantageExpressionWithoutValues",
                  Manifest("Region",
                           {{"nodes", {"a"}},
                            {"vantageSelector",
                             {{"matchExpressions",
                               {{{"key", "isp"}, {"operator", "NotIn"}}}}}}}),
                  "Region/x", "spec.vantageSelector.matchExpressions[0].values",
                  "must not be empty for operator NotIn"},
        ErrorCase{
            "VantageExpressionUnknownOperator",
            Manifest("Region", {{"nodes", {"a"}},
                                {"vantageSelector",
                                 {{"matchExpressions",
                                   {{{"key", "isp"}, {"operator", "Gt"}}}}}}}),
            "Region/x", "spec.vantageSelector.matchExpressions[0].operator",
            "must be one of In, NotIn, Exists, DoesNotExist"},
        // issue 15: a token is one file of the token directory, never a path.
        ErrorCase{"TokenRefAbsolutePath",
                  Manifest("Node", {{"healthCheck",
                                     {{"port", 80},
                                      {"tokenSecretRef",
                                       "/var/run/secrets/kubernetes.io/"
                                       "serviceaccount/token"}}}}),
                  "Node/x", "spec.healthCheck.tokenSecretRef",
                  "must be one file name of the probe's token directory "
                  "(letters, digits, '-', '_', '.'), got "
                  "\"/var/run/secrets/kubernetes.io/serviceaccount/token\""},
        ErrorCase{
            "TokenRefParent",
            Manifest("Node", {{"healthCheck",
                               {{"port", 80}, {"tokenSecretRef", ".."}}}}),
            "Node/x", "spec.healthCheck.tokenSecretRef",
            "must not be \".\" or start with \"..\", got \"..\""},
        ErrorCase{"TokenRefBindingFile",
                  Manifest("Node",
                           {{"healthCheck",
                             {{"port", 80}, {"tokenSecretRef", "api.nodes"}}}}),
                  "Node/x", "spec.healthCheck.tokenSecretRef",
                  "must not end in \".nodes\" (a token's binding file, not a "
                  "token), got \"api.nodes\""},
        ErrorCase{"QuotedNumber", Manifest("Node", {{"weight", "100"}}),
                  "Node/x", "spec.weight", "must be an integer"},
        ErrorCase{"NegativeNumber", Manifest("Node", {{"weight", -1}}),
                  "Node/x", "spec.weight", "must be 0..4294967295"},
        ErrorCase{
            "FloatForInteger",
            Manifest("Domain",
                     {{"fqdn", "a.b"}, {"zone", "b"}, {"maxAnswers", 2.5}}),
            "Domain/x", "spec.maxAnswers", "must be an integer"},
        ErrorCase{"StringForList",
                  Manifest("Node", {{"addresses", "192.0.2.1"}}), "Node/x",
                  "spec.addresses", "must be a list"},
        ErrorCase{"ListForMap", Manifest("Node", {{"healthCheck", {1, 2}}}),
                  "Node/x", "spec.healthCheck", "must be a map"},
        ErrorCase{"BoolAsString",
                  Manifest("Region", {{"match", {{"default", "true"}}}}),
                  "Region/x", "spec.match.default", "must be true or false"},
        ErrorCase{"PortOutOfRange",
                  Manifest("Node", {{"healthCheck", {{"port", 70000}}}}),
                  "Node/x", "spec.healthCheck.port",
                  "must be 1..65535, got 70000"},
        ErrorCase{
            "StatusCodeOutOfRange",
            Manifest("Node", {{"healthCheck",
                               {{"port", 1}, {"expectStatus", {200, 700}}}}}),
            "Node/x", "spec.healthCheck.expectStatus[1]", "must be 100..599"},
        ErrorCase{
            "BadAddress",
            Manifest("Node", {{"addresses", {"192.0.2.1", "192.0.2.300"}}}),
            "Node/x", "spec.addresses[1]", "not an IPv4 or IPv6 address"},
        ErrorCase{"CidrWithHostBits",
                  Manifest("Region", {{"match", {{"cidrs", {"10.0.0.1/8"}}}}}),
                  "Region/x", "spec.match.cidrs[0]", "host bits"},
        ErrorCase{"BadCountry",
                  Manifest("Region", {{"match", {{"countries", {"USA"}}}}}),
                  "Region/x", "spec.match.countries[0]", "alpha-2"},
        ErrorCase{"BadSubdivision",
                  Manifest("Region", {{"match", {{"subdivisions", {"GD"}}}}}),
                  "Region/x", "spec.match.subdivisions[0]", "ISO 3166-2"},
        ErrorCase{"CityWithoutQualifier",
                  Manifest("Region", {{"match", {{"cities", {"Shenzhen"}}}}}),
                  "Region/x", "spec.match.cities[0]",
                  "must be SUBDIVISION/CITY or COUNTRY/CITY"},
        ErrorCase{"CityWithBadQualifier",
                  Manifest("Region",
                           {{"match", {{"cities", {"Guangdong/Shenzhen"}}}}}),
                  "Region/x", "spec.match.cities[0]", "like CN-GD/Shenzhen"},
        ErrorCase{"CityWithEmptyName",
                  Manifest("Region", {{"match", {{"cities", {"CN-GD/"}}}}}),
                  "Region/x", "spec.match.cities[0]", "got \"CN-GD/\""},
        ErrorCase{
            "CityNameWithSlash",
            Manifest("Region", {{"match", {{"cities", {"CN/GD/Shenzhen"}}}}}),
            "Region/x", "spec.match.cities[0]", "SUBDIVISION/CITY"},
        ErrorCase{"BadStrategy",
                  Manifest("Domain", {{"fqdn", "a.b"},
                                      {"zone", "b"},
                                      {"strategy", "RoundRobin"}}),
                  "Domain/x", "spec.strategy",
                  "must be one of RegionPriority, WeightedRandom"},
        ErrorCase{"BadFqdn",
                  Manifest("Domain", {{"fqdn", "www..example.test"},
                                      {"zone", "example.test"}}),
                  "Domain/x", "spec.fqdn", "label"},
        ErrorCase{"MissingZone",
                  Manifest("Domain", {{"fqdn", "www.example.test"}}),
                  "Domain/x", "spec.zone", "is required"},
        ErrorCase{"BadGrpcConfigText",
                  Manifest("Domain", {{"fqdn", "a.b"},
                                      {"zone", "b"},
                                      {"grpcServiceConfig", "{oops"}}),
                  "Domain/x", "spec.grpcServiceConfig", "JSON object"},
        ErrorCase{"SrvProtocolUnknown",
                  Manifest("Domain", {{"fqdn", "a.b"},
                                      {"zone", "b"},
                                      {"srv",
                                       {{{"service", "http"},
                                         {"protocol", "sctp"},
                                         {"port", 80}}}}}),
                  "Domain/x", "spec.srv[0].protocol", "must be tcp or udp"},
        ErrorCase{"SrvServiceWithUnderscore",
                  Manifest("Domain", {{"fqdn", "a.b"},
                                      {"zone", "b"},
                                      {"srv",
                                       {{{"service", "_http"},
                                         {"protocol", "tcp"},
                                         {"port", 80}}}}}),
                  "Domain/x", "spec.srv[0].service", "RFC 6335"},
        ErrorCase{"SrvServiceDoubleHyphen",
                  Manifest("Domain", {{"fqdn", "a.b"},
                                      {"zone", "b"},
                                      {"srv",
                                       {{{"service", "web--api"},
                                         {"protocol", "tcp"},
                                         {"port", 80}}}}}),
                  "Domain/x", "spec.srv[0].service", "got \"web--api\""},
        ErrorCase{
            "SrvWithoutPort",
            Manifest("Domain",
                     {{"fqdn", "a.b"},
                      {"zone", "b"},
                      {"srv", {{{"service", "http"}, {"protocol", "tcp"}}}}}),
            "Domain/x", "spec.srv[0].port", "is required"},
        ErrorCase{"SrvNotAMap",
                  Manifest("Domain",
                           {{"fqdn", "a.b"}, {"zone", "b"}, {"srv", {"http"}}}),
                  "Domain/x", "spec.srv[0]", "must be a map"},
        ErrorCase{"BadDuration",
                  Manifest("Node", {{"healthCheck",
                                     {{"port", 80}, {"interval", "5 sec"}}}}),
                  "Node/x", "spec.healthCheck.interval", "must be a duration"},
        ErrorCase{
            "FractionalPause",
            Manifest("Canary",
                     {{"domain", "d"},
                      {"node", "n"},
                      {"steps", {{{"percent", 5}, {"pause", "1500ms"}}}}}),
            "Canary/x", "spec.steps[0].pause", "whole seconds"},
        ErrorCase{"IspSetUnknownField",
                  Manifest("IspSet", {{"asns", {1}}, {"asn", 2}}), "IspSet/x",
                  "spec.asn", "unknown field"},
        ErrorCase{"IspSetAsnNotANumber",
                  Manifest("IspSet", {{"asns", {"AS4134"}}}), "IspSet/x",
                  "spec.asns[0]", ""},
        ErrorCase{"RegionIspsNotAName",
                  Manifest("Region", {{"match", {{"isps", {"Tele Com"}}}},
                                      {"nodes", {"n"}}}),
                  "Region/x", "spec.match.isps[0]", ""},
        ErrorCase{"StepWithoutPercent",
                  Manifest("Canary", {{"domain", "d"},
                                      {"node", "n"},
                                      {"steps", {{{"pause", "1m"}}}}}),
                  "Canary/x", "spec.steps[0].percent", "is required"},
        ErrorCase{"BadExpiry",
                  Manifest("Rule", {{"domain", "d"},
                                    {"action", "Pin"},
                                    {"node", "n"},
                                    {"expiresAt", "2026-02-30T00:00:00Z"}}),
                  "Rule/x", "spec.expiresAt", "RFC 3339"},
        ErrorCase{
            "BadAction",
            Manifest("Rule",
                     {{"domain", "d"}, {"action", "Block"}, {"node", "n"}}),
            "Rule/x", "spec.action", "must be one of Pin, Exclude, Weight"},
        ErrorCase{"BadHealthPath",
                  Manifest("Node", {{"healthCheck",
                                     {{"port", 80}, {"path", "healthz"}}}}),
                  "Node/x", "spec.healthCheck.path", "must start with '/'"},
        ErrorCase{"BadRedirect", Manifest("Node", {{"redirectURL", "ftp://x"}}),
                  "Node/x", "spec.redirectURL", "http:// or https://"},
        ErrorCase{"LabelNotString",
                  WithMeta(Manifest("Node", json::object()), "metadata",
                           {{"name", "x"}, {"labels", {{"v", 2}}}}),
                  "Node/x", "metadata.labels.v", "must be a string"},
        ErrorCase{"LocationWithoutLon",
                  Manifest("Node", {{"location", {{"lat", 1.5}}}}), "Node/x",
                  "spec.location.lon", "is required"}),
    [](const auto& test) { return std::string(test.param.label); });

TEST(ModelParseTest, CollectsErrorsAcrossObjectsAndKeepsGoodOnes) {
  World world;
  std::vector<ManifestError> errors;
  EXPECT_FALSE(ParseManifestObject(Manifest("Node", {{"adress", "x"}}),
                                   "a.yaml#1", world, errors));
  EXPECT_TRUE(
      ParseManifestObject(Manifest("Node", {{"addresses", {"192.0.2.1"}}}),
                          "a.yaml#2", world, errors));
  EXPECT_FALSE(ParseManifestObject(
      Manifest("Node", {{"weight", "x"}, {"addresses", {"bad"}}}), "a.yaml#3",
      world, errors));
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].source, "a.yaml#1");
  EXPECT_EQ(errors[1].field,
            "spec.addresses[0]");  // in the order the parser reads
  EXPECT_EQ(errors[2].field, "spec.weight");
  EXPECT_EQ(world.nodes.size(), 1u);
}

TEST(ModelParseTest, ErrorToStringSkipsEmptyParts) {
  ManifestError full{"examples/x.yaml#2", "Node/sz-01", "spec.healthCheck.port",
                     "must be 1..65535, got 70000"};
  EXPECT_EQ(full.ToString(),
            "examples/x.yaml#2: Node/sz-01: spec.healthCheck.port: must be "
            "1..65535, got 70000");
  ManifestError file_only{"x.yaml:4", "", "", "YAML syntax error"};
  EXPECT_EQ(file_only.ToString(), "x.yaml:4: YAML syntax error");
}

}  // namespace
}  // namespace ax
