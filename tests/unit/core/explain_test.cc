// Explanations tell the whole chain: classification, route step, rules, canary,
// candidates with score parts, pick and TTL reason — and agree with Decide.
#include "ax/explain.h"

#include <gtest/gtest.h>

#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::Ip;
using ::ax::testing::TestWorld;

TestWorld ExplainWorld() {
  TestWorld t;
  t.AddNode("gz-01", "192.0.2.1");
  t.AddNode("gz-02", "192.0.2.2");
  t.AddNode("bj-01", "198.51.100.1");
  Region& south = t.AddRegion("south", {"gz-01", "gz-02"}, {"north"});
  south.isp = "telecom";
  south.match.subdivisions = {"CN-GD"};
  south.match.asns = {4134};
  t.AddRegion("north", {"bj-01"}).match.cidrs = {
      *ParsePrefix("203.0.113.0/24")};
  Domain& d = t.AddDomain("www", Strategy::kRegionPriority, 2);
  d.fallback.cname = "origin.example.net";
  return t;
}

nlohmann::json ExplainFor(const Snapshot& s, const std::string& client,
                          std::string_view subdivision = "", uint32_t asn = 0) {
  ExplainRequest req;
  req.name = "WWW.example.test.";  // any case, trailing dot
  req.client = Ip(client);
  req.geo.country = subdivision.empty() ? "" : "CN";
  req.geo.subdivision = subdivision;
  req.geo.asn = asn;
  req.geo.geo_prefix_length = 20;
  req.now_ms = 1'000'000;
  return Explain(s, Classifier(s), req);
}

TEST(ExplainTest, RegionAnswerShowsClassificationCandidatesAndTtl) {
  const Snapshot s = ExplainWorld().Build();
  const auto e = ExplainFor(s, "113.108.1.1", "CN-GD", 4134);
  EXPECT_EQ(e["classification"]["step"], "geo");
  EXPECT_EQ(e["classification"]["region"], "south");
  EXPECT_EQ(e["classification"]["isp"], "telecom");
  // The geo network (/20) is narrower than where the CIDR table splits (/1).
  EXPECT_EQ(e["classification"]["ecsScope"], 20);
  EXPECT_EQ(e["route"]["source"], "Region");
  ASSERT_EQ(e["candidates"].size(), 2u);
  EXPECT_EQ(e["candidates"][0]["node"], "gz-01");
  EXPECT_DOUBLE_EQ(e["candidates"][1]["parts"]["priority"].get<double>(), 0.8);
  EXPECT_EQ(e["pick"], nlohmann::json({"gz-01", "gz-02"}));
  EXPECT_EQ(e["addresses"], nlohmann::json({"192.0.2.1", "192.0.2.2"}));
  EXPECT_EQ(e["ttl"], 300);
  EXPECT_EQ(e["ttlReason"], "steady");
  EXPECT_NE(e["summary"].get<std::string>().find("region south"),
            std::string::npos);
  EXPECT_EQ(e["nodesDown"], nlohmann::json::array());
}

TEST(ExplainTest, FallbackRegionAndCnameSteps) {
  TestWorld t = ExplainWorld();
  t.status["gz-01"].health = Health::kDown;
  t.status["gz-02"].health = Health::kDown;
  auto e = ExplainFor(t.Build(), "113.108.1.1", "CN-GD", 4134);
  EXPECT_EQ(e["route"]["source"], "FallbackRegion");
  EXPECT_EQ(e["route"]["via"], "north");
  EXPECT_EQ(e["pick"], nlohmann::json({"bj-01"}));
  // Why it fell back: the region's nodes are down.
  EXPECT_EQ(e["nodesDown"], nlohmann::json({"gz-01", "gz-02"}));
  EXPECT_NE(e["summary"].get<std::string>().find(R"(down: ["gz-01","gz-02"])"),
            std::string::npos);

  t.status["bj-01"].health = Health::kDown;
  e = ExplainFor(t.Build(), "113.108.1.1", "CN-GD", 4134);
  EXPECT_EQ(e["route"]["source"], "DomainFallback");
  EXPECT_EQ(e["cname"], "origin.example.net");
  EXPECT_EQ(e["pick"], nlohmann::json::array());
  EXPECT_EQ(e["ttlReason"], "fallback");
}

TEST(ExplainTest, CidrClassificationAndRule) {
  TestWorld t = ExplainWorld();
  t.AddRule("pin-bj", "www", RuleAction::kPin, "bj-01").region = "north";
  const auto e = ExplainFor(t.Build(), "203.0.113.9");
  EXPECT_EQ(e["classification"]["step"], "cidr");
  EXPECT_EQ(e["classification"]["region"], "north");
  EXPECT_EQ(e["route"]["rules"], nlohmann::json({"pin-bj"}));
}

TEST(ExplainTest, CanaryCohortMatchesThePick) {
  TestWorld t = ExplainWorld();
  t.AddCanary("can", "www", "gz-02", 50);
  const Snapshot s = t.Build();
  int in = 0;
  for (int i = 0; i < 40; ++i) {
    const auto e =
        ExplainFor(s, "113.108." + std::to_string(i) + ".1", "CN-GD", 4134);
    const auto& c = e["route"]["canary"];
    ASSERT_EQ(c["name"], "can");
    const bool in_cohort = c["inCohort"].get<bool>();
    EXPECT_EQ(in_cohort, c["cohortBucket"].get<int>() < 5000);
    EXPECT_EQ(in_cohort, e["pick"][0] == "gz-02");
    EXPECT_EQ(e["ttlReason"], "canary");
    in += in_cohort;
  }
  EXPECT_GT(in, 5);
  EXPECT_LT(in, 35);
}

// qtype SRV: the SRV name resolves to its Domain, the pick is the SRV one
// (any family) and the records say what DNS answers.
TEST(ExplainTest, SrvNameShowsItsRecords) {
  TestWorld t = ExplainWorld();
  t.node("bj-01").addresses.push_back(Ip("2001:db8::1"));
  t.world.domains[0].srv = {{"http", "tcp", 8080}};
  const Snapshot s = t.Build();
  ExplainRequest req;
  req.name = "_HTTP._tcp.www.example.test.";
  req.srv = true;
  req.client = Ip("203.0.113.9");
  req.now_ms = 1'000'000;
  const nlohmann::json e = Explain(s, Classifier(s), req);
  ASSERT_FALSE(e.contains("error")) << e.dump();
  EXPECT_EQ(e["classification"]["region"], "north");
  EXPECT_EQ(e["pick"], nlohmann::json({"bj-01"}));
  EXPECT_EQ(e["addresses"], nlohmann::json({"198.51.100.1", "2001:db8::1"}));
  EXPECT_EQ(e["srv"], nlohmann::json::parse(R"([{
      "target": "bj-01.www.example.test", "node": "bj-01",
      "priority": 0, "weight": 65535, "port": 8080}])"));

  // Every node down: the DomainFallback's CNAME target is the one record.
  for (const char* n : {"gz-01", "gz-02", "bj-01"}) {
    t.status[n].health = Health::kDown;
  }
  const Snapshot down = t.Build();
  const nlohmann::json f = Explain(down, Classifier(down), req);
  EXPECT_EQ(f["srv"], nlohmann::json::parse(R"([{
      "target": "origin.example.net", "priority": 0, "weight": 0,
      "port": 8080}])"));

  req.name = "_http._udp.www.example.test";
  EXPECT_NE(Explain(s, Classifier(s), req)["error"].get<std::string>().find(
                "no Domain's SRV name"),
            std::string::npos);
  // Without qtype SRV the name is no Domain's.
  req.name = "_http._tcp.www.example.test";
  req.srv = false;
  EXPECT_TRUE(Explain(s, Classifier(s), req).contains("error"));
}

TEST(ExplainTest, UnknownNameIsAnError) {
  const Snapshot s = ExplainWorld().Build();
  ExplainRequest req;
  req.name = "nope.example.test";
  req.client = Ip("192.0.2.9");
  const auto e = Explain(s, Classifier(s), req);
  EXPECT_NE(e["error"].get<std::string>().find("nope.example.test"),
            std::string::npos);
}

}  // namespace
}  // namespace ax
