// IpdbFile on tiny files built in memory (zh_db_test_support.h): lookups and
// their prefix lengths in both families, fields by language, the walk as a
// partition that agrees with lookups, and refusal of every kind of broken
// file with a message naming it.
#include "geo/ipdb_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "geo_test_support.h"
#include "zh_db_test_support.h"

namespace ax::dns {
namespace {

using Json = nlohmann::json;
using testing::A;
using testing::BuildIpdb;
using testing::IpdbImage;
using testing::LastAddress;
using testing::ScratchDir;

const std::vector<std::string> kFields = {"country_name", "region_name",
                                          "city_name"};

IpdbImage SampleImage(int ip_version = 3) {
  return BuildIpdb(
      {
          {"1.0.0.0/24", "澳大利亚\t\t"},
          {"1.0.1.0/24", "中国\t福建\t福州"},
          {"8.0.0.0/8", "美国\t\t"},
          {"183.62.0.0/18", "中国\t广东\t广州"},
          {"2001:db8::/32", "中国\t北京\t"},
          {"2001:db9::1:0:0:0/80", "美国\t\t"},
      },
      kFields, ip_version);
}

std::shared_ptr<const IpdbFile> OpenBytes(const ScratchDir& dir,
                                          const std::string& bytes,
                                          std::string* error,
                                          std::string_view language = "CN") {
  const std::string path = dir.File("test.ipdb");
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return IpdbFile::Open(path, error, language);
}

TEST(IpdbFileTest, LookupFieldsAndPrefixLengths) {
  ScratchDir dir;
  std::string error;
  auto db = OpenBytes(dir, SampleImage().Bytes(), &error);
  ASSERT_NE(db, nullptr) << error;
  EXPECT_EQ(db->build_epoch(), 1789565555);
  EXPECT_TRUE(db->Serves(IpFamily::kV4));
  EXPECT_TRUE(db->Serves(IpFamily::kV6));
  EXPECT_EQ(db->FieldIndex("region_name"), 1);
  EXPECT_EQ(db->FieldIndex("isp_domain"), -1);
  struct Case {
    const char* ip;
    bool found;
    int prefix_length;
    const char* country;
    const char* region;
  };
  const Case cases[] = {
      {"1.0.1.7", true, 24, "中国", "福建"},
      {"8.8.8.8", true, 8, "美国", ""},
      {"183.62.57.1", true, 18, "中国", "广东"},
      // Misses report the empty network: 9/8 beside 8/8, 192/2 beside 128/2.
      {"9.9.9.9", false, 8, "", ""},
      {"200.1.1.1", false, 2, "", ""},
      {"2001:db8::1", true, 32, "中国", "北京"},
      {"2001:db9::1:0:0:1", true, 80, "美国", ""},
      // IPv4-mapped, looked up as IPv6: the IPv4 tree under ::ffff:0:0/96.
      {"::ffff:1.0.1.7", true, 120, "中国", "福建"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ip);
    IpdbRecord record;
    ASSERT_TRUE(db->Lookup(A(c.ip), record));
    EXPECT_EQ(record.found, c.found);
    EXPECT_EQ(record.prefix_length, c.prefix_length);
    EXPECT_EQ(IpdbFile::Field(record, 0), c.country);
    EXPECT_EQ(IpdbFile::Field(record, db->FieldIndex("region_name")), c.region);
    EXPECT_EQ(IpdbFile::Field(record, 3), "");  // past the last field
    EXPECT_EQ(IpdbFile::Field(record, -1), "");
  }
  IpdbRecord a;
  IpdbRecord b;
  ASSERT_TRUE(db->Lookup(A("183.62.0.1"), a));
  ASSERT_TRUE(db->Lookup(A("183.62.63.255"), b));
  EXPECT_EQ(a.offset, b.offset);  // one record
  EXPECT_EQ(IpdbFile::Field(a, 2), "广州");
}

TEST(IpdbFileTest, ReadsTheChosenLanguage) {
  const IpdbImage image = BuildIpdb(
      {{"1.0.1.0/24", "中国\t广东\t广州\tChina\tGuangdong\tGuangzhou"}},
      kFields, 1, {{"CN", 0}, {"EN", 3}});
  ScratchDir dir;
  for (const auto& [language, want] :
       {std::pair{"CN", "广东"}, std::pair{"EN", "Guangdong"}}) {
    std::string error;
    auto db = OpenBytes(dir, image.Bytes(), &error, language);
    ASSERT_NE(db, nullptr) << error;
    IpdbRecord record;
    ASSERT_TRUE(db->Lookup(A("1.0.1.1"), record));
    EXPECT_EQ(IpdbFile::Field(record, 1), want);
    // The view holds one language only.
    EXPECT_EQ(IpdbFile::Field(record, 3), "");
  }
  std::string error;
  EXPECT_EQ(OpenBytes(dir, image.Bytes(), &error, "JP"), nullptr);
  EXPECT_NE(error.find("no language \"JP\""), std::string::npos) << error;
  EXPECT_NE(error.find("CN, EN"), std::string::npos) << error;
}

TEST(IpdbFileTest, IPv4OnlyFileRefusesIPv6) {
  ScratchDir dir;
  std::string error;
  IpdbImage image = BuildIpdb({{"1.0.1.0/24", "中国\t福建\t福州"}}, kFields, 1);
  auto db = OpenBytes(dir, image.Bytes(), &error);
  ASSERT_NE(db, nullptr) << error;
  IpdbRecord record;
  EXPECT_FALSE(db->Lookup(A("2001:db8::1"), record));
  EXPECT_FALSE(record.found);
  EXPECT_FALSE(db->ForEachNetwork(
      IpFamily::kV6, [](const IpdbNetwork&) { return true; }, &error));
  EXPECT_NE(error.find("holds no IPv6 data"), std::string::npos) << error;
}

// The walk partitions each family in address order; every network's first
// and last address look up to its own record and prefix length.
TEST(IpdbFileTest, WalkPartitionsTheSpaceAndAgreesWithLookups) {
  ScratchDir dir;
  std::string error;
  auto db = OpenBytes(dir, SampleImage().Bytes(), &error);
  ASSERT_NE(db, nullptr) << error;
  for (const IpFamily family : {IpFamily::kV4, IpFamily::kV6}) {
    SCOPED_TRACE(family == IpFamily::kV4 ? "IPv4" : "IPv6");
    const int key_bits = family == IpFamily::kV4 ? 32 : 64;
    std::vector<IpdbNetwork> networks;
    ASSERT_TRUE(testing::CollectNetworks(*db, family, networks, &error))
        << error;
    EXPECT_EQ(testing::PartitionProblem(networks, key_bits), "");
    std::vector<std::string> found;
    std::vector<std::string> deeper;
    for (const IpdbNetwork& network : networks) {
      IpAddress first{.family = family};
      for (int i = 0; i < key_bits / 8; ++i) {
        first.bytes[i] =
            static_cast<uint8_t>(network.key >> (key_bits - 8 * (i + 1)));
      }
      if (network.deeper) {
        deeper.push_back(FormatIp(first));
        continue;
      }
      if (network.record.found) {
        found.push_back(FormatPrefix({first, network.prefix_length}) + " " +
                        std::string(IpdbFile::Field(network.record, 0)));
      }
      for (const IpAddress& ip :
           {first, LastAddress(first, network.prefix_length)}) {
        IpdbRecord record;
        ASSERT_TRUE(db->Lookup(ip, record)) << FormatIp(ip);
        EXPECT_EQ(record.found, network.record.found) << FormatIp(ip);
        EXPECT_EQ(record.offset, network.record.offset) << FormatIp(ip);
        EXPECT_EQ(record.prefix_length, network.prefix_length);
      }
    }
    if (family == IpFamily::kV4) {
      EXPECT_EQ(found, (std::vector<std::string>{
                           "1.0.0.0/24 澳大利亚", "1.0.1.0/24 中国",
                           "8.0.0.0/8 美国", "183.62.0.0/18 中国"}));
    } else {
      // ::/64 holds the IPv4 tree: deeper; 2001:db9::/64 too.
      EXPECT_EQ(found, (std::vector<std::string>{"2001:db8::/32 中国"}));
      EXPECT_EQ(deeper, (std::vector<std::string>{"::", "2001:db9::"}));
    }
  }
  // A visitor that stops ends the walk without an error of the file's.
  error.clear();
  int visited = 0;
  EXPECT_FALSE(db->ForEachNetwork(
      IpFamily::kV4, [&](const IpdbNetwork&) { return ++visited < 3; },
      &error));
  EXPECT_EQ(visited, 3);
  EXPECT_EQ(error, "");
}

// A tree whose nodes loop: lookups end after an address's bits, the walk at
// its budget or depth; nothing hangs or reads out of bounds.
TEST(IpdbFileTest, LoopingTreeFailsLookupsAndWalk) {
  IpdbImage image = SampleImage();
  for (auto& node : image.nodes) {
    for (uint32_t& child : node) {
      if (child == image.nodes.size()) child = 96;  // every empty -> a loop
    }
  }
  ScratchDir dir;
  std::string error;
  auto db = OpenBytes(dir, image.Bytes(), &error);
  ASSERT_NE(db, nullptr) << error;
  IpdbRecord record;
  EXPECT_FALSE(db->Lookup(A("9.9.9.9"), record));
  EXPECT_TRUE(db->Lookup(A("1.0.1.7"), record));  // unaffected paths work
  EXPECT_FALSE(db->ForEachNetwork(
      IpFamily::kV4, [](const IpdbNetwork&) { return true; }, &error));
  EXPECT_NE(error.find("deeper than 32 bits"), std::string::npos) << error;
  EXPECT_FALSE(db->ForEachNetwork(
      IpFamily::kV6, [](const IpdbNetwork&) { return true; }, &error));
  EXPECT_NE(error.find("aliases too many subtrees"), std::string::npos)
      << error;
}

// Random bytes overwritten anywhere: the file is refused, or every lookup
// and walk stays in bounds (the suite runs under ASan and UBSan too).
TEST(IpdbFileTest, RandomCorruptionNeverReadsOutOfBounds) {
  ScratchDir dir;
  const int opened = testing::OpenCorruptCopies(
      SampleImage().Bytes(), 16, 500,
      [&](const std::string& bytes, std::string* error) {
        return OpenBytes(dir, bytes, error);
      },
      [](const IpdbFile& db) {
        for (const char* ip : {"1.0.1.7", "9.9.9.9", "2001:db8::1", "::1"}) {
          IpdbRecord record;
          db.Lookup(A(ip), record);
          IpdbFile::Field(record, 2);
        }
        for (const IpFamily family : {IpFamily::kV4, IpFamily::kV6}) {
          db.ForEachNetwork(
              family,
              [](const IpdbNetwork& network) {
                IpdbFile::Field(network.record, 1);
                return true;
              },
              nullptr);
        }
      });
  EXPECT_GT(opened, 25);  // corruption in records or unused nodes is legal
}

TEST(IpdbFileTest, RejectsBrokenFilesNamingThem) {
  const IpdbImage good = SampleImage();
  // A sample with metadata changed by `edit`.
  auto with_meta = [&](const std::function<void(Json&)>& edit) {
    IpdbImage image = good;
    edit(image.meta);
    return image.Bytes();
  };
  auto with_image = [&](const std::function<void(IpdbImage&)>& edit) {
    IpdbImage image = good;
    edit(image);
    return image.Bytes();
  };
  const std::string bytes = good.Bytes();
  auto raw_meta = [&](const std::string& json) {
    std::string out;
    testing::PutBe32(out, static_cast<uint32_t>(json.size()));
    return out + json;
  };
  const uint32_t node_count = static_cast<uint32_t>(good.nodes.size());
  const testing::BrokenFile cases[] = {
      {"empty", "", "truncated: 0 bytes"},
      {"short_length", std::string("\0\0", 2), "truncated: 2 bytes"},
      {"length_past_end", std::string("\0\0\0\x64{}", 6),
       "metadata length 100 runs past the end of the file (6 bytes)"},
      {"length_huge", std::string("\xff\xff\xff\xff{}", 6),
       "metadata length 4294967295 runs past"},
      {"bad_json", raw_meta("{\"fields\": [}"), "not a JSON object"},
      {"json_array", raw_meta("[1, 2]"), "not a JSON object"},
      {"bad_utf8", raw_meta("{\"fields\": [\"\xff\xfe\"]}"),
       "not a JSON object"},
      {"no_fields", with_meta([](Json& m) { m.erase("fields"); }),
       "no \"fields\" list"},
      {"empty_fields", with_meta([](Json& m) { m["fields"] = Json::array(); }),
       "no \"fields\" list"},
      {"field_not_string", with_meta([](Json& m) {
         m["fields"] = {"country_name", 7};
       }),
       "must be strings"},
      {"no_languages", with_meta([](Json& m) { m.erase("languages"); }),
       "no \"languages\""},
      {"language_offset_string",
       with_meta([](Json& m) { m["languages"]["CN"] = "0"; }),
       "no language \"CN\""},
      {"node_count_zero", with_meta([](Json& m) { m["node_count"] = 0; }),
       "node_count missing or out of range"},
      {"node_count_negative", with_meta([](Json& m) { m["node_count"] = -5; }),
       "node_count missing or out of range"},
      {"node_count_over_32_bits",
       with_meta([](Json& m) { m["node_count"] = uint64_t{1} << 33; }),
       "node_count missing or out of range"},
      {"node_count_past_data",
       with_meta([&](Json& m) { m["node_count"] = node_count * 100; }),
       "more than total_size"},
      {"no_total_size", with_meta([](Json& m) { m.erase("total_size"); }),
       "no total_size"},
      {"ip_version_bad", with_meta([](Json& m) { m["ip_version"] = 4; }),
       "ip_version must be"},
      {"ip_version_zero", with_meta([](Json& m) { m["ip_version"] = 0; }),
       "ip_version must be"},
      {"build_text", with_meta([](Json& m) { m["build"] = "yesterday"; }),
       "build is no integer"},
      {"truncated", bytes.substr(0, bytes.size() - 1), "does not match"},
      {"trailing_bytes", bytes + "x", "does not match"},
      {"total_size_lies", with_meta([](Json& m) {
         m["total_size"] = m["total_size"].get<int>() + 8;
       }),
       "does not match"},
      {"node_past_data", with_image([&](IpdbImage& image) {
         image.nodes[5][1] = node_count + 1000000;
       }),
       "node 5 bit 1: its record at data offset"},
      {"node_at_last_byte", with_image([&](IpdbImage& image) {
         image.nodes[5][1] = image.RecordNode(image.records.size() - 1);
       }),
       "lies past the end of the data"},
      {"record_length_past_end", with_image([&](IpdbImage& image) {
         image.records[8] = '\xff';  // the first record's length
       }),
       "runs past the end of the data"},
      {"record_too_few_fields", with_image([&](IpdbImage& image) {
         image.records.replace(10, 14, "澳大利亚ab");  // 1 field
       }),
       "has fewer fields than the metadata lists"},
      {"language_beyond_records",
       with_meta([](Json& m) { m["languages"]["CN"] = 2; }),
       "has fewer fields"},
      {"v4node_wrong", with_meta([](Json& m) { m["v4node"] = 5; }),
       "v4node is not the node at ::ffff:0:0/96 (96)"},
  };
  testing::ExpectEachRefused<IpdbFile>(cases, ".ipdb");
  ScratchDir dir;
  std::string error;
  EXPECT_EQ(IpdbFile::Open(dir.File("missing.ipdb"), &error), nullptr);
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_EQ(IpdbFile::Open(dir.File(""), &error), nullptr);
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  // The correct v4node opens.
  IpdbImage image = good;
  image.meta["v4node"] = 96;
  EXPECT_NE(OpenBytes(dir, image.Bytes(), &error), nullptr) << error;
}

}  // namespace
}  // namespace ax::dns
