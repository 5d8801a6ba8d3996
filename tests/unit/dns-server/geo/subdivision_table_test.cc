// SubdivisionTable: built-in ISO 3166-2 rows and aliases, code suffixes
// (GeoIP2) and names (dbip) mapped to full codes, and override files.
#include "geo/subdivision_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "geo_test_support.h"

namespace ax::dns {
namespace {

TEST(SubdivisionTableTest, BuiltinMapsCodesSuffixesAndNames) {
  auto table = SubdivisionTable::Builtin();
  // Every ISO 3166-2 code (iso-codes has ~5000).
  EXPECT_GT(table->code_count(), 5000u);
  struct Case {
    const char* country;
    const char* value;
    const char* want;
  };
  const Case cases[] = {
      {"CN", "GD", "CN-GD"},               // GeoIP2 subdivisions.0.iso_code
      {"CN", "CN-GD", "CN-GD"},            // already a full code
      {"CN", "Guangdong", "CN-GD"},        // dbip state1 (alias)
      {"CN", "guangdong sheng", "CN-GD"},  // ISO name, any case
      {"CN", "Beijing", "CN-BJ"},
      {"CN", "Inner Mongolia", "CN-NM"},
      {"CN", "Tibet", "CN-XZ"},
      {"US", "California", "US-CA"},  // ISO name == dbip name
      {"US", "District of Columbia", "US-DC"},
      {"US", "CA", "US-CA"},
      {"DE", "BY", "DE-BY"},
      {"DE", "Bayern", "DE-BY"},
      {"US", "Guangdong", ""},  // names are per country
      {"US", "Atlantis", ""},
      {"CN", "", ""},
      {"", "GD", ""},
      {"CN", "CN-ZZ", "CN-ZZ"},  // newer code than the table: kept
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.country) + "/" + c.value);
    EXPECT_EQ(table->ToIso(c.country, c.value), c.want);
  }
}

TEST(SubdivisionTableTest, EveryDbipChineseProvinceName) {
  // The state1 values the pinned dbip city data uses for CN (US names are
  // the ISO names).
  auto table = SubdivisionTable::Builtin();
  for (const char* name :
       {"Anhui",        "Beijing", "Chongqing", "Fujian",   "Gansu",
        "Guangdong",    "Guangxi", "Guizhou",   "Hainan",   "Hebei",
        "Heilongjiang", "Henan",   "Hubei",     "Hunan",    "Inner Mongolia",
        "Jiangsu",      "Jiangxi", "Jilin",     "Liaoning", "Ningxia",
        "Qinghai",      "Shaanxi", "Shandong",  "Shanghai", "Shanxi",
        "Sichuan",      "Tianjin", "Tibet",     "Xinjiang", "Yunnan",
        "Zhejiang"}) {
    EXPECT_NE(table->ToIso("CN", name), "") << name;
  }
}

TEST(SubdivisionTableTest, OverridesWinAndExtend) {
  std::string error;
  auto table = SubdivisionTable::WithOverrides(
      "# comment\n\nDE-BY,Bavaria\r\nNL-NH,North Holland\nCN-GD,Canton\n",
      "test", &error);
  ASSERT_NE(table, nullptr) << error;
  EXPECT_EQ(table->ToIso("DE", "Bavaria"), "DE-BY");
  EXPECT_EQ(table->ToIso("NL", "north holland"), "NL-NH");
  EXPECT_EQ(table->ToIso("CN", "Canton"), "CN-GD");
  EXPECT_EQ(table->ToIso("CN", "Guangdong"), "CN-GD");  // built-in still there
  // The built-in table itself is unchanged.
  EXPECT_EQ(SubdivisionTable::Builtin()->ToIso("DE", "Bavaria"), "");
}

TEST(SubdivisionTableTest, BadOverrideRowsNameTheLine) {
  for (const char* text : {"DE-BY Bavaria\n", "\nGermany,Bavaria\n", "D-BY,x\n",
                           "DE-BAVARIA,x\n", "de-by,x\n"}) {
    SCOPED_TRACE(text);
    std::string error;
    EXPECT_EQ(SubdivisionTable::WithOverrides(text, "my.csv", &error), nullptr);
    EXPECT_NE(error.find("my.csv:"), std::string::npos) << error;
  }
}

TEST(SubdivisionTableTest, LoadsOverrideFile) {
  testing::ScratchDir dir;
  std::string path = dir.File("subdivisions.csv");
  std::ofstream(path) << "FR-IDF,Ile-de-France\n";
  std::string error;
  auto table = SubdivisionTable::LoadWithOverrides(path, &error);
  ASSERT_NE(table, nullptr) << error;
  EXPECT_EQ(table->ToIso("FR", "Ile-de-France"), "FR-IDF");
  EXPECT_EQ(SubdivisionTable::LoadWithOverrides(dir.File("nope.csv"), &error),
            nullptr);
  EXPECT_NE(error.find("nope.csv"), std::string::npos) << error;
}

}  // namespace
}  // namespace ax::dns
