// ServingState: which snapshot + zone combinations are refused, and the name
// index (zones by longest suffix, GSLB names, _grpc_config names, in-zone name
// servers, empty non-terminals).
#include "responder/serving_state.h"

#include <gtest/gtest.h>

#include <functional>

#include "dns_test_util.h"
#include "wire/name.h"

namespace ax::dns {
namespace {

using ::testing::HasSubstr;

std::string Wire(const std::string& text) { return *EncodeName(text); }

const IpAddress kNsV4 = *ParseIp("192.0.2.53");
const IpAddress kNsV6 = *ParseIp("2001:db8::53");

std::shared_ptr<const ServingState> Make(const ax::testing::TestWorld& world,
                                         const std::vector<ZoneConfig>& zones,
                                         std::string* error) {
  return ServingState::Make(std::make_shared<Snapshot>(world.Build()), zones,
                            error);
}

TEST(ServingStateTest, IndexesNames) {
  std::string error;
  auto state = Make(testing::ResponderWorld(),
                    {ZoneConfig{.name = "deep.example.test"}}, &error);
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
  // The default name server has no address, so no records of its own.
  EXPECT_EQ(state->FindName(Wire("ns1.example.test")), nullptr);

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
         z = {ZoneConfig{.name = "example.test"},
              ZoneConfig{.name = "example.test"}};
       },
       "configured twice"},
      {"invalid NS name",
       [](auto&, auto& z) {
         z = {
             ZoneConfig{.name = "example.test", .ns = {{.name = "bad..name"}}}};
       },
       "not a valid domain name"},
      {"in-zone name server listed without an address",
       [](auto&, auto& z) {
         z = {ZoneConfig{.name = "example.test",
                         .ns = {{.name = "ns1.example.test"}}}};
       },
       "zone example.test: name server ns1.example.test is inside the zone "
       "and needs an address"},
      {"addresses for a name server outside the zone",
       [](auto&, auto& z) {
         z = {ZoneConfig{
             .name = "example.test",
             .ns = {{.name = "ns.example.net", .addresses = {kNsV4}}}}};
       },
       "name server ns.example.net is outside the zone"},
      {"addresses for a name server in a served child zone",
       [](auto&, auto& z) {
         z = {ZoneConfig{.name = "example.test",
                         .ns = {{.name = "ns.deep.example.test",
                                 .addresses = {kNsV4}}}},
              ZoneConfig{.name = "deep.example.test"}};
       },
       "name server ns.deep.example.test is outside the zone"},
      {"name server listed twice",
       [](auto&, auto& z) {
         z = {ZoneConfig{
             .name = "example.test",
             .ns = {{.name = "ns.example.net"}, {.name = "NS.example.net."}}}};
       },
       "lists name server NS.example.net. twice"},
      {"name server on a GSLB name",
       [](auto&, auto& z) {
         z = {ZoneConfig{
             .name = "example.test",
             .ns = {{.name = "www.example.test", .addresses = {kNsV4}}}}};
       },
       "www.example.test is already served"},
      {"label over 63 octets",
       [](auto& w, auto&) {
         w.world.domains[0].fqdn = std::string(64, 'a') + ".example.test";
       },
       "not a valid domain name"},
      {"root zone", [](auto&, auto& z) { z = {ZoneConfig{}}; }, "root zone"},
      {"gRPC config too large",
       [](auto& w, auto&) {
         w.world.domains[1].grpc_service_config =
             "{\"x\":\"" + std::string(70000, 'x') + "\"}";
       },
       "too large"},
      {"a domain on an SRV target's name",
       [](auto& w, auto&) { w.world.domains[2].fqdn = "e1.www.example.test"; },
       "e1.www.example.test is already served"},
      {"an SRV name over 255 octets",
       [](auto& w, auto&) {
         w.world.domains[0].fqdn = std::string(60, 'a') + "." +
                                   std::string(60, 'b') + "." +
                                   std::string(60, 'c') + "." +
                                   std::string(55, 'd') + ".example.test";
       },
       "SRV name '_http._tcp.aaaa"},
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

// The responder world served in example.test and its child zone
// deep.example.test, each with a name server inside it and example.test with
// one outside too.
std::shared_ptr<const ServingState> MakeNested(std::string* error) {
  const ZoneConfig parent{
      .name = "example.test",
      .ns = {{.name = "ns.example.net"},
             {.name = "ns1.example.test", .addresses = {kNsV4, kNsV6}},
             {.name = "ns.deep.example.test"}}};
  const ZoneConfig child{
      .name = "deep.example.test",
      .ns = {{.name = "ns.deep.example.test", .addresses = {kNsV6}}}};
  return Make(testing::ResponderWorld(), {parent, child}, error);
}

TEST(ServingStateTest, IndexesInZoneNameServers) {
  std::string error;
  auto state = MakeNested(&error);
  ASSERT_NE(state, nullptr) << error;
  const uint32_t zone = state->FindZone(Wire("example.test"));
  const ServedZone& z = state->zone(zone);
  EXPECT_EQ(z.ns, (std::vector<std::string>{Wire("ns.example.net"),
                                            Wire("ns1.example.test"),
                                            Wire("ns.deep.example.test")}));
  EXPECT_EQ(z.mname, Wire("ns.example.net"));  // the first NS
  const ServedName* ns1 = state->FindName(Wire("ns1.example.test"));
  ASSERT_NE(ns1, nullptr);
  EXPECT_EQ(ns1->zone, zone);
  EXPECT_EQ(ns1->name_server, 1u);
  EXPECT_EQ(ns1->domain, kNoIndex);
  // In the child zone, by the child's own list.
  const ServedName* deep = state->FindName(Wire("ns.deep.example.test"));
  ASSERT_NE(deep, nullptr);
  EXPECT_EQ(deep->zone, state->FindZone(Wire("deep.example.test")));
  EXPECT_EQ(deep->name_server, 0u);
}

TEST(ServingStateTest, EveryNameKnowsTheLongestZoneHoldingIt) {
  // The responder takes a served name's zone from the name (answer.cc): it
  // must be the zone FindZone would give, under a child zone too.
  std::string error;
  auto state = MakeNested(&error);
  ASSERT_NE(state, nullptr) << error;
  size_t in_child = 0;
  for (const char* text :
       {"example.test", "www.example.test", "_grpc_config.api.example.test",
        "_http._tcp.www.example.test", "deep.example.test",
        "x.deep.example.test", "ns1.example.test", "ns.deep.example.test"}) {
    SCOPED_TRACE(text);
    const ServedName* name = state->FindName(Wire(text));
    ASSERT_NE(name, nullptr);
    EXPECT_EQ(name->zone, state->FindZone(Wire(text)));
    if (name->zone == state->FindZone(Wire("deep.example.test"))) ++in_child;
  }
  EXPECT_EQ(in_child, 3u);
}

}  // namespace
}  // namespace ax::dns
