// IP address and prefix parsing: strictness is what catches manifest typos.
#include "ax/ip.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ax {
namespace {

TEST(IpTest, ParsesBothFamiliesAndRejectsJunk) {
  ASSERT_TRUE(ParseIp("192.0.2.1"));
  EXPECT_EQ(ParseIp("192.0.2.1")->family, IpFamily::kV4);
  ASSERT_TRUE(ParseIp("2001:db8::1"));
  EXPECT_EQ(ParseIp("2001:db8::1")->family, IpFamily::kV6);
  for (const char* bad :
       {"", "1.2.3", "1.2.3.256", "example.com", "1.2.3.4 ", "::g"}) {
    EXPECT_FALSE(ParseIp(bad)) << bad;
  }
}

struct PrefixCase {
  const char* text;
  bool ok;
  const char* error_part;
};

class PrefixTest : public ::testing::TestWithParam<PrefixCase> {};

TEST_P(PrefixTest, StrictParse) {
  std::string error;
  auto p = ParsePrefix(GetParam().text, &error);
  EXPECT_EQ(p.has_value(), GetParam().ok) << GetParam().text;
  if (!GetParam().ok) {
    EXPECT_NE(error.find(GetParam().error_part), std::string::npos) << error;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PrefixTest,
    ::testing::Values(PrefixCase{"10.0.0.0/8", true, ""},
                      PrefixCase{"0.0.0.0/0", true, ""},
                      PrefixCase{"2001:db8::/32", true, ""},
                      PrefixCase{"10.0.0.1/8", false, "host bits"},
                      PrefixCase{"10.0.0.0/33", false, "out of range"},
                      PrefixCase{"10.0.0.0", false, "missing"},
                      PrefixCase{"10.0.0.0/x", false, "not a number"},
                      PrefixCase{"nope/8", false, "not an IP"}));

TEST(IpTest, ContainsRespectsFamilyAndMask) {
  auto p = *ParsePrefix("198.51.100.0/22");
  EXPECT_TRUE(p.Contains(*ParseIp("198.51.103.255")));
  EXPECT_FALSE(p.Contains(*ParseIp("198.51.104.0")));
  EXPECT_FALSE(p.Contains(*ParseIp("::ffff:198.51.100.1")));
  EXPECT_EQ(FormatPrefix(*ParsePrefix("2001:db8:ff00::/40")),
            "2001:db8:ff00::/40");
  EXPECT_EQ(FormatIp(Mask(*ParseIp("2001:db8:1234:5678::1"), 56)),
            "2001:db8:1234:5600::");
}

// Mask works on whole words: every boundary inside and between them.
TEST(IpTest, MaskClearsExactlyThePastBitsAtEveryLength) {
  const IpAddress v6 = *ParseIp("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
  for (int length = -1; length <= 129; ++length) {
    const IpAddress masked = Mask(v6, length);
    const int kept = std::clamp(length, 0, 128);
    for (int bit = 0; bit < 128; ++bit) {
      ASSERT_EQ(masked.Bit(bit), bit < kept) << "/" << length << " bit " << bit;
    }
  }
  const IpAddress v4 = *ParseIp("255.255.255.255");
  EXPECT_EQ(FormatIp(Mask(v4, 20)), "255.255.240.0");
  EXPECT_EQ(FormatIp(Mask(v4, 0)), "0.0.0.0");
  EXPECT_EQ(Mask(v4, 32), v4);
  EXPECT_EQ(Mask(v4, 33), v4);
  EXPECT_EQ(Mask(v4, 20).family, IpFamily::kV4);
}

// Cohorts are shared between processes (ax-dns and axctl simulate) and
// releases: the values are pinned to the formula's (splitmix64 over the
// masked address's big-endian words, the family folded into the first).
TEST(IpTest, PrefixHashIsTheStableHashOfTheMaskedPrefix) {
  const IpAddress v4 = *ParseIp("10.1.2.3");
  EXPECT_EQ(PrefixHash(v4, 24), 0xaa2565cf483f69eaULL);
  EXPECT_EQ(PrefixHash(v4, 32), 0x347152d1bab1d471ULL);
  EXPECT_EQ(PrefixHash(*ParseIp("2001:db8:1234:5678::1"), 56),
            0x68919c8ea6c1b122ULL);
  EXPECT_EQ(PrefixHash(v4, 24), PrefixHash(*ParseIp("10.1.2.200"), 24));
  EXPECT_NE(PrefixHash(v4, 24), PrefixHash(*ParseIp("10.1.3.3"), 24));
  EXPECT_EQ(PrefixHash(v4, 24), PrefixHash(Mask(v4, 24), 32));
  // The same bits in the other family are another prefix.
  IpAddress as_v6 = v4;
  as_v6.family = IpFamily::kV6;
  EXPECT_NE(PrefixHash(v4, 24), PrefixHash(as_v6, 24));
}

// PrefixWord is the cheap term of a rate-limit key: equal within a prefix,
// distinct across prefixes and families, and after MulFold its bits reach the
// low half too (a plain product of a /24, whose low 40 bits are zero, would
// leave only 24 bits to tell prefixes apart).
TEST(IpTest, PrefixWordTellsPrefixesApartAndMulFoldSpreadsThem) {
  const IpAddress v4 = *ParseIp("10.1.2.3");
  EXPECT_EQ(PrefixWord(v4, 24), PrefixWord(*ParseIp("10.1.2.200"), 24));
  EXPECT_EQ(PrefixWord(v4, 24), PrefixWord(Mask(v4, 24), 32));
  EXPECT_NE(PrefixWord(v4, 24), PrefixWord(*ParseIp("10.1.3.3"), 24));
  IpAddress as_v6 = v4;
  as_v6.family = IpFamily::kV6;
  EXPECT_NE(PrefixWord(v4, 24), PrefixWord(as_v6, 24));
  // Past the first 64 bits of an IPv6 address.
  EXPECT_NE(PrefixWord(*ParseIp("2001:db8::1:0:0:1"), 128),
            PrefixWord(*ParseIp("2001:db8::1:0:0:2"), 128));

  std::vector<uint64_t> words, low_halves;
  for (uint32_t i = 0; i < 1 << 16; ++i) {  // every /24 of 10.0.0.0/8
    IpAddress a = v4;
    a.bytes[1] = static_cast<uint8_t>(i >> 8);
    a.bytes[2] = static_cast<uint8_t>(i);
    const uint64_t word = PrefixWord(a, 24);
    words.push_back(word);
    low_halves.push_back(MulFold(word, 0xbf58476d1ce4e5b9ULL) & 0xffffffff);
  }
  for (auto* v : {&words, &low_halves}) {
    std::sort(v->begin(), v->end());
    EXPECT_EQ(std::unique(v->begin(), v->end()), v->end());
  }
}

}  // namespace
}  // namespace ax
