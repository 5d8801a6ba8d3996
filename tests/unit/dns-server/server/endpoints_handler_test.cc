// /v1/endpoints as a function: parameter errors (400), no snapshot (503), an
// unknown name or Region (404), a Domain's Regions, one Region, and one
// client chosen as the responder chooses it (ECS capped at /24).
#include "server/endpoints_handler.h"

#include <gtest/gtest.h>

#include "ops_world.h"

namespace ax::dns {
namespace {

using testing::OpsWorld;
using testing::OpsWorldAllDown;
using testing::Serve;

JsonReply Ask(const ServingState* state, QueryParams params) {
  return EndpointsQuery(params, state, nullptr, 1'000'000);
}

TEST(EndpointsHandlerTest, BadParametersAre400WithAJsonError) {
  const auto state = Serve(OpsWorld());
  for (const QueryParams& params : std::vector<QueryParams>{
           {{"region", "east"}},
           {{"name", ""}},
           {{"name", "www.example.test"}, {"client", "nope"}},
           {{"name", "www.example.test"}, {"ecs", "192.0.2.0/33"}},
           {{"name", "www.example.test"}, {"qtype", "MX"}},
           {{"name", "www.example.test"}, {"qtype", "SRV"}},
           {{"name", "www.example.test"},
            {"region", "east"},
            {"client", "192.0.2.1"}},
       }) {
    const JsonReply r = Ask(state.get(), params);
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_TRUE(r.body["error"].is_string()) << r.body;
  }
}

TEST(EndpointsHandlerTest, NoSnapshotIs503AndUnknownsAre404) {
  EXPECT_EQ(Ask(nullptr, {{"name", "www.example.test"}}).status, 503);
  const auto state = Serve(OpsWorld());
  EXPECT_EQ(Ask(state.get(), {{"name", "nope.example.test"}}).status, 404);
  const JsonReply r =
      Ask(state.get(), {{"name", "www.example.test"}, {"region", "north"}});
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body["error"].get<std::string>().find("no Region 'north'"),
            std::string::npos);
}

TEST(EndpointsHandlerTest, RegionsOfADomainAndOneRegion) {
  const auto state = Serve(OpsWorld());
  JsonReply r = Ask(state.get(), {{"name", "api.example.test"}});
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.body["regions"].size(), 4u);  // east, west, rest, unmatched
  r = Ask(state.get(), {{"name", "www.example.test"}, {"region", "east"}});
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(r.body["regions"].size(), 1u);
  const nlohmann::json& east = r.body["regions"][0];
  EXPECT_EQ(east["rules"], nlohmann::json({"www-no-a"}));
  ASSERT_EQ(east["endpoints"].size(), 1u);  // the Rule excludes a
  EXPECT_EQ(east["endpoints"][0]["node"], "b");
}

TEST(EndpointsHandlerTest, AClientByEcsAsTheResponderSeesIt) {
  const auto state = Serve(OpsWorld());
  const JsonReply r = Ask(state.get(), {{"name", "www.example.test"},
                                        {"client", "203.0.113.53"},
                                        {"ecs", "198.51.100.77/32"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["client"]["region"], "west");
  EXPECT_EQ(r.body["client"]["address"], "198.51.100.0");
  EXPECT_EQ(r.body["ecs"]["usedPrefix"], 24);  // capped as the responder does
  EXPECT_EQ(r.body["resolver"], "203.0.113.53");
  EXPECT_EQ(r.body["answer"]["nodes"], nlohmann::json({"c"}));
  EXPECT_EQ(r.body["answer"]["addresses"], nlohmann::json({"10.0.0.3"}));
}

TEST(EndpointsHandlerTest, AClientOnTheDomainFallbackGetsItsAddresses) {
  const auto state = Serve(OpsWorldAllDown());
  const JsonReply r = Ask(
      state.get(), {{"name", "api.example.test"}, {"client", "192.0.2.10"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body["answer"]["source"], "DomainFallback");
  EXPECT_EQ(r.body["answer"]["nodes"], nlohmann::json::array());
  // What DNS answers: the Domain's fixed addresses.
  EXPECT_EQ(r.body["answer"]["addresses"], nlohmann::json({"203.0.113.99"}));
}

}  // namespace
}  // namespace ax::dns
