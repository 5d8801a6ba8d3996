// Measurement hysteresis: steady probing (latency and load jitter on every
// report) must not publish a new route-table version; a material move must.
// HoldLatencies and HoldLoads alone, and through ComputePlan over a fake
// cluster for an hour of simulated heartbeats.
#include "ax/controller/measurement_hold.h"

#include <gtest/gtest.h>

#include <random>

#include "ax/controller/plan.h"
#include "ax/score.h"
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

TEST(HoldLoads, KeepsThePublishedUtilisationUntilAMaterialMove) {
  World world;
  world.nodes.resize(2);
  world.nodes[0].meta.name = "a";
  world.nodes[0].capacity = {.bandwidth_mbps = 1000, .connections = 10000};
  world.nodes[1].meta.name = "b";  // no capacity declared
  Snapshot previous;
  previous.nodes.resize(2);
  previous.nodes[0].name = "a";
  previous.nodes[0].utilisation = 0.4;
  previous.nodes[1].name = "b";
  const auto held_util = [&](double bandwidth, double connections) {
    StatusMap status;
    status["a"].load = NodeLoad{bandwidth, connections};
    const StatusMap held = HoldLoads(status, world, &previous, 0.2);
    return Utilisation(world.nodes[0].capacity, held.at("a").load);
  };
  EXPECT_DOUBLE_EQ(held_util(401.25, 3000), 0.4);  // 40.125%: noise
  EXPECT_DOUBLE_EQ(held_util(300, 4700), 0.4);     // 47%: under 5 points
  EXPECT_DOUBLE_EQ(held_util(520, 100), 0.52);     // 12 points, over 20%
  previous.nodes[0].utilisation = 0.78;
  EXPECT_DOUBLE_EQ(held_util(810, 0), 0.81);  // over the knee: material
  EXPECT_DOUBLE_EQ(held_util(790, 0), 0.78);
  // Past the knee (where it sets the spilled share) within a quarter of the
  // tolerance only: 5% of the larger value.
  previous.nodes[0].utilisation = 1.0;
  EXPECT_DOUBLE_EQ(held_util(1040, 0), 1.0);
  EXPECT_DOUBLE_EQ(held_util(1060, 0), 1.06);
  EXPECT_DOUBLE_EQ(held_util(960, 0), 1.0);
  EXPECT_DOUBLE_EQ(held_util(940, 0), 0.94);
  StatusMap status;
  status["b"].load = NodeLoad{5, 5};
  EXPECT_EQ(HoldLoads(status, world, &previous, 0.2).at("b").load->connections,
            5);
}

// Two vantages every 10 s for an hour, latency and load jittering the way
// real probes and health endpoints do.
TEST(MeasurementHold, AnHourOfJitterWritesNoRouteTableAndAChangeStillDoes) {
  FakeCluster c = SmallCluster();
  std::mt19937 rng(1414);
  std::uniform_real_distribution<double> latency_ms(18, 22);
  std::uniform_real_distribution<double> load_share(0.36, 0.44);
  const auto reports = [&](int64_t at, double share) {
    std::vector<json> out;
    for (const char* vantage : {"vantage-a", "vantage-b"}) {
      std::vector<ProbeNodeReport> results;
      for (const char* node : {"bj-01", "gz-01", "gz-02"}) {
        ProbeNodeReport r =
            NodeResult(node, Health::kUp, latency_ms(rng), kT0 - 600'000);
        const double u = share < 0 ? load_share(rng) : share;
        r.load = NodeLoad{.bandwidth_mbps = u * 1000, .connections = u * 9000};
        results.push_back(std::move(r));
      }
      out.push_back(ReportObject(vantage, at - 500, std::move(results)));
    }
    return out;
  };
  c.ReplaceReports(reports(kT0, -1));
  ASSERT_TRUE(c.Step(kT0).route_table);
  int writes = 0;
  int64_t t = kT0;
  for (int beat = 0; beat < 360; ++beat) {
    t += 10'000;
    c.ReplaceReports(reports(t, -1));
    writes += c.Step(t).route_table.has_value();
  }
  RecordProperty("route_table_writes_in_an_hour", writes);
  EXPECT_EQ(writes, 0);
  // A material change (every node past the knee) publishes in the next plan.
  t += 1000;
  c.ReplaceReports(reports(t, 0.9));
  EXPECT_TRUE(c.Step(t).route_table);
}

}  // namespace
}  // namespace ax::controller
