// MmdbWriter: files it builds read back through libmaxminddb (MmdbFile, the
// MMDB geo source, the walk) and through MaxMind's pure-Python reader, an
// implementation that shares no code with ours or libmaxminddb: records,
// prefix lengths, misses, IPv4 under ::/96 and ::ffff:0:0/96, every record
// size, values written once, and the networks it refuses.
#include "geo/mmdb_writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "geo/geo_source.h"
#include "geo/mmdb_file.h"
#include "geo_test_support.h"
#include "zh_db_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::MustOpen;
using testing::ScratchDir;
using Json = nlohmann::json;

IpPrefix P(const char* text) { return ParsePrefix(text).value(); }

// `size` bytes of text: long values on purpose.
std::string Long(size_t size) {
  std::string text;
  text.resize(size, 'x');
  return text;
}

// A record in the GeoIP2 layout.
MmdbValue Record(const std::string& country, const std::string& city,
                 uint32_t asn, const std::string& isp) {
  return MmdbValue::Map(
      {{"country", MmdbValue::Map({{"iso_code", MmdbValue::String(country)}})},
       {"city",
        MmdbValue::Map(
            {{"names", MmdbValue::Map({{"en", MmdbValue::String(city)}})}})},
       {"autonomous_system_number", MmdbValue::Uint32(asn)},
       {"isp", MmdbValue::String(isp)}});
}

MmdbWriterOptions Options(int ip_version = 6, int record_size = 0) {
  return {.ip_version = ip_version,
          .database_type = "Ax-Geo-Test",
          .description = {{"en", "writer test"}, {"zh", "测试"}},
          .languages = {"en"},
          .build_epoch = 1700000000,
          .record_size = record_size};
}

void MustInsert(MmdbWriter& writer, const char* network,
                const MmdbValue& record, uint64_t tag = 0) {
  std::string error;
  std::optional<uint64_t> overlapped;
  EXPECT_TRUE(writer.Insert(P(network), record, tag, &error, &overlapped))
      << network << ": " << error;
}

std::string Write(const ScratchDir& dir, const std::string& name,
                  MmdbWriter& writer) {
  std::string error;
  const std::optional<std::string> bytes = writer.Build(&error);
  EXPECT_TRUE(bytes) << error;
  std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << bytes.value_or("");
  return path;
}

// The databases most tests read: both families, one record on two networks.
MmdbWriter Sample(const MmdbWriterOptions& options) {
  MmdbWriter writer(options);
  const MmdbValue telecom = Record("CN", "广州", 4134, "电信");
  MustInsert(writer, "1.0.0.0/24", telecom);
  MustInsert(writer, "1.0.1.0/24", telecom);
  MustInsert(writer, "10.0.0.0/8", Record("US", "Ashburn", 14618, "Amazon"));
  MustInsert(writer, "2001:db8::/32", Record("CN", "北京", 4808, "联通"));
  MustInsert(writer, "2400:1::/48", Record("JP", "東京", 2516, "KDDI"));
  return writer;
}

struct Expect {
  const char* ip;
  bool found;
  int prefix_length;
  const char* country;
  const char* city;
  uint32_t asn;
  const char* isp;
};
const Expect kSampleLookups[] = {
    {"1.0.0.1", true, 24, "CN", "广州", 4134, "电信"},
    {"1.0.1.255", true, 24, "CN", "广州", 4134, "电信"},
    {"10.200.0.1", true, 8, "US", "Ashburn", 14618, "Amazon"},
    {"2001:db8:ffff::1", true, 32, "CN", "北京", 4808, "联通"},
    {"2400:1::1", true, 48, "JP", "東京", 2516, "KDDI"},
    // Misses report how far the empty network reaches.
    {"1.0.2.1", false, 23, "", "", 0, ""},
    {"9.9.9.9", false, 7, "", "", 0, ""},
    {"2001:db9::1", false, 32, "", "", 0, ""},
    // IPv4-mapped addresses lead to the IPv4 networks.
    {"::ffff:1.0.0.1", true, 120, "CN", "广州", 4134, "电信"},
    {"::ffff:9.9.9.9", false, 103, "", "", 0, ""},
};

void ExpectSampleLookups(const std::string& path) {
  const auto file = MustOpen(path);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->database_type(), "Ax-Geo-Test");
  EXPECT_EQ(file->ip_version(), 6);
  EXPECT_EQ(file->build_epoch(), 1700000000u);
  const GeoFieldPaths paths;  // must outlive the source
  const auto source = MakeMmdbSource(file, GeoSourceKind::kMmdb, paths,
                                     *SubdivisionTable::Builtin());
  for (const Expect& e : kSampleLookups) {
    SCOPED_TRACE(e.ip);
    GeoFacts facts;
    bool found = false;
    int prefix_length = -1;
    ASSERT_TRUE(source->Lookup(A(e.ip), facts, found, prefix_length));
    EXPECT_EQ(found, e.found);
    EXPECT_EQ(prefix_length, e.prefix_length);
    EXPECT_EQ(facts.country, e.country);
    EXPECT_EQ(facts.city, e.city);
    EXPECT_EQ(facts.asn, e.asn);
    EXPECT_EQ(facts.isp, e.isp);
  }
}

TEST(MmdbWriterTest, ReadsBackThroughLibmaxminddb) {
  ScratchDir dir;
  MmdbWriter writer = Sample(Options());
  ExpectSampleLookups(Write(dir, "sample.mmdb", writer));
}

TEST(MmdbWriterTest, EveryRecordSizeReadsAlike) {
  ScratchDir dir;
  for (int record_size : {24, 28, 32}) {
    SCOPED_TRACE(record_size);
    MmdbWriter writer = Sample(Options(6, record_size));
    const std::string path =
        Write(dir, std::to_string(record_size) + ".mmdb", writer);
    ExpectSampleLookups(path);
    // The tree is node_count records of that size, then 16 zero bytes.
    const auto file = MustOpen(path);
    std::ifstream in(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), {}};
    const size_t tree = size_t{file->node_count()} * record_size / 4;
    EXPECT_EQ(bytes.substr(tree, 16), std::string(16, '\0'));
  }
}

TEST(MmdbWriterTest, RecordSizeGrowsWithTheData) {
  // A record past 2^24 bytes into the data section needs 28-bit records.
  auto fill = [](MmdbWriter& writer) {
    MustInsert(writer, "1.0.0.0/24",
               MmdbValue::Map({{"isp", MmdbValue::String(Long(16'800'000))}}));
    MustInsert(writer, "2.0.0.0/24", Record("CN", "", 4134, ""));
  };
  MmdbWriter too_small(Options(6, 24));
  fill(too_small);
  std::string error;
  EXPECT_FALSE(too_small.Build(&error));
  EXPECT_EQ(error,
            "the data outgrow the format: record values need more than 24 "
            "bits");
  MmdbWriter writer(Options());
  fill(writer);
  ScratchDir dir;
  const std::string path = Write(dir, "big.mmdb", writer);
  const auto file = MustOpen(path);
  ASSERT_NE(file, nullptr);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(bytes.substr(size_t{file->node_count()} * 28 / 4, 16),
            std::string(16, '\0'));
  MmdbRecord record;
  ASSERT_TRUE(file->Lookup(A("2.0.0.1"), record));
  ASSERT_TRUE(record.found);
  uint32_t asn = 0;
  const char* path_asn[] = {"autonomous_system_number", nullptr};
  EXPECT_EQ(file->GetUint32(record, path_asn, asn), MmdbField::kFound);
  EXPECT_EQ(asn, 4134u);
}

TEST(MmdbWriterTest, ValuesAreWrittenOnce) {
  MmdbWriter writer(Options());
  const std::string city(40, 'c');
  for (uint32_t i = 0; i < 100; ++i) {
    IpAddress ip = A("10.0.0.0");
    ip.bytes[2] = static_cast<uint8_t>(i);
    MustInsert(writer, FormatPrefix({ip, 24}).c_str(),
               Record("CN", city, 4134 + i % 2, "电信"));
  }
  std::string error;
  const std::string bytes = writer.Build(&error).value();
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = bytes.find(needle); at != std::string::npos;
         at = bytes.find(needle, at + 1)) {
      ++n;
    }
    return n;
  };
  // Two distinct records; their parts and keys, once each.
  EXPECT_EQ(count(city), 1u);
  EXPECT_EQ(count("iso_code"), 1u);
  EXPECT_EQ(count("autonomous_system_number"), 1u);
  ScratchDir dir;
  const std::string path = dir.File("once.mmdb");
  std::ofstream(path, std::ios::binary) << bytes;
  const auto file = MustOpen(path);
  MmdbRecord first, second;
  ASSERT_TRUE(file->Lookup(A("10.0.0.1"), first));
  ASSERT_TRUE(file->Lookup(A("10.0.2.1"), second));
  EXPECT_EQ(first.entry.offset, second.entry.offset);
  std::string_view read;
  const char* city_path[] = {"city", "names", "en", nullptr};
  ASSERT_EQ(file->GetString(second, city_path, read), MmdbField::kFound);
  EXPECT_EQ(read, city);
}

TEST(MmdbWriterTest, WalkReportsTheNetworksWritten) {
  ScratchDir dir;
  MmdbWriter writer = Sample(Options());
  const auto file = MustOpen(Write(dir, "walk.mmdb", writer));
  std::vector<MmdbNetwork> v4;
  std::string error;
  ASSERT_TRUE(testing::CollectNetworks(*file, IpFamily::kV4, v4, &error))
      << error;
  EXPECT_EQ(testing::PartitionProblem(v4, 32), "");
  std::vector<std::string> found;
  for (const MmdbNetwork& n : v4) {
    IpAddress ip;
    for (int i = 0; i < 4; ++i) ip.bytes[i] = uint8_t(n.key >> (24 - 8 * i));
    if (n.record.found) found.push_back(FormatPrefix({ip, n.prefix_length}));
  }
  EXPECT_EQ(found, (std::vector<std::string>{"1.0.0.0/24", "1.0.1.0/24",
                                             "10.0.0.0/8"}));
  std::vector<MmdbNetwork> v6;
  ASSERT_TRUE(testing::CollectNetworks(*file, IpFamily::kV6, v6, &error))
      << error;
  EXPECT_EQ(testing::PartitionProblem(v6, 64), "");
}

TEST(MmdbWriterTest, Ipv4DatabaseStoresASlashZeroAsItsHalves) {
  MmdbWriter writer(Options(4));
  MustInsert(writer, "0.0.0.0/0", Record("ZZ", "", 0, ""));
  std::string error;
  std::optional<uint64_t> overlapped;
  EXPECT_FALSE(writer.Insert(P("1.0.0.0/8"), Record("CN", "", 0, ""), 1, &error,
                             &overlapped));
  EXPECT_EQ(error, "1.0.0.0/8 overlaps 0.0.0.0/0");
  EXPECT_EQ(overlapped, 0u);
  ScratchDir dir;
  const auto file = MustOpen(Write(dir, "v4.mmdb", writer));
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->ip_version(), 4);
  for (const char* ip : {"1.2.3.4", "200.1.1.1"}) {
    MmdbRecord record;
    ASSERT_TRUE(file->Lookup(A(ip), record));
    EXPECT_TRUE(record.found) << ip;
    EXPECT_EQ(record.prefix_length, 1) << ip;
  }
}

TEST(MmdbWriterTest, RefusesOverlapsAndIpv4Places) {
  MmdbWriter writer(Options());
  const MmdbValue record = Record("CN", "", 4134, "");
  MustInsert(writer, "10.0.0.0/8", record, 7);
  MustInsert(writer, "20.1.0.0/16", record, 8);
  struct Case {
    const char* network;
    const char* error;
    std::optional<uint64_t> overlapped;
  };
  const Case cases[] = {
      {"10.1.0.0/16", "10.1.0.0/16 overlaps 10.0.0.0/8", 7},
      {"10.0.0.0/8", "10.0.0.0/8 overlaps 10.0.0.0/8", 7},
      {"20.0.0.0/8", "20.0.0.0/8 overlaps 20.1.0.0/16", 8},
      {"0.0.0.0/0", "0.0.0.0/0 overlaps 10.0.0.0/8", 7},
      {"::/0",
       "::/0 overlaps ::/96, where an IPv6 database keeps IPv4 addresses: "
       "write IPv4 networks as IPv4",
       std::nullopt},
      {"::1/128",
       "::1/128 overlaps ::/96, where an IPv6 database keeps IPv4 "
       "addresses: write IPv4 networks as IPv4",
       std::nullopt},
      {"::ffff:10.0.0.0/104",
       "::ffff:10.0.0.0/104 overlaps ::ffff:0.0.0.0/96, where an IPv6 "
       "database keeps IPv4 addresses: write IPv4 networks as IPv4",
       std::nullopt},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.network);
    std::string error;
    std::optional<uint64_t> overlapped;
    EXPECT_FALSE(writer.Insert(P(c.network), record, 9, &error, &overlapped));
    EXPECT_EQ(error, c.error);
    EXPECT_EQ(overlapped, c.overlapped);
  }
  std::string error;
  std::optional<uint64_t> overlapped;
  EXPECT_FALSE(writer.Insert(
      P("30.0.0.0/8"),
      MmdbValue::Map({{"isp", MmdbValue::String(Long(16'843'037))}}), 9, &error,
      &overlapped));
  EXPECT_EQ(error,
            "30.0.0.0/8: a value of its record is longer than the format "
            "allows (16,843,036 bytes or entries)");
  MmdbWriter v4_only(Options(4));
  EXPECT_FALSE(
      v4_only.Insert(P("2001:db8::/32"), record, 1, &error, &overlapped));
  EXPECT_EQ(error, "2001:db8::/32 is IPv6, and the database IPv4 only");
  MmdbWriter no_epoch(MmdbWriterOptions{});
  EXPECT_FALSE(no_epoch.Build(&error));
  EXPECT_EQ(error, "build_epoch 0: readers take it for a missing build time");
  // What was refused left nothing behind.
  ScratchDir dir;
  const auto file = MustOpen(Write(dir, "refused.mmdb", writer));
  MmdbRecord hit;
  ASSERT_TRUE(file->Lookup(A("10.1.0.1"), hit));
  EXPECT_EQ(hit.prefix_length, 8);
  ASSERT_TRUE(file->Lookup(A("20.2.0.1"), hit));
  EXPECT_FALSE(hit.found);
  ASSERT_TRUE(file->Lookup(A("30.0.0.1"), hit));
  EXPECT_FALSE(hit.found);
}

// MaxMind's pure-Python reader (the maxminddb package's Reader, which never
// uses libmaxminddb) on `path`: the metadata, then per address the record
// and prefix length. Empty with `skip` set when Python or the package is
// missing.
std::vector<Json> PythonLookups(const std::string& path,
                                const std::vector<std::string>& ips,
                                std::string* skip) {
  const std::string python = AX_PYTHON;
  if (!std::filesystem::exists(python) ||
      std::system(
          ("'" + python + "' -c 'import maxminddb' 2>/dev/null").c_str()) !=
          0) {
    *skip = python +
            " with the maxminddb package is missing "
            "(scripts/setup-test.sh installs it)";
    return {};
  }
  ScratchDir dir;
  std::ofstream(dir.File("read.py")) << R"(import json, sys, maxminddb
reader = maxminddb.open_database(sys.argv[1], maxminddb.MODE_FILE)
assert type(reader).__module__ == "maxminddb.reader", type(reader)
m = reader.metadata()
print(json.dumps({k: getattr(m, k) for k in (
    "binary_format_major_version", "binary_format_minor_version",
    "build_epoch", "database_type", "description", "ip_version", "languages",
    "node_count", "record_size")}))
for line in sys.stdin:
    record, prefix = reader.get_with_prefix_len(line.strip())
    print(json.dumps({"record": record, "prefix": prefix}))
)";
  {
    std::ofstream in(dir.File("in"));
    for (const std::string& ip : ips) in << ip << "\n";
  }
  const std::string command = "'" + python + "' '" + dir.File("read.py") +
                              "' '" + path + "' <'" + dir.File("in") + "' >'" +
                              dir.File("out") + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::vector<Json> out;
  std::ifstream lines(dir.File("out"));
  for (std::string line; std::getline(lines, line);) {
    out.push_back(Json::parse(line));
  }
  EXPECT_EQ(out.size(), ips.size() + 1) << command;
  return out;
}

TEST(MmdbWriterTest, IndependentReaderAgrees) {
  ScratchDir dir;
  for (int record_size : {24, 28, 32}) {
    SCOPED_TRACE(record_size);
    MmdbWriter writer = Sample(Options(6, record_size));
    const std::string path =
        Write(dir, std::to_string(record_size) + ".mmdb", writer);
    std::vector<std::string> ips;
    for (const Expect& e : kSampleLookups) ips.emplace_back(e.ip);
    std::string skip;
    const std::vector<Json> read = PythonLookups(path, ips, &skip);
    if (!skip.empty()) GTEST_SKIP() << skip;
    ASSERT_EQ(read.size(), ips.size() + 1);
    EXPECT_EQ(read[0],
              Json({{"binary_format_major_version", 2},
                    {"binary_format_minor_version", 0},
                    {"build_epoch", 1700000000},
                    {"database_type", "Ax-Geo-Test"},
                    {"description", {{"en", "writer test"}, {"zh", "测试"}}},
                    {"ip_version", 6},
                    {"languages", {"en"}},
                    {"node_count", MustOpen(path)->node_count()},
                    {"record_size", record_size}}));
    for (size_t i = 0; i < ips.size(); ++i) {
      const Expect& e = kSampleLookups[i];
      SCOPED_TRACE(e.ip);
      // The Python reader counts an IPv4-mapped address's prefix in IPv6.
      EXPECT_EQ(read[i + 1]["prefix"], e.prefix_length);
      const Json want = e.found ? Json{{"country", {{"iso_code", e.country}}},
                                       {"city", {{"names", {{"en", e.city}}}}},
                                       {"autonomous_system_number", e.asn},
                                       {"isp", e.isp}}
                                : Json();
      EXPECT_EQ(read[i + 1]["record"], want);
    }
  }
}

}  // namespace
}  // namespace ax::dns
