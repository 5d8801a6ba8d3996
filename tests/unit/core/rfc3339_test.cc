// RFC 3339 times to and from unix milliseconds (rfc3339.h).
#include "ax/rfc3339.h"

#include <gtest/gtest.h>

namespace ax {
namespace {

TEST(Rfc3339, FormatsMillisecondsAndSeconds) {
  EXPECT_EQ(FormatRfc3339Ms(1798603515123), "2026-12-30T04:05:15.123Z");
  EXPECT_EQ(FormatRfc3339Seconds(1798603515999), "2026-12-30T04:05:15Z");
  EXPECT_EQ(FormatRfc3339Ms(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339Seconds(-1), "1969-12-31T23:59:59Z");
}

TEST(Rfc3339, ParsesWithFractionsAndOffsets) {
  EXPECT_EQ(ParseRfc3339Ms("2026-12-30T04:05:15.123Z"), 1798603515123);
  EXPECT_EQ(ParseRfc3339Ms("2026-12-30T04:05:15Z"), 1798603515000);
  EXPECT_EQ(ParseRfc3339Ms("2026-12-30T04:05:15.1234567Z"), 1798603515123);
  EXPECT_EQ(ParseRfc3339Ms("2026-12-30T12:05:15.5+08:00"), 1798603515500);
  EXPECT_EQ(ParseRfc3339Ms("2026-12-30 04:05:15Z"), std::nullopt);
  EXPECT_EQ(ParseRfc3339Ms("2026-02-30T00:00:00Z"), std::nullopt);
}

TEST(Rfc3339, RoundTrips) {
  for (int64_t ms :
       {int64_t{0}, int64_t{951782400001}, int64_t{4102444799999}}) {
    EXPECT_EQ(ParseRfc3339Ms(FormatRfc3339Ms(ms)), ms) << ms;
  }
}

}  // namespace
}  // namespace ax
