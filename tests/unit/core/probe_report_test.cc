// ProbeReport: JSON round trip (bytes reproduced), strict parsing that names
// the bad field, and the quorum over two vantages' reports.
#include "ax/probe_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace ax {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// 2026-11-30T04:53:35.123Z
constexpr int64_t kObservedMs = 1'796'014'415'123;

ProbeNodeReport UpNode(std::string name) {
  ProbeNodeReport r;
  r.node = std::move(name);
  r.health = Health::kUp;
  r.up = true;
  r.latency_ms = 1.5;
  r.phases = {.connect_ms = 0.25,
              .tls_ms = std::nullopt,
              .first_byte_ms = 1.125,
              .total_ms = 1.375};
  r.load = NodeLoad{.bandwidth_mbps = 812.5, .connections = 1200};
  r.error_rate = 0.004;
  r.consecutive_successes = 7;
  r.transitions = 2;
  r.health_changed_at_ms = kObservedMs - 60'000;
  return r;
}

ProbeNodeReport DownNode(std::string name) {
  ProbeNodeReport r;
  r.node = std::move(name);
  r.health = Health::kDown;
  r.up = false;
  r.phases.connect_ms = 0.5;
  r.phases.total_ms = 2000;
  r.error = "timeout";
  r.error_detail = "no response within 2000 ms";
  r.consecutive_failures = 4;
  r.suppressed = true;
  r.flap_penalty = 2712.5;
  r.health_changed_at_ms = kObservedMs - 1000;
  return r;
}

ProbeReport Sample(std::string vantage = "pod-a") {
  ProbeReport report;
  report.name = ProbeReportName(vantage);
  report.vantage = std::move(vantage);
  report.observed_at_ms = kObservedMs;
  report.results = {UpNode("gz-01"), DownNode("sz-01")};
  return report;
}

std::vector<ManifestError> Errors(const json& object) {
  return ParseProbeReport(object, "report.json").errors;
}

std::string OnlyError(const json& object) {
  const auto errors = Errors(object);
  EXPECT_EQ(errors.size(), 1u);
  return errors.empty() ? "" : errors.front().ToString();
}

TEST(ProbeReportTest, JsonLayout) {
  const json doc = ProbeReportToJson(Sample());
  EXPECT_EQ(doc["apiVersion"], "gslb.ax.io/v1alpha1");
  EXPECT_EQ(doc["kind"], "ProbeReport");
  EXPECT_EQ(doc["metadata"]["name"], "pod-a");
  EXPECT_EQ(doc["spec"]["vantage"], "pod-a");
  EXPECT_EQ(doc["spec"]["observedAt"], "2026-11-30T04:53:35.123Z");
  const json& up = doc["spec"]["results"][0];
  EXPECT_EQ(up["node"], "gz-01");
  EXPECT_EQ(up["health"], "Up");
  EXPECT_EQ(up["up"], true);
  EXPECT_EQ(up["phases"], json::parse(R"({"connectMs": 0.25,
      "firstByteMs": 1.125, "totalMs": 1.375})"));
  EXPECT_EQ(up["load"]["bandwidthMbps"], 812.5);
  EXPECT_EQ(up["errorRate"], 0.004);
  EXPECT_FALSE(up.contains("error"));
  EXPECT_FALSE(up.contains("suppressed"));
  EXPECT_FALSE(up.contains("flapPenalty"));
  const json& down = doc["spec"]["results"][1];
  EXPECT_EQ(down["error"], "timeout");
  EXPECT_EQ(down["consecutiveFailures"], 4);
  EXPECT_EQ(down["suppressed"], true);
  EXPECT_EQ(down["flapPenalty"], 2712.5);
  EXPECT_EQ(down["healthChangedAt"], "2026-11-30T04:53:34.123Z");
  EXPECT_FALSE(down.contains("latencyMs"));
  // The compact text is the same document on one line.
  const std::string text = SerializeProbeReport(Sample());
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(json::parse(text), doc);
  EXPECT_EQ(text.rfind(R"({"apiVersion":)", 0), 0u);
}

TEST(ProbeReportTest, RoundTripReproducesBytes) {
  ProbeReport report = Sample();
  // Sub-microsecond digits are rounded away once, then stable.
  report.results[0].latency_ms = 1.23456789;
  const std::string once = SerializeProbeReport(report);
  const ParseProbeReportResult parsed = ParseProbeReportText(once);
  ASSERT_THAT(parsed.errors, IsEmpty()) << parsed.errors[0].ToString();
  ASSERT_TRUE(parsed.report);
  EXPECT_EQ(SerializeProbeReport(*parsed.report), once);
  const ProbeReport& back = *parsed.report;
  EXPECT_EQ(back.observed_at_ms, kObservedMs);
  ASSERT_EQ(back.results.size(), 2u);
  EXPECT_DOUBLE_EQ(*back.results[0].latency_ms, 1.235);
  EXPECT_EQ(back.results[0].health_changed_at_ms, kObservedMs - 60'000);
  EXPECT_FALSE(back.results[0].phases.tls_ms);
  EXPECT_EQ(back.results[1].error_detail, "no response within 2000 ms");
  EXPECT_TRUE(back.results[1].suppressed);
  EXPECT_DOUBLE_EQ(back.results[1].flap_penalty, 2712.5);
  EXPECT_FALSE(back.results[1].load);
  EXPECT_EQ(back.results[0].error_rate, 0.004);
  EXPECT_FALSE(back.results[1].error_rate);
}

TEST(ProbeReportTest, TheVantagesPlaceRoundTripsAndIsLeftOutWhenUnset) {
  EXPECT_FALSE(ProbeReportToJson(Sample())["spec"].contains("area"));
  ProbeReport report = Sample();
  report.identity = {
      .area = "cn-south", .isp = "unicom", .labels = {{"tier", "edge"}}};
  const json doc = ProbeReportToJson(report);
  EXPECT_EQ(doc["spec"]["area"], "cn-south");
  EXPECT_EQ(doc["spec"]["labels"], json({{"tier", "edge"}}));
  const ParseProbeReportResult parsed = ParseProbeReport(doc);
  ASSERT_TRUE(parsed.report);
  EXPECT_EQ(parsed.report->identity, report.identity);
  EXPECT_EQ(ToVantageVerdicts(*parsed.report).identity, report.identity);
}

TEST(ProbeReportTest, WhatTheReplicaServesRoundTrips) {
  EXPECT_FALSE(ProbeReportToJson(Sample())["spec"].contains("served"));
  ProbeReport report = Sample();
  report.served = ServedSnapshot{.version = 43,
                                 .content_hash = "9f2c",
                                 .loaded_at_ms = kObservedMs - 2'000};
  const json doc = ProbeReportToJson(report);
  EXPECT_EQ(doc["spec"]["served"],
            json({{"version", 43},
                  {"contentHash", "9f2c"},
                  {"loadedAt", "2026-11-30T04:53:33.123Z"}}));
  const ParseProbeReportResult parsed = ParseProbeReport(doc);
  ASSERT_THAT(parsed.errors, IsEmpty());
  EXPECT_EQ(parsed.report->served, report.served);
  EXPECT_EQ(SerializeProbeReport(*parsed.report), SerializeProbeReport(report));
}

TEST(ProbeReportTest, KubernetesExtrasAreAllowed) {
  json doc = ProbeReportToJson(Sample());
  doc["metadata"]["uid"] = "1234";
  doc["metadata"]["namespace"] = "gslb";
  doc["metadata"]["ownerReferences"] = json::array();
  doc["status"] = {{"conditions", json::array()}};
  const ParseProbeReportResult parsed = ParseProbeReport(doc);
  ASSERT_THAT(parsed.errors, IsEmpty());
  EXPECT_EQ(parsed.report->namespace_name, "gslb");
}

TEST(ProbeReportTest, TimesWithOffsetsAndWithoutFractions) {
  json doc = ProbeReportToJson(Sample());
  doc["spec"]["observedAt"] = "2026-11-30T12:53:35.5+08:00";
  const auto parsed = ParseProbeReport(doc);
  ASSERT_THAT(parsed.errors, IsEmpty());
  EXPECT_EQ(parsed.report->observed_at_ms, kObservedMs - 123 + 500);
  doc["spec"]["observedAt"] = "2026-11-30T04:53:35Z";
  EXPECT_EQ(ParseProbeReport(doc).report->observed_at_ms, kObservedMs - 123);
}

struct BadField {
  const char* name;
  const char* json_pointer;  // where to put `value`
  json value;
  const char* want;  // the whole error text
};

void PrintTo(const BadField& c, std::ostream* os) { *os << c.name; }

class BadFieldTest : public ::testing::TestWithParam<BadField> {};

TEST_P(BadFieldTest, NamesTheField) {
  const BadField& c = GetParam();
  json doc = ProbeReportToJson(Sample());
  doc[json::json_pointer(c.json_pointer)] = c.value;
  EXPECT_EQ(OnlyError(doc), c.want);
  EXPECT_FALSE(ParseProbeReport(doc).report);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadFieldTest,
    ::testing::Values(
        BadField{"UnknownHealth", "/spec/results/1/health", "Sideways",
                 "report.json: ProbeReport/pod-a: spec.results[1].health: must "
                 "be one of Unknown, Up, Down, got \"Sideways\""},
        BadField{"UpNotBool", "/spec/results/0/up", "yes",
                 "report.json: ProbeReport/pod-a: spec.results[0].up: must be "
                 "true or false, got \"yes\""},
        BadField{"NegativePhase", "/spec/results/0/phases/totalMs", -1,
                 "report.json: ProbeReport/pod-a: "
                 "spec.results[0].phases.totalMs: must be a number >= 0, got "
                 "-1"},
        BadField{"UnknownPhase", "/spec/results/0/phases/dnsMs", 1,
                 "report.json: ProbeReport/pod-a: "
                 "spec.results[0].phases.dnsMs: unknown field"},
        BadField{"UnknownResultField", "/spec/results/0/latency", 1,
                 "report.json: ProbeReport/pod-a: spec.results[0].latency: "
                 "unknown field"},
        BadField{"LoadNotNumber", "/spec/results/0/load/connections", "many",
                 "report.json: ProbeReport/pod-a: "
                 "spec.results[0].load.connections: must be a number >= 0, "
                 "got \"many\""},
        BadField{"ErrorRateAsPercent", "/spec/results/0/errorRate", 2.5,
                 "report.json: ProbeReport/pod-a: spec.results[0].errorRate: "
                 "must be a ratio from 0 to 1, got 2.5"},
        BadField{"LabelNotText", "/spec/labels", json({{"tier", 1}}),
                 "report.json: ProbeReport/pod-a: spec.labels.tier: must be "
                 "a string, got 1"},
        BadField{"BadTime", "/spec/observedAt", "yesterday",
                 "report.json: ProbeReport/pod-a: spec.observedAt: must be an "
                 "RFC 3339 time like 2026-12-01T00:00:00.000Z, got "
                 "\"yesterday\""},
        BadField{"NegativeCount", "/spec/results/1/consecutiveFailures", -4,
                 "report.json: ProbeReport/pod-a: "
                 "spec.results[1].consecutiveFailures: must be 0..4294967295, "
                 "got -4"},
        BadField{"DuplicateNode", "/spec/results/1/node", "gz-01",
                 "report.json: ProbeReport/pod-a: spec.results[1].node: "
                 "duplicate node \"gz-01\""},
        BadField{"WrongKind", "/kind", "Node",
                 "report.json: ProbeReport/pod-a: kind: must be ProbeReport, "
                 "got \"Node\""},
        BadField{"WrongVersion", "/apiVersion", "gslb.ax.io/v1",
                 "report.json: ProbeReport/pod-a: apiVersion: must be "
                 "gslb.ax.io/v1alpha1, got \"gslb.ax.io/v1\""},
        BadField{"UnknownSpecField", "/spec/vantagePoint", "x",
                 "report.json: ProbeReport/pod-a: spec.vantagePoint: unknown "
                 "field"},
        BadField{"ServedVersionZero", "/spec/served",
                 json({{"version", 0},
                       {"contentHash", "x"},
                       {"loadedAt", "2026-11-30T04:53:35Z"}}),
                 "report.json: ProbeReport/pod-a: spec.served.version: must "
                 "be 1..9223372036854775807, got 0"},
        BadField{"ServedWithoutHash", "/spec/served",
                 json({{"version", 3}, {"loadedAt", "2026-11-30T04:53:35Z"}}),
                 "report.json: ProbeReport/pod-a: spec.served.contentHash: is "
                 "required"},
        BadField{"ResultsNotList", "/spec/results", json::object(),
                 "report.json: ProbeReport/pod-a: spec.results: must be a "
                 "list, got a map"}),
    [](const auto& p) { return std::string(p.param.name); });

TEST(ProbeReportTest, MissingFieldsAreNamed) {
  json doc = ProbeReportToJson(Sample());
  doc["spec"].erase("vantage");
  doc["spec"]["results"][0].erase("health");
  const auto errors = Errors(doc);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "spec.vantage");
  EXPECT_EQ(errors[0].message, "is required");
  EXPECT_EQ(errors[1].field, "spec.results[0].health");

  doc = ProbeReportToJson(Sample());
  doc["spec"]["results"][0]["node"] = "GZ_01";
  ASSERT_EQ(Errors(doc).size(), 1u);
  EXPECT_EQ(Errors(doc)[0].field, "spec.results[0].node");
}

TEST(ProbeReportTest, NotJsonAndNotAMap) {
  EXPECT_EQ(ParseProbeReportText("{\"apiVersion\":", "r.json")
                .errors.at(0)
                .ToString(),
            "r.json: not valid JSON");
  EXPECT_THAT(ParseProbeReport(json::array()).errors.at(0).message,
              HasSubstr("must be a map"));
}

TEST(ProbeReportTest, ObjectNames) {
  EXPECT_EQ(ProbeReportName("pod-a"), "pod-a");
  EXPECT_EQ(ProbeReportName("Edge_POD.1"), "edge-pod.1");
  EXPECT_EQ(ProbeReportName("--x--"), "x");
  EXPECT_EQ(ProbeReportName("__"), "vantage");
}

TEST(ProbeReportTest, QuorumOverTwoReports) {
  // Vantage a: gz Up, sz Down. Vantage b: gz Up, sz Up. Two votes split on
  // sz: fail-open keeps it Up; gz is Up on both.
  ProbeReport a = Sample("pod-a");
  ProbeReport b = Sample("pod-b");
  b.results[1] = UpNode("sz-01");
  b.results[1].latency_ms = 3.5;
  const std::string text_a = SerializeProbeReport(a);
  const std::string text_b = SerializeProbeReport(b);
  std::vector<VantageVerdicts> verdicts;
  for (const std::string* text : {&text_a, &text_b}) {
    const auto parsed = ParseProbeReportText(*text);
    ASSERT_TRUE(parsed.report);
    verdicts.push_back(ToVantageVerdicts(*parsed.report));
  }
  EXPECT_EQ(verdicts[0].vantage, "pod-a");
  EXPECT_EQ(verdicts[0].observed_at_ms, kObservedMs);
  EXPECT_EQ(verdicts[0].nodes.at("sz-01").health, Health::kDown);
  EXPECT_EQ(verdicts[0].nodes.at("sz-01").health_changed_at_ms,
            kObservedMs - 1000);
  ASSERT_TRUE(verdicts[0].nodes.at("gz-01").load);
  EXPECT_EQ(verdicts[0].nodes.at("gz-01").error_rate, 0.004);

  const QuorumResult q =
      DecideQuorum(verdicts, kObservedMs + 1000, QuorumPolicy{});
  EXPECT_EQ(q.nodes.at("gz-01").health, Health::kUp);
  EXPECT_EQ(q.nodes.at("gz-01").up_votes, 2u);
  EXPECT_EQ(q.nodes.at("sz-01").health, Health::kUp);
  EXPECT_EQ(q.nodes.at("sz-01").down_votes, 1u);
  EXPECT_DOUBLE_EQ(*q.nodes.at("sz-01").latency_ms, 3.5);

  // Both see sz down: it is down. Report a goes stale later: ignored.
  b.results[1] = DownNode("sz-01");
  verdicts[1] = ToVantageVerdicts(b);
  EXPECT_EQ(DecideQuorum(verdicts, kObservedMs + 1000, QuorumPolicy{})
                .nodes.at("sz-01")
                .health,
            Health::kDown);
  verdicts[0].observed_at_ms = kObservedMs - 60'000;
  const QuorumResult later =
      DecideQuorum(verdicts, kObservedMs + 1000, QuorumPolicy{});
  EXPECT_THAT(later.stale_vantages, ::testing::ElementsAre("pod-a"));
}

}  // namespace
}  // namespace ax
