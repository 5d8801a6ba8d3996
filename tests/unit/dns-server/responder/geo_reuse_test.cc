// ServingState::AttachGeo with the state served before: a new snapshot whose
// Regions keep their geo criteria (a Node, Rule or Canary edit, a CIDR) takes
// the previous compiled region map as it is, and a changed criterion or
// another resolver compiles a new one; either way the new state's map
// classifies like the slow path (geo lookup, then Classifier::Classify).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../geo/geo_test_support.h"
#include "geo/geo_resolver.h"
#include "geo_classify_support.h"
#include "responder/geo_regions.h"
#include "responder/serving_state.h"
#include "test_world.h"

namespace ax::dns {
namespace {

#ifdef AX_GEO_TEST_MMDB_DIR
using GeoAttach = ServingState::GeoAttach;
using testing::A;
using testing::MapClassify;
using testing::MustOpen;
using testing::SlowClassify;

// 1.0.0.0/24: CN-GD, AS4134; 2.0.0.0/16: US; 3.0.0.0/8: DE (test_mmdbs.json).
const char* const kClients[] = {"1.0.0.9", "2.0.1.7", "3.0.0.1", "9.9.9.9"};

ax::testing::TestWorld World() {
  ax::testing::TestWorld w;
  w.AddNode("gz", "10.1.0.1");
  w.AddNode("sj", "10.2.0.1");
  w.AddNode("fra", "10.3.0.1");
  RegionMatch& gd = w.AddRegion("gd-telecom", {"gz"}).match;
  gd.subdivisions = {"CN-GD"};
  gd.asns = {4134};
  w.AddRegion("us", {"sj"}).match.countries = {"US"};
  w.AddRegion("rest", {"fra"}).match.catch_all = true;
  w.AddDomain("www", Strategy::kRegionPriority);
  return w;
}

std::shared_ptr<const ServingState> State(const ax::testing::TestWorld& world,
                                          uint64_t version) {
  Snapshot snapshot = world.Build();
  snapshot.version = version;
  std::string error;
  auto state = ServingState::Make(
      std::make_shared<const Snapshot>(std::move(snapshot)), {}, &error);
  EXPECT_NE(state, nullptr) << error;
  return state;
}

std::shared_ptr<const GeoResolver> Resolver() {
  std::string error;
  auto geo = GeoResolver::Create(
      {.geo = {MustOpen(testing::TestDb("geoip2-city.mmdb"))},
       .asn = {MustOpen(testing::TestDb("asn.mmdb"))}},
      GeoFieldPaths{}, GeoResolver::Mode::kCompiled, &error);
  EXPECT_NE(geo, nullptr) << error;
  return geo;
}

// The region `state`'s attached map puts `ip` in, checked against the slow
// path of the same state.
std::string RegionOf(const ServingState& state, const GeoResolver& geo,
                     const char* ip) {
  SCOPED_TRACE(ip);
  const auto fast =
      MapClassify(*state.geo_regions(), state.classifier(), A(ip));
  EXPECT_TRUE(fast);
  if (!fast) return "";
  EXPECT_EQ(fast->region, SlowClassify(state.classifier(), geo, A(ip)).region);
  return fast->region == kNoIndex ? ""
                                  : state.snapshot().regions[fast->region].name;
}

TEST(GeoReuseTest, SameGeoCriteriaShareThePreviousMap) {
  const auto geo = Resolver();
  const auto first = State(World(), 1);
  EXPECT_EQ(first->AttachGeo(*geo, nullptr), GeoAttach::kBuilt);

  ax::testing::TestWorld edited = World();
  edited.node("sj").weight = 10;
  edited.node("fra").admin_state = AdminState::kDisabled;
  edited.world.regions[1].match.cidrs = {*ParsePrefix("198.51.100.0/24")};
  const auto second = State(edited, 2);
  EXPECT_EQ(second->AttachGeo(*geo, first.get()), GeoAttach::kReused);
  EXPECT_EQ(second->geo_regions(), first->geo_regions());  // the same object
  EXPECT_EQ(second->AttachGeo(*geo, first.get()), GeoAttach::kNone);
  for (const char* ip : kClients) {
    EXPECT_EQ(RegionOf(*second, *geo, ip), RegionOf(*first, *geo, ip));
  }
  EXPECT_EQ(RegionOf(*second, *geo, "1.0.0.9"), "gd-telecom");
  EXPECT_EQ(RegionOf(*second, *geo, "2.0.1.7"), "us");
}

TEST(GeoReuseTest, ChangedGeoCriteriaCompileAgain) {
  const auto geo = Resolver();
  const auto first = State(World(), 1);
  first->AttachGeo(*geo, nullptr);

  ax::testing::TestWorld edited = World();
  edited.world.regions[1].match.countries = {"US", "DE"};
  const auto second = State(edited, 2);
  EXPECT_EQ(second->AttachGeo(*geo, first.get()), GeoAttach::kBuilt);
  EXPECT_NE(second->geo_regions(), first->geo_regions());
  EXPECT_EQ(RegionOf(*first, *geo, "3.0.0.1"), "rest");
  EXPECT_EQ(RegionOf(*second, *geo, "3.0.0.1"), "us");

  // The same criteria under another region name sort elsewhere: other
  // region indices, so a new map too.
  ax::testing::TestWorld renamed = World();
  renamed.world.regions[0].meta.name = "zz-gd-telecom";
  const auto third = State(renamed, 3);
  EXPECT_EQ(third->AttachGeo(*geo, first.get()), GeoAttach::kBuilt);
  EXPECT_EQ(RegionOf(*third, *geo, "1.0.0.9"), "zz-gd-telecom");
}

TEST(GeoReuseTest, AnotherResolverOrNoPreviousMapCompiles) {
  const auto geo = Resolver();
  const auto reloaded = Resolver();  // a geo reload: a new generation
  ASSERT_NE(geo->generation(), reloaded->generation());
  const auto first = State(World(), 1);
  const auto second = State(World(), 2);
  EXPECT_EQ(second->AttachGeo(*geo, first.get()), GeoAttach::kBuilt);  // none
  first->AttachGeo(*geo, nullptr);
  const auto third = State(World(), 3);
  EXPECT_EQ(third->AttachGeo(*reloaded, first.get()), GeoAttach::kBuilt);
  EXPECT_EQ(third->geo_regions()->generation(), reloaded->generation());
}
#endif

}  // namespace
}  // namespace ax::dns
