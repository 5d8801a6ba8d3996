// Ip2RegionFile on tiny files built in memory (zh_db_test_support.h): lookups
// in ranges and gaps with their prefix lengths, fields ("0" is unknown), the
// walk as a partition of IPv4, and refusal of every kind of broken file with a
// message naming it.
#include "geo/ip2region_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "geo/range_table.h"
#include "geo_test_support.h"
#include "zh_db_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::BuildIp2Region;
using testing::ReadLe32;
using testing::ScratchDir;
using testing::V4;
using testing::WriteLe32;

// Index block 3 (1.0.8.0-1.0.11.255) gets data pointer 0: no record.
std::string SampleBytes() {
  std::string bytes = BuildIp2Region({
      {"0.0.0.0", "0.255.255.255", 0, "0|0|0|内网IP|内网IP"},
      {"1.0.0.0", "1.0.0.255", 141, "澳大利亚|0|0|0|0"},
      {"1.0.1.0", "1.0.3.255", 1354, "中国|0|福建省|福州市|电信"},
      {"1.0.8.0", "1.0.11.255", 7, "0|0|0|0|0"},
      {"1.0.12.0", "1.0.15.255", 2, "中国|华南|广东省|广州市|移动"},
  });
  WriteLe32(bytes, ReadLe32(bytes, 0) + 3 * 12 + 8, 0);
  return bytes;
}

std::shared_ptr<const Ip2RegionFile> OpenBytes(const ScratchDir& dir,
                                               const std::string& bytes,
                                               std::string* error) {
  const std::string path = dir.File("test.db");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return Ip2RegionFile::Open(path, error);
}

TEST(Ip2RegionFileTest, LookupFieldsAndPrefixLengths) {
  ScratchDir dir;
  std::string error;
  auto db = OpenBytes(dir, SampleBytes(), &error);
  ASSERT_NE(db, nullptr) << error;
  EXPECT_EQ(db->block_count(), 5u);
  struct Case {
    const char* ip;
    bool found;
    int prefix_length;
    uint32_t city_id;
    const char* country;
    const char* area;
    const char* province;
    const char* isp;
  };
  const Case cases[] = {
      {"1.0.1.7", true, 24, 1354, "中国", "", "福建省", "电信"},
      {"1.0.2.9", true, 23, 1354, "中国", "", "福建省", "电信"},
      {"1.0.13.1", true, 22, 2, "中国", "华南", "广东省", "移动"},
      {"0.1.2.3", true, 8, 0, "", "", "", "内网IP"},
      // A gap between blocks, a block without a record, the gap at the end.
      {"1.0.5.1", false, 22, 0, "", "", "", ""},
      {"1.0.9.1", false, 22, 0, "", "", "", ""},
      {"8.8.8.8", false, 5, 0, "", "", "", ""},
      {"255.255.255.255", false, 1, 0, "", "", "", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ip);
    Ip2RegionRecord record;
    ASSERT_TRUE(db->Lookup(A(c.ip), record));
    EXPECT_EQ(record.found, c.found);
    EXPECT_EQ(record.prefix_length, c.prefix_length);
    EXPECT_EQ(record.city_id, c.city_id);
    using F = Ip2RegionField;
    EXPECT_EQ(Ip2RegionFile::Field(record, F::kCountry), c.country);
    EXPECT_EQ(Ip2RegionFile::Field(record, F::kArea), c.area);
    EXPECT_EQ(Ip2RegionFile::Field(record, F::kProvince), c.province);
    EXPECT_EQ(Ip2RegionFile::Field(record, F::kIsp), c.isp);
  }
  Ip2RegionRecord a;
  Ip2RegionRecord b;
  ASSERT_TRUE(db->Lookup(A("1.0.1.0"), a));
  ASSERT_TRUE(db->Lookup(A("1.0.3.255"), b));
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(Ip2RegionFile::Field(a, Ip2RegionField::kCity), "福州市");
  EXPECT_EQ(a.text, "中国|0|福建省|福州市|电信");
  // IPv4 only.
  EXPECT_FALSE(db->Lookup(A("2001:db8::1"), a));
  EXPECT_FALSE(a.found);
}

TEST(Ip2RegionFileTest, WalkPartitionsIPv4AndAgreesWithLookups) {
  ScratchDir dir;
  std::string error;
  auto db = OpenBytes(dir, SampleBytes(), &error);
  ASSERT_NE(db, nullptr) << error;
  std::vector<Ip2RegionRange> ranges;
  ASSERT_TRUE(db->ForEachRange(
      [&](const Ip2RegionRange& range) {
        ranges.push_back(range);
        return true;
      },
      &error))
      << error;
  struct Want {
    const char* first;
    const char* last;
    bool found;
  };
  const Want want[] = {
      {"0.0.0.0", "0.255.255.255", true},     {"1.0.0.0", "1.0.0.255", true},
      {"1.0.1.0", "1.0.3.255", true},         {"1.0.4.0", "1.0.7.255", false},
      {"1.0.8.0", "1.0.11.255", false},       {"1.0.12.0", "1.0.15.255", true},
      {"1.0.16.0", "255.255.255.255", false},
  };
  ASSERT_EQ(ranges.size(), std::size(want));
  RangeList<uint32_t> list;  // how a compiler turns the walk into ranges
  for (size_t i = 0; i < ranges.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(ranges[i].first, V4(want[i].first));
    EXPECT_EQ(ranges[i].last, V4(want[i].last));
    EXPECT_EQ(ranges[i].record.found, want[i].found);
    EXPECT_EQ(ranges[i].record.prefix_length, -1);
    for (const uint32_t key : {ranges[i].first, ranges[i].last}) {
      IpAddress ip;
      for (int b = 0; b < 4; ++b) ip.bytes[b] = uint8_t(key >> (24 - 8 * b));
      Ip2RegionRecord record;
      ASSERT_TRUE(db->Lookup(ip, record));
      EXPECT_EQ(record.found, ranges[i].record.found);
      EXPECT_EQ(record.offset, ranges[i].record.offset);
    }
    AppendRange(list, ranges[i].first,
                ranges[i].record.found ? ranges[i].record.offset : 0);
  }
  // The two records-less ranges next to each other merge.
  EXPECT_EQ(list.size(), ranges.size() - 1);
  int visited = 0;
  EXPECT_FALSE(db->ForEachRange(
      [&](const Ip2RegionRange&) { return ++visited < 2; }, &error));
  EXPECT_EQ(visited, 2);
}

// Random bytes overwritten anywhere: the file is refused, or every lookup
// and the walk stay in bounds (the suite runs under ASan and UBSan too).
TEST(Ip2RegionFileTest, RandomCorruptionNeverReadsOutOfBounds) {
  ScratchDir dir;
  const int opened = testing::OpenCorruptCopies(
      SampleBytes(), 16, 500,
      [&](const std::string& bytes, std::string* error) {
        return OpenBytes(dir, bytes, error);
      },
      [](const Ip2RegionFile& db) {
        for (const char* ip :
             {"1.0.1.7", "1.0.5.1", "0.0.0.0", "255.255.255.255"}) {
          Ip2RegionRecord record;
          EXPECT_TRUE(db.Lookup(A(ip), record));
          Ip2RegionFile::Field(record, Ip2RegionField::kIsp);
        }
        std::string error;
        EXPECT_TRUE(db.ForEachRange(
            [](const Ip2RegionRange& range) {
              Ip2RegionFile::Field(range.record, Ip2RegionField::kIsp);
              return true;
            },
            &error))
            << error;
      });
  EXPECT_GT(opened, 25);  // corruption in the text is legal
}

TEST(Ip2RegionFileTest, RejectsBrokenFilesNamingThem) {
  const std::string good = SampleBytes();
  const uint32_t first = ReadLe32(good, 0);
  const uint32_t last = ReadLe32(good, 4);
  auto patched = [&](size_t at, uint32_t value) {
    std::string bytes = good;
    WriteLe32(bytes, at, value);
    return bytes;
  };
  auto block = [&](int i, int field) { return first + 12 * i + 4 * field; };
  // A pointer to `length` bytes at `offset`.
  auto pointer = [](uint32_t offset, uint32_t length) {
    return length << 24 | offset;
  };
  const uint32_t record1 = ReadLe32(good, block(1, 2)) & 0xffffff;
  const testing::BrokenFile cases[] = {
      {"empty", "", "truncated: 0 bytes"},
      {"short", good.substr(0, 7), "truncated: 7 bytes"},
      {"first_in_super_block", patched(0, 4), "lies in the super block"},
      {"last_before_first", patched(4, first - 12), "lies before the first"},
      {"not_whole_blocks", patched(4, last - 5), "whole number of 12-byte"},
      {"last_past_end", patched(4, last + 12), "run past the end of the file"},
      {"truncated", good.substr(0, good.size() - 1),
       "run past the end of the file"},
      {"huge_index", patched(4, 0xfffffff0 - (0xfffffff0 - first) % 12),
       "run past the end of the file"},
      {"start_above_end", patched(block(2, 0), V4("1.0.4.0")),
       "index block 2 (16778240..16778239): start above end"},
      {"overlap", patched(block(2, 0), V4("1.0.0.200")),
       "index block 2 (16777416..16778239): overlaps or precedes"},
      {"out_of_order", patched(block(4, 0), V4("0.0.0.1")),
       "index block 4 (1..16781311): overlaps or precedes"},
      {"record_past_end",
       patched(block(1, 2),
               pointer(static_cast<uint32_t>(good.size()) - 10, 20)),
       "index block 1 (16777216..16777471): its record at offset"},
      {"record_offset_huge", patched(block(1, 2), pointer(0xffffff, 30)),
       "runs past the end of the file"},
      {"record_shorter_than_city_id", patched(block(1, 2), pointer(record1, 3)),
       "shorter than its 4-byte city id"},
      // "澳大利亚|0|0" of "澳大利亚|0|0|0|0": three fields.
      {"record_few_fields", patched(block(1, 2), pointer(record1, 4 + 12 + 4)),
       "fewer than five '|'-separated fields"},
  };
  testing::ExpectEachRefused<Ip2RegionFile>(cases, ".db");
}

}  // namespace
}  // namespace ax::dns
