// Field path presets and the FIELD=PATH / dotted path parsers the CLI uses.
#include "geo/geo_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ax::dns {
namespace {

using Path = std::vector<std::string>;

TEST(GeoFieldsTest, Schemas) {
  EXPECT_EQ(GeoFieldPathsForSchema("geoip2"), GeoFieldPaths{});
  auto dbip = GeoFieldPathsForSchema("dbip");
  ASSERT_TRUE(dbip);
  EXPECT_EQ(dbip->country, Path{"country_code"});
  EXPECT_EQ(dbip->subdivision, Path{"state1"});
  EXPECT_EQ(dbip->latitude, Path{"latitude"});
  EXPECT_EQ(dbip->longitude, Path{"longitude"});
  EXPECT_EQ(dbip->asn, Path{"autonomous_system_number"});
  // The carrier: top-level "isp" in the GeoIP2 layout (GeoIP2-ISP, axctl
  // geodb build); dbip has none.
  EXPECT_EQ(GeoFieldPaths{}.isp, Path{"isp"});
  EXPECT_TRUE(dbip->isp.empty());
  EXPECT_FALSE(GeoFieldPathsForSchema("GeoIP2"));
}

TEST(GeoFieldsTest, ParseFieldPath) {
  struct Case {
    const char* spec;
    std::optional<Path> want;
  };
  const Case cases[] = {
      {"country_code", Path{"country_code"}},
      {"subdivisions.0.iso_code", Path{"subdivisions", "0", "iso_code"}},
      {"", std::nullopt},
      {"a..b", std::nullopt},
      {".a", std::nullopt},
      {"a.", std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    std::string error;
    EXPECT_EQ(ParseFieldPath(c.spec, &error), c.want);
    EXPECT_EQ(error.empty(), c.want.has_value()) << error;
  }
}

TEST(GeoFieldsTest, SetFieldPath) {
  GeoFieldPaths paths;
  std::string error;
  EXPECT_TRUE(SetFieldPath(paths, "country=country_code", &error));
  EXPECT_TRUE(SetFieldPath(paths, "subdivision=state1", &error));
  EXPECT_TRUE(
      SetFieldPath(paths, "asn=traits.autonomous_system_number", &error));
  EXPECT_EQ(paths.country, Path{"country_code"});
  EXPECT_EQ(paths.subdivision, Path{"state1"});
  EXPECT_EQ(paths.asn, (Path{"traits", "autonomous_system_number"}));
  EXPECT_EQ(paths.latitude, (Path{"location", "latitude"}));  // untouched

  for (const char* bad :
       {"country", "town=city.names.en", "country=", "asn=a..b"}) {
    SCOPED_TRACE(bad);
    error.clear();
    EXPECT_FALSE(SetFieldPath(paths, bad, &error));
    EXPECT_FALSE(error.empty());
  }
  EXPECT_EQ(paths.country, Path{"country_code"});  // failures change nothing
}

}  // namespace
}  // namespace ax::dns
