// Base64 (RFC 4648 vectors): strict decoding for ConfigMap binaryData,
// lenient decoding for kubeconfig *-data, both through one decoder.
#include "ax/runtime/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace ax::runtime {
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

TEST(Base64, LenientSkipsWhitespaceAndMissingPadding) {
  EXPECT_EQ(Base64DecodeLenient("Zm9v\nYmFy\n"), "foobar");
  EXPECT_EQ(Base64DecodeLenient(" Zm9vYg "), "foob");
  EXPECT_EQ(Base64DecodeLenient("Zm9vYg=="), "foob");
  EXPECT_EQ(Base64DecodeLenient("Zm8"), "fo");
  EXPECT_EQ(Base64DecodeLenient(""), "");
}

TEST(Base64, LenientStillRefusesWhatIsNotBase64) {
  EXPECT_FALSE(Base64DecodeLenient("Zm9v*"));
  EXPECT_FALSE(Base64DecodeLenient("Zm9vY"));     // a dangling single symbol
  EXPECT_FALSE(Base64DecodeLenient("Zg==Zg=="));  // data after padding
}

}  // namespace
}  // namespace ax::runtime
