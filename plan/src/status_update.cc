// PlanStatusUpdate and MergePatch (status_update.h).
#include "ax/controller/status_update.h"

namespace ax::controller {

using nlohmann::json;

const json* CurrentStatus(const json& object) {
  if (!object.is_object()) return nullptr;
  auto it = object.find("status");
  return it != object.end() && it->is_object() ? &*it : nullptr;
}

json MergePatch(const json& from, const json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  json patch = json::object();
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) patch[key] = nullptr;
  }
  for (const auto& [key, value] : to.items()) {
    auto old = from.find(key);
    if (old == from.end()) {
      patch[key] = value;
    } else if (*old != value) {
      patch[key] = MergePatch(*old, value);
    }
  }
  return patch;
}

std::optional<StatusUpdate> PlanStatusUpdate(const json& object, json desired) {
  const json* current = CurrentStatus(object);
  const json empty = json::object();
  const json& before = current ? *current : empty;
  if (before == desired) return std::nullopt;
  StatusUpdate update{.object = RefOf(object), .status = {}, .merge_patch = {}};
  update.merge_patch = {{"status", MergePatch(before, desired)}};
  update.status = std::move(desired);
  return update;
}

}  // namespace ax::controller
