// ComputePlan's route-table decisions over a fake cluster: first publish, the
// no-op plan, version bumps (keeping the stored owner references), the size
// limit, history depth, rollback and an unreadable ConfigMap; and the
// 1,000-node scale case.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/controller/plan.h"
#include "ax/route_table_configmap.h"
#include "ax/snapshot_validate.h"
#include "fake_cluster.h"
#include "large_world.h"

namespace ax::controller {
namespace {

using ::ax::testing::EventLines;
using ::ax::testing::FakeCluster;
using ::ax::testing::kT0;
using ::ax::testing::SmallCluster;
using ::ax::testing::UpdatedObjects;
using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

Snapshot Served(const FakeCluster& c) {
  ParseRouteTableResult p = ParseRouteTableConfigMap(*c.state.route_table);
  EXPECT_TRUE(p.snapshot) << p.error->ToString();
  return p.snapshot ? *p.snapshot : Snapshot{};
}

std::vector<std::string> HistoryNames(const FakeCluster& c) {
  std::vector<std::string> out;
  for (const json& cm : c.state.history) out.push_back(cm["metadata"]["name"]);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PlanPublish, FirstPublish) {
  FakeCluster c = SmallCluster();
  const Plan plan = c.Plan(kT0);
  ASSERT_TRUE(plan.route_table);
  EXPECT_STREQ(PublishOutcomeName(plan.summary.outcome), "Published");
  EXPECT_EQ(plan.summary.version, 1u);
  EXPECT_EQ(plan.summary.nodes_up, 3u);
  EXPECT_FALSE(plan.summary.gzipped);
  EXPECT_EQ((*plan.route_table)["metadata"]["name"], "ax-route-table");
  EXPECT_EQ((*plan.route_table)["metadata"]["namespace"], "ax-system");
  ASSERT_EQ(plan.history_creates.size(), 1u);
  EXPECT_EQ(plan.history_creates[0]["metadata"]["name"], "ax-route-table-v1");
  EXPECT_THAT(plan.history_deletes, IsEmpty());
  EXPECT_THAT(EventLines(plan),
              ElementsAre("ConfigMap/ax-route-table Normal SnapshotPublished"));
  EXPECT_THAT(
      UpdatedObjects(plan),
      ElementsAre("Domain/www", "Node/bj-01", "Node/gz-01", "Node/gz-02",
                  "ProbeReport/vantage-a", "ProbeReport/vantage-b",
                  "Region/north", "Region/south"));
  c.Apply(plan);
  const Snapshot s = Served(c);
  EXPECT_EQ(s.version, 1u);
  EXPECT_EQ(s.generated_at_ms, kT0);
  ASSERT_EQ(s.domains.size(), 1u);
  EXPECT_EQ(s.domains[0].fqdn, "www.example.test");
  EXPECT_EQ(s.nodes.size(), 3u);
  const json& domain = c.Status("Domain", "www");
  EXPECT_EQ(domain["ready"], true);
  EXPECT_EQ(domain["observedGeneration"], 1);
}

// Nothing changed: no ConfigMap, no history, no status writes, no Events.
TEST(PlanPublish, NoOpWhenNothingChanged) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  const Plan plan = c.Plan(kT0 + 5000);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kUnchanged);
  EXPECT_EQ(plan.summary.version, 1u);
  EXPECT_FALSE(plan.route_table);
  EXPECT_THAT(plan.history_creates, IsEmpty());
  EXPECT_THAT(plan.history_deletes, IsEmpty());
  EXPECT_THAT(plan.status_updates, IsEmpty());
  EXPECT_THAT(plan.events, IsEmpty());
  // The reports turn stale 30 s after they were taken: plan again then.
  EXPECT_EQ(plan.requeue_after_ms, (kT0 - 1000 + 30'001) - (kT0 + 5000));
}

TEST(PlanPublish, NodeChangeBumpsTheVersionByOne) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  c.EditSpec("Node", "gz-02", {{"weight", 50}});
  const Plan plan = c.Step(kT0 + 1000);
  ASSERT_TRUE(plan.route_table);
  EXPECT_EQ(plan.summary.version, 2u);
  EXPECT_EQ((*plan.route_table)["metadata"]["annotations"]
                               ["gslb.ax.io/snapshot-version"],
            "2");
  EXPECT_THAT(UpdatedObjects(plan), ElementsAre("Node/gz-02"));
  EXPECT_EQ(c.Status("Node", "gz-02")["observedGeneration"], 2);
  EXPECT_EQ(Served(c).version, 2u);
  EXPECT_THAT(HistoryNames(c),
              ElementsAre("ax-route-table-v1", "ax-route-table-v2"));
}

// A replace would drop the owner references of the stored ConfigMap: the
// plan carries them over, as it does labels and annotations.
TEST(PlanPublish, ReplacingKeepsTheOwnerReferences) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  const json owners = json::array({{{"apiVersion", "v1"},
                                    {"kind", "ServiceAccount"},
                                    {"name", "ax-operator"},
                                    {"uid", "uid-sa"}}});
  (*c.state.route_table)["metadata"]["ownerReferences"] = owners;
  c.EditSpec("Node", "gz-02", {{"weight", 50}});
  const Plan plan = c.Plan(kT0 + 1000);
  ASSERT_TRUE(plan.route_table);
  EXPECT_EQ((*plan.route_table)["metadata"]["ownerReferences"], owners);
}

TEST(PlanPublish, SnapshotOverTheLimitIsRefusedWithTheReason) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  c.state.options.max_config_map_bytes = 500;
  c.EditSpec("Node", "gz-02", {{"weight", 50}});
  const Plan plan = c.Step(kT0 + 1000);
  EXPECT_FALSE(plan.route_table);
  EXPECT_THAT(plan.history_creates, IsEmpty());
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kRejected);
  EXPECT_EQ(plan.summary.version, 1u);  // the old table stays
  ASSERT_THAT(EventLines(plan),
              Contains("ConfigMap/ax-route-table Warning SnapshotRejected"));
  EXPECT_THAT(plan.events[0].message,
              ::testing::MatchesRegex(
                  "SnapshotTooLarge: version 2 does not fit the ConfigMap "
                  "limit of 500 bytes, even gzipped; version 1 stays in force "
                  "\\([0-9]+ bytes as JSON, [0-9]+ gzipped\\)"));
  const json published =
      testing::ConditionOf(c.Status("Domain", "www"), "Published");
  EXPECT_EQ(published["status"], "False");
  EXPECT_EQ(published["reason"], "SnapshotTooLarge");
  EXPECT_EQ(Served(c).version, 1u);
  // Reported once: the next plan is quiet about it.
  const Plan again = c.Plan(kT0 + 2000);
  EXPECT_THAT(again.events, IsEmpty());
  EXPECT_THAT(again.status_updates, IsEmpty());
}

TEST(PlanPublish, HistoryKeepsTheNewestN) {
  FakeCluster c = SmallCluster();
  c.state.options.history_depth = 3;
  c.Step(kT0);
  std::vector<std::string> deleted;
  for (int i = 1; i <= 5; ++i) {
    c.EditSpec("Node", "gz-02", {{"weight", 10 * i}});
    const Plan plan = c.Step(kT0 + i * 1000);
    EXPECT_EQ(plan.summary.version, static_cast<uint64_t>(i + 1));
    deleted.insert(deleted.end(), plan.history_deletes.begin(),
                   plan.history_deletes.end());
  }
  EXPECT_THAT(HistoryNames(c),
              ElementsAre("ax-route-table-v4", "ax-route-table-v5",
                          "ax-route-table-v6"));
  EXPECT_THAT(deleted, ElementsAre("ax-route-table-v1", "ax-route-table-v2",
                                   "ax-route-table-v3"));
  // A lost copy of the version in force comes back; depth 1 prunes the rest.
  c.state.options.history_depth = 1;
  std::erase_if(c.state.history, [](const json& cm) {
    return cm["metadata"]["name"] == "ax-route-table-v6";
  });
  const Plan plan = c.Step(kT0 + 10'000);
  EXPECT_FALSE(plan.route_table);
  ASSERT_EQ(plan.history_creates.size(), 1u);
  EXPECT_EQ(plan.history_creates[0]["metadata"]["name"], "ax-route-table-v6");
  EXPECT_THAT(plan.history_deletes,
              ElementsAre("ax-route-table-v4", "ax-route-table-v5"));
  EXPECT_THAT(HistoryNames(c), ElementsAre("ax-route-table-v6"));
}

TEST(PlanPublish, RollbackServesAKeptVersionUntilTheAnnotationGoes) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  const std::string v1_hash = Served(c).content_hash;
  c.EditSpec("Node", "gz-02", {{"weight", 50}});
  c.Step(kT0 + 1000);
  c.EditSpec("Node", "gz-02", {{"weight", 60}});
  c.Step(kT0 + 2000);
  (*c.state.route_table)["metadata"]["annotations"]["gslb.ax.io/rollback-to"] =
      "1";

  Plan plan = c.Step(kT0 + 3000);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kRolledBack);
  ASSERT_TRUE(plan.route_table);
  EXPECT_EQ(
      (*plan.route_table)["metadata"]["annotations"]["gslb.ax.io/rollback-to"],
      "1");
  EXPECT_THAT(EventLines(plan),
              Contains("ConfigMap/ax-route-table Normal RolledBack"));
  Snapshot s = Served(c);
  EXPECT_EQ(s.version, 4u);  // ax-dns only loads versions going up
  EXPECT_EQ(s.content_hash, v1_hash);
  EXPECT_THAT(HistoryNames(c), Contains("ax-route-table-v4"));

  // Held: changes are not published while the annotation stays.
  c.EditSpec("Node", "gz-02", {{"weight", 70}});
  plan = c.Step(kT0 + 4000);
  EXPECT_FALSE(plan.route_table);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kRolledBack);
  EXPECT_EQ(
      testing::ConditionOf(c.Status("Domain", "www"), "Published")["reason"],
      "RolledBack");

  (*c.state.route_table)["metadata"]["annotations"].erase(
      "gslb.ax.io/rollback-to");
  plan = c.Step(kT0 + 5000);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kPublished);
  EXPECT_EQ(Served(c).version, 5u);
  EXPECT_NE(Served(c).content_hash, v1_hash);
}

TEST(PlanPublish, RollbackToAVersionNotKeptHolds) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  (*c.state.route_table)["metadata"]["annotations"]["gslb.ax.io/rollback-to"] =
      "99";
  c.EditSpec("Node", "gz-02", {{"weight", 50}});
  const Plan plan = c.Step(kT0 + 1000);
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kHeld);
  EXPECT_FALSE(plan.route_table);
  ASSERT_THAT(EventLines(plan),
              Contains("ConfigMap/ax-route-table Warning RollbackFailed"));
  EXPECT_EQ(plan.events[0].message,
            "annotation gslb.ax.io/rollback-to asks for version 99, but "
            "ConfigMap ax-route-table-v99 is not kept; version 1 stays in "
            "force and nothing is published until the annotation "
            "gslb.ax.io/rollback-to is fixed or removed");
  EXPECT_THAT(c.Plan(kT0 + 2000).events, IsEmpty());
}

// Someone broke the ConfigMap: say so and publish a good one above its
// version.
TEST(PlanPublish, UnreadableRouteTableIsReplaced) {
  FakeCluster c = SmallCluster();
  c.Step(kT0);
  (*c.state.route_table)["data"]["snapshot.json"] = "{garbage";
  const Plan plan = c.Step(kT0 + 1000);
  EXPECT_THAT(EventLines(plan),
              ElementsAre("ConfigMap/ax-route-table Warning "
                          "RouteTableUnreadable",
                          "ConfigMap/ax-route-table Normal SnapshotPublished"));
  EXPECT_THAT(plan.events[0].message, StartsWith("BadSnapshot: "));
  EXPECT_EQ(Served(c).version, 2u);
}

// 1,000 Nodes, 200 Regions, 50 Domains, three vantages: one valid snapshot
// under the ConfigMap limit, then a quiet plan. Timed in
// tests/bench/plan_bench.cc, not here.
TEST(PlanPublish, ScaleCaseFitsAndSettles) {
  const World w = testing::MakeWorld(1000, 200, 50, 5);
  ObservedState o = testing::ObservedFromWorld(w);
  o.probe_reports =
      testing::ReportsFromStatus(testing::MakeStatus(w), 3, kT0 - 1000);
  FakeCluster c(std::move(o));
  const Plan plan = c.Step(kT0);
  EXPECT_THAT(plan.invalid_objects, IsEmpty());
  EXPECT_EQ(plan.summary.outcome, PublishOutcome::kPublished);
  EXPECT_LT(plan.summary.payload_bytes, kConfigMapMaxBytes);
  // ... and the four IspSets MakeWorld declares.
  EXPECT_EQ(plan.status_updates.size(), 1000u + 200 + 50 + 1 + 1 + 3 + 4);
  const Snapshot s = Served(c);
  EXPECT_THAT(ValidateSnapshot(s), IsEmpty());
  EXPECT_EQ(s.nodes.size(), 1000u);
  EXPECT_EQ(s.regions.size(), 200u);
  EXPECT_EQ(s.domains.size(), 50u);
  EXPECT_EQ(plan.summary.nodes_down, 59u);  // i % 17 == 5
  const Plan again = c.Plan(kT0 + 1000);
  EXPECT_FALSE(again.route_table);
  EXPECT_THAT(again.status_updates, IsEmpty());
}

}  // namespace
}  // namespace ax::controller
