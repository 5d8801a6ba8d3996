// axctl geodb build: the CSV rows (RFC 4180 quoting, UTF-8, ranges as the
// fewest CIDRs, subdivisions in any form), every bad-row error with its exact
// line, the command leaving nothing behind when a row is bad, and the built
// file as ax-dns reads it: MMDB lookups with their prefix lengths, and the
// resolver, compiled or direct, classifying clients as the CSV says.
#include "axctl/geodb_build.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ax/classify.h"
#include "ax/isp_sets.h"
#include "axctl/geo_csv.h"
#include "geo/geo_resolver.h"
#include "temp_dir.h"

namespace ax {
namespace {

using testing::TempDir;

std::vector<GeoCsvRow> Parse(std::string_view text,
                             std::vector<GeoCsvError>& errors) {
  return ParseGeoCsv(text, *dns::SubdivisionTable::Builtin(), errors);
}

std::vector<std::string> Networks(const GeoCsvRow& row) {
  std::vector<std::string> out;
  for (const IpPrefix& prefix : row.networks) {
    out.push_back(FormatPrefix(prefix));
  }
  return out;
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> FilesIn(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(GeoCsvTest, QuotingLineEndsAndUtf8) {
  std::vector<GeoCsvError> errors;
  const std::vector<GeoCsvRow> rows = Parse(
      "\xEF\xBB\xBF"
      "Network , COUNTRY,City,ISP\r\n"
      "1.0.0.0/24,CN,\"Shenzhen, Nanshan\",\"中国\"\"电信\"\"\"\r\n"
      "\r\n"
      "1.0.1.0/24 , cn , \"two\nlines\", 联通 \n"
      "  \n"
      "2001:db8::/32,US,,\n",
      errors);
  EXPECT_TRUE(errors.empty()) << errors.front().message;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].line, 2);
  EXPECT_EQ(Networks(rows[0]), std::vector<std::string>{"1.0.0.0/24"});
  EXPECT_EQ(rows[0].city, "Shenzhen, Nanshan");
  EXPECT_EQ(rows[0].isp, "中国\"电信\"");
  EXPECT_EQ(rows[1].line, 4);
  EXPECT_EQ(rows[1].country, "CN");
  EXPECT_EQ(rows[1].city, "two\nlines");
  EXPECT_EQ(rows[1].isp, "联通");
  EXPECT_EQ(rows[2].line, 7);
  EXPECT_EQ(Networks(rows[2]), std::vector<std::string>{"2001:db8::/32"});
  EXPECT_EQ(rows[2].country, "US");
}

TEST(GeoCsvTest, RangesBecomeTheFewestCidrs) {
  std::vector<GeoCsvError> errors;
  const std::vector<GeoCsvRow> rows = Parse(
      "start,end,asn\n"
      "10.0.0.0,10.0.2.255,AS1\n"
      "1.0.0.5,1.0.0.9,as2\n"
      "0.0.0.0,255.255.255.255,3\n"
      "2001:db8::,2001:db8::1:ffff,4\n"
      "2001:db8::5,2001:db8::5,5\n",
      errors);
  EXPECT_TRUE(errors.empty()) << errors.front().message;
  ASSERT_EQ(rows.size(), 5u);
  using Nets = std::vector<std::string>;
  EXPECT_EQ(Networks(rows[0]), (Nets{"10.0.0.0/23", "10.0.2.0/24"}));
  EXPECT_EQ(Networks(rows[1]),
            (Nets{"1.0.0.5/32", "1.0.0.6/31", "1.0.0.8/31"}));
  EXPECT_EQ(Networks(rows[2]), (Nets{"0.0.0.0/0"}));
  EXPECT_EQ(Networks(rows[3]), (Nets{"2001:db8::/111"}));
  EXPECT_EQ(Networks(rows[4]), (Nets{"2001:db8::5/128"}));
  for (uint32_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].asn, i + 1);
}

TEST(GeoCsvTest, SubdivisionsInAnyForm) {
  std::vector<GeoCsvError> errors;
  const std::vector<GeoCsvRow> rows = Parse(
      "network,country,subdivision\n"
      "1.0.0.0/24,CN,CN-GD\n"
      "1.0.1.0/24,CN,gd\n"
      "1.0.2.0/24,CN,Guangdong\n"
      "1.0.3.0/24,CN,广东\n"
      "1.0.4.0/24,us,California\n",
      errors);
  EXPECT_TRUE(errors.empty()) << errors.front().message;
  ASSERT_EQ(rows.size(), 5u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(rows[i].subdivision, "CN-GD") << i;
  EXPECT_EQ(rows[4].subdivision, "US-CA");
}

TEST(GeodbBuildTest, EachBadRowNamesItsFileLineAndColumn) {
  const std::vector<GeoCsvFile> files = {
      {"data.csv",
       "network,country,subdivision,city,asn,isp\n"  // 1
       "1.0.0.0/24,CN,CN-GD,广州,AS4134,电信\n"      // 2
       "2.0.0.0/8,CN,,,x12,\n"                       // 3
       "10.0.0.1/8,CN,,,,\n"                         // 4
       "10.0.0.0/33,CN,,,,\n"                        // 5
       "not-a-network,CN,,,,\n"                      // 6
       ",CN,,,,\n"                                   // 7
       "1.0.0.0/16,US,,,,\n"                         // 8
       "1.0.0.128/25,US,,,,\n"                       // 9
       "3.0.0.0/8,CHN,,,,\n"                         // 10
       "4.0.0.0/8,US,CN-GD,,,\n"                     // 11
       "5.0.0.0/8,,GD,,,\n"                          // 12
       "6.0.0.0/8,CN,CN-XX,,0,\n"                    // 13
       "7.0.0.0/8,,,,,\n"                            // 14
       "8.0.0.0/8,CN\n"                              // 15
       "9.0.0.0/8,CN,,,99999999999,\n"               // 16
       "11.0.0.0/8,CN,,\"\xff\",,\n"                 // 17
       "12.0.0.0/8,C\"N,,,,\n"                       // 18
       "13.0.0.0/8,\"CN\"x,,,,\n"                    // 19
       "::1/128,CN,,,,\n"                            // 20
       "::ffff:1.2.3.0/120,CN,,,,\n"                 // 21
       "14.0.0.0/8,\"C\n"                            // 22
       "N\",,,,\n"},                                 // 23
      {"ranges.csv",
       "start,end,asn\n"              // 1
       "1.0.0.5,1.0.0.9,5\n"          // 2
       "15.0.0.9,15.0.0.1,5\n"        // 3
       "15.0.0.0,::1,5\n"             // 4
       "15.0.0.0,,5\n"                // 5
       "15.0.0.0,15.0.0.300,5\n"      // 6
       "16.0.0.0,16.0.0.255,7\n"      // 7
       "16.0.0.128,16.0.1.255,8\n"},  // 8
  };
  std::vector<std::string> errors;
  EXPECT_FALSE(BuildGeoMmdb(files, {.description = "test"}, errors));
  std::string lines;
  for (const std::string& error : errors) lines += error + "\n";
  EXPECT_EQ(lines, R"(data.csv:3: asn: 'x12' is not a number
data.csv:4: network: '10.0.0.1/8': host bits set past /8 (did you mean 10.0.0.0/8?)
data.csv:5: network: '10.0.0.0/33': prefix length 33 is out of range 0..32
data.csv:6: network: 'not-a-network': missing '/length'
data.csv:7: network: missing
data.csv:8: 1.0.0.0/16 overlaps 1.0.0.0/24 of line 2
data.csv:9: 1.0.0.128/25 overlaps 1.0.0.0/24 of line 2
data.csv:10: country: 'CHN' is not a two-letter ISO 3166-1 code
data.csv:11: subdivision: 'CN-GD' is not a subdivision of US (an ISO 3166-2 code like CN-GD, its part after the dash, or its name)
data.csv:12: subdivision: 'GD' needs a country
data.csv:13: subdivision: 'CN-XX' is not a subdivision of CN (an ISO 3166-2 code like CN-GD, its part after the dash, or its name)
data.csv:13: asn: '0' is out of range (1 to 4294967295)
data.csv:14: nothing to store: every data column is empty
data.csv:15: has 2 fields where the header names 6 columns
data.csv:16: asn: '99999999999' is out of range (1 to 4294967295)
data.csv:17: city: not valid UTF-8
data.csv:18: a quote inside an unquoted field (quote the whole field and write the quote twice)
data.csv:19: text after a closing quote (a quote inside a quoted field is written twice)
data.csv:20: ::1/128 overlaps ::/96, where an IPv6 database keeps IPv4 addresses: write IPv4 networks as IPv4
data.csv:21: ::ffff:1.2.3.0/120 overlaps ::ffff:0.0.0.0/96, where an IPv6 database keeps IPv4 addresses: write IPv4 networks as IPv4
data.csv:22: country: 'C
N' is not a two-letter ISO 3166-1 code
ranges.csv:2: 1.0.0.5/32 overlaps 1.0.0.0/24 of data.csv:2
ranges.csv:3: start 15.0.0.9 is after end 15.0.0.1
ranges.csv:4: start 15.0.0.0 and end ::1 are of different address families
ranges.csv:5: end: missing
ranges.csv:6: end: '15.0.0.300' is not an IP address
ranges.csv:8: 16.0.0.128/25 overlaps 16.0.0.0/24 of line 7
)");
  // An IPv4 database refuses the IPv6 rows instead.
  errors.clear();
  EXPECT_FALSE(BuildGeoMmdb(
      {{"v6.csv", "network,country\n1.0.0.0/8,CN\n2001:db8::/32,CN\n"}},
      {.ip_version = 4}, errors));
  EXPECT_EQ(errors, std::vector<std::string>{
                        "v6.csv:3: 2001:db8::/32 is IPv6, and the database "
                        "IPv4 only"});
}

TEST(GeodbBuildTest, BadHeaderIsOneErrorAndNoRows) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "x.csv:1: empty file: expected a header line naming the columns"},
      {"\n\n",
       "x.csv:1: empty file: expected a header line naming the columns"},
      {"network,country,town\n1.0.0.0/8,CN,x\n",
       "x.csv:1: header: unknown column 'town' (known: network, start, end, "
       "country, subdivision, city, asn, isp)"},
      {"network,Country,country\n",
       "x.csv:1: header: column 'country' "
       "named twice"},
      {"\ncountry,asn\n",
       "x.csv:2: header: no network column: name "
       "'network' (a CIDR) or 'start' and 'end' (an "
       "address range)"},
      {"network,start,end,isp\n",
       "x.csv:1: header: name either 'network' or "
       "'start' and 'end', not both"},
      {"start,isp\n", "x.csv:1: header: 'start' without 'end'"},
      {"network\n1.0.0.0/8\n",
       "x.csv:1: header: no data column: name at "
       "least one of country, subdivision, city, "
       "asn, isp"},
  };
  for (const auto& [text, error] : cases) {
    SCOPED_TRACE(text);
    std::vector<std::string> errors;
    EXPECT_FALSE(BuildGeoMmdb({{"x.csv", text}}, {}, errors));
    EXPECT_EQ(errors, std::vector<std::string>{error});
  }
}

// `axctl geodb build WORDS... FLAGS...` as axctl parses it (-o is --output).
Args BuildArgs(const std::vector<std::string>& words,
               const std::map<std::string, std::string>& flags = {}) {
  std::vector<std::string> line = {"axctl", "geodb", "build"};
  line.insert(line.end(), words.begin(), words.end());
  for (const auto& [flag, value] : flags) {
    line.push_back(flag);
    line.push_back(value);
  }
  std::vector<char*> argv;
  for (std::string& word : line) argv.push_back(word.data());
  return ParseArgs(static_cast<int>(argv.size()), argv.data(), 2, {});
}

TEST(GeodbBuildTest, CommandWritesNothingWhenARowIsBad) {
  TempDir dir;
  const std::string good =
      dir.Write("good.csv", "network,country\n1.0.0.0/8,CN\n").string();
  std::string bad_rows = "network,asn\n";
  for (int i = 0; i < 25; ++i) {
    bad_rows += std::to_string(20 + i) + ".0.0.0/8,x\n";
  }
  const std::string bad = dir.Write("bad.csv", bad_rows).string();
  const std::string out = dir.Write("out.mmdb", "old").string();
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(GeodbBuildCommand(BuildArgs({good, bad, "-o", out})), 1);
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(stderr_text.find("bad.csv:2: asn: 'x' is not a number\n"),
            std::string::npos)
      << stderr_text;
  EXPECT_NE(stderr_text.find("bad.csv:21: asn: 'x' is not a number\n"
                             "and 5 more errors\n" +
                             out + " not written\n"),
            std::string::npos)
      << stderr_text;
  EXPECT_EQ(ReadAll(out), "old");
  EXPECT_EQ(FilesIn(dir.path()),
            (std::vector<std::string>{"bad.csv", "good.csv", "out.mmdb"}));

  ::testing::internal::CaptureStderr();
  const std::string nowhere = (dir / "no" / "such.mmdb").string();
  EXPECT_EQ(GeodbBuildCommand(BuildArgs({good, "-o", nowhere})), 1);
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("no/such.mmdb: "),
            std::string::npos);
  // Bad usage.
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(GeodbBuildCommand(BuildArgs({good})), 2);
  EXPECT_EQ(GeodbBuildCommand(BuildArgs({good, "-o"})), 2);
  EXPECT_EQ(GeodbBuildCommand(BuildArgs({"-o", out})), 2);
  EXPECT_EQ(
      GeodbBuildCommand(BuildArgs({good, "-o", out}, {{"--ip-version", "5"}})),
      2);
  EXPECT_EQ(GeodbBuildCommand(
                BuildArgs({(dir.path() / "none.csv").string(), "-o", out})),
            1);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ReadAll(out), "old");
}

// The CSV the round-trip tests build: IPv4 and IPv6 rows, a range, Chinese
// names, a carrier by name and one by ASN only.
constexpr char kCsv[] =
    "network,country,subdivision,city,asn,isp\n"
    "113.108.0.0/16,CN,CN-GD,广州,AS4134,电信\n"
    "113.109.0.0/16,CN,Guangdong,深圳,4134,电信DNS服务器\n"
    "223.87.0.0/16,CN,SC,成都,9808,移动\n"
    "123.125.0.0/17,CN,北京,,4808,\n"
    "2408:8000::/20,CN,CN-BJ,,4837,联通\n"
    "2001:db8:1::/48,US,US-CA,\"Mountain View, CA\",15169,Google\n";
constexpr char kRanges[] =
    "start,end,country\n"
    "8.8.4.0,8.8.8.255,US\n";

struct Want {
  const char* ip;
  bool found;
  int prefix_length;  // of the MMDB network
  const char* country;
  const char* subdivision;
  const char* city;
  uint32_t asn;
  const char* isp;
};
const Want kWant[] = {
    {"113.108.1.1", true, 16, "CN", "CN-GD", "广州", 4134, "电信"},
    {"113.109.255.255", true, 16, "CN", "CN-GD", "深圳", 4134, "电信DNS服务器"},
    {"223.87.238.22", true, 16, "CN", "CN-SC", "成都", 9808, "移动"},
    {"123.125.114.1", true, 17, "CN", "CN-BJ", "", 4808, ""},
    {"123.125.128.1", false, 17, "", "", "", 0, ""},
    {"2408:8001::1", true, 20, "CN", "CN-BJ", "", 4837, "联通"},
    {"2001:db8:1:2::3", true, 48, "US", "US-CA", "Mountain View, CA", 15169,
     "Google"},
    {"2001:db8:2::1", false, 47, "", "", "", 0, ""},
    // The range 8.8.4.0-8.8.8.255: 8.8.4.0/22 and 8.8.8.0/24.
    {"8.8.4.0", true, 22, "US", "", "", 0, ""},
    {"8.8.7.255", true, 22, "US", "", "", 0, ""},
    {"8.8.8.8", true, 24, "US", "", "", 0, ""},
    {"8.8.9.0", false, 24, "", "", "", 0, ""},
    {"8.8.3.255", false, 22, "", "", "", 0, ""},
};

// Builds kCsv and kRanges with the command into `dir`/geo.mmdb.
std::string BuildSample(const TempDir& dir) {
  const std::string csv = dir.Write("data.csv", kCsv).string();
  const std::string ranges = dir.Write("ranges.csv", kRanges).string();
  std::string out = (dir / "geo.mmdb").string();
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(GeodbBuildCommand(BuildArgs({csv, ranges, "-o", out},
                                        {{"--description", "sample"}})),
            0);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            "wrote " + out + ": 7 rows, 8 networks, " +
                std::to_string(std::filesystem::file_size(out)) + " bytes\n");
  return out;
}

TEST(GeodbBuildTest, BuiltFileReadsAsTheCsvSays) {
  TempDir dir;
  const std::string out = BuildSample(dir);
  EXPECT_EQ(FilesIn(dir.path()),
            (std::vector<std::string>{"data.csv", "geo.mmdb", "ranges.csv"}));
  std::string error;
  const auto file = dns::MmdbFile::Open(out, &error);
  ASSERT_NE(file, nullptr) << error;
  EXPECT_EQ(file->database_type(), "Ax-Geo");
  EXPECT_EQ(file->ip_version(), 6);
  const dns::GeoFieldPaths paths;  // the default geoip2 schema
  const auto source =
      dns::MakeMmdbSource(file, dns::GeoSourceKind::kMmdb, paths,
                          *dns::SubdivisionTable::Builtin());
  for (const Want& w : kWant) {
    SCOPED_TRACE(w.ip);
    dns::GeoFacts facts;
    bool found = false;
    int prefix_length = -1;
    ASSERT_TRUE(source->Lookup(*ParseIp(w.ip), facts, found, prefix_length));
    EXPECT_EQ(found, w.found);
    EXPECT_EQ(prefix_length, w.prefix_length);
    EXPECT_EQ(facts.country, w.country);
    EXPECT_EQ(facts.subdivision, w.subdivision);
    EXPECT_EQ(facts.city, w.city);
    EXPECT_EQ(facts.asn, w.asn);
    EXPECT_EQ(facts.isp, w.isp);
  }
}

TEST(GeodbBuildTest, ResolverClassifiesAsTheCsvSays) {
  TempDir dir;
  const std::string out = BuildSample(dir);
  std::string error;
  const auto file = dns::MmdbFile::Open(out, &error);
  ASSERT_NE(file, nullptr) << error;
  using Mode = dns::GeoResolver::Mode;
  std::map<Mode, std::shared_ptr<const dns::GeoResolver>> resolvers;
  for (Mode mode : {Mode::kCompiled, Mode::kDirect}) {
    resolvers[mode] = dns::GeoResolver::Create(
        {.geo = {file}, .cities = true}, dns::GeoFieldPaths{}, mode, &error);
    ASSERT_NE(resolvers[mode], nullptr) << error;
  }
  // Regions by ISP set alone: the carrier's name or ASN picks the set.
  const std::vector<SnapshotRegion> regions = {
      {.name = "gd-telecom",
       .match = {.subdivisions = {"CN-GD"}, .isps = {"telecom"}}},
      {.name = "sz", .match = {.cities = {"CN-GD/深圳"}}},
      {.name = "sc-mobile",
       .match = {.subdivisions = {"CN-SC"}, .isps = {"mobile"}}},
      {.name = "bj-unicom",
       .match = {.subdivisions = {"CN-BJ"}, .isps = {"unicom"}}},
      {.name = "us", .match = {.countries = {"US"}}},
  };
  const Classifier classifier(regions, ResolveIspSets({}));
  const std::map<std::string, std::string> want_region = {
      {"113.108.1.1", "gd-telecom"},  {"113.109.255.255", "sz"},
      {"223.87.238.22", "sc-mobile"}, {"123.125.114.1", "bj-unicom"},
      {"123.125.128.1", ""},          {"2408:8001::1", "bj-unicom"},
      {"2001:db8:1:2::3", "us"},      {"8.8.8.8", "us"},
  };
  for (const auto& [text, region] : want_region) {
    SCOPED_TRACE(text);
    GeoInfo geo;
    ASSERT_TRUE(resolvers[Mode::kCompiled]->Lookup(
        *ParseIp(text), geo, dns::GeoResolver::Detail::kClassify));
    const Classifier::GeoMatch match = classifier.MatchGeo(geo);
    EXPECT_EQ(match.region == kNoIndex ? "" : regions[match.region].name,
              region);
  }
  // Compiled and direct agree on every field, at the rows' edges and on
  // seeded random addresses in and around them.
  std::vector<IpAddress> ips;
  for (const Want& w : kWant) ips.push_back(*ParseIp(w.ip));
  std::mt19937_64 rng(16);
  for (const char* base : {"113.108.0.0", "223.87.0.0", "123.125.0.0",
                           "8.8.0.0", "2408:8000::", "2001:db8::"}) {
    for (int i = 0; i < 500; ++i) {
      IpAddress ip = *ParseIp(base);
      const int from = ip.family == IpFamily::kV4 ? 1 : 3;
      for (int b = from + 1; b < (ip.family == IpFamily::kV4 ? 4 : 16); ++b) {
        ip.bytes[b] = static_cast<uint8_t>(rng());
      }
      ip.bytes[from] = static_cast<uint8_t>(ip.bytes[from] + rng() % 4);
      ips.push_back(ip);
    }
  }
  for (const IpAddress& ip : ips) {
    SCOPED_TRACE(FormatIp(ip));
    GeoInfo compiled, direct;
    ASSERT_TRUE(resolvers[Mode::kCompiled]->Lookup(
        ip, compiled, dns::GeoResolver::Detail::kClassify));
    ASSERT_TRUE(resolvers[Mode::kDirect]->Lookup(
        ip, direct, dns::GeoResolver::Detail::kClassify));
    EXPECT_EQ(compiled.country, direct.country);
    EXPECT_EQ(compiled.subdivision, direct.subdivision);
    EXPECT_EQ(compiled.city, direct.city);
    EXPECT_EQ(compiled.asn, direct.asn);
    EXPECT_EQ(compiled.isp, direct.isp);
  }
}

}  // namespace
}  // namespace ax
