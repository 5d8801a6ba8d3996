// Shared status planning (status_common.h).
#include "status_common.h"

#include "ax/controller/status_update.h"

namespace ax::controller::status {

using nlohmann::json;

bool ConditionTransition(const json& object, const Condition& next) {
  const json* status = CurrentStatus(object);
  const json conditions =
      status ? status->value("conditions", json::array()) : json::array();
  if (!conditions.is_array()) return true;
  for (const json& c : conditions) {
    if (c.is_object() && c.value("type", json()) == next.type) {
      return c.value("status", json()) != ConditionStatusName(next.status) ||
             c.value("reason", json()) != next.reason;
    }
  }
  return true;
}

json WithConditions(json status, const json& object,
                    const std::vector<Condition>& conditions, int64_t now_ms) {
  const json* current = CurrentStatus(object);
  const json* current_conditions = nullptr;
  if (current) {
    if (auto it = current->find("conditions"); it != current->end()) {
      current_conditions = &*it;
    }
  }
  const int64_t generation = RefOf(object).generation;
  status["observedGeneration"] = generation;
  status["conditions"] =
      MergeConditions(current_conditions, conditions, generation, now_ms);
  return status;
}

void PlanInvalid(const json& object, const std::vector<ManifestError>& errors,
                 const char* in_effect, const StatusInputs& in,
                 StatusOutput& out) {
  std::string message;
  for (const ManifestError& e : errors) {
    if (!message.empty()) message += "; ";
    message += e.field.empty() ? e.message : e.field + ": " + e.message;
  }
  message += " (left out of the route table)";
  const Condition ready =
      Ready(ConditionStatus::kFalse, "InvalidSpec", std::move(message));
  const json* current = CurrentStatus(object);
  json status = current ? *current : json::object();
  if (in_effect) status[in_effect] = false;
  if (ConditionTransition(object, ready)) {
    out.events.push_back(
        {RefOf(object), EventType::kWarning, ready.reason, ready.message});
  }
  Emit(object,
       WithConditions(std::move(status), object, {ready}, in.observed.now_ms),
       out);
}

void Emit(const json& object, json desired, StatusOutput& out) {
  if (auto update = PlanStatusUpdate(object, std::move(desired))) {
    out.updates.push_back(std::move(*update));
  }
}

}  // namespace ax::controller::status
