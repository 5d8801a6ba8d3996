// ProgressCanary and ReadCanaryState (canary_progress.h). Step times are the
// plan's now_ms when a step is entered, since that is when its share is
// published; pauses are whole seconds (spec.steps[].pause).
#include "ax/controller/canary_progress.h"

#include <algorithm>
#include <cstdio>

#include "ax/enum_names.h"
#include "ax/rfc3339.h"

namespace ax::controller {
namespace {

using nlohmann::json;

constexpr NameTable<CanaryPhase, 5> kPhaseNames{{
    {CanaryPhase::kPending, "Pending"},
    {CanaryPhase::kProgressing, "Progressing"},
    {CanaryPhase::kPaused, "Paused"},
    {CanaryPhase::kSucceeded, "Succeeded"},
    {CanaryPhase::kFailed, "Failed"},
}};

constexpr char kAnalysisFailed[] = "AnalysisFailed";
constexpr char kAborted[] = "Aborted";
constexpr char kShareBack[] = "; the share is back to 0";

// Enters step `i`: its share now, its pause from now.
void Enter(const Canary& spec, uint32_t i, int64_t now_ms, CanaryState& s) {
  s.step = i;
  s.percent = spec.steps[i].percent;
  s.step_started_at_ms = now_ms;
  s.paused_at_ms = 0;
  s.phase = i + 1 == spec.steps.size() ? CanaryPhase::kSucceeded
                                       : CanaryPhase::kProgressing;
}

void Fail(std::string why, bool aborted, CanaryState& s) {
  s.phase = CanaryPhase::kFailed;
  s.percent = 0;
  s.paused_at_ms = 0;
  s.failure = std::move(why);
  s.aborted = aborted;
}

int64_t StepDueMs(const Canary& spec, const CanaryState& s) {
  return s.step_started_at_ms +
         int64_t{spec.steps[s.step].pause_seconds} * 1000;
}

// Why the analysis fails the rollout now, or "".
std::string AnalysisFailure(const Canary& spec, const CanarySignals& node) {
  if (node.max_failures && node.consecutive_failures > *node.max_failures) {
    return "Node " + spec.node + ": " +
           std::to_string(node.consecutive_failures) +
           " consecutive failed probes seen by vantage " + node.worst_vantage +
           ", more than spec.analysis.maxFailures " +
           std::to_string(*node.max_failures);
  }
  if (node.max_latency_ms && node.latency_ms &&
      *node.latency_ms > *node.max_latency_ms) {
    return "Node " + spec.node + ": probe latency " +
           QuotedNumber(*node.latency_ms) +
           " ms, over spec.analysis.maxLatency " +
           QuotedNumber(*node.max_latency_ms) + " ms";
  }
  for (const MetricVerdict& m : node.metrics) {
    if (!m.breach.empty()) return m.breach;
  }
  return "";
}

// Why the metrics cannot let the rollout step on yet, or "": each must have
// been read since the step's share was published.
std::string MetricsWait(const CanarySignals& node, const CanaryState& s) {
  for (const MetricVerdict& m : node.metrics) {
    if (!m.missing.empty()) return m.missing;
    if (m.read_at_ms < s.step_started_at_ms) {
      return m.subject + " not read since the step began";
    }
  }
  return "";
}

// A promotion people asked for, when it moves the rollout on: true.
bool Promote(const Canary& spec, const CanaryControl& control, bool node_ready,
             int64_t now_ms, CanaryState& s) {
  if (!control.promote_to || *control.promote_to <= s.step || !node_ready) {
    return false;
  }
  Enter(spec, *control.promote_to, now_ms, s);
  return true;
}

// A running rollout (Progressing or Paused) under people's requests: resume
// with what was left of the step's pause, promote or step on when due, pause.
// True when it promoted.
bool Steer(const Canary& spec, const CanaryControl& control, bool node_ready,
           bool judged, int64_t now_ms, CanaryState& s) {
  if (s.phase == CanaryPhase::kPaused && !control.paused) {
    s.step_started_at_ms += now_ms - s.paused_at_ms;
    s.paused_at_ms = 0;
    s.phase = CanaryPhase::kProgressing;
  }
  const bool promoted = Promote(spec, control, node_ready, now_ms, s);
  if (!promoted && s.phase == CanaryPhase::kProgressing && !control.paused &&
      node_ready && judged && now_ms >= StepDueMs(spec, s)) {
    Enter(spec, s.step + 1, now_ms, s);
  }
  if (control.paused && s.phase == CanaryPhase::kProgressing) {
    s.phase = CanaryPhase::kPaused;
    s.paused_at_ms = now_ms;
  }
  return promoted;
}

// The Event worth a change from `before` to `s`.
void EventFor(const std::optional<CanaryState>& before, const CanaryState& s,
              bool promoted, CanaryDecision& d) {
  if (!d.changed) return;
  const CanaryPhase was = before ? before->phase : CanaryPhase::kPending;
  switch (s.phase) {
    case CanaryPhase::kPending:
      return;
    case CanaryPhase::kFailed:
      d.event = s.aborted ? "CanaryAborted" : "CanaryFailed";
      d.warning = true;
      return;
    case CanaryPhase::kSucceeded:
      d.event = promoted ? "CanaryPromoted" : "CanarySucceeded";
      return;
    case CanaryPhase::kPaused:
    case CanaryPhase::kProgressing:
      break;
  }
  const bool stepped =
      !before || before->step != s.step || was == CanaryPhase::kPending;
  if (promoted) {
    d.event = "CanaryPromoted";
  } else if (stepped) {
    d.event = "CanaryStep";
  } else if (s.phase == CanaryPhase::kPaused) {
    d.event = "CanaryPaused";
  } else if (was == CanaryPhase::kPaused) {
    d.event = "CanaryResumed";
  }
}

void Describe(const Canary& spec, const CanarySignals& node, bool node_ready,
              const CanaryControl& control, CanaryDecision& d) {
  const CanaryState& s = d.state;
  const std::string at =
      QuotedNumber(s.percent) + "% of clients on Node " + spec.node;
  d.reason = CanaryPhaseName(s.phase);
  switch (s.phase) {
    case CanaryPhase::kPending:
      d.message = "waiting for Node " + spec.node + " to be Up and Active (" +
                  HealthName(node.health) + ", " +
                  AdminStateName(node.admin_state) + ")";
      if (control.paused) {
        d.message += std::string(" and for the annotation ") +
                     kCanaryPausedAnnotation + " to go";
      }
      break;
    case CanaryPhase::kProgressing: {
      d.message = "step " + std::to_string(s.step + 1) + "/" +
                  std::to_string(spec.steps.size()) + ": " + at +
                  (node_ready ? " until "
                              : ", held while the node is not Up; "
                                "the next step is due at ") +
                  FormatRfc3339Seconds(StepDueMs(spec, s));
      if (std::string wait = MetricsWait(node, s); !wait.empty()) {
        d.message += ", and then waits until " + wait;
      }
      break;
    }
    case CanaryPhase::kPaused:
      d.message = "step " + std::to_string(s.step + 1) + "/" +
                  std::to_string(spec.steps.size()) + ": " + at +
                  ", paused by the annotation " + kCanaryPausedAnnotation +
                  " with " +
                  std::to_string(std::max<int64_t>(
                                     0, StepDueMs(spec, s) - s.paused_at_ms) /
                                 1000) +
                  " s of the step's pause left";
      break;
    case CanaryPhase::kSucceeded:
      // The share stays until the Canary goes: then the node is one of its
      // Regions' members again, or nobody's if no Region lists it.
      d.message =
          "last step reached: " + at + ", held until the Canary is deleted";
      break;
    case CanaryPhase::kFailed:
      d.reason = s.aborted ? kAborted : kAnalysisFailed;
      d.message = s.failure + kShareBack + " until the spec changes";
      break;
  }
  if (!control.error.empty()) d.message += "; " + control.error;
}

}  // namespace

const char* CanaryPhaseName(CanaryPhase phase) {
  return NameOf(kPhaseNames, phase);
}

std::optional<CanaryState> ReadCanaryState(const json& status) {
  if (!status.is_object()) return std::nullopt;
  const json phase = status.value("phase", json());
  const json generation = status.value("observedGeneration", json());
  if (!phase.is_string() || !generation.is_number_integer()) {
    return std::nullopt;
  }
  std::optional<CanaryPhase> parsed =
      ValueOf(kPhaseNames, phase.get_ref<const std::string&>());
  if (!parsed) return std::nullopt;
  CanaryState s;
  s.phase = *parsed;
  s.observed_generation = generation.get<int64_t>();
  if (json p = status.value("percent", json()); p.is_number()) {
    s.percent = p.get<double>();
  }
  if (json step = status.value("step", json()); step.is_number_unsigned()) {
    s.step = step.get<uint32_t>();
  }
  if (json at = status.value("stepStartedAt", json()); at.is_string()) {
    s.step_started_at_ms =
        ParseRfc3339Ms(at.get_ref<const std::string&>()).value_or(0);
  }
  if (json at = status.value("pausedAt", json()); at.is_string()) {
    s.paused_at_ms =
        ParseRfc3339Ms(at.get_ref<const std::string&>()).value_or(0);
  }
  for (const json& c : status.value("conditions", json::array())) {
    if (!c.is_object() || !c.value("message", json()).is_string()) continue;
    const json reason = c.value("reason", json());
    if (reason == kAnalysisFailed || reason == kAborted) {
      s.aborted = reason == kAborted;
      s.failure = c["message"].get<std::string>();
      // The stored message carries the suffix Describe adds.
      if (size_t cut = s.failure.find(kShareBack); cut != std::string::npos) {
        s.failure.resize(cut);
      }
    }
  }
  return s;
}

CanaryDecision ProgressCanary(const Canary& spec, int64_t generation,
                              const std::optional<CanaryState>& current,
                              const CanarySignals& node, int64_t now_ms,
                              const CanaryControl& control) {
  CanaryDecision d;
  CanaryState& s = d.state;
  // A state for an older spec (or a step the spec no longer has) restarts.
  if (current && current->observed_generation == generation &&
      current->step < spec.steps.size()) {
    s = *current;
  } else {
    s = CanaryState{.observed_generation = generation};
  }
  const bool node_ready =
      node.health == Health::kUp && node.admin_state == AdminState::kActive;
  bool promoted = false;
  const std::string aborted_by =
      std::string("aborted by the annotation ") + kCanaryAbortAnnotation;
  switch (s.phase) {
    case CanaryPhase::kPending:
      if (control.abort) {
        Fail(aborted_by, true, s);
      } else if (node_ready && !control.paused) {
        Enter(spec, 0, now_ms, s);
        promoted = Promote(spec, control, node_ready, now_ms, s);
      }
      break;
    case CanaryPhase::kProgressing:
    case CanaryPhase::kPaused:
      if (std::string why = AnalysisFailure(spec, node); !why.empty()) {
        Fail(std::move(why), false, s);
      } else if (control.abort) {
        Fail(aborted_by, true, s);
      } else {
        promoted = Steer(spec, control, node_ready,
                         MetricsWait(node, s).empty(), now_ms, s);
      }
      break;
    case CanaryPhase::kSucceeded:
      if (control.abort) Fail(aborted_by, true, s);
      break;
    case CanaryPhase::kFailed:
      break;
  }
  // Due but held (node not Up): the node's next change triggers a plan.
  if (s.phase == CanaryPhase::kProgressing && StepDueMs(spec, s) > now_ms) {
    d.next_step_at_ms = StepDueMs(spec, s);
  }
  d.changed = !current || current->phase != s.phase ||
              current->step != s.step || current->percent != s.percent;
  EventFor(current, s, promoted, d);
  Describe(spec, node, node_ready, control, d);
  return d;
}

}  // namespace ax::controller
