// Base64 (RFC 4648 vectors, strictness) and gzip (round trip, bounds, damage)
// as the route-table ConfigMap codec uses them.
#include <gtest/gtest.h>

#include <string>

#include "ax/base64.h"
#include "ax/gzip.h"

namespace ax {
namespace {

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), encoded);
    std::string error;
    EXPECT_EQ(Base64Decode(encoded, &error), plain) << error;
  }
}

TEST(Base64, EveryByteRoundTrips) {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t len = 0; len <= all.size(); len += 85) {
    const std::string part = all.substr(0, len);
    std::string error;
    EXPECT_EQ(Base64Decode(Base64Encode(part), &error), part) << error;
  }
}

TEST(Base64, RejectsWhatIsNotCanonical) {
  std::string error;
  EXPECT_FALSE(Base64Decode("Zm9", &error));
  EXPECT_EQ(error, "length 3 is not a multiple of 4");
  EXPECT_FALSE(Base64Decode("Zm*v", &error));
  EXPECT_EQ(error, "invalid character '*' at offset 2");
  EXPECT_FALSE(Base64Decode("Z=9v", &error));
  EXPECT_EQ(error, "invalid character '=' at offset 1");
  EXPECT_FALSE(Base64Decode("Zm9v\nZm9v", &error));  // length 9
  EXPECT_FALSE(Base64Decode("Zm9\n", &error));
  EXPECT_EQ(error, "invalid character byte 0x0a at offset 3");
  EXPECT_FALSE(Base64Decode("Zh==", &error));  // "f" is Zg==
  EXPECT_EQ(error, "non-zero padding bits at offset 1");
}

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
