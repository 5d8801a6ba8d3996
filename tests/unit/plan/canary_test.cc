// The Canary rollout: ProgressCanary as a pure state machine, and through
// ComputePlan (status, Events, requeue, the percent in the served snapshot).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/controller/canary_control.h"
#include "ax/controller/canary_progress.h"
#include "ax/controller/object_ref.h"
#include "ax/controller/plan.h"
#include "ax/rfc3339.h"
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
using ::testing::IsEmpty;

Canary ThreeSteps() {
  Canary c;
  c.meta.name = "new-bj";
  c.domain = "www";
  c.node = "bj-02";
  c.steps = {{10, 60}, {50, 120}, {100, 0}};
  return c;
}

CanarySignals UpNode() { return {.health = Health::kUp}; }

TEST(CanaryProgress, PendingUntilTheNodeIsUpThenStepsByPause) {
  const Canary spec = ThreeSteps();
  CanaryDecision d =
      ProgressCanary(spec, 1, std::nullopt, {.health = Health::kUnknown}, kT0);
  EXPECT_EQ(d.state.phase, CanaryPhase::kPending);
  EXPECT_EQ(d.state.percent, 0);
  EXPECT_EQ(d.next_step_at_ms, std::nullopt);
  EXPECT_EQ(d.message,
            "waiting for Node bj-02 to be Up and Active (Unknown, Active)");

  d = ProgressCanary(spec, 1, d.state, UpNode(), kT0);
  EXPECT_EQ(d.state.phase, CanaryPhase::kProgressing);
  EXPECT_EQ(d.state.step, 0u);
  EXPECT_EQ(d.state.percent, 10);
  EXPECT_EQ(d.next_step_at_ms, kT0 + 60'000);
  EXPECT_TRUE(d.changed);

  CanaryDecision same =
      ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 59'999);
  EXPECT_FALSE(same.changed);
  EXPECT_EQ(same.message, d.message);

  d = ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 60'000);
  EXPECT_EQ(d.state.step, 1u);
  EXPECT_EQ(d.state.percent, 50);
  EXPECT_EQ(d.state.step_started_at_ms, kT0 + 60'000);
  EXPECT_EQ(d.next_step_at_ms, kT0 + 180'000);

  // Not Up when due: held, no requeue (the node's change brings a plan).
  CanaryDecision held = ProgressCanary(
      spec, 1, d.state, {.health = Health::kDown}, kT0 + 200'000);
  EXPECT_EQ(held.state.step, 1u);
  EXPECT_EQ(held.next_step_at_ms, std::nullopt);

  d = ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 200'000);
  EXPECT_EQ(d.state.phase, CanaryPhase::kSucceeded);
  EXPECT_EQ(d.state.percent, 100);
  EXPECT_EQ(d.message,
            "last step reached: 100% of clients on Node bj-02, held until the "
            "Canary is deleted");
}

TEST(CanaryProgress, AnalysisLimitsFailTheRolloutUntilTheSpecChanges) {
  const Canary spec = ThreeSteps();
  const CanaryState running =
      ProgressCanary(spec, 1, std::nullopt, UpNode(), kT0).state;
  CanarySignals bad = UpNode();
  bad.consecutive_failures = 3;
  bad.worst_vantage = "vantage-a";
  // Unset limits check nothing.
  EXPECT_EQ(ProgressCanary(spec, 1, running, bad, kT0 + 1).state.phase,
            CanaryPhase::kProgressing);
  bad.max_failures = 2;
  CanaryDecision d = ProgressCanary(spec, 1, running, bad, kT0 + 1);
  EXPECT_EQ(d.state.phase, CanaryPhase::kFailed);
  EXPECT_EQ(d.state.percent, 0);
  EXPECT_EQ(d.reason, "AnalysisFailed");
  EXPECT_EQ(d.message,
            "Node bj-02: 3 consecutive failed probes seen by vantage "
            "vantage-a, more than spec.analysis.maxFailures 2; the share is "
            "back to 0 until the spec changes");
  // Failed holds, whatever the node does now.
  EXPECT_EQ(
      ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 999'999).state.phase,
      CanaryPhase::kFailed);
  // A new generation starts over.
  EXPECT_EQ(ProgressCanary(spec, 2, d.state, UpNode(), kT0 + 2).state.phase,
            CanaryPhase::kProgressing);

  CanarySignals slow = UpNode();
  slow.latency_ms = 300;
  slow.max_latency_ms = 250;
  EXPECT_EQ(ProgressCanary(spec, 1, running, slow, kT0 + 1).message,
            "Node bj-02: probe latency 300 ms, over spec.analysis.maxLatency "
            "250 ms; the share is back to 0 until the spec changes");
}

// Status round trip: what ProgressCanary decided reads back the same.
TEST(CanaryProgress, StateReadsBackFromStatus) {
  const json status = json::parse(R"({
    "observedGeneration": 3, "phase": "Failed", "percent": 0, "step": 1,
    "stepStartedAt": "2026-11-30T00:53:20Z",
    "conditions": [{"type": "Ready", "status": "False",
      "reason": "AnalysisFailed",
      "message": "Node x: too slow; the share is back to 0 until the spec changes"}]})");
  const std::optional<CanaryState> s = ReadCanaryState(status);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->phase, CanaryPhase::kFailed);
  EXPECT_EQ(s->observed_generation, 3);
  EXPECT_EQ(s->step, 1u);
  EXPECT_EQ(s->step_started_at_ms, kT0);
  EXPECT_EQ(s->failure, "Node x: too slow");
  EXPECT_FALSE(ReadCanaryState(json::parse(R"({"phase": "Paused"})")));
  const std::optional<CanaryState> paused = ReadCanaryState(json::parse(R"({
    "observedGeneration": 3, "phase": "Paused", "percent": 50, "step": 1,
    "stepStartedAt": "2026-11-30T00:53:20Z",
    "pausedAt": "2026-11-30T00:54:20Z"})"));
  ASSERT_TRUE(paused);
  EXPECT_EQ(paused->phase, CanaryPhase::kPaused);
  EXPECT_EQ(paused->paused_at_ms, kT0 + 60'000);
  const std::optional<CanaryState> aborted = ReadCanaryState(json::parse(R"({
    "observedGeneration": 3, "phase": "Failed", "percent": 0, "step": 1,
    "conditions": [{"type": "Ready", "status": "False", "reason": "Aborted",
      "message": "aborted by the annotation gslb.ax.io/canary-abort; the share is back to 0 until the spec changes"}]})"));
  ASSERT_TRUE(aborted);
  EXPECT_TRUE(aborted->aborted);
  EXPECT_EQ(aborted->failure,
            "aborted by the annotation gslb.ax.io/canary-abort");
  EXPECT_FALSE(ReadCanaryState(json::parse(R"({"phase": "Pending"})")));
}

TEST(CanaryProgress, PauseHoldsTheStepAndResumeKeepsWhatWasLeft) {
  const Canary spec = ThreeSteps();  // 10% for 60 s, 50% for 120 s, 100%
  CanaryDecision d = ProgressCanary(spec, 1, std::nullopt, UpNode(), kT0);
  const CanaryControl pause{.paused = true};
  d = ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 20'000, pause);
  EXPECT_EQ(d.state.phase, CanaryPhase::kPaused);
  EXPECT_EQ(d.state.paused_at_ms, kT0 + 20'000);
  EXPECT_EQ(d.reason, "Paused");
  EXPECT_STREQ(d.event, "CanaryPaused");
  EXPECT_EQ(d.next_step_at_ms, std::nullopt);
  EXPECT_EQ(d.message,
            "step 1/3: 10% of clients on Node bj-02, paused by the annotation "
            "gslb.ax.io/canary-paused with 40 s of the step's pause left");
  // Long past the step's pause: still held, quietly.
  CanaryDecision held =
      ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 500'000, pause);
  EXPECT_EQ(held.state.phase, CanaryPhase::kPaused);
  EXPECT_EQ(held.state.percent, 10);
  EXPECT_FALSE(held.changed);
  EXPECT_EQ(held.event, nullptr);
  // The analysis still runs while paused.
  CanarySignals failing = UpNode();
  failing.consecutive_failures = 3;
  failing.max_failures = 1;
  EXPECT_EQ(ProgressCanary(spec, 1, d.state, failing, kT0 + 30'000, pause)
                .state.phase,
            CanaryPhase::kFailed);
  // Resumed at +500 s: the 40 s that were left count from then.
  d = ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 500'000);
  EXPECT_EQ(d.state.phase, CanaryPhase::kProgressing);
  EXPECT_EQ(d.state.step, 0u);
  EXPECT_STREQ(d.event, "CanaryResumed");
  EXPECT_EQ(d.next_step_at_ms, kT0 + 540'000);
  EXPECT_EQ(
      ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 539'999).state.step, 0u);
  EXPECT_EQ(
      ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 540'000).state.step, 1u);
  // Paused before the first step: it does not start.
  CanaryDecision pending =
      ProgressCanary(spec, 1, std::nullopt, UpNode(), kT0, pause);
  EXPECT_EQ(pending.state.phase, CanaryPhase::kPending);
  EXPECT_EQ(pending.message,
            "waiting for Node bj-02 to be Up and Active (Up, Active) and for "
            "the annotation gslb.ax.io/canary-paused to go");
}

TEST(CanaryProgress, PromoteJumpsToItsStepAndAbortTakesTheShareBack) {
  const Canary spec = ThreeSteps();
  CanaryDecision d = ProgressCanary(spec, 1, std::nullopt, UpNode(), kT0);
  // Promote to step 2 (index 1) long before the pause ends.
  d = ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 1000, {.promote_to = 1});
  EXPECT_EQ(d.state.step, 1u);
  EXPECT_EQ(d.state.percent, 50);
  EXPECT_EQ(d.state.step_started_at_ms, kT0 + 1000);
  EXPECT_STREQ(d.event, "CanaryPromoted");
  // The annotation stays: no second jump, the step's pause counts as usual.
  CanaryDecision again =
      ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 2000, {.promote_to = 1});
  EXPECT_FALSE(again.changed);
  EXPECT_EQ(again.next_step_at_ms, kT0 + 121'000);
  // Not while the node is down.
  EXPECT_EQ(ProgressCanary(spec, 1, d.state, {.health = Health::kDown},
                           kT0 + 3000, {.promote_to = 2})
                .state.step,
            1u);
  // A full promotion while paused: the last step, Succeeded.
  CanaryDecision full = ProgressCanary(spec, 1, d.state, UpNode(), kT0 + 3000,
                                       {.paused = true, .promote_to = 2});
  EXPECT_EQ(full.state.phase, CanaryPhase::kSucceeded);
  EXPECT_EQ(full.state.percent, 100);
  EXPECT_STREQ(full.event, "CanaryPromoted");
  // Abort, even after success: the share back to 0, a Warning.
  CanaryDecision aborted = ProgressCanary(spec, 1, full.state, UpNode(),
                                          kT0 + 4000, {.abort = true});
  EXPECT_EQ(aborted.state.phase, CanaryPhase::kFailed);
  EXPECT_EQ(aborted.state.percent, 0);
  EXPECT_EQ(aborted.reason, "Aborted");
  EXPECT_STREQ(aborted.event, "CanaryAborted");
  EXPECT_TRUE(aborted.warning);
  EXPECT_EQ(aborted.message,
            "aborted by the annotation gslb.ax.io/canary-abort; the share is "
            "back to 0 until the spec changes");
  // A promotion from Pending, straight to its step once the node is Up.
  CanaryDecision start =
      ProgressCanary(spec, 1, std::nullopt, UpNode(), kT0, {.promote_to = 1});
  EXPECT_EQ(start.state.step, 1u);
  EXPECT_STREQ(start.event, "CanaryPromoted");
}

json CanaryObject() {
  return testing::Object("Canary", "new-bj",
                         {{"domain", "www"},
                          {"node", "bj-01"},
                          {"steps",
                           {{{"percent", 10}, {"pause", "1m"}},
                            {{"percent", 50}, {"pause", "1m"}},
                            {{"percent", 100}}}},
                          {"analysis", {{"maxFailures", 2}}}});
}

TEST(CanaryPlan, StepsArePublishedAndRecorded) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(CanaryObject());
  Plan plan = c.Step(kT0);
  EXPECT_EQ(plan.requeue_after_ms, 29'001);  // the reports turn stale first
  EXPECT_THAT(EventLines(plan), Contains("Canary/new-bj Normal CanaryStep"));
  const json& status = c.Status("Canary", "new-bj");
  EXPECT_EQ(status["phase"], "Progressing");
  EXPECT_EQ(status["percent"], 10);
  EXPECT_EQ(status["step"], 0);
  EXPECT_EQ(status["stepStartedAt"], FormatRfc3339Ms(kT0));
  EXPECT_EQ(ConditionOf(status, "Ready")["message"],
            "step 1/3: 10% of clients on Node bj-01 until " +
                FormatRfc3339Seconds(kT0 + 60'000));
  EXPECT_EQ(ServedCanaryPercent(c), 10);

  c.ReplaceReports(testing::UpReports(kT0 + 59'000));
  plan = c.Step(kT0 + 59'999);
  EXPECT_EQ(plan.requeue_after_ms, 1);
  EXPECT_THAT(plan.events, IsEmpty());

  plan = c.Step(kT0 + 60'000);
  EXPECT_EQ(c.Status("Canary", "new-bj")["percent"], 50);
  EXPECT_EQ(ServedCanaryPercent(c), 50);
  c.ReplaceReports(testing::UpReports(kT0 + 119'000));
  plan = c.Step(kT0 + 120'000);
  EXPECT_THAT(EventLines(plan),
              Contains("Canary/new-bj Normal CanarySucceeded"));
  EXPECT_EQ(c.Status("Canary", "new-bj")["phase"], "Succeeded");
  EXPECT_EQ(ServedCanaryPercent(c), 100);
}

TEST(CanaryPlan, FailedAnalysisTakesTheShareBack) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(CanaryObject());
  c.Step(kT0);
  EXPECT_EQ(ServedCanaryPercent(c), 10);
  std::vector<json> reports = testing::UpReports(kT0 + 4000);
  for (json& r : reports) {
    for (json& result : r["spec"]["results"]) {
      if (result["node"] == "bj-01") result["consecutiveFailures"] = 3;
    }
  }
  c.ReplaceReports(reports);
  Plan plan = c.Step(kT0 + 5000);
  EXPECT_THAT(EventLines(plan), Contains("Canary/new-bj Warning CanaryFailed"));
  EXPECT_EQ(c.Status("Canary", "new-bj")["phase"], "Failed");
  EXPECT_EQ(ServedCanaryPercent(c), 0);
  // Stays failed quietly, also once the node recovers.
  c.ReplaceReports(testing::UpReports(kT0 + 9000));
  plan = c.Step(kT0 + 10'000);
  EXPECT_THAT(plan.events, IsEmpty());
  EXPECT_EQ(c.Status("Canary", "new-bj")["phase"], "Failed");
  // Editing the spec starts over.
  c.EditSpec("Canary", "new-bj", {{"analysis", {{"maxFailures", 5}}}});
  c.Step(kT0 + 11'000);
  EXPECT_EQ(c.Status("Canary", "new-bj")["phase"], "Progressing");
  EXPECT_EQ(ServedCanaryPercent(c), 10);
}

TEST(CanaryControl, AnnotationsAreReadStrictlyForTheirGeneration) {
  json object = CanaryObject();
  json& annotations = object["metadata"]["annotations"];
  annotations[kCanaryPausedAnnotation] = "true";
  annotations[kCanaryAbortAnnotation] = "3";
  annotations[kCanaryPromoteAnnotation] = "3/2";
  CanaryControl c = ReadCanaryControl(object, 3, 3);
  EXPECT_TRUE(c.paused);
  EXPECT_TRUE(c.abort);
  EXPECT_EQ(c.promote_to, 1u);
  EXPECT_EQ(c.error, "");
  // Written for generation 3: stale once the spec is at 4.
  c = ReadCanaryControl(object, 4, 3);
  EXPECT_FALSE(c.abort);
  EXPECT_EQ(c.promote_to, std::nullopt);
  // Without a generation (a manifest in git): for every generation.
  annotations[kCanaryAbortAnnotation] = "true";
  annotations[kCanaryPromoteAnnotation] = "3";
  c = ReadCanaryControl(object, 4, 3);
  EXPECT_TRUE(c.abort);
  EXPECT_EQ(c.promote_to, 2u);
  annotations[kCanaryPausedAnnotation] = "yes";
  annotations[kCanaryAbortAnnotation] = "now";
  annotations[kCanaryPromoteAnnotation] = "3/4";
  c = ReadCanaryControl(object, 3, 3);
  EXPECT_FALSE(c.paused || c.abort || c.promote_to);
  EXPECT_EQ(
      c.error,
      "annotation gslb.ax.io/canary-paused must be true or false, got "
      "\"yes\" (ignored); annotation gslb.ax.io/canary-abort must be true or "
      "the spec generation to abort, got \"now\" (ignored); annotation "
      "gslb.ax.io/canary-promote must be STEP or GENERATION/STEP with STEP "
      "from 1 to 3, got \"3/4\" (ignored)");
}

// The plan reads the step's start back from the status it wrote: written in
// whole seconds, a step entered at .700 would end up to 1 s before its pause.
TEST(CanaryPlan, APauseIsHeldToTheMillisecondFromTheStatus) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(CanaryObject());
  const int64_t start = kT0 + 700;
  c.Step(start);
  EXPECT_EQ(c.Status("Canary", "new-bj")["stepStartedAt"],
            FormatRfc3339Ms(start));
  c.ReplaceReports(testing::UpReports(kT0 + 59'000));
  c.Step(start + 59'999);
  EXPECT_EQ(ServedCanaryPercent(c), 10);
  c.Step(start + 60'000);
  EXPECT_EQ(ServedCanaryPercent(c), 50);
}

TEST(CanaryPlan, AnnotationsPauseAndAbortTheServedShare) {
  FakeCluster c = SmallCluster();
  c.state.canaries.push_back(CanaryObject());
  c.Step(kT0);
  json& annotations = c.state.canaries[0]["metadata"]["annotations"];
  annotations[kCanaryPausedAnnotation] = "true";
  Plan plan = c.Step(kT0 + 10'000);
  EXPECT_THAT(EventLines(plan), Contains("Canary/new-bj Normal CanaryPaused"));
  json status = c.Status("Canary", "new-bj");
  EXPECT_EQ(status["phase"], "Paused");
  EXPECT_EQ(status["pausedAt"], FormatRfc3339Ms(kT0 + 10'000));
  EXPECT_EQ(ConditionOf(status, "Ready")["status"], "True");
  c.ReplaceReports(testing::UpReports(kT0 + 99'000));
  c.Step(kT0 + 100'000);  // past the 1m pause: held
  EXPECT_EQ(ServedCanaryPercent(c), 10);

  annotations[kCanaryPausedAnnotation] = "maybe";
  c.Step(kT0 + 101'000);
  EXPECT_THAT(ConditionOf(c.Status("Canary", "new-bj"), "Ready")["message"]
                  .get<std::string>(),
              ::testing::HasSubstr("gslb.ax.io/canary-paused must be true or "
                                   "false, got \"maybe\" (ignored)"));
  annotations[kCanaryAbortAnnotation] =
      std::to_string(RefOf(c.state.canaries[0]).generation);
  plan = c.Step(kT0 + 102'000);
  EXPECT_THAT(EventLines(plan),
              Contains("Canary/new-bj Warning CanaryAborted"));
  status = c.Status("Canary", "new-bj");
  EXPECT_EQ(status["phase"], "Failed");
  EXPECT_EQ(ConditionOf(status, "Ready")["reason"], "Aborted");
  EXPECT_FALSE(status.contains("pausedAt"));
  EXPECT_EQ(ServedCanaryPercent(c), 0);
}

}  // namespace
}  // namespace ax::controller
