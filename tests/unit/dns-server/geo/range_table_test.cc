// RangeTable and its builders: lookups at range edges and across bucket
// boundaries, the widest aligned block inside a range (the ECS scope), and
// combining partitions; checked against brute force on seeded random tables.
#include "geo/range_table.h"

#include <gtest/gtest.h>

#include <random>

namespace ax::dns {
namespace {

TEST(RangeTableTest, AppendMergesEqualNeighbours) {
  RangeList<uint32_t> list;
  AppendRange<uint32_t>(list, 0, 7);
  AppendRange<uint32_t>(list, 10, 7);
  AppendRange<uint32_t>(list, 20, 8);
  EXPECT_EQ(list, (RangeList<uint32_t>{{0, 7}, {20, 8}}));
}

TEST(RangeTableTest, ScopeIsTheWidestAlignedBlockInside) {
  using T = RangeTable<uint32_t>;
  // 10.0.0.0/8 exactly.
  EXPECT_EQ(T::ScopeWithin(0x0a010203, 0x0a000000, 0x0affffff), 8);
  // Two /9s merged into [4.0.0.0, 5.0.0.0): one /8.
  EXPECT_EQ(T::ScopeWithin(0x04800001, 0x04000000, 0x04ffffff), 8);
  // [1.0.1.0, 1.0.255.255]: around 1.0.1.7 only the /24 fits, around
  // 1.0.128.1 a /17.
  EXPECT_EQ(T::ScopeWithin(0x01000107, 0x01000100, 0x0100ffff), 24);
  EXPECT_EQ(T::ScopeWithin(0x01008001, 0x01000100, 0x0100ffff), 17);
  // One address; the whole space.
  EXPECT_EQ(T::ScopeWithin(5, 5, 5), 32);
  EXPECT_EQ(T::ScopeWithin(12345, 0, UINT32_MAX), 0);
}

TEST(RangeTableTest, FindsRangesAcrossBuckets) {
  // Ranges inside one bucket, spanning many, and ending at the top.
  const RangeTable<uint32_t> table({{0, 1},
                                    {0x01000000, 2},
                                    {0x01000001, 3},
                                    {0x01000100, 4},
                                    {0x80000000, 5},
                                    {0xffffffff, 6}});
  EXPECT_EQ(table.Find(0).value, 1u);
  EXPECT_EQ(table.Find(0).prefix_length, 8);
  EXPECT_EQ(table.Find(0x00ffffff).value, 1u);
  EXPECT_EQ(table.Find(0x01000000).value, 2u);
  EXPECT_EQ(table.Find(0x01000000).prefix_length, 32);
  EXPECT_EQ(table.Find(0x010000ff).value, 3u);
  EXPECT_EQ(table.Find(0x01000100).value, 4u);
  EXPECT_EQ(table.Find(0x7fffffff).value, 4u);
  EXPECT_EQ(table.Find(0x80000000).value, 5u);
  EXPECT_EQ(table.Find(0xfffffffe).value, 5u);
  EXPECT_EQ(table.Find(0xffffffff).value, 6u);
  EXPECT_EQ(table.Find(0xffffffff).prefix_length, 32);
  // 0x80000000 starts a bucket that range 5 fills to its end but one key:
  // its scope is that of the range, not of the bucket.
  EXPECT_EQ(table.Find(0x80000000).prefix_length, 2);
  EXPECT_EQ(table.Find(0xbfffffff).prefix_length, 2);
  EXPECT_EQ(table.Find(0xfffffffe).prefix_length, 32);
  EXPECT_EQ(RangeTable<uint64_t>().Find(42).value, 0u);
  EXPECT_EQ(RangeTable<uint64_t>().Find(42).prefix_length, 0);
}

// Brute force over a small key space embedded in the top bits: every key's
// value, and every claimed block really is uniform. The density of range
// starts varies by round, from buckets mostly wholly inside one range (read
// from the bucket) to buckets mostly split (searched); so does the index's
// size.
TEST(RangeTableTest, MatchesBruteForceOnRandomTables) {
  std::mt19937 rng(4);
  for (int round = 0; round < 60; ++round) {
    const uint32_t one_in = 2 + static_cast<uint32_t>(round) * 4;
    // 12-bit keys scaled to the top of uint32_t so buckets matter.
    std::vector<uint32_t> value_of(4096);
    RangeList<uint32_t> list;
    for (uint32_t k = 0; k < 4096; ++k) {
      if (k == 0 || rng() % one_in == 0)
        value_of[k] = rng() % 4;
      else
        value_of[k] = value_of[k - 1];
      AppendRange(list, k << 20, value_of[k]);
    }
    // With the usual index and with four times the buckets (the region
    // map's).
    for (const int extra_index_bits : {0, 2}) {
      const RangeTable<uint32_t> table(list, extra_index_bits);
      for (uint32_t k = 0; k < 4096; ++k) {
        const uint32_t key = k << 20 | (rng() & 0xfffff);
        const auto hit = table.Find(key);
        ASSERT_EQ(hit.value, value_of[k]) << k;
        ASSERT_LE(hit.prefix_length, 12);
        const uint32_t size = 1u << (12 - hit.prefix_length);
        const uint32_t first = k & ~(size - 1);
        for (uint32_t j = first; j < first + size; ++j) {
          ASSERT_EQ(value_of[j], hit.value) << k << " block " << j;
        }
        // And it is the widest such block.
        if (hit.prefix_length > 0) {
          const uint32_t wider = size * 2;
          const uint32_t wfirst = k & ~(wider - 1);
          bool uniform = true;
          for (uint32_t j = wfirst; j < wfirst + wider; ++j) {
            uniform = uniform && value_of[j] == hit.value;
          }
          ASSERT_FALSE(uniform) << k;
        }
      }
    }
  }
}

TEST(RangeTableTest, CombineVisitsEveryBoundaryOfBoth) {
  const RangeList<uint64_t> a{{0, 0}, {10, 1}, {30, 0}};
  const RangeList<uint64_t> b{{0, 5}, {20, 6}, {30, 7}};
  const RangeList<uint64_t> sum =
      CombineRanges(a, b, [](uint32_t x, uint32_t y) { return x + y; });
  EXPECT_EQ(sum,
            (RangeList<uint64_t>{{0, 5}, {10, 6}, {20, 7}}));  // 30: 0+7 = 7
  // First-non-zero overlay keeps a where it has something.
  const RangeList<uint64_t> overlay = CombineRanges(
      a, b, [](uint32_t x, uint32_t y) { return x != 0 ? x : y; });
  EXPECT_EQ(overlay, (RangeList<uint64_t>{{0, 5}, {10, 1}, {30, 7}}));
}

}  // namespace
}  // namespace ax::dns
