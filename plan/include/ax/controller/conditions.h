// Status conditions shaped as metav1.Condition, and how a desired set merges
// into an object's current ones: lastTransitionTime moves only when a
// condition's status changes, so an unchanged world writes nothing. Which
// conditions each kind carries is the status planners' business.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ax::controller {

enum class ConditionStatus { kTrue, kFalse, kUnknown };
const char* ConditionStatusName(ConditionStatus status);  // "True", ...

struct Condition {
  std::string type;  // "Ready"
  ConditionStatus status = ConditionStatus::kUnknown;
  std::string reason;   // CamelCase, e.g. "NodesHealthy"
  std::string message;  // stable for an unchanged situation (no ages)
};

inline constexpr char kReadyCondition[] = "Ready";

// The conditions array to write: `desired` in order, each stamped with
// observedGeneration = `generation` and a lastTransitionTime kept from
// `current` (the object's status.conditions; null or malformed: none) when
// that type had the same status, else `now_ms`. Conditions of other types in
// `current` (another writer's) follow unchanged.
nlohmann::json MergeConditions(const nlohmann::json* current,
                               const std::vector<Condition>& desired,
                               int64_t generation, int64_t now_ms);

}  // namespace ax::controller
