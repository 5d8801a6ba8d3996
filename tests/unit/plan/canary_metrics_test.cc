// A Canary judged by Prometheus metrics, without Prometheus: the PromQL the
// plan asks for (node substituted, the breach window as a subquery), the
// baseline nodes, the verdicts on readings, and through ComputePlan a step
// held until read, promoted when under its limits and failed (share back to
// 0) when over. The same for the error rates the nodes report in their health
// bodies, through the ProbeReports.
#include "ax/controller/canary_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/controller/plan.h"
#include "fake_cluster.h"

namespace ax::controller {
namespace {

using ::ax::testing::ConditionOf;
using ::ax::testing::EventLines;
using ::ax::testing::FakeCluster;
using ::ax::testing::kT0;
using ::ax::testing::ServedCanaryPercent;
using ::ax::testing::SmallCluster;
using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kRatio[] =
    "sum(rate(http_requests_total{node=\"{{node}}\",code=~\"5..\"}[1m])) / "
    "sum(rate(http_requests_total{node=\"{{node}}\"}[1m]))";

CanaryMetric Ratio() {
  return {.name = "http-5xx",
          .prometheus = "http://prometheus:9090",
          .query = kRatio,
          .max = 0.005,
          .max_over_baseline = 0.002,
          .for_ms = 120'000};
}

TEST(CanaryMetrics, QueriesPutTheNodeInAndTheWindowAround) {
  EXPECT_EQ(NodeQuery(Ratio(), "gz-02", true),
            "min_over_time((sum(rate(http_requests_total{node=\"gz-02\","
            "code=~\"5..\"}[1m])) / sum(rate(http_requests_total{node="
            "\"gz-02\"}[1m])))[120s:15s])");
  EXPECT_THAT(NodeQuery(Ratio(), "gz-01", false),
              ::testing::StartsWith("max_over_time((sum("));
  CanaryMetric now = Ratio();
  now.for_ms = 0;
  EXPECT_EQ(NodeQuery(now, "a", true),
            "sum(rate(http_requests_total{node=\"a\",code=~\"5..\"}[1m])) / "
            "sum(rate(http_requests_total{node=\"a\"}[1m]))");

  Canary c{.node = "gz-02"};
  c.meta.name = "gz-02-rollout";
  c.analysis.interval_ms = 10'000;
  c.analysis.metrics = {Ratio()};
  const auto queries = QueriesFor(c, {"gz-01", "gz-03"});
  ASSERT_EQ(queries.size(), 3u);
  EXPECT_EQ(queries[0].node, "gz-02");
  EXPECT_EQ(queries[2].node, "gz-03");
  EXPECT_EQ(queries[1].interval_ms, 10'000);
  EXPECT_EQ(queries[1].prometheus, "http://prometheus:9090");
  c.analysis.metrics[0].max_over_baseline.reset();  // no baseline asked
  EXPECT_EQ(QueriesFor(c, {"gz-01"}).size(), 1u);
}

TEST(CanaryMetrics, BaselineIsTheDomainsOtherActiveNodesInTheRegions) {
  FakeCluster c = SmallCluster();
  GatheredWorld g = GatherWorld(c.state);
  Canary canary{.domain = "www", .node = "gz-02", .regions = {"south"}};
  EXPECT_THAT(BaselineNodes(canary, g.world, kT0), ElementsAre("gz-01"));
  canary.regions.clear();
  EXPECT_THAT(BaselineNodes(canary, g.world, kT0),
              ElementsAre("bj-01", "gz-01"));
  for (Node& n : g.world.nodes) {
    if (n.meta.name == "bj-01") n.admin_state = AdminState::kDrain;
  }
  EXPECT_THAT(BaselineNodes(canary, g.world, kT0), ElementsAre("gz-01"));
}

TEST(CanaryMetrics, VerdictsOnReadings) {
  Canary c{.node = "gz-02"};
  c.analysis.metrics = {Ratio()};
  auto judge = [&](MetricReadings r) {
    return JudgeMetrics(c, {"gz-01"}, &r).at(0);
  };
  EXPECT_EQ(JudgeMetrics(c, {"gz-01"}, nullptr).at(0).missing,
            "metric http-5xx of Node gz-02 not read yet");
  MetricVerdict v =
      judge({{"http-5xx", {{"gz-02", {.at_ms = 5, .error = "no data"}}}}});
  EXPECT_EQ(v.missing, "metric http-5xx of Node gz-02: no data");

  v = judge({{"http-5xx", {{"gz-02", {0.001, 5}}, {"gz-01", {0.0005, 4}}}}});
  EXPECT_EQ(v.breach, "");
  EXPECT_EQ(v.missing, "");
  EXPECT_EQ(v.read_at_ms, 4);
  EXPECT_EQ(v.baseline, 0.0005);

  v = judge({{"http-5xx", {{"gz-02", {0.02, 5}}, {"gz-01", {0.0005, 4}}}}});
  EXPECT_EQ(v.breach,
            "metric http-5xx of Node gz-02 is 0.02 throughout the last 120s, "
            "above spec.analysis.metrics[http-5xx].max 0.005");
  // Under max, but the baseline is much better.
  v = judge({{"http-5xx", {{"gz-02", {0.004, 5}}, {"gz-01", {0.0001, 4}}}}});
  EXPECT_THAT(v.breach, HasSubstr("the baseline's 0.0001: more than "
                                  "spec.analysis.metrics[http-5xx]."
                                  "maxOverBaseline 0.002 above"));
  v = judge({{"http-5xx", {{"gz-02", {0.004, 5}}}}});
  EXPECT_EQ(v.missing,
            "metric http-5xx: no baseline node has a value (1 baseline nodes)");
}

json MetricCanary() {
  return testing::Object(
      "Canary", "new-gz",
      {{"domain", "www"},
       {"node", "gz-02"},
       {"regions", {"south"}},
       {"steps", {{{"percent", 10}, {"pause", "30s"}}, {{"percent", 100}}}},
       {"analysis",
        {{"interval", "10s"},
         {"metrics",
          {{{"name", "http-5xx"},
            {"prometheus", "http://prometheus:9090"},
            {"query", kRatio},
            {"max", 0.005},
            {"for", "1m"}}}}}}});
}

TEST(CanaryMetricsPlan, AStepWaitsForAReadingUnderTheLimitThenPromotes) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(MetricCanary());
  Plan plan = c.Step(kT0);
  ASSERT_EQ(plan.canary_queries.size(), 1u);
  EXPECT_EQ(plan.canary_queries[0].canary, "new-gz");
  EXPECT_EQ(plan.canary_queries[0].node, "gz-02");
  EXPECT_EQ(plan.canary_queries[0].interval_ms, 10'000);
  EXPECT_EQ(ServedCanaryPercent(c), 10);
  // Due, but the metric has not been read since the step began: held.
  c.ReplaceReports(testing::UpReports(kT0 + 29'000));
  c.Step(kT0 + 30'000);
  EXPECT_EQ(c.Status("Canary", "new-gz")["percent"], 10);
  EXPECT_THAT(
      ConditionOf(c.Status("Canary", "new-gz"), "Ready")["message"]
          .get<std::string>(),
      HasSubstr(
          "and then waits until metric http-5xx of Node gz-02 not read yet"));
  // A reading from before the step does not count either.
  c.state.canary_readings["new-gz"]["http-5xx"]["gz-02"] = {0.001, kT0 - 1};
  c.Step(kT0 + 31'000);
  EXPECT_EQ(c.Status("Canary", "new-gz")["percent"], 10);
  c.state.canary_readings["new-gz"]["http-5xx"]["gz-02"] = {0.001,
                                                            kT0 + 31'500};
  plan = c.Step(kT0 + 32'000);
  EXPECT_THAT(EventLines(plan),
              Contains("Canary/new-gz Normal CanarySucceeded"));
  EXPECT_EQ(ServedCanaryPercent(c), 100);
  EXPECT_TRUE(plan.canary_queries.empty());  // done: nothing more to read
}

TEST(CanaryMetricsPlan, ABreachTakesTheShareBackAtOnce) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(MetricCanary());
  c.Step(kT0);
  EXPECT_EQ(ServedCanaryPercent(c), 10);
  c.state.canary_readings["new-gz"]["http-5xx"]["gz-02"] = {0.012,
                                                            kT0 + 10'000};
  Plan plan = c.Step(kT0 + 10'000);
  EXPECT_THAT(EventLines(plan), Contains("Canary/new-gz Warning CanaryFailed"));
  EXPECT_EQ(ServedCanaryPercent(c), 0);
  const json& status = c.Status("Canary", "new-gz");
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_THAT(ConditionOf(status, "Ready")["message"].get<std::string>(),
              HasSubstr("metric http-5xx of Node gz-02 is 0.012 throughout "
                        "the last 60s, above spec.analysis.metrics[http-5xx]"
                        ".max 0.005"));
  EXPECT_TRUE(plan.canary_queries.empty());
}

TEST(CanaryMetricsPlan, BadMetricsAreRefusedWithTheField) {
  json bad = MetricCanary();
  bad["spec"]["analysis"]["interval"] = "1s";
  bad["spec"]["analysis"]["metrics"][0]["query"] = "up";
  bad["spec"]["analysis"]["metrics"][0].erase("max");
  bad["spec"]["analysis"]["metrics"][0]["prometheus"] = "prometheus:9090";
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(bad);
  Plan plan = c.Step(kT0);
  const std::string message =
      ConditionOf(c.Status("Canary", "new-gz"), "Ready")["message"];
  EXPECT_THAT(message,
              HasSubstr("spec.analysis.interval: must be at least 5s"));
  EXPECT_THAT(message, HasSubstr("spec.analysis.metrics[0].query: must contain "
                                 "{{node}}"));
  EXPECT_THAT(message, HasSubstr("spec.analysis.metrics[0]: needs max, "
                                 "maxOverBaseline or both"));
  EXPECT_THAT(message, HasSubstr("spec.analysis.metrics[0].prometheus: must be "
                                 "an http:// URL"));
  EXPECT_TRUE(plan.canary_queries.empty());
}

TEST(CanaryErrorRate, VerdictsOnTheQuorumsRates) {
  Canary c{.node = "gz-02"};
  EXPECT_FALSE(JudgeErrorRate(c, {"gz-01"}, QuorumResult{}));  // not asked
  c.analysis.error_rate =
      CanaryErrorRate{.max = 0.005, .max_over_baseline = 0.002};
  QuorumResult q;
  EXPECT_EQ(JudgeErrorRate(c, {"gz-01"}, q)->missing,
            "reported errorRate of Node gz-02: none in its health body yet");
  q.nodes["gz-02"].error_rate = 0.001;
  q.nodes["gz-02"].error_rate_at_ms = 50;
  EXPECT_EQ(JudgeErrorRate(c, {"gz-01"}, q)->missing,
            "reported errorRate: no baseline node has a value (1 baseline "
            "nodes)");
  q.nodes["gz-01"].error_rate = 0.0005;
  q.nodes["gz-01"].error_rate_at_ms = 40;
  MetricVerdict v = *JudgeErrorRate(c, {"gz-01"}, q);
  EXPECT_EQ(v.missing, "");
  EXPECT_EQ(v.breach, "");
  EXPECT_EQ(v.read_at_ms, 40);          // the older of the two
  q.nodes["gz-02"].error_rate = 0.004;  // under max, 0.35 points over baseline
  EXPECT_EQ(JudgeErrorRate(c, {"gz-01"}, q)->breach,
            "reported errorRate of Node gz-02 is 0.004, the baseline's 0.0005: "
            "more than spec.analysis.errorRate.maxOverBaseline 0.002 above");
  c.analysis.error_rate->max_over_baseline.reset();  // the baseline unasked
  EXPECT_EQ(JudgeErrorRate(c, {}, q)->breach, "");
  q.nodes["gz-02"].error_rate = 0.03;
  EXPECT_EQ(JudgeErrorRate(c, {}, q)->breach,
            "reported errorRate of Node gz-02 is 0.03, above "
            "spec.analysis.errorRate.max 0.005");
}

// Both vantages' reports at `at`, each node in `rates` reporting that rate.
std::vector<json> ReportsWithErrorRates(
    int64_t at, const std::map<std::string, double>& rates) {
  std::vector<json> reports = testing::UpReports(at);
  for (json& report : reports) {
    for (json& result : report["spec"]["results"]) {
      auto rate = rates.find(result["node"].get<std::string>());
      if (rate != rates.end()) result["errorRate"] = rate->second;
    }
  }
  return reports;
}

json ErrorRateCanary() {
  json canary = MetricCanary();
  canary["spec"]["analysis"] = {
      {"errorRate", {{"max", 0.005}, {"maxOverBaseline", 0.003}}}};
  return canary;
}

TEST(CanaryErrorRatePlan, ReportedRatesUnderTheLimitsPromote) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(ErrorRateCanary());
  Plan plan = c.Step(kT0);
  EXPECT_EQ(ServedCanaryPercent(c), 10);
  EXPECT_TRUE(plan.canary_queries.empty());  // nothing asked of Prometheus
  // Due, but no node reports a rate yet: held, and it says why.
  c.ReplaceReports(testing::UpReports(kT0 + 29'000));
  c.Step(kT0 + 30'000);
  EXPECT_EQ(c.Status("Canary", "new-gz")["percent"], 10);
  EXPECT_THAT(ConditionOf(c.Status("Canary", "new-gz"), "Ready")["message"]
                  .get<std::string>(),
              HasSubstr("reported errorRate of Node gz-02: none in its health "
                        "body yet"));
  c.ReplaceReports(ReportsWithErrorRates(kT0 + 30'500,
                                         {{"gz-02", 0.004}, {"gz-01", 0.002}}));
  plan = c.Step(kT0 + 31'000);
  EXPECT_THAT(EventLines(plan),
              Contains("Canary/new-gz Normal CanarySucceeded"));
  EXPECT_EQ(ServedCanaryPercent(c), 100);
  // The Node's status shows what it reports.
  EXPECT_EQ(c.Status("Node", "gz-02")["errorRate"], 0.004);
}

TEST(CanaryErrorRatePlan, ARateOverTheLimitFailsTheRollout) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(ErrorRateCanary());
  c.Step(kT0);
  c.ReplaceReports(
      ReportsWithErrorRates(kT0 + 5'000, {{"gz-02", 0.011}, {"gz-01", 0.001}}));
  Plan plan = c.Step(kT0 + 6'000);
  EXPECT_THAT(EventLines(plan), Contains("Canary/new-gz Warning CanaryFailed"));
  EXPECT_EQ(ServedCanaryPercent(c), 0);
  EXPECT_THAT(ConditionOf(c.Status("Canary", "new-gz"), "Ready")["message"]
                  .get<std::string>(),
              HasSubstr("reported errorRate of Node gz-02 is 0.011, above "
                        "spec.analysis.errorRate.max 0.005"));
}

TEST(CanaryErrorRatePlan, LimitsThatAreNotRatiosAreRefused) {
  json bad = ErrorRateCanary();
  bad["spec"]["analysis"]["errorRate"] = {{"max", 5}};
  json none = ErrorRateCanary();
  none["metadata"]["name"] = "no-limit";
  none["spec"]["analysis"]["errorRate"] = json::object();
  FakeCluster c = SmallCluster();
  c.state.canaries = {bad, none};
  c.Step(kT0);
  EXPECT_THAT(ConditionOf(c.Status("Canary", "new-gz"), "Ready")["message"]
                  .get<std::string>(),
              HasSubstr("spec.analysis.errorRate.max: must be a ratio from 0 "
                        "to 1 (0.005 is 0.5%), got 5"));
  EXPECT_THAT(ConditionOf(c.Status("Canary", "no-limit"), "Ready")["message"]
                  .get<std::string>(),
              HasSubstr("spec.analysis.errorRate: needs max, maxOverBaseline "
                        "or both"));
}

}  // namespace
}  // namespace ax::controller
