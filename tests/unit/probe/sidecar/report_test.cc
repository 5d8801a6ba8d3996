// The sidecar's pure parts: the report from engine states (deleted nodes
// leave at once, unapplied ones are Unknown), readiness after the first full
// round, the write schedule (health change at once, else the heartbeat, on an
// injected clock) and the atomic file output.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sidecar/report_builder.h"
#include "sidecar/report_output.h"
#include "sidecar/report_schedule.h"

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

TEST(ReportScheduleTest, HealthChangeAtOnceElseHeartbeat) {
  ReportSchedule s(10'000);
  const HealthKey up = {{"a", Health::kUp}};
  EXPECT_FALSE(s.NextHeartbeatMs());
  EXPECT_TRUE(s.Due(up, 0));  // nothing written yet
  s.Written(up, 5'000);
  EXPECT_EQ(*s.NextHeartbeatMs(), 15'000);
  EXPECT_FALSE(s.Due(up, 5'001));
  EXPECT_FALSE(s.Due(up, 14'999));
  EXPECT_TRUE(s.Due(up, 15'000));  // heartbeat, nothing changed

  const HealthKey down = {{"a", Health::kDown}};
  EXPECT_TRUE(s.Due(down, 5'001));  // a verdict changed: at once
  s.Written(down, 5'001);
  EXPECT_FALSE(s.Due(down, 6'000));
  EXPECT_EQ(*s.NextHeartbeatMs(), 15'001);

  // A node came or went: at once too.
  EXPECT_TRUE(s.Due({}, 6'000));
  EXPECT_TRUE(s.Due({{"a", Health::kDown}, {"b", Health::kUnknown}}, 6'000));
}

// A fresh directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "ax-probe-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReportOutputTest, ReplacesTheFileAtomically) {
  TempDir dir;
  const auto file = dir.path() / "report.json";
  const ReportOutput out(file.string());
  std::string error;
  ASSERT_TRUE(out.Write(R"({"n":1})", &error)) << error;
  EXPECT_EQ(ReadAll(file), "{\"n\":1}\n");
  ASSERT_TRUE(out.Write(R"({"n":2})", &error)) << error;
  EXPECT_EQ(ReadAll(file), "{\"n\":2}\n");
  // No temp file is left behind.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(dir.path())) {
    ++entries;
  }
  EXPECT_EQ(entries, 1u);

  const ReportOutput broken((dir.path() / "missing" / "r.json").string());
  EXPECT_FALSE(broken.Write("{}", &error));
  EXPECT_NE(error.find("missing/r.json"), std::string::npos) << error;
  EXPECT_FALSE(ReportOutput("").enabled());
}

}  // namespace
}  // namespace ax::probe
