// MeasurementReport: a shipper's samples grouped per prefix and node (and
// split when they overflow one object), the JSON round trip reproducing the
// bytes, and strict parsing that names the bad field.
#include "ax/measurement_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace ax {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr int64_t kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z

Measurement M(const char* client, const char* node, double ms, int64_t at) {
  return {*ParseIp(client), node, ms, kStart + at};
}

std::vector<MeasurementReport> Sample(int64_t window_s = 0) {
  return ReportMeasurements(
      {M("120.230.7.9", "gz-01", 20, 30), M("120.230.7.200", "gz-01", 22, 10),
       M("120.230.7.5", "bj-01", 61.5, 3599),
       M("2001:db8:7:1::1", "gz-01", 15, 70)},
      {.name = "gz-01-20261201t00",
       .source = "gz-01 access log",
       .window_s = window_s});
}

TEST(MeasurementReportTest, GroupsPerPrefixAndNodeOverTheSamplesSpan) {
  const auto reports = Sample();
  ASSERT_EQ(reports.size(), 1u);
  const MeasurementReport& r = reports[0];
  EXPECT_EQ(r.name, "gz-01-20261201t00");
  EXPECT_EQ(r.source, "gz-01 access log");
  EXPECT_EQ(r.from_ms, (kStart + 10) * 1000);
  EXPECT_EQ(r.to_ms, (kStart + 3599) * 1000);
  ASSERT_EQ(r.prefixes.size(), 2u);
  EXPECT_EQ(FormatPrefix(r.prefixes[0].prefix), "120.230.7.0/24");
  ASSERT_EQ(r.prefixes[0].nodes.size(), 2u);
  EXPECT_EQ(r.prefixes[0].nodes[0].node, "bj-01");
  EXPECT_EQ(r.prefixes[0].nodes[1].node, "gz-01");
  EXPECT_EQ(r.prefixes[0].nodes[1].latency.count(), 2u);
  EXPECT_EQ(FormatPrefix(r.prefixes[1].prefix), "2001:db8:7::/48");
  EXPECT_TRUE(ReportMeasurements({}, {.name = "x"}).empty());
}

TEST(MeasurementReportTest, WindowsAreAlignedToTheEpochAndNamedByTheirStart) {
  // 30 minutes: the samples at 0:00:10, 0:00:30 and 0:01:10 share the first
  // window, the one at 0:59:59 is in the second.
  const auto reports = Sample(1800);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].name, "gz-01-20261201t00-20261201t0000");
  EXPECT_EQ(reports[0].from_ms, kStart * 1000);
  EXPECT_EQ(reports[0].to_ms, (kStart + 1799) * 1000);
  EXPECT_EQ(reports[0].prefixes.size(), 2u);
  EXPECT_EQ(reports[1].name, "gz-01-20261201t00-20261201t0030");
  EXPECT_EQ(reports[1].from_ms, (kStart + 1800) * 1000);
  ASSERT_EQ(reports[1].prefixes.size(), 1u);
  EXPECT_EQ(reports[1].prefixes[0].nodes[0].node, "bj-01");
  // Before the epoch too (a clock gone wrong must not crash the cut).
  const auto early = ReportMeasurements(
      {{*ParseIp("10.0.0.1"), "gz-01", 5, -10}}, {.name = "x", .window_s = 60});
  ASSERT_EQ(early.size(), 1u);
  EXPECT_EQ(early[0].from_ms, -60'000);
}

TEST(MeasurementReportTest, SplitsWhatOverflowsOneObject) {
  std::vector<Measurement> samples;
  for (size_t i = 0; i <= kMeasurementReportMaxRows; ++i) {
    const std::string client =
        "10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".1";
    samples.push_back({*ParseIp(client), "gz-01", 10, kStart});
  }
  const auto parts =
      ReportMeasurements(samples, {.name = "big", .window_s = 0});
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "big-1");
  EXPECT_EQ(parts[1].name, "big-2");
  // Even one-bucket histograms reach the byte budget before the row limit.
  EXPECT_LT(parts[0].prefixes.size(), kMeasurementReportMaxRows);
  EXPECT_EQ(parts[0].prefixes.size() + parts[1].prefixes.size(),
            kMeasurementReportMaxRows + 1);
  for (const auto& part : parts) {
    const auto parsed = ParseMeasurementReport(MeasurementReportToJson(part));
    EXPECT_TRUE(parsed.errors.empty()) << parsed.errors[0].ToString();
  }
}

TEST(MeasurementReportTest, SplitsByBytesAndByNodesPerPrefix) {
  // Timings spread over 1..1000 ms: ~160 buckets per histogram, so bytes,
  // not rows, decide where a part ends.
  std::vector<Measurement> samples;
  for (int i = 0; i < 3000; ++i) {
    const std::string client =
        "10." + std::to_string(i / 256) + "." + std::to_string(i % 256) + ".1";
    samples.push_back({*ParseIp(client), "gz-01", 1, kStart});
    samples.push_back({*ParseIp(client), "gz-01", 1000, kStart});
  }
  // One prefix measured at 150 nodes.
  for (int n = 0; n < 150; ++n) {
    samples.push_back(
        {*ParseIp("10.200.0.1"), "node-" + std::to_string(n), 10, kStart});
  }
  const auto parts =
      ReportMeasurements(samples, {.name = "wide", .window_s = 0});
  ASSERT_GE(parts.size(), 3u);
  size_t rows = 0;
  size_t wide_prefix_nodes = 0;
  for (const auto& part : parts) {
    const std::string text = SerializeMeasurementReport(part);
    EXPECT_LT(text.size(), 600u * 1024) << part.name;
    const auto parsed = ParseMeasurementReportText(text);
    EXPECT_TRUE(parsed.errors.empty()) << parsed.errors[0].ToString();
    for (const auto& p : part.prefixes) {
      rows += p.nodes.size();
      if (FormatPrefix(p.prefix) == "10.200.0.0/24") {
        wide_prefix_nodes += p.nodes.size();
      }
    }
  }
  EXPECT_EQ(rows, 3000u + 150u);
  EXPECT_EQ(wide_prefix_nodes, 150u);
}

TEST(MeasurementReportTest, RoundTripReproducesTheBytes) {
  MeasurementReport r = Sample()[0];
  r.namespace_name = "ax-system";
  const std::string text = SerializeMeasurementReport(r);
  const auto parsed = ParseMeasurementReportText(text, "r.json");
  ASSERT_TRUE(parsed.report) << parsed.errors[0].ToString();
  EXPECT_EQ(SerializeMeasurementReport(*parsed.report), text);
  EXPECT_EQ(parsed.report->prefixes[0].nodes[1].latency,
            r.prefixes[0].nodes[1].latency);
  const json j = json::parse(text);
  EXPECT_EQ(j["kind"], "MeasurementReport");
  EXPECT_EQ(j["spec"]["from"], "2026-12-01T00:00:10.000Z");
  EXPECT_TRUE(j["spec"]["prefixes"][0]["nodes"][0]["counts"].is_array());
}

// The error messages for one mutation of a good report.
std::vector<std::string> Errors(const std::function<void(json&)>& mutate) {
  json j = MeasurementReportToJson(Sample()[0]);
  mutate(j);
  const auto parsed = ParseMeasurementReport(j, "r.yaml");
  EXPECT_FALSE(parsed.report);
  std::vector<std::string> out;
  for (const auto& e : parsed.errors) out.push_back(e.ToString());
  return out;
}

TEST(MeasurementReportTest, StrictParsingNamesTheField) {
  auto first = [](const std::function<void(json&)>& mutate) {
    const auto errors = Errors(mutate);
    return errors.empty() ? std::string("(none)") : errors[0];
  };
  auto node0 = [](json& j) -> json& {
    return j["spec"]["prefixes"][0]["nodes"][0];
  };
  EXPECT_THAT(first([](json& j) { j["kind"] = "ProbeReport"; }),
              HasSubstr("kind: must be MeasurementReport"));
  EXPECT_THAT(first([](json& j) { j["spec"]["to"] = "2026-11-30T00:00:00Z"; }),
              HasSubstr("spec.to: must not be before from"));
  EXPECT_THAT(first([](json& j) { j["spec"]["from"] = "yesterday"; }),
              HasSubstr("spec.from: must be an RFC 3339 time"));
  EXPECT_THAT(first([](json& j) {
                j["spec"]["prefixes"][0]["prefix"] = "120.230.7.9/24";
              }),
              HasSubstr("spec.prefixes[0].prefix: \"120.230.7.9/24\" is not a "
                        "CIDR prefix"));
  EXPECT_THAT(first([](json& j) {
                j["spec"]["prefixes"][1]["prefix"] = "120.230.7.0/24";
              }),
              HasSubstr("spec.prefixes[1].prefix: duplicate prefix "
                        "120.230.7.0/24"));
  EXPECT_THAT(first([&](json& j) { node0(j)["node"] = "gz-01"; }),
              HasSubstr("spec.prefixes[0].nodes[1].node: duplicate node"));
  EXPECT_THAT(first([&](json& j) {
                node0(j)["counts"] = {0, 0};
              }),
              HasSubstr("spec.prefixes[0].nodes[0].counts: must hold at least "
                        "one sample"));
  EXPECT_THAT(first([&](json& j) {
                node0(j)["first"] = 399;
                node0(j)["counts"] = {1, 1};
              }),
              HasSubstr("first + the number of counts must be at most 400"));
  EXPECT_THAT(first([&](json& j) {
                node0(j)["counts"] = {1, -2};
              }),
              HasSubstr("spec.prefixes[0].nodes[0].counts[1]: must be"));
  EXPECT_THAT(first([&](json& j) { node0(j)["latency"] = 3; }),
              HasSubstr("spec.prefixes[0].nodes[0].latency"));
  EXPECT_THAT(first([&](json& j) {
                json& nodes = j["spec"]["prefixes"][0]["nodes"];
                const json row = nodes[0];
                for (int i = 0; nodes.size() <= 100; ++i) {
                  nodes.push_back(row);
                  nodes.back()["node"] = "n-" + std::to_string(i);
                }
              }),
              HasSubstr("spec.prefixes[0].nodes: holds 101 nodes, at most "
                        "100 per prefix"));
  EXPECT_THAT(first([](json& j) { j["spec"].erase("prefixes"); }),
              HasSubstr("spec.prefixes: is required"));
  EXPECT_THAT(first([](json& j) { j["metadata"]["name"] = "Bad_Name"; }),
              HasSubstr("metadata.name"));
  // Kubernetes' own metadata and a status are not errors.
  EXPECT_EQ(first([](json& j) {
              j["metadata"]["resourceVersion"] = "7";
              j["status"] = json::object();
              j["extra"] = 1;
            }),
            "r.yaml: MeasurementReport/gz-01-20261201t00: extra: unknown "
            "field");
  EXPECT_THAT(ParseMeasurementReportText("{", "r.json").errors[0].ToString(),
              HasSubstr("not valid JSON"));
}

TEST(MeasurementReportTest, TooManyRowsIsAnError) {
  json j = MeasurementReportToJson(Sample()[0]);
  json& prefixes = j["spec"]["prefixes"];
  const json row = prefixes[0]["nodes"][0];
  for (size_t i = 0; prefixes.size() <= kMeasurementReportMaxRows; ++i) {
    prefixes.push_back({{"prefix", "10." + std::to_string(i / 256) + "." +
                                       std::to_string(i % 256) + ".0/24"},
                        {"nodes", json::array({row})}});
  }
  const auto parsed = ParseMeasurementReport(j);
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_THAT(parsed.errors[0].ToString(),
              HasSubstr("at most 8000 fit one object"));
}

}  // namespace
}  // namespace ax
