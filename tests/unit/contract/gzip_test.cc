// gzip (round trip, bounds, damage) as the route-table ConfigMap codec uses
// it.
#include "ax/gzip.h"

#include <gtest/gtest.h>

#include <string>

namespace ax {
namespace {

std::string Document(size_t n) {
  std::string s;
  for (size_t i = 0; s.size() < n; ++i) {
    s += "{\"node\":\"node-" + std::to_string(i) +
         "\",\"weight\":" + std::to_string(i % 97) + "},";
  }
  s.resize(n);
  return s;
}

TEST(Gzip, RoundTripsAndIsDeterministic) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{100'000}, size_t{3'000'000}}) {
    const std::string data = Document(n);
    const std::string gz = GzipCompress(data);
    EXPECT_EQ(gz, GzipCompress(data));
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip magic
    EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
    std::string error;
    EXPECT_EQ(GzipDecompress(gz, n + 1, &error), data) << n << ": " << error;
  }
}

TEST(Gzip, ReportsDamage) {
  const std::string gz = GzipCompress(Document(10'000));
  std::string error;
  EXPECT_FALSE(GzipDecompress("", 1 << 20, &error));
  EXPECT_EQ(error, "truncated: the gzip stream ends early");
  EXPECT_FALSE(GzipDecompress("{\"plain\":\"json\"}", 1 << 20, &error));
  EXPECT_EQ(error, "corrupt gzip data: incorrect header check");
  EXPECT_FALSE(GzipDecompress(gz.substr(0, gz.size() / 2), 1 << 20, &error));
  EXPECT_EQ(error, "truncated: the gzip stream ends early");
  std::string flipped = gz;
  flipped[gz.size() - 6] ^= 0x55;  // inside the CRC32 trailer
  EXPECT_FALSE(GzipDecompress(flipped, 1 << 20, &error));
  EXPECT_EQ(error, "corrupt gzip data: incorrect data check");
  EXPECT_FALSE(GzipDecompress(gz + "xyz", 1 << 20, &error));
  EXPECT_EQ(error, "3 trailing bytes after the gzip stream");
  EXPECT_FALSE(GzipDecompress(gz, 4096, &error));
  EXPECT_EQ(error, "does not fit in 4096 bytes once inflated");
}

}  // namespace
}  // namespace ax
