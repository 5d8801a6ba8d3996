// ProgressCanaries (canary_progress.h): the plan's side of the rollout — each
// valid Canary's current state from its status, people's requests from its
// annotations, the signals of its node from the quorum and the builder's
// health, and its percent put into the World.
#include <nlohmann/json.hpp>

#include "ax/build_snapshot.h"
#include "ax/controller/canary_progress.h"
#include "ax/controller/object_ref.h"

namespace ax::controller {
namespace {

using nlohmann::json;

const json* FindByName(const std::vector<json>& list, const std::string& name) {
  for (const json& object : list) {
    if (RefOf(object).name == name) return &object;
  }
  return nullptr;
}

// spec.analysis.<key> when the Canary sets it (the model reads unset as 0).
bool AnalysisSets(const json* object, const char* key) {
  if (!object) return false;
  const json spec = object->value("spec", json::object());
  const json analysis =
      spec.is_object() ? spec.value("analysis", json::object()) : json();
  return analysis.is_object() && analysis.contains(key);
}

CanarySignals SignalsFor(const Canary& canary, const json* object,
                         const World& world, const StatusMap& status,
                         const NodeHealth& health,
                         const std::vector<std::string>& baseline,
                         const ObservedState& observed) {
  const int64_t now_ms = observed.now_ms;
  CanarySignals s;
  for (const Node& n : world.nodes) {
    if (n.meta.name != canary.node) continue;
    s.health = NodeHealthOf(n, status);
    s.admin_state = n.AdminStateAt(now_ms);
  }
  if (auto v = health.quorum.nodes.find(canary.node);
      v != health.quorum.nodes.end()) {
    s.latency_ms = v->second.latency_ms;
  }
  if (auto views = health.vantages.find(canary.node);
      views != health.vantages.end()) {
    for (const VantageView& v : views->second) {
      if (v.vote == Vote::kCounted &&
          v.consecutive_failures > s.consecutive_failures) {
        s.consecutive_failures = v.consecutive_failures;
        s.worst_vantage = v.vantage;
      }
    }
  }
  if (AnalysisSets(object, "maxFailures")) {
    s.max_failures = canary.analysis.max_failures;
  }
  if (AnalysisSets(object, "maxLatency")) {
    s.max_latency_ms = canary.analysis.max_latency_ms;
  }
  auto readings = observed.canary_readings.find(canary.meta.name);
  s.metrics = JudgeMetrics(
      canary, baseline,
      readings == observed.canary_readings.end() ? nullptr : &readings->second);
  if (auto rate = JudgeErrorRate(canary, baseline, health.quorum)) {
    s.metrics.push_back(std::move(*rate));
  }
  return s;
}

}  // namespace

std::map<std::string, CanaryDecision> ProgressCanaries(
    const ObservedState& observed, World& world, const StatusMap& status,
    const NodeHealth& health) {
  std::map<std::string, CanaryDecision> out;
  for (Canary& canary : world.canaries) {
    const json* object = FindByName(observed.canaries, canary.meta.name);
    std::optional<CanaryState> current;
    if (object && object->contains("status")) {
      current = ReadCanaryState((*object)["status"]);
    }
    const CanaryControl control =
        object ? ReadCanaryControl(*object, canary.meta.generation,
                                   canary.steps.size())
               : CanaryControl{};
    const std::vector<std::string> baseline =
        BaselineNodes(canary, world, observed.now_ms);
    CanaryDecision d = ProgressCanary(
        canary, canary.meta.generation, current,
        SignalsFor(canary, object, world, status, health, baseline, observed),
        observed.now_ms, control);
    if (d.state.phase == CanaryPhase::kProgressing ||
        d.state.phase == CanaryPhase::kPaused) {
      d.queries = QueriesFor(canary, baseline);
    }
    canary.status_percent = d.state.percent;
    canary.status_phase = CanaryPhaseName(d.state.phase);
    out.emplace(canary.meta.name, std::move(d));
  }
  return out;
}

}  // namespace ax::controller
