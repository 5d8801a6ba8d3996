// The vantage's ProbeReport from the engine's state: one result per targeted
// node (Unknown until probed, a deleted node left out at once) and when the
// first full round is done.
#include "report/report_builder.h"

#include <gtest/gtest.h>

namespace ax::probe {
namespace {

NodeProbeState Probed(Health health, bool last_ok) {
  NodeProbeState s;
  s.status.health = health;
  s.status.latency_ms = 2.5;
  s.status.health_changed_at_ms = 1000;
  ProbeOutcome last;
  last.phases = {.connect_ms = 0.5, .first_byte_ms = 2, .total_ms = 2.25};
  if (!last_ok) {
    last.error = ProbeError::kStatus;
    last.detail = "unexpected status 500";
    last.http_status = 500;
    s.consecutive_failures = 2;
  } else {
    s.consecutive_successes = 4;
  }
  s.last = last;
  s.transitions = 1;
  return s;
}

TEST(ReportBuilderTest, OneResultPerTargetedNode) {
  const std::map<std::string, NodeProbeState> states = {
      {"a", Probed(Health::kUp, true)},
      {"b", Probed(Health::kUp, false)},
      {"gone", Probed(Health::kDown, false)},  // deleted, engine not told yet
  };
  const ProbeReport r =
      BuildReport({"a", "b", "new"}, states, "Pod_A", 1'700'000'000'000);
  EXPECT_EQ(r.name, "pod-a");
  EXPECT_EQ(r.vantage, "Pod_A");
  EXPECT_EQ(r.observed_at_ms, 1'700'000'000'000);
  ASSERT_EQ(r.results.size(), 3u);
  const ProbeNodeReport& a = r.results[0];
  EXPECT_EQ(a.node, "a");
  EXPECT_EQ(a.health, Health::kUp);
  EXPECT_TRUE(a.up);
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(*a.phases.total_ms, 2.25);
  EXPECT_FALSE(a.phases.tls_ms);
  EXPECT_EQ(*a.latency_ms, 2.5);
  EXPECT_EQ(a.consecutive_successes, 4u);
  EXPECT_EQ(a.health_changed_at_ms, 1000);
  const ProbeNodeReport& b = r.results[1];
  EXPECT_EQ(b.health, Health::kUp);  // one failure is not Down yet
  EXPECT_FALSE(b.up);
  EXPECT_EQ(b.error, "status");
  EXPECT_EQ(b.error_detail, "unexpected status 500");
  EXPECT_EQ(b.consecutive_failures, 2u);
  const ProbeNodeReport& fresh = r.results[2];
  EXPECT_EQ(fresh.node, "new");
  EXPECT_EQ(fresh.health, Health::kUnknown);
  EXPECT_FALSE(fresh.up);
  EXPECT_FALSE(fresh.phases.total_ms);
  // What the sidecar writes parses back under the strict parser.
  const auto parsed = ParseProbeReportText(SerializeProbeReport(r));
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors[0].ToString();
}

TEST(ReportBuilderTest, FirstRoundNeedsAVerdictForEveryNode) {
  std::map<std::string, NodeProbeState> states = {
      {"a", Probed(Health::kUp, true)}};
  EXPECT_TRUE(FirstRoundDone({}, states));
  EXPECT_TRUE(FirstRoundDone({"a"}, states));
  EXPECT_FALSE(FirstRoundDone({"a", "b"}, states));
  states["b"] = NodeProbeState{};  // applied, not probed yet
  EXPECT_FALSE(FirstRoundDone({"a", "b"}, states));
  states["b"] = Probed(Health::kDown, false);
  EXPECT_TRUE(FirstRoundDone({"a", "b"}, states));
}

}  // namespace
}  // namespace ax::probe
