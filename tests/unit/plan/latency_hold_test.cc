// Latency hysteresis: steady probing (latency jitter on every report) must not
// publish a new route-table version; a material move must. HoldLatencies
// alone, and through ComputePlan over a fake cluster.
#include "ax/controller/latency_hold.h"

#include <gtest/gtest.h>

#include "ax/controller/plan.h"
#include "fake_cluster.h"

namespace ax::controller {
namespace {

using ::ax::testing::FakeCluster;
using ::ax::testing::kT0;
using ::ax::testing::NodeResult;
using ::ax::testing::ReportObject;
using ::ax::testing::SmallCluster;
using nlohmann::json;

TEST(HoldLatencies, KeepsThePublishedValueInsideTheTolerance) {
  Snapshot previous;
  previous.nodes.resize(3);
  previous.nodes[0].name = "a";
  previous.nodes[0].latency_ms = 10;
  previous.nodes[1].name = "b";
  previous.nodes[1].latency_ms = 100;
  previous.nodes[2].name = "c";  // not measured when published
  StatusMap status;
  status["a"].latency_ms = 10.9;  // under the 1 ms floor (20% is 2.2 ms)
  status["b"].latency_ms = 119;   // under 20% of 119
  status["c"].latency_ms = 5;
  status["d"].latency_ms = 7;  // new node
  StatusMap held = HoldLatencies(status, &previous, 0.2);
  EXPECT_EQ(held["a"].latency_ms, 10);
  EXPECT_EQ(held["b"].latency_ms, 100);
  EXPECT_EQ(held["c"].latency_ms, 5);
  EXPECT_EQ(held["d"].latency_ms, 7);

  status["a"].latency_ms = 13;   // 3 ms: over the floor and 20% (2.6 ms)
  status["b"].latency_ms = 130;  // 30 ms over 26
  held = HoldLatencies(status, &previous, 0.2);
  EXPECT_EQ(held["a"].latency_ms, 13);
  EXPECT_EQ(held["b"].latency_ms, 130);
  EXPECT_EQ(HoldLatencies(status, nullptr, 0.2)["a"].latency_ms, 13);
}

// Both vantages report every node Up at `latency_ms`.
std::vector<json> Reports(int64_t observed_at_ms, double latency_ms) {
  std::vector<json> out;
  for (const char* vantage : {"vantage-a", "vantage-b"}) {
    std::vector<ProbeNodeReport> results;
    for (const char* node : {"bj-01", "gz-01", "gz-02"}) {
      results.push_back(
          NodeResult(node, Health::kUp, latency_ms, kT0 - 600'000));
    }
    out.push_back(ReportObject(vantage, observed_at_ms, std::move(results)));
  }
  return out;
}

TEST(HoldLatencies, SteadyProbingPublishesNoNewVersion) {
  FakeCluster c = SmallCluster();
  c.ReplaceReports(Reports(kT0 - 1000, 20));
  ASSERT_TRUE(c.Step(kT0).route_table);
  // Heartbeats with jitter of a few tenths of a millisecond to 3 ms.
  int64_t t = kT0;
  for (double latency : {20.3, 19.6, 21.7, 23.0, 17.4, 20.1}) {
    t += 10'000;
    c.ReplaceReports(Reports(t - 500, latency));
    const Plan plan = c.Step(t);
    EXPECT_FALSE(plan.route_table) << "latency " << latency;
    EXPECT_EQ(plan.summary.version, 1u);
  }
  // Twice as slow: a material move publishes.
  t += 10'000;
  c.ReplaceReports(Reports(t - 500, 40));
  const Plan slow = c.Step(t);
  ASSERT_TRUE(slow.route_table);
  EXPECT_EQ(slow.summary.version, 2u);
}

}  // namespace
}  // namespace ax::controller
