// ServingState: which snapshot + zone combinations are refused, and the name
// index (zones by longest suffix, GSLB names, _grpc_config names, empty
// non-terminals).
#include "responder/serving_state.h"

#include <gtest/gtest.h>

#include <functional>

#include "dns_test_util.h"
#include "wire/name.h"

namespace ax::dns {
namespace {

using ::testing::HasSubstr;

std::string Wire(const std::string& text) { return *EncodeName(text); }

std::shared_ptr<const ServingState> Make(const ax::testing::TestWorld& world,
                                         const std::vector<ZoneConfig>& zones,
                                         std::string* error) {
  return ServingState::Make(std::make_shared<Snapshot>(world.Build()), zones,
                            error);
}

TEST(ServingStateTest, IndexesNames) {
  std::string error;
  ZoneConfig sub = DefaultZone("deep.example.test");
  auto state = Make(testing::ResponderWorld(), {sub}, &error);
  ASSERT_NE(state, nullptr) << error;
  const uint32_t parent = state->FindZone(Wire("example.test"));
  const uint32_t child = state->FindZone(Wire("deep.example.test"));
  ASSERT_NE(parent, kNoIndex);
  ASSERT_NE(child, kNoIndex);
  EXPECT_NE(parent, child);
  EXPECT_EQ(state->FindZone(Wire("a.b.example.test")), parent);
  EXPECT_EQ(state->FindZone(Wire("x.deep.example.test")),
            child);  // longest suffix
  EXPECT_EQ(state->FindZone(Wire("example.org")), kNoIndex);
  EXPECT_EQ(state->FindZone(Wire("test")), kNoIndex);

  const ServedName* www = state->FindName(Wire("www.example.test"));
  ASSERT_NE(www, nullptr);
  EXPECT_EQ(state->snapshot().domains[www->domain].name, "www");
  EXPECT_EQ(www->zone, parent);
  const ServedName* txt =
      state->FindName(Wire("_grpc_config.api.example.test"));
  ASSERT_NE(txt, nullptr);
  EXPECT_EQ(state->snapshot().domains[txt->grpc_config].name, "api");
  EXPECT_EQ(state->FindName(Wire("_grpc_config.www.example.test")), nullptr);
  const ServedName* apex = state->FindName(Wire("example.test"));
  ASSERT_NE(apex, nullptr);
  EXPECT_TRUE(apex->apex);
  const ServedName* x = state->FindName(Wire("x.deep.example.test"));
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->zone, child);
  EXPECT_EQ(state->FindName(Wire("nope.example.test")), nullptr);

  const ServedZone& z = state->zone(parent);
  EXPECT_EQ(z.ns, std::vector<std::string>{Wire("ns1.example.test")});
  EXPECT_EQ(z.mname, Wire("ns1.example.test"));
  EXPECT_EQ(z.rname, Wire("hostmaster.example.test"));
  EXPECT_EQ(z.negative_ttl, 60u);
  EXPECT_EQ(state->serial(), 1u);

  const Snapshot& s = state->snapshot();
  auto served = [&](const std::string& name) -> const ServedDomain& {
    for (uint32_t i = 0; i < s.domains.size(); ++i) {
      if (s.domains[i].name == name) return state->domain(i);
    }
    throw std::runtime_error(name);
  };
  EXPECT_TRUE(served("flat").one_route);
  EXPECT_FALSE(served("www").one_route);
  EXPECT_TRUE(served("hash").subnet_strategy);
  EXPECT_FALSE(served("www").subnet_strategy);
  EXPECT_EQ(served("origin").cname, Wire("origin.example.net"));
  EXPECT_TRUE(served("www").cname.empty());
  EXPECT_FALSE(served("api").grpc_txt.empty());
}

TEST(ServingStateTest, RefusesUnusableCombinations) {
  struct Row {
    std::string rule;
    std::function<void(ax::testing::TestWorld&, std::vector<ZoneConfig>&)>
        setup;
    std::string error;
  };
  const std::vector<Row> rows = {
      {"domain outside its zone",
       [](auto& w, auto&) { w.world.domains[0].fqdn = "www.example.org"; },
       "is not inside zone"},
      {"two domains on one name",
       [](auto& w, auto&) { w.world.domains[1].fqdn = "www.example.test"; },
       "already served"},
      {"CNAME fallback at the apex",
       [](auto& w, auto&) { w.world.domains[3].fqdn = "example.test"; },
       "cannot sit at zone apex"},
      {"zone configured twice",
       [](auto&, auto& z) {
         z = {DefaultZone("example.test"), DefaultZone("example.test")};
       },
       "configured twice"},
      {"invalid NS name",
       [](auto&, auto& z) {
         z = {DefaultZone("example.test")};
         z[0].ns = {"bad..name"};
       },
       "not a valid domain name"},
      {"label over 63 octets",
       [](auto& w, auto&) {
         w.world.domains[0].fqdn = std::string(64, 'a') + ".example.test";
       },
       "not a valid domain name"},
      {"root zone", [](auto&, auto& z) { z = {DefaultZone("")}; }, "root zone"},
      {"gRPC config too large",
       [](auto& w, auto&) {
         w.world.domains[1].grpc_service_config =
             "{\"x\":\"" + std::string(70000, 'x') + "\"}";
       },
       "too large"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    ax::testing::TestWorld world = testing::ResponderWorld();
    std::vector<ZoneConfig> zones;
    row.setup(world, zones);
    std::string error;
    EXPECT_EQ(Make(world, zones, &error), nullptr);
    EXPECT_THAT(error, HasSubstr(row.error));
  }
}

}  // namespace
}  // namespace ax::dns
