// The Canary rollout as a pure state machine of now_ms: Pending until the
// canary node is Up and Active, Progressing through spec.steps (each held for
// its pause), Paused while people hold it, Succeeded on the last step, Failed
// (share back to 0) when the analysis limits are exceeded or people abort it.
// People's requests (canary_control.h) are inputs like the node's signals.
// ProgressCanaries puts the decided percent into the World, so the same plan's
// snapshot serves it. Probe signals come from node_health.h; writing the state
// into status is the status planner's.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/controller/canary_control.h"
#include "ax/controller/canary_metrics.h"
#include "ax/controller/node_health.h"
#include "ax/controller/observed_state.h"
#include "ax/model.h"
#include "ax/node_status.h"

namespace ax::controller {

enum class CanaryPhase { kPending, kProgressing, kPaused, kSucceeded, kFailed };
const char* CanaryPhaseName(CanaryPhase phase);

// What status records about the rollout.
struct CanaryState {
  CanaryPhase phase = CanaryPhase::kPending;
  double percent = 0;  // the share in force
  uint32_t step = 0;   // index into spec.steps
  int64_t step_started_at_ms = 0;
  int64_t observed_generation = 0;  // the spec generation the state is for
  int64_t paused_at_ms = 0;         // while Paused: since when
  // Why the rollout failed (the Ready condition's message), kept while Failed;
  // `aborted` when people asked for it, not the analysis.
  std::string failure;
  bool aborted = false;
};

// The state in a Canary's status, or nullopt when there is none yet (or it is
// not one this planner wrote: unknown phase, no observedGeneration).
std::optional<CanaryState> ReadCanaryState(const nlohmann::json& status);

// What the canary node looks like now, for starting and for the analysis.
struct CanarySignals {
  Health health = Health::kUnknown;  // as the snapshot builder sees it
  AdminState admin_state = AdminState::kActive;
  std::optional<double> latency_ms;  // quorum median over counted vantages
  // Most consecutive failed probes any counted vantage reports.
  uint32_t consecutive_failures = 0;
  std::string worst_vantage;  // the vantage reporting them
  // spec.analysis limits that are set (the model's 0 means unset).
  std::optional<uint32_t> max_failures;
  std::optional<double> max_latency_ms;
  // spec.analysis.metrics as their readings judge them.
  std::vector<MetricVerdict> metrics;
};

struct CanaryDecision {
  CanaryState state;
  std::string reason;   // for the Ready condition: Pending, Progressing,
                        // Paused, Succeeded, AnalysisFailed, Aborted
  std::string message;  // stable while the state holds
  // The Event this call's change is worth (CanaryStep, CanaryPaused,
  // CanaryResumed, CanaryPromoted, CanarySucceeded, CanaryFailed,
  // CanaryAborted), or nullptr; `warning` for the share taken back.
  const char* event = nullptr;
  bool warning = false;
  // When the next step is due (Progressing only): requeue then.
  std::optional<int64_t> next_step_at_ms;
  bool changed = false;  // phase, step or percent differ from `current`
  // While the analysis runs (Progressing, Paused): the metrics to read.
  std::vector<CanaryQuery> queries;
};

// One step of the state machine. A new spec generation restarts the rollout
// at step 0; Failed and Succeeded hold until then (an abort still takes a
// Succeeded share back). At most one step advances per call (each step's share
// must be published before its pause counts), and only while the node is Up;
// a promotion jumps to its step at once. The analysis runs while Paused. With
// spec.analysis.metrics a step also waits until each metric has been read
// since the step began and is within its limits; a breach fails the rollout.
CanaryDecision ProgressCanary(const Canary& spec, int64_t generation,
                              const std::optional<CanaryState>& current,
                              const CanarySignals& node, int64_t now_ms,
                              const CanaryControl& control = {});

// Runs ProgressCanary for every Canary of `world` (the valid ones), reading
// each one's state from its object's status and its node's signals from
// `status` (the builder's input) and `health`, and puts the decided percent
// and phase into `world`, so the snapshot built next serves them. By name.
std::map<std::string, CanaryDecision> ProgressCanaries(
    const ObservedState& observed, World& world, const StatusMap& status,
    const NodeHealth& health);

}  // namespace ax::controller
