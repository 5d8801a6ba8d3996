// The endpoints view (GET /v1/endpoints): every Region's ranked endpoints with
// weights and health, the entry for unmatched clients, one Region's, the
// fallback step, Rules and Canaries in force, and one client's entry whose
// answer is the one DNS gives it.
#include "ax/endpoints.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "ax/decide.h"
#include "ax/explain.h"
#include "test_world.h"

namespace ax {
namespace {

using ::ax::testing::Ip;
using ::ax::testing::TestWorld;
using nlohmann::json;

constexpr int64_t kNow = 1'000'000;

TestWorld EndpointsWorld() {
  TestWorld t;
  t.AddNode("gz-01", "192.0.2.1").weight = 300;
  t.AddNode("gz-02", "192.0.2.2");
  t.AddNode("bj-01", "198.51.100.1");
  t.AddRegion("south", {"gz-01", "gz-02"}, {"north"}).match.cidrs = {
      *ParsePrefix("10.0.0.0/8")};
  t.AddRegion("north", {"bj-01"}).match.cidrs = {
      *ParsePrefix("203.0.113.0/24")};
  Domain& www = t.AddDomain("www", Strategy::kWeightedRandom, 2);
  www.fallback.cname = "origin.example.net";
  www.srv = {{"http", "tcp", 8080}};
  return t;
}

// The entry of Region `name` (the builder orders Regions by name).
const json& Entry(const json& view, const json& name) {
  for (const json& e : view["regions"]) {
    if (e["region"] == name) return e;
  }
  throw std::runtime_error("no entry for " + name.dump());
}

std::vector<std::string> Nodes(const json& entry) {
  std::vector<std::string> out;
  for (const json& e : entry["endpoints"]) out.push_back(e["node"]);
  return out;
}

TEST(EndpointsTest, EveryRegionWithItsRankedEndpointsAndWeights) {
  const Snapshot s = EndpointsWorld().Build(kNow);
  const json v = DomainEndpoints(s, "WWW.example.test.", std::nullopt, kNow);
  ASSERT_FALSE(v.contains("error")) << v.dump();
  EXPECT_EQ(v["snapshot"]["version"], s.version);
  EXPECT_EQ(v["snapshot"]["contentHash"], s.content_hash);
  EXPECT_EQ(v["domain"]["fqdn"], "www.example.test");
  EXPECT_EQ(v["domain"]["strategy"], "WeightedRandom");
  EXPECT_EQ(v["domain"]["ttl"]["steady"], 300);
  EXPECT_EQ(v["domain"]["srv"],
            json::parse(R"([{"name": "_http._tcp.www.example.test",
                             "port": 8080}])"));
  // north, south, then the entry for clients no Region matches.
  ASSERT_EQ(v["regions"].size(), 3u);
  const json& south = Entry(v, "south");
  EXPECT_EQ(south["region"], "south");
  EXPECT_EQ(south["source"], "Region");
  EXPECT_EQ(Nodes(south), (std::vector<std::string>{"gz-01", "gz-02"}));
  EXPECT_EQ(south["endpoints"][0]["addresses"], json({"192.0.2.1"}));
  EXPECT_EQ(south["endpoints"][0]["weight"], 300);
  EXPECT_EQ(south["endpoints"][1]["weight"], 100);
  EXPECT_EQ(south["endpoints"][0]["health"], "Up");
  EXPECT_FALSE(south["endpoints"][0].contains("strategyKey"));  // per query
  EXPECT_EQ(Nodes(Entry(v, "north")), (std::vector<std::string>{"bj-01"}));
  EXPECT_TRUE(v["regions"][2]["region"].is_null());
}

TEST(EndpointsTest, OneRegionAndWhatIsNotThere) {
  TestWorld t = EndpointsWorld();
  t.status["bj-01"].health = Health::kDown;
  const Snapshot s = t.Build(kNow);
  json v = DomainEndpoints(s, "www.example.test", "north", kNow);
  ASSERT_EQ(v["regions"].size(), 1u);
  // north's node is down and it has no fallback region: the whole domain's
  // healthy nodes, as DNS answers them.
  EXPECT_EQ(v["regions"][0]["source"], "AllHealthy");
  EXPECT_EQ(v["regions"][0]["endpoints"].size(), 2u);
  v = DomainEndpoints(s, "www.example.test", "", kNow);  // unmatched clients
  ASSERT_EQ(v["regions"].size(), 1u);
  EXPECT_TRUE(v["regions"][0]["region"].is_null());

  EXPECT_EQ(
      DomainEndpoints(s, "www.example.test", "west", kNow)["error"],
      "no Region 'west' in snapshot version " + std::to_string(s.version));
  EXPECT_EQ(DomainEndpoints(s, "api.example.test", std::nullopt, kNow)["error"],
            "'api.example.test' is not a served domain in snapshot version " +
                std::to_string(s.version));
}

TEST(EndpointsTest, DomainFallbackRulesAndCanary) {
  TestWorld t = EndpointsWorld();
  for (const char* n : {"gz-01", "gz-02", "bj-01"}) {
    t.status[n].health = Health::kDown;
  }
  Snapshot s = t.Build(kNow);
  json v = DomainEndpoints(s, "www.example.test", "south", kNow);
  EXPECT_EQ(v["regions"][0]["source"], "DomainFallback");
  EXPECT_EQ(v["regions"][0]["cname"], "origin.example.net");
  EXPECT_TRUE(v["regions"][0]["endpoints"].empty());

  t = EndpointsWorld();
  t.AddRule("pin-bj", "www", RuleAction::kPin, "bj-01").region = "south";
  s = t.Build(kNow);
  v = DomainEndpoints(s, "www.example.test", "south", kNow);
  EXPECT_EQ(v["regions"][0]["rules"], json({"pin-bj"}));
  EXPECT_EQ(Nodes(v["regions"][0]), (std::vector<std::string>{"bj-01"}));

  t = EndpointsWorld();
  t.AddCanary("gz-02-canary", "www", "gz-02", 25);
  s = t.Build(kNow);
  v = DomainEndpoints(s, "www.example.test", "south", kNow);
  EXPECT_EQ(
      v["regions"][0]["canary"],
      json({{"name", "gz-02-canary"}, {"node", "gz-02"}, {"percent", 25}}));
}

TEST(EndpointsTest, AClientGetsItsRegionAndTheAnswerDnsGivesIt) {
  TestWorld t = EndpointsWorld();
  t.AddCanary("gz-02-canary", "www", "gz-02", 50);
  const Snapshot s = t.Build(kNow);
  const Classifier classifier(s);
  int in_canary = 0;
  for (int i = 0; i < 64; ++i) {
    const IpAddress client = Ip("10.0." + std::to_string(i) + ".7");
    const json v = ClientEndpoints(s, classifier, "www.example.test",
                                   {.address = client}, kNow);
    ASSERT_EQ(v["regions"].size(), 1u);
    EXPECT_EQ(v["regions"][0]["region"], "south");
    EXPECT_EQ(v["client"]["region"], "south");
    EXPECT_EQ(v["client"]["cohortSubnet"],
              "10.0." + std::to_string(i) + ".0/24");
    // The answer is the one explain (so the data plane) gives this client.
    const json e = Explain(s, classifier,
                           {.name = "www.example.test",
                            .client = client,
                            .now_ms = kNow,
                            .seed = 0});
    EXPECT_EQ(v["answer"]["nodes"], e["pick"]);
    EXPECT_EQ(v["answer"]["addresses"], e["addresses"]);
    EXPECT_EQ(v["answer"]["canary"], e["route"]["canary"]["inCohort"]);
    in_canary += v["answer"]["canary"].get<bool>();
  }
  EXPECT_GT(in_canary, 16);  // half of 64 cohorts, within sampling error
  EXPECT_LT(in_canary, 48);

  const json north = ClientEndpoints(s, classifier, "www.example.test",
                                     {.address = Ip("203.0.113.9")}, kNow);
  EXPECT_EQ(north["client"]["region"], "north");
  EXPECT_EQ(north["answer"]["nodes"], json({"bj-01"}));
}

}  // namespace
}  // namespace ax
