// Vantage groups through ComputePlan: reports placed in an area make that
// area's group; the summary (the operator's metrics) says how many fresh
// vantages each group has and which nodes a group sees Down against the
// global verdict; group latencies jitter without republishing; a report
// stamped in the future (a forged one that would stay fresh) is ignored,
// counted and says why in its status.
#include <gtest/gtest.h>

#include "ax/controller/plan.h"
#include "fake_cluster.h"

namespace ax::controller {
namespace {

using ::ax::testing::ConditionOf;
using ::ax::testing::FakeCluster;
using ::ax::testing::kT0;
using ::ax::testing::NodeResult;
using ::ax::testing::ReportObject;
using ::ax::testing::SmallCluster;
using nlohmann::json;

// Two vantages in area "south" (SmallCluster's Region south has isp any) and
// two in "north"; south sees gz-01 as `south_gz01` at `south_ms`.
std::vector<json> Reports(int64_t observed_at_ms, Health south_gz01,
                          double south_ms = 20) {
  std::vector<json> out;
  for (const char* area : {"south", "north"}) {
    for (const char* n : {"-a", "-b"}) {
      const bool south = std::string(area) == "south";
      std::vector<ProbeNodeReport> results;
      for (const char* node : {"bj-01", "gz-01", "gz-02"}) {
        const Health h =
            south && std::string(node) == "gz-01" ? south_gz01 : Health::kUp;
        results.push_back(
            NodeResult(node, h, south ? south_ms : 30, kT0 - 600'000));
      }
      json report = ReportObject(area + std::string(n), observed_at_ms,
                                 std::move(results));
      report["spec"]["area"] = area;
      out.push_back(std::move(report));
    }
  }
  return out;
}

TEST(VantageGroupPlanTest, TheSummaryNamesGroupsAndTheirDownNodes) {
  FakeCluster c = SmallCluster();
  c.ReplaceReports(Reports(kT0 - 1000, Health::kDown));
  const Plan plan = c.Step(kT0);
  ASSERT_TRUE(plan.route_table);
  // Two up, two down globally: a tie keeps gz-01 Up (fail-open).
  EXPECT_EQ(
      plan.summary.group_vantages,
      (std::map<std::string, size_t>{{"north-any", 2}, {"south-any", 2}}));
  EXPECT_EQ(plan.summary.group_down,
            (std::map<std::pair<std::string, std::string>, Health>{
                {{"south-any", "gz-01"}, Health::kUp}}));

  // The south vantages go stale: their group has no vantage left.
  c.ReplaceReports(Reports(kT0 - 1000, Health::kDown));
  const Plan later = c.Step(kT0 + 60'000);
  EXPECT_EQ(later.summary.group_vantages.at("south-any"), 0u);
  EXPECT_TRUE(later.summary.group_down.empty());
}

// The Region's status says whose verdicts its answers use and counts its
// healthy nodes as its group sees them; with the group's vantages gone stale,
// Measured turns False (UsingGlobal) and the global verdicts count again.
TEST(VantageGroupPlanTest, TheRegionStatusSaysWhoMeasuresItsClients) {
  FakeCluster c = SmallCluster();
  c.ReplaceReports(Reports(kT0 - 1000, Health::kDown));
  c.Step(kT0);
  const json& south = c.Status("Region", "south");
  EXPECT_EQ(
      south["vantageGroup"],
      json({{"name", "south-any"}, {"vantages", 2}, {"usingGlobal", false}}));
  EXPECT_EQ(south["healthyNodes"], 1) << "gz-01 is Down from south's vantages";
  const json measured = ConditionOf(south, "Measured");
  EXPECT_EQ(measured["status"], "True");
  EXPECT_EQ(measured["reason"], "VantageGroup");
  EXPECT_EQ(measured["message"], "measured by 2 vantages of group south-any");
  EXPECT_EQ(c.Status("Region", "north")["healthyNodes"], 1);

  // South's reports go stale; north's stay fresh and see gz-01 Up.
  std::vector<json> reports = Reports(kT0 - 1000, Health::kDown);
  const std::vector<json> fresh = Reports(kT0 + 59'000, Health::kDown);
  std::copy(fresh.begin() + 2, fresh.end(), reports.begin() + 2);
  c.ReplaceReports(std::move(reports));
  c.Step(kT0 + 60'000);
  const json& stale = c.Status("Region", "south");
  EXPECT_EQ(stale["vantageGroup"]["usingGlobal"], true);
  EXPECT_EQ(stale["healthyNodes"], 2) << "the global verdicts: gz-01 Up";
  EXPECT_EQ(ConditionOf(stale, "Measured")["status"], "False");
  EXPECT_EQ(ConditionOf(stale, "Measured")["reason"], "UsingGlobal");
}

TEST(VantageGroupPlanTest, GroupLatencyJitterPublishesNothingNew) {
  FakeCluster c = SmallCluster();
  c.ReplaceReports(Reports(kT0 - 1000, Health::kUp, 20));
  ASSERT_TRUE(c.Step(kT0).route_table);
  int64_t t = kT0;
  for (double latency : {20.4, 19.2, 22.1, 17.9}) {
    t += 10'000;
    c.ReplaceReports(Reports(t - 500, Health::kUp, latency));
    EXPECT_FALSE(c.Step(t).route_table) << "latency " << latency;
  }
  t += 10'000;
  c.ReplaceReports(Reports(t - 500, Health::kUp, 45));
  EXPECT_TRUE(c.Step(t).route_table);
}

TEST(VantageGroupPlanTest, AReportFromTheFutureIsIgnoredAndCounted) {
  FakeCluster c = SmallCluster();
  std::vector<json> reports = Reports(kT0 - 1000, Health::kUp);
  // south-a claims gz-01 Down, stamped a minute ahead.
  reports[0] =
      ReportObject("south-a", kT0 + 60'000,
                   {NodeResult("gz-01", Health::kDown, 20, kT0 - 600'000)});
  c.ReplaceReports(reports);
  const Plan plan = c.Step(kT0);
  EXPECT_EQ(plan.summary.future_reports, 1u);
  EXPECT_EQ(ConditionOf(c.Status("ProbeReport", "south-a"), "Ready")["reason"],
            "FromTheFuture");
  EXPECT_TRUE(plan.summary.group_down.empty());
  // It counts once the clock is within the skew of it.
  reports = Reports(kT0 + 49'000, Health::kUp);
  reports[0] = c.state.probe_reports[0];
  c.ReplaceReports(reports);
  EXPECT_EQ(c.Step(kT0 + 50'000).summary.future_reports, 0u);
  EXPECT_EQ(ConditionOf(c.Status("ProbeReport", "south-a"), "Ready")["reason"],
            "Counted");
}

}  // namespace
}  // namespace ax::controller
