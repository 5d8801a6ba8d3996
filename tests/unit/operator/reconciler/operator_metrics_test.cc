// ax-operator's metrics against the runbook's contract: every name and label,
// leader-only series absent on a follower, counters present at 0, the
// histogram's buckets.
#include "operator_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

namespace ax::controller {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const OperatorMetrics& m) {
  return prometheus::TextSerializer().Serialize(m.Collect());
}

std::vector<std::string> Names(const OperatorMetrics& m) {
  std::vector<std::string> out;
  for (const auto& f : m.Collect()) out.push_back(f.name);
  return out;
}

PlanSummary Summary() {
  PlanSummary s;
  s.outcome = PublishOutcome::kPublished;
  s.version = 42;
  s.snapshot_bytes = 556841;
  s.nodes_up = 5;
  s.nodes_down = 1;
  s.region_healthy_nodes = {{"cn-south", 2}, {"us-west", 0}};
  s.vantage_cut_off = {{"ax-dns-0", false}, {"ax-dns-1", true}};
  s.group_vantages = {{"cn-south-unicom", 2}, {"cn-north-any", 0}};
  s.group_down = {{{"cn-south-unicom", "gz-01"}, Health::kUp}};
  s.canaries = {{"api-sj-02", {"Paused", 25}}};
  s.node_load_percent = {{"gz-01", 91.5}};
  s.rules = {{"pin-bj-01-www", {"www", "Pin", "bj-01", true, 1'796'003'600}},
             {"old-exclude", {"api", "Exclude", "sj-02", false, 0}}};
  s.future_reports = 1;
  return s;
}

OperatorMetrics::WatchRestarts Restarts() {
  return [] {
    return std::map<std::string, uint64_t>{{"domains", 0}, {"nodes", 2}};
  };
}

TEST(OperatorMetrics, FollowerExportsOnlyWhatEveryReplicaHas) {
  OperatorMetrics m("ax-operator-1", Restarts());
  m.ObserveCanaries({"api-sj-02"});
  m.ObservePlan(Summary(), true, 1'796'000'000);  // ignored: not leading
  EXPECT_THAT(Names(m), ElementsAre("ax_operator_canary_rollbacks_total",
                                    "ax_operator_leader",
                                    "ax_operator_reconcile_errors_total",
                                    "ax_operator_watch_restarts_total"));
  const std::string text = Text(m);
  EXPECT_THAT(text, HasSubstr("ax_operator_leader{pod=\"ax-operator-1\"} 0"));
  for (const char* stage :
       {"gather", "validate", "plan", "publish", "status"}) {
    EXPECT_THAT(text, HasSubstr("ax_operator_reconcile_errors_total{stage=\"" +
                                std::string(stage) + "\"} 0"));
  }
  EXPECT_THAT(
      text,
      HasSubstr("ax_operator_watch_restarts_total{resource=\"nodes\"} 2"));
  EXPECT_THAT(
      text,
      HasSubstr("ax_operator_canary_rollbacks_total{canary=\"api-sj-02\"} 0"));
}

TEST(OperatorMetrics, LeaderExportsTheStateItPublished) {
  OperatorMetrics m("ax-operator-0", Restarts());
  m.SetLeader(true);
  m.ObserveReconcile(0.03);
  m.ObserveReconcile(7);
  m.ObserveStatusBacklog(17);
  m.CountError(ReconcileStage::kPublish);
  m.CountRollback("api-sj-02");
  m.ObservePlan(Summary(), true, 1'796'000'000.5);
  const std::string text = Text(m);
  EXPECT_THAT(text, HasSubstr("ax_operator_leader{pod=\"ax-operator-0\"} 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_snapshot_version 42"));
  EXPECT_THAT(text, HasSubstr("ax_operator_snapshot_bytes 556841"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_snapshot_published_timestamp_seconds "
                        "1796000000.5"));
  EXPECT_THAT(text, HasSubstr("ax_operator_nodes{health=\"Up\"} 5"));
  EXPECT_THAT(text, HasSubstr("ax_operator_nodes{health=\"Down\"} 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_nodes{health=\"Unknown\"} 0"));
  EXPECT_THAT(
      text,
      HasSubstr("ax_operator_region_healthy_nodes{region=\"us-west\"} 0"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_vantage_cut_off{vantage=\"ax-dns-1\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_vantage_cut_off{vantage=\"ax-dns-0\"} 0"));
  EXPECT_THAT(text, HasSubstr("ax_operator_vantage_group_vantages{group="
                              "\"cn-north-any\"} 0"));
  EXPECT_THAT(text, HasSubstr("ax_operator_vantage_group_node_down{group="
                              "\"cn-south-unicom\",node=\"gz-01\",global="
                              "\"Up\"} 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_probe_reports_future 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_reconcile_errors_total{stage="
                              "\"publish\"} 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_canary_rollbacks_total{canary="
                              "\"api-sj-02\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_canary_percent{canary=\"api-sj-02\"} 25"));
  EXPECT_THAT(text, HasSubstr("ax_operator_canary_phase{canary=\"api-sj-02\","
                              "phase=\"Paused\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_node_load_percent{node=\"gz-01\"} 91.5"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_rule_active{rule=\"pin-bj-01-www\","
                        "domain=\"www\",action=\"Pin\",node=\"bj-01\"} 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_rule_active{rule=\"old-exclude\","
                              "domain=\"api\",action=\"Exclude\",node="
                              "\"sj-02\"} 0"));
  EXPECT_THAT(text, HasSubstr("ax_operator_rule_expires_timestamp_seconds{rule="
                              "\"pin-bj-01-www\",domain=\"www\",action="
                              "\"Pin\",node=\"bj-01\"} 1796003600"));
  EXPECT_THAT(text, Not(HasSubstr("ax_operator_rule_expires_timestamp_seconds{"
                                  "rule=\"old-exclude\"")));
  EXPECT_THAT(text, HasSubstr("ax_operator_reconcile_duration_seconds_bucket{"
                              "le=\"0.05\"} 1"));
  EXPECT_THAT(text, HasSubstr("ax_operator_reconcile_duration_seconds_bucket{"
                              "le=\"10\"} 2"));
  EXPECT_THAT(text,
              HasSubstr("ax_operator_reconcile_duration_seconds_count 2"));
  EXPECT_THAT(text, HasSubstr("ax_operator_status_backlog 17"));

  // A plan that published nothing keeps the time of the last publish.
  m.ObservePlan(Summary(), false, 1'796'000'100);
  EXPECT_THAT(Text(m), HasSubstr("ax_operator_snapshot_published_timestamp_"
                                 "seconds 1796000000.5"));

  // Losing the lease drops the leader-only series at once.
  m.SetLeader(false);
  EXPECT_THAT(Text(m), Not(HasSubstr("ax_operator_snapshot_version")));
  EXPECT_THAT(Text(m), Not(HasSubstr("ax_operator_nodes")));
  EXPECT_THAT(Text(m), Not(HasSubstr("ax_operator_reconcile_duration")));
  EXPECT_THAT(Text(m), Not(HasSubstr("ax_operator_status_backlog")));
}

}  // namespace
}  // namespace ax::controller
