// PrefixTable: longest-prefix match and covering (ECS scope) depth, by
// hand-picked tables and by a seeded random cross-check against a brute-force
// scan.
#include "ax/prefix_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

namespace ax {
namespace {

IpPrefix P(const char* text) { return ParsePrefix(text).value(); }
IpAddress A(const char* text) { return ParseIp(text).value(); }

struct Entry {
  const char* prefix;
  uint32_t value;
};

struct QueryCase {
  const char* name;
  std::vector<Entry> table;
  const char* ip;
  int value;  // -1: no match
  int prefix_length;
  int covering_depth;
};

class PrefixTableQueryTest : public ::testing::TestWithParam<QueryCase> {};

TEST_P(PrefixTableQueryTest, MatchAndDepth) {
  const QueryCase& c = GetParam();
  PrefixTable table;
  for (const Entry& e : c.table)
    ASSERT_TRUE(table.Insert(P(e.prefix), e.value));
  const PrefixTable::Result r = table.Query(A(c.ip));
  if (c.value < 0) {
    EXPECT_FALSE(r.match);
  } else {
    ASSERT_TRUE(r.match);
    EXPECT_EQ(r.match->value, static_cast<uint32_t>(c.value));
    EXPECT_EQ(r.match->prefix_length, c.prefix_length);
  }
  EXPECT_EQ(r.covering_depth, c.covering_depth);
  EXPECT_EQ(table.Lookup(A(c.ip)), r.match);
  EXPECT_EQ(table.CoveringDepth(A(c.ip)), r.covering_depth);
}

const std::vector<Entry> kNested = {{"10.0.0.0/8", 1}, {"10.1.0.0/16", 2}};
const std::vector<Entry> kMixed = {
    {"0.0.0.0/0", 0},       {"192.0.2.0/24", 1},  {"192.0.2.128/25", 2},
    {"192.0.2.255/32", 3},  {"2001:db8::/32", 4}, {"2001:db8:1::/48", 5},
    {"2001:db8::1/128", 6}, {"::/0", 7},
};

INSTANTIATE_TEST_SUITE_P(
    Cases, PrefixTableQueryTest,
    ::testing::Values(
        // The nested example documented on CoveringDepth.
        QueryCase{"InnerMatch", kNested, "10.1.2.3", 2, 16, 16},
        QueryCase{"OuterNearInner", kNested, "10.2.3.4", 1, 8, 15},
        QueryCase{"OuterFarFromInner", kNested, "10.128.0.1", 1, 8, 9},
        QueryCase{"MissNextToOuter", kNested, "11.0.0.1", -1, 0, 8},
        QueryCase{"MissFarAway", kNested, "192.0.2.1", -1, 0, 1},
        QueryCase{"OtherFamilyIsEmpty", kNested, "2001:db8::1", -1, 0, 0},
        QueryCase{"EmptyTable", {}, "10.0.0.1", -1, 0, 0},
        QueryCase{
            "OnlyDefaultRoute", {{"0.0.0.0/0", 9}}, "203.0.113.9", 9, 0, 0},
        QueryCase{"HostRouteV4", kMixed, "192.0.2.255", 3, 32, 32},
        QueryCase{"ParentOfHostRoute", kMixed, "192.0.2.254", 2, 25, 32},
        QueryCase{"LowerHalf", kMixed, "192.0.2.1", 1, 24, 25},
        QueryCase{"DefaultRouteV4", kMixed, "198.51.100.1", 0, 0, 6},
        QueryCase{"HostRouteV6", kMixed, "2001:db8::1", 6, 128, 128},
        QueryCase{"NextToHostRouteV6", kMixed, "2001:db8::2", 4, 32, 127},
        QueryCase{"V6Slash48", kMixed, "2001:db8:1::5", 5, 48, 48},
        QueryCase{"V6InsideSlash32", kMixed, "2001:db8:8000::1", 4, 32, 33},
        QueryCase{"DefaultRouteV6", kMixed, "fe80::1", 7, 0, 1}),
    [](const auto& test) { return std::string(test.param.name); });

TEST(PrefixTableTest, DuplicateKeepsFirstValue) {
  PrefixTable table;
  EXPECT_TRUE(table.Insert(P("10.0.0.0/8"), 1));
  EXPECT_TRUE(table.Insert(P("10.0.0.0/16"), 2));
  EXPECT_FALSE(table.Insert(P("10.0.0.0/8"), 3));
  EXPECT_FALSE(table.Insert(P("10.0.0.0/16"), 4));
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.Lookup(A("10.9.9.9")), (PrefixTable::Match{1, 8}));
  EXPECT_EQ(table.Lookup(A("10.0.9.9")), (PrefixTable::Match{2, 16}));
}

TEST(PrefixTableTest, BranchNodeTakesValueWhenInsertedLater) {
  // 10.0/16 and 10.128/16 create a branch node at 10.0.0.0/8; inserting that
  // prefix afterwards must give it a value rather than count as a duplicate.
  PrefixTable table;
  EXPECT_TRUE(table.Insert(P("10.0.0.0/16"), 1));
  EXPECT_TRUE(table.Insert(P("10.128.0.0/16"), 2));
  EXPECT_FALSE(table.Lookup(A("10.64.0.1")));
  EXPECT_TRUE(table.Insert(P("10.0.0.0/8"), 3));
  EXPECT_EQ(table.Lookup(A("10.64.0.1")), (PrefixTable::Match{3, 8}));
  EXPECT_EQ(table.size(), 3u);
}

TEST(PrefixTableTest, SamePrefixBitsInEachFamilyAreDistinct) {
  PrefixTable table;
  EXPECT_TRUE(table.Insert(P("0.0.0.0/0"), 1));
  EXPECT_TRUE(table.Insert(P("::/0"), 2));
  EXPECT_EQ(table.Lookup(A("1.2.3.4"))->value, 1u);
  EXPECT_EQ(table.Lookup(A("::1"))->value, 2u);
}

// --- Randomized cross-check
// ------------------------------------------------------

// Whether a and b are of one family and agree on their first n bits.
bool SameLeadingBits(const IpAddress& a, const IpAddress& b, int n) {
  if (a.family != b.family) return false;
  if (std::memcmp(a.bytes.data(), b.bytes.data(), n / 8) != 0) return false;
  return n % 8 == 0 || ((a.bytes[n / 8] ^ b.bytes[n / 8]) >> (8 - n % 8)) == 0;
}

// Brute force over a plain list, written from the definitions rather than the
// trie. Entries are kept longest first, so the first containing one is the
// longest match.
struct Reference {
  std::vector<std::pair<IpPrefix, uint32_t>> entries;

  void SortLongestFirst() {
    std::stable_sort(entries.begin(), entries.end(),
                     [](const auto& a, const auto& b) {
                       return a.first.length > b.first.length;
                     });
  }

  std::optional<PrefixTable::Match> Lookup(const IpAddress& ip) const {
    for (const auto& [prefix, value] : entries) {
      if (SameLeadingBits(prefix.address, ip, prefix.length)) {
        return PrefixTable::Match{value, prefix.length};
      }
    }
    return std::nullopt;
  }

  // Whether every address sharing ip's first `length` bits has ip's match: the
  // block must not cut through the match (length >= m) and no prefix may lie
  // strictly inside the block (such a prefix would win for its own addresses).
  bool SameResultAcross(const IpAddress& ip, int length, int matched) const {
    if (length < matched) return false;
    for (const auto& entry : entries) {
      const IpPrefix& p = entry.first;
      if (p.length > length && SameLeadingBits(p.address, ip, length)) {
        return false;
      }
    }
    return true;
  }
};

// Random addresses clustered around a few seeds, so that random prefixes nest
// and random addresses hit them in both families.
class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {
    for (auto& s : seeds_) {
      for (auto& b : s.bytes) b = static_cast<uint8_t>(rng_());
    }
  }

  IpAddress Address() {
    IpAddress ip = seeds_[rng_() % seeds_.size()];
    ip.family = rng_() % 2 ? IpFamily::kV4 : IpFamily::kV6;
    // Keep a random number of leading seed bits, randomize the rest.
    const int keep = static_cast<int>(rng_() % (ip.BitLength() + 1));
    for (int i = keep; i < ip.BitLength(); ++i) {
      const uint8_t mask = static_cast<uint8_t>(0x80 >> (i % 8));
      if (rng_() % 2) {
        ip.bytes[i / 8] |= mask;
      } else {
        ip.bytes[i / 8] &= static_cast<uint8_t>(~mask);
      }
    }
    if (ip.family == IpFamily::kV4)
      std::fill(ip.bytes.begin() + 4, ip.bytes.end(), 0);
    return ip;
  }

  // At least a quarter of the address long, so that some addresses match
  // nothing.
  IpPrefix Prefix() {
    const IpAddress ip = Address();
    const int min = ip.BitLength() / 4;
    const int length =
        min + static_cast<int>(rng_() % (ip.BitLength() - min + 1));
    return {Mask(ip, length), length};
  }

 private:
  std::mt19937_64 rng_;
  std::array<IpAddress, 8> seeds_;
};

TEST(PrefixTableTest, MatchesBruteForceOnRandomPrefixes) {
  Generator gen(20240531);
  PrefixTable table;
  Reference ref;
  for (uint32_t v = 0; v < 2000; ++v) {
    const IpPrefix p = gen.Prefix();
    const bool fresh =
        std::none_of(ref.entries.begin(), ref.entries.end(),
                     [&](const auto& e) { return e.first == p; });
    ASSERT_EQ(table.Insert(p, v), fresh) << FormatPrefix(p);
    if (fresh) ref.entries.emplace_back(p, v);
  }
  EXPECT_EQ(table.size(), ref.entries.size());
  ref.SortLongestFirst();

  int matched = 0;
  for (int i = 0; i < 100000; ++i) {
    const IpAddress ip = gen.Address();
    const PrefixTable::Result got = table.Query(ip);
    const auto want = ref.Lookup(ip);
    ASSERT_EQ(got.match, want) << FormatIp(ip);
    matched += want.has_value();
    // The depth is exact: the block it names has one result and a block one bit
    // wider does not. Checking every 10th address keeps the test quick.
    if (i % 10 != 0) continue;
    const int m = want ? want->prefix_length : 0;
    const int depth = got.covering_depth;
    ASSERT_TRUE(ref.SameResultAcross(ip, depth, m))
        << FormatIp(ip) << " /" << depth;
    if (depth > 0) {
      ASSERT_FALSE(ref.SameResultAcross(ip, depth - 1, m))
          << FormatIp(ip) << " /" << depth;
    }
  }
  // The generator must exercise both outcomes for the check to mean anything.
  EXPECT_GT(matched, 10000);
  EXPECT_LT(matched, 90000);
}

}  // namespace
}  // namespace ax
