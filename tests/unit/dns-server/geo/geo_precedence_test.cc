// Geo field precedence: the flag syntax and its errors, the defaults, the
// ranks given to files, and the merge that takes each field group from the
// best-ranked source saying something.
#include "geo/geo_precedence.h"

#include <gtest/gtest.h>

#include <string>

namespace ax::dns {
namespace {

// A source that only has a kind and a path: ranking reads nothing else.
class KindOnly final : public GeoSource {
 public:
  explicit KindOnly(GeoSourceKind kind) : kind_(kind) {}
  GeoSourceKind kind() const override { return kind_; }
  const std::string& path() const override { return path_; }
  bool Serves(IpFamily) const override { return true; }
  bool Lookup(const IpAddress&, GeoFacts&, bool&, int&) const override {
    return false;
  }
  bool Walk(IpFamily, const Visit&, std::string*) const override {
    return false;
  }

 private:
  GeoSourceKind kind_;
  std::string path_;
};

TEST(GeoPrecedenceTest, DefaultsAndFormat) {
  EXPECT_EQ(FormatGeoPrecedence(GeoPrecedence{}),
            "place=mmdb,ipdb,ip2region asn=asn,mmdb isp=ipdb,ip2region,mmdb");
}

TEST(GeoPrecedenceTest, SetReplacesOneGroup) {
  GeoPrecedence p;
  std::string error;
  ASSERT_TRUE(SetGeoPrecedence(p, "place=ipdb,mmdb", &error)) << error;
  ASSERT_TRUE(SetGeoPrecedence(p, "isp=ip2region", &error)) << error;
  EXPECT_EQ(FormatGeoPrecedence(p),
            "place=ipdb,mmdb asn=asn,mmdb isp=ip2region");
}

TEST(GeoPrecedenceTest, RejectsBadAssignmentsNamingTheProblem) {
  const struct {
    const char* assignment;
    const char* message;
  } cases[] = {
      {"place", "expected GROUP=KIND"},
      {"city=mmdb", "expected GROUP=KIND"},
      {"=mmdb", "expected GROUP=KIND"},
      {"place=", "unknown geo source kind \"\""},
      {"place=mmdb,geoip", "unknown geo source kind \"geoip\""},
      {"asn=asn,asn", "\"asn\" listed twice"},
      {"isp=ipdb,", "unknown geo source kind \"\""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.assignment);
    GeoPrecedence p;
    std::string error;
    EXPECT_FALSE(SetGeoPrecedence(p, c.assignment, &error));
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
    EXPECT_EQ(p, GeoPrecedence{}) << "a refused assignment changes nothing";
  }
}

TEST(GeoPrecedenceTest, RanksFollowKindsThenFileOrder) {
  std::vector<std::unique_ptr<const GeoSource>> sources;
  for (GeoSourceKind kind :
       {GeoSourceKind::kMmdb, GeoSourceKind::kMmdb, GeoSourceKind::kAsn,
        GeoSourceKind::kIpdb, GeoSourceKind::kIp2Region}) {
    sources.push_back(std::make_unique<KindOnly>(kind));
  }
  GeoPrecedence p;
  ASSERT_TRUE(SetGeoPrecedence(p, "place=ipdb,mmdb", nullptr));
  const RankedSources ranked = RankSources(std::move(sources), p, false);
  ASSERT_EQ(ranked.sources.size(), 5u);
  // place: ipdb 0, the two MMDBs 1 and 2, ip2region not listed.
  // asn: the ASN file 0, then the MMDBs 1 and 2.
  // isp: ipdb 0, ip2region 1, the MMDBs 2 and 3.
  const std::vector<GeoRanks> want = {{1, 1, 2},
                                      {2, 2, 3},
                                      {kUnranked, 0, kUnranked},
                                      {0, kUnranked, 0},
                                      {kUnranked, kUnranked, 1}};
  EXPECT_EQ(ranked.ranks, want);
}

TEST(GeoPrecedenceTest, MergeTakesEachGroupFromTheBestSourceSayingSomething) {
  const GeoFacts dbip{.country = "CN",
                      .subdivision = "CN-GD",
                      .city = "Guangzhou",
                      .asn = 0,
                      .isp = ""};
  const GeoFacts asn_file{.asn = 4134};
  const GeoFacts ipdb{.country = "CN",
                      .subdivision = "CN-SC",
                      .city = "成都",
                      .asn = 0,
                      .isp = "电信"};
  RankedFacts merged;
  EXPECT_TRUE(merged.empty());
  merged.Merge(ipdb, {1, kUnranked, 0});
  merged.Merge(asn_file, {kUnranked, 0, kUnranked});
  merged.Merge(dbip, {0, 1, 2});
  // The place as one unit from dbip (rank 0): its city with its province.
  EXPECT_EQ(merged.facts.country, "CN");
  EXPECT_EQ(merged.facts.subdivision, "CN-GD");
  EXPECT_EQ(merged.facts.city, "Guangzhou");
  // dbip says no ASN and no carrier: the others' stay.
  EXPECT_EQ(merged.facts.asn, 4134u);
  EXPECT_EQ(merged.facts.isp, "电信");
  EXPECT_EQ(merged.ranks, (GeoRanks{0, 0, 0}));
  EXPECT_FALSE(merged.CouldTake({1, 1, 1}));
  EXPECT_FALSE(merged.CouldTake({kUnranked, kUnranked, kUnranked}));

  // A worse-ranked source fills only what nobody said.
  RankedFacts partial;
  partial.Merge(asn_file, {kUnranked, 0, kUnranked});
  EXPECT_TRUE(partial.CouldTake({3, kUnranked, kUnranked}));
  partial.Merge(ipdb, {3, 3, 3});
  EXPECT_EQ(partial.facts.subdivision, "CN-SC");
  EXPECT_EQ(partial.facts.asn, 4134u);
  EXPECT_EQ(partial.ranks, (GeoRanks{3, 0, 3}));
}

TEST(GeoPrecedenceTest, AProvinceWithoutCountrySaysNothing) {
  RankedFacts merged;
  merged.Merge(GeoFacts{.subdivision = "CN-GD", .city = "广州"}, {0, 0, 0});
  EXPECT_TRUE(merged.empty());
  EXPECT_EQ(merged.facts.subdivision, "");
}

}  // namespace
}  // namespace ax::dns
