// /v1/explain as a function: parameter errors (400), no snapshot (503), an
// unknown name (404), and the explanation for the rule, canary, fallback and
// ECS cases on a CIDR-classified world.
#include "server/explain_handler.h"

#include <gtest/gtest.h>

#include "ops_world.h"

namespace ax::dns {
namespace {

using testing::OpsWorld;
using testing::OpsWorldAllDown;
using testing::Serve;

JsonReply Ask(const ServingState* state, QueryParams params) {
  return ExplainQuery(params, state, nullptr, 1'000'000);
}

TEST(ExplainHandlerTest, BadParametersAre400WithAJsonError) {
  const auto state = Serve(OpsWorld());
  for (const QueryParams& params : std::vector<QueryParams>{
           {{"client", "192.0.2.1"}},
           {{"name", "www.example.test"}},
           {{"name", "www.example.test"}, {"client", "nope"}},
           {{"name", "www.example.test"}, {"ecs", "192.0.2.0/33"}},
           {{"name", "www.example.test"}, {"ecs", "192.0.2.0/x"}},
           {{"name", "www.example.test"},
            {"client", "192.0.2.1"},
            {"qtype", "MX"}},
           {{"name", "www.example.test"},
            {"client", "192.0.2.1"},
            {"seed", "-1"}},
       }) {
    const JsonReply r = Ask(state.get(), params);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_TRUE(r.body["error"].is_string()) << r.body;
  }
}

TEST(ExplainHandlerTest, SrvNamesAreExplainedWithQtypeSrv) {
  ax::testing::TestWorld world = OpsWorld();
  world.world.domains[1].srv = {{"grpc", "tcp", 443}};  // api
  const auto state = Serve(world);
  const JsonReply r = Ask(state.get(), {{"name", "_grpc._tcp.api.example.test"},
                                        {"client", "192.0.2.1"},
                                        {"qtype", "SRV"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["query"]["qtype"], "SRV");
  // The canary (100%) leads, then east's best, as the DNS answer does.
  ASSERT_EQ(r.body["srv"].size(), 2u) << r.body;
  EXPECT_EQ(r.body["srv"][0]["target"], "c.api.example.test");
  EXPECT_EQ(r.body["srv"][0]["port"], 443);
  EXPECT_EQ(r.body["srv"][1]["priority"], 1);
  const JsonReply a = Ask(state.get(), {{"name", "_grpc._tcp.api.example.test"},
                                        {"client", "192.0.2.1"}});
  EXPECT_EQ(a.status, 404) << a.body;
}

TEST(ExplainHandlerTest, NoSnapshotIs503) {
  const JsonReply r =
      Ask(nullptr, {{"name", "www.example.test"}, {"client", "192.0.2.1"}});
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.body["error"], "no snapshot loaded yet");
}

TEST(ExplainHandlerTest, UnknownNameIs404) {
  const auto state = Serve(OpsWorld());
  const JsonReply r = Ask(
      state.get(), {{"name", "nope.example.test"}, {"client", "192.0.2.1"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body["error"].get<std::string>().find("not a served domain"),
            std::string::npos);
}

TEST(ExplainHandlerTest, RuleShapesTheRoute) {
  const auto state = Serve(OpsWorld());
  const JsonReply r = Ask(
      state.get(), {{"name", "WWW.example.test."}, {"client", "192.0.2.7"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["classification"]["region"], "east");
  EXPECT_EQ(r.body["classification"]["step"], "cidr");
  EXPECT_EQ(r.body["route"]["source"], "Region");
  EXPECT_EQ(r.body["route"]["rules"], nlohmann::json::array({"www-no-a"}));
  EXPECT_EQ(r.body["pick"], nlohmann::json::array({"b"}));
  EXPECT_EQ(r.body["addresses"], nlohmann::json::array({"10.0.0.2"}));
  EXPECT_EQ(r.body["ttlReason"], "steady");
  EXPECT_EQ(r.body["resolver"], "192.0.2.7");
  EXPECT_FALSE(r.body.contains("ecs"));
  EXPECT_EQ(r.body["geo"]["lookupFailed"], false);
  EXPECT_TRUE(r.body["summary"].is_string());
}

TEST(ExplainHandlerTest, CanaryLeadsForItsCohort) {
  const auto state = Serve(OpsWorld());
  const JsonReply r =
      Ask(state.get(), {{"name", "api.example.test"}, {"client", "192.0.2.7"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const nlohmann::json& canary = r.body["route"]["canary"];
  EXPECT_EQ(canary["name"], "api-c");
  EXPECT_EQ(canary["node"], "c");
  EXPECT_EQ(canary["inCohort"], true);
  EXPECT_EQ(r.body["pick"][0], "c");
  EXPECT_EQ(r.body["ttlReason"], "canary");
}

TEST(ExplainHandlerTest, FallbackRegionAndDomainFallback) {
  const auto state = Serve(OpsWorld());
  JsonReply r = Ask(state.get(),
                    {{"name", "www.example.test"}, {"client", "203.0.113.5"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["classification"]["region"], "rest");
  EXPECT_EQ(r.body["route"]["source"], "FallbackRegion");
  EXPECT_EQ(r.body["route"]["via"], "east");

  const auto down = Serve(OpsWorldAllDown());
  r = Ask(down.get(), {{"name", "www.example.test"}, {"client", "192.0.2.7"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["route"]["source"], "DomainFallback");
  EXPECT_EQ(r.body["cname"], "origin.example.test");
  EXPECT_EQ(r.body["ttlReason"], "fallback");
  r = Ask(down.get(), {{"name", "api.example.test"}, {"client", "192.0.2.7"}});
  EXPECT_EQ(r.body["addresses"], nlohmann::json::array({"203.0.113.99"}));
}

TEST(ExplainHandlerTest, EcsIsCappedLikeTheResponder) {
  const auto state = Serve(OpsWorld());
  // The resolver is in west; its client's subnet is in east.
  JsonReply r = Ask(state.get(), {{"name", "www.example.test"},
                                  {"client", "198.51.100.1"},
                                  {"ecs", "192.0.2.77/32"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["classification"]["region"], "east");
  EXPECT_EQ(r.body["query"]["client"], "192.0.2.0");  // masked to /24
  EXPECT_EQ(r.body["ecs"]["subnet"], "192.0.2.77/32");
  EXPECT_EQ(r.body["ecs"]["sourcePrefix"], 32);
  EXPECT_EQ(r.body["ecs"]["usedPrefix"], 24);
  EXPECT_EQ(r.body["ecs"]["used"], true);
  // SOURCE 0 opts out: the resolver's address decides.
  r = Ask(state.get(), {{"name", "www.example.test"},
                        {"client", "198.51.100.1"},
                        {"ecs", "0.0.0.0/0"}});
  EXPECT_EQ(r.body["classification"]["region"], "west");
  EXPECT_EQ(r.body["ecs"]["used"], false);
  // ECS alone is enough; AAAA asks for the v6 family.
  r = Ask(state.get(), {{"name", "www.example.test"},
                        {"ecs", "198.51.100.0/24"},
                        {"qtype", "AAAA"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["classification"]["region"], "west");
  EXPECT_EQ(r.body["query"]["qtype"], "AAAA");
}

}  // namespace
}  // namespace ax::dns
