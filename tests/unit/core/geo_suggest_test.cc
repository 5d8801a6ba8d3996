// SuggestGeoOverrides: a prefix whose clients are always fastest on another
// Region's node yields exactly that proposal; noise below each threshold
// (samples, margin, consistency over time) yields none; a prefix already
// served by its best node yields none; the same samples shipped as
// MeasurementReports yield the same proposal. Measurements come from a
// seeded RNG.
#include "ax/geo_suggest.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace ax {
namespace {

constexpr int64_t kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z
constexpr int64_t kNow = kStart + 86400;

Region R(std::string name, std::string isp, std::vector<std::string> nodes) {
  Region r;
  r.meta.name = std::move(name);
  r.isp = std::move(isp);
  r.nodes = std::move(nodes);
  return r;
}

// Mobile in the south and the north, and a telecom region sharing gz-01.
const std::vector<Region>& Regions() {
  static const std::vector<Region> regions = {
      R("north-mobile", "mobile", {"bj-01", "bj-02"}),
      R("south-mobile", "mobile", {"gz-02", "gz-01"}),
      R("south-telecom", "telecom", {"gz-01"}),
  };
  return regions;
}

// The database puts every prefix in the north.
std::string North(const IpPrefix&) { return "north-mobile"; }

class Log {
 public:
  // `n` samples spread over a day from clients of `prefix24` (a.b.c) to
  // `node`, around `ms` with +-20% jitter.
  void Add(const std::string& prefix24, const std::string& node, double ms,
           int n, int64_t from = kStart, int64_t span = 86400) {
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    std::uniform_int_distribution<int> host(1, 254);
    std::uniform_int_distribution<int64_t> at(0, span - 1);
    for (int i = 0; i < n; ++i) {
      Measurement m;
      m.client = *ParseIp(prefix24 + "." + std::to_string(host(rng_)));
      m.node = node;
      m.ms = ms * jitter(rng_);
      m.time = from + at(rng_);
      samples.push_back(m);
    }
  }
  std::vector<Measurement> samples;

 private:
  std::mt19937_64 rng_{16};
};

Suggestions Suggest(const Log& log) {
  return SuggestGeoOverrides(AggregateMeasurements(log.samples, {}), Regions(),
                             &North, kNow);
}

TEST(GeoSuggestTest, AlwaysFasterElsewhereYieldsExactlyThatProposal) {
  Log log;
  // 120.230.7.0/24: the database says north, gz-01 is three times faster.
  log.Add("120.230.7", "gz-01", 20, 200);
  log.Add("120.230.7", "bj-01", 60, 200);
  // Its neighbour is served well where the database puts it.
  log.Add("120.230.8", "gz-01", 60, 200);
  log.Add("120.230.8", "bj-01", 20, 200);
  const Suggestions s = Suggest(log);
  ASSERT_EQ(s.proposals.size(), 1u);
  const GeoOverride& o = s.proposals[0];
  EXPECT_EQ(o.meta.name, "geo-120-230-7-0-24");
  ASSERT_EQ(o.cidrs.size(), 1u);
  EXPECT_EQ(FormatPrefix(o.cidrs[0]), "120.230.7.0/24");
  // gz-01 serves south-mobile and south-telecom: the carrier is kept.
  EXPECT_EQ(o.region, "south-mobile");
  EXPECT_FALSE(o.approved);
  EXPECT_EQ(o.expires_at, kNow + 14 * 86400);
  ASSERT_TRUE(o.evidence);
  EXPECT_EQ(o.evidence->samples, 400u);
  EXPECT_EQ(o.evidence->best_node, "gz-01");
  EXPECT_NEAR(o.evidence->best_ms, 20, 2);
  EXPECT_EQ(o.evidence->db_region, "north-mobile");
  EXPECT_EQ(o.evidence->db_node, "bj-01");
  EXPECT_NEAR(o.evidence->db_ms, 60, 6);
  EXPECT_GE(o.evidence->from, kStart);
  EXPECT_LT(o.evidence->to, kStart + 86400);
  EXPECT_NE(o.reason.find("faster in 4 of 4 time windows"), std::string::npos)
      << o.reason;

  ASSERT_EQ(s.findings.size(), 2u);
  EXPECT_EQ(s.findings[1].verdict, SuggestVerdict::kAgrees);
}

TEST(GeoSuggestTest, NoiseBelowTheThresholdsYieldsNone) {
  Log log;
  // Too few samples from the faster node.
  log.Add("10.0.1", "gz-01", 20, 19);
  log.Add("10.0.1", "bj-01", 60, 200);
  // Faster, but by less than 20 ms.
  log.Add("10.0.2", "gz-01", 45, 200);
  log.Add("10.0.2", "bj-01", 60, 200);
  // Faster by 25 ms, but under a quarter of 120 ms.
  log.Add("10.0.3", "gz-01", 95, 200);
  log.Add("10.0.3", "bj-01", 120, 200);
  // Much faster in the first half of the day only: 2 of 4 windows.
  log.Add("10.0.4", "gz-01", 10, 200, kStart, 43200);
  log.Add("10.0.4", "bj-01", 60, 200, kStart, 43200);
  log.Add("10.0.4", "gz-01", 60, 100, kStart + 43200, 43200);
  log.Add("10.0.4", "bj-01", 55, 100, kStart + 43200, 43200);
  // The database's region was never measured: nothing to compare against.
  log.Add("10.0.5", "gz-01", 20, 200);
  const Suggestions s = Suggest(log);
  EXPECT_TRUE(s.proposals.empty());
  std::vector<std::string> verdicts;
  for (const PrefixFinding& f : s.findings) {
    verdicts.push_back(FormatPrefix(f.prefix) + " " +
                       SuggestVerdictName(f.verdict));
  }
  EXPECT_EQ(verdicts,
            (std::vector<std::string>{
                "10.0.1.0/24 agrees", "10.0.2.0/24 small-margin",
                "10.0.3.0/24 small-margin", "10.0.4.0/24 inconsistent",
                "10.0.5.0/24 region-unmeasured"}));
}

TEST(GeoSuggestTest, IPv6PrefixesAndUnclassifiedClients) {
  Log log;
  for (int i = 0; i < 100; ++i) {
    for (auto [node, ms] : {std::pair{"gz-02", 15.0}, {"bj-02", 70.0}}) {
      Measurement m;
      m.client = *ParseIp("2001:db8:7:" + std::to_string(i) + "::1");
      m.node = node;
      m.ms = ms;
      m.time = kStart + i * 600;
      log.samples.push_back(m);
    }
  }
  Suggestions s = Suggest(log);
  ASSERT_EQ(s.proposals.size(), 1u);
  EXPECT_EQ(s.proposals[0].meta.name, "geo-2001-db8-7-48");
  EXPECT_EQ(s.proposals[0].region, "south-mobile");

  s = SuggestGeoOverrides(
      AggregateMeasurements(log.samples, {}), Regions(),
      [](const IpPrefix&) { return std::string(); }, kNow);
  EXPECT_TRUE(s.proposals.empty());
  EXPECT_EQ(s.findings[0].verdict, SuggestVerdict::kUnclassified);
}

// Each node's log shipped in six-hour windows: 2 nodes x 4 windows.
std::vector<MeasurementReport> ShipEverySixHours(const Log& log) {
  std::map<std::string, std::vector<Measurement>> by_node;
  for (const Measurement& m : log.samples) by_node[m.node].push_back(m);
  std::vector<MeasurementReport> reports;
  for (const auto& [node, samples] : by_node) {
    for (MeasurementReport& r :
         ReportMeasurements(samples, {.name = node,
                                     .source = node + " access log",
                                     .window_s = 21600})) {
      reports.push_back(std::move(r));
    }
  }
  return reports;
}

TEST(GeoSuggestTest, ReportsOfTheSamplesYieldTheSameProposal) {
  Log log;
  log.Add("120.230.7", "gz-01", 20, 200);
  log.Add("120.230.7", "bj-01", 60, 200);
  log.Add("120.230.8", "gz-01", 60, 200);
  log.Add("120.230.8", "bj-01", 20, 200);
  log.Add("10.0.2", "gz-01", 45, 200);  // small margin either way
  log.Add("10.0.2", "bj-01", 60, 200);
  const Suggestions raw = Suggest(log);
  const std::vector<MeasurementReport> reports = ShipEverySixHours(log);
  ASSERT_EQ(reports.size(), 8u);
  const Suggestions shipped = SuggestGeoOverrides(
      AggregateMeasurements({}, reports), Regions(), &North, kNow);

  ASSERT_EQ(raw.proposals.size(), 1u);
  ASSERT_EQ(shipped.proposals.size(), 1u);
  const GeoOverride& a = raw.proposals[0];
  const GeoOverride& b = shipped.proposals[0];
  EXPECT_EQ(b.meta.name, a.meta.name);
  EXPECT_EQ(b.cidrs, a.cidrs);
  EXPECT_EQ(b.region, a.region);
  EXPECT_EQ(b.evidence->samples, a.evidence->samples);
  EXPECT_EQ(b.evidence->db_node, a.evidence->db_node);
  // Both read the same histograms: the medians match to the 0.1 ms shown.
  EXPECT_DOUBLE_EQ(b.evidence->best_ms, a.evidence->best_ms);
  // The reports' windows span the whole day, the samples a little less.
  EXPECT_EQ(b.evidence->from, kStart);
  EXPECT_EQ(b.evidence->to, kStart + 86400 - 1);
  EXPECT_NE(b.reason.find("faster in 4 of 4 time windows"), std::string::npos)
      << b.reason;
  ASSERT_EQ(shipped.findings.size(), raw.findings.size());
  for (size_t i = 0; i < raw.findings.size(); ++i) {
    EXPECT_EQ(shipped.findings[i].verdict, raw.findings[i].verdict)
        << FormatPrefix(raw.findings[i].prefix);
  }
}

TEST(GeoSuggestTest, AReportsShorterPrefixStaysWhole) {
  MeasurementReport r;
  r.from_ms = kStart * 1000;
  r.to_ms = r.from_ms + 3600'000;
  for (const char* prefix : {"10.1.0.0/16", "10.2.3.0/24", "10.2.3.128/25"}) {
    MeasuredPrefix& p = r.prefixes.emplace_back();
    p.prefix = *ParsePrefix(prefix);
    p.nodes.push_back({"gz-01", {}});
    p.nodes.back().latency.Add(10, 5);
  }
  const auto grouped = AggregateMeasurements({}, {r});
  ASSERT_EQ(grouped.size(), 2u);
  EXPECT_EQ(FormatPrefix(grouped[0].prefix), "10.1.0.0/16");
  EXPECT_EQ(FormatPrefix(grouped[1].prefix), "10.2.3.0/24");
  uint64_t merged = 0;
  for (const auto& window : grouped[1].windows) {
    for (const auto& [node, latency] : window) merged += latency.count();
  }
  EXPECT_EQ(merged, 10u);  // the /25 joined its /24
}

}  // namespace
}  // namespace ax
