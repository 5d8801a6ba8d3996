// Internal to plan/src: what every status planner shares — the Ready
// condition, the status of an object left out as invalid, change-triggered
// Events, rounding. Kind-specific fields live in each planner.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/controller/actions.h"
#include "ax/controller/conditions.h"
#include "ax/controller/statuses.h"
#include "ax/gather.h"

namespace ax::controller::status {

inline double Round(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

inline Condition Ready(ConditionStatus status, std::string reason,
                       std::string message) {
  return {kReadyCondition, status, std::move(reason), std::move(message)};
}

// Whether the object's current condition of this type differs in status or
// reason: the transitions Events are emitted on.
bool ConditionTransition(const nlohmann::json& object, const Condition& next);

// The status with observedGeneration and the merged `conditions` added.
nlohmann::json WithConditions(nlohmann::json status,
                              const nlohmann::json& object,
                              const std::vector<Condition>& conditions,
                              int64_t now_ms);

// For an object left out of the World: its current status kept, the
// `in_effect` boolean field (ready/active; none when null) false, Ready False
// InvalidSpec with every error; an InvalidSpec Warning when that is news.
void PlanInvalid(const nlohmann::json& object,
                 const std::vector<ManifestError>& errors,
                 const char* in_effect, const StatusInputs& in,
                 StatusOutput& out);

// Adds the update when the status differs from the current one.
void Emit(const nlohmann::json& object, nlohmann::json desired,
          StatusOutput& out);

// Calls `fn(object, kind_name)` for every object of `list`.
template <typename Fn>
void ForEachObject(const std::vector<nlohmann::json>& list, Fn fn) {
  for (const nlohmann::json& object : list) {
    const ObjectRef ref = RefOf(object);
    if (ref.name.empty()) continue;  // nothing to address a status to
    fn(object, ref.KindName());
  }
}

}  // namespace ax::controller::status
