// The plan's building blocks on their own: condition merging, merge patches
// and history pruning (the gather step's tests are the loader's).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/controller/conditions.h"
#include "ax/controller/history.h"
#include "ax/controller/status_update.h"
#include "fake_cluster.h"

namespace ax::controller {
namespace {

using ::ax::testing::kT0;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(MergeConditions, KeepsTheTransitionTimeWhileTheStatusHolds) {
  const json current = json::parse(R"([
    {"type":"Ready","status":"True","reason":"Up","message":"old",
     "lastTransitionTime":"2026-01-01T00:00:00Z","observedGeneration":1},
    {"type":"Degraded","status":"False","reason":"Fine","message":"x",
     "lastTransitionTime":"2026-01-01T00:00:00Z"}])");
  json merged = MergeConditions(
      &current, {{"Ready", ConditionStatus::kTrue, "Up", "new message"}}, 2,
      kT0);
  EXPECT_EQ(merged[0]["lastTransitionTime"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(merged[0]["message"], "new message");
  EXPECT_EQ(merged[0]["observedGeneration"], 2);
  EXPECT_EQ(merged[1], current[1]);  // another writer's condition, untouched

  merged = MergeConditions(
      &current, {{"Ready", ConditionStatus::kFalse, "Down", "gone"}}, 2, kT0);
  EXPECT_EQ(merged[0]["lastTransitionTime"], "2026-11-30T00:53:20Z");
  EXPECT_EQ(merged[0]["status"], "False");

  merged = MergeConditions(
      nullptr, {{"Ready", ConditionStatus::kUnknown, "NoVerdict", ""}}, 1, kT0);
  EXPECT_EQ(merged, json::parse(R"([{"type":"Ready","status":"Unknown",
    "reason":"NoVerdict","message":"","observedGeneration":1,
    "lastTransitionTime":"2026-11-30T00:53:20Z"}])"));
}

TEST(MergePatch, TurnsOneStatusIntoAnother) {
  const json from = json::parse(
      R"({"health":"Up","latencyMs":5,"load":{"connections":3,"x":1},"keep":1})");
  const json to = json::parse(
      R"({"health":"Down","load":{"connections":4,"x":1},"keep":1,"new":[1]})");
  const json patch = MergePatch(from, to);
  EXPECT_EQ(patch, json::parse(R"({"health":"Down","latencyMs":null,
    "load":{"connections":4},"new":[1]})"));
  json applied = from;
  applied.merge_patch(patch);
  EXPECT_EQ(applied, to);
}

TEST(PlanStatusUpdate, NothingWhenEqual) {
  const json object = {{"kind", "Node"},
                       {"metadata", {{"name", "a"}}},
                       {"status", {{"health", "Up"}, {"latencyMs", 5.0}}}};
  EXPECT_FALSE(PlanStatusUpdate(object, {{"latencyMs", 5}, {"health", "Up"}}));
  const auto update = PlanStatusUpdate(object, {{"health", "Down"}});
  ASSERT_TRUE(update);
  EXPECT_EQ(update->object.KindName(), "Node/a");
  EXPECT_EQ(update->merge_patch,
            json::parse(R"({"status":{"health":"Down","latencyMs":null}})"));
}

json History(uint64_t version) {
  return {{"metadata", {{"name", "rt-v" + std::to_string(version)}}}};
}

TEST(PlanHistory, KeepsTheNewestDepthWithTheVersionInForce) {
  const std::vector<json> kept = {History(3),
                                  History(1),
                                  History(2),
                                  {{"metadata", {{"name", "unrelated"}}}}};
  HistoryPlan p = PlanHistory(kept, "rt", 3, 4);
  EXPECT_TRUE(p.create_in_force);
  EXPECT_THAT(p.deletes, ElementsAre("rt-v1"));
  p = PlanHistory(kept, "rt", 5, 3);
  EXPECT_FALSE(p.create_in_force);
  EXPECT_THAT(p.deletes, IsEmpty());
  p = PlanHistory(kept, "rt", 0, 4);
  EXPECT_FALSE(p.create_in_force);
  EXPECT_THAT(p.deletes, ElementsAre("rt-v1", "rt-v2", "rt-v3"));
  EXPECT_EQ(HighestHistoryVersion(kept, "rt"), 3u);
}

}  // namespace
}  // namespace ax::controller
